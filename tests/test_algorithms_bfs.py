"""algorithms.bfs: levels against SciPy / NetworkX, trees by Graph500's validation rules, both
directions (forced and chosen), edge masks, traces and bad input."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import grblas_gpu as gg
from algorithms import bfs, bfs_advanced
from conftest import lagraph_file
from grblas_gpu import backend, generate, io

INF = 2**31 - 1


def host(a):
    return backend.to_host(a)


def scipy_of(A):
    rows, cols, _ = A.to_coo()
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=A.shape)


def reference_levels(S, source):
    d = csgraph.shortest_path(S, unweighted=True, indices=source, directed=True)
    return np.where(np.isinf(d), INF, d).astype(np.int64)


def check_graph500(S, source, dist, pred):
    """Graph500's BFS validation (plain loops over the edge list, no algebra):
    1. the parents form a tree rooted at the source (no cycles, every path ends there);
    2. each tree edge is an edge of the graph and joins levels differing by one;
    3. every graph edge u -> v with u reached has level(v) <= level(u) + 1;
    4. the tree spans exactly the vertices reachable from the source."""
    n = S.shape[0]
    dist, pred = np.asarray(dist, np.int64), np.asarray(pred, np.int64)
    S = S.tocsr()
    edges = set(zip(*S.nonzero()))
    assert dist[source] == 0 and pred[source] == -1
    reached = dist != INF
    for v in range(n):
        if not reached[v]:
            assert pred[v] == -1
            continue
        if v == source:
            continue
        p = pred[v]
        assert 0 <= p < n and reached[p], (v, p)
        assert (p, v) in edges, f"tree edge {p}->{v} is not in the graph"
        assert dist[v] == dist[p] + 1, (v, p, dist[v], dist[p])
    # 1: following parents always reaches the source within dist[v] steps (so no cycle)
    for v in np.nonzero(reached)[0]:
        u, steps = v, 0
        while u != source:
            u, steps = pred[u], steps + 1
            assert steps <= dist[v]
    rows, cols = S.nonzero()
    ok = ~reached[rows] | (dist[cols] <= dist[rows] + 1)
    assert ok.all(), "an edge skips a level"
    np.testing.assert_array_equal(reached, reference_levels(S, source) != INF)


def test_guide_example_directly():
    ptr = [0, 1, 3, 4, 6, 8, 10, 12]
    idx = [5, 0, 2, 0, 4, 5, 2, 3, 3, 4, 1, 5]
    A = gg.Matrix.from_csr(np.array(ptr), np.array(idx), ncols=7)
    dist, pred = bfs(A, 1)
    assert host(dist).dtype == np.int32 and host(pred).dtype == np.int32
    assert host(dist).tolist() == [1, 0, 1, 3, 3, 2, INF]
    assert host(pred).tolist() == [1, -1, 1, 5, 5, 0, -1]


def test_karate_against_networkx():
    A = generate.karate()
    G = nx.karate_club_graph()
    F = io.read_mm(lagraph_file("karate.mtx"))          # LAGraph's copy: the same graph
    assert host(bfs(F, 5, undirected=True)[0]).tolist() == host(bfs(A, 5)[0]).tolist()
    for source in (0, 16, 33):
        dist, pred = bfs(A, source, undirected=True)
        ref = nx.single_source_shortest_path_length(G, source)
        assert host(dist).tolist() == [ref[v] for v in range(34)]
        check_graph500(scipy_of(A), source, host(dist), host(pred))


@pytest.mark.parametrize("seed", [1, 2])
def test_rmat_undirected_graph500(seed):
    A = generate.rmat(10, seed=seed)
    S = scipy_of(A)
    figures = []
    degrees = np.diff(S.indptr)
    for source in (int(np.argmax(degrees)), int(np.nonzero(degrees)[0][-1])):
        dist, pred = bfs(A, source, undirected=True, trace=figures.append)
        np.testing.assert_array_equal(host(dist), reference_levels(S, source))
        check_graph500(S, source, host(dist), host(pred))
    directions = {f["direction"] for f in figures}
    assert directions == {"push", "pull"}, "an R-MAT BFS should switch to pull and back"
    assert all(set(f) == {"iteration", "direction", "frontier", "edges", "unexplored"}
               for f in figures)


def test_repeated_searches_on_one_graph_reuse_the_workspace():
    """bfs_advanced keeps its level kernels' state and recorded batch with S: later searches
    from other sources (replayed batches on the GPU), interleaved with new content for AT
    (which makes the workspace again) and for S itself, give the right trees, each in new
    arrays (an earlier search's results stay as they were)."""
    A = generate.rmat(10, seed=3)
    S = scipy_of(A)
    P = gg.apply(gg.Matrix(gg.INT32, A.nrows, A.ncols), A, "one")
    T = gg.transpose(gg.Matrix(gg.INT32, A.nrows, A.ncols), P)   # (P is symmetric)
    degrees = np.diff(S.indptr)
    sources = [int(s) for s in np.argsort(-degrees)[:4]] + [int(np.nonzero(degrees)[0][-1])]
    results = []
    for k, source in enumerate(sources * 2):
        if k == 6:  # new content for AT (the same values): the workspace is made again
            gg.apply(T, P, "one")
        dist, pred = bfs_advanced(P, source, AT=T)
        results.append((source, dist, pred))
        np.testing.assert_array_equal(host(dist), reference_levels(S, source))
        check_graph500(S, source, host(dist), host(pred))
    for source, dist, pred in results:
        np.testing.assert_array_equal(host(dist), reference_levels(S, source))
    [ws] = P.memo("algorithms.bfs.free", list)   # one search at a time: one workspace
    if backend.is_gpu:
        assert ws.run_levels.recorded and ws.run_levels.plain_calls == 0, \
            ws.run_levels.why_not_recorded
    # S changed: its memo is gone, and the search runs on the new graph
    keep = host(A.to_coo()[0]) != 0
    rows, cols, _ = A.to_coo()
    B = gg.Matrix.from_coo(rows[keep], cols[keep], 1, nrows=A.nrows, ncols=A.ncols,
                           dtype=gg.INT32)
    gg.apply(P, B, "one")
    S2 = scipy_of(B)
    dist, pred = bfs_advanced(P, sources[1], AT=None)
    np.testing.assert_array_equal(host(dist), reference_levels(S2, sources[1]))
    check_graph500(S2, sources[1], host(dist), host(pred))


def test_directed_push_only_and_pull_with_transpose():
    A = generate.rmat(9, seed=5, symmetric=False)
    S = scipy_of(A)
    source = int(np.argmax(np.diff(S.indptr)))
    figures = []
    dist, pred = bfs(A, source, trace=figures.append)
    assert {f["direction"] for f in figures} == {"push"}   # no Aᵀ: push only, like nvGRAPH
    np.testing.assert_array_equal(host(dist), reference_levels(S, source))
    check_graph500(S, source, host(dist), host(pred))
    # the advanced entry point with Aᵀ may pull
    P = gg.apply(gg.Matrix(gg.INT32, A.nrows, A.ncols), A, "one")
    AT = gg.transpose(gg.Matrix(gg.INT32, A.nrows, A.ncols), P)
    figures = []
    dist2, pred2 = bfs_advanced(P, source, AT=AT, alpha=1e6,
                                trace=figures.append)
    assert "pull" in {f["direction"] for f in figures}
    np.testing.assert_array_equal(host(dist2), host(dist))
    check_graph500(S, source, host(dist2), host(pred2))


def test_west0067_directed():
    A = io.read_mm(lagraph_file("west0067.mtx"))
    S = scipy_of(A)
    for source in (0, 30, 66):
        dist, pred = bfs(A, source)
        np.testing.assert_array_equal(host(dist), reference_levels(S, source))
        check_graph500(S, source, host(dist), host(pred))


@pytest.mark.parametrize("alpha,beta", [(1e-9, 18), (1e9, 1e-9), (1e9, 1e9), (2, 4)])
def test_forced_directions_give_the_same_levels(alpha, beta):
    A = generate.rmat(9, seed=11)
    S = scipy_of(A)
    source = int(np.argmax(np.diff(S.indptr)))
    figures = []
    dist, pred = bfs(A, source, undirected=True, alpha=alpha, beta=beta, trace=figures.append)
    np.testing.assert_array_equal(host(dist), reference_levels(S, source))
    check_graph500(S, source, host(dist), host(pred))
    if alpha == 1e-9:
        assert {f["direction"] for f in figures} == {"push"}
    if alpha == 1e9 and beta == 1e-9:
        assert [f["direction"] for f in figures][:1] == ["pull"]


def test_edge_mask_disables_edges():
    A = generate.rmat(9, seed=3, symmetric=False)
    rng = np.random.default_rng(0)
    mask = (rng.random(A.nvals) < 0.6).astype(np.int32)
    rows, cols, _ = A.to_coo()
    keep = mask != 0
    S = sp.csr_matrix((np.ones(keep.sum()), (rows[keep], cols[keep])), shape=A.shape)
    source = int(rows[0])
    dist, pred = bfs(A, source, edge_mask=backend.xp.asarray(mask))
    np.testing.assert_array_equal(host(dist), reference_levels(S, source))
    check_graph500(S, source, host(dist), host(pred))
    # undirected flag with a mask on a symmetric graph: pull reads the reverse edges' mask
    B = generate.rmat(8, seed=4)
    rb, cb, _ = B.to_coo()
    mb = (rb + cb) % 3 != 0          # symmetric: (i, j) and (j, i) agree
    Sb = sp.csr_matrix((np.ones(mb.sum()), (rb[mb], cb[mb])), shape=B.shape)
    src = int(rb[0])
    dist, pred = bfs(B, src, undirected=True, edge_mask=mb.astype(np.int32), alpha=1e9)
    np.testing.assert_array_equal(host(dist), reference_levels(Sb, src))
    check_graph500(Sb, src, host(dist), host(pred))


def test_isolated_source_and_values_ignored():
    A = gg.Matrix.from_coo([0, 1], [1, 2], [-3.5, 0.0], nrows=4, ncols=4)
    dist, pred = bfs(A, 3)
    assert host(dist).tolist() == [INF, INF, INF, 0]
    assert host(pred).tolist() == [-1, -1, -1, -1]
    dist, pred = bfs(A, 0)                 # a zero or negative value is still an edge
    assert host(dist).tolist() == [0, 1, 2, INF]
    assert host(pred).tolist() == [-1, 0, 1, -1]


def test_bad_input():
    A = generate.karate()
    with pytest.raises(gg.IndexOutOfBounds):
        bfs(A, 34)
    with pytest.raises(gg.InvalidValue):
        bfs(A, 1.5)
    with pytest.raises(gg.DimensionMismatch):
        bfs(gg.Matrix(gg.BOOL, 3, 4), 0)
    with pytest.raises(gg.DimensionMismatch):
        bfs(A, 0, edge_mask=np.ones(5))
    with pytest.raises(gg.InvalidValue):
        bfs(A, 0, alpha=0)


def test_more_vertices_than_int32_ids_hold_raises_and_changes_nothing():
    """Vertex ids are int32: 2**31 vertices or more is InvalidValue, and so are 2**33 edges
    or more (a list's edge offsets share a word with its length), raised before anything is
    built (S stands in for a matrix that large)."""
    class Huge(gg.Matrix):
        nrows = ncols = property(lambda self: 2**31)

    S = Huge(gg.INT32, 4, 4)
    with pytest.raises(gg.InvalidValue, match="2\\*\\*31 - 1 vertices"):
        bfs_advanced(S, 0, AT=None)
    assert S.nvals == 0
    assert S.memo("algorithms.bfs.free", list) == []  # no workspace was made

    class Dense(gg.Matrix):
        nvals = property(lambda self: 2**33)

    D = Dense(gg.INT32, 4, 4)
    with pytest.raises(gg.InvalidValue, match="2\\*\\*33 - 1 edges"):
        bfs_advanced(D, 0, AT=None)
    assert D.memo("algorithms.bfs.free", list) == []


@pytest.mark.parametrize("n", [3, 8, 9, 17, 40])
def test_paths_longer_than_a_batch_of_levels(n):
    """A path 0 - 1 - ... - n-1 needs n levels: several batches of the fused levels (BATCH
    per device read), ending inside a batch or at its last level."""
    from grblas_gpu.kernels.bfs import BATCH

    assert BATCH == 8
    rows = np.arange(n - 1)
    A = gg.Matrix.from_coo(np.r_[rows, rows + 1], np.r_[rows + 1, rows], 1, nrows=n, ncols=n,
                           dtype=gg.INT32)
    for undirected in (False, True):
        figures = []
        dist, pred = bfs(A, 0, undirected=undirected, trace=figures.append)
        assert host(dist).tolist() == list(range(n))
        assert host(pred).tolist() == [-1, *range(n - 1)]
        assert [f["frontier"] for f in figures] == [1] * (n - 1) + [0]
        dist, pred = bfs(A, n - 1, undirected=undirected)
        assert host(dist).tolist() == list(range(n - 1, -1, -1))


def semiring_bfs(A, source, direction):
    """The module docstring's formulation as GraphBLAS calls, one level at a time (the levels
    the fused kernels must give): q⟨¬pi.S, replace⟩ = q any.secondi S (or its pull),
    dist⟨q.S⟩ = level, parent⟨q.S⟩ = q."""
    from grblas_gpu import Descriptor

    n = A.nrows
    S = gg.apply(gg.Matrix(gg.INT64, n, n), A, "one")
    q = gg.Vector.from_coo([source], [source], size=n, dtype=gg.INT64)
    pi = q.dup()
    dist = gg.Vector.from_coo([source], [0], size=n, dtype=gg.INT64)
    level = 0
    while q.nvals:
        level += 1
        if direction == "push":
            gg.vxm(q, q, S, "any_secondi", mask=~pi.S, desc=Descriptor(replace=True))
        else:
            gg.mxv(q, S.T, q, "any_secondi", mask=~pi.S, desc=Descriptor(replace=True))
        gg.assign(dist, level, gg.ALL, mask=q.S)
        gg.apply(pi, q, "identity", accum="second")
    return host(dist.to_dense(fill=INF)), host(pi.to_dense(fill=-1))


@pytest.mark.parametrize("direction,alpha,beta", [("push", 1e-9, 18), ("pull", 1e9, 1e9)])
def test_levels_match_the_semiring_formulation(direction, alpha, beta):
    """(alpha, beta) force the fused levels the same way: push throughout, or pull from the
    first level on (it never turns back: nf < n / 1e9 never holds)."""
    A = generate.rmat(9, seed=13)
    source = int(np.argmax(np.diff(scipy_of(A).indptr)))
    ref_dist, ref_parent = semiring_bfs(A, source, direction)
    figures = []
    dist, pred = bfs(A, source, undirected=True, alpha=alpha, beta=beta, trace=figures.append)
    assert {f["direction"] for f in figures} == {direction}
    np.testing.assert_array_equal(host(dist), ref_dist)
    reached = ref_dist != INF
    assert (host(pred)[reached & (ref_dist > 0)] >= 0).all()
    assert (ref_parent[reached & (ref_dist > 0)] >= 0).all()


@pytest.mark.parametrize("kwargs", [{"alpha": "x"}, {"beta": [1, 2]}, {"alpha": float("nan")},
                                    {"beta": -1}, {"alpha": None, "beta": object()}])
def test_wrong_typed_thresholds_raise_invalid_value(kwargs):
    A = generate.karate()
    with pytest.raises(gg.InvalidValue):
        bfs(A, 0, undirected=True, **kwargs)
