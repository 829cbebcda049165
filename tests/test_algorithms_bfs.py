"""algorithms.bfs, both methods (the GraphBLAS formulation, method="semiring", and the fused
levels of gg.traverse, method="fused"): levels against SciPy / NetworkX and each other, trees
by Graph500's validation rules, both directions (forced and chosen), edge masks, LAGraph's
matrices, traces, the auto dispatcher and bad input; the default call's symmetry check and
cached transpose (made once, dropped when A changes). (gg.traverse's own contract, its
workspaces and capability check: test_traversal.py.)"""
import sys

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import grblas_gpu as gg
from grblas_gpu.algorithms import bfs, bfs_advanced
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
    """Graph500's BFS validation (array checks over the edge list, no algebra):
    1. the parents form a tree rooted at the source (no cycles, every path ends there);
    2. each tree edge is an edge of the graph and joins levels differing by one;
    3. every graph edge u -> v with u reached has level(v) <= level(u) + 1;
    4. the tree spans exactly the vertices reachable from the source."""
    n = S.shape[0]
    dist, pred = np.asarray(dist, np.int64), np.asarray(pred, np.int64)
    S = S.tocsr()
    rows, cols = S.nonzero()
    assert dist[source] == 0 and pred[source] == -1
    reached = dist != INF
    assert (pred[~reached] == -1).all(), "an unreached vertex has a parent"
    assert (dist[reached] >= 0).all()
    v = np.flatnonzero(reached & (np.arange(n) != source))
    p = pred[v]
    assert ((0 <= p) & (p < n)).all() and reached[p].all(), "a parent is not reached"
    # 2
    assert np.isin(p * n + v, rows.astype(np.int64) * n + cols).all(), \
        "a tree edge is not in the graph"
    assert (dist[v] == dist[p] + 1).all(), "a tree edge skips a level"
    # 1: by 2 each parent is one level nearer, so following parents ends at a vertex of
    # level 0, and the source is the only one
    assert np.count_nonzero(dist[reached] == 0) == 1
    # 3
    ok = ~reached[rows] | (dist[cols] <= dist[rows] + 1)
    assert ok.all(), "an edge skips a level"
    # 4
    np.testing.assert_array_equal(reached, reference_levels(S, source) != INF)


METHODS = ["fused", "semiring"]
KEYS = {"iteration", "direction", "frontier", "edges", "unexplored", "path"}


def pattern_and_transpose(A):
    P = gg.apply(gg.Matrix(gg.INT32, A.nrows, A.ncols), A, "one")
    return P, gg.transpose(gg.Matrix(gg.INT32, A.nrows, A.ncols), P)


def kept(A, key):
    """What A keeps under a memo key (None: nothing), without making it."""
    return A._cache.get(key)


def both_methods(search):
    """search(method=..., trace=...) by each method: the same levels and the same trace
    figures (the direction rule sees the same counts), each path named in its trace; returns
    the fused result and the semiring result."""
    results, traces = [], []
    for method in METHODS:
        figures = []
        results.append(search(method=method, trace=figures.append))
        assert all(set(f) == KEYS and f["path"] == method for f in figures), figures
        traces.append([{k: v for k, v in f.items() if k != "path"} for f in figures])
        dist, pred = results[-1]
        assert host(dist).dtype == np.int32 and host(pred).dtype == np.int32
    np.testing.assert_array_equal(host(results[0][0]), host(results[1][0]))
    assert traces[0] == traces[1]
    return results


@pytest.mark.parametrize("method", METHODS)
def test_guide_example_directly(method):
    ptr = [0, 1, 3, 4, 6, 8, 10, 12]
    idx = [5, 0, 2, 0, 4, 5, 2, 3, 3, 4, 1, 5]
    A = gg.Matrix.from_csr(np.array(ptr), np.array(idx), ncols=7)
    dist, pred = bfs(A, 1, method=method)
    assert host(dist).dtype == np.int32 and host(pred).dtype == np.int32
    assert host(dist).tolist() == [1, 0, 1, 3, 3, 2, INF]
    assert host(pred).tolist() == [1, -1, 1, 5, 5, 0, -1]


