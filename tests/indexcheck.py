"""Helpers shared by the extract and assign tests: index keys, masks, error checks."""
import numpy as np
import pytest

import grblas_gpu as gg
from conftest import snapshot


def common_index(rng, n, kind):
    """(our index argument, python-graphblas's) for the kinds both tests draw: slices (with
    negative steps for 'slice_neg'), ALL, None (all) and an empty list."""
    if kind in ("slice", "slice_neg"):
        lo, hi = (int(x) if rng.random() < 0.8 else None for x in rng.integers(-n - 1, n + 2, 2))
        step = int(rng.integers(1, 4)) * (1 if kind == "slice" else -1)
        return slice(lo, hi, step), slice(lo, hi, step)
    if kind == "all":
        return gg.ALL, slice(None)
    if kind == "none":
        return None, slice(None)
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)


def masks(M, G):
    """Our (mask, descriptor fields) and python-graphblas's mask, by kind."""
    return {"none": (None, {}, None), "V": (M, {}, G.V), "S": (M.S, {}, G.S),
            "~V": (~M, {}, ~G.V), "~S": (~M.S, {}, ~G.S),
            "desc_comp": (M.V, {"mask_complement": True}, ~G.V),
            "desc_struct": (M, {"mask_structure": True}, G.S)}


def gb_accum(name):
    import graphblas as gb

    return getattr(gb.binary, name) if name else None


def unchanged(objs, fn, exc):
    """fn() raises exc and every object in objs is as it was."""
    before = [snapshot(x) for x in objs]
    with pytest.raises(exc):
        fn()
    assert [snapshot(x) for x in objs] == before
