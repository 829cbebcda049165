"""assign (GrB_assign: C⟨M, r⟩(I, J) = accum(C(I, J), A), mask of C's shape) and subassign
(GxB_subassign: C(I, J)⟨M, r⟩ = accum(C(I, J), A), mask of the region's shape), against
python-graphblas: `C(mask, accum, replace)[I, J] << A` and `C[I, J](mask, accum, replace) << A`."""
import numpy as np
import pytest

import grblas_gpu as gg
from conftest import TEST_TYPES, assert_matches, random_matrix_pair, random_vector_pair
from indexcheck import common_index, gb_accum, masks, unchanged

INDEX_KINDS = ("perm", "sorted", "list", "slice", "slice_neg", "all", "none", "empty")
MASKS = ("none", "V", "S", "~V", "~S", "desc_comp", "desc_struct")
ACCUMS = (None, "plus", "min", "second", "first")


def rand_index(rng, n, kind):
    """(our index argument, python-graphblas's): duplicate-free, from range(n)."""
    if kind == "perm":
        a = rng.permutation(n)[:rng.integers(0, n + 1)]
        return a, a
    if kind == "sorted":
        a = np.sort(rng.choice(n, size=rng.integers(0, n + 1), replace=False))
        return a, a
    if kind == "list":
        a = rng.permutation(n)[:rng.integers(0, n + 1)]
        return a.tolist(), a
    return common_index(rng, n, kind)


def _size(key, n):
    return len(range(n)[key]) if isinstance(key, slice) else len(key)


def _scalar(rng, dtype):
    npt = gg.lookup_dtype(dtype).np_type
    return npt.type(rng.integers(0, 2)) if npt.kind == "b" else npt.type(rng.integers(-3, 4))


def _config(rng):
    mask_kind = str(rng.choice(MASKS))
    accum = ACCUMS[rng.integers(len(ACCUMS))]
    replace = mask_kind != "none" and bool(rng.random() < 0.5)
    return mask_kind, accum, replace


def _ref_update(GC, sub, gkey, gmask, accum, replace, gvalue):
    if sub:
        GC[gkey](mask=gmask, accum=gb_accum(accum), replace=replace) << gvalue
    else:
        GC(mask=gmask, accum=gb_accum(accum), replace=replace)[gkey] << gvalue


# ------------------------------------------------------------------ matrix (and scalar) forms
@pytest.mark.parametrize("sub", [False, True], ids=["assign", "subassign"])
@pytest.mark.parametrize("seed", range(40))
def test_matrix_assign_matches_python_graphblas(seed, sub):
    rng = np.random.default_rng(seed)
    nrows, ncols = (int(x) for x in rng.integers(0, 9, 2))
    ctype = str(rng.choice(TEST_TYPES))
    for _ in range(6):
        C, GC = random_matrix_pair(rng, nrows, ncols, rng.uniform(0.1, 0.7), ctype)
        rows, grows = rand_index(rng, nrows, str(rng.choice(INDEX_KINDS)))
        cols, gcols = rand_index(rng, ncols, str(rng.choice(INDEX_KINDS)))
        ni, nj = _size(grows, nrows), _size(gcols, ncols)
        mask_kind, accum, replace = _config(rng)
        mshape = (ni, nj) if sub else (nrows, ncols)
        M, GM = random_matrix_pair(rng, *mshape, 0.5, "INT64")
        mask, fields, gmask = masks(M, GM)[mask_kind]
        transpose, value_kind = bool(rng.random() < 0.3), rng.choice(["matrix", "scalar"])
        if value_kind == "scalar":
            value = gvalue = _scalar(rng, ctype)
            transpose = False
        else:
            atype = ctype if accum else str(rng.choice(TEST_TYPES))
            value, gvalue = random_matrix_pair(rng, *((nj, ni) if transpose else (ni, nj)),
                                               0.5, atype)
            gvalue = gvalue.T if transpose else gvalue
        desc = gg.Descriptor(replace=replace, transpose_first=transpose, **fields)
        fn = gg.subassign if sub else gg.assign
        out = fn(C, value, rows, cols, mask=mask, accum=accum, desc=desc)
        _ref_update(GC, sub, (grows, gcols), gmask, accum, replace, gvalue)
        assert out is C
        assert_matches(C, GC)


