"""Narrow products: T = A ⊕.⊗ B for a B of at most MAX_COLS columns, one row of A at a time
against B held dense (SuiteSparse's dot2 with a bitmap B; a pull with k columns at once).

    T(i,c) = ⊕_{j ∈ A(i,:), B(j,c) present} A(i,j) ⊗ B(j,c)     for the allowed (i, c)

B (k columns) is scattered once into a dense k-wide form: a word per row of B whose bit c
says B(j,c) is present, and the values (the semiring's input type), k per row. Each row of
A is then walked once, its entries looked up in that form, k accumulators at a time. The
mask restricts the work itself (T holds entries only where it allows):

* ``entries`` None: every row, every column.
* allowed (a mask that is not complemented): only the rows of the mask's allowed entries
  (mi, mj, mptr: row-major, row i's in [mptr[i], mptr[i+1])), only their columns. A
  backward step of betweenness then costs the level's rows only.
* complemented: every row, less the columns the mask's entries hold (mi may be None: rows
  are read from mptr); a row whose k columns are all masked is skipped outright (a BFS's
  late levels, as in a pull BFS).

``narrow(a, b, k, mult, mon, entries=None, complement=False)`` -> (indptr, indices, values)
of T, CSR, rows of a.n, columns sorted, at most k entries a row.

NumPy: the dense B as (rows x k) arrays; the visited rows' entries expanded once, then per
column (a loop over the k <= MAX_COLS columns, never over rows) the products kept where B
has the entry and the mask allows, folded per row in entry order (``operands.fold_runs``).

CuPy: ``narrow_scatter`` (a thread per row of B) builds the dense form; ``narrow_rows``
tests 32 rows a warp at a time (one lane a row: its allowed columns from the mask's entries
of that row, then its length), and a ballot hands the rows with work to the whole warp in
turn: lanes over the row's entries (UNROLL loads in flight each), k accumulators per lane in
registers, a presence bit per column; where the monoid has a terminal value the warp votes
after each pass and drops the columns that reached it (ANY: at the first entry), leaving the
row once none is left; then a warp reduction per column. Rows longer than LONG_ROW are
listed instead and folded by ``narrow_long``, a block of 8 warps a row, the warps' folds
combined through shared memory (R-MAT hubs of 10^5 entries would otherwise hold one warp
for the whole launch). The output is a bit word and k values per row (``narrow_counts``, a
scan, ``narrow_fill`` make the CSR; one read of the total), or with an allowed mask a
present flag and a value per mask entry, compacted along the mask's rows (kernels.compact).
"""
from string import Template

import numpy as np

from .. import backend, memory
from ..types import cast
from . import launch
from .cache import KernelKey, get_functions
from .common import expand
from .compact import compact
from .operands import fold_runs
from .cuda_common import c_index_type, header, value_args

xp = backend.xp

__all__ = ["narrow", "source", "MAX_COLS", "UNROLL"]

# a row's allowed and present columns are one 32-bit word, and its k accumulators fit one
# lane's registers: 32 of them for 8-byte types is already a quarter of a lane's budget
MAX_COLS = 32
UNROLL = 4   # CuPy: entries each lane loads before it uses any
# CuPy: a row longer than this is folded by a block of 8 warps (narrow_long) instead of one
# warp: past 16 passes of a warp, an R-MAT hub (10^5 entries) would hold its warp ~800
# passes while the rest of the grid has finished
LONG_ROW = 2048


def narrow(a, b, k, mult, mon, entries=None, complement=False):
    """(indptr int64, indices, values) of T = A ⊕.⊗ B restricted as the module docstring says.
    a: rows of A, b: rows of B (Compressed, values cast to mult.type), k = B's columns."""
    if not 0 < k <= MAX_COLS:
        raise ValueError(f"narrow products take 1..{MAX_COLS} columns, got {k}")
    if backend.is_gpu:
        return _narrow_cuda(a, b, k, mult, mon, entries, complement)
    return _narrow_numpy(a, b, k, mult, mon, entries, complement)


