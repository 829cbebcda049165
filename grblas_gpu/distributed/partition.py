"""Row blocks of a CSR matrix holding about equal entries (1-D partitioning), and the host
arrays of blocks split and joined at their boundaries."""
import numpy as np

__all__ = ["row_blocks", "split_entries", "join_entries", "join_rows"]


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


def split_entries(idx, vals, bounds):
    """The entries (sorted global positions ``idx``, their ``vals``) of each block [b_k,
    b_k+1), as (positions from the block's start, values) pairs."""
    idx = np.asarray(idx, dtype=np.int64)
    cuts = np.searchsorted(idx, bounds)
    return [(idx[s:e] - lo, np.asarray(vals[s:e]))
            for lo, s, e in zip(bounds[:-1], cuts[:-1], cuts[1:])]


def join_entries(parts, bounds):
    """(global positions, values) of the blocks' (positions from the block's start, values)
    pairs, in block order: :func:`split_entries` undone."""
    return (np.concatenate([p[0] + lo for p, lo in zip(parts, bounds[:-1])]),
            np.concatenate([p[1] for p in parts]))


def join_rows(parts):
    """(indptr, indices, values) of row blocks' CSR arrays stacked in block order (each
    part (indptr from 0, indices, values...); values None when the parts carry none)."""
    offsets = np.cumsum([0] + [len(p[1]) for p in parts])
    indptr = np.concatenate([[0]] + [p[0][1:] + o for p, o in zip(parts, offsets)])
    indices = np.concatenate([p[1] for p in parts])
    values = np.concatenate([p[2] for p in parts]) if all(len(p) > 2 for p in parts) else None
    return indptr, indices, values
