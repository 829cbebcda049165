"""algorithms.pagerank against NetworkX and a dense NumPy copy of nvGRAPH's iteration:
undirected and directed graphs with dangling vertices, weights, given bookmark and guess,
FP32 / FP64, parameter rules, NotConverged, the one-scalar-per-iteration trace."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import importlib

import grblas_gpu as gg

from grblas_gpu.algorithms import pagerank
from conftest import lagraph_file
from grblas_gpu import backend, generate, io


def host(a):
    return backend.to_host(a)


def to_nx(A):
    rows, cols, vals = A.to_coo()
    G = nx.DiGraph()
    G.add_nodes_from(range(A.nrows))
    G.add_weighted_edges_from(zip(rows.tolist(), cols.tolist(), vals.astype(float).tolist()))
    return G


def nvgraph_reference(A, alpha, guess=None, tol=1e-6, max_iter=500):
    """Row-normalise, flag dangling rows, then nvGRAPH's solve_it loop in dense FP64."""
    rows, cols, vals = A.to_coo()
    D = sp.csr_matrix((vals.astype(float), (rows, cols)), shape=A.shape).toarray()
    s = D.sum(axis=1)
    P = np.divide(D, s[:, None], out=np.zeros_like(D), where=s[:, None] != 0)
    n = A.nrows
    a = np.where(s == 0, 1.0, 1 - alpha)
    tmp = np.full(n, 1.0 / n) if guess is None else np.asarray(guess, float)
    tmp = tmp / np.linalg.norm(tmp)
    for _ in range(max_iter):
        pr = alpha * (P.T @ tmp) + (a @ tmp) / n
        pr /= np.linalg.norm(pr)
        if np.linalg.norm(pr - tmp) < tol:
            return pr / pr.sum()
        tmp = pr
    raise AssertionError("no convergence")


def test_karate_against_networkx():
    A = generate.karate()
    pr = host(pagerank(A))
    assert pr.dtype == np.float64 and abs(pr.sum() - 1) < 1e-12
    ref = nx.pagerank(nx.karate_club_graph(), alpha=0.85, weight=None, tol=1e-12)
    np.testing.assert_allclose(pr, [ref[i] for i in range(34)], rtol=1e-5)


@pytest.mark.parametrize("alpha", [0.5, 0.85, 0.95])
def test_directed_weighted_with_dangling(alpha):
    A = generate.rmat(9, seed=4, symmetric=False, weighted=True, dtype=gg.FP64)
    figures = []
    pr = host(pagerank(A, alpha, trace=figures.append))
    ref_nv = nvgraph_reference(A, alpha)
    np.testing.assert_allclose(pr, ref_nv, rtol=1e-9, atol=1e-15)
    ref = nx.pagerank(to_nx(A), alpha=alpha, tol=1e-13, max_iter=1000)
    np.testing.assert_allclose(pr, [ref[i] for i in range(A.nrows)], rtol=1e-4)
    assert all(set(f) == {"iteration", "residual"} for f in figures)
    assert figures[-1]["residual"] < 1e-6 <= figures[-2]["residual"]


def test_west0067_pattern_against_networkx():
    A = io.read_mm(lagraph_file("west0067.mtx"))
    P = gg.apply(gg.Matrix(gg.FP64, *A.shape), A, "one")       # the pattern, weights 1
    pr = host(pagerank(P))
    ref = nx.pagerank(to_nx(P), alpha=0.85, tol=1e-13, max_iter=1000)
    np.testing.assert_allclose(pr, [ref[i] for i in range(A.nrows)], rtol=1e-4)


def test_fp32_graph_computes_in_fp32():
    A = generate.rmat(8, seed=2, weighted=True, dtype=gg.FP32)
    pr = host(pagerank(A, tolerance=1e-5))
    assert pr.dtype == np.float32
    np.testing.assert_allclose(pr, nvgraph_reference(A, 0.85, tol=1e-8), rtol=2e-3)


def test_bookmark_and_guess_and_transition_matrix():
    A = generate.rmat(8, seed=9, symmetric=False, weighted=True, dtype=gg.FP64)
    rows, cols, vals = A.to_coo()
    out = np.bincount(rows, weights=vals, minlength=A.nrows)
    P = gg.Matrix.from_coo(rows, cols, vals / out[rows], nrows=A.nrows, ncols=A.ncols)
    bookmark = (out == 0).astype(np.float64)
    base = host(pagerank(A))
    # nvGRAPH's input: the transition matrix as given, with its bookmark
    same = host(pagerank(P, normalize=False, bookmark=backend.xp.asarray(bookmark)))
    np.testing.assert_allclose(same, base, rtol=1e-9)
    # a guess changes the path, not the answer
    guess = np.random.default_rng(1).random(A.nrows)
    np.testing.assert_allclose(host(pagerank(A, guess=gg.Vector.from_dense(guess))), base,
                               rtol=1e-5)


