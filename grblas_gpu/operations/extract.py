"""Extract: C⟨M, replace⟩ = accum(C, A(I, J)), and its row, column and vector forms.

    GrB_Matrix_extract   T(k, l) = A(I[k], J[l])       T is |I| x |J|   extract(C, A, I, J)
    GrB_Col_extract      t(k)    = A(I[k], j)          t has |I|        extract(w, A, I, j)
    (row, via GrB_TRAN)  t(l)    = A(i, J[l])          t has |J|        extract(w, A, i, J)
    GrB_Vector_extract   t(k)    = u(I[k])             t has |I|        extract(w, u, I)

then ``write_back(C, T, mask, accum, replace)``. ``desc.transpose_first`` reads Aᵀ in place
of A (so extract(w, A, I, j, desc=GrB_TRAN) is w = A(j, I), GrB_Col_extract's transpose).
An entry T(k, l) exists iff A(I[k], J[l]) does; I and J may repeat and come in any order
(a repeated index copies its row or column).

Indices (``parse_index``): an integer array (NumPy or CuPy) or list, a Python slice with
Python's meaning (negative steps too; ``ALL`` is ``slice(None)``), None (all), or, for the
row/column forms, one int. Array and int indices are GrB_Index values: negative ones and
ones >= the dimension raise IndexOutOfBounds (no Python wrap-around, unlike
python-graphblas's ``A[-1, :]``).

Method: X(I, J) of a compressed matrix (CSR for A, the cached CSC for Aᵀ and for column
extraction) in two vectorised passes, no per-element Python:
  1. rows:    gather the |I| row ranges (cumsum of their lengths, then one searchsorted
              maps each output slot to its source row);
  2. columns: each gathered entry of column c is copied once per occurrence of c in J
              (searchsorted in sorted J gives the run [lo, hi)), then the entries are
              sorted row-major, unless J is non-decreasing (then they already are).
"""
import numbers
from typing import NamedTuple

import numpy as np

from .. import backend
from .._validate import as_index_array, check_in_range
from ..descriptor import as_descriptor
from ..errors import IndexOutOfBounds, InvalidValue
from ..matrix import Matrix
from ..vector import Vector
from ._common import check_kind, check_output_shape, computed, output_args, unwrap_transpose
from .writeback import write_back

xp = backend.xp

__all__ = ["extract", "ALL"]

ALL = slice(None)  # every index of a dimension (GrB_ALL); A[:, J] spells the same
_NO_COLS = object()  # marks "no column argument" (vector forms)


# ---------------------------------------------------------------------------- indices
class Index(NamedTuple):
    """One dimension's selection: ``idx`` (int64 backend array, or None for all of
    range(bound)), its length ``size``, ``scalar`` (given as one int: the dimension is
    dropped), ``monotone`` (non-decreasing) and ``unique`` (True when known duplicate-free)."""
    idx: object
    size: int
    scalar: bool
    monotone: bool
    unique: bool
    bound: int

    @property
    def is_all(self):
        return self.idx is None


def all_of(bound):
    """The Index selecting all of range(bound)."""
    return Index(None, bound, False, True, True, bound)


def _is_int_scalar(key):
    if isinstance(key, (bool, np.bool_)):
        return False
    if isinstance(key, numbers.Integral):
        return True
    return getattr(key, "ndim", None) == 0 and getattr(key, "dtype", np.dtype(float)).kind in "iu"


def parse_index(key, bound, what):
    """An Index from a user's index argument for a dimension of extent ``bound``."""
    if key is None:
        key = ALL
    if isinstance(key, range):
        key = slice(key.start, key.stop, key.step)
    if isinstance(key, slice):
        try:
            start, stop, step = key.indices(bound)
        except (TypeError, ValueError) as e:
            raise InvalidValue(f"{what}: bad slice {key!r} ({e})") from None
        n = len(range(start, stop, step))
        if step == 1 and n == bound:
            return all_of(bound)
        return Index(xp.arange(start, stop, step, dtype=np.int64), n, False, step > 0, True, bound)
    if _is_int_scalar(key):
        i = int(key)
        if not 0 <= i < bound:
            raise IndexOutOfBounds(f"{what} {i} is out of range [0, {bound})")
        return Index(xp.asarray([i], dtype=np.int64), 1, True, True, True, bound)
    if isinstance(key, (list, tuple)) or getattr(key, "ndim", None) is not None:
        # indices from the host are checked there and sent once (no device reads)
        host = isinstance(key, (list, tuple, np.ndarray))
        arr = as_index_array(key, what, np if host else None)
        check_in_range(arr, bound, what)
        monotone = len(arr) < 2 or bool(backend.to_scalar((arr[1:] >= arr[:-1]).all()))
        return Index(xp.asarray(arr), len(arr), False, monotone, len(arr) < 2, bound)
    raise InvalidValue(f"{what} must be an integer array or list, a slice, ALL or an int; "
                       f"got {type(key).__name__}")


