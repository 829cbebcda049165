"""Issue 32 on the containers: values a type cannot hold, sizes beyond the limits and
wrong-typed arguments raise a GraphBLASError subclass and change nothing; element set and
delete on a sparse Vector or Matrix never densify.

The value rule (grblas_gpu.types.scalar_value): a typed value (an array, a NumPy scalar) is
cast as SuiteSparse casts, as python-graphblas does; a Python number (or a list of them) must
be stored unchanged, or it is refused.
"""
import math
import time
import tracemalloc

import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import memory

from conftest import assert_matches, snapshot


def _objects(dtype):
    A = gg.Matrix.from_coo([0, 1], [1, 2], [1, 0], nrows=3, ncols=3, dtype=dtype)
    v = gg.Vector.from_coo([1, 3], [1, 0], size=5, dtype=dtype)
    return A, v


def unchanged(objs, f, exc):
    before = [snapshot(o) for o in objs]
    with pytest.raises(exc) as info:
        f()
    assert isinstance(info.value, gg.GraphBLASError)
    assert [snapshot(o) for o in objs] == before
    return info.value


# every entry point through which a user's value reaches storage
ENTRY_POINTS = {
    "A[i, j] = x": lambda A, v, x: A.__setitem__((2, 0), x),
    "A[i, j] = x (existing)": lambda A, v, x: A.__setitem__((0, 1), x),
    "v[i] = x": lambda A, v, x: v.__setitem__(4, x),
    "v[i] = x (dense)": lambda A, v, x: v.set_format("dense").__setitem__(4, x),
    "Matrix.from_coo(values=[x])": lambda A, v, x: gg.Matrix.from_coo([0], [0], [x], dtype=A.dtype),
    "Matrix.from_coo(values=x) iso": lambda A, v, x: gg.Matrix.from_coo([0, 1], [0, 0], x, dtype=A.dtype),
    "Vector.from_coo(values=[x])": lambda A, v, x: gg.Vector.from_coo([2, 0], [1, x], dtype=v.dtype),
    "Vector.from_coo(values=x) iso": lambda A, v, x: gg.Vector.from_coo([0, 1], x, dtype=v.dtype),
    "Vector.from_dense([x])": lambda A, v, x: gg.Vector.from_dense([1, x], dtype=v.dtype),
    "Matrix.from_dense([[x]])": lambda A, v, x: gg.Matrix.from_dense([[1, x]], dtype=A.dtype),
    "A.to_dense(fill=x)": lambda A, v, x: A.to_dense(fill=x),
    "v.to_dense(fill=x)": lambda A, v, x: v.to_dense(fill=x),
    "assign(v, x, I)": lambda A, v, x: gg.assign(v, x, [0, 2]),
    "C[I, J] = x": lambda A, v, x: A.__setitem__(([0, 2], [1]), x),
}

UNREPRESENTABLE = [
    ("INT8", 300), ("INT8", -129), ("UINT8", -1), ("UINT8", 256), ("INT64", 1.5),
    ("INT64", 2**70), ("INT64", 2**63), ("UINT64", -1), ("INT32", math.nan),
    ("INT64", math.inf), ("FP32", 1e300), ("FP64", 2**1100),
]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("dtype, x", UNREPRESENTABLE, ids=lambda p: f"{p!r:.12}")
def test_python_number_the_type_cannot_hold_is_refused(entry, dtype, x):
    A, v = _objects(dtype)
    unchanged((A, v), lambda: ENTRY_POINTS[entry](A, v, x), gg.InvalidValue)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("x, exc", [
    (1 + 2j, gg.TypeNotSupported), ("x", gg.GraphBLASError), (None, gg.GraphBLASError),
    (object(), gg.GraphBLASError)])