def test_parameter_rules():
    A = generate.karate()
    for alpha in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(gg.InvalidValue):
            pagerank(A, alpha)
    with pytest.raises(gg.InvalidValue):
        pagerank(A, tolerance=1.0)
    with pytest.raises(gg.InvalidValue):
        pagerank(A, guess=np.zeros(34))
    with pytest.raises(gg.DimensionMismatch):
        pagerank(A, bookmark=np.zeros(3))
    # tolerance 0 and max_iter <= 0 mean the defaults (1e-6, 500)
    figures = []
    pagerank(A, tolerance=0, max_iter=-1, trace=figures.append)
    assert figures[-1]["residual"] < 1e-6


def test_not_converged_carries_the_last_iterate():
    A = generate.karate()
    with pytest.raises(gg.NotConverged) as e:
        pagerank(A, 0.85, max_iter=3)
    err = e.value
    assert err.iterations == 3 and err.status == "NVGRAPH_STATUS_NOT_CONVERGED"
    r = host(err.result)
    assert r.shape == (34,) and abs(r.sum() - 1) < 1e-12


def test_zero_weight_rows_are_dangling_as_in_networkx():
    # row 1's only edge weighs 0: its sum is 0, so it is dangling (networkx), not inf/NaN
    A = gg.Matrix.from_coo([0, 1, 2, 2, 3], [1, 2, 0, 3, 3], [1.0, 0.0, 1.0, 2.0, 0.0],
                           nrows=5, ncols=5)
    pr = host(pagerank(A, tolerance=1e-10))
    ref = nx.pagerank(to_nx(A), alpha=0.85, tol=1e-13)
    assert np.isfinite(pr).all()
    np.testing.assert_allclose(pr, [ref[i] for i in range(5)], rtol=1e-7)
    np.testing.assert_allclose(pr, nvgraph_reference(A, 0.85, tol=1e-10), rtol=1e-7)
    # taken as the transition matrix: the all-zero rows are dangling too
    pr = host(pagerank(A, normalize=False, tolerance=1e-10))
    assert np.isfinite(pr).all() and abs(pr.sum() - 1) < 1e-12


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_raises_and_changes_nothing(bad):
    A = gg.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, bad, 1.0], nrows=3, ncols=3)
    before = A.to_coo()
    with pytest.raises(gg.InvalidValue, match="finite"):
        pagerank(A)
    for x, y in zip(before, A.to_coo()):
        np.testing.assert_array_equal(host(x), host(y))
    B = generate.karate()
    guess = gg.Vector.from_dense(np.r_[np.ones(33), bad])
    with pytest.raises(gg.InvalidValue, match="finite"):
        pagerank(B, guess=guess)
    assert guess.nvals == 34 and host(guess.to_dense())[-1] != 1.0
    with pytest.raises(gg.InvalidValue, match="finite"):
        pagerank(B, bookmark=np.r_[np.zeros(33), bad])


def test_non_finite_residual_raises_not_nan():
    # taken as given, P's huge entry overflows the 2-norm: the residual is NaN, never "< tol"
    P = gg.Matrix.from_coo([0, 1], [1, 0], [1e308, 1.0], nrows=2, ncols=2)
    with pytest.raises(gg.NotConverged, match="residual"):
        pagerank(P, normalize=False)


def test_empty_graph_and_wrong_types_raise():
    with pytest.raises(gg.InvalidValue):
        pagerank(gg.Matrix(gg.FP64, 0, 0))
    A = generate.karate()
    for kwargs in ({"alpha": "x"}, {"tolerance": None}, {"max_iter": "many"},
                   {"max_iter": float("inf")}):
        with pytest.raises(gg.InvalidValue):
            pagerank(A, **kwargs)
    with pytest.raises(gg.InvalidValue):
        pagerank("not a matrix")


# ---------------------------------------------------------------- the set-up kept with A
pagerank_module = importlib.import_module(f"grblas_gpu.algorithms.pagerank")  # (the name is the function)
OUT_WEIGHTS, IN_EDGES = pagerank_module.OUT_WEIGHTS, pagerank_module.IN_EDGES


class _Absent(Exception):
    pass


def kept(M, key):
    """What M keeps under key, or None (a make that raises keeps nothing)."""
    def absent():
        raise _Absent
    try:
        return M.memo(key, absent)
    except _Absent:
        return None