@pytest.mark.parametrize("method", METHODS)
def test_karate_against_networkx(method):
    A = generate.karate()
    G = nx.karate_club_graph()
    F = io.read_mm(lagraph_file("karate.mtx"))          # LAGraph's copy: the same graph
    assert (host(bfs(F, 5, undirected=True, method=method)[0]).tolist()
            == host(bfs(A, 5, method=method)[0]).tolist())
    for source in (0, 16, 33):
        dist, pred = bfs(A, source, undirected=True, method=method)
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
        for dist, pred in both_methods(lambda **kw: bfs(A, source, undirected=True, **kw)):
            np.testing.assert_array_equal(host(dist), reference_levels(S, source))
            check_graph500(S, source, host(dist), host(pred))
        bfs(A, source, undirected=True, trace=figures.append)
    directions = {f["direction"] for f in figures}
    assert directions == {"push", "pull"}, "an R-MAT BFS should switch to pull and back"
    assert {f["path"] for f in figures} == {"fused"}    # auto: fused where supported


@pytest.mark.parametrize("seed", range(6))
def test_random_graphs_both_methods(seed):
    """Erdős–Rényi graphs, directed and undirected, with and without Aᵀ, chosen and forced
    thresholds: identical levels and traces by both methods, valid trees."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    density = float(rng.choice([0.002, 0.01, 0.05]))
    M = sp.random(n, n, density=density, format="csr", random_state=seed)
    M.data[:] = 1
    U = ((M + M.T) > 0).astype(np.float64)
    alpha, beta = [(None, None), (1e-9, 18), (1e9, 1e9), (2, 4)][seed % 4]
    for Msp, undirected in ((M, False), (U, True)):
        A = gg.Matrix.from_scipy(sp.csr_matrix(Msp))
        P, AT = pattern_and_transpose(A)
        source = int(rng.integers(n))
        ref = reference_levels(Msp, source)
        searches = [lambda **kw: bfs(A, source, undirected=undirected, alpha=alpha,
                                     beta=beta, **kw),
                    lambda **kw: bfs_advanced(P, source, AT=AT, alpha=alpha, beta=beta, **kw)]
        for search in searches:
            for dist, pred in both_methods(search):
                np.testing.assert_array_equal(host(dist), ref)
                check_graph500(Msp, source, host(dist), host(pred))


LAGRAPH = ["A.mtx", "cover.mtx", "jagmesh7.mtx", "ldbc-directed-example.mtx",
           "ldbc-undirected-example.mtx", "west0067.mtx", "bcsstk13.mtx", "pushpull.mtx",
           "msf1.mtx", "cryg2500.mtx", "LFAT5.mtx", "olm1000.mtx", "sample.mtx",
           "tree-example.mtx"]


@pytest.mark.parametrize("name", LAGRAPH)
def test_lagraph_matrices(name):
    """LAGraph's test matrices (its BFS tests' among them): both methods, pushing only, and
    with the transpose (pull allowed; undirected where the pattern is symmetric)."""
    A = io.read_mm(lagraph_file(name))
    S = scipy_of(A)
    symmetric = (S != S.T).nnz == 0
    P, AT = pattern_and_transpose(A)
    degrees = np.diff(S.indptr)
    sources = sorted({0, int(np.argmax(degrees)), A.nrows - 1})
    if name == "pushpull.mtx":     # (2006 levels: the semiring method's 0.6 ms each)
        sources = [int(np.argmax(degrees))]
    for source in sources:
        ref = reference_levels(S, source)
        searches = [lambda **kw: bfs(A, source, undirected=symmetric, **kw),
                    lambda **kw: bfs_advanced(P, source, AT=AT, alpha=1, **kw)]
        for search in searches:
            for dist, pred in both_methods(search):
                np.testing.assert_array_equal(host(dist), ref)
                check_graph500(S, source, host(dist), host(pred))


@pytest.mark.parametrize("method", METHODS)
def test_directed_default_pulls_with_the_cached_transpose(method):
    """A directed graph: the default call builds Sᵀ (kept with A) and pulls where Beamer's
    rule says, exactly as the advanced entry point given Sᵀ; given AT=None it pushes only."""
    A = generate.rmat(9, seed=5, symmetric=False)
    S = scipy_of(A)
    source = int(np.argmax(np.diff(S.indptr)))
    assert not A.is_symmetric(structure=True)
    figures = []
    dist, pred = bfs(A, source, method=method, trace=figures.append)
    assert {f["direction"] for f in figures} == {"push", "pull"}
    np.testing.assert_array_equal(host(dist), reference_levels(S, source))
    check_graph500(S, source, host(dist), host(pred))
    P, AT = pattern_and_transpose(A)
    advanced = []
    dist2, _ = bfs_advanced(P, source, AT=AT, method=method, trace=advanced.append)
    assert advanced == figures
    figures = []
    dist3, pred3 = bfs_advanced(P, source, AT=None, method=method, trace=figures.append)
    assert {f["direction"] for f in figures} == {"push"}   # no Sᵀ: push only, like nvGRAPH
    np.testing.assert_array_equal(host(dist3), host(dist))
    check_graph500(S, source, host(dist3), host(pred3))
    ST = kept(A, "algorithms.bfs.pattern_transpose")
    assert ST is not None and ST.isequal(AT)


@pytest.mark.parametrize("method", METHODS)
def test_symmetric_default_pulls_without_the_flag(method):
    """A symmetric graph: the default call finds the pattern symmetric (once, kept with A)
    and runs the same levels, directions and trace as the undirected=True promise."""
    A = generate.rmat(10, seed=7)
    S = scipy_of(A)
    source = int(np.argmax(np.diff(S.indptr)))
    flagged, default = [], []
    d1, _ = bfs(A, source, undirected=True, method=method, trace=flagged.append)
    d2, p2 = bfs(A, source, method=method, trace=default.append)
    assert default == flagged
    assert {f["direction"] for f in default} == {"push", "pull"}
    np.testing.assert_array_equal(host(d2), host(d1))
    np.testing.assert_array_equal(host(d2), reference_levels(S, source))
    check_graph500(S, source, host(d2), host(p2))
    assert kept(A, ("grblas_gpu.Matrix.is_symmetric", True)) is True
    # no Sᵀ is built or kept for a symmetric pattern
    assert kept(A, "algorithms.bfs.pattern_transpose") is None


@pytest.mark.parametrize("method", METHODS)
def test_the_check_and_the_transpose_are_made_once_and_dropped_with_A(method, monkeypatch):
    """A second search reuses the symmetry check and Sᵀ; new content in A drops both (a
    symmetric graph made directed gets its Sᵀ; made symmetric again, none)."""
    bfs_module = sys.modules["grblas_gpu.algorithms.bfs"]   # (algorithms.bfs is the function)
    checks, transposes = [], []
    real_check, real_transpose = gg.Matrix._symmetric, bfs_module._transpose
    monkeypatch.setattr(gg.Matrix, "_symmetric",
                        lambda self, structure: checks.append(self) or real_check(self, structure))
    monkeypatch.setattr(bfs_module, "_transpose",
                        lambda S: transposes.append(S) or real_transpose(S))
    A = generate.rmat(8, seed=2).dup()   # (a copy: the generator's graph knows its symmetry)
    n = A.nrows
    for source in (0, 1, 2):
        bfs(A, source, method=method)
    assert (len(checks), len(transposes)) == (1, 0)
    bfs(A, 0, undirected=True, method=method)             # the promise: no check
    assert len(checks) == 1
    # a one-way edge (u, v): A is directed now
    rows, cols, _ = A.to_coo()
    present = set(zip(rows.tolist(), cols.tolist()))
    u, v = next((i, j) for i in range(n) for j in range(n)
                if i != j and (i, j) not in present and (j, i) not in present)
    A[u, v] = 1
    assert kept(A, "algorithms.bfs.pattern") is None   # dropped with the change
    S = scipy_of(A)
    for source in (u, v, u):
        dist, pred = bfs(A, source, alpha=1e9, method=method)
        np.testing.assert_array_equal(host(dist), reference_levels(S, source))
        check_graph500(S, source, host(dist), host(pred))
    assert (len(checks), len(transposes)) == (2, 1)
    # (v, u) too: symmetric again, by an operation writing into A
    B = gg.Matrix.from_coo([v], [u], 1, nrows=n, ncols=n, dtype=A.dtype)
    gg.ewise_add(A, A, B, "plus")
    dist, _ = bfs(A, u, method=method)
    assert (len(checks), len(transposes)) == (3, 1)
    np.testing.assert_array_equal(host(dist), reference_levels(scipy_of(A), u))


@pytest.mark.parametrize("alpha,beta", [(1e-9, 18), (1e9, 1e-9), (1e9, 1e9), (2, 4)])
def test_forced_directions_give_the_same_levels(alpha, beta):
    """(1e-9, 18): push throughout; (1e9, 1e-9): pull from the first level, back to push
    when the frontier shrinks; (1e9, 1e9): pull from the first level on (nf < n / 1e9 never
    holds)."""
    A = generate.rmat(9, seed=11)
    S = scipy_of(A)
    source = int(np.argmax(np.diff(S.indptr)))
    figures = []
    for dist, pred in both_methods(lambda **kw: bfs(A, source, undirected=True, alpha=alpha,
                                                    beta=beta, **kw)):
        np.testing.assert_array_equal(host(dist), reference_levels(S, source))
        check_graph500(S, source, host(dist), host(pred))
    bfs(A, source, undirected=True, alpha=alpha, beta=beta, trace=figures.append)
    directions = [f["direction"] for f in figures]
    if alpha == 1e-9:
        assert set(directions) == {"push"}
    if alpha == 1e9:
        assert directions[:1] == ["pull"]
    if (alpha, beta) == (1e9, 1e9):
        assert set(directions) == {"pull"}


@pytest.mark.parametrize("method", METHODS)
def test_edge_mask_disables_edges(method):
    A = generate.rmat(9, seed=3, symmetric=False)
    rng = np.random.default_rng(0)
    mask = (rng.random(A.nvals) < 0.6).astype(np.int32)
    rows, cols, _ = A.to_coo()
    keep = mask != 0
    S = sp.csr_matrix((np.ones(keep.sum()), (rows[keep], cols[keep])), shape=A.shape)
    source = int(rows[0])
    dist, pred = bfs(A, source, edge_mask=backend.xp.asarray(mask), method=method)
    np.testing.assert_array_equal(host(dist), reference_levels(S, source))
    check_graph500(S, source, host(dist), host(pred))
    # undirected flag with a mask on a symmetric graph: pull reads the reverse edges' mask
    B = generate.rmat(8, seed=4)
    rb, cb, _ = B.to_coo()
    mb = (rb + cb) % 3 != 0          # symmetric: (i, j) and (j, i) agree
    Sb = sp.csr_matrix((np.ones(mb.sum()), (rb[mb], cb[mb])), shape=B.shape)
    src = int(rb[0])
    dist, pred = bfs(B, src, undirected=True, edge_mask=mb.astype(np.int32), alpha=1e9,
                     method=method)
    np.testing.assert_array_equal(host(dist), reference_levels(Sb, src))
    check_graph500(Sb, src, host(dist), host(pred))
    dist, pred = bfs(B, src, edge_mask=mb.astype(np.int32), alpha=1e9, method=method)
    np.testing.assert_array_equal(host(dist), reference_levels(Sb, src))


@pytest.mark.parametrize("method", METHODS)
def test_an_edge_mask_gets_its_own_transpose_each_call(method):
    """A mask that keeps (i, j) but not (j, i) makes a symmetric graph's S directed: without
    the promise each call checks S and builds its Sᵀ, so pull follows the kept edges only;
    nothing is kept with A (a copy of a generated graph: the generator's knows its symmetry)."""
    A = generate.rmat(9, seed=8).dup()
    rows, cols, _ = A.to_coo()
    mask = (rows < cols) | (rows % 4 == 0)             # one-way for most pairs
    S = sp.csr_matrix((np.ones(mask.sum()), (rows[mask], cols[mask])), shape=A.shape)
    for source in (int(rows[0]), int(np.argmax(np.diff(S.indptr)))):
        figures = []
        dist, pred = bfs(A, source, edge_mask=mask.astype(np.int8), alpha=1e9, method=method,
                         trace=figures.append)
        assert figures[0]["direction"] == "pull"
        np.testing.assert_array_equal(host(dist), reference_levels(S, source))
        check_graph500(S, source, host(dist), host(pred))
    for key in ("algorithms.bfs.pattern", "algorithms.bfs.pattern_transpose",
                ("grblas_gpu.Matrix.is_symmetric", True)):
        assert kept(A, key) is None


@pytest.mark.parametrize("method", METHODS)
def test_isolated_source_and_values_ignored(method):
    A = gg.Matrix.from_coo([0, 1], [1, 2], [-3.5, 0.0], nrows=4, ncols=4)
    dist, pred = bfs(A, 3, method=method)
    assert host(dist).tolist() == [INF, INF, INF, 0]
    assert host(pred).tolist() == [-1, -1, -1, -1]
    dist, pred = bfs(A, 0, method=method)      # a zero or negative value is still an edge
    assert host(dist).tolist() == [0, 1, 2, INF]
    assert host(pred).tolist() == [-1, 0, 1, -1]


@pytest.mark.parametrize("n", [3, 8, 9, 17, 40])
def test_paths_longer_than_a_batch_of_levels(n):
    """A path 0 - 1 - ... - n-1 needs n levels: several batches of the fused levels (BATCH
    per device read), ending inside a batch or at its last level."""
    assert gg.traversal.BATCH == 8
    rows = np.arange(n - 1)
    A = gg.Matrix.from_coo(np.r_[rows, rows + 1], np.r_[rows + 1, rows], 1, nrows=n, ncols=n,
                           dtype=gg.INT32)
    for undirected in (False, True):
        figures = []
        for dist, pred in both_methods(lambda **kw: bfs(A, 0, undirected=undirected, **kw)):
            assert host(dist).tolist() == list(range(n))
            assert host(pred).tolist() == [-1, *range(n - 1)]
        bfs(A, 0, undirected=undirected, trace=figures.append)
        assert [f["frontier"] for f in figures] == [1] * (n - 1) + [0]
        dist, pred = bfs(A, n - 1, undirected=undirected)
        assert host(dist).tolist() == list(range(n - 1, -1, -1))


def test_auto_takes_fused_where_supported_else_semiring(monkeypatch):
    A = generate.karate()
    figures = []
    bfs(A, 0, undirected=True, trace=figures.append)
    assert {f["path"] for f in figures} == {"fused"}
    asked = []

    def unsupported(S, ST=None):
        asked.append((S, ST))
        return False

    monkeypatch.setattr(gg.traversal, "supports", unsupported)
    figures = []
    dist, pred = bfs(A, 0, undirected=True, trace=figures.append)
    assert {f["path"] for f in figures} == {"semiring"}
    [(S, ST)] = asked
    assert ST is S                                      # undirected: S is its own transpose
    check_graph500(scipy_of(A), 0, host(dist), host(pred))
    figures = []
    bfs(A, 0, method="fused", trace=figures.append)     # a method asked for is not checked
    assert {f["path"] for f in figures} == {"fused"}


def test_the_semiring_method_keeps_its_degrees_with_the_pattern():
    """deg is made once per pattern (S.memo) and dropped with it when S changes."""
    A = generate.rmat(8, seed=6)
    P, _ = pattern_and_transpose(A)
    made = P.memo("algorithms.bfs.out_degree", lambda: None) is not None
    assert not made
    P2, _ = pattern_and_transpose(A)
    bfs_advanced(P2, 0, AT=P2, method="semiring")
    deg = P2.memo("algorithms.bfs.out_degree", lambda: None)
    np.testing.assert_array_equal(host(deg.to_dense(fill=0)), np.diff(scipy_of(A).indptr))
    bfs_advanced(P2, 1, AT=P2, method="semiring")
    assert P2.memo("algorithms.bfs.out_degree", lambda: None) is deg


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
    for method in ("bogus", "Fused", None, 1, ["fused"], np.array(["fused"])):
        with pytest.raises(gg.InvalidValue, match="method"):
            bfs(A, 0, method=method)
    with pytest.raises(gg.InvalidValue, match="trace"):
        bfs(A, 0, trace="print")
    P, _ = pattern_and_transpose(A)
    with pytest.raises(gg.DimensionMismatch):
        bfs_advanced(P, 0, AT=gg.Matrix(gg.INT32, 3, 3))
    with pytest.raises(gg.DimensionMismatch):
        bfs_advanced(P, 0, AT=gg.Matrix(gg.INT32, 34, 35))
    with pytest.raises(gg.InvalidValue):
        bfs_advanced(P, 0, AT=P.T)                       # a view, not a Matrix


def test_more_vertices_than_int32_ids_hold():
    """The fused levels take at most 2**31 - 1 vertices (int32 ids) and 2**33 - 1 edges:
    method="fused" raises InvalidValue beyond, before anything is built (S stands in for a
    matrix that large), and auto would take the semiring method."""
    class Huge(gg.Matrix):
        nrows = ncols = property(lambda self: 2**31)

    S = Huge(gg.INT32, 4, 4)
    with pytest.raises(gg.InvalidValue, match="2\\*\\*31 - 1 vertices"):
        bfs_advanced(S, 0, AT=None, method="fused")
    assert S.nvals == 0
    assert not gg.traversal.supports(S)

    class Dense(gg.Matrix):
        nvals = property(lambda self: 2**33)

    D = Dense(gg.INT32, 4, 4)
    with pytest.raises(gg.InvalidValue, match="2\\*\\*33 - 1 edges"):
        bfs_advanced(D, 0, AT=None, method="fused")
    assert not gg.traversal.supports(D)


@pytest.mark.parametrize("kwargs", [{"alpha": "x"}, {"beta": [1, 2]}, {"alpha": float("nan")},
                                    {"beta": -1}, {"alpha": None, "beta": object()}])
@pytest.mark.parametrize("method", ["auto", *METHODS])
def test_wrong_typed_thresholds_raise_invalid_value(kwargs, method):
    A = generate.karate()
    with pytest.raises(gg.InvalidValue):
        bfs(A, 0, undirected=True, method=method, **kwargs)


def test_the_checker_catches_bad_trees():
    """check_graph500 fails on a parent that is no in-neighbour, on a level off by one and on
    a reachable vertex left unreached."""
    A = generate.karate()
    S = scipy_of(A)
    dist, pred = map(host, bfs(A, 0, undirected=True))
    check_graph500(S, 0, dist, pred)
    v = int(np.flatnonzero(dist == 2)[0])
    not_in = int(np.flatnonzero((dist == 1) & (S[:, v].toarray().ravel() == 0))[0])
    bad = [(dist, np.where(np.arange(34) == v, not_in, pred)),           # not an edge
           (np.where(np.arange(34) == v, 3, dist), pred),                 # a level skipped
           (np.where(np.arange(34) == v, INF, dist), pred)]               # left unreached
    for d, p in bad:
        with pytest.raises(AssertionError):
            check_graph500(S, 0, d, p)
