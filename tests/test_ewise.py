"""ewise_add / ewise_mult / ewise_union against python-graphblas (`C(M, accum, replace) <<
A.ewise_add(B, op)`), plus hand-checked fixtures, aliasing, dense vectors and bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import grblas_gpu as gg
from grblas_gpu import operators
from grblas_gpu import DimensionMismatch, DomainMismatch, InvalidValue
from opcheck import (TYPES, assert_matches, assert_raises_unchanged, gb_update, output_config,
                     pair, transposed)

OPS = ("plus", "times", "min", "max", "first", "second", "minus", "eq", "lt", "ge", "pair")


def _gb_op(name):
    import graphblas as gb

    return getattr(gb.binary, name)


# ---------------------------------------------------------------------- fixtures
def test_hand_checked_matrix():
    A = gg.Matrix.from_coo([0, 1, 2], [1, 0, 2], [1.5, -2.5, 300.0], nrows=3, ncols=3)
    B = gg.Matrix.from_coo([0, 1], [1, 1], [3, 4], nrows=3, ncols=3, dtype="INT8")
    add = A.ewise_add(B, "minus")
    assert add.dtype == gg.FP64
    assert [a.tolist() for a in add.to_coo()] == [[0, 1, 1, 2], [1, 0, 1, 2], [-1.5, -2.5, 4.0, 300.0]]
    mult = A.ewise_mult(B)  # times
    assert [a.tolist() for a in mult.to_coo()] == [[0], [1], [4.5]]
    union = A.ewise_union(B, "minus", 10, 20)
    assert union.to_coo()[2].tolist() == [-1.5, -22.5, 6.0, 280.0]
    # one side only passes through cast to the op's output type (SuiteSparse's typecast)
    i8 = A.ewise_add(B, operators.binary("plus", gg.INT8, gg.INT8))
    assert i8.dtype == gg.INT8 and i8.to_coo()[2].tolist() == [4, -2, 4, 127]
    lt = A.ewise_add(B, "lt")
    assert lt.dtype == gg.BOOL and lt.to_coo()[2].tolist() == [True, True, True, True]


def test_hand_checked_vector_sparse_and_dense():
    for fmt in ("sparse", "dense"):
        u = gg.Vector.from_coo([0, 3], [1, 2], size=5).set_format(fmt)
        w = gg.Vector.from_coo([3, 4], [5, 6], size=5).set_format(fmt)
        assert [a.tolist() for a in u.ewise_add(w).to_coo()] == [[0, 3, 4], [1, 7, 6]]
        assert [a.tolist() for a in u.ewise_mult(w).to_coo()] == [[3], [10]]
        assert u.ewise_union(w, "minus", 100, 200).to_coo()[1].tolist() == [-199, -3, 94]


def test_monoid_and_semiring_ops():
    from grblas_gpu import semirings

    rng = np.random.default_rng(4)
    A, _ = pair(rng, (6, 5), "INT64", density=0.5)
    B, _ = pair(rng, (6, 5), "INT64", density=0.5)
    # a monoid means its operator; a semiring its ⊕ for add, its ⊗ for mult
    assert A.ewise_add(B, semirings.monoid.min).isequal(A.ewise_add(B, "min"))
    assert A.ewise_add(B, "min_plus").isequal(A.ewise_add(B, "min"))
    assert A.ewise_mult(B, "min_plus").isequal(A.ewise_mult(B, "plus"))
    assert A.ewise_mult(B, semirings.min_plus).isequal(A.ewise_mult(B, "plus"))


def test_iso_operands_keep_iso_where_the_result_is():
    A = gg.Matrix.from_coo([0, 1, 2], [0, 1, 2], 3, nrows=3, ncols=3)
    B = gg.Matrix.from_coo([1, 2], [1, 0], 4, nrows=3, ncols=3)
    T = A.ewise_mult(B, "plus")
    assert T._is_iso and [a.tolist() for a in T.to_coo()] == [[1], [1], [7]]
    assert A.ewise_add(B).to_coo()[2].tolist() == [3, 7, 4, 3]


# ---------------------------------------------------------------------- cross-checks
def _operands(rng, vector):
    if vector:
        shape = (int(rng.integers(0, 30)),)
    else:
        shape = (int(rng.integers(0, 8)), int(rng.integers(0, 8)))
    ta, tb = (str(t) for t in rng.choice(TYPES, 2))
    return shape, ta, tb


def _run(rng, mode, vector):
    import graphblas as gb

    shape, ta, tb = _operands(rng, vector)
    op = str(rng.choice(OPS))
    A, GA = pair(rng, shape, ta)
    B, GB = pair(rng, shape, tb)
    fa = fb = False
    if not vector:  # A.T views and descriptor transposes (square shapes keep it simple)
        shape = (shape[0], shape[0])
        A, GA = pair(rng, shape, ta)
        B, GB = pair(rng, shape, tb)
        A, fa, GA = transposed(rng, A, GA)
        B, fb, GB = transposed(rng, B, GB)
    try:
        if mode == "union":
            alpha, beta = (int(x) if rng.random() < 0.7 else float(x) / 2
                           for x in rng.integers(-3, 4, 2))
            expr = GA.ewise_union(GB, _gb_op(op), alpha, beta)
        else:
            expr = getattr(GA, f"ewise_{mode}")(GB, _gb_op(op))
        ref = expr.new()
    except (KeyError, TypeError, gb.exceptions.DomainMismatch):
        return  # python-graphblas has no such typed op: nothing to compare
    C, GC, kw, gcfg = output_config(rng, shape, ctype=ref.dtype.name)
    kw["desc"] = kw["desc"].with_(transpose_first=fa, transpose_second=fb)
    if mode == "union":
        gg.ewise_union(C, A, alpha, B, beta, op, **kw)
    else:
        getattr(gg, f"ewise_{mode}")(C, A, B, op, **kw)
    assert_matches(C, gb_update(GC, gcfg, expr))
    # the method form gives the plain result, typed by the op's output type
    if mode == "union":
        T = A.ewise_union(B, op, alpha, beta) if not (fa or fb) else None
    else:
        T = getattr(A, f"ewise_{mode}")(B, op) if not (fa or fb) else None
    if T is not None:
        assert_matches(T, ref)


@pytest.mark.parametrize("mode", ["add", "mult", "union"])
@pytest.mark.parametrize("vector", [False, True], ids=["matrix", "vector"])
@settings(max_examples=100, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_matches_python_graphblas(mode, vector, seed):
    _run(np.random.default_rng(seed), mode, vector)


@pytest.mark.parametrize("mode", ["add", "mult", "union"])
def test_rectangular_matrices(mode, rng):
    for _ in range(20):
        A, GA = pair(rng, (3, 7), "FP64")
        B, GB = pair(rng, (3, 7), "INT32")
        if mode == "union":
            T, ref = A.ewise_union(B, "minus", 2, -1), GA.ewise_union(GB, _gb_op("minus"), 2, -1)
        else:
            T, ref = getattr(A, f"ewise_{mode}")(B, "minus"), getattr(GA, f"ewise_{mode}")(GB, _gb_op("minus"))
        assert_matches(T, ref.new())
        Tt = getattr(A.T, f"ewise_{mode}")(B.T, "max") if mode != "union" else A.T.ewise_union(B.T, "max", 0, 0)
        reft = (getattr(GA.T, f"ewise_{mode}")(GB.T, _gb_op("max")) if mode != "union"
                else GA.T.ewise_union(GB.T, _gb_op("max"), 0, 0))
        assert_matches(Tt, reft.new())


# ---------------------------------------------------------------------- aliasing
@pytest.mark.parametrize("vector", [False, True], ids=["matrix", "vector"])
def test_output_aliases_an_input_or_the_mask(vector, rng):
    shape = (20,) if vector else (5, 6)
    for _ in range(10):
        A, GA = pair(rng, shape, "INT64")
        B, GB = pair(rng, shape, "INT64")
        gg.ewise_add(A, A, B, "plus", mask=A.S)  # C is A and the mask is A
        GA(mask=GA.S) << GA.ewise_add(GB, _gb_op("plus"))
        assert_matches(A, GA)
        gg.ewise_mult(B, A, B, "minus", accum="plus")  # C is B
        GB(accum=_gb_op("plus")) << GA.ewise_mult(GB, _gb_op("minus"))
        assert_matches(B, GB)
        gg.ewise_union(A, A, 1, A, 2, "times")  # every operand is C
        GA << GA.ewise_union(GA, _gb_op("times"), 1, 2)
        assert_matches(A, GA)


def test_dense_and_sparse_vectors_agree(rng):
    for _ in range(20):
        u, _ = pair(rng, (50,), "FP32", dense=False)
        w, _ = pair(rng, (50,), "INT32", dense=False)
        ud, wd = u.dup().set_format("dense"), w.dup().set_format("dense")
        for method, args in (("ewise_add", ("max",)), ("ewise_mult", ("div",)),
                             ("ewise_union", ("minus", 1.5, -2))):
            sparse = getattr(u, method)(w, *args)
            dense = getattr(ud, method)(wd, *args)
            assert sparse.isequal(dense)


def test_sparse_times_full_vector_matches_suitesparse(rng):
    """A sparse vector times a full one takes the full one's values at the sparse indices."""
    import graphblas as gb

    for _ in range(12):
        ta, tb = (str(t) for t in rng.choice(TYPES, 2))
        s, gs = pair(rng, (60,), ta, density=0.2, dense=False)
        f, gf = pair(rng, (60,), tb, density=1.0, dense=True)
        for op in ("minus", "first", "second", "truediv", "max"):
            if "BOOL" in (ta, tb) and op in ("minus", "truediv"):
                continue
            for x, y, gx, gy in ((s, f, gs, gf), (f, s, gf, gs)):
                ours = x.ewise_mult(y, op)
                assert ours.format == "sparse"
                assert_matches(ours, gx.ewise_mult(gy, _gb_op(op)).new())


