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

Input: nvGRAPH's lower triangle (CSR or CSC, no diagonal), a full symmetric matrix, or an upper
triangle alike: L is tril(A, -1) when A has entries below the diagonal, else triu(A, 1)ᵀ. The
diagonal (self loops) is ignored. Values are ignored (only the pattern counts).

Cached properties: none (LAGraph would cache L/U and the degree permutation).
Result: a Python int (nvGRAPH's uint64_t). References: Wolf, Deveci, Berry, Hammond,
Rajamanickam, "Fast linear algebra-based triangle counting with KokkosKernels", HPEC 2017
(the Sandia forms); Azad, Buluç, Gilbert, "Parallel triangle counting and enumeration using
matrix algebra", IPDPSW 2015; Cohen (2009); LAGraph LAGr_TriangleCount.c; nvGRAPH 9.2 guide 2.25.

NOTE: an unsymmetric A holding entries both below and above the diagonal is read as its
lower triangle only (the graph must be undirected).
"""
import grblas_gpu as gg
import semirings
from semirings import indexunary
from grblas_gpu.errors import InvalidValue

from ._common import check_square

__all__ = ["triangle_count", "lower_triangle", "METHODS"]

METHODS = ("sandia_lut", "sandia_ll")


def triangle_count(A, *, method="sandia_lut"):
    """The number of triangles of the undirected graph A (see the module docstring)."""
    check_square(A)
    if method not in METHODS:
        raise InvalidValue(f"triangle_count: method must be one of {METHODS}, got {method!r}")
    return triangle_count_advanced(lower_triangle(A), method=method)


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


def triangle_count_advanced(L, *, method="sandia_lut"):
    """Count from the strictly lower triangle L (INT64 pattern), given."""
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
