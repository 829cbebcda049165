"""mxv / vxm against python-graphblas (SuiteSparse): w⟨m, replace⟩ = accum(w, A' ⊕.⊗ u).

Random configurations (hypothesis, derandomised) over the semiring families, the types BOOL,
INT32, INT64, FP32, FP64, masks, accumulators, replace, transpose, structure-only inputs,
sparse and dense u, push and pull; then fixed cases: empty operands, long (power-law) rows,
aliasing, iso inputs, int64 indices, operator names, requests, and bad input (the specific
error, nothing changed). ANY results are compared on structure, and on values only where
min and max over the candidates agree.
"""
import importlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import grblas_gpu as gg
from conftest import random_coo, snapshot

gb = pytest.importorskip("graphblas")
MXV = importlib.import_module("grblas_gpu.operations.mxv")  # the module (gg.operations.mxv is the function)

TYPES = ("BOOL", "INT32", "INT64", "FP32", "FP64")
# one or two semirings of each family (monoid x multiply kind)
SEMIRINGS = ("plus_times", "plus_first", "plus_second", "plus_pair", "plus_min", "plus_minus",
             "plus_truediv", "min_plus", "min_times", "min_first", "min_second", "min_max",
             "max_min", "max_plus", "max_times", "max_first", "times_plus", "times_times",
             "any_pair", "any_first", "any_second", "any_times", "lor_land", "lor_first",
             "land_lor", "lxor_land", "eq_eq", "lor_eq", "lor_gt", "min_iseq", "max_isgt",
             "bor_band", "bxor_bor", "plus_lor", "max_land", "min_cdiv", "plus_floordiv")
MASKS = ("none", "V", "S", "~V", "~S")
ACCUMS = (None, "plus", "min", "times", "second")
EXAMPLES = 120 if gg.backend.is_gpu else 200  # the GPU compiles a kernel per new configuration


# ---------------------------------------------------------------- helpers
def integral_coo(rng, nrows, ncols, density, dtype):
    """random_coo with small integer values also for floats, so sums are exact."""
    rows, cols, vals = random_coo(rng, nrows, ncols, density, dtype)
    if vals.dtype.kind == "f":
        # + 0: rounding makes -0.0, which SuiteSparse's value masks read as true (by bytes)
        # and the spec, and grblas_gpu, as false
        vals = (np.round(vals) + 0.0).astype(vals.dtype)
    return rows, cols, vals


def make_matrix(rng, m, n, density, dtype, iso=False):
    rows, cols, vals = integral_coo(rng, m, n, density, dtype)
    A = gg.Matrix.from_coo(rows, cols, vals if not iso else vals[:1].sum() + 1 if len(vals) else 1,
                           nrows=m, ncols=n, dtype=dtype)
    return A, A.to_graphblas()


def make_vector(rng, n, density, dtype, dense=False):
    rows, _, vals = integral_coo(rng, n, 1, density, dtype)
    v = gg.Vector.from_coo(rows, vals, size=n, dtype=dtype)
    if dense:
        v.set_format("dense")
    return v, v.to_graphblas()


def gb_masks(M, G):
    return {"none": (None, None), "V": (M.V, G.V), "S": (M.S, G.S), "~V": (~M.V, ~G.V),
            "~S": (~M.S, ~G.S)}


def ones_like(G):
    """G's structure with every value 1 (ONLY_STRUCTURE)."""
    return G.apply(gb.unary.one).new()


