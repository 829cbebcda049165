"""Betweenness centrality from a batch of sources: Brandes' algorithm, batched (GAP's bc).

The centrality of v from sources s ∈ {s_1 .. s_ns} (Brandes 2001; unnormalised):

    c(v) = Σ_s δ_s(v),   δ_s(v) = Σ_{t ≠ s, v} σ_st(v) / σ_st

σ_st: the number of shortest paths s -> t, σ_st(v): those through v; δ_s(s) = 0. Brandes'
recurrence gives δ_s from the BFS DAG of s: δ_s(v) = Σ_{w: v -> w, d(w) = d(v) + 1}
σ_sv / σ_sw · (1 + δ_s(w)).

Formulation (LAGraph's LAGr_Betweenness, transposed: one row per vertex, one column per
source, so every product runs over the n rows of an n x ns matrix, in parallel; A: the
pattern of the graph, A(i, j) an edge i -> j; values ignored):

    forward (one BFS per column, all columns at once; F_k: σ on level k, n x ns):
        F_0 = {(s_j, j): 1} ;  P = F_0            P: the (vertex, source) pairs reached
        F_1⟨¬P.S, replace⟩ = Aᵀ plus.second F_0   σ(w) = Σ σ(v) over the in-neighbours v
        for k = 1, 2, ... while F_k is not empty:
            P += F_k
            F_{k+1}⟨¬P.S, replace⟩ = Aᵀ plus.second F_k
    backward (X_k = (1 + δ) ./ σ on level k, from the deepest level D up):
        X_D = 1 ./ F_D                            (δ = 0 on the deepest level)
        c = 0
        for k = D - 1, ..., 1:
            T⟨F_k.S, replace⟩ = A plus.second X_{k+1}   Σ over the successors w of v
            Δ = T .* F_k                          δ(v) = σ(v) · Σ (1 + δ(w)) / σ(w)
            c += Σ_j Δ(:, j)
            X_k = (1 ./ F_k) ⊕ T                  (1 + δ) / σ = 1/σ + T, union over level k

Every step touches one or two levels only (never the whole n x ns): δ = 0 on the sources
(level 0) and on level D, and vertices without successors on the next level get no Δ.

The definition is LAGraph's (and GAP's): over ordered pairs (s, t) along the stored edges,
so on an undirected graph (both directions stored) each path counts from each end it starts
at among the sources; networkx's betweenness_centrality_subset(G, sources, G, normalized=
False) halves undirected graphs and is this result / 2 there, equal on directed graphs.

The products' methods are the engine's choice (Method.AUTO). F_k and X have ns columns, so
both go to mxm's narrow strategy (kernels.narrow): F_k or X held dense, a warp per row of Aᵀ
or A gathering from it ns columns at once. Forward, the complemented mask skips the (vertex,
source) pairs already reached and the vertices reached from every source outright (a pull
BFS's late levels); backward, only the rows of level k are visited, unless masked dot
products (one per (vertex, source) pair of level k) do less work.

Trace: ``trace(dict)`` per level: {phase: "forward", level: k, frontier: |F| (its
(source, vertex) pairs; the last, 0, stops the search)} for k = 1 .. D + 1, then
{phase: "backward", level: k, frontier: |F_k| (the pairs receiving dependencies)} for
k = D - 1 .. 1.
Result: a dense backend float64 array of length n, new for each call.
Cached properties: none (Aᵀ is read through A's own cached column form).
Device reads: one per forward level (|F|, to stop); none backward.

References: Brandes, "A faster algorithm for betweenness centrality", J. Math. Sociol. 2001;
LAGraph LAGr_Betweenness.c (Kolodziej, Davis; GraphBLAS C API spec, Appendix B.4); Beamer,
Asanović, Patterson, GAP Benchmark Suite (2015): bc from 4 sources.

NOTE: σ is counted in float64: past about 1e308 shortest paths (a 2-D grid of side ~500)
it overflows to inf and the centralities become inf or NaN, as in LAGraph.
NOTE: memory is two entries (P and one level F_k) per (vertex, source) pair reached:
batch the sources (GAP: 4) and sum the results for more.
"""
import numpy as np

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import backend
from grblas_gpu.errors import InvalidValue

from ._common import all_finite, check_square, check_trace, check_vertex, emit

__all__ = ["betweenness"]


