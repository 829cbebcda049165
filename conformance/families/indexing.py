"""Indexing families: extract, assign, subassign.

    extract    C⟨M⟩ = accum(C, A(I, J))          (w = u(I); w = A(I, j); t0: Aᵀ(I, J))
    assign     C⟨M⟩(I, J) = accum(C(I, J), A)    M has C's shape (GrB_assign)
               C⟨m⟩(i, J) = accum(C(i, J), u)    m a Vector of ncols(C) (GrB_Row_assign)
               C⟨m⟩(I, j) = accum(C(I, j), u)    m a Vector of nrows(C) (GrB_Col_assign)
    subassign  C(I, J)⟨M⟩ = accum(C(I, J), A)    M has the region's shape (GxB_subassign)

Index lists are drawn per case: extract's may repeat and come in any order; assign's are
distinct (grblas_gpu rejects duplicates; the C API leaves their effect undefined). ``ALL``
(python-graphblas's ':', grblas_gpu's gg.ALL) is used now and then. Operators: none.
"""
from ..cases import register
from ..operands import HUGE, random_scalar
from ..texts import index_text, scalar_text
from ._common import Forms, OutputFamily

_POOL = (0, 1, 7, 2**33 + 5)  # the hypersparse operands' coordinates (operands._pick)


def _t(shape, transposed):
    return tuple(reversed(shape)) if transposed else tuple(shape)


def _indices(rng, bound, size, distinct, allow_all=True):
    """A tuple of indices below ``bound`` (or "ALL"): for huge bounds, from the pool that
    hypersparse operands use, so that the selection meets their entries."""
    if allow_all and bound < HUGE and rng.random() < 0.15:
        return "ALL"
    if bound >= HUGE:
        pool = [c for c in _POOL + (bound - 1,) if c < bound]
        picks = rng.choice(len(pool), size=min(size, len(pool)), replace=False)
        return tuple(int(pool[i]) for i in picks)
    size = min(size, 8, bound if distinct else 8)
    return tuple(int(i) for i in rng.choice(bound, size=size, replace=not distinct))


def _len(key, bound):
    return bound if key == "ALL" else len(key)


class _Base(OutputFamily):
    op_kind = None
    reps = (None,)
    distinct = False

    def lagraph_layout(self, shape):
        return None


# ---------------------------------------------------------------------- extract
class _ExtractMatrix(_Base):
    name = function = "extract"
    form = "matrix"
    dims = ("m", "n", "p", "q")
    inputs = ("A",)
    flags = ("t0",)

    def extra_params(self, plan, rng, name, t, d):
        return {"rows": _indices(rng, d["m"], d["p"], self.distinct),
                "cols": _indices(rng, d["n"], d["q"], self.distinct)}

    def shapes(self, p, d):
        return {"C": ("matrix", (_len(p["rows"], d["m"]), _len(p["cols"], d["n"]))),
                "A": ("matrix", _t((d["m"], d["n"]), p.get("t0")))}

    def call(self, case, op, kw):
        keys = ", ".join(index_text(case.p(k), "gg") for k in ("rows", "cols"))
        return f"gg.extract(C, A, {keys}{kw})"

    def lagraph_layout(self, shape):
        return {"m": shape[0], "n": shape[1], "p": 6, "q": 5}, {"A": "file"}, {}


class _ExtractColumn(_ExtractMatrix):
    form = "column"
    output = "w"
    dims = ("m", "n", "p")

    def extra_params(self, plan, rng, name, t, d):
        j = _indices(rng, d["n"], 1, True, allow_all=False)[0]
        return {"rows": _indices(rng, d["m"], d["p"], self.distinct), "cols": j}

    def shapes(self, p, d):
        return {"w": ("vector", (_len(p["rows"], d["m"]),)),
                "A": ("matrix", _t((d["m"], d["n"]), p.get("t0")))}

    def call(self, case, op, kw):
        return f"gg.extract(w, A, {index_text(case.p('rows'), 'gg')}, {case.p('cols')}{kw})"

    def lagraph_layout(self, shape):
        return None


class _ExtractVector(_ExtractMatrix):
    form = "vector"
    output = "w"
    dims = ("n", "p")
    inputs = ("u",)
    flags = ()

    def extra_params(self, plan, rng, name, t, d):
        return {"rows": _indices(rng, d["n"], d["p"], self.distinct)}

    def shapes(self, p, d):
        return {"w": ("vector", (_len(p["rows"], d["n"]),)), "u": ("vector", (d["n"],))}

    def call(self, case, op, kw):
        return f"gg.extract(w, u, {index_text(case.p('rows'), 'gg')}{kw})"

    def lagraph_layout(self, shape):
        return None


@register
class Extract(Forms):
    name = function = "extract"
    forms = (_ExtractMatrix, _ExtractColumn, _ExtractVector)


