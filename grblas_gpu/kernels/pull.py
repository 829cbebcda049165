"""Pull SpMV: T = B ⊕.⊗ u for a dense u, one output row at a time (the kernels and their
launchers; kernels.pull_plans decides which kernel and keeps the row plans).

    T(i) = ⊕_{k : B(i,k), u(k) present} B(i,k) ⊗ u(k)      (``matrix_first``: mxv)
    T(i) = ⊕_k u(k) ⊗ B(i,k)                               (otherwise: vxm, B = Aᵀ)

B arrives as a :class:`~grblas_gpu.kernels.operands.Compressed` operand (the CSR of A, or
A's cached CSC when B = Aᵀ), u as a :class:`~grblas_gpu.kernels.operands.DenseOperand`
(values + bitmap), the mask as a :class:`~grblas_gpu.kernels.operands.DenseMask`. Values
are cast to the semiring's input type inside the product (SuiteSparse's casts: float -> int
saturates, NaN -> 0). T holds entries only where the mask allows (``t_is_masked``).

NumPy: a vectorised gather of the allowed rows' entries, the products through the
multiply's NumPy function, then ``segment_reduce`` per row.

CuPy: kernels from one template (``_PULL``, and ``_FEW`` for full B of a few rows), after the
common prelude of ``cuda_common.header``. An unmasked product over a full u whose monoid
seldom reaches its terminal value (plus, float min/max, ...) takes ``spmv_stream``; the
others take ``spmv_rows`` (which skips excluded rows, and stops early where ⊕ reaches its
terminal often: ANY, one-byte MIN/MAX/LOR/LAND) and ``spmv_items``:

* ``spmv_stream``: a block per stretch of STREAM_HALF entries takes the rows starting in it
  (at most 2 * STREAM_HALF entries), reads them with coalesced 16-byte loads, computes every
  product at once into shared memory (the same work for every thread however the rows fall)
  and folds each row with one thread. Rows longer than STREAM_HALF are warp items (below),
  run by the first blocks of the same launch. Like cuSPARSE's csr @ x, it is bound by the
  random gathers of u.

* ``spmv_rows``: a warp tests 32 rows at once (the mask, then the row's length: an
  excluded or empty row costs one lane one step) and folds those with entries V lanes a
  row (V from the average row length, :func:`pull_plans.vector_width`; one lane where ⊕
  stops often), rows longer than ``short_max`` left to the next two. Each lane reads 16-byte vectors of
  column indices and values with streaming (evict-first) loads, so that u, which every row
  gathers from, stays in L2; values are not read at all when iso or when ⊗ ignores them
  (pair, first, second), u's only where u has the entry. The lanes of a row vote after each
  pass and stop once ⊕ reached its terminal value (ANY at the first entry found; a lane
  that may stop looks its entries up one at a time). Positions are 32-bit when nnz allows
  (32 registers).
* ``spmv_items`` / ``spmv_finish``: long rows cut into chunks of ``LONG_CHUNK`` entries, one
  warp per chunk, partial results folded by a warp per split row (a block where some row
  has over FINISH_WIDE chunks). This keeps power-law rows (R-MAT hubs of 10^5 entries) from
  serialising on one warp. The chunk list is a property of B's row pointers, built once and
  cached (``plan_cache``, kernels.pull_plans.row_plan).

* ``spmv_few``: a full B of at most FEW_ROWS rows (a skinny product such as a BFS's frontier
  count, the frontier times [deg 1]): one launch reads u once for every row, its blocks'
  results folded by the last block to finish.

The result is dense: values and a presence bitmap of length nrows (every row written once).
"""
from string import Template
from typing import Any, NamedTuple

import numpy as np

from .. import backend
from ..types import cast
from . import pull_plans as plans
from .cache import get_functions
from .common import aligned, dummy, expand, kept, scalar_arg
from .cuda_common import c_index_type
from .launch import THREADS, grid, sm_count, strided_grid
from .operands import (allowed_rows, apply_product, fold_sorted, iso_scalar, kernel_key,
                       operand_source, operand_values)

xp = backend.xp

__all__ = ["pull"]


def _pull_numpy(B, u, prod, mask, plan_cache=None):
    n = len(B.ptr) - 1
    if mask is None and u.full and n:
        if _csr_matvec is not None and _scipy_semiring(prod):
            return _spmv_scipy(B, u, prod, plan_cache)
        ufunc = getattr(prod.semiring.monoid.op, "ufunc", None)
        if ufunc is not None and not prod.tout.is_bool and not prod.positional:
            return _spmv_numpy(B, u, prod, ufunc)
    if mask is None:  # every row: the entries in order
        rows = np.arange(n)
        owner = rows.repeat(np.diff(B.ptr))
        pos = np.arange(len(owner))
        j = B.idx[:len(pos)]
    else:
        rows = allowed_rows(mask, n).nonzero()[0]
        pos, owner = expand(B.ptr, rows)
        j = B.idx[pos]
    if not u.full:
        keep = u.bitmap[j]
        pos, owner, j = pos[keep], owner[keep], j[keep]
    z = apply_product(prod, operand_values(B, pos, prod.tin), operand_values(u, j, prod.tin),
                      rows[owner], j)
    out_rows, vals = fold_sorted(rows[owner], z, prod)
    return "sparse", out_rows.astype(np.int64), vals


