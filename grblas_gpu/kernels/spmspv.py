"""Push SpMSpV: T = B ⊕.⊗ u for a sparse u, gathering only the columns of B that u names.

    T(i) = ⊕_{k ∈ u, B(i,k)} B(i,k) ⊗ u(k)      (``matrix_first``; vxm swaps ⊗'s operands)

B arrives by columns (a :class:`~grblas_gpu.kernels.spmv.Compressed` over B's columns: A's
cached CSC for B = A, A's CSR for B = Aᵀ), u as a
:class:`~grblas_gpu.kernels.spmv.SparseOperand`; outputs the mask excludes are skipped.

NumPy: expand the columns u names, products through the multiply's NumPy function, a
stable sort by output index, ``segment_reduce``.

CuPy: one thread per gathered entry, load-balanced over the frontier: an exclusive scan
of the column lengths (block scans, then the block totals carried) gives every entry a
global number, and each thread finds its column
by binary search in the scan (hub columns spread over many threads). Each product is
folded into a dense workspace of T's type with one atomic per output: atomicAdd /
atomicMin / atomicMax / atomicOr-And-Xor where CUDA has them for the type; for BOOL
lor/land an idempotent store of the absorbing value; ANY a plain store (any writer is a
right answer); otherwise a compare-and-swap loop on the ⊕ C expression (on the enclosing
4-byte word for 1- and 2-byte types). A presence byte per output marks the touched ones.
The workspace is the result when dense is cheaper (more than DENSE_THRESHOLD of the
outputs may be touched), else it is compacted to a sorted sparse vector.
"""
from string import Template

import numpy as np

from .. import backend
from ..vector import DENSE_THRESHOLD
from . import launch, spmv
from .cache import get_kernel
from .cuda_common import c_index_type, fold_start

xp = backend.xp

__all__ = ["push", "native_atomic"]

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
#define COMBINE ${COMBINE}  // 0 plain store (ANY), 1 native atomic, 2 store if absorbing, 3 CAS

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

// fidx[0 .. *count) = the positions k < n where bitmap[k]: one atomic per block reserves
// the block's stretch of the list, warp ballots place each entry in it
extern "C" __global__ void __launch_bounds__(1024)
spmspv_compact(const unsigned char* __restrict__ bitmap, const long long n,
               FI* __restrict__ fidx, unsigned long long* __restrict__ count) {
    __shared__ int warp_base[32];
    __shared__ unsigned long long block_base;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const long long k = (long long)blockIdx.x * 1024 + threadIdx.x;
    const bool set = k < n && bitmap[k];
    const unsigned int ballot = __ballot_sync(FULL_MASK, set);
    if (lane == 0) warp_base[wid] = __popc(ballot);
    __syncthreads();
    if (wid == 0) {
        const int c = warp_base[lane];
        int inc = c;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int o = __shfl_up_sync(FULL_MASK, inc, d);
            if (lane >= d) inc += o;
        }
        warp_base[lane] = inc - c;
        if (lane == 31) block_base = inc ? atomicAdd(count, (unsigned long long)inc) : 0ull;
    }
    __syncthreads();
    if (set) fidx[block_base + warp_base[wid] + __popc(ballot & ((1u << lane) - 1u))] = (FI)k;
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

// offsets[f+1] = Σ lengths of the columns frontier entries ..f name, in two parallel steps:
// each block of 1024 entries scans its own lengths (and leaves its total), then every later
// block adds the totals of the blocks before it

extern "C" __global__ void __launch_bounds__(1024)
spmspv_scan_blocks(const IA* __restrict__ ptr, const FI* __restrict__ fidx, const long long nf_arg,
                   const unsigned long long* __restrict__ nf_dev,
                   long long* __restrict__ offsets, long long* __restrict__ block_sums) {
    __shared__ long long warp_tot[32];
    const long long nf = (long long)FRONTIER_COUNT;
    if ((long long)blockIdx.x * 1024 >= nf && blockIdx.x > 0) return;  // past a device count
    const long long f = (long long)blockIdx.x * 1024 + threadIdx.x;
    long long len = 0;
    if (f < nf) {
        const long long k = (long long)fidx[f];
        len = (long long)ptr[k + 1] - (long long)ptr[k];
    }
    const long long inc = block_inclusive_scan(len, warp_tot);
    if (f < nf) offsets[f + 1] = inc;
    if (threadIdx.x == 1023) block_sums[blockIdx.x] = inc;
    if (f == 0) offsets[0] = 0;
}

