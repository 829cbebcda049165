"""Pull SpMV: T = B ⊕.⊗ u for a dense u, one output row at a time.

    T(i) = ⊕_{k : B(i,k), u(k) present} B(i,k) ⊗ u(k)      (``matrix_first``: mxv)
    T(i) = ⊕_k u(k) ⊗ B(i,k)                               (otherwise: vxm, B = Aᵀ)

B arrives as a :class:`Compressed` operand (the CSR of A, or A's cached CSC when B = Aᵀ),
u as a :class:`DenseOperand` (values + bitmap), the mask as a :class:`DenseMask`. Values are
cast to the semiring's input type inside the product (SuiteSparse's casts: float -> int
saturates, NaN -> 0). T holds entries only where the mask allows (``t_is_masked``).

NumPy: a vectorised gather of the allowed rows' entries, the products through the
multiply's NumPy function, then ``segment_reduce`` per row.

CuPy: kernels from one template (``_PULL``, and ``_FEW`` for full B of a few rows), after the
common prelude of ``cuda_common.header``. An unmasked product over a full u whose monoid
seldom reaches its terminal value (plus, float min/max, ...) takes ``spmv_stream``; the
others take ``spmv_rows`` (which skips excluded rows and stops early) and ``spmv_items``:

* ``spmv_stream``: a block per stretch of STREAM_HALF entries takes the rows starting in it
  (at most 2 * STREAM_HALF entries), reads them with coalesced 16-byte loads, computes every
  product at once into shared memory (the same work for every thread however the rows fall)
  and folds each row with one thread. Rows longer than STREAM_HALF are warp items (below),
  run by the first blocks of the same launch. At scale 22 this matches cuSPARSE's csr @ x
  (the row kernel was 1.07-1.10x it): both are bound by the random gathers of u.

* ``spmv_rows``: a warp tests 32 rows at once (the mask, then the row's length: an
  excluded or empty row costs one lane one step) and folds those with entries V lanes a
  row (V from the average row length, :func:`vector_width`; one lane where ⊕ stops often),
  rows longer than ``short_max`` left to the next two. Each lane reads 16-byte vectors of
  column indices and values with streaming (evict-first) loads, so that u, which every row
  gathers from, stays in L2; values are not read at all when iso or when ⊗ ignores them
  (pair, first, second), u's only where u has the entry. The lanes of a row vote after each
  pass and stop once ⊕ reached its terminal value (ANY at the first entry found; a lane
  that may stop looks its entries up one at a time). Positions are 32-bit when nnz allows
  (32 registers).
* ``spmv_items`` / ``spmv_finish``: long rows cut into chunks of ``LONG_CHUNK`` entries, one
  warp per chunk, partial results folded by a warp per split row (a block where some row
  has over FINISH_WIDE chunks). This keeps power-law
  rows (R-MAT hubs of 10^5 entries) from serialising on one warp. The chunk list is a
  property of B's row pointers, built once and cached (``plan_cache``).

* ``spmv_few``: a full B of at most FEW_ROWS rows (a skinny product such as a BFS's frontier
  count, the frontier times [deg 1]): one launch reads u once for every row, its blocks'
  results folded by the last block to finish.

The result is dense: values and a presence bitmap of length nrows (every row written once).
"""
import threading
from string import Template
from typing import Any, NamedTuple, Optional

import numpy as np

from .. import backend
from ..types import cast, cast_scalar, lookup_dtype
from .cache import KernelKey, get_functions
from .cuda_common import c_cast, c_index_type, header
from .launch import THREADS, grid, sm_count, strided_grid
from .segment import segment_reduce

xp = backend.xp

__all__ = ["Compressed", "DenseOperand", "SparseOperand", "DenseMask", "Product", "pull",
           "vector_width", "allowed_rows"]

