"""NCCL between the GPU ranks of an SPMD run (``cupy.cuda.nccl``), with QueueComm's
interface: device (CuPy) arrays out, host or device arrays in.

A collective is an all-to-all of variable-sized messages (alltoallv, as cuGraph's multi-GPU
layer exchanges them):

1. sizes: every rank all-gathers (ncclAllGather of int64) a header giving, for each rank it
   sends to and each array of its tuple, the bytes and the dtype; one read brings the
   p × p × m × 2 numbers to the host (the host round trip a collective needs to size its
   buffers);
2. data: one NCCL group of ncclSend / ncclRecv per peer and array (a rank's own part
   included: NCCL copies it), empty arrays skipped on both sides, received into one buffer,
   each array a view at a 16-byte boundary.

``allgather`` is the all-to-all of one tuple for every rank. Every rank gives tuples of the
same length (m sizes the header: a rank that gave another would read a wrong header); each
array is 1-D (what the layer exchanges: positions, values, CSR arrays); the dtype travels in
the header, so ranks may differ there (an int32 against an int64 indptr).

A communicator (ncclCommInitRank: 100 ms and more) is made once for a group of workers and
kept in each worker process for later runs, keyed by (the workers in rank order, rank,
size). The client names it by a token (``comm.group``) and gives a new one after a failed
run, on which the ranks abort the old communicator and make another. Rank 0 makes the
unique id (ncclGetUniqueId: the bootstrap listens in rank 0's process) and hands it to the
others through a Dask Variable named by the token.

Timeouts: NCCL has none. A rank waits for each phase by polling a CUDA event (and
ncclCommGetAsyncError) until ``timeout`` seconds have passed, then aborts the communicator
(ncclCommAbort ends its kernels) and raises InvalidValue, so a peer that died gives an
error, not a hang. Not covered: ncclCommInitRank and the first ncclGroupEnd to a peer (the
connection set-up) block inside NCCL; a rank that dies just then leaves its peers' threads
waiting there (the client's call still raises as soon as Dask reports the dead worker).
"""
import atexit
import time

import numpy as np

from ..errors import InvalidValue

__all__ = ["NcclComm", "usable", "communicator", "release", "made"]

# the dtypes a header can name (its code: the position here)
_DTYPES = tuple(np.dtype(t) for t in (
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "float32", "float64", "complex64", "complex128"))
_ALIGN = 16


def _code(dtype):
    for k, t in enumerate(_DTYPES):
        if t == dtype:
            return k
    raise InvalidValue(f"distributed: NCCL collectives carry {[t.name for t in _DTYPES]}, "
                       f"not {dtype}")