def test_a_value_that_is_not_a_real_number_is_refused(entry, x, exc):
    if x is None and entry.startswith("Vector.from_coo(values=x)"):
        pytest.skip("values=None means a structure-only (iso True) vector")
    if x is None and entry.startswith("Matrix.from_coo(values=x)"):
        pytest.skip("values=None means a structure-only (iso True) matrix")
    A, v = _objects("FP64")
    unchanged((A, v), lambda: ENTRY_POINTS[entry](A, v, x), exc)


def test_representable_python_numbers_are_stored_exactly():
    cases = [("UINT8", 255), ("INT8", -128), ("INT64", -2**63), ("INT64", 2**63 - 1),
             ("UINT64", 2**64 - 1), ("INT16", 7.0), ("BOOL", 1), ("BOOL", 0.0), ("BOOL", -5), ("BOOL", 0.5), ("INT32", True),
             ("FP64", 2**70), ("FP32", 1.1), ("FP64", math.inf), ("FP32", math.nan)]
    for dtype, x in cases:
        npt = gg.lookup_dtype(dtype).np_type
        want = npt.type(x)
        A, v = _objects(dtype)
        A[2, 0] = x
        v[4] = x
        iso = gg.Vector.from_coo([0, 3], x, dtype=dtype)
        listed = gg.Matrix.from_coo([0], [0], [x], dtype=dtype)
        for got in (A[2, 0], v[4], iso[3], listed[0, 0], v.to_dense(fill=x)[0]):
            assert got.dtype == npt and got.tobytes() == want.tobytes(), (dtype, x, got)


def test_typed_values_are_cast_as_python_graphblas_casts():
    """Arrays and NumPy scalars of another type: C casts (SuiteSparse's), as python-graphblas."""
    import graphblas as gb

    arr = np.array([300, -1, 2**40, 7])
    # (out-of-range floats are left out: C leaves them undefined; python-graphblas casts
    # them with NumPy, SuiteSparse and grblas_gpu saturate: test_types_errors checks those)
    farr = np.array([1.5, 2.7, 0.0, 126.9])
    for dtype in ("INT8", "UINT8", "INT32", "UINT64", "BOOL", "FP32"):
        for a in (arr, farr):
            ours = gg.Vector.from_coo(np.arange(4), a, dtype=dtype)
            ref = gb.Vector.from_coo(np.arange(4), a, dtype=dtype)
            np.testing.assert_array_equal(ours.to_coo()[1], ref.to_coo()[1], err_msg=dtype)
            dense = gg.Vector.from_dense(a, dtype=dtype)
            np.testing.assert_array_equal(dense.to_coo()[1], ref.to_coo()[1], err_msg=dtype)
        for x in (np.int64(300), np.float64(1.5), np.int16(-1)):
            ours, ref = gg.Vector(dtype, 2), gb.Vector(dtype, 2)
            ours[0] = x
            ref[0] = x
            assert ours[0] == ref[0].value, (dtype, x)


def test_complex_scipy_matrix_is_refused():
    import scipy.sparse as sp

    S = sp.csr_matrix(np.array([[0, 1 + 2j], [3, 0]]))
    with pytest.raises(gg.TypeNotSupported):
        gg.Matrix.from_scipy(S)
    with pytest.raises(gg.TypeNotSupported):
        gg.Matrix.from_scipy(S, dtype="FP64")