# Tuning, measured on an H100 with R-MAT scale 22 (benchmarks.cases_mxv, case tune; 128M
# entries, average row 31): a lane reads UNROLL vectors of 4 entries per pass; a row of up to
# SHORT_PASSES passes stays with its V lanes. V=2 (1.24 ms plus_times) < V=4 (1.27-1.30) <
# V=8 (1.30-1.35); UNROLL=2 was 5-15% slower (registers: occupancy); 32-bit positions keep
# the kernels at 32 registers (full occupancy). The time is bound by the random gathers of
# u: one 32-byte L2 sector per 4-byte value, about 4 GB of L2 traffic per product.
UNROLL = 1
SHORT_PASSES = 4
# where the fold stops early most of the time (ANY; a BFS pull), a row of up to this many
# passes stays with its V lanes: most rows stop in their first pass, and a warp per row
# (an item) spent its time being scheduled. BFS at scale 22: 4 passes 4.45 ms, 16 4.38,
# 32 4.05, 64 3.96, 128 4.04.
STOP_SHORT_PASSES = 128  # (64 with 2 lanes a row: rows of up to 512 entries either way)
# lanes per row there: a lane looks its entries up one at a time until one is found, so one
# lane per row reads one L2 sector where most rows stop at their first entry (any_pair over
# a 50% bitmap at scale 22, H200: 1 lane 180 µs, 2 lanes 198, 4 lanes 239; BFS the same)
STOP_WIDTH = 1
# entries per warp item for longer rows (32 lanes x 4 entries x 16 passes; 4 passes of 4
# vectors a lane over a full matrix, ITEM_UNROLL)
LONG_CHUNK = 2048
# rows of more items than this have their partial results folded by a block, not a warp
FINISH_WIDE = 256
# the stream kernel (unmasked products without a reachable terminal): a block reads the rows
# starting in a stretch of STREAM_HALF entries (at most twice that many entries, kept in
# shared memory) and at most STREAM_ROWS rows; longer rows are warp items
STREAM_HALF = 1024
STREAM_ROWS = 2048
# a full B of at most this many rows (a skinny product: a BFS's frontier count over [deg 1])
# takes spmv_few, one pass over u for all its rows
FEW_ROWS = 4
FEW_BLOCKS_PER_SM = 4  # its grid: a thread folds 16 entries a step
# a non-complemented mask with at most this fraction of allowed rows is walked as a row list
ROWLIST_MAX_DENSITY = 1 / 32
_WIDTH_OVERRIDE = None  # benchmarks may force V


class Compressed(NamedTuple):
    """B by rows (pull) or by columns (push): vector v spans idx[ptr[v]:ptr[v+1]].
    ``values`` None: every value is ``iso`` (iso or structure-only B, or values ⊗ ignores)."""
    ptr: Any
    idx: Any
    values: Any
    iso: Any
    dtype: Any  # DataType of values / iso
    full_width: int = 0  # > 0: B is full, every vector holds this many entries, idx[p] is
    #                      p's offset in its vector (pull computes it and never reads idx)


class DenseOperand(NamedTuple):
    values: Any   # length size, garbage where absent; None: every value is iso
    bitmap: Any   # bool, length size
    iso: Any
    dtype: Any
    full: bool    # every entry present: the bitmap need not be read


class SparseOperand(NamedTuple):
    indices: Any  # int32 or int64, sorted
    values: Any   # None: iso
    iso: Any
    dtype: Any


class DenseMask(NamedTuple):
    """Output i is allowed iff (bitmap[i] and (structure or values[i] != 0)) != complement.
    ``rows``: the allowed outputs as a sorted int64 list, when the caller has it cheaply."""
    bitmap: Any
    values: Any   # None for a structural mask
    complement: bool
    rows: Optional[Any] = None


