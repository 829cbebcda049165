"""Threads sharing inputs (docs/design.md, "Threads"): objects read by many threads at once,
including by algorithms and products that cache what they derive on them, give each thread
what a single thread gets.

Each test runs THREADS threads RUNS times, the threads meeting at a barrier before every
run so that they start it together, with Python's switch interval shortened so that they
interleave finely on the NumPy backend too. Where a run should race first-time builds of
cached properties (CSC, plans, memos, dense forms), its shared inputs are new for it."""
import sys
import threading
import time
import types

import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu.algorithms import betweenness, bfs, connected_components, pagerank, sssp
from grblas_gpu import backend, generate
from grblas_gpu.kernels import cache

THREADS = 8
RUNS = 25


def host(a):
    return backend.to_host(a)


@pytest.fixture(autouse=True)
def fine_switching():
    """Switch threads every few µs (the default 5 ms lets a NumPy run finish unshared)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def in_threads(work, runs=RUNS, before_run=None):
    """work(thread, run) in THREADS threads, each run begun together (``before_run(run)``,
    in one thread, first); returns results[thread][run]. A thread's exception fails it."""
    barrier = threading.Barrier(THREADS)
    results = [[None] * runs for _ in range(THREADS)]
    errors = []
    shared = {}

    def body(t):
        try:
            for r in range(runs):
                if t == 0 and before_run is not None:
                    shared[r] = before_run(r)
                barrier.wait()
                results[t][r] = work(t, r, shared.get(r))
        except BaseException as e:  # noqa: BLE001  (reported below, in the test's thread)
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=body, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise errors[0]
    return results


def symmetric_rmat(scale, seed):
    A = generate.rmat(scale, seed=seed)
    rows, cols, _ = A.to_coo()
    r, c = np.concatenate([host(rows), host(cols)]), np.concatenate([host(cols), host(rows)])
    keep = r != c
    return gg.Matrix.from_coo(r[keep], c[keep], 1.0, nrows=A.nrows, ncols=A.ncols,
                              dup_op="any")


def test_bfs_from_threads_on_one_graph():
    """Searches from different sources on one graph at once (pulls on, the workspace kept
    with the graph's pattern) give the single-thread distances and parents' levels; each
    search held a workspace of its own, kept for later searches."""
    A = symmetric_rmat(9, seed=5)
    degrees = host(A.to_csr()[0])
    degrees = np.diff(degrees)
    sources = [int(s) for s in np.argsort(-degrees)[:THREADS]]
    expected = {s: host(bfs(A, s, undirected=True)[0]) for s in sources}

    def search(t, r, _):
        s = sources[(t + r) % THREADS]
        dist, parent = bfs(A, s, undirected=True)
        return s, host(dist), host(parent)

    for per_thread in in_threads(search):
        for s, dist, parent in per_thread:
            np.testing.assert_array_equal(dist, expected[s])
            reached = np.flatnonzero((dist != 2**31 - 1) & (np.arange(len(dist)) != s))
            np.testing.assert_array_equal(dist[parent[reached]], dist[reached] - 1)
    S = A.memo("algorithms.bfs.pattern", lambda: None)
    assert 1 <= len(S.memo("grblas_gpu.traversal.free", list)) <= THREADS


def test_sssp_and_pagerank_from_threads_on_one_graph():
    """SSSP and PageRank on one shared weighted graph, from several threads at once."""
    A = generate.rmat(7, seed=11)
    rows, cols, _ = A.to_coo()
    W = gg.Matrix.from_coo(rows, cols, (host(rows) * 7 + host(cols) * 3) % 5 + 1.0,
                           nrows=A.nrows, ncols=A.ncols)
    sources = [0, 1, 2, 3]
    expected = {s: host(sssp(W, s)) for s in sources}
    ranks = host(pagerank(W, tolerance=1e-10))

    def work(t, r, _):
        if t % 2:
            s = sources[(t + r) % len(sources)]
            return "sssp", s, host(sssp(W, s))
        return "pagerank", None, host(pagerank(W, tolerance=1e-10))

    for per_thread in in_threads(work, runs=4):
        for what, s, got in per_thread:
            if what == "sssp":
                np.testing.assert_array_equal(got, expected[s])
            else:
                np.testing.assert_allclose(got, ranks, rtol=0, atol=1e-9)   # (GPU sums: any order)


