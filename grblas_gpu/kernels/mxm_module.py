"""The one compiled CUDA module of mxm: the SpGEMM (saxpy) kernels launched by
kernels.spgemm_cuda and the masked-dot kernels launched by kernels.masked_dot, compiled
together so that one compilation per semiring, types and index types serves both. Both
launcher modules import :func:`module` from here, and the constants compiled into it.
"""
from string import Template

import numpy as np

from .cache import KernelKey, get_functions
from .cuda_common import c_index_type, header

__all__ = ["module", "source", "SHARED_BINS", "HEAVY_THREADS", "HASH_SLOTS", "HASH_WARPS",
           "HASH_UNROLL"]

# (table slots, threads per block): a row goes to the first bin with u(i) <= slots/2
SHARED_BINS = ((64, 32), (256, 64), (1024, 128), (2048, 256))
HEAVY_THREADS = 512          # threads per block for rows beyond the shared bins
# the masked dot's hash kind: each warp's table has HASH_SLOTS slots (at most a quarter of
# them filled), HASH_WARPS warps a block
HASH_SLOTS = 1024
HASH_WARPS = 4
HASH_UNROLL = 4      # indices of B(:,j) each lane loads before probing them

SAXPY_KERNELS = r"""
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



# the masked-dot kernels (launched by kernels.masked_dot), one instance per mask index type
DOT_KERNELS = r"""
#define HAS_TERMINAL ${HAS_TERMINAL}

__device__ __forceinline__ bool at_terminal(Z acc, Z terminal) {
#if ANY_MONOID
    return true;
#elif HAS_TERMINAL
    return acc == terminal;
#else
    return false;
#endif
}

// every dot kernel's parameters (the launcher passes the same arguments to each kind)
#define DOT_PARAMS(IM) const IA* __restrict__ Ap, const IA* __restrict__ Aj, \
        const X* __restrict__ Ax, long long am, const IB* __restrict__ Bp, \
        const IB* __restrict__ Bi, const X* __restrict__ Bx, long long bm, \
        const IM* __restrict__ mi, const IM* __restrict__ mj, \
        const long long* __restrict__ ents, long long n, Z terminal, Z* __restrict__ out, \
        bool* __restrict__ present
#define DOT_ARGS Ap, Aj, Ax, am, Bp, Bi, Bx, bm, mi, mj, ents, n, terminal, out, present

// one thread per mask entry: merge the two sorted lists
template <typename IM>
__device__ void dot_thread(DOT_PARAMS(IM)) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const long long e = ents[t];
    long long pa = Ap[mi[e]], ea = Ap[mi[e] + 1], pb = Bp[mj[e]], eb = Bp[mj[e] + 1];
    bool has = false;
    Z acc = Z();
    while (pa < ea && pb < eb) {
        const long long ka = Aj[pa], kb = Bi[pb];
        if (ka < kb) { ++pa; continue; }
        if (kb < ka) { ++pb; continue; }
        const Z v = mult_op(value_at(Ax, pa, am), value_at(Bx, pb, bm), (long long)mi[e], ka,
                            (long long)mj[e]);
        acc = has ? add_op(acc, v) : v;
        has = true;
        if (at_terminal(acc, terminal)) break;
        ++pa; ++pb;
    }
    present[e] = has;
    if (has) out[e] = acc;
}

