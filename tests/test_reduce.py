"""reduce_rowwise / reduce_columnwise / reduce_scalar against python-graphblas
(`w(M, accum, replace) << A.reduce_rowwise(monoid)`, `A.reduce_scalar(monoid,
allow_empty=False)`), hand-checked fixtures and bad input. Float sums may be added in
another order than SuiteSparse's: compared to rtol 1e-5 (FP32) / 1e-12 (FP64) plus an
absolute tolerance for sums that cancel to nearly zero."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import grblas_gpu as gg
from grblas_gpu import DimensionMismatch, DomainMismatch, InvalidValue
from opcheck import TYPES, assert_raises_unchanged, gb_update, output_config, pair, transposed

MONOIDS = ("plus", "times", "min", "max", "lor", "land", "bor")


def _close(ours, ref):
    """Same structure and type; values exact for BOOL/integers, close for floats."""
    if hasattr(ref, "to_coo"):
        r_idx, r_vals = ref.to_coo()
        o_idx, o_vals = ours.to_coo()
        np.testing.assert_array_equal(o_idx, r_idx)
        assert ours.dtype.name == ref.dtype.name and ours.size == ref.size
    else:
        o_vals, r_vals = np.asarray(ours), np.asarray(ref)
    if o_vals.dtype.kind == "f":
        rtol = 1e-5 if o_vals.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(o_vals, r_vals, rtol=rtol, atol=rtol * 100)
    else:
        np.testing.assert_array_equal(o_vals, r_vals)


# ---------------------------------------------------------------------- fixtures
def test_hand_checked():
    A = gg.Matrix.from_coo([0, 0, 2, 2, 1], [1, 3, 0, 2, 0], [1, 5, 4, 3, -2], nrows=4, ncols=4,
                           dtype="INT8")
    assert [a.tolist() for a in A.reduce_rowwise().to_coo()] == [[0, 1, 2], [6, -2, 7]]
    assert [a.tolist() for a in A.reduce_columnwise("max").to_coo()] == [[0, 1, 2, 3], [4, 1, 3, 5]]
    assert A.T.reduce_rowwise("min").to_coo()[1].tolist() == [-2, 1, 3, 5]
    assert A.reduce_rowwise().dtype == gg.INT8  # the monoid's type: no promotion
    # a binary op without a monoid is refused, as SuiteSparse refuses it (GrB_NOT_IMPLEMENTED)
    with pytest.raises(gg.NotSupported, match="GrB_NOT_IMPLEMENTED"):
        A.reduce_rowwise("minus")
    assert A.reduce_scalar() == 11 and A.reduce_scalar().dtype == np.int8
    assert A.reduce_scalar("max") == 5 and A.T.reduce_scalar("min") == -2
    assert A.reduce_scalar(accum="plus", initial=1.5) == 12.5  # accum(initial, s), initial's type
    assert gg.reduce_scalar(A, "times", accum="minus", initial=100) == 100 - 1 * 5 * 4 * 3 * -2


def test_empty_gives_the_identity():
    E = gg.Matrix("INT16", 3, 4)
    assert E.reduce_scalar() == 0 and E.reduce_scalar("min") == np.iinfo(np.int16).max
    assert E.reduce_scalar("times") == 1 and gg.Vector("FP32", 0).reduce_scalar("max") == -np.inf
    assert E.reduce_rowwise().nvals == 0 and E.reduce_rowwise().size == 3
    assert E.reduce_columnwise().size == 4


def test_long_vector_scalar_reduction(rng):
    # many chunks and tree levels; integers exact, order kept for first/second-like monoids
    x = rng.integers(-100, 100, 100_003)
    v = gg.Vector.from_coo(np.arange(len(x)), x)
    assert v.reduce_scalar() == x.sum() and v.reduce_scalar("min") == x.min()
    assert v.reduce_scalar("max") == x.max()
    b = gg.Vector.from_coo(np.arange(len(x)), x > 98)
    assert b.reduce_scalar("lor") == bool((x > 98).any()) and not b.reduce_scalar("land")


# ---------------------------------------------------------------------- cross-checks
def test_long_rows_match_python_graphblas(rng):
    """Rows long enough on average to be folded a warp per row on the GPU (chunks per lane,
    combined in order), one row much longer than the rest, every monoid; first/second
    (not commutative: the fold keeps left-to-right order) as a build's dup_op."""
    import graphblas as gb

    nrows, ncols = 12, 700
    rows = np.repeat(np.arange(nrows), [600, 20, 0, 35, 1, 40, 64, 33, 17, 90, 2, 3])
    cols = np.concatenate([np.sort(rng.choice(ncols, k, replace=False))
                           for k in np.bincount(rows, minlength=nrows)])
    for t in ("INT32", "FP64", "BOOL"):
        vals = rng.integers(-50, 50, len(rows)).astype(gg.lookup_dtype(t).np_type)
        A, GA = (lib.Matrix.from_coo(rows, cols, vals, nrows=nrows, ncols=ncols, dtype=t)
                 for lib in (gg, gb))
        for name in MONOIDS:
            try:
                ref = GA.reduce_rowwise(getattr(gb.monoid, name)).new()
            except (KeyError, TypeError, AttributeError, gb.exceptions.DomainMismatch):
                continue
            _close(A.reduce_rowwise(name), ref)
        # first / second have no monoid: refused here (as SuiteSparse refuses them), they
        # fold the same long runs as a build's dup_op: a row's first and last value
        starts = np.searchsorted(rows, np.arange(nrows))
        ends = np.searchsorted(rows, np.arange(nrows), side="right")
        held = ends > starts
        for name, pos in (("first", starts), ("second", ends - 1)):
            with pytest.raises(gg.NotSupported):
                A.reduce_rowwise(name)
            B = gg.Matrix.from_coo(rows, np.zeros_like(rows), vals, nrows=nrows, ncols=1,
                                   dtype=t, dup_op=name)
            idx, _, got = B.to_coo()
            np.testing.assert_array_equal(idx, np.nonzero(held)[0])
            np.testing.assert_array_equal(got, vals[pos[held]])


