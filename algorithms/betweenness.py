"""Betweenness centrality from a batch of sources: Brandes' algorithm, batched (GAP's bc).

The centrality of v from sources s ∈ {s_1 .. s_ns} (Brandes 2001; unnormalised):

    c(v) = Σ_s δ_s(v),   δ_s(v) = Σ_{t ≠ s, v} σ_st(v) / σ_st

σ_st: the number of shortest paths s -> t, σ_st(v): those through v; δ_s(s) = 0. Brandes'
recurrence gives δ_s from the BFS DAG of s: δ_s(v) = Σ_{w: v -> w, d(w) = d(v) + 1}
σ_sv / σ_sw · (1 + δ_s(w)).

Formulation (LAGraph's LAGr_Betweenness; the sources are the rows of ns x n matrices; A:
the pattern of the graph, A(i, j) an edge i -> j; values ignored):

    forward (one BFS per row, all rows at once; F holds σ on the newest level):
        F = {(i, s_i): 1} ;  P = F              P: σ so far (the paths matrix)
        F⟨¬P.S, replace⟩ = F plus.first A        level 1
        for k = 1, 2, ... while F is not empty:
            S_k = pattern(F)                     the vertices at distance k of each source
            P += F
            F⟨¬P.S, replace⟩ = F plus.first A    level k + 1: σ(w) = Σ σ(v) over v -> w
    backward (B = 1 + δ, full; from the deepest level D up):
        B(:, :) = 1
        for k = D - 1, ..., 1:
            W⟨S_{k+1}.S, replace⟩ = B ./ P        (1 + δ(w)) / σ(w) on level k + 1
            W⟨S_k.S, replace⟩ = W plus.first Aᵀ   Σ over successors w of v
            B += W .* P                          δ(v) += σ(v) · Σ ...
    c = -ns ;  c += Σ_i B(i, :)                  (each row's 1s, δ = 0 elsewhere, cancel)

The sources (level 0) never enter an S_k, so B(i, s_i) stays 1: δ_s(s) = 0. A vertex that a
source does not reach keeps B = 1 in that row, which the -ns removes too.

The definition is LAGraph's (and GAP's): over ordered pairs (s, t) along the stored edges,
so on an undirected graph (both directions stored) each path counts from each end it starts
at among the sources; networkx's betweenness_centrality_subset(G, sources, G, normalized=
False) halves undirected graphs and is this result / 2 there, equal on directed graphs.

Push or pull is the engine's choice: the forward mxm has a complemented mask (a row-wise
saxpy of the ns frontier rows), the backward one a mask of the level, which Method.AUTO
turns into dot products (pull) when they are cheaper.

Trace: ``trace(dict)`` per level: {phase: "forward", level: k, frontier: |F| (its
(source, vertex) pairs; the last, 0, stops the search)} for k = 1 .. D + 1, then
{phase: "backward", level: k, frontier: |S_k| (the pairs receiving dependencies)} for
k = D - 1 .. 1.
Result: a dense backend float64 array of length n, new for each call.
Cached properties: none (Aᵀ is read through A's own cached column form).
Device reads: one per forward level (|F|, to stop); none backward.

References: Brandes, "A faster algorithm for betweenness centrality", J. Math. Sociol. 2001;
LAGraph LAGr_Betweenness.c (Kolodziej, Davis; GraphBLAS C API spec, Appendix B.4); Beamer,
Asanović, Patterson, GAP Benchmark Suite (2015): bc from 4 sources.

NOTE: σ is counted in float64: past about 1e308 shortest paths (a 2-D grid of side ~500)
it overflows to inf and the centralities become inf or NaN, as in LAGraph.
NOTE: memory is ns·n entries for P and B each, plus one stored level pattern per (source,
vertex) pair reached: batch the sources (GAP: 4) and sum the results for more.
"""
import numpy as np

import grblas_gpu as gg
import semirings
from grblas_gpu import backend
from grblas_gpu.errors import InvalidValue

from ._common import REPLACE, all_finite, check_square, check_vertex, emit

__all__ = ["betweenness"]


def betweenness(A, sources, *, trace=None):
    """Betweenness centrality of every vertex from ``sources`` (a sequence or array of
    distinct vertex ids), unnormalised: c(v) = Σ_s δ_s(v) over the stored edges of A (see
    the module docstring). Returns a dense float64 backend array of length n.
    ``trace(dict)``: per level, {phase, level, frontier}."""
    n = check_square(A)
    sources = _check_sources(sources, n)
    if trace is not None and not callable(trace):
        raise InvalidValue(f"betweenness: trace must be callable or None, "
                           f"got {type(trace).__name__}")
    return _brandes(A, sources, trace)


def _brandes(A, sources, trace):
    """The module docstring's formulation, one GraphBLAS call a step."""
    n, ns = A.nrows, len(sources)
    # replace, and the mxm's second input (A or Aᵀ) read as its pattern: no values cast
    rs = gg.Descriptor(replace=True, structure_second=True)
    # F = {(i, s_i): 1} ;  P = F
    F = gg.Matrix.from_coo(np.arange(ns), sources, 1.0, nrows=ns, ncols=n, dtype=gg.FP64)
    P = F.dup()
    # F⟨¬P.S, replace⟩ = F plus.first A
    gg.mxm(F, F, A, semirings.plus_first, mask=~P.S, desc=rs)
    levels = []                                  # S_1, S_2, ...: the patterns of the levels
    sizes = []                                   # their entries (host ints, read once each)
    nf = F.nvals
    emit(trace, phase="forward", level=1, frontier=nf)
    while nf > 0:
        # S_k = pattern(F)
        levels.append(gg.apply(gg.Matrix(gg.BOOL, ns, n), F, semirings.unary.one))
        sizes.append(nf)
        # P += F
        gg.assign(P, F, gg.ALL, gg.ALL, accum=semirings.binary.plus)
        # F⟨¬P.S, replace⟩ = F plus.first A
        gg.mxm(F, F, A, semirings.plus_first, mask=~P.S, desc=rs)
        nf = F.nvals
        emit(trace, phase="forward", level=len(levels) + 1, frontier=nf)
    del F
    B = gg.Matrix(gg.FP64, ns, n)
    # B(:, :) = 1
    gg.assign(B, 1.0, gg.ALL, gg.ALL)
    W = gg.Matrix(gg.FP64, ns, n)
    AT = A.T
    for k in range(len(levels) - 1, 0, -1):     # levels[k] is S_{k+1}
        # W⟨S_{k+1}.S, replace⟩ = B ./ P
        gg.ewise_mult(W, B, P, semirings.binary.div, mask=levels[k].S, desc=REPLACE)
        # W⟨S_k.S, replace⟩ = W plus.first Aᵀ
        gg.mxm(W, W, AT, semirings.plus_first, mask=levels[k - 1].S, desc=rs)
        # B += W .* P
        gg.ewise_mult(B, W, P, semirings.binary.times, accum=semirings.binary.plus)
        emit(trace, phase="backward", level=k, frontier=sizes[k - 1])
    c = gg.Vector(gg.FP64, n)
    # c(:) = -ns
    gg.assign(c, float(-ns), gg.ALL)
    # c += Σ_i B(i, :)
    gg.reduce_columnwise(c, B, semirings.monoid.plus, accum=semirings.binary.plus)
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
