"""Apply an operator to every entry (GrB_apply), keeping the structure:

    unary:        T(i,j) = f(A(i,j))
    bound left:   T(i,j) = f(s, A(i,j))          (``left=s``; GrB_apply_BinaryOp1st)
    bound right:  T(i,j) = f(A(i,j), s)          (``right=s``; GrB_apply_BinaryOp2nd)
    index-unary:  T(i,j) = f(A(i,j), i, j, thunk)  (GrB_apply_IndexOp; rowindex: i + thunk,
                  colindex: j + thunk, diagindex: j - (i + thunk); for a Vector j = 0)
    then C⟨M, replace⟩ = accum(C, T).

The bound scalar ``s`` may be a Vector of size 1 standing for a GrB_Scalar (the C API's
GrB_apply_BinaryOp1st_Scalar / 2nd_Scalar): its value is read where it lies, so a scalar
computed on the device (``reduce_scalar(u, out=s)``) scales a vector with nothing read back.
Without an entry it is EmptyObject (GrB_EMPTY_OBJECT); an uncounted one is counted first.

Types follow python-graphblas: a scalar is typed as NumPy types it (int -> INT64, float ->
FP64) and a binary operator runs at the unified type of the scalar and A; a monoid means
its operator. The thunk of an index-unary operator may also be passed as ``right=``.
The operator's NumPy function runs once over the values (vectorised); an iso-valued A gives
an iso-valued T when the result does not depend on the position. A Matrix operand may be an
``A.T`` view; the descriptor's transpose_first flips it again.
"""
import numpy as np

from .. import backend, operators
from ..descriptor import as_descriptor
from ..errors import DimensionMismatch, DomainMismatch, EmptyObject, InvalidValue
from ..kernels.elementwise import dense_apply
from ..matrix import Matrix
from ..types import cast, cast_scalar
from ..vector import Vector
from ._common import (computed, matrix_input, method_output, output_args, unwrap_transpose,
                      vector_input)
from ._opargs import bound_binary, indexunary, is_indexunary, result_array, scalar_of
from .writeback import write_back

xp = backend.xp

__all__ = ["apply"]


# unary operators whose result does not depend on the value: the result is iso, and A's
# values are not read
CONSTANT_UNARY = ("one",)


def apply(C, A, op, *, left=None, right=None, thunk=None, mask=None, accum=None, desc=None):
    """C⟨M⟩ = accum(C, f(A)) for a unary, bound binary or index-unary operator f."""
    d = as_descriptor(desc)
    A = _operand(C, A, d)
    plan = _plan(A.dtype, op, left, right, thunk)
    mask, acc, d = output_args(C, mask, accum, d, plan[1].out_type)
    # without accum the write-back casts T to C's type: a kernel may make T in it directly.
    # With a mask or accum the write-back builds new arrays, so T may be A itself (identity):
    # C never holds A's arrays then (A's fixed storage stays A's alone)
    t_type = C.dtype if acc is None else plan[1].out_type
    share = mask is not None or acc is not None
    # T becomes C's content as it is: its values may go straight into C's fixed storage
    into = None if share or not isinstance(C, Vector) else C
    T = computed(C, mask, lambda: _compute(A, *plan, t_type, share=share, into=into))
    return write_back(C, T, mask=mask, accum=acc, replace=d.replace)


def _operand(C, A, d):
    """A as the operation reads it, its shape checked against C's here (not by the
    write-back, which an output that allows nothing, C⟨!NULL⟩, never reaches)."""
    if isinstance(C, Vector):
        A = vector_input(A, d.structure_first, "A")
    elif not isinstance(C, Matrix):
        raise InvalidValue(f"output must be a Matrix or a Vector, got {type(C).__name__}")
    else:
        A, view = unwrap_transpose(A)
        A = matrix_input(A, view != d.transpose_first, d.structure_first, "A")
    if A.shape != C.shape:
        raise DimensionMismatch(f"apply: input {A.shape} does not match output {C.shape}")
    return A


