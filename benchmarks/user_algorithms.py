"""Two algorithms written as a user would: public API only (``grblas_gpu``, ``semirings``).

They are the benchmark's measure of an operation's fixed cost (issue 35): nothing here is
fused or cached by the engine for them, every step is one GraphBLAS call.

BFS, LAGraph's LG_BreadthFirstSearch_SSGrB (parents only). q: the frontier, valued by each
vertex's parent; π: the parents (its pattern: the visited set, π(s) = s). Per level:

    push (q sparse):   q⟨¬π.S, replace⟩ = q any.secondi A     (vxm; secondi: the row i of
                                                              A(i, j), the frontier vertex)
    pull (q large):    q⟨¬π.S, replace⟩ = Aᵀ any.secondi q    (mxv; secondi: the index i of
                                                              q(i), again the frontier vertex)
    π⟨q.S⟩ = q ;  stop when |q| = 0

Direction, LAGraph's rule (alpha = 8, beta1 = 8, beta2 = 512): while pushing, switch to pull
when the frontier grows and its out-edges exceed the unexplored edges / alpha (after a pull,
when it grows past n / beta1); back to push when it shrinks to n / beta2 or fewer; pull no
more once fewer than n edges are unexplored. Pull needs Aᵀ (A itself for an undirected
graph); without it the search only pushes.

PageRank, LAGraph's LAGr_PageRank (GAP's formulation and stopping rule), with d the
out-degrees scaled by 1 / damping and sink damping / n at the vertices without out-edges, 0
elsewhere (full, so s always has its entry):

    t = r ;  s = +/(t .* sink) ;  w = t ./ d
    r(:) = (1 - damping) / n + s ;  r += Aᵀ plus.second w
    stop when ||t - r||₁ <= tol

s stays on the device (a 1-entry Vector, GraphBLAS's GrB_Scalar), so the one read per
iteration is the L1 change.

The captured forms run the same iterations as a :class:`grblas_gpu.Loop` (``@gg.loop``) over
objects made once per graph: the body recorded once and replayed in batches, the stopping
test read once per batch, every later search or ranking replaying the same recording. A
recording fixes its kernels and sizes, so their vectors stay full or dense: the captured BFS
pulls every level (a push lists its frontier, whose size only the device knows) and stops
when a level finds nothing; the captured PageRank keeps d full (+inf where a vertex has no
out-edge, so t ./ d is 0 there instead of missing) and copies r into t instead of swapping
names (the recording holds the objects).
"""
import grblas_gpu as gg
from grblas_gpu import semirings

__all__ = ["user_bfs", "user_pagerank", "captured_bfs", "captured_pagerank", "ALPHA", "BETA1",
           "BETA2"]

ALPHA, BETA1, BETA2 = 8.0, 8.0, 512.0   # LAGraph's push/pull thresholds
REPLACE = gg.Descriptor(replace=True)


def out_degree(A, dtype=gg.INT64):
    """deg = A plus.pair 1: each row's entry count (rows without any: no entry)."""
    ones = gg.assign(gg.Vector(dtype, A.ncols), 1, gg.ALL)
    return gg.mxv(gg.Vector(dtype, A.nrows), A, ones, semirings.plus_pair)


def user_bfs(A, AT, source, deg=None):
    """BFS parents from ``source``: an INT64 Vector, π(source) = source, no entry where
    unreached. ``AT``: Aᵀ (A itself when A is symmetric), or None to push only. ``deg``:
    A's out-degrees (:func:`out_degree`), a property of the graph that LAGraph caches
    (``G->out_degree``) and computes here when not given."""
    n = A.nrows
    pi = gg.Vector.from_coo([source], [source], size=n, dtype=gg.INT64)
    q = pi.dup()
    can_pull, push, any_pull = AT is not None, True, False
    if can_pull:
        deg, w = out_degree(A) if deg is None else deg, gg.Vector(gg.INT64, n)
    nq, last_nq, unexplored, visited = 1, 0, A.nvals, 1
    while visited < n:
        if can_pull and push:
            growing = nq > last_nq
            if unexplored < n:
                can_pull = False                 # little is left: push to the end
            elif any_pull:
                push = not (growing and nq > n / BETA1)
            else:
                # w⟨q.S, replace⟩ = deg ;  mf = +/w, the edges out of the frontier
                gg.assign(w, deg, gg.ALL, mask=q.S, desc=REPLACE)
                mf = int(gg.reduce_scalar(w, semirings.monoid.plus))
                unexplored -= mf
                push = not (growing and mf > unexplored / ALPHA)
        elif can_pull:
            push = nq < last_nq and nq <= n / BETA2
        any_pull = any_pull or not push
        if push:
            # q⟨¬π.S, replace⟩ = q any.secondi A
            gg.vxm(q, q, A, semirings.any_secondi, mask=~pi.S, desc=REPLACE)
        else:
            # q⟨¬π.S, replace⟩ = Aᵀ any.secondi q
            gg.mxv(q, AT, q, semirings.any_secondi, mask=~pi.S, desc=REPLACE)
        last_nq, nq = nq, q.nvals
        if nq == 0:
            break
        # π⟨q.S⟩ = q
        gg.assign(pi, q, gg.ALL, mask=q.S)
        visited += nq
    return pi


