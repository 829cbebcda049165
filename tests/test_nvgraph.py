"""The seven programs of the nvGRAPH 9.2 guide's chapter 3, ported line for line onto
algorithms.nvgraph, checked against the values the guide states (BFS, triangles) and against
independent references (SciPy, NetworkX, a dense power iteration) for the rest; then the
API's state rules and statuses."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import grblas_gpu as gg
from grblas_gpu.algorithms import nvgraph as nv
from grblas_gpu import backend


def host(a):
    return backend.to_host(a)


# the 6-vertex graph of examples 3.1 - 3.4 (CSC: columns are destinations)
W = [0.333333, 0.5, 0.333333, 0.5, 0.5, 1.0, 0.333333, 0.5, 0.5, 0.5]
DST_OFFSETS = [0, 1, 3, 4, 6, 8, 10]
SRC_INDICES = [2, 0, 2, 0, 4, 5, 2, 3, 3, 4]


def guide_graph(dtype=np.float32):
    """The example graph as scipy (A[src, dst] = w)."""
    return sp.csc_matrix((np.array(W, dtype), SRC_INDICES, DST_OFFSETS), shape=(6, 6))


# ---------------------------------------------------------------------- chapter 3
def test_3_1_convert_topology():
    n, nnz = 6, 10
    # nvgraph variables
    CSC_input = nv.CSCTopology32I()
    CSR_output = nv.CSRTopology32I()
    edge_dimT = nv.CUDA_R_32F
    # Allocate source data
    CSC_input.nvertices = n
    CSC_input.nedges = nnz
    CSC_input.destination_offsets = np.empty(n + 1, np.int32)
    CSC_input.source_indices = np.empty(nnz, np.int32)
    src_weights_d = np.empty(nnz, np.float32)
    # Copy source data
    src_weights_h = np.array(W, np.float32)
    destination_offsets_h = np.array(DST_OFFSETS, np.int32)
    source_indices_h = np.array(SRC_INDICES, np.int32)
    CSC_input.destination_offsets[:] = destination_offsets_h
    CSC_input.source_indices[:] = source_indices_h
    src_weights_d[:] = src_weights_h
    # Allocate destination data
    CSR_output.source_offsets = np.empty(n + 1, np.int32)
    CSR_output.destination_indices = np.empty(nnz, np.int32)
    dst_weights_d = np.empty(nnz, np.float32)
    # Starting nvgraph and convert
    handle = nv.create()
    nv.convert_topology(handle, nv.CSC_32, CSC_input, src_weights_d, edge_dimT, nv.CSR_32,
                        CSR_output, dst_weights_d)
    nv.destroy(handle)
    ref = guide_graph().tocsr()
    ref.sort_indices()
    assert CSR_output.nvertices == n and CSR_output.nedges == nnz
    np.testing.assert_array_equal(CSR_output.source_offsets, ref.indptr)
    np.testing.assert_array_equal(CSR_output.destination_indices, ref.indices)
    np.testing.assert_array_equal(dst_weights_d, ref.data)


def test_3_2_convert_graph():
    n, nnz, vert_sets, edge_sets = 6, 10, 2, 1
    edge_dimT = nv.CUDA_R_32F
    # Allocate host data
    pr_1 = np.zeros(n, np.float32)
    vertex_dim = [None] * vert_sets
    vertex_dimT = [None] * vert_sets
    CSC_input = nv.CSCTopology32I()
    # Initialize host data
    weights_h = np.array(W, np.float32)
    destination_offsets_h = np.array(DST_OFFSETS, np.int32)
    source_indices_h = np.array(SRC_INDICES, np.int32)
    bookmark_h = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0], np.float32)
    vertex_dim[0] = bookmark_h
    vertex_dim[1] = pr_1
    vertex_dimT[0] = nv.CUDA_R_32F
    vertex_dimT[1] = nv.CUDA_R_32F
    # Starting nvgraph
    handle = nv.create()
    src_csc_graph = nv.create_graph_descr(handle)
    CSC_input.nvertices = n
    CSC_input.nedges = nnz
    CSC_input.destination_offsets = destination_offsets_h
    CSC_input.source_indices = source_indices_h
    # Set graph connectivity and properties (transfers)
    nv.set_graph_structure(handle, src_csc_graph, CSC_input, nv.CSC_32)
    nv.allocate_vertex_data(handle, src_csc_graph, vert_sets, vertex_dimT)
    nv.allocate_edge_data(handle, src_csc_graph, edge_sets, [edge_dimT])
    for i in range(2):
        nv.set_vertex_data(handle, src_csc_graph, vertex_dim[i], i)
    nv.set_edge_data(handle, src_csc_graph, weights_h, 0)
    # Convert to CSR graph
    dst_csr_graph = nv.create_graph_descr(handle)
    nv.convert_graph(handle, src_csc_graph, dst_csr_graph, nv.CSR_32)
    # (checks, not in the guide)
    topo, ttype = nv.get_graph_structure(handle, dst_csr_graph)
    ref = guide_graph().tocsr()
    ref.sort_indices()
    assert ttype == nv.CSR_32 and (topo.nvertices, topo.nedges) == (n, nnz)
    np.testing.assert_array_equal(host(topo.source_offsets), ref.indptr)
    np.testing.assert_array_equal(host(topo.destination_indices), ref.indices)
    np.testing.assert_array_equal(host(nv.get_edge_data(handle, dst_csr_graph, None, 0)),
                                  ref.data)
    np.testing.assert_array_equal(nv.get_vertex_data(handle, dst_csr_graph,
                                                     np.empty(n, np.float32), 0), bookmark_h)
    nv.destroy_graph_descr(handle, src_csc_graph)
    nv.destroy_graph_descr(handle, dst_csr_graph)
    nv.destroy(handle)


def pagerank_reference(P, alpha, bookmark, tol=1e-6, max_iter=500):
    """nvGRAPH's power method in dense NumPy (pagerank.cu, solve_it)."""
    n = P.shape[0]
    a = np.where(bookmark == 0, 1 - alpha, bookmark)
    tmp = np.full(n, 1.0 / n)
    tmp /= np.linalg.norm(tmp)
    for _ in range(max_iter):
        pr = alpha * (P.T @ tmp) + (a @ tmp) / n
        pr /= np.linalg.norm(pr)
        if np.linalg.norm(pr - tmp) < tol:
            return pr / np.abs(pr).sum()
        tmp = pr
    raise AssertionError("reference did not converge")


