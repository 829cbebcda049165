"""Random selection: counter-based random numbers and per-segment sampling (public API).

What neighbourhood and negative sampling need from the engine, on both backends; the
kernels are ``grblas_gpu.kernels.sampling``, whose docstring gives the methods.

Random numbers. ``stream_key(seed, stream)`` names a random stream; a draw is
``splitmix64(key + (counter + 1)·γ)`` (Steele, Lea & Flood, OOPSLA 2014): it depends only on
(key, counter), so there is no generator state, and NumPy and CUDA give the same bits.
Every function below is deterministic given its inputs and its key.

Segments and slots. Candidates are positions 0, 1, ... of some array (a matrix's CSR entries,
a list of vertices). A *slot* asks for ``counts[s]`` picks among the candidates
``starts[s] .. starts[s] + degrees[s] - 1`` (uniform) or among those of segment
``segments[s]`` of a BiasTable (biased). The output holds every slot's picks one after the
other, slot 0 first: slot s owns ``out[offsets[s] : offsets[s] + counts[s]]``, where offsets
is the exclusive prefix sum of counts. Selection functions return ``(positions, slot_of)``:
int64 backend arrays of length sum(counts), the chosen candidate positions and the slot
each belongs to (non-decreasing).

Arrays. Index arguments are 1-D integer arrays (backend arrays are used as they are; NumPy
arrays and lists are copied to the backend). Results are new backend arrays.

Checks. Types, shapes and lengths are checked (InvalidValue) before anything runs. The
values of index arrays are not (uint64 ones excepted, which must fit int64): checking them
would read the device on every call. The caller guarantees each function's preconditions
(as with SuiteSparse's fast import); when they do not hold, the positions returned are
unspecified. ``bias_table``, made once per sampling call, checks its values too.

Cost. A selection reads the device a few times to size its arrays (the total count, how
many slots take each method); ``bias_table`` and ``repeat_index`` read it once; the draws
read nothing.
"""
import numpy as np

from . import backend
from ._validate import as_flag, as_index_array, as_int, is_array
from .errors import InvalidValue
from .kernels import sampling as _k

xp = backend.xp

__all__ = ["FLOYD_MAX_K", "BiasTable", "stream_key", "draw_bits", "draw_unit", "select_uniform",
           "select_uniform_rows",
           "bias_table", "select_biased", "repeat_index"]

#: Without replacement, slots asking for more picks than this sort a random key per
#: candidate (O(degree log degree)) instead of Floyd's O(k²) scan.
FLOYD_MAX_K = _k.FLOYD_MAX_K

BiasTable = _k.BiasTable


def _key(key):
    key = as_int(key, "key")
    if not 0 <= key < 2**64:
        raise InvalidValue(f"key must be in [0, 2**64) (from stream_key), got {key}")
    return key


def _whole(x, what):
    x = as_int(x, what)
    if x < 0:
        raise InvalidValue(f"{what} must be non-negative, got {x}")
    return x


def _same_length(n, **arrays):
    for what, a in arrays.items():
        if len(a) != n:
            raise InvalidValue(f"{what} has {len(a)} entries, expected {n} (one per slot)")


def _offsets(counts):
    return xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts)])


def stream_key(seed, stream):
    """The 64-bit key (a Python int) of random stream ``stream`` under ``seed`` (both
    non-negative integers). Distinct (seed, stream) pairs give unrelated streams."""
    return _k.stream_key(_whole(seed, "seed"), _whole(stream, "stream"))


def draw_bits(key, counters):
    """uint64 random bits, one per counter (a 1-D integer array): a new backend array,
    the same on every backend for the same (key, counters)."""
    return _k.draw_bits(_key(key), as_index_array(counters, "counters"))


def draw_unit(key, counters):
    """float64 uniform in [0, 1) (53 bits), one per counter: a new backend array, the same
    on every backend for the same (key, counters)."""
    return _k.draw_unit(_key(key), as_index_array(counters, "counters"))


def select_uniform(starts, degrees, counts, key, *, with_replacement, take_all=None):
    """Pick counts[s] of the candidates starts[s] .. starts[s] + degrees[s] - 1 for every
    slot s, uniformly: with replacement, counts[s] independent picks; without, a uniformly
    random counts[s]-subset (Floyd's algorithm; order unspecified). Where ``take_all[s]``
    (a bool array, optional) is set, the picks are starts[s] + 0 .. counts[s] - 1 in order.
    Returns (positions, slot_of). Bit-identical on NumPy and CUDA.
    Preconditions (not checked): counts and degrees non-negative; counts[s] > 0 needs
    degrees[s] > 0; without replacement or with take_all[s], counts[s] <= degrees[s]."""
    starts = as_index_array(starts, "starts")
    degrees = as_index_array(degrees, "degrees")
    counts = as_index_array(counts, "counts")
    _same_length(len(starts), degrees=degrees, counts=counts)
    key = _key(key)
    with_replacement = as_flag(with_replacement, "with_replacement")
    if take_all is None:
        take_all = xp.zeros(len(starts), dtype=bool)
    else:
        if not is_array(take_all) or take_all.dtype.kind != "b" or take_all.ndim != 1:
            raise InvalidValue(f"take_all must be a 1-D bool array or None, got "
                               f"{type(take_all).__name__} {take_all!r:.40}")
        take_all = xp.asarray(take_all)
        _same_length(len(starts), take_all=take_all)
    return _k.select_uniform(starts, degrees, counts, _offsets(counts), take_all, key,
                             with_replacement=with_replacement)


