"""Descriptors: how an operation treats its output, mask and inputs.

Fields and modifiers carry oneMKL's names (Field.OUTPUT, Modifier.REPLACE, ...); GraphBLAS's
names (GrB_REPLACE, GrB_COMP, GrB_STRUCTURE, GrB_TRAN) mean the same. A Descriptor is a
small value: ``set`` changes it in place (as oneMKL's descriptor_set_field does), and
``with_`` / ``dup`` return a modified / plain copy. The predefined descriptors (GrB_TRAN,
GrB_COMP, ..., and the default one) are shared by every caller, so they are immutable:
``set`` or assigning a field raises InvalidValue; ``dup()`` gives a mutable copy.
"""
import enum
from dataclasses import dataclass, replace as _dc_replace

from .errors import InvalidValue
from ._validate import as_flag
from .mask import NOT_NULL, Mask, as_mask

__all__ = ["Field", "Modifier", "Descriptor", "Request", "Method", "resolve_mask",
           "GrB_REPLACE", "GrB_COMP", "GrB_STRUCTURE", "GrB_TRAN"]


class Field(enum.Enum):
    OUTPUT = "MKL_GRAPH_FIELD_OUTPUT"
    FIRST_INPUT = "MKL_GRAPH_FIELD_FIRST_INPUT"
    SECOND_INPUT = "MKL_GRAPH_FIELD_SECOND_INPUT"
    MASK = "MKL_GRAPH_FIELD_MASK"


class Modifier(enum.Enum):
    NONE = "MKL_GRAPH_MOD_NONE"
    COMPLEMENT = "MKL_GRAPH_MOD_COMPLEMENT"
    TRANSPOSE = "MKL_GRAPH_MOD_TRANSPOSE"
    REPLACE = "MKL_GRAPH_MOD_REPLACE"
    ONLY_STRUCTURE = "MKL_GRAPH_MOD_ONLY_STRUCTURE"
    KEEP_MASK_STRUCTURE = "MKL_GRAPH_MOD_KEEP_MASK_STRUCTURE"


class Request(enum.Enum):
    COMPUTE_ALL = "MKL_GRAPH_REQUEST_COMPUTE_ALL"
    FILL_NNZ = "MKL_GRAPH_REQUEST_FILL_NNZ"
    FILL_ENTRIES = "MKL_GRAPH_REQUEST_FILL_ENTRIES"


class Method(enum.Enum):
    AUTO = "MKL_GRAPH_METHOD_AUTO"
    DOT = "MKL_GRAPH_METHOD_DOT"
    GUSTAVSON = "MKL_GRAPH_METHOD_GUSTAVSON"
    HASH = "MKL_GRAPH_METHOD_HASH"


def _enum_of(cls, x):
    if isinstance(x, cls):
        return x
    if isinstance(x, str):
        for m in cls:
            if x.upper() in (m.name, m.value):
                return m
    raise InvalidValue(f"{x!r} is not a {cls.__name__}")


# which (field, modifier) pairs are meaningful, and the attribute each sets
_SETTINGS = {
    (Field.OUTPUT, Modifier.REPLACE): "replace",
    (Field.MASK, Modifier.COMPLEMENT): "mask_complement",
    (Field.MASK, Modifier.ONLY_STRUCTURE): "mask_structure",
    (Field.MASK, Modifier.KEEP_MASK_STRUCTURE): "keep_mask_structure",
    (Field.OUTPUT, Modifier.KEEP_MASK_STRUCTURE): "keep_mask_structure",
    (Field.FIRST_INPUT, Modifier.TRANSPOSE): "transpose_first",
    (Field.SECOND_INPUT, Modifier.TRANSPOSE): "transpose_second",
    (Field.FIRST_INPUT, Modifier.ONLY_STRUCTURE): "structure_first",
    (Field.SECOND_INPUT, Modifier.ONLY_STRUCTURE): "structure_second",
}
_FIELD_ATTRS = {
    Field.OUTPUT: ("replace", "keep_mask_structure"),
    Field.MASK: ("mask_complement", "mask_structure", "keep_mask_structure"),
    Field.FIRST_INPUT: ("transpose_first", "structure_first"),
    Field.SECOND_INPUT: ("transpose_second", "structure_second"),
}