# ---------------------------------------------------------------------------- sizes
def test_sizes_beyond_the_limits_raise_before_allocating():
    A, v = _objects("FP64")
    big = gg.Vector.from_coo([0, 2**40 - 1], [1.0, 2.0], size=2**40)
    wide = gg.Matrix.from_coo([0, 9], [2**50, 3], [1.0, 2.0], nrows=10, ncols=2**59)
    objs = (A, v, big, wide)
    for f, exc in [
        (lambda: gg.Matrix(gg.FP64, 2**40, 2), gg.NotSupported),   # rows: CSR offsets
        (lambda: gg.Matrix(gg.FP64, 2**31, 2), gg.NotSupported),
        (lambda: gg.Matrix(gg.FP64, 2, 2**60), gg.InvalidValue),   # columns up to 2**60
        (lambda: gg.Vector(gg.FP64, 2**60), gg.InvalidValue),
        (lambda: A.resize(2**40, 3), gg.NotSupported),
        (lambda: A.resize(3, 2**61), gg.InvalidValue),
        (lambda: v.resize(2**60), gg.InvalidValue),
        (lambda: gg.Matrix.diag(v, 2**40), gg.NotSupported),
        (lambda: gg.Matrix.diag(v, -2**61), gg.InvalidValue),
        (lambda: big.diag(), gg.NotSupported),
        (lambda: gg.Matrix.from_coo([2**40], [0], [1.0]), gg.NotSupported),
        (lambda: gg.Matrix.from_coo([0], [2**61], [1.0]), gg.InvalidValue),
        (lambda: gg.Vector.from_coo([2**61], [1.0]), gg.InvalidValue),
        (lambda: gg.Vector.from_coo(np.array([2**61, 0]), [1.0, 2.0]), gg.InvalidValue),
        (lambda: big.to_dense(), gg.AllocFailed),     # 2**40 * (8 + 1 + 8) bytes
        (lambda: big.to_dense(device=True), gg.AllocFailed),
        (lambda: big.set_format("dense"), gg.AllocFailed),
        (lambda: big.get_dense(), gg.AllocFailed),
        (lambda: wide.to_dense(), gg.AllocFailed),
        (lambda: wide.T.to_dense(), gg.AllocFailed),
    ]:
        e = unchanged(objs, f, exc)
        if exc is gg.AllocFailed:
            assert "bytes" in str(e)
    assert big.format == "sparse" and not big.has_dense


def test_to_dense_respects_the_memory_budget():
    v = gg.Vector.from_coo([0, 2**20 - 1], [1.0, 2.0], size=2**20)
    A = gg.Matrix.from_coo([0], [1], [1.0], nrows=2**10, ncols=2**10)
    old = memory.set_limit(2**20)
    try:
        unchanged((v, A), lambda: v.to_dense(), gg.AllocFailed)
        unchanged((v, A), lambda: A.to_dense(), gg.AllocFailed)
        # CSR offsets of 2**25 rows (the documented limit is 2**31 - 1) cannot fit either
        big = gg.Vector.from_coo([0], [1.0], size=2**25)
        for f in (lambda: gg.Matrix(gg.FP64, 2**25, 2), lambda: A.resize(2**25, 2),
                  lambda: gg.Matrix.from_coo([0], [0], [1.0], nrows=2**25, ncols=1),
                  lambda: gg.Matrix.diag(big), lambda: big.to_dense()):
            unchanged((v, A, big), f, gg.AllocFailed)
    finally:
        memory.set_limit(old)
    assert v.to_dense()[-1] == 2.0 and A.to_dense()[0, 1] == 1.0


def test_an_allocator_failure_becomes_alloc_failed(monkeypatch):
    A, v = _objects("FP64")
    xp = gg.backend.xp

    def no_memory(*args, **kwargs):
        raise MemoryError("injected")

    monkeypatch.setattr(xp, "full", no_memory)
    unchanged((A, v), lambda: A.to_dense(), gg.AllocFailed)
    monkeypatch.setattr(xp, "zeros", no_memory)
    unchanged((A, v), lambda: v.to_dense(), gg.AllocFailed)


