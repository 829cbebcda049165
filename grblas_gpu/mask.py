"""Masks: ``M.S`` (structural), ``M.V`` (value), and their complements ``~M.S``, ``~M.V``.

A mask is a small immutable record over a Matrix or Vector. Passing the object itself as
``mask=M`` means ``M.V``. Using a mask as a boolean raises, as in python-graphblas.
"""
from dataclasses import dataclass
from typing import Any

from .errors import InvalidValue

__all__ = ["Mask", "MaskableMixin", "as_mask"]


@dataclass(frozen=True)
class Mask:
    parent: Any
    structure: bool = False
    complement: bool = False

    def __invert__(self):
        return Mask(self.parent, self.structure, not self.complement)

    def __bool__(self):
        raise InvalidValue("a mask has no truth value; pass it as mask=")

    def __repr__(self):
        return f"{'~' if self.complement else ''}{type(self.parent).__name__}.{'S' if self.structure else 'V'}"


class MaskableMixin:
    __slots__ = ()

    @property
    def S(self):
        return Mask(self, structure=True)

    @property
    def V(self):
        return Mask(self, structure=False)

    def __invert__(self):
        return Mask(self, structure=False, complement=True)


def as_mask(mask):
    """A Mask or None from what a user passed (None, a Mask, a Matrix/Vector = value mask)."""
    if mask is None or isinstance(mask, Mask):
        return mask
    if isinstance(mask, MaskableMixin):
        return Mask(mask)
    raise InvalidValue(f"mask must be a Matrix, a Vector or a mask (M.S, ~M.V...), got {type(mask).__name__}")
