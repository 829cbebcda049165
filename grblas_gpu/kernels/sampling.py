"""Random selection for neighbourhood and negative sampling (NumPy and CUDA).

RNG. Every random number is counter-based: draw(key, c) = splitmix64(key + (c + 1)·γ)
(Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014), with
key = stream_key(seed, stream). A draw depends only on (seed, stream, counter), so there is no
state to carry, kernels may run in any order, and the NumPy and CUDA implementations give the
same bits. Counters are output positions (or candidate positions), unique within a stream.

Selection. A *slot* is one source occurrence with candidates [start, start + deg) in some edge
order, a count k and an output range out[off : off + k]; the functions return candidate
positions.

- take all (fan-out < 0, or k = deg without replacement): start + 0 .. k-1, in order
- with replacement: start + draw(off + j) mod deg
- without replacement, k <= FLOYD_MAX_K: Floyd's algorithm (Bentley & Floyd, CACM 30(9),
  1987): for j = deg-k .. deg-1, r = draw mod (j + 1); take r unless already taken, else j.
  Every k-subset is equally likely; O(k²) per slot (a linear membership scan), no scratch.
- without replacement, k > FLOYD_MAX_K: a random key per candidate, the k smallest per slot
  (segmented sort): O(deg log deg), for the rare huge fan-outs.
- biased with replacement: inverse CDF. ``cum`` is the inclusive prefix sum, in segment
  order, of biases normalised to sum 1 within each segment; draw u in [0, 1) and take the
  first candidate q of the segment with cum[q] > cum[start-1] + u (binary search).
- biased without replacement, k <= FLOYD_MAX_K: successive sampling, each pick ∝ weight
  among the candidates not yet picked: draw u in [0, 1) of the remaining mass and map it
  back onto the full CDF by stepping over the picked intervals (kept sorted), then binary
  search. O(k² + k log deg) per slot, like Floyd's, and no pass over the neighbourhood.
- biased without replacement, k > FLOYD_MAX_K: Efraimidis & Spirakis (IPL 97(5), 2006),
  key = E / w with E ~ Exp(1), the k smallest keys per slot (zero weight: key +inf). Same
  distribution as successive sampling.

NOTE: Floyd's scan (and the successive-sampling walk) make very large fan-outs quadratic;
past FLOYD_MAX_K the key-sort paths take over, which read the whole neighbourhood.
NOTE: biased sampling normalises per segment, so the prefix sums lose ~ eps · (number of
segments) absolute: candidates whose probability is below ~1e-9 of their segment's mass are
not represented exactly. CuPy's parallel cumsum rounds differently from NumPy's, so biased
samples may differ between backends at such boundaries; uniform samples are bit-identical.
"""
from collections import namedtuple

import numpy as np

from .. import backend
from . import launch
from .cache import KernelKey, get_kernel
from .cuda_common import c_index_type

xp = backend.xp

__all__ = ["FLOYD_MAX_K", "stream_key", "draw_bits", "draw_unit", "select_uniform",
           "select_uniform_rows",
           "BiasTable", "bias_table", "select_biased", "exponential_keys",
           "normalise_segments", "smallest_keys_per_slot", "repeat_index"]

FLOYD_MAX_K = 256  # past this, Floyd's O(k^2) scan loses to sorting random keys

_GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_MASK = (1 << 64) - 1


def _mix64_int(z):
    """splitmix64's finaliser on a Python int (host-side key derivation)."""
    z &= _MASK
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


def stream_key(seed, stream):
    """The 64-bit key of random stream ``stream`` under ``seed`` (both non-negative ints)."""
    return _mix64_int(_mix64_int(int(seed) * _GAMMA + 1) ^ (int(stream) * _M2))