# ---------------------------------------------------------------------- assign / subassign
class _AssignMatrix(_Base):
    form = "matrix"
    dims = ("m", "n", "p", "q")
    inputs = ("A",)
    flags = ("t0",)
    distinct = True

    def extra_params(self, plan, rng, name, t, d):
        out = {"rows": _indices(rng, d["m"], d["p"], True),
               "cols": _indices(rng, d["n"], d["q"], True)}
        if not self.inputs:
            out["scalar"] = random_scalar(rng, t)
        return out

    def region(self, p, d):
        return (_len(p["rows"], d["m"]), _len(p["cols"], d["n"]))

    def shapes(self, p, d):
        out = {"C": ("matrix", (d["m"], d["n"]))}
        if self.inputs:
            out["A"] = ("matrix", _t(self.region(p, d), p.get("t0")))
        return out

    def mask_shape(self, p, d, shapes):
        if self.name == "subassign":  # GxB_subassign's mask covers the region only
            return "matrix", self.region(p, d)
        return shapes[self.output]

    def misfit_target(self):
        return self.inputs[0] if self.inputs else None  # a bigger C is valid; a bigger A is not

    def value_text(self, case):
        return self.inputs[0] if self.inputs else scalar_text(case.p("scalar"), case.p("type"))

    def call(self, case, op, kw):
        keys = ", ".join(index_text(case.p(k), "gg") for k in ("rows", "cols")
                         if case.p(k) is not None)
        return f"gg.{self.name}({self.output}, {self.value_text(case)}, {keys}{kw})"


class _AssignScalar(_AssignMatrix):
    form = "scalar"
    inputs = ()
    flags = ()


class _AssignVector(_AssignMatrix):
    form = "vector"
    output = "w"
    dims = ("n", "p")
    inputs = ("u",)
    flags = ()

    def extra_params(self, plan, rng, name, t, d):
        out = {"rows": _indices(rng, d["n"], d["p"], True)}
        if not self.inputs:
            out["scalar"] = random_scalar(rng, t)
        return out

    def region(self, p, d):
        return (_len(p["rows"], d["n"]),)

    def shapes(self, p, d):
        out = {"w": ("vector", (d["n"],))}
        if self.inputs:
            out["u"] = ("vector", self.region(p, d))
        return out

    def mask_shape(self, p, d, shapes):
        if self.name == "subassign":
            return "vector", self.region(p, d)
        return shapes[self.output]


class _AssignVectorScalar(_AssignVector):
    form = "vector_scalar"
    inputs = ()


class _AssignRow(_AssignMatrix):
    """GrB_Row_assign: C⟨m, replace⟩(i, J) = accum(C(i, J), u), m a Vector of ncols(C)
    (replace clears row i only); u is a Vector of |J|. python-graphblas:
    C(mask=m, accum=acc, replace=r)[i, J] << u."""
    form = "row"
    dims = ("m", "n", "q")
    inputs = ("u",)
    flags = ()

    def extra_params(self, plan, rng, name, t, d):
        return {"rows": _indices(rng, d["m"], 1, True, allow_all=False)[0],
                "cols": _indices(rng, d["n"], d["q"], True)}

    def region(self, p, d):
        return (_len(p["cols"], d["n"]),)

    def shapes(self, p, d):
        return {"C": ("matrix", (d["m"], d["n"])), "u": ("vector", self.region(p, d))}

    def mask_shape(self, p, d, shapes):
        if self.name == "subassign":
            return "vector", self.region(p, d)
        return "vector", (d["n"],)  # a row of C


class _AssignCol(_AssignRow):
    """GrB_Col_assign: C⟨m, replace⟩(I, j) = accum(C(I, j), u), m a Vector of nrows(C)."""
    form = "col"
    dims = ("m", "n", "p")

    def extra_params(self, plan, rng, name, t, d):
        return {"rows": _indices(rng, d["m"], d["p"], True),
                "cols": _indices(rng, d["n"], 1, True, allow_all=False)[0]}

    def region(self, p, d):
        return (_len(p["rows"], d["m"]),)

    def mask_shape(self, p, d, shapes):
        if self.name == "subassign":
            return "vector", self.region(p, d)
        return "vector", (d["m"],)  # a column of C


def _assign_family(op_name, lines=()):
    bases = (_AssignMatrix, _AssignScalar, _AssignVector, _AssignVectorScalar) + tuple(lines)
    forms = tuple(type(f"{op_name}_{base.form}", (base,), {"name": op_name, "function": op_name})
                  for base in bases)
    return register(type(op_name, (Forms,), {"name": op_name, "function": op_name, "forms": forms}))


Assign = _assign_family("assign", (_AssignRow, _AssignCol))
Subassign = _assign_family("subassign")