def test_3_3_pagerank():
    n, nnz, vert_sets, edge_sets = 6, 10, 2, 1
    alpha1 = 0.9
    alpha1_p = np.array([alpha1], np.float32)
    edge_dimT = nv.CUDA_R_32F
    # Allocate host data
    pr_1 = np.zeros(n, np.float32)
    vertex_dim = [None] * vert_sets
    vertex_dimT = [None] * vert_sets
    CSC_input = nv.CSCTopology32I()
    # Initialize host data
    weights_h = np.array(W, np.float32)
    destination_offsets_h = np.array(DST_OFFSETS, np.int32)
    source_indices_h = np.array(SRC_INDICES, np.int32)
    bookmark_h = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0], np.float32)
    vertex_dim[0] = bookmark_h
    vertex_dim[1] = pr_1
    vertex_dimT[0] = nv.CUDA_R_32F
    vertex_dimT[1] = nv.CUDA_R_32F
    # Starting nvgraph
    handle = nv.create()
    graph = nv.create_graph_descr(handle)
    CSC_input.nvertices = n
    CSC_input.nedges = nnz
    CSC_input.destination_offsets = destination_offsets_h
    CSC_input.source_indices = source_indices_h
    # Set graph connectivity and properties (transfers)
    nv.set_graph_structure(handle, graph, CSC_input, nv.CSC_32)
    nv.allocate_vertex_data(handle, graph, vert_sets, vertex_dimT)
    nv.allocate_edge_data(handle, graph, edge_sets, [edge_dimT])
    for i in range(2):
        nv.set_vertex_data(handle, graph, vertex_dim[i], i)
    nv.set_edge_data(handle, graph, weights_h, 0)
    nv.pagerank(handle, graph, 0, alpha1_p, 0, 0, 1, 0.0, 0)
    # Get result
    nv.get_vertex_data(handle, graph, vertex_dim[1], 1)
    nv.destroy_graph_descr(handle, graph)
    nv.destroy(handle)
    # references: nvGRAPH's iteration in dense NumPy, and NetworkX's PageRank (the same
    # Google matrix: dangling vertices teleport uniformly)
    P = guide_graph(np.float64).toarray()
    ref = pagerank_reference(P, 0.9, bookmark_h.astype(np.float64))
    np.testing.assert_allclose(pr_1, ref, rtol=2e-4)
    G = nx.from_scipy_sparse_array(guide_graph(np.float64), create_using=nx.DiGraph)
    nxr = nx.pagerank(G, alpha=0.9, tol=1e-12)
    np.testing.assert_allclose(pr_1, [nxr[i] for i in range(n)], rtol=1e-3)
    assert abs(float(pr_1.sum()) - 1) < 1e-5


