"""Descriptors: the predefined ones are shared constants and cannot change; user-made ones
are mutable (oneMKL's descriptor_set_field), and dup() gives a mutable copy of any."""
import pytest

import grblas_gpu as gg
from grblas_gpu import descriptor, onemkl
from grblas_gpu.descriptor import Descriptor, Field, Modifier

PREDEFINED = {"GrB_TRAN": gg.GrB_TRAN, "GrB_COMP": gg.GrB_COMP, "GrB_REPLACE": gg.GrB_REPLACE,
              "GrB_STRUCTURE": gg.GrB_STRUCTURE, "GrB_INP1_TRAN": descriptor.GrB_INP1_TRAN,
              "default": descriptor.as_descriptor(None)}
FIELDS = [(Field.MASK, Modifier.COMPLEMENT), (Field.OUTPUT, Modifier.REPLACE),
          (Field.FIRST_INPUT, Modifier.TRANSPOSE), (Field.FIRST_INPUT, Modifier.NONE),
          (Field.MASK, Modifier.ONLY_STRUCTURE)]


def _fields(d):
    return {k: getattr(d, k) for k in d.__dataclass_fields__}


@pytest.mark.parametrize("name", sorted(PREDEFINED))
def test_predefined_descriptors_cannot_change(name):
    d = PREDEFINED[name]
    before = _fields(d)
    assert d.predefined
    for field, mod in FIELDS:
        with pytest.raises(gg.InvalidValue):
            d.set(field, mod)
    with pytest.raises(gg.InvalidValue):
        d.mask_complement = not d.mask_complement
    with pytest.raises(gg.InvalidValue):  # oneMKL's entry point reports it the same way
        onemkl.descriptor_set_field(d, Field.MASK, Modifier.COMPLEMENT)
    assert _fields(d) == before


def test_a_predefined_descriptor_still_means_what_it_says():
    # the bug this guards: GrB_TRAN.set(MASK, COMPLEMENT) once changed GrB_TRAN for everyone
    with pytest.raises(gg.InvalidValue):
        gg.GrB_TRAN.set(Field.MASK, Modifier.COMPLEMENT)
    A = gg.Matrix.from_coo([0], [1], [5.0], nrows=2, ncols=2)
    C = gg.Matrix(float, 2, 2)
    gg.transpose(C, A, desc=gg.GrB_TRAN)  # (Aᵀ)ᵀ = A, no mask complemented
    assert C.to_coo()[0].tolist() == [0] and C.to_coo()[1].tolist() == [1]


def test_dup_and_user_descriptors_are_mutable():
    d = gg.GrB_TRAN.dup()
    assert not d.predefined and d == gg.GrB_TRAN
    d.set(Field.MASK, Modifier.COMPLEMENT)
    assert d.mask_complement and d.transpose_first and not gg.GrB_TRAN.mask_complement
    u = Descriptor()
    u.set("OUTPUT", "REPLACE")
    u.replace = False
    assert not u.replace
    assert not gg.GrB_TRAN.with_(replace=True).predefined
    assert not (gg.GrB_TRAN | gg.GrB_COMP).predefined
    assert onemkl.descriptor_set_field(onemkl.descriptor_create(), Field.MASK,
                                       Modifier.COMPLEMENT) == onemkl.MKL_GRAPH_STATUS_SUCCESS