def check_unique(index, what):
    """Raise InvalidValue if the index repeats a value (assign forbids duplicates)."""
    if index.unique or index.idx is None:
        return
    s = xp.sort(index.idx)
    dup = s[1:] == s[:-1]
    if bool(backend.to_scalar(dup.any())):
        k = int(backend.to_scalar(xp.nonzero(dup)[0][0]))
        raise InvalidValue(f"{what} repeats index {int(backend.to_scalar(s[k]))}; duplicate "
                           "indices are not allowed here")


# ---------------------------------------------------------------------------- kernels
def row_major_order(rows, cols, nrows, ncols):
    """Permutation sorting (rows, cols) row-major (one int64 key when it cannot overflow)."""
    if nrows * max(ncols, 1) < 2**62:
        return xp.argsort(rows * ncols + cols, kind="stable")
    return xp.lexsort(xp.stack([cols, rows]))


def _expand(counts):
    """For runs of the given lengths laid end to end: (owner run of each slot, offset of the
    slot within its run, total). One scalar read: the total, to size the arrays."""
    offsets = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts, dtype=np.int64)])
    total = int(backend.to_scalar(offsets[-1]))
    slot = xp.arange(total, dtype=np.int64)
    owner = xp.searchsorted(offsets, slot, side="right") - 1
    return owner, slot - offsets[owner], total


def select_entries(ptr, idx, I, J):
    """X(I, J) of a compressed matrix X = (ptr, idx): (out_ptr, out_idx, src), where src[k] is
    the position in X of output entry k (None: every entry of X, in order)."""
    # X(I, :): gather the rows I
    if I.is_all:
        src, out_row = None, None
        cols = idx
    else:
        starts = ptr[I.idx].astype(np.int64)
        owner, offset, _ = _expand(ptr[I.idx + 1].astype(np.int64) - starts)
        src, out_row = starts[owner] + offset, owner
        cols = idx[src]
    if J.is_all:
        out_ptr = ptr if I.is_all else xp.searchsorted(out_row, xp.arange(I.size + 1), side="left")
        return out_ptr, cols, src
    if out_row is None:  # every row: the row of each entry of X
        out_row = xp.searchsorted(ptr, xp.arange(len(idx)), side="right") - 1
    # X(I, J): entry of column c goes to every l with J[l] == c
    order = None if J.monotone else xp.argsort(J.idx, kind="stable")
    js = J.idx if order is None else J.idx[order]
    lo = xp.searchsorted(js, cols, side="left")
    owner, offset, _ = _expand(xp.searchsorted(js, cols, side="right") - lo)
    jpos = lo[owner] + offset
    new_col = jpos if order is None else order[jpos]
    new_row = out_row[owner]
    src = owner if src is None else src[owner]
    if order is not None:  # J unsorted: restore column order within each row
        perm = row_major_order(new_row, new_col, I.size, J.size)
        new_row, new_col, src = new_row[perm], new_col[perm], src[perm]
    out_ptr = xp.searchsorted(new_row, xp.arange(I.size + 1), side="left")
    return out_ptr, new_col, src


def _gathered(values, src, edge_id=None):
    """Values of the selected entries (None stays None: iso)."""
    if values is None:
        return None
    if edge_id is not None:
        src = edge_id if src is None else edge_id[src]
    return values if src is None else values[src]


def submatrix(A, I, J, transpose=False):
    """T = A(I, J) (or Aᵀ(I, J)) as a new Matrix of A's type; I and J index the (transposed)
    operand and are not scalars."""
    if transpose:  # rows of Aᵀ are the columns of A: read the cached CSC
        colptr, rowidx, edge_id = A._csc()
        ptr, idx = colptr, rowidx
    else:
        (ptr, idx, _), edge_id = A._csr(), None
    out_ptr, out_idx, src = select_entries(ptr, idx, I, J)
    return Matrix._from_csr(I.size, J.size, A.dtype, out_ptr, out_idx,
                            _gathered(A._values, src, edge_id), A._iso)


def row_of(A, i, J):
    """t = A(i, J) as a Vector of size |J| (CSR: one row range)."""
    ptr, idx, _ = A._csr()
    _, out_idx, src = select_entries(ptr, idx, i, J)
    return Vector._from_sparse(J.size, A.dtype, out_idx, _gathered(A._values, src), A._iso)


