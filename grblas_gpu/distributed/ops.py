"""Operations on distributed objects, with the signatures of their local twins. Each runs as
one task per rank (SPMD) that rebuilds its blocks as ordinary grblas_gpu objects, exchanges
what the operation needs through a communicator (grblas_gpu.distributed.comm) and calls the
local operation on its block, so masks, accumulators and replace act where the output's
entries live:

- mxv: u all-gathered; each rank computes its rows of A ⊕.⊗ u.
- vxm: each rank's rows give a partial u ⊕.⊗ A over every column; the partials are
  exchanged (all-to-all) and each rank folds the ones for its block of w with ⊕.
- ewise_add, ewise_mult, apply: block by block, nothing exchanged.
- select (value operators), reduce_rowwise: block by block, nothing exchanged.
- reduce_columnwise: each rank's rows give a partial over every column, folded on the
  owners as vxm's.
- reduce_scalar: each rank's ⊕ of its block, folded on the client.

The collectives (:mod:`grblas_gpu.distributed.comm`) are NCCL between GPU workers and Dask
queues otherwise (``collectives``). They return device or host arrays, so a rank takes
either into the engine's array module (``gg.backend.xp``) and keeps what it exchanges on
the device; blocks stored in Dask stay host arrays.
"""
import uuid

import numpy as np

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu.semirings import indexunary
from ..errors import DimensionMismatch, InvalidValue, NotSupported
from . import comm as comms, resident
from .objects import DistMask, DistMatrix, DistVector
from .partition import join_entries, split_entries

__all__ = ["mxv", "vxm", "ewise_add", "ewise_mult", "apply", "select", "reduce_rowwise",
           "reduce_columnwise", "reduce_scalar"]


# ------------------------------------------------------------------------------ products
def mxv(w, A, u, semiring="plus_times", *, mask=None, accum=None, desc=None):
    """w⟨mask⟩ = accum(w, A ⊕.⊗ u), as gg.mxv: A a DistMatrix, w split as A's rows, u on
    A's workers. Returns w. Under ``desc.transpose_first``, w = Aᵀ ⊕.⊗ u is computed as
    vxm (u split as A's rows, w on A's workers), ⊗ swapped to keep its operands' order."""
    if desc is not None and getattr(desc, "transpose_first", False):
        return vxm(w, u, A, _swapped(semiring, "mxv"), mask=mask, accum=accum,
                   desc=_untransposed(desc))
    _check_product("mxv", w, A, u, semiring, mask, desc, rows=w, cols=u)
    meta = dict(ncols=A.ncols, a_dtype=A.dtype.name, u_size=u.size, u_dtype=u.dtype.name,
                u_bounds=u.bounds, **_out_meta(w, mask))
    _run(w, _mxv_rank, A.blocks, u.blocks, _mask_blocks(mask, A.nparts), semiring, accum,
         desc, meta)
    return w


def vxm(w, u, A, semiring="plus_times", *, mask=None, accum=None, desc=None):
    """w⟨mask⟩ = accum(w, u ⊕.⊗ A), as gg.vxm: A a DistMatrix, u split as A's rows, w on A's
    workers. Returns w. Under ``desc.transpose_second``, w = u ⊕.⊗ Aᵀ is computed as mxv
    (w split as A's rows, u on A's workers), ⊗ swapped to keep its operands' order."""
    if desc is not None and getattr(desc, "transpose_second", False):
        return mxv(w, A, u, _swapped(semiring, "vxm"), mask=mask, accum=accum,
                   desc=_untransposed(desc))
    _check_product("vxm", w, A, u, semiring, mask, desc, rows=u, cols=w)
    typed = semirings.resolve_semiring(semirings.lookup(semiring, "semiring"), u.dtype,
                                       A.dtype)
    meta = dict(ncols=A.ncols, a_dtype=A.dtype.name, u_dtype=u.dtype.name,
                t_dtype=typed.monoid.type.name, **_out_meta(w, mask))
    _run(w, _vxm_rank, A.blocks, u.blocks, _mask_blocks(mask, A.nparts), semiring, accum,
         desc, meta)
    return w


