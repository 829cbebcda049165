"""Row blocks of a CSR matrix holding about equal entries (1-D partitioning)."""
import numpy as np

__all__ = ["row_blocks"]


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