def test_repeated_call_reuses_the_setup_and_matches_the_first():
    A = generate.rmat(9, seed=7, symmetric=False, weighted=True, dtype=gg.FP64)
    first_trace = []
    pr1 = host(pagerank(A, trace=first_trace.append))
    inverse, dangling = kept(A, (OUT_WEIGHTS, gg.FP64, True))
    assert A.has_csc and kept(A, (IN_EDGES, "cols")) is not None   # directed: Aᵀ by columns
    repeat_trace = []
    pr2 = host(pagerank(A, trace=repeat_trace.append))
    assert kept(A, (OUT_WEIGHTS, gg.FP64, True)) == (inverse, dangling)
    assert np.array_equal(pr1, pr2) and first_trace == repeat_trace
    np.testing.assert_allclose(pr1, nvgraph_reference(A, 0.85), rtol=1e-9, atol=1e-15)


def test_new_content_drops_the_setup():
    A = generate.rmat(8, seed=3, symmetric=False, weighted=True, dtype=gg.FP64)
    pagerank(A)
    assert kept(A, (OUT_WEIGHTS, gg.FP64, True)) is not None
    # A = 2 .* A   (new content: the memo goes with the old one)
    gg.apply(A, A, "times", left=2.0)
    assert kept(A, (OUT_WEIGHTS, gg.FP64, True)) is None
    rows, cols, vals = A.to_coo()
    A2 = gg.Matrix.from_coo(rows, cols, vals ** 2, nrows=A.nrows, ncols=A.ncols)
    pagerank(A)
    gg.ewise_mult(A, A, A, "times")      # A's values squared, as A2's
    pr = host(pagerank(A))
    np.testing.assert_array_equal(pr, host(pagerank(A2)))
    np.testing.assert_allclose(pr, nvgraph_reference(A2, 0.85), rtol=1e-9, atol=1e-15)


def test_alpha_type_normalize_and_bookmark_do_not_share_an_entry():
    A = generate.rmat(8, seed=5, symmetric=False, weighted=True, dtype=gg.FP64)
    for alpha in (0.5, 0.85):
        # a fresh copy computes what the cached one computes, alpha by alpha
        np.testing.assert_array_equal(host(pagerank(A, alpha)), host(pagerank(A.dup(), alpha)))
    inverse, _ = kept(A, (OUT_WEIGHTS, gg.FP64, True))
    assert inverse is not None
    unnormalized = host(pagerank(A, normalize=False, max_iter=30, tolerance=0.5))
    assert kept(A, (OUT_WEIGHTS, gg.FP64, False))[0] is None   # A is P: no factor kept
    np.testing.assert_array_equal(
        unnormalized, host(pagerank(A.dup(), normalize=False, max_iter=30, tolerance=0.5)))
    in_fp32 = host(pagerank(A.dup(gg.FP32)))
    assert in_fp32.dtype == np.float32 and kept(A, (OUT_WEIGHTS, gg.FP32, True)) is None
    # a bookmark given is the call's own: the cached set-up serves, b is made from it each call
    bm = np.zeros(A.nrows)
    bm[::5] = 0.25
    given = host(pagerank(A, bookmark=bm))
    np.testing.assert_array_equal(given, host(pagerank(A.dup(), bookmark=bm)))
    assert not np.array_equal(given, host(pagerank(A)))
    np.testing.assert_array_equal(host(pagerank(A)), host(pagerank(A.dup())))


def test_advanced_tier_takes_p_as_given():
    A = generate.rmat(8, seed=6, symmetric=False, weighted=True, dtype=gg.FP64)
    rows, cols, vals = A.to_coo()
    out = np.bincount(rows, weights=vals, minlength=A.nrows)
    P = gg.Matrix.from_coo(rows, cols, vals / out[rows], nrows=A.nrows, ncols=A.ncols)
    dangling = gg.Vector.from_dense((out == 0).astype(np.float64))
    guess = gg.Vector.from_dense(np.full(A.nrows, 1.0 / A.nrows))
    pr = host(pagerank_module.pagerank_advanced(P, 0.85, dangling, guess, tolerance=1e-6,
                                                max_iter=100))
    np.testing.assert_allclose(pr, host(pagerank(A)), rtol=1e-9)
    assert kept(P, (OUT_WEIGHTS, gg.FP64, True)) is None
    assert kept(P, (IN_EDGES, "cols")) is not None      # (its one count, kept with P)