# ---------------------------------------------------------------------- CUDA source
_SOURCE = r"""
typedef unsigned long long u64;
typedef long long i64;

__device__ __forceinline__ u64 draw(u64 key, i64 counter) {
    u64 z = key + ((u64)counter + 1ULL) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__device__ __forceinline__ double unit(u64 bits) {
    return (double)(bits >> 11) * (1.0 / 9007199254740992.0);   // [0, 1), 53 bits
}

extern "C" __global__ void draw_unit(const i64* counters, i64 n, u64 key, double* out) {
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[t] = unit(draw(key, counters[t]));
}

extern "C" __global__ void draw_bits(const i64* counters, i64 n, u64 key, u64* out) {
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[t] = draw(key, counters[t]);
}

// one thread per output position p (listed in pos): start + draw(p) mod deg
extern "C" __global__ void replace_uniform(const i64* pos, i64 npos, const i64* slot_of,
                                           const i64* starts, const i64* degs, u64 key,
                                           i64* out) {
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= npos) return;
    i64 p = pos[t], s = slot_of[p];
    out[p] = starts[s] + (i64)(draw(key, p) % (u64)degs[s]);
}

// Floyd's k-subset of [0, d) into out[o .. o + k) (as start + pick), scanning the earlier
// picks: step s draws x in [0, d - k + s] and takes it unless taken, else d - k + s
__device__ void floyd_picks(u64 key, i64 o, i64 start, i64 d, i64 k, i64* out) {
    for (i64 step = 0; step < k; ++step) {
        i64 j = d - k + step;
        i64 x = (i64)(draw(key, o + step) % (u64)(j + 1));
        bool seen = false;
        for (i64 q = 0; q < step; ++q) {
            if (out[o + q] == start + x) { seen = true; break; }
        }
        out[o + step] = start + (seen ? j : x);
    }
}

// one thread per slot: Floyd's k-subset of its candidates
extern "C" __global__ void floyd(const i64* slots, i64 nslots, const i64* starts,
                                 const i64* degs, const i64* counts, const i64* offsets,
                                 u64 key, i64* out) {
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nslots) return;
    i64 s = slots[t];
    floyd_picks(key, offsets[s], starts[s], degs[s], counts[s], out);
}

// one thread per output position p: first q in [lo, hi) with cum[q] > base + u, clamped to
// the segment's last positive-bias candidate (rounding can leave cum[hi-1] just below 1)
extern "C" __global__ void replace_biased(const i64* pos, i64 npos, const i64* slot_of,
                                          const i64* lo, const i64* hi, const double* base,
                                          const i64* last, const double* cum, u64 key,
                                          i64* out) {
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= npos) return;
    i64 p = pos[t], s = slot_of[p];
    double target = base[s] + unit(draw(key, p));
    i64 a = lo[s], b = hi[s];
    while (a < b) {
        i64 m = a + (b - a) / 2;
        if (cum[m] > target) b = m; else a = m + 1;
    }
    out[p] = a < last[s] ? a : last[s];
}

__device__ __forceinline__ double cum_before(const double* cum, i64 p, i64 lo, double base) {
    return p > lo ? cum[p - 1] : base;
}

// one thread per slot: successive sampling without replacement (each pick ∝ weight among
// the candidates not yet picked). The remaining mass is drawn in [0, mass - taken) and
// mapped back to the full CDF by skipping the picked intervals (picks kept sorted).
extern "C" __global__ void successive_biased(const i64* slots, i64 nslots, const i64* lo,
                                             const i64* hi, const double* base,
                                             const i64* last, const i64* counts,
                                             const i64* offsets, const double* cum,
                                             u64 key, i64* out) {
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nslots) return;
    i64 s = slots[t];
    i64 a = lo[s], b = hi[s], l = last[s], k = counts[s], o = offsets[s];
    double bs = base[s], mass = cum[l] - bs, taken = 0.0;
    for (i64 step = 0; step < k; ++step) {
        double target = bs + unit(draw(key, o + step)) * (mass - taken);
        for (i64 j = 0; j < step; ++j) {
            i64 p = out[o + j];
            double before = cum_before(cum, p, a, bs);
            if (before <= target) target += cum[p] - before;
        }
        i64 x = a, y = b;
        while (x < y) {
            i64 m = x + (y - x) / 2;
            if (cum[m] > target) y = m; else x = m + 1;
        }
        i64 q = x < l ? x : l;
        // rounding may land on a picked or zero-weight candidate: take the next free one
        for (;;) {
            bool bad = !(cum[q] > cum_before(cum, q, a, bs));
            for (i64 j = 0; j < step && !bad; ++j) bad = out[o + j] == q;
            if (!bad) break;
            q = q >= l ? a : q + 1;
        }
        taken += cum[q] - cum_before(cum, q, a, bs);
        i64 j = step;
        while (j > 0 && out[o + j - 1] > q) { out[o + j] = out[o + j - 1]; --j; }
        out[o + j] = q;
    }
}

// one thread per segment: w / (sum of w over the segment), 0 where the sum is 0
extern "C" __global__ void normalise_segments(const i64* ptr, i64 nseg, const double* w,
                                              double* out) {
    i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nseg) return;
    i64 a = ptr[s], b = ptr[s + 1];
    double total = 0.0;
    for (i64 q = a; q < b; ++q) total += w[q];
    double scale = total > 0.0 ? 1.0 / total : 0.0;
    for (i64 q = a; q < b; ++q) out[q] = w[q] * scale;
}
"""

