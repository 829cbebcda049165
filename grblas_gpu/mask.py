"""Masks: ``M.S`` (structural), ``M.V`` (value), and their complements ``~M.S``, ``~M.V``.

A mask is a small immutable record over a Matrix or Vector. Passing the object itself as
``mask=M`` means ``M.V``. Using a mask as a boolean raises, as in python-graphblas.

``NOT_NULL`` is C⟨!NULL⟩: no mask, complemented by the descriptor (GrB_DESC_C, GrB_DESC_RC).
No mask means every output allowed, so its complement allows none: C is left as it was, or
cleared under replace. It has no object until the output's shape is known;
:func:`materialize` then gives the equivalent empty structural mask.
"""
from dataclasses import dataclass
from typing import Any

from ._validate import as_flag
from .errors import InvalidValue
from .types import BOOL

__all__ = ["Mask", "MaskableMixin", "as_mask", "NOT_NULL", "materialize"]



@dataclass(frozen=True)
class Mask:
    parent: Any
    structure: bool = False
    complement: bool = False

    def __post_init__(self):
        if not isinstance(self.parent, MaskableMixin):
            raise InvalidValue(f"a mask is over a Matrix or a Vector, not {type(self.parent).__name__}")
        object.__setattr__(self, "structure", as_flag(self.structure, "structure"))
        object.__setattr__(self, "complement", as_flag(self.complement, "complement"))

    def __invert__(self):
        if self.parent is None:  # NOT_NULL has no complement to give: refused as before
            return Mask(self.parent, self.structure, not self.complement)
        return _mask(self.parent, self.structure, not self.complement)

    def __bool__(self):
        raise InvalidValue("a mask has no truth value; pass it as mask=")

    def __repr__(self):
        if self.parent is None:
            return "~NULL"
        return f"{'~' if self.complement else ''}{type(self.parent).__name__}.{'S' if self.structure else 'V'}"


class MaskableMixin:
    __slots__ = ()

    @property
    def S(self):
        return _mask(self, True, False)

    @property
    def V(self):
        return _mask(self, False, False)

    def __invert__(self):
        return _mask(self, False, True)


def _mask(parent, structure, complement):
    """A Mask from checked fields (a Matrix or Vector parent, two bools): built past
    __post_init__, whose checks would pass, since masks are made on every call."""
    mask = object.__new__(Mask)
    object.__setattr__(mask, "__dict__", {"parent": parent, "structure": structure,
                                          "complement": complement})
    return mask


def as_mask(mask):
    """A Mask or None from what a user passed (None, a Mask, a Matrix/Vector = value mask)."""
    if mask is None or isinstance(mask, Mask):
        return mask
    if isinstance(mask, MaskableMixin):
        return Mask(mask)
    raise InvalidValue(f"mask must be a Matrix, a Vector or a mask (M.S, ~M.V...), got {type(mask).__name__}")


def _not_null():
    """The one Mask with no parent (built past the parent check users' masks get)."""
    mask = object.__new__(Mask)
    for name, value in (("parent", None), ("structure", True), ("complement", True)):
        object.__setattr__(mask, name, value)
    return mask


NOT_NULL = _not_null()


def materialize(mask, kind, shape):
    """``mask``, with NOT_NULL turned into an empty structural mask: a ``kind`` (Matrix or
    Vector class) of ``shape`` holding no entry, which allows no output."""
    if mask is not NOT_NULL:
        return mask
    return Mask(kind(BOOL, *shape), structure=True)
