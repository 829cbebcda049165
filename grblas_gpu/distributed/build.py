"""DistMatrix built on the workers, no graph passing through the client: R-MAT drawn in
shares (:func:`rmat`).

Each rank draws the R-MAT edges numbered [m k / p, m (k + 1) / p) (the generator is
counter-based: together the ranks draw exactly the edges ``gg.generate.rmat`` draws),
drops self loops (and, undirected, adds each edge's reverse), then the ranks agree on row
blocks balanced by entries from a histogram of rows in chunks (an all-gather of a few
thousand counts), send each edge to the owner of its row (all-to-all), and each owner
removes duplicates and builds its CSR block. The graph equals ``gg.generate.rmat`` with
the same arguments; its row blocks may differ from ``DistMatrix.from_matrix``'s (the
histogram counts edges before duplicates go).
"""
import numpy as np

import grblas_gpu as gg
from ..errors import InvalidValue, NotSupported
from .cluster import connect
from .objects import DistMatrix, _workers
from .ops import _run, rank0_item
from .partition import row_blocks, split_entries

__all__ = ["rmat"]

HISTOGRAM_CHUNKS = 1 << 14   # row chunks the block boundaries are chosen among


def rmat(scale, edge_factor=16, a=0.57, b=0.19, c=0.19, *, seed=None, symmetric=True,
         weighted=False, dtype=None, client=None, nparts=None):
    """``gg.generate.rmat(scale, edge_factor, a, b, c, seed=..., symmetric=..., dtype=...)``
    as a DistMatrix drawn on the workers (see the module docstring): ``nparts`` row blocks
    (default: one per worker of ``client``, default ``connect()``). Unweighted only (iso
    BOOL True, or 1 of ``dtype``; ``weighted=True`` is NotSupported). ``seed``: drawn here
    when None, so every rank uses one."""
    if weighted is not False:
        if weighted is True:
            raise NotSupported("distributed.rmat: weighted graphs are not drawn on the "
                               "workers yet (build one locally and use "
                               "DistMatrix.from_matrix)")
        raise InvalidValue(f"distributed.rmat: weighted must be True or False, got "
                           f"{weighted!r}")
    dt = gg.lookup_dtype("BOOL" if dtype is None else dtype)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
    # the arguments checked here, as the local generator checks them (nothing drawn)
    gg.generate.rmat_edges(scale, edge_factor, a, b, c, seed=seed, start=0, stop=0)
    if not isinstance(symmetric, (bool, np.bool_)):
        raise InvalidValue(f"distributed.rmat: symmetric must be True or False, got "
                           f"{symmetric!r}")
    client = connect(client)
    workers = _workers(client, nparts)
    n = 1 << int(scale)
    out = DistMatrix(client, (n, n), dt, np.zeros(len(workers) + 1, dtype=np.int64), workers,
                     [None] * len(workers))
    _run(out, _rmat_rank, dict(scale=int(scale), edge_factor=int(edge_factor),
                               abc=(float(a), float(b), float(c)), seed=int(seed),
                               symmetric=bool(symmetric), dtype=dt.name, p=len(workers)))
    # the ranks' blocks carry the boundaries they agreed on as a fourth item
    out.bounds = np.asarray(rank0_item(out, 3))
    out.blocks = [client.submit(_csr, f, workers=[w], allow_other_workers=False, pure=False)
                  for f, w in zip(out.blocks, workers)]
    return out


def _csr(block):
    return block[:3]


def _rmat_rank(comm, rank, _, meta):
    xp = gg.backend.xp
    n, p = 1 << meta["scale"], meta["p"]
    m = meta["edge_factor"] * n
    rows, cols = gg.generate.rmat_edges(meta["scale"], meta["edge_factor"], *meta["abc"],
                                        seed=meta["seed"], start=m * rank // p,
                                        stop=m * (rank + 1) // p)
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]
    if meta["symmetric"]:
        rows, cols = xp.concatenate([rows, cols]), xp.concatenate([cols, rows])
    # row blocks balanced by entries, from every rank's histogram of rows in chunks
    chunks = min(n, HISTOGRAM_CHUNKS)
    width = -(-n // chunks)
    mine = xp.bincount(rows // width, minlength=chunks).astype(xp.int64)
    counts = sum(np.asarray(gg.backend.to_host(h[0]), dtype=np.int64)
                 for h in comm.allgather((mine,)))
    cuts = row_blocks(np.concatenate([[0], np.cumsum(counts)]), p)
    bounds = np.minimum(cuts * width, n).astype(np.int64)
    bounds[-1] = n
    # each edge to the owner of its row
    order = xp.argsort(rows, kind="stable")
    got = comm.alltoall(split_entries(rows[order], cols[order], bounds, xp))
    lo, hi = int(bounds[rank]), int(bounds[rank + 1])
    local_rows = xp.concatenate([xp.asarray(r) for r, _ in got])
    local_cols = xp.concatenate([xp.asarray(c) for _, c in got])
    A = gg.Matrix.from_coo(local_rows, local_cols, True, nrows=hi - lo, ncols=n,
                           dtype=meta["dtype"], dup_op="any")
    indptr, indices, values = A.to_csr()   # (host arrays; values full, as Dask keeps them)
    return (np.asarray(indptr, dtype=np.int64), indices, values, bounds)
