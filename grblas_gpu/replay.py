"""Replay: a function of GraphBLAS calls recorded once as a CUDA graph, then replayed.

An iteration of a dozen operations on vectors of fixed shape (PageRank's power step) spends
more time issuing its kernels from Python (50-300 µs an operation) than the device spends
running them. Recorded into a CUDA graph, the same kernels are issued by one launch.

    step = gg.Replay(lambda: power_step(x, y))
    for it in range(max_iter):
        step()       # 1st call: runs fn (compiles kernels, fills caches, settles formats)
                     # 2nd call: records fn on a private stream and memory pool, then
                     #           launches the recording
                     # later:    launches the recording (a few µs of host time)
        r = ...      # reads from the device happen outside fn

What a recording fixes: the kernels, their arguments (scalars included), and the arrays they
read and write. So fn must do the same operations on the same objects with the same scalars
on every call, and must not read from the device (a Python scalar from reduce_scalar, the
nvals of an uncounted result, to_dense to the host). The objects fn writes (found on its
first call) get private arrays before the recording, and each replay ends by copying its
results into them (a device copy per array, recorded with the rest): what fn reads at its
start is what the previous call left. (A Vector that fn writes before reading it is
scratch: it keeps the arrays the recording writes, and costs no copy.) The Vectors fn only
reads get private arrays too. An object given new content between calls (by an operation
outside fn, or by another Replay sharing it) holds other arrays than the private ones: a
replay first copies that content into them, so two recordings may take turns on the same
objects (a BFS's push and pull steps: a recording made while an object holds another's
private arrays shares them, and nothing is copied between the two), and a small Vector set
from the host before each call passes values in (a BFS's source). (Matrices fn only reads
are fixed by the recording.) The private arrays are rewritten in place by every replay, and
operations may share an input's arrays with their output: read results through ``dup()``
or ``to_dense()`` (which copy) to keep a value past the next call. Operations also write an
object's new content into its private arrays (:func:`private_dense`: the write-back in
place, a dense apply or dense form when they are free), so a recording copies back only
what went elsewhere; an array another object has taken up (:func:`adopted`) is left alone
while that object holds it.

When recording fails (fn reads the device, or changes an object's shape or form), every
object fn changed is put back as it was, fn runs normally, and so does every later call
(``why_not_recorded`` says why). A call finding an object in another shape or form than the
recording's runs fn normally (``plain_calls`` counts them). On the NumPy backend fn simply
runs on every call.

Objects report their changes through :func:`note` (Vector._set, Matrix._set and the lazily
built forms call it): while a recording is under way the first change of each object saves
its previous state, which is what a failed recording restores.

Threads: a recording's journal belongs to the thread recording (another thread's changes,
made meanwhile, are not its own), and CuPy captures in its relaxed mode on a stream of its
own, so other threads keep running operations. Replay calls hold ``Replay.lock``, and a
loop of them holds it throughout (PageRank), so device loops from several threads run one
after another. A Replay is used by one thread at a time,
like any object it writes; where fn runs products, replay it from the thread that recorded
it (the recording holds that thread's spmv scratch: grblas_gpu.kernels.common.per_thread).
"""
import threading
import weakref

from . import backend

__all__ = ["Replay", "note", "read", "adopted", "private_dense", "content", "same_arrays"]

_local = threading.local()  # .journal: the _Journal of this thread's recording under way
_recordings = 0  # journals open in all threads: note() and read() test it first, unlocked
_lock = threading.RLock()  # guards _recordings, _private and _owner (their rare writes)
_private = {}  # id(object) -> (weak reference, the private arrays recordings read)
_owner = {}    # id(private array) -> id(the object it is private to)
_borrowers = {}  # id(private array) -> [weak references to other objects given it]


def note(obj):
    """Called by a container before it changes: saves its state while recording."""
    if _recordings:
        journal = getattr(_local, "journal", None)
        if journal is not None:
            journal.save(obj)


def read(obj):
    """Called by a Vector before its contents are read: a Vector read before fn changes it
    carries a value from call to call (the others are scratch, written before read)."""
    if _recordings:
        journal = getattr(_local, "journal", None)
        if journal is not None and id(obj) not in journal.saved:
            journal.read_first[id(obj)] = obj


def _open(journal):
    """Make journal this thread's (None: close it)."""
    global _recordings
    with _lock:
        _recordings += 1 if journal is not None else -1
        _local.journal = journal


def adopted(obj, arrays):
    """Called by a container given new content: a private array of another object (or a view
    of one) taken up by obj is lent, and not written in place while obj holds it."""
    if not _owner:
        return
    for a in arrays:
        if a is None:
            continue
        key = id(a) if id(a) in _owner else id(a.base) if a.base is not None else None
        if key is not None and _owner.get(key, id(obj)) != id(obj):
            _borrowers.setdefault(key, []).append(weakref.ref(obj))


