"""Kronecker product (GrB_kronecker):

    T = kron(A, B),  T(i·mB + k, j·nB + l) = A(i,j) ⊗ B(k,l)   (A is mA×nA, B is mB×nB)
    then C⟨M, replace⟩ = accum(C, T).

⊗: a binary operator, a monoid (its operator) or a semiring (its multiply), typed at the
unified operand type. ``A.T`` views and the descriptor's transpose fields apply to A and B.

Computation without loops: row r = i·mB + k of T holds len_A(i)·len_B(k) entries, so its
offsets are a prefix sum; each output entry finds its row by searchsorted (an expansion,
since cupy.repeat takes no array of repeats) and its A and B positions by division.
The entries of a row come out in column order: j ascending, then l.
"""
import numpy as np

from .. import backend
from ..descriptor import as_descriptor
from ..errors import InvalidValue
from ..matrix import Matrix
from ..types import cast
from ._common import (check_kind, check_output_shape, computed, matrix_input, output_args,
                      unwrap_transpose)
from ._opargs import ewise_binary, result_array
from .writeback import write_back

xp = backend.xp

__all__ = ["kronecker"]


def kronecker(C, A, B, op, *, mask=None, accum=None, desc=None):
    """C⟨M⟩ = accum(C, kron(A, B)) with ⊗ = op."""
    d = as_descriptor(desc)
    check_kind(C, Matrix, "output C")
    A, B = _operand(A, d.transpose_first, d.structure_first, "A"), \
        _operand(B, d.transpose_second, d.structure_second, "B")
    typed = ewise_binary(op, A.dtype, B.dtype, "mult")
    check_output_shape(C, (A.nrows * B.nrows, A.ncols * B.ncols))
    mask, acc, d = output_args(C, mask, accum, d, typed.out_type)
    T = computed(C, mask, lambda: _kron(A, B, typed))
    return write_back(C, T, mask=mask, accum=acc, replace=d.replace)


def _operand(X, transpose, structure, what):
    X, view = unwrap_transpose(X)
    check_kind(X, Matrix, what)
    return matrix_input(X, view != transpose, structure, what)


def _kron(A, B, typed):
    mA, mB, nB = A.nrows, B.nrows, B.ncols
    nrows, ncols = mA * mB, A.ncols * nB
    a_ptr, b_ptr = A._indptr.astype(np.int64), B._indptr.astype(np.int64)
    len_a, len_b = a_ptr[1:] - a_ptr[:-1], b_ptr[1:] - b_ptr[:-1]
    # row r = i·mB + k holds len_a[i]·len_b[k] entries
    counts = (len_a[:, None] * len_b[None, :]).reshape(-1)
    indptr = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts)])
    n = A.nvals * B.nvals
    e = xp.arange(n, dtype=np.int64)
    r = xp.searchsorted(indptr, e, side="right") - 1  # the row of each output entry
    i, k = r // mB, r % mB
    local = e - indptr[r]
    lb = len_b[k]
    pa = a_ptr[i] + local // xp.maximum(lb, 1)
    pb = b_ptr[k] + local % xp.maximum(lb, 1)
    cols = A._indices.astype(np.int64)[pa] * nB + B._indices.astype(np.int64)[pb]
    t_in, t_out = typed.type, typed.out_type
    ia, ib = _iso(A), _iso(B)
    with np.errstate(all="ignore"):
        if ia is not None and ib is not None:  # iso ⊗ iso is iso
            z = typed.op.numpy(xp.asarray(cast(np.asarray(ia), t_in)),
                               xp.asarray(cast(np.asarray(ib), t_in)))
            iso = backend.to_host(result_array(z, 1, t_out))[0]
            return Matrix._from_csr(nrows, ncols, t_out, indptr, cols, None, iso=iso)
        x = cast(A._values_full(), t_in, xp)[pa]
        y = cast(B._values_full(), t_in, xp)[pb]
        z = result_array(typed.op.numpy(x, y), n, t_out)
    return Matrix._from_csr(nrows, ncols, t_out, indptr, cols, z)


def _iso(X):
    return X._iso if X._values is None else None


# ---------------------------------------------------------------------- method form
def kronecker_method(self, other, op="times"):
    """A new Matrix: kron(A, B) with ⊗ = op (default 'times')."""
    A, _ = unwrap_transpose(self)
    B, _ = unwrap_transpose(other)
    for X, what in ((A, "A"), (B, "B")):
        if not isinstance(X, Matrix):
            raise InvalidValue(f"kronecker: {what} must be a Matrix, got {type(X).__name__}")
    out = ewise_binary(op, A.dtype, B.dtype, "mult").out_type
    C = Matrix(out, self.shape[0] * other.shape[0], self.shape[1] * other.shape[1])
    return kronecker(C, self, other, op)
