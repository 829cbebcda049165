"""User-written algorithms beside the built-in ones (issue 35): ``python -m grblas_gpu.benchmarks --cases
user``. The gap between them is the engine's fixed cost per operation.

Both run on the GAP kron graph (Graph500 R-MAT, undirected, iso FP32; ``cases_gap.make_graph``)
at ``scale`` (default 22 on the GPU, 10 on the host: ``cases_gap.default_scale``).

    user_bfs        :func:`benchmarks.user_algorithms.user_bfs` (LAGraph's push/pull BFS as
                    public GraphBLAS calls, A its own transpose, the out-degrees computed
                    once per graph as LAGraph caches them), and its captured form
                    (``captured_bfs``: a gg.Loop of pull levels over objects made once, its
                    recording made by the first searches), from ``sources`` random
                    non-isolated vertices (``cases_gap.pick_sources``), against the built-in
                    ``algorithms.bfs(A, s)`` (the default call) and SuiteSparse running the
                    same formulation through python-graphblas on every core (a "skipped" row
                    without it). Each search is timed once after one untimed search per method
                    (kernels compiled, A's cached properties built); the user row's
                    ``first call s`` is its first search in this process. GTEPS per search:
                    the undirected edges of the reached component / seconds; rows give the
                    harmonic mean over the sources. Check: every tree (user's, built-in's,
                    SuiteSparse's) valid by Graph500's rules against the built-in's levels
                    (``cases_gap.check_bfs``), so all three have the same levels.
    user_pagerank   :func:`benchmarks.user_algorithms.user_pagerank` (damping 0.85, L1
                    tolerance 1e-4, GAP's rule; its set-up included) and its captured form
                    (``captured_pagerank``: a gg.Loop over objects made once per graph, its
                    set-up reported apart, as the vendor loop's Pᵀ) against the built-in
                    ``algorithms.pagerank`` (nvGRAPH's stopping rule at the same tolerance) and
                    the vendor power loop: one SpMV per iteration over alpha Pᵀ (cuSPARSE on
                    the GPU, scipy on the host), the same formulation and L1 rule, Pᵀ built
                    beforehand (not timed). Check: the user's ranks within 1e-4 in L1 of the
                    loop's; the built-in's L1 difference is reported.

Rows as benchmarks.run expects. The user row carries ``vs <peer>`` = the user's time / the
peer's (BFS: the ratio of harmonic-mean GTEPS, peer / user; below 1: the user's is faster),
the issue's targets as ``target ...`` flags (information, not checks), the checks and
``check passed``.
"""
import os

import numpy as np

from grblas_gpu import algorithms
from grblas_gpu import backend
from grblas_gpu.errors import NotConverged

from .cases_algorithms import _google, _sparse
from .cases_gap import _Edges, check_bfs, default_scale, make_graph, pick_sources
from .run import suitesparse, timed
from .user_algorithms import (ALPHA, BETA1, BETA2, captured_bfs, captured_pagerank, out_degree,
                              user_bfs, user_pagerank)

xp = backend.xp

CASES = [("user_bfs", {}), ("user_pagerank", {})]

DEFAULT_SOURCES = 64
DAMPING = 0.85
TOLERANCE = 1e-4
MAX_ITER = 100
BFS_TARGET = 1.5          # issue 35: the user's BFS within 1.5x of the built-in's time
PR_TARGET = 1.1           # and the user's PageRank within 1.1x of the vendor power loop


def _row(case, scale, A, method, seconds, **more):
    return {"case": case, "scale": scale, "method": method, "seconds": seconds,
            "ms": seconds * 1e3, "n": A.nrows, "nnz": A.nvals, **more}


def _checked(row, checks):
    ran = {k: v for k, v in checks.items() if v is not None}
    row.update(ran)
    row["check passed"] = all(ran.values()) if ran else None
    return row


def _recording(row, loop):
    """Whether a captured case's gg.Loop ran as a recording, and why not."""
    row["recorded"] = loop.recorded
    if loop.why_not_recorded:
        row["why not recorded"] = loop.why_not_recorded[:120]


def _l1(a, b):
    """||a - b||₁ of two backend arrays, in float64."""
    return float(backend.to_scalar(xp.abs(xp.asarray(a, dtype=np.float64)
                                          - xp.asarray(b, dtype=np.float64)).sum()))


def _harmonic(xs):
    return len(xs) / sum(1 / x for x in xs)


def parents_array(pi, source):
    """A parents Vector (π(source) = source) as check_bfs reads it: int64, -1 at the source
    and where unreached."""
    p = xp.asarray(pi.to_dense(fill=-1, device=True)).astype(np.int64)
    p[source] = -1
    return p


