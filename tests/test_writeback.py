"""The one write-back, C⟨M, replace⟩ = accum(C, T), against SuiteSparse's `C(...) << T`."""
import itertools
import zlib

import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import operators
from grblas_gpu.operations.writeback import write_back
from conftest import assert_matches, random_matrix_pair, random_vector_pair, snapshot

MASKS = ("none", "V", "S", "~V", "~S")


def _masks(M, G):
    return {"none": (None, None), "V": (M.V, G.V), "S": (M.S, G.S),
            "~V": (~M.V, ~G.V), "~S": (~M.S, ~G.S)}


@pytest.mark.parametrize("kind", ["matrix", "vector", "dense_vector", "dense_c_sparse_t"])
@pytest.mark.parametrize("ctype, ttype", [("FP64", "FP64"), ("INT32", "FP64"), ("BOOL", "INT64"),
                                          ("INT64", "INT32"), ("FP32", "BOOL")])
def test_write_back_matches_suitesparse(kind, ctype, ttype):
    import graphblas as gb

    rng = np.random.default_rng(zlib.crc32(f"{kind}-{ctype}-{ttype}".encode()))
    for mask_kind, accum, replace in itertools.product(MASKS, (None, "plus", "min", "second", "minus"),
                                                       (False, True)):
        if (ctype == "BOOL" and accum == "minus") or (mask_kind == "none" and replace):
            continue  # python-graphblas refuses replace without a mask
        if kind == "matrix":
            C, GC = random_matrix_pair(rng, 6, 7, 0.4, ctype)
            T, GT = random_matrix_pair(rng, 6, 7, 0.4, ttype)
            M, GM = random_matrix_pair(rng, 6, 7, 0.5, rng.choice(["BOOL", "INT32", "FP64"]))
        else:
            C, GC = random_vector_pair(rng, 40, 0.4, ctype)
            T, GT = random_vector_pair(rng, 40, 0.4, ttype)
            M, GM = random_vector_pair(rng, 40, 0.5, rng.choice(["BOOL", "INT32", "FP64"]))
            if kind == "dense_vector":
                T.set_format("dense")
                M.set_format("dense")
            elif kind == "dense_c_sparse_t":  # accum(C, T) scatters T into a copy of C
                C.set_format("dense")
        mask, gmask = _masks(M, GM)[mask_kind]
        acc = operators.accumulator(accum, C.dtype, T.dtype) if accum else None
        gacc = getattr(gb.binary, accum) if accum else None
        write_back(C, T, mask=mask, accum=acc, replace=replace)
        GC(mask=gmask, accum=gacc, replace=replace) << GT
        assert_matches(C, GC)


@pytest.mark.parametrize("kind", ["matrix", "vector"])
def test_empty_output_takes_t_as_is_and_matches_suitesparse(kind):
    """C holds nothing: accum(C, T) = T, nothing to keep outside the mask, so a T already
    restricted to the mask (t_is_masked) becomes C, cast to C's type, under every accum and
    replace (the masked dot product of triangle counting writes back this way)."""
    import graphblas as gb

    rng = np.random.default_rng(zlib.crc32(kind.encode()))
    for ctype, ttype in (("INT32", "FP64"), ("FP64", "INT64"), ("BOOL", "FP32")):
        for mask_kind, accum, replace in itertools.product(("V", "S"), (None, "plus", "second"),
                                                           (False, True)):
            if kind == "matrix":
                C, GC = random_matrix_pair(rng, 6, 7, 0.0, ctype)
                M, GM = random_matrix_pair(rng, 6, 7, 0.5, "INT32")
                T0, _ = random_matrix_pair(rng, 6, 7, 0.6, ttype)
                T = gg.Matrix(T0.dtype, 6, 7)
            else:
                C, GC = random_vector_pair(rng, 40, 0.0, ctype)
                M, GM = random_vector_pair(rng, 40, 0.5, "INT32")
                T0, _ = random_vector_pair(rng, 40, 0.6, ttype)
                T = gg.Vector(T0.dtype, 40)
            mask, gmask = _masks(M, GM)[mask_kind]
            write_back(T, T0, mask=mask, replace=True)        # T: T0 inside the mask only
            assert C.nvals == 0
            acc = operators.accumulator(accum, C.dtype, T.dtype) if accum else None
            gacc = getattr(gb.binary, accum) if accum else None
            write_back(C, T, mask=mask, accum=acc, replace=replace, t_is_masked=True)
            GC(mask=gmask, accum=gacc, replace=replace) << T.to_graphblas()
            assert_matches(C, GC)
            assert C.nvals == T.nvals


def test_t_is_masked_fast_path_gives_same_result(rng):
    C, _ = random_vector_pair(rng, 30, 0.5, "FP64")
    M, _ = random_vector_pair(rng, 30, 0.3, "BOOL")
    T, _ = random_vector_pair(rng, 30, 0.6, "FP64")
    masked_T = gg.Vector(gg.FP64, 30)
    write_back(masked_T, T, mask=M.S, replace=True)
    C1, C2 = C.dup(), C.dup()
    write_back(C1, masked_T, mask=M.S, replace=True, t_is_masked=True)
    write_back(C2, T, mask=M.S, replace=True)
    assert C1.isequal(C2)


def test_huge_dimensions_use_ranked_keys():
    m, n = 2**22, 2**41  # nrows * ncols overflows int64: keys are ranked, not linearised
    C = gg.Matrix.from_coo([0, m - 1], [n - 1, 0], [1.0, 2.0], nrows=m, ncols=n)
    T = gg.Matrix.from_coo([0, 5], [n - 1, 5], [10.0, 20.0], nrows=m, ncols=n)
    M = gg.Matrix.from_coo([0, m - 1], [n - 1, 0], nrows=m, ncols=n)
    write_back(C, T, accum=operators.accumulator("plus", C.dtype, T.dtype))
    rows, cols, vals = C.to_coo()
    np.testing.assert_array_equal(rows, [0, 5, m - 1])
    np.testing.assert_array_equal(cols, [n - 1, 5, 0])
    np.testing.assert_array_equal(vals, [11.0, 20.0, 2.0])
    write_back(C, T, mask=~M.S, replace=True)
    np.testing.assert_array_equal(C.to_coo()[2], [20.0])


def test_too_many_rows_for_csr_is_not_supported():
    with pytest.raises(gg.NotSupported):
        gg.Matrix.from_coo([0], [0], [1.0], nrows=2**40, ncols=2)


def test_shape_mismatch_raises_and_changes_nothing(rng):
    C, _ = random_matrix_pair(rng, 4, 4, 0.5, "FP64")
    T, _ = random_matrix_pair(rng, 4, 5, 0.5, "FP64")
    M, _ = random_matrix_pair(rng, 5, 4, 0.5, "BOOL")
    before = snapshot(C)
    with pytest.raises(gg.DimensionMismatch):
        write_back(C, T)
    T2, _ = random_matrix_pair(rng, 4, 4, 0.5, "FP64")
    with pytest.raises(gg.DimensionMismatch):
        write_back(C, T2, mask=M.S)
    v, _ = random_vector_pair(rng, 4, 0.5, "FP64")
    with pytest.raises(gg.DimensionMismatch):
        write_back(C, v)
    assert snapshot(C) == before