_KEY = KernelKey("sampling", "select", (), ("int64", "float64"))

# Uniform selection from CSR rows without per-slot arrays: row_counts writes each slot's
# count after a leading 0 (so one scan gives the offsets), pick_rows each slot's picks and
# their slot, with the draws and picks of select_uniform's kernels. P: ptr's type, R: rows'.
_ROWS_SOURCE = r"""
typedef ${P} P;
typedef ${R} R;

// one thread per slot: c[s + 1] = how many picks slot s takes from row rows[s] (none from
// a row outside [0, nrows), so that ptr is never read out of bounds); c[0] = 0
extern "C" __global__ void row_counts(const P* ptr, i64 nrows, const R* rows, i64 m, i64 k,
                                      int replace, i64* c) {
    i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s == 0) c[0] = 0;
    if (s >= m) return;
    i64 r = (i64)rows[s];
    i64 d = r >= 0 && r < nrows ? (i64)ptr[r + 1] - (i64)ptr[r] : 0;
    c[s + 1] = replace ? (d > 0 ? k : 0) : (d < k ? d : k);
}

// one thread per slot: its picks out[off[s] .. off[s + 1]) and their slot. With
// replacement start + draw(p) mod deg at each output position p; without, every candidate
// in order when deg <= k, else Floyd's k-subset (k <= FLOYD_MAX_K)
extern "C" __global__ void pick_rows(const P* ptr, const R* rows, const i64* off, i64 m,
                                     int replace, u64 key, i64* out, i64* slot_of) {
    i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= m) return;
    i64 o = off[s], k = off[s + 1] - o;
    if (k == 0) return;
    i64 r = (i64)rows[s];
    i64 start = (i64)ptr[r], d = (i64)ptr[r + 1] - start;
    for (i64 j = 0; j < k; ++j) slot_of[o + j] = s;
    if (replace) {
        for (i64 j = 0; j < k; ++j) out[o + j] = start + (i64)(draw(key, o + j) % (u64)d);
    } else if (k == d) {
        for (i64 j = 0; j < k; ++j) out[o + j] = start + j;
    } else {
        floyd_picks(key, o, start, d, k, out);
    }
}
"""


def _kernel(name):
    # one source holds every kernel of the family; each is looked up once (memoised by name)
    return get_kernel(_KEY, lambda: _SOURCE, name)


def _launch(name, n, *args):
    if n:
        _kernel(name)(launch.grid(n), launch.BLOCK, args)


def _i64(a):
    return xp.ascontiguousarray(xp.asarray(a).astype(np.int64, copy=False))


