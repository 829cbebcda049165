"""Masked dot products: T⟨M⟩ = A ⊕.⊗ B computed only at the mask's entries.

For each mask entry (i, j): T(i,j) = ⊕_k A(i,k) ⊗ B(k,j) over k ∈ A(i,:) ∩ B(:,j), an
intersection of two sorted index lists (A's row i, B's column j). No entry when the
intersection is empty. This is what triangle counting needs: C⟨L⟩ = L ⊕.⊗ Lᵀ with
plus_pair, where B's columns are L's rows (no transpose is built).

``dot(a_rows, b_cols, mi, mj, mult, mon)`` -> (present: bool per mask entry, values).

NumPy: for each mask entry, walk the shorter of the two lists and look each index up in
the longer one (one searchsorted over (segment, index) keys for all entries at once);
fold the matches per entry with the monoid. Chunked by DOT_CHUNK lookups.

CuPy: most entries go to the hash walk: a warp takes 32 consecutive entries, puts each row
A(i,:) they share (|A(i,:)| <= HASH_A_MAX) into a shared-memory hash table once, and walks
each entry's B(:,j) with all its lanes, probing the table (B(:,j) not much longer than
A(i,:): HASH_B_RATIO, HASH_B_MAX). It walks more indices than the searches below visit
(Σ|B(:,j)| against Σ min), but with coalesced loads and one 16-byte shared-memory probe each
instead of chains of dependent loads. The rest, one
mask entry at a time: a thread merges the two lists when they are short together
(|A(i,:)| + |B(:,j)| <= DOT_THREAD_MAX); otherwise a group of DOT_GROUP lanes (a warp once
the shorter list is longer than DOT_WARP_MIN) takes the shorter list's indices and
binary-searches the longer; neighbouring groups hold neighbouring entries of one mask row,
so the row of A they search stays in L1. All stop early once the monoid's terminal value
is reached (for ANY: at the first match). The kernels are compiled
into the same module as the SpGEMM kernels (kernels.mxm_module.module: one compilation
per semiring, types and index types serves both).
"""
import numpy as np

from .. import backend
from ..types import cast
from . import launch
from .. import memory
from .cache import KernelKey, get_functions
from .common import expand
from .compact import positions
from .cuda_common import c_index_type, value_args
from .mxm_module import HASH_SLOTS, HASH_WARPS, module
from .segment import segment_reduce

xp = backend.xp

__all__ = ["dot", "DOT_THREAD_MAX", "DOT_GROUP", "DOT_WARP_MIN", "DOT_CHUNK"]

DOT_CHUNK = 1 << 22   # NumPy: index lookups per chunk
# CuPy: an entry with |A(i,:)| + |B(:,j)| <= DOT_THREAD_MAX is merged by one thread; else the
# shorter list is spread over DOT_GROUP lanes (32 when it is longer than DOT_WARP_MIN), each
# binary-searching the longer list
DOT_THREAD_MAX = 32
DOT_GROUP = 8
DOT_WARP_MIN = 128
# ... and before those, an entry with |A(i,:)| <= HASH_A_MAX, |B(:,j)| <= HASH_B_MAX and
# |B(:,j)| <= HASH_B_RATIO * |A(i,:)| + 32 goes to the hash kernel (A(i,:) in a shared-memory
# table, B(:,j) walked): a walk that long costs less than the searches it replaces.
# HASH_A_MAX = 0 turns the kind off (it is off when A's columns do not fit an int). Each
# warp's table has HASH_SLOTS slots (compiled in; at most a quarter of them filled).
HASH_A_MAX = 256
HASH_B_MAX = 1024
HASH_B_RATIO = 8


def dot(a, b, mi, mj, mult, mon):
    """a: rows of A, b: columns of B (index = row of B), both Compressed; mi, mj: the mask
    entries' rows and columns. Returns (present bool[len(mi)], values mon.type[len(mi)])."""
    memory.require(len(mi) * (1 + mon.type.np_type.itemsize) * 2, "masked dot outputs")
    present = xp.zeros(len(mi), dtype=bool)
    out = xp.zeros(len(mi), dtype=mon.type.np_type)
    if len(mi) == 0 or len(a.idx) == 0 or len(b.idx) == 0:
        return present, out  # nothing to intersect: every mask entry stays absent
    impl = _dot_cuda if backend.is_gpu else _dot_numpy
    return impl(a, b, mi, mj, mult, mon, present, out)


