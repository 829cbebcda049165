"""The eleven GraphBLAS types, their lookup, unification and C-API typecasting."""
from dataclasses import dataclass

import numpy as np

from .errors import DomainMismatch, InvalidValue, TypeNotSupported

__all__ = [
    "DataType", "BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32",
    "UINT64", "FP32", "FP64", "ALL_TYPES", "lookup_dtype", "unify", "cast", "scalar_value",
    "check_representable", "check_value_kind",
]


@dataclass(frozen=True, eq=False)  # the eleven below are the only instances: identity
class DataType:                      # compares them (hashing fields costs every operation)
    name: str  # GraphBLAS name without the GrB_ prefix
    np_type: np.dtype
    c_type: str
    mkl_name: str = None

    @property
    def is_float(self):
        return self.np_type.kind == "f"

    @property
    def is_bool(self):
        return self.np_type.kind == "b"

    @property
    def is_signed(self):
        return self.np_type.kind in "if"

    @property
    def min(self):
        """Smallest value (-inf for floats, False for BOOL)."""
        if self.is_float:
            return self.np_type.type(-np.inf)
        return self.np_type.type(False) if self.is_bool else np.iinfo(self.np_type).min

    @property
    def max(self):
        if self.is_float:
            return self.np_type.type(np.inf)
        return self.np_type.type(True) if self.is_bool else np.iinfo(self.np_type).max

    def __repr__(self):
        return self.name

    def __reduce__(self):
        return (lookup_dtype, (self.name,))


BOOL = DataType("BOOL", np.dtype(np.bool_), "bool", "MKL_GRAPH_TYPE_BOOL")
INT8 = DataType("INT8", np.dtype(np.int8), "signed char")
INT16 = DataType("INT16", np.dtype(np.int16), "short")
INT32 = DataType("INT32", np.dtype(np.int32), "int", "MKL_GRAPH_TYPE_INT32")
INT64 = DataType("INT64", np.dtype(np.int64), "long long", "MKL_GRAPH_TYPE_INT64")
UINT8 = DataType("UINT8", np.dtype(np.uint8), "unsigned char")
UINT16 = DataType("UINT16", np.dtype(np.uint16), "unsigned short")
UINT32 = DataType("UINT32", np.dtype(np.uint32), "unsigned int")
UINT64 = DataType("UINT64", np.dtype(np.uint64), "unsigned long long")
FP32 = DataType("FP32", np.dtype(np.float32), "float", "MKL_GRAPH_TYPE_FP32")
FP64 = DataType("FP64", np.dtype(np.float64), "double", "MKL_GRAPH_TYPE_FP64")

ALL_TYPES = (BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, FP32, FP64)
_BY_NAME = {}
for _t in ALL_TYPES:
    for _alias in (_t.name, "GrB_" + _t.name, _t.np_type.name, _t.c_type, _t.mkl_name):
        if _alias:
            _BY_NAME[_alias.upper()] = _t
_BY_NAME.update({"BOOL_": BOOL, "FLOAT": FP32, "DOUBLE": FP64, "INT": INT64, "FLOAT32": FP32,
                 "FLOAT64": FP64, "CUDA_R_32F": FP32, "CUDA_R_64F": FP64, "CUDA_R_32I": INT32})
_BY_NP = {t.np_type: t for t in ALL_TYPES}


def lookup_dtype(x):
    """A DataType from a DataType, a name ('FP32', 'float32', 'MKL_GRAPH_TYPE_FP32'), a numpy
    dtype, or a Python type (bool, int -> INT64, float -> FP64)."""
    if isinstance(x, DataType):
        return x
    if x is None:  # (NumPy reads None as float64; python-graphblas refuses it, as here)
        raise TypeNotSupported("a type is required, got None")
    if x is bool:
        return BOOL
    if x is int:
        return INT64
    if x is float:
        return FP64
    if isinstance(x, str):
        t = _BY_NAME.get(x.upper())
        if t is None:
            raise TypeNotSupported(f"unknown type name {x!r}")
        return t
    if hasattr(x, "name") and hasattr(x, "np_type"):  # a python-graphblas dtype
        return lookup_dtype(x.name)
    try:
        npt = np.dtype(x)
    except (TypeError, ValueError):
        raise TypeNotSupported(f"not a GraphBLAS type: {x!r}") from None
    t = _BY_NP.get(npt)
    if t is None:
        raise TypeNotSupported(
            f"dtype {npt} is not a GraphBLAS type (complex values are not supported)"
            if npt.kind == "c" else f"dtype {npt} is not a GraphBLAS type")
    return t


def unify(t1, t2):
    """The common type two operands are cast to, as python-graphblas (and numpy) promote."""
    t1, t2 = lookup_dtype(t1), lookup_dtype(t2)
    if t1 is t2:
        return t1
    return lookup_dtype(np.promote_types(t1.np_type, t2.np_type))