def _swapped(semiring, op):
    """The semiring with ⊗'s operands swapped, (x, y) -> y ⊗ x: the transposed product as
    its twin computes A's and u's terms in the other order."""
    sr = semirings.lookup(semiring, "semiring")
    mult = sr.multiply
    if getattr(mult, "positional", False):
        raise NotSupported(f"distributed.{op}: a transposed A with the positional multiply "
                           f"{mult.name} is not distributed yet")
    if mult.is_commutative:
        return sr
    if mult.commutes_to is None:
        raise NotSupported(f"distributed.{op}: a transposed A needs {mult.name} with its "
                           "operands swapped, and it has no such twin")
    twin = semirings.lookup(mult.commutes_to, "binary")
    return semirings.make_semiring(f"{sr.monoid.name}_{twin.name}", sr.monoid, twin,
                                   register=False)


def _untransposed(desc):
    """The descriptor of the twin product: no transpose, the operands' structure fields
    exchanged with the operands."""
    return gg.Descriptor(replace=desc.replace, mask_complement=desc.mask_complement,
                         mask_structure=desc.mask_structure,
                         structure_first=desc.structure_second,
                         structure_second=desc.structure_first,
                         keep_mask_structure=desc.keep_mask_structure)


def _check_product(op, w, A, u, semiring, mask, desc, rows, cols):
    """The checks of mxv and vxm: ``rows`` the vector split as A's rows, ``cols`` the one
    as long as A's columns (on A's workers)."""
    _check_matrix(A, op)
    _check_vectors(op, w=w, u=u)
    _check_positional(semiring, op)
    cname, rname = ("u", "w") if op == "mxv" else ("w", "u")
    if cols.size != A.ncols:
        raise DimensionMismatch(f"distributed.{op}: {cname} has size {cols.size}, A has "
                                f"{A.ncols} columns")
    _check_rows(rows, A, op, rname)
    _check_workers(cols, A, op, cname)
    _check_mask(w, mask, op)


# ------------------------------------------------------------------------------ block by block
def ewise_add(w, u, v, op="plus", *, mask=None, accum=None, desc=None):
    """w⟨mask⟩ = accum(w, u ∪op v), as gg.ewise_add, on DistVectors split alike."""
    return _blockwise("ewise_add", w, (u, v), op, mask, accum, desc)


def ewise_mult(w, u, v, op="times", *, mask=None, accum=None, desc=None):
    """w⟨mask⟩ = accum(w, u ∩op v), as gg.ewise_mult, on DistVectors split alike."""
    return _blockwise("ewise_mult", w, (u, v), op, mask, accum, desc)


def apply(w, u, op, *, left=None, right=None, mask=None, accum=None, desc=None):
    """w⟨mask⟩ = accum(w, op(u)), as gg.apply (``left`` / ``right``: a bound Python
    scalar), on DistVectors split alike."""
    for side, s in (("left", left), ("right", right)):
        if isinstance(s, (DistVector, gg.Vector)):
            raise NotSupported(f"distributed.apply: {side}= as a Vector (a GrB_Scalar) is not "
                               "distributed yet; pass a Python scalar")
    return _blockwise("apply", w, (u,), op, mask, accum, desc, left=left, right=right)


def select(w, u, op, thunk=None, *, mask=None, accum=None, desc=None):
    """w⟨mask⟩ = accum(w, select(u, op, thunk)), as gg.select, on DistVectors split alike.
    Operators that read an entry's index (rowle, rowgt, ...) are refused: a block numbers
    its positions from its start."""
    iop = indexunary.lookup(op)
    if getattr(iop, "reads_index", True):
        raise NotSupported(f"distributed.select: {iop.name} reads an entry's index, which a "
                           "block numbers from its own start: not distributed yet")
    return _blockwise("select", w, (u,), op, mask, accum, desc, thunk=thunk)


def reduce_rowwise(w, A, op="plus", *, mask=None, accum=None, desc=None):
    """w⟨mask⟩ = accum(w, t), t(i) = ⊕_j A(i, j), as gg.reduce_rowwise: w split as A's
    rows, each rank reducing its own rows (nothing exchanged). Under ``desc``'s
    transpose_first: reduce_columnwise."""
    if desc is not None and getattr(desc, "transpose_first", False):
        return reduce_columnwise(w, A, op, mask=mask, accum=accum, desc=_untransposed(desc))
    _check_matrix(A, "reduce_rowwise")
    _check_vectors("reduce_rowwise", w=w)
    _check_rows(w, A, "reduce_rowwise", "w")
    _check_mask(w, mask, "reduce_rowwise")
    meta = dict(ncols=A.ncols, a_dtype=A.dtype.name, columns=False, **_out_meta(w, mask))
    _run(w, _reduce_matrix_rank, A.blocks, _mask_blocks(mask, A.nparts), op, accum, desc, meta,
         collective=False)
    return w