def assert_same(ours, ref, any_bounds=None):
    """Structure exactly; values exactly (BOOL, integers) or to 1e-5 relative (floats).
    any_bounds: (lo, hi) python-graphblas vectors for an ANY result: values are checked only
    where lo == hi (a unique candidate)."""
    r_idx, r_vals = ref.to_coo()
    o_idx, o_vals = ours.to_coo()
    assert ours.size == ref.size
    assert ours.dtype.name == ref.dtype.name, (ours.dtype, ref.dtype)
    np.testing.assert_array_equal(o_idx, r_idx)
    if any_bounds is not None:
        lo, hi = (b.to_coo()[1] for b in any_bounds)
        if len(lo) != len(o_vals) or len(hi) != len(o_vals):
            return
        keep = lo == hi
        o_vals, r_vals = o_vals[keep], lo[keep]
    if o_vals.dtype.kind == "f":
        np.testing.assert_allclose(o_vals, r_vals, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(o_vals, r_vals)


def reference(op, G, gu, gw, sr, gmask, gacc, replace, transpose):
    """python-graphblas's result, or None where it refuses the combination."""
    Gp = G.T if transpose else G
    gw = gw.dup()
    try:
        expr = Gp.mxv(gu, sr) if op == "mxv" else gu.vxm(Gp, sr)
        gw(mask=gmask, accum=gacc, replace=replace) << expr
    except (gb.exceptions.DomainMismatch, KeyError, TypeError, AttributeError, ValueError):
        return None
    return gw


def any_candidates(name, op, G, gu, gw, gmask, gacc, replace, transpose):
    """(result with min_<mult>, result with max_<mult>) at the same types, or None."""
    mult = name.split("_", 1)[1]
    out = []
    for mon in ("min", "max"):
        sr = getattr(gb.semiring, f"{mon}_{mult}", None)
        r = None if sr is None else reference(op, G, gu, gw, sr, gmask, gacc, replace, transpose)
        if r is None:
            return None
        out.append(r)
    return out


def run_case(rng, op, name, dtype, m, n, dens_a, dens_u, mask_kind, accum, replace, transpose,
             s_first, s_second, direction, u_dense, utype=None):
    A, G = make_matrix(rng, m, n, dens_a, dtype)
    k = m if transpose else n          # u's size
    out = (n if transpose else m) if op == "mxv" else (m if transpose else n)
    if op == "vxm":
        k = n if transpose else m
    u, gu = make_vector(rng, k, dens_u, utype or dtype, dense=u_dense)
    w, gw = make_vector(rng, out, 0.5, rng.choice(TYPES))
    M, GM = make_vector(rng, out, 0.5, rng.choice(TYPES))
    if rng.random() < 0.5:
        M.set_format("dense")
    mask, gmask = gb_masks(M, GM)[mask_kind]
    if mask_kind == "none":
        replace = False  # python-graphblas refuses replace without a mask
    gacc = getattr(gb.binary, accum) if accum else None
    # structure-only inputs: first = A in mxv, u in vxm
    GA = ones_like(G) if (s_first if op == "mxv" else s_second) else G
    Gu = ones_like(gu) if (s_second if op == "mxv" else s_first) else gu
    sr = getattr(gb.semiring, name)
    ref = reference(op, GA, Gu, gw, sr, gmask, gacc, replace, transpose)
    desc = gg.Descriptor(replace=replace, structure_first=s_first, structure_second=s_second)
    if op == "mxv":
        desc.transpose_first = transpose
        call = lambda: gg.mxv(w, A, u, name, mask=mask, accum=accum, desc=desc, direction=direction)  # noqa: E731
    else:
        desc.transpose_second = transpose
        call = lambda: gg.vxm(w, u, A, name, mask=mask, accum=accum, desc=desc, direction=direction)  # noqa: E731
    if ref is None:  # python-graphblas has no such semiring at these types: neither do we
        before = snapshot(w)
        with pytest.raises(gg.DomainMismatch):
            call()
        assert snapshot(w) == before
        return
    call()
    if direction is not None:
        assert MXV.last_choice.direction == direction
    bounds = None
    if name.startswith("any_"):
        bounds = any_candidates(name, op, GA, Gu, gw, gmask, gacc, replace, transpose)
        if bounds is None:  # no min/max twin: the structure alone
            np.testing.assert_array_equal(w.to_coo()[0], ref.to_coo()[0])
            return
    assert_same(w, ref, bounds)


# ---------------------------------------------------------------- property tests
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(op=st.sampled_from(("mxv", "vxm")), name=st.sampled_from(SEMIRINGS),
       dtype=st.sampled_from(TYPES), m=st.integers(0, 12), n=st.integers(0, 12),
       dens_a=st.sampled_from((0.0, 0.2, 0.5, 1.0)), dens_u=st.sampled_from((0.0, 0.3, 0.7, 1.0)),
       mask_kind=st.sampled_from(MASKS), accum=st.sampled_from(ACCUMS), replace=st.booleans(),
       transpose=st.booleans(), s_first=st.booleans(), s_second=st.booleans(),
       direction=st.sampled_from((None, "push", "pull")), u_dense=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_matches_suitesparse(op, name, dtype, m, n, dens_a, dens_u, mask_kind, accum, replace,
                             transpose, s_first, s_second, direction, u_dense, seed):
    rng = np.random.default_rng(seed)
    run_case(rng, op, name, dtype, m, n, dens_a, dens_u, mask_kind, accum, replace, transpose,
             s_first, s_second, direction, u_dense)


@pytest.mark.parametrize("ta, tu", [("INT32", "FP64"), ("BOOL", "INT64"), ("FP32", "INT32"),
                                    ("INT64", "BOOL")])
@pytest.mark.parametrize("direction", ["push", "pull"])
def test_mixed_operand_types(ta, tu, direction):
    rng = np.random.default_rng(7)
    for op, name in (("mxv", "plus_times"), ("vxm", "min_plus"), ("mxv", "max_first")):
        run_case(rng, op, name, ta, 9, 11, 0.4, 0.6, "~S", None, False, False, False, False,
                 direction, False, utype=tu)


# power-law rows: one hub row far past LONG_CHUNK, rows past the short-row limit, many short
# and empty rows: exercises every pull kernel (lane groups, warp items, split rows)
@pytest.mark.parametrize("name, dtype", [("plus_times", "FP64"), ("min_plus", "INT32"),
                                         ("max_min", "FP32"), ("any_pair", "BOOL"),
                                         ("lor_land", "BOOL"), ("times_plus", "INT64"),
                                         ("min_plus", "FP32"), ("max_times", "INT32")])
@pytest.mark.parametrize("mask_kind", ["none", "V", "~S"])
def test_long_rows(name, dtype, mask_kind):
    rng = np.random.default_rng(11)
    m, n = 700, 9000
    lens = np.minimum((rng.pareto(1.2, m) * 6).astype(np.int64), n)
    lens[:3] = (n, 5000, 300)
    lens[3:50] = 0
    rows = np.repeat(np.arange(m), lens)
    cols = np.concatenate([np.sort(rng.choice(n, k, replace=False)) for k in lens])
    npt = gg.lookup_dtype(dtype).np_type
    vals = (rng.integers(0, 2, len(rows)) if npt.kind == "b" else rng.integers(-3, 4, len(rows))).astype(npt)
    if name == "times_plus":
        vals = np.ones(len(rows), npt)  # keep products of thousands of terms finite
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=m, ncols=n, dtype=dtype)
    G = A.to_graphblas()
    uv = (rng.integers(0, 2, n) if npt.kind == "b" else rng.integers(-3, 4, n)).astype(npt)
    keep = rng.random(n) < 0.9
    u = gg.Vector.from_coo(np.nonzero(keep)[0], uv[keep], size=n, dtype=dtype)
    u.set_format("dense")
    gu = u.to_graphblas()
    M, GM = make_vector(rng, m, 0.5, "INT32")
    mask, gmask = gb_masks(M, GM)[mask_kind]
    for direction in ("pull", "push"):  # push: ~8100 frontier entries, 8 scan blocks
        w = gg.Vector(gg.lookup_dtype(dtype) if name != "any_pair" else gg.INT64, m)
        gw = gb.Vector(w.dtype.name, m)
        sr = getattr(gb.semiring, name)
        gw(mask=gmask) << G.mxv(gu, sr)
        gg.mxv(w, A, u, name, mask=mask, direction=direction)
        if name.startswith("any"):
            np.testing.assert_array_equal(w.to_coo()[0], gw.to_coo()[0])
            assert (w.to_coo()[1] == 1).all()
        else:
            assert_same(w, gw)
        # vxm through Aᵀ reads the CSC: the same numbers
        w2 = gg.Vector(w.dtype, m)
        gg.vxm(w2, u, A, name, mask=mask, direction=direction,
               desc=gg.Descriptor(transpose_second=True))
        if not name.startswith("any") and name.split("_")[1] in ("times", "plus", "land", "min"):
            assert w2.isequal(w, tolerance=1e-12)


# the GPU's unmasked pull reads rows in blocks of a stretch of entries (and of a bounded
# number of rows), rows past the stretch as warp items: rows at and around each limit,
# long runs of empty rows, a full u and a bitmap u
@pytest.mark.parametrize("name, dtype", [("plus_times", "FP64"), ("min_plus", "INT64"),
                                         ("max_first", "FP32"), ("plus_pair", "INT32")])
@pytest.mark.parametrize("u_fraction", [1.0, 0.7])
def test_pull_block_edges(name, dtype, u_fraction):
    rng = np.random.default_rng(5)
    n = 5000
    lens = np.concatenate([np.zeros(5000, np.int64), [1023, 1024, 1025, 2047, 2048, 2049, 4097],
                           rng.integers(0, 40, 3000), np.zeros(5000, np.int64), [n, 1]])
    m = len(lens)
    rows = np.repeat(np.arange(m), lens)
    cols = np.concatenate([np.sort(rng.choice(n, k, replace=False)) for k in lens])
    npt = gg.lookup_dtype(dtype).np_type
    A = gg.Matrix.from_coo(rows, cols, rng.integers(-3, 4, len(rows)).astype(npt),
                           nrows=m, ncols=n, dtype=dtype)
    keep = rng.random(n) < u_fraction
    u = gg.Vector.from_coo(np.nonzero(keep)[0], rng.integers(-3, 4, n).astype(npt)[keep],
                           size=n, dtype=dtype)
    u.set_format("dense")
    sr = getattr(gb.semiring, name)[dtype]
    G, gu = A.to_graphblas(), u.to_graphblas()
    for _ in range(2):  # the second round reuses the cached plan
        w = gg.Vector(dtype, m)
        gg.mxv(w, A, u, name, direction="pull")
        assert_same(w, G.mxv(gu, sr).new())
        w = gg.Vector(dtype, m)
        gg.vxm(w, u, A.T, name, direction="pull")  # A's cached CSC read by columns
        assert_same(w, gu.vxm(G.T, sr).new())


# ---------------------------------------------------------------- fixed cases
@pytest.mark.parametrize("direction", ["push", "pull", None])
@pytest.mark.parametrize("shape", [(0, 0), (0, 5), (5, 0), (4, 6)])
def test_empty_operands(direction, shape):
    m, n = shape
    A = gg.Matrix(gg.FP64, m, n)
    u = gg.Vector.from_coo(np.arange(n), np.ones(n), size=n)
    w = gg.mxv(gg.Vector(gg.FP64, m), A, u, "min_plus", direction=direction)
    assert w.nvals == 0 and w.size == m
    w = gg.vxm(gg.Vector(gg.FP64, n), gg.Vector(gg.FP64, m), A, "plus_times", direction=direction)
    assert w.nvals == 0 and w.size == n


@pytest.mark.parametrize("direction", ["push", "pull"])
def test_fully_masked_output_keeps_w(direction, rng):
    A, _ = make_matrix(rng, 8, 8, 0.5, "INT64")
    u, _ = make_vector(rng, 8, 0.8, "INT64")
    w, _ = make_vector(rng, 8, 0.5, "INT64")
    before = snapshot(w)
    everything = gg.Vector.from_coo(np.arange(8), True, size=8)
    gg.mxv(w, A, u, "plus_times", mask=~everything.S, direction=direction)
    assert snapshot(w) == before
    gg.mxv(w, A, u, "plus_times", mask=~everything.S, direction=direction,
           desc=gg.Descriptor(replace=True))
    assert w.nvals == 0


@pytest.mark.parametrize("direction", ["push", "pull"])
@pytest.mark.parametrize("alias", ["w_is_u", "w_is_mask", "u_is_mask"])
def test_aliasing(direction, alias, rng):
    A, G = make_matrix(rng, 10, 10, 0.4, "INT32")
    u, gu = make_vector(rng, 10, 0.6, "INT32")
    if alias == "w_is_u":
        w, gw, mask, gmask = u, gu.dup(), None, None
    elif alias == "w_is_mask":
        w, gw = make_vector(rng, 10, 0.5, "INT32")
        mask, gmask = w.S, gw.S
    else:
        w, gw = make_vector(rng, 10, 0.5, "INT32")
        mask, gmask = ~u.V, ~gu.V
    gw(mask=gmask, accum=gb.binary.plus) << G.mxv(gu.dup(), gb.semiring.min_plus)
    gg.mxv(w, A, u, "min_plus", mask=mask, accum="plus", direction=direction)
    assert_same(w, gw)


@pytest.mark.parametrize("direction", ["push", "pull"])
def test_iso_inputs_and_int64_indices(direction, rng):
    rows, cols, _ = integral_coo(rng, 20, 15, 0.3, "FP64")
    A = gg.Matrix.from_coo(rows, cols, 2.5, nrows=20, ncols=15)       # iso A
    A64 = A._as_index_dtype(np.int64)
    assert A64.index_dtype == np.int64
    u = gg.Vector.from_coo(np.arange(0, 15, 2), 3.0, size=15)          # iso u
    G, gu = A.to_graphblas(), u.to_graphblas()
    for B in (A, A64):
        for name in ("plus_times", "min_plus", "max_second", "any_pair"):
            w = B.mxv(u, name, direction=direction)
            ref = G.mxv(gu, getattr(gb.semiring, name)).new()
            assert_same(w, ref, (ref, ref) if name.startswith("any") else None)
            w = u.vxm(B.T, name, direction=direction)
            ref = gu.vxm(G.T, getattr(gb.semiring, name)).new()
            assert_same(w, ref, (ref, ref) if name.startswith("any") else None)


def test_operator_names_and_operators(rng):
    A, G = make_matrix(rng, 6, 7, 0.5, "INT32")
    u, gu = make_vector(rng, 7, 0.7, "INT32")
    ref = G.mxv(gu, gb.semiring.min_plus).new()
    from grblas_gpu import semirings

    for sr in ("min_plus", "NVGRAPH_MIN_PLUS_SR", "MKL_GRAPH_SEMIRING_MIN_PLUS_INT32",
               semirings.min_plus, semirings.min_plus[gg.INT32]):
        assert_same(A.mxv(u, sr), ref)
    w, gw = make_vector(rng, 6, 0.5, "INT32")
    gw(accum=gb.binary.plus) << G.mxv(gu, gb.semiring.plus_times)
    gg.mxv(w, A, u, "MKL_GRAPH_SEMIRING_PLUS_TIMES_INT32", accum="MKL_GRAPH_ACCUMULATOR_PLUS")
    assert_same(w, gw)


def test_matmul_operators(rng):
    A, G = make_matrix(rng, 6, 7, 0.5, "FP64")
    u, gu = make_vector(rng, 7, 0.7, "FP64")
    v, gv = make_vector(rng, 6, 0.7, "FP64")
    assert_same(A @ u, (G @ gu).new())
    assert_same(v @ A, (gv @ G).new())
    assert_same(A.T @ v, (G.T @ gv).new())


def test_direction_choice_and_trace(rng):
    A, _ = make_matrix(rng, 200, 200, 0.05, "FP64")
    seen = []
    MXV.trace = lambda what, choice: seen.append((what, choice.direction))
    try:
        sparse_u, _ = make_vector(rng, 200, 0.01, "FP64")
        dense_u, _ = make_vector(rng, 200, 0.9, "FP64", dense=True)
        A.mxv(sparse_u)
        dense_u.vxm(A)
        visited = gg.Vector.from_coo(np.arange(199), True, size=200)
        A.mxv(dense_u, mask=~visited.S)  # one allowed output: pull would read one row
    finally:
        MXV.trace = None
    assert seen == [("mxv", "push"), ("vxm", "pull"), ("mxv", "push")] or seen[:2] == [
        ("mxv", "push"), ("vxm", "pull")]
    assert MXV.choose_direction(10, 1000, 1.0).direction == "push"
    assert MXV.choose_direction(500, 1000, 1.0).direction == "pull"
    assert MXV.choose_direction(50, 1000, 0.01).direction == "pull"


# ---------------------------------------------------------------- multi-stage requests
@pytest.mark.parametrize("buffers", ["sparse", "dense"])
@pytest.mark.parametrize("op", ["mxv", "vxm"])
def test_fill_nnz_then_fill_entries_equals_compute_all(buffers, op, rng):
    A, _ = make_matrix(rng, 12, 12, 0.3, "FP32")
    u, _ = make_vector(rng, 12, 0.5, "FP32")
    w0, _ = make_vector(rng, 12, 0.4, "FP32")
    M, _ = make_vector(rng, 12, 0.6, "BOOL")
    fn = gg.mxv if op == "mxv" else gg.vxm
    args = (A, u) if op == "mxv" else (u, A)
    kw = dict(mask=M.V, accum="plus")
    expected = fn(w0.dup(), *args, "plus_times", **kw)
    w = w0.dup()
    before = snapshot(w)
    fn(w, *args, "plus_times", request=gg.Request.FILL_NNZ, **kw)
    assert w.nvals == expected.nvals
    assert snapshot(w)[2:] == before[2:]  # content unchanged until FILL_ENTRIES
    xp = gg.backend.xp
    if buffers == "sparse":
        ind = xp.empty(w.nvals, dtype=np.int64)
        val = xp.empty(w.nvals, dtype=np.float32)
        w.set_sparse(ind, val)
    else:
        val = xp.empty(12, dtype=np.float32)
        w.set_dense(val)
    fn(w, *args, "plus_times", request="MKL_GRAPH_REQUEST_FILL_ENTRIES", **kw)
    assert w.isequal(expected)
    if buffers == "sparse":
        np.testing.assert_array_equal(gg.backend.to_host(ind), expected.to_coo()[0])
        np.testing.assert_array_equal(gg.backend.to_host(val), expected.to_coo()[1])
        assert w.get_sparse()[0] is ind and w.get_sparse()[1] is val
    else:
        np.testing.assert_array_equal(gg.backend.to_host(val), expected.to_dense(0))


def test_request_misuse_raises_and_changes_nothing(rng):
    xp = gg.backend.xp
    A, _ = make_matrix(rng, 10, 10, 0.3, "INT64")
    u, _ = make_vector(rng, 10, 0.5, "INT64")
    w, _ = make_vector(rng, 10, 0.5, "INT64")
    FE, FN = gg.Request.FILL_ENTRIES, gg.Request.FILL_NNZ
    before = snapshot(w)
    with pytest.raises(gg.InvalidValue):  # no FILL_NNZ before
        gg.mxv(w, A, u, "plus_times", request=FE)
    assert snapshot(w) == before
    gg.mxv(w, A, u, "plus_times", request=FN)
    n = w.nvals
    with pytest.raises(gg.InvalidValue):  # no buffers attached
        gg.mxv(w, A, u, "plus_times", request=FE)
    with pytest.raises(gg.InvalidValue):  # wrong size
        w.set_sparse(xp.empty(n + 1, dtype=np.int64), xp.empty(n + 1, dtype=np.int64))
    with pytest.raises(gg.InvalidValue):  # wrong dtype
        w.set_sparse(xp.empty(n, dtype=np.int64), xp.empty(n, dtype=np.float64))
    with pytest.raises(gg.InvalidValue):  # wrong dense size
        w.set_dense(xp.empty(3, dtype=np.int64))
    ind, val = xp.full(n, -7, dtype=np.int64), xp.full(n, -7, dtype=np.int64)
    w.set_sparse(ind, val)
    with pytest.raises(gg.InvalidValue):  # other arguments
        gg.mxv(w, A, u, "min_plus", request=FE)
    u2 = u.dup()
    u2[0] = 99
    with pytest.raises(gg.InvalidValue):  # other operand
        gg.mxv(w, A, u2, "plus_times", request=FE)
    u[1] = 42                            # the operand itself changed in between
    with pytest.raises(gg.InvalidValue):
        gg.mxv(w, A, u, "plus_times", request=FE)
    assert snapshot(w)[2:] == before[2:]
    assert (gg.backend.to_host(ind) == -7).all() and (gg.backend.to_host(val) == -7).all()


def test_set_and_get_buffers_adopt_content():
    xp = gg.backend.xp
    v = gg.Vector(gg.FP64, 6)
    idx, vals = xp.asarray([1, 4], dtype=np.int32), xp.asarray([2.0, 3.0])
    v.set_sparse(idx, vals)
    assert v.nvals == 2 and v[4] == 3.0
    assert v.get_sparse()[0] is idx  # shared, not copied
    with pytest.raises(gg.DimensionMismatch):
        v.set_sparse(xp.asarray([4, 1]), xp.asarray([1.0, 1.0, 1.0]))
    with pytest.raises(gg.InvalidValue):  # a duplicate index
        v.set_sparse(xp.asarray([4, 4]), xp.asarray([1.0, 1.0]))
    assert v.nvals == 2 and v.get_sparse()[0] is idx
    d = xp.arange(6, dtype=np.float64)
    v.set_dense(d)
    assert v.nvals == 6 and v[5] == 5.0
    np.testing.assert_array_equal(gg.backend.to_host(v.get_dense()), np.arange(6))


# ---------------------------------------------------------------- bad input
def _bad_calls(A, u, w, M):
    yield gg.InvalidValue, lambda: gg.mxv(w, A, "u", "plus_times")
    yield gg.InvalidValue, lambda: gg.mxv(A, A, u, "plus_times")
    yield gg.InvalidValue, lambda: gg.vxm(w, u, u, "plus_times")
    yield gg.DimensionMismatch, lambda: gg.mxv(w, A, gg.Vector(gg.FP64, 3), "plus_times")
    yield gg.DimensionMismatch, lambda: gg.mxv(gg.Vector(gg.FP64, 4), A, u, "plus_times")
    yield gg.DimensionMismatch, lambda: gg.vxm(w, u, A, "plus_times")  # u has A's ncols
    yield gg.DimensionMismatch, lambda: gg.mxv(w, A, u, "plus_times", mask=gg.Vector(gg.BOOL, 3))
    yield gg.InvalidValue, lambda: gg.mxv(w, A, u, "no_such_semiring")
    yield gg.InvalidValue, lambda: gg.mxv(w, A, u, "plus")  # a monoid, not a semiring
    yield gg.InvalidValue, lambda: gg.mxv(w, A, u, "plus_times", direction="sideways")
    yield gg.InvalidValue, lambda: gg.mxv(w, A, u, "plus_times", desc="replace")
    yield gg.InvalidValue, lambda: gg.mxv(w, A, u, "plus_times", request="FILL_EVERYTHING")
    yield gg.InvalidValue, lambda: gg.mxv(w, A, u, "plus_times", mask="mask")
    yield gg.DomainMismatch, lambda: gg.mxv(w, A, u, "bor_band")  # no FP64 bitwise semiring


def test_bad_input_raises_and_changes_nothing(rng):
    A, _ = make_matrix(rng, 8, 9, 0.4, "FP64")
    u, _ = make_vector(rng, 9, 0.5, "FP64")
    w, _ = make_vector(rng, 8, 0.5, "FP64")
    M, _ = make_vector(rng, 8, 0.5, "BOOL")
    snaps = [snapshot(x) for x in (A, u, w, M)]
    for err, call in _bad_calls(A, u, w, M):
        with pytest.raises(err):
            call()
        assert [snapshot(x) for x in (A, u, w, M)] == snaps


@pytest.mark.parametrize("name", ["min_plus", "max_plus", "min_times", "max_min", "min_second",
                                  "max_first"])
@pytest.mark.parametrize("dtype", ["FP32", "FP64"])
@pytest.mark.parametrize("mask_kind", ["none", "~S"])
def test_push_float_min_max_and_column_layouts(name, dtype, mask_kind):
    """Push over columns laid out to reach each of the GPU gather's paths: a hub column spread
    over many blocks, long runs of empty columns (a block's stretch of entries spanning more
    columns than it stages: the searching path), single-entry and random columns. Values
    include NaN, signed zeros and infinities: float min and max fold by integer atomics on
    their bits, which must skip NaN terms (fmin/fmax) and leave NaN where every term is NaN,
    as SuiteSparse does."""
    rng = np.random.default_rng(17)
    m = 5000
    lens = np.concatenate([[4500], np.zeros(1500, np.int64), np.ones(1500, np.int64),
                           rng.integers(0, 30, 400), np.zeros(2000, np.int64),
                           rng.integers(0, 3, 600)])
    n = len(lens)
    cols = np.repeat(np.arange(n), lens)
    rows = np.concatenate([np.sort(rng.choice(m, k, replace=False)) for k in lens])
    npt = np.dtype(gg.lookup_dtype(dtype).np_type)
    special = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, -2.5, 3.0], npt)
    vals = np.where(rng.random(len(rows)) < 0.3, rng.choice(special, len(rows)),
                    rng.uniform(-4, 4, len(rows))).astype(npt)
    vals[rows == 7] = np.nan  # under plus and times, an output whose every term is NaN
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=m, ncols=n, dtype=dtype)
    keep = rng.random(n) < 0.8
    uv = np.where(rng.random(n) < 0.2, rng.choice(special, n), rng.uniform(-4, 4, n))
    u = gg.Vector.from_coo(np.nonzero(keep)[0], uv[keep].astype(npt), size=n, dtype=dtype)
    M, GM = make_vector(rng, m, 0.3, "INT32")
    mask, gmask = gb_masks(M, GM)[mask_kind]
    w = gg.Vector(dtype, m)
    gg.mxv(w, A, u, name, mask=mask, direction="push")
    gw = gb.Vector(dtype, m)
    gw(mask=gmask) << A.to_graphblas().mxv(u.to_graphblas(), getattr(gb.semiring, name))
    o_idx, o_vals = w.to_coo()
    r_idx, r_vals = gw.to_coo()
    np.testing.assert_array_equal(o_idx, r_idx)
    np.testing.assert_array_equal(np.isnan(o_vals), np.isnan(r_vals))
    np.testing.assert_allclose(o_vals, r_vals, rtol=1e-6, equal_nan=True)
    if name.split("_")[1] in ("plus", "times"):  # NaN-propagating ⊗: row 7's terms all NaN
        assert np.isnan(o_vals[o_idx == 7]).all()


