"""Replay: a fixed step of GraphBLAS calls recorded once as a CUDA graph, then replayed.

An iteration of a dozen operations on vectors of fixed shape (PageRank's power step) spends
more time issuing its kernels from Python (50-300 µs an operation) than the device spends
running them. Recorded into a CUDA graph, the same kernels are issued by one launch.

    step = gg.Replay(lambda: power_step(x, y), carries=(x, y), reads=(G, b), scratch=(w,))
    for it in range(max_iter):
        step()       # 1st call: runs fn (compiles kernels, fills caches, settles formats)
                     # 2nd call: records fn on a stream and memory pool of its own
                     #           (spared by a recording that is gone, if any), then
                     #           launches the recording
                     # later:    launches the recording (a few µs of host time)
        r = ...      # reads from the device happen outside fn

The contract. The caller declares the Matrices and Vectors fn uses across calls:

- ``carries``: objects whose content passes from call to call. fn may read them at its
  start, and its results are where the next call, or the caller, finds them.
- ``reads``: objects fn only reads. New content given to them between calls is copied in
  before a replay.
- ``scratch``: objects fn writes before reading them and nobody reads after. They keep the
  recording's arrays; nothing is copied for them.

fn must not read the device (a Python scalar from reduce_scalar, the nvals of an uncounted
result, to_dense to the host), must do the same operations on the same objects with the
same scalars on every call, and may change only declared objects: a recording fixes the
kernels, their arguments and the arrays they read and write (as torch.cuda.graph's static
inputs and outputs). Objects fn creates are its own temporaries. An undeclared object fn
changes cannot be detected (no container reports its changes): after a replay it holds
what the recording left, stale. ``Replay(fn)`` with nothing declared suits a fn of raw
kernel launches on arrays it keeps (a BFS's level batches).

How it holds. Declared Vectors of unknown count are counted before the first call and the
recording (a read each: a call inside fn that needs a count would read the device, and a
known count can change the path a call takes, so both calls see the same). Declared
Vectors are given fixed storage (``Vector._fix``: a dense
(values, bitmap) pair they alone hold, kept across Replays, so two recordings declaring a
Vector share it) and held in dense form; operations writing a dense result into such a
Vector write into its fixed storage (in place where it holds it), so a carried Vector
usually ends fn holding its storage and nothing is copied back. Where fn leaves a carried
object in other arrays, the recording ends with device copies into the arrays it started
from (``copies`` counts them). A carried Matrix is given copies of its arrays to start from.
After each replay every declared object (but a Matrix only read) is put back in the state
the recording left it (its arrays, counts, forms built inside fn), which drops forms built
outside fn since.
Before a replay, a declared Vector found holding other content (an operation, or another
Replay, gave it some) has it copied into its fixed storage (``copies_in`` counts them); a
declared object found in another shape, type, form or count than the recording's (a full
Vector no longer known full, a Matrix given new arrays: its derived forms are part of what
the recording read) makes that call run fn plainly (``plain_calls``). Fixed storage and
the recording's arrays are rewritten by every replay: read results through ``dup()`` or
``to_dense()`` (which copy) to keep a value past the next call.

When recording fails (fn reads the device, say), every declared object is put back as it
was, fn runs plainly, and so does every later call (``why_not_recorded`` says why). On the
NumPy backend fn simply runs on every call (the arguments are checked all the same).

Threads: CuPy captures in its relaxed mode on a stream of its own, with an allocator of
its own, so other threads keep running operations. Replay calls hold ``Replay.lock``, and
a loop of them holds it throughout (PageRank), so device loops from several threads run
one after another. A Replay is used by one thread at a time, like any object it writes;
where fn runs products, replay it from the thread that recorded it (the recording holds
that thread's spmv scratch: grblas_gpu.kernels.common.per_thread).
"""
import threading
import weakref

from . import backend
from .errors import InvalidValue
from .matrix import Matrix
from .vector import Vector

__all__ = ["Replay"]

# (memory pool, capture stream) pairs of recordings that are gone, for new recordings: a
# pool's free blocks are kept per stream, so the two go together. A pair in use is held by
# the weakref.finalize that spares it when its Replay goes (never only by the Replay: a
# Replay in a reference cycle is collected with everything only it reaches, and CuPy's
# finalizers would destroy the stream and free the pool before the pair could be spared).
# List appends and pops are atomic; the finalizer may run in any thread.
_spare_pools = []
_SPARE_POOLS = 8


