"""The oneMKL adapter: handles, CSR/CSC/vector buffers, properties, descriptors, the
operations with oneMKL's constants, multi-stage mxm, statuses -- against python-graphblas."""
import zlib

import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu import onemkl as mkl
from grblas_gpu import memory
from conftest import assert_matches, random_matrix_pair, random_vector_pair, snapshot

gb = pytest.importorskip("graphblas")
xp = backend.xp

TYPES = {"INT32": np.int32, "INT64": np.int64, "FP32": np.float32, "FP64": np.float64,
         "BOOL": np.bool_}


def mkl_matrix(G, index=np.int32):
    """A oneMKL matrix holding python-graphblas matrix G, built the oneMKL way."""
    indptr, indices, values = G.to_csr()
    A = mkl.matrix_create()
    t = "MKL_GRAPH_TYPE_" + G.dtype.name
    it = "MKL_GRAPH_TYPE_INT32" if index == np.int32 else "MKL_GRAPH_TYPE_INT64"
    mkl.matrix_set_csr(A, G.nrows, G.ncols, xp.asarray(indptr.astype(index)), it,
                       xp.asarray(indices.astype(index)), it, xp.asarray(values), t)
    return A


def test_multistage_mxm_walks_onemkl_sequence():
    """matrix_create; caller allocates rows_start; set_csr with only rows_start; mxm with
    FILL_NNZ and GUSTAVSON; get_property NNZ; caller allocates col_indx and values; set_csr
    with all three; mxm with FILL_ENTRIES -- then compare with python-graphblas."""
    rng = np.random.default_rng(31)
    _, GA = random_matrix_pair(rng, 40, 30, 0.1, "FP32")
    _, GB = random_matrix_pair(rng, 30, 35, 0.1, "FP32")
    A, B = mkl_matrix(GA), mkl_matrix(GB)
    for method in (mkl.MKL_GRAPH_METHOD_GUSTAVSON, mkl.MKL_GRAPH_METHOD_HASH,
                   mkl.MKL_GRAPH_METHOD_AUTO):
        C = mkl.matrix_create()
        rows_start = xp.zeros(40 + 1, dtype=np.int32)
        assert mkl.matrix_set_csr(C, 40, 35, rows_start, mkl.MKL_GRAPH_TYPE_INT32, None,
                                  mkl.MKL_GRAPH_TYPE_UNSET, None,
                                  mkl.MKL_GRAPH_TYPE_FP32) == mkl.MKL_GRAPH_STATUS_SUCCESS
        mkl.mxm(C, None, mkl.MKL_GRAPH_ACCUMULATOR_NONE, mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_FP32,
                A, B, None, mkl.MKL_GRAPH_REQUEST_FILL_NNZ, method)
        nnz = mkl.matrix_get_property(C, mkl.MKL_GRAPH_PROPERTY_NNZ)
        col_indx = xp.empty(nnz, dtype=np.int32)
        values = xp.empty(nnz, dtype=np.float32)
        mkl.matrix_set_csr(C, 40, 35, rows_start, mkl.MKL_GRAPH_TYPE_INT32, col_indx,
                           mkl.MKL_GRAPH_TYPE_INT32, values, mkl.MKL_GRAPH_TYPE_FP32)
        mkl.mxm(C, None, mkl.MKL_GRAPH_ACCUMULATOR_NONE, mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_FP32,
                A, B, None, mkl.MKL_GRAPH_REQUEST_FILL_ENTRIES, method)
        ref = GA.mxm(GB, gb.semiring.plus_times).new()
        assert nnz == ref.nvals
        assert_matches(C, ref)
        nrows, ncols, rs, rs_t, ci, ci_t, vals, v_t = mkl.matrix_get_csr(C)
        assert (nrows, ncols, rs_t, ci_t, v_t) == (40, 35, "MKL_GRAPH_TYPE_INT32",
                                                   "MKL_GRAPH_TYPE_INT32", "MKL_GRAPH_TYPE_FP32")
        assert rs is rows_start and ci is col_indx and vals is values  # written into, shared