# ---------------------------------------------------------------------------- elements
def test_element_set_and_delete_on_a_huge_sparse_vector_allocate_nothing_big():
    n = 2**40
    tracemalloc.start()
    try:
        t0 = time.perf_counter()
        v = gg.Vector(gg.FP64, n)
        v[n - 1] = 1.0
        v[5] = 2.0
        v[2**39] = 3.0
        v[5] = 4.0          # overwrite
        del v[2**39]
        del v[7]            # absent: nothing to do
        got = (v[5], v[n - 1], v[2**39], v[0])
        w = gg.Vector.from_coo([3], 1.0, size=n)  # iso: stays iso while the value is the same
        w[9] = 1.0
        w[10] = 2.0
        A = gg.Matrix(gg.FP64, 10, 2**59)
        A[9, 2**58] = 1.0
        A[0, 1] = 2.0
        del A[9, 2**58]
        elapsed = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == (4.0, 1.0, None, None)
    assert v.format == "sparse" and v.nvals == 2
    np.testing.assert_array_equal(v.to_coo()[0], [5, n - 1])
    np.testing.assert_array_equal(w.to_coo()[1], [1.0, 1.0, 2.0])
    np.testing.assert_array_equal(A.to_coo()[1], [1])
    assert elapsed < 0.5, elapsed
    assert peak < 2**20, peak


@pytest.mark.parametrize("dtype", ["INT32", "FP64", "BOOL"])
def test_element_set_and_delete_match_python_graphblas(rng, dtype):
    import graphblas as gb



    v, g = gg.Vector(dtype, 40), gb.Vector(dtype, 40)
    A, G = gg.Matrix(dtype, 6, 7), gb.Matrix(dtype, 6, 7)
    for step in range(120):
        i, j, x = int(rng.integers(40)), int(rng.integers(7)), int(rng.integers(0, 2))
        r = i % 6
        if step % 3 == 2:
            del v[i]
            del A[r, j]
            if g[i].value is not None:
                del g[i]
            if G[r, j].value is not None:
                del G[r, j]
        else:
            v[i] = x
            A[r, j] = x
            g[i] = x
            G[r, j] = x
        if step == 60:
            v.set_format("dense")  # the dense form takes element updates too
        assert_matches(v, g)
        assert_matches(A, G)
        assert v[i] == g[i].value and A[r, j] == G[r, j].value


