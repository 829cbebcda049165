"""Algorithms on a DistMatrix, each one SPMD task per rank with its collectives inside the
iteration (no scheduler round trip per operation): every rank runs the loop over its row
block with ordinary grblas_gpu calls, and the ranks meet once or twice an iteration.

BFS levels (push, any graph): the frontier q, split as A's rows. Per level, each rank's
frontier rows give a partial q any.pair A over every column; the partials go to the ranks
that own their columns (all-to-all), which fold them and keep the unvisited:

    partial = q_k any.pair A_k ;  q_k⟨¬levels_k.S, replace⟩ = ⊕ of the partials for block k
    levels_k⟨q_k.S⟩ = level ;  stop when Σ_k |q_k| = 0 (an all-gather of the counts)

PageRank (LAGraph's LAGr_PageRank, GAP's formulation and stopping rule, as
grblas_gpu.benchmarks.user_algorithms.user_pagerank with vxm), d the out-degrees / damping
(+inf without out-edges, so t ./ d is 0 there), sink damping / n at those vertices:

    t_k = r_k ;  s = Σ_k +/(t_k .* sink_k)            (an all-gather of p numbers)
    w_k = t_k ./ d_k ;  r_k(:) = (1 - damping) / n + s
    r_k += Σ of the partials w_j plus.first A_j for block k   (dense slices all-to-all,
                                                               added: a reduce-scatter)
    stop when Σ_k ||t_k - r_k||₁ <= tol

SSSP (Bellman-Ford over a frontier, as BFS with min.plus): per round the frontier's rows give
partial candidates f_k min.plus A_k, folded by min on their owners; a candidate below the
known distance (or the first for its vertex) updates d and enters the next frontier.

Connected components (label propagation, not yet LAGraph's FastSV): every vertex starts
with its own id; per round the changed labels' rows give partials l min.first A over every
column, folded by min; a vertex takes a smaller label and passes it on next round. On
A ∪ Aᵀ's pattern (a DistMatrix of a symmetric A) the labels end as each component's
smallest vertex id, as grblas_gpu.algorithms.connected_components labels them.

Triangles (Sandia's, L the strictly lower triangle, replicated): each rank takes its rows of
L and all-gathers the others' (the one replicated operand), then counts its rows,
C_k⟨L_k.S⟩ = L_k plus.pair Lᵀ, and the counts are summed: memory is a whole L per rank.
"""
import numpy as np

import grblas_gpu as gg
from grblas_gpu import semirings
from ..errors import IndexOutOfBounds, InvalidValue
from . import resident
from .objects import DistMatrix, DistVector
from .ops import _block, _run, rank0_item, to_owners
from .partition import join_rows, split_dense, split_entries

__all__ = ["bfs_levels", "pagerank", "sssp", "connected_components", "triangle_count"]

_REPLACE = gg.Descriptor(replace=True)


def bfs_levels(A, source):
    """The BFS level of every vertex reached from ``source`` (0 at the source) over the edges
    A(i, j): i -> j, as a DistVector of INT64 split as A's rows (no entry where unreached)."""
    _check_square(A, "bfs_levels")
    _check_source(A, source, "bfs_levels")
    levels = DistVector.empty(A, "INT64")
    _run(levels, _bfs_rank, A.blocks, dict(n=A.nrows, bounds=A.bounds, dtype=A.dtype.name,
                                           source=int(source)))
    return levels


def pagerank(A, damping=0.85, tol=1e-4, max_iter=100):
    """(ranks, iterations): ranks an FP32 DistVector split as A's rows summing to about 1,
    to GAP's L1 tolerance (see the module docstring)."""
    _check_square(A, "pagerank")
    if not 0 < damping < 1 or not tol > 0:
        raise InvalidValue(f"distributed.pagerank: damping must lie in (0, 1) and tol be > 0, "
                           f"got {damping!r}, {tol!r}")
    ranks = DistVector.empty(A, "FP32")
    _run(ranks, _pagerank_rank, A.blocks, dict(n=A.nrows, bounds=A.bounds, dtype=A.dtype.name,
                                               damping=float(damping), tol=float(tol),
                                               max_iter=int(max_iter)))
    return ranks, int(rank0_item(ranks, 2))


def sssp(A, source):
    """Shortest-path distances from ``source`` over A's weights (A(i, j): an edge i -> j of
    that length; no negative cycle), a DistVector of A's type split as A's rows (no entry
    where unreached). A negative cycle reached from the source raises InvalidValue."""
    _check_square(A, "sssp")
    _check_source(A, source, "sssp")
    dtype = A.dtype.name if A.dtype.name in ("FP32", "FP64") else "FP64"
    d = DistVector.empty(A, dtype)
    _run(d, _sssp_rank, A.blocks, dict(n=A.nrows, bounds=A.bounds, dtype=A.dtype.name,
                                       d_dtype=dtype, source=int(source)))
    return d


