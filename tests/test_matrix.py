import numpy as np
import pytest
import scipy.sparse as sp

import grblas_gpu as gg
from conftest import random_coo, snapshot


def test_from_coo_round_trip_all_types(rng):
    for t in gg.types.ALL_TYPES:
        rows, cols, vals = random_coo(rng, 7, 5, 0.4, t)
        A = gg.Matrix.from_coo(rows, cols, vals, nrows=7, ncols=5, dtype=t)
        r, c, v = A.to_coo()
        np.testing.assert_array_equal(r, rows)
        np.testing.assert_array_equal(c, cols)
        np.testing.assert_array_equal(v, vals)
        assert A.dtype is t and A.nvals == len(rows) and A.shape == (7, 5)


def test_unsorted_coo_is_sorted_and_csr_csc_agree(rng):
    rows, cols, vals = random_coo(rng, 9, 11, 0.3, "FP64")
    perm = rng.permutation(len(rows))
    A = gg.Matrix.from_coo(rows[perm], cols[perm], vals[perm], nrows=9, ncols=11)
    S = sp.coo_matrix((vals, (rows, cols)), shape=(9, 11)).tocsr()
    indptr, indices, values = A.to_csr()
    np.testing.assert_array_equal(indptr, S.indptr)
    np.testing.assert_array_equal(indices, S.indices)
    np.testing.assert_array_equal(values, S.data)
    colptr, rowidx, cvals = A.to_csc()
    Sc = S.tocsc()
    Sc.sort_indices()
    np.testing.assert_array_equal(colptr, Sc.indptr)
    np.testing.assert_array_equal(rowidx, Sc.indices)
    np.testing.assert_array_equal(cvals, Sc.data)
    assert A.has_csc


def test_csc_edge_ids_map_back_to_csr_positions(rng):
    rows, cols, vals = random_coo(rng, 20, 20, 0.2, "FP64")
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=20, ncols=20)
    _, rowidx, edge_id = (gg.backend.to_host(a) for a in A._csc())
    csr_rows = gg.backend.to_host(A._rows())
    np.testing.assert_array_equal(csr_rows[edge_id], rowidx)
    np.testing.assert_array_equal(gg.backend.to_host(A._values)[edge_id], A.to_csc()[2])


def test_from_csr_csc_dense_scipy_graphblas_agree(rng):
    import graphblas as gb

    rows, cols, vals = random_coo(rng, 6, 8, 0.5, "INT32")
    ref = gg.Matrix.from_coo(rows, cols, vals, nrows=6, ncols=8)
    S = ref.to_scipy()
    assert gg.Matrix.from_csr(S.indptr, S.indices, S.data, ncols=8).isequal(ref)
    Sc = S.tocsc()
    Sc.sort_indices()
    assert gg.Matrix.from_csc(Sc.indptr, Sc.indices, Sc.data, nrows=6).isequal(ref)
    assert gg.Matrix.from_scipy(S).isequal(ref)
    dense = ref.to_dense(fill=0)
    assert gg.Matrix.from_dense(dense, missing_value=0).isequal(ref)
    assert gg.Matrix.from_dense(dense).nvals == 48
    G = ref.to_graphblas()
    assert isinstance(G, gb.Matrix) and G.nvals == ref.nvals
    assert gg.Matrix.from_graphblas(G).isequal(ref)


def test_iso_structure_only():
    A = gg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2)
    assert A._is_iso and A.dtype is gg.BOOL
    assert A[0, 1] is not None and bool(A[0, 1])
    B = gg.Matrix.from_coo([0, 1], [1, 0], 2.5, nrows=2, ncols=2)
    np.testing.assert_array_equal(B.to_coo()[2], [2.5, 2.5])
    assert B.dtype is gg.FP64 and B._is_iso


def test_dup_op_combines_duplicates():
    A = gg.Matrix.from_coo([0, 0, 1, 0], [1, 1, 0, 1], [1, 2, 3, 4], dup_op="plus")
    assert A[0, 1] == 7 and A[1, 0] == 3 and A.nvals == 2
    B = gg.Matrix.from_coo([0, 0, 0], [1, 1, 1], [5, 2, 9], dup_op="min")
    assert B[0, 1] == 2
    F = gg.Matrix.from_coo([0, 0, 0], [1, 1, 1], [5, 2, 9], dup_op="first")
    assert F[0, 1] == 5


def test_element_access_set_delete():
    A = gg.Matrix(gg.INT32, 3, 3)
    A[1, 2] = 5
    A[0, 0] = 7
    A[1, 2] = 6
    assert A.nvals == 2 and A[1, 2] == 6 and A[0, 0] == 7 and A[2, 2] is None
    del A[0, 0]
    assert A.nvals == 1 and A[0, 0] is None
    del A[2, 2]  # deleting an absent entry is not an error (GrB_Matrix_removeElement)
    assert A.nvals == 1