def test_3_4_sssp():
    n, nnz, vertex_numsets, edge_numsets = 6, 10, 1, 1
    # Init host data
    sssp_1_h = np.zeros(n, np.float32)
    vertex_dim = [sssp_1_h]
    vertex_dimT = [nv.CUDA_R_32F]
    edge_dimT = nv.CUDA_R_32F
    CSC_input = nv.CSCTopology32I()
    weights_h = np.array(W, np.float32)
    destination_offsets_h = np.array(DST_OFFSETS, np.int32)
    source_indices_h = np.array(SRC_INDICES, np.int32)
    handle = nv.create()
    graph = nv.create_graph_descr(handle)
    CSC_input.nvertices = n
    CSC_input.nedges = nnz
    CSC_input.destination_offsets = destination_offsets_h
    CSC_input.source_indices = source_indices_h
    # Set graph connectivity and properties (transfers)
    nv.set_graph_structure(handle, graph, CSC_input, nv.CSC_32)
    nv.allocate_vertex_data(handle, graph, vertex_numsets, vertex_dimT)
    nv.allocate_edge_data(handle, graph, edge_numsets, [edge_dimT])
    nv.set_edge_data(handle, graph, weights_h, 0)
    # Solve
    source_vert = 0
    nv.sssp(handle, graph, 0, source_vert, 0)
    # Get and print result
    nv.get_vertex_data(handle, graph, sssp_1_h, 0)
    # Clean
    nv.destroy_graph_descr(handle, graph)
    nv.destroy(handle)
    ref = csgraph.dijkstra(guide_graph(np.float64), indices=0)
    np.testing.assert_allclose(sssp_1_h, ref, rtol=1e-6)
    np.testing.assert_allclose(sssp_1_h, [0, 0.5, 0.5, 1.333333, 0.833333, 1.333333], rtol=1e-5)
    assert vertex_dim[0] is sssp_1_h


def test_3_5_srspmv():
    n, nnz, vertex_numsets, edge_numsets = 5, 10, 2, 1
    alpha, beta = 1.0, 0.0
    alpha_p, beta_p = np.float32(alpha), np.float32(beta)
    vertex_dim = [None, None]
    edge_dimT = nv.CUDA_R_32F
    vertex_dimT = [None, None]
    CSR_input = nv.CSRTopology32I()
    x_h = np.array([1.1, 2.2, 3.3, 4.4, 5.5], np.float32)
    y_h = np.array([0.0, 0.0, 0.0, 0.0, 0.0], np.float32)
    vertex_dim[0] = x_h
    vertex_dim[1] = y_h
    vertex_dimT[0] = nv.CUDA_R_32F
    vertex_dimT[1] = nv.CUDA_R_32F
    weights_h = np.array([1.0, 4.0, 2.0, 3.0, 5.0, 7.0, 8.0, 9.0, 6.0, 1.5], np.float32)
    source_offsets_h = np.array([0, 2, 4, 7, 9, 10], np.int32)
    destination_indices_h = np.array([0, 1, 1, 2, 0, 3, 4, 2, 4, 2], np.int32)
    handle = nv.create()
    graph = nv.create_graph_descr(handle)
    CSR_input.nvertices = n
    CSR_input.nedges = nnz
    CSR_input.source_offsets = source_offsets_h
    CSR_input.destination_indices = destination_indices_h
    # Set graph connectivity and properties (transfers)
    nv.set_graph_structure(handle, graph, CSR_input, nv.CSR_32)
    nv.allocate_vertex_data(handle, graph, vertex_numsets, vertex_dimT)
    for i in range(vertex_numsets):
        nv.set_vertex_data(handle, graph, vertex_dim[i], i)
    nv.allocate_edge_data(handle, graph, edge_numsets, [edge_dimT])
    nv.set_edge_data(handle, graph, weights_h, 0)
    # Solve
    nv.srspmv(handle, graph, 0, alpha_p, 0, beta_p, 1, nv.PLUS_TIMES_SR)
    # Get result
    nv.get_vertex_data(handle, graph, y_h, 1)
    # Clean
    nv.destroy_graph_descr(handle, graph)
    nv.destroy(handle)
    A = sp.csr_matrix((weights_h.astype(np.float64), destination_indices_h, source_offsets_h))
    np.testing.assert_allclose(y_h, A @ x_h.astype(np.float64), rtol=1e-6)
    np.testing.assert_allclose(y_h, [9.9, 14.3, 80.3, 62.7, 4.95], rtol=1e-6)


