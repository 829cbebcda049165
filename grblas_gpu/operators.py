"""Resolving operators for the engine.

``semirings`` sits above the containers in the layering and imports ``grblas_gpu.types``,
so the engine reaches it only through these functions, which import it at call time.
Each takes an operator object, a typed operator or a name, and operand types, and returns
a ``semirings.Typed`` (operator at one input type).
"""
from .types import DataType


def _semirings():
    from grblas_gpu import semirings

    return semirings


def catalog():
    """The ``semirings`` package, for engine modules that look operators up by kind or name
    (index-unary operators, BOOL equivalents, the CLI's count): every engine import of it
    goes through here."""
    return _semirings()


def semiring(op, t1, t2):
    """Memoised per (operator or name, t1, t2) for DataType operands: every mxv, vxm and mxm
    resolves one, and a name or an operator's typed view never changes once found."""
    if type(t1) is not DataType or type(t2) is not DataType:
        return _semirings().resolve_semiring(op, t1, t2)
    key = (op if type(op) is str else id(op), t1, t2)
    hit = _semiring_memo.get(key)
    if hit is not None and (type(op) is str or hit[0] is op):
        return hit[1]
    typed = _semirings().resolve_semiring(op, t1, t2)
    if len(_semiring_memo) > 4096:  # operators made on the fly: keep the memo bounded
        _semiring_memo.clear()
    _semiring_memo[key] = (op, typed)  # (holding op: its id is not reused while kept)
    return typed


_semiring_memo = {}  # (threads: get-then-set; two may both resolve, equal, either kept)


def binary(op, t1, t2=None):
    """A value operator: positional ones (firsti ...) are refused, they multiply only in
    semirings."""
    return value_op(_semirings().resolve_binary(op, t1, t2))


def monoid(op, t):
    return _semirings().resolve_monoid(op, t)


def unary(op, t):
    return _semirings().resolve_unary(op, t)


def accumulator(op, c_type, t_type=None):
    """None for no accumulation (None or 'MKL_GRAPH_ACCUMULATOR_NONE'), else the binary op
    typed at C's type: python-graphblas types the accumulator by the output alone, so
    SuiteSparse casts T to C's type before accumulating (3 - 0.7 into INT32 gives 3)."""
    if op is None or (isinstance(op, str) and op.upper() == "MKL_GRAPH_ACCUMULATOR_NONE"):
        return None
    return value_op(_semirings().resolve_binary(op, c_type))


def y_domain(typed):
    """The type of a typed binary operator's y operand in SuiteSparse (bshift's is INT8)."""
    return _semirings().binary.Y_DOMAINS.get(typed.op.name, typed.type)


def is_positional(op):
    """Whether op (a binary op or semiring, typed or not) multiplies by position."""
    return _semirings().positional.is_positional(op)


def value_op(typed):
    """typed, unless it is positional (NotSupported)."""
    if typed is not None and is_positional(typed):
        from .errors import NotSupported

        raise NotSupported(f"{typed.op!r} is positional: it is a semiring's multiply in mxm, "
                           "mxv and vxm only, not an element-wise operator or accumulator")
    return typed
