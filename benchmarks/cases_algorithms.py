"""Algorithm benchmark cases (issue 6): whole algorithms against peers run in the same
process, every result cross-checked. Graphs are Graph500 R-MATs (edge factor 16).

    bfs             algorithms.bfs(A, src) (the default call) from the max-degree vertex of the
                    undirected R-MAT (method auto: the fused levels), also bfs_advanced with
                    S cached (Graph500 times the search alone) and method="semiring" (the
                    GraphBLAS calls, a device read per level). GTEPS = undirected edges of the traversed
                    component (stored entries reached / 2) per second. Peers: SuiteSparse
                    (python-graphblas, all cores) level-synchronous vxm any_pair under ¬visited;
                    BFS by repeated SpMV (csr @ x and a visited mask; cuSPARSE through cupyx on
                    the GPU, scipy on the host). Check: every level equal.
    sssp            algorithms.sssp on the weighted (FP32) R-MAT from its max-degree vertex.
                    Peer: SuiteSparse frontier Bellman-Ford (min_plus). Check: scipy's Dijkstra
                    (host, FP64; only at scale <= 18, it is slow) and the peer, 1e-5 relative.
    pagerank        algorithms.pagerank (alpha 0.85, tolerance 1e-6) on the directed R-MAT
                    (dangling vertices included): per iteration (a mark at each trace call) and
                    to convergence, against the same power method written as one SpMV per
                    iteration (cuSPARSE on the GPU, scipy on the host) with the same stopping
                    rule; our iteration over one SpMV of that library (target <= 1.2 on the GPU).
                    Check: ranks within 1e-4 in L1.
    triangle_count  algorithms.triangle_count against SuiteSparse's
                    C⟨L.S⟩ = L plus.pair Lᵀ, L = tril(A, -1). Check: equal counts.

Rows as benchmarks.run expects (case, scale, method, seconds, ...). Each peer gets its own
row; ours carries "vs <peer>" = our time / the peer's (below 1: ours is faster), the checks,
and "check passed" (all of them; None when no reference ran). A peer that cannot run gets a
row saying why ("skipped"). Ours runs before the host peers: SuiteSparse's threads must not
share the host with the thread that launches our kernels.
"""
import os
import time

import numpy as np

from grblas_gpu import algorithms
import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu.algorithms._common import index_type
from grblas_gpu.algorithms.bfs import UNREACHED
from grblas_gpu import backend
from grblas_gpu.errors import NotConverged
from grblas_gpu.generate import rmat

from .run import suitesparse, timed

xp = backend.xp

CASES = [("bfs", {"scale": 22}), ("sssp", {"scale": 18}), ("pagerank", {"scale": 22}),
         ("triangle_count", {"scale": 16}), ("triangle_count", {"scale": 18})]

SEED = 20261122
DIJKSTRA_MAX_SCALE = 18
_graphs = {}


def graph(scale, kind):
    """'undirected' (iso BOOL), 'weighted' (undirected, FP32 in (0, 1]) or 'directed' (iso
    FP32 1) R-MAT; one kept at a time (scale 22 is ~130M entries)."""
    key = (scale, kind)
    if key not in _graphs:
        _graphs.clear()
        _graphs[key] = rmat(scale, 16, seed=SEED, weighted=kind == "weighted",
                            symmetric=kind != "directed",
                            dtype="FP32" if kind != "undirected" else None)
    return _graphs[key]


def _row(case, scale, A, method, seconds, **more):
    return {"case": case, "scale": scale, "method": method, "seconds": seconds,
            "ms": seconds * 1e3, "n": A.nrows, "nnz": A.nvals, **more}


def _skipped(case, scale, method, why):
    return {"case": case, "scale": scale, "method": method, "skipped": why}


def _checked(row, **checks):
    """Add the checks that ran (None: no reference) and their conjunction."""
    ran = {k: v for k, v in checks.items() if v is not None}
    row.update(ran)
    row["check passed"] = all(ran.values()) if ran else None
    return row


def _sparse():
    """(cupyx.scipy.sparse or scipy.sparse, its label): the vendor SpMV on the backend."""
    if backend.is_gpu:
        import cupyx.scipy.sparse as sparse

        return sparse, "cuSPARSE"
    import scipy.sparse as sparse

    return sparse, "scipy.sparse (host)"


def _max_degree_vertex(A):
    deg = xp.diff(A.to_csr(device=True)[0])
    return int(backend.to_scalar(xp.argmax(deg))), deg