def test_3_6_triangles_counting():
    # Undirected graph:
    # 0      2-----4
    #  \    / \    / \
    #   \  /   \  /   \
    #    \ /     \ /   \
    #     1-----3-----5
    # 3 triangles
    # CSR of lower triangular of adjacency matrix:
    n, nnz = 6, 8
    source_offsets = np.array([0, 0, 1, 2, 4, 6, 8], np.int32)
    destination_indices = np.array([0, 1, 1, 2, 2, 3, 3, 4], np.int32)
    handle = nv.create()
    graph = nv.create_graph_descr(handle)
    CSR_input = nv.CSRTopology32I()
    CSR_input.nvertices = n
    CSR_input.nedges = nnz
    CSR_input.source_offsets = source_offsets
    CSR_input.destination_indices = destination_indices
    # Set graph connectivity
    nv.set_graph_structure(handle, graph, CSR_input, nv.CSR_32)
    trcount = nv.triangle_count(handle, graph)
    assert trcount == 3
    nv.destroy_graph_descr(handle, graph)
    nv.destroy(handle)


def test_3_7_traversal():
    # Example of graph (CSR format)
    n, nnz, vertex_numsets, edge_numset = 7, 12, 2, 0
    source_offsets_h = np.array([0, 1, 3, 4, 6, 8, 10, 12], np.int32)
    destination_indices_h = np.array([5, 0, 2, 0, 4, 5, 2, 3, 3, 4, 1, 5], np.int32)
    # where to store results (distances from source) and where to store results
    # (predecessors in search tree)
    bfs_distances_h = np.empty(n, np.int32)
    bfs_predecessors_h = np.empty(n, np.int32)
    distances_index = 0
    predecessors_index = 1
    vertex_dimT = [None] * vertex_numsets
    vertex_dimT[distances_index] = nv.CUDA_R_32I
    vertex_dimT[predecessors_index] = nv.CUDA_R_32I
    # Creating nvgraph objects
    handle = nv.create()
    graph = nv.create_graph_descr(handle)
    # Set graph connectivity and properties (transfers)
    CSR_input = nv.CSRTopology32I()
    CSR_input.nvertices = n
    CSR_input.nedges = nnz
    CSR_input.source_offsets = source_offsets_h
    CSR_input.destination_indices = destination_indices_h
    nv.set_graph_structure(handle, graph, CSR_input, nv.CSR_32)
    nv.allocate_vertex_data(handle, graph, vertex_numsets, vertex_dimT)
    source_vert = 1
    # Setting the traversal parameters
    traversal_param = nv.traversal_parameter_init()
    nv.traversal_set_distances_index(traversal_param, distances_index)
    nv.traversal_set_predecessors_index(traversal_param, predecessors_index)
    nv.traversal_set_undirected_flag(traversal_param, False)
    # Computing traversal using BFS algorithm
    nv.traversal(handle, graph, nv.TRAVERSAL_BFS, source_vert, traversal_param)
    # Get result
    nv.get_vertex_data(handle, graph, bfs_distances_h, distances_index)
    nv.get_vertex_data(handle, graph, bfs_predecessors_h, predecessors_index)
    # expect bfs distances_h = (1 0 1 3 3 2 2147483647)
    assert bfs_distances_h.tolist() == [1, 0, 1, 3, 3, 2, 2147483647]
    # expect bfs predecessors = (1 -1 1 5 5 0 -1)
    assert bfs_predecessors_h.tolist() == [1, -1, 1, 5, 5, 0, -1]
    nv.destroy_graph_descr(handle, graph)
    nv.destroy(handle)
    assert edge_numset == 0


# ---------------------------------------------------------------------- more of the API
def csc_graph(handle, dtype=nv.CUDA_R_32F, vsets=2, esets=1):
    g = nv.create_graph_descr(handle)
    t = nv.CSCTopology32I(6, 10, np.array(DST_OFFSETS, np.int32), np.array(SRC_INDICES, np.int32))
    nv.set_graph_structure(handle, g, t, nv.CSC_32)
    if vsets:
        nv.allocate_vertex_data(handle, g, vsets, [dtype] * vsets)
    if esets:
        nv.allocate_edge_data(handle, g, esets, [dtype] * esets)
        npt = {nv.CUDA_R_32F: np.float32, nv.CUDA_R_64F: np.float64, nv.CUDA_R_32I: np.int32}
        nv.set_edge_data(handle, g, np.array(W, npt[dtype]), 0)
    return g


def status_of(excinfo):
    err = excinfo.value
    assert err.status == err.nvgraph_status
    return err.status