# ---------------------------------------------------------------------------- argument types
def test_wrong_typed_arguments_raise_graphblas_errors():
    import scipy.sparse as sp

    A, v = _objects("FP64")
    objs = (A, v)
    for f, exc in [
        (lambda: gg.Matrix(gg.FP64, 2.5, 3), gg.InvalidValue),
        (lambda: gg.Matrix(gg.FP64, 3.0, 3), gg.InvalidValue),
        (lambda: gg.Matrix(gg.FP64, "3", 3), gg.InvalidValue),
        (lambda: gg.Matrix(gg.FP64, None, 3), gg.InvalidValue),
        (lambda: gg.Matrix(gg.FP64, True, 3), gg.InvalidValue),
        (lambda: gg.Matrix("nope", 2, 2), gg.TypeNotSupported),
        (lambda: gg.Matrix(object, 2, 2), gg.TypeNotSupported),
        (lambda: gg.Matrix(None, 2, 2), gg.TypeNotSupported),   # NumPy would read FP64
        (lambda: gg.Vector(gg.FP64, 2.0), gg.InvalidValue),
        (lambda: gg.Vector(gg.FP64, [3]), gg.InvalidValue),
        (lambda: v[1.5], gg.InvalidValue),
        (lambda: v["a"], gg.InvalidValue),
        (lambda: v.__setitem__(True, 1.0), gg.InvalidValue),
        (lambda: v.__delitem__(2.0), gg.InvalidValue),
        (lambda: A[1.5, 0], gg.InvalidValue),
        (lambda: A.__setitem__((0, True), 1.0), gg.InvalidValue),
        (lambda: A.__delitem__((0, "1")), gg.InvalidValue),
        (lambda: A[0], gg.InvalidValue),
        (lambda: A.resize(2.5, 2), gg.InvalidValue),
        (lambda: v.resize("3"), gg.InvalidValue),
        (lambda: v.set_format(3), gg.InvalidValue),
        (lambda: gg.Matrix.from_coo(np.array([[0]]), [0], [1.0]), gg.InvalidValue),
        (lambda: gg.Matrix.from_coo(["a"], [0], [1.0]), gg.InvalidValue),
        (lambda: gg.Matrix.from_coo([[0], [1, 2]], [0], [1.0]), gg.InvalidValue),
        (lambda: gg.Matrix.from_coo(None, [0], [1.0]), gg.InvalidValue),
        (lambda: gg.Matrix.from_coo([0], [0], np.array([object()])), gg.TypeNotSupported),
        (lambda: gg.Matrix.from_coo([0], [0], np.array(["a"])), gg.TypeNotSupported),
        (lambda: gg.Matrix.from_coo([0], [0], [1.0], nrows=2.0), gg.InvalidValue),
        (lambda: gg.Vector.from_coo([0], [1.0], size="4"), gg.InvalidValue),
        (lambda: gg.Vector.from_coo([0.0], [1.0]), gg.InvalidValue),
        (lambda: gg.Vector.from_coo("abc", [1.0]), gg.InvalidValue),
        (lambda: gg.Vector.from_dense(np.zeros((2, 2))), gg.InvalidValue),
        (lambda: gg.Vector.from_dense("abc"), gg.GraphBLASError),
        (lambda: gg.Vector.from_dense([1, None]), gg.GraphBLASError),
        (lambda: gg.Matrix.from_dense([[1, 2], [3]]), gg.GraphBLASError),
        (lambda: gg.Matrix.from_dense(np.zeros(3)), gg.InvalidValue),
        (lambda: gg.Matrix.from_scipy("not a matrix"), gg.InvalidValue),
        (lambda: gg.Matrix.from_scipy(sp.csr_matrix(np.array([[0, 1 + 2j]]))),
         gg.TypeNotSupported),
        (lambda: gg.Matrix.from_graphblas(A), gg.InvalidValue),
        (lambda: gg.Vector.from_graphblas([1, 2]), gg.InvalidValue),
        (lambda: gg.Matrix.diag(A), gg.InvalidValue),
        (lambda: gg.Matrix.diag(v, 1.5), gg.InvalidValue),
        (lambda: gg.Vector.diag(A, "1"), gg.InvalidValue),
        (lambda: A.to_dense(fill=None), gg.DomainMismatch),
        (lambda: gg.Matrix(A, 2, 2), gg.TypeNotSupported),            # our objects are
        (lambda: gg.Vector.from_coo([0], v), gg.TypeNotSupported),     # not arrays or types
        (lambda: gg.Matrix.from_coo(A, [0], [1.0]), gg.InvalidValue),
        (lambda: v.dup(v), gg.TypeNotSupported),
        (lambda: gg.Vector.from_dense([1.0, 2.0], missing_value=()), gg.DomainMismatch),
        (lambda: gg.Matrix.from_dense([[1, 2]], missing_value=1.5), gg.InvalidValue),
        (lambda: v.isequal(v, tolerance="x"), gg.InvalidValue),
        (lambda: A.isequal(A, tolerance=-1.0), gg.InvalidValue),
        (lambda: A.memo([1], lambda: 1), gg.InvalidValue),
        (lambda: v.to_dense(fill="x"), gg.DomainMismatch),
    ]:
        unchanged(objs, f, exc)


def test_element_updates_keep_an_iso_value_while_it_is_the_same():
    A = gg.Matrix.from_coo([0, 2], [1, 0], 3, nrows=3, ncols=4, dtype="INT16")
    v = gg.Vector.from_coo([1], 3, size=4, dtype="INT16")
    A[1, 3] = 3
    v[3] = 3
    del A[0, 1]
    assert A._is_iso and v._sp[1] is None
    A[2, 0] = 5
    v[1] = 5
    np.testing.assert_array_equal(A.to_coo()[0], [1, 2])
    np.testing.assert_array_equal(A.to_coo()[2], [3, 5])
    np.testing.assert_array_equal(v.to_coo()[1], [5, 3])
    assert A.dtype is gg.INT16 and A.to_coo()[2].dtype == np.int16
