"""Matrix.is_symmetric: A == Aᵀ (structure=True: the pattern only), against SciPy on random
matrices (symmetric, asymmetric, symmetric pattern with asymmetric values, iso, valued,
empty), rectangular refused, NaN and -0.0, the memo it is kept in and its invalidation."""
import numpy as np
import pytest
import scipy.sparse as sp

import grblas_gpu as gg

KEY = "grblas_gpu.Matrix.is_symmetric"


def reference(M, structure):
    M = sp.csr_matrix(M)
    P = M.copy()
    P.data[:] = 1
    same_pattern = (P != P.T).nnz == 0
    if structure or not same_pattern:
        return same_pattern
    return (M != M.T).nnz == 0


def random_case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    M = sp.random(n, n, density=float(rng.choice([0.01, 0.1, 0.4])), format="csr",
                  random_state=seed, data_rvs=lambda k: rng.integers(1, 4, k))
    kind = seed % 4
    if kind == 1:                                    # symmetric values and pattern
        M = M + M.T
    elif kind == 2:                                  # symmetric pattern, values differ
        M = M + 2 * M.T
    elif kind == 3:                                  # symmetric, then one entry dropped
        M = (M + M.T).tocoo()
        if M.nnz:
            k = int(rng.integers(M.nnz))
            keep = np.arange(M.nnz) != k
            M = sp.coo_matrix((M.data[keep], (M.row[keep], M.col[keep])), shape=M.shape)
    return sp.csr_matrix(M)


@pytest.mark.parametrize("seed", range(24))
def test_random_matrices_against_scipy(seed):
    M = random_case(seed)
    for iso in (False, True):
        A = gg.Matrix.from_scipy(M)
        if iso:
            rows, cols = M.nonzero()
            A = gg.Matrix.from_coo(rows, cols, 7, nrows=M.shape[0], ncols=M.shape[1])
        for structure in (True, False):
            expected = reference(M if not iso else (M != 0).astype(np.int8), structure)
            assert A.is_symmetric(structure=structure) is expected, (seed, iso, structure)
    assert A.is_symmetric() is reference((M != 0).astype(np.int8), False)


def test_the_pattern_ignores_values_and_dtypes():
    rows, cols = [0, 1, 1, 2], [1, 0, 2, 1]
    for dtype in (gg.BOOL, gg.INT8, gg.UINT64, gg.FP32, gg.FP64):
        A = gg.Matrix.from_coo(rows, cols, [1, 0, 1, 1], nrows=3, ncols=3, dtype=dtype)
        assert A.is_symmetric(structure=True)
        assert not A.is_symmetric()                  # A(0, 1) = 1, A(1, 0) = 0
    A = gg.Matrix.from_coo([0, 1], [1, 0], [-3.5, -3.5], nrows=5, ncols=5)
    assert A.is_symmetric() and A.is_symmetric(structure=True)
    A = gg.Matrix.from_coo([0, 1, 2], [1, 2, 2], True, nrows=3, ncols=3)   # iso, directed
    assert not A.is_symmetric(structure=True) and not A.is_symmetric()


def test_values_are_compared_as_isequal_compares_them():
    nan = float("nan")
    A = gg.Matrix.from_coo([0, 1, 2], [1, 0, 2], [nan, nan, 1.0], nrows=3, ncols=3)
    T = gg.transpose(gg.Matrix(gg.FP64, 3, 3), A)
    assert A.is_symmetric() is T.isequal(A) is True
    A = gg.Matrix.from_coo([0, 1], [1, 0], [0.0, -0.0], nrows=2, ncols=2)
    assert A.is_symmetric()


def test_empty_diagonal_and_rectangular():
    assert gg.Matrix(gg.FP64, 0, 0).is_symmetric()
    assert gg.Matrix(gg.INT32, 5, 5).is_symmetric(structure=True)
    assert gg.Matrix.from_coo([0, 3], [0, 3], [1, 2], nrows=4, ncols=4).is_symmetric()
    assert gg.Matrix.from_coo([3], [0], 1, nrows=4, ncols=4).is_symmetric(structure=True) is False
    for shape in ((3, 4), (4, 3), (0, 1)):
        with pytest.raises(gg.DimensionMismatch, match="square"):
            gg.Matrix(gg.INT32, *shape).is_symmetric(structure=True)
    for bad in ("yes", None, 2, np.array([True])):
        with pytest.raises(gg.InvalidValue, match="structure"):
            gg.Matrix(gg.INT32, 2, 2).is_symmetric(structure=bad)