def test_widest_path_on_the_guide_graph():
    h = nv.create()
    g = csc_graph(h, nv.CUDA_R_64F)
    nv.widest_path(h, g, 0, 0, 1)
    out = host(nv.get_vertex_data(h, g, None, 1))
    big = np.finfo(np.float64).max
    # 0 -> 1 (0.5), 0 -> 2 (0.5), 2 -> 4 (1/3), 4 -> 3 / 5 (0.5) or via 3: min 1/3
    np.testing.assert_allclose(out, [big, 0.5, 0.5, 0.333333, 0.333333, 0.333333])
    # unreachable: from vertex 1 (no out-edges) everything else is -DBL_MAX
    nv.widest_path(h, g, 0, [1], 1)
    out = host(nv.get_vertex_data(h, g, None, 1))
    assert out[1] == big and (out[[0, 2, 3, 4, 5]] == -big).all()


def test_sssp_unreachable_is_flt_max():
    h = nv.create()
    g = csc_graph(h)
    nv.sssp(h, g, 0, 1, 0)
    out = nv.get_vertex_data(h, g, np.empty(6, np.float32), 0)
    assert out[1] == 0 and (out[[0, 2, 3, 4, 5]] == np.finfo(np.float32).max).all()


def test_state_rules_and_statuses():
    h = nv.create()
    g = nv.create_graph_descr(h)
    t = nv.CSCTopology32I(6, 10, np.array(DST_OFFSETS, np.int32), np.array(SRC_INDICES, np.int32))
    # data before topology
    with pytest.raises(gg.GraphBLASError) as e:
        nv.allocate_vertex_data(h, g, 1, [nv.CUDA_R_32F])
    assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    # COO is for storage only; a mismatched struct; zero sizes
    with pytest.raises(gg.GraphBLASError) as e:
        nv.set_graph_structure(h, g, nv.COOTopology32I(6, 10, [0] * 10, [1] * 10), nv.COO_32)
    assert status_of(e) == "NVGRAPH_STATUS_TYPE_NOT_SUPPORTED"
    with pytest.raises(gg.GraphBLASError) as e:
        nv.set_graph_structure(h, g, t, nv.CSR_32)
    assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    with pytest.raises(gg.GraphBLASError) as e:
        nv.set_graph_structure(h, g, nv.CSCTopology32I(0, 0, [0], []), nv.CSC_32)
    assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    nv.set_graph_structure(h, g, t, nv.CSC_32)
    # topology only once
    with pytest.raises(gg.GraphBLASError) as e:
        nv.set_graph_structure(h, g, t, nv.CSC_32)
    assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    # mixed and unsupported types
    with pytest.raises(gg.GraphBLASError) as e:
        nv.allocate_vertex_data(h, g, 2, [nv.CUDA_R_32F, nv.CUDA_R_64F])
    assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    with pytest.raises(gg.GraphBLASError) as e:
        nv.allocate_vertex_data(h, g, 1, ["CUDA_R_16F"])
    assert status_of(e) == "NVGRAPH_STATUS_TYPE_NOT_SUPPORTED"
    nv.allocate_vertex_data(h, g, 2, [nv.CUDA_R_32F] * 2)
    # vertex data once; edge data of the same type
    with pytest.raises(gg.GraphBLASError) as e:
        nv.allocate_vertex_data(h, g, 1, [nv.CUDA_R_32F])
    assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    with pytest.raises(gg.GraphBLASError) as e:
        nv.allocate_edge_data(h, g, 1, [nv.CUDA_R_64F])
    assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    nv.allocate_edge_data(h, g, 1, [nv.CUDA_R_32F])
    # no conversions; set numbers in range
    with pytest.raises(gg.GraphBLASError) as e:
        nv.set_edge_data(h, g, np.array(W, np.float64), 0)
    assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    with pytest.raises(gg.GraphBLASError) as e:
        nv.set_edge_data(h, g, np.array(W, np.float32), 1)
    assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    nv.set_edge_data(h, g, np.array(W, np.float32), 0)
    # algorithms need their topology, their types and valid parameters
    for call in (lambda: nv.srspmv(h, g, 0, 1.0, 0, 0.0, 1, nv.PLUS_TIMES_SR),
                 lambda: nv.traversal(h, g, nv.TRAVERSAL_BFS, 0, nv.traversal_parameter_init()),
                 lambda: nv.sssp(h, g, 0, 6, 0),
                 lambda: nv.sssp(h, g, 1, 0, 0),
                 lambda: nv.pagerank(h, g, 0, 1.0, 0, 0, 1),
                 lambda: nv.pagerank(h, g, 0, 0.85, 0, 2, 1),
                 lambda: nv.pagerank(h, g, 0, 0.85, 0, 0, 1, 1.5)):
        with pytest.raises(gg.GraphBLASError) as e:
            call()
        assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    p = nv.SpectralClusteringParameter(2, 2)
    with pytest.raises(gg.GraphBLASError) as e:
        nv.spectral_clustering(h, g, 0, p)
    assert status_of(e) == "NVGRAPH_STATUS_GRAPH_TYPE_NOT_SUPPORTED"
    assert nv.status_get_string(e.value.status) == "nvGRAPH graph type not supported"
    # pagerank not converging stores its last iterate, then raises NOT_CONVERGED
    with pytest.raises(gg.NotConverged) as e:
        nv.pagerank(h, g, 0, 0.85, 0, 0, 1, 1e-9, 2)
    assert status_of(e) == "NVGRAPH_STATUS_NOT_CONVERGED"
    assert abs(float(host(nv.get_vertex_data(h, g, None, 1)).sum()) - 1) < 1e-5
    # a destroyed descriptor, then a destroyed handle
    nv.destroy_graph_descr(h, g)
    with pytest.raises(gg.GraphBLASError) as e:
        nv.sssp(h, g, 0, 0, 0)
    assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"
    nv.destroy(h)
    with pytest.raises(gg.GraphBLASError) as e:
        nv.create_graph_descr(h)
    assert status_of(e) == "NVGRAPH_STATUS_NOT_INITIALIZED"


