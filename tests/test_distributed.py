"""grblas_gpu.distributed on a local cluster of 3 CPU worker processes (on the CuPy backend:
one worker per GPU, the ranks exchanging through NCCL): every distributed result equals the
single-process one (partition counts 1, 2 and 3, as far as there are workers; uneven and
empty blocks, rows whose entries span the whole column range)."""
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import semirings

pytest.importorskip("distributed")
from grblas_gpu import distributed as dist  # noqa: E402
from grblas_gpu.distributed.comm import QueueComm  # noqa: E402
from grblas_gpu.distributed.partition import row_blocks  # noqa: E402


def _connect():
    """3 CPU workers, or one per GPU on CuPy."""
    return dist.connect() if gg.backend.is_gpu else dist.connect(n_workers=3)


@pytest.fixture(scope="module")
def client():
    c = _connect()
    yield c
    cluster = c.cluster
    c.close()
    cluster.close()


@pytest.fixture(autouse=True)
def _enough_workers(request):
    """A test of ``nparts`` blocks needs as many workers (GPUs, on CuPy)."""
    nparts = getattr(request.node, "callspec", None) and request.node.callspec.params.get(
        "nparts")
    if nparts:
        workers = len(request.getfixturevalue("client").nthreads())
        if nparts > workers:
            pytest.skip(f"{nparts} blocks need {nparts} workers; the cluster has {workers}")


def _random(seed, m=40, n=40, k=160, dtype="FP64"):
    rng = np.random.default_rng(seed)
    return gg.Matrix.from_coo(rng.integers(0, m, k), rng.integers(0, n, k),
                              rng.integers(1, 9, k).astype(float), nrows=m, ncols=n,
                              dtype=dtype, dup_op="first")


def _skewed():
    """Every entry in the first 3 rows (the later blocks are empty) and one full row."""
    rows = np.concatenate([np.zeros(30, int), np.ones(5, int), np.full(5, 2)])
    cols = np.concatenate([np.arange(30), np.arange(5), np.arange(5) + 7])
    return gg.Matrix.from_coo(rows, cols, 1.0, nrows=30, ncols=30)


# ------------------------------------------------------------------------------ partition
def test_row_blocks_balance_entries_and_keep_rows_whole():
    indptr = np.array([0, 10, 11, 12, 13, 14, 24])          # two heavy rows
    b = row_blocks(indptr, 2)
    assert b[0] == 0 and b[-1] == 6 and list(b) == sorted(b)
    assert abs((indptr[b[1]] - 0) - (24 - indptr[b[1]])) <= 10
    assert list(row_blocks([0, 0, 0, 0, 0], 2)) == [0, 2, 4]     # no entries: by rows
    assert list(row_blocks([0, 9], 3)) == [0, 1, 1, 1]          # one row: the rest empty
    assert list(row_blocks([0, 1, 2, 3], 1)) == [0, 3]


# ------------------------------------------------------------------------------ objects
@pytest.mark.parametrize("nparts", [1, 2, 3])
def test_matrices_and_vectors_go_out_and_come_back(client, nparts):
    for A in (_random(1), _skewed(), gg.Matrix(gg.INT32, 7, 5)):
        D = dist.DistMatrix.from_matrix(A, client, nparts)
        assert D.nparts == nparts and D.gather().isequal(A) and D.gather().dtype == A.dtype
        v = gg.Vector.from_coo([0, 3, A.nrows - 1], [1, 2, 3], size=A.nrows, dtype="INT64")
        dv = dist.DistVector.from_vector(v, D)
        assert dv.gather().isequal(v) and dv.gather().dtype == gg.INT64


# ------------------------------------------------------------------------------ mxv
CASES = [("plus_times", None, None, False), ("min_plus", "~S", None, False),
         ("plus_times", "V", "plus", False), ("max_times", "S", None, True),
         ("any_secondi", "~S", None, True)]


