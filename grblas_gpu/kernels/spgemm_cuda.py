"""CuPy SpGEMM, T = A ⊕.⊗ B, row-wise (saxpy) in two phases.

Symbolic: count the distinct columns of each row T(i,:) = ⊕_k A(i,k) ⊗ B(k,:); scan the
counts into T's row offsets; check the output fits (AllocFailed otherwise); numeric: fill.

Rows are binned by u(i) = min(flops(i), ncols), an upper bound on |T(i,:)|:
- u(i) = 0: nothing to do;
- u(i) <= CAP/2 for a shared-memory table size CAP in SHARED_BINS: one block per row with a
  hash table of CAP slots in shared memory (load factor <= 1/2); the numeric phase compacts
  the table and places each entry by its rank among the row's columns, so rows come out
  sorted without a separate sort;
- heavier rows: HASH gives each row a global-memory hash table of the next power of two
  >= 2 u(i) slots (in batches that fit the memory budget), then sorts those rows' entries
  with one global sort; GUSTAVSON gives each of a few persistent blocks a dense accumulator
  (Gustavson's SPA: ncols values and ncols stamps), and scans it in column order, so heavy
  rows come out sorted at O(ncols) cost per row.

Each warp takes one A(i,k) at a time and its lanes walk B(k,:) (coalesced reads of B).
The module also holds the masked-dot kernels (kernels.masked_dot): one compilation per
(⊗, ⊕, types, index types), keyed by a printable KernelKey.

Measured on an H100 (benchmarks/cases_mxm.py): R-MAT scale 16 A·A, 1.24e9 products, 354M
entries: GUSTAVSON 0.11 s, HASH 0.31 s (cuSPARSE: CUSPARSE_STATUS_INSUFFICIENT_RESOURCES);
scale 14: 10 ms vs cuSPARSE 13 ms; scale 16 edge factor 4: 25 ms vs cuSPARSE 11 ms.
"""
from string import Template

import numpy as np

from .. import backend
from .._validate import index_dtype
from . import launch
from .. import memory
from .cache import KernelKey, get_functions
from .cuda_common import c_index_type, fold_start, header, value_args, word_dtype, word_of

xp = backend.xp

# (table slots, threads per block): a row goes to the first bin with u(i) <= slots/2
SHARED_BINS = ((64, 32), (256, 64), (1024, 128), (2048, 256))
HEAVY_THREADS = 512          # threads per block for rows beyond the shared bins
SPA_BLOCKS_PER_SM = 2        # persistent GUSTAVSON blocks (each owns a dense accumulator)

