"""Operator and scalar arguments of ewise, apply, select, reduce and kronecker.

Turns what a user passes (a name, an operator, a typed operator; a Python or NumPy scalar)
into what the computation needs (a typed binary operator or monoid; a NumPy scalar and its
DataType), raising the specific GraphBLAS error before anything is changed.
Operators come from the catalog through ``grblas_gpu.operators``; index-unary operators
from ``semirings.indexunary``, reached through grblas_gpu.operators (semirings sits above the
engine).
"""
import numpy as np

from .. import backend, operators
from ..errors import DomainMismatch, GraphBLASError, InvalidValue, NotSupported
from ..mask import Mask
from ..types import cast, lookup_dtype

__all__ = ["scalar_of", "ewise_binary", "bound_binary", "reduce_op", "indexunary",
           "to_values", "result_array"]

xp = backend.xp


def _catalog():
    return operators.catalog()


def _lookup(name, kind):
    """The catalog's operator of this kind called ``name``, or None."""
    try:
        return _catalog().lookup(name, kind)
    except (GraphBLASError, KeyError, ValueError, AttributeError, TypeError):
        return None


def _split(op):
    """(operator, its type or None): a typed operator (``semirings.Typed``) has .op and .type."""
    if hasattr(op, "op") and hasattr(op, "type") and hasattr(op, "kind"):
        return op.op, op.type
    return op, None


def _kind(op):
    return getattr(op, "kind", None)


def scalar_of(value, what="scalar", default=None):
    """(NumPy scalar, DataType) of a Python/NumPy scalar or 0-d array; None -> ``default``."""
    if value is None:
        if default is None:
            raise InvalidValue(f"{what} is required")
        value = default
    if isinstance(value, Mask) or hasattr(value, "nvals"):
        raise InvalidValue(f"{what} must be a scalar, got {type(value).__name__}")
    a = np.asarray(backend.to_host(value))
    if a.ndim != 0:
        raise InvalidValue(f"{what} must be a scalar, got shape {a.shape}")
    if a.dtype.kind not in "biuf":
        raise DomainMismatch(f"{what} {value!r} is not a GraphBLAS number (dtype {a.dtype})")
    t = lookup_dtype(a.dtype)
    return a[()], t


def ewise_binary(op, t1, t2, part):
    """The typed binary operator an ewise operation applies at operand types t1, t2.
    A monoid means its operator; a semiring its ⊕ (``part='add'``) or ⊗ (``part='mult'``),
    as the C API allows."""
    if isinstance(op, str) and _lookup(op, "binary") is None and _lookup(op, "monoid") is None:
        sr = _lookup(op, "semiring")
        op = sr if sr is not None else op
    base, t = _split(op)
    if _kind(base) == "semiring":
        if t is None:
            base = base.monoid.binop if part == "add" else base.multiply
            return _typed_binary(base, t1, t2)
        if part == "add":
            return base.monoid.binop[base.multiply.out(t)]
        return base.multiply[t]
    return bound_binary(op, t1, t2)


def bound_binary(op, t1, t2):
    """A typed binary operator for operand types t1, t2 (a monoid means its operator; a
    typed operator keeps the type it was given)."""
    if isinstance(op, str):
        if _lookup(op, "binary") is None and _lookup(op, "semiring") is not None:
            raise DomainMismatch(f"{op!r} is a semiring; a binary operator or monoid is needed")
        return _typed_binary(op, t1, t2)
    base, t = _split(op)
    if _kind(base) == "monoid":
        return base.binop[t] if t is not None else _typed_binary(base.binop, t1, t2)
    if _kind(base) != "binary":
        raise DomainMismatch(f"{op!r} is not a binary operator or monoid")
    return operators.value_op(op) if t is not None else _typed_binary(base, t1, t2)


