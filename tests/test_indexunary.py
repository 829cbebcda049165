"""semirings.indexunary: the built-in index-unary / select operators (formulas, typing,
names) and user-defined ones."""
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import DomainMismatch, InvalidValue
from grblas_gpu.semirings import indexunary as iu

# name -> f(x, i, j, thunk) written out with Python scalars (the C API's definitions)
SPEC = {
    "rowindex": lambda x, i, j, t: i + t, "colindex": lambda x, i, j, t: j + t,
    "diagindex": lambda x, i, j, t: j - (i + t),
    "tril": lambda x, i, j, t: j <= i + t, "triu": lambda x, i, j, t: j >= i + t,
    "diag": lambda x, i, j, t: j == i + t, "offdiag": lambda x, i, j, t: j != i + t,
    "rowle": lambda x, i, j, t: i <= t, "rowgt": lambda x, i, j, t: i > t,
    "colle": lambda x, i, j, t: j <= t, "colgt": lambda x, i, j, t: j > t,
    "valueeq": lambda x, i, j, t: x == t, "valuene": lambda x, i, j, t: x != t,
    "valuegt": lambda x, i, j, t: x > t, "valuege": lambda x, i, j, t: x >= t,
    "valuelt": lambda x, i, j, t: x < t, "valuele": lambda x, i, j, t: x <= t,
}


@pytest.mark.parametrize("name", sorted(SPEC))
def test_numpy_functions_follow_the_spec(name, rng):
    op = iu.lookup(name)
    x = rng.integers(-3, 4, 50)
    i, j = rng.integers(0, 6, 50), rng.integers(0, 6, 50)
    for t in (-2, 0, 3):
        got = op.numpy(x, i if op.reads_index else None, j if op.reads_index else None, np.int64(t))
        want = [SPEC[name](*args, t) for args in zip(x.tolist(), i.tolist(), j.tolist())]
        assert np.asarray(got).tolist() == want
    assert isinstance(op.c(gg.INT64), str) and "thunk" in op.c(gg.INT64)


def test_typing_rules():
    # positional: thunk (and result of rowindex/colindex/diagindex) INT64, whatever x is
    assert iu.resolve_indexunary("tril", gg.FP32, gg.FP64).type == gg.INT64
    assert iu.rowindex.out(gg.INT64) == gg.INT64 and iu.tril.out(gg.INT64) == gg.BOOL
    # value ops: unify(x, thunk), result BOOL
    typed = iu.resolve_indexunary("valuegt", gg.INT8, gg.FP64)
    assert typed.type == gg.FP64 and typed.out_type == gg.BOOL
    assert iu.resolve_indexunary("valueeq", gg.UINT16, gg.UINT16).type == gg.UINT16
    assert iu.tril.is_select and iu.valueeq.is_select and not iu.rowindex.is_select
    assert iu.tril.positional and not iu.valueeq.positional and not iu.valueeq.reads_index


def test_names_and_aliases():
    assert set(SPEC) <= set(iu.names())
    assert iu.lookup("==") is iu.valueeq and iu.lookup(">=") is iu.valuege
    assert iu.lookup("index") is iu.rowindex and iu.lookup("indexle") is iu.rowle
    assert iu.lookup("TRIL") is iu.tril and iu.lookup(iu.triu) is iu.triu
    with pytest.raises(InvalidValue):
        iu.lookup("no_such_op")
    from grblas_gpu import semirings

    with pytest.raises(DomainMismatch):  # a typed binary op is not an index-unary op
        iu.resolve_indexunary(semirings.binary.plus[gg.INT64], gg.INT64, gg.INT64)


def test_user_defined():
    op = iu.indexunary_op("test_iu_band", c_expr="(abs(j - i) <= thunk)",
                          numpy=lambda x, i, j, t: abs(j - i) <= t, out_type=gg.BOOL,
                          thunk_type=gg.INT64, positional=True, register=False)
    assert op.is_select and iu.resolve_indexunary(op, gg.FP64, gg.FP64).type == gg.INT64
    A = gg.Matrix.from_dense(np.ones((4, 4)))
    assert A.select(op, 1).nvals == 10
    floats_only = iu.indexunary_op("test_iu_floats", c_expr="(x > thunk)",
                                   numpy=lambda x, i, j, t: x > t, types=(gg.FP64,),
                                   out_type=gg.BOOL, reads_index=False, register=False)
    with pytest.raises(DomainMismatch):
        iu.resolve_indexunary(floats_only, gg.INT8, gg.INT8)
    with pytest.raises(InvalidValue):
        iu.indexunary_op("tril", c_expr="1", numpy=lambda x, i, j, t: True)  # taken
    with pytest.raises(InvalidValue):
        iu.indexunary_op("", c_expr="1", numpy=lambda x, i, j, t: True)
    with pytest.raises(InvalidValue):
        iu.indexunary_op("test_iu_bad", c_expr="1", numpy=None)