_KERNELS = r"""
typedef ${IC} IC;
typedef ${K} K;
#define EMPTY ((K)-1)

__device__ __forceinline__ unsigned long long mix(K col) {
    unsigned long long h = (unsigned long long)col;
    h ^= h >> 33; h *= 0xff51afd7ed558ccdull; h ^= h >> 33;
    return h;
}
__device__ __forceinline__ K cas_key(K* p, K cmp, K val) {
    if (sizeof(K) == 8)
        return (K)atomicCAS((unsigned long long*)p, (unsigned long long)cmp, (unsigned long long)val);
    return (K)atomicCAS((int*)p, (int)cmp, (int)val);
}
// the slot holding col in the open-addressing table keys[0..mask]; inserts col if absent
// (*added = true when this call inserted it)
__device__ __forceinline__ unsigned long long insert(K* keys, unsigned long long mask, K col, bool* added) {
    unsigned long long h = mix(col) & mask;
    *added = false;
    while (true) {
        K cur = ((volatile K*)keys)[h];
        if (cur == col) return h;
        if (cur == EMPTY) {
            K old = cas_key(&keys[h], EMPTY, col);
            if (old == EMPTY) { *added = true; return h; }
            if (old == col) return h;
        }
        h = (h + 1) & mask;
    }
}

// One row of A times B into a hash table; NUMERIC also folds the products into vals.
template <bool NUMERIC, int NT>
__device__ __forceinline__ void row_products(
        long long row, const IA* __restrict__ Ap, const IA* __restrict__ Aj,
        const X* __restrict__ Ax, long long am, const IB* __restrict__ Bp,
        const IB* __restrict__ Bj, const X* __restrict__ Bx, long long bm,
        K* keys, W* vals, unsigned long long mask, unsigned long long* cnt) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long pa1 = Ap[row + 1];
    for (long long p = Ap[row] + warp; p < pa1; p += NT / 32) {
        const long long k = Aj[p];
        const long long qb = Bp[k + 1];
        X x;
        if (NUMERIC) x = value_at(Ax, p, am);
        for (long long q = Bp[k] + lane; q < qb; q += 32) {
            bool added;
            unsigned long long s = insert(keys, mask, (K)Bj[q], &added);
            if (NUMERIC) accum(&vals[s], mult_op(x, value_at(Bx, q, bm), row, k, (long long)Bj[q]));
            else if (added) atomicAdd(cnt, 1ull);
        }
    }
}

template <int CAP, int NT>
__device__ void sym_shared(const IA* Ap, const IA* Aj, const IB* Bp, const IB* Bj,
                           const long long* rows, long long* row_nnz) {
    __shared__ K keys[CAP];
    __shared__ unsigned long long cnt;
    const long long row = rows[blockIdx.x];
    for (int s = threadIdx.x; s < CAP; s += NT) keys[s] = EMPTY;
    if (threadIdx.x == 0) cnt = 0;
    __syncthreads();
    row_products<false, NT>(row, Ap, Aj, (const X*)0, 0, Bp, Bj, (const X*)0, 0,
                            keys, (W*)0, CAP - 1, &cnt);
    __syncthreads();
    if (threadIdx.x == 0) row_nnz[row] = (long long)cnt;
}

template <int CAP, int NT>
__device__ void num_shared(const IA* Ap, const IA* Aj, const X* Ax, long long am,
                           const IB* Bp, const IB* Bj, const X* Bx, long long bm,
                           const long long* rows, const long long* Cp, IC* Cj, Z* Cx,
                           W identity) {
    __shared__ K keys[CAP];
    __shared__ W vals[CAP];
    __shared__ unsigned long long cnt;
    const long long row = rows[blockIdx.x];
    for (int s = threadIdx.x; s < CAP; s += NT) { keys[s] = EMPTY; vals[s] = identity; }
    if (threadIdx.x == 0) cnt = 0;
    __syncthreads();
    row_products<true, NT>(row, Ap, Aj, Ax, am, Bp, Bj, Bx, bm, keys, vals, CAP - 1, &cnt);
    __syncthreads();
    // compact the occupied slots to the front (through registers: slots move down)
    constexpr int PER = CAP / NT;
    K rk[PER]; W rv[PER];
    #pragma unroll
    for (int j = 0; j < PER; ++j) { rk[j] = keys[threadIdx.x + j * NT]; rv[j] = vals[threadIdx.x + j * NT]; }
    __syncthreads();
    #pragma unroll
    for (int j = 0; j < PER; ++j) {
        if (rk[j] != EMPTY) {
            int pos = (int)atomicAdd(&cnt, 1ull);
            keys[pos] = rk[j]; vals[pos] = rv[j];
        }
    }
    __syncthreads();
    // each entry's place in the sorted row is the number of smaller columns
    const int n = (int)cnt;
    const long long base = Cp[row];
    for (int i = threadIdx.x; i < n; i += NT) {
        const K mine = keys[i];
        int rank = 0;
        for (int t = 0; t < n; ++t) rank += keys[t] < mine;
        Cj[base + rank] = (IC)mine;
        Cx[base + rank] = w2z(vals[i]);
    }
}

#define SHARED_BIN(CAP, NT) \
extern "C" __global__ void __launch_bounds__(NT) sym_shared_##CAP( \
        const IA* Ap, const IA* Aj, const IB* Bp, const IB* Bj, const long long* rows, \
        long long* row_nnz) { sym_shared<CAP, NT>(Ap, Aj, Bp, Bj, rows, row_nnz); } \
extern "C" __global__ void __launch_bounds__(NT) num_shared_##CAP( \
        const IA* Ap, const IA* Aj, const X* Ax, long long am, const IB* Bp, const IB* Bj, \
        const X* Bx, long long bm, const long long* rows, const long long* Cp, IC* Cj, Z* Cx, \
        W identity) { \
    num_shared<CAP, NT>(Ap, Aj, Ax, am, Bp, Bj, Bx, bm, rows, Cp, Cj, Cx, identity); }
${BINS}

// ---- heavy rows, HASH: one block per row, a global table per row
extern "C" __global__ void __launch_bounds__(${HT}) sym_hash(
        const IA* Ap, const IA* Aj, const IB* Bp, const IB* Bj, const long long* rows,
        const long long* tbl_off, const long long* tbl_cap, K* gkeys, long long* row_nnz) {
    __shared__ unsigned long long cnt;
    if (threadIdx.x == 0) cnt = 0;
    __syncthreads();
    row_products<false, ${HT}>(rows[blockIdx.x], Ap, Aj, (const X*)0, 0, Bp, Bj, (const X*)0,
                               0, gkeys + tbl_off[blockIdx.x], (W*)0,
                               (unsigned long long)tbl_cap[blockIdx.x] - 1, &cnt);
    __syncthreads();
    if (threadIdx.x == 0) row_nnz[rows[blockIdx.x]] = (long long)cnt;
}

extern "C" __global__ void __launch_bounds__(${HT}) num_hash(
        const IA* Ap, const IA* Aj, const X* Ax, long long am, const IB* Bp, const IB* Bj,
        const X* Bx, long long bm, const long long* rows, const long long* tbl_off,
        const long long* tbl_cap, K* gkeys, W* gvals, const long long* Cp, IC* Cj, Z* Cx) {
    __shared__ unsigned long long cnt;
    if (threadIdx.x == 0) cnt = 0;
    __syncthreads();
    const long long row = rows[blockIdx.x], off = tbl_off[blockIdx.x], cap = tbl_cap[blockIdx.x];
    K* keys = gkeys + off;
    W* vals = gvals + off;
    row_products<true, ${HT}>(row, Ap, Aj, Ax, am, Bp, Bj, Bx, bm, keys, vals,
                              (unsigned long long)cap - 1, &cnt);
    __syncthreads();
    const long long base = Cp[row];
    for (long long s = threadIdx.x; s < cap; s += ${HT}) {   // unsorted: sorted on the host side
        K key = keys[s];
        if (key != EMPTY) {
            long long pos = (long long)atomicAdd(&cnt, 1ull);
            Cj[base + pos] = (IC)key;
            Cx[base + pos] = w2z(vals[s]);
        }
    }
}

// ---- heavy rows, GUSTAVSON: persistent blocks, each with a dense accumulator of ncols
// stamps (the heavy row's number + 1 marks a column touched by that row) and values
extern "C" __global__ void __launch_bounds__(${HT}) sym_spa(
        const IA* Ap, const IA* Aj, const IB* Bp, const IB* Bj, const long long* rows,
        long long nheavy, long long ncols, int* gflags, long long* row_nnz) {
    __shared__ unsigned long long cnt;
    int* flags = gflags + (long long)blockIdx.x * ncols;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (long long h = blockIdx.x; h < nheavy; h += gridDim.x) {
        if (threadIdx.x == 0) cnt = 0;
        __syncthreads();
        const long long row = rows[h];
        const int stamp = (int)(h + 1);
        for (long long p = Ap[row] + warp; p < Ap[row + 1]; p += ${HT} / 32) {
            const long long k = Aj[p];
            for (long long q = Bp[k] + lane; q < Bp[k + 1]; q += 32)
                if (atomicExch(&flags[Bj[q]], stamp) != stamp) atomicAdd(&cnt, 1ull);
        }
        __syncthreads();
        if (threadIdx.x == 0) row_nnz[row] = (long long)cnt;
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(${HT}) num_spa(
        const IA* Ap, const IA* Aj, const X* Ax, long long am, const IB* Bp, const IB* Bj,
        const X* Bx, long long bm, const long long* rows, long long nheavy, long long ncols,
        int* gflags, W* gvals, const long long* Cp, IC* Cj, Z* Cx, W identity) {
    __shared__ int warp_count[${HT} / 32];
    __shared__ long long offset;
    int* flags = gflags + (long long)blockIdx.x * ncols;
    W* vals = gvals + (long long)blockIdx.x * ncols;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (long long h = blockIdx.x; h < nheavy; h += gridDim.x) {
        const long long row = rows[h];
        const int stamp = (int)(h + 1);
        for (long long p = Ap[row] + warp; p < Ap[row + 1]; p += ${HT} / 32) {
            const long long k = Aj[p];
            const X x = value_at(Ax, p, am);
            for (long long q = Bp[k] + lane; q < Bp[k + 1]; q += 32) {
                const long long c = Bj[q];
                accum(&vals[c], mult_op(x, value_at(Bx, q, bm), row, k, c));
                flags[c] = stamp;
            }
        }
        if (threadIdx.x == 0) offset = Cp[row];
        __syncthreads();
        // scan the accumulator in column order: the row comes out sorted; reset as we go
        for (long long c0 = 0; c0 < ncols; c0 += ${HT}) {
            const long long c = c0 + threadIdx.x;
            const bool hit = c < ncols && flags[c] == stamp;
            const unsigned ballot = __ballot_sync(FULL_MASK, hit);
            if (lane == 0) warp_count[warp] = __popc(ballot);
            __syncthreads();
            long long before = 0, total = 0;
            for (int w = 0; w < ${HT} / 32; ++w) {
                before += (w < warp) ? warp_count[w] : 0;
                total += warp_count[w];
            }
            if (hit) {
                const long long pos = offset + before + __popc(ballot & ((1u << lane) - 1u));
                Cj[pos] = (IC)c;
                Cx[pos] = w2z(vals[c]);
                vals[c] = identity;
            }
            __syncthreads();
            if (threadIdx.x == 0) offset += total;
            __syncthreads();
        }
    }
}
"""