extern "C" __global__ void __launch_bounds__(1024)
spmspv_scan_carry(const long long nf_arg, const unsigned long long* __restrict__ nf_dev,
                  const long long* __restrict__ block_sums, long long* __restrict__ offsets) {
    __shared__ long long warp_tot[32];
    const long long nf = (long long)FRONTIER_COUNT;
    const long long b = (long long)blockIdx.x + 1;  // block 0 of the scan has no carry
    if (b * 1024 >= nf) return;
    long long v = 0;
    for (long long t = threadIdx.x; t < b; t += 1024) v += block_sums[t];
    v = block_inclusive_scan(v, warp_tot);
    __shared__ long long carry;
    if (threadIdx.x == 1023) carry = v;
    __syncthreads();
    const long long f = b * 1024 + threadIdx.x;
    if (f < nf) offsets[f + 1] += carry;
}

// one thread per gathered entry e < offsets[nf] (grid-stride)
extern "C" __global__ void __launch_bounds__(256)
spmspv_edges(const IA* __restrict__ ptr, const IA* __restrict__ idx, const TA* __restrict__ ax,
             const TA a_iso, const FI* __restrict__ fidx, const TU* __restrict__ fval,
             const TU u_iso, const long long* __restrict__ offsets, const long long nf_arg,
             const unsigned long long* __restrict__ nf_dev,
             const unsigned char* __restrict__ mmap, const TM* __restrict__ mval, const Z term,
             Z* __restrict__ ws, unsigned char* __restrict__ present) {
    const long long nf = (long long)FRONTIER_COUNT;
    const long long total = offsets[nf];
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        long long lo = 0, hi = nf;  // offsets[lo] <= e < offsets[hi]
        while (hi - lo > 1) {
            const long long mid = (lo + hi) >> 1;
            if (offsets[mid] <= e) lo = mid; else hi = mid;
        }
        const long long p = (long long)ptr[fidx[lo]] + (e - offsets[lo]);
        const long long i = (long long)idx[p];
        if (!allowed(mmap, mval, i)) continue;
#if READ_A
        const X a = cast_a(ax[p]);
#else
        const X a = cast_a(a_iso);
#endif
#if READ_U
        const X x = cast_u(fval[U_AT(lo)]);
#else
        const X x = cast_u(u_iso);
#endif
        combine(ws + i, product(a, x), term);
        present[i] = 1;
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
    return 3, None


def _push_cuda(B, u, prod, mask, nout):
    tout = prod.tout
    bitmap_u = isinstance(u, spmv.DenseOperand)
    read_a, read_u = B.values is not None, u.values is not None
    kind, native = _combine_kind(prod)
    _mark("start")
    present = xp.zeros(nout, dtype=bool)
    if kind == 0:
        ws = xp.empty(nout, dtype=tout.np_type)
    else:
        ws = xp.full(nout, fold_start(prod.semiring.monoid, tout), dtype=tout.np_type)
    if bitmap_u:
        # listed on the device, counted there: nothing is read back (a BFS level stays
        # asynchronous); the list has room for every position
        nf = len(u.bitmap)
        fidx = xp.empty(nf, dtype=np.int32 if nf < 2**31 else np.int64)
    else:
        nf = len(u.indices)
        fidx = u.indices
    if nf == 0 or nout == 0:
        return _finish(ws, present, 0, nout)
    key = spmv.kernel_key("spmspv", "push_edges", prod, B.dtype, u.dtype, B.idx.dtype, mask,
                          read_a, read_u, extra=(("combine", str(kind)),
                                                 ("frontier", fidx.dtype.name),
                                                 ("u", "bitmap" if bitmap_u else "sparse")))

    def build():
        atomic, atomic_t = native or ("", "")
        return spmv.operand_source(prod, B.dtype, u.dtype, B.idx.dtype, mask, read_a, read_u) + \
            Template(_PUSH).substitute(COMBINE=kind, ATOMIC=atomic, ATOMIC_T=atomic_t,
                                       SMALL=int(tout.np_type.itemsize < 4),
                                       FI=c_index_type(fidx.dtype), U_BITMAP=int(bitmap_u))

    def kernel(name):  # (memoised per name: RawModule.get_function costs ~5 µs a call)
        return get_kernel(key, build, name)

    d = spmv.dummy()
    count = d
    if bitmap_u:
        count = xp.zeros(1, dtype=np.uint64)
        kernel("spmspv_compact")((-(-nf // 1024),), (1024,), (u.bitmap, np.int64(nf), fidx, count))
    _mark("workspace")
    offsets = xp.empty(nf + 1, dtype=np.int64)
    nblocks = -(-nf // 1024)
    block_sums = xp.empty(nblocks, dtype=np.int64)
    kernel("spmspv_scan_blocks")((nblocks,), (1024,),
                                 (B.ptr, fidx, np.int64(nf), count, offsets, block_sums))
    if nblocks > 1:
        kernel("spmspv_scan_carry")((nblocks - 1,), (1024,),
                                    (np.int64(nf), count, block_sums, offsets))
    _mark("offsets")
    if bitmap_u:  # the count is on the device: a full grid, which the edge loop strides
        blocks = launch.strided_grid(nout * launch.THREADS)[0]
        est = nout  # the result stays a bitmap
    else:
        avg = len(B.idx) / max(len(B.ptr) - 1, 1)
        est = nf * avg  # expected gathered entries; the grid-stride loop covers any excess
        blocks = launch.strided_grid(est)[0]
    _, term = prod.stop
    term = tout.np_type.type(0) if term is None else tout.np_type.type(term)
    kernel("spmspv_edges")(
        (blocks,), (launch.THREADS,),
        (B.ptr, B.idx, B.values if read_a else d, spmv.scalar_arg(B.iso, B.dtype), fidx,
         u.values if read_u else d, spmv.scalar_arg(u.iso, u.dtype), offsets, np.int64(nf),
         count, mask.bitmap if mask is not None else d,
         mask.values if (mask is not None and mask.values is not None) else d,
         term, ws, present))
    _mark("edges")
    return _finish(ws, present, est, nout)


def _finish(ws, present, est_touched, nout):
    """Leave the workspace dense when many outputs may be touched, else compact it."""
    if est_touched > DENSE_THRESHOLD * nout:
        return "dense", ws, present
    idx = xp.nonzero(present)[0]
    return "sparse", idx, ws[idx]


def _push_numpy(B, u, prod, mask, nout):
    if isinstance(u, spmv.DenseOperand):
        idx = xp.nonzero(u.bitmap)[0]
        u = spmv.SparseOperand(idx, None if u.values is None else u.values[idx], u.iso, u.dtype)
    pos, owner = spmv.expand(B.ptr, u.indices.astype(np.int64, copy=False))
    i = B.idx[pos].astype(np.int64)
    if mask is not None:
        keep = spmv.allowed_rows(mask, nout)[i]
        pos, owner, i = pos[keep], owner[keep], i[keep]
    a = spmv.operand_values(B, pos, prod.tin)
    x = spmv.operand_values(u, owner, prod.tin)
    z = spmv.apply_product(prod, a, x)
    order = xp.argsort(i, kind="stable")
    out, vals = spmv.fold_sorted(i[order], z[order], prod)
    return "sparse", out, vals


def push(B, u, prod, mask=None, nout=None):
    """T = B ⊕.⊗ u over the columns u names; ``nout`` = T's size (B's row count). u is a
    SparseOperand, or a DenseOperand (a bitmap: on the GPU its entries are listed and counted
    on the device, and T is left dense, so nothing is read back to the host).
    Returns ('dense', values, bitmap) or ('sparse', indices, values)."""
    if backend.is_gpu:
        return _push_cuda(B, u, prod, mask, nout)
    return _push_numpy(B, u, prod, mask, nout)
