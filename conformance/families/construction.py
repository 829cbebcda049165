"""Building with duplicates, and reducing with binary operators.

    build           C = build(I, J, X, dup): Matrix.from_coo / Vector.from_coo with
                    ``dup_op`` = every binary operator, on every type. Duplicates are runs of
                    1 to 9 values per position given in an order (``order``): grouped (each
                    position's values together), shuffled, or reversed; GrB_Matrix_build
                    folds each position's values left to right in input order.
    reduce_binary   w = reduce_rowwise(A, op), reduce_columnwise, s = reduce_scalar(A, op) and
                    s = reduce(u, op) with ``op`` every binary operator, on every type: a
                    binary operator reduces only as its monoid at the type, so both libraries
                    refuse (SuiteSparse: GrB_NOT_IMPLEMENTED / GrB_DOMAIN_MISMATCH;
                    python-graphblas takes monoids only for a scalar) or both give equal
                    values.

Each case makes its coordinates and values from its seed (no operands): the runner calls
``evaluate`` as it does for the algorithms. Float results of operators computed by libm
(pow, atan2, hypot ...) are compared within conformance.compare's tolerance; the others
bit for bit where both are IEEE operations done in the same order (plus, minus, times,
division, min, max, first, second: the left fold is exact).
"""
import warnings

import numpy as np

from .. import catalog
from ..cases import Case, Family, cover, params, register
from ..operands import random_values
from ._common import skip_case, value_domain

__all__ = ["Build", "ReduceBinary"]

# the operators whose float results are exactly reproducible in the same order
EXACT = {"plus", "minus", "rminus", "times", "cdiv", "rdiv", "truediv", "rtruediv", "first",
         "second", "pair", "any", "min", "max", "lor", "land", "lxor", "lxnor", "iseq", "isne",
         "isgt", "islt", "isge", "isle", "absfirst", "abssecond", "copysign"}
ORDERS = ("grouped", "shuffled", "reversed")
# python-graphblas's numba-built operators where a fold of duplicates leaves the domain
# value_domain keeps the operands in: rfloordiv divides by the running value (x // 0 is
# undefined there), rpow's running exponent grows until numba's integer pow wraps (where
# SuiteSparse's saturates). Element-wise, the conformance families test them in domain.
UNDEFINED_FOLDS = {"rfloordiv": None, "rpow": ("INT8", "INT16", "INT32", "INT64", "UINT8",
                                               "UINT16", "UINT32", "UINT64")}
FORMS = {"build": ("vector", "matrix"),
         "reduce_binary": ("rowwise", "columnwise", "scalar", "vector")}


class _SeededFamily(Family):
    """Cases of (binary operator, type, form[, order]) whose data come from their seed."""

    op_kind = "binary"
    output = "result"
    check = True  # the runner calls evaluate(case, datas)

    def cases(self, plan):
        found = [(n, *catalog.types_for("binary", n)) for n in catalog.names("binary")]
        out = [skip_case(self, n, types[0], why) for n, types, why in found if why and types]
        testable = [(n, ts) for n, ts, why in found if not why and ts
                    and (plan.full or not catalog.gb_is_udf("binary", n))]
        if plan.mode == "tiny":
            testable = [(n, ts) for n, ts in testable if n in ("minus", "plus", "first", "pow")]
        if plan.full or plan.mode == "quick":
            pairs = [(n, t) for n, ts in testable for t in ts]
        else:
            pairs = cover(testable, plan, self.name)
        for i, (n, t) in enumerate(pairs):
            if self.name == "build" and n in UNDEFINED_FOLDS and t in (UNDEFINED_FOLDS[n] or (t,)):
                out.append(skip_case(self, n, t, "python-graphblas's numba operator is undefined "
                                     "where a fold of duplicates leaves its domain"))
                continue
            for j, form in enumerate(FORMS[self.name]):
                extra = {}
                if self.name == "build":
                    extra["order"] = ORDERS[(i + j) % len(ORDERS)] if not plan.full else None
                orders = ORDERS if plan.full and self.name == "build" else (extra.get("order"),)
                for order in orders:
                    p = dict(operator=n, type=t, form=form)
                    if order is not None:
                        p["order"] = order
                    out.append(Case(self.name, params(**p), (), plan.seed_for(self.name, n, t,
                                                                              form, order)))
        return out

    def evaluate(self, case, datas):
        import grblas_gpu as gg

        name, t = case.p("operator"), case.p("type")
        data = self.data(case)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ref, err_r = self.reference(case, data), None
            except Exception as e:  # noqa: BLE001  (its refusals, checked below)
                ref, err_r = None, e
            try:
                ours, err_g = self.ours(case, data), None
            except gg.GraphBLASError as e:
                ours, err_g = None, e
            except Exception as e:  # noqa: BLE001  (a raw exception is a failure)
                return "failed", f"grblas_gpu raised a raw {type(e).__name__}: {e}"
        if err_r is not None and not _rejection(err_r):
            return "failed", f"conformance harness: python-graphblas failed: {err_r!r}"
        if err_g is not None and err_r is not None:
            return "passed", "both reject"
        if err_r is not None:
            return "skipped", (f"python-graphblas cannot express it: {type(err_r).__name__}: "
                               f"{str(err_r).splitlines()[0][:120]}")
        if err_g is not None:
            return "failed", f"grblas_gpu raised {type(err_g).__name__}: {err_g}"
        return self.verdict(case, ours, ref, data, name, t)

    def verdict(self, case, ours, ref, data, name, t):
        from .. import compare as cmp

        if name == "any":  # any one of the candidates: the structure only
            ca = cmp.canonical(ref)
            diff = cmp.compare(ours, ref, determined=np.zeros(ca.nvals, dtype=bool),
                               check_dtype=self.name == "build")
        elif t in ("FP32", "FP64") and name in EXACT:
            diff = cmp.compare(ours, ref, nterms=0, check_dtype=self.name == "build")
        else:
            diff = cmp.compare(ours, ref, nterms=10, scale=data["scale"],
                               check_dtype=self.name == "build")
        return ("failed", diff) if diff else ("passed", "")

    def reproducer(self, case):
        d = self.data(case)
        lines = [f"# conformance case {case.key}: {case.label}",
                 "import numpy as np", "import graphblas as gb", "import grblas_gpu as gg",
                 "from grblas_gpu import semirings"]
        for k, v in d.items():
            if isinstance(v, np.ndarray):
                lines.append(f"{k} = np.array({v.tolist()!r}, dtype={str(v.dtype)!r})")
            else:
                lines.append(f"{k} = {v!r}")
        lines += [f"ours = {self.source(case, 'gg')}", f"ref = {self.source(case, 'gb')}",
                  "print(ours.to_coo() if hasattr(ours, 'to_coo') else ours)",
                  "print(ref.to_coo() if hasattr(ref, 'to_coo') else ref)"]
        return "\n".join(lines) + "\n"

    def ours(self, case, data):
        import grblas_gpu as gg
        from grblas_gpu import semirings

        return eval(self.source(case, "gg"), {"gg": gg, "semirings": semirings, **data})

    def reference(self, case, data):
        import graphblas as gb

        return eval(self.source(case, "gb"), {"gb": gb, **data})

    def available(self):
        return True