def reduce_columnwise(w, A, op="plus", *, mask=None, accum=None, desc=None):
    """w⟨mask⟩ = accum(w, t), t(j) = ⊕_i A(i, j), as gg.reduce_columnwise: w on A's
    workers; each rank's rows give a partial over every column, folded by ⊕ on the owners
    (all-to-all), as vxm's. Under ``desc``'s transpose_first: reduce_rowwise."""
    if desc is not None and getattr(desc, "transpose_first", False):
        return reduce_rowwise(w, A, op, mask=mask, accum=accum, desc=_untransposed(desc))
    _check_matrix(A, "reduce_columnwise")
    _check_vectors("reduce_columnwise", w=w)
    if w.size != A.ncols:
        raise DimensionMismatch(f"distributed.reduce_columnwise: w has size {w.size}, A has "
                                f"{A.ncols} columns")
    _check_workers(w, A, "reduce_columnwise", "w")
    _check_mask(w, mask, "reduce_columnwise")
    meta = dict(ncols=A.ncols, a_dtype=A.dtype.name, columns=True, **_out_meta(w, mask))
    _run(w, _reduce_matrix_rank, A.blocks, _mask_blocks(mask, A.nparts), op, accum, desc, meta)
    return w


def reduce_scalar(u, op="plus"):
    """⊕ of every entry of the DistVector u, a NumPy scalar of ⊕'s type (the identity when u
    has no entries), as gg.reduce_scalar: each rank reduces its block, the client the p
    results."""
    _check_vectors("reduce_scalar", u=u)
    futures = [u.client.submit(_reduce_rank, b, u.bounds[k + 1] - u.bounds[k], u.dtype.name,
                               op, workers=[u.workers[k]], allow_other_workers=False,
                               pure=False) for k, b in enumerate(u.blocks)]
    partials = u.client.gather(futures)
    return gg.reduce_scalar(gg.Vector.from_dense(np.asarray(partials)), op)


def _blockwise(name, w, inputs, op, mask, accum, desc, **scalars):
    _check_vectors(name, w=w, **{f"input {i}": x for i, x in enumerate(inputs)})
    for i, x in enumerate(inputs):
        w._same_layout(x, f"input {i}")
    _check_mask(w, mask, name)
    meta = dict(name=name, in_dtypes=[x.dtype.name for x in inputs], **_out_meta(w, mask))
    _run(w, _blockwise_rank, [tuple(x.blocks[k] for x in inputs) for k in range(w.nparts)],
         _mask_blocks(mask, w.nparts), op, accum, desc, scalars, meta, collective=False)
    return w


# ------------------------------------------------------------------------------ checks
def _check_matrix(A, op):
    if not isinstance(A, DistMatrix):
        raise InvalidValue(f"distributed.{op}: A must be a DistMatrix, got {type(A).__name__}")


def _check_vectors(op, **vectors):
    for name, x in vectors.items():
        if not isinstance(x, DistVector):
            raise InvalidValue(f"distributed.{op}: {name} must be a DistVector, got "
                               f"{type(x).__name__}")


# positional multiplies that read a position a rank holds relative to its block (a row of
# its A, a position of its u) rather than the global one: refused until blocks carry offsets
_LOCAL_POSITIONS = {"mxv": ("firsti", "firsti1"),
                    "vxm": ("firstj", "firstj1", "secondi", "secondi1")}


def _check_positional(semiring, op):
    name = semirings.lookup(semiring, "semiring").multiply.name
    if name in _LOCAL_POSITIONS[op]:
        raise NotSupported(f"distributed.{op}: the multiply {name} reads a row position, "
                           "which a row block numbers from its own start: not distributed "
                           "yet")


def _check_rows(x, A, op, name):
    if x.size != A.nrows or not (np.array_equal(x.bounds, A.bounds)
                                 and x.workers == A.workers):
        raise DimensionMismatch(f"distributed.{op}: {name} must be split as A's rows "
                                "(DistVector.empty(A, dtype) or from_vector(v, A))")


