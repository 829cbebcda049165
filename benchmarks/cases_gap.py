"""The GAP Benchmark Suite's rules on grblas_gpu: ``python -m grblas_gpu.benchmarks --gap``.

Graphs (Beamer, Asanović, Patterson, "The GAP Benchmark Suite", arXiv:1508.03619; gapbs):
    kron    Graph500 R-MAT (A = 0.57, B = C = 0.19), 2**scale vertices, degree 16, undirected
    urand   uniform random endpoints (gapbs ``-u``), degree 16, undirected
    grid    a 2-D 4-neighbour grid of 2**scale vertices (not GAP's; its diameter, ~2**(scale/2 + 1),
            makes every kernel run one step per level, so per-level host time shows)
SSSP runs on the same graphs with gapbs's weights, integers uniform in [1, 255] (FP32, so
every distance is exact), one per undirected edge.

Kernels (ours: the default call, no flags), over random non-isolated sources (gapbs's
SourcePicker; drawn with replacement, from a fixed seed):
    bfs     algorithms.bfs(A, s) from each of K sources (default 64). GTEPS per search: the
            undirected edges of the reached component / seconds; the row gives their harmonic
            mean. Check: every tree by Graph500's rules (root, tree edges in the graph and
            one level apart, no graph edge spanning more than one level, which with an
            undirected graph makes the reached set the source's component).
    sssp    algorithms.sssp(W, s) from each of K sources; mean seconds. Check: every distance
            vector by the optimality conditions (d(s) = 0; no edge relaxes; every reached
            v != s has a tight edge, so d is the length of a real path), and scipy's Dijkstra
            on DIJKSTRA_SOURCES of them.
    pr      algorithms.pagerank(A, 0.85, tolerance=1e-4): LAGraph's / nvGRAPH's formulation
            (dangling mass spread evenly). Check: GAP's stopping rule holds at our ranks (one
            more power step moves them at most 1e-4 in L1), and the ranks are within 1e-3 in L1
            of the cuSPARSE power loop's.
    cc      algorithms.connected_components(A). Check: the labels equal scipy's components
            labelled by their least vertex.
    bc      algorithms.betweenness(A, batch) for K/4 batches of 4 sources (gapbs: 4 per trial);
            mean seconds per batch. Check: Brandes by one vendor SpMV per level (cuSPARSE or
            scipy) on BC_CHECK_BATCHES batches, 1e-6 relative.
    tc      algorithms.triangle_count(A). Check: SuiteSparse's count (scipy's without it).

Each kernel's first row is ours: ``seconds`` the mean over the trials of a repeated call
(the graph's cached properties already built, and every trial's call made once before,
untimed: ``kernel builds after the first call`` counts the kernel variants that pass built,
``kernel builds in trials`` those built while timing, 0 unless something is amiss), ``first
call s`` the first call on the graph made anew (kernels compiled; nothing kept with the
graph but the symmetry its generator records, as a graph's kind is known in LAGraph and
gapbs), and with ``--fresh`` ``fresh process s`` the first call in a new Python process (the
on-disk kernel cache warm). Peers run the same formulation in this process, timed on the
first PEER_SOURCES sources (batches) only: SuiteSparse through python-graphblas on every
core (BFS push/pull by LAGraph's rule, SSSP frontier Bellman-Ford, PR power loop stopped by
GAP's L1 rule, CC FastSV, BC batched Brandes, TC masked L plus.pair Lᵀ) and, for PR, the
cuSPARSE power loop (one SpMV per iteration); ``speedup vs SuiteSparse`` = the peer's mean
time / ours on the same sources, ``vs cuSPARSE loop`` = ours / theirs. A kernel that
algorithms lacks gives a row "skipped: not available".
"""
import json
import os
import subprocess
import sys

import numpy as np

from grblas_gpu import algorithms, kernel_stats
from grblas_gpu import backend
from grblas_gpu.errors import NotConverged
from grblas_gpu.generate import grid, rmat, urand

from .cases_algorithms import _google, _power_loop, _ss_sssp, _ss_triangles, _sparse
from .run import suitesparse, timed