def test_traversal_needs_int_data_and_honours_the_edge_mask():
    h = nv.create()
    g = nv.create_graph_descr(h)
    t = nv.CSRTopology32I(7, 12, np.array([0, 1, 3, 4, 6, 8, 10, 12], np.int32),
                          np.array([5, 0, 2, 0, 4, 5, 2, 3, 3, 4, 1, 5], np.int32))
    nv.set_graph_structure(h, g, t, nv.CSR_32)
    nv.allocate_vertex_data(h, g, 2, [nv.CUDA_R_32I] * 2)
    nv.allocate_edge_data(h, g, 1, [nv.CUDA_R_32I])
    mask = np.ones(12, np.int32)
    mask[3] = 0                       # disable 2 -> 0: 0 is still reached by 1 -> 0
    nv.set_edge_data(h, g, mask, 0)
    p = nv.traversal_parameter_init()
    assert (nv.traversal_get_alpha(p), nv.traversal_get_beta(p)) == (15, 18)
    nv.traversal_set_distances_index(p, 0)
    nv.traversal_set_predecessors_index(p, 1)
    nv.traversal_set_edge_mask_index(p, 0)
    assert nv.traversal_get_edge_mask_index(p) == 0
    nv.traversal(h, g, nv.TRAVERSAL_BFS, 1, p)
    assert host(nv.get_vertex_data(h, g, None, 0)).tolist() == [1, 0, 1, 3, 3, 2, 2147483647]
    mask[:] = 1
    mask[0] = 0                       # disable 0 -> 5: 5, 3, 4 become unreachable from 1
    nv.set_edge_data(h, g, mask, 0)
    nv.traversal(h, g, nv.TRAVERSAL_BFS, 1, p)
    inf = 2147483647
    assert host(nv.get_vertex_data(h, g, None, 0)).tolist() == [1, 0, 1, inf, inf, inf, inf]
    assert host(nv.get_vertex_data(h, g, None, 1)).tolist() == [1, -1, 1, -1, -1, -1, -1]
    g2 = nv.create_graph_descr(h)
    nv.set_graph_structure(h, g2, t, nv.CSR_32)
    nv.allocate_vertex_data(h, g2, 1, [nv.CUDA_R_32F])
    with pytest.raises(gg.GraphBLASError) as e:
        nv.traversal(h, g2, nv.TRAVERSAL_BFS, 1, p)
    assert status_of(e) == "NVGRAPH_STATUS_TYPE_NOT_SUPPORTED"


