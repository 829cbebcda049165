"""algorithms.spectral: eigenvalues against dense NumPy / SciPy eigensolvers (Laplacian and
modularity matrix; Lanczos and LOBPCG), clusterings against NetworkX partitions of the same
graph (modularity, exact recovery of planted clusters), analyze_clustering against NetworkX's
metrics, parameter rules and NotConverged."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

import grblas_gpu as gg
from grblas_gpu.algorithms import (BALANCED_CUT_LANCZOS, BALANCED_CUT_LOBPCG, EDGE_CUT, MODULARITY,
                        MODULARITY_MAXIMIZATION, RATIO_CUT, analyze_clustering,
                        spectral_clustering)
from grblas_gpu.algorithms import spectral
from grblas_gpu.algorithms.spectral import laplacian_eigenpairs, modularity_eigenpairs
from conftest import lagraph_file
from grblas_gpu import backend, generate, io

ALGORITHMS = (MODULARITY_MAXIMIZATION, BALANCED_CUT_LANCZOS, BALANCED_CUT_LOBPCG)


def host(a):
    return backend.to_host(a)


@pytest.fixture
def iterative(monkeypatch):
    """The iterative solvers (Lanczos, LOBPCG) on graphs small enough to be solved densely."""
    monkeypatch.setattr(spectral, "DENSE_MAX", 0)


def from_nx(G, dtype=np.float64):
    return gg.Matrix.from_scipy(nx.to_scipy_sparse_array(G, format="csr", dtype=dtype))


def dense_of(A):
    rows, cols, vals = A.to_coo()
    return sp.csr_matrix((vals.astype(float), (rows, cols)), shape=A.shape).toarray()


def parts_of(labels, k):
    labels = host(labels)
    return [set(np.nonzero(labels == c)[0].tolist()) for c in range(k)]


@pytest.mark.parametrize("method", ["lanczos", "lobpcg"])
def test_laplacian_eigenvalues_karate(method):
    A = generate.karate()
    D = dense_of(A)
    L = np.diag(D.sum(1)) - D
    ref = np.linalg.eigvalsh(L)[:4]
    vals, vecs = laplacian_eigenpairs(A, 4, tol=1e-8, method=method)
    vals, vecs = host(vals), host(vecs)
    np.testing.assert_allclose(vals, ref, atol=1e-8 * ref[-1] * 10 + 1e-10)
    np.testing.assert_allclose(np.linalg.norm(L @ vecs - vecs * vals, axis=0), 0, atol=1e-6)
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(4), atol=1e-8)


def test_laplacian_eigenvalues_jagmesh7_against_eigsh():
    A = io.read_mm(lagraph_file("jagmesh7.mtx"))
    A = gg.apply(gg.Matrix(gg.FP64, *A.shape), A, "abs")          # positive weights
    S = sp.csr_matrix(dense_of(A))
    L = sp.diags(np.asarray(S.sum(axis=1)).ravel()) - S
    ref = np.sort(eigsh(L, k=3, sigma=-1e-3, which="LM")[0])
    vals, _ = laplacian_eigenpairs(A, 3, tol=1e-7, method="lanczos")
    np.testing.assert_allclose(host(vals), ref, rtol=1e-7, atol=1e-12)


def test_lobpcg_on_a_weighted_grid_against_eigsh(iterative):
    G = nx.grid_2d_graph(16, 12)
    rng = np.random.default_rng(7)
    for u, v in G.edges:
        G[u][v]["weight"] = rng.uniform(0.5, 2.0)
    S = nx.to_scipy_sparse_array(G, format="csr")
    A = gg.Matrix.from_scipy(S)
    L = sp.diags(np.asarray(S.sum(axis=1)).ravel()) - S
    ref = np.sort(eigsh(L, k=4, sigma=-1e-3, which="LM")[0])
    for method in ("lobpcg", "lanczos"):
        vals, vecs = laplacian_eigenpairs(A, 4, tol=1e-6, method=method, max_iter=5000)
        np.testing.assert_allclose(host(vals), ref, rtol=1e-6, atol=1e-12, err_msg=method)


def test_modularity_eigenvalues(iterative):
    for A in (generate.karate(), generate.rmat(8, seed=3)):
        D = dense_of(A)
        d = D.sum(1)
        B = D - np.outer(d, d) / d.sum()
        ref = np.linalg.eigvalsh(B)[::-1][:3]
        vals, vecs = modularity_eigenpairs(A, 3, tol=1e-9)
        np.testing.assert_allclose(host(vals), ref, rtol=1e-7)
        vecs = host(vecs)
        np.testing.assert_allclose(np.linalg.norm(B @ vecs - vecs * host(vals), axis=0), 0,
                                   atol=1e-6)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_planted_clusters_are_recovered(algorithm):
    G = nx.ring_of_cliques(5, 8)
    A = from_nx(G, np.float32)
    labels, vals, vecs = spectral_clustering(A, 5, 4, algorithm, seed=1)
    assert host(labels).dtype == np.int32 and host(vals).dtype == np.float32
    assert host(vecs).shape == (40, 4)
    ours = sorted(map(sorted, parts_of(labels, 5)))
    ref = sorted(map(sorted, nx.community.greedy_modularity_communities(G)))
    assert ours == ref
    assert analyze_clustering(A, 5, labels, MODULARITY) == pytest.approx(
        nx.community.modularity(G, ref), abs=1e-6)


def test_karate_modularity_against_networkx():
    A = generate.karate()
    G = nx.karate_club_graph()
    ref = nx.community.modularity(G, nx.community.greedy_modularity_communities(
        G, cutoff=2, best_n=2), weight=None)
    for seed in range(3):
        labels, vals, vecs = spectral_clustering(A, 2, 2, seed=seed)
        q = analyze_clustering(A, 2, labels, MODULARITY)
        assert q == pytest.approx(nx.community.modularity(G, parts_of(labels, 2), weight=None))
        assert q >= 0.98 * ref
        # modularity's eigen-information: columns whitened, rows of unit length
        np.testing.assert_allclose(np.linalg.norm(host(vecs), axis=1), 1, rtol=1e-12)


@pytest.mark.parametrize("algorithm", [BALANCED_CUT_LANCZOS, BALANCED_CUT_LOBPCG])
def test_balanced_cut_embedding_and_cut(algorithm):
    A = generate.karate()
    G = nx.karate_club_graph()
    labels, vals, vecs = spectral_clustering(A, 2, 2, algorithm)
    vecs = host(vecs)
    # the constant eigenvector carries nothing; the Fiedler vector is whitened
    assert np.abs(vecs[:, 0]).max() == 0
    np.testing.assert_allclose([vecs[:, 1].mean(), vecs[:, 1].std()], [0, 1], atol=1e-9)
    a, b = parts_of(labels, 2)
    assert analyze_clustering(A, 2, labels, EDGE_CUT) == nx.cut_size(G, a, b)
    kl = nx.community.kernighan_lin_bisection(G, seed=1)
    assert nx.cut_size(G, a, b) <= 2 * nx.cut_size(G, *kl)


def test_analyze_clustering_against_networkx():
    rng = np.random.default_rng(4)
    A = generate.rmat(8, seed=5, weighted=True, dtype=gg.FP64)
    rows, cols, vals = A.to_coo()
    G = nx.Graph()
    G.add_nodes_from(range(A.nrows))
    G.add_weighted_edges_from(zip(rows.tolist(), cols.tolist(), vals.tolist()))
    k = 5
    labels = rng.integers(0, k - 1, A.nrows).astype(np.int32)     # cluster k-1 stays empty
    parts = parts_of(labels, k)
    assert analyze_clustering(A, k, labels, MODULARITY) == pytest.approx(
        nx.community.modularity(G, [p for p in parts if p]), rel=1e-9)
    cut = sum(nx.cut_size(G, p, weight="weight") for p in parts if p) / 2
    assert analyze_clustering(A, k, labels, EDGE_CUT) == pytest.approx(cut, rel=1e-9)
    ratio = sum(nx.cut_size(G, p, weight="weight") / len(p) for p in parts if p)
    assert analyze_clustering(A, k, labels, RATIO_CUT) == pytest.approx(ratio, rel=1e-9)
    assert analyze_clustering(A, k, labels, "ratio_cut") == analyze_clustering(A, k, labels,
                                                                               RATIO_CUT)


def test_parameter_rules():
    A = generate.karate()
    for args in ((1, 1), (35, 2), (3, 4), (3, 1)):
        with pytest.raises(gg.InvalidValue):
            spectral_clustering(A, *args)
    for kw in ({"evs_tolerance": 1.0}, {"kmean_tolerance": -0.1}):
        with pytest.raises(gg.InvalidValue):
            spectral_clustering(A, 2, 2, **kw)
    with pytest.raises(gg.InvalidValue):
        spectral_clustering(A, 2, 2, "NVGRAPH_SPECTRAL_MAGIC")
    with pytest.raises(gg.InvalidValue):
        analyze_clustering(A, 2, np.zeros(33, np.int32), MODULARITY)
    with pytest.raises(gg.InvalidValue):
        analyze_clustering(A, 2, np.full(34, 2, np.int32), MODULARITY)
    with pytest.raises(gg.InvalidValue):
        analyze_clustering(A, 2, np.zeros(34, np.int32), "conductance")
    # 0 / <= 0 mean the defaults
    labels, _, _ = spectral_clustering(A, 2, 2, evs_tolerance=0, evs_max_iter=0,
                                       kmean_tolerance=0, kmean_max_iter=-5)
    assert host(labels).shape == (34,)


def test_not_converged_and_trace(iterative):
    A = generate.rmat(8, seed=1)
    with pytest.raises(gg.NotConverged) as e:
        spectral_clustering(A, 4, 4, BALANCED_CUT_LOBPCG, evs_tolerance=1e-9, evs_max_iter=2)
    vals, vecs = e.value.result
    assert host(vecs).shape == (A.nrows, 4)
    figures = []
    spectral_clustering(A, 2, 2, trace=figures.append)
    assert {f["stage"] for f in figures} == {"lanczos", "kmeans"}
    figures = []
    spectral_clustering(generate.karate(), 2, 2, trace=figures.append)   # 2 · (2 + 15) >= 34
    assert {f["stage"] for f in figures} == {"dense", "kmeans"}


def _families(sizes):
    """Paths, cycles, stars, complete graphs and disjoint unions (repeated eigenvalues: 0 once
    per component, cycles' pairs, stars' and complete graphs' many copies)."""
    small, mid = sizes
    return {
        "path": nx.path_graph(small),
        "cycle": nx.cycle_graph(mid),
        "star": nx.star_graph(mid - 1),
        "complete": nx.complete_graph(mid),
        "paths+cycle": nx.disjoint_union_all([nx.path_graph(small), nx.path_graph(small + 3),
                                              nx.cycle_graph(mid - 2 * small)]),
        "3 cycles": nx.disjoint_union_all([nx.cycle_graph(mid // 3)] * 3),
    }


def _check_families(graphs, ks):
    for name, G in graphs.items():
        A = from_nx(G)
        D = nx.to_numpy_array(G)
        d = D.sum(1)
        L = np.diag(d) - D
        B = D - np.outer(d, d) / d.sum()
        ref_l, ref_b = np.linalg.eigvalsh(L), np.linalg.eigvalsh(B)[::-1]
        for k in ks:
            for method in ("lanczos", "lobpcg"):
                vals, vecs = laplacian_eigenpairs(A, k, tol=1e-6, method=method)
                vals, vecs = host(vals), host(vecs)
                msg = f"{name}, k={k}, {method}"
                np.testing.assert_allclose(vals, ref_l[:k], atol=1e-5, err_msg=msg)
                np.testing.assert_allclose(np.linalg.norm(L @ vecs - vecs * vals, axis=0), 0,
                                           atol=1e-4, err_msg=msg)
            vals, vecs = modularity_eigenpairs(A, k, tol=1e-6)
            np.testing.assert_allclose(host(vals), ref_b[:k], atol=1e-5,
                                       err_msg=f"{name}, k={k}, modularity")


def test_eigenvalues_of_small_graphs_are_exact():
    # a 5-vertex path with k = 2 gave [6.7e-18, 4.5e-16] (LOBPCG's 3k-block exceeded n); a
    # 30-cycle [0, 0.0437, 0.173] (Lanczos missed the second 0.0437): dense now
    _check_families(_families((5, 30)), (2, 3, 4))


def test_iterative_solvers_find_repeated_eigenvalues(iterative):
    # n > 2 · the Krylov basis: Lanczos (with deflation) and LOBPCG, not the dense solver
    _check_families(_families((8, 60)), (2, 4))


def test_residual_check_before_claiming_convergence(iterative, monkeypatch):
    monkeypatch.setattr(spectral, "RESIDUAL_SLACK", 0.0)   # no residual is small enough
    A = from_nx(nx.cycle_graph(60))
    for method in ("lanczos", "lobpcg"):
        with pytest.raises(gg.NotConverged, match="residual"):
            laplacian_eigenpairs(A, 3, method=method)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_weights_raise_invalid_value(bad):
    G = nx.ring_of_cliques(3, 4)
    A = from_nx(G)
    rows, cols, vals = A.to_coo()
    vals[0] = bad
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=12, ncols=12)
    for algorithm in ALGORITHMS:
        with pytest.raises(gg.InvalidValue, match="finite"):
            spectral_clustering(A, 3, 2, algorithm)
    assert np.isnan(host(A.to_coo()[2])[0]) or np.isinf(host(A.to_coo()[2])[0])


@pytest.mark.parametrize("kwargs", [{"n_clusters": "x"}, {"n_eig_vects": None},
                                    {"evs_tolerance": "tight"}, {"evs_max_iter": [1]},
                                    {"kmean_tolerance": object()}, {"kmean_max_iter": "x"},
                                    {"seed": "x"}, {"algorithm": 3}])
def test_wrong_typed_parameters_raise_invalid_value(kwargs):
    args = {"n_clusters": 2, "n_eig_vects": 2, **kwargs}
    with pytest.raises(gg.InvalidValue):
        spectral_clustering(generate.karate(), **args)
    with pytest.raises(gg.InvalidValue):
        laplacian_eigenpairs(generate.karate(), 2, method="arnoldi")
    with pytest.raises(gg.InvalidValue):
        analyze_clustering(generate.karate(), "two", np.zeros(34, np.int32))


def test_kmeans_on_a_nan_embedding_raises_instead_of_iterating():
    Y = backend.xp.asarray(np.random.default_rng(0).random((20, 2)))
    Y[3, 0] = np.nan
    with pytest.raises(gg.NotConverged, match="cost is nan") as e:
        spectral._kmeans(Y, 2, 1e-2, 50, backend.xp.random.RandomState(0), None)
    assert e.value.iterations == 1
