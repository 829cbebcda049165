"""A DistMatrix block kept as an engine Matrix on its worker between calls.

A block lives in its worker's memory as host arrays (what Dask stores and moves); a rank
that needs it as a Matrix (on the worker's GPU under CuPy) builds it once and finds it
again in later calls, with whatever the engine cached on it (its CSC, plans). The Matrix
is kept for as long as the block's arrays live: Dask drops them when the DistMatrix is
gone, and the Matrix goes with them. A rank must not change the Matrix it is given.
"""
import threading
import weakref

import grblas_gpu as gg

__all__ = ["matrix", "kept"]

_built = {}     # id(the block's indptr) -> (weak reference to it, (ncols, dtype), Matrix)
_lock = threading.Lock()


def matrix(block, ncols, dtype):
    """The Matrix of the CSR block ``(indptr, indices, values)``, built at its first use on
    this worker and kept while the block lives."""
    indptr = block[0]
    key, shape = id(indptr), (int(ncols), str(dtype))
    with _lock:
        hit = _built.get(key)
        if hit is not None and hit[0]() is indptr and hit[1] == shape:
            return hit[2]
    A = gg.Matrix.from_csr(*block, ncols=ncols, dtype=dtype)
    try:
        ref = weakref.ref(indptr)
    except TypeError:   # (not weakly referable: built each time)
        return A
    with _lock:
        _built[key] = (ref, shape, A)
    weakref.finalize(indptr, _forget, key, ref)
    return A


def _forget(key, ref):
    with _lock:
        hit = _built.get(key)
        if hit is not None and hit[0] is ref:
            del _built[key]


def kept():
    """How many blocks this process keeps as matrices (for tests)."""
    with _lock:
        return len(_built)
