"""PageRank by the power method, exactly as nvgraphPagerank computes it.

nvGRAPH's input is the transition matrix P (P(i, j): the probability of stepping i -> j; each
row sums to 1, or to 0 for a dangling vertex), stored in CSC, and a bookmark vector
(bookmark(i) = 1 for a dangling vertex, else 0). With a(i) = bookmark(i) where it is nonzero
and 1 - alpha elsewhere (nvGRAPH's update_dangling_nodes) and e/n the uniform vector, each
iteration is (pagerank.cu, solve_it):

    tmp = tmp / ||tmp||₂                                  (first iteration only)
    pr  = alpha Pᵀ tmp + (a · tmp) e/n
    pr  = pr / ||pr||₂
    r   = ||pr - tmp||₂ ;  stop when r < tolerance, returning pr / ||pr||₁
    tmp = pr

In GraphBLAS, with the fixed matrix G = alpha P and vector b = a/n, and the rank-one term's
coefficient kept on the device as a 1-entry vector (GraphBLAS's GrB_Scalar):

    pr = tmp +.* G        (vxm: alpha Pᵀ tmp)
    d  = Σ b .* tmp       (ewise_mult, then reduce_scalar into d: d(0) = (a · tmp) / n)
    pr = pr + d           (apply with d bound: the kernel reads d(0) where it lies)

G also holds an explicit zero on its diagonal, so that pr(j) = 0 is stored, not absent, for
a vertex nobody links to: every vector of the iteration is then full, which the engine knows
without counting, and the products read no bitmaps. (Finding the empty columns instead would
cost a transpose of P; the zeros cost n more entries.)

Norms stay on the device the same way: s = Σ pr .* pr (reduce_scalar into s),
s = 1/sqrt(s), pr = pr .* s; the residual's terms (pr - tmp)² by one user-defined
operator, r² = Σ of them. The one scalar read per iteration is r. tmp and pr trade places
each iteration instead of copying. Each step is a fixed sequence of operations on fixed
vectors, so it runs as a gg.Replay: on the GPU, recorded once as a CUDA graph and launched
once per iteration (its dozen operations cost more to issue from Python than to run).

Cached properties (``Matrix.memo``): on A, by (type, normalize), P and the dangling flags
(dangling(i) = (w(i) == 0), w = P +.first 1 the row sums, held in full dense vectors so no
step compacts); on P, by (type, alpha), G with the transpose its products read. A repeated
call on the same graph builds neither; b (from the bookmark, which may be the call's own) is
made each call, a few elementwise passes. New content of A (or P) drops what it kept.

Tiers: :func:`pagerank` (basic) builds P from an adjacency matrix (row-normalised by
out-weight unless ``normalize=False``, which takes A as the transition matrix, as nvGRAPH
does) and the bookmark (rows with no entries) when not given; :func:`pagerank_advanced`
takes P, the bookmark and the guess as given.

Parameters (nvGRAPH's rules): alpha in (0, 1) exclusive, else InvalidValue; tolerance 0 means
1e-6, otherwise it must lie in (0, 1); max_iter <= 0 means 500; the guess must not be all
zeros. At max_iter without convergence: NotConverged, its ``result`` the last iterate
normalised by its 1-norm (what nvGRAPH leaves in the vertex set). A graph with no vertex has
no PageRank summing to 1: InvalidValue.

Dangling vertices: the computed bookmark flags every row of P whose weights sum to 0 (no
entry, or only zeros: networkx treats a zero-weight row the same way); ``normalize`` divides
only the other rows. Non-finite values: a NaN or ±inf weight (or a row sum overflowing to
inf) or guess value raises InvalidValue before iterating (one reduction each: Σ 0·x is NaN
exactly when some x is not finite); a residual that still turns non-finite (NaN or inf in
``normalize=False``'s P) raises NotConverged at the step it is read, with no result.

Results: a dense backend array of the value type (A's if FP32/FP64, else FP64), summing to 1.

References: Page, Brin, Motwani, Winograd (1999); nvGRAPH 9.2 guide 2.24 and its
pagerank.cu; LAGraph LAGr_PageRank.c (which reads the dangling sum and the residual to the
host each iteration; here only the residual).

NOTE: the residual is the 2-norm of the change of the 2-normalised iterate; tolerances below
~1e-6 may not be reachable in FP32 (the guide says so too).
NOTE: weights should be non-negative; mixed signs summing to 0 make a row dangling.
"""
import math


