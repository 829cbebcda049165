"""select against python-graphblas (`C(M, accum, replace) << A.select(op, thunk)`), the
Vector conventions (i = index, j = 0), tril/triu helpers, user-defined ops and bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import DimensionMismatch, DomainMismatch, InvalidValue
from opcheck import (TYPES, assert_matches, assert_raises_unchanged, gb_update, output_config,
                     pair, transposed)

OPS = ("tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt", "valueeq",
       "valuene", "valuegt", "valuege", "valuelt", "valuele", "rowindex")


# ---------------------------------------------------------------------- fixtures
def test_hand_checked_matrix():
    A = gg.Matrix.from_coo([0, 0, 1, 2, 2], [1, 3, 0, 0, 2], [1, 5, -2, 4, 3], nrows=3, ncols=4)
    assert [a.tolist() for a in A.tril().to_coo()] == [[1, 2, 2], [0, 0, 2], [-2, 4, 3]]
    assert [a.tolist() for a in A.triu(1).to_coo()] == [[0, 0], [1, 3], [1, 5]]
    assert A.select("diag", 0).to_coo()[2].tolist() == [3]
    assert A.select("offdiag").nvals == 4
    assert A.select("valuegt", 1).to_coo()[2].tolist() == [5, 4, 3]
    assert A.select(">=", 3.5).to_coo()[2].tolist() == [5, 4]  # thunk 3.5: compared at FP64
    assert A.select("valueeq", 3.5).nvals == 0
    assert A.select("colle", 0).to_coo()[2].tolist() == [-2, 4]
    assert [a.tolist() for a in A.T.tril().to_coo()] == [[1, 2, 3], [0, 2, 0], [1, 3, 5]]


def test_value_ops_compare_at_the_unified_type():
    # the C API casts A's values and the thunk to the operator's type: unify(A, thunk)
    v = gg.Vector.from_coo([0, 1, 2, 3], [1, 2, 3, 4], dtype="INT64")
    assert v.select("valuelt", 2.0).to_coo()[1].tolist() == [1]
    assert v.select("valueeq", 2.5).nvals == 0
    u = v.dup("UINT16")
    assert u.select("valuelt", -2).nvals == 0 and u.select("valuegt", -2).nvals == 4
    # positional ops cast the thunk to INT64 (truncating), as SuiteSparse does
    A = gg.Matrix.from_dense(np.arange(16).reshape(4, 4))
    assert A.select("tril", 1.5).nvals == 13 and A.select("tril", -1.5).nvals == 6


def test_vector_uses_index_as_i_and_zero_as_j():
    v = gg.Vector.from_coo([0, 2, 3], [1, 2, 3], size=5)
    expected = {("tril", 0): [0, 2, 3], ("triu", 0): [0], ("diag", -2): [2], ("offdiag", 0): [2, 3],
                ("rowle", 2): [0, 2], ("rowgt", 2): [3], ("colle", 0): [0, 2, 3],
                ("colgt", 0): [], ("tril", -2): [2, 3], ("triu", -2): [0, 2]}
    for fmt in ("sparse", "dense"):
        v.set_format(fmt)
        for (op, k), idx in expected.items():
            assert v.select(op, k).to_coo()[0].tolist() == idx, (fmt, op, k)


def test_iso_value_select_keeps_all_or_nothing():
    A = gg.Matrix.from_coo([0, 1, 2], [1, 0, 2], 3, nrows=3, ncols=3)
    assert A.select("valueeq", 3).isequal(A) and A.select("valueeq", 3)._is_iso
    assert A.select("valuelt", 3).nvals == 0
    assert A.select("tril")._is_iso and A.select("tril").nvals == 2


def test_valueeq_keeps_one_value_as_iso():
    """valueeq in A's own type keeps entries all equal to the thunk: an iso result (as
    SuiteSparse's); floats (-0.0 == 0.0) and a compare after a cast keep their values."""
    A = gg.Matrix.from_coo([0, 0, 1, 2, 2], [1, 3, 0, 0, 2], [7, 5, 7, -2, 7], nrows=3, ncols=4)
    for B, value in ((A, 7), (A.dup("UINT8"), np.uint8(7)), (A.dup("BOOL"), True)):
        C = B.select("valueeq", value)
        rows, cols, vals = B.to_coo()
        kept = vals == value
        assert C._is_iso and C.isequal(gg.Matrix.from_coo(
            rows[kept], cols[kept], vals[kept], nrows=3, ncols=4, dtype=B.dtype))
    v = gg.Vector.from_coo([0, 1, 2, 3], [0.0, -0.0, 1.0, -0.0], size=5)
    zeros = v.select("valueeq", 0.0)
    assert zeros.to_coo()[0].tolist() == [0, 1, 3] and zeros._sparse()[1] is not None
    assert np.signbit(zeros.to_coo()[1]).tolist() == [False, True, True]
    # compared after a cast to INT64: 1.25 and 1.75 are both kept, with their own values
    truncated_eq = semirings.indexunary.indexunary_op(
        "test_truncated_eq", c_expr="((long long)x == thunk)",
        numpy=lambda x, i, j, t: x.astype(np.int64) == t, out_type=gg.BOOL,
        thunk_type=gg.INT64, reads_index=False, register=False)
    w = gg.Vector.from_coo([0, 1, 2], [1.25, 1.75, 3.0], size=3, dtype="FP64")
    ones = w.select(truncated_eq, 1)
    assert ones.to_coo()[1].tolist() == [1.25, 1.75] and ones._sparse()[1] is not None


