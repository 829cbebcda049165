"""Operations on distributed objects, with the signatures of their local twins. Each runs as
one task per rank (SPMD) that rebuilds its blocks as ordinary grblas_gpu objects, exchanges
what the product needs through a communicator (grblas_gpu.distributed.comm) and calls the
local operation."""
import uuid

import numpy as np

import grblas_gpu as gg
from ..errors import DimensionMismatch, InvalidValue, NotSupported
from .comm import QueueComm
from .objects import DistMask, DistMatrix, DistVector

__all__ = ["mxv"]


def mxv(w, A, u, semiring="plus_times", *, mask=None, accum=None, desc=None):
    """w⟨mask⟩ = accum(w, A ⊕.⊗ u), as gg.mxv, on a DistMatrix A and DistVectors w (split as
    A's rows) and u: each rank all-gathers u, computes its rows and writes them back into its
    block of w, so masks, accumulators and replace act on the rows where they live.
    Returns w. A transposed A (``desc`` with transpose_first) is not supported yet."""
    if not isinstance(A, DistMatrix):
        raise InvalidValue(f"distributed.mxv: A must be a DistMatrix, got {type(A).__name__}")
    for name, x in (("w", w), ("u", u)):
        if not isinstance(x, DistVector):
            raise InvalidValue(f"distributed.mxv: {name} must be a DistVector, got "
                               f"{type(x).__name__}")
    if desc is not None and getattr(desc, "transpose_first", False):
        raise NotSupported("distributed.mxv: a transposed A (vxm's reduce-scatter) is not "
                           "distributed yet")
    if u.size != A.ncols:
        raise DimensionMismatch(f"distributed.mxv: u has size {u.size}, A has {A.ncols} "
                                "columns")
    if w.size != A.nrows or not (np.array_equal(w.bounds, A.bounds)
                                 and w.workers == A.workers):
        raise DimensionMismatch("distributed.mxv: w must be split as A's rows "
                                "(DistVector.empty(A, dtype) or from_vector(v, A))")
    if u.workers != A.workers:
        raise InvalidValue("distributed.mxv: u must live on A's workers (from_vector(v, A))")
    if mask is not None:
        if not isinstance(mask, DistMask):
            raise InvalidValue(f"distributed.mxv: mask must be a DistVector's .S or .V, got "
                               f"{type(mask).__name__}")
        w._same_layout(mask.vector, "the mask")
    run, p = uuid.uuid4().hex, A.nparts
    meta = dict(ncols=A.ncols, a_dtype=A.dtype.name, u_size=u.size, u_dtype=u.dtype.name,
                u_bounds=u.bounds, w_dtype=w.dtype.name, m_dtype=None if mask is None else
                mask.vector.dtype.name, m_kind=None if mask is None else
                (mask.structure, mask.complement))
    futures = [A.client.submit(_mxv_rank, run, k, p, A.blocks[k], u.blocks[k], w.blocks[k],
                               None if mask is None else mask.vector.blocks[k], semiring,
                               accum, desc, meta, workers=[A.workers[k]],
                               allow_other_workers=False, pure=False)
               for k in range(p)]
    _wait(futures)
    w.blocks = futures
    return w


def _wait(futures):
    """Wait for every rank; the first rank's error is raised here (its own type)."""
    from distributed import wait

    wait(futures)
    for f in futures:
        if f.status == "error":
            f.result()


def _mxv_rank(run, rank, size, a_block, u_block, w_block, m_block, semiring, accum, desc,
              meta):
    """One rank's part of :func:`mxv`: returns its new block of w."""
    comm = QueueComm(run, rank, size)
    try:
        lo = meta["u_bounds"][rank]
        parts = comm.allgather((u_block[0] + lo, u_block[1]))
        u = gg.Vector.from_coo(np.concatenate([i for i, _ in parts]),
                               np.concatenate([v for _, v in parts]), size=meta["u_size"],
                               dtype=meta["u_dtype"])
    finally:
        comm.close()
    indptr, indices, values = a_block
    A = gg.Matrix.from_csr(indptr, indices, values, ncols=meta["ncols"], dtype=meta["a_dtype"])
    n = A.nrows
    w = gg.Vector.from_coo(w_block[0], w_block[1], size=n, dtype=meta["w_dtype"])
    mask = None
    if m_block is not None:
        m = gg.Vector.from_coo(m_block[0], m_block[1], size=n, dtype=meta["m_dtype"])
        structure, complement = meta["m_kind"]
        mask = m.S if structure else m.V
        mask = ~mask if complement else mask
    gg.mxv(w, A, u, semiring, mask=mask, accum=accum, desc=desc)
    idx, vals = w.to_coo()
    return np.asarray(idx, dtype=np.int64), np.asarray(vals)
