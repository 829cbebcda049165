"""A direction-optimising BFS's levels, each one fused kernel, the level loop on the device.

For a pattern S (CSR: sptr, sidx) and, for pull levels, Sᵀ (tptr, tidx), a level computes
what grblas_gpu.traversal (the public primitive these serve) states as GraphBLAS:

    push:  q⟨¬pi.S, replace⟩ = q any.secondi S     (each unreached child of the frontier)
    pull:  q⟨¬pi.S, replace⟩ = Sᵀ any.secondi q    (each unreached vertex asks its in-
                                                     neighbours; ANY stops at the first)
    dist⟨q.S⟩ = level + 1 ;  parent⟨q.S⟩ = q ;  [mf nf] = q +.second [deg 1]

in one pass, writing the results' own arrays: ``dist`` (int32, 2**31 - 1 unreached, so
"pi" is dist != 2**31 - 1 and "the frontier" is dist == level) and ``parent`` (int32, -1).
The last block to finish a level turns its counts into the next level's direction by
the rule the caller gives (grblas_gpu.traversal's DIRECTION_RULE: ``rule`` evaluates it in
Python, ``rule_c`` is its C rendering, compiled into ``choose_direction``) and sets
``done`` when no edge leaves the new frontier. Every level kernel reads that state on the
device, so a batch of BATCH levels is issued without the host (a finished search turns
the rest into launches that return at once) and the host reads one flag per batch.

State lives in one device struct (``State`` below): the level, the direction, the counts,
and where the current search's dist and parent are (so a recorded batch serves every
search: each start gives it new result arrays).

CuPy kernels:
  bfs_start  fills dist and parent, puts the source at level 0 and lists it.
  bfs_list   (before a push that follows a pull) lists the frontier, dist == level, from the
             vertices that pull read.
  bfs_level  push: one thread per edge out of the listed frontier (the entry owning an edge
             found by binary search over the list's edge offsets); a vertex is claimed by
             compare-and-swap on its dist, and appended to the next list. Pull: one thread
             per vertex of the unreached list, scanning its in-edges until a frontier
             vertex; those it leaves unreached make the next pull's list (so a late pull
             reads the few vertices still unreached, not all n: the first reads the vertices
             with an in-edge, listed once per graph).
A frontier list holds vertex ids and the exclusive sum of their out-degrees: a block's
appends take their slots and their edge offsets with ONE 64-bit atomicAdd of
(count << 33 | degrees), so offsets rise with slots whatever order blocks append in (at most
2**33 - 1 edges). One atomic per block, not per warp: appends to one counter by every warp
of the grid serialise (measured on the H100: listing 185K of 4M vertices took 90 µs so).

NumPy: the same levels with vectorised gathers (:func:`~grblas_gpu.kernels.common.expand`),
on the host, one level at a time.
"""
from string import Template

import numpy as np

from .. import backend
from . import launch
from .cache import KernelKey, get_functions
from .cuda_common import LAST_BLOCK_TO_FINISH, c_index_type
from .mailbox import PinnedBox
from .common import expand

xp = backend.xp

__all__ = ["Levels", "source", "UNREACHED", "BATCH", "MAX_EDGES"]

UNREACHED = 2**31 - 1   # nvGRAPH's distance of an unreached vertex
BATCH = 8               # levels issued between two reads of the stop flag
MAX_EDGES = 2**33 - 1   # a list's edge offsets share a 64-bit word with its length
# The level kernels' grid: one resident wave (8 blocks of 256 per SM), each capped at 32
# registers to fit. Measured on the H100, R-MAT scale 22, one search: 0.252 ms so, against
# 0.279 ms with two waves (16 per SM) and 0.305 ms with the compiler's 48 registers.
MIN_BLOCKS_PER_SM = 8   # __launch_bounds__'s (0: none)
BLOCKS_PER_SM = 8
_STATE_WORDS = 32       # (State is 26 words)
_DONE_WORD = 2          # State::done