def test_components_betweenness_and_delta_stepping_from_threads_on_one_graph():
    """Connected components, betweenness and delta-stepping on one shared graph (each keeps
    what it derives with it: the union pattern, the light and heavy edges), several threads
    at once, all starting before anything is kept."""
    A = generate.rmat(7, seed=5, symmetric=False)
    rows, cols, _ = A.to_coo()
    W = gg.Matrix.from_coo(rows, cols, (host(rows) * 5 + host(cols)) % 7 + 1.0,
                           nrows=A.nrows, ncols=A.ncols)
    fresh = W.dup()   # (nothing kept with it yet: the threads race to make it)
    labels = host(connected_components(W))
    central = host(betweenness(W, [0, 1, 2, 3]))
    dist = host(sssp(W, 0, method="delta"))

    def work(t, r, _):
        kind = (t + r) % 3
        if kind == 0:
            return kind, host(connected_components(fresh))
        if kind == 1:
            return kind, host(betweenness(fresh, [0, 1, 2, 3]))
        return kind, host(sssp(fresh, 0, method="delta"))

    for per_thread in in_threads(work, runs=3):
        for kind, got in per_thread:
            if kind == 0:
                np.testing.assert_array_equal(got, labels)
            elif kind == 1:
                np.testing.assert_allclose(got, central, rtol=1e-12)   # (GPU sums: any order)
            else:
                np.testing.assert_array_equal(got, dist)


def product_operands():
    """A with a few long rows (the GPU's long-row items and partials) and short ones, and a
    full matrix of few rows (spmv_few)."""
    rng = np.random.default_rng(7)
    n, m = 300, 5000
    rows = [np.repeat(np.arange(3), m)]
    cols = [np.tile(np.arange(m), 3)]
    r = rng.integers(3, n, size=3000)
    rows.append(r)
    cols.append(rng.integers(0, m, size=len(r)))
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    vals = ((rows * 31 + cols * 7) % 9 + 1).astype(np.float64)
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=m, dup_op="plus")
    F = gg.Matrix.from_dense(((np.arange(4 * m).reshape(4, m) % 7) + 1.0))
    return A, F


def thread_vectors(t, A):
    """Thread t's own u (length ncols) and x (length nrows): values differ by thread, so
    scratch shared between threads' products would show in their results."""
    rng = np.random.default_rng(100 + t)
    idx = rng.choice(A.ncols, size=400, replace=False)
    u = gg.Vector.from_coo(idx, (idx % 5 + 1 + t).astype(np.float64), size=A.ncols)
    x = gg.Vector.from_coo(np.arange(A.nrows), np.full(A.nrows, 1.0 + t), size=A.nrows)
    return u, x


def products(A, F, u, x):
    """mxv and vxm both ways (pull plans, the CSC), a full few-row mxv, an mxm with Aᵀ and
    a transpose: each result on the host."""
    m = A.ncols
    out = []
    for direction in ("pull", "push"):
        w = gg.Vector(gg.FP64, A.nrows)
        gg.mxv(w, A, u, "plus_times", direction=direction)
        out.append(w.to_coo())
        z = gg.Vector(gg.FP64, m)
        gg.vxm(z, x, A, "plus_times", direction=direction)
        out.append(z.to_coo())
    f = gg.Vector(gg.FP64, F.nrows)
    gg.mxv(f, F, u, "plus_times", direction="pull")
    out.append(f.to_coo())
    C = gg.Matrix(gg.FP64, A.nrows, A.nrows)
    gg.mxm(C, A, A.T, "plus_times")
    out.append(C.to_coo())
    T = gg.Matrix(gg.FP64, m, A.nrows)
    gg.transpose(T, A)
    out.append(T.to_coo())
    return [tuple(host(a) for a in coo) for coo in out]


def test_products_from_threads_on_shared_matrices_made_new_each_run():
    """Products of shared matrices, new for each run (so the threads race to build their
    cached forms: CSC, row plans, pull setups, GPU scratch), with each thread's own vectors:
    every result is the single-thread one, and the matrices are unchanged."""
    A, F = product_operands()
    vectors = [thread_vectors(t, A) for t in range(THREADS)]
    expected = [products(A, F, *vectors[t]) for t in range(THREADS)]
    before = [host(a) for a in A.to_coo()]

    results = in_threads(lambda t, r, shared: products(*shared, *vectors[t]), runs=10,
                         before_run=lambda r: (A.dup(), F.dup()))
    for t, per_thread in enumerate(results):
        for got in per_thread:
            for g, e in zip(got, expected[t]):
                for ga, ea in zip(g, e):
                    np.testing.assert_allclose(ga, ea, rtol=1e-12)
    for a, b in zip(A.to_coo(), before):
        np.testing.assert_array_equal(host(a), b)


def test_dense_form_of_a_shared_vector_made_by_threads_at_once():
    """A shared sparse Vector, new for each run, read by pulls in every thread at once (each
    makes or waits for its dense form): the single-thread products."""
    A, _ = product_operands()
    u0, _ = thread_vectors(0, A)
    w = gg.Vector(gg.FP64, A.nrows)
    gg.mxv(w, A, u0, "plus_times", direction="pull")
    expected = [host(a) for a in w.to_coo()]

    def pull(t, r, u):
        w = gg.Vector(gg.FP64, A.nrows)
        gg.mxv(w, A, u, "plus_times", direction="pull")
        return [host(a) for a in w.to_coo()]

    for per_thread in in_threads(pull, runs=10, before_run=lambda r: u0.dup()):
        for got in per_thread:
            for g, e in zip(got, expected):
                np.testing.assert_allclose(g, e, rtol=1e-12)


