"""Compiled-kernel cache, keyed by a frozen, printable description of the problem.

A ``KernelKey`` names the kernel family, the variant, the operators and the types (and any
other specialisation: mask kind, index type, iso inputs). Kernels are compiled once per
(key, device) with NVRTC through CuPy and memoised; the generated source stays inspectable
through :func:`source_of`. CuPy additionally keeps compiled binaries in its disk cache.
A module is compiled (or loaded from that disk cache) here, at its first lookup, and every
build is logged and counted (:mod:`grblas_gpu.compile_log`, ``gg.kernel_stats()``).

Threads: a lookup that finds its kernel takes no lock; a miss compiles under one lock, so
threads asking for the same new kernel at once compile it once and share it.
"""
import threading
from dataclasses import dataclass

from .. import backend
from ..compile_log import timed_build

__all__ = ["KernelKey", "get_kernel", "get_functions", "source_of", "cached_keys", "compile_lock"]


@dataclass(frozen=True)
class KernelKey:
    family: str
    variant: str
    ops: tuple = ()
    types: tuple = ()
    extra: tuple = ()

    def __hash__(self):  # kept: a key is hashed at every lookup of its kernels
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.family, self.variant, self.ops, self.types, self.extra))
            object.__setattr__(self, "_hash", h)
        return h

    def __str__(self):
        parts = [self.family, self.variant, *self.ops, *self.types, *map(str, self.extra)]
        return "__".join(p.replace(" ", "_") for p in parts)


_kernels = {}
_sources = {}
compile_lock = threading.RLock()   # held while a miss builds (get_functions nests get_kernel)


def _device_id():
    return backend.xp.cuda.Device().id if backend.is_gpu else -1


def get_kernel(key, build_source, name, *, options=("--std=c++17",), module=False):
    """The compiled kernel ``name`` for ``key``; ``build_source()`` is called only on a miss.

    With ``module=True`` returns the RawModule (for several kernels from one source)."""
    memo = (key, name, _device_id())
    kernel = _kernels.get(memo)
    if kernel is None:
        kernel = _build(memo, build_source, options, module, () if module else (name,))
    return kernel


def _build(memo, build_source, options, module, names):
    """get_kernel's miss: the module built once under the lock (``names``: the kernels
    the build is reported with)."""
    key, name, _ = memo
    with compile_lock:
        kernel = _kernels.get(memo)
        if kernel is None:
            src = _sources.get(key)
            if src is None:
                src = _sources[key] = build_source()
            mod = _new_module(key, src, tuple(options), names)
            kernel = mod if module else mod.get_function(name)
            _kernels[memo] = kernel
    return kernel


def _new_module(key, src, options, names):
    """The RawModule of ``src``, compiled now (CuPy would compile it at its first
    get_function), timed and reported as one build."""
    mod = backend.xp.RawModule(code=src, options=options)
    timed_build(key, names, mod.compile)
    return mod


_tables = {}


class _Functions(dict):
    """A module's kernels by name, each looked up on first use and kept."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def __missing__(self, name):
        # (the module is compiled already: get_function loads one function, once)
        with compile_lock:
            kernel = dict.get(self, name)
            if kernel is None:
                kernel = self[name] = self.module.get_function(name)
        return kernel


def get_functions(key, build_source, names=(), *, options=("--std=c++17",)):
    """The kernels of ``key``'s module by name (``names`` looked up at once, any other on its
    first use), kept per (key, device): RawModule.get_function costs ~5 µs a call, on every
    launch otherwise."""
    memo = (key, _device_id())
    table = _tables.get(memo)
    if table is None:
        with compile_lock:
            table = _tables.get(memo)
            if table is None:
                table = _tables[memo] = _Functions(_build(
                    (key, "module", memo[1]), build_source, options, True, tuple(names)))
    for name in names:
        table[name]  # noqa: B018  (a kernel missing from the module fails here, not later)
    return table


def source_of(key):
    """The CUDA source generated for ``key`` (None if never built)."""
    return _sources.get(key)


def cached_keys():
    return sorted({str(k[0]) for k in _kernels})