import grblas_gpu as gg
import semirings
from grblas_gpu import backend
from grblas_gpu.errors import InvalidValue, NotConverged

from ._common import (all_finite, as_vector, check_flag, check_number, check_square,
                      check_trace, emit, float_type)

__all__ = ["pagerank", "pagerank_advanced", "DEFAULT_TOLERANCE", "DEFAULT_MAX_ITER"]

DEFAULT_TOLERANCE = 1e-6   # nvGRAPH: tolerance 0.0 means this
DEFAULT_MAX_ITER = 500     # nvGRAPH: max_iter <= 0 means this

# memo keys (Matrix.memo): what a graph keeps from call to call
TRANSITION = "algorithms.pagerank.transition"   # on A, with (type, normalize): (P, dangling)
SCALED = "algorithms.pagerank.scaled"           # on P, with (type, alpha): G


def pagerank(A, alpha=0.85, *, bookmark=None, guess=None, tolerance=DEFAULT_TOLERANCE,
             max_iter=DEFAULT_MAX_ITER, normalize=True, trace=None):
    """PageRank of the graph A (A(i, j): an edge i -> j, its value a weight).

    ``normalize``: divide each row by its sum (P = D⁻¹A); False takes A as the transition
    matrix already (nvGRAPH). ``bookmark``: dangling flags (Vector or array), computed from the
    rows of P with no entries when None. ``guess``: the starting vector (uniform 1/n when None).
    ``trace(dict)``: per iteration, {iteration, residual}."""
    n = check_square(A)
    check_trace(trace, "pagerank")
    alpha, tolerance, max_iter = _check_parameters(alpha, tolerance, max_iter)
    _check_nonempty(n)
    normalize = check_flag(normalize, "pagerank: normalize")
    dt = float_type(A)
    P, dangling = A.memo((TRANSITION, dt, normalize), lambda: _transition(A, dt, normalize))
    if bookmark is None:
        bm = dangling
    else:
        bm = as_vector(bookmark, n, dt, "bookmark")
    if guess is None:
        g = gg.Vector(dt, n)
        # g(:) = 1/n
        gg.assign(g, 1.0 / n, gg.ALL)
    else:
        g = as_vector(guess, n, dt, "guess")
    return pagerank_advanced(P, alpha, bm, g, tolerance=tolerance, max_iter=max_iter,
                             trace=trace)


def pagerank_advanced(P, alpha, bookmark, guess, *, tolerance, max_iter, trace=None):
    """The power method on a transition matrix P with the bookmark and guess Vectors given
    (both full, of P's type)."""
    n = check_square(P, "P")
    check_trace(trace, "pagerank_advanced")
    alpha, tolerance, max_iter = _check_parameters(alpha, tolerance, max_iter)
    _check_nonempty(n)
    for v, what in ((bookmark, "bookmark"), (guess, "guess")):
        if not isinstance(v, gg.Vector) or v.size != n:
            raise InvalidValue(f"pagerank_advanced: {what} must be a Vector of size {n}")
        if v.dtype not in (gg.FP32, gg.FP64):
            v = v.dup(gg.FP64)
        _check_finite(v, f"the {what}")
    # g = |guess| ;  max(g) must not be 0
    g_abs = gg.apply(gg.Vector(guess.dtype, n), guess, semirings.unary.abs)
    if guess.nvals == 0 or gg.reduce_scalar(g_abs, semirings.monoid.max) == 0:
        raise InvalidValue("pagerank: the initial guess must not be the vector of 0s")
    return _power_method(P, alpha, bookmark, guess.dup(), tolerance, max_iter, trace)


def _transition(A, dt, normalize):
    """(P, dangling): P = D⁻¹A (A itself, typed dt, without ``normalize``), dangling(i) = 1
    where row i of A sums to 0, else 0; both full where vectors, so nothing is compacted."""
    n = A.nrows
    P = A.dup(dt)
    # ones(:) = 1 ;  w(:) = 0
    ones, w = _full(dt, n, 1), _full(dt, n, 0)
    # w += P +.first ones   (w(i) = Σ_j P(i, j), the out-weight; 0 for an empty row)
    gg.mxv(w, P, ones, semirings.plus_first, accum=semirings.binary.plus)
    _check_finite(w, "the weights (or a row's sum)")
    if normalize:
        # w⁻¹ = 0 ∪second (1 ./ w)⟨w ≠ 0⟩   (a row summing to 0 keeps no factor)
        inv = _where_nonzero(w, 0.0, gg.apply(gg.Vector(dt, n), w, semirings.unary.minv,
                                              mask=w.V))
        # P = diag(w⁻¹) +.* P
        gg.mxm(P, _diag(inv), P, semirings.plus_times)
    # dangling = (w == 0)   (rows summing to 0)
    dangling = gg.apply(gg.Vector(dt, n), w, semirings.binary.eq, right=0)
    return P, dangling


