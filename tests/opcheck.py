"""Helpers for the operation tests (ewise, apply, select, reduce, transpose, kronecker):
random operands and output configurations (mask, accum, replace, descriptor), each as a
(grblas_gpu, python-graphblas) pair, so one call runs both and compares."""
import numpy as np

import grblas_gpu as gg
from conftest import assert_matches, random_coo, snapshot

MASKS = ("none", "V", "S", "~V", "~S", "desc_comp", "desc_struct")
TYPES = ("BOOL", "INT8", "INT32", "INT64", "UINT16", "FP32", "FP64")


def matrix_pair(rng, nrows, ncols, dtype, density=None, iso=None):
    """A random Matrix and its python-graphblas twin: empty, sparse or full, maybe iso."""
    import graphblas as gb

    if density is None:
        density = float(rng.choice([0.0, 0.15, 0.5, 1.0], p=[0.1, 0.4, 0.35, 0.15]))
    rows, cols, vals = random_coo(rng, nrows, ncols, density, dtype)
    if vals.dtype.kind == "f":
        # no -0.0: SuiteSparse reads a value mask's bytes (-0.0 is "true"), the C API casts it
        vals = vals + vals.dtype.type(0)
    # iso only with entries: SuiteSparse stores an empty iso 0×n matrix as "full" and its
    # column reduction then has n entries
    if len(vals) and (iso if iso is not None else rng.random() < 0.15):
        vals = vals[0]
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=nrows, ncols=ncols, dtype=dtype)
    G = gb.Matrix.from_coo(rows, cols, vals, nrows=nrows, ncols=ncols, dtype=dtype)
    return A, G


def vector_pair(rng, size, dtype, density=None, iso=None, dense=None):
    """A random Vector (sparse or dense form) and its python-graphblas twin."""
    import graphblas as gb

    A, _ = matrix_pair(rng, size, 1, dtype, density, iso)
    idx, _, vals = A.to_coo()
    v = gg.Vector.from_coo(idx, vals, size=size, dtype=dtype)
    if dense if dense is not None else rng.random() < 0.3:
        v.set_format("dense")
    return v, gb.Vector.from_coo(idx, vals, size=size, dtype=dtype)


def pair(rng, shape, dtype, **kw):
    return matrix_pair(rng, *shape, dtype, **kw) if len(shape) == 2 else vector_pair(
        rng, shape[0], dtype, **kw)


def output_config(rng, shape, ctype=None, accums=(None, "plus", "second", "max")):
    """(C, GC, our kwargs, python-graphblas's (mask, accum, replace)) for a random output."""
    import graphblas as gb

    ctype = ctype or str(rng.choice(TYPES))
    C, GC = pair(rng, shape, ctype)
    M, GM = pair(rng, shape, str(rng.choice(["BOOL", "INT32", "FP64"])))
    kind = str(rng.choice(MASKS))
    ours = {"none": None, "V": M, "S": M.S, "~V": ~M, "~S": ~M.S, "desc_comp": M.V,
            "desc_struct": M}[kind]
    theirs = {"none": None, "V": GM.V, "S": GM.S, "~V": ~GM.V, "~S": ~GM.S,
              "desc_comp": ~GM.V, "desc_struct": GM.S}[kind]
    accum = accums[rng.integers(len(accums))]
    if ctype == "BOOL" and accum in ("plus", "max"):
        accum = "lor"
    replace = kind != "none" and rng.random() < 0.4  # python-graphblas needs a mask for replace
    desc = {"replace": replace, "mask_complement": kind == "desc_comp",
            "mask_structure": kind == "desc_struct"}
    kw = {"mask": ours, "accum": accum, "desc": gg.Descriptor(**desc)}
    return C, GC, kw, (theirs, getattr(gb.binary, accum) if accum else None, replace)


def gb_update(GC, gcfg, expr):
    """GC(mask, accum, replace) << expr."""
    mask, accum, replace = gcfg
    GC(mask=mask, accum=accum, replace=replace) << expr
    return GC


def transposed(rng, A, G):
    """A random way of passing A: (ours, desc transpose flag, python-graphblas's operand).
    A.T and the descriptor flag each transpose once; both together cancel."""
    view, flag = bool(rng.random() < 0.3), bool(rng.random() < 0.3)
    ours = A.T if view else A
    return ours, flag, (G.T if view != flag else G)


def assert_raises_unchanged(exc, fn, *objects):
    """fn() raises exc and every object in ``objects`` is as it was."""
    import pytest

    before = [snapshot(x) for x in objects]
    with pytest.raises(exc):
        fn()
    assert [snapshot(x) for x in objects] == before


__all__ = ["MASKS", "TYPES", "matrix_pair", "vector_pair", "pair", "output_config",
           "gb_update", "transposed", "assert_raises_unchanged", "assert_matches"]