# ------------------------------------------------------------------ row and column forms
@pytest.mark.parametrize("sub", [False, True], ids=["assign", "subassign"])
@pytest.mark.parametrize("seed", range(30))
def test_row_col_assign_matches_python_graphblas(seed, sub):
    rng = np.random.default_rng(500 + seed)
    nrows, ncols = (int(x) for x in rng.integers(1, 9, 2))
    ctype = str(rng.choice(TEST_TYPES))
    for _ in range(6):
        C, GC = random_matrix_pair(rng, nrows, ncols, 0.5, ctype)
        on_row = bool(rng.random() < 0.5)
        if on_row:
            i = int(rng.integers(nrows))
            idx, gidx = rand_index(rng, ncols, str(rng.choice(INDEX_KINDS)))
            key, gkey, n, line = (i, idx), (i, gidx), _size(gidx, ncols), ncols
        else:
            j = int(rng.integers(ncols))
            idx, gidx = rand_index(rng, nrows, str(rng.choice(INDEX_KINDS)))
            key, gkey, n, line = (idx, j), (gidx, j), _size(gidx, nrows), nrows
        mask_kind, accum, replace = _config(rng)
        matrix_mask = not sub and rng.random() < 0.25  # python-graphblas's C(M)[i, J] << u
        if matrix_mask:
            M, GM = random_matrix_pair(rng, nrows, ncols, 0.5, "BOOL")
        else:
            M, GM = random_vector_pair(rng, n if sub else line, 0.5, "INT32")
        mask, fields, gmask = masks(M, GM)[mask_kind]
        if rng.random() < 0.3:
            value = gvalue = _scalar(rng, ctype)
        else:
            value, gvalue = random_vector_pair(rng, n, 0.5, ctype if accum else
                                               str(rng.choice(TEST_TYPES)))
            if rng.random() < 0.3:
                value.set_format("dense")
        desc = gg.Descriptor(replace=replace, **fields)
        (gg.subassign if sub else gg.assign)(C, value, *key, mask=mask, accum=accum, desc=desc)
        _ref_update(GC, sub, gkey, gmask, accum, replace, gvalue)
        assert_matches(C, GC)


# ------------------------------------------------------------------ vector forms
@pytest.mark.parametrize("sub", [False, True], ids=["assign", "subassign"])
@pytest.mark.parametrize("seed", range(30))
def test_vector_assign_matches_python_graphblas(seed, sub):
    rng = np.random.default_rng(900 + seed)
    size = int(rng.integers(0, 25))
    wtype = str(rng.choice(TEST_TYPES))
    for _ in range(6):
        w, gw = random_vector_pair(rng, size, rng.uniform(0.1, 0.8), wtype)
        if rng.random() < 0.4:
            w.set_format("dense")
        idx, gidx = rand_index(rng, size, str(rng.choice(INDEX_KINDS)))
        n = _size(gidx, size)
        mask_kind, accum, replace = _config(rng)
        m, gm = random_vector_pair(rng, n if sub else size, 0.5, "FP64")
        if rng.random() < 0.3:
            m.set_format("dense")
        mask, fields, gmask = masks(m, gm)[mask_kind]
        if rng.random() < 0.3:
            value = gvalue = _scalar(rng, wtype)
        else:
            value, gvalue = random_vector_pair(rng, n, 0.5, wtype if accum else
                                               str(rng.choice(TEST_TYPES)))
        desc = gg.Descriptor(replace=replace, **fields)
        (gg.subassign if sub else gg.assign)(w, value, idx, mask=mask, accum=accum, desc=desc)
        _ref_update(gw, sub, gidx, gmask, accum, replace, gvalue)
        assert_matches(w, gw)


# ------------------------------------------------------------------ methods and setitem
def test_methods_and_setitem(rng):
    C, GC = random_matrix_pair(rng, 6, 7, 0.4, "FP64")
    A, GA = random_matrix_pair(rng, 3, 2, 0.6, "FP64")
    M, GM = random_matrix_pair(rng, 6, 7, 0.5, "BOOL")
    I, J = np.array([5, 0, 2]), np.array([6, 1])
    assert C.assign(A, I, J, mask=M.S, accum="plus") is C
    GC(mask=GM.S, accum=gb_accum("plus"))[I, J] << GA
    assert_matches(C, GC)
    Ms, GMs = random_matrix_pair(rng, 3, 2, 0.5, "BOOL")
    assert C.subassign(A, I, J, mask=~Ms.S, desc=gg.Descriptor(replace=True)) is C
    GC[I, J](mask=~GMs.S, replace=True) << GA
    assert_matches(C, GC)
    C[1:4, ::-3] = 2.5
    GC[1:4, ::-3] << 2.5
    assert_matches(C, GC)
    C[[0, 3], :] = gg.Matrix.from_graphblas(GC[[1, 2], :].new())
    GC[[0, 3], :] << GC[[1, 2], :].new()
    assert_matches(C, GC)
    u, gu = random_vector_pair(rng, 7, 0.5, "FP64")
    C[4, :] = u
    GC[4, :] << gu
    C[:, 2] = 7
    GC[:, 2] << 7
    assert_matches(C, GC)
    C[0, 0] = 9.0  # one element: unchanged behaviour
    GC[0, 0] << 9.0
    assert_matches(C, GC)
    w, gw = random_vector_pair(rng, 10, 0.3, "INT64")
    w[[9, 2]] = gg.Vector.from_coo([1], [4], size=2, dtype="INT64")
    gw[[9, 2]] << gg.Vector.from_coo([1], [4], size=2, dtype="INT64").to_graphblas()
    w[5:] = -1
    gw[5:] << -1
    assert w.assign(3, [0, 1], mask=w.S) is w
    gw(mask=gw.S)[[0, 1]] << 3
    assert w.subassign(8, [3, 4]) is w
    gw[[3, 4]] << 8
    assert_matches(w, gw)