def test_long_rows_both_orientations_of_one_matrix():
    """A matrix read by rows (mxv) and by columns (vxm) in turn: each orientation has its own
    long-row plan (a row of 3000 entries in one, a column of 3000 in the other). Guards the
    GPU pull kernel's long-row path and its cached plan."""
    import scipy.sparse as sp

    n = 3000
    rng = np.random.default_rng(7)
    rows = np.concatenate([np.zeros(n, np.int64), rng.integers(1, n, 4000)])
    cols = np.concatenate([np.arange(n), rng.integers(0, n, 4000)])
    S = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n)).tocsr()
    S.sum_duplicates()
    S.data = rng.uniform(0.5, 1.5, S.nnz)
    A = gg.Matrix.from_scipy(S)
    x = rng.uniform(-1, 1, n)
    u = gg.Vector.from_dense(x)
    for _ in range(2):  # twice: the second round reuses the cached plans
        y = A.mxv(u, "plus_times").to_dense()
        z = u.vxm(A, "plus_times").to_dense()
        np.testing.assert_allclose(y, S @ x, rtol=1e-10)
        np.testing.assert_allclose(z, S.T @ x, rtol=1e-10)


def test_reduce_then_broadcast_through_a_ones_column():
    """PageRank's normalisation: s = uᵀ J (J's one column read by vxm), then b = J s (J's rows
    read by mxv). On the GPU the two used to share one cached row plan, and b(0) came out
    n times too large once n passed the long-row threshold."""
    n = 3000
    J = gg.Matrix.from_coo(np.arange(n), np.zeros(n, np.int64), 1.0, nrows=n, ncols=1)
    u = gg.Vector.from_dense(np.full(n, 0.5))
    s = gg.Vector(gg.FP64, 1)
    b = gg.Vector(gg.FP64, n)
    for _ in range(2):
        gg.vxm(s, u, J, "plus_times")
        gg.mxv(b, J, s, "plus_times")
        assert s[0] == 0.5 * n
        np.testing.assert_array_equal(b.to_dense(), np.full(n, 0.5 * n))


