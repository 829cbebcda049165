"""The fused BFS kernels' CUDA source (grblas_gpu.kernels.bfs, with grblas_gpu.traversal's
direction rule rendered to C), compiled with g++ and run on the CPU through a stand-in for the
CUDA execution model (tests/cuda_on_cpu/simt.h), so the kernels' logic is checked where CI
has no GPU: levels against SciPy and trees by Graph500's rules, over both directions, forced
and chosen, several blocks (the grid-stride loops, the warp-aggregated list appends, the last
block's state change), both index widths, and searches longer than a batch. Skipped without
a g++ that has C++20's <barrier>."""
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

from grblas_gpu import generate, traversal
from grblas_gpu.kernels import bfs as fused
from conftest import simt_build
from test_algorithms_bfs import check_graph500, reference_levels

INF = 2**31 - 1


@pytest.fixture(scope="module", params=[("long long", np.int64), ("int", np.int32)],
                ids=["ptr64", "ptr32"])
def runner(request, tmp_path_factory):
    """A function running one search on the compiled kernels, for one pointer width."""
    ptr_c, ptr_np = request.param
    work = tmp_path_factory.mktemp("simt")
    exe = simt_build(work, "bfs_main.cpp", "kernels",
                     fused.source(ptr_c, "int", ptr_c, "int", traversal.rule_in_c()),
                     (f"-DPTR={ptr_c}", "-DIDX=int", f"-DBATCH={fused.BATCH}"))

    def write(path, M):
        M = sp.csr_matrix(M)
        M.sort_indices()
        with open(path, "wb") as f:
            np.array([M.shape[0], M.nnz], np.int64).tofile(f)
            M.indptr.astype(ptr_np).tofile(f)
            M.indices.astype(np.int32).tofile(f)

    def run(S, source, *, alpha=15, beta=18, can_pull=True, grid=3, T=None):
        write(work / "S.bin", S)
        write(work / "T.bin", S.T if T is None else T)
        out = work / "out.bin"
        r = subprocess.run([str(exe), str(work / "S.bin"), str(work / "T.bin"), str(source),
                            repr(float(alpha)), repr(float(beta)), str(int(can_pull)),
                            str(grid), str(out)], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        both = np.fromfile(out, np.int32)
        return both[:S.shape[0]], both[S.shape[0]:]

    return run


def pattern(A):
    rows, cols, _ = A.to_coo()
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=A.shape)


@pytest.mark.parametrize("alpha,beta", [(15, 18), (1e-9, 18), (1e9, 1e-9), (2, 4)])
def test_rmat_levels_and_trees(runner, alpha, beta):
    S = pattern(generate.rmat(9, seed=2))
    degrees = np.diff(S.indptr)
    for source in (int(np.argmax(degrees)), int(np.nonzero(degrees)[0][-1])):
        for grid in (1, 3):
            dist, parent = runner(S, source, alpha=alpha, beta=beta, grid=grid)
            np.testing.assert_array_equal(dist, reference_levels(S, source))
            check_graph500(S, source, dist, parent)


def test_directed_push_only_and_with_the_transpose(runner):
    S = pattern(generate.rmat(8, seed=5, symmetric=False))
    source = int(np.argmax(np.diff(S.indptr)))
    for can_pull, alpha in ((False, 15), (True, 1e6)):
        dist, parent = runner(S, source, alpha=alpha, can_pull=can_pull, T=S.T)
        np.testing.assert_array_equal(dist, reference_levels(S, source))
        check_graph500(S, source, dist, parent)


def test_a_path_longer_than_a_batch_and_an_empty_graph(runner):
    n = 2 * fused.BATCH + 5
    r = np.arange(n - 1)
    P = sp.csr_matrix((np.ones(2 * (n - 1)), (np.r_[r, r + 1], np.r_[r + 1, r])), shape=(n, n))
    for can_pull in (False, True):
        dist, parent = runner(P, 0, can_pull=can_pull, grid=2)
        assert dist.tolist() == list(range(n))
        assert parent.tolist() == [-1, *range(n - 1)]
    dist, parent = runner(sp.csr_matrix((4, 4)), 2, grid=1)
    assert dist.tolist() == [INF, INF, 0, INF] and parent.tolist() == [-1] * 4