def test_multistage_with_mask_descriptor_and_dot():
    rng = np.random.default_rng(32)
    _, GA = random_matrix_pair(rng, 25, 25, 0.15, "INT64")
    _, GM = random_matrix_pair(rng, 25, 25, 0.3, "BOOL")
    A, M = mkl_matrix(GA, np.int64), mkl_matrix(GM, np.int64)
    desc = mkl.descriptor_create()
    mkl.descriptor_set_field(desc, mkl.MKL_GRAPH_FIELD_SECOND_INPUT, mkl.MKL_GRAPH_MOD_TRANSPOSE)
    mkl.descriptor_set_field(desc, mkl.MKL_GRAPH_FIELD_MASK, mkl.MKL_GRAPH_MOD_ONLY_STRUCTURE)
    ref = gb.Matrix("INT64", 25, 25)
    ref(mask=GM.S) << GA.mxm(GA.T, gb.semiring.plus_times)
    for method in (mkl.MKL_GRAPH_METHOD_DOT, mkl.MKL_GRAPH_METHOD_HASH):
        C = mkl.matrix_create()
        rows_start = xp.zeros(26, dtype=np.int64)
        mkl.matrix_set_csr(C, 25, 25, rows_start, mkl.MKL_GRAPH_TYPE_INT64, None, None, None,
                           mkl.MKL_GRAPH_TYPE_INT64)
        mkl.mxm(C, M, None, mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_INT64, A, A, desc,
                mkl.MKL_GRAPH_REQUEST_FILL_NNZ, method)
        nnz = mkl.matrix_get_property(C, mkl.MKL_GRAPH_PROPERTY_NNZ)
        ci, vals = xp.empty(nnz, dtype=np.int64), xp.empty(nnz, dtype=np.int64)
        mkl.matrix_set_csr(C, 25, 25, rows_start, mkl.MKL_GRAPH_TYPE_INT64, ci,
                           mkl.MKL_GRAPH_TYPE_INT64, vals, mkl.MKL_GRAPH_TYPE_INT64)
        mkl.mxm(C, M, None, mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_INT64, A, A, desc,
                mkl.MKL_GRAPH_REQUEST_FILL_ENTRIES, method)
        assert_matches(C, ref)
    mkl.descriptor_destroy(desc)


@pytest.mark.parametrize("name", mkl.SEMIRINGS)
def test_every_onemkl_semiring(name):
    rng = np.random.default_rng(zlib.crc32(name.encode()))  # stable across processes
    t = name.rsplit("_", 1)[1]
    _, GA = random_matrix_pair(rng, 20, 15, 0.2, t)
    _, GB = random_matrix_pair(rng, 15, 18, 0.2, t)
    A, B = mkl_matrix(GA), mkl_matrix(GB)
    gname = name.rsplit("_", 1)[0].lower()
    ref = GA.mxm(GB, getattr(gb.semiring, gname)[t]).new()
    for method in ("MKL_GRAPH_METHOD_AUTO", "MKL_GRAPH_METHOD_GUSTAVSON", "MKL_GRAPH_METHOD_HASH"):
        C = mkl.matrix_create()
        mkl.matrix_set_csr(C, 20, 18, xp.zeros(21, np.int32), "MKL_GRAPH_TYPE_INT32", None, None,
                           None, "MKL_GRAPH_TYPE_" + ref.dtype.name)
        mkl.mxm(C, None, None, getattr(mkl, "MKL_GRAPH_SEMIRING_" + name), A, B, None,
                mkl.MKL_GRAPH_REQUEST_COMPUTE_ALL, method)
        if gname.startswith("any_"):
            np.testing.assert_array_equal(C.to_coo()[0], ref.to_coo()[0])
            np.testing.assert_array_equal(C.to_coo()[1], ref.to_coo()[1])
            if gname == "any_pair":
                assert_matches(C, ref)
        else:
            assert_matches(C, ref)


