"""Element-wise families: ewise_add, ewise_mult, ewise_union, apply, select.

    ewise_add    C⟨M⟩ = accum(C, A ⊕ B)     union of the structures
    ewise_mult   C⟨M⟩ = accum(C, A ⊗ B)     intersection
    ewise_union  C⟨M⟩ = accum(C, A ⊙ B)     union, alpha / beta standing in for a missing side
    apply        C⟨M⟩ = accum(C, f(A))      f unary, binary with a bound scalar (left / right),
                                           or index-unary with a thunk
    select       C⟨M⟩ = accum(C, A⟨f(A, i, j, thunk)⟩)

Each has a matrix form (inputs may be transposed) and a vector form.
"""
from ..cases import register
from ..operands import random_scalar
from ..texts import scalar_text
from ._common import Forms, OutputFamily

BINARY_REPS = ("plus", "times", "minus", "first", "second", "min", "max", "lor", "cdiv",
               "any", "pair", "eq", "gt", "rminus")
POSITIONAL_SELECT = ("tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt")


def _t(shape, transposed):
    return tuple(reversed(shape)) if transposed else tuple(shape)


class _Matrix2(OutputFamily):
    """Two matrix inputs of C's shape."""

    form = "matrix"
    op_kind = "binary"
    dims = ("m", "n")
    inputs = ("A", "B")
    flags = ("t0", "t1")
    reps = BINARY_REPS

    def shapes(self, p, d):
        return {"C": ("matrix", (d["m"], d["n"])),
                "A": ("matrix", _t((d["m"], d["n"]), p.get("t0"))),
                "B": ("matrix", _t((d["m"], d["n"]), p.get("t1")))}

    def lagraph_layout(self, shape):
        if shape[0] == shape[1]:  # A op A'
            return {"m": shape[0], "n": shape[1]}, {"A": "file", "B": "file"}, {"t1": True}
        return {"m": shape[0], "n": shape[1]}, {"A": "file", "B": "file"}, {}

    def call(self, case, op, kw):
        return f"gg.{self.name}({self.output}, {', '.join(self.inputs)}, {op}{kw})"


class _Vector2(_Matrix2):
    form = "vector"
    output = "w"
    dims = ("n",)
    inputs = ("u", "v")
    flags = ()

    def shapes(self, p, d):
        return {"w": ("vector", (d["n"],)), "u": ("vector", (d["n"],)), "v": ("vector", (d["n"],))}

    def lagraph_layout(self, shape):
        return None


def _ewise(op_name):
    """The ewise_add / ewise_mult family (matrix and vector forms)."""
    forms = tuple(type(f"{op_name}_{base.form}", (base,), {"name": op_name, "function": op_name})
                  for base in (_Matrix2, _Vector2))
    return register(type(op_name, (Forms,), {"name": op_name, "function": op_name, "forms": forms}))


EwiseAdd = _ewise("ewise_add")
EwiseMult = _ewise("ewise_mult")


class _UnionMixin:
    def extra_params(self, plan, rng, name, t, dims):
        return {"alpha": random_scalar(rng, t), "beta": random_scalar(rng, t)}

    def call(self, case, op, kw):
        a = scalar_text(case.p("alpha"), case.p("type"))
        b = scalar_text(case.p("beta"), case.p("type"))
        x, y = self.inputs
        return f"gg.ewise_union({self.output}, {x}, {a}, {y}, {b}, {op}{kw})"


@register
class EwiseUnion(Forms):
    name = function = "ewise_union"
    forms = tuple(type(f"ewise_union_{base.form}", (_UnionMixin, base),
                       {"name": "ewise_union", "function": "ewise_union"})
                  for base in (_Matrix2, _Vector2))


# ---------------------------------------------------------------------- apply
class _Matrix1(OutputFamily):
    """One matrix input of C's shape (possibly transposed)."""

    form = "matrix"
    dims = ("m", "n")
    inputs = ("A",)
    flags = ("t0",)

    def shapes(self, p, d):
        return {"C": ("matrix", (d["m"], d["n"])),
                "A": ("matrix", _t((d["m"], d["n"]), p.get("t0")))}

    def lagraph_layout(self, shape):
        return {"m": shape[0], "n": shape[1]}, {"A": "file"}, {}


class _Vector1(_Matrix1):
    form = "vector"
    output = "w"
    dims = ("n",)
    inputs = ("u",)
    flags = ()

    def shapes(self, p, d):
        return {"w": ("vector", (d["n"],)), "u": ("vector", (d["n"],))}

    def lagraph_layout(self, shape):
        return None


class _ApplyUnary:
    name = function = "apply"
    op_kind = "unary"
    reps = ("abs", "ainv", "identity", "minv", "one", "sqrt", "exp", "lnot", "bnot", "signum")

    def call(self, case, op, kw):
        return f"gg.apply({self.output}, {self.inputs[0]}, {op}{self.bound(case)}{kw})"

    def bound(self, case):
        return ""


class _ApplyBind(_ApplyUnary):
    op_kind = "binary"
    reps = BINARY_REPS
    side = "left"

    def extra_params(self, plan, rng, name, t, dims):
        return {self.side: random_scalar(rng, t)}

    def bound(self, case):
        return f", {self.side}={scalar_text(case.p(self.side), case.p('type'))}"


class _ApplyRight(_ApplyBind):
    side = "right"


class _ApplyIndex(_ApplyUnary):
    op_kind = "indexunary"
    reps = ("rowindex", "colindex", "diagindex")

    def extra_params(self, plan, rng, name, t, dims):
        return {"thunk": int(rng.integers(-2, 3)), "thunk_type": "INT64"}

    def bound(self, case):
        return f", thunk={scalar_text(case.p('thunk'), 'INT64')}"


def _forms(mixins, bases=(_Matrix1, _Vector1)):
    out = []
    for mixin in mixins:
        for base in bases:
            prefix = getattr(mixin, "side", None) or {"indexunary": "index"}.get(mixin.op_kind, "")
            form = f"{prefix}_{base.form}".strip("_") if prefix else base.form
            out.append(type(f"apply_{form}", (mixin, base), {"form": form}))
    return tuple(out)


@register
class Apply(Forms):
    name = function = "apply"
    forms = _forms((_ApplyUnary, _ApplyBind, _ApplyRight, _ApplyIndex))


# ---------------------------------------------------------------------- select
class _Select:
    name = function = "select"
    op_kind = "select"
    reps = ("tril", "triu", "valuegt", "offdiag", "valueeq", "colle", "rowgt", "valuene")

    def extra_params(self, plan, rng, name, t, dims):
        if name in POSITIONAL_SELECT:
            return {"thunk": int(rng.integers(-2, 3)), "thunk_type": "INT64"}
        return {"thunk": random_scalar(rng, t), "thunk_type": t}

    def call(self, case, op, kw):
        thunk = scalar_text(case.p("thunk"), case.p("thunk_type"))
        return f"gg.select({self.output}, {self.inputs[0]}, {op}, {thunk}{kw})"

    def op_groups(self, name):
        return [name]


@register
class Select(Forms):
    name = function = "select"
    forms = tuple(type(f"select_{b.form}", (_Select, b), {}) for b in (_Matrix1, _Vector1))