__all__ = ["KERNELS", "GRAPHS", "default_scale", "run_gap", "make_graph", "pick_sources",
           "markdown"]

KERNELS = ("bfs", "sssp", "pr", "cc", "bc", "tc")
GRAPHS = ("kron", "urand", "grid")
SEED = 20261201
DEFAULT_SOURCES = 64
BC_BATCH = 4                 # gapbs bc: 4 sources per trial
PR_ALPHA = 0.85
PR_TOLERANCE = 1e-4          # gapbs pr: Σ|Δscore| < 1e-4
PR_MAX_ITER = 100
PEER_SOURCES = 4             # sources (BC: batches) each peer is timed on
DIJKSTRA_SOURCES = 2
BC_CHECK_BATCHES = 2
SINGLE_TRIALS = 3            # pr, cc, tc: calls timed (gapbs runs 16, 16 and 3)
WEIGHT_MAX = 255             # gapbs weights: integers uniform in [1, 255]

# what each kernel calls in algorithms (a missing name: "skipped: not available")
_NAMES = {"bfs": "bfs", "sssp": "sssp", "pr": "pagerank", "cc": "connected_components",
          "bc": "betweenness", "tc": "triangle_count"}

xp = backend.xp


def default_scale():
    """22 on the GPU (GAP's smallest synthetic graphs are scale 27; 24 fits an H100's memory
    with the peers' copies), 10 on the host."""
    return 22 if backend.is_gpu else 10


# ------------------------------------------------------------------------------ graphs
def make_graph(kind, scale, *, weighted=False):
    """An undirected GAP graph: iso FP32 1 (the kernels' common type), or with weighted, FP32
    integer weights uniform in [1, 255], one per edge."""
    kw = {"weighted": weighted, "dtype": "FP32"}
    if kind == "kron":
        A = rmat(scale, 16, seed=SEED, **kw)
    elif kind == "urand":
        A = urand(scale, 16, seed=SEED, **kw)
    elif kind == "grid":
        A = grid(1 << (scale // 2), 1 << (scale - scale // 2), seed=SEED, **kw)
    else:
        raise ValueError(kind)
    if not weighted:
        return A
    # (0, 1] -> {1, ..., 255}: ceil keeps each edge's two copies equal
    indptr, indices, w = A.to_csr(device=True)
    w = xp.maximum(xp.ceil(w.astype(np.float64) * WEIGHT_MAX), 1).astype(np.float32)
    from grblas_gpu import Matrix

    return Matrix.from_csr(indptr, indices, w, ncols=A.ncols, dtype="FP32")


def pick_sources(A, k, seed=SEED):
    """k vertices with at least one edge, uniform with replacement (gapbs's SourcePicker)."""
    deg = np.diff(backend.to_host(A.to_csr(device=True, values=False)[0]))
    return [int(v) for v in np.random.default_rng(seed).choice(np.flatnonzero(deg > 0), k)]


class _Edges:
    """A graph's CSR on the device with each entry's row and sorted keys row * n + col: what
    the checks read."""

    def __init__(self, A):
        self.n = A.nrows
        self.indptr, self.indices, values = A.to_csr(device=True)
        self.indptr = self.indptr.astype(np.int64)
        self.indices = self.indices.astype(np.int64)
        self.rows = xp.repeat(xp.arange(self.n, dtype=np.int64), xp.diff(self.indptr))
        self.keys = self.rows * self.n + self.indices      # sorted: CSR with sorted rows
        self.values = values
        self.degree = xp.diff(self.indptr)

    def per_row(self, flags):
        """How many entries of each row have the flag."""
        c = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(flags.astype(np.int64))])
        return c[self.indptr[1:]] - c[self.indptr[:-1]]


