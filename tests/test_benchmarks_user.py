"""benchmarks.cases_user and benchmarks.user_algorithms: the user-written BFS and PageRank
(public API only) give the built-ins' answers on random graphs and LAGraph's, both cases run
tiny and check every result, and the checks catch a wrong one."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from grblas_gpu import algorithms
import grblas_gpu as gg
from grblas_gpu.benchmarks import cases_gap, cases_user
from grblas_gpu.benchmarks.run import command
from grblas_gpu.benchmarks.user_algorithms import out_degree, user_bfs, user_pagerank
from conftest import lagraph_file
from grblas_gpu import backend, generate, io

UNREACHED = 2**31 - 1


def host(a):
    return np.asarray(backend.to_host(a))


def scipy_of(A):
    indptr, indices, _ = (host(x) if x is not None else None for x in A.to_csr(device=True))
    return sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=A.shape)


def transpose(A):
    return gg.transpose(gg.Matrix(A.dtype, A.ncols, A.nrows), A)


def tree_levels(S, parents, source):
    """Each vertex's depth in the tree ``parents`` (π(source) = source, -1: unreached),
    UNREACHED where it has none; AssertionError for a tree edge not in S or a cycle.
    Plain Python, no algebra."""
    n = len(parents)
    levels = np.full(n, UNREACHED, dtype=np.int64)
    assert parents[source] == source
    for v in range(n):
        if parents[v] < 0:
            continue
        depth, u = 0, v
        while u != source:
            p = int(parents[u])
            assert p >= 0 and S[p, u] != 0, f"tree edge {p} -> {u} is not in the graph"
            depth, u = depth + 1, p
            assert depth <= n, "the parents hold a cycle"
        levels[v] = depth
    return levels


def check_user_bfs(A, source, AT):
    S = scipy_of(A)
    pi = user_bfs(A, AT, source)
    assert pi.dtype == gg.INT64
    parents = pi.to_dense(fill=-1)
    dist, _ = algorithms.bfs(A, source)
    np.testing.assert_array_equal(tree_levels(S, parents, source), host(dist))
    if AT is not None:   # the out-degrees given (cached per graph) search the same levels
        given = user_bfs(A, AT, source, out_degree(A)).to_dense(fill=-1)
        np.testing.assert_array_equal(tree_levels(S, given, source), host(dist))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("symmetric", [True, False])
def test_user_bfs_levels_random(seed, symmetric):
    A = generate.rmat(7, 8, seed=seed, symmetric=symmetric)
    S = scipy_of(A)
    rng = np.random.default_rng(seed)
    for source in [int(np.argmax(np.diff(S.indptr))), int(rng.integers(A.nrows))]:
        check_user_bfs(A, source, None)                          # push only
        check_user_bfs(A, source, A if symmetric else transpose(A))


def test_user_bfs_switches_to_pull(monkeypatch):
    """Large frontiers pull: the search calls mxv beyond the degrees' one."""
    import grblas_gpu.benchmarks.user_algorithms as ua

    A = generate.rmat(10, 16, seed=3)
    calls, real = [], gg.mxv

    def spy(*args, **kw):
        calls.append(args[1])
        return real(*args, **kw)

    monkeypatch.setattr(ua.gg, "mxv", spy)
    source = int(np.argmax(np.diff(scipy_of(A).indptr)))
    pi = user_bfs(A, A, source)
    monkeypatch.undo()
    assert len(calls) > 1                                        # the degrees, then pulls
    dist, _ = algorithms.bfs(A, source)
    np.testing.assert_array_equal(tree_levels(scipy_of(A), pi.to_dense(fill=-1), source),
                                  host(dist))


@pytest.mark.parametrize("name", ["karate.mtx", "west0067.mtx", "cover.mtx",
                                  "ldbc-directed-example.mtx", "jagmesh7.mtx"])
def test_user_bfs_lagraph(name):
    A = io.read_mm(lagraph_file(name))
    S = scipy_of(A)
    symmetric = (S != S.T).nnz == 0
    for source in sorted({0, int(np.argmax(np.diff(S.indptr))), A.nrows - 1}):
        check_user_bfs(A, source, A if symmetric else transpose(A))
        check_user_bfs(A, source, None)


