"""Triangle counting in an undirected graph (nvgraphTriangleCount).

With A the symmetric adjacency matrix (no self loops), L = tril(A, -1) and U = triu(A, 1) = Lᵀ,
the classic formulations (LAGraph's LAGr_TriangleCount lists the same six):

    Burkhardt:   ntri = sum((A  * A ) .* A) / 6
    Cohen:       ntri = sum((L  * U ) .* A) / 2
    Sandia_LL:   ntri = sum((L  * L ) .* L)         saxpy (Gustavson), masked by L
    Sandia_UU:   ntri = sum((U  * U ) .* U)
    Sandia_LUT:  ntri = sum((L  * Uᵀ) .* L)         = sum((L * Lᵀ) .* L): dot products
    Sandia_ULT:  ntri = sum((U  * Lᵀ) .* U)

Here (default "sandia_lut"):

    C⟨L.S⟩ = L plus.pair Lᵀ        (mxm, Method.DOT: C(i, j) = |row i of L ∩ row j of L|,
                                    computed only for the edges (i, j) of L)
    ntri   = Σ C                   (reduce to a scalar)

Each triangle k < j < i is counted once, at (i, j), through k. "sandia_ll" (C⟨L.S⟩ = L plus.pair
L, Gustavson) gives the same count and is there to cross-check. In LAGraph's measurements the
dot-product form (L·Uᵀ with the mask) wins on most graphs once the rows are sorted by degree;
Sandia_LL does better on very skewed degree distributions without sorting.

Degree ordering (``presort``): any acyclic orientation of the edges counts each triangle once,
so L may hold, instead of tril(A), each edge once in the row of its lower-ranked end, with
vertices ranked by degree (ties by index; GAP's tc and LAGraph's presort do the same by
relabelling). A row then holds only neighbours of higher degree, at most √(2|E|) of them,
so no dot product walks a hub's row: on R-MAT the intersections shrink tenfold. With S the
symmetric pattern, key(i) = deg(i)·n + i and D = diag(key), without relabelling anything:

    K = S any.second D           K(i, j) = key(j)       (A·D: columns scaled, no sort)
    E = D any.lt K               E(i, j) = key(i) < key(j)
    L = select(E == true)        (the edges pointing up in rank)

"auto" sorts under LAGraph's rule (LAGr_TriangleCount): more than 1000 vertices, at least 10
entries per row, and a mean degree above 4 × the median (of 1000 sampled vertices). S is A's
off-diagonal pattern when A holds both triangles (no transpose: the full symmetric matrix
is the common input), else the one triangle given and its transpose.

Input: nvGRAPH's lower triangle (CSR or CSC, no diagonal), a full symmetric matrix, or an upper
triangle alike: L is tril(A, -1) when A has entries below the diagonal, else triu(A, 1)ᵀ. The
diagonal (self loops) is ignored. Values are ignored (only the pattern counts).

Cached properties (kept with A, dropped when A changes; what LAGraph caches as
G->out_degree and the structure checks): S, D and the presort decision, so a later count on
the same graph orients and counts only. L itself is made on every call, as SuiteSparse's
count makes its tril.
Result: a Python int (nvGRAPH's uint64_t). References: Wolf, Deveci, Berry, Hammond,
Rajamanickam, "Fast linear algebra-based triangle counting with KokkosKernels", HPEC 2017
(the Sandia forms); Azad, Buluç, Gilbert, "Parallel triangle counting and enumeration using
matrix algebra", IPDPSW 2015; Cohen (2009); LAGraph LAGr_TriangleCount.c; nvGRAPH 9.2 guide 2.25.

NOTE: the graph must be undirected. An unsymmetric A holding entries both below and above
the diagonal is read as its lower triangle without the presort, and as its off-diagonal
pattern with it: the two counts may differ (nvGRAPH leaves such input undefined too).
"""
import numpy as np

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu.semirings import indexunary
from grblas_gpu.errors import InvalidValue

from ._common import check_square

__all__ = ["triangle_count", "lower_triangle", "symmetric_pattern", "degree_oriented",
           "METHODS", "PRESORTS"]

METHODS = ("sandia_lut", "sandia_ll")
PRESORTS = ("auto", True, False)
SAMPLES = 1000  # LAGraph's NSAMPLES for the presort rule


def triangle_count(A, *, method="sandia_lut", presort="auto"):
    """The number of triangles of the undirected graph A (see the module docstring)."""
    check_square(A)
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidValue(f"triangle_count: method must be one of {METHODS}, got {method!r}")
    if not isinstance(presort, (str, bool, int, np.bool_, np.integer)) or presort not in PRESORTS:
        raise InvalidValue(f"triangle_count: presort must be one of {PRESORTS}, "
                           f"got {presort!r}")
    presort = presort if isinstance(presort, str) else bool(presort)   # 0 and 1 as False, True
    n = A.nrows
    # LAGraph's size rule first (at most 2 nvals(A) entries in S: no S is built to reject it)
    if presort is False or (presort == "auto" and (n <= SAMPLES or 2 * A.nvals < 10 * n)):
        return triangle_count_advanced(lower_triangle(A), method=method)
    S, D, skewed = A.memo("algorithms.triangle_count.ranks", lambda: _ranked_pattern(A))
    if presort == "auto" and not skewed:
        # L = tril(S, -1)   (lower_triangle(A), from the pattern already built)
        L = gg.select(gg.Matrix(gg.INT64, n, n), S, indexunary.tril, -1)
        return triangle_count_advanced(L, method=method)
    return triangle_count_advanced(_oriented(S, D), method=method)