def connected_components(A):
    """The components of A's graph, A symmetric (A ∪ Aᵀ for a directed graph): an INT64
    DistVector split as A's rows, each vertex labelled by its component's smallest vertex."""
    _check_square(A, "connected_components")
    labels = DistVector.empty(A, "INT64")
    _run(labels, _components_rank, A.blocks, dict(n=A.nrows, bounds=A.bounds,
                                                  dtype=A.dtype.name))
    return labels


def triangle_count(A):
    """The triangles of the undirected graph of a symmetric A (an int)."""
    _check_square(A, "triangle_count")
    out = DistVector.empty(A, "INT64", size=A.nparts)   # (one entry per rank: its count)
    _run(out, _triangles_rank, A.blocks, dict(n=A.nrows, bounds=A.bounds, dtype=A.dtype.name))
    return int(rank0_item(out, 2))


def _check_source(A, source, op):
    if isinstance(source, bool) or not isinstance(source, (int, np.integer)) or not (
            0 <= source < A.nrows):
        raise IndexOutOfBounds(f"distributed.{op}: source {source!r} is not a vertex of a "
                               f"{A.nrows}-vertex graph")


def _check_square(A, op):
    if not isinstance(A, DistMatrix):
        raise InvalidValue(f"distributed.{op}: A must be a DistMatrix, got {type(A).__name__}")
    if A.nrows != A.ncols:
        raise InvalidValue(f"distributed.{op}: A must be square, got {A.shape}")


# ------------------------------------------------------------------------------ the ranks
def _local(a_block, meta):
    return resident.matrix(a_block, meta["n"], meta["dtype"])


def _total(comm, x):
    """Σ over the ranks of a number (an all-gather, and one read of the sum)."""
    xp = gg.backend.xp
    got = comm.allgather((np.array([x], dtype=np.float64),))
    return float(xp.concatenate([xp.asarray(p[0]) for p in got]).sum())


def _summed(comm, partial, bounds):
    """This rank's block of Σ over the ranks' full-length partials, as a full Vector: each
    partial goes out densely, a slice to each owner, and the slices received are added (a
    reduce-scatter; no entry lists to sort). Positions no rank reached hold 0, which is
    right where the sum is added to something (r += ...), and only there."""
    xp = gg.backend.xp
    dense = partial.to_dense(0, device=True)
    got = comm.alltoall([(piece,) for piece in split_dense(dense, bounds)])
    total = xp.asarray(got[0][0]).copy()
    for (piece,) in got[1:]:
        total += xp.asarray(piece)
    return gg.Vector.from_dense(total)


def _reached(comm, partial, bounds, nk):
    """This rank's block of the OR of the ranks' full-length BOOL partials. A partial the
    product left as a bitmap (a large frontier's) goes out densely, a slice of flags to
    each owner (no entry lists to sort); one left sparse goes as its positions. Every
    message is (flags, positions), one of them empty: ranks whose products chose different
    forms still exchange alike."""
    xp = gg.backend.xp
    none_flags, none_idx = xp.zeros(0, dtype=bool), xp.zeros(0, dtype=xp.int64)
    if partial.format == "dense":
        flags = partial.to_dense(False, device=True)
        sends = [(piece, none_idx) for piece in split_dense(flags, bounds)]
    else:
        sends = [(none_flags, i) for i, _ in split_entries(
            *partial.to_coo(device=True), bounds, xp)]
    reached = xp.zeros(nk, dtype=bool)
    for flags, idx in comm.alltoall(sends):
        if len(flags):
            reached |= xp.asarray(flags)
        if len(idx):
            reached[xp.asarray(idx)] = True
    return gg.Vector.from_dense(reached, missing_value=False)


def _bfs_rank(comm, rank, _, a_block, meta):
    A = _local(a_block, meta)
    lo, hi = meta["bounds"][rank], meta["bounds"][rank + 1]
    nk, s = int(hi - lo), meta["source"]
    levels = gg.Vector(gg.INT64, nk)
    q = gg.Vector(gg.BOOL, nk)
    if lo <= s < hi:
        levels[s - lo] = 0
        q[s - lo] = True
    level = 0
    while True:
        # partial = q_k any.pair A_k ;  q_k⟨¬levels_k.S, replace⟩ = ⊕ of the partials
        partial = gg.vxm(gg.Vector(gg.BOOL, meta["n"]), q, A, semirings.any_pair)
        folded = _reached(comm, partial, meta["bounds"], nk)
        gg.apply(q, folded, "identity", mask=~levels.S, desc=_REPLACE)
        level += 1
        # levels_k⟨q_k.S⟩ = level
        gg.assign(levels, level, gg.ALL, mask=q.S)
        if _total(comm, q.nvals) == 0:
            return _block(levels)


