"""Breadth-first search with direction optimisation: levels and a BFS tree (nvGRAPH's traversal).

Formulation (S: the pattern of A with masked edges removed; q: the frontier; pi: the
reached vertices, each holding its level and parent packed as level << 32 | parent, the
source -1; D = [deg 1], n × 2):

    push (top-down, q sparse):   q⟨¬pi.S, replace⟩ = q any.first S     (vxm: q(j) = q(i) of
                                                                        some i→j)
    pull (bottom-up, q dense):   q⟨¬pi.S, replace⟩ = Sᵀ any.second q   (mxv: each unvisited j
                                                                        asks its in-neighbours)
    [mf nf] = q +.second D       (the edges out of the frontier, and its size)
    pi⟨q.S⟩ = q                  (the parent's packed value: its level and its id)
    q(i) = (level(q(i)) + 1) << 32 | i      (index-unary apply: the next frontier's values)

and at the end distance = level(pi) + 1, predecessor = parent(pi). With no positional
multiply (secondi) in the catalog, the parent travels as the frontier's value: any.first
(push) / any.second (pull) returns the value of some frontier neighbour, which holds its
own id and level. ANY lets the pull stop at the first frontier neighbour found.

Direction (Beamer, Asanović, Patterson, SC 2012; nvGRAPH's bfs.cu state machine):
    push -> pull  when  mf > mu / alpha     (mf: edges out of the frontier,
                                             mu: edges not yet explored)
    pull -> push  when  the frontier shrinks and nf < n / beta
nvGRAPH's defaults are alpha = 15, beta = 18 (TRAVERSAL_DEFAULT_ALPHA / _BETA). Like nvGRAPH
(which pulls only on undirected graphs) and LAGraph (which pulls only when G->AT exists),
pull needs Sᵀ: the basic entry point has it for free when ``undirected`` (S is its own
transpose); for a directed graph it runs push only unless the advanced entry point is given
``AT``.

Cached properties: the out-degree vector (for mf and mu), Sᵀ for pull. The basic entry point
computes S and the degrees once per content of A and keeps them with it (Matrix.memo);
:func:`bfs_advanced` takes them as given. S keeps a workspace: the vectors of a search and
its two kinds of level as gg.Replay steps, recorded as CUDA graphs on their second run and
replayed by later levels and later searches. That needs every level to be the same kernels:
q and pi stay bitmaps whatever their size (a push lists its frontier on the device and
leaves a bitmap), the direction is named in each product (the engine's own choice would
count the frontier), and no step holds the level number (a recording repeats its scalars:
a vertex's level is its parent's plus one).

Results (nvGRAPH's): dense backend int32 arrays of length n; distances[source] = 0,
2**31 - 1 where unreachable; predecessors[source] = -1, -1 where unreachable.

Device reads: one per level, [mf nf] (reduced on the device by the step): mf = 0, no edge
out of the new frontier, ends the search; nf steers the direction. mu needs no read: the
edges out of the unreached vertices are m less the mf of every frontier so far. The step
posts the counts (gg.Mailbox) as soon as the product is counted and goes on with the
parents' write: the host reads them, decides, and issues the next level while it runs.

References: Beamer et al., "Direction-Optimizing Breadth-First Search", SC 2012;
LAGraph LG_BreadthFirstSearch_SSGrB.c; nvGRAPH 9.2 guide 2.28; Graph500 BFS validation.

NOTE: ``undirected=True`` is a promise that A is symmetric (nvGRAPH's flag means the same);
on an unsymmetric A the pull steps follow reversed edges. NOTE: an edge mask applies to each
stored edge, so on an undirected graph (i, j) and (j, i) are masked separately, as in
nvGRAPH. NOTE: the tree found is one of many valid ones; only levels are unique. NOTE: at
most 2**31 - 1 vertices (a parent is packed in 32 bits), as nvGRAPH's 32-bit topologies.
"""
import numpy as np

import grblas_gpu as gg
import semirings
from semirings import indexunary
from grblas_gpu import backend
from grblas_gpu.errors import DimensionMismatch, InvalidValue

from ._common import REPLACE, check_square, check_vertex, emit, index_type

__all__ = ["bfs", "bfs_advanced", "DEFAULT_ALPHA", "DEFAULT_BETA", "UNREACHED"]

# Beamer's thresholds with nvGRAPH's values (nvgraph bfs.hxx TRAVERSAL_DEFAULT_ALPHA/BETA):
# pull once the frontier's edges exceed 1/alpha of the unexplored edges; push again once the
# frontier is shrinking and holds fewer than n/beta vertices.
DEFAULT_ALPHA = 15
DEFAULT_BETA = 18
UNREACHED = 2**31 - 1  # nvGRAPH's distance of an unreachable vertex


