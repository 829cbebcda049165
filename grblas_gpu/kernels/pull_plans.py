"""How a pull (kernels.pull) works one B: the tuning constants, the row plan kept with B
(which rows go to the row or stream kernel, which are cut into warp items), the choice of
kernel for a product, and the per-thread scratch kept with the plans.

The constants were tuned on R-MAT graphs (benchmarks.cases_mxv, case tune); the measurements
behind them are in benchmarks/NOTES.md ("kernels.pull_plans"). Benchmarks may set them (and
``WIDTH_OVERRIDE``) on this module: kernels.pull reads them at each call.
"""
import numpy as np

from .. import backend
from .common import per_thread

xp = backend.xp

__all__ = ["vector_width", "row_plan", "stops_often", "streams", "keyable", "few_scratch",
           "partials", "ROWLIST_MAX_DENSITY", "FEW_ROWS"]

# a lane reads UNROLL vectors of 4 entries per pass; a row of up to SHORT_PASSES passes stays
# with its V lanes (more unrolling costs registers, hence occupancy; the product is bound by
# the random gathers of u)
UNROLL = 1
SHORT_PASSES = 4
# where the fold stops early most of the time (ANY; a BFS pull), a row of up to this many
# passes stays with its V lanes: most rows stop in their first pass, and a warp per row
# (an item) spends its time being scheduled
STOP_SHORT_PASSES = 128
# lanes per row there: a lane looks its entries up one at a time until one is found, so one
# lane per row reads one L2 sector where most rows stop at their first entry
STOP_WIDTH = 1
# entries per warp item for longer rows (32 lanes x 4 entries x 16 passes; 4 passes of 4
# vectors a lane over a full matrix, ITEM_UNROLL)
LONG_CHUNK = 2048
# rows of more items than this have their partial results folded by a block, not a warp
FINISH_WIDE = 256
# the stream kernel (unmasked products without a reachable terminal): a block reads the rows
# starting in a stretch of STREAM_HALF entries (at most twice that many entries, kept in
# shared memory) and at most STREAM_ROWS rows; longer rows are warp items
STREAM_HALF = 1024
STREAM_ROWS = 2048
# a full B of at most this many rows (a skinny product: a BFS's frontier count over [deg 1])
# takes spmv_few, one pass over u for all its rows
FEW_ROWS = 4
FEW_BLOCKS_PER_SM = 4  # its grid: a thread folds 16 entries a step
# a non-complemented mask with at most this fraction of allowed rows is walked as a row list
ROWLIST_MAX_DENSITY = 1 / 32
WIDTH_OVERRIDE = None  # benchmarks may force V


def vector_width(avg_len):
    """Lanes per row: the smallest power of two (2..32) whose lanes cover an average row in
    SHORT_PASSES passes (narrow groups waste fewer lanes on the many short rows of a
    power-law graph; rows above the average go to whole warps)."""
    v = 2
    while v < 32 and SHORT_PASSES * 4 * UNROLL * v < avg_len:
        v *= 2
    return v


