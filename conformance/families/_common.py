"""What the families that write an output share: case enumeration and the call's source.

An ``OutputFamily`` computes C⟨M, replace⟩ = accum(C, f(inputs)). It declares its operator
kind, its dimensions, its inputs (in call order), the descriptor flags that apply, and the
shapes of its operands for given dimensions; ``cases`` then builds the blocks described in
``conformance.cases``. Descriptor flags are named as python-graphblas names its descriptors:
t0/t1 (transpose the first/second input), s0/s1 (use only its structure: an iso-1 copy).
"""
import functools

from .. import catalog
from ..cases import Case, Family, configs, cover, layouts, operand, params
from ..operands import HUGE, lagraph_files
from ..texts import alias_text, mask_text

__all__ = ["OutputFamily", "Forms", "FLAG_FIELDS", "gpu_kwargs", "out_type_of", "spec_source",
           "accum_for", "skip_case", "NULL_MASK_CONFIGS"]

FLAG_FIELDS = {"t0": "transpose_first", "t1": "transpose_second",
               "s0": "structure_first", "s1": "structure_second"}
SKIP = "skip"  # params key holding a reason decided at enumeration time
_FLAG_KEYS = set(FLAG_FIELDS) | {"replace"}
_SCALAR_KEYS = ("left", "right", "alpha", "beta", "thunk", "scalar", "initial")
# (result type, C's type): saturating float->int, to BOOL, widening, signed<->unsigned
CASTS = (("FP64", "INT8"), ("FP32", "BOOL"), ("INT32", "FP32"), ("BOOL", "FP64"),
         ("INT64", "UINT8"), ("UINT16", "INT8"), ("FP32", "UINT32"), ("INT8", "INT64"),
         ("FP64", "FP32"))
# input type pairs (unified as numpy promotes: INT32 and FP32 meet at FP64)
MIXED = (("INT32", "FP64"), ("UINT8", "INT16"), ("BOOL", "INT32"), ("FP32", "FP64"),
         ("INT32", "FP32"), ("UINT64", "INT8"))


