"""The structural primitives under the operations, on both backends: row ids of a compressed
structure, stable partition and compaction of entry lists, products with a diagonal or
one-entry-per-row operand (against python-graphblas), and row reductions of iso-valued
matrices (against python-graphblas, including integer wrap-around)."""
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu.kernels.compact import TILE, compact, positions
from conftest import assert_matches

xp = backend.xp


def _segments(rng, nseg, hubs=()):
    """Row pointers with short rows, some empty, and a few very long ones (R-MAT's hubs)."""
    lengths = rng.integers(0, 6, nseg)
    lengths[rng.random(nseg) < 0.3] = 0
    for h in hubs:
        lengths[h % nseg] = 3 * TILE + 17   # spans several tiles
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


@pytest.mark.parametrize("ptr_type", [np.int32, np.int64])
@pytest.mark.parametrize("nseg, hubs", [(1, ()), (7, (3,)), (5000, (10, 4000)), (1, (0,))])
def test_row_ids_of_every_entry(rng, ptr_type, nseg, hubs):
    ptr = _segments(rng, nseg, hubs)
    nnz = int(ptr[-1])
    expected = np.repeat(np.arange(nseg), np.diff(ptr))
    for out_type in (np.int32, np.int64):
        rows = backend.to_host(backend.row_ids(xp.asarray(ptr.astype(ptr_type)), nnz, out_type))
        assert rows.dtype == out_type
        np.testing.assert_array_equal(rows, expected)


@pytest.mark.parametrize("nseg, hubs", [(1, ()), (9, (2,)), (3000, (5, 100, 2999))])
@pytest.mark.parametrize("fraction", [0.0, 0.4, 1.0])
def test_compact_keeps_flagged_entries_in_order(rng, nseg, hubs, fraction):
    ptr = _segments(rng, nseg, hubs)
    nnz = int(ptr[-1])
    keep = rng.random(nnz) < fraction
    values = rng.integers(-2**40, 2**40, nnz)
    small = rng.integers(0, 200, nnz).astype(np.uint8)
    new_ptr, (v, s) = compact(xp.asarray(ptr), xp.asarray(keep),
                              [xp.asarray(values), xp.asarray(small)])
    kept_before = np.concatenate([[0], np.cumsum(keep)])[ptr]
    np.testing.assert_array_equal(backend.to_host(new_ptr), kept_before)
    np.testing.assert_array_equal(backend.to_host(v), values[keep])
    np.testing.assert_array_equal(backend.to_host(s), small[keep])
    flat_ptr, (f,) = compact(None, xp.asarray(keep), [xp.asarray(values)])
    assert backend.to_host(flat_ptr).tolist() == [0, int(keep.sum())]
    np.testing.assert_array_equal(backend.to_host(f), values[keep])


@pytest.mark.skipif(not backend.is_gpu, reason="positions is the CuPy path of compaction")
@pytest.mark.parametrize("n", [1, TILE - 1, TILE, 5 * TILE + 3])
def test_positions_list_each_kind_in_order(rng, n):
    labels = rng.integers(0, 4, n).astype(np.uint8)
    pos, sizes = positions(xp.asarray(labels), 3)
    pos = backend.to_host(pos)
    base = 0
    for kind in (1, 2, 3):
        members = np.nonzero(labels == kind)[0]
        assert sizes[kind - 1] == len(members)
        np.testing.assert_array_equal(pos[members], base + np.arange(len(members)))
        base += len(members)


def _diagonal(rng, n, dtype, full):
    present = np.ones(n, bool) if full else rng.random(n) < 0.6
    i = np.nonzero(present)[0]
    vals = rng.integers(1, 9, len(i)).astype(dtype)
    return i, vals


@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("semiring", ["plus_times", "any_lt", "min_first", "max_second",
                                      "any_pair"])
@pytest.mark.parametrize("iso", [False, True])
def test_products_with_a_diagonal_match_suitesparse(rng, full, semiring, iso):
    import graphblas as gb

    n = 300
    rows, cols = np.nonzero(rng.random((n, n)) < 0.05)
    vals = np.full(len(rows), 3) if iso else rng.integers(-5, 9, len(rows))
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dtype="INT64")
    GA = gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dtype="INT64")
    d, dv = _diagonal(rng, n, np.int64, full)
    D = gg.Matrix.from_coo(d, d, dv, nrows=n, ncols=n)
    GD = gb.Matrix.from_coo(d, d, dv, nrows=n, ncols=n)
    sr = getattr(gb.semiring, semiring)
    assert_matches(gg.mxm(gg.Matrix(gg.INT64 if semiring != "any_lt" else gg.BOOL, n, n),
                          D, A, semiring), GD.mxm(GA, sr).new())            # D·A: rows
    assert_matches(gg.mxm(gg.Matrix(gg.INT64 if semiring != "any_lt" else gg.BOOL, n, n),
                          A, D, semiring), GA.mxm(GD, sr).new())            # A·D: columns


def test_one_entry_per_row_gathers_rows(rng):
    import graphblas as gb

    n = 200
    rows, cols = np.nonzero(rng.random((n, n)) < 0.04)
    vals = rng.integers(-5, 9, len(rows))
    B = gg.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dtype="INT32")
    GB = gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dtype="INT32")
    sel = np.nonzero(rng.random(n) < 0.7)[0]
    perm = rng.permutation(n)[:len(sel)]          # row i of P picks row perm(i) of B
    pv = rng.integers(1, 4, len(sel))
    P = gg.Matrix.from_coo(sel, perm, pv, nrows=n, ncols=n, dtype="INT32")
    GP = gb.Matrix.from_coo(sel, perm, pv, nrows=n, ncols=n, dtype="INT32")
    assert_matches(gg.mxm(gg.Matrix(gg.INT32, n, n), P, B, "plus_times"),
                   GP.mxm(GB, gb.semiring.plus_times).new())


@pytest.mark.parametrize("dtype, value", [("INT8", 3), ("UINT8", 200), ("INT64", -7),
                                          ("BOOL", True), ("BOOL", False), ("FP32", 0.1)])
@pytest.mark.parametrize("monoid", ["plus", "min", "max", "any", "times"])
def test_iso_rows_reduce_like_suitesparse(rng, dtype, value, monoid):
    import graphblas as gb

    if dtype == "BOOL" and monoid != "any":
        monoid = {"plus": "lor", "min": "land", "max": "lor", "times": "land"}[monoid]
    n = 150
    lengths = rng.integers(0, 300, n)                     # wraps INT8 / UINT8 sums
    rows = np.repeat(np.arange(n), lengths)
    cols = np.concatenate([rng.choice(400, k, replace=False) for k in lengths])
    A = gg.Matrix.from_coo(rows, cols, value, nrows=n, ncols=400, dtype=dtype)
    G = gb.Matrix.from_coo(rows, cols, value, nrows=n, ncols=400, dtype=dtype)
    ours = gg.reduce_rowwise(gg.Vector(dtype, n), A, monoid)
    ref = G.reduce_rowwise(getattr(gb.monoid, monoid)).new()
    if monoid == "any":   # every candidate is the iso value: values compare exactly
        ref = G.reduce_rowwise(gb.monoid.max if dtype != "BOOL" else gb.monoid.lor).new()
    assert_matches(ours, ref, rtol=1e-5)
