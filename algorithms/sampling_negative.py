"""Negative sampling (cuGraph's negative_sampling).

Formulation: draw num_samples pairs (s, d), s from [0, nrows) and d from [0, ncols),
independently, uniformly or ∝ src_biases / dst_biases (inverse CDF; bias 0 is never drawn).
Then optionally drop pairs that are edges of A (A(s, d) present) and repeated pairs (the
first draw is kept, so the output stays in draw order). With exact_number_of_samples, draw
again for the shortfall (more than the shortfall, scaled by the acceptance seen so far)
until exactly num_samples remain.

Cached properties: none; membership of (s, d) in A is a searchsorted of s·ncols + d among A's
row-major edge keys (CSR order is row-major sorted).

NOTE: exact_number_of_samples with remove_duplicates raises InvalidValue when num_samples
exceeds the number of admissible pairs; when admissible pairs are very rare among all pairs
the loop may stop after MAX_ROUNDS rounds with NotConverged (its ``result`` holds the pairs
found so far).
"""
from collections import namedtuple

import numpy as np

from grblas_gpu import Matrix, backend, memory
from grblas_gpu import sampling as rk
from grblas_gpu.errors import InvalidValue, NotConverged

from ._common import check_flag
from .sampling_common import scalar, seed_of, whole_number

xp = backend.xp

__all__ = ["NegativeSamples", "negative_sampling"]

NegativeSamples = namedtuple("NegativeSamples", "src dst")

MAX_ROUNDS = 200
_MAX_DRAW = 1 << 26  # pairs drawn per round at most (memory bound)


def negative_sampling(A, num_samples, *, src_biases=None, dst_biases=None,
                      remove_duplicates=False, remove_existing_edges=False,
                      exact_number_of_samples=False, seed=None):
    """Pairs (src, dst) that are (optionally) not edges of A; see the module docstring.
    Returns NegativeSamples(src, dst), backend arrays of A's index type."""
    if not isinstance(A, Matrix):
        raise InvalidValue(f"A must be a grblas_gpu Matrix, got {type(A).__name__}")
    num = whole_number(num_samples, "num_samples", 0)
    # src, dst and a round's draws, keys and flags: ~6 int64 words a sample at the peak
    memory.require(48 * num, f"negative_sampling of {num} samples")
    remove_duplicates = check_flag(remove_duplicates, "remove_duplicates")
    remove_existing_edges = check_flag(remove_existing_edges, "remove_existing_edges")
    exact_number_of_samples = check_flag(exact_number_of_samples, "exact_number_of_samples")
    sb = _biases(src_biases, A.nrows, "src_biases")
    db = _biases(dst_biases, A.ncols, "dst_biases")
    seed = seed_of(seed)
    rows, cols, _ = A.to_coo(device=True, values=False)
    edge_keys = rows.astype(np.int64) * A.ncols + cols.astype(np.int64)
    if exact_number_of_samples and num:
        _check_capacity(A, num, sb, db, remove_duplicates, remove_existing_edges)
    src = dst = xp.zeros(0, dtype=np.int64)
    drawn = accepted = 0
    for rnd in range(MAX_ROUNDS):
        need = num - len(src)
        if rnd and (not exact_number_of_samples or need <= 0):
            break
        rate = accepted / drawn if drawn else 1.0
        # later rounds draw the shortfall scaled up by the acceptance rate seen so far
        batch = need if rnd == 0 else \
            min(_MAX_DRAW, int(np.ceil(need / max(rate, 1e-6) * 1.25)) + 16)
        s = _draw(A.nrows, sb, batch, rk.stream_key(seed, 2 * rnd))
        d = _draw(A.ncols, db, batch, rk.stream_key(seed, 2 * rnd + 1))
        if remove_existing_edges and len(edge_keys):
            key = s * A.ncols + d
            pos = xp.minimum(xp.searchsorted(edge_keys, key), len(edge_keys) - 1)
            fresh = edge_keys[pos] != key
            s, d = s[fresh], d[fresh]
        before = len(src)
        src, dst = xp.concatenate([src, s]), xp.concatenate([dst, d])
        if remove_duplicates:
            src, dst = _first_occurrences(src, dst, A.ncols)
        drawn, accepted = drawn + batch, accepted + len(src) - before
    else:
        if exact_number_of_samples and len(src) < num:
            raise NotConverged(f"negative_sampling: {len(src)} of {num} samples after "
                               f"{MAX_ROUNDS} rounds", result=NegativeSamples(src, dst),
                               iterations=MAX_ROUNDS)
    if exact_number_of_samples:
        src, dst = src[:num], dst[:num]
    itype = A.index_dtype
    return NegativeSamples(src.astype(itype), dst.astype(itype))


def _biases(b, n, what):
    if b is None:
        return None
    arr = xp.asarray(b)
    if arr.ndim != 1 or len(arr) != n:
        raise InvalidValue(f"{what} must have one entry per vertex ({n}), got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iuf":
        raise InvalidValue(f"{what} must be numeric, got {arr.dtype}")
    arr = arr.astype(np.float64)
    if not bool(scalar((xp.isfinite(arr) & (arr >= 0)).all())):
        raise InvalidValue(f"{what} must be finite and non-negative")
    if n and not bool(scalar((arr > 0).any())):
        raise InvalidValue(f"{what} are all zero: nothing can be drawn")
    return rk.bias_table(xp.asarray([0, n], dtype=np.int64), arr)


def _draw(n, table, count, key):
    """count vertices from [0, n): uniform (table None) or ∝ the table's weights."""
    if n == 0 or count == 0:
        if count and n == 0:
            raise InvalidValue("negative_sampling: the matrix has no rows or no columns")
        return xp.zeros(0, dtype=np.int64)
    counts = xp.asarray([count], dtype=np.int64)
    if table is None:
        # one slot: count picks among the candidates 0 .. n-1
        pos, _ = rk.select_uniform(xp.zeros(1, dtype=np.int64), xp.asarray([n], dtype=np.int64),
                                   counts, key, with_replacement=True)
    else:
        pos, _ = rk.select_biased(table, xp.zeros(1, dtype=np.int64), counts, key,
                                  with_replacement=True)
    return pos


def _first_occurrences(src, dst, ncols):
    """The pairs without repeats, each kept where it first occurs (draw order kept)."""
    key = src * ncols + dst
    order = xp.argsort(key, kind="stable")
    k = key[order]
    first = xp.ones(len(k), dtype=bool)
    if len(k) > 1:
        first[1:] = k[1:] != k[:-1]
    keep = xp.sort(order[first])
    return src[keep], dst[keep]


def _check_capacity(A, num, sb, db, remove_duplicates, remove_existing):
    """Raise InvalidValue when exactly num admissible samples cannot exist."""
    if not (remove_duplicates or remove_existing):
        return
    src_ok = xp.ones(A.nrows, dtype=bool) if sb is None else sb.weights > 0
    dst_ok = xp.ones(A.ncols, dtype=bool) if db is None else db.weights > 0
    pairs = int(scalar(src_ok.sum())) * int(scalar(dst_ok.sum()))
    if remove_existing:
        rows, cols, _ = A.to_coo(device=True, values=False)
        pairs -= int(scalar((src_ok[rows] & dst_ok[cols]).sum()))
    if pairs <= 0 or (remove_duplicates and num > pairs):
        raise InvalidValue(f"negative_sampling: {num} samples requested, but only {max(pairs, 0)} "
                           "admissible (src, dst) pairs exist")
