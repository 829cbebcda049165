"""algorithms.extract_subgraph_by_vertex / _by_edge against SciPy slicing and plain edge-list
filtering; the guide's input rules (sorted, duplicate-free, in range, non-empty)."""
import numpy as np
import pytest
import scipy.sparse as sp

import grblas_gpu as gg
from grblas_gpu.algorithms import extract_subgraph_by_edge, extract_subgraph_by_vertex
from grblas_gpu import backend, generate


def host(a):
    return backend.to_host(a)


def scipy_of(A):
    rows, cols, vals = A.to_coo()
    return sp.csr_matrix((vals, (rows, cols)), shape=A.shape)


@pytest.fixture
def A():
    return generate.rmat(8, seed=6, symmetric=False, weighted=True, dtype=gg.FP64)


def test_by_vertex_is_the_induced_subgraph(A):
    rng = np.random.default_rng(2)
    V = np.sort(rng.choice(A.nrows, 60, replace=False))
    S, Vout, E = extract_subgraph_by_vertex(A, V, with_ids=True)
    ref = scipy_of(A)[V][:, V].tocsr()
    ref.sort_indices()
    ptr, idx, vals = S.to_csr()
    np.testing.assert_array_equal(ptr, ref.indptr)
    np.testing.assert_array_equal(idx, ref.indices)
    np.testing.assert_array_equal(vals, ref.data)
    np.testing.assert_array_equal(host(Vout), V)
    # the edge ids point back at the same values in A's CSR order
    np.testing.assert_array_equal(A.to_csr()[2][host(E)], vals)
    assert extract_subgraph_by_vertex(A, [3]).shape == (1, 1)


def test_by_edge_keeps_those_edges_on_their_vertices(A):
    rng = np.random.default_rng(3)
    E = np.sort(rng.choice(A.nvals, 150, replace=False))
    S, V, Eout = extract_subgraph_by_edge(A, E, with_ids=True)
    rows, cols, vals = A.to_coo()
    V_ref = np.unique(np.concatenate([rows[E], cols[E]]))
    np.testing.assert_array_equal(host(V), V_ref)
    sr, sc, sv = S.to_coo()
    got = {(int(V_ref[a]), int(V_ref[b])): v for a, b, v in zip(sr, sc, sv)}
    assert got == {(int(rows[e]), int(cols[e])): vals[e] for e in E}
    assert S.shape == (len(V_ref), len(V_ref)) and S.nvals == len(E)
    np.testing.assert_array_equal(host(Eout), E)


def test_structure_only_graph():
    A = generate.karate()
    S = extract_subgraph_by_vertex(A, list(range(10)))
    assert S.dtype == gg.BOOL and S.nvals == 36
    T = extract_subgraph_by_edge(A, [0, 1])        # 0 -> 1 and 0 -> 2
    assert T.shape == (3, 3) and T.to_coo()[1].tolist() == [1, 2]


@pytest.mark.parametrize("bad", [[], [2, 1], [1, 1], [-1, 2], [0, 10**6], [[0, 1]], [0.5]])
def test_bad_sets(A, bad):
    with pytest.raises(gg.InvalidValue):
        extract_subgraph_by_vertex(A, bad)
    with pytest.raises(gg.InvalidValue):
        extract_subgraph_by_edge(A, bad)


@pytest.mark.parametrize("flag", ["yes", None, np.zeros(2), 2])
def test_wrong_typed_with_ids_raises_invalid_value(flag):
    A = generate.karate()
    with pytest.raises(gg.InvalidValue):
        extract_subgraph_by_vertex(A, [0, 1, 2], with_ids=flag)
    with pytest.raises(gg.InvalidValue):
        extract_subgraph_by_edge(A, [0, 1, 2], with_ids=flag)