class _Marks:
    """Stamps at the end of each iteration; the loops read one scalar per iteration, so the
    host is in step with the device at each mark (CUDA events on the GPU)."""

    def __init__(self):
        self.stamps = []

    def __call__(self, *_):
        if backend.is_gpu:
            event = xp.cuda.Event()
            event.record()
            self.stamps.append(event)
        else:
            self.stamps.append(time.perf_counter())

    def step_seconds(self):
        """Median time between consecutive marks (None with fewer than two)."""
        s = self.stamps
        if len(s) < 2:
            return None
        if backend.is_gpu:
            s[-1].synchronize()
            steps = [xp.cuda.get_elapsed_time(a, b) / 1e3 for a, b in zip(s, s[1:])]
        else:
            steps = [b - a for a, b in zip(s, s[1:])]
        return float(np.median(steps))


# ------------------------------------------------------------------------------ BFS
def _ss_bfs(gb, G, src):
    """Level-synchronous BFS: v⟨q.S⟩ = level, q⟨¬v.S, replace⟩ = q any.pair G."""
    v = gb.Vector("INT32", G.nrows)
    q = gb.Vector("BOOL", G.nrows)
    q[src] = True
    level = 0
    while q.nvals:
        v(q.S) << level
        level += 1
        q(~v.S, replace=True) << q.vxm(G, gb.semiring.any_pair["BOOL"])
    return v


def _spmv_bfs(S, src):
    """BFS by one SpMV per level (S symmetric, so S @ x follows edges either way); levels,
    -1 where unreached. The one read per level: whether anything new was found."""
    dist = xp.full(S.shape[0], -1, dtype=np.int32)
    dist[src] = 0
    x = xp.zeros(S.shape[0], dtype=np.float32)
    x[src] = 1
    level = 0
    while True:
        level += 1
        new = ((S @ x) > 0) & (dist < 0)
        if not bool(new.any()):
            return dist
        dist = xp.where(new, np.int32(level), dist)
        x = new.astype(np.float32)


def _levels(dist, unreached):
    """Host int64 levels, -1 where unreached."""
    d = backend.to_host(dist).astype(np.int64)
    d[d == unreached] = -1
    return d


def bfs(scale=22, reps=10):
    A = graph(scale, "undirected")
    n = A.nrows
    src, deg = _max_degree_vertex(A)
    secs, (dist, _) = timed(lambda: algorithms.bfs(A, src), reps)
    S = gg.apply(gg.Matrix(index_type(n), n, n), A, semirings.unary.one)
    adv_secs, _ = timed(lambda: algorithms.bfs_advanced(S, src, AT=S), reps)
    ours = _levels(dist, UNREACHED)
    deg = backend.to_host(deg)
    # Graph500: the undirected edges of the traversed component (no self loops here)
    edges = int(deg[ours >= 0].sum()) // 2
    base = {"source": src, "source degree": int(deg[src]),
            "reached": int((ours >= 0).sum()), "levels": int(ours.max()), "edges": edges}
    row = _row("bfs", scale, A, "grblas_gpu bfs", secs, GTEPS=edges / secs / 1e9, **base)
    rows = [row, _row("bfs", scale, A, "grblas_gpu bfs_advanced (S cached)",
                      adv_secs, GTEPS=edges / adv_secs / 1e9)]
    checks = {}
    sr_secs, (sr_dist, _) = timed(
        lambda: algorithms.bfs(A, src, method="semiring"), max(3, reps // 4),
        warmup=1)
    rows.append(_row("bfs", scale, A, "grblas_gpu bfs method=semiring", sr_secs,
                     GTEPS=edges / sr_secs / 1e9))
    checks["levels match method=semiring"] = bool(np.array_equal(ours,
                                                                 _levels(sr_dist, UNREACHED)))

    sparse, label = _sparse()
    indptr, indices, _ = A.to_csr(device=True)
    M = sparse.csr_matrix((xp.ones(len(indices), dtype=np.float32), indices, indptr),
                          shape=A.shape)
    p_secs, p_dist = timed(lambda: _spmv_bfs(M, src), reps)
    rows.append(_row("bfs", scale, A, f"{label} SpMV per level", p_secs,
                     GTEPS=edges / p_secs / 1e9))
    row[f"vs {label} SpMV BFS"] = secs / p_secs
    checks[f"levels match {label} SpMV BFS"] = bool(np.array_equal(ours, _levels(p_dist, -1)))

    gb = suitesparse()
    if gb is None:
        rows.append(_skipped("bfs", scale, "SuiteSparse", "python-graphblas not installed"))
    else:
        G = A.to_graphblas()
        ss_secs, v = timed(lambda: _ss_bfs(gb, G, src), max(3, reps // 4), warmup=1,
                           device=False)
        rows.append(_row("bfs", scale, A, f"SuiteSparse ({os.cpu_count()} threads)", ss_secs,
                         GTEPS=edges / ss_secs / 1e9))
        idx, lv = v.to_coo()
        ss = np.full(n, -1, dtype=np.int64)
        ss[idx] = lv
        row["vs SuiteSparse"] = secs / ss_secs
        checks["levels match SuiteSparse"] = bool(np.array_equal(ours, ss))
    _checked(row, **checks)
    return rows


# ------------------------------------------------------------------------------ SSSP
def _ss_sssp(gb, G, src):
    """Frontier Bellman-Ford: t = f min.+ G; m = t < d; f⟨m, replace⟩ = t; d⟨m⟩ = t."""
    d = gb.Vector.from_dense(np.full(G.nrows, np.inf, dtype=np.float32))
    d[src] = 0
    f = gb.Vector.from_coo([src], [0.0], size=G.nrows, dtype="FP32")
    m = gb.Vector("BOOL", G.nrows)
    while f.nvals:
        t = f.vxm(G, gb.semiring.min_plus).new()
        m << t.ewise_mult(d, gb.binary.lt)
        f(m.V, replace=True) << t
        d(m.V) << t
    return d


def _dist_check(ours, ref):
    """(same reached set and values within 1e-5 relative, the largest relative difference);
    both host float64 with inf where unreached."""
    reached = np.isfinite(ours)
    if not np.array_equal(reached, np.isfinite(ref)):
        return False, None
    a, b = ours[reached], ref[reached]
    err = float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-30))) if a.size else 0.0
    return bool(np.allclose(a, b, rtol=1e-5, atol=1e-6)), err