def _row_index(a, what):
    """int32 and int64 backend arrays as they are (a CSR's own offsets, a frontier of
    vertex ids); anything else as as_index_array makes it."""
    if isinstance(a, xp.ndarray) and a.ndim == 1 and a.dtype in (np.int32, np.int64):
        return a
    return as_index_array(a, what)


def select_uniform_rows(ptr, rows, k, key, *, with_replacement):
    """select_uniform over rows of a CSR pattern: slot s picks among the candidates
    ptr[rows[s]] .. ptr[rows[s] + 1] - 1 (row rows[s]; d = its length). With replacement,
    k independent picks (none when d = 0); without, min(d, k) distinct ones, every candidate
    in order when d <= k. The same picks as select_uniform(ptr[rows], d, counts, key,
    take_all=...) with those counts (and take_all = d <= k without replacement), without
    making its per-slot arrays: on the GPU two kernels and one scan, one device read (the
    total). ``ptr``, ``rows``: 1-D integer arrays (int32 and int64 backend arrays are used as
    they are); k >= 0. Returns (positions, slot_of). Bit-identical on NumPy and CUDA.
    A row outside [0, len(ptr) - 1) gets no picks (ptr is not read there).
    Precondition (not checked): ptr non-decreasing."""
    ptr = _row_index(ptr, "ptr")
    rows = _row_index(rows, "rows")
    if len(ptr) < 1:
        raise InvalidValue("ptr needs at least one entry (nrows + 1)")
    k = _whole(k, "k")
    if k >= 2**63:
        raise InvalidValue(f"k must be below 2**63, got {k}")
    key = _key(key)
    with_replacement = as_flag(with_replacement, "with_replacement")
    return _k.select_uniform_rows(ptr, rows, k, key, with_replacement=with_replacement)


def bias_table(offsets, weights):
    """The BiasTable of candidates in segments: segment g is candidates offsets[g] ..
    offsets[g+1] - 1, each weighted by ``weights`` (1-D, numeric, one per candidate; a
    weight of 0 is never picked). Checked, with one read of the device: offsets run
    non-decreasing from 0 to len(weights), weights are finite and non-negative."""
    offsets = as_index_array(offsets, "offsets")
    if len(offsets) < 1:
        raise InvalidValue("offsets needs at least one entry (nsegments + 1)")
    if isinstance(weights, (list, tuple)):
        weights = np.asarray(weights)
    if not is_array(weights) or weights.ndim != 1 or (weights.size and weights.dtype.kind not in "biuf"):
        raise InvalidValue(f"weights must be a 1-D numeric array, got "
                           f"{type(weights).__name__} {weights!r:.40}")
    w = xp.asarray(weights).astype(np.float64, copy=False)
    # offsets[0], offsets[-1] and the count of bad steps and weights, in one read
    bad = (offsets[1:] < offsets[:-1]).sum() + (~(xp.isfinite(w) & (w >= 0))).sum()
    first, last, nbad = (int(x) for x in backend.to_host(
        xp.stack([offsets[0], offsets[-1], bad.astype(np.int64)])))
    if first != 0 or last != len(w):
        raise InvalidValue(f"offsets must run from 0 to len(weights) = {len(w)}, got "
                           f"{first} .. {last}")
    if nbad:
        raise InvalidValue("offsets must be non-decreasing and weights finite and non-negative")
    return _k.bias_table(offsets, w)


def select_biased(table, segments, counts, key, *, with_replacement):
    """Pick counts[s] candidates of segment segments[s] of ``table`` for every slot s, each
    pick with probability ∝ its weight: with replacement, independent picks (inverse CDF);
    without, successive sampling (each pick ∝ weight among those not yet picked).
    Positions index the table's candidates. Returns (positions, slot_of). The same on every
    run of a backend; NumPy and CUDA sum the weights in different orders, so a candidate
    whose probability is within rounding of a draw may differ between them.
    Preconditions (not checked): segments in range; counts non-negative; counts[s] > 0
    needs table.npos[segments[s]] > 0; without replacement counts[s] <= npos."""
    if not isinstance(table, BiasTable):
        raise InvalidValue(f"table must be a BiasTable (from bias_table), got {type(table).__name__}")
    segments = as_index_array(segments, "segments")
    counts = as_index_array(counts, "counts")
    _same_length(len(segments), counts=counts)
    key = _key(key)
    with_replacement = as_flag(with_replacement, "with_replacement")
    return _k.select_biased(segments, counts, _offsets(counts), table, key,
                            with_replacement=with_replacement)


def repeat_index(counts):
    """[0]·counts[0] + [1]·counts[1] + ...: for each of sum(counts) positions, the index of
    the count it belongs to (int64; the owner of every occurrence in a multiset stored as
    counts). Reads sum(counts) from the device. Precondition (not checked): counts
    non-negative."""
    return _k.repeat_index(as_index_array(counts, "counts"))
