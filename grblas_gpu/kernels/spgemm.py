"""SpGEMM kernels: T = A ⊕.⊗ B, T(i,j) = ⊕_k A(i,k) ⊗ B(k,j) over the k where both exist.

Operands arrive as :class:`~grblas_gpu.kernels.operands.Compressed` (compressed rows:
offsets, sorted indices, values cast to the semiring's input type or None for an iso value).
``row_flops`` counts the products of each row of T, the first thing every method needs:
flops(i) = Σ_{k ∈ A(i,:)} |B(k,:)|.

NumPy: ESC (expand, sort, compress) over chunks of rows of at most ESC_CHUNK_FLOPS
products: gather the products of a chunk, sort them by (row, column), fold runs of equal
keys with the monoid. Every saxpy method (GUSTAVSON, HASH) runs this kernel under NumPy;
they differ only under CuPy (``spgemm_cuda``).
"""
import numpy as np

from .. import backend
from ..types import cast
from .. import memory
from .common import expand
from .segment import segment_reduce

xp = backend.xp

__all__ = ["row_flops", "spgemm", "ESC_CHUNK_FLOPS"]

# products gathered at once by the NumPy kernel (~50 bytes each of temporaries)
ESC_CHUNK_FLOPS = 1 << 22


def row_flops(a, b_lengths):
    """flops(i) = Σ_{k ∈ A(i,:)} |B(k,:)| for every row i of A (int64); b_lengths: |B(k,:)|."""
    bdeg = b_lengths.astype(np.int64)
    if len(a.idx) == 0:
        return xp.zeros(a.n, dtype=np.int64)
    per_entry = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(bdeg[a.idx])])
    return per_entry[a.ptr[1:]] - per_entry[a.ptr[:-1]]


def spgemm(a, b, ncols, mult, mon, *, method="hash", flops=None):
    """(indptr, indices, values) of T = A ⊕.⊗ B with nrows = a.n, ncols columns.
    mult: typed ⊗ (input type X, output cast to mon.type); mon: typed ⊕ monoid.
    method: 'hash' or 'gustavson' (CuPy only; NumPy runs ESC for both). The caller tries
    :func:`kernels.structured.structured_product` first (operations.mxm does, once)."""
    if flops is None:
        flops = row_flops(a, b.lengths)
    if backend.is_gpu:
        from .spgemm_cuda import spgemm as cuda_spgemm

        return cuda_spgemm(a, b, a.n, ncols, mult, mon, flops, method)
    return _esc(a, b, ncols, mult, mon, flops)


def _chunks(flops, limit):
    """Row ranges [r0, r1) with at most ``limit`` products each (a heavier row alone)."""
    n = len(flops)
    cum = np.cumsum(backend.to_host(flops))
    bounds = [0]
    while bounds[-1] < n:
        base = cum[bounds[-1] - 1] if bounds[-1] else 0
        nxt = int(np.searchsorted(cum, base + limit, side="right"))
        bounds.append(max(nxt, bounds[-1] + 1))
    return list(zip(bounds[:-1], bounds[1:]))


def _esc(a, b, ncols, mult, mon, flops):
    x, z = mult.type, mon.type
    entry_bytes = 8 + z.np_type.itemsize
    upper = int(xp.minimum(flops, ncols).sum())
    # the output is at most Σ min(flops(i), ncols); only when that bound does not fit is the
    # running total checked chunk by chunk (the exact size is known only once computed)
    check_running = upper * entry_bytes > memory.available()
    out_r, out_c, out_v, total = [], [], [], 0
    for r0, r1 in _chunks(flops, ESC_CHUNK_FLOPS):
        p0, p1 = int(a.ptr[r0]), int(a.ptr[r1])
        if p0 == p1:
            continue
        k = a.idx[p0:p1]
        # T(i,:) gathers B(k,:) for each A(i,k): one product per (A entry, B entry) pair
        bpos, rep = expand(b.ptr, k)
        if len(bpos) == 0:
            continue
        arow = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(a.ptr[r0:r1 + 1]))
        rows = arow[rep]
        cols = b.idx[bpos].astype(np.int64)
        if (r1 - r0) * ncols < 2**62:
            order = np.argsort(rows * ncols + cols, kind="stable")
        else:
            order = np.lexsort((cols, rows))
        rows, cols = rows[order], cols[order]
        if mult.op.positional:   # the term A(i,k) ⊗ B(k,j) is one of its indices
            prod = cast(mult.op.positions(rows + r0, a.idx[p0 + rep[order]], cols), z, np)
        else:
            xa = a.values_at(p0 + rep[order], x)
            yb = b.values_at(bpos[order], x)
            prod = cast(np.asarray(mult.numpy(xa, yb)), z, np)
        new = np.ones(len(rows), dtype=bool)
        new[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
        starts = np.nonzero(new)[0]
        out_v.append(segment_reduce(prod, starts, mon.op, z))
        out_r.append(rows[starts] + r0)
        out_c.append(cols[starts])
        total += len(starts)
        if check_running:
            memory.require(total * entry_bytes, f"the product's (at least) {total} entries")
    if not out_r:
        return (np.zeros(a.n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                np.zeros(0, dtype=z.np_type))
    rows = np.concatenate(out_r)
    indptr = np.searchsorted(rows, np.arange(a.n + 1), side="left").astype(np.int64)
    return indptr, np.concatenate(out_c), np.concatenate(out_v)
