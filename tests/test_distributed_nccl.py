"""grblas_gpu.distributed's GPU side: the choice of collectives, the per-GPU cluster, and
NcclComm.

On CPU: the choice (``comm.choose``), the client's communicator tokens, the GPU workers'
specification (CUDA_VISIBLE_DEVICES rotated, checked on real worker processes running
NumPy), and NcclComm's protocol (header, offsets, dtypes, empty messages, timeouts) over an
in-process transport whose ranks are threads. On the CuPy backend with NCCL: NcclComm on
one GPU in this process, then on the cluster's workers (one rank per GPU), communicators
made once and kept, the queue collectives and the SpecCluster fallback on GPU workers."""
import os
import queue
import sys
import threading

import numpy as np
import pytest

import grblas_gpu as gg

pytest.importorskip("distributed")
from grblas_gpu import distributed as dist  # noqa: E402
from grblas_gpu.distributed import cluster, comm, nccl, ops  # noqa: E402
from grblas_gpu.distributed.nccl import NcclComm  # noqa: E402

# (the rank functions below travel to the workers by value: they need not import this file)
__import__("cloudpickle").register_pickle_by_value(sys.modules[__name__])

ON_GPU = gg.backend.is_gpu and nccl.usable()
gpu_only = pytest.mark.skipif(not ON_GPU, reason="needs the CuPy backend and cupy.cuda.nccl")
cpu_only = pytest.mark.skipif(gg.backend.is_gpu, reason="the NumPy backend's behaviour")


# ------------------------------------------------------------------------------ the choice
def test_choose_picks_nccl_only_for_cupy_with_nccl():
    assert comm.choose("auto", "cupy", True) == "nccl"
    assert comm.choose("auto", "cupy", False) == "queue"
    assert comm.choose("auto", "numpy", True) == "queue"
    assert comm.choose("queue", "cupy", True) == "queue"
    assert comm.choose("nccl", "cupy", True) == "nccl"
    with pytest.raises(gg.NotSupported, match="needs the CuPy backend"):
        comm.choose("nccl", "numpy", False)
    with pytest.raises(gg.NotSupported):
        comm.choose("nccl", "cupy", False)
    with pytest.raises(gg.InvalidValue, match="must be one of"):
        comm.choose("mpi", "cupy", True)


class _Client:
    def __init__(self, id):
        self.id = id


def test_a_group_keeps_its_token_until_a_run_fails():
    a, b = _Client("a"), _Client("b")
    g = comm.group(a, ["w1", "w2"], "auto")
    assert g == dict(workers=("w1", "w2"), token=g["token"], setting="auto")
    assert comm.group(a, ("w1", "w2"), "queue")["token"] == g["token"]
    assert comm.group(b, ["w1", "w2"], "auto")["token"] != g["token"]     # another client
    assert comm.group(a, ["w2", "w1"], "auto")["token"] != g["token"]     # other ranks
    comm.forget(a, ["w1", "w2"])
    assert comm.group(a, ["w1", "w2"], "auto")["token"] != g["token"]


# ------------------------------------------------------------------------------ the cluster
def test_device_list_follows_cuda_visible_devices():
    assert cluster.device_list(3) == ["0", "1", "2"]
    assert cluster.device_list(2, "3, 1") == ["3", "1"]
    assert cluster.device_list(1, "GPU-ab12,2") == ["GPU-ab12"]   # CUDA's count wins
    assert cluster.device_list(0, "") == []


def test_gpu_workers_see_the_devices_rotated():
    scheduler, workers = cluster.gpu_cluster_spec(["0", "1", "2"])
    assert scheduler["options"]["host"] == "127.0.0.1"
    assert list(workers) == ["gpu-0", "gpu-1", "gpu-2"]
    envs = [w["options"]["env"] for w in workers.values()]
    assert [e["CUDA_VISIBLE_DEVICES"] for e in envs] == ["0,1,2", "1,2,0", "2,0,1"]
    assert all(e["GRBLAS_GPU_BACKEND"] == "cupy" for e in envs)
    assert all(w["options"]["nthreads"] == 1 for w in workers.values())
    _, two = cluster.gpu_cluster_spec(["4", "7", "5"], n_workers=2)
    assert [w["options"]["env"]["CUDA_VISIBLE_DEVICES"] for w in two.values()] == [
        "4,7,5", "7,5,4"]
    for bad in (0, 4):
        with pytest.raises(gg.InvalidValue, match="one worker per GPU"):
            cluster.gpu_cluster_spec(["0", "1", "2"], n_workers=bad)
    with pytest.raises(gg.InvalidValue, match="dask_cuda"):
        dist.connect(dask_cuda="yes")