def _checked_csr_matvec():
    """scipy.sparse's C++ CSR SpMV (y[i] += sum of Ax[p] * x[Aj[p]] over row i, in order), or
    None (the NumPy calls below) where the private module is missing or answers otherwise
    than used here: tried once on a 2 × 2 matrix."""
    try:
        from scipy.sparse._sparsetools import csr_matvec
        y = np.zeros(2)
        csr_matvec(2, 2, np.array([0, 1, 3], np.int32), np.array([1, 0, 1], np.int32),
                   np.array([2.0, 3.0, 4.0]), np.array([10.0, 100.0]), y)
        return csr_matvec if y.tolist() == [200.0, 430.0] else None
    except Exception:  # (any change of a private API: fall back, never fail a product)
        return None


_csr_matvec = _checked_csr_matvec()


def _scipy_semiring(prod):
    """T = B plus.times u (or plus.first / plus.second, one operand taken as 1) in one
    numeric type: exactly scipy's sum of products in C arithmetic (integers wrap, as in
    SuiteSparse; floats summed left to right in CSR order)."""
    sr = prod.semiring
    t = prod.tin
    return (sr.monoid.op.name == "plus" and sr.op.multiply.name in ("times", "first", "second")
            and t is prod.tout and t.np_type.kind in "iuf" and not prod.positional)


def _spmv_scipy(B, u, prod, plan_cache):
    """Unmasked, u full: w = B plus.⊗ u by scipy's csr_matvec. ⊗ = first / second reads
    only one operand: the other is an array of ones (kept with B's structure). Empty rows
    are absent from the bitmap."""
    ptr, idx = B.ptr, B.idx
    n, ncols = len(ptr) - 1, len(u.bitmap)
    nnz = int(ptr[-1])
    t = prod.tin.np_type
    name = prod.semiring.op.multiply.name
    # ⊗'s operands in B-then-u order (vxm's ⊗ takes u first: first/second swap)
    read_b = name == "times" or (name == "first") == prod.matrix_first
    read_u = name == "times" or (name == "second") == prod.matrix_first
    if B.full_width:  # B full: an entry's index is its offset in its vector
        idx = kept(plan_cache, ("spmv_full_idx", B.full_width, nnz),
                    lambda: np.tile(np.arange(B.full_width, dtype=np.int64), n))
    elif len(idx) != nnz:
        idx = idx[:nnz]
    if ptr.dtype != idx.dtype:  # csr_matvec takes one index type
        ptr = kept(plan_cache, ("spmv_ptr", idx.dtype.str), lambda: ptr.astype(idx.dtype),
                    B.ptr)
    if read_b and B.values is not None:
        a = cast(B.values if len(B.values) == nnz else B.values[:nnz], prod.tin, xp)
    else:
        iso = iso_scalar(B.iso, prod.tin) if read_b else t.type(1)
        a = kept(plan_cache, ("spmv_iso", t.str, iso.tobytes(), nnz),
                  lambda: np.full(nnz, iso, dtype=t))
    if read_u and u.values is not None:
        x = cast(u.values, prod.tin, xp)
    else:
        x = np.full(ncols, iso_scalar(u.iso, prod.tin) if read_u else 1, dtype=t)
    y = np.zeros(n, dtype=t)
    _csr_matvec(n, ncols, ptr, idx, a, x, y)
    return "dense", y, ptr[1:] != ptr[:-1]


def _spmv_numpy(B, u, prod, ufunc):
    """Unmasked, u full, ⊕ a ufunc: scipy's CSR SpMV in NumPy calls. Every stored entry is a
    term, so ⊗ runs over B's arrays in CSR order (one gather of u) and ⊕ is one reduceat at
    the rows' starts, in the same order and grouping as the general path's fold. Empty rows
    are absent from the bitmap (reduceat's value there is ignored)."""
    ptr = B.ptr
    nnz = int(ptr[-1])
    if nnz == 0:
        return "dense", xp.empty(len(ptr) - 1, dtype=prod.tout.np_type), ptr[1:] != ptr[:-1]
    tin = prod.tin
    j = B.idx if len(B.idx) == nnz else B.idx[:nnz]
    if B.full_width:  # B full: an entry's index is its offset in its vector
        j = np.arange(nnz) % B.full_width
    x = operand_values(u, j, tin) if u.values is not None else None
    if B.values is not None:
        a = cast(B.values if len(B.values) == nnz else B.values[:nnz], tin, xp)
    else:
        a = None
    if a is None:
        a = iso_scalar(B.iso, tin)
    if x is None:
        x = iso_scalar(u.iso, tin)
    fn = prod.semiring.op.multiply.numpy
    z = cast(fn(a, x) if prod.matrix_first else fn(x, a), prod.tout, xp)
    if z.shape != (nnz,):
        z = xp.broadcast_to(z, (nnz,))
    starts = ptr[:-1]
    with np.errstate(all="ignore"):  # ⊕'s values, warnings or not (as segment_reduce)
        if starts[-1] < nnz:
            vals = ufunc.reduceat(z, starts, dtype=z.dtype)
        else:  # trailing empty rows (left out: reduceat takes no start past the end)
            m = int(np.searchsorted(starts, nnz))
            vals = xp.empty(len(starts), dtype=z.dtype)
            vals[:m] = ufunc.reduceat(z, starts[:m], dtype=z.dtype)
    return "dense", vals, ptr[1:] != ptr[:-1]


