"""extract: C⟨M, replace⟩ = accum(C, A(I, J)) and its row, column and vector forms, against
python-graphblas (`C(mask, accum, replace) << A[I, J]`) and a dense mimic."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import grblas_gpu as gg
from conftest import TEST_TYPES, assert_matches, random_matrix_pair, random_vector_pair, snapshot
from indexcheck import common_index, gb_accum, masks, unchanged
from grblas_gpu.operations.extract import parse_index

INDEX_KINDS = ("dups", "perm", "sorted", "list", "slice", "slice_neg", "all", "none", "empty")
MASKS = ("none", "V", "S", "~V", "~S", "desc_comp", "desc_struct")
ACCUMS = (None, "plus", "min", "second")


def rand_index(rng, n, kind):
    """(our index argument, python-graphblas's) selecting from range(n)."""
    if kind == "dups":
        a = rng.integers(0, max(n, 1), size=rng.integers(1, 2 * n + 2)) if n else np.zeros(0, int)
        return a, a
    if kind == "perm":
        a = rng.permutation(n)[:rng.integers(0, n + 1)]
        return a, a
    if kind == "sorted":
        a = np.sort(rng.choice(n, size=rng.integers(0, n + 1), replace=False))
        return a, a
    if kind == "list":
        a = rng.integers(0, max(n, 1), size=rng.integers(0, n + 2)) if n else np.zeros(0, int)
        return a.tolist(), a
    return common_index(rng, n, kind)


# ------------------------------------------------------------------ against python-graphblas
@pytest.mark.parametrize("seed", range(60))
def test_matrix_extract_matches_python_graphblas(seed):
    rng = np.random.default_rng(seed)
    nrows, ncols = (int(x) for x in rng.integers(0, 9, 2))
    atype = str(rng.choice(TEST_TYPES))
    A, GA = random_matrix_pair(rng, nrows, ncols, rng.uniform(0.1, 0.7), atype)
    transpose = bool(rng.random() < 0.3)
    GAt = GA.T if transpose else GA
    n0, n1 = (ncols, nrows) if transpose else (nrows, ncols)
    for _ in range(6):
        rkind, ckind = rng.choice(INDEX_KINDS, 2)
        rows, grows = rand_index(rng, n0, rkind)
        cols, gcols = rand_index(rng, n1, ckind)
        ref = GAt[grows, gcols].new()
        shape = ref.shape
        mask_kind = str(rng.choice(MASKS))
        accum = ACCUMS[rng.integers(len(ACCUMS))]
        replace = mask_kind != "none" and bool(rng.random() < 0.5)
        ctype = atype if accum else str(rng.choice(TEST_TYPES))
        C, GC = random_matrix_pair(rng, *shape, 0.4, ctype)
        M, GM = random_matrix_pair(rng, *shape, 0.5, "INT64")
        mask, fields, gmask = masks(M, GM)[mask_kind]
        desc = gg.Descriptor(replace=replace, transpose_first=transpose, **fields)
        before = snapshot(A)
        out = gg.extract(C, A, rows, cols, mask=mask, accum=accum, desc=desc)
        GC(mask=gmask, accum=gb_accum(accum), replace=replace) << GAt[grows, gcols]
        assert out is C
        assert_matches(C, GC)
        assert snapshot(A) == before


@pytest.mark.parametrize("seed", range(40))
def test_row_col_and_vector_extract_match_python_graphblas(seed):
    rng = np.random.default_rng(1000 + seed)
    form = ("row", "col", "vector")[seed % 3]
    atype = str(rng.choice(TEST_TYPES))
    nrows, ncols = (int(x) for x in rng.integers(1, 10, 2))
    transpose = form != "vector" and bool(rng.random() < 0.4)
    if form == "vector":
        A, GA = random_vector_pair(rng, nrows * 3, 0.4, atype)
        if rng.random() < 0.5:
            A.set_format("dense")
    else:
        A, GA = random_matrix_pair(rng, nrows, ncols, 0.5, atype)
    GAt = GA.T if transpose else GA
    shape = GAt.shape
    for _ in range(5):
        if form == "vector":
            idx, gidx = rand_index(rng, shape[0], str(rng.choice(INDEX_KINDS)))
            args, gkey = (idx,), gidx
        elif form == "row":
            i = int(rng.integers(shape[0]))
            cols, gcols = rand_index(rng, shape[1], str(rng.choice(INDEX_KINDS)))
            args, gkey = (i, cols), (i, gcols)
        else:
            j = int(rng.integers(shape[1]))
            rows, grows = rand_index(rng, shape[0], str(rng.choice(INDEX_KINDS)))
            args, gkey = (rows, j), (grows, j)
        size = GAt[gkey].new().size
        mask_kind = str(rng.choice(MASKS))
        accum = ACCUMS[rng.integers(len(ACCUMS))]
        replace = mask_kind != "none" and bool(rng.random() < 0.5)
        w, gw = random_vector_pair(rng, size, 0.4, atype if accum else str(rng.choice(TEST_TYPES)))
        m, gm = random_vector_pair(rng, size, 0.5, "INT32")
        if rng.random() < 0.3:
            w.set_format("dense")
        mask, fields, gmask = masks(m, gm)[mask_kind]
        desc = gg.Descriptor(replace=replace, transpose_first=transpose, **fields)
        gg.extract(w, A, *args, mask=mask, accum=accum, desc=desc)
        gw(mask=gmask, accum=gb_accum(accum), replace=replace) << GAt[gkey]
        assert_matches(w, gw)


def test_methods_and_getitem_return_new_objects(rng):
    A, GA = random_matrix_pair(rng, 7, 5, 0.5, "FP64")
    u, gu = random_vector_pair(rng, 9, 0.5, "INT32")
    I, J = np.array([6, 0, 0, 3]), np.array([4, 1])
    assert_matches(A.extract(I, J), GA[I, J].new())
    assert_matches(A[I, J], GA[I, J].new())
    assert_matches(A[2, :], GA[2, :].new())
    assert_matches(A[::2, 3], GA[::2, 3].new())
    assert_matches(A[[1, 2], ::-1], GA[[1, 2], ::-1].new())
    assert_matches(A.extract(gg.ALL, 1, dtype="INT64"), GA[:, 1].new(dtype="INT64"))
    assert_matches(u[[8, 1, 1]], gu[[8, 1, 1]].new())
    assert_matches(u[2:7], gu[2:7].new())
    assert_matches(u.extract(np.array([3, 4])), gu[[3, 4]].new())
    M, GM = random_matrix_pair(rng, 4, 2, 0.5, "BOOL")
    assert_matches(A.extract(I, J, mask=M.S), GA[I, J].new(mask=GM.S))
    B = A[:, :]
    assert B is not A and B.isequal(A)


def test_element_access_isunchanged(rng):
    A = gg.Matrix.from_coo([0, 2], [1, 0], [5.0, 6.0], nrows=3, ncols=2)
    assert A[0, 1] == 5.0 and A[2, 0] == 6.0 and A[1, 1] is None
    assert A[np.int64(2), np.int32(0)] == 6.0
    for key in [(3, 0), (0, 2), (-1, 0)]:
        with pytest.raises(gg.IndexOutOfBounds):
            A[key]
    with pytest.raises(gg.InvalidValue):
        A[1]
    v = gg.Vector.from_coo([1], [7], size=3)
    assert v[1] == 7 and v[0] is None
    with pytest.raises(gg.IndexOutOfBounds):
        v[3]


def test_transposed_extract_reads_csc(rng):
    A, GA = random_matrix_pair(rng, 6, 8, 0.4, "INT64")
    C = gg.Matrix(gg.INT64, 3, 4)
    gg.extract(C, A, [7, 0, 2], slice(5, 1, -1), desc=gg.Descriptor(transpose_first=True))
    assert_matches(C, GA.T[[7, 0, 2], [5, 4, 3, 2]].new())
    assert A.has_csc  # the transpose came from the cached CSC, not a copy of A


def test_transposed_view_and_descriptor_cancel(rng):
    A, GA = random_matrix_pair(rng, 5, 7, 0.5, "FP32")
    tran = gg.Descriptor(transpose_first=True)
    I, J = [6, 1, 1], slice(None, None, -2)
    assert_matches(gg.extract(gg.Matrix(gg.FP32, 3, 3), A.T, I, J), GA.T[I, J].new())
    assert_matches(gg.extract(gg.Matrix(gg.FP32, 3, 4), A.T, [4, 0, 0], J, desc=tran),
                   GA[[4, 0, 0], J].new())
    assert_matches(gg.extract(gg.Vector(gg.FP32, 3), A.T, 2, J), GA.T[2, J].new())
    assert_matches(gg.extract(gg.Vector(gg.FP32, 3), A.T, I, 4), GA.T[I, 4].new())
    with pytest.raises(gg.DimensionMismatch):
        gg.extract(gg.Matrix(gg.FP32, 3, 4), A.T, I, J)


def test_iso_matrix_stays_iso(rng):
    A = gg.Matrix.from_coo([0, 1, 2], [2, 0, 1], 3.5, nrows=3, ncols=3)
    T = A[[2, 2, 0], :]
    assert T._is_iso and T._iso == 3.5
    np.testing.assert_array_equal(T.to_coo()[1], [1, 1, 2])


# ------------------------------------------------------------------ against a dense mimic
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_extract_matches_dense_mimic(data):
    nrows = data.draw(st.integers(0, 7))
    ncols = data.draw(st.integers(0, 7))
    seed = data.draw(st.integers(0, 2**32 - 1))
    A, _ = random_matrix_pair(np.random.default_rng(seed), nrows, ncols, 0.5, "INT32")
    I = data.draw(st.lists(st.integers(0, nrows - 1), max_size=10)) if nrows else []
    J = data.draw(st.lists(st.integers(0, ncols - 1), max_size=10)) if ncols else []
    dense = A.to_dense()
    present = np.zeros((nrows, ncols), bool)
    r, c, _ = A.to_coo()
    present[r, c] = True
    T = A.extract(I, J)
    got_present = np.zeros((len(I), len(J)), bool)
    tr, tc, tv = T.to_coo()
    got_present[tr, tc] = True
    np.testing.assert_array_equal(got_present, present[np.ix_(I, J)])
    np.testing.assert_array_equal(tv, dense[np.ix_(I, J)][got_present])


# ------------------------------------------------------------------ errors change nothing
def test_errors_change_nothing(rng):
    A, _ = random_matrix_pair(rng, 5, 6, 0.5, "FP64")
    C, _ = random_matrix_pair(rng, 2, 3, 0.5, "FP64")
    M, _ = random_matrix_pair(rng, 2, 3, 0.5, "BOOL")
    w, _ = random_vector_pair(rng, 3, 0.5, "FP64")
    u, _ = random_vector_pair(rng, 8, 0.5, "FP64")
    objs = (A, C, M, w, u)
    cases = [
        (lambda: gg.extract(C, A, [0, 5], [0, 1, 2]), gg.IndexOutOfBounds),
        (lambda: gg.extract(C, A, [0, 1], [0, 1, 6]), gg.IndexOutOfBounds),
        (lambda: gg.extract(C, A, [0, -1], [0, 1, 2]), gg.IndexOutOfBounds),
        (lambda: gg.extract(w, A, 5, [0, 1, 2]), gg.IndexOutOfBounds),
        (lambda: gg.extract(w, A, [0, 1, 2], 6), gg.IndexOutOfBounds),
        (lambda: gg.extract(w, u, [0, 8, 1]), gg.IndexOutOfBounds),
        (lambda: gg.extract(C, A, [0, 1, 2], [0, 1, 2]), gg.DimensionMismatch),
        (lambda: gg.extract(C, A, [0, 1], [0, 1]), gg.DimensionMismatch),
        (lambda: gg.extract(w, A, 0, [0, 1]), gg.DimensionMismatch),
        (lambda: gg.extract(w, u, [0, 1]), gg.DimensionMismatch),
        (lambda: gg.extract(C, A, [0, 1], [0, 1, 5], desc=gg.Descriptor(transpose_first=True)),
         gg.IndexOutOfBounds),
        (lambda: gg.extract(C, A, [0, 1], [0, 1, 2], mask=M, accum="no_such_op"),
         gg.GraphBLASError),
        (lambda: gg.extract(C, A, [0, 1], [0, 1, 2], mask=w), gg.DimensionMismatch),
        (lambda: gg.extract(C, A, [0, 1], [0, 1, 2], mask=A), gg.DimensionMismatch),
        (lambda: gg.extract(C, A, [0.0, 1.0], [0, 1, 2]), gg.InvalidValue),
        (lambda: gg.extract(C, A, [0, 1], "abc"), gg.InvalidValue),
        (lambda: gg.extract(w, A, [0, 1], [0, 1, 2]), gg.InvalidValue),
        (lambda: gg.extract(C, A, 0, 1), gg.InvalidValue),
        (lambda: gg.extract(C, A, [0, 1]), gg.InvalidValue),
        (lambda: gg.extract(w, u, [0, 1, 2], [0]), gg.InvalidValue),
        (lambda: gg.extract(C, A, slice(0, 2, 0), [0, 1, 2]), gg.InvalidValue),
        (lambda: A[[0, 9], :], gg.IndexOutOfBounds),
        (lambda: u[[8]], gg.IndexOutOfBounds),
    ]
    for fn, exc in cases:
        unchanged(objs, fn, exc)


def test_aliasing_output_is_input_and_mask(rng):
    import graphblas as gb

    A, GA = random_matrix_pair(rng, 6, 6, 0.5, "INT64")
    perm = rng.permutation(6)
    gg.extract(A, A, perm, perm[::-1], mask=A.S, accum="plus")
    GA(mask=GA.S, accum=gb.binary.plus) << GA[perm, perm[::-1]]
    assert_matches(A, GA)
    u, gu = random_vector_pair(rng, 10, 0.5, "FP64")
    gg.extract(u, u, slice(None, None, -1), mask=~u.S, desc=gg.Descriptor(replace=True))
    gu(mask=~gu.S, replace=True) << gu[::-1]
    assert_matches(u, gu)


# ------------------------------------------------------------------ index parsing
def test_parse_index_forms():
    xp = gg.backend.xp
    assert parse_index(None, 5, "i").is_all and parse_index(gg.ALL, 5, "i").is_all
    assert parse_index(slice(0, 5), 5, "i").is_all
    s = parse_index(slice(None, None, -2), 5, "i")
    np.testing.assert_array_equal(gg.backend.to_host(s.idx), [4, 2, 0])
    assert s.unique and not s.monotone
    one = parse_index(np.int32(3), 5, "i")
    assert one.scalar and one.size == 1
    arr = parse_index(xp.asarray([3, 3, 1]), 5, "i")
    assert arr.size == 3 and not arr.monotone and not arr.scalar
    assert parse_index([], 5, "i").size == 0
    assert parse_index(range(1, 4), 5, "i").size == 3
    for bad in (1.5, True, "0", [[0, 1]]):
        with pytest.raises(gg.InvalidValue):
            parse_index(bad, 5, "i")
    with pytest.raises(gg.IndexOutOfBounds):
        parse_index(np.array([0, 2**64 - 1], dtype=np.uint64), 5, "i")
