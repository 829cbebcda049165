"""CuPy SpGEMM, T = A ⊕.⊗ B, row-wise (saxpy) in two phases.

Symbolic: count the distinct columns of each row T(i,:) = ⊕_k A(i,k) ⊗ B(k,:); scan the
counts into T's row offsets; check the output fits (AllocFailed otherwise); numeric: fill.

Rows are binned by u(i) = min(flops(i), ncols), an upper bound on |T(i,:)|:
- u(i) = 0: nothing to do;
- u(i) <= CAP/2 for a shared-memory table size CAP in SHARED_BINS: one block per row with a
  hash table of CAP slots in shared memory (load factor <= 1/2); the numeric phase compacts
  the table and places each entry by its rank among the row's columns, so rows come out
  sorted without a separate sort;
- heavier rows: HASH gives each row a global-memory hash table of the next power of two
  >= 2 u(i) slots (in batches that fit the memory budget), then sorts those rows' entries
  with one global sort; GUSTAVSON gives each of a few persistent blocks a dense accumulator
  (Gustavson's SPA: ncols values and ncols stamps), and scans it in column order, so heavy
  rows come out sorted at O(ncols) cost per row.

Each warp takes one A(i,k) at a time and its lanes walk B(k,:) (coalesced reads of B).
The kernels' source is in kernels.mxm_module, compiled with the masked-dot kernels: one
compilation per (⊗, ⊕, types, index types), keyed by a printable KernelKey. Measurements
against cuSPARSE: benchmarks/NOTES.md ("kernels.spgemm_cuda").
"""

import numpy as np

from .. import backend
from .._validate import index_dtype
from . import launch
from .. import memory
from .cuda_common import fold_start, value_args, word_dtype, word_of
from .mxm_module import HEAVY_THREADS, SHARED_BINS, module

xp = backend.xp

SPA_BLOCKS_PER_SM = 2        # persistent GUSTAVSON blocks (each owns a dense accumulator)

