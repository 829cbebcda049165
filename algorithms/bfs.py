"""Breadth-first search with direction optimisation: levels and a BFS tree (nvGRAPH's traversal).

Formulation (LAGraph's LG_BreadthFirstSearch_SSGrB; S: the pattern of A with masked edges
removed; q: the frontier, valued by each vertex's parent; pi: the vertices reached, valued
by their parents; deg: S's out-degrees), for levels k = 1, 2, ...:

    push (top-down, q sparse):   q⟨¬pi.S, replace⟩ = q any.secondi S     (vxm: j is reached
                                                                         by some frontier i)
    pull (bottom-up):            q⟨¬pi.S, replace⟩ = Sᵀ any.secondi q    (mxv: each unreached
                                                                         j asks its in-
                                                                         neighbours)
    pi⟨q.S⟩ = q ;  dist⟨q.S⟩ = k           (q holds the parent's id: the positional multiply;
                                            ANY lets pull stop at the first)
    nf = |q| ;  mf = +/(deg⟨q.S⟩)          (the frontier's size and the edges out of it)

until no edge leaves the frontier (mf = 0).

Direction (Beamer, Asanović, Patterson, SC 2012; nvGRAPH's bfs.cu state machine), the one
rule of grblas_gpu.traversal (DIRECTION_RULE, ``next_direction``):
    push -> pull  when  mf > mu / alpha     (mu: edges not yet explored)
    pull -> push  when  the frontier shrinks and nf < n / beta
nvGRAPH's defaults are alpha = 15, beta = 18. Pull needs Sᵀ (LAGraph pulls only when G->AT
exists or G->A_structure_is_symmetric). The basic entry point always has it, as LAGraph's
basic tier computes missing cached properties: S itself when ``undirected`` (a promise, not
checked) or when A's pattern is symmetric (``A.is_symmetric(structure=True)``, checked once
and kept with A), else Sᵀ, built once and kept with A. The advanced entry point takes
``AT`` as given (None: push only).

Methods: ``"semiring"`` runs the formulation above as GraphBLAS calls (a device read per
level: |q| and mf); ``"fused"`` runs gg.traverse, the same levels each as one fused kernel
with the level loop on the device (one device read per 8 levels); ``"auto"`` takes fused
where gg.traversal.supports the graph, else semiring. Both give the same levels, directions
and trace figures; the trees may differ (any valid one).

Cached properties (``Matrix.memo``; each dropped when its matrix gets new content):
    A.memo("algorithms.bfs.pattern")            S = one(A)
    A.memo(("grblas_gpu.Matrix.is_symmetric", True))
                                                whether A's pattern is symmetric (bool)
    A.memo("algorithms.bfs.pattern_transpose")  Sᵀ, only where that pattern is not symmetric
    S.memo("algorithms.bfs.out_degree")         deg (semiring)
    S.memo("grblas_gpu.traversal.free")         the fused levels' workspaces (gg.traverse)
With an ``edge_mask`` nothing is kept with A: S and Sᵀ depend on the mask, so each call
builds S, checks its pattern and builds Sᵀ where needed (unless ``undirected``).

Results (nvGRAPH's): dense backend int32 arrays of length n, new for each search;
distances[source] = 0, 2**31 - 1 where unreachable; predecessors[source] = -1, -1 where
unreachable. Trace: ``trace(dict)`` per level: {iteration, direction, frontier (the
vertices it found), edges (the edges out of them), unexplored (the edges not yet explored
as it began), path ("fused" or "semiring")}.

References: Beamer et al., "Direction-Optimizing Breadth-First Search", SC 2012;
LAGraph LG_BreadthFirstSearch_SSGrB.c; nvGRAPH 9.2 guide 2.28; Graph500 BFS validation.

NOTE: ``undirected=True`` is a promise that A is symmetric (nvGRAPH's flag means the same);
on an unsymmetric A the pull steps follow reversed edges. NOTE: an edge mask applies to each
stored edge, so on an undirected graph (i, j) and (j, i) are masked separately, as in
nvGRAPH. NOTE: the tree found is one of many valid ones; only levels are unique. NOTE: the
fused method takes at most 2**31 - 1 vertices and 2**33 - 1 edges; beyond, "semiring" runs
(at 2**31 vertices or more its results are int64).
"""
import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import backend
from grblas_gpu.errors import DimensionMismatch, InvalidValue
from grblas_gpu.traversal import DEFAULT_ALPHA, DEFAULT_BETA, UNREACHED, next_direction

from ._common import (REPLACE, check_flag, check_number, check_square, check_trace,
                      check_vertex, emit, index_type)

__all__ = ["bfs", "bfs_advanced", "METHODS", "DEFAULT_ALPHA", "DEFAULT_BETA", "UNREACHED"]

METHODS = ("auto", "fused", "semiring")

# read the input's pattern only (GrB_STRUCTURE on the first input)
_STRUCTURE = gg.Descriptor(structure_first=True)