# ------------------------------------------------------------------------------ checks
def check_bfs(E, source, dist, pred):
    """None when (dist, pred) is a valid BFS tree from source by Graph500's rules (on an
    undirected graph), else the first rule broken."""
    unreached = 2**31 - 1
    d, p = dist.astype(np.int64), pred.astype(np.int64)
    if int(d[source]) != 0 or int(p[source]) != -1:
        return "the source's level or parent"
    reached = d != unreached
    if bool((p[~reached] != -1).any()):
        return "an unreached vertex has a parent"
    v = xp.flatnonzero(reached)
    v = v[v != source]
    pv = p[v]
    if bool(((pv < 0) | (pv >= E.n)).any()) or not bool(reached[pv].all()):
        return "a parent is not reached"
    key = v * E.n + pv
    at = xp.minimum(xp.searchsorted(E.keys, key), len(E.keys) - 1)
    if not bool((E.keys[at] == key).all()):
        return "a tree edge is not in the graph"
    if not bool((d[v] == d[pv] + 1).all()):
        return "a tree edge skips a level"
    r, c = E.rows, E.indices
    if not bool((~reached[r] | (reached[c] & (d[c] <= d[r] + 1))).all()):
        return "a graph edge spans more than one level"
    return None


def check_sssp(E, source, dist):
    """None when dist are the shortest distances from source (optimality conditions, exact
    for integer weights), else what fails."""
    far = float(np.finfo(np.float32).max)
    d = xp.where(dist == far, xp.inf, dist.astype(np.float64))
    if float(d[source]) != 0:
        return "d(source) != 0"
    w = E.values.astype(np.float64)
    via = d[E.indices] + w                      # entry (v, u): the path to u, then u -> v
    if bool((d[E.rows] > via).any()):
        return "an edge still relaxes"
    tight = xp.isfinite(via) & (d[E.rows] == via)
    has = E.per_row(tight) > 0
    reached = xp.isfinite(d)
    reached[source] = False
    if not bool(has[reached].all()):
        return "a distance is no path's length"
    return None


def _host_csgraph(A):
    from scipy.sparse import csr_matrix

    indptr, indices, values = (backend.to_host(a) for a in A.to_csr(device=True))
    if values is None:
        values = np.ones(len(indices))
    return csr_matrix((values, indices, indptr), shape=A.shape)


def reference_components(A):
    """scipy's components labelled by their least vertex."""
    from scipy.sparse.csgraph import connected_components

    ncomp, lab = connected_components(_host_csgraph(A), directed=False)
    least = np.full(ncomp, A.nrows, dtype=np.int64)
    np.minimum.at(least, lab, np.arange(A.nrows))
    return least[lab]


def reference_betweenness(M, sources):
    """Σ_s δ_s(v) (δ_s(s) = 0, unnormalised: LAGraph's definition) by Brandes, one vendor SpMV
    per level forward and back; M the symmetric 0/1 matrix (scipy or cupyx, FP64)."""
    n = M.shape[0]
    bc = xp.zeros(n)
    for s in sources:
        sigma, depth = xp.zeros(n), xp.full(n, -1, dtype=np.int64)
        sigma[s], depth[s] = 1, 0
        frontier, level = sigma.copy(), 0
        while True:
            nxt = xp.where(depth < 0, M @ frontier, 0)
            if not bool((nxt > 0).any()):
                break
            level += 1
            depth[nxt > 0] = level
            sigma += nxt
            frontier = nxt
        delta = xp.zeros(n)
        for k in range(level, 1, -1):
            t = xp.where(depth == k, (1 + delta) / xp.maximum(sigma, 1), 0)
            delta += xp.where(depth == k - 1, sigma * (M @ t), 0)
        bc += delta
    return bc


# ------------------------------------------------------------------------------ SuiteSparse
def _ss_bfs(gb, G, deg, src, alpha=15, beta=18):
    """LAGraph's push/pull BFS (LG_BreadthFirstSearch_SSGrB), levels only:
    push q⟨¬pi.S, replace⟩ = q any.secondi G; pull q⟨¬pi.S, replace⟩ = G any.secondi q;
    push -> pull when the frontier's edges exceed the unexplored ones / alpha, back when
    the frontier shrinks below n / beta."""
    n = G.nrows
    pi = gb.Vector("INT64", n)
    v = gb.Vector("INT64", n)
    q = gb.Vector.from_coo([src], [src], size=n, dtype="INT64")
    pi[src], v[src] = src, 0
    unexplored, push, level, last = G.nvals, True, 0, 1
    semiring = gb.semiring.ss.any_secondi["INT64"]
    while q.nvals:
        nq = q.nvals
        if push:
            mf = deg.ewise_mult(q, gb.binary.first).new().reduce().new().value or 0
            push = mf <= unexplored / alpha
            unexplored -= mf
        else:
            push = nq < last and nq < n / beta
        last = nq
        level += 1
        if push:
            q(~pi.S, replace=True) << q.vxm(G, semiring)
        else:
            q(~pi.S, replace=True) << G.mxv(q, semiring)
        pi(q.S) << q
        v(q.S) << level
    return v