# ---------------------------------------------------------------------- NumPy mirrors
def _draw_np(key, counters):
    z = np.uint64(key) + (counters.astype(np.uint64) + np.uint64(1)) * np.uint64(_GAMMA)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
    return z ^ (z >> np.uint64(31))


def _unit_np(bits):
    return (bits >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


# ---------------------------------------------------------------------- public kernels
def draw_bits(key, counters):
    """uint64 random bits for each counter (int array) under ``key``."""
    counters = _i64(counters)
    if backend.is_gpu:
        out = xp.empty(len(counters), dtype=np.uint64)
        _launch("draw_bits", len(counters), counters, np.int64(len(counters)), np.uint64(key), out)
        return out
    return _draw_np(key, counters)


def draw_unit(key, counters):
    """float64 uniform in [0, 1) for each counter under ``key``."""
    counters = _i64(counters)
    if backend.is_gpu:
        out = xp.empty(len(counters), dtype=np.float64)
        _launch("draw_unit", len(counters), counters, np.int64(len(counters)), np.uint64(key), out)
        return out
    return _unit_np(_draw_np(key, counters))


def exponential_keys(key, counters, weights):
    """Efraimidis–Spirakis keys E / w (E ~ Exp(1)); +inf where w == 0."""
    e = -xp.log1p(-draw_unit(key, counters))
    w = weights.astype(np.float64, copy=False)
    return xp.where(w > 0, e / xp.where(w > 0, w, 1.0), np.inf)


def repeat_index(counts, total=None):
    """[0]*counts[0] + [1]*counts[1] + ...: the owner of each of sum(counts) positions
    (searchsorted on the running total; CuPy's repeat takes no array of counts)."""
    counts = _i64(counts)
    ends = xp.cumsum(counts)
    if total is None:
        total = int(backend.to_scalar(ends[-1])) if len(ends) else 0
    return xp.searchsorted(ends, xp.arange(total, dtype=np.int64), side="right").astype(np.int64)


def _slot_of(counts, total):
    return repeat_index(counts, total)


def select_uniform(starts, degs, counts, offsets, take_all, key, *, with_replacement):
    """Uniform selection per slot (see the module docstring). All arguments per slot:
    starts, degs, counts (int64), offsets (int64, length nslots + 1, exclusive scan of
    counts), take_all (bool). Returns (positions, slot_of), both int64 of length
    offsets[-1]: the chosen candidate positions and the slot of each."""
    starts, degs, counts, offsets = (_i64(a) for a in (starts, degs, counts, offsets))
    total = int(backend.to_scalar(offsets[-1]))
    slot_of = _slot_of(counts, total)
    local = xp.arange(total, dtype=np.int64) - offsets[slot_of]
    out = starts[slot_of] + local  # the take-all picks; random slots are overwritten below
    random_slot = ~take_all
    if with_replacement:
        pos = xp.nonzero(random_slot[slot_of])[0].astype(np.int64)
        if backend.is_gpu:
            _launch("replace_uniform", len(pos), pos, np.int64(len(pos)), slot_of, starts, degs,
                    np.uint64(key), out)
        elif len(pos):
            s = slot_of[pos]
            out[pos] = starts[s] + (_draw_np(key, pos) % degs[s].astype(np.uint64)).astype(np.int64)
        return out, slot_of
    floyd = random_slot & (counts > 0) & (counts <= FLOYD_MAX_K)
    big = random_slot & (counts > FLOYD_MAX_K)
    slots = xp.nonzero(floyd)[0].astype(np.int64)
    if backend.is_gpu:
        _launch("floyd", len(slots), slots, np.int64(len(slots)), starts, degs, counts, offsets,
                np.uint64(key), out)
    else:
        _floyd_np(slots, starts, degs, counts, offsets, key, out)
    if bool(backend.to_scalar(big.any())):
        _select_by_keys(xp.nonzero(big)[0], starts, degs, counts, offsets, key, out)
    return out, slot_of


def select_uniform_rows(ptr, rows, k, key, *, with_replacement):
    """Uniform selection of k picks per slot from row rows[s] of CSR offsets ``ptr`` (int32
    or int64 arrays, read as they are; k >= 0): the picks of select_uniform with starts =
    ptr[rows], degs = ptr[rows + 1] - starts, counts = k where degs > 0 (with replacement)
    or min(degs, k), take_all = degs <= k without replacement. A row outside [0, len(ptr) - 1)
    gets no picks. Returns (positions, slot_of). On the GPU two kernels and one scan, one
    read of the device (the total)."""
    m, nrows = len(rows), len(ptr) - 1
    if not backend.is_gpu or m == 0 or (not with_replacement and k > FLOYD_MAX_K):
        inside = (rows >= 0) & (rows < nrows)
        r = xp.where(inside, rows, 0)
        starts = _i64(ptr[r])
        degs = xp.where(inside, _i64(ptr[r + 1]) - starts, 0)
        if with_replacement:
            counts = xp.where(degs > 0, k, 0).astype(np.int64)
            take_all = xp.zeros(m, dtype=bool)
        else:
            counts = xp.minimum(degs, k)
            take_all = degs <= k
        offsets = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts)])
        return select_uniform(starts, degs, counts, offsets, take_all, key,
                              with_replacement=with_replacement)
    ptr, rows = xp.ascontiguousarray(ptr), xp.ascontiguousarray(rows)
    kkey = KernelKey("sampling", "rows", (), (ptr.dtype.name, rows.dtype.name))
    replace = np.int32(bool(with_replacement))
    c = xp.empty(m + 1, dtype=np.int64)
    _rows_kernel(kkey, "row_counts")(
        launch.grid(m), launch.BLOCK, (ptr, np.int64(nrows), rows, np.int64(m), np.int64(k),
                                       replace, c))
    off = xp.cumsum(c)                             # off[s] = where slot s's picks begin
    total = int(backend.to_scalar(off[-1]))
    out = xp.empty(total, dtype=np.int64)
    slot_of = xp.empty(total, dtype=np.int64)
    _rows_kernel(kkey, "pick_rows")(
        launch.grid(m), launch.BLOCK, (ptr, rows, off, np.int64(m), replace, np.uint64(key),
                                       out, slot_of))
    return out, slot_of


