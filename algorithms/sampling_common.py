"""Shared pieces of algorithms.sampling: input checks, seeds, lexicographic ordering.

Every check raises grblas_gpu.InvalidValue (the reference's CUGRAPH_EXPECTS failures) and
runs before anything is computed, so a call that raises has changed nothing.
"""
import numpy as np

from grblas_gpu import backend
from grblas_gpu.errors import InvalidValue, NotSupported

xp = backend.xp

__all__ = ["int_array", "check_range", "check_offsets", "per_edge", "seed_of", "whole_number", "lexorder",
           "run_starts", "group_offsets", "scalar"]


def scalar(a):
    return backend.to_scalar(a)


def int_array(a, what, *, allow_none=False):
    """A 1-D int64 backend array; None passes through when allowed."""
    if a is None:
        if allow_none:
            return None
        raise InvalidValue(f"{what} is required")
    arr = xp.asarray(a)
    if arr.ndim != 1:
        raise InvalidValue(f"{what} must be one-dimensional, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise InvalidValue(f"{what} must be integers, got {arr.dtype}")
    return arr.astype(np.int64)


def check_range(a, lo, hi, what):
    """Every element in [lo, hi), else InvalidValue naming the first offender."""
    if a.size:
        bad = (a < lo) | (a >= hi)
        if bool(scalar(bad.any())):
            first = int(scalar(a[xp.nonzero(bad)[0][0]]))
            raise InvalidValue(f"{what} {first} is out of range [{lo}, {hi})")


def check_offsets(offsets, total, what):
    """CSR-style offsets: starts at 0, non-decreasing, ends at ``total``."""
    if len(offsets) < 1:
        raise InvalidValue(f"{what} must have at least one element")
    first, last = int(scalar(offsets[0])), int(scalar(offsets[-1]))
    if first != 0 or last != total:
        raise InvalidValue(f"{what} must run from 0 to {total}, got {first} .. {last}")
    if len(offsets) > 1 and bool(scalar((offsets[1:] < offsets[:-1]).any())):
        raise InvalidValue(f"{what} must be non-decreasing")


def per_edge(a, n, what, *, numeric=False):
    """A per-edge array of length n (backend array, dtype kept), or None."""
    if a is None:
        return None
    arr = xp.asarray(a)
    if arr.ndim != 1 or len(arr) != n:
        raise InvalidValue(f"{what} must have one entry per edge ({n}), got shape {arr.shape}")
    if numeric and arr.size and arr.dtype.kind not in "iuf":
        raise InvalidValue(f"{what} must be numeric, got {arr.dtype}")
    return arr


def whole_number(x, what, minimum):
    """``x`` as an int, refusing non-integers and values below ``minimum`` (InvalidValue)."""
    try:
        v = int(x)
    except (TypeError, ValueError, OverflowError):
        raise InvalidValue(f"{what} must be an integer, got {x!r}") from None
    if v != x or v < minimum or v >= 2**63:
        raise InvalidValue(f"{what} must be an integer in [{minimum}, 2**63), got {x!r}")
    return v


def seed_of(seed):
    """A non-negative int seed; a fresh one from the OS when ``seed`` is None."""
    if seed is None:
        return int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
    return whole_number(seed, "seed", 0)


def lexorder(keys, bounds=None):
    """The stable order sorting by keys[0], then keys[1], ... (int arrays). With ``bounds``
    (exclusive upper bound of each key, all keys >= 0) and a product below 2**63, one
    argsort of a combined key; otherwise one stable argsort per key, last key first."""
    n = len(keys[0])
    if bounds is not None:
        prod = 1
        for b in bounds:
            prod *= max(int(b), 1)
        if prod < 2**63:
            combined = xp.zeros(n, dtype=np.int64)
            for k, b in zip(keys, bounds):
                combined = combined * max(int(b), 1) + k.astype(np.int64)
            return xp.argsort(combined, kind="stable")
    order = xp.arange(n, dtype=np.int64)
    for k in reversed(keys):
        order = order[xp.argsort(k[order], kind="stable")]
    return order


def run_starts(*sorted_keys):
    """Boolean mask of positions where any of the (already sorted) keys changes."""
    n = len(sorted_keys[0])
    first = xp.zeros(n, dtype=bool)
    if n:
        first[0] = True
        for k in sorted_keys:
            first[1:] |= k[1:] != k[:-1]
    return first


def group_offsets(group_sorted, ngroups):
    """CSR offsets (length ngroups + 1) of sorted group ids in [0, ngroups)."""
    return xp.searchsorted(group_sorted, xp.arange(ngroups + 1, dtype=np.int64),
                           side="left").astype(np.int64)


def combined_key(parts):
    """One int64 key preserving the lexicographic order of (part, bound) pairs; raises
    NotSupported when it cannot fit in 63 bits."""
    prod = 1
    for _, b in parts:
        prod *= max(int(b), 1)
    if prod >= 2**63:
        raise NotSupported("sampling: identifiers too large to combine into a 63-bit key")
    key = None
    for k, b in parts:
        key = k.astype(np.int64) if key is None else key * max(int(b), 1) + k.astype(np.int64)
    return key
