"""Finding operators by name, typing them for given operands, and adding new ones.

``lookup(name_or_obj, kind=None)``: objects and ``Typed`` pass through unchanged (a BinaryOp
asked for as a monoid becomes its monoid; a Monoid is accepted where a binary op is wanted).
Strings may be catalog names (``'min_plus'``, ``'semiring.min_plus'``, ``'min_plus[FP32]'``),
nvGRAPH, oneMKL or GraphBLAS C names (see ``semirings.names``). Names used by several kinds
('plus' is a binary op and a monoid) are read by ``kind``; without it the first kind that has
the name wins, in the order semiring, binary, monoid, unary: ``lookup('plus')`` is the binary
op, which is what a bare name most often means (an accumulator, an element-wise op).
Callers that want a monoid say so (``resolve_monoid`` does).

``resolve_*``: the ``Typed`` operator python-graphblas would run for the operand types: the
types unified (numpy promotion) when there are two, then the operator's coercion if it is not
defined there (``sqrt`` on INT32 runs at FP64, ``lor_land`` on FP32 at BOOL, ``min`` monoid on
BOOL is land). python-graphblas's one special case is kept: ``pair`` (and semirings multiplying
with pair) given two operand types run at INT64, whatever the types. No answer raises
``DomainMismatch``. A ``Typed`` operator is returned as it is (its type was chosen by the
caller).
"""
import re
import sys

import numpy as np

from grblas_gpu._validate import as_flag
from grblas_gpu.errors import DomainMismatch, InvalidValue
from grblas_gpu.types import ALL_TYPES, INT64, lookup_dtype, unify

from . import binary as _binary
from . import table as _table
from . import monoid as _monoid
from . import positional as _positional
from . import unary as _unary
from ._core import BinaryOp, Monoid, Semiring, Typed, UnaryOp, check_definition, types_tuple
from .names import NVGRAPH_SEMIRINGS, ONEMKL_ACCUMULATORS, ONEMKL_SEMIRINGS, parse_c_name

KINDS = ("semiring", "binary", "monoid", "unary")
_CLASSES = {"unary": UnaryOp, "binary": BinaryOp, "monoid": Monoid, "semiring": Semiring}
_MODULES = {"unary": _unary, "binary": _binary, "monoid": _monoid}

# kind -> {name or alias: operator}
REGISTRY = {k: {} for k in KINDS}
for _kind, _mod, _ops in (("unary", _unary, _unary._OPS), ("binary", _binary, _binary._OPS),
                          ("monoid", _monoid, _monoid._OPS),
                          ("semiring", _table, _table.SEMIRINGS)):
    REGISTRY[_kind].update(_ops)
    REGISTRY[_kind].update({a: _ops[n] for a, n in _mod.ALIASES.items()})
REGISTRY["binary"].update(_positional.OPS)
REGISTRY["semiring"].update(_positional.SEMIRINGS)

_TYPED_NAME = re.compile(r"^(.*)\[\s*([A-Za-z0-9_]+)\s*\]$")


def _check_kind(kind):
    if kind is not None and not (isinstance(kind, str) and kind in KINDS):
        raise InvalidValue(f"kind must be one of {KINDS} or None, not {kind!r}")


def _required(found, given, kind):
    """``found`` (a lookup's answer); None, which names no operator, is refused where an
    operator of ``kind`` is needed (None, 'MKL_GRAPH_ACCUMULATOR_NONE')."""
    if found is None:
        raise InvalidValue(f"a {kind} is required, got {given!r}")
    return found


def _coerce_obj(op, kind):
    """An operator object (or Typed) as the kind asked for."""
    if kind is None or op.kind == kind or (kind == "binary" and op.kind == "monoid"):
        return op
    if kind == "monoid" and op.kind == "binary":
        base = op.op if isinstance(op, Typed) else op
        m = REGISTRY["monoid"].get(base.name)
        if m is not None and m.binop is base:
            return m if not isinstance(op, Typed) else m[op.type]
        raise DomainMismatch(f"binary op {base.name!r} has no monoid")
    raise DomainMismatch(f"expected a {kind}, got {op!r} (a {op.kind})")


def lookup(op, kind=None):
    """The operator named (or given) by ``op``; see the module docstring. None gives None
    (no operator, e.g. no accumulator)."""
    _check_kind(kind)
    if op is None:
        return None
    if isinstance(op, (Typed, UnaryOp, BinaryOp, Monoid, Semiring)):
        return _coerce_obj(op, kind)
    if not isinstance(op, str):
        raise InvalidValue(f"not an operator or operator name: {op!r}")
    # a name, once found, names the same operator for good (registering never rebinds one)
    found = _by_name.get((op, kind), _MISSING)
    if found is _MISSING:
        found = _by_name[(op, kind)] = _lookup_name(op, kind)
    return found


