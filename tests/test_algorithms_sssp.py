"""algorithms.sssp against SciPy's Dijkstra and Bellman-Ford: weighted R-MAT and LAGraph
graphs, negative edges, negative cycles, the FLT_MAX / DBL_MAX convention, traces."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import grblas_gpu as gg
from algorithms import sssp
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
    np.testing.assert_allclose(host(sssp(A, 0)), expect(ref, np.float64), rtol=1e-12)


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
    for algorithm in (sssp, __import__("algorithms").widest_path, __import__("algorithms").bfs):
        with pytest.raises(gg.InvalidValue):
            algorithm(generate.karate(), source)