def _ss_pagerank(gb, G, alpha, tol, max_iter):
    """r = alpha Gᵀ (r ./ d) + ((1 - alpha) + alpha Σ_dangling r) / n until Σ|Δr| < tol."""
    n = G.nrows
    d = G.reduce_rowwise(gb.monoid.plus).new()
    w = d.apply(gb.unary.minv).new()            # 1 / out-degree where it has edges
    dangling = gb.Vector.from_dense(np.ones(n, np.float32))
    dangling(d.S) << 0                          # 1 where a vertex has no edges, else 0
    r = gb.Vector.from_dense(np.full(n, 1.0 / n, np.float32))
    for it in range(1, max_iter + 1):
        t = r.ewise_mult(w, gb.binary.times).new()
        lost = r.ewise_mult(dangling, gb.binary.times).reduce().new().value
        new = t.vxm(G, gb.semiring.plus_first).new()
        new = new.apply(gb.binary.times, right=alpha).new()
        full = gb.Vector.from_dense(np.full(n, ((1 - alpha) + alpha * lost) / n, np.float32))
        full(gb.binary.plus) << new
        err = full.ewise_add(r, gb.binary.minus).new().apply(gb.unary.abs).new()
        err = err.reduce().new().value
        r = full
        if err < tol:
            break
    return r, it


def _ss_fastsv(gb, G):
    """FastSV (Zhang, Azad, Hu, 2020; LAGraph's): gp = f = 0..n-1; repeat mngp = G min.second gp;
    stochastic hooking f(f(u)) min= mngp(u) (by a product with the parent matrix); aggressive
    hooking f = min(f, mngp); shortcutting f = min(f, gp); gp = f(f); until gp is unchanged."""
    n = G.nrows
    ids = np.arange(n, dtype=np.int64)
    f = gb.Vector.from_dense(ids)
    gp = f.dup()
    while True:
        mngp = G.mxv(gp, gb.semiring.min_second["INT64"]).new()
        parents = f.to_dense()
        P = gb.Matrix.from_coo(parents, ids, True, nrows=n, ncols=n, dtype="BOOL")
        f(gb.binary.min) << P.mxv(mngp, gb.semiring.min_second["INT64"])
        f(gb.binary.min) << mngp
        f(gb.binary.min) << gp
        fd = f.to_dense()
        new_gp = fd[fd]
        if np.array_equal(new_gp, gp.to_dense()):
            return fd
        gp = gb.Vector.from_dense(new_gp)


def _ss_betweenness(gb, G, sources):
    """LAGraph's batched Brandes: forward F⟨¬P.S, replace⟩ = F plus.first G level by level
    (P += F, the path counts); back W⟨S_k.S, replace⟩ = B ./ P, W⟨S_{k-1}.S, replace⟩ = W
    plus.first Gᵀ, B += W .* P; centrality = Σ_rows B - ns (B starts at 1)."""
    n, ns = G.nrows, len(sources)
    P = gb.Matrix.from_coo(np.arange(ns), sources, 1.0, nrows=ns, ncols=n, dtype="FP64")
    F = gb.Matrix("FP64", ns, n)
    F(~P.S) << G[list(sources), :]
    levels = []
    while F.nvals:
        levels.append(F.dup(dtype="BOOL"))
        P(gb.binary.plus) << F
        F(~P.S, replace=True) << F.mxm(G, gb.semiring.plus_first["FP64"])
    B = gb.Matrix.from_dense(np.ones((ns, n)))
    W = gb.Matrix("FP64", ns, n)
    for k in range(len(levels) - 1, 0, -1):
        W(levels[k].S, replace=True) << B.ewise_mult(P, gb.binary.truediv)
        W(levels[k - 1].S, replace=True) << W.mxm(G.T, gb.semiring.plus_first["FP64"])
        B(gb.binary.plus) << W.ewise_mult(P, gb.binary.times)
    return B.reduce_columnwise(gb.monoid.plus).new().to_dense() - ns