def _typed_binary(op, t1, t2):
    typed = operators.binary(op, t1, t2)
    if _kind(typed.op) == "monoid":  # a name the catalog resolved to a monoid
        typed = typed.op.binop[typed.type]
    if _kind(typed.op) != "binary":
        raise DomainMismatch(f"{op!r} is not a binary operator")
    if typed.type not in typed.op.types:
        raise DomainMismatch(f"{typed.op!r} is not defined for {typed.type.name}")
    return typed


def reduce_op(op, t, *, to_vector=False):
    """A typed monoid for reducing values of type t. A binary operator means its monoid (the
    catalog's monoid of the same name, at t; reducing to a vector on BOOL, also the monoid it
    is there: plus is lor). One without a monoid at t is refused: NotSupported reducing to a
    vector (SuiteSparse's GrB_Matrix_reduce_BinaryOp: GrB_NOT_IMPLEMENTED), DomainMismatch
    reducing to a scalar (python-graphblas takes a monoid only there)."""
    no_monoid = NotSupported if to_vector else DomainMismatch
    base, typed_at = _split(op)
    binop = None
    if isinstance(op, str):
        base, binop = _lookup(op, "monoid"), _lookup(op, "binary")
        if base is None and binop is None:
            raise DomainMismatch(_no_monoid(op, binop))
    elif _kind(base) == "binary":
        binop = base
        monoid = _lookup(base.name, "monoid")
        base = monoid if monoid is not None and monoid.binop == base else None
    if binop is not None:
        if base is None or not _defined_at(base, typed_at or t):  # bor on signed integers
            base = _bool_equivalent(binop, typed_at or t) if to_vector else None
        if base is None:
            _refuse_without_monoid(op, binop, typed_at or t, no_monoid)
    if _kind(base) != "monoid":
        raise DomainMismatch(f"{op!r} is not a monoid")
    return base[typed_at] if typed_at is not None else operators.monoid(base, t)


def _bool_equivalent(binop, t):
    """The monoid a binary operator is on BOOL (plus is lor there), or None."""
    if lookup_dtype(t).name != "BOOL":
        return None
    name = _catalog().monoid.BOOL_EQUIVALENTS.get(binop.name)
    return None if name is None else _lookup(name, "monoid")


def _defined_at(monoid, t):
    try:
        operators.monoid(monoid, t)
    except GraphBLASError:
        return False
    return True


def _refuse_without_monoid(op, binop, t, cls):
    typed = _typed_binary(binop, t, t)
    if typed.out_type != typed.type:  # eq on numbers: its result is not of its operands' type
        raise DomainMismatch(f"{typed!r} does not stay in {typed.type.name}: it cannot reduce")
    raise cls(_no_monoid(op, binop))


def _no_monoid(op, binop):
    if binop is None:
        return f"{op!r} is not a monoid or a binary operator"
    return (f"{op!r} is a binary operator without a monoid: a reduction needs an associative "
            "and commutative operator with an identity (a monoid)")


def indexunary(op, x_type, thunk_type):
    """A typed index-unary operator (``semirings.indexunary``)."""
    iu = _catalog().indexunary
    base, _ = _split(op)
    if not isinstance(op, str) and not isinstance(base, iu.IndexUnaryOp):
        raise DomainMismatch(f"{op!r} is not an index-unary operator")
    return iu.resolve_indexunary(op, x_type, thunk_type)


def is_indexunary(op):
    iu = _catalog().indexunary
    base, _ = _split(op)
    if isinstance(op, str):
        try:
            iu.lookup(op)
        except InvalidValue:
            return False
        return _lookup(op, "unary") is None and _lookup(op, "binary") is None
    return isinstance(base, iu.IndexUnaryOp)


def to_values(values, dtype):
    """An operand's values cast to an operator's input type."""
    return cast(values, dtype, xp)


def result_array(z, n, dtype):
    """An operator's result as a length-n array of ``dtype``: NumPy functions return scalars
    or 0-d arrays when every operand is a scalar (``second`` with a bound scalar, iso values)."""
    z = xp.asarray(z)
    if z.shape != (n,):
        z = xp.broadcast_to(z, (n,))
    return xp.ascontiguousarray(cast(z, dtype, xp))