_PULL = r"""
#define V ${V}
#define VEC ${VEC}   // index and value arrays are 16-byte aligned: vector loads
#define IMPLICIT ${IMPLICIT}  // B full: an entry's index is its offset in its vector

#define UNROLL ${UNROLL}  // vectors each lane loads before it uses any
// a long row's item over a full matrix loads u's flags 16 bytes a lane before it tests any
#define ITEM_UNROLL (IMPLICIT ? 4 : UNROLL)
typedef ${POS} POS;      // entry positions: 32-bit when nnz allows (fewer registers)

// the word type holding 4 entries of a type of S bytes (8-byte types take two uint4)
template <int S> struct Word4 {};
template <> struct Word4<1> { typedef unsigned int T; };
template <> struct Word4<2> { typedef uint2 T; };
template <> struct Word4<4> { typedef uint4 T; };
template <> struct Word4<8> { typedef uint4 T; };

// the 4 entries 4q..4q+3 (one 16-byte load for 4-byte T); past n, zeros. Index and value
// arrays are read once: streaming loads (evict-first in L2) keep u's values and bitmap,
// which every row gathers from, resident in L2 instead.
template <typename T>
__device__ __forceinline__ void load4(const T* __restrict__ p, POS q, POS n, T (&o)[4]) {
#if VEC
    if (4 * q + 4 <= n) {
        typedef typename Word4<sizeof(T)>::T Wd;
        constexpr int K = sizeof(T) == 8 ? 2 : 1;
        union { Wd w[K]; T v[4]; } u;
        const Wd* s = reinterpret_cast<const Wd*>(p) + K * q;
#pragma unroll
        for (int k = 0; k < K; ++k) u.w[k] = __ldcs(s + k);
        o[0] = u.v[0]; o[1] = u.v[1]; o[2] = u.v[2]; o[3] = u.v[3];
        return;
    }
#endif
#pragma unroll
    for (int k = 0; k < 4; ++k) o[k] = (4 * q + k < n) ? p[4 * q + k] : (T)0;
}

// fold the entries s..e-1 of B with W lanes (lane l), passes of 4 entries per lane; the
// lanes of one range run the same number of passes, so they can vote to stop early
template <int W, int U = UNROLL>
__device__ __forceinline__ void range_fold(
        const IA* __restrict__ idx, const POS width, const TA* __restrict__ ax,
        const TA a_iso, const TU* __restrict__ ux, const unsigned char* __restrict__ umap,
        const TU u_iso, const int u_full, POS s, POS e, POS nnz, const Z term,
        unsigned gmask, int l, long long o, bool& has, Z& acc) {
    const POS q0 = s >> 2, q1 = (e + 3) >> 2;
#if IMPLICIT
    const POS base = s - s % width;  // the start of the vector s..e-1 lies in
    // u's flags for 4 entries in one 4-byte load: entry p's is umap[p - base], and 4q - base
    // is a multiple of 4 when width is
    const bool words = !u_full && (width & 3) == 0 && ((size_t)umap & 3) == 0;
#endif
    const POS passes = (q1 - q0 + W * U - 1) / (W * U);
    for (POS t = 0; t < passes; ++t) {
        IA j4[U][4];
#if IMPLICIT
        unsigned int flags[U];  // byte k: u has entry 4q + k
#endif
#if READ_A
        TA a4[U][4];
#endif
#pragma unroll
        for (int r = 0; r < U; ++r) {
            const POS q = q0 + (t * U + r) * W + l;
            if (q < q1) {
#if IMPLICIT
#pragma unroll
                for (int k = 0; k < 4; ++k) j4[r][k] = (IA)(4 * q + k - base);
                if (u_full) {
                    flags[r] = 0xFFFFFFFFu;
                } else if (words) {
                    flags[r] = *reinterpret_cast<const unsigned int*>(umap + (4 * q - base));
                } else {
                    flags[r] = 0;
#pragma unroll
                    for (int k = 0; k < 4; ++k) {
                        const POS p = 4 * q + k;
                        if (p >= s && p < e && umap[p - base]) flags[r] |= 0xFFu << (8 * k);
                    }
                }
#else
                load4(idx, q, nnz, j4[r]);
#endif
#if READ_A && !IMPLICIT
                load4(ax, q, nnz, a4[r]);
#endif
            }
        }
#if READ_A && IMPLICIT
        // B's values only where u has one of the 4 entries, once every flag load is issued
        // (a load behind a branch on an earlier one would wait for it)
#pragma unroll
        for (int r = 0; r < U; ++r) {
            const POS q = q0 + (t * U + r) * W + l;
            if (q < q1 && flags[r]) load4(ax, q, nnz, a4[r]);
        }
#endif
#pragma unroll
        for (int r = 0; r < U; ++r) {
            const POS q = q0 + (t * U + r) * W + l;
            if (q >= q1) continue;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const POS p = 4 * q + k;
                if (p < s || p >= e) continue;
                const IA j = j4[r][k];
#if IMPLICIT
                if (((flags[r] >> (8 * k)) & 0xFFu) == 0) continue;
#else
                if (!u_full && umap[j] == 0) continue;  // (u's value is not read for nothing)
#endif
#if READ_U
                const TU uv = ux[j];
#else
                const TU uv = u_iso;
#endif
#if READ_A
                fold(has, acc, product(cast_a(a4[r][k]), cast_u(uv), o, j));
#else
                fold(has, acc, product(cast_a(a_iso), cast_u(uv), o, j));
#endif
#if STOP
                // the lane's next entries are looked up one at a time once it may stop: ANY
                // needs one, and a BFS pull's first look mostly finds a frontier vertex
                // (all 4 lookups at once cost 4 scattered L2 reads a row)
                if (reached(has, acc, term)) break;
#endif
            }
        }
#if STOP
        if (__any_sync(gmask, reached(has, acc, term))) break;
#endif
    }
}

// lane 0 of each aligned group of W lanes gets the group's fold (every lane of the warp
// must call this)
template <int W>
__device__ __forceinline__ void group_fold(bool& has, Z& acc) {
#pragma unroll
    for (int d = W / 2; d > 0; d >>= 1) {
        const Z o = shfl_down_z(acc, d);
        const bool oh = __shfl_down_sync(FULL_MASK, (int)has, d) != 0;
        if (oh) fold(has, acc, o);
    }
}

#define OPERANDS const IA* __restrict__ idx, const long long full_width, \
    const TA* __restrict__ ax, const TA a_iso, \
    const TU* __restrict__ ux, const unsigned char* __restrict__ umap, const TU u_iso, \
    const int u_full, const unsigned char* __restrict__ mmap, const TM* __restrict__ mval, \
    const long long nnz, const Z term, Z* __restrict__ out, unsigned char* __restrict__ present

// 32 rows a warp at a time: each lane tests one row (the mask, then its length), a ballot
// lists those with entries to fold, and the warp's groups of V lanes take them in turn. An
// excluded or empty row costs one lane one step (a BFS's late pull levels exclude most rows,
// and most of the rest are empty). Rows longer than short_max are left to spmv_items. A grid of a few blocks per multiprocessor strides
// over the rows.
extern "C" __global__ void __launch_bounds__(256)
spmv_rows(const IA* __restrict__ ptr, const long long* __restrict__ rowlist, const int use_rowlist,
          const long long nwork, const long long short_max, OPERANDS) {
    const int lane = threadIdx.x & 31;
    const int l = lane & (V - 1), group = lane / V;
    const unsigned gmask = (V == 32) ? FULL_MASK : (((1u << (V & 31)) - 1u) << (lane & ~(V - 1)));
    const long long stride = ((long long)gridDim.x * blockDim.x) & ~31LL;
    for (long long g0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) & ~31LL; g0 < nwork;
         g0 += stride) {  // (the same for every lane of a warp)
        const long long g = g0 + lane;
        long long row = 0;
        POS s = 0, e = 0;
        bool work = false;
        if (g < nwork) {
            row = use_rowlist ? rowlist[g] : g;
            if (allowed(mmap, mval, row)) {
                s = (POS)ptr[row];
                e = (POS)ptr[row + 1];
                work = e > s && e - s <= short_max;
                if (e == s) present[row] = 0;
            } else {
                present[row] = 0;
            }
        }
        unsigned todo = __ballot_sync(FULL_MASK, work);
        while (todo) {
            // group k takes the k-th row left in todo
            unsigned mine = todo;
            for (int k = 0; k < group && mine; ++k) mine &= mine - 1;
            const int from = mine ? __ffs(mine) - 1 : 0;
            const long long r = __shfl_sync(FULL_MASK, row, from);
            const POS rs = __shfl_sync(FULL_MASK, s, from), re = __shfl_sync(FULL_MASK, e, from);
            bool has = false;
            Z acc = (Z)0;
            if (mine)
                range_fold<V>(idx, (POS)full_width, ax, a_iso, ux, umap, u_iso, u_full, rs, re,
                              nnz, term, gmask, l, r, has, acc);
            group_fold<V>(has, acc);
            if (mine && l == 0) {
                present[r] = has;
                if (has) out[r] = acc;
            }
            for (int k = 0; k < 32 / V && todo; ++k) todo &= todo - 1;
        }
    }
}

#define ITEMS const long long* __restrict__ item_row, const long long* __restrict__ item_begin, \
    const long long* __restrict__ item_end, const unsigned char* __restrict__ item_alone, \
    const long long nitems, Z* __restrict__ part, unsigned char* __restrict__ part_has
#define ITEM_ARGS item_row, item_begin, item_end, item_alone, nitems, part, part_has
#define OPERAND_ARGS idx, full_width, ax, a_iso, ux, umap, u_iso, u_full, mmap, mval, nnz, \
    term, out, present

// warp item w (lane l): one chunk of a long row; a row of one chunk is written directly, the
// others leave a partial result for spmv_finish (every lane of the warp must call this)
__device__ __forceinline__ void fold_item(const long long w, const int l, ITEMS, OPERANDS) {
    const long long row = item_row[w];
    bool has = false;
    Z acc = (Z)0;
    if (allowed(mmap, mval, row))
        range_fold<32, ITEM_UNROLL>(idx, (POS)full_width, ax, a_iso, ux, umap, u_iso, u_full,
                       (POS)item_begin[w],
                       (POS)item_end[w], (POS)nnz, term, FULL_MASK, l, row, has, acc);
    group_fold<32>(has, acc);
    if (l == 0) {
        if (item_alone[w]) {
            present[row] = has;
            if (has) out[row] = acc;
        } else {
            part_has[w] = has;
            part[w] = acc;
        }
    }
}

// one warp per long-row item, a grid of a few blocks per multiprocessor striding over them
extern "C" __global__ void __launch_bounds__(256)
spmv_items(ITEMS, OPERANDS) {
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < nitems;
         w += warps)  // (the same for every lane of a warp)
        fold_item(w, threadIdx.x & 31, ITEM_ARGS, OPERAND_ARGS);
}

// one block per stretch: the short rows starting in one stretch of STREAM_HALF entries
// (block_rows). Their entries (at most 2 * STREAM_HALF: a longer row is a warp item, and can
// only be the last row of its stretch) are read by the whole block with coalesced 16-byte
// loads and every product computed at once, equal work for every thread however the rows
// fall; the products wait in shared memory for a thread per row to fold them. For a full u
// (no bitmap to read) and semirings whose terminal value is seldom reached (no early exit).
#define STREAM_HALF ${STREAM_HALF}
#define STREAM_VECS ((2 * STREAM_HALF / 4 + 2 + 255) / 256)  // 16-byte vectors per thread
extern "C" __global__ void __launch_bounds__(256)
spmv_stream(const IA* __restrict__ ptr, const long long* __restrict__ block_rows, ITEMS,
            OPERANDS) {
    typedef typename Word4<sizeof(Z)>::T WZ;  // 4 products (two words for 8-byte Z)
    constexpr int KZ = sizeof(Z) == 8 ? 2 : 1;
    __shared__ __align__(16) Z prod[2 * STREAM_HALF + 8];
    // the first blocks take the long rows' items, a warp each (as spmv_items)
    const long long item_blocks = (nitems + 7) >> 3;
    if (blockIdx.x < item_blocks) {
        const long long w = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
        if (w < nitems) fold_item(w, threadIdx.x & 31, ITEM_ARGS, OPERAND_ARGS);
        return;
    }
    const long long rb = block_rows[blockIdx.x - item_blocks];
    long long re = block_rows[blockIdx.x - item_blocks + 1];
    if (rb >= re) return;  // the whole block
    const POS s0 = (POS)ptr[rb];
    POS s1 = (POS)ptr[re];
    if (s1 - (POS)ptr[re - 1] > STREAM_HALF) { --re; s1 = (POS)ptr[re]; }
    const POS q0 = s0 >> 2, q1 = (s1 + 3) >> 2, base = 4 * q0;
    IA j4[STREAM_VECS][4];
#if READ_A
    TA a4[STREAM_VECS][4];
#endif
#pragma unroll
    for (int r = 0; r < STREAM_VECS; ++r) {
        const POS q = q0 + r * 256 + threadIdx.x;
        if (q < q1) {
            load4(idx, q, (POS)nnz, j4[r]);
#if READ_A
            load4(ax, q, (POS)nnz, a4[r]);
#endif
        }
    }
#pragma unroll
    for (int r = 0; r < STREAM_VECS; ++r) {
        const POS q = q0 + r * 256 + threadIdx.x;
        if (q >= q1) continue;
        union { WZ w[KZ]; Z v[4]; } z;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const POS p = 4 * q + k;
            const IA j = j4[r][k];
            z.v[k] = (Z)0;
            if (p >= s0 && p < s1) {
#if READ_U
                const TU uv = ux[j];
#else
                const TU uv = u_iso;
#endif
                // (the entry's row is not known here: positional multiplies never stream)
#if READ_A
                z.v[k] = product(cast_a(a4[r][k]), cast_u(uv), 0, j);
#else
                z.v[k] = product(cast_a(a_iso), cast_u(uv), 0, j);
#endif
            }
        }
#pragma unroll
        for (int c = 0; c < KZ; ++c) reinterpret_cast<WZ*>(prod)[KZ * (q - q0) + c] = z.w[c];
    }
    __syncthreads();
    for (long long row = rb + threadIdx.x; row < re; row += 256) {
        const POS b = (POS)ptr[row] - base, e = (POS)ptr[row + 1] - base;
        Z acc = b < e ? prod[b] : (Z)0;
        for (POS k = b + 1; k < e; ++k) acc = add_op(acc, prod[k]);
        present[row] = b < e;
        if (b < e) out[row] = acc;
    }
}

// one warp per row split over several items: fold its partial results
extern "C" __global__ void __launch_bounds__(256)
spmv_finish(const long long* __restrict__ split_row, const long long* __restrict__ split_first,
            const long long* __restrict__ split_count, const long long nsplit,
            const Z* __restrict__ part, const unsigned char* __restrict__ part_has,
            Z* __restrict__ out, unsigned char* __restrict__ present) {
    const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (w >= nsplit) return;
    const int l = threadIdx.x & 31;
    const long long first = split_first[w], count = split_count[w];
    bool has = false;
    Z acc = (Z)0;
    for (long long k = l; k < count; k += 32)
        if (part_has[first + k]) fold(has, acc, part[first + k]);
    group_fold<32>(has, acc);
    if (l == 0) {
        present[split_row[w]] = has;
        if (has) out[split_row[w]] = acc;
    }
}

// the same with a block (256 threads) per row, for rows of thousands of items (a 4M-entry
// row has 2048)
extern "C" __global__ void __launch_bounds__(256)
spmv_finish_wide(const long long* __restrict__ split_row,
                 const long long* __restrict__ split_first,
                 const long long* __restrict__ split_count, const long long nsplit,
                 const Z* __restrict__ part, const unsigned char* __restrict__ part_has,
                 Z* __restrict__ out, unsigned char* __restrict__ present) {
    __shared__ Z s_acc[8];
    __shared__ bool s_has[8];
    const long long w = blockIdx.x;
    const int l = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long first = split_first[w], count = split_count[w];
    bool has = false;
    Z acc = (Z)0;
    for (long long k = threadIdx.x; k < count; k += 256)
        if (part_has[first + k]) fold(has, acc, part[first + k]);
    group_fold<32>(has, acc);
    if (l == 0) {
        s_has[warp] = has;
        s_acc[warp] = acc;
    }
    __syncthreads();
    if (warp == 0) {  // (the whole warp: group_fold shuffles over all 32 lanes)
        has = l < 8 && s_has[l];
        acc = has ? s_acc[l] : (Z)0;
        group_fold<8>(has, acc);
        if (l == 0) {
            present[split_row[w]] = has;
            if (has) out[split_row[w]] = acc;
        }
    }
}
"""