# ------------------------------------------------------------------------------ one kernel
def _call(kernel, A, arg):
    """Our default call of a kernel (arg: the source, the batch, or None)."""
    fn = getattr(algorithms, _NAMES[kernel])
    if kernel in ("bfs", "sssp", "bc"):
        return fn(A, arg)
    if kernel == "pr":
        try:
            return fn(A, PR_ALPHA, tolerance=PR_TOLERANCE, max_iter=PR_MAX_ITER)
        except NotConverged as exc:
            return exc.result
    return fn(A)


def _trial_args(kernel, sources):
    if kernel in ("bfs", "sssp"):
        return list(sources)
    if kernel == "bc":
        return [sources[i:i + BC_BATCH] for i in range(0, len(sources) - BC_BATCH + 1,
                                                       BC_BATCH)] or [sources[:BC_BATCH]]
    return [None] * SINGLE_TRIALS


def _spread(times):
    """The repeated calls' times, so that one slow call stands out from the mean: each
    call's ms for a few trials, else min / median / max."""
    ms = [round(t * 1e3, 2) for t in times]
    if len(ms) <= 4:
        return ms
    return {"min": min(ms), "median": float(np.median(ms)), "max": max(ms)}


def _once(f):
    return timed(f, reps=1, warmup=0)


def _row(graph, scale, kernel, A, method, seconds, **more):
    return {"case": "gap", "graph": graph, "scale": scale, "kernel": kernel, "method": method,
            "seconds": seconds, "ms": None if seconds is None else seconds * 1e3,
            "n": A.nrows, "nnz": A.nvals, **more}


def _peer_row(rows, ours, name, seconds, our_seconds, **more):
    """A peer's row, and its speedup (its time / ours on the same trials) on our row."""
    row = {k: ours[k] for k in ("case", "graph", "scale", "kernel", "n", "nnz")}
    row.update(method=name, seconds=seconds, ms=seconds * 1e3, **more)
    rows.append(row)
    ours[f"speedup vs {name.split(' (')[0]}"] = seconds / our_seconds
    return row


