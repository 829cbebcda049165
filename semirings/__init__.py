"""grblas_gpu's operator catalog: operators as data, semirings as (monoid, multiply) pairs.

    semirings.unary.abs, semirings.binary.plus, semirings.monoid.min    namespaces
    semirings.min_plus, semirings.any_pair, ...                        every semiring
    semirings.any_secondi, semirings.binary.firsti, ...                positional multiplies
                                                                       (semirings.positional)
    semirings.lookup(name_or_obj, kind=None)                           by name (also nvGRAPH,
                                                                       oneMKL, GrB_ names)
    semirings.resolve_semiring(sr, t1, t2) / resolve_binary / resolve_monoid / resolve_unary
    semirings.resolve(op, t1, t2=None, kind=None)                       any kind
    semirings.catalog(kind="semiring")                                 {name: op}, no aliases
    semirings.unary_op / binary_op / make_monoid / make_semiring        user-defined operators

An operator is untyped; ``op[T]`` (or a resolve_* function) gives a ``Typed`` view whose
``.type`` is the type it runs at (operands are cast to it) and ``.out_type`` its result type.
See docs/design.md ("Operators") and each module's docstring for SuiteSparse's semantics.
This package imports only grblas_gpu.types and grblas_gpu.errors.
"""
from . import binary, indexunary, monoid, positional, unary
from ._core import BinaryOp, Monoid, Semiring, Typed, UnaryOp
from .indexunary import IndexUnaryOp, indexunary_op
from .table import ALIASES as _SR_ALIASES
from .table import SEMIRINGS as _SEMIRINGS
from .registry import (
    REGISTRY, binary_op, catalog, lookup, make_monoid, make_semiring, resolve, resolve_binary,
    resolve_monoid, resolve_semiring, resolve_unary, semiring, unary_op,
)

globals().update(_SEMIRINGS)
globals().update(positional.SEMIRINGS)
for _name, _op in positional.OPS.items():  # semirings.binary.firsti (not in binary.__all__)
    setattr(binary, _name, _op)
globals().update({alias: _SEMIRINGS[name] for alias, name in _SR_ALIASES.items()})

__all__ = [
    "unary", "binary", "monoid", "indexunary", "IndexUnaryOp", "indexunary_op", "UnaryOp", "BinaryOp", "Monoid", "Semiring", "Typed",
    "lookup", "catalog", "resolve", "resolve_unary", "resolve_binary", "resolve_monoid",
    "resolve_semiring",
    "unary_op", "binary_op", "make_monoid", "make_semiring", "semiring", "REGISTRY",
    "positional", *sorted(_SEMIRINGS), *sorted(_SR_ALIASES), *sorted(positional.SEMIRINGS),
]