def _rows_kernel(kkey, name):
    ptype, rtype = (c_index_type(t) for t in kkey.types)
    return get_kernel(kkey, lambda: _SOURCE + _ROWS_SOURCE.replace("${P}", ptype).replace(
        "${R}", rtype), name)


def _floyd_np(slots, starts, degs, counts, offsets, key, out):
    """Floyd's algorithm vectorised over slots: one pass per draw index (at most
    FLOYD_MAX_K passes), the same draws and the same picks as the CUDA kernel."""
    if len(slots) == 0:
        return
    start, d, k, o = starts[slots], degs[slots], counts[slots], offsets[slots]
    kmax = int(k.max())
    picks = np.empty((len(slots), kmax), dtype=np.int64)  # local offsets in [0, deg)
    for step in range(kmax):
        act = np.nonzero(k > step)[0]
        j = d[act] - k[act] + step
        r = (_draw_np(key, o[act] + step) % (j + 1).astype(np.uint64)).astype(np.int64)
        seen = (picks[act, :step] == r[:, None]).any(axis=1)
        picks[act, step] = np.where(seen, j, r)
    row = np.repeat(np.arange(len(slots)), k)
    col = np.arange(len(row)) - np.repeat(np.cumsum(k) - k, k)
    out[o[row] + col] = start[row] + picks[row, col]


def _gather_candidates(slots, starts, degs):
    """(slot of each candidate, candidate position, flat index) for the listed slots."""
    d = degs[slots]
    n = int(backend.to_scalar(d.sum())) if len(slots) else 0
    seg = repeat_index(d, n)  # index into ``slots``
    first = xp.cumsum(d) - d
    flat = xp.arange(n, dtype=np.int64)
    return slots[seg], starts[slots][seg] + (flat - first[seg]), flat