_FEW = r"""
// B full with R rows (few) of ``width`` entries, stored row after row (entry (r, k) at
// r * width + k): T(r) = ⊕_k B(r,k) ⊗ u(k) for every row in one pass over u. A thread folds
// 16 consecutive k at a time (u's 16 flags in one 16-byte load) into all R rows, a block
// folds its threads, and the last block to finish (a ticket) folds the blocks' results: one
// launch, in the same order every run (so a float result is the same on every run).
#define R ${R}
#define VEC_FEW ${VEC_FEW}
// a load past L1 of any value type (__ldcg has no bool overload)
template <int S> struct RawWord {};
template <> struct RawWord<1> { typedef unsigned char T; };
template <> struct RawWord<2> { typedef unsigned short T; };
template <> struct RawWord<4> { typedef unsigned int T; };
template <> struct RawWord<8> { typedef unsigned long long T; };
template <typename T>
__device__ __forceinline__ T load_l2(const T* p) {
    typedef typename RawWord<sizeof(T)>::T U;
    union { U u; T v; } x;
    x.u = __ldcg(reinterpret_cast<const U*>(p));
    return x.v;
}
// the block's fold of each of the R rows: lane 0 of each warp leaves its warp's fold in
// shared memory, and thread r < R folds row r's in warp order into (h, a) (every thread of
// the block must call this)
__device__ __forceinline__ void block_fold_rows(bool (&has)[R], Z (&acc)[R],
                                                bool (&s_has)[8][R], Z (&s_acc)[8][R],
                                                bool& h, Z& a) {
    const int l = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int r = 0; r < R; ++r) {
        group_fold<32>(has[r], acc[r]);
        if (l == 0) {
            s_has[warp][r] = has[r];
            s_acc[warp][r] = acc[r];
        }
    }
    __syncthreads();
    h = false;
    a = (Z)0;
    if (threadIdx.x < R)
        for (int w = 0; w < 8; ++w)
            if (s_has[w][threadIdx.x]) fold(h, a, s_acc[w][threadIdx.x]);
}

extern "C" __global__ void __launch_bounds__(256)
spmv_few(const long long width, const TA* __restrict__ ax, const TA a_iso,
         const TU* __restrict__ ux, const unsigned char* __restrict__ umap, const TU u_iso,
         const int u_full, const unsigned char* __restrict__ mmap, const TM* __restrict__ mval,
         Z* __restrict__ out, unsigned char* __restrict__ present, Z* part,
         unsigned char* part_has, unsigned int* ticket) {
    __shared__ Z s_acc[8][R];
    __shared__ bool s_has[8][R];
    bool has[R], on[R];
    Z acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        has[r] = false;
        acc[r] = (Z)0;
        on[r] = allowed(mmap, mval, r);
    }
    const long long stride = 16LL * gridDim.x * blockDim.x;
    const bool words = ((size_t)umap & 15) == 0;
    // B's rows start 16-byte aligned: its values are read 4 at a time
    const bool vec = VEC_FEW && ((size_t)ax & 15) == 0 && (width * sizeof(TA)) % 16 == 0;
    for (long long k0 = 16LL * ((long long)blockIdx.x * blockDim.x + threadIdx.x); k0 < width;
         k0 += stride) {
        union { uint4 w; unsigned char b[16]; } f;
        if (u_full) {
#pragma unroll
            for (int i = 0; i < 16; ++i) f.b[i] = k0 + i < width;
        } else if (words && k0 + 16 <= width) {
            f.w = *reinterpret_cast<const uint4*>(umap + k0);
        } else {
#pragma unroll
            for (int i = 0; i < 16; ++i) f.b[i] = (k0 + i < width) ? umap[k0 + i] : 0;
        }
        // 4 entries at a time: B's values (a 16-byte load a row where aligned) only where u
        // has one of them, every load of the 4 issued before any is used
#pragma unroll
        for (int g = 0; g < 4; ++g) {
            const unsigned int fg = (&f.w.x)[g];
            if (!fg) continue;
            const long long k4 = k0 + 4 * g;
#if READ_A
            TA a4[R][4];
#pragma unroll
            for (int r = 0; r < R; ++r) {
                if (vec && k4 + 4 <= width) {
                    load4(ax + r * width, (POS)(k4 >> 2), (POS)width, a4[r]);
                } else {
#pragma unroll
                    for (int i = 0; i < 4; ++i) a4[r][i] = k4 + i < width ? ax[r * width + k4 + i] : (TA)0;
                }
            }
#endif
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                if (((fg >> (8 * i)) & 0xFFu) == 0) continue;
#if READ_U
                const X uv = cast_u(ux[k4 + i]);
#else
                const X uv = cast_u(u_iso);
#endif
#pragma unroll
                for (int r = 0; r < R; ++r) {
#if READ_A
                    const X av = cast_a(a4[r][i]);
#else
                    const X av = cast_a(a_iso);
#endif
                    if (on[r]) fold(has[r], acc[r], product(av, uv, r, k4 + i));
                }
            }
        }
    }
    bool h;
    Z a;
    block_fold_rows(has, acc, s_has, s_acc, h, a);
    if (threadIdx.x < R) {  // the block's result, published before its ticket is taken
        part[(long long)blockIdx.x * R + threadIdx.x] = a;
        part_has[(long long)blockIdx.x * R + threadIdx.x] = h;
    }
    if (!last_block_to_finish(ticket)) return;
    // the last block folds every block's result: thread t those of blocks t, t + 256, ...
    // (read past L1, which holds none of them, all loads issued before any is used), then
    // its warps and the block in order
#pragma unroll
    for (int r = 0; r < R; ++r) {
        has[r] = false;
        acc[r] = (Z)0;
    }
    for (long long b0 = threadIdx.x; b0 < gridDim.x; b0 += 4 * blockDim.x) {
        unsigned char ph[4][R];
        Z pv[4][R];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const long long b = b0 + j * blockDim.x;
#pragma unroll
            for (int r = 0; r < R; ++r) {
                ph[j][r] = b < gridDim.x ? load_l2(part_has + b * R + r) : 0;
                pv[j][r] = b < gridDim.x ? load_l2(part + b * R + r) : (Z)0;
            }
        }
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int r = 0; r < R; ++r)
                if (ph[j][r]) fold(has[r], acc[r], pv[j][r]);
    }
    block_fold_rows(has, acc, s_has, s_acc, h, a);
    if (threadIdx.x < R) {
        present[threadIdx.x] = h;
        if (h) out[threadIdx.x] = a;
    }
    if (threadIdx.x == 0) *ticket = 0u;  // (for the next launch on the stream)
}
"""