def bfs(A, source, *, undirected=False, edge_mask=None, alpha=None, beta=None, trace=None):
    """BFS from ``source`` along the stored edges of A (A(i, j): an edge i -> j).

    Returns (distances, predecessors) as dense int32 backend arrays (see the module
    docstring). ``edge_mask``: one value per stored edge in CSR order, 0 disabling the edge.
    ``alpha``, ``beta``: the direction-optimisation thresholds (None: 15 and 18).
    ``trace(dict)``: per level, {iteration, direction, frontier (the vertices it found),
    edges (the edges out of them), unexplored (the edges not yet explored as it began)}."""
    n = check_square(A)
    source = check_vertex(source, n)
    if edge_mask is None:  # A's pattern and degrees, kept with A for the next search
        S, deg = A.memo("algorithms.bfs.pattern", lambda: _properties(A, None))
    else:
        S, deg = _properties(A, edge_mask)
    return bfs_advanced(S, source, AT=S if undirected else None, out_degree=deg,
                        alpha=alpha, beta=beta, trace=trace)


def _properties(A, edge_mask):
    """(S, out-degree)."""
    # S = pattern(A), without the masked edges
    S = _pattern(A, edge_mask, index_type(A.nrows))
    deg = gg.Vector(gg.INT64, A.nrows)
    # deg(i) = Σ_j S(i, j)   (out-degree)
    gg.reduce_rowwise(deg, S, semirings.monoid.plus)
    return S, deg


def bfs_advanced(S, source, *, AT, out_degree, alpha=None, beta=None, trace=None):
    """BFS on a pattern S with its cached properties given: ``out_degree`` (INT64 Vector,
    required) and ``AT`` (Sᵀ, or None for push only)."""
    n = check_square(S, "S")
    source = check_vertex(source, n)
    if not isinstance(out_degree, gg.Vector) or out_degree.size != n:
        raise InvalidValue("bfs_advanced: out_degree (a Vector of size n) is required")
    if AT is not None and AT.shape != S.shape:
        raise DimensionMismatch(f"bfs_advanced: AT has shape {AT.shape}, S has {S.shape}")
    if n >= 2**31:  # a parent is packed in 32 bits beside its level (see _Workspace)
        raise InvalidValue(f"bfs: at most 2**31 - 1 vertices, got {n}")
    alpha = DEFAULT_ALPHA if alpha is None else alpha
    beta = DEFAULT_BETA if beta is None else beta
    if not (alpha > 0 and beta > 0):
        raise InvalidValue(f"bfs: alpha and beta must be positive, got {alpha}, {beta}")
    return _bfs(S, AT, out_degree, source, alpha, beta, trace)


def _bfs(S, AT, out_degree, source, alpha, beta, trace):
    n, m = S.nrows, S.nvals
    ws = _workspace(S, AT, out_degree)
    mf, nf = ws.start(source)        # edges out of the frontier, vertices in it
    seen = mf                        # edges out of the vertices reached so far
    push, growing, level = True, True, 0
    while True:
        level += 1
        mu = m - seen + mf           # edges not yet explored: the frontier's, the unreached's
        if AT is not None:           # Beamer's state machine (nvGRAPH bfs.cu)
            if push and mf > mu / alpha:
                push = False
            elif not push and not growing and nf < n / beta:
                push = True
        (ws.push_level if push else ws.pull_level)()
        # the one read a level needs: mf = 0 (no edge out of the new frontier) ends the search
        old = nf
        mf, nf = ws.counts()
        growing = nf > old
        seen += mf
        emit(trace, iteration=level, direction="push" if push else "pull",
             frontier=nf, edges=mf, unexplored=mu)
        if mf == 0:
            break
    return ws.results()


