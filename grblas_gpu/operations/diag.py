"""Diagonals: a matrix from a vector (GrB_Matrix_diag) and a vector from a matrix
(GxB_Vector_diag), with python-graphblas's spellings:

    Matrix.diag(v, k=0)  ==  v.diag(k):  D = diag(v, k), n×n with n = size(v) + |k|,
                                         D(i, i + k) = v(i) for k >= 0, D(i - k, i) = v(i) for k < 0
    Vector.diag(A, k=0)  ==  A.diag(k):  w(t) = A(t, t + k) for k >= 0, A(t - k, t) for k < 0,
                                         size = the length of diagonal k (0 if outside A)

``diag`` is one attribute that reads as a constructor on the class and as an extractor on an
instance, so both spellings work. Values keep their type; an iso operand stays iso.
Pure index arithmetic on the stored entries (no per-element work beyond a gather).
"""

import numpy as np

from .. import backend
from ..errors import InvalidValue
from ..kernels.structured import SHAPE_KEYS, diagonal_shape
from .._validate import as_int, check_dim
from ..matrix import Matrix, _check_pointer_length, row_offsets
from ..vector import Vector
from ._common import unwrap_transpose

xp = backend.xp

__all__ = ["matrix_diag", "vector_diag"]


def _offset(k):
    """k as an int; a float (1.5 is no diagonal) and offsets past any dimension are refused."""
    k = as_int(k, "diagonal offset k")
    if abs(k) >= 2**60:
        raise InvalidValue(f"diagonal offset k = {k} is out of range (-2**60, 2**60)")
    return k


def matrix_diag(v, k=0):
    """D = diag(v, k): a square Matrix with v on diagonal k (k > 0 above the main one)."""
    if not isinstance(v, Vector):
        raise InvalidValue(f"Matrix.diag needs a Vector, got {type(v).__name__}")
    k = _offset(k)
    n = check_dim(v.size + abs(k), "diag's size(v) + |k|")
    _check_pointer_length(n, "diag's size(v) + |k|")
    idx, vals = v._sparse()
    idx = idx.astype(np.int64)
    rows, cols = (idx, idx + k) if k >= 0 else (idx - k, idx)
    indptr = row_offsets(rows, n)
    D = Matrix._from_csr(n, n, v.dtype, indptr, cols, None if vals is None else vals.copy(),
                         iso=v._iso if vals is None else None)
    # its shape is known: products with D (mxm's structured forms) need not read it
    shape = diagonal_shape(n, len(idx), k == 0)
    D._caching().update({key: shape for key in SHAPE_KEYS})
    return D


def vector_diag(A, k=0):
    """w = diagonal k of A (A(t, t + k), or A(t - k, t) for k < 0) as a Vector."""
    A, view = unwrap_transpose(A)
    if not isinstance(A, Matrix):
        raise InvalidValue(f"Vector.diag needs a Matrix, got {type(A).__name__}")
    k = _offset(k)
    if view:  # diagonal k of Aᵀ is diagonal -k of A
        k = -k
    m, n = A.shape
    size = max(0, min(m, n - k) if k >= 0 else min(m + k, n))
    rows, cols = A._rows().astype(np.int64), A._indices.astype(np.int64)
    on = xp.nonzero(cols - rows == k)[0]  # one per row at most, in row order
    idx = rows[on] if k >= 0 else cols[on]
    vals = None if A._values is None else A._values[on]
    return Vector._from_sparse(size, A.dtype, idx, vals, iso=A._iso if vals is None else None)