def test_accumulators_and_descriptor_fields():
    rng = np.random.default_rng(33)
    _, GA = random_matrix_pair(rng, 12, 10, 0.3, "INT32")
    _, GB = random_matrix_pair(rng, 12, 11, 0.3, "INT32")
    _, GM = random_matrix_pair(rng, 10, 11, 0.4, "INT32")
    A, B, M = mkl_matrix(GA), mkl_matrix(GB), mkl_matrix(GM)
    for accum, gacc in (("MKL_GRAPH_ACCUMULATOR_PLUS", gb.binary.plus),
                        ("MKL_GRAPH_ACCUMULATOR_MIN", gb.binary.min)):
        _, GC = random_matrix_pair(rng, 10, 11, 0.3, "INT32")
        C = mkl_matrix(GC)
        desc = mkl.descriptor_create()
        mkl.descriptor_set_field(desc, "MKL_GRAPH_FIELD_FIRST_INPUT", "MKL_GRAPH_MOD_TRANSPOSE")
        mkl.descriptor_set_field(desc, mkl.MKL_GRAPH_FIELD_MASK, mkl.MKL_GRAPH_MOD_COMPLEMENT)
        mkl.descriptor_set_field(desc, mkl.MKL_GRAPH_FIELD_OUTPUT, mkl.MKL_GRAPH_MOD_REPLACE)
        mkl.mxm(C, M, accum, mkl.MKL_GRAPH_SEMIRING_MIN_PLUS_INT32, A, B, desc)
        GC(mask=~GM.V, accum=gacc, replace=True) << GA.T.mxm(GB, gb.semiring.min_plus)
        assert_matches(C, GC)
        # MOD_NONE clears a field
        mkl.descriptor_set_field(desc, mkl.MKL_GRAPH_FIELD_FIRST_INPUT, mkl.MKL_GRAPH_MOD_NONE)
        assert not desc.transpose_first


def test_properties_and_csc():
    rng = np.random.default_rng(34)
    _, G = random_matrix_pair(rng, 9, 7, 0.3, "FP64")
    A = mkl_matrix(G)
    assert mkl.matrix_get_property(A, mkl.MKL_GRAPH_PROPERTY_NROWS) == 9
    assert mkl.matrix_get_property(A, mkl.MKL_GRAPH_PROPERTY_NCOLS) == 7
    assert mkl.matrix_get_property(A, mkl.MKL_GRAPH_PROPERTY_NNZ) == G.nvals
    assert mkl.matrix_get_property(A, mkl.MKL_GRAPH_PROPERTY_MATRIX_HAS_CSR)
    assert not mkl.matrix_get_property(A, mkl.MKL_GRAPH_PROPERTY_MATRIX_HAS_CSC)
    nrows, ncols, colptr, _, rowidx, _, vals, vt = mkl.matrix_get_csc(A)
    assert mkl.matrix_get_property(A, mkl.MKL_GRAPH_PROPERTY_MATRIX_HAS_CSC)
    cp, ri, cv = G.to_csc()
    np.testing.assert_array_equal(backend.to_host(colptr), cp)
    np.testing.assert_array_equal(backend.to_host(rowidx), ri)
    np.testing.assert_array_equal(backend.to_host(vals), cv)
    # set_csc: the content from CSC arrays, which become the cached CSC form
    B = mkl.matrix_create()
    cp_d, ri_d, cv_d = xp.asarray(cp.astype(np.int64)), xp.asarray(ri.astype(np.int64)), xp.asarray(cv)
    mkl.matrix_set_csc(B, 9, 7, cp_d, "MKL_GRAPH_TYPE_INT64", ri_d, "MKL_GRAPH_TYPE_INT64", cv_d,
                       "MKL_GRAPH_TYPE_FP64")
    assert_matches(B, G)
    assert B.has_csc and B._csc()[0] is cp_d and B._csc()[1] is ri_d
    np.testing.assert_array_equal(backend.to_host(B.get_csc()[2]), cv)
    with pytest.raises(gg.InvalidValue) as info:
        mkl.matrix_get_property(A, "MKL_GRAPH_PROPERTY_NOPE")
    assert info.value.status == "MKL_GRAPH_STATUS_INVALID_VALUE"