def _spare(pair):
    if len(_spare_pools) < _SPARE_POOLS:
        _spare_pools.append(pair)


def content(obj):
    """The arrays holding a Matrix's or Vector's content now: equal (element by element,
    ``is``) to an earlier result while the object has not been given new content."""
    return tuple(obj._arrays(obj._snapshot()))


def same_arrays(arrays, others):
    """The same arrays, element by element (``is``; None matches None): two ``content``
    results of an object that has not been given new content in between."""
    return others is not None and len(arrays) == len(others) and all(
        a is b for a, b in zip(arrays, others))


def _declared(objects, what):
    if not isinstance(objects, (tuple, list)):
        raise InvalidValue(f"Replay: {what} must be a tuple or list of Matrix and Vector "
                           f"objects, got {type(objects).__name__}")
    for obj in objects:
        if not isinstance(obj, (Matrix, Vector)):
            raise InvalidValue(f"Replay: {what} holds a {type(obj).__name__}, not a Matrix "
                               "or a Vector")
    return tuple(objects)


def _form(obj):
    """What a recording fixes about an object besides its arrays' content: its kind, shape,
    type, iso value, each array's presence, shape and type, and a Vector's fullness."""
    state = obj._snapshot()
    full = isinstance(obj, Vector) and obj._nvals == obj._size
    arrays = tuple(None if a is None else (a.shape, a.dtype) for a in obj._arrays(state))
    iso = obj._iso
    return type(obj), obj.shape, obj.dtype, None if iso is None else repr(iso), full, arrays


