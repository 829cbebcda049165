"""Kernel builds, reported: one log record and one count per compiled module.

Every CUDA module the engine builds (the kernel cache's modules, the fused elementwise
kernels, the backend's two helpers) goes through :func:`timed_build`, which times the build,
tells whether CuPy compiled it with NVRTC or loaded it from its disk cache, and

- logs one INFO record on the logger ``grblas_gpu.kernels`` (attach a handler, or
  ``logging.basicConfig(level=logging.INFO)``, to see builds as they happen: a build inside a
  loop is a pause of 0.1 to 1 s the first time a fresh machine meets that kernel);
- counts it in the process-wide statistics read by :func:`kernel_stats`.

CuPy keeps compiled binaries in its disk cache (``CUPY_CACHE_DIR``, by default
``~/.cupy/kernel_cache``) and writes a file there only when it compiles: a build that added
no file was a load from disk (milliseconds), one that added a file was an NVRTC compile.
With ``CUPY_CACHE_IN_MEMORY=1`` CuPy always compiles. Another process writing the same
directory during a build can make a load count as a compile. CuPy's own kernels (those
behind its ufuncs, reductions and sorts) are compiled by CuPy and are not counted here.

On the NumPy backend nothing is built: the statistics stay zero.

This module imports only grblas_gpu.errors (the backend, below the kernels, uses it too).
"""
import logging
import os
import threading
import time
from collections import deque
from typing import NamedTuple, Optional

from .errors import InvalidValue

__all__ = ["KernelStats", "kernel_stats", "timed_build", "LOGGER_NAME"]

LOGGER_NAME = "grblas_gpu.kernels"
log = logging.getLogger(LOGGER_NAME)

LAST_KEYS = 16   # how many of the latest builds' keys kernel_stats() lists


class KernelStats(NamedTuple):
    """Kernel builds since the process started (or the last ``kernel_stats(reset=True)``).

    modules: modules built; compiled: of them, compiled by NVRTC; from_disk: loaded from
    CuPy's disk cache; unknown: not told apart (``modules = compiled + from_disk + unknown``);
    seconds: the time spent building them; last: the keys of the latest builds, oldest first
    (at most LAST_KEYS)."""
    modules: int = 0
    compiled: int = 0
    from_disk: int = 0
    unknown: int = 0
    seconds: float = 0.0
    last: tuple = ()


_lock = threading.Lock()   # guards the counters (builds and readers on any thread)
_counts = {"modules": 0, "compiled": 0, "from_disk": 0, "unknown": 0, "seconds": 0.0}
_last = deque(maxlen=LAST_KEYS)


def kernel_stats(reset=False):
    """The kernel builds so far, a :class:`KernelStats`. ``reset=True`` also zeroes the
    counts (read and reset at once: no build falls between them)."""
    if not isinstance(reset, bool):
        raise InvalidValue(f"kernel_stats: reset must be True or False, got {reset!r}")
    with _lock:
        stats = KernelStats(last=tuple(_last), **_counts)
        if reset:
            for k in _counts:
                _counts[k] = 0 if k != "seconds" else 0.0
            _last.clear()
    return stats


def record(key, names, seconds, from_disk):
    """Count one built module and log it (what :func:`timed_build` calls)."""
    with _lock:
        _counts["modules"] += 1
        _counts["seconds"] += seconds
        kind = {True: "from_disk", False: "compiled", None: "unknown"}[from_disk]
        _counts[kind] += 1
        _last.append(str(key))
    how = {True: "loaded from CuPy's disk cache", False: "compiled by NVRTC",
           None: "built"}[from_disk]
    log.info("kernel module %s %s in %.3f s (kernels: %s)", key, how, seconds,
             ", ".join(names) if names else "-",
             extra={"kernel_key": str(key), "kernel_names": tuple(names),
                    "seconds": seconds, "from_disk": from_disk})


def _cache_dir():
    """CuPy's disk-cache directory, or None where no file is written (in-memory cache)."""
    if os.environ.get("CUPY_CACHE_IN_MEMORY", "0") not in ("", "0"):
        return None
    try:
        import cupy  # noqa: F401  (no CuPy: nothing is written, nothing to tell)
    except ImportError:
        return None
    # CuPy's documented location (CUPY_CACHE_DIR, default ~/.cupy/kernel_cache); its own
    # getter is private and has moved between versions.
    return os.environ.get("CUPY_CACHE_DIR") or os.path.expanduser("~/.cupy/kernel_cache")


def _cubins(path):
    """How many compiled binaries CuPy's cache directory holds (None: cannot tell)."""
    if path is None:
        return None
    try:
        with os.scandir(path) as entries:
            return sum(1 for e in entries if e.name.endswith(".cubin"))
    except OSError:
        return None if os.path.exists(path) else 0   # (made at CuPy's first compile)


def timed_build(key, names, build):
    """Run ``build()`` (which compiles or loads one module), record it, and return its
    result. Callers hold their compile lock, so one process builds one module at a time."""
    in_memory = os.environ.get("CUPY_CACHE_IN_MEMORY", "0") not in ("", "0")
    path = _cache_dir()
    before = _cubins(path)
    start = time.perf_counter()
    result = build()
    seconds = time.perf_counter() - start
    from_disk: Optional[bool] = False if in_memory else None
    if before is not None:
        after = _cubins(path)
        if after is not None:
            from_disk = after == before
    record(key, names, seconds, from_disk)
    return result
