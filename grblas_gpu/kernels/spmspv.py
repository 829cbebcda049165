"""Push SpMSpV: T = B ⊕.⊗ u for a sparse u, gathering only the columns of B that u names.

    T(i) = ⊕_{k ∈ u, B(i,k)} B(i,k) ⊗ u(k)      (``matrix_first``; vxm swaps ⊗'s operands)

B arrives by columns (a :class:`~grblas_gpu.kernels.operands.Compressed` over B's columns: A's
cached CSC for B = A, A's CSR for B = Aᵀ), u as a
:class:`~grblas_gpu.kernels.operands.SparseOperand`; outputs the mask excludes are skipped.

NumPy: expand the columns u names, products through the multiply's NumPy function, a
stable sort by output index, ``segment_reduce``.

CuPy: one thread per gathered entry, load-balanced over the frontier: an exclusive scan
of the column lengths (one launch: blocks scan stretches of 1024, the last block to finish
carries the stretch totals) gives every entry a global number. A block takes 1024 numbers:
two warps find the frontier entries at their ends (32 probes a round), the block stages the
column starts between them in shared memory, each marks where it begins, and a running
maximum over the 1024 slots names every entry's column (no per-entry search; hub columns
spread over many blocks); each thread then gathers four entries, their loads in flight
together. Each product is folded into a dense workspace of T's type (its flags cleared and
⊕'s start set by the scan's launch) with one atomic per output: atomicAdd / atomicMin /
atomicMax / atomicOr-And-Xor where CUDA has them for the type; float min and max through the
integer order of their bits; for BOOL lor/land an idempotent store of the absorbing value;
ANY a plain store (any writer is a right answer); otherwise a compare-and-swap loop on the ⊕
C expression (on the enclosing 4-byte word for 1- and 2-byte types). A presence byte per
output marks the touched ones. The workspace is the result when dense is cheaper (more than
DENSE_THRESHOLD of the outputs may be touched), else it is compacted to a sorted sparse
vector. A call's counters, offsets and stretch totals share one scratch allocation.
"""
from string import Template

import numpy as np

from .. import backend
from ..vector import DENSE_THRESHOLD
from . import launch
from ..types import cast
from .common import dummy, kept, scalar_arg
from .operands import (DenseOperand, SparseOperand, apply_product, fold_sorted, iso_scalar,
                       run_starts, kernel_key, operand_source, operand_values)
from .cache import get_functions
from .cuda_common import c_index_type, fold_start

xp = backend.xp

__all__ = ["push", "native_atomic"]

COMPACT_SPAN = 16384    # bitmap positions a block of spmspv_compact lists (1024 threads x 16)
EDGES_PER_BLOCK = 1024  # gathered entries a block of spmspv_edges takes at a time
EDGES_THREADS = 256     # its threads (each gathers EDGES_PER_BLOCK / EDGES_THREADS entries)
EDGES_SPAN = 1024       # frontier entries a block's stretch may cover and stage
# combine kind -> test before folding: ANY skips an output already present (1), float min/max
# a term its slot already beats (2); measured on R-MAT 22 (1.26M gathered entries onto 293k
# outputs, hubs taking thousands): the gather 12% (ANY) and 6% (min) faster
PRECHECK = {0: 1, 4: 2}

probe = None  # a list to time the stages: (name, CUDA event) recorded after each (benchmarks)


def _mark(name):
    if probe is not None:
        ev = xp.cuda.Event()
        ev.record()
        probe.append((name, ev))

# (monoid, Z's C type) -> CUDA atomic; signed 64-bit addition is the same bits as unsigned
_NATIVE = {}
for _t in ("float", "double", "int", "unsigned int"):
    _NATIVE[("plus", _t)] = ("atomicAdd", _t)
for _t in ("long long", "unsigned long long"):
    _NATIVE[("plus", _t)] = ("atomicAdd", "unsigned long long")
for _t in ("int", "unsigned int", "long long", "unsigned long long"):
    _NATIVE[("min", _t)] = ("atomicMin", _t)
    _NATIVE[("max", _t)] = ("atomicMax", _t)
for _t in ("unsigned int", "unsigned long long"):
    for _m, _f in (("bor", "atomicOr"), ("band", "atomicAnd"), ("bxor", "atomicXor")):
        _NATIVE[(_m, _t)] = (_f, _t)


def native_atomic(monoid_name, tout):
    """(CUDA function, its argument type) folding ⊕ for T's type, or None."""
    return _NATIVE.get((monoid_name, tout.c_type))