def test_full_pull_results_are_counted_right():
    """A pull over a full u fills every output exactly when every row of A' has an entry;
    that count is then known without counting (a chained product keeps its vectors full).
    One empty row (or column, for vxm) must leave its output absent, through a chain of two
    products."""
    import graphblas as gb

    rng = np.random.default_rng(11)
    n = 400
    for empty in (None, 17):
        rows, cols = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
        rows = np.concatenate([rows, np.arange(n)])
        cols = np.concatenate([cols, np.arange(n)])
        if empty is not None:  # drop row `empty` and column `empty`
            keep = (rows != empty) & (cols != empty)
            rows, cols = rows[keep], cols[keep]
        vals = rng.uniform(0.5, 1.5, len(rows))
        A = gg.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dup_op="plus")
        G = gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dup_op=gb.binary.plus)
        u = gg.Vector.from_dense(rng.uniform(-1, 1, n))
        gu = gb.Vector.from_dense(u.to_dense())
        for op in ("mxv", "vxm"):
            w = gg.Vector(gg.FP64, n)
            getattr(gg, op)(w, *((A, u) if op == "mxv" else (u, A)), "plus_times")
            getattr(gg, op)(w, *((A, w) if op == "mxv" else (w, A)), "plus_times")
            gw = (G.mxv(gu) if op == "mxv" else gu.vxm(G)).new()
            gw = (G.mxv(gw) if op == "mxv" else gw.vxm(G)).new()
            assert w.nvals == gw.nvals == (n if empty is None else n - 1)
            idx, v = w.to_coo()
            gi, gv = gw.to_coo()
            np.testing.assert_array_equal(idx, gi)
            np.testing.assert_allclose(v, gv, rtol=1e-12)


