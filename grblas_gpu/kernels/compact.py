"""Stable partition and compaction of entry lists.

``positions(labels, kinds)`` -> (pos, counts): entries labelled 1..kinds are listed kind
after kind, each kind in entry order; pos[p] is entry p's place in that concatenation (an
entry labelled 0 gets the place a kind-1 entry would take there: with one kind, the number
kept before it). ``compact(ptr, keep, arrays)`` -> (new_ptr, [a[keep] for a in arrays]): the
flagged entries of a segmented structure (a matrix's rows; ptr None for one flat list), in
order, new_ptr[s] counting the kept entries before segment s. What select, a masked dot's
present entries and its entry kinds, and a value mask's entries need.

NumPy: ``nonzero`` and a running count. CuPy: tiles of TILE entries, a block each; a first
pass counts each kind per tile, a scan of those counts (kind-major) gives every tile's start
in every kind's list, and a second pass ranks the tile's entries with warp ballots. Nothing
walks a whole row (power-law hub rows would serialise) and no atomics contend.
"""
import numpy as np

from .. import backend
from . import launch
from .cache import KernelKey, get_functions
from .cuda_common import c_word_type
from .segment import kept_pointers

xp = backend.xp

__all__ = ["positions", "compact", "TILE"]

ROUNDS = 8                  # entries per thread in a tile
TILE = 256 * ROUNDS         # entries per tile (a block of 256 threads)

_SOURCE = r"""
#define ROUNDS ${ROUNDS}
#define WARPS 8
#define KINDS_MAX 4
typedef ${E} E;   // an unsigned word as wide as a scattered array's elements

// counts[k * ntiles + t] = the entries of tile t labelled k + 1
extern "C" __global__ void tile_counts(const unsigned char* __restrict__ labels, long long n,
        int kinds, long long ntiles, long long* __restrict__ counts) {
    __shared__ int sums[KINDS_MAX][WARPS];
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        int mine[KINDS_MAX] = {0, 0, 0, 0};
        for (int r = 0; r < ROUNDS; ++r) {
            const long long p = t * (ROUNDS * 256) + r * 256 + threadIdx.x;
            const int l = p < n ? labels[p] : 0;
            for (int k = 0; k < KINDS_MAX; ++k) mine[k] += (l == k + 1);
        }
        for (int k = 0; k < KINDS_MAX; ++k) {
            int s = mine[k];
            for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
            if ((threadIdx.x & 31) == 0) sums[k][threadIdx.x >> 5] = s;
        }
        __syncthreads();
        if (threadIdx.x < kinds) {
            long long s = 0;
            for (int w = 0; w < WARPS; ++w) s += sums[threadIdx.x][w];
            counts[threadIdx.x * ntiles + t] = s;
        }
        __syncthreads();
    }
}

// pos[p]: entry p's place in the kind-major lists (see the module docstring); starts: the
// exclusive scan of tile_counts' counts
extern "C" __global__ void tile_positions(const unsigned char* __restrict__ labels,
        long long n, int kinds, long long ntiles, const long long* __restrict__ starts,
        long long* __restrict__ pos) {
    __shared__ unsigned int ballots[KINDS_MAX][ROUNDS][WARPS];
    __shared__ long long before[KINDS_MAX][ROUNDS][WARPS];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const unsigned int lower = (1u << lane) - 1u;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        int l[ROUNDS];
        for (int r = 0; r < ROUNDS; ++r) {
            const long long p = t * (ROUNDS * 256) + r * 256 + threadIdx.x;
            l[r] = p < n ? labels[p] : 0;
            for (int k = 0; k < kinds; ++k) {
                const unsigned int b = __ballot_sync(0xffffffffu, l[r] == k + 1);
                if (lane == 0) ballots[k][r][w] = b;
            }
        }
        __syncthreads();
        if (threadIdx.x < kinds) {   // entry order within a tile: round, then warp, then lane
            const int k = threadIdx.x;
            long long s = starts[k * ntiles + t];
            for (int r = 0; r < ROUNDS; ++r)
                for (int v = 0; v < WARPS; ++v) { before[k][r][v] = s; s += __popc(ballots[k][r][v]); }
        }
        __syncthreads();
        for (int r = 0; r < ROUNDS; ++r) {
            const long long p = t * (ROUNDS * 256) + r * 256 + threadIdx.x;
            if (p >= n) break;
            const int k = l[r] > 0 ? l[r] - 1 : 0;
            pos[p] = before[k][r][w] + __popc(ballots[k][r][w] & lower);
        }
        __syncthreads();
    }
}

// out[pos[p]] = in[p] where p is kept
extern "C" __global__ void scatter_kept(const bool* __restrict__ keep,
        const long long* __restrict__ pos, long long n, const E* __restrict__ in,
        E* __restrict__ out) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < n; p += stride)
        if (keep[p]) out[pos[p]] = in[p];
}

// new_ptr[s] = the kept entries before ptr[s]
template <typename P>
__device__ void kept_before(const P* __restrict__ ptr, long long nseg1,
        const long long* __restrict__ pos, long long n, long long total,
        long long* __restrict__ new_ptr) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < nseg1; s += stride) {
        const long long p = ptr[s];
        new_ptr[s] = p < n ? pos[p] : total;
    }
}
extern "C" __global__ void kept_before_int32(const int* ptr, long long nseg1,
        const long long* pos, long long n, long long total, long long* new_ptr) {
    kept_before<int>(ptr, nseg1, pos, n, total, new_ptr); }
extern "C" __global__ void kept_before_int64(const long long* ptr, long long nseg1,
        const long long* pos, long long n, long long total, long long* new_ptr) {
    kept_before<long long>(ptr, nseg1, pos, n, total, new_ptr); }
"""

