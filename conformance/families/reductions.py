"""Reductions and transpose.

    reduce_rowwise  w⟨m⟩ = accum(w, ⊕_j A(i,j))      (t0: over the columns of A)
    reduce_columnwise  w⟨m⟩ = accum(w, ⊕_i A(i,j))   (t0: over the rows of A)
    reduce_scalar   s = ⊕_ij A(i,j), or ⊕_i u(i)       the identity when empty (the C API's
                                                       GrB_reduce to a C scalar); with accum:
                                                       s = accum(initial, s)
    transpose       C⟨M⟩ = accum(C, A')                (t0: A'' = A)
"""
from ..cases import register
from ..operands import data, random_scalar
from ..texts import scalar_text
from ._common import Forms, OutputFamily

MONOID_REPS = ("plus", "times", "min", "max", "any", "lor", "land", "bor", "lxor", "eq")


def _t(shape, transposed):
    return tuple(reversed(shape)) if transposed else tuple(shape)


@register
class ReduceRowwise(OutputFamily):
    name = function = "reduce_rowwise"
    op_kind = "monoid"
    output = "w"
    dims = ("m", "n")
    inputs = ("A",)
    flags = ("t0",)
    reps = MONOID_REPS

    def shapes(self, p, d):
        return {"w": ("vector", (d["m"],)), "A": ("matrix", _t((d["m"], d["n"]), p.get("t0")))}

    def call(self, case, op, kw):
        return f"gg.reduce_rowwise(w, A, {op}{kw})"

    def lagraph_layout(self, shape):
        return {"m": shape[0], "n": shape[1]}, {"A": "file"}, {}

    def nterms(self, case, datas):
        return case.operand("A").shape[0 if case.p("t0") else 1] + 2


@register
class ReduceColumnwise(ReduceRowwise):
    name = function = "reduce_columnwise"

    def shapes(self, p, d):
        return {"w": ("vector", (d["n"],)), "A": ("matrix", _t((d["m"], d["n"]), p.get("t0")))}

    def call(self, case, op, kw):
        return f"gg.reduce_columnwise(w, A, {op}{kw})"

    def nterms(self, case, datas):
        return case.operand("A").shape[1 if case.p("t0") else 0] + 2


class _ScalarMatrix(OutputFamily):
    """s = reduce(A): no output object, mask or descriptor; accum with an initial scalar."""

    name = function = "reduce_scalar"
    form = "matrix"
    op_kind = "monoid"
    output = "s"
    dims = ("m", "n")
    inputs = ("A",)
    flags = ()
    reps = MONOID_REPS
    method = "reduce_scalar"
    masked = False

    def shapes(self, p, d):
        return {"A": ("matrix", (d["m"], d["n"]))}

    def misfit_target(self):
        return None  # a scalar result has no shape to get wrong

    def configs(self, plan):
        plain = dict(mask="none", mask_via="object", accum=None, replace=False)
        return [plain] + [dict(plain, accum=a) for a in self.accums]

    def extra_params(self, plan, rng, name, t, dims):
        return {"initial": random_scalar(rng, t)}

    def call(self, case, op, kw):
        acc = ""
        if case.p("accum"):
            from .. import catalog

            acc = (f", accum={catalog.gg_expr('binary', case.p('accum'))}, "
                   f"initial={scalar_text(case.p('initial'), case.p('type'))}")
        return f"s = gg.reduce_scalar({self.inputs[0]}, {op}{acc})"

    def lagraph_layout(self, shape):
        return {"m": shape[0], "n": shape[1]}, {"A": "file"}, {}

    def nterms(self, case, datas):
        return data(case.operand(self.inputs[0])).nvals + 2


class _ScalarVector(_ScalarMatrix):
    form = "vector"
    dims = ("n",)
    inputs = ("u",)
    method = "reduce"

    def shapes(self, p, d):
        return {"u": ("vector", (d["n"],))}

    def lagraph_layout(self, shape):
        return None


@register
class ReduceScalar(Forms):
    name = function = "reduce_scalar"
    forms = (_ScalarMatrix, _ScalarVector)


@register
class Transpose(OutputFamily):
    name = function = "transpose"
    op_kind = None
    dims = ("m", "n")
    inputs = ("A",)
    flags = ("t0",)
    reps = (None,)

    def shapes(self, p, d):
        # C is m x n; A is n x m, or m x n when t0 makes the operation C = A
        return {"C": ("matrix", (d["m"], d["n"])),
                "A": ("matrix", _t((d["m"], d["n"]), not p.get("t0")))}

    def call(self, case, op, kw):
        return f"gg.transpose(C, A{kw})"

    def lagraph_layout(self, shape):
        return {"m": shape[1], "n": shape[0]}, {"A": "file"}, {}
