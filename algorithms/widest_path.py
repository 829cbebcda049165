"""Widest (bottleneck, maximum-capacity) paths over the (max, min) semiring (nvgraphWidestPath).

Formulation (A(i, j): the capacity of edge i -> j; d: widths, full; f: the frontier):

    d = -FLT_MAX everywhere, d(source) = +FLT_MAX,  f = {source: FLT_MAX}
    repeat:
        t = f max.min A               (vxm)
        m = t .> d
        f⟨m, replace⟩ = t
        d⟨m⟩ = t
    until f is empty

This is sssp's frontier loop with (max, min) for (min, +) and > for <. The source starts at
+FLT_MAX, the identity of min, exactly as nvGRAPH initialises it (set_connectivity(source,
FLT_MAX, -FLT_MAX)), so the width of a one-edge path is the edge's capacity and the source
itself reports FLT_MAX. A cycle never widens a path, so the frontier empties within n
rounds; a guard raises NotConverged after n + 1 (it cannot happen).

Results (nvGRAPH's): a dense backend array of the value type (FP64 for integer and BOOL A):
-FLT_MAX (-DBL_MAX) where unreachable, FLT_MAX (DBL_MAX) at the source.

Cached properties: none. Device reads: one per round, the frontier's nvals.

References: Pollack, "The maximum capacity through a network", Oper. Res. 8 (1960);
Kepner & Gilbert, ch. 2; nvGRAPH 9.2 guide 2.21.

NOTE: capacities of -FLT_MAX or less (and NaN) carry nothing: such edges never improve a width.
"""
from grblas_gpu import semirings

from ._common import check_square, check_trace, check_vertex, float_type
from .sssp import far_value, frontier_relax

__all__ = ["widest_path"]


def widest_path(A, source, *, trace=None):
    """Widest-path widths from ``source`` (see the module docstring).
    ``trace(dict)``: per round, {iteration, frontier}."""
    n = check_square(A)
    source = check_vertex(source, n)
    check_trace(trace, "widest_path")
    dt = float_type(A)
    far = far_value(dt)
    d = frontier_relax(A, source, semirings.max_min, semirings.binary.gt, -far, far, dt,
                       max_rounds=n + 1, trace=trace, what="widest_path")
    return d.to_dense(device=True)
