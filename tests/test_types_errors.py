import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu.types import cast, lookup_dtype, unify


def test_lookup_by_every_name():
    assert lookup_dtype("FP32") is gg.FP32
    assert lookup_dtype("float32") is gg.FP32
    assert lookup_dtype("MKL_GRAPH_TYPE_FP64") is gg.FP64
    assert lookup_dtype("GrB_INT8") is gg.INT8
    assert lookup_dtype(np.uint16) is gg.UINT16
    assert lookup_dtype(bool) is gg.BOOL and lookup_dtype(int) is gg.INT64 and lookup_dtype(float) is gg.FP64
    assert gg.INT32.mkl_name == "MKL_GRAPH_TYPE_INT32" and gg.INT8.mkl_name is None
    assert gg.UINT64.c_type == "unsigned long long"
    with pytest.raises(gg.TypeNotSupported):
        lookup_dtype("complex128")
    with pytest.raises(gg.TypeNotSupported):
        lookup_dtype(np.complex64)


def test_unify_matches_python_graphblas():
    from graphblas import dtypes

    for a in gg.types.ALL_TYPES:
        for b in gg.types.ALL_TYPES:
            assert unify(a, b).name == dtypes.unify(dtypes.lookup_dtype(a.name),
                                                     dtypes.lookup_dtype(b.name)).name


def test_cast_matches_suitesparse():
    import graphblas as gb

    x = np.array([np.nan, np.inf, -np.inf, 1e20, -1e20, -2.7, 2.7, 0.0, 255.5, -0.5])
    for t in gg.types.ALL_TYPES:
        v = gb.Vector.from_coo(np.arange(len(x)), x, dtype="FP64")
        w = gb.Vector(t.name, len(x))
        w << v
        np.testing.assert_array_equal(cast(x, t), w.to_coo()[1], err_msg=t.name)


def test_error_statuses_and_hierarchy():
    e = gg.InvalidValue("bad")
    assert isinstance(e, gg.GraphBLASError) and isinstance(e, ValueError)
    assert e.status == "GrB_INVALID_VALUE" and "GrB_INVALID_VALUE" in str(e)
    assert e.nvgraph_status == "NVGRAPH_STATUS_INVALID_VALUE"
    assert e.mkl_status == "MKL_GRAPH_STATUS_INVALID_VALUE"
    assert issubclass(gg.IndexOutOfBounds, IndexError)
    assert issubclass(gg.TypeNotSupported, gg.NotSupported)
    assert gg.AllocFailed.mkl_status == "MKL_GRAPH_STATUS_ALLOC_FAILED"
    assert gg.NotInitialized.nvgraph_status == "NVGRAPH_STATUS_NOT_INITIALIZED"
    nc = gg.NotConverged("stop", result=[1, 2], iterations=5)
    assert nc.result == [1, 2] and nc.iterations == 5 and nc.status == "NVGRAPH_STATUS_NOT_CONVERGED"


def test_status_string_like_nvgraph():
    assert gg.status_string("NVGRAPH_STATUS_SUCCESS") == "Success"
    assert "converge" in gg.status_string("NVGRAPH_STATUS_NOT_CONVERGED")
    assert gg.status_string(gg.AllocFailed("x")) == gg.status_string("NVGRAPH_STATUS_ALLOC_FAILED")
    assert gg.status_string("NOT_A_STATUS") == "Unknown nvGRAPH Status"


def test_backend_is_chosen_once_and_reported():
    info = gg.backend.device_info()
    assert info["backend"] == gg.backend.name in ("numpy", "cupy")
    assert gg.backend.xp.__name__ == gg.backend.name