def sssp(scale=18, reps=5):
    A = graph(scale, "weighted")
    src, _ = _max_degree_vertex(A)
    secs, d = timed(lambda: algorithms.sssp(A, src), reps, warmup=1)
    rounds = _Marks()
    algorithms.sssp(A, src, trace=rounds)
    ours = backend.to_host(d).astype(np.float64)
    ours[ours == np.finfo(np.float32).max] = np.inf
    row = _row("sssp", scale, A, "grblas_gpu sssp", secs, source=src,
               rounds=len(rounds.stamps), reached=int(np.isfinite(ours).sum()))
    rows, checks = [row], {}

    if scale > DIJKSTRA_MAX_SCALE:
        rows.append(_skipped("sssp", scale, "scipy dijkstra", f"scale > {DIJKSTRA_MAX_SCALE}"))
    else:
        from scipy.sparse.csgraph import dijkstra

        t0 = time.perf_counter()
        ref = dijkstra(A.to_scipy(), indices=src)
        rows.append(_row("sssp", scale, A, "scipy dijkstra (host, 1 thread, FP64)",
                         time.perf_counter() - t0))
        checks["matches dijkstra"], row["max rel diff vs dijkstra"] = _dist_check(ours, ref)

    gb = suitesparse()
    if gb is None:
        rows.append(_skipped("sssp", scale, "SuiteSparse", "python-graphblas not installed"))
    else:
        G = A.to_graphblas()
        ss_secs, v = timed(lambda: _ss_sssp(gb, G, src), max(3, reps // 2), warmup=1,
                           device=False)
        rows.append(_row("sssp", scale, A, f"SuiteSparse Bellman-Ford ({os.cpu_count()} "
                         "threads)", ss_secs))
        row["vs SuiteSparse"] = secs / ss_secs
        checks["matches SuiteSparse"], row["max rel diff vs SuiteSparse"] = _dist_check(
            ours, v.to_dense().astype(np.float64))
    _checked(row, **checks)
    return rows


# ------------------------------------------------------------------------------ PageRank
def _google(sparse, A, alpha):
    """(alpha Pᵀ as CSR, dangling flags as floats) for P = D⁻¹A."""
    indptr, indices, _ = A.to_csr(device=True)
    deg = xp.diff(indptr).astype(np.float32)
    rows = A.to_coo(device=True)[0]
    scale = (alpha / xp.maximum(deg, 1)).astype(np.float32)
    P = sparse.csr_matrix((scale[rows], indices, indptr), shape=A.shape)
    return P.T.tocsr(), (deg == 0).astype(np.float32)


def _power_loop(PT, dangling, alpha, tol, max_iter, mark=None):
    """r = alpha Pᵀ r + ((1 - alpha) Σ r + alpha Σ_dangling r) / n, one SpMV per iteration.
    Stops as nvGRAPH (and ours) do: the 2-norm change of the 2-normalised iterate below tol
    (the iterates are ours up to scale, so the counts agree, within one where rounding meets
    tol). Returns (ranks, iterations)."""
    n = PT.shape[0]
    x = xp.full(n, 1.0 / n, dtype=np.float32)
    u = x / xp.linalg.norm(x)
    for it in range(1, max_iter + 1):
        y = PT @ x + ((1 - alpha) * x.sum() + alpha * (dangling @ x)) / n
        u_new = y / xp.linalg.norm(y)
        residual = float(xp.linalg.norm(u_new - u))   # the one read per iteration
        if mark is not None:
            mark()
        if residual < tol:
            break
        x, u = y, u_new
    return y / y.sum(), it


def pagerank(scale=22, reps=5, alpha=0.85, tol=1e-6, max_iter=500):
    A = graph(scale, "directed")

    def run(trace=None):
        try:
            return algorithms.pagerank(A, alpha, tolerance=tol, max_iter=max_iter, trace=trace)
        except NotConverged as exc:  # FP32 may stall above tol: report it, keep the rest
            return exc.result

    secs, ranks = timed(run, reps, warmup=1)
    marks = _Marks()
    run(marks)
    it_secs = marks.step_seconds()
    row = _row("pagerank", scale, A, "grblas_gpu pagerank (to convergence)", secs,
               iterations=len(marks.stamps), **{"iteration ms": it_secs * 1e3})

    sparse, label = _sparse()
    PT, dangling = _google(sparse, A, alpha)
    x = xp.full(A.nrows, 1.0 / A.nrows, dtype=np.float32)
    spmv_secs, _ = timed(lambda: PT @ x, max(reps, 10))
    p_secs, (p_ranks, p_its) = timed(
        lambda: _power_loop(*_google(sparse, A, alpha), alpha, tol, max_iter), reps, warmup=1)
    p_marks = _Marks()
    _power_loop(PT, dangling, alpha, tol, max_iter, p_marks)
    p_it_secs = p_marks.step_seconds()
    l1 = float(backend.to_scalar(xp.abs(ranks.astype(np.float64) - p_ranks).sum()))
    row.update({f"{label} SpMV ms": spmv_secs * 1e3,
                f"iteration / {label} SpMV": it_secs / spmv_secs,
                f"vs {label} loop": secs / p_secs, "L1 diff": l1})
    rows = [row, _row("pagerank", scale, A, f"{label} power loop (to convergence)", p_secs,
                      iterations=p_its, **{"iteration ms": p_it_secs * 1e3,
                                           f"iteration / {label} SpMV": p_it_secs / spmv_secs}),
            _row("pagerank", scale, A, f"{label} SpMV (one)", spmv_secs)]
    _checked(row, **{f"ranks match {label} loop": l1 <= 1e-4,
                     "iterations match": abs(len(marks.stamps) - p_its) <= 1})
    return rows


# ------------------------------------------------------------------------------ triangles
def _ss_triangles(gb, G):
    """L = tril(G, -1); C⟨L.S⟩ = L plus.pair Lᵀ; Σ C."""
    L = gb.select.tril(G, -1).new()
    C = gb.Matrix("INT64", G.nrows, G.ncols)
    C(L.S) << L.mxm(L.T, gb.semiring.plus_pair["INT64"])
    return int(C.reduce_scalar(gb.monoid.plus["INT64"]).new().value or 0)  # None: empty


def triangle_count(scale=16, reps=5):
    A = graph(scale, "undirected")
    secs, count = timed(lambda: algorithms.triangle_count(A), reps, warmup=1)
    row = _row("triangle_count", scale, A, "grblas_gpu triangle_count", secs, triangles=count)
    rows = [row]
    gb = suitesparse()
    if gb is None:
        rows.append(_skipped("triangle_count", scale, "SuiteSparse",
                             "python-graphblas not installed"))
        _checked(row)
        return rows
    G = A.to_graphblas()
    ss_secs, ss_count = timed(lambda: _ss_triangles(gb, G), max(3, reps // 2), warmup=1,
                              device=False)
    rows.append(_row("triangle_count", scale, A, f"SuiteSparse ({os.cpu_count()} threads)",
                     ss_secs, triangles=ss_count))
    row["vs SuiteSparse"] = secs / ss_secs
    _checked(row, **{"count matches SuiteSparse": count == ss_count})
    return rows


def run(name, **params):
    return {"bfs": bfs, "sssp": sssp, "pagerank": pagerank,
            "triangle_count": triangle_count}[name](**params)