# ------------------------------------------------------------------ NumPy
def _segment_keys(op):
    """Sorted int64 keys segment * span + index for every entry of op (None on overflow)."""
    span = int(backend.to_scalar(op.idx.max())) + 1 if len(op.idx) else 1
    if op.n * span >= 2**62:
        return None, span
    seg = np.repeat(np.arange(op.n, dtype=np.int64), np.diff(op.ptr))
    return seg * span + op.idx.astype(np.int64), span


def _find(op, keys, span, segs, targets):
    """Position of targets[t] inside segment segs[t] of op, and whether it is there."""
    if keys is not None:
        want = segs * span + targets
        pos = np.searchsorted(keys, want)
        ok = (pos < len(keys)) & (targets < span)  # an index past span would alias the next segment
        ok[ok] = keys[pos[ok]] == want[ok]
        return np.minimum(pos, max(len(keys) - 1, 0)), ok
    lo = op.ptr[segs].astype(np.int64)       # bisection: no key arithmetic that can overflow
    hi = op.ptr[segs + 1].astype(np.int64)
    while True:
        active = lo < hi
        if not active.any():
            break
        mid = (lo + hi) // 2
        less = active & (op.idx[np.minimum(mid, len(op.idx) - 1)] < targets)
        lo = np.where(less, mid + 1, lo)
        hi = np.where(active & ~less, mid, hi)
    ok = lo < op.ptr[segs + 1]
    pos = np.minimum(lo, max(len(op.idx) - 1, 0))
    ok[ok] = op.idx[pos[ok]] == targets[ok]
    return pos, ok


def _dot_numpy(a, b, mi, mj, mult, mon, present, out):
    x, z = mult.type, mon.type
    mi, mj = mi.astype(np.int64), mj.astype(np.int64)
    la, lb = a.lengths[mi].astype(np.int64), b.lengths[mj].astype(np.int64)
    akeys, aspan = _segment_keys(a)
    bkeys, bspan = _segment_keys(b)
    short_a = la <= lb
    for group, walk, other, okeys, ospan, wseg, oseg in (
            (np.nonzero(short_a)[0], a, b, bkeys, bspan, mi, mj),
            (np.nonzero(~short_a)[0], b, a, akeys, aspan, mj, mi)):
        work = np.minimum(la, lb)[group]
        cum = np.cumsum(work)
        start = 0
        while start < len(group):
            base = cum[start - 1] if start else 0
            stop = max(int(np.searchsorted(cum, base + DOT_CHUNK, side="right")), start + 1)
            ents = group[start:stop]
            start = stop
            # walk the shorter list of each entry, look each index up in the longer one
            wpos, rep = expand(walk.ptr, wseg[ents])
            if len(wpos) == 0:
                continue
            opos, ok = _find(other, okeys, ospan, oseg[ents][rep], walk.idx[wpos].astype(np.int64))
            rep, wpos, opos = rep[ok], wpos[ok], opos[ok]
            if len(rep) == 0:
                continue
            apos, bpos = (wpos, opos) if walk is a else (opos, wpos)
            if mult.op.positional:   # the term A(i,k) ⊗ B(k,j) is one of its indices
                prod = cast(mult.op.positions(mi[ents[rep]], walk.idx[wpos], mj[ents[rep]]),
                            z, np)
            else:
                prod = cast(np.asarray(mult.numpy(a.values_at(apos, x), b.values_at(bpos, x))),
                            z, np)
            prod = np.broadcast_to(prod, rep.shape).copy() if prod.ndim == 0 else prod
            new = np.ones(len(rep), dtype=bool)
            new[1:] = rep[1:] != rep[:-1]
            starts = np.nonzero(new)[0]
            hit = ents[rep[starts]]
            out[hit] = segment_reduce(prod, starts, mon.op, z)
            present[hit] = True
    return present, out


