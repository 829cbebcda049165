"""Operators as data: unary and binary operators, monoids and semirings.

Each operator is written once, its CUDA C expression beside its NumPy function. The C
expression names its operands ``x`` (and ``y``); it may be a string or a function of
the operand DataType returning one (when the C spelling differs by type). The NumPy
function takes arrays and works on CuPy arrays too (NumPy ufuncs dispatch to CuPy's).

Operators are untyped; ``op[FP32]`` gives a typed view (``Typed``). Which input type an
untyped operator runs at is decided by :func:`semirings.resolve` (python-graphblas's rule:
the operands' unified type).
"""
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Optional

from grblas_gpu.errors import DomainMismatch, InvalidValue
from grblas_gpu.types import ALL_TYPES, BOOL, DataType, lookup_dtype

__all__ = ["UnaryOp", "BinaryOp", "Monoid", "Semiring", "Typed"]

NUMERIC = tuple(t for t in ALL_TYPES if not t.is_bool)
INTEGER = tuple(t for t in ALL_TYPES if t.np_type.kind in "iu")
FLOATS = tuple(t for t in ALL_TYPES if t.is_float)


def types_tuple(types):
    if (isinstance(types, (str, DataType)) or not hasattr(types, "__iter__")
            or getattr(types, "ndim", 1) == 0):
        raise InvalidValue(f"types must be a sequence of types, got {types!r}")
    return tuple(lookup_dtype(t) for t in types)


def check_definition(name, c_expr=None, numpy=None, *, expression=True):
    """A user-defined operator's name (a non-empty string), C expression (a string or a
    function of the type) and NumPy function (callable), checked when it is defined rather
    than failing when it is first used."""
    if not isinstance(name, str) or not name:
        raise InvalidValue(f"an operator's name must be a non-empty string, got {name!r}")
    if expression and not (isinstance(c_expr, str) or callable(c_expr)):
        raise InvalidValue(f"operator {name!r}: c_expr must be a string or a function of the "
                           f"type, got {c_expr!r}")
    if expression and not callable(numpy):
        raise InvalidValue(f"operator {name!r}: numpy must be callable, got {numpy!r}")


class _Op:
    """What every operator shares: a name, the types it accepts, typed views."""

    kind = "op"

    def _check_type(self, dtype):
        """The type the operator runs at for operands of ``dtype``: ``dtype`` itself when the
        operator is defined there, else the type python-graphblas coerces it to (``sqrt`` on
        INT32 runs at FP64, ``lor_land`` on FP32 at BOOL). Always one of ``self.types``."""
        dtype = lookup_dtype(dtype)
        if dtype in self.types:
            return dtype
        target = (getattr(self, "coercions", None) or {}).get(dtype)
        if target is None:
            raise DomainMismatch(f"{self.kind} {self.name!r} is not defined for {dtype.name}")
        return target

    def __getitem__(self, dtype):
        if not isinstance(dtype, DataType):
            dtype = lookup_dtype(dtype)  # the cache is keyed by DataType (and refuses arrays)
        typed = self.__dict__.setdefault("_typed", {})  # one view per type, made once
        view = typed.get(dtype)
        if view is None:  # (setdefault: threads asking at once all get the view kept)
            view = typed.setdefault(dtype, Typed(self, self._check_type(dtype)))
        return view

    def __contains__(self, dtype):
        """True where ``op[dtype]`` works (natively or through a coercion)."""
        dtype = lookup_dtype(dtype)
        return dtype in self.types or dtype in (getattr(self, "coercions", None) or {})

    def __repr__(self):
        return f"{self.kind}.{self.name}"

    def __hash__(self):
        return hash((self.kind, self.name))

    def __eq__(self, other):
        return type(other) is type(self) and other.name == self.name and other.kind == self.kind


class _ExpressionOp(_Op):
    """Unary and binary operators: a C expression (or a function of the type giving one)
    and an output-type rule (None: the input type; a DataType; or a function of it)."""

    def __post_init__(self):
        self.types = types_tuple(self.types)
        self.coercions = _coercions(self.coercions, self.types)

    def c(self, dtype):
        return self.c_expr(dtype) if callable(self.c_expr) else self.c_expr

    def out(self, dtype):
        return _out(self.out_type, lookup_dtype(dtype))


@dataclass(eq=False, repr=False)
class UnaryOp(_ExpressionOp):
    """z = f(x). ``out_type``: None (same as x), a DataType, or a function of x's type."""

    name: str
    c_expr: Any  # str over x, or Callable[[DataType], str]
    numpy: Callable
    types: tuple = ALL_TYPES
    out_type: Any = None
    coercions: dict = field(default_factory=dict)
    kind = "unary"


