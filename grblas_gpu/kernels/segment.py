"""Segmented reduction: reduce runs of equal keys with a binary operator.

``segment_reduce(values, starts, op)``: ``starts`` are the (sorted) start offsets of
non-empty segments; returns one value per segment, combining neighbours in order, so
non-commutative associative operators (first, second) keep their meaning.

NumPy: ``ufunc.reduceat`` when the operator is a ufunc, else a log-depth pairwise tree of
vectorised calls of the operator's NumPy function. CuPy: a generated kernel (one thread
per segment) from the operator's C expression; a warp per segment when segments are long
enough on average (each lane folds a contiguous chunk, the lanes are then combined in order:
power-law rows, such as a hub's, no longer hold one thread for their whole length). The
tree, reduceat's pairwise float sums and the warp's chunks group the terms: exact for
operators that are associative on the type.

``segment_fold_left(values, starts, typed)``: the strict left fold ((v0 ⊙ v1) ⊙ v2) ⊙ ...
that GrB_Matrix_build applies to duplicates, for any operator (minus, cdiv, pow, float
plus). NumPy: step k folds the k-th value of every segment that has one, in one vectorised
call: O(len(values)) work in (longest segment - 1) steps (a position duplicated 10**5 times
costs 10**5 small steps). CuPy: the thread-per-segment kernel above, one launch.
"""
import numpy as np

from .. import backend
from ..types import cast
from .cache import KernelKey, get_kernel

xp = backend.xp


def kept_pointers(ptr, keep):
    """The segment offsets once only the entries flagged in ``keep`` (one bool per entry) are
    kept, in order: each offset becomes the count of kept entries before it (int64)."""
    kept_before = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(keep, dtype=np.int64)])
    return kept_before[ptr]


def segment_reduce(values, starts, op, dtype):
    """values: array (already of dtype); starts: int array of segment starts; op: a BinaryOp
    (or Monoid) evaluated at DataType dtype."""
    n = len(values)
    if len(starts) == 0:
        return values[:0]
    if backend.is_gpu:
        return _segment_reduce_cuda(values, starts, op, dtype)
    ufunc = getattr(op, "ufunc", None)
    with np.errstate(all="ignore"):  # values are the operator's, warnings or not (1/0 = inf)
        if ufunc is not None and not dtype.is_bool:
            return ufunc.reduceat(values, starts, dtype=values.dtype)  # no upcast of int8
        return _segment_reduce_tree(values, starts, op.numpy, n)


def _segment_reduce_tree(values, starts, fn, n):
    seg_id = xp.searchsorted(starts, xp.arange(n), side="right") - 1
    ends = xp.concatenate([starts[1:], xp.asarray([n], dtype=starts.dtype)])
    local = xp.arange(n) - starts[seg_id]
    seglen = (ends - starts)[seg_id]
    vals = values.copy()
    step = 1
    maxlen = int(backend.to_scalar((ends - starts).max()))
    while step < maxlen:
        active = xp.nonzero((local % (2 * step) == 0) & (local + step < seglen))[0]
        if active.size:
            vals[active] = fn(vals[active], vals[active + step]).astype(vals.dtype)
        step *= 2
    return vals[starts]


def segment_fold_left(values, starts, typed):
    """acc = op(acc, v) over each segment in order, acc starting at the segment's first
    value; ``typed``: the operator at its type (``values`` are of that type, and so is the
    result)."""
    n, nseg = len(values), len(starts)
    if nseg == 0:
        return values[:0]
    if backend.is_gpu:  # one thread folds each segment in order: one launch, no host read
        return _segment_reduce_cuda(values, starts, typed.op, typed.type, ordered=True)
    starts = starts.astype(np.int64, copy=False)
    lens = xp.diff(xp.concatenate([starts, xp.asarray([n], dtype=np.int64)]))
    # longest segments first: those still folding at step k are a prefix
    order = xp.argsort(-lens, kind="stable")
    first = starts[order]
    acc = values[first]
    maxlen = int(backend.to_scalar(lens[order[0]]))
    # active[k - 1]: how many segments hold more than k values (one read for every step)
    active = backend.to_host(xp.searchsorted(-lens[order], -xp.arange(1, maxlen), side="left"))
    fn, t = typed.op.numpy, typed.type
    with np.errstate(all="ignore"):
        for k, m in enumerate(active.tolist(), start=1):
            acc[:m] = cast(xp.asarray(fn(acc[:m], values[first[:m] + k])), t, xp)
    out = xp.empty_like(acc)
    out[order] = acc
    return out