# ------------------------------------------------------------------ CuPy
def _dot_cuda(a, b, mi, mj, mult, mon, present, out):
    x, z = mult.type, mon.type
    mod = module(mult, mon, a.ptr.dtype, b.ptr.dtype)
    if mi.dtype != mj.dtype or np.dtype(mi.dtype).name not in ("int32", "int64"):
        mi, mj = mi.astype(np.int64), mj.astype(np.int64)
    suffix = np.dtype(mi.dtype).name
    ax, am = value_args(a, x)
    bx, bm = value_args(b, x)
    terminal = mon.terminal if not getattr(mon.op, "all_terminal", False) else None
    term = z.np_type.type(terminal if terminal is not None else 0)
    # the table holds A's column indices as int: int32 index arrays on both sides
    narrow = all(np.dtype(op.idx.dtype) == np.int32 for op in (a, b))
    hash_a_max = min(HASH_A_MAX, HASH_SLOTS // 4) if narrow else 0
    lists, counts = _entry_kinds(a.ptr, b.ptr, mi, mj, hash_a_max)
    start = 0
    for kind, lanes in enumerate((1, DOT_GROUP, 32, "hash")):
        m = counts[kind]
        ents, start = lists[start:start + m], start + m
        if m == 0:
            continue
        if lanes == "hash":   # a warp per 32 entries
            name, threads = "dot_hash", 32 * HASH_WARPS
            blocks = -(-m // threads)
        else:
            name, threads = ("dot_thread" if lanes == 1 else f"dot_group{lanes}"), 256
            blocks = (m * lanes + threads - 1) // threads
        mod[f"{name}_{suffix}"]((blocks,), (threads,), (
            a.ptr, a.idx, ax, am, b.ptr, b.idx, bx, bm, mi, mj, ents,
            np.int64(m), term, out, present))
    return present, out


# Which kernel takes each mask entry: label 4 the hash walk (see HASH_A_MAX), else 1 the
# one-thread merge (|A(i,:)| + |B(:,j)| <= DOT_THREAD_MAX), 3 a warp (the shorter list longer
# than DOT_WARP_MIN), 2 a group of DOT_GROUP lanes; 0 (none) when a list is empty. Each kind
# is listed in entry order (compact.positions): neighbouring groups then share a mask row,
# and a hash warp's 32 entries share few rows. One kernel instead of a chain of CuPy passes.
_KINDS = r"""
typedef ${IA} IA;
typedef ${IB} IB;
typedef ${IM} IM;
extern "C" __global__ void dot_labels(const IA* __restrict__ Ap, const IB* __restrict__ Bp,
        const IM* __restrict__ mi, const IM* __restrict__ mj, long long n, int thread_max,
        int warp_min, int hash_a_max, int hash_b_max, int hash_b_ratio,
        unsigned char* __restrict__ labels) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
        const long long la = Ap[mi[e] + 1] - Ap[mi[e]], lb = Bp[mj[e] + 1] - Bp[mj[e]];
        labels[e] = (la == 0 || lb == 0) ? 0
                  : (la <= hash_a_max && lb <= hash_b_max && lb <= hash_b_ratio * la + 32) ? 4
                  : (la + lb <= thread_max ? 1 : (min(la, lb) > warp_min ? 3 : 2));
    }
}
extern "C" __global__ void list_entries(const unsigned char* __restrict__ labels,
        const long long* __restrict__ pos, long long n, long long* __restrict__ lists) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
        if (labels[e]) lists[pos[e]] = e;
}
"""


def _entry_kinds(ap, bp, mi, mj, hash_a_max):
    """(the entry lists of the four kinds, one after another; their four lengths)."""
    from string import Template

    key = KernelKey("masked_dot", "kinds", (),
                    tuple(np.dtype(x.dtype).name for x in (ap, bp, mi)))
    kernels = get_functions(key, lambda: Template(_KINDS).substitute(
        IA=c_index_type(ap.dtype), IB=c_index_type(bp.dtype), IM=c_index_type(mi.dtype)),
        ("dot_labels", "list_entries"))
    n = len(mi)
    memory.require(n * 17, "the masked dot's entry lists")
    labels = xp.empty(n, dtype=np.uint8)
    grid = launch.strided_grid(n)
    kernels["dot_labels"](grid, launch.BLOCK, (
        ap, bp, mi, mj, np.int64(n), np.int32(DOT_THREAD_MAX), np.int32(DOT_WARP_MIN),
        np.int32(hash_a_max), np.int32(HASH_B_MAX), np.int32(HASH_B_RATIO), labels))
    pos, sizes = positions(labels, 4)
    lists = xp.empty(sum(sizes), dtype=np.int64)
    kernels["list_entries"](grid, launch.BLOCK, (labels, pos, np.int64(n), lists))
    return lists, sizes
