"""What the algorithm modules share: argument checks, the trace hook, value types, and the
scalar-as-vector idiom that keeps reductions on the device.

Device scalars. A reduction to a host scalar (``reduce_scalar``) is a device-to-host copy;
inside an iteration only the one scalar the loop stops on may cross. Other scalars (a dot
product, a norm) stay on the device as 1-entry Vectors, GraphBLAS's GrB_Scalar:

    s = ⊕ u            reduce_scalar(u, monoid, out=s): s(0) = Σ u(i)
    u = u ⊗ s          apply(u, u, op, right=s): the kernel reads s(0) where it lies

so "u / ||u||" is three GraphBLAS calls and no transfer.
"""

import numpy as np

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import backend
from grblas_gpu.errors import DimensionMismatch, IndexOutOfBounds, InvalidValue

__all__ = ["all_finite", "check_square", "check_trace", "check_vertex", "check_number", "check_flag", "emit", "float_type",
           "as_vector", "index_type", "REPLACE"]

# Descriptor of the C API's GrB_DESC_R: clear the output outside the mask.
REPLACE = gg.GrB_REPLACE


def check_square(A, what="A"):
    """The number of vertices of a square adjacency matrix (DimensionMismatch otherwise)."""
    if not isinstance(A, gg.Matrix):
        raise InvalidValue(f"{what} must be a grblas_gpu.Matrix, got {type(A).__name__}")
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"{what} must be square (an adjacency matrix), got {A.shape}")
    return A.nrows


def check_vertex(v, n, what="source"):
    try:
        iv = int(v)
    except (TypeError, ValueError, OverflowError):
        raise InvalidValue(f"{what} must be a vertex number, got {v!r}") from None
    if iv != v:
        raise InvalidValue(f"{what} must be an integer, got {v!r}")
    if not 0 <= iv < n:
        raise IndexOutOfBounds(f"{what} {iv} is out of range [0, {n})")
    return iv


def check_number(x, what, integer=False):
    """x as a float (or an int, truncated as int() does), InvalidValue for anything that is
    not a number: a string, None, an array, ±inf or NaN where an int is asked for."""
    try:
        return int(x) if integer else float(x)
    except (TypeError, ValueError, OverflowError):
        kind = "an integer" if integer else "a number"
        raise InvalidValue(f"{what} must be {kind}, got {x!r}") from None


def check_flag(x, what):
    """x as a bool: True/False (Python or NumPy), the integers 0 and 1, or a 0-d array of
    them; InvalidValue for anything else (a string, None, an array, whose truth is no
    answer)."""
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, (int, np.integer)) and x in (0, 1)):
        return bool(x)
    if getattr(x, "shape", None) == () and x.dtype.kind in "biu" and x in (0, 1):
        return bool(x)                           # a 0-d array (NumPy or CuPy) of 0 or 1
    raise InvalidValue(f"{what} must be True or False, got {x!r}")


def check_trace(trace, what):
    """trace as given: None or a callable (given one dict per iteration); InvalidValue for
    anything else, before the algorithm starts (not a TypeError at its first iteration)."""
    if trace is not None and not callable(trace):
        raise InvalidValue(f"{what}: trace must be callable or None, got {type(trace).__name__}")
    return trace


def emit(trace, **figures):
    """Send one iteration's figures to the caller's trace callback (a no-op without one)."""
    if trace is not None:
        trace(figures)


def float_type(A):
    """The value type an algorithm computes in: A's own if FP32 or FP64, else FP64."""
    return A.dtype if A.dtype in (gg.FP32, gg.FP64) else gg.FP64


def index_type(n):
    """INT32 for vertex ids while they fit (nvGRAPH's int), INT64 beyond."""
    return gg.INT32 if n < 2**31 - 1 else gg.INT64


def as_vector(x, n, dtype, what):
    """A full Vector from a Vector, a backend array or a sequence of length n."""
    if isinstance(x, gg.Vector):
        if x.size != n:
            raise DimensionMismatch(f"{what} has size {x.size}, expected {n}")
        return x.dup(dtype)
    try:
        a = backend.xp.asarray(x)
    except (TypeError, ValueError):
        raise InvalidValue(f"{what} must be a Vector or an array, got {type(x).__name__}") \
            from None
    if a.ndim != 1 or a.shape[0] != n:
        raise DimensionMismatch(f"{what} must have length {n}, got shape {tuple(a.shape)}")
    if a.dtype.kind not in "biuf":
        raise InvalidValue(f"{what} must hold numbers, got dtype {a.dtype}")
    return gg.Vector.from_dense(a.astype(gg.lookup_dtype(dtype).np_type, copy=False))


def all_finite(v):
    """Is every entry of v (FP32 or FP64) finite? Σ 0 .* v is NaN exactly when one is not
    (one reduction, one read)."""
    z = gg.Vector(v.dtype, v.size)
    # z = 0 .* v
    gg.apply(z, v, semirings.binary.times, left=v.dtype.np_type.type(0))
    return bool(np.isfinite(float(gg.reduce_scalar(z, semirings.monoid.plus))))