def _plan(a_type, op, left, right, thunk):
    """(mode, typed operator, scalar cast to the operator's type or None); raises first."""
    if left is not None and right is not None:
        raise InvalidValue("apply takes left= or right=, not both")
    if is_indexunary(op):
        if left is not None:
            raise InvalidValue("an index-unary operator takes thunk= (or right=), not left=")
        if thunk is not None and right is not None:
            raise InvalidValue("pass the thunk once (thunk= or right=)")
        s, t = scalar_of(thunk if thunk is not None else right, "thunk", default=False)
        typed = indexunary(op, a_type, t)
        return "index", typed, cast_scalar(s, typed.type)
    if thunk is not None:
        raise InvalidValue(f"thunk= is only for index-unary operators, not {op!r}")
    if left is None and right is None:
        typed = operators.unary(op, a_type)
        if typed.kind != "unary":
            raise DomainMismatch(f"{op!r} is not a unary operator (a binary operator needs "
                                 "left= or right=)")
        return "unary", typed, None
    side = "left" if left is not None else "right"
    bound = left if left is not None else right
    if isinstance(bound, Vector):
        t = _check_scalar_vector(bound, side).dtype
    else:
        bound, t = scalar_of(bound, side)
    typed = bound_binary(op, t, a_type) if left is not None else bound_binary(op, a_type, t)
    if isinstance(bound, Vector):  # its value as a 1-element array of the operator's type
        return side, typed, cast(bound._dense_form()[0], typed.type, xp)
    return side, typed, cast_scalar(bound, typed.type)


def _check_scalar_vector(v, side):
    if v.size != 1:
        raise DimensionMismatch(f"apply: {side}= as a Vector stands for a GrB_Scalar and "
                                f"must have size 1, got {v.size}")
    if v.nvals == 0:
        raise EmptyObject(f"apply: the scalar given as {side}= holds no entry")
    return v


def _compute(A, mode, typed, s, t_type, share, into=None):
    """T: A's structure with f applied to its values, in f's output type (or in ``t_type``,
    where a kernel makes T: the type the write-back casts T to). ``share``: T may hold A's
    arrays (identity, no cast). ``into``: the Vector T becomes the content of (None when a
    mask or accumulator comes between): a dense kernel writes T's values into its fixed
    storage (in place when it is A), and T takes A's bitmap through ``_bitmap_for``."""
    out = typed.out_type
    reads_index = mode == "index" and typed.op.reads_index
    if isinstance(A, Vector) and not A.has_sparse:  # dense form: all positions at once
        values, bitmap = A._dense_form()
        if (share and mode == "unary" and typed.op.name == "identity"
                and values.dtype == t_type.np_type == typed.type.np_type):
            return Vector._from_dense(A.size, t_type, values, bitmap, A._nvals)  # T = A
        full = A._nvals == A.size
        tb = bitmap if into is None else A._bitmap_for(into, full)
        out_values = None if into is None else into._fixed_out()[0]
        if out_values is not None and out_values.dtype != t_type.np_type:
            out_values = None
        # f only where A has entries (a BFS frontier is a few of n positions), unless A is full
        z = dense_apply(values, typed, mode, s, t_type, present=None if full else bitmap,
                        out=out_values)
        if z is not None:
            return Vector._from_dense(A.size, t_type, z, tb, A._nvals)
        i = xp.arange(A.size, dtype=np.int64) if reads_index else None
        z = _evaluate(mode, typed, s, values, i, _zero() if reads_index else None, A.size)
        return Vector._from_dense(A.size, out, z, tb, A._nvals)
    iso = A._iso if _values_of(A) is None else None
    if mode == "unary" and typed.op.name in CONSTANT_UNARY:   # f(x) ignores x: iso
        iso = xp.zeros((), dtype=A.dtype.np_type)
    if iso is not None and not reads_index:  # f(iso) is the same everywhere
        z = _evaluate(mode, typed, s, xp.asarray(iso), None, None, 1)
        if isinstance(s, xp.ndarray):
            # the bound scalar is a Vector's value on the device: T holds f(iso, s) at every
            # entry instead of as an iso value, so nothing is read back (a Replay records it)
            return _like(A, out, xp.repeat(z.reshape(1), A.nvals), None)
        return _like(A, out, None, backend.to_host(z)[0])
    x = _values_of(A) if iso is None else xp.asarray(iso)  # (positional ops ignore x)
    z = entries_kernel(A, x, mode, typed, s, t_type)
    if z is not None:
        return _like(A, t_type, z, None)
    x = A._values_full() if iso is None else x
    i, j = _indices(A) if reads_index else (None, None)
    return _like(A, out, _evaluate(mode, typed, s, x, i, j, A.nvals), None)


