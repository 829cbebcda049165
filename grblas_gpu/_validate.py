"""Input checks shared by the containers. Each raises before anything is changed."""
import numpy as np

from . import backend
from .errors import DimensionMismatch, IndexOutOfBounds, InvalidValue, TypeNotSupported
from .types import lookup_dtype

xp = backend.xp

INT32_MAX = np.iinfo(np.int32).max


def index_dtype(*extents):
    """int32 while every extent (rows, columns, entries) fits, int64 beyond."""
    return np.int32 if max((int(e) for e in extents), default=0) <= INT32_MAX else np.int64


def as_index_array(a, what, module=None):
    """A 1-D integer array (int64) of ``module`` (default: the backend's), rejecting floats,
    bools and other shapes."""
    if a is None:
        raise InvalidValue(f"{what} is required")
    arr = (module or xp).asarray(a)
    if arr.ndim != 1:
        raise InvalidValue(f"{what} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidValue(f"{what} must be integers, got {arr.dtype}")
    if arr.dtype == np.uint64 and bool(backend.to_scalar((arr > np.iinfo(np.int64).max).any())):
        raise IndexOutOfBounds(f"{what} has an index beyond 2**63-1")
    return arr.astype(np.int64, copy=False)


def is_index_collection(k):
    """True for an index argument selecting many positions (a slice, None, a list, tuple or
    range, an array of one or more dimensions); False for one position (an int)."""
    return k is None or isinstance(k, (slice, list, tuple, range)) or getattr(k, "ndim", 0) >= 1


def check_dim(n, what):
    try:
        n = int(n)
    except (TypeError, ValueError):
        raise InvalidValue(f"{what} must be an integer, got {n!r}") from None
    if n < 0 or n >= 2**60:
        raise InvalidValue(f"{what} = {n} is out of range [0, 2**60)")
    return n


def check_in_range(idx, bound, what):
    if idx.size and bool(backend.to_scalar(((idx < 0) | (idx >= bound)).any())):
        bad = backend.to_host(idx[(idx < 0) | (idx >= bound)])[0]
        raise IndexOutOfBounds(f"{what} {int(bad)} is out of range [0, {bound})")


def check_same_length(a, b, what):
    if len(a) != len(b):
        raise DimensionMismatch(f"{what}: lengths {len(a)} and {len(b)} differ")


def values_and_dtype(values, n, dtype, what="values"):
    """(values array or None, iso scalar or None, DataType) from user input.

    values=None: structure only (iso True/1); a scalar: iso of that value; an array: one per entry.
    """
    if values is None:
        dt = lookup_dtype(dtype) if dtype is not None else lookup_dtype(bool)
        return None, dt.np_type.type(1), dt
    if np.isscalar(values) or (hasattr(values, "ndim") and values.ndim == 0):
        dt = lookup_dtype(dtype) if dtype is not None else lookup_dtype(np.asarray(values).dtype)
        return None, _scalar_of(values, dt), dt
    # check the dtype before the backend sees it: CuPy refuses strings and objects itself,
    # with a ValueError that names no GraphBLAS status
    kind = values.dtype.kind if hasattr(values, "dtype") else np.asarray(values).dtype.kind
    if kind == "c":
        raise TypeNotSupported(f"{what}: complex values are not supported")
    if kind not in "biuf":
        raise TypeNotSupported(f"{what}: dtype kind {kind!r} is not a GraphBLAS type")
    arr = xp.asarray(values)
    if arr.ndim != 1:
        raise InvalidValue(f"{what} must be one-dimensional, got shape {arr.shape}")
    if len(arr) != n:
        raise DimensionMismatch(f"{what} has length {len(arr)}, expected {n}")
    dt = lookup_dtype(dtype) if dtype is not None else lookup_dtype(arr.dtype)
    from .types import cast
    return cast(arr, dt, xp), None, dt


def _scalar_of(value, dt):
    from .types import cast_scalar
    return cast_scalar(backend.to_host(xp.asarray(value)), dt)