def private_dense(obj):
    """(values, bitmap): the private arrays of a Vector's dense form, each None where there
    is none or another object holds it. Nothing else reads them (a recording's copies and
    graph write them anyway), so an operation may write obj's new content into them, in
    place where obj holds them now, instead of new arrays that a replay would copy back."""
    arrays = _private_arrays(obj)
    if arrays is None or len(arrays) != 4:  # (a Vector's layout: sparse pair, dense pair)
        return None, None
    values, bitmap = arrays[2:]
    if values is None or len(values) != obj._size or values.dtype != obj._dtype.np_type:
        return None, None  # (made for another size or type of obj)
    return tuple(None if _lent(a) else a for a in (values, bitmap))


def _lent(a):
    refs = _borrowers.get(id(a))
    if not refs:
        return False
    live = [r for r in refs if (b := r()) is not None and _holds(b, a)]
    if live:
        _borrowers[id(a)] = live
        return True
    _borrowers.pop(id(a), None)  # (another thread may have dropped it first)
    return False


def _holds(obj, a):
    state = obj._snapshot()
    if state is None:  # (being built: taken to hold it)
        return True
    return any(x is not None and (x is a or x.base is a) for x in obj._arrays(state))


def content(obj):
    """The arrays holding a Matrix's or Vector's content now: equal (element by element,
    ``is``) to an earlier result while the object has not been given new content, which is
    what a recording that reads obj relies on."""
    return tuple(obj._arrays(obj._snapshot()))


class _Journal:
    def __init__(self):
        self.saved = {}          # id(obj) -> (obj, state before its first change)
        self.read_first = {}     # id(obj) -> obj: the Vectors read before their first change

    def carried(self, obj):
        """Does obj's value at the start of fn matter? (Objects that do not report their
        reads, Matrices, are assumed to.)"""
        return not obj._REPORTS_READS or id(obj) in self.read_first

    def save(self, obj):
        if id(obj) not in self.saved:  # None: created while recording (nothing to restore)
            self.saved[id(obj)] = (obj, obj._snapshot())

    def changed(self):
        return [(obj, state) for obj, state in self.saved.values() if state is not None]

    def inputs(self):
        """The Vectors read and never changed."""
        return [obj for key, obj in self.read_first.items() if key not in self.saved]

    def restore(self):
        for obj, state in self.changed():
            obj._restore(state)


class Replay:
    """fn() recorded on its second call and replayed after (see the module docstring)."""

    def __init__(self, fn):
        self.fn = fn
        self.calls = 0
        self.why_not_recorded = None if backend.is_gpu else "NumPy backend"
        self._writes = None   # weak references to the objects fn's first call changed
        self._inputs = None   # weak references to the Vectors it only read
        self._graph = None
        self._kept = None     # the recording's arrays and memory pool, alive as long as it is
        self._states = None   # [(object, its state after each replay)]
        self._carried = None  # [(object, the private arrays the recording reads)]
        self.plain_calls = 0  # calls run normally after recording (an object changed form)

    @property
    def recorded(self):
        return self._graph is not None

    # Held by every call, and by an algorithm across its loop of calls (``with
    # gg.Replay.lock:``, PageRank's power steps): device loops started from several threads
    # run one after another, each as it runs alone. (They share the device's default stream
    # in any case; a loop's recordings, private arrays and pool are then never live while
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
            self._graph.launch(backend.xp.cuda.get_current_stream())
            for obj, state in self._states:  # forms built outside fn since are stale now
                obj._restore(state)
        elif self.why_not_recorded is not None:
            self.fn()
        elif self._writes is None:
            journal = _journaled(self.fn)
            self._writes = [weakref.ref(obj) for obj, before in journal.changed()
                            if _arrays_changed(obj, before)]
            self._inputs = [weakref.ref(obj) for obj in journal.inputs()]
        else:
            self._record()

    def _record(self):
        cp = backend.xp
        owned = {}  # id(obj) -> obj: the objects given private arrays
        for ref in self._writes + self._inputs:
            obj = ref()
            if obj is not None:
                state = obj._snapshot()
                arrays = obj._arrays(state)
                # arrays private to another recording serve this one too: recordings taking
                # turns on an object (a BFS's push and pull) then copy nothing between them
                if not same_arrays(arrays, _private_arrays(obj)):
                    fresh = [None if a is None else a.copy() for a in arrays]
                    obj._restore(obj._with_arrays(state, fresh))
                    _set_private(obj, fresh)
                owned[id(obj)] = obj
        pool, stream = cp.cuda.MemoryPool(), cp.cuda.Stream(non_blocking=True)
        journal, graph, failure, copies = _Journal(), None, None, []
        stream.wait_event(cp.cuda.get_current_stream().record())
        _open(journal)
        try:
            with stream, cp.cuda.using_allocator(pool.malloc):
                stream.begin_capture()
                try:
                    self.fn()
                    copies = _copy_back_plan(journal, owned)
                    for old, new in copies:
                        old.data.copy_from_device_async(new.data, new.nbytes, stream)
                except Exception as e:  # the recording failed, not fn: fn runs below
                    failure = e
                finally:
                    try:
                        graph = stream.end_capture()
                    except Exception as e:
                        failure = failure or e
        finally:
            _open(None)
        if failure is not None:
            journal.restore()
            self.why_not_recorded = f"{type(failure).__name__}: {failure}"
            self.fn()
            return
        # each object as the recording left it, holding its private arrays (which the
        # recording reads at its start and copies its results into)
        self._states = [(obj, obj._with_arrays(obj._snapshot(), obj._arrays(before))
                         if journal.carried(obj) else obj._snapshot())
                        for obj, before in journal.changed()]
        self._carried = [(obj, obj._arrays(before)) for obj, before in journal.changed()
                         if journal.carried(obj)]
        self._carried += [(obj, obj._arrays(obj._snapshot())) for obj in journal.inputs()
                          if id(obj) in owned]
        self._graph, self._kept = graph, (pool, [new for _, new in copies])
        graph.launch(cp.cuda.get_current_stream())
        for obj, state in self._states:
            obj._restore(state)

    def _copy_in(self):
        """Copy into the private arrays the content that objects were given since the last
        replay; False (nothing copied) when one changed shape or form."""
        try:
            # (a Vector's other form, made since, holds the same content: not copied)
            pairs = [pair for obj, private in self._carried
                     for pair in _copy_pairs(obj, private, obj._arrays(obj._snapshot()),
                                             extra_forms=obj._FORMS_CACHED)]
        except ValueError:
            return False
        for old, new in pairs:
            old.data.copy_from_device_async(new.data, new.nbytes)
        return True