class OutputFamily(Family):
    op_kind = "semiring"
    dims = ("m", "k", "n")
    inputs = ("A", "B")
    flags = ("t0", "t1", "s0", "s1")
    reps = ("plus_times",)          # representative operators for the configuration blocks
    masked = True                   # takes a mask and a descriptor's mask fields
    accums = ("plus", "min", "minus", "second")
    quick_ops = None                # cap on block 1 in quick mode (None: the covering set)
    quick_every_pair = False        # quick mode (on the CPU) tests every (operator, type)
    spec = False                    # has a dense mimic (conformance.spec)
    huge = HUGE                     # the dimension of the hypersparse layout
    medium = (30, 60)               # the range of the medium layout's dimensions
    large = (1000, 2500)            # the large layout's (None: none)

    # -------------------------------------------------------------- to override
    def shapes(self, p, d):
        """{operand name: (kind, shape)} for the output and the inputs."""
        raise NotImplementedError

    def call(self, case, op, kw):
        """grblas_gpu's call as source text (``op``: the operator's text, ``kw``: ', mask=...')."""
        raise NotImplementedError

    def op_groups(self, name):
        """What an operator covers, for quick mode's covering set (its monoid and multiply)."""
        ops = catalog.gg_ops(self.op_kind) or {}
        op = ops.get(name)
        if op is not None and self.op_kind == "semiring":
            return [("monoid", op.monoid.name), ("multiply", op.multiply.name)]
        return [name]

    def extra_params(self, plan, rng, name, t, dims):
        """Parameters beyond the operator and output configuration (scalars, indices)."""
        return {}

    def mask_shape(self, p, dims, shapes):
        """(kind, shape) of the mask: the output's (subassign's is the region's)."""
        return shapes[self.output]

    def extras(self, plan):
        return []

    def lagraph_layout(self, shape):
        """(dims, fills, flags) to use a LAGraph matrix of this shape as every matrix input,
        or None when the family cannot."""
        return None

    # -------------------------------------------------------------- enumeration
    def cases(self, plan):
        rng = plan.rng(self.name)
        if self.op_kind is None:  # no operator (transpose, extract, assign): every type
            found = [(None, list(catalog.TYPE_NAMES), None)]
        else:
            found = [(n, *catalog.types_for(self.op_kind, n)) for n in catalog.names(self.op_kind)]
        out = [skip_case(self, n, types[0], why) for n, types, why in found if why and types]
        testable = [(n, types) for n, types, why in found if not why and types]
        if plan.mode == "tiny":
            testable = [(n, ts) for n, ts in testable if n in self.reps[:1]]
        if not plan.full and self.op_kind:  # numba-built operators cost seconds each
            testable = [(n, ts) for n, ts in testable
                        if not catalog.gb_is_udf(self.op_kind, n) or n in self.cheap_udfs(plan)]
        small = self.layouts(plan)[0]
        # 1. operators x types
        if self.quick_every_pair and plan.mode == "quick" and not _on_gpu():
            pairs = [(n, t) for n, types in testable for t in types]
        else:
            pairs = cover(testable, plan, self.name, self.op_groups, self.quick_ops)
        for n, t in pairs:
            out.append(self.make(plan, n, t, _plain(), small, rng))
        reps = self.rep_pairs(testable, plan)
        if not reps:
            return out
        # 2. output configurations
        tiny = plan.mode == "tiny"
        cfgs = self.configs(plan)
        for i, cfg in enumerate(cfgs[::7] if tiny else cfgs):
            n, t = reps[i % len(reps)]
            tags = ("spec",) if self.spec and i % 3 == 0 else ()
            out.append(self.make(plan, n, t, cfg, small, rng, tags=tags))
        # 3. operand shapes and densities
        for i, lay in enumerate(self.layouts(plan)):
            if tiny and i % 4:
                continue
            n, t = reps[(i + 1) % len(reps)]
            cfg = _plain() if i % 2 else dict(_plain(), mask="~S", accum=self.accums[0])
            tags = ("huge",) if lay[0] == "huge" else ()
            out.append(self.make(plan, n, t, cfg, lay, rng, tags=tags))
        # 4. descriptor mask fields without a mask, types across operands, invalid calls,
        #    family extras; 5. LAGraph files
        if self.masked:
            for i, cfg in enumerate(NULL_MASK_CONFIGS):
                n, t = reps[i % len(reps)]
                out.append(self.make(plan, n, t, cfg, small, rng))
        if not tiny:
            out += self.type_cases(plan, rng, testable, small)
        if self.misfit_target() is not None:
            n, t = reps[0]
            out.append(self.make(plan, n, t, dict(_plain(), mask="S", accum=self.accums[0]), small,
                                 rng, tags=("invalid",), misfit=self.misfit_target()))
        out += self.extras(plan)
        if not tiny:
            out += self.lagraph_cases(plan, rng)
        return out

    def configs(self, plan):
        return configs(plan, self.flags, self.name, self.accums)

    def misfit_target(self):
        """The operand to make one too long for an invalid call (a DimensionMismatch both
        libraries must raise, leaving the output as it was): the output by default."""
        return self.output

    def type_cases(self, plan, rng, testable, lay):
        """C of another type than the result (typecasts in the write-back: float to int
        saturates, to BOOL is != 0), and inputs of two types (unified as numpy promotes)."""
        from grblas_gpu.types import unify

        valid = dict(testable)
        out = []
        for t, ct in CASTS if plan.full else CASTS[::3]:
            for n in self.reps:
                if t in valid.get(n, ()):
                    cfg = _plain()
                    if len(out) % 2:
                        cfg.update(mask="V", accum=self.accums[0])
                    out.append(self.make(plan, n, t, cfg, lay, rng, out_type=ct))
                    break
        if len(self.inputs) < 2 or self.op_kind is None:
            return out
        for t1, t2 in MIXED if plan.full else MIXED[::2]:
            u = unify(t1, t2).name
            for n in self.reps:
                if u in valid.get(n, ()):
                    out.append(self.make(plan, n, u, _plain(), lay, rng,
                                         input_types={self.inputs[0]: t1, self.inputs[1]: t2}))
                    break
        return out

    def layouts(self, plan):
        return layouts(plan, self.dims, self.inputs, self.name, self.huge, self.medium,
                       self.large)

    def cheap_udfs(self, plan):
        """In quick mode, one numba-built operator per kind, always over binary floordiv
        (building one costs seconds; the others differ only in their arithmetic)."""
        if self.op_kind is None:
            return set()
        udf = [n for n in catalog.names(self.op_kind) if catalog.gb_is_udf(self.op_kind, n)
               and (n == "floordiv" or n.endswith("_floordiv"))]
        return set(plan.sample(udf, 1, self.op_kind, "udf"))  # the same for every family

    def rep_pairs(self, testable, plan):
        """(operator, type) pairs used by blocks 2-5: the representatives at types that
        rotate over BOOL, integers and floats."""
        valid = dict(testable)
        order = ("FP64", "INT32", "FP32", "BOOL", "INT64", "UINT8", "INT8", "UINT64", "INT16",
                 "UINT16", "UINT32")
        if plan.types:
            order = tuple(t for t in order if t in plan.types)
        pairs = []
        for i, t in enumerate(order):
            for j in range(len(self.reps)):
                n = self.reps[(i + j) % len(self.reps)]
                if t in valid.get(n, ()):
                    pairs.append((n, t))
                    break
        return pairs

    def make(self, plan, name, t, cfg, lay, rng, extra=None, tags=(), out_type=None,
             input_types=None, misfit=None):
        """One case: operator ``name`` at input type ``t``, output configuration ``cfg``,
        layout ``lay`` = (tag, dims, fills); ``out_type``: C's type when not the operator's
        result type; ``input_types``: {input: type} where an input is not of type ``t``;
        ``misfit``: an operand made one row (or element) too long: an invalid call."""
        tag, dims, fills = lay
        fills = dict(fills)
        if "*" in fills:  # one fill for every operand
            every = fills.pop("*")
            fills.update({n: every for n in (self.output, "M", *self.inputs)})
        input_types = input_types or {}
        cfg = dict(cfg)
        if tag == "huge":
            fills.setdefault(self.output, "few")
            fills.setdefault("M", "few")
        ot = out_type or out_type_of(self.op_kind, name, t)
        cfg["accum"] = accum_for(cfg.get("accum"), ot)
        if input_types:
            cfg["types"] = "/".join(input_types[i] for i in self.inputs)
        p = dict(operator=name, type=t, out_type=ot, **cfg,
                 **(extra if extra is not None else self.extra_params(plan, rng, name, t, dims)))
        # flags that are off are left out (shorter labels); False scalars are values
        p = {k: v for k, v in p.items() if v is not None and not (v is False and k in _FLAG_KEYS)}
        domain = value_domain(name, t)
        if domain:
            p = {k: _in_domain(v, domain, t) if k in _SCALAR_KEYS else v for k, v in p.items()}
        shapes = self.shapes(p, dims)
        if misfit is not None:
            kind, shape = shapes[misfit]
            shapes[misfit] = (kind, (shape[0] + 1,) + tuple(shape[1:]))
            p["misfit"] = misfit
        seed = int(rng.integers(2**31))
        ops = []
        for j, (nm, (kind, shape)) in enumerate(shapes.items()):
            if nm == self.output:
                fill = fills.get(nm, _bounded("sparse", shape))
                ops.append((nm, operand(kind, shape, ot, fill, seed + j)))
                if p.get("mask", "none") != "none":
                    mt = ("BOOL", "BOOL", "INT32", "FP64")[int(rng.integers(4))]
                    mk, ms = self.mask_shape(p, dims, shapes)
                    fill = fills.get("M", _bounded("half", ms))
                    ops.append(("M", operand(mk, ms, mt, fill, seed + 97)))
            elif fills.get(nm) == "file":
                ops.append((nm, operand(kind, shape, t, "file", 0, fills["file"])))
            else:
                ops.append((nm, operand(kind, shape, input_types.get(nm, t), fills.get(nm, "half"),
                                        seed + j, domain=domain)))
        return Case(self.name, params(**p), tuple(ops), seed, tuple(tags))

    def lagraph_cases(self, plan, rng):
        out = []
        loaded, _ = lagraph_files()
        for fname, (shape, ftype, nvals) in sorted(loaded.items()):
            if plan.lagraph_max_nvals is not None and nvals > plan.lagraph_max_nvals:
                continue
            lay = self.lagraph_layout(shape)
            if lay is None:
                continue
            dims, fills, flags = lay
            # not a times monoid: a product of thousands of values overflows or underflows
            # at a point that depends on the order, beyond any tolerance
            ops = [n for n in self.reps if self.op_kind is None
                   or (_accepts(self.op_kind, n, ftype) and not _times_monoid(self.op_kind, n))]
            if not ops:
                continue
            for n in plan.sample(ops, 1, self.name, fname):
                fills = dict(fills, file=fname)
                out.append(self.make(plan, n, ftype, dict(_plain(), **flags),
                                     ("lagraph", dims, fills), rng, tags=("lagraph",)))
        return out

    # -------------------------------------------------------------- sources
    def gpu_source(self, case):
        op = catalog.gg_expr(self.op_kind, case.p("operator")) if self.op_kind else None
        return alias_text(case, self.output) + self.call(case, op, gpu_kwargs(case, self.flags))

    def for_case(self, case):
        """This family, or its copy taking operators of the case's ``op_kind`` (the fuzzer
        reduces with binary operators, monoid or not, where the suite uses monoids)."""
        kind = case.p("op_kind")
        return self if kind in (None, self.op_kind) else _with_op_kind(type(self), kind)

    def nterms(self, case, data):
        return 2 + (1 if case.p("accum") else 0)


