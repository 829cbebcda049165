"""Memory budget for kernels that size their output before allocating it.

An operation whose output size is known only after a symbolic pass (SpGEMM) asks
:func:`require` before each large allocation, so that a product that cannot fit raises
``AllocFailed`` instead of crashing the device or returning garbage (cuSPARSE's SpGEMM has
returned an empty product for an R-MAT scale-18 L·Lᵀ). The budget is the device's free
memory (plus what CuPy's pool holds unused) under CuPy, and a configurable limit under
NumPy; :func:`set_limit` caps both (tests use it to force the failure path).

:func:`oom_guard` turns the allocator's own failures (``MemoryError``, CuPy's
``OutOfMemoryError``) into ``AllocFailed`` for the code inside it.
"""
import os

from . import backend
from .errors import AllocFailed

__all__ = ["available", "require", "set_limit", "get_limit", "oom_guard"]

# Under NumPy nothing reports free memory portably: default to 16 GiB, overridable by the
# environment (bytes) or set_limit().
HOST_DEFAULT_LIMIT = int(os.environ.get("GRBLAS_GPU_HOST_MEMORY_LIMIT", 16 * 2**30))
# Leave this fraction of the device's free memory for temporaries the estimate does not see.
DEVICE_HEADROOM = 0.9

_limit = None


def set_limit(nbytes):
    """Cap the budget at ``nbytes`` (None: no cap beyond the backend's own). Returns the old cap."""
    global _limit
    old, _limit = _limit, (None if nbytes is None else int(nbytes))
    return old


def get_limit():
    return _limit


def available():
    """Bytes an operation may still allocate."""
    if backend.is_gpu:
        xp = backend.xp
        free, _ = xp.cuda.runtime.memGetInfo()
        free = int(DEVICE_HEADROOM * (free + xp.get_default_memory_pool().free_bytes()))
        return free if _limit is None else min(free, _limit)
    return HOST_DEFAULT_LIMIT if _limit is None else min(HOST_DEFAULT_LIMIT, _limit)


def require(nbytes, what):
    """Raise AllocFailed unless ``nbytes`` more bytes fit in the budget."""
    nbytes = int(nbytes)
    if backend.is_gpu and (_limit is None or nbytes <= _limit) and nbytes <= (
            DEVICE_HEADROOM * backend.xp.get_default_memory_pool().free_bytes()):
        return   # the pool's unused memory alone covers it (asking the device: 5-20 µs)
    avail = available()
    if nbytes > avail:
        raise AllocFailed(f"{what} needs {nbytes} bytes ({nbytes / 2**20:.1f} MiB), only "
                          f"{avail / 2**20:.1f} MiB available"
                          f"{' (limit set)' if _limit is not None else ''}")


def _oom_types():
    types = [MemoryError]
    if backend.is_gpu:
        types.append(backend.xp.cuda.memory.OutOfMemoryError)
    return tuple(types)


class oom_guard:
    """Convert allocation failures inside the block into AllocFailed (a class rather than a
    contextlib generator: entering and leaving costs ~0.3 µs instead of ~2 on every call of
    every operation)."""

    __slots__ = ("what",)

    def __init__(self, what):
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None or issubclass(kind, AllocFailed) or not issubclass(kind, _oom_types()):
            return False
        raise AllocFailed(f"{self.what}: out of memory ({exc})") from exc
