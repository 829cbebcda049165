"""Products with a structured operand: one term per entry of T, so ⊕ never runs.

    A of at most one entry per row (a permutation, a row selection): T(i,:) = A(i,k) ⊗ B(k,:),
        B's rows gathered (``row_gather``); when A is a diagonal D (D·B) T keeps B's pattern
        on the rows D holds (``row_scale``)
    B diagonal (A·D): T(i,k) = A(i,k) ⊗ D(k,k), A's pattern on the columns D holds
        (``column_scale``)

Neither needs a workspace, a sort or the flops estimate (operations.mxm tries these first).
A partial diagonal drops the rows (columns) it lacks with one compaction; a full one keeps
the other operand's structure as it is. Values: one generated kernel gathering both sides
and applying ⊗ (elementwise.gather_binary) where the backend has one, else NumPy/CuPy
calls of ⊗'s NumPy function. The operand's shape (longest row, rows on the diagonal, empty
rows) is one launch and one read on the GPU.
"""
import numpy as np

from .. import backend
from ..types import cast
from .. import memory
from .cache import KernelKey, get_kernel
from .common import expand
from .compact import compact
from .cuda_common import c_index_type
from .elementwise import gather_binary

xp = backend.xp

__all__ = ["structured_product", "diagonal_shape", "SHAPE_KEYS"]


def structured_product(a, b, mult, mon):
    """(kind, (indptr, indices, values)) when A has at most one entry per row or B is
    diagonal, else None. A B whose shape is already known (kept with its matrix: a
    Matrix.diag, or one read before) is tried first: then A's shape is never read."""
    if len(a.idx) == 0 or mult.op.positional:  # (its terms need i, k, j: the general kernels)
        return None
    b_could_be_diagonal = 0 < len(b.idx) <= b.n
    if b_could_be_diagonal and _is_diagonal(_known_shape(b), b.n):
        return "column_scale", _column_scale(a, b, mult, mon, full=len(b.idx) == b.n)
    longest, on_diagonal, empty = _shape(a)
    if longest == 1:
        if a.n == b.n and on_diagonal + empty == a.n:
            return "row_scale", _row_scale(a, b, mult, mon, full=empty == 0)
        return "row_gather", _row_gather(a, b, mult, mon)
    if b_could_be_diagonal and _is_diagonal(_shape(b), b.n):
        return "column_scale", _column_scale(a, b, mult, mon, full=len(b.idx) == b.n)
    return None


# the keys an operand's shape is kept under with its matrix: read by rows, by columns
SHAPE_KEYS = ("row_shape", "col_shape")


def diagonal_shape(n, nvals, main):
    """The shape (see _shape) of an n × n matrix of nvals entries on one diagonal (the main
    one when ``main``): what Matrix.diag records, by rows and by columns alike."""
    return (min(nvals, 1), nvals if main else 0, n - nvals)


def _is_diagonal(shape, n):
    return shape is not None and shape[0] == 1 and shape[1] + shape[2] == n


def _known_shape(op):
    if op.shape_memo is None:
        return None
    owner, key = op.shape_memo
    return owner._cache.get(key)


def _products(a, ia, b, ib, mult, mon, n):
    """T's values: mult(a[ia], b[ib]) in the monoid's type (positions None: all, in order)."""
    x, z = mult.type, mon.type
    av = xp.asarray(a.iso, dtype=x.np_type) if a.values is None else a.values
    bv = xp.asarray(b.iso, dtype=x.np_type) if b.values is None else b.values
    # (two iso sides give one value, whatever the positions: the general path broadcasts it)
    prod = gather_binary(av, ia, bv, ib, mult, z) if av.ndim or bv.ndim else None
    if prod is not None:
        return prod
    av = av if av.ndim == 0 or ia is None else av[ia]
    bv = bv if bv.ndim == 0 or ib is None else bv[ib]
    with np.errstate(all="ignore"):
        prod = xp.asarray(mult.numpy(cast(av, x, xp), cast(bv, x, xp)))
    if prod.shape != (n,):   # iso sides, or an operator that ignores its operands (pair)
        prod = xp.broadcast_to(prod, (n,)).copy()
    return cast(prod, z, xp)