# ------------------------------------------------------------------------------ SuiteSparse
def _ss_user_bfs(gb, G, deg, src):
    """:func:`user_bfs` in python-graphblas, call for call (G symmetric: its own
    transpose)."""
    n = G.nrows
    pi = gb.Vector.from_coo([src], [src], size=n, dtype="INT64")
    q = pi.dup()
    w = gb.Vector("INT64", n)
    semiring = gb.semiring.ss.any_secondi["INT64"]
    can_pull, push, any_pull = True, True, False
    nq, last_nq, unexplored, visited = 1, 0, G.nvals, 1
    while visited < n:
        if can_pull and push:
            growing = nq > last_nq
            if unexplored < n:
                can_pull = False
            elif any_pull:
                push = not (growing and nq > n / BETA1)
            else:
                w(q.S, replace=True) << deg
                mf = w.reduce().new().value or 0
                unexplored -= mf
                push = not (growing and mf > unexplored / ALPHA)
        elif can_pull:
            push = nq < last_nq and nq <= n / BETA2
        any_pull = any_pull or not push
        if push:
            q(~pi.S, replace=True) << q.vxm(G, semiring)
        else:
            q(~pi.S, replace=True) << G.mxv(q, semiring)
        last_nq, nq = nq, q.nvals
        if nq == 0:
            break
        pi(q.S) << q
        visited += nq
    return pi


