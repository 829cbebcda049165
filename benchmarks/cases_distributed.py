"""The distributed layer against the single-process engine (issue 37):
``python -m grblas_gpu.benchmarks --cases distributed``.

Each graph is R-MAT (undirected, iso FP32, seed fixed) at ``scale`` (default 22 on the GPU,
10 on the host), drawn on the workers by ``distributed.rmat`` for each worker count in
``workers`` (default: 1 and every GPU on CuPy, 1 and 2 CPU processes on NumPy), and locally
by ``gg.generate.rmat`` (the same graph) for the single-process row. Whole calls are timed
by ``run.timed`` (the median of ``reps`` after one untimed call): the single-process ones
with CUDA events on the GPU, the distributed ones with a wall clock (a call returns when its
ranks have).

    dist_pagerank   the PageRank power loop of ``distributed.pagerank`` against the same
                    formulation in one process (``user_algorithms.user_pagerank`` by vxm).
                    ``iteration ms``: (the call with 11 iterations - the call with 1) / 10,
                    the tolerance out of reach, so set-up and per-call costs drop out.
                    ``vs one process``: that ratio; ``speed-up``: one worker's iteration
                    over this row's. Check: after 11 iterations the ranks agree with the
                    local ones within 1e-4 in L1.
    dist_bfs        ``distributed.bfs_levels`` from ``sources`` random non-isolated
                    vertices against the push-only search in one process
                    (``user_algorithms.user_bfs(A, None, s)``, the same formulation).
                    GTEPS: the undirected edges of the reached component / seconds,
                    harmonic mean. Check: every distributed search's levels equal
                    ``algorithms.bfs``'s.
"""

import numpy as np

import grblas_gpu as gg
from grblas_gpu import algorithms, backend

from .cases_gap import default_scale, pick_sources
from .run import timed
from .user_algorithms import user_bfs, user_pagerank

CASES = [("dist_pagerank", {}), ("dist_bfs", {})]
SEED = 20261126


def _dist():
    from grblas_gpu import distributed

    return distributed


def _worker_counts(workers):
    if workers is not None:
        return [int(w) for w in str(workers).split(",")]
    if backend.is_gpu:
        gpus = backend.xp.cuda.runtime.getDeviceCount()
        return sorted({1, gpus})
    return [1, 2]


def _row(case, scale, method, seconds, **more):
    return {"case": case, "scale": scale, "method": method, "seconds": seconds,
            "ms": seconds * 1e3, **more}


def _per_iteration(run, reps, device=None):
    """((11-iteration call - 1-iteration call) / 10 seconds, the 11-iteration call's seconds,
    its result); ``device`` as run.timed's."""
    one, _ = timed(lambda: run(1), reps=reps, warmup=1, device=device)
    eleven, out = timed(lambda: run(11), reps=reps, warmup=1, device=device)
    return (eleven - one) / 10, eleven, out


def _clusters(counts):
    dist = _dist()
    for w in counts:
        client = dist.connect(n_workers=w)
        try:
            yield w, client
        finally:
            cluster = client.cluster
            client.close()
            cluster.close()


def dist_pagerank_case(scale=None, workers=None, reps=2):
    scale = default_scale() if scale is None else scale
    dist = _dist()
    A = gg.generate.rmat(scale, 16, seed=SEED, dtype="FP32")
    local_it, local_s, (local_r, _) = _per_iteration(
        lambda k: user_pagerank(A, None, tol=1e-30, max_iter=k), reps)
    rows = [_row("dist_pagerank", scale, "one process (user_pagerank, vxm)", local_s,
                 **{"iteration ms": local_it * 1e3})]
    first = None
    for w, client in _clusters(_worker_counts(workers)):
        D = dist.rmat(scale, 16, seed=SEED, dtype="FP32", client=client)
        it, secs, (ranks, _) = _per_iteration(
            lambda k: dist.pagerank(D, tol=1e-30, max_iter=k), reps, device=False)
        first = it if first is None else first
        l1 = float(abs(ranks.gather().to_dense() - local_r.to_dense()).sum())
        row = _row("dist_pagerank", scale, f"distributed, {w} worker(s)", secs, workers=w,
                   **{"iteration ms": it * 1e3, "vs one process": it / local_it,
                      "speed-up": first / it, "L1 to one process": l1,
                      "check passed": l1 <= 1e-4})
        rows.append(row)
    return rows


def dist_bfs_case(scale=None, workers=None, reps=1, sources=8):
    scale = default_scale() if scale is None else scale
    dist = _dist()
    A = gg.generate.rmat(scale, 16, seed=SEED, dtype="FP32")
    src = pick_sources(A, sources, seed=SEED)
    degree = np.diff(np.asarray(backend.to_host(A.to_csr()[0]), dtype=np.int64))
    levels, edges, local_t = [], [], []
    for s in src:
        dist_s, _ = algorithms.bfs(A, s)
        d = np.asarray(backend.to_host(dist_s)).astype(np.int64)
        reached = d != 2**31 - 1
        levels.append(d)
        edges.append(int(degree[reached].sum()) // 2)
        t, _ = timed(lambda: user_bfs(A, None, s), reps=reps, warmup=1)
        local_t.append(t)

    def gteps(times):
        return len(times) / sum(t * 1e9 / e for t, e in zip(times, edges))

    rows = [_row("dist_bfs", scale, "one process (user_bfs, push only)",
                 float(np.mean(local_t)), sources=len(src),
                 **{"GTEPS (harmonic mean)": gteps(local_t)})]
    for w, client in _clusters(_worker_counts(workers)):
        D = dist.rmat(scale, 16, seed=SEED, dtype="FP32", client=client)
        times, ok = [], True
        for s, d in zip(src, levels):
            t, lv = timed(lambda: dist.bfs_levels(D, s), reps=reps, warmup=1, device=False)
            times.append(t)
            idx, vals = lv.gather().to_coo()
            got = np.full(A.nrows, 2**31 - 1, dtype=np.int64)
            got[np.asarray(backend.to_host(idx))] = np.asarray(backend.to_host(vals))
            ok = ok and bool(np.array_equal(got, d))
        g = gteps(times)
        rows.append(_row("dist_bfs", scale, f"distributed, {w} worker(s)",
                         float(np.mean(times)), workers=w, sources=len(src),
                         **{"GTEPS (harmonic mean)": g,
                            "vs one process": rows[0]["GTEPS (harmonic mean)"] / g,
                            "levels equal the built-in's": ok, "check passed": ok}))
    return rows


_CASES = {"dist_pagerank": dist_pagerank_case, "dist_bfs": dist_bfs_case}


def run(name, **params):
    return _CASES[name](**params)