@functools.lru_cache(maxsize=None)
def _with_op_kind(cls, kind):
    return type(cls.__name__, (cls,), {"op_kind": kind})()


def value_domain(name, t):
    """Where python-graphblas's numba-built operators are undefined on integers, the values
    the operands are drawn from (operands.random_values): floordiv needs nonzero divisors,
    rpow small nonnegative exponents."""
    if t in ("FP32", "FP64") or not isinstance(name, str):
        return None
    if "floordiv" in name:
        return "nonzero"
    if "rpow" in name:
        return "small"
    return None


def _in_domain(v, domain, t):
    if domain == "nonzero" and v == 0:
        return True if t == "BOOL" else 1
    if domain == "small" and t != "BOOL":
        return abs(int(v)) % 4
    return v


def _on_gpu():
    """On the GPU every new (operator, type) compiles kernels (about half a second each), so
    quick mode keeps to covering sets there."""
    import grblas_gpu.backend as be

    return bool(getattr(be, "is_gpu", False))


def _bounded(fill, shape):
    """``fill`` for an output or mask, or 'few' where it would hold over 10**5 entries (the
    output of a product of two large LAGraph matrices)."""
    size = 1
    for d in shape:
        size *= int(d)
    return fill if size <= 5 * 10**5 else "few"