def _ranked_pattern(A):
    """(S, D, skewed): what a presorted count derives from A alone, kept with A (LAGraph
    caches the degrees and the structure checks the same way): the symmetric pattern, its
    rank diagonal and LAGraph's presort rule."""
    S = symmetric_pattern(A)
    deg = gg.Vector(gg.INT64, A.nrows)
    # deg(i) = Σ_j S(i, j)
    gg.reduce_rowwise(deg, S, semirings.monoid.plus)
    return S, rank_diagonal(deg), _skewed(S, deg)


def symmetric_pattern(A):
    """S = pattern(offdiag(A)) as INT64, completed by its transpose when A holds only one
    triangle (nvGRAPH's lower-triangular input); taken as is when it holds both."""
    n = A.nrows
    S = gg.Matrix(gg.INT64, n, n)
    # S = one(A) ;  S = offdiag(S)   (iso first: the select moves no values)
    gg.apply(S, A, semirings.unary.one)
    gg.select(S, S, indexunary.offdiag, 0)
    B = gg.Matrix(gg.INT64, n, n)
    # B(i, j) = (j <= i - 1) ;  below = Σ B   (how many entries lie below the diagonal)
    gg.apply(B, S, indexunary.tril, thunk=-1)
    below = int(gg.reduce_scalar(B, semirings.monoid.plus))
    if below in (0, S.nvals):
        # S = S ∪ Sᵀ
        gg.ewise_add(S, S, S, semirings.binary.any, desc=gg.Descriptor(transpose_second=True))
    return S


def lower_triangle(A):
    """L = pattern(tril(A, -1)) as INT64, or pattern(triu(A, 1))ᵀ when the lower part is empty."""
    n = check_square(A)
    L = gg.Matrix(gg.INT64, n, n)
    # L = one(tril(A, -1))
    gg.select(L, A, indexunary.tril, -1)
    if L.nvals == 0:
        U = gg.Matrix(gg.INT64, n, n)
        # U = triu(A, 1)
        gg.select(U, A, indexunary.triu, 1)
        # L = Uᵀ
        gg.transpose(L, U)
    # L = one(L)
    return gg.apply(L, L, semirings.unary.one)


def degree_oriented(S, deg):
    """Each edge of the symmetric pattern S (no diagonal), stored once in the row of its end of
    lower rank (degree ``deg``, then index): an INT64 pattern (see the module docstring)."""
    return _oriented(S, rank_diagonal(deg))


def rank_diagonal(deg):
    """D = diag(key), key(i) = deg(i) · n + i for every vertex, 0 degree where deg has no
    entry (distinct keys: ties broken by index). Full, so the products with D only gather."""
    n = deg.size
    key = gg.Vector(gg.INT64, n)
    # key = 0 ;  key += deg ;  key(i) = key(i) · n + i
    gg.assign(key, 0, gg.ALL)
    gg.assign(key, deg, gg.ALL, accum=semirings.binary.plus)
    gg.apply(key, key, DEGREE_KEY, thunk=n)
    return gg.Matrix.diag(key)


def _oriented(S, D):
    n = S.nrows
    K = gg.Matrix(gg.INT64, n, n)
    # K = S any.second D   (K(i, j) = key(j))
    gg.mxm(K, S, D, semirings.any_second)
    E = gg.Matrix(gg.BOOL, n, n)
    # E = D any.lt K       (E(i, j) = key(i) < key(j))
    gg.mxm(E, D, K, semirings.any_lt)
    # L = E⟨E == true⟩   (the kept values, true, become 1 in INT64)
    return gg.select(gg.Matrix(gg.INT64, n, n), E, indexunary.valueeq, True)


# key(i) = x · thunk + i, with x = deg(i) and thunk = n
DEGREE_KEY = indexunary.indexunary_op("degree_key", c_expr="(x * thunk + i)",
                                      numpy=lambda x, i, j, thunk: x * thunk + i,
                                      types=(gg.INT64,), register=False)


def _skewed(S, deg):
    """LAGraph's presort rule: at least 10 entries per row of S and a mean degree above 4 ×
    the median degree of SAMPLES vertices spread evenly."""
    n = S.nrows
    if S.nvals < 10 * n:
        return False
    sample = gg.extract(gg.Vector(gg.INT64, SAMPLES), deg,
                        np.arange(SAMPLES, dtype=np.int64) * n // SAMPLES)
    degrees = np.zeros(SAMPLES, dtype=np.int64)
    idx, vals = sample.to_coo()
    degrees[idx] = vals
    return S.nvals / n > 4 * float(np.median(degrees))


def triangle_count_advanced(L, *, method="sandia_lut"):
    """Count from L (INT64 pattern) holding each edge once: the strictly lower triangle, or
    any other acyclic orientation such as :func:`degree_oriented`'s."""
    n = check_square(L, "L")
    C = gg.Matrix(gg.INT64, n, n)
    if method == "sandia_lut":
        # C⟨L.S⟩ = L plus.pair Lᵀ   (dot products)
        gg.mxm(C, L, L, semirings.plus_pair, mask=L.S,
               desc=gg.Descriptor(transpose_second=True), method=gg.Method.DOT)
    else:
        # C⟨L.S⟩ = L plus.pair L    (saxpy)
        gg.mxm(C, L, L, semirings.plus_pair, mask=L.S, method=gg.Method.GUSTAVSON)
    # ntri = Σ C
    return int(gg.reduce_scalar(C, semirings.monoid.plus))
