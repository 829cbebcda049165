"""algorithms.connected_components (FastSV): labels against scipy's weak components (each
vertex labelled by its component's smallest vertex id) on random graphs, directed and
undirected, LAGraph's square matrices, the trace, and bad input."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import grblas_gpu as gg
from grblas_gpu.algorithms import connected_components
from conftest import lagraph_file
from grblas_gpu import backend, generate, io


def reference(S):
    """scipy's weak components, each labelled by its smallest vertex (no algebra)."""
    n = S.shape[0]
    if n == 0:
        return np.zeros(0, np.int64)
    _, comp = csgraph.connected_components(S, directed=True, connection="weak")
    smallest = np.full(comp.max() + 1, n)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp]


def scipy_of(A):
    rows, cols, _ = A.to_coo()
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=A.shape)


def labels_of(A, **kw):
    return backend.to_host(connected_components(A, **kw))


def random_graph(rng, n, m, symmetric=False, self_loops=True):
    r, c = rng.integers(0, max(n, 1), m), rng.integers(0, max(n, 1), m)
    if not self_loops:
        keep = r != c
        r, c = r[keep], c[keep]
    if symmetric:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    if n == 0:
        r = c = np.zeros(0, np.int64)
    return gg.Matrix.from_coo(r, c, 1.0, nrows=n, ncols=n, dup_op="plus")


@pytest.mark.parametrize("symmetric", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_random_graphs_against_scipy(seed, symmetric):
    """Sparse graphs of many components (isolated vertices among them), denser ones, with and
    without self loops."""
    rng = np.random.default_rng(seed)
    for n in (2, 3, 7, 30, 200, 1500):
        for m in (0, n // 3, n, 4 * n):
            A = random_graph(rng, n, m, symmetric, self_loops=bool(seed % 2))
            got = labels_of(A)
            assert got.dtype == np.int32 and got.shape == (n,)
            np.testing.assert_array_equal(got, reference(scipy_of(A)))


@pytest.mark.parametrize("n", [0, 1])
def test_tiny(n):
    A = gg.Matrix(gg.BOOL, n, n)
    figures = []
    got = labels_of(A, trace=figures.append)
    assert got.dtype == np.int32 and got.tolist() == list(range(n))
    assert figures == ([] if n == 0 else [{"iteration": 1, "changed": 0}])
    loop = gg.Matrix.from_coo([0], [0], 1, nrows=1, ncols=1) if n else A
    assert labels_of(loop).tolist() == list(range(n))


def test_weak_components_follow_edges_both_ways():
    """3 -> 1 -> 0 and 2 -> 4: only the weak components join them."""
    A = gg.Matrix.from_coo([3, 1, 2], [1, 0, 4], 1, nrows=6, ncols=6)
    assert labels_of(A).tolist() == [0, 0, 2, 0, 2, 5]


def test_long_paths_converge_in_few_iterations():
    """A path (numbered at random, and in order both ways): one component labelled 0, in
    O(log n) iterations, not n."""
    n = 4000
    order = np.random.default_rng(0).permutation(n)
    for r, c in ((order[:-1], order[1:]), (np.arange(n - 1), np.arange(1, n)),
                 (np.arange(1, n), np.arange(n - 1))):
        figures = []
        got = labels_of(gg.Matrix.from_coo(r, c, 1, nrows=n, ncols=n), trace=figures.append)
        assert (got == 0).all()
        assert len(figures) <= 20


def test_rmat_and_values_ignored():
    A = generate.rmat(11, seed=4, symmetric=False)
    ref = reference(scipy_of(A))
    np.testing.assert_array_equal(labels_of(A), ref)
    rows, cols, _ = A.to_coo()
    Z = gg.Matrix.from_coo(rows, cols, 0.0, nrows=A.nrows, ncols=A.ncols)   # explicit zeros
    np.testing.assert_array_equal(labels_of(Z), ref)
    np.testing.assert_array_equal(labels_of(A.dup(gg.BOOL)), ref)


def test_repeated_calls_and_the_cached_pattern():
    A = generate.rmat(9, seed=2)
    first = labels_of(A)
    np.testing.assert_array_equal(labels_of(A), first)          # the memo's pattern
    A[0, A.nrows - 1] = 1                                         # changed: the memo goes
    np.testing.assert_array_equal(labels_of(A), reference(scipy_of(A)))


@pytest.mark.parametrize("symmetric", [False, True])
def test_the_cached_pattern_skips_the_union_when_a_is_symmetric(symmetric):
    """S = one(A) ∪ one(Aᵀ), or one(A) itself when A's pattern is symmetric (values need not
    be: the pattern is what counts)."""
    rng = np.random.default_rng(7)
    A = random_graph(rng, 300, 600, symmetric)
    if symmetric:
        rows, cols, _ = A.to_coo()
        A = gg.Matrix.from_coo(rows, cols, rng.random(len(rows)), nrows=300, ncols=300)
        assert not A.is_symmetric() and A.is_symmetric(structure=True)
    got = labels_of(A)
    np.testing.assert_array_equal(got, reference(scipy_of(A)))

    def unmade():
        raise AssertionError("the pattern was not kept with A")

    S = A.memo("algorithms.connected_components.pattern", unmade)
    assert S.dtype == gg.INT32 and S.is_symmetric()
    union = scipy_of(A) + scipy_of(A).T
    rows, cols, vals = S.to_coo()
    assert sorted(zip(rows.tolist(), cols.tolist())) == sorted(zip(*map(list, union.nonzero())))
    assert set(backend.to_host(vals).tolist()) <= {1}


def test_trace():
    A = generate.rmat(10, seed=1)
    figures = []
    labels_of(A, trace=figures.append)
    assert [f["iteration"] for f in figures] == list(range(1, len(figures) + 1))
    assert set(figures[0]) == {"iteration", "changed"}
    assert figures[-1]["changed"] == 0 and all(f["changed"] > 0 for f in figures[:-1])


LAGRAPH = ["A.mtx", "cover.mtx", "jagmesh7.mtx", "ldbc-directed-example.mtx",
           "ldbc-undirected-example.mtx", "ldbc-wcc-example.mtx", "west0067.mtx", "bcsstk13.mtx",
           "pushpull.mtx", "msf1.mtx", "msf2.mtx", "msf3.mtx", "cryg2500.mtx", "LFAT5.mtx",
           "LFAT5_two.mtx", "olm1000.mtx", "sample.mtx", "sample2.mtx", "tree-example.mtx",
           "karate.mtx", "full.mtx"]


@pytest.mark.parametrize("name", LAGRAPH)
def test_lagraph_matrices(name):
    A = io.read_mm(lagraph_file(name))
    np.testing.assert_array_equal(labels_of(A), reference(scipy_of(A)))


def test_bad_arguments():
    with pytest.raises(gg.InvalidValue):
        connected_components(np.eye(3))
    with pytest.raises(gg.InvalidValue):
        connected_components(gg.Vector(gg.INT32, 3))
    with pytest.raises(gg.DimensionMismatch):
        connected_components(gg.Matrix(gg.BOOL, 2, 3))
    with pytest.raises(gg.InvalidValue):
        connected_components(gg.Matrix(gg.BOOL, 2, 2), trace="no")
    with pytest.raises(TypeError):
        connected_components(gg.Matrix(gg.BOOL, 2, 2), None)     # trace is keyword-only