def _rejection(e):
    import graphblas.exceptions as gbx

    return isinstance(e, (gbx.GraphblasException, TypeError, ValueError, KeyError,
                          AttributeError))


def _op_text(lib, name):
    return f"semirings.binary.{name}" if lib == "gg" else catalog.gb_expr("binary", name)


@register
class Build(_SeededFamily):
    name = "build"
    function = "Matrix"

    def data(self, case):
        rng = np.random.default_rng(case.seed)
        t, form = case.p("type"), case.p("form")
        shape = (6,) if form == "vector" else (3, 4)
        ncells = int(np.prod(shape))
        runs = rng.integers(1, 10, ncells)
        runs[rng.integers(ncells)] = 0  # one position without an entry
        flat = np.repeat(np.arange(ncells), runs)
        order = case.p("order")
        if order == "shuffled":
            flat = flat[rng.permutation(len(flat))]
        elif order == "reversed":
            flat = flat[::-1].copy()
        vals = random_values(rng, len(flat), t, value_domain(case.p("operator"), t))
        out = {"vals": vals, "t": t, "shape": shape,
               "scale": float(np.abs(vals.astype(np.float64)).max(initial=0.0))}
        if form == "vector":
            out["I"] = flat
        else:
            out["I"], out["J"] = (a.astype(np.int64) for a in np.divmod(flat, shape[1]))
        return out

    def source(self, case, lib):
        op = _op_text(lib, case.p("operator"))
        if case.p("form") == "vector":
            return f"{lib}.Vector.from_coo(I, vals, size=shape[0], dtype=t, dup_op={op})"
        return (f"{lib}.Matrix.from_coo(I, J, vals, nrows=shape[0], ncols=shape[1], dtype=t, "
                f"dup_op={op})")


@register
class ReduceBinary(_SeededFamily):
    name = "reduce_binary"
    function = "reduce_rowwise"

    def data(self, case):
        rng = np.random.default_rng(case.seed)
        t = case.p("type")
        shape = (5, 4)
        keep = rng.random(shape) < 0.6
        keep[2, :] = False  # an empty row
        keep[0, 0] = True   # the vector form reduces row 0: never empty (no identity needed)
        rows, cols = np.nonzero(keep)
        vals = random_values(rng, len(rows), t, value_domain(case.p("operator"), t))
        return {"rows": rows.astype(np.int64), "cols": cols.astype(np.int64), "vals": vals,
                "t": t, "shape": shape,
                "scale": float(np.abs(vals.astype(np.float64)).max(initial=0.0))}

    def source(self, case, lib):
        op, form = _op_text(lib, case.p("operator")), case.p("form")
        new = "" if lib == "gg" else ".new()"
        if form == "vector":
            u = f"{lib}.Vector.from_coo(cols[rows == 0], vals[rows == 0], size=shape[1], dtype=t)"
            return f"{u}.reduce({op}){new}"
        A = f"{lib}.Matrix.from_coo(rows, cols, vals, nrows=shape[0], ncols=shape[1], dtype=t)"
        method = {"rowwise": "reduce_rowwise", "columnwise": "reduce_columnwise",
                  "scalar": "reduce_scalar"}[form]
        return f"{A}.{method}({op}){new}"