def _check_workers(x, A, op, name):
    if x.workers != A.workers:
        raise InvalidValue(f"distributed.{op}: {name} must live on A's workers "
                           "(from_vector(v, A))")


def _check_mask(w, mask, op):
    if mask is not None:
        if not isinstance(mask, DistMask):
            raise InvalidValue(f"distributed.{op}: mask must be a DistVector's .S or .V, got "
                               f"{type(mask).__name__}")
        w._same_layout(mask.vector, "the mask")


# ------------------------------------------------------------------------------ the SPMD run
def _out_meta(w, mask):
    return dict(w_dtype=w.dtype.name, w_bounds=w.bounds,
                m_dtype=None if mask is None else mask.vector.dtype.name,
                m_kind=None if mask is None else (mask.structure, mask.complement))


# seconds a rank waits for the others in a collective (a worker that died: InvalidValue);
# set on the workers (client.run) to change it
comm_timeout = 120.0

# the ranks' collectives, read on the client at each call: "auto" (NCCL when the workers
# run the engine on CuPy and cupy.cuda.nccl imports, Dask queues otherwise), "nccl" or
# "queue" (see grblas_gpu.distributed.comm.choose)
collectives = "auto"


def _mask_blocks(mask, p):
    return [None] * p if mask is None else mask.vector.blocks


def _run(w, rank_fn, *per_rank_and_shared, collective=True):
    """rank_fn(comm, rank, w_block, *args) on every rank of w's workers, the arguments
    that are lists of p taken per rank; w's blocks become the results. Waits for every rank
    and raises the first rank's error as it was raised there."""
    run, p, client = uuid.uuid4().hex, w.nparts, w.client
    if collectives not in comms.SETTINGS:
        raise InvalidValue(f"distributed: ops.collectives must be one of {comms.SETTINGS}, "
                           f"got {collectives!r}")
    grp = comms.group(client, w.workers, collectives) if collective else None
    futures = []
    for k in range(p):
        args = [a[k] if isinstance(a, list) and len(a) == p else a
                for a in per_rank_and_shared]
        futures.append(client.submit(_rank, rank_fn, run if collective else None, grp, k, p,
                                     w.blocks[k], *args, workers=[w.workers[k]],
                                     allow_other_workers=False, pure=False))
    try:
        _wait_all(futures)
    except Exception:
        if collective:   # (a rank may have died, or stopped inside the communicator)
            comms.forget(client, w.workers)
        raise
    w.blocks = futures


def _wait_all(futures):
    from distributed import wait

    pending = set(futures)
    while pending:   # the first error as soon as it comes: a rank on a dead worker never ends
        try:
            done, pending = wait(pending, return_when="FIRST_COMPLETED")
        except Exception as e:   # noqa: BLE001  (Dask cancelled a rank: its worker went)
            for f in futures:
                f.cancel()
            raise InvalidValue(f"distributed: a rank did not finish ({type(e).__name__}); "
                               "its worker may have died") from None
        for f in done:
            if f.status != "finished":
                for other in pending:
                    other.cancel()
                _raise(f, futures.index(f))


def rank0_item(x, k):
    """Item ``k`` of rank 0's block of ``x`` (what a run left there beside the block's
    arrays: an iteration count, agreed boundaries), read on its worker rather than the block
    brought to the client to read it."""
    return x.client.submit(_item, x.blocks[0], k, workers=[x.workers[0]], pure=False).result()


def _item(block, k):
    return block[k]


def _raise(future, rank):
    """A rank's error: the engine's as it was raised on the worker; anything else (a worker
    that died, a task Dask lost or cancelled) as InvalidValue."""
    try:
        future.result()
    except gg.GraphBLASError:
        raise
    except Exception as e:   # noqa: BLE001  (Dask's errors: KilledWorker, cancellations)
        raise InvalidValue(f"distributed: rank {rank} did not finish ({type(e).__name__}: "
                           f"{str(e).splitlines()[0] if str(e) else ''}); its worker may have "
                           "died") from None


def _rank(rank_fn, run, grp, rank, size, w_block, *args):
    comm = None if run is None else comms.make(run, grp, rank, size, comm_timeout)
    try:
        return rank_fn(comm, rank, w_block, *args)
    finally:
        if comm is not None:
            comm.close()


def _vector(block, size, dtype):
    return gg.Vector.from_coo(block[0], block[1], size=size, dtype=dtype)