class Product(NamedTuple):
    """What ⊗ and ⊕ need: the typed semiring and which operand is the matrix."""
    semiring: Any        # semirings.Typed
    matrix_first: bool   # mxv: A(i,k) ⊗ u(k); vxm: u(k) ⊗ A(k,j)

    @property
    def tin(self):
        return self.semiring.type

    @property
    def tout(self):
        return self.semiring.out_type

    @property
    def reads(self):
        """(reads the matrix's values, reads the vector's values): pair reads neither, first
        only x, second and any (which returns y) only y."""
        if self.positional:
            return False, False
        name = self.semiring.op.multiply.name
        rx, ry = name not in ("pair", "second", "any"), name not in ("pair", "first")
        return (rx, ry) if self.matrix_first else (ry, rx)

    @property
    def positional(self):
        """⊗ is an index of the term (firsti, secondj, ...), not a function of values."""
        return self.semiring.op.multiply.positional

    @property
    def stop(self):
        """('any', None), ('value', terminal) or (None, None): when a fold may stop early.
        fmin/fmax (min and max on floats) have no terminal in SuiteSparse, but -inf/+inf
        absorb them (NaN loses to any number), so a row may stop there too."""
        mon = self.semiring.monoid
        if mon.op.all_terminal:
            return "any", None
        term = mon.terminal
        if term is None and self.tout.is_float and mon.op.name in ("min", "max"):
            term = self.tout.np_type.type(-np.inf if mon.op.name == "min" else np.inf)
        return ("value", term) if term is not None else (None, None)


def vector_width(avg_len):
    """Lanes per row: the smallest power of two (2..32) whose lanes cover an average row in
    SHORT_PASSES passes (narrow groups waste fewer lanes on the many short rows of a
    power-law graph; rows above the average go to whole warps)."""
    v = 2
    while v < 32 and SHORT_PASSES * 4 * UNROLL * v < avg_len:
        v *= 2
    return v


def allowed_rows(mask, n):
    """The mask as a bool array of length n (True: the output may hold an entry)."""
    m = mask.bitmap.astype(bool, copy=False)
    if mask.values is not None:
        m = m & (mask.values != 0)
    return ~m if mask.complement else m


# ---------------------------------------------------------------- NumPy
def operand_values(op, where, tin):
    """op's values at positions ``where``, cast to tin (zeros for values ⊗ does not read)."""
    if op.values is None:
        iso = 0 if op.iso is None else op.iso
        return xp.full(len(where), cast_scalar(iso, tin), dtype=tin.np_type)
    return cast(op.values[where], tin, xp)


def apply_product(prod, a, x, o, k):
    """⊗ over matched operand arrays (a: matrix values, x: vector values; o: the output's
    index of each term, k: its inner index), in T's type."""
    mult = prod.semiring.op.multiply
    if mult.positional:  # mxv: A(o,k) ⊗ u(k), the term (i, k, j) = (o, k, 0); vxm: (0, k, o)
        zero = xp.zeros_like(k)
        z = mult.positions(o, k, zero) if prod.matrix_first else mult.positions(zero, k, o)
        return cast(z, prod.tout, xp)
    fn = mult.numpy
    z = fn(a, x) if prod.matrix_first else fn(x, a)
    z = xp.asarray(z)
    if z.shape != a.shape:
        z = xp.broadcast_to(z, a.shape)
    return cast(z, prod.tout, xp)


def expand(ptr, vecs):
    """Positions of the entries of vectors ``vecs`` of a compressed operand, in order, and
    for each, the index into ``vecs`` it belongs to (a vectorised CSR row expansion)."""
    starts = ptr[vecs].astype(np.int64)
    lens = ptr[vecs + 1].astype(np.int64) - starts
    owner = xp.repeat(xp.arange(len(vecs)), lens)
    first = xp.cumsum(lens) - lens
    pos = xp.arange(len(owner)) - first[owner] + starts[owner]
    return pos, owner


def fold_sorted(keys, vals, prod):
    """(unique keys, ⊕ of each run of equal keys): keys sorted."""
    if len(keys) == 0:
        return keys, vals
    brk = xp.nonzero(keys[1:] != keys[:-1])[0] + 1
    starts = xp.concatenate([xp.zeros(1, dtype=brk.dtype), brk])
    monoid = prod.semiring.monoid.op
    if monoid.all_terminal:  # ANY: every candidate is a right answer; take the first
        return keys[starts], vals[starts]
    return keys[starts], segment_reduce(vals, starts, monoid, prod.tout)