def test_vectors_mxv_vxm_and_transpose():
    rng = np.random.default_rng(35)
    _, GA = random_matrix_pair(rng, 14, 12, 0.3, "FP64")
    A = mkl_matrix(GA)
    _, gu = random_vector_pair(rng, 12, 0.5, "FP64")
    idx, vals = gu.to_coo()
    u = mkl.vector_create()
    mkl.vector_set_sparse(u, 12, len(idx), xp.asarray(idx.astype(np.int64)), "MKL_GRAPH_TYPE_INT64",
                          xp.asarray(vals), "MKL_GRAPH_TYPE_FP64")
    assert mkl.vector_get_property(u, mkl.MKL_GRAPH_PROPERTY_NNZ) == gu.nvals
    assert mkl.vector_get_property(u, mkl.MKL_GRAPH_PROPERTY_VECTOR_HAS_SPARSE)
    dim, nnz, i2, _, v2, vt = mkl.vector_get_sparse(u)
    assert (dim, nnz, vt) == (12, gu.nvals, "MKL_GRAPH_TYPE_FP64")
    np.testing.assert_array_equal(backend.to_host(i2), idx)
    for method in ("MKL_GRAPH_METHOD_AUTO", "MKL_GRAPH_METHOD_DOT", "MKL_GRAPH_METHOD_GUSTAVSON"):
        w = mkl.vector_create()
        mkl.vector_set_dense(w, 14, xp.zeros(14), "MKL_GRAPH_TYPE_FP64")
        mkl.mxv(w, None, None, mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_FP64, A, u, None,
                mkl.MKL_GRAPH_REQUEST_COMPUTE_ALL, method)
        ref = GA.mxv(gu, gb.semiring.plus_times).new()
        dim, dense, _ = mkl.vector_get_dense(w)
        np.testing.assert_allclose(backend.to_host(dense), ref.to_dense(fill_value=0), rtol=1e-12)
    ud = mkl.vector_create()
    mkl.vector_set_dense(ud, 14, xp.arange(14, dtype=np.float64), "MKL_GRAPH_TYPE_FP64")
    assert mkl.vector_get_property(ud, mkl.MKL_GRAPH_PROPERTY_VECTOR_HAS_DENSE)
    w = mkl.vector_create()
    mkl.vector_set_dense(w, 12, xp.zeros(12), "MKL_GRAPH_TYPE_FP64")
    mkl.vxm(w, None, mkl.MKL_GRAPH_ACCUMULATOR_PLUS, mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_FP64, ud, A)
    ref = gb.Vector.from_coo(np.arange(14), np.arange(14.0)).vxm(GA, gb.semiring.plus_times).new()
    np.testing.assert_allclose(mkl.vector_get_dense(w)[1].get() if backend.is_gpu
                               else mkl.vector_get_dense(w)[1], ref.to_dense(fill_value=0))
    with pytest.raises(gg.NotSupported) as info:
        mkl.mxv(w, None, None, mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_FP64, A, u, None,
                mkl.MKL_GRAPH_REQUEST_COMPUTE_ALL, mkl.MKL_GRAPH_METHOD_HASH)
    assert info.value.status == "MKL_GRAPH_STATUS_NOT_SUPPORTED"
    C = mkl.matrix_create()
    mkl.matrix_set_csr(C, 12, 14, xp.zeros(13, np.int32), "MKL_GRAPH_TYPE_INT32",
                       xp.zeros(0, np.int32), "MKL_GRAPH_TYPE_INT32", xp.zeros(0),
                       "MKL_GRAPH_TYPE_FP64")
    mkl.transpose(C, None, None, A, None)
    assert_matches(C, GA.T.new())