def test_user_defined_select_op():
    import grblas_gpu.semirings.indexunary as iu

    even_sum = iu.indexunary_op("test_select_even_ij", c_expr="(((i + j + thunk) % 2) == 0)",
                                numpy=lambda x, i, j, t: (i + j + t) % 2 == 0,
                                out_type=gg.BOOL, register=False)
    A = gg.Matrix.from_dense(np.arange(9).reshape(3, 3))
    assert A.select(even_sum, 0).to_coo()[2].tolist() == [0, 2, 4, 6, 8]
    assert A.select(even_sum, 1).to_coo()[2].tolist() == [1, 3, 5, 7]


# ---------------------------------------------------------------------- cross-checks
def _run(rng, vector):
    import graphblas as gb

    shape = (int(rng.integers(0, 30)),) if vector else (int(rng.integers(0, 8)), int(rng.integers(0, 8)))
    ta = str(rng.choice(TYPES))
    op = str(rng.choice(OPS))
    thunk = [int(rng.integers(-4, 5)), float(rng.integers(-8, 9)) / 2][rng.integers(2)]
    if op.startswith("value"):
        # SuiteSparse (9.4, through python-graphblas) reads a value op's thunk of another
        # type by its bits (INT64 A, valuelt 2.0 keeps 1..4); a thunk of A's type is exact
        thunk = gg.types.cast_scalar(thunk, ta)
    A, GA = pair(rng, shape, ta)
    flag = False
    if not vector:
        A, flag, GA = transposed(rng, A, GA)
        shape = GA.shape
    gop = getattr(gb.indexunary, op)
    try:
        expr = GA.select(gop, thunk)
        ref = expr.new()
    except (KeyError, TypeError, gb.exceptions.DomainMismatch):
        return
    if not flag:
        assert_matches(A.select(op, thunk), ref)
    C, GC, kw, gcfg = output_config(rng, shape, ctype=ta)
    kw["desc"] = kw["desc"].with_(transpose_first=flag)
    gg.select(C, A, op, thunk, **kw)
    assert_matches(C, gb_update(GC, gcfg, expr))


@pytest.mark.parametrize("vector", [False, True], ids=["matrix", "vector"])
@settings(max_examples=120, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_matches_python_graphblas(vector, seed):
    _run(np.random.default_rng(seed), vector)


def test_aliasing(rng):
    for _ in range(10):
        A, GA = pair(rng, (6, 6), "FP32")
        gg.select(A, A, "valuegt", 0.5, mask=~A.S, accum="plus")
        GA(mask=~GA.S, accum=gg_plus()) << GA.select("valuegt", 0.5)
        assert_matches(A, GA)
        gg.select(A, A.T, "triu", 1, mask=A.V)
        GA(mask=GA.V) << GA.T.select("triu", 1)
        assert_matches(A, GA)


def gg_plus():
    import graphblas as gb

    return gb.binary.plus


# ---------------------------------------------------------------------- bad input
def test_bad_input_raises_and_changes_nothing(rng):
    from grblas_gpu import semirings

    A, _ = pair(rng, (4, 5), "INT32", density=0.5)
    C, _ = pair(rng, (4, 5), "INT32", density=0.5)
    C54, _ = pair(rng, (5, 4), "INT32", density=0.5)
    u, _ = pair(rng, (5,), "INT32", density=0.5)
    objs = (A, C, C54, u)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.select(C54, A, "tril"), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.select(C, A, "tril", mask=u), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.select(C, A, "no_such_select"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.select(C, A, "tril", [1, 2]), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.select(u, A, "tril"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.select(C, u, "tril"), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.select(C, A, semirings.binary.plus), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.select(C, A, "valueeq", "x"), *objs)
    C64 = C.dup("FP64")  # band is not defined on FP64: the accumulator is refused
    assert_raises_unchanged(DomainMismatch, lambda: gg.select(C64, A, "tril", 1, accum="band"),
                            C64, *objs)