def _pull_numpy(B, u, prod, mask):
    n = len(B.ptr) - 1
    rows = xp.arange(n) if mask is None else xp.nonzero(allowed_rows(mask, n))[0]
    pos, owner = expand(B.ptr, rows)
    j = B.idx[pos]
    if not u.full:
        keep = u.bitmap[j]
        pos, owner, j = pos[keep], owner[keep], j[keep]
    z = apply_product(prod, operand_values(B, pos, prod.tin), operand_values(u, j, prod.tin),
                      rows[owner], j)
    out_rows, vals = fold_sorted(rows[owner], z, prod)
    return "sparse", out_rows.astype(np.int64), vals


# ---------------------------------------------------------------- CUDA source
_OPERANDS = r"""
typedef ${TA} TA;   // B's stored value type
typedef ${TU} TU;   // u's stored value type
typedef ${TM} TM;   // the mask's value type
#define MATRIX_FIRST ${MATRIX_FIRST}
#define READ_A ${READ_A}
#define READ_U ${READ_U}
#define MASK ${MASK}            // 0 none, 1 structural, 2 by value
#define MASK_COMP ${MASK_COMP}
#define STOP ${STOP}            // 0 never, 1 once the fold equals term, 2 at the first entry

__device__ __forceinline__ X cast_a(TA v) { return ${CAST_A}; }
__device__ __forceinline__ X cast_u(TU v) { return ${CAST_U}; }
// B's entry (o, k) times u(k), o being the output's index: A(o,k) ⊗ u(k) in mxv (j = 0),
// u(k) ⊗ A(k,o) in vxm (i = 0)
__device__ __forceinline__ Z product(X a, X u, long long o, long long k) {
#if MATRIX_FIRST
    return mult_op(a, u, o, k, 0);
#else
    return mult_op(u, a, 0, k, o);
#endif
}
__device__ __forceinline__ void fold(bool& has, Z& acc, Z v) {
    acc = has ? add_op(acc, v) : v;
    has = true;
}
__device__ __forceinline__ bool allowed(const unsigned char* __restrict__ mmap,
                                        const TM* __restrict__ mval, long long i) {
#if MASK == 0
    return true;
#elif MASK == 1
    return (mmap[i] != 0) != (bool)MASK_COMP;
#else
    return (mmap[i] != 0 && mval[i] != (TM)0) != (bool)MASK_COMP;
#endif
}
__device__ __forceinline__ bool reached(bool has, Z acc, Z term) {
#if STOP == 2
    return has;
#elif STOP == 1
    return has && acc == term;
#else
    return false;
#endif
}
"""