def _times_monoid(kind, name):
    return ((kind == "monoid" and name == "times")
            or (kind == "semiring" and name.startswith("times_")))


def _accepts(kind, name, t):
    types, why = catalog.types_for(kind, name)
    return not why and t in types


def _plain():
    return dict(mask="none", mask_via="object", accum=None, replace=False)


# the descriptor's mask fields with no mask (texts.mask_text, mask_via 'null'): C⟨!NULL⟩
# (GrB_DESC_C: C unchanged, accum included), cleared under replace (GrB_DESC_RC), and
# GrB_DESC_S alone (no mask: every output)
NULL_MASK_CONFIGS = (
    dict(_plain(), mask="~S", mask_via="null"),
    dict(_plain(), mask="~V", mask_via="null", accum="plus"),
    dict(_plain(), mask="~S", mask_via="null", replace=True),
    dict(_plain(), mask="~V", mask_via="null", accum="min", replace=True),
    dict(_plain(), mask="S", mask_via="null"),
    dict(_plain(), mask="S", mask_via="null", accum="plus"),
)


def skip_case(family, name, t, why):
    """A case that is reported skipped (an operator one side lacks), never run."""
    return Case(family.name, params(operator=name, type=t, **{SKIP: why}), (), 0)


# ---------------------------------------------------------------------- helpers
def out_type_of(kind, name, t):
    """The operator's result type at input type t (grblas_gpu's catalog says; without a
    catalog, t)."""
    try:
        from grblas_gpu import semirings

        if kind == "semiring":
            return semirings.resolve_semiring(name, t, t).out_type.name
        if kind == "binary":
            return semirings.resolve_binary(name, t, t).out_type.name
        if kind == "monoid":
            return semirings.resolve_monoid(name, t).out_type.name
        if kind == "unary":
            return semirings.resolve_unary(name, t).out_type.name
        if kind == "indexunary":
            import grblas_gpu.semirings.indexunary as iu

            return iu.resolve_indexunary(name, t, "INT64").out_type.name
    except Exception:  # no catalog or no such operator: the case will be skipped anyway
        return t
    return t


