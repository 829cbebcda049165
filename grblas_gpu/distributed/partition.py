"""Row blocks of a CSR matrix holding about equal entries (1-D partitioning), and the arrays
of blocks split and joined at their boundaries.

The helpers take ``xp``, the array module of the arrays they get and make: NumPy on the
client (blocks as Dask holds them), the engine's (``gg.backend.xp``) inside a rank, where
what a collective returns may be device arrays."""
import numpy as np

__all__ = ["row_blocks", "split_entries", "split_dense", "join_entries", "join_rows"]


def row_blocks(indptr, nparts):
    """Boundaries b_0 = 0 <= b_1 <= ... <= b_nparts = n: block k is rows [b_k, b_k+1), each
    holding about nnz / nparts entries (rows are not split, so a row longer than that makes
    its block larger and a neighbour empty); rows alone decide for a matrix without
    entries. ``indptr``: the host row offsets."""
    indptr = np.asarray(indptr, dtype=np.int64)
    n, nnz = len(indptr) - 1, int(indptr[-1])
    if nnz == 0:
        return (np.arange(nparts + 1, dtype=np.int64) * n) // nparts
    # the block of an entry e is e * nparts // nnz; a row goes where its first entry goes
    targets = (np.arange(1, nparts, dtype=np.int64) * nnz + nparts - 1) // nparts
    cuts = np.searchsorted(indptr[:-1], targets, side="left")
    return np.concatenate([[0], np.maximum.accumulate(cuts), [n]]).astype(np.int64)


def split_entries(idx, vals, bounds, xp=np):
    """The entries (sorted global positions ``idx``, their ``vals``) of each block [b_k,
    b_k+1), as (positions from the block's start, values) pairs of ``xp`` arrays (one read
    of the p + 1 cut points when they are device arrays)."""
    idx, vals = xp.asarray(idx, dtype=xp.int64), xp.asarray(vals)
    cuts = xp.searchsorted(idx, xp.asarray(bounds, dtype=xp.int64)).tolist()
    return [(idx[s:e] - int(lo), vals[s:e])
            for lo, s, e in zip(bounds[:-1], cuts[:-1], cuts[1:])]


def split_dense(x, bounds):
    """The slices [b_k, b_k+1) of a full-length dense array, one per block (views)."""
    return [x[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]


def join_entries(parts, bounds, xp=np):
    """(global positions, values) of the blocks' (positions from the block's start, values)
    pairs, in block order: :func:`split_entries` undone."""
    return (xp.concatenate([xp.asarray(p[0], dtype=xp.int64) + int(lo)
                            for p, lo in zip(parts, bounds[:-1])]),
            xp.concatenate([xp.asarray(p[1]) for p in parts]))


def join_rows(parts, xp=np):
    """(indptr, indices, values) of row blocks' CSR arrays stacked in block order (each
    part (indptr from 0, indices, values...); values None when the parts carry none)."""
    offsets = np.cumsum([0] + [len(p[1]) for p in parts]).tolist()
    indptr = xp.concatenate([xp.zeros(1, dtype=xp.int64)]
                            + [xp.asarray(p[0][1:], dtype=xp.int64) + o
                               for p, o in zip(parts, offsets)])
    indices = xp.concatenate([xp.asarray(p[1]) for p in parts])
    values = xp.concatenate([xp.asarray(p[2]) for p in parts]) \
        if all(len(p) > 2 for p in parts) else None
    return indptr, indices, values