class _PullSetup(NamedTuple):
    """What a pull launches for one B, one kind of u and mask and one product: decided once
    and kept with B's plans (:func:`_pull_setup`)."""
    fn: Any          # the module's kernels
    stream: bool     # spmv_stream, else spmv_rows and spmv_items
    plan: dict
    scalars: tuple   # (full width, B's iso, u's iso, u full, nnz, terminal) as kernel arguments


def _pull_setup(B, u, prod, mask, plan_cache):
    """The kernels, plan and scalar arguments of a pull, memoised per B (its arrays' addresses),
    product, operand types, iso values and mask kind in ``plan_cache``: the decisions and
    lookups below cost more host time than the launch, which on a single call the device
    waits for."""
    key = None
    if plan_cache is not None and plans.keyable(B.iso) and plans.keyable(u.iso):
        mkind = None if mask is None else (
            None if mask.values is None else mask.values.dtype, mask.complement,
            mask.rows is None)
        key = (prod, int(B.ptr.data.ptr), len(B.ptr), int(B.idx.data.ptr), len(B.idx),
               None if B.values is None else int(B.values.data.ptr), B.dtype, B.full_width,
               type(B.iso), B.iso, u.dtype, u.values is None, type(u.iso), u.iso, u.full,
               mkind, plans.WIDTH_OVERRIDE)
        setups = plan_cache.get("pull_setups")
        if setups is None or len(setups) > 64:  # (distinct iso values: keep it bounded)
            setups = plan_cache["pull_setups"] = {}
        found = setups.get(key)
        if found is not None:
            return found
    n, nnz = len(B.ptr) - 1, len(B.idx)
    tout = prod.tout
    implicit = B.full_width > 0
    stream = plans.streams(prod, u, mask) and not implicit  # (the stream kernel reads idx)
    stops = plans.stops_often(prod)
    width = plans.WIDTH_OVERRIDE or (
        plans.STOP_WIDTH if stops else plans.vector_width(nnz / n))
    plan = plans.row_plan(B.ptr, nnz, plan_cache, stream,
                          plans.STOP_SHORT_PASSES if stops else plans.SHORT_PASSES, width)
    v = 0 if stream else plan["v"]
    vec = aligned(B.idx, B.values)
    # 32-bit positions while 4 * (nnz / 4 + 1) fits, with room for the vector tail
    pos_type = np.int32 if nnz < 2**31 - 64 else np.int64
    variant = f"stream{plans.STREAM_HALF}" if stream else f"pull_V{v}x{plans.UNROLL}"
    read_a, read_u = B.values is not None, u.values is not None
    module_key = kernel_key("spmv", variant + ("_vec16" if vec else ""), prod, B.dtype,
                            u.dtype, B.idx.dtype, mask, read_a, read_u,
                            extra=(("pos", np.dtype(pos_type).name),
                                   ("idx", "implicit" if implicit else "stored")))

    def build():
        # a terminal seldom reached (float MIN/MAX, wide integers) is not tested for: a test
        # after each entry would make a lane wait for each of its lookups of u in turn
        return (operand_source(prod, B.dtype, u.dtype, B.idx.dtype, mask, read_a, read_u,
                               early_stop=stops)
                + Template(_PULL).substitute(V=v or 2, VEC=int(vec), IMPLICIT=int(implicit),
                                             UNROLL=plans.UNROLL, POS=c_index_type(pos_type),
                                             STREAM_HALF=plans.STREAM_HALF))

    fn = get_functions(module_key, build, _PULL_KERNELS)
    _, term = prod.stop
    term = tout.np_type.type(0) if term is None else tout.np_type.type(term)
    scalars = (np.int64(B.full_width), scalar_arg(B.iso, B.dtype), scalar_arg(u.iso, u.dtype),
               np.int32(bool(u.full)), np.int64(nnz), term)
    setup = _PullSetup(fn, stream, plan, scalars)
    if key is not None:
        setups[key] = setup
    return setup