// V lanes per mask entry (aligned groups of a warp): the lanes take the shorter list's
// indices and binary-search the longer one. Neighbouring groups hold neighbouring entries
// (of one mask row, mostly), so the row of A they search stays in L1.
template <int V, typename IM>
__device__ void dot_group(DOT_PARAMS(IM)) {
    const long long g = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / V;
    const int lane = threadIdx.x & 31;
    const int l = lane & (V - 1);
    const unsigned gmask = (V == 32) ? FULL_MASK
                                     : (((1u << (V & 31)) - 1u) << (lane & ~(V - 1)));
    if (((long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31)) / V >= n)
        return;  // the whole warp is past the end (no lane takes part in the shuffles)
    long long e = -1, s0 = 0, s1 = 0, l0 = 0, l1 = 0;
    bool a_short = true;
    if (g < n) {
        e = ents[g];
        const long long pa = Ap[mi[e]], ea = Ap[mi[e] + 1], pb = Bp[mj[e]], eb = Bp[mj[e] + 1];
        a_short = (ea - pa) <= (eb - pb);
        s0 = a_short ? pa : pb; s1 = a_short ? ea : eb;
        l0 = a_short ? pb : pa; l1 = a_short ? eb : ea;
    }
    bool has = false;
    Z acc = Z();
    long long found = l1;
    for (long long base = s0; base < s1; base += V) {
        const long long s = base + l;
        if (s < s1) {
            const long long k = a_short ? (long long)Aj[s] : (long long)Bi[s];
            long long lo = l0, hi = l1;
            while (lo < hi) {
                const long long mid = (lo + hi) >> 1;
                const long long km = a_short ? (long long)Bi[mid] : (long long)Aj[mid];
                if (km < k) lo = mid + 1; else hi = mid;
            }
            const long long km = lo < l1 ? (a_short ? (long long)Bi[lo] : (long long)Aj[lo]) : -1;
            if (km == k) {
                const Z v = a_short
                    ? mult_op(value_at(Ax, s, am), value_at(Bx, lo, bm), (long long)mi[e], k, (long long)mj[e])
                    : mult_op(value_at(Ax, lo, am), value_at(Bx, s, bm), (long long)mi[e], k, (long long)mj[e]);
                acc = has ? add_op(acc, v) : v;
                has = true;
            }
            found = lo;
        }
        if (__any_sync(gmask, has && at_terminal(acc, terminal))) break;
        // the next round's indices exceed this round's last: its searches start where the
        // group's last lane stopped (the longer list narrows as the shorter one is walked)
        l0 = __shfl_sync(gmask, found, V - 1, V);
    }
    for (int off = V / 2; off > 0; off >>= 1) {
        const Z other = shfl_down_z(acc, off);
        const int other_has = __shfl_down_sync(FULL_MASK, (int)has, off);
        if (other_has) { acc = has ? add_op(acc, other) : other; has = true; }
    }
    if (l == 0 && e >= 0) {
        present[e] = has;
        if (has) out[e] = acc;
    }
}

