"""Collectives between the ranks of one SPMD run (one task per worker).

A communicator has ``rank``, ``size``, ``allgather(arrays)`` (every rank gives a tuple of
1-D arrays and receives every rank's tuple, in rank order), ``alltoall(per_rank)`` (every
rank gives one tuple for each rank and receives the tuple each rank gave it) and
``close()``. Two implement it:

- ``QueueComm`` (here): the arrays through Dask queues (one per rank, named by the run), for
  CPU workers: each message goes through the scheduler, once per collective, not per
  operation; it returns host (NumPy) arrays. A rank that waits longer than ``timeout``
  seconds for the others (a worker died) raises InvalidValue naming the run, the rank and
  the collective, instead of hanging.
- ``NcclComm`` (:mod:`grblas_gpu.distributed.nccl`): NCCL between GPUs, device arrays in and
  out, one communicator per set of workers made once and kept for later runs.

:func:`choose` picks one for a rank (``ops.collectives``: "auto", "nccl" or "queue"); the
client names the group of workers a run's NCCL communicator belongs to (:func:`group`) and
forgets it when a run fails (:func:`forget`), so that the next run makes a fresh one.
"""
import uuid

import numpy as np

import grblas_gpu as gg
from ..errors import InvalidValue, NotSupported

__all__ = ["QueueComm", "choose", "group", "forget", "make", "SETTINGS"]

# what ops.collectives may say: NCCL when the engine runs on CuPy and cupy.cuda.nccl
# imports ("auto"), NCCL or nothing ("nccl"), Dask queues always ("queue")
SETTINGS = ("auto", "nccl", "queue")


def choose(setting, backend_name, nccl_usable):
    """"nccl" or "queue": the collectives a rank uses under ``setting`` (one of SETTINGS)
    when the engine's backend is ``backend_name`` and NCCL is or is not usable there."""
    if setting not in SETTINGS:
        raise InvalidValue(f"distributed: collectives must be one of {SETTINGS}, got "
                           f"{setting!r}")
    gpu = backend_name == "cupy" and bool(nccl_usable)
    if setting == "nccl" and not gpu:
        raise NotSupported(f"distributed: collectives='nccl' needs the CuPy backend and "
                           f"cupy.cuda.nccl (backend here: {backend_name}, NCCL "
                           f"{'usable' if nccl_usable else 'not usable'})")
    return "nccl" if setting != "queue" and gpu else "queue"


# (client id, workers in rank order) -> the token of the NCCL communicator their ranks share
_tokens = {}


def group(client, workers, setting):
    """What a run's ranks need to agree on their collectives: the workers in rank order, the
    token naming their NCCL communicator (a new one after :func:`forget`) and the
    setting."""
    workers = tuple(workers)
    token = _tokens.setdefault((client.id, workers), uuid.uuid4().hex)
    return dict(workers=workers, token=token, setting=setting)


def forget(client, workers):
    """A run on ``workers`` failed: their ranks make a new communicator next time (one of
    them may have died, or stopped inside the old one)."""
    _tokens.pop((client.id, tuple(workers)), None)


def make(run, grp, rank, size, timeout):
    """This rank's communicator for run ``run`` of group ``grp`` (see :func:`group`)."""
    from . import nccl

    kind = choose(grp["setting"], gg.backend.name, gg.backend.is_gpu and nccl.usable())
    if kind == "nccl":
        return nccl.communicator(run, grp, rank, size, timeout)
    return QueueComm(run, rank, size, timeout=timeout)


def _pack(arrays):
    """Arrays (host or device) as msgpack-encodable (dtype, shape, bytes) triples (what a
    Dask queue holds)."""
    return [(a.dtype.str, list(a.shape), a.tobytes())
            for a in (gg.backend.to_host(x) for x in arrays)]


def _unpack(packed):
    return tuple(np.frombuffer(b, dtype=np.dtype(t)).reshape(shape).copy()
                 for t, shape, b in packed)


class QueueComm:
    """Collectives over Dask queues (see the module docstring)."""

    def __init__(self, run, rank, size, timeout=120.0):
        self.run, self.rank, self.size, self.timeout = run, rank, size, timeout
        self._round = 0
        self._early = {}    # (round, rank) -> arrays that came before their round

    def _queue(self, rank):
        from distributed import Queue

        return Queue(f"grblas_gpu-{self.run}-{rank}")

    def allgather(self, arrays):
        """Every rank's tuple of host arrays, in rank order (this rank's own included)."""
        return self._exchange([arrays] * self.size, "allgather")

    def alltoall(self, per_rank):
        """``per_rank[r]``: the tuple of arrays for rank r; returns, in rank order, the
        tuple of host arrays each rank gave this one."""
        if len(per_rank) != self.size:
            raise InvalidValue(f"distributed: alltoall needs {self.size} tuples, got "
                               f"{len(per_rank)}")
        return self._exchange(per_rank, "alltoall")

    def _exchange(self, per_rank, what):
        self._round += 1
        for r in range(self.size):
            if r != self.rank:
                self._queue(r).put([self._round, self.rank, _pack(per_rank[r])])
        out = [None] * self.size
        out[self.rank] = tuple(gg.backend.to_host(a) for a in per_rank[self.rank])
        for r in range(self.size):
            if out[r] is None and (self._round, r) in self._early:
                out[r] = self._early.pop((self._round, r))
        queue = self._queue(self.rank)
        while any(x is None for x in out):
            try:
                rnd, src, packed = queue.get(timeout=self.timeout)
            except TimeoutError:
                missing = [r for r, x in enumerate(out) if x is None]
                raise InvalidValue(f"distributed: rank {self.rank} of run {self.run} waited "
                                   f"{self.timeout:g} s in {what} for ranks {missing} "
                                   "(a worker died or stopped)") from None
            if rnd == self._round:
                out[src] = _unpack(packed)
            else:   # a rank already one collective ahead
                self._early[rnd, src] = _unpack(packed)
        return out

    def close(self):
        """Drop this rank's queue (the run is over)."""
        try:
            self._queue(self.rank).close()
        except Exception:   # noqa: BLE001  (best effort: the scheduler may be gone)
            pass