def user_pagerank(A, AT, damping=0.85, tol=1e-4, max_iter=100):
    """(ranks as an FP32 Vector summing to 1, iterations). ``AT``: Aᵀ (A itself when A is
    symmetric), or None to multiply by A from the left (vxm). Stops when an iteration moves
    the ranks by at most ``tol`` in L1 (at ``max_iter`` regardless)."""
    n = A.nrows
    # d = out-degree / damping ;  sink(:) = 0 ;  sink⟨¬d.S⟩ = damping / n
    d = gg.apply(gg.Vector(gg.FP32, n), out_degree(A, gg.FP32), semirings.binary.div,
                 right=damping)
    sink = gg.assign(gg.Vector(gg.FP32, n), 0, gg.ALL)
    gg.assign(sink, damping / n, gg.ALL, mask=~d.S)
    r = gg.assign(gg.Vector(gg.FP32, n), 1.0 / n, gg.ALL)
    t, w, s = gg.Vector(gg.FP32, n), gg.Vector(gg.FP32, n), gg.Vector(gg.FP32, 1)
    for it in range(1, max_iter + 1):
        r, t = t, r                                                   # t: the last ranks
        _power_step(A, AT, damping, r, t, w, s, d, sink)
        # change = +/t
        if gg.reduce_scalar(t, semirings.monoid.plus) <= tol:
            break
    return r, it


def _power_step(A, AT, damping, r, t, w, s, d, sink):
    """r from t (the last ranks), then t = |t - r|: one iteration of LAGraph's PageRank."""
    n = A.nrows
    # s = +/(t .* sink)
    gg.reduce_scalar(gg.ewise_mult(w, t, sink, semirings.binary.times),
                     semirings.monoid.plus, out=s)
    # w = t ./ d
    gg.ewise_mult(w, t, d, semirings.binary.div)
    # r(:) = (1 - damping) / n + s
    gg.assign(r, (1 - damping) / n, gg.ALL)
    gg.apply(r, r, semirings.binary.plus, right=s)
    if AT is not None:
        # r += Aᵀ plus.second w
        gg.mxv(r, AT, w, semirings.plus_second, accum=semirings.binary.plus)
    else:
        # r += w plus.first A
        gg.vxm(r, w, A, semirings.plus_first, accum=semirings.binary.plus)
    # t = |t - r|
    gg.apply(t, gg.ewise_add(t, t, r, semirings.binary.minus), semirings.unary.abs)


def captured_bfs(A, AT, every=4):
    """:func:`user_bfs` as a captured loop over objects made once: returns ``search(source)``,
    which gives the parents (a new Vector) and replays the recording made by the first
    searches. ``AT``: Aᵀ (A itself when A is symmetric); every level pulls; the frontier's
    emptiness is read once per ``every`` levels. ``search.loop``: the gg.Loop (whether it
    was recorded, and why not)."""
    n = A.nrows
    pi, q = gg.Vector(gg.INT64, n), gg.Vector(gg.INT64, n)
    seen = gg.Vector(gg.INT64, 1)

    @gg.loop(carries=(q, pi), reads=(AT,), watch=seen, every=every, fill=-1)
    def level():
        # q⟨¬π.S, replace⟩ = Aᵀ any.secondi q
        gg.mxv(q, AT, q, semirings.any_secondi, mask=~pi.S, desc=REPLACE, direction="pull")
        # π⟨q.S⟩ = q
        gg.assign(pi, q, gg.ALL, mask=q.S)
        # seen = any(q): no entry once the frontier is empty
        gg.reduce_scalar(q, semirings.monoid.any, out=seen)

    def search(source):
        # π = q = {source: source}
        start = gg.Vector.from_coo([source], [source], size=n, dtype=gg.INT64)
        gg.assign(pi, start, gg.ALL)
        gg.assign(q, start, gg.ALL)
        level.run(until=lambda seen: seen[0] < 0, max_iter=n)
        return pi.dup()

    search.loop = level
    return search


def captured_pagerank(A, AT, damping=0.85, tol=1e-4, max_iter=100):
    """:func:`user_pagerank` as a captured loop over objects made once: returns ``rank()``,
    which gives (ranks as a new FP32 Vector, iterations); ``rank.loop`` the gg.Loop."""
    n = A.nrows
    deg = out_degree(A, gg.FP32)
    # d(:) = inf ;  d⟨deg.S⟩ = deg / damping ;  sink(:) = 0 ;  sink⟨¬deg.S⟩ = damping / n
    d = gg.assign(gg.Vector(gg.FP32, n), float("inf"), gg.ALL)
    gg.apply(d, deg, semirings.binary.div, right=damping, mask=deg.S)
    sink = gg.assign(gg.Vector(gg.FP32, n), 0, gg.ALL)
    gg.assign(sink, damping / n, gg.ALL, mask=~deg.S)
    r, t, w = (gg.Vector(gg.FP32, n) for _ in range(3))
    s, change = gg.Vector(gg.FP32, 1), gg.Vector(gg.FP32, 1)

    @gg.loop(carries=(r,), reads=(A if AT is None else AT, d, sink), scratch=(t, w, s),
             watch=change)
    def iteration():
        # t = r
        gg.apply(t, r, semirings.unary.identity)
        _power_step(A, AT, damping, r, t, w, s, d, sink)
        # change = +/t     (on the device: the Loop reads it once per batch)
        gg.reduce_scalar(t, semirings.monoid.plus, out=change)

    def rank():
        # r(:) = 1 / n
        gg.assign(r, 1.0 / n, gg.ALL)
        its = iteration.run(until=lambda change: change[0] <= tol, max_iter=max_iter)
        return r.dup(), its

    rank.loop = iteration
    return rank