_by_name = {}  # (threads: get-then-set; two may both make a value, equal, either kept)


def _lookup_name(op, kind):
    name = op.strip()
    m = _TYPED_NAME.match(name)
    if m:
        base = lookup(m.group(1), kind)
        return base if isinstance(base, Typed) else base[lookup_dtype(m.group(2))]
    prefix, dot, rest = name.partition(".")
    if dot and prefix.lower() in KINDS:
        if kind is not None and kind != prefix.lower():
            raise DomainMismatch(f"{op!r} is not a {kind}")
        return lookup(rest, prefix.lower())
    found = _foreign(name, kind)
    if found is not _MISSING:
        return found
    key = name.lower()
    for k in (kind,) if kind is not None else KINDS:
        if key in REGISTRY[k]:
            return REGISTRY[k][key]
    if kind == "monoid" and key in REGISTRY["binary"]:
        raise DomainMismatch(f"binary op {key!r} has no monoid")
    raise InvalidValue(f"unknown {kind or 'operator'} {op!r}")


_MISSING = object()


def _foreign(name, kind):
    upper = name.upper()
    if upper in NVGRAPH_SEMIRINGS:
        return _coerce_obj(REGISTRY["semiring"][NVGRAPH_SEMIRINGS[upper]], kind)
    if upper in ONEMKL_SEMIRINGS:
        sr, t = ONEMKL_SEMIRINGS[upper]
        return _coerce_obj(REGISTRY["semiring"][sr][t], kind)
    if upper in ONEMKL_ACCUMULATORS:
        target = ONEMKL_ACCUMULATORS[upper]
        return None if target is None else _coerce_obj(REGISTRY["binary"][target], kind)
    parsed = parse_c_name(name)
    if parsed is None:
        return _MISSING
    ckind, opname, t = parsed
    kinds = [ckind] if ckind else ([kind] if kind else ["binary", "unary", "monoid"])
    for k in kinds:
        if opname in REGISTRY[k]:
            return _coerce_obj(REGISTRY[k][opname][t], kind)
    raise InvalidValue(f"unknown GraphBLAS operator {name!r}")


# ---------------------------------------------------------------- resolution
def _is_pair(op):
    if isinstance(op, Semiring):
        op = op.multiply
    return op is _binary.pair


def _two(op, t1, t2):
    if t2 is None:
        return lookup_dtype(t1)
    if _is_pair(op):
        return INT64
    return unify(t1, t2)


def resolve(op, t1, t2=None, kind=None):
    """Any kind: the operator looked up (with ``kind``), then typed by its kind's rule."""
    op = lookup(op, kind)
    if op is None or isinstance(op, Typed):
        return op
    if op.kind == "semiring":
        return resolve_semiring(op, t1, t2)
    if op.kind == "binary" or (kind == "binary" and op.kind == "monoid"):
        return resolve_binary(op, t1, t2)
    return op[t1] if t2 is None else op[unify(t1, t2)]


def catalog(kind="semiring"):
    """{name: operator} of one kind, built-in and registered, aliases left out."""
    _check_kind(_required(kind, kind, "kind"))
    return {name: op for name, op in REGISTRY[kind].items() if op.name == name}


def resolve_unary(op, t):
    op = _required(lookup(op, "unary"), op, "unary operator")
    return op if isinstance(op, Typed) else op[t]


def resolve_binary(op, t1, t2=None):
    """The typed binary op (or monoid used as one) for operands of types t1 and t2."""
    op = lookup(op, "binary")
    if op is None or isinstance(op, Typed):
        return op
    return op[_two(op, t1, t2)]


def resolve_monoid(m, t):
    m = _required(lookup(m, "monoid"), m, "monoid")
    return m if isinstance(m, Typed) else m[t]


def resolve_semiring(sr, t1, t2=None):
    """The typed semiring for A's type t1 and B's type t2."""
    sr = _required(lookup(sr, "semiring"), sr, "semiring")
    return sr if isinstance(sr, Typed) else sr[_two(sr, t1, t2)]


