"""Host-side helpers shared by the kernel modules: the dummy pointer argument, scalar
arguments, alignment tests, per-thread device scratch, and the expansion of compressed
vectors into entry positions."""
import threading

import numpy as np

from .. import backend
from ..types import cast_scalar

xp = backend.xp

__all__ = ["dummy", "scalar_arg", "aligned", "per_thread", "expand", "kept"]


_dummies = {}  # (threads: get-then-set; two may both make a value, equal, either kept)


def dummy():
    """A small device array passed where a kernel takes a pointer it will not read."""
    d = _dummies.get("u8")
    if d is None:
        d = _dummies["u8"] = xp.zeros(16, dtype=np.uint8)
    return d

def aligned(*arrays):
    """Every array (None skipped) starts on a 4-element boundary: 16-byte vector loads."""
    return all(a is None or a.data.ptr % (4 * a.itemsize) == 0 for a in arrays)


def per_thread(cache, key, make):
    """``make()``, kept in ``cache`` (None: not kept) under ``key``, one per thread: device
    scratch that a product writes and reads back in later launches. Products issued by one
    thread run in order (on its current stream), so they may share it; another thread's,
    on another stream or interleaved on the same one, must not. A thread's own is dropped
    with the thread (CuPy then gives its memory only to later work on the same stream)."""
    if cache is None:
        return make()
    local = cache.get(key)
    if local is None:
        local = cache.setdefault(key, threading.local())   # (atomic: one for all threads)
    made = getattr(local, "made", None)
    if made is None:
        made = local.made = make()
    return made

def kept(cache, key, make, owner=None):
    """``make()``, kept in ``cache`` (a matrix's: dropped when its content changes; None: not
    kept) under ``key``; with ``owner``, only while the entry was made from that very object
    (a matrix's CSR and cached CSC forms share its cache). Threads: get-then-set; two may
    both make a value, equal, either kept."""
    if cache is None:
        return make()
    hit = cache.get(key)
    if hit is not None and hit[0] is owner:
        return hit[1]
    made = make()
    cache[key] = (owner, made)
    return made


def scalar_arg(value, dtype):
    """``value`` (None: 0) as a kernel's scalar argument of ``dtype``, memoised: a cast costs
    ~3 µs, more than the launch's share of a product over a few thousand entries. A float
    zero or NaN is cast each time (-0.0 == 0.0 and NaN != NaN as keys)."""
    memo = (dtype, type(value), value)
    try:
        arg = _scalar_args.get(memo)
    except TypeError:  # an unhashable value (a 0-d array): cast each time
        return cast_scalar(value, dtype)
    if arg is None:
        arg = dtype.np_type.type(0) if value is None else cast_scalar(value, dtype)
        if not (isinstance(value, (float, np.floating)) and not value) and value == value:
            if len(_scalar_args) > 4096:  # distinct iso values: keep the memo bounded
                _scalar_args.clear()
            _scalar_args[memo] = arg
    return arg


_scalar_args = {}  # (threads: get-then-set; two may both make a value, equal, either kept)


def expand(ptr, vecs, lengths=None):
    """(positions, owner): the positions of the entries of vectors ``vecs`` of a compressed
    operand (vector v spans ptr[v]:ptr[v+1]) in order, and for each the index into ``vecs``
    it belongs to. ``lengths``: how many entries of each vector to take from its start
    (default: all of them)."""
    starts = ptr[vecs].astype(np.int64)
    if lengths is None:
        lengths = ptr[vecs + 1].astype(np.int64) - starts
    lengths = lengths.astype(np.int64, copy=False)
    if not backend.is_gpu:  # entry e of vector v: starts[v] + (e - its first entry's e)
        owner = np.arange(len(lengths)).repeat(lengths)
        pos = (starts + lengths - lengths.cumsum()).repeat(lengths)
        pos += np.arange(len(pos))
        return pos, owner
    # (cupy.repeat takes no array of counts)
    total = int(backend.to_scalar(lengths.sum())) if len(lengths) else 0
    ends = xp.cumsum(lengths)
    owner = xp.searchsorted(ends, xp.arange(total), side="right")
    pos = starts[owner] + (xp.arange(len(owner)) - (ends - lengths)[owner])
    return pos, owner