_SEGMENT_TEMPLATE = r"""
typedef ${T} T;
extern "C" __global__ void segment_reduce(const T* __restrict__ vals, const long long* starts,
                                          long long nseg, long long n, T* out) {
    long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nseg) return;
    long long begin = starts[s], end = (s + 1 < nseg) ? starts[s + 1] : n;
    T x = vals[begin];
    for (long long k = begin + 1; k < end; ++k) {
        T y = vals[k];
        x = (T)(${EXPR});
    }
    out[s] = x;
}
"""


_SEGMENT_WARP_TEMPLATE = r"""
typedef ${T} T;
typedef ${W} W;   // a word as wide as T (or int) that the shuffle moves
__device__ __forceinline__ T shfl_down_t(T v, int d) {
    union { T t; W w; } u; u.w = 0; u.t = v;
    u.w = __shfl_down_sync(0xffffffffu, u.w, d);
    return u.t;
}
extern "C" __global__ void segment_reduce_warp(const T* __restrict__ vals, const long long* starts,
                                               long long nseg, long long n, T* out) {
    const long long s = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int l = threadIdx.x & 31;
    if (s >= nseg) return;  // the whole warp
    const long long begin = starts[s], end = (s + 1 < nseg) ? starts[s + 1] : n;
    const long long chunk = (end - begin + 31) / 32;
    const long long lo = begin + l * chunk, hi = min(lo + chunk, end);
    bool has = lo < hi;
    T x = has ? vals[lo] : (T)0;
    for (long long k = lo + 1; k < hi; ++k) {
        T y = vals[k];
        x = (T)(${EXPR});
    }
    // lane l takes lane l + d's fold when l is a multiple of 2d: left to right, in order
    for (int d = 1; d < 32; d <<= 1) {
        const T y = shfl_down_t(x, d);
        const bool yh = __shfl_down_sync(0xffffffffu, (int)has, d) != 0;
        if ((l & (2 * d - 1)) == 0 && l + d < 32 && yh) {
            x = has ? (T)(${EXPR}) : y;
            has = true;
        }
    }
    if (l == 0) out[s] = x;
}
"""

SEGMENT_WARP_MIN = 16   # mean segment length from which a warp folds each segment


def _segment_reduce_cuda(values, starts, op, dtype, ordered=False):
    """``ordered``: a strict left fold (a thread per segment), for operators that are not
    associative; else a warp per segment where segments are long on average."""
    from string import Template

    nseg, n = len(starts), len(values)
    warp = not ordered and n >= SEGMENT_WARP_MIN * nseg
    variant = "warp_per_segment" if warp else "thread_per_segment"
    key = KernelKey("segment_reduce", variant, (op.name,), (dtype.name,))
    if warp:
        word = "long long" if dtype.np_type.itemsize == 8 else "int"
        src = Template(_SEGMENT_WARP_TEMPLATE).substitute(T=dtype.c_type, W=word,
                                                          EXPR=op.c(dtype))
        kernel = get_kernel(key, lambda: src, "segment_reduce_warp")
    else:
        src = Template(_SEGMENT_TEMPLATE).substitute(T=dtype.c_type, EXPR=op.c(dtype))
        kernel = get_kernel(key, lambda: src, "segment_reduce")
    starts64 = starts.astype(np.int64, copy=False)
    out = xp.empty(nseg, dtype=values.dtype)
    threads = 256
    per_segment = 32 if warp else 1
    kernel(((nseg * per_segment + threads - 1) // threads,), (threads,),
           (values, starts64, np.int64(nseg), np.int64(n), out))
    return out