def entries_kernel(A, x, mode, typed, s, tz):
    """f over A's entries by one generated kernel, in type ``tz``: x A's values (or a 0-d
    iso value, for an index-unary f); None where no kernel applies (NumPy, no C expression)."""
    if mode == "index" and typed.op.reads_index:
        rows, cols = ((A._rows(), A._indices) if isinstance(A, Matrix)
                      else (A._sparse()[0], None))
        return dense_apply(x, typed, mode, s, tz, rows=rows, cols=cols)
    return None if x.ndim == 0 else dense_apply(x, typed, mode, s, tz)


def _evaluate(mode, typed, s, x, i, j, n):
    fn, t_in = typed.op.numpy, typed.type
    if isinstance(s, xp.ndarray):  # a GrB_Scalar's value, where it lies
        s = s[0]
    if not (mode == "index" and typed.op.positional):
        x = cast(x, t_in, xp)
    with np.errstate(all="ignore"):  # values are defined by the operator, warnings or not
        if mode == "unary":
            z = fn(x)
        elif mode == "left":
            z = fn(xp.asarray(s), x)
        elif mode == "right":
            z = fn(x, xp.asarray(s))
        else:
            z = fn(x, i, j, xp.asarray(s))
    return result_array(z, n, typed.out_type)


def _zero():
    return xp.zeros((), dtype=np.int64)


def _values_of(A):
    return A._values if isinstance(A, Matrix) else A._sparse()[1]


def _indices(A):
    """(i, j) of each entry as int64 (a Vector's j is 0)."""
    if isinstance(A, Matrix):
        return A._rows().astype(np.int64), A._indices.astype(np.int64)
    return A._sparse()[0].astype(np.int64), _zero()


def _like(A, dtype, values, iso):
    """A new object with A's structure (its index arrays are shared: they are never written)."""
    if isinstance(A, Matrix):
        return Matrix._from_csr(A.nrows, A.ncols, dtype, A._indptr, A._indices, values, iso=iso)
    return Vector._from_sparse(A.size, dtype, A._sparse()[0], values, iso=iso)


# ---------------------------------------------------------------------- method form
def apply_method(self, op, right=None, *, left=None, thunk=None, mask=None, accum=None,
                 desc=None, out=None):
    """A new object: f(A) (unary), f(left, A), f(A, right), or f(A, i, j, thunk); with
    ``out``: out⟨mask⟩ = accum(out, f(A)), returning out (see methods.py)."""
    A, view = unwrap_transpose(self)
    if not isinstance(A, (Matrix, Vector)):
        raise InvalidValue(f"apply needs a Matrix or a Vector, got {type(A).__name__}")
    C = method_output(out, accum)
    if C is None:
        t = _plan(A.dtype, op, left, right, thunk)[1].out_type
        C = Vector(t, A.size) if isinstance(A, Vector) else Matrix(t, *self.shape)
    return apply(C, self, op, left=left, right=right, thunk=thunk, mask=mask, accum=accum,
                 desc=desc)
