"""mxm's narrow strategy (kernels.narrow: B' of at most NARROW_MAX_COLS columns held dense,
a row of A' at a time) against python-graphblas (SuiteSparse) and the other methods: every
semiring and type, every mask kind, replace and accum, transposed A, empty rows and
columns, hub rows; and AUTO's choice of it for betweenness's products."""
import sys

import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import Descriptor, backend
from grblas_gpu.kernels import narrow as narrow_mod
from grblas_gpu.kernels.operands import Compressed
from conftest import assert_matches, gb_semiring, random_matrix_pair, semiring_defined

gb = pytest.importorskip("graphblas")
mxm_mod = sys.modules["grblas_gpu.operations.mxm"]

MASKS = ("none", "V", "S", "~V", "~S")
SEMIRINGS = ("plus_times", "min_plus", "max_first", "max_second", "min_max", "plus_pair",
             "any_pair", "lor_land", "land_lor", "lxor_land", "eq_eq", "times_first",
             "plus_min", "bor_band", "max_plus", "min_times", "plus_minus", "max_iseq",
             "min_first", "plus_isgt", "min_secondj", "max_firsti", "plus_secondi")
TYPES = ("BOOL", "INT8", "UINT16", "INT32", "INT64", "FP32", "FP64")


@pytest.fixture(autouse=True)
def always_narrow(monkeypatch):
    """AUTO takes the narrow path whenever B' is narrow (DOT never preferred)."""
    monkeypatch.setattr(mxm_mod, "NARROW_DOT_RATIO", float("inf"))


def _mask_pair(kind, M, G):
    return {"none": (None, None), "V": (M.V, G.V), "S": (M.S, G.S), "~V": (~M.V, ~G.V),
            "~S": (~M.S, ~G.S)}[kind]


def _structure_matches(ours, ref):
    r, c, _ = ref.to_coo()
    o_r, o_c, _ = ours.to_coo()
    np.testing.assert_array_equal(o_r, r)
    np.testing.assert_array_equal(o_c, c)


def _narrow_taken(name):
    """AUTO takes NARROW for every monoid but ANY (see operations.mxm)."""
    return not name.startswith("any_")


@pytest.mark.parametrize("name", SEMIRINGS)
@pytest.mark.parametrize("t", TYPES)
def test_semirings_and_types_match_suitesparse(name, t):
    if not semiring_defined(name, t):
        pytest.skip(f"{name} not defined on {t}")
    rng = np.random.default_rng(abs(hash((name, t))) % 2**32)
    A, GA = random_matrix_pair(rng, 23, 19, 0.3, t)
    for k in (1, 4, 5):
        B, GB = random_matrix_pair(rng, 19, k, 0.4, t)
        ours = A.mxm(B, name)
        assert (mxm_mod.last_plan["method"] == "NARROW") == _narrow_taken(name)
        ref = GA.mxm(GB, gb_semiring(name)).new()
        if name.startswith("any_"):
            _structure_matches(ours, ref)
        else:
            assert_matches(ours, ref)


@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("accum", [None, "plus"])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 8, 32])
def test_masks_accum_replace_transpose(mask_kind, replace, accum, ta, k):
    rng = np.random.default_rng(1000 * k + 10 * MASKS.index(mask_kind) + 2 * ta + replace)
    m, inner = 31, 27
    A, GA = random_matrix_pair(rng, inner if ta else m, m if ta else inner, 0.2, "FP64")
    B, GB = random_matrix_pair(rng, inner, k, 0.35, "FP64")
    M, GM = random_matrix_pair(rng, m, k, 0.5, "INT32")   # values 0 among them: V differs
    C, GC = random_matrix_pair(rng, m, k, 0.3, "FP64")
    mask, gmask = _mask_pair(mask_kind, M, GM)
    desc = Descriptor(replace=replace, transpose_first=ta)
    gg.mxm(C, A, B, "plus_times", mask=mask, accum=accum, desc=desc)
    assert mxm_mod.last_plan["method"] == "NARROW"
    GC(mask=gmask, accum=getattr(gb.binary, accum) if accum else None,
       replace=replace and gmask is not None) << (
        (GA.T if ta else GA).mxm(GB, gb.semiring.plus_times))
    assert_matches(C, GC)


@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "any_pair", "lor_land",
                                  "min_secondj"])
