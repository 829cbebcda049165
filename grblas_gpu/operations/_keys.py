"""Entries as sorted linear keys: the merge machinery shared by write-back and ewise.

A Matrix's entries in CSR order, or a Vector's in index order, are sorted by one int64 key
(row * ncols + col, or the index), so set operations on structures (union, intersection,
membership) become searchsorted calls and merges: vectorised, and the same on both backends.
"""
import numpy as np

from .. import backend
from ..matrix import Matrix
from ..vector import Vector

xp = backend.xp

__all__ = ["entries", "linear_keys", "member", "sorted_concat", "merge_positions",
           "build_like"]


def entries(X):
    """(row keys, col keys, values) of a Matrix, or (indices, None, values) of a Vector."""
    if isinstance(X, Matrix):
        return X._rows(), X._indices, X._values_full()
    idx, _ = X._sparse()
    return idx, None, X._values_full()


def linear_keys(C, parts):
    """int64 keys preserving (row, col) order for each (rows, cols) in parts; C gives the shape.
    Keys are comparable only among the parts of one call."""
    if isinstance(C, Vector):
        return [r.astype(np.int64) for r, _ in parts]
    nrows, ncols = C.shape
    if nrows * ncols < 2**62:
        return [r.astype(np.int64) * ncols + c.astype(np.int64) for r, c in parts]
    # huge dimensions: rank rows and columns among those present, then combine the ranks
    urows = xp.unique(xp.concatenate([r for r, _ in parts]).astype(np.int64))
    ucols = xp.unique(xp.concatenate([c for _, c in parts]).astype(np.int64))
    return [xp.searchsorted(urows, r.astype(np.int64)) * len(ucols)
            + xp.searchsorted(ucols, c.astype(np.int64)) for r, c in parts]


def member(keys, sorted_keys):
    """For each key, (is it in sorted_keys, its position there)."""
    if len(sorted_keys) == 0:
        return xp.zeros(len(keys), dtype=bool), xp.zeros(len(keys), dtype=np.int64)
    pos = xp.searchsorted(sorted_keys, keys)
    pos_c = xp.minimum(pos, len(sorted_keys) - 1)
    return sorted_keys[pos_c] == keys, pos_c


def sorted_concat(ka, kb):
    """(sorted keys, order) of the concatenation of ka and kb (stable)."""
    k = xp.concatenate([ka, kb])
    order = xp.argsort(k, kind="stable")
    return k[order], order


def merge_positions(ka, kb):
    """Where each element of two sorted, disjoint key arrays lands in their merge: the
    element's rank in its own array plus the number of smaller keys in the other.
    No sort: two searchsorted calls (a merge path)."""
    pos_a = xp.arange(len(ka)) + xp.searchsorted(kb, ka)
    pos_b = xp.arange(len(kb)) + xp.searchsorted(ka, kb)
    return pos_a, pos_b


def build_like(C, rows, cols, values, dtype=None, iso=None):
    """A new object shaped like C (of C's type unless ``dtype``) from entries sorted by key
    (cols None for a Vector; values None for iso ``iso``)."""
    dtype = C.dtype if dtype is None else dtype
    if isinstance(C, Vector):
        return Vector._from_sparse(C.size, dtype, rows, values, iso=iso)
    indptr = xp.searchsorted(rows, xp.arange(C.nrows + 1), side="left")
    return Matrix._from_csr(C.nrows, C.ncols, dtype, indptr, cols, values, iso=iso)
