"""Single-source shortest paths over the (min, +) semiring: delta-stepping (LAGraph's
LAGr_SingleSourceShortestPath) for non-negative weights, frontier Bellman-Ford (nvgraphSssp)
for negative ones.

Notation: A(i, j): the weight of edge i -> j; t: tentative distances, full; f: a frontier,
valued by its distances; Δ > 0: the bucket width; θ: Δ in the computing type.

Delta-stepping (method="delta"), Meyer & Sanders' buckets as masked selects:

    AL = select(A ≤ θ),  AH = select(A > θ)    (light and heavy edges; cached with A, per θ)
    t = FLT_MAX (DBL_MAX) everywhere, t(source) = 0,  lo = 0,  g = {source: 0}
    repeat:                                    (one bucket: [iΔ, (i+1)Δ), i = ⌊lo / Δ⌋)
        ub = min((i+1)Δ, lo + θ, FLT_MAX)      (in the computing type; see Rounding)
        f = select(g < ub)                     (the bucket: t ≥ iΔ and t < (i+1)Δ)
        s = {}
        while f is not empty:                  (light edges, until the bucket settles)
            s⟨f.S⟩ = true
            q = f min.+ AL
            m = q .< t
            t⟨m⟩ = q
            f⟨m, replace⟩ = select(q < ub)
        f⟨s.S, replace⟩ = t                    (heavy edges, once, out of the whole bucket)
        q = f min.+ AH
        m = q .< t
        t⟨m⟩ = q
        g = select(t ≥ ub)                     (the unsettled: every t < ub is final)
        lo = min g                             (the next non-empty bucket)
    until lo = FLT_MAX (no vertex left: the unreached keep FLT_MAX)

Why it is right (weights ≥ 0): a relaxation out of u never gives less than t(u), and every
u relaxed in a bucket has t(u) ≥ lo, so once a bucket ends nothing can lower a t below ub:
those vertices are settled, each relaxed through every edge with its final distance. A heavy
edge (w > θ) out of the bucket gives t(u) + w ≥ lo + θ ≥ ub, so it never lands back in the
bucket it leaves. Each bucket settles lo's vertex at least, so there are at most n of them.
The bucket jumps to the smallest non-empty one (lo) instead of stepping i by one as LAGraph
does: empty buckets cost nothing. The lower bound t ≥ iΔ needs no select of its own: g holds
only t ≥ the last bucket's ub, and lo, its minimum, is ≥ iΔ.

Rounding: sums are rounded, so ub is also capped by lo + θ computed in the same type (a
rounded sum is monotone in its operands, which keeps "heavy never lands back" exact). When
θ is below the resolution of lo (lo + θ rounds to lo: Δ tiny against the distances), the
bucket holds t = lo alone and relaxes through all of A in its light loop, with no heavy step.
Both methods give the same fixed point, the minimum over paths of the path's rounded sum
taken from the source, so their results are equal bit for bit.

Bellman-Ford (method="bellman_ford"; f: the vertices whose distance fell in the last round):

    t = FLT_MAX (DBL_MAX) everywhere, t(source) = 0,  f = {source: 0}
    repeat:
        q = f min.+ A                 (vxm: the relaxations out of the frontier)
        m = q .< t                    (where a relaxation improves)
        f⟨m, replace⟩ = q
        t⟨m⟩ = q
    until f is empty

Relaxing only out of the frontier gives the same t as nvGRAPH's dense iteration
t = min(t, Aᵀ min.+ t), at the cost of the frontier's edges per round instead of all of them.
Without a negative cycle reachable from the source, a shortest path has at most n - 1 edges,
so the frontier is empty after at most n rounds. A frontier still non-empty after n rounds
proves a negative cycle: NotConverged (its ``result`` holds t so far). A -inf weight
reachable from the source makes distances -inf, after which nothing improves (-inf < -inf is
false), so a cycle through it would go unnoticed: a -inf distance is reported the same way,
NotConverged (unbounded; its ``result`` holds t), one reduction after the loop.
(networkx and scipy return -inf there; NotConverged is nvGRAPH's status for both cases.)

Method choice (method="auto"): Bellman-Ford. On the H100 it beat delta-stepping for every
Δ tried (R-MAT scale 18 and uniform scale 20, FP32: 12 and 27 ms against 19-45 and 35-56 ms
for Δ from the mean weight to infinity; benchmarks/NOTES.md), since a GPU round costs its
launches and one read whatever its frontier, and buckets only add rounds. Delta-stepping is
there as method="delta" (it relaxes fewer edges: the better choice where work, not rounds,
is the cost). method="delta" on a negative weight raises InvalidValue (its buckets assume
distances only grow along a path).

Default Δ (delta=None, ``default_delta``): the mean edge weight, sum(A) / nvals(A), taken
over the finite positive weights where A holds others (zero, inf, NaN); 1 where there is
none. A bucket then spans about one average edge: light edges are about half of them, and
the number of buckets is about the largest distance over the mean weight. On weighted
R-MAT (scales 14 and 16, weights uniform in (0, 1] or integers in [1, 255]) it relaxes
about half the edges Bellman-Ford does (2.0-2.4 nnz against 3.4-4.2) for about twice its
device reads; Δ = mean / 4 relaxes 1.1-1.2 nnz for 4-5 times the reads. (GAP's reference
takes Δ as a parameter; Meyer & Sanders derive Θ(1 / max degree) for uniform [0, 1]
weights, a width that on a GPU would spend more on per-bucket launches and reads than it
saves in re-relaxations.)

Results (nvGRAPH's): a dense backend array of the value type, FLT_MAX (FP32) or DBL_MAX
(FP64, also for integer and BOOL A, whose values are taken as weights: True is 1) where
unreachable; t(source) = 0 (or less, on a negative cycle through the source).

Cached properties (``Matrix.memo``): the least weight and default Δ ("algorithms.sssp.
weights"); AL and AH per (type, θ) ("algorithms.sssp.split"). Device reads: delta-stepping,
one per light round (the frontier's nvals) and one per bucket (lo), plus two reductions
the first time a matrix is seen; Bellman-Ford, one per round and min t at the end.

References: Meyer & Sanders, "Δ-stepping: a parallelizable shortest path algorithm",
J. Algorithms 49 (2003); Sridhar et al., "Delta-Stepping SSSP: From Vertices and Edges to
GraphBLAS Implementations", IPDPSW 2019; LAGraph LAGr_SingleSourceShortestPath; Bellman
(1958), Ford (1956); Kepner & Gilbert, "Graph Algorithms in the Language of Linear Algebra",
ch. 2; nvGRAPH 9.2 guide 2.22.

NOTE: NaN weights never improve anything (every comparison with NaN is false; they are in
neither AL nor AH).
NOTE: a weight of +inf, or one that overflows the sum to inf or FLT_MAX, leaves its head
unreached, as in nvGRAPH.
"""
import math
import numbers
from collections import namedtuple

