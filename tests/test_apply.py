"""apply (unary, bound binary, index-unary) against python-graphblas (`C(M, accum, replace)
<< A.apply(op, right=s)`), hand-checked fixtures, iso results, aliasing and bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import grblas_gpu as gg
from grblas_gpu import DimensionMismatch, DomainMismatch, EmptyObject, InvalidValue
from opcheck import (TYPES, assert_matches, assert_raises_unchanged, gb_update, output_config,
                     pair, transposed)

UNARY = ("abs", "ainv", "identity", "one", "lnot", "bnot", "sqrt")
BINARY = ("plus", "minus", "times", "min", "max", "first", "second", "lt", "ge", "eq", "pair")
INDEX = ("rowindex", "colindex", "diagindex", "tril", "triu", "diag", "offdiag", "rowle",
         "colgt", "valueeq", "valuene", "valuegt", "valuele")


def _gb(kind, name):
    import graphblas as gb

    return getattr(getattr(gb, kind), name)


# ---------------------------------------------------------------------- fixtures
def test_hand_checked():
    A = gg.Matrix.from_coo([0, 1, 2, 2], [1, 0, 0, 2], [1, -2, 4, 3], nrows=3, ncols=4)
    assert A.apply("abs").to_coo()[2].tolist() == [1, 2, 4, 3]
    assert A.apply("minus", right=1.5).to_coo()[2].tolist() == [-0.5, -3.5, 2.5, 1.5]
    assert A.apply("minus", left=1).to_coo()[2].tolist() == [0, 3, -3, -2]
    assert A.apply("rowindex", 1).to_coo()[2].tolist() == [1, 2, 3, 3]  # i + thunk
    assert A.apply("colindex", thunk=-1).to_coo()[2].tolist() == [0, -1, -1, 1]  # j + thunk
    # diagindex is j - (i + thunk), as the C API and SuiteSparse define it
    assert A.apply("diagindex", thunk=2).to_coo()[2].tolist() == [-1, -3, -4, -2]
    assert A.apply("valuegt", 1).to_coo()[2].tolist() == [False, False, True, True]
    v = gg.Vector.from_coo([0, 2, 3], [1, 2, 3], size=5)
    for fmt in ("sparse", "dense"):
        v.set_format(fmt)
        assert v.apply("rowindex", 1).to_coo()[1].tolist() == [1, 3, 4]
        assert v.apply("colindex", 1).to_coo()[1].tolist() == [1, 1, 1]  # a vector's j is 0
        assert v.apply("diagindex", 1).to_coo()[1].tolist() == [-1, -3, -4]
        assert v.apply("times", left=2).to_coo()[1].tolist() == [2, 4, 6]


def test_iso_stays_iso_where_the_result_is():
    A = gg.Matrix.from_coo([0, 1], [1, 0], 3, nrows=2, ncols=2)
    assert A.apply("ainv")._is_iso and A.apply("ainv").to_coo()[2].tolist() == [-3, -3]
    assert A.apply("plus", right=2)._is_iso and A.apply("second", right=7).to_coo()[2].tolist() == [7, 7]
    assert A.apply("valueeq", 3)._is_iso
    B = gg.Matrix.from_coo([0, 1, 1], [1, 0, 1], [2.5, -1.0, 0.0], nrows=2, ncols=2)
    ones = B.apply("one")   # ignores the values: iso whatever they are
    assert ones._is_iso and ones.dtype == gg.FP64 and ones.to_coo()[2].tolist() == [1, 1, 1]
    rows = A.apply("rowindex")  # depends on the position: not iso
    assert not rows._is_iso and rows.to_coo()[2].tolist() == [0, 1]


def test_user_defined_index_unary_op():
    import grblas_gpu.semirings.indexunary as iu

    op = iu.indexunary_op("test_apply_ij_plus_x", c_expr="(x + i * 10 + j + thunk)",
                          numpy=lambda x, i, j, t: x + i * 10 + j + t, register=False)
    A = gg.Matrix.from_coo([0, 1, 2], [2, 0, 1], [1, 2, 3], nrows=3, ncols=3)
    assert A.apply(op, thunk=100).to_coo()[2].tolist() == [103, 112, 124]


# ---------------------------------------------------------------------- cross-checks
def _case(rng, shape, what):
    """(our (op, kwargs), python-graphblas's expression builder, A's type)."""
    import graphblas as gb

    ta = str(rng.choice(TYPES))
    if what == "unary":
        name = str(rng.choice(UNARY))
        return name, {}, lambda G: G.apply(_gb("unary", name)), ta
    if what == "binary":
        name = str(rng.choice(BINARY))
        s = [int(rng.integers(-3, 4)), float(rng.integers(-6, 7)) / 2, bool(rng.integers(2)),
             np.int8(rng.integers(-3, 4))][rng.integers(4)]
        if rng.random() < 0.5:
            return name, {"left": s}, lambda G: G.apply(_gb("binary", name), left=s), ta
        return name, {"right": s}, lambda G: G.apply(_gb("binary", name), right=s), ta
    name = str(rng.choice(INDEX))
    t = int(rng.integers(-3, 4))
    kw = {"thunk": t} if rng.random() < 0.5 else {"right": t}
    return name, kw, lambda G: G.apply(getattr(gb.indexunary, name), t), ta


def _run(rng, what, vector):
    import graphblas as gb

    shape = (int(rng.integers(0, 30)),) if vector else (int(rng.integers(0, 8)), int(rng.integers(0, 8)))
    name, kw, build, ta = _case(rng, shape, what)
    A, GA = pair(rng, shape, ta)
    flag = False
    if not vector:
        A, flag, GA = transposed(rng, A, GA)
        shape = GA.shape
    try:
        expr = build(GA)
        ref = expr.new()
    except (KeyError, TypeError, gb.exceptions.DomainMismatch):
        return  # python-graphblas has no such typed op
    T = A.apply(name, **kw) if not flag else None
    if T is not None:
        if name in ("rowindex", "colindex", "diagindex"):
            assert T.dtype == gg.INT64  # the C API's _INT64 positional ops
            T = T.dup(ref.dtype.name)
        assert_matches(T, ref)
    C, GC, okw, gcfg = output_config(rng, shape, ctype=ref.dtype.name)
    okw["desc"] = okw["desc"].with_(transpose_first=flag)
    gg.apply(C, A, name, **kw, **okw)
    assert_matches(C, gb_update(GC, gcfg, expr))


@pytest.mark.parametrize("what", ["unary", "binary", "index"])
@pytest.mark.parametrize("vector", [False, True], ids=["matrix", "vector"])
@settings(max_examples=100, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_matches_python_graphblas(what, vector, seed):
    _run(np.random.default_rng(seed), what, vector)


def test_aliasing(rng):
    for _ in range(10):
        A, GA = pair(rng, (5, 6), "INT64")
        gg.apply(A, A, "ainv", mask=A.V, accum="plus")  # C, input and mask all A
        GA(mask=GA.V, accum=_gb("binary", "plus")) << GA.apply(_gb("unary", "ainv"))
        assert_matches(A, GA)
        S, GS = pair(rng, (6, 6), "FP64")
        gg.apply(S, S.T, "times", left=2.0)  # C is the parent of the transposed input
        GS << GS.T.apply(_gb("binary", "times"), left=2.0)
        assert_matches(S, GS)


def test_bound_scalar_given_as_a_one_entry_vector(rng):
    """left=/right= a Vector of size 1 (a GrB_Scalar): against python-graphblas with a
    gb.Scalar bound, for sparse and dense operands and scalars, including a scalar computed on
    the device by reduce_scalar(out=)."""
    import graphblas as gb

    for trial in range(40):
        vector = trial % 2 == 0
        shape = (int(rng.integers(1, 40)),) if vector else (int(rng.integers(1, 7)), 5)
        A, GA = pair(rng, shape, str(rng.choice(["INT32", "FP32", "FP64", "INT64"])))
        if vector:
            A.set_format(str(rng.choice(["sparse", "dense"])))
        name = str(rng.choice(["plus", "minus", "times", "max", "first", "second"]))
        value = [int(rng.integers(-3, 4)), float(rng.integers(-6, 7)) / 2][trial % 4 // 2]
        st = "INT64" if isinstance(value, int) else "FP64"
        s = gg.Vector.from_coo([0], [value], size=1, dtype=st)
        if trial % 3 == 0:   # the same value, computed on the device
            parts = gg.Vector.from_coo([0, 2], [value, 0], size=3, dtype=st)
            s = gg.reduce_scalar(parts, "plus", out=gg.Vector(st, 1))
        if trial % 3 == 1:
            s.set_format("dense")
        side = "left" if rng.random() < 0.5 else "right"
        GS = gb.Scalar.from_value(value, dtype=st)
        ref = GA.apply(_gb("binary", name), **{side: GS}).new()
        assert_matches(A.apply(name, **{side: s}), ref)
        assert_matches(A.apply(name, **{side: value}), ref)
        C, GC, okw, gcfg = output_config(rng, shape, ctype=ref.dtype.name)
        gg.apply(C, A, name, **{side: s}, **okw)
        assert_matches(C, gb_update(GC, gcfg, GA.apply(_gb("binary", name), **{side: GS})))
        assert s.nvals == 1 and s[0] == value   # the scalar is left as it was


# ---------------------------------------------------------------------- bad input
def test_bad_input_raises_and_changes_nothing(rng):
    from grblas_gpu import semirings

    A, _ = pair(rng, (4, 5), "INT32", density=0.5)
    C, _ = pair(rng, (4, 5), "FP64", density=0.5)
    C54, _ = pair(rng, (5, 4), "FP64", density=0.5)
    u, _ = pair(rng, (4,), "INT32", density=0.5)
    objs = (A, C, C54, u)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.apply(C54, A, "abs"), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.apply(C, A.T, "abs"), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.apply(C, A, "abs", mask=C54), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.apply(C, A, "plus", left=1, right=2), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.apply(C, A, "abs", thunk=1), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.apply(C, A, "tril", left=1), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.apply(C, A, "tril", thunk=1, right=1), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.apply(C, A, "plus", right=[1, 2]), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.apply(C, u, "abs"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.apply(u, A, "abs"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.apply(C, A, "no_such_op"), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.apply(C, A, semirings.binary.plus), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.apply(C, A, "min_plus", right=1), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.apply(C, A, "plus", right="x"), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.apply(C, A.dup("FP64"), "bnot"), *objs)
    # a Vector bound as the scalar must have size 1 and an entry (GrB_EMPTY_OBJECT)
    two, empty = gg.Vector.from_coo([0, 1], [1, 2], size=2), gg.Vector("INT32", 1)
    objs += (two, empty)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.apply(C, A, "plus", right=two), *objs)
    assert_raises_unchanged(EmptyObject, lambda: gg.apply(C, A, "plus", left=empty), *objs)
    assert_raises_unchanged(EmptyObject, lambda: gg.apply(u, u, "times", right=empty), *objs)