def bfs(A, source, *, undirected=False, edge_mask=None, alpha=None, beta=None, method="auto",
        trace=None):
    """BFS from ``source`` along the stored edges of A (A(i, j): an edge i -> j).

    Returns (distances, predecessors) as dense int32 backend arrays (see the module
    docstring). ``undirected``: a promise that A's pattern is symmetric (skips the check;
    without it the check runs once and is kept with A). ``edge_mask``: one value per
    stored edge in CSR order, 0 disabling the edge.
    ``alpha``, ``beta``: the direction-optimisation thresholds (None: 15 and 18).
    ``method``: "auto", "fused" or "semiring". ``trace(dict)``: per level (see the module
    docstring)."""
    n = check_square(A)
    source = check_vertex(source, n)
    undirected = check_flag(undirected, "bfs: undirected")
    if edge_mask is None:  # A's pattern and its transpose, kept with A for the next search
        S = A.memo("algorithms.bfs.pattern", lambda: _pattern(A, None, index_type(n)))
        if undirected or A.is_symmetric(structure=True):
            ST = S
        else:
            ST = A.memo("algorithms.bfs.pattern_transpose", lambda: _transpose(S))
    else:  # the mask is per call: so are S and Sᵀ
        S = _pattern(A, edge_mask, index_type(n))
        ST = S if undirected or S.is_symmetric(structure=True) else _transpose(S)
    return bfs_advanced(S, source, AT=ST, alpha=alpha, beta=beta, method=method,
                        trace=trace)


def bfs_advanced(S, source, *, AT, alpha=None, beta=None, method="auto", trace=None):
    """BFS on a pattern S with its transpose given: ``AT`` (Sᵀ, or None for push only)."""
    n = check_square(S, "S")
    source = check_vertex(source, n)
    if AT is not None:
        check_square(AT, "AT")
        if AT.shape != S.shape:
            raise DimensionMismatch(f"bfs_advanced: AT has shape {AT.shape}, S has {S.shape}")
    alpha = DEFAULT_ALPHA if alpha is None else check_number(alpha, "bfs: alpha")
    beta = DEFAULT_BETA if beta is None else check_number(beta, "bfs: beta")
    if not (alpha > 0 and beta > 0):  # (NaN fails too)
        raise InvalidValue(f"bfs: alpha and beta must be positive, got {alpha}, {beta}")
    if not (isinstance(method, str) and method in METHODS):
        raise InvalidValue(f"bfs: method must be one of {METHODS}, got {method!r:.40}")
    check_trace(trace, "bfs")
    if method == "auto":
        method = "fused" if gg.traversal.supports(S, AT) else "semiring"
    if method == "fused":
        return gg.traverse(S, source, ST=AT, alpha=alpha, beta=beta, trace=trace)
    return _bfs_semiring(S, source, AT, alpha, beta, trace)


def _bfs_semiring(S, source, AT, alpha, beta, trace):
    """The module docstring's formulation, one GraphBLAS call a step."""
    n, m = S.nrows, S.nvals
    itype = gg.INT32 if n <= 2**31 - 1 else gg.INT64
    deg = S.memo("algorithms.bfs.out_degree", lambda: _out_degree(S))
    # q = {source: source} ;  pi = {source: source} ;  dist = {source: 0}
    q = gg.Vector.from_coo([source], [source], size=n, dtype=itype)
    pi = q.dup()
    dist = gg.Vector.from_coo([source], [0], size=n, dtype=itype)
    w = gg.Vector(gg.INT64, n)
    nf, mf = 1, _edges_out(w, q, deg)
    seen, growing, push = mf, True, True
    k = 0
    while True:
        k += 1
        unexplored = m - seen + mf
        push = next_direction(push, mf=mf, nf=nf, seen=seen, growing=growing, n=n, m=m,
                              alpha=alpha, beta=beta, can_pull=AT is not None)
        if push:
            # q⟨¬pi.S, replace⟩ = q any.secondi S
            gg.vxm(q, q, S, semirings.any_secondi, mask=~pi.S, desc=REPLACE, direction="push")
        else:
            # q⟨¬pi.S, replace⟩ = Sᵀ any.secondi q
            gg.mxv(q, AT, q, semirings.any_secondi, mask=~pi.S, desc=REPLACE, direction="pull")
        # pi⟨q.S⟩ = q
        gg.assign(pi, q, gg.ALL, mask=q.S)
        # dist⟨q.S⟩ = k
        gg.assign(dist, k, gg.ALL, mask=q.S)
        old, nf, mf = nf, q.nvals, _edges_out(w, q, deg)
        growing = nf > old
        seen += mf
        emit(trace, iteration=k, direction="push" if push else "pull", frontier=nf, edges=mf,
             unexplored=unexplored, path="semiring")
        if mf == 0:
            break
    # pi(source) = (none): the root has no parent
    del pi[source]
    return (dist.to_dense(fill=UNREACHED, device=True),
            pi.to_dense(fill=-1, device=True))


def _out_degree(S):
    """deg = S +.pair 1: the number of entries in each row (rows without any: no entry)."""
    n = S.nrows
    ones = gg.Vector(gg.INT64, n)
    # ones(:) = 1
    gg.assign(ones, 1, gg.ALL)
    deg = gg.Vector(gg.INT64, n)
    # deg = S +.pair ones
    return gg.mxv(deg, S, ones, semirings.plus_pair)


def _edges_out(w, q, deg):
    """mf: the edges out of the frontier q."""
    # w⟨q.S, replace⟩ = deg
    gg.assign(w, deg, gg.ALL, mask=q.S, desc=REPLACE)
    # mf = +/w
    return int(gg.reduce_scalar(w, semirings.monoid.plus))


def _transpose(S):
    """Sᵀ as a Matrix of its own (read as a structure, so S keeps no CSC form beside it)."""
    ST = gg.Matrix(S.dtype, S.ncols, S.nrows)
    # ST = Sᵀ
    return gg.transpose(ST, S, desc=_STRUCTURE)


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