import numpy as np

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu.errors import InvalidValue, NotConverged

from ._common import REPLACE, check_square, check_trace, check_vertex, emit, float_type

__all__ = ["sssp", "far_value", "default_delta"]

METHODS = ("auto", "delta", "bellman_ford")

# What delta-stepping needs to know of A's values (its refusal of a negative weight, the
# default Δ), read once per matrix.
Weights = namedtuple("Weights", "min mean")


def far_value(dtype):
    """FLT_MAX or DBL_MAX: the 'infinity' nvGRAPH stores in a float or double vertex set."""
    return float(np.finfo(gg.lookup_dtype(dtype).np_type).max)


def sssp(A, source, *, method="auto", delta=None, trace=None):
    """Shortest-path distances from ``source`` (see the module docstring).
    ``method``: "auto" (Bellman-Ford; see the module docstring), "delta" or
    "bellman_ford". ``delta``: the bucket width Δ > 0 (inf allowed: one bucket),
    None for the mean weight; Bellman-Ford ignores it.
    ``trace(dict)``: per round, {method, iteration, frontier}, and for delta-stepping the
    bucket index (⌊lo / Δ⌋) and Δ."""
    n = check_square(A)
    source = check_vertex(source, n)
    check_trace(trace, "sssp")
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidValue(f"sssp: method must be one of {', '.join(METHODS)}, got {method!r}")
    delta = _check_delta(delta)
    dt = float_type(A)
    far = far_value(dt)
    if method == "delta":
        w = A.memo("algorithms.sssp.weights", lambda: _weights(A))
        if not w.min >= 0:
            raise InvalidValue("sssp: method='delta' needs non-negative weights (A holds "
                               f"{w.min}); use 'bellman_ford' or 'auto'")
        d = _delta_stepping(A, source, default_delta(w) if delta is None else delta, dt, far,
                            trace)
        return d.to_dense(device=True)
    d = frontier_relax(A, source, semirings.min_plus, semirings.binary.lt, far, 0.0, dt,
                       max_rounds=n, trace=_tagged(trace, "bellman_ford"), what="sssp")
    # lo = min d   (-inf: a -inf weight is reachable, the path lengths are unbounded below)
    lo = float(gg.reduce_scalar(d, semirings.monoid.min))
    if lo == -np.inf:
        raise NotConverged("sssp: unbounded distances (-inf), a -inf weight is reachable from "
                           "the source (as a negative cycle would be)",
                           result=d.to_dense(device=True), iterations=None)
    return d.to_dense(device=True)


