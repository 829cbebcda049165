"""Binary operators, python-graphblas names: ``semirings.binary.plus`` ...

Each is one table row: C expression over ``x``, ``y`` (a string, or a function of the type when
the spelling differs by type) beside a NumPy function, the types, the output type, the
operator it commutes to and, where one is exactly equal on every type, a NumPy ufunc.

Semantics are SuiteSparse's, checked against python-graphblas:

* BOOL arithmetic is renamed logic: plus = max = lor, times = min = land, minus = rminus =
  lxor (x != y), div = first, rdiv = second, pow(x, y) = x || !y, is* = the comparisons.
* ``cdiv`` (alias ``div``, GrB_DIV) truncates integers toward zero; x/0 is 0 for x == 0, the
  type's MAX for x > 0 and MIN for x < 0; x / -1 wraps (MIN / -1 = MIN). ``rdiv`` likewise.
* Integer pow is pow in double, then saturated to the type (2**10 on INT8 is 127, 0**-1 is
  MAX); float pow is NaN when either operand is NaN (so 1**NaN and NaN**0 are NaN, unlike C).
* min / max on floats are fmin / fmax: a NaN loses to any number.
* ``any`` returns y; it stands for "either operand" and may be computed as either.
* ``truediv`` / ``rtruediv`` are float division; other types run at FP64 (python-graphblas).
* ``floordiv`` / ``rfloordiv`` round toward -inf (floats: NumPy's/Python's // exactly);
  python-graphblas's versions are numba functions whose x // 0 is undefined, so here integer
  x // 0 follows cdiv's rule and float x // 0 is x / 0. On BOOL they run at INT8, as there.
* ``rpow`` is pow with the operands swapped (SuiteSparse's saturating pow; python-graphblas's
  numba rpow wraps integers instead). On BOOL it runs at INT8, as there.
* atan2, hypot, fmod, remainder, copysign are float only; other types run at FP32 (8/16-bit,
  BOOL) or FP64 (32/64-bit), as in python-graphblas. ``lxnor`` is BOOL only; other types run
  at BOOL. The bitwise operators are for integers only.
* ``bget`` / ``bset`` / ``bclr`` (integers): bit y of x, 1-based (y = 1 is the least
  significant bit, y = bits the sign bit); y outside 1 .. bits: bget is 0, bset and bclr
  give x. ``bshift`` (integers): y is converted to INT8 (its low byte: SuiteSparse's y operand
  is INT8, so bshift(x, 256) = x and bshift(x, 255) = x >> 1); y > 0 shifts left, y < 0 right
  (arithmetic on signed types); |y| >= bits gives 0, or -1 for negative signed x shifted right.
* ``ldexp`` is x * 2**(int) trunc(y) at FP32 (BOOL, 8/16-bit operands) or FP64 (32/64-bit),
  as python-graphblas, which refuses FP32 and FP64 operands themselves (it deletes
  ldexp[FP32]/[FP64]: NumPy's ldexp takes no float exponent). y outside int's range gives
  INT_MIN, as SuiteSparse's x86 conversion does: ldexp(1, 2**31) is 0.
* ``binom`` is python-graphblas's numba binom at INT64 (every integer type runs there; no BOOL
  or floats): C(x, y), 0 when y < 0 or y > x, and 0 where its computation overflows (see
  ``_impl.cbinom``: C(62, 30) is 0 though it fits).
"""
from dataclasses import dataclass

import numpy as np

from grblas_gpu.errors import DomainMismatch
from grblas_gpu.types import ALL_TYPES, BOOL, INT8, INT64, lookup_dtype

from . import _impl as I
from ._core import BinaryOp

_ALL = ALL_TYPES


def _shape(x, y):
    return np.broadcast_shapes(x.shape, y.shape)


def _first(x, y):
    return np.broadcast_to(x, _shape(x, y)).copy()


def _second(x, y):
    return np.broadcast_to(y, _shape(x, y)).copy()


def _pair(x, y):
    return np.ones_like(np.broadcast_to(x, _shape(x, y)))


def _minus(x, y):
    return np.not_equal(x, y) if I.kind(x) == "b" else np.subtract(x, y)


def _cdiv(x, y):
    k = I.kind(x)
    if k == "b":
        return _first(x, y)
    if k == "f":
        return np.true_divide(x, y).astype(x.dtype)
    return I.idiv(x, y)


def _floordiv(x, y):
    return I.ffloordiv(x, y) if I.kind(x) == "f" else I.ifloordiv(x, y)