def cast(a, to_type, xp=np):
    """Typecast an array as SuiteSparse:GraphBLAS does (the C API leaves float->int to C,
    which is undefined out of range; SuiteSparse saturates and maps NaN to 0)."""
    to_type = lookup_dtype(to_type)
    a = xp.asarray(a)
    if a.dtype == to_type.np_type:
        return a
    if to_type.is_bool:
        return a != 0
    if a.dtype.kind == "f" and to_type.np_type.kind in "iu":
        info = np.iinfo(to_type.np_type)
        out = xp.where(xp.isnan(a), 0, a)
        # compare in float before converting: float(info.max) may round up past max
        hi = out >= float(info.max)
        lo = out <= float(info.min)
        out = xp.where(hi | lo, 0, out).astype(to_type.np_type)
        out = xp.where(hi, to_type.np_type.type(info.max), out)
        return xp.where(lo, to_type.np_type.type(info.min), out)
    with np.errstate(all="ignore"):  # FP64 -> FP32 overflows to inf, as C's cast does
        return a.astype(to_type.np_type)


def cast_scalar(value, to_type):
    """A NumPy scalar of ``to_type`` with the same rules as :func:`cast`."""
    return cast(np.asarray(value), to_type)[()]


# ---------------------------------------------------------------------------- user values
# The rule for a value a user hands in (an element, an iso value, a fill, a list of values):
# - a TYPED value (a NumPy or CuPy array, a NumPy scalar, a 0-d array) of a real type is cast
#   to the target type as SuiteSparse casts (:func:`cast`), as python-graphblas does for arrays;
# - an UNTYPED Python number (int, float, bool, or a list of them) must be representable: an
#   integer type takes only integers in its range (no 1.5, NaN, inf, 300 into INT8, -1 into
#   UINT8), a float type any number that does not overflow it (rounding is what a float
#   does), BOOL any number, as its truth value (x != 0, as Python's bool() and C);
# - anything else (str, None, complex, objects) is refused.


def scalar_value(value, to_type, what="value"):
    """A user's scalar as a NumPy scalar of ``to_type`` under the rule above: InvalidValue for
    an unrepresentable Python number, TypeNotSupported for complex, DomainMismatch otherwise."""
    to_type = lookup_dtype(to_type)
    if isinstance(value, np.generic) or (getattr(value, "ndim", None) == 0
                                         and isinstance(getattr(value, "dtype", None), np.dtype)):
        a = np.asarray(value) if isinstance(value, np.generic) else _host(value)
        check_value_kind(a.dtype, what)
        return cast(a, to_type)[()]
    if isinstance(value, (bool, int, float)):
        if not _fits(value, to_type):
            raise InvalidValue(f"{what} {_short(value)} cannot be stored in {to_type.name} "
                               f"without changing it")
        return to_type.np_type.type(value)
    if isinstance(value, complex):
        raise TypeNotSupported(f"{what} {value!r}: complex values are not supported")
    raise DomainMismatch(f"{what} must be a number, got {type(value).__name__} {_short(value)}")


def _host(a):
    from . import backend

    return backend.to_host(a)


def check_value_kind(dtype, what):
    if dtype.kind == "c":
        raise TypeNotSupported(f"{what}: complex values are not supported")
    if dtype.kind not in "biuf":
        raise TypeNotSupported(f"{what}: dtype {dtype} is not a GraphBLAS type")


def _fits(x, t):
    """Whether the Python number x is stored in type t unchanged (floats: without overflow;
    BOOL: as its truth value)."""
    if t.is_bool:
        return True
    if t.is_float:
        try:
            f = float(x)
        except OverflowError:
            return False
        return not (np.isfinite(f) and abs(f) > float(np.finfo(t.np_type).max))
    if isinstance(x, float):
        if not (np.isfinite(x) and x.is_integer()):
            return False
        x = int(x)
    info = np.iinfo(t.np_type)
    return info.min <= x <= info.max


def check_representable(a, to_type, what="values"):
    """Raise InvalidValue unless every element of ``a`` (a host array built from Python
    numbers) is stored in ``to_type`` unchanged, by the rule above."""
    to_type = lookup_dtype(to_type)
    if a.size == 0 or a.dtype.kind == "b" or to_type.is_bool:
        return
    if to_type.is_float:
        big = float(np.finfo(to_type.np_type).max)
        bad = np.abs(a.astype(np.float64)) > big
        if a.dtype.kind == "f":
            bad &= np.isfinite(a)
    else:
        info = np.iinfo(to_type.np_type)
        if a.dtype.kind == "f":
            # [min, max + 1) is exact in floats (powers of two); max itself may round up
            bad = ~np.isfinite(a) | (a != np.floor(a)) | (a < info.min) | (a >= info.max + 1)
        else:
            bad = (a < info.min) | (a > info.max)
    if bad.any():
        x = a.ravel()[np.flatnonzero(bad)[0]].item()
        raise InvalidValue(f"{what}: {_short(x)} cannot be stored in {to_type.name} "
                           f"without changing it")


def _short(x):
    r = repr(x)
    return r if len(r) <= 40 else r[:20] + "..." + r[-8:]