def spgemm(a, b, nrows, ncols, mult, mon, flops, method):
    """(indptr int64, indices, values) of T = A ⊕.⊗ B; a, b: kernels.operands.Compressed (rows of
    A and of B, same index type within each); flops: int64 per row of A. The output's index
    type is int32 unless its dimensions or entry count need int64."""
    x, z = mult.type, mon.type
    ic = np.dtype(index_dtype(nrows, ncols))
    keyt = np.dtype(np.int32) if ncols <= np.iinfo(np.int32).max else np.dtype(np.int64)
    mod = module(mult, mon, a.ptr.dtype, b.ptr.dtype, ic, keyt)
    ax, am = value_args(a, x)
    bx, bm = value_args(b, x)
    vals = (ax, am, bx, bm)
    ident = word_of(fold_start(mon, z), z)
    wdt = word_dtype(z)

    u = xp.minimum(flops, ncols)
    row_nnz = xp.zeros(nrows, dtype=np.int64)
    bins, lo = [], 0
    for cap, nt in SHARED_BINS:
        rows = xp.nonzero((u > lo) & (u <= cap // 2))[0].astype(np.int64)
        lo = cap // 2
        if len(rows):
            bins.append((cap, nt, rows))
    heavy = xp.nonzero(u > lo)[0].astype(np.int64)
    heavy_kernel = _heavy_hash if method == "hash" else _heavy_spa

    # ---- symbolic: |T(i,:)| per row, then the offsets
    for cap, nt, rows in bins:
        mod[f"sym_shared_{cap}"]((len(rows),), (nt,),
                                              (a.ptr, a.idx, b.ptr, b.idx, rows, row_nnz))
    if len(heavy):
        heavy_kernel("sym", mod, a, b, vals, heavy, u, ncols, keyt, wdt, ident, row_nnz)
    indptr = xp.zeros(nrows + 1, dtype=np.int64)
    xp.cumsum(row_nnz, out=indptr[1:])
    nnz = int(backend.to_scalar(indptr[-1]))
    ic2 = np.dtype(index_dtype(nrows, ncols, nnz))
    memory.require(nnz * (ic2.itemsize + z.np_type.itemsize), f"the product's {nnz} entries")
    if ic2 != ic:  # more entries than int32 indexes: the int64 variant
        mod = module(mult, mon, a.ptr.dtype, b.ptr.dtype, ic2, keyt)
    Cj = xp.empty(nnz, dtype=ic2)
    Cx = xp.empty(nnz, dtype=z.np_type)

    # ---- numeric
    for cap, nt, rows in bins:
        mod[f"num_shared_{cap}"]((len(rows),), (nt,), (
            a.ptr, a.idx, ax, am, b.ptr, b.idx, bx, bm, rows, indptr, Cj, Cx, ident))
    if len(heavy):
        heavy_kernel("num", mod, a, b, vals, heavy, u, ncols, keyt, wdt, ident, row_nnz,
                     indptr=indptr, Cj=Cj, Cx=Cx)
    return indptr, Cj, Cx


def _heavy_hash(phase, mod, a, b, vals, heavy, u, ncols, keyt, wdt, ident, row_nnz,
                indptr=None, Cj=None, Cx=None):
    """Heavy rows with global hash tables of 2^ceil(log2(2 u)) slots, in batches that fit."""
    ax, am, bx, bm = vals
    caps = (2 ** xp.ceil(xp.log2(2 * u[heavy].astype(np.float64)))).astype(np.int64)
    slot_bytes = keyt.itemsize + (wdt.itemsize if phase == "num" else 0)
    budget = max(memory.available() // 2, slot_bytes)
    # batches of consecutive heavy rows whose tables take at most `budget` bytes (at least
    # one row each: a row that alone exceeds the budget fails memory.require below)
    limits = np.cumsum(backend.to_host(caps)) * slot_bytes
    bounds = [0]
    while bounds[-1] < len(limits):
        base = limits[bounds[-1] - 1] if bounds[-1] else 0
        nxt = int(np.searchsorted(limits, base + budget, side="right"))
        bounds.append(max(nxt, bounds[-1] + 1))
    for h0, h1 in zip(bounds[:-1], bounds[1:]):
        rows, cap = heavy[h0:h1], caps[h0:h1]
        off = xp.cumsum(cap) - cap
        total = int(backend.to_scalar(cap.sum()))
        memory.require(total * slot_bytes, "hash tables for the heavy rows")
        keys = xp.full(total, -1, dtype=keyt)
        if phase == "sym":
            mod["sym_hash"]((len(rows),), (HEAVY_THREADS,), (
                a.ptr, a.idx, b.ptr, b.idx, rows, off, cap, keys, row_nnz))
        else:
            table = xp.full(total, ident, dtype=wdt)
            mod["num_hash"]((len(rows),), (HEAVY_THREADS,), (
                a.ptr, a.idx, ax, am, b.ptr, b.idx, bx, bm, rows, off, cap, keys, table,
                indptr, Cj, Cx))
            del table
        del keys
    if phase == "num":
        _sort_rows(heavy, indptr, Cj, Cx, ncols)


# bytes of temporaries per entry sorted by _sort_rows (segment, position, key, order, ...)
SORT_BYTES_PER_ENTRY = 48


def _sort_rows(rows, indptr, Cj, Cx, ncols):
    """Sort the entries of the given rows by column, in place, in groups of rows whose
    temporaries fit the memory budget."""
    counts = backend.to_host(indptr[rows + 1] - indptr[rows])
    cum = np.cumsum(counts)
    limit = max(memory.available() // SORT_BYTES_PER_ENTRY, 1)
    start = 0
    while start < len(rows):
        base = cum[start - 1] if start else 0
        stop = max(int(np.searchsorted(cum, base + limit, side="right")), start + 1)
        memory.require((cum[stop - 1] - base) * SORT_BYTES_PER_ENTRY, "sorting the heavy rows")
        _sort_some(rows[start:stop], indptr, Cj, Cx, ncols)
        start = stop


def _sort_some(rows, indptr, Cj, Cx, ncols):
    starts = indptr[rows]
    counts = indptr[rows + 1] - starts
    total = int(backend.to_scalar(counts.sum()))
    if total == 0:
        return
    ends = xp.cumsum(counts)
    seg = xp.searchsorted(ends, xp.arange(total), side="right")
    pos = starts[seg] + (xp.arange(total) - (ends - counts)[seg])
    cols = Cj[pos].astype(np.int64)
    if len(rows) * ncols < 2**62:
        order = xp.argsort(seg * ncols + cols)
    else:
        order = xp.lexsort(xp.stack([cols, seg]))
    del cols, seg
    Cj[pos] = Cj[pos[order]]
    Cx[pos] = Cx[pos[order]]


def _heavy_spa(phase, mod, a, b, vals, heavy, u, ncols, keyt, wdt, ident, row_nnz,
               indptr=None, Cj=None, Cx=None):
    """Heavy rows with dense accumulators, one per persistent block."""
    ax, am, bx, bm = vals
    nheavy = len(heavy)
    per_block = ncols * (4 + (wdt.itemsize if phase == "num" else 0))
    nblocks = int(min(nheavy, launch.sm_count() * SPA_BLOCKS_PER_SM,
                      max(memory.available() // 2 // max(per_block, 1), 1)))
    memory.require(nblocks * per_block, "dense accumulators for the heavy rows")
    flags = xp.zeros(nblocks * ncols, dtype=np.int32)
    if phase == "sym":
        mod["sym_spa"]((nblocks,), (HEAVY_THREADS,), (
            a.ptr, a.idx, b.ptr, b.idx, heavy, np.int64(nheavy), np.int64(ncols), flags, row_nnz))
        return
    table = xp.full(nblocks * ncols, ident, dtype=wdt)
    mod["num_spa"]((nblocks,), (HEAVY_THREADS,), (
        a.ptr, a.idx, ax, am, b.ptr, b.idx, bx, bm, heavy, np.int64(nheavy),
        np.int64(ncols), flags, table, indptr, Cj, Cx, ident))