def test_the_spec_starts_workers_with_their_environment():
    """The specification as a SpecCluster of real worker processes (the engine on NumPy
    there, so that no GPU is needed): each worker's environment holds its rotation."""
    import dask
    from distributed import Client, SpecCluster

    scheduler, workers = cluster.gpu_cluster_spec(["a", "b"])
    for w in workers.values():
        w["options"]["env"]["GRBLAS_GPU_BACKEND"] = "numpy"
    # (the made-up device names would stop Dask's NVML monitor on a machine with GPUs)
    with dask.config.set({"distributed.diagnostics.nvml": False}), SpecCluster(
            workers=workers, scheduler=scheduler) as c, Client(c) as client:
        seen = client.run(lambda: (os.environ["CUDA_VISIBLE_DEVICES"],
                                   __import__("grblas_gpu").backend.name))
        assert sorted(seen.values()) == [("a,b", "numpy"), ("b,a", "numpy")]
        assert sorted(client.nthreads().values()) == [1, 1]


# ------------------------------------------------------------------------------ on CPU workers
@pytest.fixture(scope="module")
def cpu_client():
    c = dist.connect(n_workers=2) if not gg.backend.is_gpu else None
    yield c
    if c is not None:
        cl = c.cluster
        c.close()
        cl.close()


@cpu_only
def test_nccl_forced_on_numpy_workers_is_refused(cpu_client, monkeypatch):
    D = dist.DistMatrix.from_matrix(gg.generate.karate(), cpu_client)
    monkeypatch.setattr(ops, "collectives", "nccl")
    with pytest.raises(gg.NotSupported, match="needs the CuPy backend"):
        dist.bfs_levels(D, 0)
    monkeypatch.setattr(ops, "collectives", "sockets")
    with pytest.raises(gg.InvalidValue, match="must be one of"):
        dist.bfs_levels(D, 0)


@cpu_only
def test_a_failed_run_gives_its_workers_a_new_token(cpu_client):
    D = dist.DistMatrix.from_matrix(gg.generate.karate(), cpu_client)
    w = dist.DistVector.empty(D, "FP64")
    before = comm.group(cpu_client, w.workers, "auto")["token"]
    dist.bfs_levels(D, 0)
    assert comm.group(cpu_client, w.workers, "auto")["token"] == before

    def fails(comm_, rank, block, _):
        raise gg.InvalidValue("on purpose")

    with pytest.raises(gg.InvalidValue, match="on purpose"):
        ops._run(w, fails, D.blocks)
    assert comm.group(cpu_client, w.workers, "auto")["token"] != before


# ------------------------------------------------------------------------------ NcclComm
class _Hub:
    """What the thread ranks of one in-process transport share."""

    def __init__(self, size, timeout):
        self.size, self.timeout = size, timeout
        self.barrier = threading.Barrier(size, timeout=timeout)
        self.slots = [None] * size
        self.wires = {(s, d): queue.Queue() for s in range(size) for d in range(size)}


class _Threads:
    """NcclComm's transport between threads of this process (host arrays; each send a
    message on the (source, destination) wire, matched in order, as NCCL matches them)."""

    xp = np

    def __init__(self, hub, rank):
        self.hub, self.rank, self.aborted = hub, rank, False

    def host(self, a):
        return np.asarray(a)

    def allgather(self, send, recv):
        try:
            self.hub.slots[self.rank] = send.copy()
            self.hub.barrier.wait()
            recv[:] = np.concatenate(self.hub.slots)
            self.hub.barrier.wait()
        except threading.BrokenBarrierError:
            raise TimeoutError("a rank never came") from None

    def exchange(self, sends, recvs):
        for a, peer in sends:
            assert a.nbytes > 0, "an empty message was sent"
            self.hub.wires[self.rank, peer].put(a.view(np.uint8).copy())
        for b, peer in recvs:
            try:
                data = self.hub.wires[peer, self.rank].get(timeout=self.hub.timeout)
            except queue.Empty:
                raise TimeoutError("no message") from None
            assert data.nbytes == b.nbytes, (data.nbytes, b.nbytes)
            b[:] = data

    def wait(self, timeout):
        pass

    def abort(self):
        self.aborted = True


