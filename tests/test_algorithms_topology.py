"""algorithms.topology: CSR / CSC / COO conversions (each COO tag) against SciPy, edge data
carried along, nvGRAPH's copy cases, unsorted input, bad topologies."""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import grblas_gpu as gg
from grblas_gpu.algorithms.topology import (COOTopology, CSCTopology, CSRTopology, SORT_BY_DESTINATION,
                                 SORT_BY_SOURCE, UNSORTED, convert_topology, matrix_to_topology,
                                 topology_to_matrix)
from grblas_gpu import backend, generate


def host(a):
    return backend.to_host(a)


def edges_of(topo, data):
    """{(src, dst): value} of any topology, by plain expansion."""
    if isinstance(topo, CSRTopology):
        src = np.repeat(np.arange(topo.nvertices), np.diff(host(topo.source_offsets)))
        dst = host(topo.destination_indices)
    elif isinstance(topo, CSCTopology):
        dst = np.repeat(np.arange(topo.nvertices), np.diff(host(topo.destination_offsets)))
        src = host(topo.source_indices)
    else:
        src, dst = host(topo.source_indices), host(topo.destination_indices)
    vals = [None] * len(src) if data is None else host(data).tolist()
    return dict(zip(zip(src.tolist(), dst.tolist()), vals))


@pytest.fixture
def graph():
    A = generate.rmat(7, seed=8, symmetric=False, weighted=True, dtype=gg.FP64)
    rows, cols, vals = A.to_coo()
    return A, sp.csr_matrix((vals, (rows, cols)), shape=A.shape)


def sources(A):
    csr, w = matrix_to_topology(A, CSRTopology)
    csc, wc = matrix_to_topology(A, CSCTopology)
    coo_s, ws = matrix_to_topology(A, COOTopology, tag=SORT_BY_SOURCE)
    coo_d, wd = matrix_to_topology(A, COOTopology, tag=SORT_BY_DESTINATION)
    rng = np.random.default_rng(0)
    perm = rng.permutation(A.nvals)
    coo_u = COOTopology(A.nrows, A.nvals, host(coo_s.source_indices)[perm],
                        host(coo_s.destination_indices)[perm], UNSORTED)
    return [(csr, w), (csc, wc), (coo_s, ws), (coo_d, wd), (coo_u, host(ws)[perm])]


def test_matrix_to_topology_matches_scipy(graph):
    A, S = graph
    csr, w = matrix_to_topology(A, CSRTopology)
    np.testing.assert_array_equal(host(csr.source_offsets), S.indptr)
    np.testing.assert_array_equal(host(csr.destination_indices), S.indices)
    np.testing.assert_array_equal(host(w), S.data)
    assert host(csr.source_offsets).dtype == np.int32
    C = S.tocsc()
    C.sort_indices()
    csc, wc = matrix_to_topology(A, CSCTopology)
    np.testing.assert_array_equal(host(csc.destination_offsets), C.indptr)
    np.testing.assert_array_equal(host(csc.source_indices), C.indices)
    np.testing.assert_array_equal(host(wc), C.data)


def test_every_conversion_keeps_every_edge_and_its_value(graph):
    A, S = graph
    expected = edges_of(*matrix_to_topology(A, CSRTopology))
    targets = [CSRTopology(), CSCTopology(), COOTopology(tag=SORT_BY_SOURCE),
               COOTopology(tag=SORT_BY_DESTINATION), COOTopology(tag=UNSORTED)]
    for (src, data), dst in itertools.product(sources(A), targets):
        out, w = convert_topology(src, data, dst)
        assert type(out) is type(dst) and (out.nvertices, out.nedges) == (A.nrows, A.nvals)
        assert edges_of(out, w) == expected
        if isinstance(out, COOTopology):
            s, d = host(out.source_indices).tolist(), host(out.destination_indices).tolist()
            if dst.tag == SORT_BY_SOURCE:
                assert list(zip(s, d)) == sorted(zip(s, d))
            elif dst.tag == SORT_BY_DESTINATION:
                assert list(zip(d, s)) == sorted(zip(d, s))
            elif isinstance(src, CSRTopology):            # UNSORTED: the natural order
                assert s == sorted(s)
            elif isinstance(src, CSCTopology):
                assert d == sorted(d)
            assert out.tag == dst.tag


def test_same_format_is_a_copy():
    coo = COOTopology(3, 3, np.array([2, 0, 1], np.int32), np.array([0, 2, 1], np.int32),
                      UNSORTED)
    out, w = convert_topology(coo, np.array([1.0, 2.0, 3.0]), COOTopology(tag=UNSORTED))
    assert host(out.source_indices).tolist() == [2, 0, 1] and host(w).tolist() == [1, 2, 3]
    out.source_indices[0] = 1
    assert coo.source_indices[0] == 2                  # a copy, not a view


def test_unsorted_csr_rows_and_structure_only():
    csr = CSRTopology(3, 3, np.array([0, 2, 3, 3]), np.array([2, 0, 1]))
    A = topology_to_matrix(csr, np.array([5.0, 6.0, 7.0]))
    assert A.to_coo()[2].tolist() == [6.0, 5.0, 7.0]
    out, w = convert_topology(csr, None, CSCTopology)
    assert w is None and host(out.destination_offsets).tolist() == [0, 1, 2, 3]
    assert topology_to_matrix(csr).dtype == gg.BOOL


@pytest.mark.parametrize("bad", [
    CSRTopology(3, 2, np.array([0, 1, 1]), np.array([0, 1])),          # offsets too short
    CSRTopology(3, 2, np.array([0, 1, 1, 3]), np.array([0, 1])),       # ends past nedges
    CSRTopology(3, 2, np.array([0, 2, 1, 2]), np.array([0, 1])),       # decreasing
    CSRTopology(3, 2, np.array([0, 1, 2, 2]), np.array([0, 3])),       # vertex out of range
    COOTopology(3, 2, np.array([0, 0]), np.array([1, 1])),             # a duplicate edge
    CSCTopology(2, 1, None, np.array([0])),                            # missing array
])
def test_bad_topologies(bad):
    with pytest.raises(gg.InvalidValue):
        convert_topology(bad, None, CSRTopology() if not isinstance(bad, CSRTopology)
                         else CSCTopology())


def test_unknown_tag():
    with pytest.raises(gg.TypeNotSupported):
        convert_topology(CSRTopology(1, 0, np.array([0, 0]), np.array([], np.int32)), None,
                         COOTopology(tag="SIDEWAYS"))