@pytest.mark.parametrize("nparts", [1, 2, 3])
@pytest.mark.parametrize("semiring, mask_kind, accum, replace", CASES)
def test_mxv_equals_the_local_product(client, nparts, semiring, mask_kind, accum, replace):
    for seed, A in ((2, _random(2)), (3, _skewed())):
        rng = np.random.default_rng(seed)
        n = A.nrows
        u = gg.Vector.from_coo(np.sort(rng.choice(A.ncols, A.ncols // 2, replace=False)),
                               rng.integers(1, 5, A.ncols // 2).astype(float), size=A.ncols)
        w0 = gg.Vector.from_coo(np.arange(0, n, 3), np.arange(0, n, 3) * 1.0, size=n,
                                dtype="INT64" if semiring == "any_secondi" else "FP64")
        m = gg.Vector.from_coo(np.arange(0, n, 2), np.arange(0, n, 2) % 3, size=n)
        mask = {None: None, "S": m.S, "~S": ~m.S, "V": m.V}[mask_kind]
        desc = gg.Descriptor(replace=True) if replace else None
        expect = gg.mxv(w0.dup(), A, u, getattr(semirings, semiring), mask=mask,
                        accum=accum, desc=desc)
        D = dist.DistMatrix.from_matrix(A, client, nparts)
        w = dist.DistVector.from_vector(w0, D)
        dm = dist.DistVector.from_vector(m, D)
        dmask = {None: None, "S": dm.S, "~S": ~dm.S, "V": dm.V}[mask_kind]
        got = dist.mxv(w, D, dist.DistVector.from_vector(u, D), getattr(semirings, semiring),
                       mask=dmask, accum=accum, desc=desc)
        assert got is w and w.gather().isequal(expect), (seed, semiring, mask_kind)


T_CASES = [("plus_times", None, None, False), ("plus_first", "S", "plus", False),
           ("min_minus", "~S", None, True), ("max_second", "V", "max", False),
           ("plus_div", None, None, False)]


@pytest.mark.parametrize("nparts", [1, 2, 3])
@pytest.mark.parametrize("semiring, mask_kind, accum, replace", T_CASES)
def test_transposed_products_equal_the_local_ones(client, nparts, semiring, mask_kind, accum,
                                                  replace):
    """mxv with Aᵀ (transpose_first) and vxm with Aᵀ (transpose_second), ⊗'s operand order
    kept (first, second, minus, div are not commutative), on a square A split in blocks."""
    A = _random(6, k=300)
    n = A.nrows
    rng = np.random.default_rng(6)
    u = gg.Vector.from_coo(np.sort(rng.choice(n, n // 2, replace=False)),
                           rng.integers(1, 5, n // 2).astype(float), size=n)
    w0 = gg.Vector.from_coo(np.arange(0, n, 3), np.arange(0, n, 3) * 1.0, size=n)
    m = gg.Vector.from_coo(np.arange(0, n, 2), np.arange(0, n, 2) % 3, size=n)
    mask = {None: None, "S": m.S, "~S": ~m.S, "V": m.V}[mask_kind]
    D = dist.DistMatrix.from_matrix(A, client, nparts)
    dm = dist.DistVector.from_vector(m, D)
    dmask = {None: None, "S": dm.S, "~S": ~dm.S, "V": dm.V}[mask_kind]
    sr = getattr(semirings, semiring)
    for op, field in (("mxv", "transpose_first"), ("vxm", "transpose_second")):
        desc = gg.Descriptor(replace=replace, **{field: True})
        local, spread = getattr(gg, op), getattr(dist, op)
        args = (A, u) if op == "mxv" else (u, A)
        expect = local(w0.dup(), *args, sr, mask=mask, accum=accum, desc=desc)
        w = dist.DistVector.from_vector(w0, D)
        du = dist.DistVector.from_vector(u, D)
        dargs = (D, du) if op == "mxv" else (du, D)
        got = spread(w, *dargs, sr, mask=dmask, accum=accum, desc=desc)
        assert got is w and w.gather().isequal(expect, tolerance=1e-12), (op, semiring)


@pytest.mark.parametrize("name", ["west0067.mtx", "karate.mtx", "ldbc-directed-example.mtx"])
def test_mxv_on_lagraph_graphs(client, name):
    from conftest import lagraph_file

    A = gg.io.read_mm(lagraph_file(name))
    D = dist.DistMatrix.from_matrix(A, client)
    x = gg.Vector.from_dense(np.arange(A.ncols, dtype=float))
    w = dist.mxv(dist.DistVector.empty(D, "FP64"), D, dist.DistVector.from_vector(x, D),
                 "plus_times")
    expect = gg.mxv(gg.Vector("FP64", A.nrows), A, x, "plus_times")
    assert w.gather().isequal(expect, tolerance=1e-12)   # (sums in another order)


def test_bad_arguments(client):
    A = _random(4)
    D = dist.DistMatrix.from_matrix(A, client, min(2, len(client.nthreads())))
    u = dist.DistVector.from_vector(gg.Vector("FP64", 40), D)
    w = dist.DistVector.empty(D, "FP64")
    with pytest.raises(gg.InvalidValue):
        dist.mxv(w, A, u)                                     # a local A
    with pytest.raises(gg.NotSupported, match="positional"):
        dist.mxv(w, D, u, semirings.any_secondi, desc=gg.Descriptor(transpose_first=True))
    odd = semirings.binary_op("twice_less", "x - 2 * y", lambda x, y: x - 2 * y,
                              register=False)
    with pytest.raises(gg.NotSupported, match="no such twin"):
        dist.mxv(w, D, u, semirings.make_semiring("plus_twice_less", semirings.monoid.plus,
                                                  odd, register=False),
                 desc=gg.Descriptor(transpose_first=True))
    other = dist.DistMatrix.from_matrix(_random(5, m=41), client, D.nparts)
    with pytest.raises(gg.DimensionMismatch):
        dist.mxv(w, other, u)
    with pytest.raises(gg.InvalidValue):
        dist.DistMatrix.from_matrix(A, client, len(client.nthreads()) + 1)   # too many
    with pytest.raises(gg.InvalidValue):
        dist.connect(n_workers=0)
    with pytest.raises(gg.InvalidValue, match="unknown"):
        dist.mxv(w, D, u, "no_such_semiring")
    with pytest.raises(gg.NotSupported, match="row position"):
        dist.mxv(w, D, u, "min_firsti")
    with pytest.raises(gg.NotSupported, match="row position"):
        dist.vxm(dist.DistVector.from_vector(gg.Vector("FP64", 40), D), w, D, "any_secondi")
    with pytest.raises(gg.InvalidValue, match="unknown binary"):   # a rank's own error
        dist.mxv(w, D, u, "plus_times", accum="bogus_op")


def test_a_rank_waiting_for_a_dead_one_times_out(client):
    comm = QueueComm("alone", 0, 2, timeout=1.0)
    with pytest.raises(gg.InvalidValue, match="waited 1 s in allgather for ranks \\[1\\]"):
        comm.allgather([np.arange(3)])
    comm.close()


# ------------------------------------------------------------------------------ vxm
VXM_CASES = [("plus_times", None, None, False), ("min_plus", "~S", None, False),
             ("plus_times", "V", "plus", True), ("min_secondj", "S", "min", False)]


@pytest.mark.parametrize("nparts", [1, 2, 3])
@pytest.mark.parametrize("semiring, mask_kind, accum, replace", VXM_CASES)
def test_vxm_equals_the_local_product(client, nparts, semiring, mask_kind, accum, replace):
    """Partials folded across ranks (integer-valued floats: every order of the sums is
    exact); columns split evenly, rows by entries."""
    for seed, A in ((6, _random(6, m=40, n=35)), (7, _skewed())):
        rng = np.random.default_rng(seed)
        u = gg.Vector.from_coo(np.sort(rng.choice(A.nrows, A.nrows // 2, replace=False)),
                               rng.integers(1, 5, A.nrows // 2).astype(float), size=A.nrows)
        n = A.ncols
        out_type = "INT64" if semiring.endswith("j") else "FP64"
        w0 = gg.Vector.from_coo(np.arange(0, n, 4), np.arange(0, n, 4) + 1, size=n,
                                dtype=out_type)
        m = gg.Vector.from_coo(np.arange(1, n, 2), np.arange(1, n, 2) % 3, size=n)
        mask = {None: None, "S": m.S, "~S": ~m.S, "V": m.V}[mask_kind]
        desc = gg.Descriptor(replace=True) if replace else None
        expect = gg.vxm(w0.dup(), u, A, getattr(semirings, semiring), mask=mask, accum=accum,
                        desc=desc)
        D = dist.DistMatrix.from_matrix(A, client, nparts)
        w = dist.DistVector.from_vector(w0, D)
        dm = dist.DistVector.from_vector(m, w)
        dmask = {None: None, "S": dm.S, "~S": ~dm.S, "V": dm.V}[mask_kind]
        dist.vxm(w, dist.DistVector.from_vector(u, D), D, getattr(semirings, semiring),
                 mask=dmask, accum=accum, desc=desc)
        assert w.gather().isequal(expect), (seed, semiring, mask_kind)


# ------------------------------------------------------------------------------ vectors
@pytest.mark.parametrize("nparts", [1, 3])
def test_elementwise_apply_and_reduce_equal_the_local_ones(client, nparts):
    rng = np.random.default_rng(8)
    n = 50
    D = dist.DistMatrix.from_matrix(_random(8, m=n, n=n), client, nparts)

    def rand(k):
        return gg.Vector.from_coo(np.sort(rng.choice(n, k, replace=False)),
                                  rng.integers(-5, 9, k).astype(float), size=n)
    u, v, w0, m = rand(20), rand(30), rand(10), rand(25)
    du, dv, dm = (dist.DistVector.from_vector(x, D) for x in (u, v, m))
    for local, distributed, args in (
            (gg.ewise_add, dist.ewise_add, ("max",)), (gg.ewise_mult, dist.ewise_mult, ("plus",))):
        expect = local(w0.dup(), u, v, *args, mask=~m.S, accum="plus")
        got = distributed(dist.DistVector.from_vector(w0, D), du, dv, *args, mask=~dm.S,
                          accum="plus")
        assert got.gather().isequal(expect)
    expect = gg.apply(w0.dup(), u, "times", right=3.0, mask=m.V,
                      desc=gg.Descriptor(replace=True))
    got = dist.apply(dist.DistVector.from_vector(w0, D), du, "times", right=3.0, mask=dm.V,
                     desc=gg.Descriptor(replace=True))
    assert got.gather().isequal(expect)
    for op in ("plus", "min", "max"):
        assert dist.reduce_scalar(du, op) == gg.reduce_scalar(u, op)
    empty = dist.DistVector.empty(D, "INT32")
    assert dist.reduce_scalar(empty, "plus") == 0 and dist.reduce_scalar(empty, "min") == \
        gg.reduce_scalar(gg.Vector("INT32", n), "min")


def test_power_iterations_equal_local_ones(client):
    """A loop of distributed calls (PageRank's power step without damping, x = A x / |x|₁)
    gives the local loop's iterates."""
    A = gg.generate.rmat(9, seed=5, symmetric=False).dup("FP64")
    D = dist.DistMatrix.from_matrix(A, client)
    x = gg.Vector.from_dense(np.ones(A.nrows))
    dx = dist.DistVector.from_vector(x, D)
    for _ in range(5):
        x = gg.mxv(gg.Vector("FP64", A.nrows), A, x, "plus_times")
        x = gg.apply(x, x, "div", right=float(gg.reduce_scalar(x, "plus")))
        dx = dist.mxv(dist.DistVector.empty(D, "FP64"), D, dx, "plus_times")
        dist.apply(dx, dx, "div", right=float(dist.reduce_scalar(dx, "plus")))
    assert x.nvals > 0 and gg.reduce_scalar(x, "plus") == pytest.approx(1.0)
    assert dx.gather().isequal(x, tolerance=1e-12)


# ------------------------------------------------------------------------------ algorithms
def _graphs():
    yield "karate", gg.generate.karate()
    yield "rmat directed", gg.generate.rmat(8, seed=3, symmetric=False)
    yield "skewed", _skewed()
    from conftest import LAGRAPH

    if (LAGRAPH / "west0067.mtx").is_file():   # (the data lives beside the checkout)
        yield "west0067", gg.io.read_mm(LAGRAPH / "west0067.mtx")


@pytest.mark.parametrize("nparts", [1, 2, 3])
def test_bfs_levels_equal_the_local_search(client, nparts):
    from grblas_gpu.algorithms import bfs

    for name, A in _graphs():
        D = dist.DistMatrix.from_matrix(A, client, nparts)
        for s in (0, A.nrows - 1):
            levels = dist.bfs_levels(D, s).gather()
            dist_local, _ = bfs(A, s)
            d = np.asarray(gg.backend.to_host(dist_local)).astype(np.int64)
            reached = np.flatnonzero(d != 2**31 - 1)
            idx, lv = levels.to_coo()
            np.testing.assert_array_equal(idx, reached, err_msg=name)
            np.testing.assert_array_equal(lv, d[reached], err_msg=name)


@pytest.mark.parametrize("nparts", [1, 3])
def test_pagerank_equals_the_local_loop(client, nparts):
    from grblas_gpu.benchmarks.user_algorithms import user_pagerank

    for name, A in _graphs():
        D = dist.DistMatrix.from_matrix(A, client, nparts)
        ranks, its = dist.pagerank(D)
        expect, expect_its = user_pagerank(A, None)
        assert its == expect_its, name
        assert ranks.gather().isequal(expect, tolerance=1e-5), name


def test_algorithm_arguments(client):
    D = dist.DistMatrix.from_matrix(_random(9, m=10, n=12), client)
    with pytest.raises(gg.InvalidValue, match="square"):
        dist.pagerank(D)
    S = dist.DistMatrix.from_matrix(gg.generate.karate(), client)
    with pytest.raises(gg.IndexOutOfBounds):
        dist.bfs_levels(S, 34)
    with pytest.raises(gg.InvalidValue):
        dist.pagerank(S, damping=1.5)


@pytest.mark.parametrize("nparts", [1, 2, 3])
def test_sssp_and_components_equal_the_local_ones(client, nparts):
    from grblas_gpu.algorithms import connected_components, sssp

    weighted = gg.generate.rmat(8, seed=4, symmetric=False, weighted=True)
    for name, A in (("weighted directed", weighted), ("karate", gg.generate.karate()),
                    ("skewed", _skewed())):
        D = dist.DistMatrix.from_matrix(A, client, nparts)
        for s in (0, 5):
            got = dist.sssp(D, s).gather()
            ref = np.asarray(gg.backend.to_host(sssp(A, s)), dtype=np.float64)
            reached = np.flatnonzero(ref < np.finfo(np.float32).max)
            idx, vals = got.to_coo()
            np.testing.assert_array_equal(idx, reached, err_msg=name)
            np.testing.assert_allclose(vals, ref[reached], rtol=1e-6, err_msg=name)
        if name != "weighted directed":
            S = A   # (karate and skewed: make the skewed one symmetric first)
            if name == "skewed":
                S = gg.ewise_add(gg.Matrix(A.dtype, *A.shape), A, A.T, "any")
            labels = dist.connected_components(
                dist.DistMatrix.from_matrix(S, client, nparts)).gather()
            np.testing.assert_array_equal(
                labels.to_dense(), np.asarray(gg.backend.to_host(connected_components(S))))


def test_a_negative_cycle_is_reported(client):
    A = gg.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, -3.0, 1.0], nrows=3, ncols=3)
    with pytest.raises(gg.InvalidValue, match="negative cycle"):
        dist.sssp(dist.DistMatrix.from_matrix(A, client), 0)


@pytest.mark.parametrize("nparts", [1, 2, 3])
def test_triangle_count_equals_the_local_one(client, nparts):
    from grblas_gpu.algorithms import triangle_count

    for A in (gg.generate.karate(), gg.generate.rmat(8, seed=2), gg.generate.grid(5, 4)):
        D = dist.DistMatrix.from_matrix(A, client, nparts)
        assert dist.triangle_count(D) == triangle_count(A)


def test_a_worker_dying_mid_run_raises_instead_of_hanging():
    """Rank 1's worker process exits inside an SPMD run: the other ranks give up waiting
    (the collective's timeout, lowered on the workers; through NCCL on GPUs, whose
    communicator the others abort) and the call raises InvalidValue."""
    import os

    from grblas_gpu.distributed import ops

    c = _connect()
    try:
        if len(c.nthreads()) < 2:
            pytest.skip("a rank dying needs another to wait for it (one GPU here)")
        c.run(lambda: setattr(ops, "comm_timeout", 2.0))

        def rank_fn(comm, rank, block, _):
            if rank == 1:
                os._exit(1)                   # (the worker dies with the task)
            comm.allgather([np.arange(3)])
            return block

        D = dist.DistMatrix.from_matrix(_random(10), c)
        w = dist.DistVector.empty(D, "FP64")
        before = w.blocks
        with pytest.raises(gg.InvalidValue, match="rank|waited"):
            ops._run(w, rank_fn, D.blocks)
        assert w.blocks is before             # the output keeps its blocks
    finally:
        cluster = c.cluster
        c.close()
        cluster.close()


def test_a_block_is_built_once_per_worker_and_let_go_with_it(client):
    """A DistMatrix's blocks become Matrices on their workers at their first use, are found
    again by later calls (the same results), and go when the DistMatrix goes."""
    import gc

    from grblas_gpu.distributed import resident

    def kept():
        return sum(client.run(resident.kept).values())

    gc.collect()
    client.run(gc.collect)
    before = kept()
    A = gg.generate.rmat(7, 8, seed=3, symmetric=True)
    D = dist.DistMatrix.from_matrix(A, client)
    first, _ = dist.pagerank(D)
    assert kept() == before + D.nparts
    second, _ = dist.pagerank(D)
    levels = dist.bfs_levels(D, 0)
    assert kept() == before + D.nparts
    assert first.gather().isequal(second.gather())
    assert levels.gather().nvals > 0
    del D, first, second, levels
    gc.collect()
    for _ in range(50):   # Dask releases the blocks asynchronously
        client.run(gc.collect)
        if kept() == before:
            break
        import time
        time.sleep(0.1)
    assert kept() == before


def test_resident_matrix_in_process():
    from grblas_gpu.distributed import resident

    indptr, indices, values = (np.array([0, 1, 2], dtype=np.int64), np.array([1, 0]),
                               np.array([1.0, 2.0]))
    block = (indptr, indices, values)
    A = resident.matrix(block, 2, "FP64")
    assert resident.matrix(block, 2, "FP64") is A
    assert resident.matrix(block, 3, "FP64") is not A          # another shape: rebuilt
    twin = (indptr.copy(), indices, values)
    assert resident.matrix(twin, 2, "FP64") is not A           # equal arrays, another block
    assert A.isequal(gg.Matrix.from_csr(*block, ncols=2))
    n = resident.kept()
    del block, indptr, twin
    import gc
    gc.collect()
    assert resident.kept() < n


@pytest.mark.parametrize("nparts", [1, 2, 3])
@pytest.mark.parametrize("symmetric, dtype", [(True, None), (False, "FP32")])
def test_rmat_drawn_on_the_workers_equals_the_local_one(client, nparts, symmetric, dtype):
    """Each rank draws its share of the edges; the blocks, gathered, are the local
    generator's graph, and they are balanced by entries."""
    D = dist.rmat(8, 8, seed=11, symmetric=symmetric, dtype=dtype, client=client,
                  nparts=nparts)
    expect = gg.generate.rmat(8, 8, seed=11, symmetric=symmetric, dtype=dtype)
    assert D.shape == expect.shape and D.nparts == nparts and D.dtype == expect.dtype
    A = D.gather()
    assert A.isequal(expect)
    assert D.bounds[0] == 0 and D.bounds[-1] == A.nrows and np.all(np.diff(D.bounds) >= 0)
    sizes = np.diff(np.asarray(A.to_csr()[0], dtype=np.int64)[D.bounds])
    assert sizes.max() <= A.nvals / nparts * 1.5 + 64     # (rows are not split)
    ranks, _ = dist.pagerank(D)                           # usable as any DistMatrix
    local, _ = dist.pagerank(dist.DistMatrix.from_matrix(expect, client, nparts))
    assert ranks.gather().isequal(local.gather(), tolerance=1e-6)


def test_rmat_arguments(client):
    with pytest.raises(gg.InvalidValue, match="scale"):
        dist.rmat(-1, client=client)
    with pytest.raises(gg.InvalidValue, match="symmetric"):
        dist.rmat(4, symmetric="yes", client=client)
    with pytest.raises(gg.InvalidValue, match="a, b, c"):
        dist.rmat(4, a=0.9, b=0.9, client=client)
    with pytest.raises(gg.InvalidValue, match="nparts"):
        dist.rmat(4, client=client, nparts=len(client.nthreads()) + 1)
    with pytest.raises(gg.NotSupported, match="weighted"):
        dist.rmat(4, weighted=True, client=client)
    with pytest.raises(gg.InvalidValue, match="weighted"):
        dist.rmat(4, weighted="no", client=client)
    with pytest.raises(gg.TypeNotSupported):      # (as the local generator's)
        dist.rmat(4, dtype="no_such_type", client=client)


@pytest.mark.parametrize("nparts", [1, 2, 3])
def test_select_and_reductions_equal_the_local_ones(client, nparts):
    A = _random(7, k=300)
    n = A.nrows
    D = dist.DistMatrix.from_matrix(A, client, nparts)
    u = gg.Vector.from_coo(np.arange(0, n, 2), (np.arange(0, n, 2) % 7) * 1.0, size=n)
    m = gg.Vector.from_coo(np.arange(0, n, 3), True, size=n)
    w0 = gg.Vector.from_coo(np.arange(0, n, 5), 1.0, size=n)
    du, dm = dist.DistVector.from_vector(u, D), dist.DistVector.from_vector(m, D)
    # select, masked and accumulated
    expect = gg.select(w0.dup(), u, "valuegt", 3.0, mask=~m.S, accum="plus")
    got = dist.select(dist.DistVector.from_vector(w0, D), du, "valuegt", 3.0, mask=~dm.S,
                      accum="plus")
    assert got.gather().isequal(expect)
    # row and column reductions, with and without a mask
    for op in ("plus", "max"):
        expect = gg.reduce_rowwise(w0.dup(), A, op, mask=m.S)
        got = dist.reduce_rowwise(dist.DistVector.from_vector(w0, D), D, op, mask=dm.S)
        assert got.gather().isequal(expect, tolerance=1e-12), op
        expect = gg.reduce_columnwise(w0.dup(), A, op, accum="plus")
        got = dist.reduce_columnwise(dist.DistVector.from_vector(w0, D), D, op, accum="plus")
        assert got.gather().isequal(expect, tolerance=1e-12), op
        t = gg.Descriptor(transpose_first=True)          # each as the other of Aᵀ
        got = dist.reduce_rowwise(dist.DistVector.from_vector(w0, D), D, op, accum="plus",
                                  desc=t)
        assert got.gather().isequal(expect, tolerance=1e-12), op
    # an INT64 output of fractional sums: the partials are summed in A's type, then cast
    F = gg.apply(gg.Matrix("FP64", n, n), A, "times", right=0.25)   # (exact sums)
    DF = dist.DistMatrix.from_matrix(F, client, nparts)
    expect = gg.reduce_columnwise(gg.Vector("INT64", n), F, "plus")
    got = dist.reduce_columnwise(dist.DistVector.empty(DF, "INT64"), DF, "plus")
    assert got.gather().isequal(expect)


def test_select_by_index_is_refused(client):
    D = dist.DistMatrix.from_matrix(_random(8), client)
    u = dist.DistVector.from_vector(gg.Vector.from_coo([1, 2], [1.0, 2.0], size=40), D)
    with pytest.raises(gg.NotSupported, match="index"):
        dist.select(dist.DistVector.empty(D, "FP64"), u, "rowle", 3)
    with pytest.raises(gg.DimensionMismatch):
        dist.reduce_columnwise(dist.DistVector.from_vector(gg.Vector("FP64", 41),
                                                           dist.DistVector.empty(D, "FP64",
                                                                                 size=41)), D)


# ------------------------------------------------------------------------------ fuzzing
def test_bad_calls_raise_graphblas_errors_and_change_nothing(client):
    """Random calls of the distributed operations with arguments drawn from good and bad
    ones (wrong kinds, sizes, layouts, operators, masks, descriptors): each returns, or
    raises a GraphBLASError (never another exception), and an output it refused keeps its
    blocks."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    A = _random(9, m=20, n=20, k=80)
    D = dist.DistMatrix.from_matrix(A, client, min(2, len(client.nthreads())))
    R = dist.DistMatrix.from_matrix(_random(10, m=20, n=24, k=80), client, D.nparts)
    u = gg.Vector.from_coo([1, 4, 9], [1.0, 2.0, 3.0], size=20)
    vectors = {"u": dist.DistVector.from_vector(u, D),
               "short": dist.DistVector.from_vector(gg.Vector("FP64", 7), D),
               "bool": dist.DistVector.from_vector(gg.Vector.from_coo([2], True, size=20), D),
               "local": u, "none": None, "int": 3, "text": "u"}
    matrices = {"D": D, "R": R, "local": A, "none": None}
    ops = {"plus_times": "plus_times", "min_plus": "min_plus", "nope": "no_such_semiring",
           "plus": "plus", "valuegt": "valuegt", "rowle": "rowle", "int": 7}
    descs = {"none": None, "replace": gg.Descriptor(replace=True),
             "t0": gg.Descriptor(transpose_first=True), "bad": "replace"}
    calls = ["mxv", "vxm", "ewise_add", "ewise_mult", "apply", "select", "reduce_rowwise",
             "reduce_columnwise", "reduce_scalar", "pagerank", "bfs_levels", "rmat",
             "from_vector"]
    scales = {"2": 2, "neg": -1, "text": "x", "float": 2.5, "huge": 40}

    @settings(max_examples=150, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(st.sampled_from(calls), st.sampled_from(sorted(matrices)),
           st.sampled_from(sorted(vectors)), st.sampled_from(sorted(vectors)),
           st.sampled_from(sorted(ops)), st.sampled_from(sorted(descs)),
           st.sampled_from(["none", "S", "~V", "bad"]), st.sampled_from(sorted(scales)))
    def check(call, a, x, y, op, desc, mask, scale):
        w = dist.DistVector.from_vector(gg.Vector.from_coo([0, 5], [1.0, 2.0], size=20), D)
        before = list(w.blocks)
        m = {"none": None, "S": vectors["bool"].S, "~V": ~vectors["bool"].V,
             "bad": "mask"}[mask]
        kw = dict(mask=m, desc=descs[desc])
        Am, X, Y, o = matrices[a], vectors[x], vectors[y], ops[op]
        fn = getattr(dist, call, None)
        try:
            if call == "mxv":
                fn(w, Am, X, o, **kw)
            elif call == "vxm":
                fn(w, X, Am, o, **kw)
            elif call in ("ewise_add", "ewise_mult"):
                fn(w, X, Y, o, **kw)
            elif call == "apply":
                fn(w, X, o, right=1.0, **kw)
            elif call == "select":
                fn(w, X, o, 1.0, **kw)
            elif call in ("reduce_rowwise", "reduce_columnwise"):
                fn(w, Am, o, **kw)
            elif call == "reduce_scalar":
                fn(X, o)
            elif call == "pagerank":
                fn(Am, damping=0.85 if op != "int" else 2.0)
            elif call == "rmat":
                fn(scales[scale], 2, seed=1, symmetric=op != "int", client=client)
            elif call == "from_vector":
                dist.DistVector.from_vector(X, Am)
            else:
                fn(Am, 3 if op != "int" else 99)
        except gg.GraphBLASError:
            assert w.blocks == before, (call, a, x, y, op, desc, mask, scale)

    check()