_PULL = r"""
#define V ${V}
#define VEC ${VEC}   // index and value arrays are 16-byte aligned: vector loads
#define IMPLICIT ${IMPLICIT}  // B full: an entry's index is its offset in its vector

#define UNROLL ${UNROLL}  // vectors each lane loads before it uses any
// a long row's item over a full matrix loads u's flags 16 bytes a lane before it tests any
// (a BFS frontier's count over [deg 1], two rows of n: 19 -> 12-18 µs at scale 22)
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
// excluded or empty row costs one lane one step (a V-lane group per row, as this kernel had,
// spent a BFS's late pull levels, where the mask excludes most rows and most of the rest
// are empty, on rows it did not read: 100 µs for a level finding 3 vertices). Rows longer
// than short_max are left to spmv_items. A grid of a few blocks per multiprocessor strides
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
// row has 2048: a warp folding them took 12-16 µs)
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
// launch, in the same order every run (a BFS's frontier count over [deg 1] took three: a
// row kernel with nothing to do, warp items over the two long rows, and their fold).
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


def operand_source(prod, ta, tu, ia, mask, read_a, read_u):
    """The prelude (cuda_common.header) plus the operand casts, ⊗ in mxv or vxm order, the
    mask test and the stop rule shared by the pull and push kernels."""
    sr = prod.semiring
    stop, _ = prod.stop
    mon = sr.monoid
    pre = header(ia=ia, ib=np.int64, x=prod.tin, z=prod.tout, mult_c=sr.multiply.c(),
                 add_c=mon.c(), any_monoid=mon.op.all_terminal,
                 plus=mon.op.name == "plus")
    tm = mask.values.dtype if (mask is not None and mask.values is not None) else np.uint8
    ops = Template(_OPERANDS).substitute(
        TA=ta.c_type, TU=tu.c_type, TM=_c_value_type(tm), MATRIX_FIRST=int(prod.matrix_first),
        READ_A=int(read_a), READ_U=int(read_u), MASK=_mask_kind(mask),
        MASK_COMP=int(bool(mask is not None and mask.complement)),
        STOP={None: 0, "value": 1, "any": 2}[stop],
        CAST_A=c_cast(ta, prod.tin), CAST_U=c_cast(tu, prod.tin))
    return pre + ops


def _c_value_type(np_dtype):
    return lookup_dtype(np.dtype(np_dtype)).c_type


def _mask_kind(mask):
    if mask is None:
        return 0
    return 1 if mask.values is None else 2


def kernel_key(family, variant, prod, ta, tu, ia, mask, read_a, read_u, extra=()):
    """A printable description of one specialisation (KernelKey), built once per distinct
    argument set (a product's host time is otherwise mostly spent here)."""
    mvals = None if mask is None or mask.values is None else np.dtype(mask.values.dtype)
    memo = (family, variant, prod, ta, tu, np.dtype(ia), _mask_kind(mask), mvals,
            mask is not None and mask.complement, read_a, read_u, extra)
    key = _keys.get(memo)
    if key is None:
        key = _keys[memo] = _kernel_key(family, variant, prod, ta, tu, ia, mask, read_a,
                                        read_u, extra)
    return key


_keys = {}  # (threads: get-then-set; two may both make a value, equal, either kept)


def _kernel_key(family, variant, prod, ta, tu, ia, mask, read_a, read_u, extra):
    sr = prod.semiring
    mk = ("none", "struct", "value")[_mask_kind(mask)]
    if _mask_kind(mask) == 2:  # the source reads the mask's values as their own type (TM)
        mk += ":" + np.dtype(mask.values.dtype).name
    if mask is not None and mask.complement:
        mk = "~" + mk
    return KernelKey(family, variant, (sr.op.monoid.name, sr.op.multiply.name),
                     (ta.name, tu.name, prod.tin.name, prod.tout.name, np.dtype(ia).name),
                     (("order", "mxv" if prod.matrix_first else "vxm"), ("mask", mk),
                      ("a", "values" if read_a else "iso"), ("u", "values" if read_u else "iso"),
                      ("stop", str(prod.stop[0])), *extra))


_dummies = {}  # (threads: get-then-set; two may both make a value, equal, either kept)


def dummy():
    """A small device array passed where a kernel takes a pointer it will not read."""
    d = _dummies.get("u8")
    if d is None:
        d = _dummies["u8"] = xp.zeros(16, dtype=np.uint8)
    return d


def _aligned(*arrays):
    return all(a is None or a.data.ptr % (4 * a.itemsize) == 0 for a in arrays)


def _plan(ptr, nnz, plan_cache, stream, passes, width):
    """How B's rows are worked, cached per row-pointer array: for the row kernel, ``width``
    lanes per row up to short_max entries (``passes`` passes); for the stream kernel, the row ranges
    of its blocks (``block_rows``) up to STREAM_HALF entries a row; longer rows as warp
    items either way."""
    n = len(ptr) - 1
    # the cache is the matrix's, which serves both its CSR (mxv) and its CSC (vxm): the key
    # names the pointer array the plan was built from, so one never reuses the other's plan
    key = ("spmv_plan", int(ptr.data.ptr), n, stream, width, UNROLL, passes, LONG_CHUNK,
           STREAM_HALF, STREAM_ROWS)
    plan = plan_cache.get(key) if plan_cache is not None else None
    if plan is not None:
        return plan
    lens = (ptr[1:] - ptr[:-1]).astype(np.int64)
    if stream:
        # a block takes the rows starting in one stretch of STREAM_HALF entries, and at most
        # STREAM_ROWS rows (runs of empty rows); split points may repeat (empty blocks)
        stretch = xp.arange(nnz // STREAM_HALF + 2, dtype=np.int64) * STREAM_HALF
        cuts = xp.concatenate([xp.searchsorted(ptr[:n], stretch, side="left"),
                               xp.arange(0, n, STREAM_ROWS, dtype=np.int64)])
        plan = dict(block_rows=xp.sort(cuts.astype(np.int64)),
                    **_long_items(ptr, lens, STREAM_HALF))
    else:
        short_max = passes * 4 * UNROLL * width
        plan = dict(v=width, short_max=short_max, **_long_items(ptr, lens, short_max))
    if plan_cache is not None:
        plan_cache[key] = plan
    return plan


def _long_items(ptr, lens, short_max):
    """The rows longer than short_max cut into items of LONG_CHUNK entries (a warp each), and
    the rows of several items with where their partial results lie."""
    long_rows = xp.nonzero(lens > short_max)[0].astype(np.int64)
    nchunks = (lens[long_rows] + LONG_CHUNK - 1) // LONG_CHUNK
    first = xp.cumsum(nchunks) - nchunks
    item_row = xp.repeat(long_rows, nchunks)
    k_in_row = xp.arange(len(item_row), dtype=np.int64) - xp.repeat(first, nchunks)
    item_begin = ptr[item_row].astype(np.int64) + k_in_row * LONG_CHUNK
    item_end = xp.minimum(item_begin + LONG_CHUNK, ptr[item_row + 1].astype(np.int64))
    split = nchunks > 1
    # a block per split row where some row has many items, else a warp (one read, once per
    # plan)
    wide = bool(len(nchunks) and backend.to_scalar(nchunks.max()) > FINISH_WIDE)
    return dict(item_row=item_row, item_begin=item_begin, item_end=item_end,
                item_alone=xp.repeat(nchunks == 1, nchunks), split_row=long_rows[split],
                split_first=first[split], split_count=nchunks[split], finish_wide=wide)


def _stops_often(prod):
    """Rows reach ⊕'s terminal value often: ANY, and terminal values of one-byte types (LOR
    at true, MAX at 255). Float MIN / MAX (terminal ∓inf) and integer ones of wider types
    seldom do."""
    kind, _ = prod.stop
    return kind == "any" or (kind == "value" and prod.tout.np_type.itemsize == 1)


def _streams(prod, u, mask):
    """Whether a pull takes the stream kernel: for a full u (the row kernel reads a bitmap as
    fast), not under a mask (the row kernel skips the excluded rows' entries unread), nor
    where stopping early pays."""
    return u.full and mask is None and not _stops_often(prod) and not prod.positional


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
    if plan_cache is not None and _keyable(B.iso) and _keyable(u.iso):
        mkind = None if mask is None else (
            None if mask.values is None else mask.values.dtype, mask.complement,
            mask.rows is None)
        key = (prod, int(B.ptr.data.ptr), len(B.ptr), int(B.idx.data.ptr), len(B.idx),
               None if B.values is None else int(B.values.data.ptr), B.dtype, B.full_width,
               type(B.iso), B.iso, u.dtype, u.values is None, type(u.iso), u.iso, u.full,
               mkind, _WIDTH_OVERRIDE)
        setups = plan_cache.get("pull_setups")
        if setups is None or len(setups) > 64:  # (distinct iso values: keep it bounded)
            setups = plan_cache["pull_setups"] = {}
        found = setups.get(key)
        if found is not None:
            return found
    n, nnz = len(B.ptr) - 1, len(B.idx)
    tout = prod.tout
    implicit = B.full_width > 0
    stream = _streams(prod, u, mask) and not implicit  # (the stream kernel reads idx)
    stops = _stops_often(prod)
    width = _WIDTH_OVERRIDE or (STOP_WIDTH if stops else vector_width(nnz / n))
    plan = _plan(B.ptr, nnz, plan_cache, stream, STOP_SHORT_PASSES if stops else SHORT_PASSES,
                 width)
    v = 0 if stream else plan["v"]
    vec = _aligned(B.idx, B.values)
    # 32-bit positions while 4 * (nnz / 4 + 1) fits, with room for the vector tail
    pos_type = np.int32 if nnz < 2**31 - 64 else np.int64
    variant = f"stream{STREAM_HALF}" if stream else f"pull_V{v}x{UNROLL}"
    read_a, read_u = B.values is not None, u.values is not None
    module_key = kernel_key("spmv", variant + ("_vec16" if vec else ""), prod, B.dtype,
                            u.dtype, B.idx.dtype, mask, read_a, read_u,
                            extra=(("pos", np.dtype(pos_type).name),
                                   ("idx", "implicit" if implicit else "stored")))

    def build():
        return (operand_source(prod, B.dtype, u.dtype, B.idx.dtype, mask, read_a, read_u)
                + Template(_PULL).substitute(V=v or 2, VEC=int(vec), IMPLICIT=int(implicit),
                                             UNROLL=UNROLL,
                                             POS=c_index_type(pos_type), STREAM_HALF=STREAM_HALF))

    fn = get_functions(module_key, build, _PULL_KERNELS)
    _, term = prod.stop
    term = tout.np_type.type(0) if term is None else tout.np_type.type(term)
    scalars = (np.int64(B.full_width), scalar_arg(B.iso, B.dtype), scalar_arg(u.iso, u.dtype),
               np.int32(bool(u.full)), np.int64(nnz), term)
    setup = _PullSetup(fn, stream, plan, scalars)
    if key is not None:
        setups[key] = setup
    return setup


def _keyable(iso):
    """An iso value that may key a memo: hashable, and equal only to itself (not a float
    zero, -0.0 == 0.0, nor NaN, NaN != NaN)."""
    if iso is None or isinstance(iso, (bool, int, np.bool_, np.integer)):
        return True
    return isinstance(iso, (float, np.floating)) and iso == iso and iso != 0


def _pull_cuda(B, u, prod, mask, plan_cache):
    n = len(B.ptr) - 1
    rows = mask.rows if mask is not None else None
    out = xp.empty(n, dtype=prod.tout.np_type)
    present = (xp.zeros if rows is not None else xp.empty)(n, dtype=bool)
    if n == 0:
        return "dense", out, present
    if B.full_width > 0 and n <= FEW_ROWS:
        return _few_rows_cuda(B, u, prod, mask, plan_cache, out, present)
    fn, stream, plan, scalars = _pull_setup(B, u, prod, mask, plan_cache)
    part, part_has = _partials(plan, prod.tout)   # (the thread's own: a setup is shared)
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
    """A full B of at most FEW_ROWS rows: one spmv_few launch (see _FEW)."""
    n, width = len(B.ptr) - 1, B.full_width
    read_a, read_u = B.values is not None, u.values is not None
    # (4-byte types and wider: a 16-byte load takes 4 values; bool needs no vector loads)
    vec = read_a and B.dtype.np_type.itemsize >= 4
    key = kernel_key("spmv", f"few{n}" + ("_vec16" if vec else ""), prod, B.dtype, u.dtype,
                     B.idx.dtype, mask, read_a, read_u)

    def build():
        return (operand_source(prod, B.dtype, u.dtype, B.idx.dtype, mask, read_a, read_u)
                + Template(_PULL).substitute(V=2, VEC=int(vec), IMPLICIT=1, UNROLL=UNROLL,
                                             POS="long long", STREAM_HALF=STREAM_HALF)
                + Template(_FEW).substitute(R=n, VEC_FEW=int(vec)))

    fn = get_functions(key, build, ("spmv_few",))
    nblocks = max(1, min(-(-width // (16 * THREADS)), FEW_BLOCKS_PER_SM * sm_count()))
    part, part_has, ticket = _few_scratch(plan_cache, B, n, nblocks, prod.tout)
    d = dummy()
    fn["spmv_few"]((nblocks,), (THREADS,), (
        np.int64(width), B.values if read_a else d, scalar_arg(B.iso, B.dtype),
        u.values if read_u else d, u.bitmap, scalar_arg(u.iso, u.dtype), np.int32(bool(u.full)),
        mask.bitmap if mask is not None else d,
        mask.values if (mask is not None and mask.values is not None) else d,
        out, present, part, part_has, ticket))
    return "dense", out, present


def _few_scratch(plan_cache, B, nrows, nblocks, tout):
    """spmv_few's block results and ticket (zero between launches), kept with B's plans, one
    set per thread (:func:`_per_thread`): a thread's calls run in order on its stream, so
    one set per shape and type serves them all."""
    key = ("few_scratch", int(B.ptr.data.ptr), nrows, nblocks, tout.name)
    return _per_thread(plan_cache, key, lambda: (
        xp.empty(nblocks * nrows, dtype=tout.np_type), xp.empty(nblocks * nrows, dtype=bool),
        xp.zeros(1, dtype=np.uint32)))


def _partials(plan, tout):
    """Scratch for the long rows' partial results, kept with the plan, one buffer per value
    type and thread (:func:`_per_thread`)."""
    nitems = len(plan["item_row"])
    return _per_thread(plan, ("partials", tout.name), lambda: (
        xp.empty(nitems, dtype=tout.np_type), xp.empty(nitems, dtype=bool)))


def _per_thread(cache, key, make):
    """``make()``, kept in ``cache`` (None: not kept) under ``key``, one per thread: device
    scratch that a product writes and reads back in later launches. Products issued by one
    thread run in order (on its current stream), so they may share it; another thread's,
    on another stream or interleaved on the same one, must not. A thread's own is dropped
    with the thread (CuPy then gives its memory only to later work on the same stream)."""
    if cache is None:
        return make()
    local = cache.get(key)
    if local is None:
        local = cache.setdefault(key, threading.local())   # (atomic: one for all threads)
    made = getattr(local, "made", None)
    if made is None:
        made = local.made = make()
    return made


def scalar_arg(value, dtype):
    """``value`` (None: 0) as a kernel's scalar argument of ``dtype``, memoised: a cast costs
    ~3 µs, more than the launch's share of a product over a few thousand entries. A float
    zero or NaN is cast each time (-0.0 == 0.0 and NaN != NaN as keys)."""
    memo = (dtype, type(value), value)
    try:
        arg = _scalar_args.get(memo)
    except TypeError:  # an unhashable value (a 0-d array): cast each time
        return cast_scalar(value, dtype)
    if arg is None:
        arg = dtype.np_type.type(0) if value is None else cast_scalar(value, dtype)
        if not (isinstance(value, (float, np.floating)) and not value) and value == value:
            if len(_scalar_args) > 4096:  # distinct iso values: keep the memo bounded
                _scalar_args.clear()
            _scalar_args[memo] = arg
    return arg


_scalar_args = {}  # (threads: get-then-set; two may both make a value, equal, either kept)


# ---------------------------------------------------------------- entry point
def pull(B, u, prod, mask=None, plan_cache=None):
    """T = B ⊕.⊗ u over B's rows (see the module docstring). Returns ('dense', values,
    bitmap) or ('sparse', indices, values). ``plan_cache``: a dict living as long as B's
    structure (the Matrix's cache), where the row plan is kept."""
    if backend.is_gpu:
        return _pull_cuda(B, u, prod, mask, plan_cache)
    return _pull_numpy(B, u, prod, mask)
