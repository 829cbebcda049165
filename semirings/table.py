"""The built-in semirings: python-graphblas's set, generated from its naming tables.

A semiring ``<monoid>_<multiply>`` exists where python-graphblas has it (SuiteSparse's
built-ins plus python-graphblas's own: *_truediv, *_floordiv, plus_pow, max_absfirst, ...;
positional multiplies come later with the index operators). Its native types are those where
the multiply's output is a native type of the monoid, except BOOL, which SuiteSparse only
has for the logical multiplies (first, second, pair, lor, land, lxor and the comparisons)
under the logical monoids and ANY, for min/max with first, second, land, lor, lxor
(python-graphblas maps them to land_*/lor_*), and for max_absfirst, times_first/second
(there: compiled on the fly). So ``plus_times``/``min_plus`` have no BOOL: use
``lor_land`` / ``land_lor``.

Other operand types are coerced as python-graphblas does:

* the multiply's own coercion (``plus_truediv`` on INT32 runs at FP64, ``*_floordiv`` on BOOL
  at INT8);
* logical monoids with first/second/pair, and logical monoids or ANY with a logical multiply
  or ne, run non-BOOL operands at BOOL where they are not native: lor_land and lor_first on
  FP32 run at BOOL (any_lor on FP32 is native: it returns FP32 0/1);
* the bitwise semirings run signed integers at an unsigned type: INT8 -> UINT16,
  INT16 -> UINT32, INT32 and INT64 -> UINT64 (python-graphblas's table, odd as it is);
* plus/times/min/max_pair on BOOL run at INT64 (they count).
"""
import itertools

from grblas_gpu.types import ALL_TYPES, BOOL, INT8, INT16, INT32, INT64, UINT16, UINT32, UINT64

from . import binary as B
from . import monoid as M
from ._core import Semiring

ARITH_MONOIDS = ("plus", "times", "min", "max", "any")
ARITH_MULTS = ("first", "second", "pair", "min", "max", "plus", "minus", "rminus", "times",
               "cdiv", "rdiv", "iseq", "isne", "isgt", "islt", "isge", "isle", "lor", "land",
               "lxor", "truediv", "rtruediv", "floordiv", "rfloordiv")
LOGIC_MONOIDS = ("lor", "land", "lxor", "eq", "any")
COMPARISONS = ("eq", "ne", "gt", "lt", "ge", "le")
BOOL_MULTS = ("first", "second", "pair", "lor", "land", "lxor") + COMPARISONS
BITWISE = ("bor", "band", "bxor", "bxnor")
EXTRA = (("plus", "pow"), ("plus", "rpow"), ("plus", "absfirst"), ("plus", "abssecond"),
         ("max", "absfirst"), ("max", "abssecond"), ("lxnor", "lor"))

_NOT_BOOL = tuple(t for t in ALL_TYPES if not t.is_bool)
_LOGIC_ALL = ("any", "eq", "land", "lor", "lxnor", "lxor")
# (monoids, multiplies, {from: to}) -- python-graphblas's semiring coercion tables
_COERCE = [
    (("eq", "land", "lor", "lxnor", "lxor"), ("first", "pair", "second"),
     {t: BOOL for t in _NOT_BOOL}),
    (_LOGIC_ALL, ("eq", "land", "lor", "lxnor", "lxor", "ne"), {t: BOOL for t in _NOT_BOOL}),
    (BITWISE, BITWISE, {INT8: UINT16, INT16: UINT32, INT32: UINT64, INT64: UINT64}),
    (("plus", "times", "min", "max"), ("pair",), {BOOL: INT64}),
]


def _pairs():
    seen = []
    for m, f in itertools.chain(itertools.product(ARITH_MONOIDS, ARITH_MULTS),
                                itertools.product(LOGIC_MONOIDS, BOOL_MULTS),
                                itertools.product(BITWISE, BITWISE), EXTRA):
        if (m, f) not in seen:
            seen.append((m, f))
    return seen


def _bool_native(m, f):
    """Where SuiteSparse/python-graphblas have the (m, f) semiring on BOOL itself."""
    if m in LOGIC_MONOIDS + ("lxnor",):
        return f in BOOL_MULTS
    if m in ("min", "max") and f in ("first", "second", "land", "lor", "lxor"):
        return True
    return (m, f) in {("max", "absfirst"), ("max", "abssecond"), ("times", "first"),
                      ("times", "second")}


def native_types(monoid, multiply, *, builtin=True):
    """Types where ``multiply``'s output is one of ``monoid``'s types (less BOOL where the
    built-in catalog has none)."""
    types = [t for t in multiply.types if multiply.out(t) in monoid.types]
    if builtin and BOOL in types and not _bool_native(monoid.name, multiply.name):
        types.remove(BOOL)
    return tuple(types)


def derived_coercions(monoid, multiply, native, *, builtin=True):
    """{operand type: type it runs at} for types the semiring is not native on."""
    out = {}
    for src, dst in multiply.coercions.items():
        if dst in native and src not in native:
            out[src] = dst
    if not builtin:  # user-defined: also run where the monoid would coerce, if valid
        for src, dst in monoid.coercions.items():
            if dst in native and src not in native and src not in out:
                out[src] = dst
    else:
        for monoids, mults, table in _COERCE:
            if monoid.name in monoids and multiply.name in mults:
                for src, dst in table.items():
                    if src not in native and src not in out and dst in native:
                        out[src] = dst
    return out


def build(name, monoid, multiply, *, builtin=False):
    native = native_types(monoid, multiply, builtin=builtin)
    return Semiring(name, monoid, multiply, native,
                    coercions=derived_coercions(monoid, multiply, native, builtin=builtin))


SEMIRINGS = {}
for _m, _f in _pairs():
    SEMIRINGS[f"{_m}_{_f}"] = build(f"{_m}_{_f}", getattr(M, _m), getattr(B, _f), builtin=True)

# div is cdiv (GrB_DIV); eq is lxnor on BOOL, so lxnor_<f> names eq_<f>
ALIASES = {name.replace("_cdiv", "_div"): name for name in SEMIRINGS if name.endswith("_cdiv")}
ALIASES.update({"lxnor_" + name[3:]: name for name in SEMIRINGS
                if name.startswith("eq_") and "lxnor_" + name[3:] not in SEMIRINGS})
