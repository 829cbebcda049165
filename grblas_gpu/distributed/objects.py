"""DistMatrix and DistVector: blocks of host arrays, each living on one Dask worker.

A block is what a rank rebuilds an ordinary Matrix or Vector from: a DistMatrix block is
the CSR arrays of rows [b_k, b_k+1) (indptr, column indices, values), a DistVector block the
COO arrays of positions [b_k, b_k+1) (indices from 0 within the block, values). ``bounds``
holds the b_k, ``workers`` the worker of each rank, ``blocks`` the Dask futures.
"""
import numpy as np

import grblas_gpu as gg
from ..errors import DimensionMismatch, InvalidValue
from .cluster import connect
from .partition import join_entries, join_rows, row_blocks, split_entries

__all__ = ["DistMatrix", "DistVector", "DistMask"]


def _workers(client, nparts):
    # (asked of the scheduler each time: Client.scheduler_info() returns a cache that a
    # background refresh may have just replaced with one listing no workers)
    workers = sorted(client.nthreads())
    if nparts is None:
        nparts = len(workers)
    if isinstance(nparts, bool) or not isinstance(nparts, int) or not 1 <= nparts <= len(
            workers):
        raise InvalidValue(f"distributed: nparts must be an integer in [1, {len(workers)}] "
                           f"(one block per worker), got {nparts!r}")
    return workers[:nparts]


def _place(client, blocks, workers):
    """One future per block, each on its rank's worker (keys not from the content: two
    objects with equal blocks must not share, and lose, one key)."""
    return [client.scatter([b], workers=[w], hash=False)[0] for b, w in zip(blocks, workers)]


class DistMatrix:
    """A Matrix split into row blocks over Dask workers (see the module docstring)."""

    def __init__(self, client, shape, dtype, bounds, workers, blocks):
        self.client, self.shape, self.dtype = client, tuple(shape), gg.lookup_dtype(dtype)
        self.bounds, self.workers, self.blocks = np.asarray(bounds), list(workers), blocks

    nrows = property(lambda self: self.shape[0])
    ncols = property(lambda self: self.shape[1])
    nparts = property(lambda self: len(self.workers))

    @classmethod
    def from_matrix(cls, A, client=None, nparts=None):
        """A split into ``nparts`` row blocks of about equal entries (default: one per
        worker of ``client``, which defaults to a new local cluster: ``connect()``)."""
        if not isinstance(A, gg.Matrix):
            raise InvalidValue(f"DistMatrix.from_matrix needs a Matrix, got {type(A).__name__}")
        client = connect(client)
        workers = _workers(client, nparts)
        indptr, indices, values = A.to_csr()
        indptr = np.asarray(indptr, dtype=np.int64)
        bounds = row_blocks(indptr, len(workers))
        blocks = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            s, e = indptr[lo], indptr[hi]
            blocks.append((indptr[lo:hi + 1] - s, np.asarray(indices[s:e]),
                           np.asarray(values[s:e])))
        return cls(client, A.shape, A.dtype, bounds, workers, _place(client, blocks, workers))

    def gather(self):
        """The local Matrix (every block brought to this process)."""
        indptr, indices, values = join_rows(self.client.gather(self.blocks))
        return gg.Matrix.from_csr(indptr, indices, values, ncols=self.ncols, dtype=self.dtype)

    def __repr__(self):
        return (f"<grblas_gpu.distributed.DistMatrix {self.nrows}x{self.ncols} "
                f"{self.dtype.name} in {self.nparts} row blocks>")


class DistVector:
    """A Vector split into blocks of positions over Dask workers."""

    def __init__(self, client, size, dtype, bounds, workers, blocks):
        self.client, self.size, self.dtype = client, int(size), gg.lookup_dtype(dtype)
        self.bounds, self.workers, self.blocks = np.asarray(bounds), list(workers), blocks

    nparts = property(lambda self: len(self.workers))

    @staticmethod
    def _layout(like, size):
        """(bounds, workers) for a vector of ``size`` going with ``like``: a DistMatrix's row
        blocks where size is its row count, else even blocks on the same workers."""
        if not isinstance(like, (DistMatrix, DistVector)):
            raise InvalidValue(f"distributed: like must be a DistMatrix or DistVector, got "
                               f"{type(like).__name__}")
        if isinstance(like, DistMatrix) and size == like.nrows or (
                isinstance(like, DistVector) and size == like.size):
            return like.bounds, like.workers
        p = len(like.workers)
        return (np.arange(p + 1, dtype=np.int64) * size) // p, like.workers

    @classmethod
    def from_vector(cls, v, like):
        """v split as ``like`` (a DistMatrix or DistVector) lays out its positions."""
        if not isinstance(v, gg.Vector):
            raise InvalidValue(f"DistVector.from_vector needs a Vector, got {type(v).__name__}")
        bounds, workers = cls._layout(like, v.size)
        blocks = split_entries(*v.to_coo(), bounds)
        return cls(like.client, v.size, v.dtype, bounds, workers,
                   _place(like.client, blocks, workers))

    @classmethod
    def empty(cls, like, dtype, size=None):
        """A Vector with no entries, laid out as ``like`` (size: like's rows by default)."""
        size = (like.nrows if isinstance(like, DistMatrix) else like.size) if size is None \
            else size
        return cls.from_vector(gg.Vector(dtype, size), like)

    def gather(self):
        """The local Vector."""
        idx, vals = join_entries(self.client.gather(self.blocks), self.bounds)
        return gg.Vector.from_coo(idx, vals, size=self.size, dtype=self.dtype)

    @property
    def S(self):
        return DistMask(self, structure=True)

    @property
    def V(self):
        return DistMask(self, structure=False)

    def _same_layout(self, other, what):
        if self.size != other.size:
            raise DimensionMismatch(f"distributed: {what} has size {other.size}, expected "
                                    f"{self.size}")
        if not (np.array_equal(self.bounds, other.bounds) and self.workers == other.workers):
            raise InvalidValue(f"distributed: {what} is split differently from the output "
                               "(make it with like=the output)")

    def __repr__(self):
        return (f"<grblas_gpu.distributed.DistVector size={self.size} {self.dtype.name} in "
                f"{self.nparts} blocks>")


class DistMask:
    """A DistVector used as a mask: its structure (``.S``) or values (``.V``), ``~``
    complemented, as gg.Vector's masks."""

    def __init__(self, vector, structure, complement=False):
        self.vector, self.structure, self.complement = vector, structure, complement

    def __invert__(self):
        return DistMask(self.vector, self.structure, not self.complement)