_PUSH = r"""
// 0 plain store (ANY), 1 native atomic, 2 store if absorbing, 3 CAS, 4 float min/max by
// integer atomics
#define COMBINE ${COMBINE}
#define FLOAT_MIN ${FLOAT_MIN}  // COMBINE 4: min (else max)
#define PRECHECK ${PRECHECK}  // 1: ANY skips present outputs; 2: min/max skips beaten terms

__device__ __forceinline__ void cas_fold(Z* slot, Z v) {
#if ${SMALL}
    // 1- and 2-byte Z: compare-and-swap the aligned 4-byte word holding the slot
    unsigned int* word = (unsigned int*)((size_t)slot & ~(size_t)3);
    const unsigned int shift = (unsigned int)((size_t)slot & 3) * 8u;
    const unsigned int m = ((1u << (8 * sizeof(Z))) - 1u) << shift;
    unsigned int old = *(volatile unsigned int*)word, assumed;
    do {
        assumed = old;
        const Z cur = w2z((W)((assumed & m) >> shift));
        const unsigned int nw = (assumed & ~m) | (((unsigned int)z2w(add_op(cur, v)) << shift) & m);
        if (nw == assumed) return;
        old = atomicCAS(word, assumed, nw);
    } while (old != assumed);
#else
    W* word = (W*)slot;
    W old = *(volatile W*)word, assumed;
    do {
        assumed = old;
        const W nw = z2w(add_op(w2z(assumed), v));
        if (nw == assumed) return;
        old = atomicCAS(word, assumed, nw);
    } while (old != assumed);
#endif
}

__device__ __forceinline__ void combine(Z* slot, Z v, Z term) {
#if COMBINE == 0
    *(volatile Z*)slot = v;
#elif COMBINE == 1
    ${ATOMIC}((${ATOMIC_T}*)slot, (${ATOMIC_T})v);
#elif COMBINE == 2
    if (v == term) *(volatile Z*)slot = v;  // BOOL lor/land: only the absorbing value changes it
#elif COMBINE == 4
    // IEEE bits order non-negative floats as signed integers and negative ones in reverse as
    // unsigned, so one integer atomic folds min or max (the slot starts at NaN: +NaN for min,
    // above every non-negative value; -NaN for max, below every negative one). A NaN term is
    // skipped, as fmin/fmax skip it; a slot no other term reaches stays NaN, as SuiteSparse's.
    if (v != v) return;
#if ${FLOAT_BYTES} == 8
    typedef long long SI;
    typedef unsigned long long UI;
    const SI bits = __double_as_longlong(v);
#else
    typedef int SI;
    typedef unsigned int UI;
    const SI bits = __float_as_int(v);
#endif
#if FLOAT_MIN
    if (bits >= 0) atomicMin((SI*)slot, bits); else atomicMax((UI*)slot, (UI)bits);
#else
    if (bits >= 0) atomicMax((SI*)slot, bits); else atomicMin((UI*)slot, (UI)bits);
#endif
#else
    cas_fold(slot, v);
#endif
}

typedef ${FI} FI;  // u's index type
// u held as a bitmap: its entries are listed on the device (spmspv_compact), in no order,
// and their count stays there; u's values are read at the vertex, not at the list position
#define U_BITMAP ${U_BITMAP}
#if U_BITMAP
#define FRONTIER_COUNT (*nf_dev)
#define U_AT(f) fidx[f]
#else
#define FRONTIER_COUNT nf_arg
#define U_AT(f) (f)
#endif

// fidx[0 .. *count) = the positions k < n where bitmap[k]: a thread tests 16 positions (one
// 16-byte load: a byte a thread took 19-25 µs over 4M positions), one atomic per block
// reserves the block's stretch of the list, a scan of the threads' counts places each
// thread's entries in it (in order within the block)
#define COMPACT_SPAN ${COMPACT_SPAN}  // positions per block of 1024 threads (16 a thread)
extern "C" __global__ void __launch_bounds__(1024)
spmspv_compact(const unsigned char* __restrict__ bitmap, const long long n,
               FI* __restrict__ fidx, unsigned long long* __restrict__ count) {
    __shared__ int warp_base[32];
    __shared__ unsigned long long block_base;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const long long k0 = (long long)blockIdx.x * COMPACT_SPAN + 16 * threadIdx.x;
    unsigned int bits = 0;  // bit b: position k0 + b is set
    if (k0 + 16 <= n && ((size_t)bitmap & 15) == 0) {
        union { uint4 w; unsigned char b[16]; } v;
        v.w = *reinterpret_cast<const uint4*>(bitmap + k0);
#pragma unroll
        for (int b = 0; b < 16; ++b) bits |= (unsigned)(v.b[b] != 0) << b;
    } else {
        for (int b = 0; b < 16 && k0 + b < n; ++b) bits |= (unsigned)(bitmap[k0 + b] != 0) << b;
    }
    const int c = __popc(bits);
    int inc = c;  // the warp's inclusive scan of the counts
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int o = __shfl_up_sync(FULL_MASK, inc, d);
        if (lane >= d) inc += o;
    }
    if (lane == 31) warp_base[wid] = inc;
    __syncthreads();
    if (wid == 0) {
        const int t = warp_base[lane];
        int tinc = t;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int o = __shfl_up_sync(FULL_MASK, tinc, d);
            if (lane >= d) tinc += o;
        }
        warp_base[lane] = tinc - t;
        if (lane == 31) block_base = tinc ? atomicAdd(count, (unsigned long long)tinc) : 0ull;
    }
    __syncthreads();
    unsigned long long at = block_base + warp_base[wid] + (inc - c);
    while (bits) {
        fidx[at++] = (FI)(k0 + __ffs(bits) - 1);
        bits &= bits - 1;
    }
}

// inclusive scan of one value per thread over a block of 1024 threads (warp shuffles, then
// the 32 warp totals); warp_tot: 32 shared slots
__device__ __forceinline__ long long warp_inclusive_scan(long long v) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const long long o = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d) v += o;
    }
    return v;
}
__device__ __forceinline__ long long block_inclusive_scan(long long v, long long* warp_tot) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    v = warp_inclusive_scan(v);
    if (lane == 31) warp_tot[wid] = v;
    __syncthreads();
    if (wid == 0) warp_tot[lane] = warp_inclusive_scan(warp_tot[lane]);
    __syncthreads();
    return v + (wid > 0 ? warp_tot[wid - 1] : 0);
}

// The exclusive scan of the frontier's column lengths in one launch: each stretch of 1024
// entries is scanned by one block (grid-stride over stretches: a grid of at most a few
// hundred blocks, however long the list may be) into offsets[f+1] = the lengths of its
// entries up to f, its total left in block_sums; the last block to finish turns the totals
// into the sums of the stretches before each. OFF(f) is then the sum of the lengths of
// entries 0 .. f-1 (OFF(nf): all). The same launch clears the output's flags and sets the
// workspace to the fold's start (fill): two launches and an allocation's memset fewer.
//
// One scratch array holds a call's counters and both scans (one allocation, the counters'
// 16 bytes zeroed by the host's memset): [the frontier's count when listed on the device,
// the scan's finished blocks | offsets: nf_cap + 1 | block_sums: one per stretch], nf_cap
// being the list's room (u's size for a bitmap u).
#define OFFSETS_IN(scratch) ((scratch) + 2)
#define BLOCK_SUMS_IN(scratch, nf_cap) ((scratch) + 3 + (nf_cap))
#define OFF(f) ((f) == 0 ? 0LL : offsets[f] + block_sums[((f) - 1) >> 10])
// present(:) = false; ws(:) = start when fill (ANY needs no start); grid-stride
__device__ __forceinline__ void clear_output(bool* __restrict__ present, Z* __restrict__ ws,
                                             long long n, Z start, int fill) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        present[i] = false;
        if (fill) ws[i] = start;
    }
}
extern "C" __global__ void __launch_bounds__(1024)
spmspv_scan(const IA* __restrict__ ptr, const FI* __restrict__ fidx, const long long nf_arg,
            long long* scratch, bool* __restrict__ present, Z* __restrict__ ws,
            const long long nout, const Z start, const int fill) {
    unsigned long long* nf_dev = (unsigned long long*)scratch;
    unsigned long long* done = nf_dev + 1;
    long long* offsets = OFFSETS_IN(scratch);
    long long* block_sums = BLOCK_SUMS_IN(scratch, nf_arg);
    __shared__ long long warp_tot[32];
    __shared__ long long chunk_total;
    clear_output(present, ws, nout, start, fill);
    const long long nf = (long long)FRONTIER_COUNT;
    const long long nstretch = (nf + 1023) >> 10;
    for (long long b = blockIdx.x; b < nstretch; b += gridDim.x) {
        const long long f = b * 1024 + threadIdx.x;
        long long len = 0;
        if (f < nf) {
            const long long k = (long long)fidx[f];
            len = (long long)ptr[k + 1] - (long long)ptr[k];
        }
        const long long inc = block_inclusive_scan(len, warp_tot);
        if (f < nf) offsets[f + 1] = inc;
        if (threadIdx.x == 1023) block_sums[b] = inc;
        __syncthreads();  // warp_tot is rewritten by the next stretch
    }
    // every block reports; the last one sees all totals
    if (!last_block_to_finish(done)) return;
    long long carry = 0;
    for (long long b0 = 0; b0 < nstretch; b0 += 1024) {
        const long long b = b0 + threadIdx.x;
        const long long v = b < nstretch ? ((volatile long long*)block_sums)[b] : 0;
        const long long incl = block_inclusive_scan(v, warp_tot);
        if (b < nstretch) block_sums[b] = carry + incl - v;
        if (threadIdx.x == 1023) chunk_total = incl;
        __syncthreads();
        carry += chunk_total;
        __syncthreads();  // warp_tot and chunk_total are rewritten by the next chunk
    }
}

// the output cleared alone (an empty frontier: no scan runs)
extern "C" __global__ void spmspv_clear(bool* __restrict__ present, Z* __restrict__ ws,
                                        const long long n, const Z start, const int fill) {
    clear_output(present, ws, n, start, fill);
}

// the last frontier entry f in [0, nf) with OFF(f) <= e, found by a whole warp: 32
// probes a round narrow the range 32-fold (3-4 rounds over 10^5 entries, where a binary
// search makes 17 dependent reads)
__device__ __forceinline__ long long warp_find(const long long* __restrict__ offsets,
                                               const long long* __restrict__ block_sums,
                                               long long nf, long long e) {
    const int lane = threadIdx.x & 31;
    long long lo = 0, hi = nf;  // OFF(lo) <= e; the answer lies in [lo, hi)
    while (hi - lo > 1) {
        const long long step = (hi - lo + 31) >> 5;
        const long long probe = lo + lane * step;
        const unsigned int le = __ballot_sync(FULL_MASK, probe < hi && OFF(probe) <= e);
        lo += (long long)(31 - __clz(le)) * step;  // lane 0's probe (lo) always qualifies
        hi = min(hi, lo + step);
    }
    return lo;
}

#define EDGES_PER_BLOCK ${EDGES_PER_BLOCK}
#define EDGES_THREADS ${EDGES_THREADS}
#define PER_THREAD (EDGES_PER_BLOCK / EDGES_THREADS)
#define SPAN ${SPAN}  // frontier entries a stretch may stage

// ⊗'s operands of the entry at position p of B's arrays and frontier position f (column
// fidx[f] or f)
__device__ __forceinline__ X a_at(const TA* __restrict__ ax, const TA a_iso, long long p) {
#if READ_A
    return cast_a(ax[p]);
#else
    return cast_a(a_iso);
#endif
}
__device__ __forceinline__ X u_at(const TU* __restrict__ fval, const FI* __restrict__ fidx,
                                  const TU u_iso, long long f) {
#if READ_U
    return cast_u(fval[U_AT(f)]);
#else
    return cast_u(u_iso);
#endif
}

// the term v folded into T(i) and T(i) marked present; under PRECHECK 2 (float min/max) a
// term the slot already beats is dropped (a slot holding a value has been, or is being,
// marked present by its writer)
__device__ __forceinline__ void fold(Z* __restrict__ ws, unsigned char* __restrict__ present,
                                     long long i, Z v, Z term) {
#if PRECHECK == 2
    const Z cur = ((volatile Z*)ws)[i];
#if FLOAT_MIN
    if (v >= cur) return;
#else
    if (v <= cur) return;
#endif
#endif
    combine(ws + i, v, term);
    present[i] = 1;
}

// one gathered entry, its loads one after another (the searching path)
__device__ __forceinline__ void gather_one(
        const IA* __restrict__ idx, const TA* __restrict__ ax, const TA a_iso,
        const FI* __restrict__ fidx, const TU* __restrict__ fval, const TU u_iso,
        const unsigned char* __restrict__ mmap, const TM* __restrict__ mval, const Z term,
        Z* __restrict__ ws, unsigned char* __restrict__ present, long long f, long long p) {
    const long long i = (long long)idx[p];
    if (allowed(mmap, mval, i))
        fold(ws, present, i,
             product(a_at(ax, a_iso, p), u_at(fval, fidx, u_iso, f), i, (long long)fidx[f]),
             term);
}

// inclusive running maximum over s[0 .. EDGES_PER_BLOCK) by a block of EDGES_THREADS, each
// thread taking PER_THREAD consecutive slots (a warp scan of the threads' maxima, then of the
// warps')
__device__ __forceinline__ void block_running_max(int* s, int* warp_max) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int* mine = s + threadIdx.x * PER_THREAD;
    int v[PER_THREAD];
#pragma unroll
    for (int r = 0; r < PER_THREAD; r++) v[r] = r ? max(v[r - 1], mine[r]) : mine[0];
    int run = v[PER_THREAD - 1];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int o = __shfl_up_sync(FULL_MASK, run, d);
        if (lane >= d) run = max(run, o);
    }
    if (lane == 31) warp_max[wid] = run;
    __syncthreads();
    int before = __shfl_up_sync(FULL_MASK, run, 1);
    if (lane == 0) before = 0;
    for (int w = 0; w < wid; w++) before = max(before, warp_max[w]);
#pragma unroll
    for (int r = 0; r < PER_THREAD; r++) mine[r] = max(before, v[r]);
}

// A block per stretch of EDGES_PER_BLOCK gathered entries (grid-stride over stretches). Two
// warps find the frontier entries at the stretch's ends; the block stages the entries
// between them (at most SPAN) in shared memory: each one's start within the stretch marks
// its owner there, and a running maximum gives every gathered entry its frontier entry (no
// per-entry search). Each thread then takes PER_THREAD entries, their loads batched.
// Stretches spanning more than SPAN frontier entries (many empty columns) search instead.
extern "C" __global__ void __launch_bounds__(EDGES_THREADS)
spmspv_edges(const IA* __restrict__ ptr, const IA* __restrict__ idx, const TA* __restrict__ ax,
             const TA a_iso, const FI* __restrict__ fidx, const TU* __restrict__ fval,
             const TU u_iso, const long long* scratch, const long long nf_arg,
             const unsigned char* __restrict__ mmap, const TM* __restrict__ mval, const Z term,
             Z* __restrict__ ws, unsigned char* __restrict__ present) {
#if U_BITMAP
    const unsigned long long* nf_dev = (const unsigned long long*)scratch;
#endif
    const long long* __restrict__ offsets = OFFSETS_IN(scratch);
    const long long* __restrict__ block_sums = BLOCK_SUMS_IN(scratch, nf_arg);
    __shared__ long long s_base[SPAN];        // B's position of entry e is s_base[owner] + e
    __shared__ int s_owner[EDGES_PER_BLOCK];  // staged frontier entry of each gathered entry
    __shared__ int warp_max[EDGES_THREADS / 32];
    __shared__ long long s_ends[2];
    const long long nf = (long long)FRONTIER_COUNT;
    if (nf == 0) return;
    const long long total = OFF(nf);
    const int wid = threadIdx.x >> 5;
    for (long long e0 = (long long)blockIdx.x * EDGES_PER_BLOCK; e0 < total;
         e0 += (long long)gridDim.x * EDGES_PER_BLOCK) {
        const long long e1 = min(e0 + EDGES_PER_BLOCK, total);
        if (wid < 2) {
            const long long f = warp_find(offsets, block_sums, nf, wid == 0 ? e0 : e1 - 1);
            if ((threadIdx.x & 31) == 0) s_ends[wid] = f;
        }
#pragma unroll
        for (int r = 0; r < PER_THREAD; r++) s_owner[r * EDGES_THREADS + threadIdx.x] = 0;
        __syncthreads();
        const long long flo = s_ends[0], span = s_ends[1] - flo + 1;
        if (span <= SPAN) {
            // staged entry t > 0 starts inside the stretch (entry 0 starts at or before e0);
            // empty ones share a start with the next, the largest t owning it
            for (long long t = threadIdx.x; t < span; t += EDGES_THREADS) {
                const long long o = OFF(flo + t);
                s_base[t] = (long long)ptr[fidx[flo + t]] - o;
                if (t > 0) atomicMax(&s_owner[o - e0], (int)t);
            }
            __syncthreads();
            block_running_max(s_owner, warp_max);
            __syncthreads();
            // the entries' loads in phases, each phase's loads in flight together: B's row
            // indices, the mask at them, the values; then the folds
            long long f[PER_THREAD], p[PER_THREAD], i[PER_THREAD];
#pragma unroll
            for (int r = 0; r < PER_THREAD; r++) {
                const long long e = e0 + r * EDGES_THREADS + threadIdx.x;
                const int t = s_owner[r * EDGES_THREADS + threadIdx.x];
                f[r] = flo + t;
                p[r] = s_base[t] + e;
                i[r] = e < e1 ? (long long)idx[p[r]] : -1;
            }
#pragma unroll
            for (int r = 0; r < PER_THREAD; r++)
                if (i[r] >= 0 && !allowed(mmap, mval, i[r])) i[r] = -1;
            X a[PER_THREAD], x[PER_THREAD];
#pragma unroll
            for (int r = 0; r < PER_THREAD; r++) {
                if (i[r] < 0) continue;
                a[r] = a_at(ax, a_iso, p[r]);
                x[r] = u_at(fval, fidx, u_iso, f[r]);
            }
#if PRECHECK == 1
            // ANY: an output already written needs no other writer
#pragma unroll
            for (int r = 0; r < PER_THREAD; r++)
                if (i[r] >= 0 && ((volatile unsigned char*)present)[i[r]]) i[r] = -1;
#endif
#pragma unroll
            for (int r = 0; r < PER_THREAD; r++)
                if (i[r] >= 0)
                    fold(ws, present, i[r], product(a[r], x[r], i[r], (long long)fidx[f[r]]),
                         term);
        } else {
            for (long long e = e0 + threadIdx.x; e < e1; e += EDGES_THREADS) {
                long long lo = flo, hi = flo + span;  // OFF(lo) <= e < OFF(lo + 1)
                while (hi - lo > 1) {
                    const long long mid = (lo + hi) >> 1;
                    if (OFF(mid) <= e) lo = mid; else hi = mid;
                }
                gather_one(idx, ax, a_iso, fidx, fval, u_iso, mmap, mval, term, ws, present,
                           lo, (long long)ptr[fidx[lo]] + (e - OFF(lo)));
            }
        }
        __syncthreads();  // the stage is rewritten by the next stretch
    }
}
"""


