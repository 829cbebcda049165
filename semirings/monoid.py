"""Monoids, python-graphblas names: ``semirings.monoid.min`` ...

Identities and terminal values are SuiteSparse's (read back with GxB_Monoid_terminal):

* plus: identity 0, no terminal (also for integers). Not defined on BOOL (python-graphblas
  has no plus monoid there: lor or integer counting, choose one explicitly).
* times: identity 1; terminal 0 for integers, False for BOOL (= land), none for floats.
* min: identity MAX (+inf, True); terminal MIN for integers, False for BOOL, **none for
  floats** (SuiteSparse has no -inf terminal). On BOOL min is land.
* max: identity MIN (-inf, False); terminal MAX for integers, True for BOOL, none for floats.
  On BOOL max is lor.
* any: identity 0 and terminal 0 as SuiteSparse stores them, but every value is terminal
  (``all_terminal``): a reduction may stop at its first value and return it.
* lor / land / lxor / lxnor: BOOL; other types are reduced at BOOL (python-graphblas), so the
  result is BOOL. lor: False / True; land: True / False; lxor: False / none; lxnor: True / none.
* eq: BOOL only (== lxnor there), identity True, no terminal; no coercion (as python-graphblas).
* bor / band / bxor / bxnor: unsigned integers only (as SuiteSparse's built-ins);
  bor: 0 / all ones; band: all ones / 0; bxor: 0 / none; bxnor: all ones / none.
"""
import numpy as np

from grblas_gpu.types import ALL_TYPES, BOOL

from . import _impl as I
from . import binary as B
from ._core import Monoid

_TO_BOOL = {t: BOOL for t in ALL_TYPES if not t.is_bool}


def _const(v):
    return lambda t: v


def _tmax(t):
    return t.max


def _tmin(t):
    return t.min


def _ints_or_bool(for_bool, for_ints):
    """A terminal that exists for BOOL and integers but not floats."""
    def term(t):
        if t.is_float:
            return None
        return for_bool if t.is_bool else for_ints(t)

    return term


def _all_ones(t):
    return np.iinfo(t.np_type).max


# name: (binary op, types, identity, terminal, coercions, reduce ufunc)
_TABLE = {
    "plus": (B.plus, I.NUMERIC, _const(0), _const(None), None, None),
    "times": (B.times, ALL_TYPES, _const(1), _ints_or_bool(False, _const(0)), None, None),
    "min": (B.min, ALL_TYPES, _tmax, _ints_or_bool(False, _tmin), None, None),
    "max": (B.max, ALL_TYPES, _tmin, _ints_or_bool(True, _tmax), None, None),
    "any": (B.any, ALL_TYPES, _const(0), _const(0), None, None),
    "lor": (B.lor, (BOOL,), _const(False), _const(True), _TO_BOOL, np.logical_or),
    "land": (B.land, (BOOL,), _const(True), _const(False), _TO_BOOL, np.logical_and),
    "lxor": (B.lxor, (BOOL,), _const(False), _const(None), _TO_BOOL, np.logical_xor),
    "lxnor": (B.lxnor, (BOOL,), _const(True), _const(None), _TO_BOOL, np.equal),
    "eq": (B.eq, (BOOL,), _const(True), _const(None), None, np.equal),
    "bor": (B.bor, I.UNSIGNED, _const(0), _all_ones, None, None),
    "band": (B.band, I.UNSIGNED, _all_ones, _const(0), None, None),
    "bxor": (B.bxor, I.UNSIGNED, _const(0), _const(None), None, None),
    "bxnor": (B.bxnor, I.UNSIGNED, _all_ones, _const(None), None, None),
}

_OPS = {
    name: Monoid(name, binop, identity, terminal, types, coercions=co or {},
                 all_terminal=(name == "any"), reduce_ufunc=uf)
    for name, (binop, types, identity, terminal, co, uf) in _TABLE.items()
}
ALIASES = {}
# On BOOL, binary operators that are another monoid's operator there (SuiteSparse's
# GB_binop_to_monoid): GrB_Matrix_reduce_BinaryOp accepts them as that monoid.
BOOL_EQUIVALENTS = {"plus": "lor", "minus": "lxor", "rminus": "lxor", "ne": "lxor",
                    "isne": "lxor", "iseq": "lxnor"}
globals().update(_OPS)
__all__ = sorted(_OPS)