# ---------------------------------------------------------------- user-defined operators
def _register(op, register):
    if not as_flag(register, "register"):
        return op
    if not op.name.isidentifier():
        raise InvalidValue(f"operator name {op.name!r} is not an identifier")
    if op.name in REGISTRY[op.kind]:
        raise InvalidValue(f"a {op.kind} named {op.name!r} already exists")
    if op.kind == "semiring":
        package = sys.modules[__name__.rpartition(".")[0]]
        if hasattr(package, op.name):
            raise InvalidValue(f"{op.name!r} would hide semirings.{op.name}")
        setattr(package, op.name, op)
    else:
        setattr(_MODULES[op.kind], op.name, op)
    REGISTRY[op.kind][op.name] = op
    return op


def unary_op(name, c_expr, numpy, types=ALL_TYPES, out_type=None, *, register=True):
    """A new unary operator: ``c_expr`` over ``x`` (or a function of the type giving it),
    ``numpy`` a function of one array. Registered (``semirings.unary.<name>``, lookup) unless
    ``register=False``."""
    check_definition(name, c_expr, numpy)
    return _register(UnaryOp(name, c_expr, numpy, types, out_type), register)


def binary_op(name, c_expr, numpy, types=ALL_TYPES, out_type=None, *, commutes_to=None,
              ufunc=None, register=True):
    """A new binary operator, e.g. ``binary_op("absdiff", "x > y ? x - y : y - x",
    lambda x, y: np.where(x > y, x - y, y - x), types=NUMERIC)``. ``commutes_to=name`` (its
    own name if commutative)."""
    check_definition(name, c_expr, numpy)
    return _register(BinaryOp(name, c_expr, numpy, types, out_type, commutes_to=commutes_to,
                              ufunc=ufunc), register)


def _is_number(v):
    return (isinstance(v, (int, float, np.number, np.bool_))
            or (isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "biuf"))


def _as_fn(v):
    return v if callable(v) else (lambda t: v)


def make_monoid(name, binop, identity, terminal=None, *, types=None, register=True):
    """A monoid from an associative, commutative binary op (object or name). ``identity`` /
    ``terminal``: a value or a function of the DataType (terminal None: there is none).
    ``types``: default, every type where the op's output type is its input type."""
    check_definition(name, expression=False)
    for what, v in (("identity", identity), ("terminal", terminal)):
        if v is not None and not callable(v) and not _is_number(v):
            raise InvalidValue(f"monoid {name!r}: {what} must be a number or a function of "
                               f"the type, got {v!r}")
    binop = _required(lookup(binop, "binary"), binop, "binary operator")
    if isinstance(binop, (Typed, Monoid)):
        binop = binop.op if isinstance(binop, Typed) else binop.binop
    if types is not None:
        types = types_tuple(types)
    if types is None:
        types = tuple(t for t in binop.types if binop.out(t) == t)
    for t in types:
        t = lookup_dtype(t)
        if t not in binop.types or binop.out(t) != t:
            raise DomainMismatch(f"{binop.name} on {t.name} does not stay in {t.name}")
    term = (lambda t: None) if terminal is None else _as_fn(terminal)
    return _register(Monoid(name, binop, _as_fn(identity), term, tuple(types)), register)


def make_semiring(name, monoid, multiply, *, types=None, register=True):
    """A semiring (monoid, multiply); its types default to those where multiply's output is a
    type of the monoid (plus those the multiply or monoid coerce to such a type)."""
    check_definition(name, expression=False)
    monoid = _required(lookup(monoid, "monoid"), monoid, "monoid")
    multiply = _required(lookup(multiply, "binary"), multiply, "binary operator")
    if isinstance(monoid, Typed):
        monoid = monoid.op
    if isinstance(multiply, Typed):
        multiply = multiply.op
    if isinstance(multiply, Monoid):
        multiply = multiply.binop
    if types is None:
        sr = _table.build(name, monoid, multiply)
    else:
        sr = Semiring(name, monoid, multiply, types_tuple(types))
        bad = [t.name for t in sr.types
               if t not in multiply.types or multiply.out(t) not in monoid.types]
        if bad:
            raise DomainMismatch(f"{multiply.name} into {monoid.name} is not defined on {bad}")
    if not sr.types:
        raise DomainMismatch(f"{multiply.name} and monoid {monoid.name} share no type")
    return _register(sr, register)


semiring = make_semiring


def _unregister(op):
    """Remove a user-defined operator (tests use it to leave the registry as they found it)."""
    REGISTRY[op.kind].pop(op.name, None)
    package = sys.modules[__name__.rpartition(".")[0]]
    holder = package if op.kind == "semiring" else _MODULES[op.kind]
    if getattr(holder, op.name, None) is op:
        delattr(holder, op.name)