def _reads(mult):
    """(⊗ reads A's values, ⊗ reads B's values)."""
    if mult.op.positional:
        return False, False
    name = mult.op.name
    return name not in ("pair", "second", "any"), name not in ("pair", "first")


# ------------------------------------------------------------------ NumPy
def _narrow_numpy(a, b, k, mult, mon, entries, complement):
    x, z = mult.type, mon.type
    n = a.n
    # B dense: presence and values, k a row
    brow = backend.row_ids(b.ptr, len(b.idx), np.int64)
    bcol = b.idx.astype(np.int64)
    bpres = np.zeros((b.n, k), dtype=bool)
    bpres[brow, bcol] = True
    bval = np.zeros((b.n, k), dtype=x.np_type)
    bval[brow, bcol] = b.values_at(np.arange(len(bcol)), x)
    # the (row, column) pairs the mask allows, and the rows with any
    if entries is None:
        allow, rows = None, np.arange(n)
    else:
        mi, mj, mptr = entries
        if mi is None:
            mi = backend.row_ids(mptr, len(mj), np.int64)
        allow = np.zeros((n, k), dtype=bool)
        allow[mi.astype(np.int64), mj.astype(np.int64)] = True
        if complement:
            allow = ~allow
        rows = np.nonzero(allow.any(axis=1))[0]
    pos, owner = expand(a.ptr, rows)    # the visited rows' entries, row by row
    memory.require(len(pos) * 40, "the narrow product's entries")
    j = a.idx[pos].astype(np.int64)
    out = np.zeros((len(rows), k), dtype=z.np_type)
    has = np.zeros((len(rows), k), dtype=bool)
    for c in range(k):
        sel = bpres[j, c]
        if allow is not None:
            sel &= allow[rows[owner], c]
        hit = np.nonzero(sel)[0]
        if len(hit) == 0:
            continue
        o = owner[hit]
        if mult.op.positional:   # the term A(i,j) ⊗ B(j,c) is one of its indices
            prod = cast(mult.op.positions(rows[o], j[hit], np.full(len(hit), c)), z, np)
        else:
            prod = cast(np.asarray(mult.numpy(a.values_at(pos[hit], x), bval[j[hit], c])), z, np)
        prod = np.broadcast_to(prod, o.shape).copy() if prod.ndim == 0 else prod
        u, folded = fold_runs(o, prod, mon.op, z)
        out[u, c] = folded
        has[u, c] = True
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[rows + 1] = has.sum(axis=1)
    np.cumsum(indptr, out=indptr)
    r, c = np.nonzero(has)   # row-major: each row's columns sorted
    return indptr, c.astype(np.int64), out[r, c]