def _pagerank_rank(comm, rank, _, a_block, meta):
    A = _local(a_block, meta)
    nk, n, damping = A.nrows, meta["n"], meta["damping"]
    # d_k(:) = inf ;  d_k⟨deg.S⟩ = deg / damping ;  sink_k⟨¬deg.S⟩ = damping / n
    ones = gg.assign(gg.Vector(gg.FP32, n), 1, gg.ALL)
    deg = gg.mxv(gg.Vector(gg.FP32, nk), A, ones, semirings.plus_pair)
    d = gg.assign(gg.Vector(gg.FP32, nk), float("inf"), gg.ALL)
    gg.apply(d, deg, semirings.binary.div, right=damping, mask=deg.S)
    sink = gg.assign(gg.Vector(gg.FP32, nk), 0, gg.ALL)
    gg.assign(sink, damping / n, gg.ALL, mask=~deg.S)
    r = gg.assign(gg.Vector(gg.FP32, nk), 1.0 / n, gg.ALL)
    t, w = gg.Vector(gg.FP32, nk), gg.Vector(gg.FP32, nk)
    for it in range(1, meta["max_iter"] + 1):
        # t = r ;  s = Σ +/(t .* sink)
        gg.apply(t, r, "identity")
        s = _total(comm, gg.reduce_scalar(gg.ewise_mult(w, t, sink, "times"), "plus"))
        # w = t ./ d ;  r(:) = (1 - damping) / n + s
        gg.ewise_mult(w, t, d, "div")
        gg.assign(r, (1 - damping) / n + s, gg.ALL)
        # r += ⊕ of the partials w plus.first A for this block
        partial = gg.vxm(gg.Vector(gg.FP32, n), w, A, semirings.plus_first)
        gg.ewise_add(r, r, _summed(comm, partial, meta["bounds"]), "plus")
        # change = Σ ||t - r||₁
        gg.apply(t, gg.ewise_add(t, t, r, "minus"), "abs")
        if _total(comm, gg.reduce_scalar(t, "plus")) <= meta["tol"]:
            break
    idx, vals = _block(r)
    return idx, vals, it    # (a block as any other, with the iterations as a third item)


def _improved(cand, d, nk, dtype):
    """The candidates that improve d: below d's value, or where d has none."""
    f = gg.Vector(dtype, nk)
    gg.assign(f, cand, gg.ALL, mask=~d.S)
    below = gg.ewise_mult(gg.Vector(gg.BOOL, nk), cand, d, "lt")
    gg.assign(f, cand, gg.ALL, mask=below.V)
    return f


def _sssp_rank(comm, rank, _, a_block, meta):
    A = _local(a_block, meta)
    lo, hi = meta["bounds"][rank], meta["bounds"][rank + 1]
    nk, s, dt = int(hi - lo), meta["source"], meta["d_dtype"]
    d, f = gg.Vector(dt, nk), gg.Vector(dt, nk)
    if lo <= s < hi:
        d[s - lo] = 0
        f[s - lo] = 0
    for _ in range(meta["n"]):
        # candidates = ⊕min of the partials f_k min.plus A_k for this block
        partial = gg.vxm(gg.Vector(dt, meta["n"]), f, A, semirings.min_plus)
        cand = to_owners(comm, partial, meta["bounds"], semirings.monoid.min, nk, dt)
        f = _improved(cand, d, nk, dt)
        # d = d min cand
        gg.ewise_add(d, d, cand, "min")
        if _total(comm, f.nvals) == 0:
            return _block(d)
    raise InvalidValue("distributed.sssp: distances still fall after n rounds: a negative "
                       "cycle is reachable from the source")


def _components_rank(comm, rank, _, a_block, meta):
    A = _local(a_block, meta)
    lo, nk = meta["bounds"][rank], A.nrows
    labels = gg.Vector.from_dense(np.arange(lo, lo + nk, dtype=np.int64))
    changed = labels.dup()
    while True:
        # candidates = ⊕min of the partials changed_k min.first A_k for this block
        partial = gg.vxm(gg.Vector(gg.INT64, meta["n"]), changed, A, semirings.min_first)
        cand = to_owners(comm, partial, meta["bounds"], semirings.monoid.min, nk, gg.INT64)
        changed = _improved(cand, labels, nk, gg.INT64)
        gg.ewise_add(labels, labels, cand, "min")
        if _total(comm, changed.nvals) == 0:
            return _block(labels)


def _triangles_rank(comm, rank, _, a_block, meta):
    A = _local(a_block, meta)
    lo, n = int(meta["bounds"][rank]), meta["n"]
    # L_k: the block's rows of the strictly lower triangle (global column < global row)
    L_k = gg.select(gg.Matrix(gg.BOOL, A.nrows, n), A, "tril", thunk=lo - 1)
    indptr, indices, _ = L_k.to_csr(device=True, values=False)
    indptr, indices, _ = join_rows(comm.allgather((indptr, indices)), gg.backend.xp)
    L = gg.Matrix.from_csr(indptr, indices, True, ncols=n, dtype=gg.BOOL)
    # C_k⟨L_k.S⟩ = L_k plus.pair Lᵀ ;  this rank's count = Σ C_k
    C = gg.mxm(gg.Matrix(gg.INT64, A.nrows, n), L_k, L, semirings.plus_pair, mask=L_k.S,
               desc=gg.Descriptor(transpose_second=True))
    total = _total(comm, int(gg.reduce_scalar(C, "plus")))
    # (an empty block, and the count as a third item)
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), round(total)
