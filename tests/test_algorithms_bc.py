"""algorithms.betweenness (batched Brandes, LAGraph's LAGr_Betweenness) against NetworkX and
against the GAP results LAGraph's own test checks: random directed and undirected graphs,
disconnected ones, paths, stars and complete graphs, sources with no out-edges, LAGraph's
matrices, the trace and bad input.

The reference is Σ over the given sources s of Brandes' dependencies δ_s(v), over ordered
pairs along the stored edges (LAGraph's and GAP's definition). NetworkX's
betweenness_centrality_subset(G, sources, all vertices, normalized=False) is that sum on a
DiGraph and half of it on a Graph (its undirected rescaling by 1/2);
test_networkx_reference_is_brandes_sum checks this against networkx's own single-source
Brandes steps."""
import networkx as nx
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu.algorithms import betweenness
from conftest import lagraph_file
from grblas_gpu import backend, generate, io

RTOL = 1e-9
ATOL = 1e-9


def host(a):
    return backend.to_host(a)


def edges_of(A):
    rows, cols, _ = A.to_coo()
    return list(zip(rows.tolist(), cols.tolist()))


def reference(A, sources):
    """Σ_s δ_s(v) on the stored (directed) edges of A, by NetworkX."""
    G = nx.DiGraph()
    G.add_nodes_from(range(A.nrows))
    G.add_edges_from(edges_of(A))
    bc = nx.betweenness_centrality_subset(G, list(sources), list(G), normalized=False)
    return np.array([bc[v] for v in range(A.nrows)])


def matrix(n, edges, undirected=False, dtype=gg.FP64):
    e = list(edges) + ([(j, i) for i, j in edges] if undirected else [])
    e = sorted(set(e))
    rows = np.array([i for i, _ in e], dtype=np.int64)
    cols = np.array([j for _, j in e], dtype=np.int64)
    return gg.Matrix.from_coo(rows, cols, np.ones(len(e)), nrows=n, ncols=n, dtype=dtype)


def check(A, sources, **kw):
    got = host(betweenness(A, sources, **kw))
    assert got.dtype == np.float64 and got.shape == (A.nrows,)
    np.testing.assert_allclose(got, reference(A, sources), rtol=RTOL, atol=ATOL)
    return got


