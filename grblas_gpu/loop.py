"""Loop: a user's loop of GraphBLAS calls captured on the device, its stopping test read once
per batch of iterations.

A loop written as linear algebra pays, each iteration, every call's host cost and one read
of its stopping quantity (a frontier's count, a residual), which stops the host until the
device has caught up. Declared once, the same loop runs as a recording:

    seen = gg.Vector(gg.INT64, 1)                    # what the stopping test reads

    @gg.loop(carries=(q, pi), reads=(A,), watch=seen, every=4, fill=-1)
    def level():
        # q⟨¬π.S, replace⟩ = Aᵀ any.secondi q ;  π⟨q.S⟩ = q ;  seen = any(q)
        gg.mxv(q, A, q, semirings.any_secondi, mask=~pi.S, desc=REPLACE, direction="pull")
        gg.assign(pi, q, gg.ALL, mask=q.S)
        gg.reduce_scalar(q, semirings.monoid.any, out=seen)   # no entry once q is empty

    iterations = level.run(until=lambda seen: seen[0] < 0, max_iter=n)

``every`` iterations of the body run as one :class:`grblas_gpu.Replay` (on the GPU one CUDA
graph launch: its first batch runs plainly, the second is recorded), then the watched
Vector's content is posted through a :class:`grblas_gpu.Mailbox` and ``until(values)``
decides (``values``: what ``watch.to_dense(fill)`` gives, a NumPy array). The test is
therefore read after iterations every, 2 every, ...: the body must be safe to repeat past
its stopping point (a BFS level with an empty frontier changes nothing; a power iteration
past convergence converges further). ``max_iter`` is exact: a last, shorter batch runs its
iterations as plain calls. ``run`` returns the iterations run.

The body follows the Replay contract (grblas_gpu.replay): the same calls on the same objects
every time, no read from the device (no Python scalar from reduce_scalar, no nvals of an
uncounted result), every object it changes and later reads declared; ``watch`` is declared
scratch unless the caller declared it. Sizes must not depend on the data: a call whose
result is compacted (a sparse result of a full operand and a sparse one, a push over a
listed frontier) reads its count from the device. Keep such vectors full (a fill value: +inf
for a missing degree, so t ./ d is 0 there) or pull into a dense result, as the captured BFS
and PageRank of ``grblas_gpu.benchmarks.user_algorithms`` do. Objects made once and a Loop
kept across calls (a search per source) record once; a Loop made per call records each call.
A body a recording cannot hold (a call that reads a size from the device, such as a push
whose frontier is listed) runs plainly, batch by batch, with the same results:
``why_not_recorded`` says why. On the NumPy backend the body always runs plainly, with the
same batches and tests.

Threads: a run holds ``Replay.lock`` throughout, so loops from several threads run one after
another.
"""
from ._validate import as_int
from .errors import InvalidValue
from .mailbox import Mailbox
from .replay import Replay, _declared
from .vector import Vector

__all__ = ["Loop", "loop"]


class Loop:
    """``body()`` repeated in recorded batches of ``every`` iterations until ``until`` holds
    for the posted content of ``watch`` (see the module docstring)."""

    def __init__(self, body, *, carries=(), reads=(), scratch=(), watch, every=1, fill=0):
        if not callable(body):
            raise InvalidValue(f"Loop needs a callable body, got {type(body).__name__}")
        self.every = _check_watch_every(watch, every)
        self.body, self.watch, self.fill = body, watch, fill
        carries, reads, scratch = (_declared(objects, what) for objects, what in
                                   ((carries, "carries"), (reads, "reads"),
                                    (scratch, "scratch")))
        if not any(obj is watch for obj in carries + reads + scratch):
            scratch += (watch,)
        self._box = Mailbox(watch)
        self._batch = Replay(self._run_batch, carries=carries, reads=reads, scratch=scratch)
        self.iterations = 0

    def _run_batch(self):
        for _ in range(self.every):
            self.body()
        self._box.post()

    @property
    def recorded(self):
        """Whether the batch runs as a recording (after its second call, on the GPU)."""
        return self._batch.recorded

    @property
    def why_not_recorded(self):
        return self._batch.why_not_recorded

    def run(self, until, max_iter=None):
        """Run batches until ``until(values)`` is true after one, or ``max_iter`` iterations
        (None: no bound); returns the iterations run (also kept as ``iterations``)."""
        if not callable(until):
            raise InvalidValue(f"Loop.run: until must be callable, got {type(until).__name__}")
        if max_iter is not None:
            max_iter = _positive(max_iter, "max_iter", least=0)
        done = 0
        with Replay.lock:   # (one loop at a time: its recordings and pools are its own)
            while max_iter is None or done < max_iter:
                if max_iter is not None and max_iter - done < self.every:
                    for _ in range(max_iter - done):   # a last, shorter batch, plainly
                        self.body()
                    done = max_iter
                    break
                self._batch()
                done += self.every
                if until(self._box.take(self.fill)):
                    break
        self.iterations = done
        return done


def loop(*, carries=(), reads=(), scratch=(), watch, every=1, fill=0):
    """Decorator: ``@gg.loop(carries=..., watch=...)`` over a body function makes it a
    :class:`Loop`; call ``.run(until, max_iter)`` on the result."""
    _check_watch_every(watch, every)

    def wrap(body):
        return Loop(body, carries=carries, reads=reads, scratch=scratch, watch=watch,
                    every=every, fill=fill)
    return wrap


def _check_watch_every(watch, every):
    if not isinstance(watch, Vector):
        raise InvalidValue(f"Loop: watch must be a Vector (what the stopping test reads), "
                           f"got {type(watch).__name__}")
    return _positive(every, "every")


def _positive(x, what, least=1):
    v = as_int(x, f"Loop: {what}")
    if v < least:
        raise InvalidValue(f"Loop: {what} must be an integer >= {least}, got {x!r}")
    return v