def test_matches_every_other_method(mask_kind, name):
    """The same T as HASH, GUSTAVSON (and DOT under an allowed mask), exactly for integers."""
    rng = np.random.default_rng(7 + MASKS.index(mask_kind))
    t = "BOOL" if name == "lor_land" else "INT64"
    A, _ = random_matrix_pair(rng, 60, 45, 0.15, t)
    B, _ = random_matrix_pair(rng, 45, 6, 0.3, t)
    M, _ = random_matrix_pair(rng, 60, 6, 0.4, "BOOL")
    mask = _mask_pair(mask_kind, M, M)[0]
    desc = Descriptor(replace=True)
    z = gg.operators.semiring(name, A.dtype, B.dtype).monoid.type
    ours = gg.mxm(gg.Matrix(z, 60, 6), A, B, name, mask=mask, desc=desc)
    assert (mxm_mod.last_plan["method"] == "NARROW") == _narrow_taken(name)
    methods = ["HASH", "GUSTAVSON"] + (["DOT"] if mask_kind in ("V", "S") else [])
    for method in methods:
        other = gg.mxm(gg.Matrix(z, 60, 6), A, B, name, mask=mask, desc=desc, method=method)
        r, c, v = other.to_coo()
        o_r, o_c, o_v = ours.to_coo()
        np.testing.assert_array_equal(o_r, r)
        np.testing.assert_array_equal(o_c, c)
        if not name.startswith("any_"):
            np.testing.assert_array_equal(o_v, v)