_NAMES = ("tile_counts", "tile_positions", "scatter_kept", "kept_before_int32",
          "kept_before_int64")


def _kernels(word=8):
    """The module's kernels by name, for entries of ``word`` bytes (scatter_kept)."""
    from string import Template

    key = KernelKey("compact", "tiles", (), (f"word{word}",))
    return get_functions(
        key, lambda: Template(_SOURCE).substitute(ROUNDS=ROUNDS, E=c_word_type(word)), _NAMES)


def _tile_grid(ntiles):
    """A block per tile, striding over the tiles beyond 8192 blocks."""
    return (max(1, min(8192, int(ntiles))),)


def positions(labels, kinds):
    """(pos int64 per entry, [entries of each kind]) for labels (uint8 or bool) in 0..kinds
    (kinds <= 4); CuPy only."""
    n = len(labels)
    labels = labels.view(np.uint8) if labels.dtype == np.bool_ else labels
    ntiles = max(1, -(-n // TILE))
    kernels = _kernels()
    counts = xp.empty(kinds * ntiles, dtype=np.int64)
    kernels["tile_counts"](_tile_grid(ntiles), (256,), (
        labels, np.int64(n), np.int32(kinds), np.int64(ntiles), counts))
    # exclusive scan, kind-major: every tile's start in every kind's list
    starts = xp.zeros(kinds * ntiles + 1, dtype=np.int64)
    xp.cumsum(counts, out=starts[1:])
    totals = starts[ntiles::ntiles].get()   # the running count at each kind's end
    sizes = [int(totals[0])] + [int(totals[k] - totals[k - 1]) for k in range(1, kinds)]
    pos = xp.empty(n, dtype=np.int64)
    kernels["tile_positions"](_tile_grid(ntiles), (256,), (
        labels, np.int64(n), np.int32(kinds), np.int64(ntiles), starts, pos))
    return pos, sizes


_COPY = object()


def compact(ptr, keep, arrays, *, all_kept=_COPY):
    """(new_ptr int64, [a[keep] for a in arrays]); ``ptr`` None for a flat list (new_ptr is
    then [0, kept]). ``all_kept``: what to return instead when every entry is kept (the
    count that sizes the output tells, so a caller with a cheaper answer then needs no read
    of its own); by default the copies as usual."""
    n = len(keep)
    keep = keep.astype(bool, copy=False)
    if not backend.is_gpu or n == 0:
        kept = xp.nonzero(keep)[0]
        if len(kept) == n and all_kept is not _COPY:
            return all_kept
        new_ptr = (kept_pointers(ptr, keep) if ptr is not None
                   else xp.asarray([0, len(kept)], dtype=np.int64))
        return new_ptr, [a[kept] for a in arrays]
    keep = xp.ascontiguousarray(keep)
    pos, (total,) = positions(keep, 1)
    if total == n and all_kept is not _COPY:
        return all_kept
    outs = []
    for a in arrays:
        out = xp.empty(total, dtype=a.dtype)
        if total:
            word = np.dtype(a.dtype).itemsize
            _kernels(word)["scatter_kept"](
                launch.strided_grid(n), launch.BLOCK,
                (keep, pos, np.int64(n), xp.ascontiguousarray(a), out))
        outs.append(out)
    if ptr is None:
        return xp.asarray([0, total], dtype=np.int64), outs
    if np.dtype(ptr.dtype).name not in ("int32", "int64"):
        ptr = ptr.astype(np.int64)
    new_ptr = xp.empty(len(ptr), dtype=np.int64)
    _kernels()[f"kept_before_{np.dtype(ptr.dtype).name}"](
        launch.strided_grid(len(ptr)), launch.BLOCK,
        (ptr, np.int64(len(ptr)), pos, np.int64(n), np.int64(total), new_ptr))
    return new_ptr, outs