def _pull_cuda(B, u, prod, mask, plan_cache):
    n = len(B.ptr) - 1
    rows = mask.rows if mask is not None else None
    out = xp.empty(n, dtype=prod.tout.np_type)
    present = (xp.zeros if rows is not None else xp.empty)(n, dtype=bool)
    if n == 0:
        return "dense", out, present
    if B.full_width > 0 and n <= plans.FEW_ROWS:
        return _few_rows_cuda(B, u, prod, mask, plan_cache, out, present)
    fn, stream, plan, scalars = _pull_setup(B, u, prod, mask, plan_cache)
    part, part_has = plans.partials(plan, prod.tout)   # (the thread's own: a setup is shared)
    full_width, b_iso, u_iso, u_full, nnz, term = scalars
    d = dummy()
    operands = (B.idx, full_width, d if B.values is None else B.values, b_iso,
                d if u.values is None else u.values, u.bitmap, u_iso, u_full,
                d if mask is None else mask.bitmap,
                d if (mask is None or mask.values is None) else mask.values,
                nnz, term, out, present)
    nitems = len(plan["item_row"])
    items = (plan["item_row"], plan["item_begin"], plan["item_end"], plan["item_alone"],
             np.int64(nitems), part, part_has)
    if stream:  # the long rows' items in the first blocks of the same launch
        nblocks = (nitems + 7) // 8 + len(plan["block_rows"]) - 1
        fn["spmv_stream"]((nblocks,), (THREADS,), (B.ptr, plan["block_rows"], *items, *operands))
    else:
        nwork = n if rows is None else len(rows)
        if nwork:
            fn["spmv_rows"](
                strided_grid(nwork), (THREADS,),
                (B.ptr, rows if rows is not None else d, np.int32(rows is not None),
                 np.int64(nwork), np.int64(plan["short_max"]), *operands))
        if nitems:
            fn["spmv_items"](strided_grid(nitems * 32), (THREADS,), (*items, *operands))
    nsplit = len(plan["split_row"])
    if nsplit:
        wide = plan["finish_wide"]
        fn["spmv_finish_wide" if wide else "spmv_finish"](
            (nsplit,) if wide else grid(nsplit * 32), (THREADS,),
            (plan["split_row"], plan["split_first"], plan["split_count"], np.int64(nsplit),
             part, part_has, out, present))
    return "dense", out, present


