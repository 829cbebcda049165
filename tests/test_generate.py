"""Graph generators (grblas_gpu.generate): R-MAT, karate, and CLI graph specs."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import grblas_gpu as gg
from grblas_gpu.errors import InvalidValue
from grblas_gpu.generate import KARATE_EDGES, graph, karate, rmat
from grblas_gpu.io import write_mm


def _csr(A):
    indptr, indices, values = A.to_csr()
    return sp.csr_matrix((values, indices, indptr), shape=A.shape)


def _assert_well_formed(A):
    """CSR with sorted, unique column indices in every row (what _from_csr trusts)."""
    indptr, indices, _ = A.to_csr()
    assert indptr[0] == 0 and indptr[-1] == A.nvals and np.all(np.diff(indptr) >= 0)
    rows = np.repeat(np.arange(A.nrows), np.diff(indptr))
    same_row = rows[1:] == rows[:-1]
    assert np.all(indices[1:][same_row] > indices[:-1][same_row])
    assert indices.size == 0 or (indices.min() >= 0 and indices.max() < A.ncols)


def _degrees(A):
    return np.diff(A.to_csr()[0])


# ---------------------------------------------------------------------- karate
def test_karate_equals_networkx():
    K = karate()
    G = nx.karate_club_graph()
    ref = nx.to_scipy_sparse_array(G, nodelist=range(34), weight=None, format="csr")
    assert K.shape == (34, 34) and K.nvals == 156 == ref.nnz
    assert K.dtype is gg.BOOL and K._is_iso and K._iso
    ours = _csr(K).astype(np.int64)
    assert (ours != ref.astype(np.int64)).nnz == 0
    _assert_well_formed(K)
    assert len(KARATE_EDGES) == 78 == G.number_of_edges()


def test_karate_symmetric_simple_and_typed():
    K = karate(dtype="FP32")
    assert K.dtype is gg.FP32 and K._is_iso and K._iso == 1.0
    S = _csr(K)
    assert (S != S.T).nnz == 0 and S.diagonal().sum() == 0
    assert _degrees(K).max() == 17 and _degrees(K)[0] == 16  # the instructor and officer


# ---------------------------------------------------------------------- rmat
def test_rmat_shape_simple_symmetric():
    scale, ef = 10, 16
    A = rmat(scale, ef, seed=7)
    n, m = 2**scale, ef * 2**scale
    assert A.shape == (n, n) and A.dtype is gg.BOOL and A._is_iso
    _assert_well_formed(A)
    S = _csr(A)
    assert S.diagonal().sum() == 0  # no self loops
    assert (S != S.T).nnz == 0  # undirected
    # about 2 * edge_factor * N stored entries, minus self loops and duplicate edges
    assert 0.5 * 2 * m <= A.nvals <= 2 * m


def test_rmat_reproducible_and_seed_dependent():
    A, B, C = rmat(9, seed=123), rmat(9, seed=123), rmat(9, seed=124)
    assert A.isequal(B)
    assert not A.isequal(C)
    W1, W2 = rmat(8, seed=5, weighted=True), rmat(8, seed=5, weighted=True)
    assert W1.isequal(W2)


def test_rmat_degree_distribution_is_skewed():
    A = rmat(12, seed=1)
    deg = _degrees(A)
    assert deg.max() > 8 * deg.mean()
    # uniform quadrant probabilities (Erdős–Rényi-like) are not skewed: a useful contrast
    U = rmat(12, a=0.25, b=0.25, c=0.25, seed=1)
    du = _degrees(U)
    assert du.max() < 3 * du.mean()


def test_rmat_labels_are_permuted():
    # without Graph500's relabelling the hubs would be the low-numbered vertices
    top = np.argsort(_degrees(rmat(12, seed=3)))[-20:]
    assert np.median(top) > 2**12 / 16


def test_rmat_directed():
    A = rmat(10, 8, seed=2, symmetric=False)
    S = _csr(A)
    _assert_well_formed(A)
    assert S.diagonal().sum() == 0
    assert (S != S.T).nnz > 0
    assert 0.5 * 8 * 2**10 <= A.nvals <= 8 * 2**10


def test_rmat_weighted():
    W = rmat(10, seed=4, weighted=True)
    assert W.dtype is gg.FP32 and not W._is_iso
    _, _, v = W.to_coo()
    assert v.min() > 0 and v.max() <= 1
    S = _csr(W)
    assert abs(S - S.T).max() == 0  # one weight per undirected edge
    assert len(np.unique(v)) > 0.4 * len(v)  # weights are not all alike
    W64 = rmat(8, seed=4, weighted=True, dtype="FP64", symmetric=False)
    assert W64.dtype is gg.FP64
    assert rmat(8, seed=4, dtype=gg.FP32)._iso == 1.0  # unweighted: iso 1.0 of dtype


def test_rmat_degenerate_parameters():
    # a=1: every edge falls in quadrant a at every level -> all self loops -> no edges
    A = rmat(6, a=1.0, b=0.0, c=0.0, seed=0)
    assert A.shape == (64, 64) and A.nvals == 0
    Z = rmat(0, seed=0)
    assert Z.shape == (1, 1) and Z.nvals == 0


@pytest.mark.parametrize("kwargs", [
    dict(scale=-1), dict(scale=2.5), dict(scale=40), dict(scale=4, edge_factor=0),
    dict(scale=4, a=0.6, b=0.3, c=0.3), dict(scale=4, a=-0.1),
    dict(scale=4, weighted=True, dtype="INT32"),
])
def test_rmat_rejects_bad_parameters(kwargs):
    with pytest.raises(InvalidValue):
        rmat(**kwargs)


# ---------------------------------------------------------------------- graph(spec)
def test_graph_specs(tmp_path):
    assert graph("karate").isequal(karate())
    assert graph(" KARATE ").isequal(karate())
    A = graph("rmat:8", seed=9)
    assert A.isequal(rmat(8, 16, seed=9))
    B = graph("rmat:8:4", seed=9, weighted=True)
    assert B.isequal(rmat(8, 4, seed=9, weighted=True)) and B.nvals <= 2 * 4 * 256
    p = tmp_path / "k.mtx"
    write_mm(p, karate())
    assert graph(str(p)).isequal(karate())
    assert graph(p).isequal(karate())


@pytest.mark.parametrize("spec", ["", "foo", "rmat", "rmat:", "rmat:x", "rmat:4:y",
                                  "rmat:1:2:3", "rmat:-3", 12])
def test_graph_rejects_bad_specs(spec):
    with pytest.raises(InvalidValue):
        graph(spec)


def test_graph_file_options_rejected(tmp_path):
    p = tmp_path / "k.mtx"
    write_mm(p, karate())
    with pytest.raises(InvalidValue):
        graph(str(p), weighted=True)


@pytest.mark.parametrize("make", [
    lambda: gg.generate.karate(), lambda: gg.generate.rmat(8, seed=1),
    lambda: gg.generate.rmat(8, seed=2, weighted=True), lambda: gg.generate.urand(8, seed=3),
    lambda: gg.generate.grid(9, 7, seed=4, weighted=True)])
def test_undirected_graphs_know_they_are_symmetric(make):
    """A generator records the symmetry it built (is_symmetric asks nothing of the device),
    and what it records is what the check finds on a copy, which knows nothing."""
    A = make()
    for structure in (True, False):
        assert A.memo(("grblas_gpu.Matrix.is_symmetric", structure),
                      lambda: pytest.fail("not recorded")) is True
        assert A.dup().is_symmetric(structure=structure) is True


def test_a_directed_graph_records_no_symmetry():
    A = gg.generate.rmat(8, seed=1, symmetric=False)
    assert A.is_symmetric() is False and A.is_symmetric(structure=True) is False