def test_networkx_reference_is_brandes_sum():
    """The subset function on a DiGraph is Σ_s δ_s (Brandes' single-source steps); on a
    Graph it is half of that, and our result on the symmetric matrix equals the DiGraph's."""
    from networkx.algorithms.centrality.betweenness import (
        _accumulate_basic, _single_source_shortest_path_basic)
    G = nx.gnp_random_graph(40, 0.08, seed=3)
    sources = [0, 5, 17, 33]
    A = matrix(40, G.edges(), undirected=True)
    brandes = dict.fromkeys(G, 0.0)
    for s in sources:
        S, P, sigma, _ = _single_source_shortest_path_basic(G, s)
        brandes = _accumulate_basic(brandes, S, P, sigma, s)[0]
    brandes = np.array([brandes[v] for v in range(40)])
    sub = nx.betweenness_centrality_subset(G, sources, list(G), normalized=False)
    np.testing.assert_allclose(2 * np.array([sub[v] for v in range(40)]), brandes, rtol=RTOL)
    np.testing.assert_allclose(reference(A, sources), brandes, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(host(betweenness(A, sources)), brandes, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("undirected", [False, True])
def test_random_graphs(seed, undirected):
    rng = np.random.default_rng(seed)
    n = 60
    G = nx.gnp_random_graph(n, 0.06, seed=seed, directed=not undirected)
    A = matrix(n, G.edges(), undirected=undirected)
    check(A, rng.choice(n, size=4, replace=False))
    check(A, [int(rng.integers(n))])                    # one source
    check(A, rng.choice(n, size=17, replace=False))     # a larger batch


@pytest.mark.parametrize("seed", [4, 5])
@pytest.mark.parametrize("symmetric", [False, True])
def test_rmat(seed, symmetric):
    A = generate.rmat(8, seed=seed, symmetric=symmetric)
    rng = np.random.default_rng(seed)
    check(A, rng.choice(A.nrows, size=4, replace=False))


def test_disconnected_graph_and_isolated_vertices():
    # two components (a cycle and a tree) and isolated vertices 11..13
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (5, 7), (7, 8), (8, 9), (9, 10)]
    for undirected in (False, True):
        A = matrix(14, edges, undirected=undirected)
        check(A, [0, 4, 11, 7])
        check(A, [12, 13])                              # isolated sources: all zero
        assert not host(betweenness(A, [12, 13])).any()


def test_path_star_complete():
    n = 7
    path = matrix(n, [(i, i + 1) for i in range(n - 1)], undirected=True)
    got = check(path, range(n))
    # all ordered pairs (s, t) with s < i < t or t < i < s: 2 i (n - 1 - i)
    np.testing.assert_allclose(got, [2 * i * (n - 1 - i) for i in range(n)], rtol=RTOL)
    directed = matrix(n, [(i, i + 1) for i in range(n - 1)])
    np.testing.assert_allclose(check(directed, range(n)), [i * (n - 1 - i) for i in range(n)],
                               rtol=RTOL)
    k = 6
    star = matrix(k + 1, [(0, j) for j in range(1, k + 1)], undirected=True)
    got = check(star, range(k + 1))
    np.testing.assert_allclose(got, [k * (k - 1)] + [0] * k, rtol=RTOL, atol=ATOL)
    complete = matrix(6, [(i, j) for i in range(6) for j in range(6) if i != j])
    assert not check(complete, [0, 2, 5]).any()
    # a self-loop on every vertex changes nothing
    loops = matrix(n, [(i, i + 1) for i in range(n - 1)] + [(i, i) for i in range(n)],
                   undirected=True)
    np.testing.assert_allclose(check(loops, range(n)), host(betweenness(path, range(n))),
                               rtol=RTOL)


def test_sources_without_out_edges():
    A = matrix(5, [(0, 1), (1, 2), (2, 3)])            # 3 and 4 have no out-edges
    trace = []
    assert not host(betweenness(A, [3, 4], trace=trace.append)).any()
    assert trace == [{"phase": "forward", "level": 1, "frontier": 0}]
    np.testing.assert_allclose(check(A, [0, 3, 4]), [0, 2, 1, 0, 0], rtol=RTOL)


def test_values_and_types_ignored():
    """Only the pattern counts: explicit zeros, negative values, BOOL and INT matrices."""
    G = nx.gnp_random_graph(30, 0.1, seed=9, directed=True)
    base = matrix(30, G.edges())
    want = host(betweenness(base, [1, 2, 3, 4]))
    rows, cols, _ = base.to_coo()
    vals = np.resize([0.0, -2.5, 7.0], len(rows))
    for dtype in (gg.BOOL, gg.INT32, gg.FP32, gg.FP64):
        B = gg.Matrix.from_coo(rows, cols, vals.astype(gg.lookup_dtype(dtype).np_type),
                               nrows=30, ncols=30, dtype=dtype)
        np.testing.assert_array_equal(host(betweenness(B, [1, 2, 3, 4])), want)
        assert B.nvals == len(rows)                        # A unchanged


def test_source_order_and_array_kinds():
    A = generate.karate()
    want = host(betweenness(A, [6, 29, 0, 9]))
    np.testing.assert_allclose(host(betweenness(A, (9, 0, 29, 6))), want, rtol=RTOL)
    np.testing.assert_allclose(host(betweenness(A, np.array([9, 0, 29, 6]))), want, rtol=RTOL)
    np.testing.assert_allclose(host(betweenness(A, backend.xp.asarray([6, 29, 0, 9],
                                                                      dtype=np.int32))),
                               want, rtol=RTOL)
    np.testing.assert_allclose(host(betweenness(A, [6.0, 29, np.int64(0), 9])), want,
                               rtol=RTOL)
    # the sum over batches is the batch of all: GAP runs batches of 4
    parts = host(betweenness(A, [6, 29])) + host(betweenness(A, [0, 9]))
    np.testing.assert_allclose(parts, want, rtol=RTOL)
    # no sources: the empty sum
    assert host(betweenness(A, [])).tolist() == [0.0] * 34


# GAP's bc, as LAGraph's test_Betweenness.c lists it (unnormalised, lengths 0 excluded),
# printed to 6 significant digits: LAGraph checks them to 1e-4.
KARATE_SOURCES = [6, 29, 0, 9]
KARATE_BC = [43.7778, 2.83333, 26.9143, 0.722222, 0.333333, 1.83333, 1.5, 0, 9.09524, 0, 0, 0,
             0, 5.19206, 0, 0, 0, 0, 0, 4.58095, 0, 0, 0, 2.4, 0, 0.422222, 0, 1.28889, 0, 0,
             0.733333, 14.5508, 17.1873, 40.6349]
WEST0067_SOURCES = [13, 58, 1, 18]
WEST0067_BC = [
    7.37262, 5.3892, 4.53788, 3.25952, 11.9139, 5.73571, 5.65336, 1.5, 19.2719, 0.343137,
    0.0833333, 0.666667, 1.80882, 12.4246, 1.92647, 22.0458, 4.7381, 34.8611, 0.1, 29.8358,
    9.52807, 9.71836, 17.3334, 54.654, 23.3118, 7.31765, 2.52381, 6.96905, 19.2291, 6.97003,
    33.0464, 7.20128, 3.78571, 7.87698, 15.3556, 7.43333, 7.19091, 9.20411, 1.10325, 6.38095,
    17.808, 5.18172, 25.8441, 7.91581, 1.13501, 0, 2.53004, 2.48168, 8.84857, 3.80708,
    1.16978, 0.0714286, 1.76786, 3.06661, 12.0742, 1.6, 4.73908, 2.3701, 3.75, 1.08571,
    1.69697, 0, 0.571429, 0, 0, 2.22381, 0.659341]


@pytest.mark.parametrize("name,sources,expected", [
    ("karate.mtx", KARATE_SOURCES, KARATE_BC),
    ("west0067.mtx", WEST0067_SOURCES, WEST0067_BC)])
def test_lagraph_gap_results(name, sources, expected):
    A = io.read_mm(lagraph_file(name))
    got = check(A, sources)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)