def test_srspmv_semirings_match_dense_formulas():
    h = nv.create()
    g = nv.create_graph_descr(h)
    ptr = np.array([0, 2, 4, 7, 9, 10, 10], np.int32)     # vertex 5 has no out-edges
    idx = np.array([0, 1, 1, 2, 0, 3, 4, 2, 4, 2], np.int32)
    w = np.array([1, 4, 2, 3, 5, 7, 8, 9, 6, 1.5])
    nv.set_graph_structure(h, g, nv.CSRTopology32I(6, 10, ptr, idx), nv.CSR_32)
    nv.allocate_vertex_data(h, g, 2, [nv.CUDA_R_64F] * 2)
    nv.allocate_edge_data(h, g, 1, [nv.CUDA_R_64F])
    nv.set_edge_data(h, g, w, 0)
    x = np.array([1.1, 2.2, 3.3, 4.4, 5.5, 6.6])
    y0 = np.array([-1.0, 2.0, 0.5, 30.0, 3.0, 7.0])
    rows = np.repeat(np.arange(6), np.diff(ptr))
    for sr, alpha, beta in ((nv.PLUS_TIMES_SR, 2.0, 0.5), (nv.MIN_PLUS_SR, 1.0, 0.0),
                            (nv.MAX_MIN_SR, 4.0, 2.5)):
        nv.set_vertex_data(h, g, x, 0)
        nv.set_vertex_data(h, g, y0, 1)
        nv.srspmv(h, g, 0, alpha, 0, beta, 1, sr)
        got = host(nv.get_vertex_data(h, g, None, 1))
        ref = np.empty(6)
        for i in range(6):
            terms = [(w[k], x[idx[k]]) for k in np.nonzero(rows == i)[0]]
            if sr == nv.PLUS_TIMES_SR:
                ref[i] = alpha * sum(a * b for a, b in terms) + beta * y0[i]
            elif sr == nv.MIN_PLUS_SR:
                ref[i] = min(alpha + min([a + b for a, b in terms], default=np.inf),
                             beta + y0[i])
            else:
                ref[i] = max(min(alpha, max([min(a, b) for a, b in terms], default=-np.inf)),
                             min(beta, y0[i]))
        np.testing.assert_allclose(got, ref, err_msg=sr)
    nv.set_vertex_data(h, g, np.array([0, 1.0, 0, 0, 0, 0]), 0)
    nv.srspmv(h, g, 0, 1.0, 0, 0.0, 1, nv.OR_AND_SR)
    # or.and: does the row have an edge to vertex 1?
    assert host(nv.get_vertex_data(h, g, None, 1)).tolist() == [1, 1, 0, 0, 0, 0]


def test_subgraph_extraction_carries_vertex_and_edge_data():
    h = nv.create()
    g = csc_graph(h)
    nv.set_vertex_data(h, g, np.arange(6, dtype=np.float32), 0)
    sub = nv.create_graph_descr(h)
    nv.extract_subgraph_by_vertex(h, g, sub, np.array([0, 2, 4], np.int32), 3)
    topo, tt = nv.get_graph_structure(h, sub)
    # induced on {0, 2, 4}: 2->0 (1/3), 0->2 (.5), 2->4 (1/3), stored CSC by destination
    assert tt == nv.CSC_32 and (topo.nvertices, topo.nedges) == (3, 3)
    assert host(topo.destination_offsets).tolist() == [0, 1, 2, 3]
    assert host(topo.source_indices).tolist() == [1, 0, 1]
    np.testing.assert_allclose(host(nv.get_edge_data(h, sub, None, 0)), [0.333333, 0.5, 0.333333])
    assert host(nv.get_vertex_data(h, sub, None, 0)).tolist() == [0, 2, 4]
    sub2 = nv.create_graph_descr(h)
    nv.extract_subgraph_by_edge(h, g, sub2, [5, 9], 2)   # 5 -> 3 (1.0) and 4 -> 5 (0.5)
    topo, _ = nv.get_graph_structure(h, sub2)
    assert (topo.nvertices, topo.nedges) == (3, 2)       # vertices 3, 4, 5
    assert host(topo.destination_offsets).tolist() == [0, 1, 1, 2]
    assert host(topo.source_indices).tolist() == [2, 1]
    np.testing.assert_allclose(host(nv.get_edge_data(h, sub2, None, 0)), [1.0, 0.5])
    assert host(nv.get_vertex_data(h, sub2, None, 0)).tolist() == [3, 4, 5]
    for bad in ([2, 0], [0, 0], [0, 10], []):
        with pytest.raises(gg.GraphBLASError) as e:
            nv.extract_subgraph_by_edge(h, g, nv.create_graph_descr(h), bad)
        assert status_of(e) == "NVGRAPH_STATUS_INVALID_VALUE"


