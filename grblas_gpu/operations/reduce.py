"""Reductions (GrB_reduce):

    reduce_rowwise:     w⟨m⟩ = accum(w, t),  t(i) = ⊕_j A(i,j) over the rows with an entry
                        (Aᵀ with transpose_first, or an ``A.T`` view: column-wise)
    reduce_columnwise:  the same over the columns of A
    reduce_scalar:      s = ⊕_ij A(i,j) (or ⊕_i u(i)); no entries gives ⊕'s identity, as
                        the C API's GrB_reduce to a C scalar returns; s = accum(initial, s)
                        with ``accum``

⊕: a monoid, or a binary operator that has one (the catalog's monoid of the same name).
A binary operator without a monoid (minus, cdiv, pow, first ...) is refused as SuiteSparse
refuses it: NotSupported (GrB_NOT_IMPLEMENTED) reducing to a vector, DomainMismatch
reducing to a scalar (python-graphblas takes a monoid only there); one whose result type
differs from its operands' (eq on numbers) is DomainMismatch. Values are cast to ⊕'s type.

Computation: one segmented reduction (kernels.segment) over CSR rows; a scalar is one
whole-array reduction (kernels.reduce_all: a monoid is commutative, so any order), taking a
dense vector's values and bitmap as they are.
"""
import numpy as np

from .. import backend, operators
from ..descriptor import as_descriptor
from ..errors import DimensionMismatch, DomainMismatch, InvalidValue
from ..kernels.reduce_all import reduce_all
from ..kernels.segment import segment_reduce
from ..matrix import Matrix
from ..types import cast, cast_scalar
from ..vector import Vector
from ._common import check_kind, computed, matrix_input, output_args, unwrap_transpose
from ._opargs import reduce_op, result_array, scalar_of
from .writeback import write_back

xp = backend.xp

__all__ = ["reduce_rowwise", "reduce_columnwise", "reduce_scalar"]

def reduce_rowwise(w, A, op, *, mask=None, accum=None, desc=None):
    """w⟨m⟩ = accum(w, t), t(i) = ⊕_j A(i,j) for each row i holding an entry."""
    return _rowwise(w, A, op, mask, accum, desc, flip=False)


def reduce_columnwise(w, A, op, *, mask=None, accum=None, desc=None):
    """w⟨m⟩ = accum(w, t), t(j) = ⊕_i A(i,j): reduce_rowwise of Aᵀ."""
    return _rowwise(w, A, op, mask, accum, desc, flip=True)


def _rowwise(w, A, op, mask, accum, desc, flip):
    d = as_descriptor(desc)
    check_kind(w, Vector, "output w")
    A, view = unwrap_transpose(A)
    check_kind(A, Matrix, "A")
    transpose = bool(view) ^ bool(d.transpose_first) ^ flip  # each flip transposes once more
    nrows = A.ncols if transpose else A.nrows
    if w.size != nrows:
        raise DimensionMismatch(f"reduce: w has size {w.size}, the reduction gives {nrows}")
    typed = _vector_op(op, A.dtype)
    mask, acc, d = output_args(w, mask, accum, d, typed.out_type)
    A = matrix_input(A, transpose, d.structure_first, "A")
    T = computed(w, mask, lambda: _rows_reduced(A, typed))
    return write_back(w, T, mask=mask, accum=acc, replace=d.replace)


def _vector_op(op, t):
    typed = reduce_op(op, t, to_vector=True)
    if typed.out_type != typed.type:
        raise DomainMismatch(f"{typed!r} does not stay in {typed.type.name}: it cannot reduce")
    return typed


def _rows_reduced(A, typed):
    """t(i) = ⊕ over row i of A, for the rows with entries."""
    indptr = A._indptr
    rows = xp.nonzero(indptr[1:] > indptr[:-1])[0]
    z = _iso_rows_reduced(A, typed, rows) if A._values is None else None
    if z is None:
        vals = cast(A._values_full(), typed.type, xp)
        z = segment_reduce(vals, indptr[:-1][rows], typed.op, typed.type)
    return Vector._from_sparse(A.nrows, typed.out_type, rows, result_array(z, len(rows),
                                                                           typed.out_type))


# x ⊕ x = x: a row of an iso-valued matrix reduces to the iso value itself
IDEMPOTENT = ("any", "min", "max", "land", "lor", "band", "bor")