def run_kernel(graph, scale, kernel, A, sources, *, fresh=False, E=None, remake=None):
    """The rows of one kernel on one graph (see the module docstring); ``remake()``: the graph
    made anew, for the first call (default: ``A.dup()``, which knows nothing)."""
    if getattr(algorithms, _NAMES[kernel], None) is None:
        return [{"case": "gap", "graph": graph, "scale": scale, "kernel": kernel,
                 "method": f"grblas_gpu {_NAMES[kernel]}", "skipped": "not available"}]
    args = _trial_args(kernel, sources)
    _call(kernel, A, args[0])              # compiles the kernels, builds A's cached set-up
    fresh_copy = (remake or A.dup)()       # nothing cached with it
    first, _ = _once(lambda: _call(kernel, fresh_copy, args[0]))
    fresh_copy = None
    # a repeated call is one made before: another source or batch may take a kernel variant
    # the first did not (BC's products choose per level), built here, not inside a trial
    built = kernel_stats()
    for a in {repr(a): a for a in args[1:]}.values():
        _call(kernel, A, a)
    variants = kernel_stats()
    times, results = [], []
    for a in args:
        t, out = _once(lambda: _call(kernel, A, a))
        times.append(t)
        results.append(out)
    mean = float(np.mean(times))
    row = _row(graph, scale, kernel, A, f"grblas_gpu {_NAMES[kernel]}", mean,
               trials=len(args), **{"first call s": first, "first / repeated": first / mean,
                                    "trial ms": _spread(times),
                                    "kernel builds after the first call": variants.modules
                                    - built.modules,
                                    "kernel builds in trials": kernel_stats().modules
                                    - variants.modules})
    E = E or _Edges(A)
    checks = {}
    if kernel == "bfs":
        gteps = []
        for s, t, (dist, pred) in zip(args, times, results):
            edges = int(backend.to_scalar(E.degree[dist != 2**31 - 1].sum())) // 2
            gteps.append(edges / t / 1e9)
            bad = check_bfs(E, s, dist, pred)
            if bad:
                checks.setdefault("trees valid (Graph500)", False)
                row.setdefault("first failure", f"source {s}: {bad}")
        checks.setdefault("trees valid (Graph500)", True)
        row["GTEPS (harmonic mean)"] = len(gteps) / sum(1 / g for g in gteps)
        row["GTEPS min"], row["GTEPS max"] = min(gteps), max(gteps)
    elif kernel == "sssp":
        bad = [f"source {s}: {b}" for s, d in zip(args, results) if (b := check_sssp(E, s, d))]
        checks["distances optimal"] = not bad
        if bad:
            row["first failure"] = bad[0]
        from scipy.sparse.csgraph import dijkstra

        M = _host_csgraph(A)
        ok = True
        for s, d in list(zip(args, results))[:DIJKSTRA_SOURCES if scale <= 20 else 1]:
            ref = dijkstra(M, indices=s).astype(np.float32)
            ours = backend.to_host(d)
            ours = np.where(ours == np.finfo(np.float32).max, np.inf, ours)
            ok &= bool(np.array_equal(ours, ref))
        checks["matches scipy dijkstra"] = ok
    elif kernel == "cc":
        checks["labels match scipy"] = bool(np.array_equal(
            backend.to_host(results[0]).astype(np.int64), reference_components(A)))
        row["components"] = int(len(np.unique(backend.to_host(results[0]))))
    elif kernel == "bc":
        sparse, _ = _sparse()
        M = sparse.csr_matrix((xp.ones(len(E.indices)), E.indices, E.indptr), shape=A.shape)
        ok = True
        for batch, c in list(zip(args, results))[:BC_CHECK_BATCHES]:
            ref = reference_betweenness(M, batch)
            ok &= bool(xp.allclose(xp.asarray(c, dtype=np.float64), ref, rtol=1e-6, atol=1e-9))
        checks["matches Brandes (vendor SpMV)"] = ok
    elif kernel == "tc":
        row["triangles"] = results[0]
    rows = [row]
    _peers(rows, graph, scale, kernel, A, E, args, times, results, checks)
    if fresh:
        row.update(_fresh_process(graph, scale, kernel, args[0]))
    ran = {k: v for k, v in checks.items() if v is not None}
    row.update(ran)
    row["check passed"] = all(ran.values()) if ran else None
    return rows