# ------------------------------------------------------------------ CuPy
_SOURCE = r"""
typedef ${IM} IM;     // the mask entries' row pointers and columns
typedef ${IR} IR;     // the mask entries' rows
#define K ${K}
#define FULLK ${FULLK}
#define READ_A ${READ_A}
#define READ_B ${READ_B}
#define STOP ${STOP}      // 0 never, 1 once a column's fold equals term, 2 at its first entry
#define MODE ${MODE}      // 0 every row; 1 the rows of an allowed mask's entries; 2 every row
                          // less a complemented mask's entries
#define UNROLL ${UNROLL}
#define LONG_ROW ${LONG_ROW}LL  // longer rows: a block each (narrow_long)

// B (K columns) dense: bits[r] has bit c where B(r,c) is present, dense[r*K + c] its value
extern "C" __global__ void narrow_scatter(const IB* __restrict__ Bp, const IB* __restrict__ Bj,
        const X* __restrict__ Bx, long long bm, long long nb, unsigned* __restrict__ bits,
        X* __restrict__ dense) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < nb; r += stride) {
        unsigned w = 0;
        for (long long q = Bp[r]; q < Bp[r + 1]; ++q) {
            const unsigned c = (unsigned)Bj[q];
            w |= 1u << c;
#if READ_B
            dense[r * K + c] = value_at(Bx, q, bm);
#endif
        }
        bits[r] = w;
    }
}

// the columns the mask's entries of row `row` hold
__device__ __forceinline__ unsigned mask_bits(const IM* __restrict__ mptr,
                                              const IM* __restrict__ mj, long long row) {
    unsigned w = 0;
    for (long long q = mptr[row]; q < mptr[row + 1]; ++q) w |= 1u << (unsigned)mj[q];
    return w;
}

__device__ __forceinline__ bool at_term(Z acc, Z term) {
#if STOP == 2
    return true;
#else
    return acc == term;
#endif
}

// fold the row's entries p0, p0 + step, ... (each lane 32 * UNROLL of them a pass, every
// lane of the warp the same passes) into acc / has; al: the columns still open
__device__ __forceinline__ void fold_entries(
        const IA* __restrict__ Aj, const X* __restrict__ Ax, long long am,
        const unsigned* __restrict__ bbits, const X* __restrict__ bdense, long long r,
        long long start, long long e, long long step, unsigned al, Z term, int lane,
        Z (&acc)[K], unsigned& has) {
    for (long long p0 = start; p0 < e; p0 += step) {
        long long jj[UNROLL];
        unsigned w[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const long long p = p0 + 32 * u + lane;
            jj[u] = p < e ? (long long)Aj[p] : 0;
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            w[u] = (p0 + 32 * u + lane < e) ? (bbits[jj[u]] & al) : 0u;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            if (!w[u]) continue;
#if READ_A
            const X xa = value_at(Ax, p0 + 32 * u + lane, am);
#else
            const X xa = (X)0;
#endif
#pragma unroll
            for (int c = 0; c < K; ++c) {
                if (!((w[u] >> c) & 1u)) continue;
#if READ_B
                const X yb = bdense[jj[u] * K + c];
#else
                const X yb = (X)0;
#endif
                const Z v = mult_op(xa, yb, r, jj[u], (long long)c);
                acc[c] = ((has >> c) & 1u) ? add_op(acc[c], v) : v;
                has |= 1u << c;
            }
        }
#if STOP
        // a column at its terminal value in any lane is done for the whole warp
        unsigned done = 0;
#pragma unroll
        for (int c = 0; c < K; ++c)
            if (((has >> c) & 1u) && at_term(acc[c], term)) done |= 1u << c;
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) done |= __shfl_xor_sync(FULL_MASK, done, d);
        al &= ~done;
        if (!al) break;
#endif
    }
}

// lane 0 gets each column's fold over the warp
__device__ __forceinline__ void warp_fold(Z (&acc)[K], unsigned& has) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        const unsigned oh = __shfl_down_sync(FULL_MASK, has, d);
#pragma unroll
        for (int c = 0; c < K; ++c) {
            const Z o = shfl_down_z(acc[c], d);
            if ((oh >> c) & 1u) acc[c] = ((has >> c) & 1u) ? add_op(acc[c], o) : o;
        }
        has |= oh;
    }
}

// row r's result (one thread)
__device__ __forceinline__ void write_row(long long r, const Z (&acc)[K], unsigned has,
        const IM* __restrict__ mj, const IM* __restrict__ mptr, unsigned* __restrict__ tbits,
        Z* __restrict__ tdense, unsigned char* __restrict__ present, Z* __restrict__ tvals) {
#if MODE == 1
    for (long long q = mptr[r]; q < mptr[r + 1]; ++q) {
        const int cq = (int)mj[q];
        Z v = (Z)0;
#pragma unroll
        for (int c = 0; c < K; ++c) if (c == cq) v = acc[c];
        present[q] = (has >> cq) & 1u;
        tvals[q] = v;
    }
#else
    tbits[r] = has;
#pragma unroll
    for (int c = 0; c < K; ++c) if ((has >> c) & 1u) tdense[r * K + c] = acc[c];
#endif
}

#define ROW_ARGS const IA* __restrict__ Ap, const IA* __restrict__ Aj, \
    const X* __restrict__ Ax, long long am, const unsigned* __restrict__ bbits, \
    const X* __restrict__ bdense, const IR* __restrict__ mi, const IM* __restrict__ mj, \
    const IM* __restrict__ mptr, long long nwork, Z term, \
    unsigned* __restrict__ tbits, Z* __restrict__ tdense,        /* MODE 0 and 2 */ \
    unsigned char* __restrict__ present, Z* __restrict__ tvals,  /* MODE 1 */ \
    unsigned long long* __restrict__ nlong, long long* __restrict__ long_rows, \
    unsigned* __restrict__ long_allow

// 32 rows a warp at a time, a lane testing each; the rows with work are folded by the whole
// warp in turn, those longer than LONG_ROW listed for narrow_long
extern "C" __global__ void __launch_bounds__(256) narrow_rows(ROW_ARGS) {
    const int lane = threadIdx.x & 31;
    const long long stride = ((long long)gridDim.x * blockDim.x) & ~31LL;
    for (long long g0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) & ~31LL; g0 < nwork;
         g0 += stride) {  // (the same for every lane of a warp)
        const long long g = g0 + lane;
        long long row = 0;
        unsigned allow = 0;
        bool work = false;
        if (g < nwork) {
#if MODE == 1
            // work item g: mask entry g; the first entry of each row takes the row
            row = (long long)mi[g];
            if ((long long)mptr[row] == g) allow = mask_bits(mptr, mj, row);
#elif MODE == 2
            row = g;
            allow = FULLK & ~mask_bits(mptr, mj, row);
#else
            row = g;
            allow = FULLK;
#endif
            const long long len = allow ? (long long)(Ap[row + 1] - Ap[row]) : 0;
            work = len > 0 && len <= LONG_ROW;
            if (len > LONG_ROW) {
                const unsigned long long t = atomicAdd(nlong, 1ull);
                long_rows[t] = row;
                long_allow[t] = allow;
            }
#if MODE != 1
            if (len == 0) tbits[row] = 0;
#endif
        }
        unsigned todo = __ballot_sync(FULL_MASK, work);
        while (todo) {
            const int from = __ffs(todo) - 1;
            todo &= todo - 1;
            const long long r = __shfl_sync(FULL_MASK, row, from);
            const unsigned al = __shfl_sync(FULL_MASK, allow, from);
            Z acc[K];
#pragma unroll
            for (int c = 0; c < K; ++c) acc[c] = (Z)0;
            unsigned has = 0;
            fold_entries(Aj, Ax, am, bbits, bdense, r, (long long)Ap[r], (long long)Ap[r + 1],
                         32 * UNROLL, al, term, lane, acc, has);
            warp_fold(acc, has);
            if (lane == 0) write_row(r, acc, has, mj, mptr, tbits, tdense, present, tvals);
        }
    }
}

// the rows narrow_rows listed (longer than LONG_ROW): a block each, its warps over the row's
// entries, their folds combined through shared memory (a grid of a few blocks striding)
extern "C" __global__ void __launch_bounds__(256) narrow_long(ROW_ARGS) {
    __shared__ Z sacc[8][K];
    __shared__ unsigned shas[8];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long count = (long long)*nlong;
    for (long long t = blockIdx.x; t < count; t += gridDim.x) {
        const long long r = long_rows[t];
        Z acc[K];
#pragma unroll
        for (int c = 0; c < K; ++c) acc[c] = (Z)0;
        unsigned has = 0;
        fold_entries(Aj, Ax, am, bbits, bdense, r, (long long)Ap[r] + 32 * UNROLL * warp,
                     (long long)Ap[r + 1], 8 * 32 * UNROLL, long_allow[t], term, lane, acc,
                     has);
        warp_fold(acc, has);
        if (lane == 0) {
#pragma unroll
            for (int c = 0; c < K; ++c) sacc[warp][c] = acc[c];
            shas[warp] = has;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < 8; ++w) {
#pragma unroll
                for (int c = 0; c < K; ++c) {
                    if (!((shas[w] >> c) & 1u)) continue;
                    acc[c] = ((has >> c) & 1u) ? add_op(acc[c], sacc[w][c]) : sacc[w][c];
                }
                has |= shas[w];
            }
            write_row(r, acc, has, mj, mptr, tbits, tdense, present, tvals);
        }
        __syncthreads();
    }
}

extern "C" __global__ void narrow_counts(const unsigned* __restrict__ tbits, long long n,
                                         long long* __restrict__ counts) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += stride)
        counts[r] = __popc(tbits[r]);
}

// T's CSR from the bit words and dense values: row r's columns in increasing order
extern "C" __global__ void narrow_fill(const unsigned* __restrict__ tbits,
        const Z* __restrict__ tdense, const long long* __restrict__ tp, long long n,
        long long* __restrict__ tj, Z* __restrict__ tx) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += stride) {
        unsigned w = tbits[r];
        long long q = tp[r];
        while (w) {
            const int c = __ffs(w) - 1;
            w &= w - 1;
            tj[q] = c;
            tx[q] = tdense[r * K + c];
            ++q;
        }
    }
}
"""