def test_transposed_input(rng):
    C, GC = random_matrix_pair(rng, 5, 6, 0.4, "INT64")
    A, GA = random_matrix_pair(rng, 4, 3, 0.6, "INT64")
    gg.assign(C, A, [0, 2, 4], [5, 3, 1, 0], desc=gg.Descriptor(transpose_first=True))
    GC[[0, 2, 4], [5, 3, 1, 0]] << GA.T
    assert_matches(C, GC)


def test_transposed_view_and_descriptor_cancel(rng):
    C, GC = random_matrix_pair(rng, 5, 6, 0.4, "FP64")
    A, GA = random_matrix_pair(rng, 3, 2, 0.6, "FP64")
    gg.assign(C, A.T, [4, 1], [0, 5, 2], accum="plus")
    GC(accum=gb_accum("plus"))[[4, 1], [0, 5, 2]] << GA.T
    assert_matches(C, GC)
    M, GM = random_matrix_pair(rng, 3, 2, 0.5, "BOOL")
    gg.subassign(C, A.T, [0, 3, 2], [1, 4], mask=M.S,
                 desc=gg.Descriptor(transpose_first=True, replace=True))
    GC[[0, 3, 2], [1, 4]](mask=GM.S, replace=True) << GA
    assert_matches(C, GC)
    with pytest.raises(gg.DimensionMismatch):
        gg.assign(C, A.T, [0, 3, 2], [1, 4])


def test_region_without_accum_deletes_missing_entries():
    C = gg.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0], nrows=2, ncols=2)
    gg.assign(C, gg.Matrix(gg.FP64, 1, 2), [0], gg.ALL)  # C(0, :) = empty
    np.testing.assert_array_equal(C.to_coo()[0], [1])
    M = gg.Matrix.from_coo([0], [0], [True], nrows=2, ncols=2)
    gg.assign(C, gg.Matrix(gg.FP64, 0, 2), [], gg.ALL, mask=M.S,
              desc=gg.Descriptor(replace=True))  # GrB_assign: replace clears all of C
    assert C.nvals == 0


# ------------------------------------------------------------------ aliasing
def test_aliasing_output_is_input_and_mask(rng):
    import graphblas as gb

    C, GC = random_matrix_pair(rng, 6, 6, 0.5, "INT64")
    perm = rng.permutation(6)
    gg.assign(C, C, perm, perm[::-1], mask=C.S, accum="plus")
    GC(mask=GC.S, accum=gb.binary.plus)[perm, perm[::-1]] << GC.dup()
    assert_matches(C, GC)
    gg.subassign(C, C, gg.ALL, gg.ALL, mask=~C.V, desc=gg.Descriptor(replace=True))
    GC[:, :](mask=~GC.V, replace=True) << GC.dup()
    assert_matches(C, GC)
    w, gw = random_vector_pair(rng, 9, 0.5, "FP64")
    gg.assign(w, w, slice(None, None, -1), mask=w, accum="min")
    gw(mask=gw.V, accum=gb.binary.min)[::-1] << gw.dup()
    assert_matches(w, gw)