def _run_rowwise(rng, columnwise):
    import graphblas as gb

    shape = (int(rng.integers(0, 9)), int(rng.integers(0, 9)))
    ta, name = str(rng.choice(TYPES)), str(rng.choice(MONOIDS))
    A, GA = pair(rng, shape, ta)
    A, flag, GA = transposed(rng, A, GA)
    op = name if rng.random() < 0.5 else getattr(gb.binary, name).name  # a binary op with a monoid
    try:
        gm = getattr(gb.monoid, name)
        expr = GA.reduce_columnwise(gm) if columnwise else GA.reduce_rowwise(gm)
        ref = expr.new()
    except (KeyError, TypeError, AttributeError, gb.exceptions.DomainMismatch):
        return
    if not flag:
        _close(A.reduce_columnwise(op) if columnwise else A.reduce_rowwise(op), ref)
    w, gw, kw, gcfg = output_config(rng, (ref.size,), ctype=ref.dtype.name)
    kw["desc"] = kw["desc"].with_(transpose_first=flag)
    (gg.reduce_columnwise if columnwise else gg.reduce_rowwise)(w, A, op, **kw)
    _close(w, gb_update(gw, gcfg, expr))


@pytest.mark.parametrize("columnwise", [False, True], ids=["rowwise", "columnwise"])
@settings(max_examples=80, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_rowwise_matches_python_graphblas(columnwise, seed):
    _run_rowwise(np.random.default_rng(seed), columnwise)


@pytest.mark.parametrize("vector", [False, True], ids=["matrix", "vector"])
@settings(max_examples=80, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_scalar_matches_python_graphblas(vector, seed):
    import graphblas as gb

    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(0, 60)),) if vector else (int(rng.integers(0, 9)), int(rng.integers(0, 9)))
    ta, name = str(rng.choice(TYPES)), str(rng.choice(MONOIDS))
    A, GA = pair(rng, shape, ta)
    try:
        red = GA.reduce if vector else GA.reduce_scalar  # python-graphblas's Vector.reduce
        ref = red(getattr(gb.monoid, name), allow_empty=False).new()
    except (KeyError, TypeError, gb.exceptions.DomainMismatch):
        return
    s = A.reduce(name) if vector else A.reduce_scalar(name)
    assert isinstance(s, np.generic) and s.dtype == ref.dtype.np_type
    _close(s, ref.value)


def test_aliasing_and_transposes(rng):
    for _ in range(10):
        A, GA = pair(rng, (6, 6), "INT64")
        w, gw = pair(rng, (6,), "INT64")
        gg.reduce_rowwise(w, A, "plus", mask=w.S, accum="times")  # w is also the mask
        gw(mask=gw.S, accum=gg_binary("times")) << GA.reduce_rowwise(gg_monoid("plus"))
        _close(w, gw)
        # transpose_first and an A.T view cancel: rowwise again
        gg.reduce_rowwise(w, A.T, "max", desc=gg.Descriptor(transpose_first=True))
        gw << GA.reduce_rowwise(gg_monoid("max"))
        _close(w, gw)