def _peers(rows, graph, scale, kernel, A, E, args, times, results, checks):
    ours = rows[0]
    if kernel == "pr":
        sparse, label = _sparse()
        PT, dangling = _google(sparse, A, PR_ALPHA)
        x = xp.asarray(results[0], dtype=np.float32)
        n = A.nrows
        step = PT @ x + ((1 - PR_ALPHA) * x.sum() + PR_ALPHA * (dangling @ x)) / n
        gap_residual = float(backend.to_scalar(xp.abs(step - x).sum()))
        ours["GAP residual (L1)"] = gap_residual
        checks["GAP tolerance met"] = gap_residual <= PR_TOLERANCE
        p_secs, (p_ranks, p_its) = timed(
            lambda: _power_loop(*_google(sparse, A, PR_ALPHA), PR_ALPHA, PR_TOLERANCE,
                                PR_MAX_ITER), reps=3, warmup=1)
        l1 = float(backend.to_scalar(xp.abs(x.astype(np.float64) - p_ranks).sum()))
        rows.append({**{k: ours[k] for k in ("case", "graph", "scale", "kernel", "n", "nnz")},
                     "method": f"{label} power loop", "seconds": p_secs, "ms": p_secs * 1e3,
                     "iterations": p_its})
        ours[f"vs {label} loop"] = ours["seconds"] / p_secs
        ours["first call / loop"] = ours["first call s"] / p_secs
        ours[f"L1 diff vs {label} loop"] = l1
        checks[f"ranks match {label} loop"] = l1 <= 1e-3
    gb = suitesparse()
    if gb is None:
        rows.append({"case": "gap", "graph": graph, "scale": scale, "kernel": kernel,
                     "method": "SuiteSparse", "skipped": "python-graphblas not installed"})
        if kernel == "tc":
            from scipy.sparse import tril

            L = tril(_host_csgraph(A), -1).tocsr()
            checks["count matches scipy"] = int((L @ L.T).multiply(L).sum()) == results[0]
        return
    name = f"SuiteSparse ({os.cpu_count()} threads)"
    G = A.to_graphblas()
    k = min(PEER_SOURCES, len(args))
    sub = args[:k]
    our_secs = float(np.mean(times[:k]))

    def peer(f):
        return timed(f, reps=1, warmup=0, device=False)

    if kernel == "bfs":
        deg = G.reduce_rowwise(gb.monoid.plus["INT64"]).new()
        ok, total = True, 0.0
        for s, (dist, _) in zip(sub, results):
            t, v = peer(lambda: _ss_bfs(gb, G, deg, s))
            total += t
            idx, lv = v.to_coo()
            ss = np.full(A.nrows, 2**31 - 1, dtype=np.int64)
            ss[idx] = lv
            ok &= bool(np.array_equal(backend.to_host(dist).astype(np.int64), ss))
        _peer_row(rows, ours, name + " push/pull", total / k, our_secs)
        checks["levels match SuiteSparse"] = ok
    elif kernel == "sssp":
        ok, total = True, 0.0
        for s, d in zip(sub, results):
            t, v = peer(lambda: _ss_sssp(gb, G, s))
            total += t
            mine = backend.to_host(d)
            mine = np.where(mine == np.finfo(np.float32).max, np.inf, mine)
            ok &= bool(np.array_equal(mine, v.to_dense()))
        _peer_row(rows, ours, name + " Bellman-Ford", total / k, our_secs)
        checks["matches SuiteSparse"] = ok
    elif kernel == "pr":
        t, (r, its) = peer(lambda: _ss_pagerank(gb, G, PR_ALPHA, PR_TOLERANCE, PR_MAX_ITER))
        _peer_row(rows, ours, name + " power loop", t, our_secs, iterations=its)
    elif kernel == "cc":
        t, labels = peer(lambda: _ss_fastsv(gb, G))
        _peer_row(rows, ours, name + " FastSV", t, our_secs)
        checks["labels match SuiteSparse"] = bool(np.array_equal(
            backend.to_host(results[0]).astype(np.int64), labels))
    elif kernel == "bc":
        ok, total = True, 0.0
        for batch, c in zip(sub, results):
            t, ref = peer(lambda: _ss_betweenness(gb, G, batch))
            total += t
            ok &= bool(np.allclose(backend.to_host(c), ref, rtol=1e-6, atol=1e-9))
        _peer_row(rows, ours, name + " batched Brandes", total / k, our_secs)
        checks["matches SuiteSparse"] = ok
    elif kernel == "tc":
        t, count = peer(lambda: _ss_triangles(gb, G))
        _peer_row(rows, ours, name + " L plus.pair Lᵀ", t, our_secs)
        checks["count matches SuiteSparse"] = count == results[0]


# ------------------------------------------------------------------------------ fresh process
def _fresh_process(graph, scale, kernel, arg):
    """The first call (and a second) in a new Python process: builds the graph there, then
    times one call; kernels come from the on-disk cache this process filled."""
    spec = json.dumps({"graph": graph, "scale": scale, "kernel": kernel, "arg": arg})
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [root, os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-m", "grblas_gpu.benchmarks.cases_gap", spec], env=env,
                          capture_output=True, text=True, cwd=root)
    if proc.returncode != 0:
        return {"fresh process": f"failed: {proc.stderr.strip().splitlines()[-1:]}"}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"fresh process s": out["first"],
            "fresh process / repeated": out["first"] / out["second"],
            "fresh process kernel modules": out["modules"],
            "fresh process kernel module s": out["module seconds"]}