def default_delta(w):
    """Δ for delta=None: the mean weight (see the module docstring)."""
    return w.mean


def _check_delta(delta):
    """delta as a float > 0 (inf allowed), None kept; InvalidValue for anything else: a
    string, a bool, an array, zero, a negative number, NaN."""
    if delta is None:
        return None
    number = (isinstance(delta, numbers.Real) and not isinstance(delta, (bool, np.bool_))) or (
        getattr(delta, "shape", None) == () and getattr(delta, "dtype", None) is not None
        and delta.dtype.kind in "iuf")
    x = float(delta) if number else float("nan")
    if not x > 0:                                # also NaN
        raise InvalidValue(f"sssp: delta must be a positive number, got {delta!r}")
    return x


def _weights(A):
    """Weights(min, mean) of A's values; mean over the finite positive ones where A
    holds others (zero, inf, NaN), 1 where there is none."""
    lo = float(gg.reduce_scalar(A, semirings.monoid.min))
    mean = _mean(A)
    if not (lo > 0 and math.isfinite(mean) and mean > 0):
        # W = select(A > 0) ;  W = select(W < inf)
        W = gg.select(gg.Matrix(A.dtype, *A.shape), A, semirings.indexunary.valuegt, 0)
        W = gg.select(gg.Matrix(A.dtype, *A.shape), W, semirings.indexunary.valuelt, np.inf)
        mean = _mean(W)
    return Weights(lo, mean if math.isfinite(mean) and mean > 0 else 1.0)


def _mean(W):
    """sum(W) / nvals(W), summed in FP64 (an integer sum would wrap); NaN if W is empty."""
    return float(gg.reduce_scalar(W, "plus[FP64]")) / W.nvals if W.nvals else math.nan


def _split(A, theta):
    """(AL, AH): A's light (≤ θ) and heavy (> θ) edges."""
    # AL = select(A ≤ θ) ;  AH = select(A > θ)
    AL = gg.select(gg.Matrix(A.dtype, *A.shape), A, semirings.indexunary.valuele, theta)
    AH = gg.select(gg.Matrix(A.dtype, *A.shape), A, semirings.indexunary.valuegt, theta)
    return AL, AH


def frontier_relax(A, source, semiring, better, far, at_source, dtype, *, max_rounds, trace,
                   what):
    """The shared loop of sssp and widest_path: d = far, d(source) = at_source, then rounds of
    f ⊕.⊗ A kept where ``better`` than d, until no vertex improves. Returns d (a full Vector)."""
    n = A.nrows
    d = gg.Vector(dtype, n)
    # d(:) = far ;  d(source) = at_source
    gg.assign(d, far, gg.ALL)
    d[source] = at_source
    f = gg.Vector.from_coo([source], [at_source], size=n, dtype=dtype)
    t = gg.Vector(dtype, n)
    m = gg.Vector(gg.BOOL, n)
    for k in range(1, max_rounds + 1):
        # t = f ⊕.⊗ A
        gg.vxm(t, f, A, semiring)
        # m = t better d
        gg.ewise_mult(m, t, d, better)
        # f⟨m, replace⟩ = t
        gg.apply(f, t, semirings.unary.identity, mask=m.V, desc=REPLACE)
        # d⟨m⟩ = t
        gg.apply(d, t, semirings.unary.identity, mask=m.V)
        nf = f.nvals
        emit(trace, iteration=k, frontier=nf)
        if nf == 0:
            return d
    raise NotConverged(f"{what}: still improving after {max_rounds} rounds "
                       "(a negative cycle is reachable from the source)",
                       result=d.to_dense(device=True), iterations=max_rounds)