def networkx_pagerank(A, damping):
    G = nx.from_scipy_sparse_array(scipy_of(A), create_using=nx.DiGraph)
    pr = nx.pagerank(G, damping, tol=1e-12, max_iter=1000)
    return np.array([pr[i] for i in range(A.nrows)])


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("symmetric", [True, False])
def test_user_pagerank_matches_networkx(seed, symmetric):
    """Dangling vertices included (a directed R-MAT has many)."""
    A = generate.rmat(7, 8, seed=seed, symmetric=symmetric)
    ref = networkx_pagerank(A, 0.85)
    for AT in (None, A if symmetric else transpose(A)):
        r, its = user_pagerank(A, AT, 0.85, tol=1e-7, max_iter=300)
        ranks = r.to_dense()
        assert r.nvals == A.nrows and its < 300
        assert abs(ranks.sum() - 1) < 1e-5
        assert np.abs(ranks - ref).sum() < 1e-4


def test_user_pagerank_lagraph():
    A = io.read_mm(lagraph_file("karate.mtx"))
    r, _ = user_pagerank(A, A, 0.85, tol=1e-7, max_iter=300)
    assert np.abs(r.to_dense() - networkx_pagerank(A, 0.85)).sum() < 1e-4


def test_user_pagerank_stops_at_max_iter():
    A = generate.rmat(6, 8, seed=1)
    _, its = user_pagerank(A, A, 0.85, tol=0, max_iter=3)
    assert its == 3


def test_user_bfs_case_tiny():
    rows = cases_user.user_bfs_case(scale=6, sources=4)
    user, captured, built = rows[0], rows[1], rows[2]
    assert user["method"].startswith("user-written") and user["check passed"] is True
    assert user["user trees valid (Graph500)"] and user["built-in trees valid (Graph500)"]
    assert user["captured trees valid (Graph500)"]
    assert "captured" in captured["method"]
    assert captured["recorded"] is backend.is_gpu, captured.get("why not recorded")
    for r in (user, captured, built):
        assert r["sources"] == 4 and r["GTEPS (harmonic mean)"] > 0
    assert user["vs built-in"] > 0 and user["first call s"] > 0
    ss = rows[3]
    if "skipped" not in ss:
        assert ss["check passed"] is True and user["vs SuiteSparse"] > 0


def test_user_pagerank_case_tiny():
    rows = cases_user.user_pagerank_case(scale=6, reps=1)
    user = rows[0]
    assert user["check passed"] is True and user["iterations"] >= 1
    assert [r["method"] for r in rows[1:]] == ["user-written PageRank, captured (gg.loop)",
                                               "grblas_gpu pagerank (built-in)",
                                               f"{cases_gap._sparse()[1]} power loop"]
    assert user["L1 diff vs built-in"] < 1e-3
    captured = rows[1]
    assert captured["check passed"] is True and captured["iterations"] == user["iterations"]
    assert captured["recorded"] is backend.is_gpu, captured.get("why not recorded")


def test_checks_catch_a_wrong_tree(monkeypatch):
    A = cases_gap.make_graph("kron", 6)
    E = cases_gap._Edges(A)
    s = cases_gap.pick_sources(A, 1)[0]
    dist, _ = algorithms.bfs(A, s)
    pi = user_bfs(A, A, s)
    parents = cases_user.parents_array(pi, s)
    assert cases_gap.check_bfs(E, s, dist, parents) is None
    v = int(host(backend.xp.flatnonzero(dist == 2))[0])     # a vertex two levels down
    bad = parents.copy()
    bad[v] = s                                                # the source: one level off
    assert cases_gap.check_bfs(E, s, dist, bad) is not None

    real = cases_user.user_bfs

    def corrupt(A, AT, source, deg=None):
        pi = real(A, AT, source, deg)
        idx, vals = pi.to_coo()
        j = int(idx[idx != source][0])
        pi[j] = j                                             # its own parent
        return pi

    monkeypatch.setattr(cases_user, "user_bfs", corrupt)
    user = cases_user.user_bfs_case(scale=6, sources=2)[0]
    assert user["check passed"] is False and user["user trees valid (Graph500)"] is False
    assert user["first failure"].startswith("user, source")


def test_checks_catch_wrong_ranks(monkeypatch):
    real = cases_user.user_pagerank

    def corrupt(*args):
        r, its = real(*args)
        r[0] = float(r[0]) + 1e-3
        return r, its

    monkeypatch.setattr(cases_user, "user_pagerank", corrupt)
    user = cases_user.user_pagerank_case(scale=6, reps=1)[0]
    assert user["check passed"] is False


def test_command_line(tmp_path, capsys):
    out = tmp_path / "rows.json"
    assert command(["--cases", "user", "--scale", "5", "--reps", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "user-written BFS" in text and "user-written PageRank" in text
    assert command(["--cases", "user:user_pagerank", "--scale", "5", "--reps", "1"]) == 0
