"""grblas_gpu: a GraphBLAS engine for GPUs (CuPy) with a NumPy reference backend."""
from . import backend, memory, types
from .compile_log import KernelStats, kernel_stats
from .errors import (AllocFailed, DimensionMismatch, DomainMismatch, EmptyObject,
                     GraphBLASError, IndexOutOfBounds, InternalError, InvalidValue, NotConverged,
                     NotInitialized, NotSupported, TypeNotSupported, status_string)
from .types import (BOOL, FP32, FP64, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32,
                    UINT64, lookup_dtype)
from .mask import Mask
from .descriptor import (GrB_COMP, GrB_REPLACE, GrB_STRUCTURE, GrB_TRAN, Descriptor, Field, Method,
                         Modifier, Request)
from .matrix import Matrix
from .vector import Vector
from .replay import Replay
from .mailbox import Mailbox
from .loop import Loop, loop
from .operations import *  # noqa: F401,F403  (mxv, vxm, mxm, ewise_*, apply, ...)
from .operations import __all__ as _operations_all
from . import sampling
from . import traversal
from .traversal import traverse
from .kernel_warmup import WarmupSummary, warmup

__version__ = "0.1.0"

__all__ = [
    "backend", "memory", "types", "sampling", "Matrix", "Vector", "Replay", "Mailbox", "Loop", "loop", "Mask", "Descriptor", "Field", "Modifier",
    "Request", "Method", "GrB_REPLACE", "GrB_COMP", "GrB_STRUCTURE", "GrB_TRAN", "GraphBLASError", "InvalidValue", "DimensionMismatch",
    "IndexOutOfBounds", "DomainMismatch", "NotSupported", "TypeNotSupported", "AllocFailed",
    "NotConverged", "NotInitialized", "InternalError", "EmptyObject", "status_string", "lookup_dtype",
    "BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
    "FP32", "FP64", *_operations_all, "traversal", "traverse", "KernelStats", "kernel_stats",
    "warmup", "WarmupSummary",
]

# Modules reached as attributes (gg.io.read_mm, gg.generate.rmat, gg.plot.draw) without an
# import of their own, imported on first use: plot needs matplotlib only when it draws.
_LAZY_MODULES = ("io", "generate", "plot")


def __getattr__(name):
    if name in _LAZY_MODULES:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES))

