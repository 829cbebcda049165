"""Input checks shared by the containers. Each raises before anything is changed."""
import operator

import numpy as np

from . import backend
from .errors import (DimensionMismatch, DomainMismatch, IndexOutOfBounds, InvalidValue,
                     TypeNotSupported)
from .types import cast, check_representable, check_value_kind, lookup_dtype, scalar_value

xp = backend.xp

INT32_MAX = np.iinfo(np.int32).max


def is_array(a):
    """A NumPy or backend array (or NumPy scalar): a typed value. Our Matrix and Vector also
    have a ``dtype`` (a DataType), and are not arrays."""
    return isinstance(getattr(a, "dtype", None), np.dtype)


def index_dtype(*extents):
    """int32 while every extent (rows, columns, entries) fits, int64 beyond."""
    for e in extents:
        if int(e) > INT32_MAX:
            return np.int64
    return np.int32


def as_index_array(a, what, module=None):
    """A 1-D integer array (int64) of ``module`` (default: the backend's), rejecting floats,
    bools and other shapes."""
    if a is None:
        raise InvalidValue(f"{what} is required")
    if not is_array(a):  # lists: read on the host, where a bad one raises ours
        _not_container(a, what, InvalidValue)
        try:
            a = np.asarray(a)
        except (TypeError, ValueError, OverflowError):
            raise InvalidValue(f"{what} must be a 1-D array of integers, got "
                               f"{type(a).__name__} {a!r:.40}") from None
    if a.dtype.kind not in "iub":
        if a.size:
            raise InvalidValue(f"{what} must be integers, got {a.dtype}")
        a = np.zeros(a.shape, dtype=np.int64)
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


def is_container(a):
    """``a`` is a Matrix or a Vector (told by its attributes: this module sits below them)."""
    return hasattr(a, "nvals") and hasattr(a, "dtype")


def _not_container(a, what, cls):
    """A Matrix or Vector given for an array: refused, though ``np.asarray`` would give a full
    one's dense values (an operand put in the wrong place, not an array)."""
    if is_container(a):
        raise cls(f"{what} must be an array, got a {type(a).__name__}")


def is_index_collection(k):
    """True for an index argument selecting many positions (a slice, None, a list, tuple or
    range, an array of one or more dimensions); False for one position (an int)."""
    return k is None or isinstance(k, (slice, list, tuple, range)) or getattr(k, "ndim", 0) >= 1


def as_int(k, what):
    """A Python int from an integer (Python, NumPy, or a 0-d integer array); floats, bools,
    strings and None are refused rather than truncated or read as 0/1."""
    if isinstance(k, (bool, np.bool_)):
        raise InvalidValue(f"{what} must be an integer, got {k!r}")
    if getattr(k, "ndim", None) == 0 and not isinstance(k, np.generic):  # a 0-d device array
        if getattr(getattr(k, "dtype", None), "kind", None) not in ("i", "u"):
            raise InvalidValue(f"{what} must be an integer, got a 0-d array of {k.dtype}")
        return int(k)
    try:
        return operator.index(k)
    except TypeError:
        raise InvalidValue(f"{what} must be an integer, got {type(k).__name__} {k!r:.40}") from None


def as_flag(x, what):
    """A bool argument: True/False (or 1/0); anything else is refused, not read by truth
    (a string would read True, an array raise NumPy's ValueError)."""
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, (int, np.integer)) and x in (0, 1)):
        return bool(x)
    raise InvalidValue(f"{what} must be True or False, got {x!r:.40}")


def check_dim(n, what):
    n = as_int(n, what)
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
    if (np.isscalar(values) or isinstance(values, complex)
            or (hasattr(values, "ndim") and values.ndim == 0)):
        dt = lookup_dtype(dtype) if dtype is not None else scalar_dtype(values, what)
        return None, scalar_value(values, dt, what), dt
    arr = values_array(values, dtype, what)
    if arr.ndim != 1:
        raise InvalidValue(f"{what} must be one-dimensional, got shape {arr.shape}")
    if len(arr) != n:
        raise DimensionMismatch(f"{what} has length {len(arr)}, expected {n}")
    dt = lookup_dtype(dtype) if dtype is not None else lookup_dtype(arr.dtype)
    return cast(arr, dt, xp), None, dt


def values_array(values, dtype, what="values"):
    """A backend array of user values (any shape): a typed array as it is (cast later as
    SuiteSparse casts), Python numbers (lists) only where ``dtype`` holds each unchanged
    (grblas_gpu.types.scalar_value's rule)."""
    # check the dtype before the backend sees it: CuPy refuses strings and objects itself,
    # with a ValueError that names no GraphBLAS status
    typed = is_array(values)
    if not typed:
        if values is None or isinstance(values, (str, bytes, dict, set)):
            raise DomainMismatch(f"{what} must be an array or a list of numbers, "
                                 f"got {type(values).__name__}")
        _not_container(values, what, TypeNotSupported)
        try:
            values = np.asarray(values)
        except (TypeError, ValueError, OverflowError) as e:
            raise DomainMismatch(f"{what} are not an array of numbers ({e})") from None
    if values.dtype.kind == "O" and not typed and all(isinstance(x, (int, float)) for x in values.flat):
        # Python integers beyond int64/uint64: only a float type (or BOOL) may hold them
        if dtype is None or lookup_dtype(dtype).np_type.kind not in "bf":
            raise InvalidValue(f"{what}: a Python integer beyond every GraphBLAS integer type")
        try:
            values = values.astype(np.float64)
        except OverflowError:
            raise InvalidValue(f"{what}: a Python integer beyond every float type") from None
    check_value_kind(values.dtype, what)
    if not typed and dtype is not None:
        check_representable(values, dtype, what)
    return xp.asarray(values)


def scalar_dtype(value, what="value"):
    """The GraphBLAS type of a scalar given without one (Python int: INT64, or UINT64 beyond;
    float: FP64; bool: BOOL; a NumPy or device scalar: its own)."""
    if isinstance(value, (bool, int, float)) or is_array(value):
        a = backend.to_host(value) if is_array(value) else np.asarray(value)
        if a.dtype.kind in "biuf":
            return lookup_dtype(a.dtype)
        if a.dtype.kind == "O":  # a Python int beyond uint64
            raise InvalidValue(f"{what} {value!r:.40} fits no GraphBLAS integer type")
    scalar_value(value, lookup_dtype(float), what)  # raises the class the value deserves
    raise DomainMismatch(f"{what} {value!r:.40} is not a number")
