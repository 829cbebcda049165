"""Resolving operators for the engine.

``semirings`` sits above the containers in the layering and imports ``grblas_gpu.types``,
so the engine reaches it only through these functions, which import it at call time.
Each takes an operator object, a typed operator or a name, and operand types, and returns
a ``semirings.Typed`` (operator at one input type).
"""


def _semirings():
    import semirings

    return semirings


def semiring(op, t1, t2):
    return _semirings().resolve_semiring(op, t1, t2)


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


def dup_op(op, t):
    """The binary op combining duplicate entries of type t when building (GrB_Matrix_build's
    dup): its inputs and output must share one type, as SuiteSparse requires ('eq' on FP64,
    whose result is BOOL, is DomainMismatch)."""
    typed = binary(op, t, t)
    if typed is None or typed.op.kind not in ("binary", "monoid"):
        from .errors import InvalidValue

        raise InvalidValue(f"dup_op must be a binary operator, got {op!r}")
    if typed.out_type != typed.type:
        from .errors import DomainMismatch

        raise DomainMismatch(f"dup_op {typed.op.name!r} at {typed.type.name} gives "
                             f"{typed.out_type.name}: its inputs and output must share a type")
    return typed


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
