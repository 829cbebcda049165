"""algorithms.sssp against SciPy's Dijkstra and Bellman-Ford: weighted R-MAT and LAGraph
graphs, negative edges, negative cycles, the FLT_MAX / DBL_MAX convention, traces; both
methods (delta-stepping and Bellman-Ford), auto's choice, and bad method / delta arguments."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import grblas_gpu as gg
from grblas_gpu.algorithms import sssp
from conftest import lagraph_file
from grblas_gpu import backend, generate, io


def host(a):
    return backend.to_host(a)


def scipy_of(A, values=None):
    rows, cols, vals = A.to_coo()
    vals = vals.astype(np.float64) if values is None else values
    return sp.csr_matrix((vals, (rows, cols)), shape=A.shape)


def expect(ref, dtype):
    far = np.finfo(dtype).max
    return np.where(np.isinf(ref), far, ref)


@pytest.mark.parametrize("dtype", [gg.FP32, gg.FP64])
def test_weighted_rmat_against_dijkstra(dtype):
    A = generate.rmat(10, seed=7, symmetric=False, weighted=True, dtype=dtype)
    S = scipy_of(A)
    for source in (0, int(np.argmax(np.diff(S.indptr)))):
        d = host(sssp(A, source))
        assert d.dtype == dtype.np_type
        ref = csgraph.dijkstra(S, indices=source)
        np.testing.assert_allclose(d, expect(ref, dtype.np_type),
                                   rtol=1e-5 if dtype is gg.FP32 else 1e-12)


def test_karate_hop_counts_and_integer_weights():
    A = generate.karate()                       # BOOL: every edge weighs 1, computed in FP64
    d = host(sssp(A, 0))
    assert d.dtype == np.float64
    ref = csgraph.shortest_path(scipy_of(A), unweighted=True, indices=0)
    np.testing.assert_array_equal(d, ref)
    B = gg.Matrix.from_coo([0, 0, 1, 2], [1, 2, 3, 3], [4, 1, 1, 5], nrows=5, ncols=5)
    assert host(sssp(B, 0)).tolist() == [0, 4, 1, 5, np.finfo(np.float64).max]


def test_lagraph_graphs_with_absolute_weights():
    for name in ("west0067.mtx", "bcsstk13.mtx"):
        A = io.read_mm(lagraph_file(name))
        Aa = gg.apply(gg.Matrix(gg.FP64, *A.shape), A, "abs")
        S = scipy_of(Aa)
        for source in (0, A.nrows // 2):
            ref = csgraph.dijkstra(S, indices=source)
            np.testing.assert_allclose(host(sssp(Aa, source)), expect(ref, np.float64),
                                       rtol=1e-12)


def test_negative_edges_without_a_negative_cycle():
    # a DAG with negative weights: Bellman-Ford's territory
    rng = np.random.default_rng(3)
    n = 60
    r, c = np.triu_indices(n, 1)
    keep = rng.random(len(r)) < 0.15
    w = rng.uniform(-2, 5, keep.sum())
    A = gg.Matrix.from_coo(r[keep], c[keep], w, nrows=n, ncols=n)
    ref = csgraph.bellman_ford(sp.csr_matrix((w, (r[keep], c[keep])), shape=(n, n)), indices=0)
    figures = []
    np.testing.assert_allclose(host(sssp(A, 0, trace=figures.append)), expect(ref, np.float64),
                               rtol=1e-12)
    assert {f["method"] for f in figures} == {"bellman_ford"}
    with pytest.raises(gg.InvalidValue, match="non-negative"):
        sssp(A, 0, method="delta")


def test_negative_cycle_raises_not_converged():
    A = gg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 1, 3], [1.0, -2.0, 1.0, 1.0], nrows=4, ncols=4)
    with pytest.raises(gg.NotConverged) as e:
        sssp(A, 0)
    assert e.value.iterations == 4 and e.value.status == "NVGRAPH_STATUS_NOT_CONVERGED"
    assert host(e.value.result)[0] == 0
    # the cycle unreachable from the source: fine
    assert host(sssp(A, 3)).tolist()[3] == 0


def test_trace_and_rounds():
    A = gg.Matrix.from_coo([0, 1, 2], [1, 2, 3], [1.0, 1.0, 1.0], nrows=4, ncols=4)
    figures = []
    assert host(sssp(A, 0, trace=figures.append)).tolist() == [0, 1, 2, 3]
    assert [f["frontier"] for f in figures] == [1, 1, 1, 0]
    assert [f["iteration"] for f in figures] == [1, 2, 3, 4]


def test_bad_input():
    with pytest.raises(gg.IndexOutOfBounds):
        sssp(generate.karate(), -1)
    with pytest.raises(gg.DimensionMismatch):
        sssp(gg.Matrix(gg.FP32, 2, 3), 0)


def test_minus_inf_weight_is_reported_not_returned():
    # a cycle through a -inf edge: -inf < -inf is false, so the frontier empties; reported
    A = gg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 1, 3], [1.0, -np.inf, 1.0, 1.0], nrows=5,
                           ncols=5)
    with pytest.raises(gg.NotConverged, match="unbounded") as e:
        sssp(A, 0)
    d = host(e.value.result)
    assert d[0] == 0 and d[4] == np.finfo(np.float64).max and np.isneginf(d[2])
    # unreachable from the source: an ordinary answer (scipy's Bellman-Ford agrees)
    ref = csgraph.bellman_ford(scipy_of(A), indices=3)
    np.testing.assert_array_equal(host(sssp(A, 3)), expect(ref, np.float64))


@pytest.mark.parametrize("source", ["x", None, 1.5, float("inf"), float("nan"), [0, 1]])
def test_wrong_typed_source_raises_invalid_value(source):
    for algorithm in (sssp, __import__("grblas_gpu.algorithms", fromlist=["_"]).widest_path, __import__("grblas_gpu.algorithms", fromlist=["_"]).bfs):
        with pytest.raises(gg.InvalidValue):
            algorithm(generate.karate(), source)


# ---------------------------------------------------------------- delta-stepping
DELTAS = [None, 1e-30, 1e-6, 0.3, 1, 7, 1e300, float("inf")]


def random_graph(seed, n, dtype, undirected):
    """A random weighted graph with isolated parts, zero weights and repeated weights."""
    rng = np.random.default_rng(seed)
    keep = rng.random((n, n)) < rng.uniform(0.02, 0.2)
    keep[:, n - n // 5:] = keep[n - n // 5:, :] = False      # the last fifth: disconnected
    if undirected:
        keep = np.triu(keep, 1)
    r, c = np.nonzero(keep)
    if np.dtype(dtype).kind == "f":
        w = rng.uniform(0, 10, len(r)) * rng.choice([1e-3, 1, 1e3])
    else:
        w = rng.integers(0, 30, len(r))
    w[rng.random(len(r)) < 0.1] = 0
    w = w.astype(dtype)
    if undirected:
        r, c, w = np.concatenate([r, c]), np.concatenate([c, r]), np.concatenate([w, w])
    S = sp.csr_matrix((w.astype(np.float64), (r, c)), shape=(n, n))  # explicit zeros: edges
    return gg.Matrix.from_coo(r, c, w, nrows=n, ncols=n), S


@pytest.mark.parametrize("undirected", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
def test_both_methods_equal_dijkstra_on_random_graphs(dtype, undirected):
    for seed in range(6):
        A, S = random_graph(seed, 12 + 9 * seed, dtype, undirected)
        out = np.float32 if dtype == np.float32 else np.float64
        for source in (0, A.nrows - 1):
            ref = expect(csgraph.dijkstra(S, indices=source), out)
            bf = host(sssp(A, source, method="bellman_ford"))
            assert bf.dtype == out
            np.testing.assert_allclose(bf, ref, rtol=1e-5 if out == np.float32 else 1e-12)
            for delta in DELTAS:
                d = host(sssp(A, source, method="delta", delta=delta))
                # the same fixed point: equal bit for bit, whatever the buckets
                np.testing.assert_array_equal(d, bf, err_msg=f"seed {seed} delta {delta}")
            np.testing.assert_array_equal(host(sssp(A, source)), bf)


def test_delta_on_lagraph_graphs_with_non_negative_weights():
    for name in ("west0067.mtx", "bcsstk13.mtx", "ldbc-directed-example.mtx",
                 "ldbc-undirected-example.mtx", "jagmesh7.mtx"):
        A = io.read_mm(lagraph_file(name))
        Aa = gg.apply(gg.Matrix(gg.FP64, *A.shape), A, "abs")
        S = scipy_of(Aa)
        for source in (0, A.nrows // 2):
            ref = expect(csgraph.dijkstra(S, indices=source), np.float64)
            for delta in (None, 0.01, 1.0, 1e9):
                np.testing.assert_allclose(host(sssp(Aa, source, method="delta", delta=delta)),
                                           ref, rtol=1e-12)


@pytest.mark.parametrize("dtype", [gg.FP32, gg.FP64])
def test_delta_on_weighted_rmat(dtype):
    A = generate.rmat(10, seed=3, symmetric=False, weighted=True, dtype=dtype)
    source = int(np.argmax(np.diff(scipy_of(A).indptr)))
    bf = host(sssp(A, source, method="bellman_ford"))
    for delta in (None, 0.05, 0.5):
        np.testing.assert_array_equal(host(sssp(A, source, method="delta", delta=delta)), bf)


def test_auto_runs_bellman_ford_and_delta_stepping_its_buckets():
    B = gg.Matrix.from_coo([0, 0, 1, 2], [1, 2, 3, 3], [4, 1, 1, 5], nrows=5, ncols=5)
    expect = [0, 4, 1, 5, np.finfo(np.float64).max]
    auto = []
    assert host(sssp(B, 0, trace=auto.append)).tolist() == expect
    assert {f["method"] for f in auto} == {"bellman_ford"}
    figures = []
    assert host(sssp(B, 0, method="delta", trace=figures.append)).tolist() == expect
    assert {f["method"] for f in figures} == {"delta"}
    assert figures[0]["delta"] == 11 / 4                      # the mean weight
    buckets = [f["bucket"] for f in figures]
    assert buckets == sorted(buckets) and buckets[0] == 0
    assert figures[-1]["frontier"] == 0


def test_auto_keeps_negative_cycle_and_minus_inf_behaviour():
    A = gg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 1, 3], [1.0, -2.0, 1.0, 1.0], nrows=4, ncols=4)
    with pytest.raises(gg.NotConverged):
        sssp(A, 0, method="auto", delta=1.0)
    B = gg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 1, 3], [1.0, -np.inf, 1.0, 1.0], nrows=5,
                           ncols=5)
    with pytest.raises(gg.NotConverged, match="unbounded"):
        sssp(B, 0, method="auto")


def test_delta_with_nan_and_inf_weights_matches_bellman_ford():
    A = gg.Matrix.from_coo([0, 0, 1, 2, 3], [1, 2, 3, 3, 4], [np.nan, 2.0, 1.0, np.inf, 0.5],
                           nrows=6, ncols=6)
    bf = host(sssp(A, 0, method="bellman_ford"))
    assert bf.tolist()[:5] == [0, np.finfo(np.float64).max, 2, np.finfo(np.float64).max,
                               np.finfo(np.float64).max]
    for delta in DELTAS:
        np.testing.assert_array_equal(host(sssp(A, 0, method="delta", delta=delta)), bf)


def test_delta_stepping_reads_one_scalar_per_round():
    # a path 0 -> 1 -> ... -> 9 of weight 1 and a heavy shortcut 0 -> 9 of weight 20
    r = list(range(9)) + [0]
    c = list(range(1, 10)) + [9]
    A = gg.Matrix.from_coo(r, c, [1.0] * 9 + [20.0], nrows=10, ncols=10)
    figures = []
    assert host(sssp(A, 0, method="delta", delta=2.5, trace=figures.append)).tolist() == \
        list(range(10))
    # buckets [0, 2.5), [2.5, 5), [5, 7.5), [7.5, 10): each ends on an empty light frontier
    assert [f["bucket"] for f in figures if f["frontier"] == 0] == [0, 1, 2, 3]
    assert all(f["delta"] == 2.5 and f["method"] == "delta" for f in figures)
    assert [f["iteration"] for f in figures] == list(range(1, len(figures) + 1))


def test_empty_and_single_vertex_graphs():
    for method in ("auto", "delta", "bellman_ford"):
        assert host(sssp(gg.Matrix(gg.FP32, 1, 1), 0, method=method)).tolist() == [0]
        d = host(sssp(gg.Matrix(gg.INT64, 3, 3), 1, method=method))
        assert d.tolist() == [np.finfo(np.float64).max, 0, np.finfo(np.float64).max]


@pytest.mark.parametrize("method", ["Delta", "dijkstra", "", None, 1, ["delta"]])
def test_bad_method_raises_invalid_value(method):
    with pytest.raises(gg.InvalidValue):
        sssp(generate.karate(), 0, method=method)


@pytest.mark.parametrize("delta", [0, -1.5, float("nan"), -float("inf"), "1", True,
                                   np.array([1.0, 2.0]), [1.0], gg.Vector(gg.FP64, 1)])
def test_bad_delta_raises_invalid_value(delta):
    for method in ("auto", "delta", "bellman_ford"):
        with pytest.raises(gg.InvalidValue):
            sssp(generate.karate(), 0, method=method, delta=delta)