def betweenness(A, sources, *, trace=None):
    """Betweenness centrality of every vertex from ``sources`` (a sequence or array of
    distinct vertex ids), unnormalised: c(v) = Σ_s δ_s(v) over the stored edges of A (see
    the module docstring). Returns a dense float64 backend array of length n.
    ``trace(dict)``: per level, {phase, level, frontier}."""
    n = check_square(A)
    sources = _check_sources(sources, n)
    return _brandes(A, sources, check_trace(trace, "betweenness"))


def _brandes(A, sources, trace):
    """The module docstring's formulation, one GraphBLAS call a step."""
    n, ns = A.nrows, len(sources)
    # replace, and A (or Aᵀ), the mxm's first input, read as its pattern: no values cast
    rs = gg.Descriptor(replace=True, structure_first=True)
    AT = A.T
    # F_0 = {(s_j, j): 1} ;  P = F_0
    F = gg.Matrix.from_coo(sources, np.arange(ns), 1.0, nrows=n, ncols=ns, dtype=gg.FP64)
    P = F.dup()
    levels = []                                  # F_1, F_2, ...: σ on each level
    while True:
        # F_{k+1}⟨¬P.S, replace⟩ = Aᵀ plus.second F_k
        F = gg.mxm(gg.Matrix(gg.FP64, n, ns), AT, F, semirings.plus_second, mask=~P.S,
                   desc=rs)
        nf = F.nvals
        emit(trace, phase="forward", level=len(levels) + 1, frontier=nf)
        if nf == 0:
            break
        levels.append((F, nf))
        # P += F_k
        gg.assign(P, F, gg.ALL, gg.ALL, accum=semirings.binary.plus)
    del F, P
    c = gg.Vector(gg.FP64, n)
    # c = 0
    gg.assign(c, 0.0, gg.ALL)
    if levels:
        # X_D = 1 ./ F_D
        X = gg.apply(gg.Matrix(gg.FP64, n, ns), levels[-1][0], semirings.unary.minv)
    for k in range(len(levels) - 1, 0, -1):     # levels[k - 1] is F_k
        Fk, size = levels.pop(k - 1)
        # T⟨F_k.S, replace⟩ = A plus.second X_{k+1}
        T = gg.mxm(gg.Matrix(gg.FP64, n, ns), A, X, semirings.plus_second, mask=Fk.S, desc=rs)
        # Δ = T .* F_k
        delta = gg.ewise_mult(gg.Matrix(gg.FP64, n, ns), T, Fk, semirings.binary.times)
        # c += Σ_j Δ(:, j)
        gg.reduce_rowwise(c, delta, semirings.monoid.plus, accum=semirings.binary.plus)
        del delta
        if k > 1:
            # X_k = (1 ./ F_k) ⊕ T
            X = gg.apply(gg.Matrix(gg.FP64, n, ns), Fk, semirings.unary.minv)
            gg.ewise_add(X, X, T, semirings.binary.plus)
        emit(trace, phase="backward", level=k, frontier=size)
    if not all_finite(c):  # (more shortest paths than FP64 holds: inf or NaN, never returned)
        raise InvalidValue("betweenness: the shortest-path counts overflow FP64 (more than "
                           "~1e308 shortest paths from a source)")
    return c.to_dense(device=True)


def _check_sources(sources, n):
    """The sources as a host int64 array: a 1-D sequence or array of distinct vertex ids
    (InvalidValue otherwise, IndexOutOfBounds for one outside [0, n))."""
    if isinstance(sources, (str, bytes)) or not (hasattr(sources, "__len__")
                                                 or hasattr(sources, "shape")):
        raise InvalidValue(f"betweenness: sources must be a sequence or array of vertex ids, "
                           f"got {type(sources).__name__}")
    if hasattr(sources, "shape"):                  # an array (NumPy or CuPy): one copy
        host = backend.to_host(sources)
        if host.ndim != 1:
            raise InvalidValue(f"betweenness: sources must be 1-D, got shape {host.shape}")
        if host.dtype.kind == "b" or host.dtype.kind not in "iuf":
            raise InvalidValue(f"betweenness: sources must hold vertex ids, got dtype "
                               f"{host.dtype}")
        items = host.tolist()
    else:
        items = list(sources)
    ids = np.array([check_vertex(v, n, "betweenness: source") for v in items], dtype=np.int64)
    if len(np.unique(ids)) != len(ids):
        raise InvalidValue("betweenness: sources must be distinct, got a repeated vertex")
    return ids