@pytest.mark.parametrize("long_row", [None, 64])
def test_empty_rows_columns_and_hub_rows(monkeypatch, long_row):
    """Empty rows of A, empty columns of B, an empty B, and hub rows (every column of A);
    long_row 64: under CuPy the hubs go to the block-a-row kernel (narrow_long)."""
    if long_row is not None:
        monkeypatch.setattr(narrow_mod, "LONG_ROW", long_row)
    rng = np.random.default_rng(3)
    n = 500
    rows = np.concatenate([np.zeros(n, int), np.full(n, 7), rng.integers(10, 400, 3000)])
    cols = np.concatenate([np.arange(n), np.arange(n), rng.integers(0, n, 3000)])
    vals = rng.integers(-5, 6, len(rows))
    key = np.unique(rows * n + cols, return_index=True)[1]
    rows, cols, vals = rows[key], cols[key], vals[key]
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dtype="INT64")
    GA = gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dtype="INT64")
    br, bc = rng.integers(0, n, 300), rng.choice([0, 2, 5], 300)   # columns 1, 3, 4 empty
    bkey = np.unique(br * 6 + bc)
    B = gg.Matrix.from_coo(bkey // 6, bkey % 6, 1 + bkey % 3, nrows=n, ncols=6, dtype="INT64")
    GB = gb.Matrix.from_coo(bkey // 6, bkey % 6, 1 + bkey % 3, nrows=n, ncols=6, dtype="INT64")
    for ta in (False, True):
        desc = Descriptor(transpose_first=ta)
        GAt = GA.T if ta else GA
        for name in ("plus_times", "min_plus", "max_second"):
            ours = gg.mxm(gg.Matrix("INT64", n, 6), A, B, name, desc=desc)
            assert mxm_mod.last_plan["method"] == "NARROW"
            assert_matches(ours, GAt.mxm(GB, gb_semiring(name)).new())
            P, GP = random_matrix_pair(rng, n, 6, 0.6, "BOOL")
            ours = gg.mxm(gg.Matrix("INT64", n, 6), A, B, name, mask=~P.S, desc=desc)
            ref = gb.Matrix("INT64", n, 6)
            ref(mask=~GP.S) << GAt.mxm(GB, gb_semiring(name))
            assert_matches(ours, ref)
    empty = gg.Matrix("INT64", n, 3)
    ours = gg.mxm(gg.Matrix("INT64", n, 3), A, empty, "plus_times")
    assert ours.nvals == 0
    ours = gg.mxm(gg.Matrix("INT64", n, 6), gg.Matrix("INT64", n, n), B, "plus_times")
    assert mxm_mod.last_plan["method"] == "NARROW" and ours.nvals == 0


def test_fully_masked_rows_are_skipped_and_all_masked_gives_nothing():
    rng = np.random.default_rng(5)
    A, GA = random_matrix_pair(rng, 40, 40, 0.3, "FP64")
    B, GB = random_matrix_pair(rng, 40, 4, 0.5, "FP64")
    full = gg.Matrix.from_coo(np.repeat(np.arange(40), 4), np.tile(np.arange(4), 40), True,
                              nrows=40, ncols=4, dtype="BOOL")
    T = gg.mxm(gg.Matrix("FP64", 40, 4), A, B, "plus_times", mask=~full.S)
    assert T.nvals == 0
    # half the rows fully masked, the rest open
    half = gg.Matrix.from_coo(np.repeat(np.arange(20), 4), np.tile(np.arange(4), 20), True,
                              nrows=40, ncols=4, dtype="BOOL")
    T = gg.mxm(gg.Matrix("FP64", 40, 4), A, B, "plus_times", mask=~half.S)
    ref = gb.Matrix("FP64", 40, 4)
    ref(mask=~half.to_graphblas().S) << GA.mxm(GB, gb.semiring.plus_times)
    assert_matches(T, ref)


def test_kernel_modes_agree_with_each_other():
    """narrow() directly: no mask, the allowed entries, and the complement of their
    complement give the same T on the same pairs."""
    rng = np.random.default_rng(11)
    A, _ = random_matrix_pair(rng, 50, 30, 0.2, "FP64")
    B, _ = random_matrix_pair(rng, 30, 5, 0.4, "FP64")
    t = gg.operators.semiring("plus_times", A.dtype, B.dtype)

    def op(M):
        p, i, v = M._csr()
        return Compressed(p, i, v, 0.0, M.dtype)

    a, b = op(A), op(B)
    full = narrow_mod.narrow(a, b, 5, t.multiply, t.monoid)
    M, _ = random_matrix_pair(rng, 50, 5, 0.5, "BOOL")
    ents = (M._rows(), M._indices, M._indptr)
    inside = narrow_mod.narrow(a, b, 5, t.multiply, t.monoid, ents)
    outside = narrow_mod.narrow(a, b, 5, t.multiply, t.monoid, ents, complement=True)
    def key(r):
        ptr, idx = backend.to_host(r[0]), backend.to_host(r[1])
        return set(zip(np.repeat(np.arange(50), np.diff(ptr)).tolist(), idx.tolist()))

    assert key(inside) | key(outside) == key(full)
    assert not key(inside) & key(outside)
    with pytest.raises(ValueError):
        narrow_mod.narrow(a, b, 33, t.multiply, t.monoid)


def test_auto_picks_narrow_for_betweenness_products(monkeypatch):
    """The forward product F⟨¬P.S, replace⟩ = Aᵀ plus.second F and the backward one
    T⟨F_k.S, replace⟩ = A plus.second X go to NARROW with the default ratios; B' wider than
    NARROW_MAX_COLS, or an explicit method, does not."""
    monkeypatch.undo()   # the default NARROW_DOT_RATIO
    rng = np.random.default_rng(2)
    n, ns = 400, 4
    r, c = rng.integers(0, n, 4000), rng.integers(0, n, 4000)
    A = gg.Matrix.from_coo(np.concatenate([r, c]), np.concatenate([c, r]), 1.0, nrows=n,
                           ncols=n, dtype="FP64", dup_op="any")
    rs = Descriptor(replace=True, structure_first=True)
    F = gg.Matrix.from_coo([3, 50, 99, 200], np.arange(ns), 1.0, nrows=n, ncols=ns,
                           dtype="FP64")
    P = F.dup()
    F1 = gg.mxm(gg.Matrix("FP64", n, ns), A.T, F, semirings.plus_second, mask=~P.S, desc=rs)
    assert mxm_mod.last_plan["method"] == "NARROW"
    gg.assign(P, F1, gg.ALL, gg.ALL, accum=semirings.binary.plus)
    F2 = gg.mxm(gg.Matrix("FP64", n, ns), A.T, F1, semirings.plus_second, mask=~P.S, desc=rs)
    assert mxm_mod.last_plan["method"] == "NARROW"
    X = gg.apply(gg.Matrix("FP64", n, ns), F2, semirings.unary.minv)
    T = gg.mxm(gg.Matrix("FP64", n, ns), A, X, semirings.plus_second, mask=F1.S, desc=rs)
    assert mxm_mod.last_plan["method"] == "NARROW"
    assert mxm_mod.last_plan["narrow_work"] <= mxm_mod.last_plan["dot_work"]
    ref = gg.mxm(gg.Matrix("FP64", n, ns), A, X, semirings.plus_second, mask=F1.S, desc=rs,
                 method="DOT")
    assert_matches(T, ref.to_graphblas())
    wide = gg.Matrix.from_coo([1, 2], [0, 40], 1.0, nrows=n, ncols=41, dtype="FP64")
    A.mxm(wide, "plus_times")
    assert mxm_mod.last_plan["method"] != "NARROW"
    A.mxm(F, "plus_times", method="HASH")
    assert mxm_mod.last_plan["method"] == "HASH"
    monkeypatch.setattr(mxm_mod, "NARROW_MAX_COLS", 0)
    A.mxm(F, "plus_times")
    assert mxm_mod.last_plan["method"] != "NARROW"


def test_keep_mask_structure_is_not_narrow():
    rng = np.random.default_rng(4)
    A, _ = random_matrix_pair(rng, 20, 20, 0.3, "FP64")
    B, _ = random_matrix_pair(rng, 20, 3, 0.3, "FP64")
    M, _ = random_matrix_pair(rng, 20, 3, 0.5, "BOOL")
    desc = Descriptor(keep_mask_structure=True)
    gg.mxm(gg.Matrix("FP64", 20, 3), A, B, "plus_times", mask=M.S, desc=desc)
    assert mxm_mod.last_plan["method"] != "NARROW"
