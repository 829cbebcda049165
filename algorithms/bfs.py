"""Breadth-first search with direction optimisation: levels and a BFS tree (nvGRAPH's traversal).

Formulation (S: the pattern of A with masked edges removed; q: the frontier; dist and
parent: the results, dist = 2**31 - 1 and parent = -1 where unreached, so the reached
vertices are pi = (dist != 2**31 - 1) and the frontier of level k is dist == k):

    push (top-down, q listed):   q⟨¬pi.S, replace⟩ = q any.secondi S    (vxm: j is reached
                                                                        by some frontier i)
    pull (bottom-up, all j):     q⟨¬pi.S, replace⟩ = Sᵀ any.secondi q   (mxv: each unreached
                                                                        j asks its in-
                                                                        neighbours)
    dist⟨q.S⟩ = k + 1 ;  parent⟨q.S⟩ = q       (q holds the parent's id: the positional
                                                multiply; ANY lets pull stop at the first)
    [mf nf] = q +.second [deg 1]               (the edges out of the frontier, its size)

Direction (Beamer, Asanović, Patterson, SC 2012; nvGRAPH's bfs.cu state machine;
grblas_gpu.kernels.bfs.next_direction):
    push -> pull  when  mf > mu / alpha     (mf: edges out of the frontier,
                                             mu: edges not yet explored)
    pull -> push  when  the frontier shrinks and nf < n / beta
nvGRAPH's defaults are alpha = 15, beta = 18 (TRAVERSAL_DEFAULT_ALPHA / _BETA). Like nvGRAPH
(which pulls only on undirected graphs) and LAGraph (which pulls only when G->AT exists),
pull needs Sᵀ: the basic entry point has it for free when ``undirected`` (S is its own
transpose); for a directed graph it runs push only unless the advanced entry point is given
``AT``.

How it runs: each level, the product, the writes of dist and parent and the counts, is ONE
fused kernel (grblas_gpu.kernels.bfs), and the level loop runs on the device: the last
block of a level applies Beamer's rule to the counts and sets the stop flag, the next
level's kernel reads them. The host issues BATCH levels at a time, recorded once as a
CUDA graph (gg.Replay), and reads one flag per batch: the only device read of a search.
Levels issued after the search ends return at once. The trace is computed afterwards from
the levels found (the counts and the rule are the same).

Cached properties: S (the pattern, kept with A: Matrix.memo) and, kept with S, the
workspaces: the level kernels' lists and state and the recorded batch. A search holds one
for its duration, so searches on one graph from several threads each use their own (as many
are made as run at once, and kept for later searches).

Results (nvGRAPH's): dense backend int32 arrays of length n, new for each search;
distances[source] = 0, 2**31 - 1 where unreachable; predecessors[source] = -1, -1 where
unreachable.

References: Beamer et al., "Direction-Optimizing Breadth-First Search", SC 2012;
LAGraph LG_BreadthFirstSearch_SSGrB.c; nvGRAPH 9.2 guide 2.28; Graph500 BFS validation.

NOTE: ``undirected=True`` is a promise that A is symmetric (nvGRAPH's flag means the same);
on an unsymmetric A the pull steps follow reversed edges. NOTE: an edge mask applies to each
stored edge, so on an undirected graph (i, j) and (j, i) are masked separately, as in
nvGRAPH. NOTE: the tree found is one of many valid ones; only levels are unique. NOTE: at
most 2**31 - 1 vertices (int32 ids, as nvGRAPH's 32-bit topologies) and 2**33 - 1 edges.
"""
import numpy as np

import grblas_gpu as gg
import semirings
from grblas_gpu import backend
from grblas_gpu.errors import DimensionMismatch, InvalidValue
from grblas_gpu.kernels import bfs as fused
from grblas_gpu.kernels.bfs import MAX_EDGES, UNREACHED, next_direction

from ._common import check_flag, check_number, check_square, check_vertex, emit, index_type

__all__ = ["bfs", "bfs_advanced", "DEFAULT_ALPHA", "DEFAULT_BETA", "UNREACHED"]

# Beamer's thresholds with nvGRAPH's values (nvgraph bfs.hxx TRAVERSAL_DEFAULT_ALPHA/BETA):
# pull once the frontier's edges exceed 1/alpha of the unexplored edges; push again once the
# frontier is shrinking and holds fewer than n/beta vertices.
DEFAULT_ALPHA = 15
DEFAULT_BETA = 18


def bfs(A, source, *, undirected=False, edge_mask=None, alpha=None, beta=None, trace=None):
    """BFS from ``source`` along the stored edges of A (A(i, j): an edge i -> j).

    Returns (distances, predecessors) as dense int32 backend arrays (see the module
    docstring). ``edge_mask``: one value per stored edge in CSR order, 0 disabling the edge.
    ``alpha``, ``beta``: the direction-optimisation thresholds (None: 15 and 18).
    ``trace(dict)``: per level, {iteration, direction, frontier (the vertices it found),
    edges (the edges out of them), unexplored (the edges not yet explored as it began)}."""
    n = check_square(A)
    source = check_vertex(source, n)
    undirected = check_flag(undirected, "bfs: undirected")
    if edge_mask is None:  # A's pattern, kept with A for the next search
        S = A.memo("algorithms.bfs.pattern", lambda: _pattern(A, None, index_type(n)))
    else:
        S = _pattern(A, edge_mask, index_type(n))
    return bfs_advanced(S, source, AT=S if undirected else None, alpha=alpha, beta=beta,
                        trace=trace)