def _mask(m_block, size, meta):
    if m_block is None:
        return None
    m = _vector(m_block, size, meta["m_dtype"])
    structure, complement = meta["m_kind"]
    mask = m.S if structure else m.V
    return ~mask if complement else mask


def _block_size(meta, rank):
    return int(meta["w_bounds"][rank + 1] - meta["w_bounds"][rank])


def _block(v):
    idx, vals = v.to_coo()
    return np.asarray(idx, dtype=np.int64), np.asarray(vals)


def _mxv_rank(comm, rank, w_block, a_block, u_block, m_block, semiring, accum, desc, meta):
    idx, vals = join_entries(comm.allgather(u_block), meta["u_bounds"], gg.backend.xp)
    u = gg.Vector.from_coo(idx, vals, size=meta["u_size"], dtype=meta["u_dtype"])
    A = resident.matrix(a_block, meta["ncols"], meta["a_dtype"])
    n = _block_size(meta, rank)
    w = _vector(w_block, n, meta["w_dtype"])
    gg.mxv(w, A, u, semiring, mask=_mask(m_block, n, meta), accum=accum, desc=desc)
    return _block(w)


def _vxm_rank(comm, rank, w_block, a_block, u_block, m_block, semiring, accum, desc, meta):
    A = resident.matrix(a_block, meta["ncols"], meta["a_dtype"])
    u = _vector(u_block, A.nrows, meta["u_dtype"])
    # this rank's rows' partial product over every column, in ⊕'s type
    partial = gg.vxm(gg.Vector(meta["t_dtype"], meta["ncols"]), u, A, semiring)
    n = _block_size(meta, rank)
    # T = ⊕ of the partials for this block
    monoid = semirings.lookup(semiring, "semiring").monoid
    T = to_owners(comm, partial, meta["w_bounds"], monoid, n, meta["t_dtype"])
    w = _vector(w_block, n, meta["w_dtype"])
    gg.apply(w, T, "identity", mask=_mask(m_block, n, meta), accum=accum, desc=desc)
    return _block(w)


def to_owners(comm, v, bounds, monoid, size_k, dtype):
    """This rank's block (``size_k`` positions, of ``dtype``) of ⊕ over every rank's
    full-length partial ``v``, ⊕ ``monoid``: one all-to-all, each block of a partial sent to
    the rank that owns it (``bounds``) and the ones received folded as duplicates. The
    entries stay on the device under CuPy."""
    xp = gg.backend.xp
    got = comm.alltoall(split_entries(*v.to_coo(device=True), bounds, xp))
    return gg.Vector.from_coo(xp.concatenate([xp.asarray(i) for i, _ in got]),
                              xp.concatenate([xp.asarray(x) for _, x in got]), size=size_k,
                              dtype=dtype, dup_op=monoid)


def _reduce_matrix_rank(comm, rank, w_block, a_block, m_block, op, accum, desc, meta):
    A = resident.matrix(a_block, meta["ncols"], meta["a_dtype"])
    n = _block_size(meta, rank)
    w = _vector(w_block, n, meta["w_dtype"])
    mask = _mask(m_block, n, meta)
    if not meta["columns"]:
        gg.reduce_rowwise(w, A, op, mask=mask, accum=accum, desc=desc)
        return _block(w)
    # this rank's rows' partial over every column, then T = ⊕ of the partials for block k
    partial = gg.reduce_columnwise(gg.Vector(meta["a_dtype"], meta["ncols"]), A, op)
    T = to_owners(comm, partial, meta["w_bounds"], _monoid(op), n, meta["a_dtype"])
    gg.apply(w, T, "identity", mask=mask, accum=accum, desc=desc)
    return _block(w)


def _monoid(op):
    found = semirings.lookup(op)
    return getattr(found, "monoid", found)


def _blockwise_rank(comm, rank, w_block, in_blocks, m_block, op, accum, desc, scalars, meta):
    n = _block_size(meta, rank)
    xs = [_vector(b, n, t) for b, t in zip(in_blocks, meta["in_dtypes"])]
    w = _vector(w_block, n, meta["w_dtype"])
    fn = getattr(gg, meta["name"])
    fn(w, *xs, op, mask=_mask(m_block, n, meta), accum=accum, desc=desc, **scalars)
    return _block(w)


def _reduce_rank(block, size, dtype, op):
    return gg.reduce_scalar(_vector(block, int(size), dtype), op)