def test_kept_with_the_matrix_and_dropped_when_it_changes(monkeypatch):
    made = []
    real = gg.Matrix._symmetric
    monkeypatch.setattr(gg.Matrix, "_symmetric",
                        lambda self, structure: made.append(structure) or real(self, structure))
    A = gg.Matrix.from_coo([0, 1], [1, 0], [1, 2], nrows=3, ncols=3)
    assert A.is_symmetric(structure=True) and A.is_symmetric(structure=True)
    assert not A.is_symmetric() and not A.is_symmetric()
    assert made == [True, False]
    assert A._cache[(KEY, True)] is True and A._cache[(KEY, False)] is False
    assert not A.has_csc                             # the check builds no CSC form
    A[1, 2] = 5                                      # a one-way edge
    assert not A.is_symmetric(structure=True)
    A[2, 1] = 5
    A[1, 0] = 1
    assert A.is_symmetric(structure=True) and A.is_symmetric()
    gg.apply(A, A, "ainv")                           # an operation writing into A
    assert A.is_symmetric()
    del A[0, 1]
    assert not A.is_symmetric(structure=True)
    assert made == [True, False, True, True, False, False, True]


def test_an_iso_matrix_answers_both_questions_from_one_check(monkeypatch):
    """Iso values mirror wherever the pattern does: one check serves structure=True and
    False (PageRank asks the second after BFS asked the first)."""
    made = []
    real = gg.Matrix._symmetric
    monkeypatch.setattr(gg.Matrix, "_symmetric",
                        lambda self, structure: made.append(structure) or real(self, structure))
    A = gg.Matrix.from_coo([0, 1, 2], [1, 0, 2], 1.0, nrows=3, ncols=3)
    assert A.is_symmetric(structure=True) and A.is_symmetric()
    B = gg.Matrix.from_coo([0, 1], [1, 1], 1.0, nrows=3, ncols=3)
    assert not B.is_symmetric() and not B.is_symmetric(structure=True)
    assert made == [True, True]
    assert (KEY, False) not in A._cache


def test_a_matrix_with_its_csc_form_and_wide_index_types():
    M = sp.random(40, 40, density=0.2, format="csr", random_state=3)
    M = sp.csr_matrix(M + M.T)
    A = gg.Matrix.from_scipy(M)
    A.to_csc()                                       # cached forms change nothing
    assert A.is_symmetric()
    big = 70_000                                     # int32 indices; i·n + j needs 64 bits
    B = gg.Matrix.from_coo([big - 1, 5], [0, 7], 1, nrows=big, ncols=big)
    assert B.index_dtype == np.int32
    assert not B.is_symmetric(structure=True)
    B[0, big - 1] = 1
    B[7, 5] = 1
    assert B.is_symmetric(structure=True)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("ptr_t, idx_t", [(np.int32, np.int32), (np.int64, np.int32),
                                          (np.int64, np.int64), (np.int32, np.int64)])
def test_mirror_positions_every_index_type(seed, ptr_t, idx_t):
    from grblas_gpu import backend
    M = random_case(seed)
    M.sort_indices()
    n = M.shape[0]
    rows = np.repeat(np.arange(n), np.diff(M.indptr))
    where = {(int(i), int(j)): p for p, (i, j) in enumerate(zip(rows, M.indices))}
    want = np.array([where.get((int(j), int(i)), -1) for i, j in zip(rows, M.indices)],
                    dtype=np.int64)
    dev = backend.to_device(M.indptr.astype(ptr_t), M.indices.astype(idx_t),
                            rows.astype(idx_t))
    every, pos = backend.mirror_positions(*dev)
    assert every == bool((want >= 0).all())
    np.testing.assert_array_equal(backend.to_host(pos), want)
    every_only, none = backend.mirror_positions(*dev, positions=False)
    assert every_only == every and none is None
