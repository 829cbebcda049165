"""Matrix.diag(v, k) / v.diag(k) and Vector.diag(A, k) / A.diag(k) against python-graphblas."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import grblas_gpu as gg
from grblas_gpu import InvalidValue
from opcheck import TYPES, assert_matches, pair


def test_hand_checked():
    v = gg.Vector.from_coo([0, 2], [1, 2], size=3)
    D = gg.Matrix.diag(v, 2)
    assert D.shape == (5, 5) and [a.tolist() for a in D.to_coo()] == [[0, 2], [2, 4], [1, 2]]
    assert v.diag(-1).isequal(gg.Matrix.diag(v, -1))
    assert [a.tolist() for a in v.diag(-1).to_coo()] == [[1, 3], [0, 2], [1, 2]]
    A = gg.Matrix.from_coo([0, 1, 2, 2, 0], [1, 0, 2, 0, 3], [1, -2, 3, 4, 5], nrows=3, ncols=4)
    assert A.diag().size == 3 and A.diag().to_coo()[1].tolist() == [3]
    assert gg.Vector.diag(A, 1).isequal(A.diag(1))
    assert A.diag(3).size == 1 and A.diag(3).to_coo()[1].tolist() == [5]
    assert A.diag(-1).size == 2 and A.diag(-1).to_coo()[1].tolist() == [-2]
    assert A.diag(4).size == 0 and A.diag(-3).size == 0 and A.diag(9).size == 0
    assert A.T.diag(-1).isequal(A.diag(1))
    iso = gg.Vector.from_coo([1, 3], 7, size=4)
    assert iso.diag(1)._is_iso and iso.diag(1).diag(1).isequal(iso)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_matches_python_graphblas(seed):
    rng = np.random.default_rng(seed)
    dtype = str(rng.choice(TYPES))
    v, gv = pair(rng, (int(rng.integers(0, 8)),), dtype)
    k = int(rng.integers(-4, 5))
    assert_matches(v.diag(k), gv.diag(k))
    assert_matches(gg.Matrix.diag(v, k), gv.diag(k))
    A, GA = pair(rng, (int(rng.integers(0, 7)), int(rng.integers(0, 7))), dtype)
    k = int(rng.integers(-A.nrows, A.ncols + 1))  # python-graphblas wants k inside the matrix
    assert_matches(A.diag(k), GA.diag(k))
    assert_matches(gg.Vector.diag(A, k), GA.diag(k))
    assert_matches(A.T.diag(-k), GA.diag(k))


def test_bad_input():
    A = gg.Matrix("INT32", 3, 3)
    v = gg.Vector("INT32", 3)
    with pytest.raises(InvalidValue):
        gg.Matrix.diag(A)
    with pytest.raises(InvalidValue):
        gg.Vector.diag(v)
    with pytest.raises(InvalidValue):
        A.diag("x")
    with pytest.raises(InvalidValue):
        v.diag(1.5j)


def test_a_diagonal_too_long_for_row_offsets_is_refused_before_allocating():
    # D would need over 2**40 row offsets: refused (NotSupported), v left as it was
    v = gg.Vector.from_coo([5, 2**33 + 5], [1.0, 2.0], size=2**40)
    before = [a.tolist() for a in v.to_coo()]
    for k in (0, 3, -3):
        with pytest.raises(gg.NotSupported):
            gg.Matrix.diag(v, k)
    assert [a.tolist() for a in v.to_coo()] == before and v.size == 2**40