def row_plan(ptr, nnz, plan_cache, stream, passes, width):
    """How B's rows are worked, cached per row-pointer array: for the row kernel, ``width``
    lanes per row up to short_max entries (``passes`` passes); for the stream kernel, the row ranges
    of its blocks (``block_rows``) up to STREAM_HALF entries a row; longer rows as warp
    items either way."""
    n = len(ptr) - 1
    # the cache is the matrix's, which serves both its CSR (mxv) and its CSC (vxm): the key
    # names the pointer array the plan was built from, so one never reuses the other's plan
    key = ("spmv_plan", int(ptr.data.ptr), n, stream, width, UNROLL, passes, LONG_CHUNK,
           STREAM_HALF, STREAM_ROWS)
    plan = plan_cache.get(key) if plan_cache is not None else None
    if plan is not None:
        return plan
    lens = (ptr[1:] - ptr[:-1]).astype(np.int64)
    if stream:
        # a block takes the rows starting in one stretch of STREAM_HALF entries, and at most
        # STREAM_ROWS rows (runs of empty rows); split points may repeat (empty blocks)
        stretch = xp.arange(nnz // STREAM_HALF + 2, dtype=np.int64) * STREAM_HALF
        cuts = xp.concatenate([xp.searchsorted(ptr[:n], stretch, side="left"),
                               xp.arange(0, n, STREAM_ROWS, dtype=np.int64)])
        plan = dict(block_rows=xp.sort(cuts.astype(np.int64)),
                    **long_items(ptr, lens, STREAM_HALF))
    else:
        short_max = passes * 4 * UNROLL * width
        plan = dict(v=width, short_max=short_max, **long_items(ptr, lens, short_max))
    if plan_cache is not None:
        plan_cache[key] = plan
    return plan


def long_items(ptr, lens, short_max):
    """The rows longer than short_max cut into items of LONG_CHUNK entries (a warp each), and
    the rows of several items with where their partial results lie."""
    long_rows = xp.nonzero(lens > short_max)[0].astype(np.int64)
    nchunks = (lens[long_rows] + LONG_CHUNK - 1) // LONG_CHUNK
    first = xp.cumsum(nchunks) - nchunks
    item_row = xp.repeat(long_rows, nchunks)
    k_in_row = xp.arange(len(item_row), dtype=np.int64) - xp.repeat(first, nchunks)
    item_begin = ptr[item_row].astype(np.int64) + k_in_row * LONG_CHUNK
    item_end = xp.minimum(item_begin + LONG_CHUNK, ptr[item_row + 1].astype(np.int64))
    split = nchunks > 1
    # a block per split row where some row has many items, else a warp (one read, once per
    # plan)
    wide = bool(len(nchunks) and backend.to_scalar(nchunks.max()) > FINISH_WIDE)
    return dict(item_row=item_row, item_begin=item_begin, item_end=item_end,
                item_alone=xp.repeat(nchunks == 1, nchunks), split_row=long_rows[split],
                split_first=first[split], split_count=nchunks[split], finish_wide=wide)


def stops_often(prod):
    """Rows reach ⊕'s terminal value often: ANY, and terminal values of one-byte types (LOR
    at true, MAX at 255). Float MIN / MAX (terminal ∓inf) and integer ones of wider types
    seldom do."""
    kind, _ = prod.stop
    return kind == "any" or (kind == "value" and prod.tout.np_type.itemsize == 1)


def streams(prod, u, mask):
    """Whether a pull takes the stream kernel: for a full u (the row kernel reads a bitmap as
    fast), not under a mask (the row kernel skips the excluded rows' entries unread), nor
    where stopping early pays."""
    return u.full and mask is None and not stops_often(prod) and not prod.positional


def keyable(iso):
    """An iso value that may key a memo: hashable, and equal only to itself (not a float
    zero, -0.0 == 0.0, nor NaN, NaN != NaN)."""
    if iso is None or isinstance(iso, (bool, int, np.bool_, np.integer)):
        return True
    return isinstance(iso, (float, np.floating)) and iso == iso and iso != 0


def few_scratch(plan_cache, B, nrows, nblocks, tout):
    """spmv_few's block results and ticket (zero between launches), kept with B's plans, one
    set per thread (:func:`kernels.common.per_thread`): a thread's calls run in order on its
    stream, so one set per shape and type serves them all."""
    key = ("few_scratch", int(B.ptr.data.ptr), nrows, nblocks, tout.name)
    return per_thread(plan_cache, key, lambda: (
        xp.empty(nblocks * nrows, dtype=tout.np_type), xp.empty(nblocks * nrows, dtype=bool),
        xp.zeros(1, dtype=np.uint32)))


def partials(plan, tout):
    """Scratch for the long rows' partial results, kept with the plan, one buffer per value
    type and thread (:func:`kernels.common.per_thread`)."""
    nitems = len(plan["item_row"])
    return per_thread(plan, ("partials", tout.name), lambda: (
        xp.empty(nitems, dtype=tout.np_type), xp.empty(nitems, dtype=bool)))