def _where_nonzero(u, default, t):
    """The full vector t ∪second (default everywhere): default where t has no entry. (A
    masked write does not know its count; the union with a full vector does, uncounted.)"""
    # z(:) = default ;  z = z ∪second t
    z = _full(u.dtype, u.size, default)
    return gg.ewise_add(z, z, t, semirings.binary.second)


def _full(dt, n, value):
    """A full Vector held dense (values and bitmap): operations on it take the bitmap paths,
    with no sorting or compaction, whatever the backend."""
    return gg.Vector.from_dense(backend.xp.full(n, value, dtype=dt.np_type))


def _power_method(P, alpha, bm, x, tol, max_iter, trace):
    n, dt = P.nrows, float_type(P)
    # G is P's, kept with it: a repeated call on the same graph does not transpose again
    G = P.memo((SCALED, dt, alpha), lambda: _scaled(P, alpha, dt))
    b = _rank_one(bm, alpha, dt)
    y, work = gg.Vector(dt, n), gg.Vector(dt, n)
    d, s = gg.Vector(dt, 1), gg.Vector(dt, 1)
    zero = dt.np_type.type(0)  # (a Python 0 would make the subtraction FP64)
    _normalize(x, 2, s, work)

    def power_step(tmp, pr, r2, box):
        # pr = tmp +.* G          (alpha Pᵀ tmp)
        gg.vxm(pr, tmp, G, semirings.plus_times)
        # d = Σ b .* tmp          ((a · tmp) / n)
        gg.ewise_mult(work, b, tmp, semirings.binary.times)
        gg.reduce_scalar(work, semirings.monoid.plus, out=d)
        # pr = pr + d             (alpha Pᵀ tmp + (a · tmp) e/n)
        gg.apply(pr, pr, semirings.binary.plus, right=d)
        _normalize(pr, 2, s, work)
        # work = (pr - tmp)²
        gg.ewise_union(work, pr, zero, tmp, zero, SQUARED_DIFFERENCE)
        # r2 = Σ work             (the squared residual, on the device)
        gg.reduce_scalar(work, semirings.monoid.plus, out=r2)
        box.post()

    # tmp and pr trade places each iteration (no copy): on the GPU each direction is one
    # graph launch, posting its residual to its own mailbox. Both carry x and y (each
    # step's pr is the next one's tmp, and the caller reads the last); G and b are only
    # read; the others are written before they are read.
    r2 = (gg.Vector(dt, 1), gg.Vector(dt, 1))
    boxes = (gg.Mailbox(r2[0]), gg.Mailbox(r2[1]))
    steps = tuple(gg.Replay(lambda tmp=tmp, pr=pr, k=k: power_step(tmp, pr, r2[k], boxes[k]),
                            carries=(x, y), reads=(G, b), scratch=(work, d, s, r2[k]))
                  for k, (tmp, pr) in enumerate(((x, y), (y, x))))
    with gg.Replay.lock:  # the loop of recorded steps runs alone (threads: one loop at a time)
        try:
            return _power_loop(steps, boxes, x, y, s, work, tol, max_iter, trace)
        finally:
            steps = boxes = None  # their recordings and pools are freed before the lock is



