"""kronecker (GrB_kronecker) against python-graphblas (`C(M, accum, replace) <<
A.kronecker(B, op)`), with A.T views, descriptors, iso operands, aliasing and bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import grblas_gpu as gg
from grblas_gpu import DimensionMismatch, DomainMismatch, InvalidValue
from opcheck import (TYPES, assert_matches, assert_raises_unchanged, gb_update, output_config,
                     pair, transposed)

OPS = ("times", "plus", "first", "second", "min", "minus", "lt", "pair")


def test_hand_checked():
    A = gg.Matrix.from_coo([0, 1, 1], [1, 0, 2], [1, 2, 3], nrows=2, ncols=3)
    B = gg.Matrix.from_coo([0, 2, 2], [0, 0, 1], [10, 20, 30], nrows=3, ncols=2)
    K = A.kronecker(B)
    assert K.shape == (6, 6)
    dense = np.kron(A.to_dense(), B.to_dense())
    np.testing.assert_array_equal(K.to_dense(), dense)
    assert K.nvals == A.nvals * B.nvals
    assert [a.tolist() for a in K.to_coo()] == [
        [0, 2, 2, 3, 3, 5, 5, 5, 5], [2, 2, 3, 0, 4, 0, 1, 4, 5],
        [10, 20, 30, 20, 30, 40, 60, 60, 90]]
    assert A.kronecker(B, "plus").to_coo()[2].tolist() == [11, 21, 31, 12, 13, 22, 32, 23, 33]


def test_iso_operands_give_iso():
    A = gg.Matrix.from_coo([0, 1], [1, 0], 2, nrows=2, ncols=2)
    B = gg.Matrix.from_coo([0, 0], [0, 1], 3, nrows=1, ncols=2)
    K = A.kronecker(B)
    assert K._is_iso and K.to_coo()[2].tolist() == [6, 6, 6, 6]
    np.testing.assert_array_equal(K.to_dense(), np.kron(A.to_dense(), B.to_dense()))


def _run(rng):
    import graphblas as gb

    sa = (int(rng.integers(0, 5)), int(rng.integers(0, 5)))
    sb = (int(rng.integers(0, 5)), int(rng.integers(0, 5)))
    ta, tb = (str(t) for t in rng.choice(TYPES, 2))
    op = str(rng.choice(OPS))
    A, GA = pair(rng, sa, ta)
    B, GB = pair(rng, sb, tb)
    A, fa, GA = transposed(rng, A, GA)
    B, fb, GB = transposed(rng, B, GB)
    try:
        expr = GA.kronecker(GB, getattr(gb.binary, op))
        ref = expr.new()
    except (KeyError, TypeError, gb.exceptions.DomainMismatch):
        return
    if not (fa or fb):
        assert_matches(A.kronecker(B, op), ref)
    C, GC, kw, gcfg = output_config(rng, ref.shape, ctype=ref.dtype.name)
    kw["desc"] = kw["desc"].with_(transpose_first=fa, transpose_second=fb)
    gg.kronecker(C, A, B, op, **kw)
    assert_matches(C, gb_update(GC, gcfg, expr))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_matches_python_graphblas(seed):
    _run(np.random.default_rng(seed))


def test_larger_against_numpy(rng):
    A, _ = pair(rng, (30, 20), "FP64", density=0.2)
    B, _ = pair(rng, (7, 11), "INT32", density=0.3)
    K = A.kronecker(B, "times")
    np.testing.assert_allclose(K.to_dense(), np.kron(A.to_dense(), B.to_dense()), rtol=1e-12)
    assert K.nvals == A.nvals * B.nvals


def test_aliasing(rng):
    import graphblas as gb

    for _ in range(5):
        A, GA = pair(rng, (2, 2), "INT64")
        C, GC = pair(rng, (4, 4), "INT64")
        gg.kronecker(C, A, A, "times", mask=C.S, accum="plus")  # A twice, C is the mask
        GC(mask=GC.S, accum=gb.binary.plus) << GA.kronecker(GA, gb.binary.times)
        assert_matches(C, GC)
        S, GS = pair(rng, (1, 1), "INT64", density=1.0)
        gg.kronecker(S, S, S, "plus")  # 1x1: C is both inputs
        GS << GS.kronecker(GS, gb.binary.plus)
        assert_matches(S, GS)


def test_bad_input_raises_and_changes_nothing(rng):
    from grblas_gpu import semirings

    A, _ = pair(rng, (2, 3), "INT32", density=0.5)
    B, _ = pair(rng, (2, 2), "INT32", density=0.5)
    C, _ = pair(rng, (4, 6), "INT32", density=0.5)
    u, _ = pair(rng, (4,), "INT32", density=0.5)
    objs = (A, B, C, u)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.kronecker(C, A.T, B, "times"), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.kronecker(C, B, A, "times", mask=B), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.kronecker(C, A, u, "times"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.kronecker(u, A, B, "times"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.kronecker(C, A, B, "no_such_op"), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.kronecker(C, A, B, semirings.unary.abs), *objs)
    Af = A.dup("FP64")
    assert_raises_unchanged(DomainMismatch, lambda: gg.kronecker(C, Af, B, "band"), Af, *objs)
