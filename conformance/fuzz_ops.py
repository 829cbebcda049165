"""Operations only the fuzzer draws (conformance.fuzz): build and diag.

    build  C = build(I, J, X, dup)   Matrix.from_coo / Vector.from_coo of unsorted tuples with
                                     repeats, combined by the binary operator ``dup`` in
                                     their order (GrB_Matrix_build: left to right), cast to
                                     C's type
    diag   C = diag(v, k)            a square Matrix with v on diagonal k (GrB_Matrix_diag)
           w = diag(A, k)            diagonal k of A as a Vector (GxB_Vector_diag)

Both make a new object: no mask, accum or descriptor. Their cases are the fuzzer's only
(the suite enumerates none), run by the same runner against python-graphblas's spellings.
"""
from .cases import register
from .families._common import Forms, OutputFamily

__all__ = ["Build", "Diag"]


class _Fresh(OutputFamily):
    """An operation returning a new object: no output operand, no output configuration."""

    flags = ()
    large = None

    def cases(self, plan):
        return []

    def misfit_target(self):
        return None

    def gpu_source(self, case):
        from . import catalog

        op = catalog.gg_expr(self.op_kind, case.p("operator")) if self.op_kind else None
        return self.call(case, op, "")

    def reference_source(self, case, op):
        return self.call(case, op, "", lib="gb")


# ---------------------------------------------------------------------- build
class _BuildMatrix(_Fresh):
    name = "build"
    function = "Matrix"
    form = "matrix"
    op_kind = "binary"
    dims = ("m", "n")
    inputs = ("T",)
    reps = ("plus", "first", "second", "minus")
    strict = True  # a dup operator SuiteSparse refuses, we must refuse

    def shapes(self, p, d):
        return {"T": ("matrix", (d["m"], d["n"]))}

    def make(self, *args, **kw):
        case = super().make(*args, **kw)
        ops = tuple((n, op.with_(fill="dups", storage="tuples") if n == "T" else op)
                    for n, op in case.operands)
        return type(case)(case.op, case.params, ops, case.seed, case.tags)

    def call(self, case, op, kw, lib="gg"):
        shape = case.operand("T").shape
        size = f"nrows={shape[0]}, ncols={shape[1]}" if len(shape) == 2 else f"size={shape[0]}"
        keys = ", ".join(f"T[{k}]" for k in range(len(shape))) + ", "
        kind = "Matrix" if len(shape) == 2 else "Vector"
        values = "T[-1]"
        if lib == "gb":  # it casts the values with NumPy (wrapping); SuiteSparse saturates
            values = "X.to_coo()[1]"
        return (f"{self.output} = {lib}.{kind}.from_coo({keys}{values}, {size}, "
                f"dtype={case.p('out_type')!r}, dup_op={op})")

    def reference_source(self, case, op):
        out_type = case.p('out_type')
        cast = (f"X = gb.Vector.from_coo(np.arange(len(T[-1])), T[-1], size=len(T[-1]))"
                f".dup(dtype={out_type!r})  # SuiteSparse's typecast\n")
        # python-graphblas calls no GrB_build for no tuples; SuiteSparse's build checks the
        # dup operator's domains all the same: let it check them on two tuples
        check = (f"if not len(T[-1]):\n    gb.Vector.from_coo([0, 0], [0, 0], size=1, "
                 f"dtype={out_type!r}, dup_op={op})\n")
        return cast + check + self.call(case, op, "", lib="gb")


class _BuildVector(_BuildMatrix):
    form = "vector"
    output = "w"
    dims = ("n",)

    def shapes(self, p, d):
        return {"T": ("vector", (d["n"],))}


@register
class Build(Forms):
    name = "build"
    function = "Matrix"
    forms = (_BuildMatrix, _BuildVector)


# ---------------------------------------------------------------------- diag
class _DiagMatrix(_Fresh):
    """C = diag(v, k)."""

    name = "diag"
    function = "Matrix"
    form = "matrix"
    op_kind = None
    reps = (None,)
    dims = ("n",)
    inputs = ("v",)

    def extra_params(self, plan, rng, name, t, dims):
        return {"k": int(rng.integers(-3, 4))}

    def shapes(self, p, d):
        return {"v": ("vector", (d["n"],))}

    def call(self, case, op, kw, lib="gg"):
        return f"C = {lib}.Matrix.diag(v, {case.p('k')})" if lib == "gg" else \
            f"C = v.diag({case.p('k')})"


class _DiagVector(_DiagMatrix):
    """w = diag(A, k)."""

    form = "vector"
    output = "w"
    dims = ("m", "n")
    inputs = ("A",)

    def shapes(self, p, d):
        return {"A": ("matrix", (d["m"], d["n"]))}

    def call(self, case, op, kw, lib="gg"):
        return f"w = A.diag({case.p('k')})"


@register
class Diag(Forms):
    name = "diag"
    function = "Matrix"
    forms = (_DiagMatrix, _DiagVector)
