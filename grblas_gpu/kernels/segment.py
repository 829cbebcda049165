"""Segmented reduction: reduce runs of equal keys with a binary operator.

``segment_reduce(values, starts, op)``: ``starts`` are the (sorted) start offsets of
non-empty segments; returns one value per segment, folding left to right, so
non-commutative associative operators (first, second) keep their meaning.

NumPy: ``ufunc.reduceat`` when the operator is a ufunc, else a log-depth pairwise tree of
vectorised calls of the operator's NumPy function. CuPy: a generated kernel (one thread
per segment) from the operator's C expression.
"""
import numpy as np

from .. import backend
from .cache import KernelKey, get_kernel

xp = backend.xp


def segment_reduce(values, starts, op, dtype):
    """values: array (already of dtype); starts: int array of segment starts; op: a BinaryOp
    (or Monoid) evaluated at DataType dtype."""
    n = len(values)
    if len(starts) == 0:
        return values[:0]
    if backend.is_gpu:
        return _segment_reduce_cuda(values, starts, op, dtype)
    ufunc = getattr(op, "ufunc", None)
    if ufunc is not None and not dtype.is_bool:
        return ufunc.reduceat(values, starts, dtype=values.dtype)  # no silent upcast of int8
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


def _segment_reduce_cuda(values, starts, op, dtype):
    from string import Template

    key = KernelKey("segment_reduce", "thread_per_segment", (op.name,), (dtype.name,))
    src = Template(_SEGMENT_TEMPLATE).substitute(T=dtype.c_type, EXPR=op.c(dtype))
    kernel = get_kernel(key, lambda: src, "segment_reduce")
    starts64 = starts.astype(np.int64, copy=False)
    out = xp.empty(len(starts), dtype=values.dtype)
    nseg = len(starts)
    threads = 256
    kernel(((nseg + threads - 1) // threads,), (threads,),
           (values, starts64, np.int64(nseg), np.int64(len(values)), out))
    return out