def test_memo_makes_once_for_threads_asking_at_once():
    """Matrix.memo on a new matrix asked by every thread at once: one make(), one value."""
    made = []

    def make():
        made.append(1)
        time.sleep(0.002)   # (the others ask meanwhile)
        return object()

    def ask(t, r, M):
        return M.memo("test.threads", make)

    results = in_threads(ask, runs=5,
                         before_run=lambda r: gg.Matrix.from_coo([0, 1], [1, 0], 1.0))
    assert len(made) == 5
    for r in range(5):
        assert len({id(results[t][r]) for t in range(THREADS)}) == 1


def test_kernel_compiled_once_when_threads_ask_at_once(monkeypatch):
    """Threads asking at once for a kernel not yet built compile it once and share it
    (a stand-in for CuPy's RawModule counts the compilations)."""
    compiled, looked_up = [], []

    class Module:
        def __init__(self, code, options):
            self.code = code

        def compile(self):
            compiled.append(self.code)
            time.sleep(0.002)   # (NVRTC's time: the others ask meanwhile)

        def get_function(self, name):
            looked_up.append(name)
            return (self, name)

    fake = types.SimpleNamespace(is_gpu=False, xp=types.SimpleNamespace(RawModule=Module))
    monkeypatch.setattr(cache, "backend", fake)
    keys = [cache.KernelKey("test", f"threads{r}") for r in range(4)]

    def ask(t, r, _):
        table = cache.get_functions(keys[r], lambda: "// source", ("a", "b"))
        return table, table["a"], table["b"], cache.get_kernel(keys[r], lambda: "//", "c")

    results = in_threads(ask, runs=len(keys))
    # one module per (key, name asked of get_kernel): the table's and get_kernel's "c"
    assert len(compiled) == 2 * len(keys)
    assert sorted(looked_up) == sorted(["a", "b", "c"] * len(keys))
    for r in range(len(keys)):
        assert len({tuple(map(id, results[t][r])) for t in range(THREADS)}) == 1


@pytest.mark.skipif(not backend.is_gpu, reason="compiles CUDA")
def test_cuda_kernel_compiled_once_when_threads_ask_at_once():
    key = cache.KernelKey("test", f"threads_{time.time_ns()}")
    src = 'extern "C" __global__ void k(int* x) { x[0] = 1; }'
    results = in_threads(lambda t, r, _: cache.get_functions(key, lambda: src, ("k",)),
                         runs=1)
    assert len({id(results[t][0]["k"]) for t in range(THREADS)}) == 1


def test_replays_in_threads_equal_plain_steps():
    """Each thread its own Replay over its own vectors (one at a time under Replay.lock):
    what each carries is what a plain loop computes."""
    n = 64
    A = gg.Matrix.from_coo(np.arange(n), (np.arange(n) + 1) % n, 0.5, nrows=n, ncols=n)

    def step(x, y):
        gg.mxv(y, A, x, "plus_times")
        gg.ewise_add(x, x, y, "plus")

    def work(t, r, _):
        x, y = gg.Vector.from_dense(np.arange(n, dtype=np.float64) + t), gg.Vector(gg.FP64, n)
        px, py = x.dup(), gg.Vector(gg.FP64, n)
        replayed = gg.Replay(lambda: step(x, y), carries=(x,), reads=(A,), scratch=(y,))
        for _ in range(4):
            replayed()
            step(px, py)
        return host(x.to_dense()), host(px.to_dense())

    for per_thread in in_threads(work, runs=2):
        for got, expect in per_thread:
            np.testing.assert_allclose(got, expect, rtol=1e-12)


def test_loops_in_threads_equal_plain_loops():
    """Each thread its own gg.Loop over a shared matrix (a run holds Replay.lock throughout,
    so runs take turns): the iterations and values each gets are what a plain loop gives."""
    n = 64
    A = gg.Matrix.from_coo(np.arange(n), (np.arange(n) + 1) % n, 0.5, nrows=n, ncols=n)

    def work(t, r, _):
        x, y = gg.Vector.from_dense(np.ones(n) * (t + 1)), gg.Vector(gg.FP64, n)
        c = gg.Vector(gg.FP64, 1)
        px = x.dup()

        @gg.loop(carries=(x,), reads=(A,), scratch=(y,), watch=c, every=3)
        def halve():
            gg.mxv(y, A, x, "plus_times")          # y = x / 2, shifted
            gg.apply(x, y, "identity")
            gg.reduce_scalar(x, "max", out=c)

        its = halve.run(until=lambda c: c[0] < 1e-3 * (t + 1))
        plain = 0
        while plain < its:
            px = gg.mxv(gg.Vector(gg.FP64, n), A, px, "plus_times")
            plain += 1
        return its, host(x.to_dense()), host(px.to_dense())

    for per_thread in in_threads(work, runs=2):
        for its, got, expect in per_thread:
            assert its == 12     # 2^-10 < 1e-3 first at 10 halvings: batches of 3 make 12
            np.testing.assert_allclose(got, expect, rtol=1e-12)