class _Workspace:
    """A BFS's vectors on one graph, and its steps as gg.Replay recordings: on the GPU each is
    recorded as a CUDA graph on its second run, and later levels (and later searches on the
    same graph) replay it with one launch. A level's frontier is a bitmap whatever its size,
    listed on the device by the push, so both kinds of level are fixed sequences of kernels.
    The start of a search is one too, its source sent by the host through an Inbox.

    A vertex's level travels with its parent, packed in one INT64 (level << 32 | parent), so
    one write per level records both: q(i) = (level of i) << 32 | i, the product hands it
    to i's children, and pi⟨q.S⟩ = q keeps it. The level is never a scalar of the step (a
    recording repeats its scalars): each vertex's comes from its parent's."""

    def __init__(self, S, AT, out_degree):
        n = S.nrows
        self.inputs = (AT, out_degree, _content(AT), _content(out_degree))
        self.q, self.pi = gg.Vector(gg.INT64, n), gg.Vector(gg.INT64, n)
        self.seed = gg.Inbox(self.q)   # the source, sent by the host to the start
        self.dist, self.parent = gg.Vector(gg.INT32, n), gg.Vector(gg.INT32, n)
        # D = [out_degree 1]   (n × 2: counts = q +.second D = [edges out of q, |q|]), in 32
        # bits while every edge count fits (half the bytes each level reads), and full (0
        # where a vertex has no edge): a product reads no indices of a full matrix
        ctype = gg.INT32 if S.nvals < 2**31 else gg.INT64
        self.D = gg.Matrix(ctype, n, 2)
        gg.assign(self.D, 0, gg.ALL, gg.ALL)
        gg.assign(self.D, out_degree, gg.ALL, 0, accum=semirings.binary.plus)
        gg.assign(self.D, 1, gg.ALL, 1)
        self.count = gg.Vector(ctype, 2)
        self.count_box = gg.Mailbox(self.count)
        self.begin = gg.Replay(self._begin)
        self.push_level = gg.Replay(lambda: self._level(S, "push"))
        self.pull_level = gg.Replay(lambda: self._level(AT, "pull"))
        self.finish = gg.Replay(self._finish)

    def made_from(self, AT, out_degree):
        at, deg, at_arrays, deg_arrays = self.inputs
        return (at is AT and deg is out_degree and gg.replay.same_arrays(at_arrays, _content(AT))
                and gg.replay.same_arrays(deg_arrays, _content(out_degree)))

    def start(self, source):
        """Begins a search; returns the counts of its first frontier."""
        # q = {source: 0 << 32 | source}   (sent by the host, delivered by the start)
        self.seed.put([source], [source])
        self.begin()
        return self.counts()

    def counts(self):
        """(edges out of the frontier, vertices in it), as the last step posted them."""
        mf, nf = self.count_box.take()
        return int(mf), int(nf)

    def _begin(self):
        q, pi = self.q, self.pi
        # q = {source: source} ;  pi = q .second -1   (bitmaps, as a level leaves them; -1:
        # the root, level -1 and parent -1)
        self.seed.deliver()
        gg.apply(pi, q, semirings.binary.second, right=np.int64(-1))
        pi.set_format("dense")
        self._count()

    def _level(self, B, direction):
        q, pi = self.q, self.pi
        if direction == "push":
            # q⟨¬pi.S, replace⟩ = q any.first S
            gg.vxm(q, q, B, semirings.any_first, mask=~pi.S, desc=REPLACE, direction="push")
        else:
            # q⟨¬pi.S, replace⟩ = Sᵀ any.second q
            gg.mxv(q, B, q, semirings.any_second, mask=~pi.S, desc=REPLACE, direction="pull")
        self._count()
        # pi⟨q.S⟩ = q   (pi += q: the frontier's values are the parents, with their levels)
        gg.apply(pi, q, semirings.unary.identity, accum=semirings.binary.second)
        # q(i) = (level(q(i)) + 1) << 32 | i
        gg.apply(q, q, NEXT_LEVEL, thunk=0)

    def _count(self):
        # count = q +.second D   (the edges out of the frontier and its size; pull reads the
        # bitmap q as it is, and naming it keeps the step's kernels fixed)
        gg.vxm(self.count, self.q, self.D, semirings.plus_second[self.D.dtype],
               direction="pull")
        self.count_box.post()  # (read by counts while the step goes on)

    def _finish(self):
        # dist = level(pi) + 1 ;  parent = parent(pi)   (on pi's entries: the reached vertices)
        gg.apply(self.dist, self.pi, DISTANCE)
        gg.apply(self.parent, self.pi, PARENT)

    def results(self):
        self.finish()
        return (self.dist.to_dense(fill=UNREACHED, device=True),
                self.parent.to_dense(fill=-1, device=True))


# the packed (level << 32 | parent) of a reached vertex: the frontier's next value, and the
# two fields (the root's -1 gives level -1, so distance 0, and parent -1)
NEXT_LEVEL = indexunary.indexunary_op(
    "bfs_next_level", c_expr="((((x >> 32) + 1) << 32) | (long long)i)",
    numpy=lambda x, i, j, thunk: (((x >> 32) + 1) << 32) | i, types=(gg.INT64,),
    register=False)
DISTANCE = semirings.unary_op("bfs_distance", "((x >> 32) + 1)", lambda x: (x >> 32) + 1,
                              types=(gg.INT64,), register=False)
PARENT = semirings.unary_op(
    "bfs_parent", "((long long)(int)(x & 0xFFFFFFFFLL))",
    lambda x: (x & 0xFFFFFFFF) - ((x & 0x80000000) << 1), types=(gg.INT64,), register=False)


def _workspace(S, AT, out_degree):
    """The workspace kept with S, made again when AT or out_degree is another object or has
    been given new content since (its recordings read their arrays)."""
    kept = S.memo("algorithms.bfs", dict)
    ws = kept.get("workspace")
    if ws is None or not ws.made_from(AT, out_degree):
        ws = kept["workspace"] = _Workspace(S, AT, out_degree)
    return ws


def _content(x):
    return () if x is None else gg.replay.content(x)


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