def _on_threads(size, fn, timeout=10.0, ranks=None):
    """fn(comm) on ``ranks`` (default: all) of ``size`` thread ranks; their results (an
    exception where one raised)."""
    hub = _Hub(size, timeout)
    comms = [NcclComm(_Threads(hub, r), r, size, timeout=timeout, run="t") for r in range(size)]
    out = [None] * size

    def go(r):
        try:
            out[r] = fn(comms[r])
        except Exception as e:   # noqa: BLE001
            out[r] = e

    threads = [threading.Thread(target=go, args=(r,)) for r in (ranks or range(size))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out, comms


def _message(src, dst):
    """What rank src sends rank dst: sizes that differ per pair, some empty, three dtypes."""
    n = (3 * src + 2 * dst) % 5            # (0 for src = dst = 0, and for others)
    return (np.arange(n, dtype=np.int64) + 100 * src + 10 * dst,
            np.linspace(0, 1, n).astype(np.float32) + src,
            np.arange(n + src) % 2 == 0)


@pytest.mark.parametrize("size", [1, 2, 3])
def test_nccl_comm_alltoall_carries_uneven_and_empty_messages(size):
    got, _ = _on_threads(size, lambda c: c.alltoall([_message(c.rank, d) for d in range(size)]))
    for dst in range(size):
        assert not isinstance(got[dst], Exception), got[dst]
        assert len(got[dst]) == size
        for src in range(size):
            expect = _message(src, dst)
            for a, e in zip(got[dst][src], expect):
                assert a.dtype == e.dtype and a.shape == e.shape
                np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("size", [1, 3])
def test_nccl_comm_allgather_gives_every_ranks_tuple(size):
    def fn(c):
        first = c.allgather((np.arange(c.rank, dtype=np.int32),
                             np.full(2 - c.rank % 2, c.rank, dtype=np.float64)))
        second = c.allgather((np.zeros(0, dtype=np.uint64),))     # all empty
        return first, second

    got, _ = _on_threads(size, fn)
    for r in range(size):
        first, second = got[r]
        assert [a.tolist() for a, _ in first] == [list(range(k)) for k in range(size)]
        assert [b.tolist() for _, b in first] == [[k] * (2 - k % 2) for k in range(size)]
        assert all(a.dtype == np.int32 for a, _ in first)
        assert [s[0].shape for s in second] == [(0,)] * size
        assert all(s[0].dtype == np.uint64 for s in second)


def test_nccl_comm_ranks_may_differ_in_dtype():
    got, _ = _on_threads(2, lambda c: c.allgather(
        (np.arange(3, dtype=np.int32 if c.rank else np.int64),)))
    assert [a.dtype for (a,) in got[0]] == [np.int64, np.int32] and not isinstance(got[1],
                                                                                    Exception)


def test_nccl_comm_times_out_aborts_and_stays_aborted():
    got, comms = _on_threads(2, lambda c: c.allgather((np.arange(2),)), timeout=0.5, ranks=[0])
    assert isinstance(got[0], gg.InvalidValue) and "did not complete" in str(got[0])
    assert comms[0].failed and comms[0].transport.aborted
    with pytest.raises(gg.InvalidValue, match="aborted"):
        comms[0].allgather((np.arange(2),))


def test_nccl_comm_refuses_what_it_cannot_carry():
    c = NcclComm(_Threads(_Hub(1, 1.0), 0), 0, 1)
    with pytest.raises(gg.InvalidValue, match="1-D"):
        c.allgather((np.zeros((2, 2)),))
    with pytest.raises(gg.InvalidValue, match="carry"):
        c.allgather((np.array(["a"]),))
    with pytest.raises(gg.InvalidValue, match="same number"):
        c.allgather(())
    with pytest.raises(gg.InvalidValue, match="needs 1 tuples"):
        c.alltoall([(np.arange(1),), (np.arange(1),)])
    assert not c.failed     # (refused before anything was sent)


def _split(A, p):
    """A's row blocks as DistMatrix.from_matrix makes them: (bounds, CSR blocks)."""
    from grblas_gpu.distributed.partition import row_blocks

    indptr, indices, values = A.to_csr()
    bounds = row_blocks(indptr, p)
    return bounds, [(indptr[lo:hi + 1] - indptr[lo], indices[indptr[lo]:indptr[hi]],
                     values[indptr[lo]:indptr[hi]]) for lo, hi in zip(bounds[:-1], bounds[1:])]


@pytest.mark.skipif(gg.backend.is_gpu, reason="the thread transport carries host arrays; on "
                    "GPUs test_distributed.py runs the algorithms over NCCL itself")
@pytest.mark.parametrize("size", [1, 2, 3])
def test_the_algorithms_ranks_over_nccl_comms_protocol(size):
    """The distributed algorithms' rank functions, each rank a thread with an NcclComm over
    the in-process transport: their traffic (int64 positions, FP32 / INT64 / BOOL values,
    empty parts, CSR arrays) gives the local results."""
    from grblas_gpu.algorithms import bfs, connected_components, triangle_count
    from grblas_gpu.benchmarks.user_algorithms import user_pagerank
    from grblas_gpu.distributed import algorithms as dalg
    from grblas_gpu.distributed.partition import join_entries

    A = gg.generate.karate()
    bounds, blocks = _split(A, size)
    meta = dict(n=A.nrows, bounds=bounds, dtype=A.dtype.name)

    def run(fn, dtype, **extra):
        got, _ = _on_threads(size, lambda c: fn(c, c.rank, None, blocks[c.rank],
                                                dict(meta, **extra)))
        assert not any(isinstance(g, Exception) for g in got), got
        idx, vals = join_entries([g[:2] for g in got], bounds)
        return gg.Vector.from_coo(idx, vals, size=A.nrows, dtype=dtype), got

    ranks, got = run(dalg._pagerank_rank, "FP32", damping=0.85, tol=1e-4, max_iter=100)
    expect, its = user_pagerank(A, None)
    assert got[0][2] == its and ranks.isequal(expect, tolerance=1e-5)
    levels, _ = run(dalg._bfs_rank, "INT64", source=5)
    d = np.asarray(gg.backend.to_host(bfs(A, 5)[0])).astype(np.int64)
    assert levels.nvals == A.nrows and np.array_equal(levels.to_dense(), d)
    labels, _ = run(dalg._components_rank, "INT64")
    assert np.array_equal(labels.to_dense(),
                          np.asarray(gg.backend.to_host(connected_components(A))))
    _, got = run(dalg._triangles_rank, "INT64")
    assert got[0][2] == triangle_count(A)


# ------------------------------------------------------------------------------ on GPUs
@gpu_only
def test_nccl_in_this_process_with_one_rank():
    """The real transport (ncclAllGather of the header, a group of ncclSend / ncclRecv to
    itself) on this process's GPU."""
    import cupy
    from cupy.cuda import nccl as cnccl

    c = NcclComm(nccl._Cuda(cnccl.NcclCommunicator(1, cnccl.get_unique_id(), 0)), 0, 1)
    try:
        msg = (cupy.arange(5, dtype=cupy.int64), np.zeros(0, dtype=np.float32),
               np.array([True, False, True]))
        (got,) = c.alltoall([msg])
        assert all(isinstance(a, cupy.ndarray) for a in got)
        for a, e in zip(got, msg):
            assert a.dtype == e.dtype
            np.testing.assert_array_equal(cupy.asnumpy(a), gg.backend.to_host(e))
        (again,) = c.allgather((cupy.arange(7, dtype=cupy.float64) / 2,))
        np.testing.assert_array_equal(cupy.asnumpy(again[0]), np.arange(7) / 2)
    finally:
        c.abort()


@pytest.fixture(scope="module")
def gpu_client():
    if not ON_GPU:
        pytest.skip("needs the CuPy backend and cupy.cuda.nccl")
    c = dist.connect()
    yield c
    cl = c.cluster
    c.close()
    cl.close()


def _exchange_rank(comm_, rank, block, _):
    """A rank's uneven and empty messages through its communicator, brought to the host."""
    size = comm_.size
    to_all = comm_.alltoall([_message(rank, d) for d in range(size)])
    gathered = comm_.allgather(_message(rank, rank))
    host = gg.backend.to_host
    return (type(comm_).__name__, [[host(a) for a in t] for t in to_all],
            [[host(a) for a in t] for t in gathered], nccl.made())


def test_nccl_on_the_workers_one_rank_per_gpu(gpu_client):
    D = dist.DistMatrix.from_matrix(gg.generate.karate(), gpu_client)
    w = dist.DistVector.empty(D, "FP64")
    ops._run(w, _exchange_rank, D.blocks)
    results = gpu_client.gather(w.blocks)
    p = len(results)
    assert p == len(gpu_client.nthreads())
    for dst, (kind, to_all, gathered, _) in enumerate(results):
        assert kind == "NcclComm"
        for src in range(p):
            for a, e in zip(to_all[src], _message(src, dst)):
                assert a.dtype == e.dtype
                np.testing.assert_array_equal(a, e)
            for a, e in zip(gathered[src], _message(src, src)):
                np.testing.assert_array_equal(a, e)
    made = [r[3] for r in results]
    ops._run(w, _exchange_rank, D.blocks)                        # the communicator kept
    assert [r[3] for r in gpu_client.gather(w.blocks)] == made

    def fails(comm_, rank, block, _):
        raise gg.InvalidValue("on purpose")

    with pytest.raises(gg.InvalidValue, match="on purpose"):
        ops._run(w, fails, D.blocks)
    ops._run(w, _exchange_rank, D.blocks)                        # a new one after a failure
    assert [r[3] for r in gpu_client.gather(w.blocks)] == [m + 1 for m in made]


def test_the_workers_run_cupy_on_their_own_gpu(gpu_client):
    seen = gpu_client.run(lambda: (os.environ.get("CUDA_VISIBLE_DEVICES"),
                                   __import__("grblas_gpu").backend.name))
    devices = cluster.visible_devices()[:len(seen)]
    assert sorted(seen.values()) == sorted(
        (",".join(devices[i:] + devices[:i]), "cupy") for i in range(len(seen)))


def test_queue_collectives_on_gpu_workers(gpu_client, monkeypatch):
    from grblas_gpu.benchmarks.user_algorithms import user_pagerank

    A = gg.generate.rmat(8, seed=3, symmetric=False)
    D = dist.DistMatrix.from_matrix(A, gpu_client)
    expect, expect_its = user_pagerank(A, None)
    for setting in ("queue", "nccl"):
        monkeypatch.setattr(ops, "collectives", setting)
        ranks, its = dist.pagerank(D)
        assert its == expect_its and ranks.gather().isequal(expect, tolerance=1e-5), setting


@gpu_only
def test_the_spec_cluster_fallback_on_gpus():
    from distributed import SpecCluster

    from grblas_gpu.algorithms import bfs

    c = dist.connect(dask_cuda=False)
    try:
        assert type(c.cluster) is SpecCluster
        A = gg.generate.rmat(8, seed=3, symmetric=False)
        levels = dist.bfs_levels(dist.DistMatrix.from_matrix(A, c), 0).gather()
        d = np.asarray(gg.backend.to_host(bfs(A, 0)[0])).astype(np.int64)
        reached = np.flatnonzero(d != 2**31 - 1)
        idx, lv = levels.to_coo()
        np.testing.assert_array_equal(idx, reached)
        np.testing.assert_array_equal(lv, d[reached])
    finally:
        cl = c.cluster
        c.close()
        cl.close()


@gpu_only
def test_dask_cuda_is_used_when_it_imports():
    try:
        from dask_cuda import LocalCUDACluster
    except Exception:   # noqa: BLE001
        pytest.skip("dask_cuda does not import here")
    c = dist.connect()
    try:
        assert isinstance(c.cluster, LocalCUDACluster)
    finally:
        cl = c.cluster
        c.close()
        cl.close()


@cpu_only
def test_a_cluster_that_does_not_start_is_invalid_value(monkeypatch):
    """Dask's own failure to start workers (a script without a __main__ guard) comes out
    as InvalidValue naming it, not as Dask's RuntimeError."""
    import distributed

    def fails(*args, **kwargs):
        raise RuntimeError("Nanny failed to start.")

    monkeypatch.setattr(distributed, "LocalCluster", fails)
    with pytest.raises(gg.InvalidValue, match="did not start .RuntimeError: Nanny failed"):
        dist.connect(n_workers=1)


@pytest.mark.skipif(gg.backend.is_gpu, reason="the thread transport carries host arrays")
def test_bfs_reach_folds_dense_and_sparse_partials_alike():
    """One rank's partial a bitmap (sent as flags), the other's sparse (sent as positions):
    each owner gets the OR of both over its block."""
    from grblas_gpu.distributed import algorithms as dalg

    bounds = np.array([0, 5, 10])
    hits = [[1, 6, 7], [1, 2, 9]]

    def fn(c):
        v = gg.Vector.from_coo(hits[c.rank], True, size=10, dtype=gg.BOOL)
        v.set_format("dense" if c.rank == 0 else "sparse")
        got = dalg._reached(c, v, bounds, 5)
        return sorted(np.asarray(got.to_coo()[0]).tolist())

    got, _ = _on_threads(2, fn)
    assert got == [[1, 2], [1, 2, 4]]