def _is(cmp):
    def f(x, y):
        return I.as_type(cmp(x, y), x)

    return f


def _logic(fn):
    def f(x, y):
        z = fn(x, y)
        return z if I.kind(x) == "b" else I.as_type(z, x)

    return f


def _bxnor(x, y):
    return np.invert(np.bitwise_xor(x, y))


def _absfirst(x, y):
    a = _first(x, y)
    return a if I.kind(a) in "bu" else np.abs(a)


def _swap(f):
    def g(x, y):
        return f(y, x)

    return g


def _c_abs(a):
    return I.by_kind(bool_=a, uint=a, sint=lambda t: f"({a} < 0 ? {I.cneg(t, a)} : {a})",
                     float_=lambda t: f"{I.fn('fabs', t)}({a})")


def _bit(kind):
    return lambda t: I.cbit(kind, t)


def _libm2(name, a="x", b="y"):
    return lambda t: f"{I.fn(name, t)}({a}, {b})"


_K = I.by_kind
_CMP = {"eq": ("==", np.equal, "eq"), "ne": ("!=", np.not_equal, "ne"),
        "gt": (">", np.greater, "lt"), "lt": ("<", np.less, "gt"),
        "ge": (">=", np.greater_equal, "le"), "le": ("<=", np.less_equal, "ge")}

# name: (C expression, NumPy function, types, out type, commutes_to, ufunc, coercions)
_TABLE = {
    "first": ("x", _first, _ALL, None, "second", None, None),
    "second": ("y", _second, _ALL, None, "first", None, None),
    "pair": ("1", _pair, _ALL, None, "pair", None, None),
    "any": ("y", _second, _ALL, None, "any", None, None),
    "plus": (_K(bool_="(x || y)", default="(x + y)"), np.add, _ALL, None, "plus", np.add, None),
    "minus": (_K(bool_="(x != y)", default="(x - y)"), _minus, _ALL, None, "rminus", None, None),
    "rminus": (_K(bool_="(x != y)", default="(y - x)"), _swap(_minus), _ALL, None, "minus",
               None, None),
    "times": (_K(bool_="(x && y)", default=lambda t: "((unsigned int)x * (unsigned int)y)"
                 if t.name == "UINT16" else "(x * y)"),
              np.multiply, _ALL, None, "times", np.multiply, None),
    "cdiv": (_K(bool_="x", int_=I.cidiv, float_="(x / y)"), _cdiv, _ALL, None, "rdiv", None, None),
    "rdiv": (_K(bool_="y", int_=lambda t: I.cidiv(t, "y", "x"), float_="(y / x)"), _swap(_cdiv),
             _ALL, None, "cdiv", None, None),
    "truediv": ("(x / y)", np.true_divide, I.FLOATS, None, "rtruediv", np.true_divide,
                {t: "FP64" for t in _ALL if not t.is_float}),
    "rtruediv": ("(y / x)", _swap(np.true_divide), I.FLOATS, None, "truediv", None,
                 {t: "FP64" for t in _ALL if not t.is_float}),
    "floordiv": (_K(int_=I.cfloordiv_int, float_=I.cfloordiv_float), _floordiv, I.NUMERIC, None,
                 "rfloordiv", None, {BOOL: INT8}),
    "rfloordiv": (_K(int_=lambda t: I.cfloordiv_int(t, "y", "x"),
                     float_=lambda t: I.cfloordiv_float(t, "y", "x")),
                  _swap(_floordiv), I.NUMERIC, None, "floordiv", None, {BOOL: INT8}),
    "min": (_K(bool_="(x && y)", int_="(x < y ? x : y)", float_=_libm2("fmin")), np.fmin, _ALL,
            None, "min", np.fmin, None),
    "max": (_K(bool_="(x || y)", int_="(x > y ? x : y)", float_=_libm2("fmax")), np.fmax, _ALL,
            None, "max", np.fmax, None),
    "lor": (_K(bool_="(x || y)", default="((x != 0) || (y != 0))"), _logic(np.logical_or), _ALL,
            None, "lor", None, None),
    "land": (_K(bool_="(x && y)", default="((x != 0) && (y != 0))"), _logic(np.logical_and),
             _ALL, None, "land", None, None),
    "lxor": (_K(bool_="(x != y)", default="((x != 0) != (y != 0))"), _logic(np.logical_xor),
             _ALL, None, "lxor", None, None),
    "lxnor": ("(x == y)", np.equal, (BOOL,), None, "lxnor", np.equal,
              {t: BOOL for t in _ALL if not t.is_bool}),
    "pow": (I.cpow, I.fpow, _ALL, None, "rpow", None, None),
    "rpow": (lambda t: I.cpow(t, "y", "x"), _swap(I.fpow), I.NUMERIC, None, "pow", None,
             {BOOL: INT8}),
    "bor": ("(x | y)", np.bitwise_or, I.INTEGER, None, "bor", np.bitwise_or, None),
    "band": ("(x & y)", np.bitwise_and, I.INTEGER, None, "band", np.bitwise_and, None),
    "bxor": ("(x ^ y)", np.bitwise_xor, I.INTEGER, None, "bxor", np.bitwise_xor, None),
    "bxnor": ("(~(x ^ y))", _bxnor, I.INTEGER, None, "bxnor", None, None),
    "atan2": (_libm2("atan2"), np.arctan2, I.FLOATS, None, None, np.arctan2, I.TO_FLOAT),
    "hypot": (_libm2("hypot"), np.hypot, I.FLOATS, None, "hypot", np.hypot, I.TO_FLOAT),
    "fmod": (_libm2("fmod"), np.fmod, I.FLOATS, None, None, np.fmod, I.TO_FLOAT),
    "remainder": (_libm2("remainder"), I.fremainder, I.FLOATS, None, None, None, I.TO_FLOAT),
    "copysign": (_libm2("copysign"), np.copysign, I.FLOATS, None, None, np.copysign, I.TO_FLOAT),
    "absfirst": (_c_abs("x"), _absfirst, _ALL, None, "abssecond", None, None),
    "abssecond": (_c_abs("y"), _swap(_absfirst), _ALL, None, "absfirst", None, None),
    "bget": (_bit("bget"), I.fbit("bget"), I.INTEGER, None, None, None, None),
    "bset": (_bit("bset"), I.fbit("bset"), I.INTEGER, None, None, None, None),
    "bclr": (_bit("bclr"), I.fbit("bclr"), I.INTEGER, None, None, None, None),
    "bshift": (I.cbshift, I.fbshift, I.INTEGER, None, None, None, None),
    "ldexp": (I.cldexp, I.fldexp, I.FLOATS, None, None, None, I.TO_FLOAT),
    "binom": (I.cbinom, I.fbinom, (INT64,), None, None, None,
              {t: INT64 for t in I.INTEGER if t is not INT64}),
}
for _name, (_op, _ufunc, _rev) in _CMP.items():
    _TABLE[_name] = (f"(x {_op} y)", _ufunc, _ALL, BOOL, _rev, _ufunc, None)
    _TABLE["is" + _name] = (f"(x {_op} y)", _is(_ufunc), _ALL, None, "is" + _rev, None, None)