def _iso_rows_reduced(A, typed, rows):
    """The rows of an iso-valued A reduced without reading an entry: v for an idempotent ⊕,
    count · v for an integer plus (wrapping as repeated addition does); else None."""
    t = typed.type.np_type
    v = cast_scalar(A._iso, typed.type)
    if typed.op.name in IDEMPOTENT:
        return xp.full(len(rows), v, dtype=t)
    if typed.op.name == "plus" and not typed.type.is_float:
        counts = (A._indptr[1:] - A._indptr[:-1])[rows]
        return counts.astype(t) * t.type(v)
    return None


def reduce_scalar(A, op="plus", *, accum=None, initial=None, out=None):
    """s = ⊕ of every entry of A (a Matrix, ``A.T`` or a Vector), as a NumPy scalar of ⊕'s
    type; the identity when A has no entries. With ``accum``: accum(initial, s) in the type
    of ``initial`` (the C API's GrB_reduce into an existing scalar).

    ``out``: a Vector of size 1 holding the result on the device instead (GrB_reduce into a
    GrB_Scalar): out(0) = accum(out(0), s), no entry when A has none and out had none;
    returns out. Nothing is read back, so it may be recorded in a gg.Replay."""
    A, _ = unwrap_transpose(A)
    if not isinstance(A, (Matrix, Vector)):
        raise InvalidValue(f"reduce_scalar needs a Matrix or a Vector, got {type(A).__name__}")
    typed = reduce_op(op, A.dtype)
    if out is not None:
        return _reduced_into(out, A, typed, accum, initial)
    acc = None
    if accum is not None:
        s0, t0 = scalar_of(initial, "initial (the scalar accumulated into)")
        acc = operators.accumulator(accum, t0, typed.type)
    elif initial is not None:
        raise InvalidValue("initial= is the scalar accum= accumulates into; pass accum= too")
    s = _all_reduced(A, typed)
    if acc is None:
        return s
    z = acc.op.numpy(np.asarray(cast_scalar(s0, acc.type)), np.asarray(cast_scalar(s, acc.type)))
    return cast_scalar(z, t0)


def _reduced_into(s, A, typed, accum, initial):
    check_kind(s, Vector, "out")
    if s.size != 1:
        raise DimensionMismatch(f"reduce_scalar: out must be a Vector of size 1, got {s.size}")
    if initial is not None:
        raise InvalidValue("reduce_scalar: initial= is for a host result; out= holds its own")
    _, acc, _ = output_args(s, None, accum, None, typed.type)
    values, has = _all_reduced(A, typed, on_device=True)
    # the result's count is A's being nonzero, when A's is known without counting (a full
    # s keeps the operations downstream on their full-vector paths)
    count = A.nvals if isinstance(A, Matrix) else A._nvals
    T = Vector._from_dense(1, typed.type, values, has, None if count is None else min(count, 1))
    return write_back(s, T, accum=acc)


def _all_reduced(A, typed, on_device=False):
    t = typed.type
    if isinstance(A, Vector) and not A.has_sparse:  # the dense form as it is: no compaction
        values, bitmap = A._dense_form()
        present = None if A._nvals == A.size else bitmap  # a full vector's is not read
        return reduce_all(cast(values, t, xp), present, typed.op, t, on_device=on_device)
    return reduce_all(cast(A._values_full(), t, xp), None, typed.op, t, on_device=on_device)


# ---------------------------------------------------------------------- method forms
def _method(flip):
    def method(self, op="plus"):
        A, view = unwrap_transpose(self)
        check_kind(A, Matrix, "A")
        typed = _vector_op(op, A.dtype)
        w = Vector(typed.out_type, self.shape[1] if flip else self.shape[0])
        return (reduce_columnwise if flip else reduce_rowwise)(w, self, op)

    method.__doc__ = f"A new Vector: ⊕ over each {'column' if flip else 'row'} with entries."
    return method


reduce_rowwise_method, reduce_columnwise_method = _method(False), _method(True)


def reduce_scalar_method(self, op="plus", *, accum=None, initial=None):
    """⊕ over every entry, as a NumPy scalar (the identity when there are none)."""
    return reduce_scalar(self, op, accum=accum, initial=initial)