def test_convert_topology_coo_tags():
    h = nv.create()
    src = nv.CSRTopology32I(5, 10, np.array([0, 2, 4, 7, 9, 10], np.int32),
                            np.array([0, 1, 1, 2, 0, 3, 4, 2, 4, 2], np.int32))
    w = np.arange(10, dtype=np.float64)
    for tag, key in ((nv.SORT_BY_SOURCE, lambda s, d: (s, d)),
                     (nv.SORT_BY_DESTINATION, lambda s, d: (d, s)), (nv.UNSORTED, None)):
        dst = nv.COOTopology32I(tag=tag)
        dst, data = nv.convert_topology(h, nv.CSR_32, src, w, nv.CUDA_R_64F, nv.COO_32, dst)
        s, d, data = host(dst.source_indices), host(dst.destination_indices), host(data)
        rows = np.repeat(np.arange(5), np.diff(src.source_offsets))
        edges = {(int(a), int(b)): float(v) for a, b, v in zip(rows, src.destination_indices, w)}
        assert {(int(a), int(b)): float(v) for a, b, v in zip(s, d, data)} == edges
        if key is not None:
            keys = [key(a, b) for a, b in zip(s.tolist(), d.tolist())]
            assert keys == sorted(keys)
        assert dst.tag == tag
    with pytest.raises(gg.GraphBLASError) as e:
        nv.convert_topology(h, nv.CSR_32, src, w.astype(np.int32), nv.CUDA_R_32I, nv.CSC_32,
                            nv.CSCTopology32I())
    assert status_of(e) == "NVGRAPH_STATUS_TYPE_NOT_SUPPORTED"


def test_spectral_clustering_and_analysis_on_karate():
    from grblas_gpu import generate

    A = generate.karate()
    ptr, idx, _ = A.to_csr()
    h = nv.create()
    g = nv.create_graph_descr(h)
    nv.set_graph_structure(h, g, nv.CSRTopology32I(34, 156, ptr.astype(np.int32),
                                                   idx.astype(np.int32)), nv.CSR_32)
    nv.allocate_edge_data(h, g, 1, [nv.CUDA_R_64F])
    nv.set_edge_data(h, g, np.ones(156), 0)
    params = nv.SpectralClusteringParameter(n_clusters=2, n_eig_vects=2,
                                            algorithm=nv.MODULARITY_MAXIMIZATION)
    clustering = np.empty(34, np.int32)
    eig_vals = np.empty(2)
    eig_vects = np.empty(68)
    nv.spectral_clustering(h, g, 0, params, clustering, eig_vals, eig_vects)
    q = nv.analyze_clustering(h, g, 0, 2, clustering, nv.MODULARITY)
    G = nx.karate_club_graph()
    parts = [set(np.nonzero(clustering == c)[0].tolist()) for c in range(2)]
    assert q == pytest.approx(nx.community.modularity(G, parts, weight=None), abs=1e-6)
    assert q > 0.35
    assert set(clustering.tolist()) == {0, 1}
    # eigen-information: row-major, each row (vertex) of unit length
    np.testing.assert_allclose(np.linalg.norm(eig_vects.reshape(34, 2), axis=1), 1, rtol=1e-6)
    assert nv.get_property(nv.MAJOR_VERSION) == 9


@pytest.mark.parametrize("bad, status", [(np.nan, "NVGRAPH_STATUS_INVALID_VALUE"),
                                         (3e38, "NVGRAPH_STATUS_NOT_CONVERGED")])
def test_pagerank_non_finite_leaves_the_vertex_data(bad, status):
    # a NaN weight is refused up front; a finite one whose square overflows FP32 makes the
    # residual NaN, NOT_CONVERGED with nothing stored (never a vector of NaNs)
    h = nv.create()
    g = nv.create_graph_descr(h)
    csc = nv.CSCTopology32I()
    csc.nvertices, csc.nedges = 6, 10
    csc.destination_offsets = np.array(DST_OFFSETS, np.int32)
    csc.source_indices = np.array(SRC_INDICES, np.int32)
    nv.set_graph_structure(h, g, csc, nv.CSC_32)
    nv.allocate_vertex_data(h, g, 2, [nv.CUDA_R_32F, nv.CUDA_R_32F])
    nv.allocate_edge_data(h, g, 1, [nv.CUDA_R_32F])
    nv.set_vertex_data(h, g, np.array([0, 1, 0, 0, 0, 0], np.float32), 0)
    before = np.arange(6, dtype=np.float32)
    nv.set_vertex_data(h, g, before, 1)
    w = np.array(W, np.float32)
    w[3] = bad
    nv.set_edge_data(h, g, w, 0)
    with pytest.raises(gg.GraphBLASError) as e:
        nv.pagerank(h, g, 0, 0.85, 0, 0, 1)
    assert e.value.status == status
    np.testing.assert_array_equal(host(nv.get_vertex_data(h, g, None, 1)), before)
    nv.destroy_graph_descr(h, g)
    nv.destroy(h)