# ------------------------------------------------------------------ errors change nothing
def test_errors_change_nothing(rng):
    C, _ = random_matrix_pair(rng, 5, 6, 0.5, "FP64")
    A, _ = random_matrix_pair(rng, 2, 3, 0.5, "FP64")
    M, _ = random_matrix_pair(rng, 5, 6, 0.5, "BOOL")
    Ms, _ = random_matrix_pair(rng, 2, 3, 0.5, "BOOL")
    u, _ = random_vector_pair(rng, 3, 0.5, "FP64")
    w, _ = random_vector_pair(rng, 8, 0.5, "FP64")
    m, _ = random_vector_pair(rng, 8, 0.5, "BOOL")
    wd = w.dup().set_format("dense")
    objs = (C, A, M, Ms, u, w, m, wd)
    for fn in (gg.assign, gg.subassign):
        cases = [
            (lambda: fn(C, A, [0, 0], [0, 1, 2]), gg.InvalidValue),
            (lambda: fn(C, A, [0, 1], [2, 1, 2]), gg.InvalidValue),
            (lambda: fn(C, 1.0, [0, 1], [2, 1, 2]), gg.InvalidValue),
            (lambda: fn(C, u, 0, [4, 1, 4]), gg.InvalidValue),
            (lambda: fn(C, u, [3, 3, 1], 0), gg.InvalidValue),
            (lambda: fn(w, u, [7, 1, 7]), gg.InvalidValue),
            (lambda: fn(wd, 2.0, np.array([5, 5, 0])), gg.InvalidValue),
            (lambda: fn(C, A, [0, 5], [0, 1, 2]), gg.IndexOutOfBounds),
            (lambda: fn(C, A, [0, 1], [0, 1, 6]), gg.IndexOutOfBounds),
            (lambda: fn(C, A, [-1, 1], [0, 1, 2]), gg.IndexOutOfBounds),
            (lambda: fn(C, u, 5, [0, 1, 2]), gg.IndexOutOfBounds),
            (lambda: fn(w, u, [0, 8, 1]), gg.IndexOutOfBounds),
            (lambda: fn(C, A, [0, 1, 2], [0, 1, 2]), gg.DimensionMismatch),
            (lambda: fn(C, A, [0, 1], [0, 1, 2], desc=gg.Descriptor(transpose_first=True)),
             gg.DimensionMismatch),
            (lambda: fn(C, u, 0, [0, 1]), gg.DimensionMismatch),
            (lambda: fn(w, u, [0, 1]), gg.DimensionMismatch),
            (lambda: fn(C, A, [0, 1], [0, 1, 2], mask=m), gg.DimensionMismatch),
            (lambda: fn(C, A, [0, 1], [0, 1, 2], mask=(Ms if fn is gg.assign else M).S),
             gg.DimensionMismatch),
            (lambda: fn(w, u, [0, 1, 2], mask=u if fn is gg.assign else m), gg.DimensionMismatch),
            (lambda: fn(C, A, [0, 1], [0, 1, 2], accum="no_such_op"), gg.GraphBLASError),
            (lambda: fn(C, u, [0, 1], [0, 1, 2]), gg.InvalidValue),
            (lambda: fn(C, A, 0, [0, 1, 2]), gg.InvalidValue),
            (lambda: fn(C, "x", [0, 1], [0, 1, 2]), gg.InvalidValue),
            (lambda: fn(C, 1j, [0, 1], [0, 1, 2]), gg.TypeNotSupported),
            (lambda: fn(C, A, [0, 1]), gg.InvalidValue),
            (lambda: fn(w, u, [0, 1, 2], [0]), gg.InvalidValue),
            (lambda: fn(C, A, [0.0, 1.0], [0, 1, 2]), gg.InvalidValue),
        ]
        for f, exc in cases:
            unchanged(objs, f, exc)
    unchanged(objs, lambda: C.__setitem__(([1, 1], [0, 1, 2]), A), gg.InvalidValue)
    unchanged(objs, lambda: w.__setitem__([9], 1.0), gg.IndexOutOfBounds)


def test_huge_dimensions_need_no_dense_arrays():
    m, n = 2**22, 2**41  # m * n overflows int64 keys: the splice sorts with lexsort
    C = gg.Matrix.from_coo([0, m - 1, 5], [n - 1, 0, 3], [1.0, 2.0, 3.0], nrows=m, ncols=n)
    A = gg.Matrix.from_coo([0, 1], [1, 0], [10.0, 20.0], nrows=2, ncols=2)
    gg.subassign(C, A, [5, 0], [n - 1, 3])  # C(5, 3) = A(0, 1); C(0, n-1) = A(1, 0)
    rows, cols, vals = C.to_coo()
    np.testing.assert_array_equal(rows, [0, 5, m - 1])
    np.testing.assert_array_equal(cols, [n - 1, 3, 0])
    np.testing.assert_array_equal(vals, [20.0, 10.0, 2.0])
    T = C.extract([m - 1, 0], [0, n - 1, 0])
    np.testing.assert_array_equal(T.to_dense(), [[2.0, 0, 2.0], [0, 20.0, 0]])
    size = 2**50
    xp = gg.backend.xp
    w = gg.Vector._from_sparse(size, gg.FP64, xp.asarray([3, size - 1]), xp.asarray([1.0, 2.0]))
    gg.assign(w, 5.0, [size - 1, 7], accum="plus")
    idx, vals = w.to_coo()
    np.testing.assert_array_equal(idx, [3, 7, size - 1])
    np.testing.assert_array_equal(vals, [1.0, 5.0, 7.0])
    np.testing.assert_array_equal(w[[size - 1, 3, 3, 4]].to_dense(), [7.0, 1.0, 1.0, 0.0])