def _journaled(fn):
    """Run fn; the journal of the objects it changed."""
    journal = _Journal()
    _open(journal)
    try:
        fn()
        return journal
    finally:
        _open(None)


def _private_arrays(obj):
    ref, arrays = _private.get(id(obj), (None, None))
    return arrays if ref is not None and ref() is obj else None


def _set_private(obj, arrays):
    key = id(obj)
    with _lock:
        _forget_private(key)
        _private[key] = (weakref.ref(obj, lambda _: _forget_private(key)), arrays)
        for a in arrays:
            if a is not None:
                _owner[id(a)] = key


def _forget_private(key):
    with _lock:  # (also run by the garbage collector, in whichever thread)
        _, arrays = _private.pop(key, (None, ()))
        for a in arrays:
            if a is not None and _owner.get(id(a)) == key:
                del _owner[id(a)]
                _borrowers.pop(id(a), None)


def same_arrays(arrays, others):
    """The same arrays, element by element (``is``; None matches None): two ``content``
    results of an object that has not been given new content in between."""
    return others is not None and len(arrays) == len(others) and all(
        a is b for a, b in zip(arrays, others))


def _arrays_changed(obj, before):
    """obj holds other arrays than in state ``before`` (not just new cached forms)."""
    return not same_arrays(obj._arrays(before), content(obj))


def _copy_back_plan(journal, owned):
    """(private array, new array) pairs: for each object fn changed, the private arrays it
    was given before the recording (read at its start) and the ones it holds now. Raises when
    fn changed an object its first call did not, or one changed shape or form."""
    pairs = []
    for obj, state in journal.changed():
        if id(obj) not in owned and _arrays_changed(obj, state):
            raise ValueError(f"a {type(obj).__name__} changed that the first call left as it was")
        if not journal.carried(obj):  # scratch: keeps the arrays the recording writes
            continue
        pairs += _copy_pairs(obj, obj._arrays(state), obj._arrays(obj._snapshot()))
    return pairs


def _copy_pairs(obj, olds, news, extra_forms=False):
    """(old, new) for each of obj's arrays that new content replaced; raises ValueError where
    an array changed shape or type, or a form appeared or went (``extra_forms``: a form
    present only in ``news`` is let be)."""
    pairs = []
    for old, new in zip(olds, news):
        if old is new or (old is None and extra_forms):
            continue
        if old is None or new is None or old.shape != new.shape or old.dtype != new.dtype:
            raise ValueError(f"a {type(obj).__name__} changed shape or form")
        pairs.append((old, new))
    return pairs
