"""Single-source shortest paths: frontier Bellman-Ford over the (min, +) semiring (nvgraphSssp).

Formulation (A(i, j): the weight of edge i -> j; d: distances, full; f: the frontier, the
vertices whose distance fell in the last round, valued by that distance):

    d = FLT_MAX (DBL_MAX) everywhere, d(source) = 0,  f = {source: 0}
    repeat:
        t = f min.+ A                 (vxm: the relaxations out of the frontier)
        m = t .< d                    (where a relaxation improves)
        f⟨m, replace⟩ = t
        d⟨m⟩ = t
    until f is empty

Relaxing only out of the frontier gives the same d as nvGRAPH's dense iteration
d = min(d, Aᵀ min.+ d) (a vertex whose distance did not change has nothing new to offer), at
the cost of the frontier's edges per round instead of all of them.

Termination: without a negative cycle reachable from the source, a shortest path has at
most n - 1 edges, so the frontier is empty after at most n rounds. A frontier still non-empty
after n rounds proves a negative cycle: NotConverged (its ``result`` holds d so far).
A -inf weight reachable from the source makes distances -inf, after which nothing improves
(-inf < -inf is false), so a cycle through it would go unnoticed: a -inf distance is reported
the same way, NotConverged (unbounded; its ``result`` holds d), one reduction after the loop.
(networkx and scipy return -inf there; NotConverged is nvGRAPH's status for both cases.)

Results (nvGRAPH's): a dense backend array of the value type, FLT_MAX (FP32) or DBL_MAX
(FP64, also for integer and BOOL A, whose values are taken as weights: True is 1) where
unreachable; d(source) = 0 (or less, on a negative cycle through the source).

Cached properties: none. Device reads: one per round, the frontier's nvals, and min d at the end.

References: Bellman (1958), Ford (1956); Kepner & Gilbert, "Graph Algorithms in the Language
of Linear Algebra", ch. 2; LAGraph LAGr_SingleSourceShortestPath (delta-stepping, not done
here); nvGRAPH 9.2 guide 2.22.

NOTE: NaN weights never improve anything (every comparison with NaN is false).
NOTE: a weight of +inf, or one that overflows the sum to inf or FLT_MAX, leaves its head
unreached, as in nvGRAPH.
"""
import numpy as np

import grblas_gpu as gg
import semirings
from grblas_gpu.errors import NotConverged

from ._common import REPLACE, check_square, check_vertex, emit, float_type

__all__ = ["sssp", "far_value"]


def far_value(dtype):
    """FLT_MAX or DBL_MAX: the 'infinity' nvGRAPH stores in a float or double vertex set."""
    return float(np.finfo(gg.lookup_dtype(dtype).np_type).max)


def sssp(A, source, *, trace=None):
    """Shortest-path distances from ``source`` (see the module docstring).
    ``trace(dict)``: per round, {iteration, frontier}."""
    n = check_square(A)
    source = check_vertex(source, n)
    dt = float_type(A)
    far = far_value(dt)
    d = frontier_relax(A, source, semirings.min_plus, semirings.binary.lt, far, 0.0, dt,
                       max_rounds=n, trace=trace, what="sssp")
    # lo = min d   (-inf: a -inf weight is reachable, the path lengths are unbounded below)
    lo = float(gg.reduce_scalar(d, semirings.monoid.min))
    if lo == -np.inf:
        raise NotConverged("sssp: unbounded distances (-inf), a -inf weight is reachable from "
                           "the source (as a negative cycle would be)",
                           result=d.to_dense(device=True), iterations=None)
    return d.to_dense(device=True)


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
