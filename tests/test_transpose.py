"""transpose (GrB_transpose) and the lazy ``A.T`` view, against python-graphblas
(`C(M, accum, replace) << A.T`), with descriptor cancellation, aliasing and bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import grblas_gpu as gg
from grblas_gpu import DimensionMismatch, InvalidValue
from grblas_gpu.operations._common import unwrap_transpose
from grblas_gpu.transposed import TransposedMatrix
from opcheck import TYPES, assert_matches, assert_raises_unchanged, gb_update, output_config, pair

TRAN = gg.Descriptor(transpose_first=True)


def test_view_is_lazy_and_cancels():
    A = gg.Matrix.from_coo([0, 1, 2], [1, 0, 3], [1, 2, 3], nrows=3, ncols=4)
    At = A.T
    assert isinstance(At, TransposedMatrix) and At.parent is A
    assert not A.has_csc  # nothing computed yet
    assert At.T is A and At.shape == (4, 3) and At.nrows == 4 and At.dtype == A.dtype
    assert At.nvals == 3
    assert unwrap_transpose(At) == (A, True) and unwrap_transpose(A) == (A, False)
    B = At.new()
    assert isinstance(B, gg.Matrix) and [a.tolist() for a in B.to_coo()] == [[0, 1, 3], [1, 0, 2], [2, 1, 3]]
    assert At.new(dtype="FP32").dtype == gg.FP32
    np.testing.assert_array_equal(At.to_dense(), A.to_dense().T)
    assert At.isequal(B)
    with pytest.raises(InvalidValue):
        bool(At)


def test_hand_checked_descriptor_cancels():
    A = gg.Matrix.from_coo([0, 1, 2], [1, 0, 3], [1, 2, 3], nrows=3, ncols=4)
    C = gg.Matrix("INT64", 4, 3)
    gg.transpose(C, A)
    assert C.isequal(A.T.new())
    C = gg.Matrix("INT64", 3, 4)
    gg.transpose(C, A, desc=TRAN)  # the transposes cancel: C = A
    assert C.isequal(A)
    gg.transpose(C, A.T)  # the view and GrB_transpose cancel too
    assert C.isequal(A)
    D = gg.Matrix("INT64", 4, 3)
    gg.transpose(D, A.T, desc=TRAN)  # three transposes
    assert D.isequal(A.T.new())


def _run(rng):
    shape = (int(rng.integers(0, 9)), int(rng.integers(0, 9)))
    A, GA = pair(rng, shape, str(rng.choice(TYPES)))
    view, flag = bool(rng.random() < 0.3), bool(rng.random() < 0.3)
    flips = 1 + view + flag
    expr = GA.T if flips % 2 else GA
    out_shape = expr.shape
    C, GC, kw, gcfg = output_config(rng, out_shape)
    kw["desc"] = kw["desc"].with_(transpose_first=flag)
    gg.transpose(C, A.T if view else A, **kw)
    assert_matches(C, gb_update(GC, gcfg, expr))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_matches_python_graphblas(seed):
    _run(np.random.default_rng(seed))


def test_aliasing_in_place_transpose(rng):
    for _ in range(10):
        A, GA = pair(rng, (6, 6), "FP64")
        gg.transpose(A, A)  # in place
        GA << GA.T
        assert_matches(A, GA)
        gg.transpose(A, A, mask=A.S, accum="plus")  # C, input and mask
        GA(mask=GA.S, accum=plus()) << GA.T
        assert_matches(A, GA)


def plus():
    import graphblas as gb

    return gb.binary.plus


def test_bad_input_raises_and_changes_nothing(rng):
    A, _ = pair(rng, (3, 5), "INT32", density=0.5)
    C35, _ = pair(rng, (3, 5), "INT32", density=0.5)
    C53, _ = pair(rng, (5, 3), "INT32", density=0.5)
    u, _ = pair(rng, (3,), "INT32", density=0.5)
    objs = (A, C35, C53, u)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.transpose(C35, A), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.transpose(C53, A, desc=TRAN), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.transpose(C53, A.T), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.transpose(C53, A, mask=C35), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.transpose(u, A), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.transpose(C53, u), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.transpose(C53, A, desc=1), *objs)