# ------------------------------------------------------------------------------ BFS
def user_bfs_case(scale=None, sources=DEFAULT_SOURCES, reps=1):
    """The rows of ``user_bfs`` (see the module docstring); ``reps`` timed runs per source
    (their median)."""
    scale = default_scale() if scale is None else scale
    A = make_graph("kron", scale)
    E = _Edges(A)
    src = pick_sources(A, sources)

    def once(f):
        return timed(f, reps=reps, warmup=0)

    deg = out_degree(A)   # the graph's cached out-degrees, as LAGraph's G->out_degree
    first, _ = timed(lambda: user_bfs(A, A, src[0], deg), reps=1, warmup=0)
    algorithms.bfs(A, src[0])
    search = captured_bfs(A, A)
    captured_first, _ = timed(lambda: search(src[0]), reps=1, warmup=0)   # (plain, recording)
    search(src[0])
    user_t, built_t, captured_t, edges = [], [], [], []
    checks = {"user trees valid (Graph500)": True, "built-in trees valid (Graph500)": True,
              "captured trees valid (Graph500)": True}
    failure = None
    for s in src:
        t, (dist, pred) = once(lambda: algorithms.bfs(A, s))
        built_t.append(t)
        t, pi = once(lambda: user_bfs(A, A, s, deg))
        user_t.append(t)
        t, pi_c = once(lambda: search(s))
        captured_t.append(t)
        edges.append(int(backend.to_scalar(E.degree[dist != 2**31 - 1].sum())) // 2)
        bad = check_bfs(E, s, dist, pred)
        if bad:
            checks["built-in trees valid (Graph500)"] = False
            failure = failure or f"built-in, source {s}: {bad}"
        bad = check_bfs(E, s, dist, parents_array(pi, s))
        if bad:
            checks["user trees valid (Graph500)"] = False
            failure = failure or f"user, source {s}: {bad}"
        bad = check_bfs(E, s, dist, parents_array(pi_c, s))
        if bad:
            checks["captured trees valid (Graph500)"] = False
            failure = failure or f"captured, source {s}: {bad}"

    def gteps(times):
        g = [e / t / 1e9 for e, t in zip(edges, times)]
        return {"GTEPS (harmonic mean)": _harmonic(g), "GTEPS min": min(g), "GTEPS max": max(g)}

    user = _row("user_bfs", scale, A, "user-written BFS (public API)", float(np.mean(user_t)),
                sources=len(src), **gteps(user_t), **{"first call s": first})
    built = _row("user_bfs", scale, A, "grblas_gpu bfs (built-in)", float(np.mean(built_t)),
                 sources=len(src), **gteps(built_t))
    captured = _row("user_bfs", scale, A, "user-written BFS, captured (gg.loop, pull)",
                    float(np.mean(captured_t)), sources=len(src), **gteps(captured_t),
                    **{"first call s": captured_first})
    ratio = built["GTEPS (harmonic mean)"] / user["GTEPS (harmonic mean)"]
    user["vs built-in"] = ratio
    user[f"target <= {BFS_TARGET}x built-in"] = ratio <= BFS_TARGET
    captured["vs built-in"] = built["GTEPS (harmonic mean)"] / captured["GTEPS (harmonic mean)"]
    _recording(captured, search.loop)
    rows = [user, captured, built]

    gb = suitesparse()
    if gb is None:
        rows.append({"case": "user_bfs", "scale": scale, "method": "SuiteSparse",
                     "skipped": "python-graphblas not installed"})
    else:
        G = A.to_graphblas()
        deg = G.reduce_rowwise(gb.monoid.plus["INT64"]).new()
        _ss_user_bfs(gb, G, deg, src[0])
        ss_t, ok = [], True
        for s in src:
            t, pi = timed(lambda: _ss_user_bfs(gb, G, deg, s), reps=reps, warmup=0, device=False)
            ss_t.append(t)
            dist, _ = algorithms.bfs(A, s)
            p = xp.asarray(pi.to_dense(fill_value=-1).astype(np.int64))
            p[s] = -1
            bad = check_bfs(E, s, dist, p)
            if bad:
                ok = False
                failure = failure or f"SuiteSparse, source {s}: {bad}"
        ss = _row("user_bfs", scale, A, f"SuiteSparse ({os.cpu_count()} threads) same "
                  "formulation", float(np.mean(ss_t)), sources=len(src), **gteps(ss_t))
        _checked(ss, {"trees valid (Graph500)": ok})
        user["vs SuiteSparse"] = ss["GTEPS (harmonic mean)"] / user["GTEPS (harmonic mean)"]
        rows.append(ss)
    if failure:
        user["first failure"] = failure
    _checked(user, checks)
    return rows


# ------------------------------------------------------------------------------ PageRank
def power_loop_l1(PT, dangling, alpha, tol, max_iter):
    """r = alpha Pᵀ r + ((1 - alpha) + alpha Σ_dangling r) / n (PT holds alpha Pᵀ), one SpMV
    per iteration, until an iteration moves r by at most tol in L1 (the one read per
    iteration). Returns (ranks, iterations)."""
    n = PT.shape[0]
    x = xp.full(n, 1.0 / n, dtype=np.float32)
    for it in range(1, max_iter + 1):
        y = PT @ x + ((1 - alpha) + alpha * (dangling @ x)) / n
        change = float(xp.abs(y - x).sum())
        x = y
        if change <= tol:
            break
    return x, it


def user_pagerank_case(scale=None, reps=3, tol=TOLERANCE, max_iter=MAX_ITER):
    """The rows of ``user_pagerank`` (see the module docstring)."""
    scale = default_scale() if scale is None else scale
    A = make_graph("kron", scale)

    def builtin():
        try:
            return algorithms.pagerank(A, DAMPING, tolerance=tol, max_iter=max_iter)
        except NotConverged as exc:
            return exc.result

    u_secs, (r, its) = timed(lambda: user_pagerank(A, A, DAMPING, tol, max_iter), reps,
                             warmup=1)
    setup_secs, rank = timed(lambda: captured_pagerank(A, A, DAMPING, tol, max_iter), reps=1,
                             warmup=0)
    c_secs, (r_c, its_c) = timed(rank, reps, warmup=2)   # (plain, then recorded: see gg.Loop)
    b_secs, b_ranks = timed(builtin, reps, warmup=1)
    sparse, label = _sparse()
    PT, dangling = _google(sparse, A, DAMPING)
    p_secs, (p_ranks, p_its) = timed(
        lambda: power_loop_l1(PT, dangling, DAMPING, tol, max_iter), reps, warmup=1)
    ours = r.to_dense(device=True)
    l1, l1_builtin = _l1(ours, p_ranks), _l1(ours, b_ranks)
    user = _row("user_pagerank", scale, A, "user-written PageRank (public API)", u_secs,
                iterations=its, **{"iteration ms": u_secs / its * 1e3})
    ratio = u_secs / p_secs
    user[f"vs {label} loop"] = ratio
    user["vs built-in"] = u_secs / b_secs
    user[f"target <= {PR_TARGET}x {label} loop"] = ratio <= PR_TARGET
    user["L1 diff vs built-in"] = l1_builtin
    user[f"L1 diff vs {label} loop"] = l1
    _checked(user, {f"ranks match {label} loop": l1 <= 1e-4})
    l1_captured = _l1(r_c.to_dense(device=True), p_ranks)
    captured = _row("user_pagerank", scale, A, "user-written PageRank, captured (gg.loop)",
                    c_secs, iterations=its_c, **{"iteration ms": c_secs / its_c * 1e3,
                                                 f"vs {label} loop": c_secs / p_secs,
                                                 "vs built-in": c_secs / b_secs,
                                                 f"L1 diff vs {label} loop": l1_captured,
                                                 "set-up s": setup_secs})
    captured[f"target <= {PR_TARGET}x {label} loop"] = c_secs / p_secs <= PR_TARGET
    _recording(captured, rank.loop)
    _checked(captured, {f"ranks match {label} loop": l1_captured <= 1e-4})
    rows = [user, captured,
            _row("user_pagerank", scale, A, "grblas_gpu pagerank (built-in)", b_secs),
            _row("user_pagerank", scale, A, f"{label} power loop", p_secs, iterations=p_its,
                 **{"iteration ms": p_secs / p_its * 1e3})]
    return rows


_CASES = {"user_bfs": user_bfs_case, "user_pagerank": user_pagerank_case}


def run(name, **params):
    return _CASES[name](**params)