def test_a_failed_setup_is_not_kept():
    A = gg.Matrix.from_coo([0, 1], [1, 0], [np.nan, 1.0], nrows=2, ncols=2)
    for _ in range(2):   # the same error every call: nothing half-made was kept
        with pytest.raises(gg.InvalidValue, match="must be finite"):
            pagerank(A)
    assert kept(A, (OUT_WEIGHTS, gg.FP64, True)) is None


def _undirected_pattern(scale, seed, isolated):
    """An undirected iso FP32 graph (GAP's kind): R-MAT, whose isolated vertices have no
    in-edge, or with a cycle through every vertex added, so that each has one."""
    A = generate.rmat(scale, seed=seed, weighted=False, dtype=gg.FP32)
    if isolated:
        return A
    rows, cols, _ = A.to_coo()
    n = A.nrows
    ring = np.arange(n)
    r = np.r_[rows, ring, (ring + 1) % n]
    c = np.r_[cols, (ring + 1) % n, ring]
    return gg.Matrix.from_coo(r, c, 1.0, nrows=n, ncols=n, dtype=gg.FP32, dup_op="any")


@pytest.mark.parametrize("isolated", [True, False])
def test_fresh_symmetric_graph_builds_no_matrix_and_no_transpose(monkeypatch, isolated):
    """On an undirected graph the first call reads A itself (no P, no G, no transpose, no
    column form): the only matrix it makes is the bookmark's one row. Fresh and repeated
    calls agree."""
    A = _undirected_pattern(9, 11, isolated)
    assert A.is_symmetric(structure=True)
    A = A.dup()                                  # a fresh copy: nothing kept with it
    made, transposed = [], []
    real_set, real_csc = gg.Matrix._set, gg.Matrix._csc

    def spy_set(self, nrows, ncols, dtype, indptr, indices, values, iso):
        if len(indices):
            made.append((nrows, ncols, len(indices)))
        return real_set(self, nrows, ncols, dtype, indptr, indices, values, iso)

    def spy_csc(self):
        transposed.append(self.shape)
        return real_csc(self)

    monkeypatch.setattr(gg.Matrix, "_set", spy_set)
    monkeypatch.setattr(gg.Matrix, "_csc", spy_csc)
    monkeypatch.setattr(gg, "transpose", lambda *a, **k: transposed.append("transpose"))
    monkeypatch.setattr(gg, "mxm", lambda *a, **k: made.append("mxm"))
    first = host(pagerank(A, 0.85, tolerance=1e-4))
    assert transposed == [] and not A.has_csc
    assert made and all(m == (1, A.nrows, A.nrows) for m in made), made  # B, one row
    assert kept(A, (IN_EDGES, "rows")) is (not isolated)
    repeated = host(pagerank(A, 0.85, tolerance=1e-4))
    np.testing.assert_array_equal(first, repeated)
    np.testing.assert_allclose(first, nvgraph_reference(A, 0.85, tol=1e-4), rtol=1e-4,
                               atol=1e-9)


def _asymmetric_values(A):
    """A's pattern (symmetric) with A(i, j) = 1 + i: the values do not mirror."""
    rows, cols, _ = A.to_coo()
    return gg.Matrix.from_coo(rows, cols, 1.0 + rows, nrows=A.nrows, ncols=A.ncols)


@pytest.mark.parametrize("kind", ["pattern", "weighted", "asymmetric values", "directed"])
@pytest.mark.parametrize("isolated", [True, False])
def test_each_orientation_and_coverage_matches_the_reference(kind, isolated):
    """The product reads A's rows only where A equals Aᵀ (values included), else A's
    columns; with or without vertices lacking an in-edge, the ranks are nvGRAPH's."""
    A = _undirected_pattern(8, 5, isolated).dup(gg.FP64)
    if kind == "weighted":
        rows, cols, _ = A.to_coo()
        A = gg.Matrix.from_coo(rows, cols, 1.0 + (rows + cols) % 7, nrows=A.nrows,
                               ncols=A.ncols)
    elif kind == "asymmetric values":
        A = _asymmetric_values(A)
    elif kind == "directed":
        rows, cols, vals = A.to_coo()
        keep = rows < cols + (0 if isolated else A.nrows // 3)
        A = gg.Matrix.from_coo(rows[keep], cols[keep], vals[keep], nrows=A.nrows,
                               ncols=A.ncols)
    pr = host(pagerank(A))
    np.testing.assert_allclose(pr, nvgraph_reference(A, 0.85), rtol=1e-9, atol=1e-15)
    assert A.has_csc is (kind in ("asymmetric values", "directed"))
    np.testing.assert_array_equal(pr, host(pagerank(A.dup())))
