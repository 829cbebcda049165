"""Collectives between the ranks of one SPMD run (one task per worker).

A communicator has ``rank``, ``size``, ``allgather(arrays)`` (every rank gives a tuple of
arrays and receives every rank's tuple, in rank order) and ``alltoall(per_rank)`` (every
rank gives one tuple for each rank and receives the tuple each rank gave it). ``QueueComm``
carries the arrays through Dask queues (one per rank, named by the run), for CPU workers:
each message goes through the scheduler, once per collective, not per operation. A rank that
waits longer than ``timeout`` seconds for the others (a worker died) raises InvalidValue
naming the run, the rank and the collective, instead of hanging.
"""
import numpy as np

import grblas_gpu as gg

from ..errors import InvalidValue

__all__ = ["QueueComm"]


def _pack(arrays):
    """Arrays as msgpack-encodable (dtype, shape, bytes) triples (what a Dask queue holds)."""
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
        """``per_rank[r]``: the tuple of host arrays for rank r; returns, in rank order, the
        tuple each rank gave this one."""
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