@pytest.mark.parametrize("direction", ["push", "pull"])
def test_value_masks_of_different_types_in_one_process(direction):
    """The same product under value masks of several types, one after the other: a compiled
    kernel reads the mask's values as their own type, so each type needs its own kernel
    (a shared one read INT32 mask values as bytes, and found no mask entry)."""
    n = 2127
    A = gg.Matrix.from_coo([1679, 5], [2126, 7], [0.5, 2.0], nrows=1844, ncols=n, dtype="FP32")
    u = gg.Vector.from_coo([1679, 5], [3.0, 1.0], size=1844, dtype="FP32")
    for mtype in ["BOOL", "INT8", "INT32", "FP64", "UINT16", "INT64"]:
        M = gg.Vector.from_coo([2126, 7], [5, 0], size=n, dtype=mtype)
        w = gg.vxm(gg.Vector(gg.FP32, n), u, A, "plus_times", mask=M.V, direction=direction)
        idx, vals = w.to_coo()
        assert idx.tolist() == [2126] and vals.tolist() == [1.5], mtype


# a full matrix (every position stored) is pulled without reading its indices (an entry's
# index is its offset in its row or column): short rows, rows of thousands of entries (warp
# items, as a BFS's n x 2 count matrix read by columns; up to four rows of many blocks'
# entries: spmv_few, its block results folded by the last block), masks, bitmap and full u
@pytest.mark.parametrize("shape", [(40, 37), (3, 3000), (3000, 2), (4, 70001), (70001, 1)])
@pytest.mark.parametrize("name, dtype", [("plus_second", "INT32"), ("min_plus", "FP64"),
                                         ("any_second", "INT64"), ("plus_times", "INT64"),
                                         ("plus_times", "FP32"), ("lor_land", "BOOL")])