def source(*, ia, ib, ic, key, x, z, mult_c, add_c, any_monoid, plus, has_terminal):
    """The CUDA source for one (semiring, types) combination: the SpGEMM kernels and the
    masked-dot kernels (kernels.masked_dot) in one module, so one compilation serves both."""
    from .masked_dot import DOT_KERNELS, HASH_SLOTS, HASH_UNROLL, HASH_WARPS

    bins = "\n".join(f"SHARED_BIN({cap}, {nt})" for cap, nt in SHARED_BINS)
    body = Template(_KERNELS).substitute(IC=c_index_type(ic), K=c_index_type(key), BINS=bins,
                                         HT=HEAVY_THREADS)
    dots = Template(DOT_KERNELS).substitute(HAS_TERMINAL=int(bool(has_terminal)),
                                            HASH_SLOTS=HASH_SLOTS, HASH_WARPS=HASH_WARPS,
                                            HASH_UNROLL=HASH_UNROLL)
    return header(ia=ia, ib=ib, x=x, z=z, mult_c=mult_c, add_c=add_c, any_monoid=any_monoid,
                  plus=plus) + body + dots


def module(mult, mon, ia, ib, ic=np.int32, keyt=np.int32):
    """The compiled module's kernels by name (cache.get_functions) for ⊗ = mult (typed),
    ⊕ = mon (typed monoid) and index types."""
    any_monoid = bool(getattr(mon.op, "all_terminal", False))
    has_terminal = not any_monoid and mon.terminal is not None
    ia, ib, ic, keyt = (np.dtype(t) for t in (ia, ib, ic, keyt))
    key = KernelKey("mxm", "saxpy+dot", (mult.name, mon.name), (mult.type.name, mon.type.name),
                    (ia.name, ib.name, ic.name, keyt.name))

    def build():
        return source(ia=ia, ib=ib, ic=ic, key=keyt, x=mult.type, z=mon.type, mult_c=mult.c(),
                      add_c=mon.c(), any_monoid=any_monoid, plus=mon.op.name == "plus",
                      has_terminal=has_terminal)

    return get_functions(key, build)