@dataclass(eq=False, repr=False)
class BinaryOp(_ExpressionOp):
    """z = f(x, y). ``commutes_to``: the name of g with f(x, y) = g(y, x) (itself if commutative).
    ``ufunc``: a NumPy ufunc equal to it, when one exists (used for ufunc.reduceat)."""

    name: str
    c_expr: Any
    numpy: Callable
    types: tuple = ALL_TYPES
    out_type: Any = None
    commutes_to: Optional[str] = None
    ufunc: Any = None
    coercions: dict = field(default_factory=dict)
    kind = "binary"
    positional = False  # (semirings.positional: the term is an index, not f(x, y))

    @property
    def is_commutative(self):
        return self.commutes_to == self.name


@dataclass(eq=False, repr=False)
class Monoid(_Op):
    """An associative, commutative BinaryOp with an identity and, maybe, a terminal value
    (the annihilator: once reached, a reduction may stop). ``identity`` and ``terminal``
    are functions of the DataType (``terminal`` returns None where there is none)."""

    name: str
    binop: BinaryOp
    identity: Callable
    terminal: Callable = lambda dtype: None
    types: tuple = None
    coercions: dict = field(default_factory=dict)
    all_terminal: bool = False  # ANY: every value is terminal, stop at the first one
    reduce_ufunc: Any = None  # overrides binop.ufunc where they agree only on the monoid's types
    kind = "monoid"

    def __post_init__(self):
        self.types = types_tuple(self.types if self.types is not None else self.binop.types)
        self.coercions = _coercions(self.coercions, self.types)

    def identity_of(self, dtype):
        dtype = lookup_dtype(dtype)
        return dtype.np_type.type(self.identity(dtype))

    def terminal_of(self, dtype):
        dtype = lookup_dtype(dtype)
        t = self.terminal(dtype)
        return None if t is None else dtype.np_type.type(t)

    def c(self, dtype):
        return self.binop.c(dtype)

    @property
    def numpy(self):
        return self.binop.numpy

    @property
    def ufunc(self):
        return self.reduce_ufunc if self.reduce_ufunc is not None else self.binop.ufunc

    @property
    def commutes_to(self):
        return self.binop.commutes_to

    @property
    def is_commutative(self):
        return True

    def out(self, dtype):
        return lookup_dtype(dtype)


@dataclass(eq=False, repr=False)
class Semiring(_Op):
    """(monoid ⊕, multiply ⊗). Typed at the input type x; ⊗ maps it to the monoid's type."""

    name: str
    monoid: Monoid
    multiply: BinaryOp
    types: tuple = None
    coercions: dict = field(default_factory=dict)
    kind = "semiring"

    def __post_init__(self):
        if self.types is None:
            self.types = tuple(
                t for t in self.multiply.types if self.multiply.out(t) in self.monoid.types)
        self.types = types_tuple(self.types)
        self.coercions = _coercions(self.coercions, self.types)

    def out(self, dtype):
        return self.multiply.out(lookup_dtype(dtype))


@dataclass(frozen=True)
class Typed:
    """An operator at one input type: ``semirings.min_plus[FP32]``."""

    op: Any
    type: DataType

    @property
    def name(self):
        return self.op.name

    @property
    def kind(self):
        return self.op.kind

    @cached_property
    def out_type(self):
        return self.op.out(self.type)

    def c(self):
        """The C expression at this type (unary, binary and monoid operators)."""
        return self.op.c(self.type)

    @property
    def numpy(self):
        return self.op.numpy

    @cached_property
    def monoid(self):
        """A semiring's monoid, typed at the multiply's output type."""
        return self.op.monoid[self.out_type]

    @cached_property
    def multiply(self):
        """A semiring's multiply, typed at the semiring's input type."""
        return self.op.multiply[self.type]

    @cached_property
    def identity(self):
        """A monoid's identity (a NumPy scalar of this type)."""
        return self.op.identity_of(self.type)

    @cached_property
    def terminal(self):
        """A monoid's terminal value, or None."""
        return self.op.terminal_of(self.type)

    def __repr__(self):
        return f"{self.op!r}[{self.type.name}]"


def _coercions(mapping, native):
    """Normalise {type: type} to DataTypes; every target must be a native type."""
    out = {}
    for src, dst in (mapping or {}).items():
        src, dst = lookup_dtype(src), lookup_dtype(dst)
        if src in native:
            continue  # native types never coerce
        if dst not in native:
            raise InvalidValue(f"coercion {src.name} -> {dst.name}: {dst.name} is not native")
        out[src] = dst
    return out


def _out(rule, dtype):
    if rule is None:
        return dtype
    if isinstance(rule, DataType):
        return rule
    return rule(dtype)


# Rules used by the catalog
def bool_out(dtype):
    return BOOL