def _combine_kind(prod):
    mon = prod.semiring.monoid
    if mon.op.all_terminal:
        return 0, None
    native = native_atomic(mon.op.name, prod.tout)
    if native is not None:
        return 1, native
    if prod.tout.is_bool and mon.terminal is not None:
        return 2, None
    if mon.op.name in ("min", "max") and np.dtype(prod.tout.np_type).kind == "f":
        return 4, None
    return 3, None


def _start(prod, kind):
    """The workspace's start for ⊕ (ANY needs none: any writer is a right answer); float
    max by integer atomics starts at -NaN (see COMBINE 4)."""
    tout = prod.tout
    if kind == 0:
        return tout.np_type.type(0)
    start = tout.np_type.type(fold_start(prod.semiring.monoid, tout))
    if kind == 4 and prod.semiring.monoid.op.name == "max":
        start = -start
    return start


class _Plan:
    """What a push needs beyond its operands, made once per kernel key: the module's kernels
    and the scalars the key fixes (⊕'s start, its terminal, whether the start is written)."""

    __slots__ = ("kernels", "start", "fill", "term")

    def __init__(self, key, kind, prod, B, u, mask, read_a, read_u, fidx_dtype, bitmap_u):
        args = (prod, B, u, mask, read_a, read_u, fidx_dtype, bitmap_u)
        self.kernels = get_functions(key, lambda: _source(*args), _KERNEL_NAMES)
        self.start = _start(prod, kind)
        self.fill = np.int32(kind != 0)
        _, term = prod.stop
        self.term = prod.tout.np_type.type(0 if term is None else term)