def _aligned(n):
    return -(-n // _ALIGN) * _ALIGN


class NcclComm:
    """Collectives through a transport: ``_Cuda`` (cupy.cuda.nccl) on GPUs; tests give one
    of their own. A transport has ``xp`` (its array module), ``host(a)``,
    ``allgather(send, recv)`` (int64 arrays), ``exchange(sends, recvs)`` ((array, peer)
    and (uint8 buffer, peer) pairs, one group), ``wait(timeout)`` (TimeoutError past it)
    and ``abort()``."""

    def __init__(self, transport, rank, size, timeout=120.0, run=None):
        self.transport, self.rank, self.size = transport, rank, size
        self.timeout, self.run = timeout, run
        self.failed = False

    def allgather(self, arrays):
        """Every rank's tuple of 1-D arrays, in rank order (this rank's own included), as
        device arrays."""
        return self._collective([tuple(arrays)] * self.size, "allgather")

    def alltoall(self, per_rank):
        """``per_rank[r]``: the tuple of 1-D arrays for rank r; returns, in rank order, the
        tuple each rank gave this one, as device arrays."""
        if len(per_rank) != self.size:
            raise InvalidValue(f"distributed: alltoall needs {self.size} tuples, got "
                               f"{len(per_rank)}")
        return self._collective([tuple(t) for t in per_rank], "alltoall")

    def close(self):
        """Nothing to drop: the communicator stays for the next run on these workers."""

    def abort(self):
        """End the communicator (its pending kernels too); it is not used again."""
        self.failed = True
        self.transport.abort()

    def _collective(self, per_rank, what):
        if self.failed:
            raise InvalidValue(f"distributed: rank {self.rank}'s NCCL communicator was "
                               "aborted by an earlier failure")
        try:
            return self._alltoallv(per_rank)
        except (TimeoutError, RuntimeError) as e:   # (NCCL's and CUDA's errors)
            self.abort()
            raise InvalidValue(f"distributed: rank {self.rank} of run {self.run}: NCCL "
                               f"{what} did not complete ({type(e).__name__}: {e}); a peer "
                               "may have died") from None

    def _device(self, a):
        d = self.transport.xp.asarray(a)    # (a host array: copied to the device)
        if d.ndim != 1:
            raise InvalidValue(f"distributed: NCCL collectives carry 1-D arrays, got shape "
                               f"{d.shape}")
        return self.transport.xp.ascontiguousarray(d)

    def _alltoallv(self, per_rank):
        t, p, m = self.transport, self.size, len(per_rank[0])
        if m == 0 or any(len(x) != m for x in per_rank):
            raise InvalidValue("distributed: a collective's tuples must all hold the same "
                               f"number (>= 1) of arrays, got {[len(x) for x in per_rank]}")
        seen = {}   # (allgather gives the same arrays for every rank: moved once)
        sends = [[seen[id(a)] if id(a) in seen else seen.setdefault(id(a), self._device(a))
                  for a in x] for x in per_rank]
        # the header: (bytes, dtype) of each array for each destination
        header = np.array([[(d.nbytes, _code(d.dtype)) for d in row] for row in sends],
                          dtype=np.int64).reshape(-1)
        mine = t.xp.asarray(header)     # (held until the wait: NCCL reads it on the stream)
        everyone = t.xp.empty(p * header.size, dtype=t.xp.int64)
        t.allgather(mine, everyone)
        t.wait(self.timeout)
        incoming = t.host(everyone).reshape(p, p, m, 2)[:, self.rank]
        offsets, total = np.zeros((p, m), dtype=np.int64), 0
        for r in range(p):
            for j in range(m):
                offsets[r, j], total = total, _aligned(total + int(incoming[r, j, 0]))
        buf = t.xp.empty(total, dtype=t.xp.uint8)
        parts = [[buf[o:o + n] for o, n in zip(offsets[r], incoming[r, :, 0])]
                 for r in range(p)]
        t.exchange([(d, r) for r in range(p) for d in sends[r] if d.nbytes],
                   [(b, r) for r in range(p) for b in parts[r] if b.nbytes])
        t.wait(self.timeout)
        return [tuple(b.view(_DTYPES[c]) for b, c in zip(parts[r], incoming[r, :, 1]))
                for r in range(p)]


SPIN = 0.02   # seconds a wait spins on its event before it sleeps between polls


class _Cuda:
    """NcclComm's transport on GPUs: an NcclCommunicator, on the current stream."""

    def __init__(self, communicator):
        import cupy
        from cupy.cuda import nccl

        self.xp, self.nccl, self.comm = cupy, nccl, communicator

    def host(self, a):
        return self.xp.asnumpy(a)

    def _stream(self):
        return self.xp.cuda.get_current_stream().ptr

    def allgather(self, send, recv):
        self.comm.allGather(send.data.ptr, recv.data.ptr, send.size, self.nccl.NCCL_INT64,
                            self._stream())

    def exchange(self, sends, recvs):
        s, u8 = self._stream(), self.nccl.NCCL_UINT8
        self.nccl.groupStart()
        try:
            for a, peer in sends:
                self.comm.send(a.data.ptr, a.nbytes, u8, peer, s)
            for b, peer in recvs:
                self.comm.recv(b.data.ptr, b.nbytes, u8, peer, s)
        finally:
            self.nccl.groupEnd()

    def wait(self, timeout):
        """Until the stream's work so far is done: spinning for SPIN seconds (the wait
        usually covers the products queued before the collective: a sleep's wake-up, ~0.1
        ms, would add to every one), then polling every 0.1 ms with NCCL's asynchronous
        errors checked; TimeoutError past ``timeout`` seconds."""
        event = self.xp.cuda.Event(disable_timing=True)
        event.record()
        start = time.monotonic()
        while not event.done:
            elapsed = time.monotonic() - start
            if elapsed > SPIN:
                self.comm.check_async_error()
                if elapsed > timeout:
                    raise TimeoutError(f"waited {timeout:g} s")
                time.sleep(1e-4)

    def abort(self):
        self.comm.abort()


def usable():
    """Whether cupy.cuda.nccl imports with NCCL's library loaded."""
    try:
        from cupy.cuda import nccl
    except Exception:   # noqa: BLE001  (no CuPy, or a CuPy that fails to load)
        return False
    return bool(getattr(nccl, "available", True))


# (workers in rank order, rank, size) -> (token, NcclComm): this process's communicators
_held = {}
_made = [0]


def made():
    """How many communicators this process has made (tests read it to see one reused)."""
    return _made[0]


def communicator(run, grp, rank, size, timeout):
    """This rank's NcclComm for the group ``grp`` (comm.group: workers, token): the one kept
    for the token, or a new one (the old one aborted) when the token is new."""
    key = (grp["workers"], rank, size)
    held = _held.get(key)
    if held is None or held[0] != grp["token"]:
        if held is not None:
            held[1].abort()
            del _held[key]
        transport = _Cuda(_join(grp["token"], rank, size, timeout))
        _held[key] = (grp["token"], NcclComm(transport, rank, size))
        if not _made[0]:
            # (aborted, not destroyed, at exit: ncclCommDestroy may wait for peers gone)
            atexit.register(release)
        _made[0] += 1
    comm = _held[key][1]
    comm.run, comm.timeout = run, timeout
    return comm


def _join(token, rank, size, timeout):
    """A new NcclCommunicator of ``size`` ranks, this one ``rank``: the unique id made by
    rank 0 and handed out through a Dask Variable named by ``token``."""
    from cupy.cuda import nccl

    if size == 1:
        return nccl.NcclCommunicator(1, nccl.get_unique_id(), 0)
    from distributed import Variable

    var = Variable(f"grblas_gpu-nccl-{token}")
    if rank == 0:
        uid = nccl.get_unique_id()
        var.set(uid)
    else:
        try:
            uid = var.get(timeout=timeout)
        except TimeoutError:
            raise InvalidValue(f"distributed: rank {rank} waited {timeout:g} s for rank 0's "
                               "NCCL id (rank 0's worker died or stopped)") from None
        uid = tuple(uid) if isinstance(uid, list) else uid   # (CuPy < 14: a tuple of ints)
    communicator = nccl.NcclCommunicator(size, uid, rank)
    if rank == 0:   # (every rank has joined, so has read the id)
        try:
            var.delete()
        except Exception:   # noqa: BLE001  (best effort: a few bytes left on the scheduler)
            pass
    return communicator


def release():
    """Abort every communicator this process keeps (a worker closing)."""
    for _, comm in _held.values():
        comm.abort()
    _held.clear()