def accum_for(name, out_type):
    """The accumulator to use on an output of this type: ``name`` if both libraries accept
    it there, else plus, lor or second (the first that is)."""
    if name is None:
        return None
    for cand in (name, "plus", "lor", "second"):
        types, why = catalog.types_for("binary", cand)
        if not why and out_type in types:
            return cand
    return name


def gpu_kwargs(case, flags):
    """', mask=..., accum=..., desc=gg.Descriptor(...)' for a grblas_gpu call."""
    m, fields = mask_text(case, "gg")
    if case.p("replace"):
        fields["replace"] = True
    for f in flags:
        if case.p(f):
            fields[FLAG_FIELDS[f]] = True
    kw = []
    if m:
        kw.append(f"mask={m}")
    if case.p("accum"):
        kw.append(f"accum={catalog.gg_expr('binary', case.p('accum'))}")
    if fields:
        inner = ", ".join(f"{k}=True" for k in sorted(fields))
        kw.append(f"desc=gg.Descriptor({inner})")
    return "".join(", " + k for k in kw)


def spec_source(case, family):
    """The dense mimic's call (conformance.spec), or None when the family has none."""
    if not family.spec:
        return None
    m, _ = mask_text(case, "gb")
    kw = [f"mask={m}"] if m else []
    if case.p("accum"):
        kw.append(f"accum={case.p('accum')!r}")
    if case.p("replace"):
        kw.append("replace=True")
    kw += [f"{f}=True" for f in family.flags if case.p(f)]
    args = ", ".join([family.output, *family.inputs, repr(case.p("operator")), *kw])
    return f"spec.{family.name}({args})"


class Forms(Family):
    """One operation with several forms (matrix / vector, unary / bound scalar...): each form
    is an OutputFamily; cases carry ``form`` and are run by their form's family."""

    forms = ()   # OutputFamily classes, each with a distinct ``form`` attribute

    def __init__(self):
        self._forms = {f.form: f() for f in self.forms}

    def cases(self, plan):
        out = []
        for i, form in enumerate(self._forms.values()):
            # an operator missing on one side is reported once, not once per form
            out += [c.with_param(form=form.form) for c in form.cases(plan)
                    if i == 0 or c.p(SKIP) is None]
        return out

    def for_case(self, case):
        return self._forms.get(case.p("form"), next(iter(self._forms.values()))).for_case(case)

    def available(self):
        return next(iter(self._forms.values())).available()