def _source(prod, B, u, mask, read_a, read_u, fidx_dtype, bitmap_u):
    tout = prod.tout
    kind, native = _combine_kind(prod)
    atomic, atomic_t = native or ("", "")
    return operand_source(prod, B.dtype, u.dtype, B.idx.dtype, mask, read_a, read_u) + \
        Template(_PUSH).substitute(COMBINE=kind, ATOMIC=atomic, ATOMIC_T=atomic_t,
                                   SMALL=int(tout.np_type.itemsize < 4),
                                   FLOAT_MIN=int(prod.semiring.monoid.op.name == "min"),
                                   FLOAT_BYTES=tout.np_type.itemsize,
                                   FI=c_index_type(fidx_dtype), U_BITMAP=int(bitmap_u),
                                   EDGES_PER_BLOCK=EDGES_PER_BLOCK, EDGES_THREADS=EDGES_THREADS,
                                   COMPACT_SPAN=COMPACT_SPAN,
                                   SPAN=EDGES_SPAN, PRECHECK=PRECHECK.get(kind, 0))


_plans = {}  # (threads: get-then-set; two may both make a value, equal, either kept)


def _plan(prod, B, u, mask, read_a, read_u, fidx_dtype, bitmap_u):
    kind, _ = _combine_kind(prod)
    key = kernel_key("spmspv", "push_edges", prod, B.dtype, u.dtype, B.idx.dtype, mask,
                          read_a, read_u, extra=(_COMBINE_NAMES[kind],
                                                 ("frontier", backend.dtype_name(fidx_dtype)),
                                                 _U_FORMS[bitmap_u]))
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = _Plan(key, kind, prod, B, u, mask, read_a, read_u, fidx_dtype,
                                   bitmap_u)
    return plan