def _row_scale(a, b, mult, mon, full):
    """A diagonal: T(i,:) = A(i,i) ⊗ B(i,:) for the rows A holds."""
    z = mon.type
    memory.require(len(b.idx) * (8 + z.np_type.itemsize), "the product's entries")
    row = backend.row_ids(b.ptr, len(b.idx), np.int64)
    indptr, idx, pos = b.ptr, b.idx, None
    keep = None if full else (a.lengths > 0)[row]
    if keep is not None and backend.count_true(keep) < len(keep):
        # B's rows where A has no entry are dropped
        pos = xp.arange(len(b.idx), dtype=np.int64)
        indptr, (idx, pos, row) = compact(b.ptr, keep, [b.idx, pos, row])
    # A(i,i) sits at a.ptr[i]; a full diagonal has a.ptr[i] = i
    ia = row if full else a.ptr[row]
    return indptr, idx, _products(a, ia, b, pos, mult, mon, len(idx))


def _column_scale(a, b, mult, mon, full):
    """B diagonal: T(i,k) = A(i,k) ⊗ B(k,k) for the columns B holds; A's order kept."""
    z = mon.type
    memory.require(len(a.idx) * (8 + z.np_type.itemsize), "the product's entries")
    indptr, idx, pos = a.ptr, a.idx, None
    keep = None if full else (b.lengths > 0)[a.idx]
    if keep is not None and backend.count_true(keep) < len(keep):
        # A's entries in columns without a diagonal entry are dropped
        pos = xp.arange(len(a.idx), dtype=np.int64)
        indptr, (idx, pos) = compact(a.ptr, keep, [a.idx, pos])
    ib = idx if full else b.ptr[idx]
    return indptr, idx, _products(a, pos, b, ib, mult, mon, len(idx))


def _row_gather(a, b, mult, mon):
    """A of at most one entry per row, not a diagonal: T(i,:) = A(i,k) ⊗ B(k,:), B's row k
    gathered into row i."""
    z = mon.type
    first = xp.minimum(a.ptr[:-1], len(a.idx) - 1).astype(np.int64)
    k = a.idx[first].astype(np.int64)
    lengths = xp.where(a.lengths > 0, b.lengths[k], 0).astype(np.int64)
    memory.require(int(backend.to_scalar(lengths.sum())) * (8 + z.np_type.itemsize),
                   "the product's entries")
    indptr = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(lengths)])
    pos, row = expand(b.ptr, k, lengths)
    return indptr, b.idx[pos], _products(a, first[row], b, pos, mult, mon, len(pos))


_SHAPE_SOURCE = r"""
typedef ${P} P;
typedef ${I} I;
// stats: [longest row, rows whose one entry is on the diagonal, empty rows]
extern "C" __global__ void row_shape(const P* __restrict__ ptr, const I* __restrict__ idx,
                                     long long n, unsigned long long* __restrict__ stats) {
    unsigned long long longest = 0, diagonal = 0, empty = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += stride) {
        const long long len = ptr[r + 1] - ptr[r];
        longest = max(longest, (unsigned long long)len);
        empty += len == 0;
        diagonal += len == 1 && (long long)idx[ptr[r]] == r;
    }
    for (int d = 16; d > 0; d >>= 1) {
        longest = max(longest, __shfl_down_sync(0xffffffffu, longest, d));
        diagonal += __shfl_down_sync(0xffffffffu, diagonal, d);
        empty += __shfl_down_sync(0xffffffffu, empty, d);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMax(&stats[0], longest);
        atomicAdd(&stats[1], diagonal);
        atomicAdd(&stats[2], empty);
    }
}
"""

def _shape(op):
    """(longest row, rows holding one entry on the diagonal, empty rows) of a Compressed operand; kept
    with the matrix it came from (op.shape_memo)."""
    known = _known_shape(op)
    if known is None:
        known = _measure_shape(op)
        if op.shape_memo is not None:
            owner, key = op.shape_memo
            owner._caching()[key] = known
    return known


def _measure_shape(op):
    names = (np.dtype(op.ptr.dtype).name, np.dtype(op.idx.dtype).name)
    if op.n == 0:
        return 0, 0, 0
    if not backend.is_gpu or not all(t in ("int32", "int64") for t in names):
        lengths = op.lengths
        first = xp.minimum(op.ptr[:-1], max(len(op.idx) - 1, 0))
        diagonal = (lengths == 1) & (op.idx[first] == xp.arange(op.n))
        return (int(lengths.max()), int(xp.count_nonzero(diagonal)),
                int(xp.count_nonzero(lengths == 0)))
    from string import Template
    from . import launch

    key = KernelKey("structured", "row_shape", (), names)
    fn = get_kernel(key, lambda: Template(_SHAPE_SOURCE).substitute(
        P=c_index_type(op.ptr.dtype), I=c_index_type(op.idx.dtype)), "row_shape")
    stats = xp.zeros(3, dtype=np.uint64)
    fn(launch.strided_grid(op.n), launch.BLOCK, (op.ptr, op.idx, np.int64(op.n), stats))
    return tuple(int(s) for s in stats.get())