class Replay:
    """fn() recorded on its second call and replayed after (see the module docstring)."""

    def __init__(self, fn, *, carries=(), reads=(), scratch=()):
        if not callable(fn):
            raise InvalidValue(f"Replay needs a callable, got {type(fn).__name__}")
        self.carries = _declared(carries, "carries")
        self.reads = _declared(reads, "reads")
        self.scratch = _declared(scratch, "scratch")
        every = self.carries + self.reads + self.scratch
        if len({id(obj) for obj in every}) != len(every):
            raise InvalidValue("Replay: an object is declared twice (carries, reads and "
                               "scratch are disjoint)")
        self.fn = fn
        self.calls = 0
        self.why_not_recorded = None if backend.is_gpu else "NumPy backend"
        self.plain_calls = 0  # calls run plainly after recording (an object changed form)
        self.copies = 0       # device copies the recording makes at its end (carried content)
        self.copies_in = 0    # device copies made before replays (content given meanwhile)
        self._graph = None
        self._kept = None     # the recording's pool and start arrays, alive as long as it is
        self._start = None    # [(object, its form, the arrays the recording reads)]
        self._after = None    # [(object, its state after each replay)]

    @property
    def recorded(self):
        return self._graph is not None

    # Held by every call, and by an algorithm across its loop of calls (``with
    # gg.Replay.lock:``, PageRank's power steps): device loops started from several threads
    # run one after another, each as it runs alone. (They share the device's default stream
    # in any case; a loop's recordings, fixed storage and pool are then never live while
    # another thread records or replays.)
    lock = threading.RLock()

    def __call__(self):
        with Replay.lock:
            self._call()

    def _call(self):
        self.calls += 1
        if self._graph is not None:
            if not self._copy_in():
                self.plain_calls += 1
                self.fn()
                return
            counts = [(obj, obj._nvals) for obj in self.reads if isinstance(obj, Vector)]
            self._graph.launch(backend.xp.cuda.get_current_stream())
            self._put_back()
            self._recount(counts)
        elif self.why_not_recorded is not None or self.calls == 1:
            if self.calls == 1:   # (the call the recording repeats sees the same counts)
                self._count_declared()
            self.fn()
        else:
            self._record()

    def _count_declared(self):
        """Declared Vectors of unknown count counted (a read each): inside fn a count is a
        read from the device, and a known count can change the path a call takes."""
        for obj in self.carries + self.reads + self.scratch:
            if isinstance(obj, Vector) and obj._nvals is None:
                obj.nvals

    def _record(self):
        cp = backend.xp
        every = self.carries + self.reads + self.scratch
        self._count_declared()
        before = [(obj, obj._snapshot()) for obj in every]  # (put back if recording fails)
        for obj in every:
            if isinstance(obj, Vector):
                obj._fix()
            elif any(obj is c for c in self.carries):  # copies it starts from, its own
                state = obj._snapshot()
                obj._restore(obj._with_arrays(state, [None if a is None else a.copy()
                                                      for a in obj._arrays(state)]))
        start = [(obj, _form(obj), content(obj)) for obj in self.carries + self.reads]
        pair = _spare_pools.pop() if _spare_pools else (
            cp.cuda.MemoryPool(), cp.cuda.Stream(non_blocking=True))
        pool, stream = pair
        graph, failure, copies = None, None, []
        stream.wait_event(cp.cuda.get_current_stream().record())
        with stream, cp.cuda.using_allocator(pool.malloc):
            stream.begin_capture()
            try:
                self.fn()
                copies = self._copy_back_plan(start)
                for old, new in copies:
                    old.data.copy_from_device_async(new.data, new.nbytes, stream)
            except Exception as e:  # the recording failed, not fn: fn runs below
                failure = e
            finally:
                try:
                    graph = stream.end_capture()
                except Exception as e:
                    failure = failure or e
        if failure is not None:   # (the pair is not spared: its stream ended a failed capture)
            for obj, state in before:
                obj._restore(state)
            self.why_not_recorded = f"{type(failure).__name__}: {failure}"
            self.fn()
            return
        # each object as the recording left it, a carried one in the arrays it started from
        # (its results copied there); a Matrix fn only reads is left alone (other threads
        # may be reading it, and adding its derived forms)
        starts = {id(obj): arrays for obj, _, arrays in start}
        self._after = []
        for obj in every:
            if isinstance(obj, Matrix) and any(obj is r for r in self.reads):
                continue
            state = obj._snapshot()
            if any(obj is c for c in self.carries):
                ends = obj._arrays(state)
                state = obj._with_arrays(state, [a if a is not None else e
                                                 for a, e in zip(starts[id(obj)], ends)])
            self._after.append((obj, state))
        self._start = start
        self._graph, self._kept = graph, (pool, start, [new for _, new in copies])
        weakref.finalize(self, _spare, pair).atexit = False
        self.copies = len(copies)
        graph.launch(cp.cuda.get_current_stream())
        self._put_back()

    def _copy_back_plan(self, start):
        """(start array, end array) pairs for the carried objects fn left in other arrays
        (recorded at the end of fn). A carried Vector's dense form is made first (into its
        fixed storage, when fn left it sparse). Raises where an array changed shape or type,
        or a form the recording starts from is gone."""
        pairs = []
        for obj, _, arrays in start:
            if not any(obj is c for c in self.carries):
                continue
            if isinstance(obj, Vector):
                obj._dense_form()
            for old, new in zip(arrays, content(obj)):
                if old is None or old is new:
                    continue
                if new is None or old.shape != new.shape or old.dtype != new.dtype:
                    raise ValueError(f"a carried {type(obj).__name__} changed shape or form")
                pairs.append((old, new))
        return pairs

    def _copy_in(self):
        """Copy into the recording's arrays the content declared objects were given since
        the last replay; False (nothing copied) when one changed shape, type or form."""
        pairs = []
        for obj, form, arrays in self._start:
            if same_arrays(content(obj), arrays):
                continue
            if isinstance(obj, Matrix):  # (its derived forms were read as recorded)
                return False
            if obj._size != form[1][0] or obj._dtype != form[2] or (
                    form[4] and obj._nvals != obj._size):
                return False
            values, bitmap = obj._dense_form()  # (made into its fixed storage if sparse)
            fixed = arrays[2:4]
            if fixed[0] is not obj._fixed_out()[0]:  # (given other fixed storage since)
                return False
            pairs += [(old, new) for old, new in zip(fixed, (values, bitmap)) if old is not new]
        for old, new in pairs:
            old.data.copy_from_device_async(new.data, new.nbytes)
        self.copies_in += len(pairs)
        return True

    def _put_back(self):
        for obj, state in self._after:
            obj._restore(state)

    def _recount(self, counts):
        """The Vectors fn only reads keep their counts; where one differs from the
        recording's, the counts the recording left that are not full are dropped (they may
        have followed it) and counted again when asked."""
        changed = False
        for obj, nvals in counts:
            changed = changed or nvals != obj._nvals
            obj._nvals = nvals
        if changed:
            for obj, _ in self._after:
                if isinstance(obj, Vector) and obj._nvals != obj._size and all(
                        obj is not r for r in self.reads):
                    obj._nvals = None