def _power_loop(steps, boxes, x, y, s, work, tol, max_iter, trace):
    """The steps issued one ahead of the residual read, to convergence or max_iter."""
    steps[0]()
    for it in range(1, max_iter + 1):
        # the next iteration is issued before this one's residual is read, so the device
        # never waits for the host; if this one converged, the next only overwrote the
        # iterate before this one
        if it < max_iter:
            steps[it % 2]()
        # r = sqrt(r2)   (the one scalar read per iteration)
        r2_read = float(boxes[(it - 1) % 2].take()[0])
        if not math.isfinite(r2_read):  # NaN compares false both ways: never "converged"
            if it < max_iter:
                boxes[it % 2].take()
            raise NotConverged(f"pagerank: the residual is {r2_read} at iteration {it} "
                               "(non-finite values in the iteration)", iterations=it)
        r = math.sqrt(max(r2_read, 0.0))
        emit(trace, iteration=it, residual=r)
        if r < tol:
            break
    if it < max_iter:  # the step issued past convergence: done before its vectors are freed
        boxes[it % 2].take()
    latest = y if it % 2 else x
    _normalize(latest, 1, s, work)
    if r >= tol:
        raise NotConverged(f"pagerank: residual {r:.3g} >= tolerance {tol:g} after "
                           f"{max_iter} iterations", result=latest.to_dense(device=True),
                           iterations=max_iter)
    return latest.to_dense(device=True)


# (x - y)²: the residual's terms in one pass
SQUARED_DIFFERENCE = semirings.binary_op(
    "squared_difference", "((x - y) * (x - y))", lambda x, y: (x - y) * (x - y),
    types=(gg.FP32, gg.FP64), register=False)


def _scaled(P, alpha, dt):
    """G = alpha P + diag(0) (see the module docstring)."""
    n = P.nrows
    G = gg.Matrix(dt, n, n)
    # G = alpha .* P
    gg.apply(G, P, semirings.binary.times, left=alpha)
    z = gg.Vector(dt, n)
    # z(:) = 0 ;  G = G + diag(z)   (explicit zeros: no column of G is empty)
    gg.assign(z, 0.0, gg.ALL)
    gg.ewise_add(G, G, _diag(z), semirings.binary.plus)
    return G


def _rank_one(bm, alpha, dt):
    """b = a/n: bm(i)/n where bm(i) ≠ 0 (nvGRAPH's update_dangling_nodes: flagged vertices
    keep their flag), (1 - alpha)/n elsewhere; full, its count known uncounted."""
    n = bm.size
    # flagged⟨bm ≠ 0⟩ = bm / n
    flagged = gg.apply(gg.Vector(dt, n), bm, semirings.binary.div, right=float(n), mask=bm.V)
    # b = (1 - alpha)/n ∪second flagged
    return _where_nonzero(bm, (1.0 - alpha) / n, flagged)


def _normalize(u, p, s, work):
    """u = u / ||u||_p (p = 1 or 2), the norm kept on the device."""
    if p == 2:
        # work = u .* u
        gg.ewise_mult(work, u, u, semirings.binary.times)
    else:
        # work = |u|
        gg.apply(work, u, semirings.unary.abs)
    # s = Σ work
    gg.reduce_scalar(work, semirings.monoid.plus, out=s)
    if p == 2:
        # s = s ^ -1/2   (1 / ||u||₂)
        gg.apply(s, s, semirings.binary.pow, right=s.dtype.np_type.type(-0.5))
    else:
        # s = 1 ./ s
        gg.apply(s, s, semirings.unary.minv)
    # u = u .* s
    gg.apply(u, u, semirings.binary.times, right=s)


def _check_finite(v, what):
    """InvalidValue unless every entry of v is finite."""
    if not all_finite(v):
        raise InvalidValue(f"pagerank: {what} must be finite (NaN or inf found)")


def _check_nonempty(n):
    if n == 0:
        raise InvalidValue("pagerank: the graph has no vertex (no PageRank sums to 1)")


def _diag(r):
    """The diagonal matrix of a vector."""
    return gg.Matrix.diag(r)


def _check_parameters(alpha, tolerance, max_iter):
    alpha = check_number(alpha, "pagerank: alpha")
    tolerance = check_number(tolerance, "pagerank: tolerance")
    max_iter = check_number(max_iter, "pagerank: max_iter", integer=True)
    if not 0.0 < alpha < 1.0:
        raise InvalidValue(f"pagerank: alpha must lie in (0, 1), got {alpha}")
    if tolerance == 0.0:
        tolerance = DEFAULT_TOLERANCE
    elif not 0.0 < tolerance < 1.0:
        raise InvalidValue(f"pagerank: tolerance must be 0 (default) or lie in (0, 1), "
                           f"got {tolerance}")
    return alpha, tolerance, max_iter if max_iter > 0 else DEFAULT_MAX_ITER
