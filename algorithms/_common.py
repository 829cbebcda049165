"""What the algorithm modules share: argument checks, the trace hook, value types, and the
scalar-as-vector idiom that keeps reductions on the device.

Device scalars. A reduction to a host scalar (``reduce_scalar``) is a device-to-host copy;
inside an iteration only the one scalar the loop stops on may cross. Other scalars (a dot
product, a norm) stay on the device as 1-entry Vectors, GraphBLAS's GrB_Scalar:

    s = ⊕ u            reduce_scalar(u, monoid, out=s): s(0) = Σ u(i)
    u = u ⊗ s          apply(u, u, op, right=s): the kernel reads s(0) where it lies

so "u / ||u||" is three GraphBLAS calls and no transfer.
"""

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu.errors import DimensionMismatch, IndexOutOfBounds, InvalidValue

__all__ = ["check_square", "check_vertex", "emit", "float_type", "as_vector", "index_type",
           "REPLACE"]

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
    except (TypeError, ValueError):
        raise InvalidValue(f"{what} must be a vertex number, got {v!r}") from None
    if iv != v:
        raise InvalidValue(f"{what} must be an integer, got {v!r}")
    if not 0 <= iv < n:
        raise IndexOutOfBounds(f"{what} {iv} is out of range [0, {n})")
    return iv


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
    a = backend.xp.asarray(x)
    if a.ndim != 1 or a.shape[0] != n:
        raise DimensionMismatch(f"{what} must have length {n}, got shape {tuple(a.shape)}")
    return gg.Vector.from_dense(a.astype(gg.lookup_dtype(dtype).np_type, copy=False))