def test_statuses_and_inputs_unchanged():
    rng = np.random.default_rng(36)
    _, GA = random_matrix_pair(rng, 8, 6, 0.4, "FP32")
    A = mkl_matrix(GA)
    C = mkl.matrix_create()
    mkl.matrix_set_csr(C, 8, 8, xp.zeros(9, np.int32), "MKL_GRAPH_TYPE_INT32",
                       xp.zeros(0, np.int32), "MKL_GRAPH_TYPE_INT32", xp.zeros(0, np.float32),
                       "MKL_GRAPH_TYPE_FP32")
    sr = mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_FP32
    desc = mkl.descriptor_create()
    mkl.descriptor_set_field(desc, mkl.MKL_GRAPH_FIELD_SECOND_INPUT, mkl.MKL_GRAPH_MOD_TRANSPOSE)
    cases = [
        ("MKL_GRAPH_STATUS_INVALID_VALUE", lambda: mkl.mxm(C, None, None, sr, A, A)),
        ("MKL_GRAPH_STATUS_NOT_SUPPORTED",
         lambda: mkl.mxm(C, None, None, sr, A, A, desc, mkl.MKL_GRAPH_REQUEST_COMPUTE_ALL,
                         mkl.MKL_GRAPH_METHOD_DOT)),
        ("MKL_GRAPH_STATUS_INVALID_VALUE",
         lambda: mkl.mxm(C, None, None, sr, A, A, desc, mkl.MKL_GRAPH_REQUEST_FILL_ENTRIES)),
        ("MKL_GRAPH_STATUS_INVALID_VALUE",
         lambda: mkl.matrix_set_csr(C, 8, 8, xp.zeros(9, np.int64), "MKL_GRAPH_TYPE_INT32",
                                    None, None, None, None)),
        ("MKL_GRAPH_STATUS_NOT_INITIALIZED", lambda: mkl.mxm(C, None, None, sr, None, A)),
    ]
    old = memory.set_limit(100)
    try:
        with pytest.raises(gg.AllocFailed) as info:
            mkl.mxm(C, None, None, sr, A, A, desc, mkl.MKL_GRAPH_REQUEST_COMPUTE_ALL,
                    mkl.MKL_GRAPH_METHOD_HASH)
        assert info.value.status == "MKL_GRAPH_STATUS_ALLOC_FAILED"
    finally:
        memory.set_limit(old)
    for status, f in cases:
        before = snapshot(C), snapshot(A)
        with pytest.raises(gg.GraphBLASError) as info:
            f()
        assert info.value.status == status == info.value.mkl_status
        assert (snapshot(C), snapshot(A)) == before
    B = mkl_matrix(GA)
    mkl.matrix_destroy(B)
    with pytest.raises(gg.NotInitialized) as info:
        mkl.matrix_get_property(B, mkl.MKL_GRAPH_PROPERTY_NNZ)
    assert info.value.status == "MKL_GRAPH_STATUS_NOT_INITIALIZED"
    mkl.descriptor_destroy(desc)
    with pytest.raises(gg.NotInitialized):
        mkl.mxm(C, None, None, sr, A, A, desc)


def test_optimize_hints_precompute_and_keep_results():
    rng = np.random.default_rng(37)
    _, GA = random_matrix_pair(rng, 30, 30, 0.1, "FP64")
    _, GM = random_matrix_pair(rng, 30, 30, 0.2, "BOOL")
    A, M = mkl_matrix(GA), mkl_matrix(GM)
    desc = mkl.descriptor_create()
    mkl.descriptor_set_field(desc, mkl.MKL_GRAPH_FIELD_FIRST_INPUT, mkl.MKL_GRAPH_MOD_TRANSPOSE)
    assert mkl.optimize_mxm(M, mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_FP64, A, A, desc, 10) == \
        mkl.MKL_GRAPH_STATUS_SUCCESS
    assert A.has_csc
    C = mkl.matrix_create()
    mkl.matrix_set_csr(C, 30, 30, xp.zeros(31, np.int32), "MKL_GRAPH_TYPE_INT32",
                       xp.zeros(0, np.int32), "MKL_GRAPH_TYPE_INT32", xp.zeros(0),
                       "MKL_GRAPH_TYPE_FP64")
    mkl.mxm(C, M, None, mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_FP64, A, A, desc,
            mkl.MKL_GRAPH_REQUEST_COMPUTE_ALL, mkl.MKL_GRAPH_METHOD_DOT)
    ref = gb.Matrix("FP64", 30, 30)
    ref(mask=GM.V) << GA.T.mxm(GA, gb.semiring.plus_times)
    assert_matches(C, ref)
    B = mkl_matrix(GA)
    assert mkl.optimize_mxv(None, mkl.MKL_GRAPH_SEMIRING_PLUS_TIMES_FP64, B, None, 5) == \
        mkl.MKL_GRAPH_STATUS_SUCCESS
    assert B.has_csc