def spgemm(a, b, nrows, ncols, mult, mon, flops, method):
    """(indptr int64, indices, values) of T = A ⊕.⊗ B; a, b: kernels.spgemm.Operand (rows of
    A and of B, same index type within each); flops: int64 per row of A. The output's index
    type is int32 unless its dimensions or entry count need int64."""
    x, z = mult.type, mon.type
    ic = np.dtype(index_dtype(nrows, ncols))
    keyt = np.dtype(np.int32) if ncols <= np.iinfo(np.int32).max else np.dtype(np.int64)
    mod = module(mult, mon, a.ptr.dtype, b.ptr.dtype, ic, keyt)
    ax, am = value_args(a, x)
    bx, bm = value_args(b, x)
    vals = (ax, am, bx, bm)
    ident = word_of(fold_start(mon, z), z)
    wdt = word_dtype(z)

    u = xp.minimum(flops, ncols)
    row_nnz = xp.zeros(nrows, dtype=np.int64)
    bins, lo = [], 0
    for cap, nt in SHARED_BINS:
        rows = xp.nonzero((u > lo) & (u <= cap // 2))[0].astype(np.int64)
        lo = cap // 2
        if len(rows):
            bins.append((cap, nt, rows))
    heavy = xp.nonzero(u > lo)[0].astype(np.int64)
    heavy_kernel = _heavy_hash if method == "hash" else _heavy_spa

    # ---- symbolic: |T(i,:)| per row, then the offsets
    for cap, nt, rows in bins:
        mod[f"sym_shared_{cap}"]((len(rows),), (nt,),
                                              (a.ptr, a.idx, b.ptr, b.idx, rows, row_nnz))
    if len(heavy):
        heavy_kernel("sym", mod, a, b, vals, heavy, u, ncols, keyt, wdt, ident, row_nnz)
    indptr = xp.zeros(nrows + 1, dtype=np.int64)
    xp.cumsum(row_nnz, out=indptr[1:])
    nnz = int(backend.to_scalar(indptr[-1]))
    ic2 = np.dtype(index_dtype(nrows, ncols, nnz))
    memory.require(nnz * (ic2.itemsize + z.np_type.itemsize), f"the product's {nnz} entries")
    if ic2 != ic:  # more entries than int32 indexes: the int64 variant
        mod = module(mult, mon, a.ptr.dtype, b.ptr.dtype, ic2, keyt)
    Cj = xp.empty(nnz, dtype=ic2)
    Cx = xp.empty(nnz, dtype=z.np_type)

    # ---- numeric
    for cap, nt, rows in bins:
        mod[f"num_shared_{cap}"]((len(rows),), (nt,), (
            a.ptr, a.idx, ax, am, b.ptr, b.idx, bx, bm, rows, indptr, Cj, Cx, ident))
    if len(heavy):
        heavy_kernel("num", mod, a, b, vals, heavy, u, ncols, keyt, wdt, ident, row_nnz,
                     indptr=indptr, Cj=Cj, Cx=Cx)
    return indptr, Cj, Cx


def _heavy_hash(phase, mod, a, b, vals, heavy, u, ncols, keyt, wdt, ident, row_nnz,
                indptr=None, Cj=None, Cx=None):
    """Heavy rows with global hash tables of 2^ceil(log2(2 u)) slots, in batches that fit."""
    ax, am, bx, bm = vals
    caps = (2 ** xp.ceil(xp.log2(2 * u[heavy].astype(np.float64)))).astype(np.int64)
    slot_bytes = keyt.itemsize + (wdt.itemsize if phase == "num" else 0)
    budget = max(memory.available() // 2, slot_bytes)
    # batches of consecutive heavy rows whose tables take at most `budget` bytes (at least
    # one row each: a row that alone exceeds the budget fails memory.require below)
    limits = np.cumsum(backend.to_host(caps)) * slot_bytes
    bounds = [0]
    while bounds[-1] < len(limits):
        base = limits[bounds[-1] - 1] if bounds[-1] else 0
        nxt = int(np.searchsorted(limits, base + budget, side="right"))
        bounds.append(max(nxt, bounds[-1] + 1))
    for h0, h1 in zip(bounds[:-1], bounds[1:]):
        rows, cap = heavy[h0:h1], caps[h0:h1]
        off = xp.cumsum(cap) - cap
        total = int(backend.to_scalar(cap.sum()))
        memory.require(total * slot_bytes, "hash tables for the heavy rows")
        keys = xp.full(total, -1, dtype=keyt)
        if phase == "sym":
            mod["sym_hash"]((len(rows),), (HEAVY_THREADS,), (
                a.ptr, a.idx, b.ptr, b.idx, rows, off, cap, keys, row_nnz))
        else:
            table = xp.full(total, ident, dtype=wdt)
            mod["num_hash"]((len(rows),), (HEAVY_THREADS,), (
                a.ptr, a.idx, ax, am, b.ptr, b.idx, bx, bm, rows, off, cap, keys, table,
                indptr, Cj, Cx))
            del table
        del keys
    if phase == "num":
        _sort_rows(heavy, indptr, Cj, Cx, ncols)


# bytes of temporaries per entry sorted by _sort_rows (segment, position, key, order, ...)
SORT_BYTES_PER_ENTRY = 48


def _sort_rows(rows, indptr, Cj, Cx, ncols):
    """Sort the entries of the given rows by column, in place, in groups of rows whose
    temporaries fit the memory budget."""
    counts = backend.to_host(indptr[rows + 1] - indptr[rows])
    cum = np.cumsum(counts)
    limit = max(memory.available() // SORT_BYTES_PER_ENTRY, 1)
    start = 0
    while start < len(rows):
        base = cum[start - 1] if start else 0
        stop = max(int(np.searchsorted(cum, base + limit, side="right")), start + 1)
        memory.require((cum[stop - 1] - base) * SORT_BYTES_PER_ENTRY, "sorting the heavy rows")
        _sort_some(rows[start:stop], indptr, Cj, Cx, ncols)
        start = stop


def _sort_some(rows, indptr, Cj, Cx, ncols):
    starts = indptr[rows]
    counts = indptr[rows + 1] - starts
    total = int(backend.to_scalar(counts.sum()))
    if total == 0:
        return
    ends = xp.cumsum(counts)
    seg = xp.searchsorted(ends, xp.arange(total), side="right")
    pos = starts[seg] + (xp.arange(total) - (ends - counts)[seg])
    cols = Cj[pos].astype(np.int64)
    if len(rows) * ncols < 2**62:
        order = xp.argsort(seg * ncols + cols)
    else:
        order = xp.lexsort(xp.stack([cols, seg]))
    del cols, seg
    Cj[pos] = Cj[pos[order]]
    Cx[pos] = Cx[pos[order]]


def _heavy_spa(phase, mod, a, b, vals, heavy, u, ncols, keyt, wdt, ident, row_nnz,
               indptr=None, Cj=None, Cx=None):
    """Heavy rows with dense accumulators, one per persistent block."""
    ax, am, bx, bm = vals
    nheavy = len(heavy)
    per_block = ncols * (4 + (wdt.itemsize if phase == "num" else 0))
    nblocks = int(min(nheavy, launch.sm_count() * SPA_BLOCKS_PER_SM,
                      max(memory.available() // 2 // max(per_block, 1), 1)))
    memory.require(nblocks * per_block, "dense accumulators for the heavy rows")
    flags = xp.zeros(nblocks * ncols, dtype=np.int32)
    if phase == "sym":
        mod["sym_spa"]((nblocks,), (HEAVY_THREADS,), (
            a.ptr, a.idx, b.ptr, b.idx, heavy, np.int64(nheavy), np.int64(ncols), flags, row_nnz))
        return
    table = xp.full(nblocks * ncols, ident, dtype=wdt)
    mod["num_spa"]((nblocks,), (HEAVY_THREADS,), (
        a.ptr, a.idx, ax, am, b.ptr, b.idx, bx, bm, heavy, np.int64(nheavy),
        np.int64(ncols), flags, table, indptr, Cj, Cx, ident))