_SOURCE = r"""
typedef ${SP} SP;   // S's pointer and index types
typedef ${SI} SI;
typedef ${TP} TP;   // Sᵀ's
typedef ${TI} TI;
#define UNREACHED 0x7fffffff
#define FULL_MASK 0xffffffffu
#define EDGE_BITS 33
#define EDGE_FIELD ((1ULL << EDGE_BITS) - 1ULL)
#define BOUNDS ${BOUNDS}
${LAST_BLOCK_TO_FINISH}

struct State {
    long long level;               // the frontier's level (dist == level)
    long long push;                // the next level's direction
    long long done;                // no edge leaves the frontier: the search is over
    long long nf, mf, seen;        // |frontier|, edges out of it, edges out of all reached
    long long growing;             // |frontier| grew at the last level
    long long listed;              // the frontier is listed in list[cur]
    long long cur;
    unsigned long long pulled_nf, pulled_mf;   // a pull level's counts, summed by its blocks
    unsigned long long listing[2];  // per frontier list: (entries << EDGE_BITS) | edges
    unsigned long long unlisting[3];  // per unreached list: entries << EDGE_BITS
    long long ucur, uprev;         // the unreached list the next pull reads; the last pull's
    unsigned int ticket, unused;
    double alpha, beta;
    long long n, m, can_pull;
    int* dist;
    int* parent;
};

// The unreached lists: 0 holds every vertex with an in-edge (fixed per graph), a pull reads
// list ucur and writes those it leaves unreached to the other of 1 and 2.
__device__ __forceinline__ long long other_unreached(long long u) { return u == 1 ? 2 : 1; }

// the next level's direction: the caller's rule (RULE, over the locals below) applied to
// the counts of the level just run
__device__ __forceinline__ void choose_direction(State* s) {
    const bool push = s->push != 0, growing = s->growing != 0, can_pull = s->can_pull != 0;
    const double n = (double)s->n, m = (double)s->m, nf = (double)s->nf,
                 mf = (double)s->mf, seen = (double)s->seen, alpha = s->alpha,
                 beta = s->beta;
    s->push = (${RULE}) ? 1 : 0;
    if (!s->push) s->unlisting[other_unreached(s->ucur)] = 0;   // (the pull appends there)
}

__device__ __forceinline__ long long out_degree(const SP* sptr, long long v) {
    return (long long)(sptr[v + 1] - sptr[v]);
}

// appends v (where take) with its out-degree d: ONE atomicAdd per block reserves the slots
// and the edge offsets together (a single counter's atomics are the bottleneck otherwise).
// Every thread of the block calls it. offsets may be null (a list without degrees).
__device__ __forceinline__ void block_append(bool take, int v, long long d,
                                             unsigned long long* listing, int* list,
                                             long long* offsets) {
    __shared__ unsigned long long warp_base[32];
    __shared__ unsigned long long block_base;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned takers = __ballot_sync(FULL_MASK, take);
    long long upto = take ? d : 0;   // inclusive sum of the warp's takers' degrees
    for (int o = 1; o < 32; o <<= 1) {
        const long long t = __shfl_up_sync(FULL_MASK, upto, o);
        if (lane >= o) upto += t;
    }
    if (lane == 31)
        warp_base[warp] = ((unsigned long long)__popc(takers) << EDGE_BITS) +
                          (unsigned long long)upto;
    __syncthreads();
    if (threadIdx.x == 0) {   // the warps' exclusive sums, then the block's reservation
        unsigned long long total = 0;
        for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) {
            const unsigned long long t = warp_base[w];
            warp_base[w] = total;
            total += t;
        }
        block_base = total ? atomicAdd(listing, total) : 0ULL;
    }
    __syncthreads();
    if (take) {   // (packed sums add field by field: a list holds at most 2**33 - 1 edges)
        const unsigned long long base = block_base + warp_base[warp];
        const long long k = (long long)(base >> EDGE_BITS) + __popc(takers & ((1u << lane) - 1u));
        list[k] = v;
        if (offsets) offsets[k] = (long long)(base & EDGE_FIELD) + upto - d;
    }
    __syncthreads();   // (before the next call rewrites the shared words)
}

// the last block of a level: its counts become the state of the next
__device__ void finish_level(State* s, bool pushed) {
    volatile State* vs = s;   // (counts summed by other blocks' atomics)
    const long long cur = vs->cur;
    long long nf, mf;
    if (pushed) {
        const unsigned long long c = vs->listing[1 - cur];
        nf = (long long)(c >> EDGE_BITS);
        mf = (long long)(c & EDGE_FIELD);
        s->cur = 1 - cur;
        s->listing[cur] = 0;   // (the next push appends there)
        s->listed = 1;
    } else {
        nf = (long long)vs->pulled_nf;
        mf = (long long)vs->pulled_mf;
        s->pulled_nf = 0;
        s->pulled_mf = 0;
        s->listing[0] = 0;
        s->listing[1] = 0;
        s->listed = 0;
        s->uprev = vs->ucur;
        s->ucur = other_unreached(vs->ucur);
    }
    s->growing = nf > vs->nf;
    s->nf = nf;
    s->mf = mf;
    s->seen = vs->seen + mf;
    s->level = vs->level + 1;
    s->ticket = 0;
    if (mf == 0) s->done = 1;
    else choose_direction(s);
}

extern "C" __global__ void BOUNDS bfs_start(State* s, int* dist, int* parent, const SP* sptr,
                                     long long n, long long m, int can_pull, long long source,
                                     double alpha, double beta, int* list0,
                                     long long* offsets0, long long with_in_edges) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        dist[v] = v == source ? 0 : UNREACHED;
        parent[v] = -1;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const long long d = out_degree(sptr, source);
        s->level = 0; s->push = 1; s->done = 0;
        s->nf = 1; s->mf = d; s->seen = d; s->growing = 1;
        s->listed = 1; s->cur = 0;
        s->pulled_nf = 0; s->pulled_mf = 0;
        s->listing[0] = (1ULL << EDGE_BITS) | (unsigned long long)d;
        s->listing[1] = 0;
        s->unlisting[0] = (unsigned long long)with_in_edges << EDGE_BITS;
        s->ucur = 0; s->uprev = 0;
        s->ticket = 0;
        s->alpha = alpha; s->beta = beta;
        s->n = n; s->m = m; s->can_pull = can_pull;
        s->dist = dist; s->parent = parent;
        list0[0] = (int)source;
        offsets0[0] = 0;
        choose_direction(s);
    }
}

__device__ __forceinline__ int* unreached_list(long long u, int* u0, int* u1, int* u2) {
    return u == 0 ? u0 : u == 1 ? u1 : u2;
}

// before a push that follows a pull: list the frontier (dist == level) in list[cur], from
// the vertices that pull read (the frontier is among them)
extern "C" __global__ void BOUNDS bfs_list(State* s, const SP* __restrict__ sptr, int* list0,
                                    int* list1, long long* offsets0, long long* offsets1,
                                    int* u0, int* u1, int* u2) {
    if (s->done || !s->push || s->listed) return;
    const int level = (int)s->level;
    const long long cur = s->cur;
    const int* __restrict__ read = unreached_list(s->uprev, u0, u1, u2);
    const long long entries = (long long)(s->unlisting[s->uprev] >> EDGE_BITS);
    const int* __restrict__ dist = s->dist;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long b0 = (long long)blockIdx.x * blockDim.x; b0 < entries; b0 += stride) {
        const long long i = b0 + threadIdx.x;
        const int v = i < entries ? read[i] : 0;
        const bool take = i < entries && dist[v] == level;
        block_append(take, v, take ? out_degree(sptr, v) : 0, &s->listing[cur],
                     cur ? list1 : list0, cur ? offsets1 : offsets0);
    }
}

__device__ __forceinline__ unsigned long long block_sum(unsigned long long x,
                                                        unsigned long long* shared) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL_MASK, x, o);
    if (threadIdx.x == 0) *shared = 0;
    __syncthreads();
    if ((threadIdx.x & 31) == 0 && x) atomicAdd(shared, x);
    __syncthreads();
    return *shared;
}

extern "C" __global__ void BOUNDS bfs_level(State* s, const SP* __restrict__ sptr,
                                     const SI* __restrict__ sidx, const TP* __restrict__ tptr,
                                     const TI* __restrict__ tidx, int* list0, int* list1,
                                     long long* offsets0, long long* offsets1, int* u0,
                                     int* u1, int* u2) {
    if (s->done) return;
    const int level = (int)s->level;
    const bool push = s->push != 0;
    const long long cur = s->cur;
    int* dist = s->dist;
    int* parent = s->parent;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long block0 = (long long)blockIdx.x * blockDim.x;
    if (push) {
        // q⟨¬pi.S, replace⟩ = q any.secondi S: one thread per edge out of the listed frontier
        const unsigned long long listing = s->listing[cur];
        const long long entries = (long long)(listing >> EDGE_BITS);
        const long long edges = (long long)(listing & EDGE_FIELD);
        const int* __restrict__ list = cur ? list1 : list0;
        const long long* __restrict__ offsets = cur ? offsets1 : offsets0;
        for (long long b0 = block0; b0 < edges; b0 += stride) {
            const long long e = b0 + threadIdx.x;
            bool take = false;
            int v = 0;
            long long d = 0;
            if (e < edges) {
                long long lo = 0, hi = entries;   // the last entry whose edges start <= e
                while (hi - lo > 1) {
                    const long long mid = (lo + hi) >> 1;
                    if (offsets[mid] <= e) lo = mid; else hi = mid;
                }
                const int u = list[lo];
                v = (int)sidx[(long long)sptr[u] + (e - offsets[lo])];
                if (dist[v] == UNREACHED &&
                    atomicCAS(&dist[v], UNREACHED, level + 1) == UNREACHED) {
                    parent[v] = u;
                    take = true;
                    d = out_degree(sptr, v);
                }
            }
            block_append(take, v, d, &s->listing[1 - cur], cur ? list0 : list1,
                         cur ? offsets0 : offsets1);
        }
    } else {
        // q⟨¬pi.S, replace⟩ = Sᵀ any.secondi q: each unreached vertex stops at its first
        // in-neighbour in the frontier; those still unreached make the next pull's list
        __shared__ unsigned long long shared_sum;
        const long long ucur = s->ucur, unext = other_unreached(ucur);
        const int* __restrict__ read = unreached_list(ucur, u0, u1, u2);
        int* still = unreached_list(unext, u0, u1, u2);
        const long long entries = (long long)(s->unlisting[ucur] >> EDGE_BITS);
        unsigned long long found = 0, found_edges = 0;
        for (long long b0 = block0; b0 < entries; b0 += stride) {
            const long long i = b0 + threadIdx.x;
            const int v = i < entries ? read[i] : 0;
            bool unreached = i < entries && dist[v] == UNREACHED;
            if (unreached) {
                const long long end = (long long)tptr[v + 1];
                for (long long p = (long long)tptr[v]; p < end; ++p) {
                    const int u = (int)tidx[p];
                    if (dist[u] == level) {
                        dist[v] = level + 1;
                        parent[v] = u;
                        found += 1;
                        found_edges += (unsigned long long)out_degree(sptr, v);
                        unreached = false;
                        break;
                    }
                }
            }
            block_append(unreached, v, 0, &s->unlisting[unext], still, nullptr);
        }
        found = block_sum(found, &shared_sum);
        if (threadIdx.x == 0 && found) atomicAdd(&s->pulled_nf, found);
        __syncthreads();
        found_edges = block_sum(found_edges, &shared_sum);
        if (threadIdx.x == 0 && found_edges) atomicAdd(&s->pulled_mf, found_edges);
    }
    if (last_block_to_finish(&s->ticket) && threadIdx.x == 0) finish_level(s, push);
}
"""