def _stop(mon):
    """('any' | 'value' | None, terminal)."""
    if getattr(mon.op, "all_terminal", False):
        return "any", None
    return ("value", mon.terminal) if mon.terminal is not None else (None, None)


def source(*, ia, ib, im, ir, k, mult, mon, mode, long_row=LONG_ROW):
    """The CUDA source of the narrow kernels for one specialisation: index dtypes of A, B,
    the mask entries' pointers and columns (im) and rows (ir); k columns; mode 0 (no mask),
    1 (allowed mask entries) or 2 (complemented); rows longer than long_row to narrow_long."""
    read_a, read_b = _reads(mult)
    stop, _ = _stop(mon)
    pre = header(ia=ia, ib=ib, x=mult.type, z=mon.type, mult_c=mult.c(), add_c=mon.c(),
                 any_monoid=stop == "any", plus=mon.op.name == "plus")
    return pre + Template(_SOURCE).substitute(
        IM=c_index_type(im), IR=c_index_type(ir), K=k,
        FULLK="0xffffffffu" if k == 32 else f"{(1 << k) - 1}u",
        READ_A=int(read_a), READ_B=int(read_b),
        STOP={None: 0, "value": 1, "any": 2}[stop], MODE=mode, UNROLL=UNROLL,
        LONG_ROW=int(long_row))