def smallest_keys_per_slot(slot, cand, keys, counts, offsets, out):
    """Write, for every slot, the candidates with the counts[slot] smallest keys into
    out[offsets[slot] : ...] (ties broken by candidate order). slot, cand, keys: per
    candidate, grouped by slot."""
    order = xp.argsort(keys, kind="stable")
    order = order[xp.argsort(slot[order], kind="stable")]  # by (slot, key)
    slot_sorted = slot[order]
    first = xp.searchsorted(slot_sorted, slot_sorted, side="left")
    rank = xp.arange(len(order), dtype=np.int64) - first
    keep = rank < counts[slot_sorted]
    out[offsets[slot_sorted[keep]] + rank[keep]] = cand[order[keep]]


def _select_by_keys(slots, starts, degs, counts, offsets, key, out):
    slots = _i64(slots)
    slot, cand, flat = _gather_candidates(slots, starts, degs)
    keys = draw_bits(_mix64_int(key ^ _M1), flat)  # a stream of its own, derived from key
    smallest_keys_per_slot(slot, cand, keys, counts, offsets, out)


def normalise_segments(ptr, weights):
    """weights / (sum over each segment ptr[s] .. ptr[s+1]), 0 in zero-sum segments (float64)."""
    ptr = _i64(ptr)
    w = xp.ascontiguousarray(weights.astype(np.float64))
    nseg = len(ptr) - 1
    if backend.is_gpu:
        out = xp.zeros(len(w), dtype=np.float64)
        _launch("normalise_segments", nseg, ptr, np.int64(nseg), w, out)
        return out
    lengths = np.diff(ptr)
    nonempty = np.nonzero(lengths)[0]
    sums = np.zeros(nseg, dtype=np.float64)
    if len(nonempty):
        sums[nonempty] = np.add.reduceat(w, ptr[nonempty])
    scale = np.divide(1.0, sums, out=np.zeros_like(sums), where=sums > 0)
    return w * np.repeat(scale, lengths)


BiasTable = namedtuple("BiasTable", "ptr weights cum base last npos")
BiasTable.__doc__ = """What biased selection needs per segment, made by ``bias_table``: backend
arrays, read-only. ``ptr`` (int64): segment offsets over the candidates; ``weights``
(float64): per candidate; ``cum``: inclusive prefix sums of the weights normalised to sum 1
within each segment; ``base``: cum just before each segment; ``last``: each segment's last
positive-weight candidate; ``npos`` (int64): each segment's number of positive-weight
candidates (the most picks it gives without replacement)."""


def bias_table(ptr, weights):
    """What biased selection needs per segment (ptr: segment offsets over candidates in
    segment order; weights: non-negative, in that order): the prefix sums of the
    per-segment-normalised weights (cum), cum just before each segment (base), the last
    positive-weight candidate (last) and the number of positive-weight candidates (npos)."""
    ptr = _i64(ptr)
    w = weights.astype(np.float64)
    cum = xp.cumsum(normalise_segments(ptr, w))
    lo, hi = ptr[:-1], ptr[1:]
    base = xp.where(lo > 0, cum[xp.maximum(lo - 1, 0)] if len(cum) else 0.0, 0.0)
    positive = xp.concatenate([xp.zeros(1, dtype=np.int64),
                               xp.cumsum((w > 0).astype(np.int64))])
    npos = positive[hi] - positive[lo]
    where_pos = xp.nonzero(w > 0)[0].astype(np.int64)
    if len(where_pos):
        last = xp.where(npos > 0, where_pos[xp.maximum(positive[hi] - 1, 0)], lo)
    else:
        last = lo.copy()
    return BiasTable(ptr, w, cum, base, last, npos)