# ---------------------------------------------------------------------- bad input
def test_bad_input_raises_and_changes_nothing(rng):
    A, _ = pair(rng, (4, 5), "INT32", density=0.5)
    B, _ = pair(rng, (4, 5), "FP64", density=0.5)
    B6, _ = pair(rng, (4, 6), "FP64", density=0.5)
    C, _ = pair(rng, (4, 5), "FP64", density=0.5)
    M, _ = pair(rng, (5, 4), "BOOL", density=0.5)
    u, _ = pair(rng, (5,), "INT32", density=0.5)
    objs = (A, B, B6, C, M, u)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.ewise_add(C, A, B6, "plus"), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.ewise_mult(C, A.T, B, "plus"), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.ewise_mult(C, A, B, "plus", mask=M), *objs)
    C45 = gg.Matrix("FP64", 5, 4)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.ewise_add(C45, A, B, "plus"), C45, *objs)
    from grblas_gpu import semirings

    assert_raises_unchanged(DomainMismatch, lambda: gg.ewise_add(C, A, B, semirings.unary.abs), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.ewise_union(C, A, 1, B, 2, "min_plus"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.ewise_add(C, A, B, "no_such_op"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.ewise_add(C, A, u, "plus"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.ewise_add(u, u, A, "plus"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.ewise_union(C, A, [1, 2], B, 0, "plus"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.ewise_union(C, A, None, B, 0, "plus"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.ewise_add(C, A, B, "plus", desc="replace"), *objs)
    Cb = gg.Matrix("BOOL", 4, 5)
    Ab = A.dup("BOOL")
    assert_raises_unchanged(DomainMismatch, lambda: gg.ewise_add(Cb, Ab, Ab, "band"), Cb, Ab)


@pytest.mark.parametrize("dtype", ["INT16", "UINT32", "INT64"])
def test_integer_pow_is_exact(dtype):
    """Integer pow is pow in double, then the saturating cast: exact powers must not lose an
    ulp to the device's pow and truncate to one less (2^21 -> 2097151)."""
    base = np.array([2, 3, 2, 5, 0], dtype=np.int64)
    expo = np.array([21 if dtype != "INT16" else 14, 9, 0, 3, 4], dtype=np.int64)
    A = gg.Vector.from_coo(np.arange(5), base, size=5, dtype=dtype)
    B = gg.Vector.from_coo(np.arange(5), expo, size=5, dtype=dtype)
    for fmt in ("sparse", "dense"):
        A.set_format(fmt)
        B.set_format(fmt)
        _, z = gg.ewise_mult(gg.Vector(dtype, 5), A, B, "pow").to_coo()
        assert z.tolist() == [int(b) ** int(e) for b, e in zip(base, expo)], fmt