def bfs_advanced(S, source, *, AT, alpha=None, beta=None, trace=None):
    """BFS on a pattern S with its transpose given: ``AT`` (Sᵀ, or None for push only)."""
    n = check_square(S, "S")
    source = check_vertex(source, n)
    if AT is not None and AT.shape != S.shape:
        raise DimensionMismatch(f"bfs_advanced: AT has shape {AT.shape}, S has {S.shape}")
    if n >= 2**31:  # vertex ids are int32, as the results are
        raise InvalidValue(f"bfs: at most 2**31 - 1 vertices, got {n}")
    if S.nvals > MAX_EDGES:
        raise InvalidValue(f"bfs: at most 2**33 - 1 edges, got {S.nvals}")
    alpha = DEFAULT_ALPHA if alpha is None else check_number(alpha, "bfs: alpha")
    beta = DEFAULT_BETA if beta is None else check_number(beta, "bfs: beta")
    if not (alpha > 0 and beta > 0):  # (NaN fails too)
        raise InvalidValue(f"bfs: alpha and beta must be positive, got {alpha}, {beta}")
    ws = _take_workspace(S, AT)
    # dist = ∞, parent = -1 ;  dist(source) = 0 ;  q = {source}
    dist, parent = ws.levels.start(source, alpha, beta)
    while True:
        ws.run_levels()                 # BATCH levels, each one fused kernel on the device
        if ws.levels.finished():        # the one device read: no edge leaves the frontier
            break
    _give_back(S, ws)
    if trace is not None:
        _trace(S, AT is not None, dist, alpha, beta, trace)
    return dist, parent


class _Workspace:
    """The fused levels on one graph, their batch recorded (gg.Replay: a CUDA graph on the
    GPU, replayed by later batches and later searches)."""

    def __init__(self, S, AT):
        self.inputs = (AT, _content(AT))
        sptr, sidx, _ = S._csr()
        tptr, tidx = (None, None) if AT is None else AT._csr()[:2]
        self.levels = fused.Levels(sptr, sidx, tptr, tidx, S.nrows)
        self.run_levels = gg.Replay(self.levels.run)

    def made_from(self, AT):
        at, at_arrays = self.inputs
        return at is AT and gg.replay.same_arrays(at_arrays, _content(AT))


def _take_workspace(S, AT):
    """A workspace kept with S, free for this search: the searches under way on S each hold
    their own (its levels' state and lists are the search's scratch), taken from the free
    ones or made. One made before AT was another object or was given new content is dropped
    (its recording reads AT's arrays)."""
    free = S.memo("algorithms.bfs.free", list)
    while True:
        try:
            ws = free.pop()   # (atomic: two threads never take the same one)
        except IndexError:
            return _Workspace(S, AT)
        if ws.made_from(AT):
            return ws


def _give_back(S, ws):
    """The finished search's workspace, free for the next search on S (its kernels are
    done: finished() waited for the last)."""
    S.memo("algorithms.bfs.free", list).append(ws)


def _content(x):
    return () if x is None else gg.replay.content(x)


def _trace(S, can_pull, dist, alpha, beta, trace):
    """The levels' figures, from the levels found: the frontier of level k is dist == k,
    and the direction of each level is the rule applied to the counts before it."""
    n, m = S.nrows, S.nvals
    d = backend.to_host(dist).astype(np.int64)
    deg = np.diff(backend.to_host(S._csr()[0]).astype(np.int64))
    reached = d != UNREACHED
    sizes = np.bincount(d[reached], minlength=1)
    edges = np.bincount(d[reached], weights=deg[reached], minlength=1).astype(np.int64)
    figures = lambda k: (int(edges[k]), int(sizes[k])) if k < len(sizes) else (0, 0)
    mf, nf = figures(0)
    seen, push, growing, level = mf, True, True, 0
    while True:
        level += 1
        mu = m - seen + mf
        push = next_direction(push, mf=mf, nf=nf, seen=seen, growing=growing, n=n, m=m,
                              alpha=alpha, beta=beta, can_pull=can_pull)
        old = nf
        mf, nf = figures(level)
        growing = nf > old
        seen += mf
        emit(trace, iteration=level, direction="push" if push else "pull",
             frontier=nf, edges=mf, unexplored=mu)
        if mf == 0:
            break


def _pattern(A, edge_mask, itype):
    """S(i, j) = 1 for each stored edge whose mask value is nonzero."""
    n = A.nrows
    S = gg.Matrix(itype, n, n)
    if edge_mask is None:
        # S = one(A)
        return gg.apply(S, A, semirings.unary.one)
    xp = backend.xp
    m = xp.asarray(edge_mask)
    if m.ndim != 1 or m.shape[0] != A.nvals:
        raise DimensionMismatch(f"bfs: edge_mask must have one value per stored edge "
                                f"({A.nvals}), got shape {tuple(m.shape)}")
    indptr, indices, _ = A.to_csr(device=True)
    M = gg.Matrix.from_csr(indptr, indices, m != 0, ncols=n)
    # S = one(M), kept where M is true
    return gg.apply(S, M, semirings.unary.one, mask=M.V)