def select_biased(seg, counts, offsets, table, key, *, with_replacement):
    """Selection proportional to the weights of ``table`` (a BiasTable) for slots on
    segments ``seg`` (see the module docstring): inverse CDF with replacement, successive
    sampling without (counts must not exceed the segment's positive-weight candidates).
    Returns (positions in segment order, slot_of)."""
    seg, counts, offsets = (_i64(a) for a in (seg, counts, offsets))
    total = int(backend.to_scalar(offsets[-1]))
    slot_of = _slot_of(counts, total)
    lo, hi = table.ptr[seg], table.ptr[seg + 1]
    out = xp.empty(total, dtype=np.int64)
    base, last = table.base[seg], table.last[seg]
    if not with_replacement:
        small = (counts > 0) & (counts <= FLOYD_MAX_K)
        slots = xp.nonzero(small)[0].astype(np.int64)
        if backend.is_gpu:
            _launch("successive_biased", len(slots), slots, np.int64(len(slots)), lo, hi,
                    xp.ascontiguousarray(base), last, counts, offsets,
                    xp.ascontiguousarray(table.cum), np.uint64(key), out)
        else:
            _successive_np(slots, lo, base, last, counts, offsets, table.cum, key, out)
        big = xp.nonzero(counts > FLOYD_MAX_K)[0].astype(np.int64)
        if len(big):  # Efraimidis–Spirakis keys over the whole segment
            slot, cand, flat = _gather_candidates(big, lo, hi - lo)
            keys = exponential_keys(_mix64_int(key ^ _M1), flat, table.weights[cand])
            smallest_keys_per_slot(slot, cand, keys, counts, offsets, out)
        return out, slot_of
    if backend.is_gpu:
        pos = xp.arange(total, dtype=np.int64)
        _launch("replace_biased", total, pos, np.int64(total), slot_of, lo, hi,
                xp.ascontiguousarray(base), last, xp.ascontiguousarray(table.cum),
                np.uint64(key), out)
    elif total:
        target = base[slot_of] + _unit_np(_draw_np(key, np.arange(total)))
        out[:] = np.minimum(np.searchsorted(table.cum, target, side="right"), last[slot_of])
    return out, slot_of


def _successive_np(slots, lo, base, last, counts, offsets, cum, key, out):
    """The CUDA successive_biased kernel vectorised over slots, one pass per pick."""
    if len(slots) == 0:
        return
    a, bs, lst, k, o = lo[slots], base[slots], last[slots], counts[slots], offsets[slots]

    def before(p, idx):
        return np.where(p > a[idx], cum[np.maximum(p - 1, 0)], bs[idx])

    kmax = int(k.max())
    picks = np.empty((len(slots), kmax), dtype=np.int64)  # sorted ascending per slot
    taken = np.zeros(len(slots))
    mass = cum[lst] - bs
    for step in range(kmax):
        act = np.nonzero(k > step)[0]
        target = bs[act] + _unit_np(_draw_np(key, o[act] + step)) * (mass[act] - taken[act])
        for j in range(step):  # skip the picked intervals, in increasing position
            p = picks[act, j]
            b = before(p, act)
            target = np.where(b <= target, target + cum[p] - b, target)
        q = np.minimum(np.searchsorted(cum, target, side="right"), lst[act])
        bad = ~(cum[q] > before(q, act)) | (picks[act, :step] == q[:, None]).any(axis=1)
        while bad.any():
            i = np.nonzero(bad)[0]
            q[i] = np.where(q[i] >= lst[act[i]], a[act[i]], q[i] + 1)
            bad[i] = ~(cum[q[i]] > before(q[i], act[i])) | \
                (picks[act[i], :step] == q[i][:, None]).any(axis=1)
        taken[act] += cum[q] - before(q, act)
        picks[act, step] = q
        picks[act, :step + 1] = np.sort(picks[act, :step + 1], axis=1)
    row = np.repeat(np.arange(len(slots)), k)
    col = np.arange(len(row)) - np.repeat(np.cumsum(k) - k, k)
    out[o[row] + col] = picks[row, col]