def _kernels(a, b, k, mult, mon, mode, im, ir):
    read_a, read_b = _reads(mult)
    ia, ib, im, ir = (np.dtype(t) for t in (a.ptr.dtype, b.ptr.dtype, im, ir))
    key = KernelKey("narrow", "rows", (mult.name, mon.name), (mult.type.name, mon.type.name),
                    (ia.name, ib.name, im.name, ir.name, ("k", k), ("mode", mode),
                     ("stop", str(_stop(mon)[0])), ("read", int(read_a), int(read_b)),
                     ("long", LONG_ROW)))
    return get_functions(key, lambda: source(ia=ia, ib=ib, im=im, ir=ir, k=k, mult=mult,
                                             mon=mon, mode=mode, long_row=LONG_ROW),
                         ("narrow_scatter", "narrow_rows", "narrow_long"))


def _narrow_cuda(a, b, k, mult, mon, entries, complement):
    x, z = mult.type, mon.type
    n = a.n
    mode = 0 if entries is None else (2 if complement else 1)
    if entries is None:
        mi = mj = mptr = xp.zeros(1, dtype=np.int64)
    else:
        mi, mj, mptr = entries
        if np.dtype(mj.dtype) != np.dtype(mptr.dtype) or np.dtype(mptr.dtype).name not in (
                "int32", "int64"):
            mj, mptr = mj.astype(np.int64), mptr.astype(np.int64)
        if mi is None:   # (mode 2 reads no rows)
            mi = mptr[:1]
        elif np.dtype(mi.dtype).name not in ("int32", "int64"):
            mi = mi.astype(np.int64)
    kern = _kernels(a, b, k, mult, mon, mode, mptr.dtype, mi.dtype)
    read_b = _reads(mult)[1]
    # B dense: a bit word per row, k values per row where ⊗ reads them
    memory.require(b.n * (4 + (k * x.np_type.itemsize if read_b else 0)),
                   "the narrow product's dense B")
    bbits = xp.empty(b.n, dtype=np.uint32)
    bdense = xp.empty(b.n * k if read_b else 1, dtype=x.np_type)
    bx, bm = value_args(b, x)
    if b.n:
        kern["narrow_scatter"](launch.strided_grid(b.n), launch.BLOCK, (
            b.ptr, b.idx, bx, bm, np.int64(b.n), bbits, bdense))
    ax, am = value_args(a, x)
    _, terminal = _stop(mon)
    term = z.np_type.type(terminal if terminal is not None else 0)
    # the rows longer than LONG_ROW (at most nnz(A) / (LONG_ROW + 1) of them), listed by
    # narrow_rows for narrow_long
    nwork = n if mode != 1 else len(mi)
    nlong_max = min(nwork, len(a.idx) // (LONG_ROW + 1))
    nlong = (xp.zeros if nlong_max else xp.empty)(1, dtype=np.uint64)
    long_rows = xp.empty(max(nlong_max, 1), dtype=np.int64)
    long_allow = xp.empty(max(nlong_max, 1), dtype=np.uint32)

    def rows(tbits, tdense, present, tvals):
        args = (a.ptr, a.idx, ax, am, bbits, bdense, mi, mj, mptr, np.int64(nwork), term,
                tbits, tdense, present, tvals, nlong, long_rows, long_allow)
        kern["narrow_rows"](launch.strided_grid(nwork), launch.BLOCK, args)
        if nlong_max:
            kern["narrow_long"]((min(nlong_max, launch.sm_count() * 4),), launch.BLOCK, args)

    if mode == 1:   # a present flag and a value per allowed mask entry
        nm = len(mi)
        memory.require(nm * (1 + z.np_type.itemsize), "the narrow product's outputs")
        present = xp.zeros(nm, dtype=bool)
        vals = xp.empty(nm, dtype=z.np_type)
        if nm:
            rows(bbits, vals, present, vals)   # (tbits, tdense unused in this mode)
        indptr, (cols, vals) = compact(mptr, present, [mj, vals])
        return indptr, cols, vals
    memory.require(n * (4 + 8 + k * z.np_type.itemsize), "the narrow product's outputs")
    tbits = xp.empty(max(n, 1), dtype=np.uint32)
    tdense = xp.empty(max(n * k, 1), dtype=z.np_type)
    indptr = xp.zeros(n + 1, dtype=np.int64)
    if n == 0:
        return indptr, xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=z.np_type)
    grid = launch.strided_grid(n)
    rows(tbits, tdense, bbits, tdense)   # (present, tvals unused in these modes)
    counts = xp.empty(n, dtype=np.int64)
    kern["narrow_counts"](grid, launch.BLOCK, (tbits, np.int64(n), counts))
    xp.cumsum(counts, out=indptr[1:])
    total = int(indptr[-1])
    cols = xp.empty(total, dtype=np.int64)
    vals = xp.empty(total, dtype=z.np_type)
    if total:
        kern["narrow_fill"](grid, launch.BLOCK, (tbits, tdense, indptr, np.int64(n), cols, vals))
    return indptr, cols, vals