def source(sp, si, tp, ti, rule_c):
    """The kernels' CUDA source for S's and Sᵀ's pointer and index C types, with the
    direction rule ``rule_c`` (a C expression over choose_direction's locals: push, growing,
    can_pull, n, m, nf, mf, seen, alpha, beta; true: push)."""
    bounds = (f"__launch_bounds__({launch.THREADS}, {MIN_BLOCKS_PER_SM})"
              if MIN_BLOCKS_PER_SM else "")
    return Template(_SOURCE).substitute(SP=sp, SI=si, TP=tp, TI=ti, BOUNDS=bounds, RULE=rule_c,
                                        LAST_BLOCK_TO_FINISH=LAST_BLOCK_TO_FINISH)


class Levels:
    """The levels of BFS searches on one graph: ``start(source, alpha, beta)`` gives the
    result arrays (filled as levels run), ``run()`` runs up to BATCH levels (recordable: a
    fixed sequence of launches) and posts the stop flag, ``finished()`` reads it.

    sptr, sidx: S's CSR arrays; tptr, tidx: Sᵀ's (None: push only). The next level's
    direction: ``rule(push, mf=, nf=, seen=, growing=, n=, m=, alpha=, beta=, can_pull=)``
    on the NumPy backend, its C rendering ``rule_c`` (see :func:`source`) in the kernels."""

    def __init__(self, sptr, sidx, tptr, tidx, n, *, rule, rule_c):
        self.n, self.m = int(n), int(len(sidx))
        self.can_pull = tptr is not None
        self._rule = rule
        self.S = (sptr, sidx)
        self.T = (tptr, tidx) if self.can_pull else (sptr, sidx)   # (unread when push only)
        if backend.is_gpu:
            self._state = xp.zeros(_STATE_WORDS, dtype=np.uint64)
            self._lists = [xp.empty(max(1, self.n), dtype=np.int32) for _ in range(2)]
            self._offsets = [xp.empty(max(1, self.n), dtype=np.int64) for _ in range(2)]
            # the unreached lists: every vertex with an in-edge (what a first pull reads),
            # then two for the vertices each pull leaves unreached (push only: never read)
            if self.can_pull:
                tptr = self.T[0]
                with_in_edges = xp.flatnonzero(tptr[1:] != tptr[:-1]).astype(np.int32)
            else:
                with_in_edges = xp.empty(0, dtype=np.int32)
            self._unreached = [with_in_edges] + [
                xp.empty(max(1, len(with_in_edges)), dtype=np.int32) for _ in range(2)]
            self._box = PinnedBox(8, 1)
            self._flag = xp.zeros(1, dtype=bool)   # (the box's bitmap part: unused)
            self._grid = (min(launch.grid(max(self.n, 1))[0],
                              launch.sm_count() * BLOCKS_PER_SM),)
            types = tuple(c_index_type(a.dtype) for a in (*self.S, *self.T))
            key = KernelKey("bfs", "levels", (), types, (MIN_BLOCKS_PER_SM, rule_c))
            self._kernels = get_functions(key, lambda: source(*types, rule_c),
                                          ("bfs_start", "bfs_list", "bfs_level"))
        else:
            self._host = None   # the NumPy search's state

    def start(self, source, alpha, beta):
        """A new search: (dist, parent), int32 arrays of n the levels fill."""
        dist = xp.empty(self.n, dtype=np.int32)
        parent = xp.empty(self.n, dtype=np.int32)
        sptr = self.S[0]
        if backend.is_gpu:
            self._kernels["bfs_start"](self._grid, launch.BLOCK, (
                self._state, dist, parent, sptr, np.int64(self.n), np.int64(self.m),
                np.int32(self.can_pull), np.int64(source), np.float64(alpha),
                np.float64(beta), self._lists[0], self._offsets[0],
                np.int64(len(self._unreached[0]))))
        else:
            dist.fill(UNREACHED)
            parent.fill(-1)
            dist[source] = 0
            d = int(sptr[source + 1] - sptr[source])
            self._host = dict(dist=dist, parent=parent, level=0, nf=1, mf=d, seen=d,
                              growing=True, done=False, alpha=alpha, beta=beta)
            self._host["push"] = self._direction(True)
        return dist, parent

    def run(self):
        """Up to BATCH more levels (none once finished), then a post of the stop flag."""
        if backend.is_gpu:
            lists, offsets, unreached = self._lists, self._offsets, self._unreached
            level_args = (self._state, *self.S, *self.T, *lists, *offsets, *unreached)
            for _ in range(BATCH):
                self._kernels["bfs_list"](self._grid, launch.BLOCK, (
                    self._state, self.S[0], *lists, *offsets, *unreached))
                self._kernels["bfs_level"](self._grid, launch.BLOCK, level_args)
            self._box.post(self._state[_DONE_WORD:_DONE_WORD + 1], self._flag)
            return
        for _ in range(BATCH):
            if self._host["done"]:
                break
            self._level_numpy()

    def finished(self):
        """Has the search ended (read after run(): waits for its post)?"""
        if backend.is_gpu:
            self._box.wait()
            return bool(self._box.values.view(np.uint64)[0])
        return self._host["done"]

    # ------------------------------------------------------------------ NumPy
    def _direction(self, push):
        h = self._host
        return self._rule(push, mf=h["mf"], nf=h["nf"], seen=h["seen"], growing=h["growing"],
                          n=self.n, m=self.m, alpha=h["alpha"], beta=h["beta"],
                          can_pull=self.can_pull)

    def _level_numpy(self):
        h = self._host
        dist, parent, level = h["dist"], h["parent"], h["level"]
        if h["push"]:
            # q⟨¬pi.S, replace⟩ = q any.secondi S
            sptr, sidx = self.S
            frontier = xp.flatnonzero(dist == level)
            pos, owner = expand(sptr, frontier)
            child, by = sidx[pos].astype(np.int64), frontier[owner]
        else:
            # q⟨¬pi.S, replace⟩ = Sᵀ any.secondi q
            tptr, tidx = self.T
            unreached = xp.flatnonzero(dist == UNREACHED)
            pos, owner = expand(tptr, unreached)
            by = tidx[pos].astype(np.int64)
            child = unreached[owner]
        keep = (dist[child] == UNREACHED) & (dist[by] == level)
        child, first = xp.unique(child[keep], return_index=True)   # ANY: the first found
        dist[child] = level + 1
        parent[child] = by[keep][first]
        sptr = self.S[0]
        mf = int((sptr[child + 1] - sptr[child]).sum())
        nf = len(child)
        h.update(level=level + 1, growing=nf > h["nf"], nf=nf, mf=mf, seen=h["seen"] + mf)
        if mf == 0:
            h["done"] = True
        else:
            h["push"] = self._direction(h["push"])