@pytest.mark.parametrize("mask_kind", ["none", "V", "~S"])
def test_full_matrix_pull(shape, name, dtype, mask_kind):
    rng = np.random.default_rng(sum(shape))
    m, n = shape
    npt = gg.lookup_dtype(dtype).np_type
    rows, cols = (a.ravel() for a in np.meshgrid(np.arange(m), np.arange(n), indexing="ij"))
    A = gg.Matrix.from_coo(rows, cols, rng.integers(-4, 5, m * n).astype(npt), nrows=m,
                           ncols=n, dtype=dtype)
    G = A.to_graphblas()
    for op, k, out in (("mxv", n, m), ("vxm", m, n)):
        for u_fraction in (1.0, 0.3):
            keep = rng.random(k) < u_fraction
            u = gg.Vector.from_coo(np.nonzero(keep)[0], rng.integers(-4, 5, keep.sum()).astype(npt),
                                   size=k, dtype=dtype)
            u.set_format("dense")
            gu = u.to_graphblas()
            M, GM = make_vector(rng, out, 0.5, "INT32")
            mask, gmask = gb_masks(M, GM)[mask_kind]
            sr = getattr(gb.semiring, name)
            gw = gb.Vector(dtype, out)
            gw(mask=gmask) << (G.mxv(gu, sr) if op == "mxv" else gu.vxm(G, sr))
            w = gg.Vector(dtype, out)
            if op == "mxv":
                gg.mxv(w, A, u, name, mask=mask, direction="pull")
            else:
                gg.vxm(w, u, A, name, mask=mask, direction="pull")
            if name.startswith("any"):
                np.testing.assert_array_equal(w.to_coo()[0], gw.to_coo()[0])
            else:
                assert_same(w, gw)
