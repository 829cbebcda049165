"""algorithms.triangle_count against NetworkX: karate, R-MAT, LAGraph graphs; nvGRAPH's lower
triangle, the full matrix and the upper triangle alike; both methods; self loops ignored."""
import networkx as nx
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu.algorithms import triangle_count
from grblas_gpu.algorithms.triangle_count import (_skewed, degree_oriented, lower_triangle,
                                       symmetric_pattern)
from conftest import lagraph_file
from grblas_gpu import generate, io


def nx_triangles(A):
    rows, cols, _ = A.to_coo()
    G = nx.Graph()
    G.add_nodes_from(range(A.nrows))
    G.add_edges_from((u, v) for u, v in zip(rows.tolist(), cols.tolist()) if u != v)
    return sum(nx.triangles(G).values()) // 3


def triangles_of(A, k):
    return gg.select(gg.Matrix(A.dtype, *A.shape), A, "tril" if k < 0 else "triu", k)


def test_karate():
    A = generate.karate()
    assert triangle_count(A) == 45
    assert triangle_count(triangles_of(A, -1)) == 45    # nvGRAPH's input
    assert triangle_count(triangles_of(A, 1)) == 45     # the upper triangle


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("method", ["sandia_lut", "sandia_ll"])
@pytest.mark.parametrize("presort", [True, False])
def test_rmat(seed, method, presort):
    A = generate.rmat(9, seed=seed)
    assert triangle_count(A, method=method, presort=presort) == nx_triangles(A)


def test_degree_orientation():
    """degree_oriented keeps each edge once, in the row of its end of lower degree (ties: lower
    index), so a row holds only neighbours of higher rank; counts agree on every input form."""
    A = generate.rmat(12, seed=4)
    L = lower_triangle(A)
    S = symmetric_pattern(A)
    deg = gg.reduce_rowwise(gg.Vector(gg.INT64, A.nrows), S, "plus")
    O = degree_oriented(S, deg)
    rows, cols, vals = O.to_coo()
    assert O.dtype == gg.INT64 and O.nvals == L.nvals and set(vals.tolist()) == {1}
    lr, lc, _ = L.to_coo()
    assert set(zip(np.minimum(rows, cols).tolist(), np.maximum(rows, cols).tolist())) == \
        set(zip(lc.tolist(), lr.tolist()))
    d = np.bincount(np.concatenate([lr, lc]), minlength=A.nrows)
    assert np.all((d[rows] < d[cols]) | ((d[rows] == d[cols]) & (rows < cols)))
    expected = nx_triangles(A)
    assert _skewed(S, deg)                              # R-MAT: mean degree >> median
    for form in (triangles_of(A, -1), triangles_of(A, 1)):  # one triangle: S completed
        assert symmetric_pattern(form).isequal(S)
    for form in (A, triangles_of(A, -1), triangles_of(A, 1)):
        assert triangle_count(form) == expected        # presort="auto"
        assert triangle_count(form, presort=True, method="sandia_ll") == expected
        assert triangle_count(form, presort=0) == expected
    M = symmetric_pattern(io.read_mm(lagraph_file("jagmesh7.mtx")))
    assert not _skewed(M, gg.reduce_rowwise(gg.Vector(gg.INT64, M.nrows), M, "plus"))  # a mesh


def test_lagraph_graphs():
    assert triangle_count(io.read_mm(lagraph_file("karate.mtx"))) == 45
    for name in ("bcsstk13.mtx", "jagmesh7.mtx"):
        A = io.read_mm(lagraph_file(name))            # symmetric; values (and signs) are ignored
        expected = nx_triangles(A)
        assert triangle_count(A) == expected
        assert triangle_count(A, method="sandia_ll") == expected


def test_self_loops_and_weights_are_ignored():
    # a 4-clique (4 triangles) with self loops and arbitrary values
    r, c = np.nonzero(np.ones((4, 4)))
    A = gg.Matrix.from_coo(r, c, np.arange(16.0) - 5, nrows=5, ncols=5)
    assert triangle_count(A) == 4
    L = lower_triangle(A)
    assert L.dtype == gg.INT64 and L.nvals == 6


def test_no_triangles_and_bad_input():
    assert triangle_count(gg.Matrix(gg.BOOL, 4, 4)) == 0
    path = gg.Matrix.from_coo([1, 2], [0, 1], True, nrows=3, ncols=3)
    assert triangle_count(path) == 0
    with pytest.raises(gg.DimensionMismatch):
        triangle_count(gg.Matrix(gg.BOOL, 2, 3))
    with pytest.raises(gg.InvalidValue):
        triangle_count(path, method="burkhardt")
    with pytest.raises(gg.InvalidValue):
        triangle_count(path, presort="ascending")


@pytest.mark.parametrize("kwargs", [{"method": np.zeros(2)}, {"method": None},
                                    {"presort": np.zeros((2, 2))}, {"presort": "x"}])
def test_wrong_typed_parameters_raise_invalid_value(kwargs):
    with pytest.raises(gg.InvalidValue):
        triangle_count(generate.karate(), **kwargs)