LAGRAPH = ["A.mtx", "cover.mtx", "jagmesh7.mtx", "ldbc-directed-example.mtx",
           "ldbc-undirected-example.mtx", "west0067.mtx", "msf1.mtx", "LFAT5.mtx",
           "olm1000.mtx", "sample.mtx", "tree-example.mtx", "cryg2500.mtx"]


@pytest.mark.parametrize("name", LAGRAPH)
def test_lagraph_matrices(name):
    A = io.read_mm(lagraph_file(name))
    n = A.nrows
    degrees = np.bincount(A.to_coo()[0], minlength=n)
    sources = sorted({0, int(np.argmax(degrees)), n // 2, n - 1})
    check(A, sources)


def test_trace():
    G = nx.gnp_random_graph(50, 0.05, seed=7, directed=True)
    A = matrix(50, G.edges())
    sources = [0, 10, 20, 30]
    figures = []
    betweenness(A, sources, trace=figures.append)
    assert all(set(f) == {"phase", "level", "frontier"} for f in figures)
    forward = [f for f in figures if f["phase"] == "forward"]
    backward = [f for f in figures if f["phase"] == "backward"]
    assert figures == forward + backward
    # forward: levels 1 .. D + 1, |level k| = the (source, vertex) pairs at distance k
    dists = [nx.single_source_shortest_path_length(G, s) for s in sources]
    depth = max(max(d.values()) for d in dists)
    per_level = [sum(list(d.values()).count(k) for d in dists) for k in range(1, depth + 2)]
    assert [f["level"] for f in forward] == list(range(1, depth + 2))
    assert [f["frontier"] for f in forward] == per_level and per_level[-1] == 0
    # backward: levels D - 1 .. 1, each the level receiving its successors' dependencies
    assert [f["level"] for f in backward] == list(range(depth - 1, 0, -1))
    assert [f["frontier"] for f in backward] == per_level[:depth - 1][::-1]


def test_bad_input():
    A = generate.karate()
    with pytest.raises(gg.IndexOutOfBounds):
        betweenness(A, [0, 34])
    with pytest.raises(gg.IndexOutOfBounds):
        betweenness(A, [-1])
    with pytest.raises(gg.InvalidValue, match="distinct"):
        betweenness(A, [3, 5, 3])
    with pytest.raises(gg.InvalidValue, match="distinct"):
        betweenness(A, np.array([1, 1]))
    for bad in (0, 3.0, None, "012", b"01", iter([0, 1])):
        with pytest.raises(gg.InvalidValue, match="sequence"):
            betweenness(A, bad)
    for bad in ([0.5], ["x"], [None], [[0, 1]], np.array([0.5]), np.array([[0, 1]]),
                np.array([True, False]), np.array(["a"])):
        with pytest.raises(gg.InvalidValue):
            betweenness(A, bad)
    with pytest.raises(gg.InvalidValue, match="trace"):
        betweenness(A, [0], trace=3)
    with pytest.raises(gg.DimensionMismatch):
        betweenness(gg.Matrix(gg.FP64, 3, 4), [0])
    with pytest.raises(gg.InvalidValue):
        betweenness(np.eye(3), [0])


def test_path_counts_beyond_fp64_raise_instead_of_returning_nan():
    """300 layers of 16 vertices, each layer joined to the next completely: 16**299 > 1e308
    shortest paths reach the last layer, so the counts overflow FP64."""
    width, layers = 16, 300
    rows, cols = [], []
    for k in range(layers - 1):
        a = np.repeat(np.arange(width) + k * width, width)
        rows.append(a)
        cols.append(np.tile(np.arange(width) + (k + 1) * width, width))
    n = width * layers
    A = gg.Matrix.from_coo(np.concatenate(rows), np.concatenate(cols), 1.0, nrows=n, ncols=n)
    with pytest.raises(gg.InvalidValue, match="overflow"):
        betweenness(A, [0])
    # a shorter stack stays finite
    m = width * 64
    small = gg.Matrix.from_coo(np.concatenate(rows[:63]), np.concatenate(cols[:63]), 1.0,
                               nrows=m, ncols=m)
    assert np.isfinite(backend.to_host(betweenness(small, [0]))).all()
