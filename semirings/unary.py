"""Unary operators, python-graphblas names: ``semirings.unary.abs`` ...

Floating-point functions (sqrt, exp, sin, round, ...) are defined on FP32/FP64 only; on other
types they run where python-graphblas runs them: BOOL, INT8, INT16, UINT8, UINT16 at FP32 and
the 32/64-bit integers at FP64 (``unary.sqrt[INT32]`` is ``unary.sqrt[FP64]``). isnan, isinf and
isfinite are float only, as in python-graphblas (no coercion: they raise on integers).

BOOL arithmetic is SuiteSparse's: ainv and abs are the identity, minv is one.
Positional operators (rowindex, ...) live with the index-unary operators, not here.
"""
import numpy as np

from grblas_gpu.types import ALL_TYPES, BOOL

from . import _impl as I
from ._core import UnaryOp

_ALL = ALL_TYPES


def _identity(x):
    return x.copy()


def _ainv(x):
    return I.neg(x)


@I.quiet
def _minv(x):
    k = I.kind(x)
    if k == "b":
        return np.ones_like(x)
    if k == "f":
        return np.divide(x.dtype.type(1), x).astype(x.dtype)
    return I.idiv(np.ones_like(x), x)


def _abs(x):
    return x.copy() if I.kind(x) in "bu" else np.abs(x)


def _lnot(x):
    return np.logical_not(x) if I.kind(x) == "b" else I.as_type(x == 0, x)


def _bnot(x):
    return np.invert(x)


def _one(x):
    return np.ones_like(x)


_c_minv = I.by_kind(
    bool_="1",
    uint=lambda t: f"(x == 0 ? {I.cmax(t)} : ({t.c_type})(1 / x))",
    sint=lambda t: f"(x == 0 ? {I.cmax(t)} : ({t.c_type})(1 / x))",
    float_="(1 / x)",
)
_c_abs = I.by_kind(bool_="x", uint="x", sint=lambda t: f"(x < 0 ? {I.cneg(t)} : x)",
                   float_=lambda t: f"{I.fn('fabs', t)}(x)")

# name, C expression, NumPy function, types, out type
_GENERAL = [
    ("identity", "x", _identity, _ALL, None),
    ("ainv", I.by_kind(bool_="x", int_=I.cneg, float_="(-x)"), _ainv, _ALL, None),
    ("minv", _c_minv, _minv, _ALL, None),
    ("abs", _c_abs, _abs, _ALL, None),
    ("lnot", I.by_kind(bool_="(!x)", default="(!(x != 0))"), _lnot, _ALL, None),
    ("one", "1", _one, _ALL, None),
    ("bnot", "(~x)", _bnot, I.INTEGER, None),
    ("isnan", "isnan(x)", np.isnan, I.FLOATS, BOOL),
    ("isinf", "isinf(x)", np.isinf, I.FLOATS, BOOL),
    ("isfinite", "isfinite(x)", np.isfinite, I.FLOATS, BOOL),
]

# float functions: name, libm name, NumPy function
_FLOAT_FUNCS = [
    ("sqrt", "sqrt", np.sqrt), ("exp", "exp", np.exp), ("exp2", "exp2", np.exp2),
    ("expm1", "expm1", np.expm1), ("log", "log", np.log), ("log2", "log2", np.log2),
    ("log10", "log10", np.log10), ("log1p", "log1p", np.log1p), ("cbrt", "cbrt", np.cbrt),
    ("sin", "sin", np.sin), ("cos", "cos", np.cos), ("tan", "tan", np.tan),
    ("asin", "asin", np.arcsin), ("acos", "acos", np.arccos), ("atan", "atan", np.arctan),
    ("sinh", "sinh", np.sinh), ("cosh", "cosh", np.cosh), ("tanh", "tanh", np.tanh),
    ("asinh", "asinh", np.arcsinh), ("acosh", "acosh", np.arccosh), ("atanh", "atanh", np.arctanh),
    ("floor", "floor", np.floor), ("ceil", "ceil", np.ceil), ("trunc", "trunc", np.trunc),
    ("round", "round", I.round_half_away),
]


def _libm(name):
    return lambda t: f"{I.fn(name, t)}(x)"


_OPS = {}
for _name, _c, _np, _types, _out in _GENERAL:
    _OPS[_name] = UnaryOp(_name, _c, I.quiet(_np), _types, _out)
for _name, _cname, _np in _FLOAT_FUNCS:
    _OPS[_name] = UnaryOp(_name, _libm(_cname), I.quiet(_np), I.FLOATS, None, coercions=I.TO_FLOAT)
_OPS["signum"] = UnaryOp(
    "signum", lambda t: f"(isnan(x) ? x : ({t.c_type})((x > 0) - (x < 0)))", I.quiet(I.signum),
    I.FLOATS, None, coercions=I.TO_FLOAT)

globals().update(_OPS)
ALIASES = {}
__all__ = sorted(_OPS)
