"""Index-unary and select operators: z = f(x, i, j, thunk).

An index-unary operator sees an entry's value x, its row i, its column j and a scalar
``thunk`` (the GraphBLAS C API's GrB_IndexUnaryOp). A select operator is one whose result
is BOOL: ``select`` keeps the entries where it is true. For a Vector, i is the entry's
index and j is 0 (as SuiteSparse and python-graphblas define it).

Each operator is written once: a CUDA C expression over ``x``, ``i``, ``j``, ``thunk``
(``i`` and ``j`` are ``long long``) beside a NumPy function of ``(x, i, j, thunk)`` that
also works on CuPy arrays. Built-ins (the C API's, with its formulas):

    rowindex  i + thunk        colindex  j + thunk        diagindex  j - (i + thunk)
    tril      j <= i + thunk   triu      j >= i + thunk   diag       j == i + thunk
    offdiag   j != i + thunk   rowle     i <= thunk       rowgt      i > thunk
    colle     j <= thunk       colgt     j > thunk
    valueeq   x == thunk  (and valuene, valuegt, valuege, valuelt, valuele)

Positional operators read only i and j; their thunk is INT64 and their result INT64 (for
rowindex, colindex, diagindex: the C API's _INT64 variants) or BOOL. Value operators are
typed like a binary operator with a bound scalar: at the unified type of x and thunk.
"""
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from grblas_gpu._validate import as_flag
from grblas_gpu.errors import DomainMismatch, InvalidValue
from grblas_gpu.types import ALL_TYPES, BOOL, INT64, lookup_dtype, unify

from ._core import Typed, _ExpressionOp, check_definition

__all__ = ["IndexUnaryOp", "indexunary_op", "lookup", "resolve_indexunary", "names",
           "rowindex", "colindex", "diagindex", "tril", "triu", "diag", "offdiag",
           "rowle", "rowgt", "colle", "colgt", "valueeq", "valuene", "valuegt", "valuege",
           "valuelt", "valuele"]


@dataclass(eq=False, repr=False)
class IndexUnaryOp(_ExpressionOp):
    """z = f(x, i, j, thunk).

    ``types``: the value types x may have. ``out_type``: None (x's type), a DataType, or a
    function of the operator's type. ``thunk_type``: a DataType the thunk is cast to
    (positional operators: INT64), or None to type the operator at unify(x, thunk).
    ``positional``: f does not read x (iso or missing values do not matter).
    ``reads_index``: f reads i or j (otherwise callers may pass None for them)."""

    name: str
    c_expr: Any  # str over x, i, j, thunk, or Callable[[DataType], str]
    numpy: Callable
    types: tuple = ALL_TYPES
    out_type: Any = None
    thunk_type: Any = None
    positional: bool = False
    reads_index: bool = True
    coercions: dict = field(default_factory=dict)
    kind = "indexunary"

    def __post_init__(self):
        super().__post_init__()
        if self.thunk_type is not None:
            self.thunk_type = lookup_dtype(self.thunk_type)

    @property
    def is_select(self):
        """A select operator: its result is BOOL at every type."""
        return all(self.out(t) is BOOL for t in self.types)


_REGISTRY = {}
_ALIASES = {"index": "rowindex", "indexle": "rowle", "indexgt": "rowgt",
            "==": "valueeq", "!=": "valuene", ">": "valuegt", ">=": "valuege",
            "<": "valuelt", "<=": "valuele"}


def indexunary_op(name, *, c_expr, numpy, types=ALL_TYPES, out_type=None, thunk_type=None,
                  positional=False, reads_index=True, register=True):
    """Define (and, with ``register``, name) an index-unary operator. A select operator is one
    with ``out_type=BOOL``. ``numpy(x, i, j, thunk)`` must accept arrays (NumPy or CuPy),
    with x possibly a 0-d array (an iso value) and, when ``reads_index`` is False, i = j = None."""
    check_definition(name, c_expr, numpy)
    op = IndexUnaryOp(name, c_expr, numpy, types, out_type, thunk_type, positional, reads_index)
    if as_flag(register, "register"):
        if name.lower() in _REGISTRY or name.lower() in _ALIASES:
            raise InvalidValue(f"an index-unary operator named {name!r} already exists")
        _REGISTRY[name.lower()] = op
    return op


def lookup(name):
    """The index-unary operator called ``name`` (or the operator itself)."""
    if isinstance(name, (IndexUnaryOp, Typed)):
        return name
    if isinstance(name, str):
        op = _REGISTRY.get(_ALIASES.get(name.lower(), name.lower()))
        if op is not None:
            return op
    raise InvalidValue(f"unknown index-unary or select operator {name!r}")


def names():
    return sorted(_REGISTRY)


def resolve_indexunary(op, x_type, thunk_type):
    """``Typed(op, type)``: positional operators at their thunk type, value operators at
    unify(x_type, thunk_type) (python-graphblas's rule for a bound scalar)."""
    op = lookup(op)
    if isinstance(op, Typed):
        if not isinstance(op.op, IndexUnaryOp):
            raise DomainMismatch(f"{op!r} is not an index-unary operator")
        return op
    if op.thunk_type is not None:
        t = op.thunk_type
    else:
        t = unify(x_type, thunk_type)
    return Typed(op, op._check_type(t))


# ---------------------------------------------------------------------- built-ins
def _positional(name, c_expr, fn, out):
    return indexunary_op(name, c_expr=c_expr, numpy=fn, types=(INT64,), out_type=out,
                         thunk_type=INT64, positional=True)


def _value(name, c_op, fn):
    return indexunary_op(name, c_expr=f"(x {c_op} thunk)",
                         numpy=lambda x, i, j, thunk: fn(x, thunk),
                         out_type=BOOL, reads_index=False)


rowindex = _positional("rowindex", "(i + thunk)", lambda x, i, j, t: i + t, INT64)
colindex = _positional("colindex", "(j + thunk)", lambda x, i, j, t: j + t, INT64)
diagindex = _positional("diagindex", "(j - (i + thunk))", lambda x, i, j, t: j - (i + t), INT64)
tril = _positional("tril", "(j <= i + thunk)", lambda x, i, j, t: j <= i + t, BOOL)
triu = _positional("triu", "(j >= i + thunk)", lambda x, i, j, t: j >= i + t, BOOL)
diag = _positional("diag", "(j == i + thunk)", lambda x, i, j, t: j == i + t, BOOL)
offdiag = _positional("offdiag", "(j != i + thunk)", lambda x, i, j, t: j != i + t, BOOL)
rowle = _positional("rowle", "(i <= thunk)", lambda x, i, j, t: i <= t, BOOL)
rowgt = _positional("rowgt", "(i > thunk)", lambda x, i, j, t: i > t, BOOL)
colle = _positional("colle", "(j <= thunk)", lambda x, i, j, t: j <= t, BOOL)
colgt = _positional("colgt", "(j > thunk)", lambda x, i, j, t: j > t, BOOL)
valueeq = _value("valueeq", "==", np.equal)
valuene = _value("valuene", "!=", np.not_equal)
valuegt = _value("valuegt", ">", np.greater)
valuege = _value("valuege", ">=", np.greater_equal)
valuelt = _value("valuelt", "<", np.less)
valuele = _value("valuele", "<=", np.less_equal)