def test_dup_clear_resize_isequal(rng):
    rows, cols, vals = random_coo(rng, 5, 5, 0.6, "FP64")
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=5, ncols=5)
    B = A.dup()
    assert B.isequal(A)
    B[0, 0] = 100.0
    assert not B.isequal(A) or A[0, 0] == 100.0
    C = A.dup(dtype=gg.INT64)
    assert C.dtype is gg.INT64
    A2 = A.dup()
    A2.resize(3, 4)
    assert A2.shape == (3, 4)
    keep = (rows < 3) & (cols < 4)
    assert A2.nvals == int(keep.sum())
    A2.clear()
    assert A2.nvals == 0 and A2.shape == (3, 4)
    D = A.dup()
    D._swap_in(gg.Matrix.from_coo(rows, cols, vals * (1 + 1e-9), nrows=5, ncols=5))
    assert not D.isequal(A) or np.all(vals == 0)
    assert D.isequal(A, tolerance=1e-6)


def test_repr_names_shape_type_format_backend():
    A = gg.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=3)
    r = repr(A)
    for part in ("2x3", "FP64", "nvals=1", "csr", gg.backend.name):
        assert part in r


def test_index_type_int32_then_int64():
    A = gg.Matrix.from_coo([0], [1], [1.0], nrows=3, ncols=3)
    assert A.index_dtype == np.int32
    B = gg.Matrix.from_coo([0, 9], [1, 2**41], [1.0, 2.0], nrows=10, ncols=2**41 + 1)
    assert B.index_dtype == np.int64
    assert B[9, 2**41] == 2.0
    assert A._as_index_dtype(np.int64).index_dtype == np.int64


@pytest.mark.parametrize("build, exc", [
    (lambda: gg.Matrix.from_coo([0, 1], [0], [1.0, 2.0]), gg.DimensionMismatch),
    (lambda: gg.Matrix.from_coo([0, 1], [0, 1], [1.0]), gg.DimensionMismatch),
    (lambda: gg.Matrix.from_coo([0, 3], [0, 1], [1.0, 2.0], nrows=3, ncols=3), gg.IndexOutOfBounds),
    (lambda: gg.Matrix.from_coo([0, -1], [0, 1], [1.0, 2.0], nrows=3, ncols=3), gg.IndexOutOfBounds),
    (lambda: gg.Matrix.from_coo([0, 0], [1, 1], [1.0, 2.0]), gg.InvalidValue),
    (lambda: gg.Matrix.from_coo([0.5], [1], [1.0]), gg.InvalidValue),
    (lambda: gg.Matrix.from_coo([0], [1], np.array([1 + 2j])), gg.TypeNotSupported),
    (lambda: gg.Matrix.from_coo([0], [1], np.array(["a"])), gg.TypeNotSupported),
    (lambda: gg.Matrix.from_csr([0, 2, 1], [0, 1]), gg.InvalidValue),
    (lambda: gg.Matrix.from_csr([1, 2], [0]), gg.InvalidValue),
    (lambda: gg.Matrix.from_csr([0, 2], [1, 0], ncols=2), gg.InvalidValue),
    (lambda: gg.Matrix.from_csr([0, 2], [1, 1], ncols=2), gg.InvalidValue),
    (lambda: gg.Matrix.from_csr([0, 1], [5], ncols=2), gg.IndexOutOfBounds),
    (lambda: gg.Matrix(gg.FP64, -1, 2), gg.InvalidValue),
    (lambda: gg.Matrix("complex64", 2, 2), gg.TypeNotSupported),
    (lambda: gg.Matrix.from_dense(np.zeros(3)), gg.InvalidValue),
])
def test_bad_construction_raises_specific_error(build, exc):
    with pytest.raises(exc) as info:
        build()
    assert info.value.status.startswith("GrB_")


def test_bad_element_access_changes_nothing():
    A = gg.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], nrows=2, ncols=2)
    before = snapshot(A)
    with pytest.raises(gg.IndexOutOfBounds):
        A[2, 0] = 1.0
    with pytest.raises(gg.IndexOutOfBounds):
        A[0, -1]
    with pytest.raises(gg.InvalidValue):
        A[0]
    with pytest.raises(gg.InvalidValue):
        A.resize(-1, 2)
    assert snapshot(A) == before


def test_no_truth_value_or_equality_operator():
    A = gg.Matrix(gg.FP64, 2, 2)
    with pytest.raises(gg.InvalidValue):
        bool(A)
    with pytest.raises(gg.InvalidValue):
        A == A  # noqa: B015


def test_host_exports_are_copies_nothing_written_reaches_the_container():
    """to_coo/to_csr/to_csc (and Vector.to_coo) without device=True give arrays of their own
    on both backends: writing into them leaves the object as it was."""
    A = gg.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], nrows=3, ncols=3)
    for export in (A.to_coo, A.to_csr, A.to_csc):
        for arr in export():
            arr[...] = 7
    assert A.to_coo()[0].tolist() == [0, 1, 2] and A.to_coo()[1].tolist() == [1, 2, 0]
    assert A.to_coo()[2].tolist() == [1.0, 2.0, 3.0]
    assert A.to_csc()[0].tolist() == [0, 1, 2, 3]
    v = gg.Vector.from_coo([0, 2], [5, 6], size=4)
    for arr in v.to_coo():
        arr[...] = 1
    assert v.to_coo()[0].tolist() == [0, 2] and v.to_coo()[1].tolist() == [5, 6]