def _tagged(trace, method):
    """trace with {method: ...} added to each record (None stays None)."""
    if trace is None:
        return None
    return lambda figures: trace({"method": method, **figures})


def _delta_stepping(A, source, delta, dt, far, trace):
    """The delta-stepping loop of the module docstring; returns t (a full Vector)."""
    n = A.nrows
    typ = dt.np_type.type
    # θ: Δ in the computing type, at most FLT_MAX (a larger θ splits A the same way but inf)
    theta = typ(min(delta, far))
    AL, AH = A.memo(("algorithms.sssp.split", dt.name, float(theta)), lambda: _split(A, theta))
    t = gg.Vector(dt, n)
    # t(:) = far ;  t(source) = 0
    gg.assign(t, far, gg.ALL)
    t[source] = 0
    g = gg.Vector.from_coo([source], [0], size=n, dtype=dt)
    f = gg.Vector(dt, n)
    q = gg.Vector(dt, n)
    m = gg.Vector(gg.BOOL, n)
    s = gg.Vector(gg.BOOL, n)
    lo = typ(0)
    k = 0
    while True:
        bucket, ub, fine = _bucket(lo, delta, theta, far, typ)
        light = A if fine else AL
        heavy = AH if not fine and AH.nvals else None
        # f = select(g < ub)
        gg.select(f, g, semirings.indexunary.valuelt, ub)
        s.clear()
        while True:
            k += 1
            nf = f.nvals
            emit(trace, method="delta", iteration=k, bucket=bucket, delta=delta, frontier=nf)
            if nf == 0:
                break
            # s⟨f.S⟩ = true
            gg.assign(s, True, gg.ALL, mask=f.S)
            # q = f min.+ AL
            gg.vxm(q, f, light, semirings.min_plus)
            # m = q .< t
            gg.ewise_mult(m, q, t, semirings.binary.lt)
            # t⟨m⟩ = q
            gg.apply(t, q, semirings.unary.identity, mask=m.V)
            # f⟨m, replace⟩ = select(q < ub)
            gg.select(f, q, semirings.indexunary.valuelt, ub, mask=m.V, desc=REPLACE)
        if heavy is not None:
            # f⟨s.S, replace⟩ = t
            gg.apply(f, t, semirings.unary.identity, mask=s.S, desc=REPLACE)
            # q = f min.+ AH
            gg.vxm(q, f, heavy, semirings.min_plus)
            # m = q .< t
            gg.ewise_mult(m, q, t, semirings.binary.lt)
            # t⟨m⟩ = q
            gg.apply(t, q, semirings.unary.identity, mask=m.V)
        # g = select(t ≥ ub)
        gg.select(g, t, semirings.indexunary.valuege, ub)
        # lo = min g
        lo = typ(gg.reduce_scalar(g, semirings.monoid.min))
        if not lo < far:
            return t


def _bucket(lo, delta, theta, far, typ):
    """(i, ub, fine) for the bucket that starts at lo: i = ⌊lo / Δ⌋ (None past 2⁶²), ub =
    min((i+1)Δ, lo + θ, far) in the computing type. fine: lo + θ rounds to lo, so the bucket
    is [lo, the next value after lo) and its light loop relaxes all of A."""
    q = float(lo) / delta
    i = math.floor(q) if q < 2.0 ** 62 else None
    with np.errstate(over="ignore"):
        step = min(typ(lo) + theta, typ(far))    # rounded as the vxm rounds its sums
    if not step > lo:
        return i, np.nextafter(typ(lo), typ(np.inf)), True
    grid = typ(min((i + 1) * delta, far)) if i is not None else step
    return i, (min(grid, step) if grid > lo else step), False