def _child(spec):
    spec = json.loads(spec)
    A = make_graph(spec["graph"], spec["scale"], weighted=spec["kernel"] == "sssp")
    before = kernel_stats()
    first, _ = _once(lambda: _call(spec["kernel"], A, spec["arg"]))
    built = kernel_stats()   # the first call's modules, loaded from the disk cache
    second, _ = _once(lambda: _call(spec["kernel"], A, spec["arg"]))
    print(json.dumps({"first": first, "second": second,
                      "modules": built.modules - before.modules,
                      "module seconds": round(built.seconds - before.seconds, 4)}))


# ------------------------------------------------------------------------------ table
_HEADS = {"bfs": "BFS", "sssp": "SSSP", "pr": "PageRank", "cc": "CC", "bc": "BC (4 sources)",
          "tc": "TC"}


def markdown(rows):
    """The README's GAP tables from the rows: per graph and kernel, our repeated call and its
    speed-up over SuiteSparse (PageRank also against the vendor SpMV loop: cuSPARSE on the GPU,
    scipy on NumPy), then the first call
    on a fresh graph (and in a fresh process, with --fresh) over the repeated one."""
    ours = {(r["graph"], r["scale"], r["kernel"]): r for r in rows
            if r["method"].startswith("grblas_gpu")}
    graphs = list(dict.fromkeys((g, s) for g, s, _ in ours))
    kernels = [k for k in KERNELS if any(key[2] == k for key in ours)]

    def cell(r, fn):
        if r is None:
            return "—"
        if "skipped" in r:
            return "not available"
        return fn(r) + ("" if r.get("check passed", True) else " **check failed**")

    def repeated(r):
        if r["kernel"] == "bfs":
            text = f"{r['GTEPS (harmonic mean)']:.3g} GTEPS"
        else:
            text = _seconds(r["seconds"])
        extra = [f"{r['speedup vs SuiteSparse']:.3g}×"] if "speedup vs SuiteSparse" in r else []
        loop = next((k for k in r if k.startswith("vs ") and k.endswith(" loop")), None)
        if loop:
            extra.append(f"{r[loop]:.2f}× the SpMV loop")
        return text + (f" ({', '.join(extra)})" if extra else "")

    def first(r):
        text = f"{r['first / repeated']:.2g}×"
        if "fresh process / repeated" in r:
            text += f", {r['fresh process / repeated']:.2g}× (new process)"
        if "first call / loop" in r:
            text += f"; {r['first call / loop']:.2f}× the SpMV loop"
        return text

    head = "| graph | " + " | ".join(_HEADS[k] for k in kernels) + " |"
    rule = "| --- " * (len(kernels) + 1) + "|"
    out = ["Repeated call (speed-up over SuiteSparse, same formulation, same process):", "",
           head, rule]
    out += [f"| {g} {s} | " + " | ".join(cell(ours.get((g, s, k)), repeated) for k in kernels)
            + " |" for g, s in graphs]
    out += ["", "First call on a fresh graph, over the repeated call:", "", head, rule]
    out += [f"| {g} {s} | " + " | ".join(cell(ours.get((g, s, k)), first) for k in kernels)
            + " |" for g, s in graphs]
    return "\n".join(out)


def _seconds(x):
    return f"{x * 1e3:.3g} ms" if x < 1 else f"{x:.3g} s"


# ------------------------------------------------------------------------------ all
def run_gap(scale=None, graphs=GRAPHS, kernels=KERNELS, sources=DEFAULT_SOURCES, fresh=False,
            report=None):
    """Every kernel on every graph; returns the rows (``report(rows)`` after each kernel)."""
    scale = default_scale() if scale is None else scale
    rows = []
    for graph in graphs:
        A = make_graph(graph, scale)
        src = pick_sources(A, sources)
        E = _Edges(A)
        for kernel in kernels:
            if kernel == "sssp":
                W = make_graph(graph, scale, weighted=True)
                new = run_kernel(graph, scale, kernel, W, src, fresh=fresh, E=_Edges(W),
                                 remake=lambda: make_graph(graph, scale, weighted=True))
                del W
            else:
                new = run_kernel(graph, scale, kernel, A, src, fresh=fresh, E=E,
                                 remake=lambda: make_graph(graph, scale))
            if report:
                report(new)
            rows += new
        del A, E
    return rows


if __name__ == "__main__":
    _child(sys.argv[1])