// A warp per 32 consecutive entries of the hash kind (|A(i,:)| <= HASH_SLOTS / 4). For each
// run of entries sharing a row i, A(i,:) goes into the warp's shared-memory hash table
// (column -> position); then each entry's B(:,j) is walked by the whole warp, a lane per
// index, probing the table: |B(:,j)| coalesced loads and shared-memory probes instead of
// min(|A(i,:)|, |B(:,j)|) binary searches, each a chain of dependent loads. The table has
// buckets of 4 slots, at least one bucket per key, filled slot after slot: a probe is one
// 16-byte load, and reads the next bucket only when the whole bucket is taken (rare), so
// the lanes of a warp seldom wait on one another's probe chains.
#define HASH_WARPS ${HASH_WARPS}
#define HASH_SLOTS ${HASH_SLOTS}
#define HASH_UNROLL ${HASH_UNROLL}
__device__ __forceinline__ unsigned hash_bucket(int k, int bits) {
    return ((unsigned)k * 2654435761u) >> (32 - bits);
}
template <typename IM>
__device__ void dot_hash(DOT_PARAMS(IM)) {
    __shared__ int4 buckets_s[HASH_WARPS][HASH_SLOTS / 4];
    __shared__ unsigned short where_s[HASH_WARPS][HASH_SLOTS];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const long long base = ((long long)blockIdx.x * HASH_WARPS + w) * 32;
    if (base >= n) return;
    const int count = (int)min(32LL, n - base);
    int4* buckets = buckets_s[w];
    int* keys = (int*)buckets;
    unsigned short* where = where_s[w];
    long long e = -1, row = -1, pb = 0;
    int lb = 0;
    if (lane < count) {
        e = ents[base + lane];
        row = mi[e];
        pb = Bp[mj[e]];
        lb = (int)(Bp[mj[e] + 1] - pb);
    }
    for (int first = 0; first < count;) {
        const long long i = __shfl_sync(FULL_MASK, row, first);
        const int last = first + __popc(__ballot_sync(FULL_MASK, lane < count && row == i)) - 1;
        // A(i,:) into the table: 2^bits buckets, at least one per key (and 8)
        const long long pa = Ap[i];
        const int la = (int)(Ap[i + 1] - pa);
        int bits = 3;
        while ((1 << bits) < la) ++bits;
        const int nb = 1 << bits;
        __syncwarp();   // the previous run's probes are done
        for (int b = lane; b < nb; b += 32) buckets[b] = make_int4(-1, -1, -1, -1);
        __syncwarp();
        for (int p = lane; p < la; p += 32) {
            const int k = (int)Aj[pa + p];
            for (unsigned b = hash_bucket(k, bits);; b = (b + 1) & (nb - 1)) {
                int s = 0;
                while (s < 4 && atomicCAS(&keys[4 * b + s], -1, k) != -1) ++s;
                if (s < 4) { where[4 * b + s] = (unsigned short)p; break; }
            }
        }
        __syncwarp();
        for (int q = first; q <= last; ++q) {
            const IB* __restrict__ col = Bi + __shfl_sync(FULL_MASK, pb, q);
            const int len = __shfl_sync(FULL_MASK, lb, q);
            const long long jq = (long long)mj[__shfl_sync(FULL_MASK, e, q)];  // (positional ⊗)
            bool has = false;
            Z acc = Z();
            for (int t = lane; __any_sync(FULL_MASK, t < len); t += 32 * HASH_UNROLL) {
                int k[HASH_UNROLL];   // all loads first: HASH_UNROLL of them in flight
#pragma unroll
                for (int u = 0; u < HASH_UNROLL; ++u)
                    k[u] = t + 32 * u < len ? (int)col[t + 32 * u] : -1;
#pragma unroll
                for (int u = 0; u < HASH_UNROLL; ++u) {
                    if (k[u] < 0) continue;
                    int slot = -1;
                    for (unsigned b = hash_bucket(k[u], bits);; b = (b + 1) & (nb - 1)) {
                        const int4 q4 = buckets[b];
                        slot = q4.x == k[u] ? 4 * b : q4.y == k[u] ? 4 * b + 1
                             : q4.z == k[u] ? 4 * b + 2 : q4.w == k[u] ? 4 * b + 3 : -1;
                        if (slot >= 0 || q4.w == -1) break;   // found, or never overflowed
                    }
                    if (slot >= 0) {
                        const Z v = mult_op(value_at(Ax, pa + where[slot], am),
                                            value_at(Bx, (col - Bi) + t + 32 * u, bm),
                                            i, k[u], jq);
                        acc = has ? add_op(acc, v) : v;
                        has = true;
                    }
                }
#if ANY_MONOID || HAS_TERMINAL
                if (__any_sync(FULL_MASK, has && at_terminal(acc, terminal))) break;
#endif
            }
            for (int off = 16; off > 0; off >>= 1) {
                const Z other = shfl_down_z(acc, off);
                const int other_has = __shfl_down_sync(FULL_MASK, (int)has, off);
                if (other_has) { acc = has ? add_op(acc, other) : other; has = true; }
            }
            const long long eq = __shfl_sync(FULL_MASK, e, q);
            if (lane == 0) {
                present[eq] = has;
                if (has) out[eq] = acc;
            }
        }
        first = last + 1;
    }
}

#define DOT_GROUP_INSTANCE(IM, SUFFIX, V) \
extern "C" __global__ void dot_group##V##_##SUFFIX(DOT_PARAMS(IM)) { \
    dot_group<V, IM>(DOT_ARGS); }
#define DOT_INSTANCES(IM, SUFFIX) \
extern "C" __global__ void dot_thread_##SUFFIX(DOT_PARAMS(IM)) { dot_thread<IM>(DOT_ARGS); } \
extern "C" __global__ void dot_hash_##SUFFIX(DOT_PARAMS(IM)) { dot_hash<IM>(DOT_ARGS); } \
DOT_GROUP_INSTANCE(IM, SUFFIX, 4) DOT_GROUP_INSTANCE(IM, SUFFIX, 8) \
DOT_GROUP_INSTANCE(IM, SUFFIX, 16) DOT_GROUP_INSTANCE(IM, SUFFIX, 32)
DOT_INSTANCES(int, int32)
DOT_INSTANCES(long long, int64)
"""



def source(*, ia, ib, ic, key, x, z, mult_c, add_c, any_monoid, plus, has_terminal):
    """The CUDA source for one (semiring, types) combination: the SpGEMM kernels and the
    masked-dot kernels (kernels.masked_dot) in one module, so one compilation serves both."""
    bins = "\n".join(f"SHARED_BIN({cap}, {nt})" for cap, nt in SHARED_BINS)
    body = Template(SAXPY_KERNELS).substitute(IC=c_index_type(ic), K=c_index_type(key), BINS=bins,
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
