"""algorithms.widest_path against a plain bottleneck-Dijkstra reference (a max-heap over the
edge list, no algebra): R-MAT, LAGraph graphs, the ±FLT_MAX conventions."""
import heapq

import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu.algorithms import widest_path
from conftest import lagraph_file
from grblas_gpu import backend, generate, io


def host(a):
    return backend.to_host(a)


def reference(A, source, dtype):
    """Modified Dijkstra: the widest path is found in decreasing order of width."""
    rows, cols, vals = A.to_coo()
    n = A.nrows
    adj = [[] for _ in range(n)]
    for u, v, w in zip(rows.tolist(), cols.tolist(), vals.astype(np.float64).tolist()):
        adj[u].append((v, w))
    big = float(np.finfo(dtype).max)
    width = [-big] * n
    width[source] = big
    heap = [(-big, source)]
    done = [False] * n
    while heap:
        negw, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        for v, w in adj[u]:
            cand = min(-negw, w)
            if cand > width[v]:
                width[v] = cand
                heapq.heappush(heap, (-cand, v))
    return np.array(width, dtype=dtype)


@pytest.mark.parametrize("dtype", [gg.FP32, gg.FP64])
def test_rmat(dtype):
    A = generate.rmat(9, seed=21, symmetric=False, weighted=True, dtype=dtype)
    for source in (0, 17):
        got = host(widest_path(A, source))
        assert got.dtype == dtype.np_type
        np.testing.assert_array_equal(got, reference(A, source, dtype.np_type))


def test_lagraph_graphs():
    for name in ("west0067.mtx", "jagmesh7.mtx"):
        A = io.read_mm(lagraph_file(name))
        for source in (0, A.nrows - 1):
            np.testing.assert_array_equal(host(widest_path(A, source)),
                                          reference(A, source, np.float64))


def test_conventions():
    big = np.finfo(np.float32).max
    A = gg.Matrix.from_coo([0, 1, 0, 3], [1, 2, 2, 0], [5.0, 3.0, 1.0, 9.0], nrows=4, ncols=4,
                           dtype=gg.FP32)
    assert host(widest_path(A, 0)).tolist() == [big, 5.0, 3.0, -big]
    B = generate.karate()                       # BOOL: capacities 1, computed in FP64
    w = host(widest_path(B, 0))
    assert w.dtype == np.float64 and w[0] == np.finfo(np.float64).max and (w[1:] == 1).all()


def test_bad_input():
    with pytest.raises(gg.IndexOutOfBounds):
        widest_path(generate.karate(), 34)