def gg_binary(name):
    import graphblas as gb

    return getattr(gb.binary, name)


def gg_monoid(name):
    import graphblas as gb

    return getattr(gb.monoid, name)


# ---------------------------------------------------------------------- bad input
def test_bad_input_raises_and_changes_nothing(rng):
    from grblas_gpu import semirings

    A, _ = pair(rng, (4, 5), "INT32", density=0.5)
    w4, _ = pair(rng, (4,), "INT32", density=0.5)
    w5, _ = pair(rng, (5,), "INT32", density=0.5)
    B, _ = pair(rng, (4, 5), "BOOL", density=0.5)
    objs = (A, w4, w5, B)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.reduce_rowwise(w5, A, "plus"), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.reduce_columnwise(w4, A, "plus"), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.reduce_rowwise(w4, A.T, "plus"), *objs)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.reduce_rowwise(w4, A, "plus", mask=w5),
                            *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.reduce_rowwise(A, A, "plus"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.reduce_rowwise(w4, w4, "plus"), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.reduce_rowwise(w4, A, "min_plus"), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.reduce_rowwise(w4, A, semirings.unary.abs),
                            *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.reduce_rowwise(w4, A, "lt"), *objs)
    # plus on BOOL is lor there (SuiteSparse's reduce_BinaryOp takes it as that monoid)
    assert B.reduce_rowwise("plus").isequal(B.reduce_rowwise("lor"))
    # to a scalar: only a monoid (a binary op without one has no identity for no entries)
    assert_raises_unchanged(DomainMismatch, lambda: gg.reduce_scalar(A, "minus"), *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.reduce_scalar(A, semirings.binary.minus),
                            *objs)
    assert_raises_unchanged(DomainMismatch, lambda: gg.reduce_scalar(A, "no_such_op"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.reduce_scalar(A, "plus", accum="plus"), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.reduce_scalar(A, "plus", initial=3), *objs)
    assert_raises_unchanged(InvalidValue, lambda: gg.reduce_scalar(w4.S, "plus"), *objs)


@pytest.mark.parametrize("dense", [False, True])
def test_any_reduces_to_one_of_the_values(dense):
    """ANY's operator returns one operand: a reduction that folded into the identity would
    return the identity (0), which is none of the values."""
    vals = np.arange(1, 3001, dtype=np.int64) * 7
    idx = np.arange(0, 6000, 2)
    u = gg.Vector.from_coo(idx, vals, size=6001)
    if dense:
        u.set_format("dense")
    assert int(gg.reduce_scalar(u, "any")) in set(vals.tolist())
    A = gg.Matrix.from_coo(idx % 50, idx // 50, vals, nrows=50, ncols=200)
    assert int(gg.reduce_scalar(A, "any")) in set(vals.tolist())
    assert gg.reduce_scalar(gg.Vector(gg.INT64, 10), "any") == 0   # no entries: the identity


@pytest.mark.parametrize("form", ["sparse", "dense"])
@pytest.mark.parametrize("dtype, monoid", [("INT64", "plus"), ("FP64", "max"), ("INT32", "min"),
                                           ("BOOL", "lor")])
def test_reduce_into_a_device_scalar(form, dtype, monoid):
    """reduce_scalar(out=s): s(0) = ⊕ u on the device (GrB_reduce into a GrB_Scalar): the
    same value as the host result and SuiteSparse's, no entry for an empty u, accum."""
    gb = pytest.importorskip("graphblas")
    rng = np.random.default_rng(4)
    n = 5000
    idx = np.sort(rng.choice(n, 1200, replace=False))
    npt = gg.lookup_dtype(dtype).np_type
    vals = (rng.integers(0, 2, len(idx)) if npt.kind == "b" else rng.integers(-50, 50, len(idx)))
    u = gg.Vector.from_coo(idx, vals.astype(npt), size=n, dtype=dtype).set_format(form)
    s = gg.Vector(dtype, 1)
    assert gg.reduce_scalar(u, monoid, out=s) is s
    expected = getattr(gb.monoid, monoid)[dtype]
    ref = u.to_graphblas().reduce(expected).new().value
    assert s.nvals == 1 and s[0] == ref == gg.reduce_scalar(u, monoid)
    # accum: s(0) = s(0) ⊕ (⊕ u)
    gg.reduce_scalar(u, monoid, out=s, accum=monoid)
    assert s[0] == gg.reduce_scalar(gg.Vector.from_coo([0, 1], [ref, ref], size=2, dtype=dtype),
                                    monoid)
    empty = gg.Vector(dtype, n).set_format(form)
    s2 = gg.Vector(dtype, 1)
    gg.reduce_scalar(empty, monoid, out=s2)
    assert s2.nvals == 0
    # bad out=: the specific error, and neither u nor out changed
    two = gg.Vector.from_coo([1], [1], size=2, dtype=dtype)
    assert_raises_unchanged(DimensionMismatch, lambda: gg.reduce_scalar(u, monoid, out=two),
                            u, two)
    assert_raises_unchanged(InvalidValue,
                            lambda: gg.reduce_scalar(u, monoid, out=s, initial=1), u, s)
    assert_raises_unchanged(InvalidValue, lambda: gg.reduce_scalar(u, monoid, out=np.zeros(1)),
                            u)


# ---------------------------------------------------------------------- binary operators
NO_MONOID = ("minus", "rminus", "cdiv", "rdiv", "pow", "first", "second", "truediv", "iseq",
             "isne", "ne", "eq", "atan2", "hypot", "bor", "bxor", "pair", "absfirst")


@pytest.mark.parametrize("t", ["BOOL", "INT8", "UINT16", "FP32", "FP64"])
def test_binary_ops_are_refused_where_suitesparse_refuses(t):
    """A binary operator reduces only as its monoid at the type: SuiteSparse's
    GrB_Matrix_reduce_BinaryOp refuses the others (GrB_NOT_IMPLEMENTED: minus, cdiv, pow,
    first; bor on signed types; GrB_DOMAIN_MISMATCH: eq on numbers), and accepts some on
    BOOL as the monoid they are there (plus = lor, minus = ne = lxor, iseq = lxnor).
    python-graphblas reduces to a scalar with monoids only. Both refuse, or both agree; a
    refusal changes nothing."""
    import graphblas as gb

    from grblas_gpu import semirings

    rows, cols = [0, 0, 1, 1, 1, 3], [0, 2, 0, 1, 2, 1]
    vals = np.array([1, 2, 3, 1, 2, 1]).astype(gg.lookup_dtype(t).np_type)
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=4, ncols=3, dtype=t)
    G = gb.Matrix.from_coo(rows, cols, vals, nrows=4, ncols=3, dtype=t)
    u = gg.Vector.from_coo([0, 2, 1], vals[:3], size=3, dtype=t)
    g = u.to_graphblas()
    for name in NO_MONOID + ("plus", "times", "min", "max", "lor", "lxor", "band"):
        w = gg.Vector(t, 4)
        calls = (("reduce_rowwise", lambda op: gg.reduce_rowwise(w, A, op),
                  lambda op: G.reduce_rowwise(op).new()),
                 ("reduce_columnwise", lambda op: A.reduce_columnwise(op),
                  lambda op: G.reduce_columnwise(op).new()),
                 ("reduce_scalar", lambda op: A.reduce_scalar(op),
                  lambda op: G.reduce_scalar(op).new().value),
                 ("vector reduce", lambda op: u.reduce(op), lambda op: g.reduce(op).new().value))
        for what, ours, theirs in calls:
            try:
                ref = theirs(getattr(gb.binary, name))
            except (gb.exceptions.GraphblasException, TypeError, KeyError) as e:
                ref = e
            if isinstance(ref, Exception):
                cls = (gg.NotSupported if isinstance(ref, gb.exceptions.NotImplementedException)
                       else gg.DomainMismatch)
                assert_raises_unchanged(cls, lambda: ours(getattr(semirings.binary, name)),
                                        A, w, u)
                assert_raises_unchanged(cls, lambda: ours(name), A, w, u)
                continue
            got = ours(getattr(semirings.binary, name))
            got = w if got is None else got
            if what.startswith("reduce_") and what != "reduce_scalar":
                # values only: lor on INT8 gives BOOL here, INT8 there (the monoid's type)
                (oi, ov), (ri, rv) = got.to_coo(), ref.to_coo()
                np.testing.assert_array_equal(oi, ri)
                np.testing.assert_allclose(ov.astype(float), rv.astype(float), rtol=1e-6)
            else:
                assert float(got) == pytest.approx(float(ref)), (name, t, what)