@dataclass
class Descriptor:
    """The descriptor's fields (oneMKL's descriptor; GraphBLAS's GrB_Descriptor)."""
    replace: bool = False
    mask_complement: bool = False
    mask_structure: bool = False
    transpose_first: bool = False
    transpose_second: bool = False
    structure_first: bool = False
    structure_second: bool = False
    keep_mask_structure: bool = False

    def __post_init__(self):
        for name in self.__dataclass_fields__:
            setattr(self, name, as_flag(getattr(self, name), f"Descriptor.{name}"))

    def __setattr__(self, name, value):
        if getattr(self, "_immutable", False):
            raise InvalidValue(f"{self._immutable} is a predefined descriptor and cannot "
                               "change; change a copy (desc.dup())")
        object.__setattr__(self, name, value)

    @property
    def predefined(self):
        """True for the shared, immutable descriptors this module defines."""
        return bool(getattr(self, "_immutable", False))

    def set(self, field, modifier):
        """Set one field (oneMKL's descriptor_set_field); Modifier.NONE clears the field."""
        field, modifier = _enum_of(Field, field), _enum_of(Modifier, modifier)
        if self.predefined:
            raise InvalidValue(f"{self._immutable} is a predefined descriptor and cannot "
                               "change; set the field on a copy (desc.dup())")
        if modifier is Modifier.NONE:
            for attr in _FIELD_ATTRS[field]:
                setattr(self, attr, False)
            return self
        attr = _SETTINGS.get((field, modifier))
        if attr is None:
            raise InvalidValue(f"modifier {modifier.name} does not apply to field {field.name}")
        setattr(self, attr, True)
        return self

    def with_(self, **changes):
        """A (mutable) copy with some fields changed."""
        unknown = sorted(set(changes) - set(self.__dataclass_fields__))
        if unknown:
            raise InvalidValue(f"Descriptor has no field {unknown[0]!r}")
        return _dc_replace(self, **changes)

    def dup(self):
        """A mutable copy (GrB_Descriptor_dup)."""
        return _dc_replace(self)

    def __or__(self, other):
        """Combine descriptors: GrB_REPLACE | GrB_TRAN0 style."""
        if not isinstance(other, Descriptor):
            raise InvalidValue(f"a Descriptor combines only with a Descriptor, got {type(other).__name__}")
        merged = {k: getattr(self, k) or getattr(other, k) for k in self.__dataclass_fields__}
        return Descriptor(**merged)


def as_descriptor(desc):
    if desc is None:
        return _DEFAULT
    if isinstance(desc, Descriptor):
        return desc
    raise InvalidValue(f"desc must be a Descriptor, got {type(desc).__name__}")


def _predefined(name, **fields):
    d = Descriptor(**fields)
    object.__setattr__(d, "_immutable", name)  # its name: the error says which one
    return d


_DEFAULT = _predefined("the default descriptor")
GrB_REPLACE = _predefined("GrB_REPLACE", replace=True)
GrB_COMP = _predefined("GrB_COMP", mask_complement=True)
GrB_STRUCTURE = _predefined("GrB_STRUCTURE", mask_structure=True)
GrB_TRAN = GrB_INP0_TRAN = _predefined("GrB_TRAN", transpose_first=True)
GrB_INP1_TRAN = _predefined("GrB_INP1_TRAN", transpose_second=True)


def resolve_mask(mask, desc):
    """One Mask (or None) from the mask argument and the descriptor's mask fields. No mask
    under a complementing descriptor is ``mask.NOT_NULL`` (it allows no output); no mask
    under mask_structure alone is no mask."""
    mask = as_mask(mask)
    if mask is None:
        return NOT_NULL if desc.mask_complement else None
    if not (desc.mask_structure or desc.mask_complement):
        return mask  # (immutable: the caller's own mask is the resolved one)
    return Mask(mask.parent, mask.structure or desc.mask_structure,
                mask.complement != desc.mask_complement)