_PULL_KERNELS = ("spmv_rows", "spmv_items", "spmv_stream", "spmv_finish", "spmv_finish_wide")


def _few_rows_cuda(B, u, prod, mask, plan_cache, out, present):
    """A full B of at most plans.FEW_ROWS rows: one spmv_few launch (see _FEW)."""
    n, width = len(B.ptr) - 1, B.full_width
    read_a, read_u = B.values is not None, u.values is not None
    # (4-byte types and wider: a 16-byte load takes 4 values; bool needs no vector loads)
    vec = read_a and B.dtype.np_type.itemsize >= 4
    key = kernel_key("spmv", f"few{n}" + ("_vec16" if vec else ""), prod, B.dtype, u.dtype,
                     B.idx.dtype, mask, read_a, read_u)

    def build():
        return (operand_source(prod, B.dtype, u.dtype, B.idx.dtype, mask, read_a, read_u)
                + Template(_PULL).substitute(V=2, VEC=int(vec), IMPLICIT=1, UNROLL=plans.UNROLL,
                                             POS="long long", STREAM_HALF=plans.STREAM_HALF)
                + Template(_FEW).substitute(R=n, VEC_FEW=int(vec)))

    fn = get_functions(key, build, ("spmv_few",))
    nblocks = max(1, min(-(-width // (16 * THREADS)), plans.FEW_BLOCKS_PER_SM * sm_count()))
    part, part_has, ticket = plans.few_scratch(plan_cache, B, n, nblocks, prod.tout)
    d = dummy()
    fn["spmv_few"]((nblocks,), (THREADS,), (
        np.int64(width), B.values if read_a else d, scalar_arg(B.iso, B.dtype),
        u.values if read_u else d, u.bitmap, scalar_arg(u.iso, u.dtype), np.int32(bool(u.full)),
        mask.bitmap if mask is not None else d,
        mask.values if (mask is not None and mask.values is not None) else d,
        out, present, part, part_has, ticket))
    return "dense", out, present


# ---------------------------------------------------------------- entry point
def pull(B, u, prod, mask=None, plan_cache=None):
    """T = B ⊕.⊗ u over B's rows (see the module docstring). Returns ('dense', values,
    bitmap) or ('sparse', indices, values). ``plan_cache``: a dict living as long as B's
    structure (the Matrix's cache), where the row plan is kept."""
    if backend.is_gpu:
        return _pull_cuda(B, u, prod, mask, plan_cache)
    return _pull_numpy(B, u, prod, mask, plan_cache)