@dataclass(eq=False, repr=False)
class _CoercedOnly(BinaryOp):
    """A binary op reached only through its coercions: it runs at its types, but operands of
    those types are refused (python-graphblas's ldexp: ldexp[INT8] runs at FP32, ldexp[FP32]
    does not exist there). Only ``op[t]`` and ``t in op`` refuse them; the internal
    ``_check_type`` (a semiring typing its multiply) still accepts the types it runs at."""

    def __getitem__(self, dtype):
        dtype = lookup_dtype(dtype)
        if dtype in self.types:
            raise DomainMismatch(f"binary {self.name!r} takes no {dtype.name} operands "
                                 "(as in python-graphblas)")
        return super().__getitem__(dtype)

    def __contains__(self, dtype):
        return lookup_dtype(dtype) in self.coercions


_COERCED_ONLY = {"ldexp"}
_OPS = {
    name: (_CoercedOnly if name in _COERCED_ONLY else BinaryOp)(
        name, c, I.quiet(f), types, out, commutes_to=rev, ufunc=uf, coercions=co or {})
    for name, (c, f, types, out, rev, uf, co) in _TABLE.items()
}
# SuiteSparse's operand types where y's is not x's (the table above converts y itself):
# such an operator cannot combine a build's duplicates, whose domains must be one type
Y_DOMAINS = {"bshift": INT8}
# GrB_DIV is python-graphblas's cdiv; nvGRAPH/oneMKL/SuiteSparse users say div. oneb is
# SuiteSparse's older name of pair.
ALIASES = {"div": "cdiv", "oneb": "pair"}
globals().update(_OPS)
globals().update({alias: _OPS[name] for alias, name in ALIASES.items()})
__all__ = sorted(_OPS) + sorted(ALIASES)