def column_of(A, I, j):
    """t = A(I, j) as a Vector of size |I| (the cached CSC: one column range)."""
    colptr, rowidx, edge_id = A._csc()
    _, out_idx, src = select_entries(colptr, rowidx, j, I)
    return Vector._from_sparse(I.size, A.dtype, out_idx, _gathered(A._values, src, edge_id),
                               A._iso)


def subvector(u, I):
    """t = u(I) as a new Vector of u's type."""
    if I.is_all:  # a new object over u's arrays (u's fixed storage copied: it is u's alone)
        t = Vector.__new__(Vector)
        t._swap_in(u)
        if t._dn is not None:
            t._dn = tuple(u._lend(a) for a in t._dn)
        return t
    if u.has_dense:  # bitmap form: two gathers, no search
        values, bitmap = u._dense_form()
        return Vector._from_dense(I.size, u.dtype, values[I.idx], bitmap[I.idx])
    idx, vals = u._sparse()
    if len(idx) == 0:
        return Vector(u.dtype, I.size)
    pos = xp.minimum(xp.searchsorted(idx, I.idx), len(idx) - 1)
    k = xp.nonzero(idx[pos] == I.idx)[0]
    return Vector._from_sparse(I.size, u.dtype, k, None if vals is None else vals[pos[k]], u._iso)


# ---------------------------------------------------------------------------- public
def _plan(A, rows, cols, desc):
    """Validate the operand and indices; return (T's kind, T's shape, a function computing T)."""
    A, view = unwrap_transpose(A)  # A.T under GrB_TRAN reads A itself
    if isinstance(A, Vector):
        if cols is not _NO_COLS:
            raise InvalidValue("a Vector takes one index argument: extract(w, u, indices)")
        I = parse_index(rows, A.size, "index")
        if I.scalar:
            raise InvalidValue("extract(w, u, i) with one int: use u[i] for an element")
        return Vector, (I.size,), lambda: subvector(A, I)
    check_kind(A, Matrix, "input")
    if cols is _NO_COLS:
        raise InvalidValue("a Matrix takes row and column indices: extract(C, A, rows, cols)")
    transpose = desc.transpose_first != view
    nrows, ncols = (A.ncols, A.nrows) if transpose else A.shape
    I = parse_index(rows, nrows, "row index")
    J = parse_index(cols, ncols, "column index")
    if I.scalar and J.scalar:
        raise InvalidValue("extract with an int row and an int column: use A[i, j]")
    if I.scalar:  # w = A(i, J) or Aᵀ(i, J) = A(J, i)
        return Vector, (J.size,), (lambda: column_of(A, J, I)) if transpose else (
            lambda: row_of(A, I, J))
    if J.scalar:  # w = A(I, j) or Aᵀ(I, j) = A(j, I)
        return Vector, (I.size,), (lambda: row_of(A, J, I)) if transpose else (
            lambda: column_of(A, I, J))
    return Matrix, (I.size, J.size), lambda: submatrix(A, I, J, transpose)


def extract(C, A, rows, cols=_NO_COLS, *, mask=None, accum=None, desc=None):
    """C⟨mask, replace⟩ = accum(C, A(rows, cols)) (or Aᵀ(rows, cols) with
    desc.transpose_first or an ``A.T`` view); with a Vector A: w⟨mask⟩ = accum(w, u(rows)).
    An int row or column gives a Vector result. Returns C."""
    d = as_descriptor(desc)
    kind, shape, compute = _plan(A, rows, cols, d)
    check_kind(C, kind, "output")
    check_output_shape(C, shape)
    m, acc, d = output_args(C, mask, accum, d, unwrap_transpose(A)[0].dtype)
    # C⟨M, replace⟩ = accum(C, T)
    return write_back(C, computed(C, m, compute), mask=m, accum=acc, replace=d.replace)


# ---------------------------------------------------------------------------- methods
def _new_output(A, rows, cols, desc, dtype):
    kind, shape, _ = _plan(A, rows, cols, as_descriptor(desc))
    return kind(unwrap_transpose(A)[0].dtype if dtype is None else dtype, *shape)


def matrix_extract(self, rows, cols, *, mask=None, desc=None, dtype=None):
    """A(rows, cols) as a new Matrix (a Vector when rows or cols is one int)."""
    C = _new_output(self, rows, cols, desc, dtype)
    return extract(C, self, rows, cols, mask=mask, desc=desc)


def vector_extract(self, indices, *, mask=None, desc=None, dtype=None):
    """u(indices) as a new Vector."""
    w = _new_output(self, indices, _NO_COLS, desc, dtype)
    return extract(w, self, indices, mask=mask, desc=desc)
