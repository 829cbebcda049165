"""Masked dot products: T⟨M⟩ = A ⊕.⊗ B computed only at the mask's entries.

For each mask entry (i, j): T(i,j) = ⊕_k A(i,k) ⊗ B(k,j) over k ∈ A(i,:) ∩ B(:,j), an
intersection of two sorted index lists (A's row i, B's column j). No entry when the
intersection is empty. This is what triangle counting needs: C⟨L⟩ = L ⊕.⊗ Lᵀ with
plus_pair, where B's columns are L's rows (no transpose is built).

``dot(a_rows, b_cols, mi, mj, mult, mon)`` -> (present: bool per mask entry, values).

NumPy: for each mask entry, walk the shorter of the two lists and look each index up in
the longer one (one searchsorted over (segment, index) keys for all entries at once);
fold the matches per entry with the monoid. Chunked by DOT_CHUNK lookups.

CuPy: a mask row whose A(i,:) is short (<= DOT_ROW_CAP entries) gets a warp, which loads
A(i,:) into shared memory once and, for each of the row's mask entries (i, j), walks
B(:,j) with its lanes, binary-searching A(i,:) there (or, for a B(:,j) much longer than
A(i,:), binary-searches B(:,j) for A(i,:)'s indices). The entries of longer rows go one at
a time: a thread merges the two lists when they are short together (DOT_THREAD_MAX), else
a group of DOT_GROUP lanes (a warp past DOT_WARP_MIN) takes the shorter list's indices and
binary-searches the longer. All stop early once the monoid's terminal value is reached
(for ANY: at the first match). The mask entries must come in row-major order. The kernels are compiled into the same
module as the SpGEMM kernels (kernels.spgemm_cuda.module: one compilation per semiring,
types and index types serves both).
"""
import numpy as np

from .. import backend
from ..types import cast
from . import memory
from .cuda_common import value_args
from .segment import segment_reduce
from .spgemm import expand

xp = backend.xp

__all__ = ["dot", "DOT_THREAD_MAX", "DOT_GROUP", "DOT_WARP_MIN", "DOT_ROW_CAP", "DOT_ROW_WALK",
           "DOT_CHUNK"]

DOT_CHUNK = 1 << 22   # NumPy: index lookups per chunk
# CuPy: an entry with |A(i,:)| + |B(:,j)| <= DOT_THREAD_MAX is merged by one thread; else the
# shorter list is spread over DOT_GROUP lanes (32 when it is longer than DOT_WARP_MIN), each
# binary-searching the longer list
DOT_THREAD_MAX = 32
DOT_GROUP = 8
DOT_WARP_MIN = 128
# CuPy: mask rows whose A(i,:) has at most DOT_ROW_CAP entries go a warp per row, A(i,:) held
# in shared memory (0: never); B(:,j) is walked when at most DOT_ROW_WALK x |A(i,:)| long
DOT_ROW_CAP = 256
DOT_ROW_WALK = 8


def dot(a, b, mi, mj, mult, mon):
    """a: rows of A (Operand), b: columns of B (Operand, index = row of B); mi, mj: the mask
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
    threads = 256
    if DOT_ROW_CAP > 0:
        # mask entries are in row-major order: each mask row is a run [first, last) of them
        rows = xp.arange(a.n, dtype=mi.dtype)
        first = xp.searchsorted(mi, rows, side="left").astype(np.int64)
        last = xp.searchsorted(mi, rows, side="right").astype(np.int64)
        a_len = a.lengths.astype(np.int64)
        row_of = xp.nonzero((last > first) & (a_len > 0) & (a_len <= DOT_ROW_CAP))[0]
        nrows = len(row_of)
        if nrows:
            mod.get_function(f"dot_rows_{suffix}")(
                ((nrows * 32 + threads - 1) // threads,), (threads,), (
                    a.ptr, a.idx, ax, am, b.ptr, b.idx, bx, bm, mj, row_of.astype(np.int64),
                    first[row_of], last[row_of], np.int64(nrows), term, out, present))
        left = la > DOT_ROW_CAP        # the entries of rows too long for shared memory
        la, lb = xp.where(left, la, 0), xp.where(left, lb, 0)
    merge = (la + lb <= DOT_THREAD_MAX) & (la > 0) & (lb > 0)
    shorter = xp.where(merge, 0, xp.minimum(la, lb))
    warp = shorter > DOT_WARP_MIN
    for ents, lanes in ((xp.nonzero(merge)[0], 1),
                        (xp.nonzero(~warp & (shorter > 0))[0], DOT_GROUP),
                        (xp.nonzero(warp)[0], 32)):
        m = len(ents)
        if m == 0:
            continue
        name = "dot_thread" if lanes == 1 else f"dot_group{lanes}"
        blocks = (m * lanes + threads - 1) // threads
        mod.get_function(f"{name}_{suffix}")((blocks,), (threads,), (
            a.ptr, a.idx, ax, am, b.ptr, b.idx, bx, bm, mi, mj, ents.astype(np.int64),
            np.int64(m), term, out, present))
    return present, out