def _push_cuda(B, u, prod, mask, nout):
    bitmap_u = isinstance(u, DenseOperand)
    read_a, read_u = B.values is not None, u.values is not None
    _mark("start")
    # T's values and flags (both cleared by the scan's launch), allocated before any launch
    present = xp.empty(nout, dtype=bool)
    ws = xp.empty(nout, dtype=prod.tout.np_type)
    if bitmap_u:
        # listed on the device, counted there: nothing is read back (a BFS level stays
        # asynchronous); the list has room for every position
        nf = len(u.bitmap)
        fidx = xp.empty(nf, dtype=np.int32 if nf < 2**31 else np.int64)
    else:
        nf = len(u.indices)
        fidx = u.indices
    plan = _plan(prod, B, u, mask, read_a, read_u, fidx.dtype, bitmap_u)
    kernel = plan.kernels
    clear = (present, ws, np.int64(nout), plan.start, plan.fill)
    if nf == 0 or nout == 0:
        if nout:
            kernel["spmspv_clear"](launch.strided_grid(nout), launch.BLOCK, clear)
        return _finish(ws, present, 0, nout)
    d = dummy()
    # [2 counters | offsets | the stretches' totals] (the layout the kernels' OFFSETS_IN and
    # BLOCK_SUMS_IN name), the counters zeroed by a memset of their 16 bytes
    nstretch = -(-nf // 1024)
    scratch = xp.empty(3 + nf + nstretch, dtype=np.int64)
    xp.cuda.runtime.memsetAsync(scratch.data.ptr, 0, 16, xp.cuda.get_current_stream().ptr)
    nf_arg = np.int64(nf)
    if bitmap_u:
        kernel["spmspv_compact"]((-(-nf // COMPACT_SPAN),), (1024,),
                                 (u.bitmap, nf_arg, fidx, scratch))
    _mark("workspace")
    sms = launch.sm_count()
    kernel["spmspv_scan"]((2 * sms,), (1024,), (B.ptr, fidx, nf_arg, scratch, *clear))
    _mark("offsets")
    # a block per EDGES_PER_BLOCK gathered entries, grid-stride over any excess
    if bitmap_u:  # the count is on the device: a full grid
        blocks = sms * launch.BLOCKS_PER_SM
        est = nout  # the result stays a bitmap
    else:
        avg = len(B.idx) / max(len(B.ptr) - 1, 1)
        est = nf * avg  # expected gathered entries
        blocks = min(-(-int(est) // EDGES_PER_BLOCK) + 1, sms * launch.BLOCKS_PER_SM)
    kernel["spmspv_edges"](
        (blocks,), (EDGES_THREADS,),
        (B.ptr, B.idx, B.values if read_a else d, scalar_arg(B.iso, B.dtype), fidx,
         u.values if read_u else d, scalar_arg(u.iso, u.dtype), scratch, nf_arg,
         mask.bitmap if mask is not None else d,
         mask.values if (mask is not None and mask.values is not None) else d,
         plan.term, ws, present))
    _mark("edges")
    return _finish(ws, present, est, nout)


_KERNEL_NAMES = ("spmspv_clear", "spmspv_compact", "spmspv_scan", "spmspv_edges")
_COMBINE_NAMES = {k: ("combine", str(k)) for k in range(5)}
_U_FORMS = {True: ("u", "bitmap"), False: ("u", "sparse")}


def _finish(ws, present, est_touched, nout):
    """Leave the workspace dense when many outputs may be touched, else compact it."""
    if est_touched > DENSE_THRESHOLD * nout:
        return "dense", ws, present
    idx = xp.nonzero(present)[0]
    return "sparse", idx, ws[idx]


def _push_numpy(B, u, prod, mask, nout, plan_cache=None):
    if isinstance(u, DenseOperand):
        idx = xp.nonzero(u.bitmap)[0]
        u = SparseOperand(idx, None if u.values is None else u.values[idx], u.iso, u.dtype)
    k = u.indices
    ptr = B.ptr
    ends = ptr[1:].take(k)
    lens = ends - ptr.take(k)
    mult, add = prod.semiring.op.multiply, prod.semiring.monoid.op
    if add.all_terminal and prod.positional and _sparsetools is not None and _c_indices(B):
        return _push_any_positional_c(B, prod, mask, k, lens, plan_cache, nout)
    ufuncs = (getattr(mult, "ufunc", None) is not None and add.ufunc is not None
              and not prod.tout.is_bool)
    if ufuncs and add.name == "plus" and _sparsetools is not None and _plus_in_c(B, prod):
        return _push_plus_c(B, u, prod, mask, k, lens, mult.ufunc, nout)
    # the entries of B's vectors k, in order: entry e of vector k[v] is at
    # ends[v] - (terms up to and including vector v) + e, e counted over all the terms
    cs = lens.cumsum()
    total = int(cs[-1]) if len(cs) else 0
    if total == 0:
        return "sparse", B.idx[:0], xp.empty(0, dtype=prod.tout.np_type)
    pos = (ends - cs).repeat(lens)
    pos += np.arange(total)
    i = B.idx.take(pos)  # (B's index type: T's indices are cast to their own on the way out)
    if add.all_terminal:
        # ANY keeps each output's first term (in stable order): compute only those, and
        # test the mask on them alone (it allows or refuses all of an output's terms)
        order = _stable_order(i, nout)
        keys = i.take(order)
        starts = run_starts(keys)
        first, i = order.take(starts), keys.take(starts)
        if mask is not None:
            keep = _allowed_at(mask, i)
            first, i = first[keep], i[keep]
        # the vector each first term came from
        owner = cs.searchsorted(first, side="right")
        return "sparse", i, _products(B, u, prod, pos.take(first), owner, i, k)
    if ufuncs:
        return _push_ufuncs(B, u, prod, mask, lens, pos, i, mult.ufunc, add.ufunc, nout)
    owner = np.arange(len(k)).repeat(lens)
    if mask is not None:
        keep = _allowed_at(mask, i)
        pos, owner, i = pos[keep], owner[keep], i[keep]
    order = _stable_order(i, nout)
    z = _products(B, u, prod, pos, owner, i, k)
    out, vals = fold_sorted(i.take(order), z.take(order), prod)
    return "sparse", out, vals


def _checked_sparsetools():
    """scipy.sparse's C++ CSR helpers, or None (NumPy calls instead) where the private module
    is missing or its functions no longer answer as used here: each is tried once on a
    2 × 2 matrix."""
    try:
        from scipy.sparse import _sparsetools as st
        i32 = np.int32
        ptr, idx = np.array([0, 1, 2], i32), np.array([1, 0], i32)
        rows, out_i = np.array([1], i32), np.empty(1, i32)
        out_x = np.empty(1, np.float64)
        st.csr_row_index(1, rows, ptr, idx, np.array([5.0, 7.0]), out_i, out_x)
        ap, ci, cx = np.array([0, 3], i32), np.array([2, 0, 2], i32), np.array([1.0, 2.0, 3.0])
        st.csr_sort_indices(1, ap, ci, cx)
        st.csr_sum_duplicates(1, 3, ap, ci, cx)
        ok = (out_i.tolist() == [0] and out_x.tolist() == [7.0] and ap.tolist() == [0, 2]
              and ci[:2].tolist() == [0, 2] and cx[:2].tolist() == [2.0, 4.0])
        return st if ok else None
    except Exception:  # (any change of a private API: fall back, never fail a product)
        return None


_sparsetools = _checked_sparsetools()


def _stable_order(i, nout):
    """i.argsort(kind="stable"): by NumPy's radix sort (16-bit keys) when the outputs fit
    and the terms are many enough for it to pay."""
    if len(i) >= 256 and nout is not None and nout <= 1 << 16:
        return i.astype(np.uint16).argsort(kind="stable")
    return i.argsort(kind="stable")


def _c_indices(B):
    """B's offsets and indices are of one type that scipy's C++ loops take."""
    return B.ptr.dtype == B.idx.dtype and B.idx.dtype in (np.int32, np.int64)


def _push_any_positional_c(B, prod, mask, k, lens, plan_cache, nout):
    """ANY with a positional ⊗ (BFS's any.secondi): each term's output index and the vector
    it came from copied by csr_row_index (B's vector ids kept with the matrix), the mask
    tested at the terms, and each output's first term (in stable order) kept."""
    itype = B.idx.dtype
    ptr = B.ptr
    ids = kept(plan_cache, ("push_vector_ids", id(ptr)),
               lambda: backend.row_ids(ptr, len(B.idx), itype), owner=ptr)
    total = int(lens.sum())
    i, kk = xp.empty(total, dtype=itype), xp.empty(total, dtype=itype)
    _sparsetools.csr_row_index(len(k), k.astype(itype, copy=False), ptr, B.idx, ids, i, kk)
    if mask is not None:
        keep = _allowed_at(mask, i)
        i, kk = i[keep], kk[keep]
    if not len(i):
        return "sparse", i, xp.empty(0, dtype=prod.tout.np_type)
    order = _stable_order(i, nout)
    keys = i.take(order)
    starts = run_starts(keys)
    i = keys.take(starts)
    return "sparse", i, apply_product(prod, None, None, i, kk.take(order.take(starts)))


def _plus_in_c(B, prod):
    """⊕ = plus over a numeric type, B's offsets and indices of one integer type: the terms
    are gathered and summed by scipy's C++ loops (exactly: integers wrap as in NumPy and
    SuiteSparse; floats summed in one order, within rounding of any other)."""
    return _c_indices(B) and prod.tout.np_type.kind in "iuf"


def _push_plus_c(B, u, prod, mask, k, lens, mult, nout):
    """T = B plus.⊗ u over the vectors k: the terms' indices (and B's values) copied by
    csr_row_index, ⊗ as a ufunc (u's values repeated by the vectors' lengths), the terms
    sorted by output and equal outputs summed in place (csr_sort_indices,
    csr_sum_duplicates over one row)."""
    itype = B.idx.dtype
    total = int(lens.sum())
    i = xp.empty(total, dtype=itype)
    # B's values, or (iso: not read) its indices again, as the copied values
    src = B.values if B.values is not None else B.idx
    a = xp.empty(total, dtype=src.dtype)
    _sparsetools.csr_row_index(len(k), k.astype(itype, copy=False), B.ptr, B.idx, src, i, a)
    i, z = _terms(a, B, u, prod, mask, lens, i, mult)
    ap = np.array([0, len(i)], dtype=itype)
    _sparsetools.csr_sort_indices(1, ap, i, z)
    _sparsetools.csr_sum_duplicates(1, nout, ap, i, z)
    m = int(ap[1])
    return "sparse", i[:m], z[:m]


def _push_ufuncs(B, u, prod, mask, lens, pos, i, mult, add, nout):
    """The terms and their fold when ⊗ and ⊕ are NumPy ufuncs: ⊗ over the terms (u's values
    repeated by the lengths of its vectors, B's gathered), ⊕ by one reduceat over the terms
    sorted (stably) by output, both under one errstate (the operators' results are defined
    values, not warnings)."""
    i, z = _terms(B.values.take(pos) if B.values is not None else None, B, u, prod, mask,
                  lens, i, mult)
    if not len(i):
        return "sparse", i, z
    with np.errstate(all="ignore"):
        order = _stable_order(i, nout)
        keys = i.take(order)
        starts = run_starts(keys)
        vals = add.reduceat(z.take(order), starts, dtype=z.dtype)
    return "sparse", keys.take(starts), vals


def _terms(a, B, u, prod, mask, lens, i, mult):
    """(i, z): the terms ⊗(a, x) at the outputs i, in T's type, those the mask refuses
    dropped; a: B's values at the terms (unread where B is iso), x: u's values repeated by
    the lengths of its vectors."""
    tin = prod.tin
    a = cast(a, tin, xp) if B.values is not None else iso_scalar(B.iso, tin)
    x = cast(u.values, tin, xp).repeat(lens) if u.values is not None else iso_scalar(u.iso, tin)
    with np.errstate(all="ignore"):   # (the operators' results are defined values)
        z = mult(a, x) if prod.matrix_first else mult(x, a)
        if z.shape != i.shape:
            z = xp.full(i.shape, z, dtype=z.dtype)
        z = cast(z, prod.tout, xp)
    if mask is not None:
        keep = _allowed_at(mask, i)
        i, z = i[keep], z[keep]
    return i, z


def _allowed_at(mask, i):
    """allowed_rows(mask, n)[i], reading the mask at the outputs i only."""
    m = mask.bitmap.take(i).astype(bool, copy=False)
    if mask.values is not None:
        m = m & (mask.values.take(i) != 0)
    return ~m if mask.complement else m


def _products(B, u, prod, pos, owner, i, k):
    """The terms B(i, k[owner]) ⊗ u(k[owner]) at B's entry positions ``pos``, in T's type."""
    if prod.positional:  # the terms are indices: no values read
        return apply_product(prod, None, None, i, k[owner])
    a = operand_values(B, pos, prod.tin)
    x = operand_values(u, owner, prod.tin)
    return apply_product(prod, a, x, i, k[owner])


def push(B, u, prod, mask=None, nout=None, plan_cache=None):
    """T = B ⊕.⊗ u over the columns u names; ``nout`` = T's size (B's row count). u is a
    SparseOperand, or a DenseOperand (a bitmap: on the GPU its entries are listed and counted
    on the device, and T is left dense, so nothing is read back to the host).
    ``plan_cache``: the cache of B's matrix (NumPy: arrays derived from B's structure).
    Returns ('dense', values, bitmap) or ('sparse', indices, values)."""
    if backend.is_gpu:
        return _push_cuda(B, u, prod, mask, nout)
    return _push_numpy(B, u, prod, mask, nout, plan_cache)
