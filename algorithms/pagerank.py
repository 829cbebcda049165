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

No P is built (LAGraph's LAGr_PageRank keeps only the out-degrees): with P = D⁻¹A, D the
out-weights, alpha Pᵀ tmp = Aᵀ (c .* tmp) with c = alpha w⁻¹ (w⁻¹(i) = 1/w(i), 0 for a row
summing to 0; c = alpha where A is taken as P itself). In GraphBLAS, with the fixed vector c,
the bookmark's coefficients b = a/n as a one-row matrix B, and the rank-one term's
coefficient kept on the device as a 1-entry vector d (GraphBLAS's GrB_Scalar):

    d  = B +.* tmp        (mxv, one row: d(0) = (a · tmp) / n, one pass)
    t  = tmp .* c         (ewise_mult)
    pr = Aᵀ +.* t         (the product: mxv with A itself where A equals Aᵀ, else vxm over
                           A's cached column form)
    pr = pr + d           (apply with d bound: the kernel reads d(0) where it lies)

Where some vertex has no in-edge, Aᵀ t has no entry there; the iteration keeps its vectors
full (their count known without counting, so no step compacts and the products read no
bitmaps) by setting pr(:) = d first and accumulating the product into it (mxv with accum
plus: the write-back's one fused pass). The products read A's values only where A has
some: a pattern graph (iso) streams its column indices alone.

Norms stay on the device the same way: s = Σ pr .* pr (reduce_scalar into s),
s = 1/sqrt(s), pr = pr .* s; the residual's terms (pr - tmp)² by one user-defined
operator, r² = Σ of them. The one scalar read per iteration is r. tmp and pr trade places
each iteration instead of copying. Each step is a fixed sequence of operations on fixed
vectors, so it runs as a gg.Replay: on the GPU, recorded once as a CUDA graph and launched
once per iteration (its dozen operations cost more to issue from Python than to run).

Cached properties (``Matrix.memo``), on A: by (type, normalize), w⁻¹ (when normalizing)
and the dangling flags (dangling(i) = (w(i) == 0), w = A +.first 1 the row sums), full
dense vectors so no step compacts; by orientation, whether every vertex has an in-edge (an
any.pair product, which stops at each row's first entry, and one count). The engine keeps the rest with A: whether A equals Aᵀ (``Matrix.is_symmetric``), and
for an A that does not, its column form (the vxm's pull reads it). A first call on a fresh
graph thus costs the symmetry check, one product and a few passes over n (plus the column
form's sort on a directed graph); c, b and B are made each call, a few passes over n. New
content of A drops what it kept.

Tiers: :func:`pagerank` (basic) takes an adjacency matrix (P = D⁻¹A, applied through c,
unless ``normalize=False``, which takes A as the transition matrix, as nvGRAPH does) and
computes the bookmark (rows summing to 0) when not given; :func:`pagerank_advanced` takes
P, the bookmark and the guess as given.

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
from grblas_gpu import semirings
from grblas_gpu import backend
from grblas_gpu.errors import InvalidValue, NotConverged

from ._common import (all_finite, as_vector, check_flag, check_number, check_square,
                      check_trace, emit, float_type, index_type)

__all__ = ["pagerank", "pagerank_advanced", "DEFAULT_TOLERANCE", "DEFAULT_MAX_ITER"]

DEFAULT_TOLERANCE = 1e-6   # nvGRAPH: tolerance 0.0 means this
DEFAULT_MAX_ITER = 500     # nvGRAPH: max_iter <= 0 means this

# memo keys (Matrix.memo): what a graph keeps from call to call
OUT_WEIGHTS = "algorithms.pagerank.out_weights"  # with (type, normalize): (w⁻¹, dangling)
IN_EDGES = "algorithms.pagerank.in_edges"         # with "rows"/"cols": no row/column empty


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
    inverse, dangling = A.memo((OUT_WEIGHTS, dt, normalize),
                               lambda: _out_weights(A, dt, normalize))
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
    return _solve(A, alpha, inverse, bm, g, tolerance, max_iter, trace)


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
    return _solve(P, alpha, None, bookmark, guess, tolerance, max_iter, trace)


def _solve(A, alpha, inverse, bookmark, guess, tol, max_iter, trace):
    """The power method on P = diag(inverse) A (P = A where inverse is None), after the
    checks of the bookmark and the guess."""
    n = A.nrows
    for v, what in ((bookmark, "bookmark"), (guess, "guess")):
        if v.dtype not in (gg.FP32, gg.FP64):
            v = v.dup(gg.FP64)
        _check_finite(v, f"the {what}")
    # g = |guess| ;  max(g) must not be 0
    g_abs = gg.apply(gg.Vector(guess.dtype, n), guess, semirings.unary.abs)
    if guess.nvals == 0 or gg.reduce_scalar(g_abs, semirings.monoid.max) == 0:
        raise InvalidValue("pagerank: the initial guess must not be the vector of 0s")
    # x = guess, full and held dense (an absent entry is a 0 to every step): the steps'
    # vectors then stay dense, and writing the product into them merges nothing
    x = gg.Vector.from_dense(guess.to_dense(device=True))
    return _power_method(A, alpha, inverse, bookmark, x, tol, max_iter, trace)


def _out_weights(A, dt, normalize):
    """(w⁻¹, dangling): w⁻¹(i) = 1/w(i), 0 where row i of A sums to 0 (None without
    ``normalize``), dangling(i) = 1 there, else 0; both full, so nothing is compacted."""
    n = A.nrows
    # ones(:) = 1 ;  w(:) = 0
    ones, w = _full(dt, n, 1), _full(dt, n, 0)
    # w += A +.first ones   (w(i) = Σ_j A(i, j), the out-weight; 0 for an empty row)
    gg.mxv(w, A, ones, semirings.plus_first, accum=semirings.binary.plus)
    _check_finite(w, "the weights (or a row's sum)")
    inverse = None
    if normalize:
        # w⁻¹ = 0 ∪second (1 ./ w)⟨w ≠ 0⟩   (a row summing to 0 keeps no factor)
        inverse = _where_nonzero(w, 0.0, gg.apply(gg.Vector(dt, n), w, semirings.unary.minv,
                                                  mask=w.V))
    # dangling = (w == 0)   (rows summing to 0)
    dangling = gg.apply(gg.Vector(dt, n), w, semirings.binary.eq, right=0)
    return inverse, dangling


def _in_edges(A, by_rows):
    """Whether no row (by_rows) or no column of A is empty: then Aᵀ t, read by the rows or
    the columns of A, is full for a full t. One product that stops at each row's (column's)
    first entry, and one count, kept with A."""
    def count():
        n = A.nrows
        ones, v = gg.Vector.from_dense(backend.xp.ones(n, dtype=bool)), gg.Vector(gg.INT64, n)
        if by_rows:
            # v = A any.pair ones
            gg.mxv(v, A, ones, semirings.any_pair)
        else:
            # v = ones any.pair A
            gg.vxm(v, ones, A, semirings.any_pair)
        return v.nvals == n
    return A.memo((IN_EDGES, "rows" if by_rows else "cols"), count)


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


def _power_method(A, alpha, inverse, bm, x, tol, max_iter, trace):
    n, dt = A.nrows, float_type(A)
    # Aᵀ t: A's own rows where A equals Aᵀ (no transpose), else A's columns (vxm's pull over
    # the column form the engine keeps with A)
    symmetric = A.is_symmetric()
    full = _in_edges(A, symmetric)
    c = _scale(inverse, alpha, dt, n)
    B = _bookmark_row(_rank_one(bm, alpha, dt))
    y, work, t = gg.Vector(dt, n), gg.Vector(dt, n), gg.Vector(dt, n)
    d, s = gg.Vector(dt, 1), gg.Vector(dt, 1)
    zero = dt.np_type.type(0)  # (a Python 0 would make the subtraction FP64)
    _normalize(x, 2, s, work)

    def product(pr, u, accum=None):
        if symmetric:
            # pr = A +.* u
            gg.mxv(pr, A, u, semirings.plus_times, accum=accum)
        else:
            # pr = u +.* A
            gg.vxm(pr, u, A, semirings.plus_times, accum=accum)

    def power_step(tmp, pr, r2, box):
        # d = B +.* tmp           ((a · tmp) / n)
        gg.mxv(d, B, tmp, semirings.plus_times)
        # t = tmp .* c
        gg.ewise_mult(t, tmp, c, semirings.binary.times)
        if full:
            # pr = Aᵀ +.* t       (alpha Pᵀ tmp; every vertex has an in-edge: full)
            product(pr, t)
            # pr = pr + d         (alpha Pᵀ tmp + (a · tmp) e/n)
            gg.apply(pr, pr, semirings.binary.plus, right=d)
        else:
            # pr(:) = d           (tmp is full: it only places d)
            gg.apply(pr, tmp, semirings.binary.second, right=d)
            # pr += Aᵀ +.* t      (alpha Pᵀ tmp + (a · tmp) e/n, full)
            product(pr, t, accum=semirings.binary.plus)
        _normalize(pr, 2, s, work)
        # work = (pr - tmp)²
        gg.ewise_union(work, pr, zero, tmp, zero, SQUARED_DIFFERENCE)
        # r2 = Σ work             (the squared residual, on the device)
        gg.reduce_scalar(work, semirings.monoid.plus, out=r2)
        box.post()

    # tmp and pr trade places each iteration (no copy): on the GPU each direction is one
    # graph launch, posting its residual to its own mailbox. Both carry x and y (each
    # step's pr is the next one's tmp, and the caller reads the last); A, B and c are only
    # read; the others are written before they are read.
    r2 = (gg.Vector(dt, 1), gg.Vector(dt, 1))
    boxes = (gg.Mailbox(r2[0]), gg.Mailbox(r2[1]))
    steps = tuple(gg.Replay(lambda tmp=tmp, pr=pr, k=k: power_step(tmp, pr, r2[k], boxes[k]),
                            carries=(x, y), reads=(A, B, c), scratch=(work, t, d, s, r2[k]))
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


def _scale(inverse, alpha, dt, n):
    """c = alpha w⁻¹ (full), or alpha everywhere where A is P itself."""
    if inverse is None:
        return _full(dt, n, alpha)
    # c = alpha .* w⁻¹
    return gg.apply(gg.Vector(dt, n), inverse, semirings.binary.times, left=alpha)


def _bookmark_row(b):
    """B: b as a one-row matrix, every entry stored: B +.* tmp is b · tmp in one pass (a
    full matrix of one row takes the pull's few-rows kernel)."""
    n = b.size
    xp = backend.xp
    itype = index_type(n).np_type
    return gg.Matrix.from_csr(xp.asarray([0, n], dtype=itype), xp.arange(n, dtype=itype),
                              b.to_dense(device=True), ncols=n, dtype=b.dtype, trusted=True)


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
