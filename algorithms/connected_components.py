"""Connected components by FastSV: min-label hooking and shortcutting (LAGraph's
LAGr_ConnectedComponents, LG_CC_FastSV6/7).

Formulation (S: the pattern of A ∪ Aᵀ, so a directed graph gives its weak components;
f: each vertex's parent, full; gp = f(f): the grandparents; mngp(i): the least grandparent
among i's neighbours; P: the parent matrix, P(i, f(i)) = 1, one entry per row):

    f = gp = mngp = 0:n-1
    repeat:
        mngp = min(mngp, S min.second gp)       (mxv: each vertex's least neighbouring
                                                 grandparent)
        f = min(f, mngp min.first P)            (vxm, stochastic hooking: for every j,
                                                 f(f(j)) = min(f(f(j)), mngp(j)), a scatter
                                                 whose collisions the monoid resolves)
        f = min(f, mngp ⊕ gp)                   (ewise: aggressive hooking f(i) ≤ mngp(i) and
                                                 shortcutting f(i) ≤ gp(i))
        P(i, f(i)) = 1                          (the new parents as a matrix)
        gp' = P min.second f                    (mxv: gp'(i) = f(f(i)))
        changed = +/(gp' .≠ gp)
        gp = gp'
    until changed = 0

Every label is a vertex of the same component and only ever decreases, and the smallest
vertex m of a component starts as its own parent, so f(m) = m throughout. When the
grandparents stop changing, each component is one star rooted at m (FastSV's termination
argument): f(i) is the smallest vertex id of i's component. The vector forms of f(f) (extract) and of the scatter (assign with
accum=min on duplicate indices, which GraphBLAS leaves undefined) are both products with P,
as LAGraph builds its Parent matrix from f's array; P is constructed without checks
(``Matrix.from_csr(trusted=True)``, GxB's load) once, and its entries are moved in place
each iteration (``P.replace_indices``: one entry per row throughout, so the pull's row plan
and empty-row count, made on the first pass, are kept); the loop reads one scalar an
iteration, changed.

Cached properties: S, kept with A (``Matrix.memo``); A's pattern symmetry
(``A.is_symmetric(structure=True)``, cached by the engine), which makes S = one(A).

Results: a dense backend array of length n, int32 while vertex ids fit (else int64), as bfs:
labels[i] = the smallest vertex id of i's component. Trace: ``trace(dict)`` per iteration:
{iteration, changed (the grandparents that changed)}.

References: Zhang, Azad, Hu, "FastSV: A Distributed-Memory Connected Component Algorithm
with Fast Convergence", SIAM PP 2020; Zhang, Azad, Buluç, "Parallel algorithms for finding
connected components using linear algebra", JPDC 144 (2020); Shiloach & Vishkin (1982);
LAGraph LG_CC_FastSV6.c, LG_CC_FastSV7.c.

NOTE: A's values are ignored (an explicit zero is an edge), as are self loops.
NOTE: LAGraph's FastSV first runs on a sample of each row's first 4 entries when the average
degree exceeds 8 and then skips the largest component's vertices; that phase is not done here.
"""
import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import backend

from ._common import check_square, check_trace, emit, index_type

__all__ = ["connected_components"]


def connected_components(A, *, trace=None):
    """The weakly connected components of A (A(i, j): an edge i -> j; A ∪ Aᵀ's pattern is
    the undirected graph). Returns labels, a dense backend array: labels[i] is the smallest
    vertex id of i's component (see the module docstring). ``trace(dict)``: per iteration,
    {iteration, changed}."""
    n = check_square(A)
    check_trace(trace, "connected_components")
    itype = index_type(n)
    S = A.memo("algorithms.connected_components.pattern", lambda: _symmetric_pattern(A, itype))
    return _fastsv(S, itype, trace)


def _fastsv(S, itype, trace):
    """The module docstring's loop on a symmetric pattern S."""
    n = S.nrows
    xp = backend.xp
    np_type = gg.lookup_dtype(itype).np_type
    ptr = xp.arange(n + 1, dtype=np_type)       # P's row offsets: one entry per row
    # f = 0:n-1 ;  gp = f ;  mngp = f
    f = gg.Vector.from_dense(xp.arange(n, dtype=np_type))
    gp, mngp = f.dup(), f.dup()
    gp_new = gg.Vector(itype, n)
    diff = gg.Vector(gg.INT64, n)
    # P(i, f(i)) = 1: one matrix whose entries move (its row plans are kept)
    P = gg.Matrix.from_csr(ptr, f.to_dense(device=True), ncols=n, dtype=itype, trusted=True)
    k, changed = 0, n
    while changed:
        k += 1
        # mngp = min(mngp, S min.second gp)
        gg.mxv(mngp, S, gp, semirings.min_second, accum=semirings.binary.min)
        # f = min(f, mngp min.first P)     (push: P is read by its rows, a scatter of mngp)
        gg.vxm(f, mngp, P, semirings.min_first, accum=semirings.binary.min, direction="push")
        # f = min(f, mngp min gp)
        gg.ewise_add(f, mngp, gp, semirings.binary.min, accum=semirings.binary.min)
        # P(i, f(i)) = 1
        P.replace_indices(f.to_dense(device=True).astype(P.index_dtype, copy=False))
        # gp' = P min.second f
        gg.mxv(gp_new, P, f, semirings.min_second)
        # diff = gp' .≠ gp ;  changed = +/diff
        gg.ewise_mult(diff, gp_new, gp, semirings.binary.ne)
        changed = int(gg.reduce_scalar(diff, semirings.monoid.plus))
        gp, gp_new = gp_new, gp
        emit(trace, iteration=k, changed=changed)
    return f.to_dense(device=True)


def _symmetric_pattern(A, itype):
    """S = one(A) ∪ one(Aᵀ): the undirected graph of A, valued 1 (one(A) itself when A's
    pattern is symmetric: no transpose, no union)."""
    n = A.nrows
    O = gg.Matrix(itype, n, n)
    # O = one(A)
    gg.apply(O, A, semirings.unary.one)
    if A.is_symmetric(structure=True):
        return O
    S = gg.Matrix(itype, n, n)
    # S = O ∪ Oᵀ
    return gg.ewise_add(S, O, O.T, semirings.binary.first)
