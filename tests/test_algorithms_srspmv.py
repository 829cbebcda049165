"""algorithms.srspmv against dense NumPy formulas for nvGRAPH's four semirings (and another
catalog semiring), alpha / beta per semiring, y in place, empty rows, bad input."""
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu.algorithms import srspmv
from grblas_gpu import backend


def host(a):
    return backend.to_host(a)


def dense_reference(D, present, x, add, mul, ident):
    """y(i) = ⊕_j D(i, j) ⊗ x(j) over the stored entries (ident where a row is empty)."""
    out = np.full(D.shape[0], ident, dtype=np.float64)
    for i in range(D.shape[0]):
        terms = [mul(D[i, j], x[j]) for j in np.nonzero(present[i])[0]]
        for t in terms:
            out[i] = add(out[i], t)
    return out


SEMIRINGS = {
    "NVGRAPH_PLUS_TIMES_SR": (np.add, np.multiply, 0.0, 1.0),
    "NVGRAPH_MIN_PLUS_SR": (np.minimum, np.add, np.inf, 0.0),
    "NVGRAPH_MAX_MIN_SR": (np.maximum, np.minimum, -np.inf, np.inf),
}


@pytest.fixture
def problem():
    rng = np.random.default_rng(5)
    n = 40
    present = rng.random((n, n)) < 0.1
    present[7] = False                                # an empty row
    D = np.where(present, rng.uniform(-3, 3, (n, n)).round(2), 0)
    r, c = np.nonzero(present)
    A = gg.Matrix.from_coo(r, c, D[r, c], nrows=n, ncols=n, dtype=gg.FP64)
    x = rng.uniform(-2, 2, n).round(2)
    y = rng.uniform(-2, 2, n).round(2)
    return A, D, present, x, y


@pytest.mark.parametrize("name", sorted(SEMIRINGS))
def test_nvgraph_semirings(problem, name):
    A, D, present, x, y = problem
    add, mul, zero, one = SEMIRINGS[name]
    Ax = dense_reference(D, present, x, add, mul, zero)
    # defaults: alpha = 1⊗, y not read
    got = srspmv(A, x, name)
    assert got.nvals == A.nrows
    np.testing.assert_allclose(host(got.to_dense()), Ax)
    # the C API's literal alpha and beta, ⊗-applied
    for alpha, beta in ((2.0, 0.5), (1.0, 0.0), (-1.0, 3.0)):
        ref = add(mul(alpha, Ax), mul(beta, y))
        if name == "NVGRAPH_PLUS_TIMES_SR" and beta == 0.0:
            ref = mul(alpha, Ax)
        got = srspmv(A, x, name, alpha=alpha, beta=beta, y=y)
        np.testing.assert_allclose(host(got.to_dense()), ref, err_msg=f"{alpha}, {beta}")
    # beta = 0⊕ means y is not read (the guide: "if beta is zero")
    bad_y = np.full(A.nrows, np.nan)
    got = srspmv(A, x, name, alpha=one, beta=zero, y=bad_y)
    np.testing.assert_allclose(host(got.to_dense()), Ax)


def test_y_vector_is_updated_in_place(problem):
    A, D, present, x, y = problem
    yv = gg.Vector.from_dense(y.copy())
    out = srspmv(A, gg.Vector.from_dense(x), semirings.plus_times, alpha=3.0, beta=-1.0, y=yv)
    assert out is yv
    np.testing.assert_allclose(host(yv.to_dense()), 3.0 * (D @ x) - y)


def test_or_and_on_floats():
    A = gg.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1.0, 1.0, 0.0, 2.0], nrows=4, ncols=4)
    x = np.array([0.0, 1.0, 0.0, 1.0])
    got = host(srspmv(A, x, "NVGRAPH_OR_AND_SR", alpha=1.0, beta=0.0,
                      y=np.zeros(4)).to_dense())
    # row 0 reaches x(1) = 1; row 1's only edge has value 0 (false); row 2 reaches x(0) = 0
    assert got.tolist() == [1.0, 0.0, 0.0, 0.0]
    y = np.array([0.0, 0.0, 5.0, 1.0])
    got = host(srspmv(A, x, "NVGRAPH_OR_AND_SR", alpha=1.0, beta=1.0, y=y).to_dense())
    assert got.tolist() == [1.0, 0.0, 1.0, 1.0]


def test_other_catalog_semiring(problem):
    A, D, present, x, y = problem
    got = srspmv(A, x, semirings.max_plus, alpha=1.0, beta=2.0, y=y)
    ref = np.maximum(1.0 + dense_reference(D, present, x, np.maximum, np.add, -np.inf), 2.0 + y)
    np.testing.assert_allclose(host(got.to_dense()), ref)


def test_rectangular_and_fp32():
    A = gg.Matrix.from_coo([0, 1, 1], [0, 2, 4], [1.0, 2.0, 3.0], nrows=2, ncols=5,
                           dtype=gg.FP32)
    got = srspmv(A, np.arange(5, dtype=np.float32), "NVGRAPH_PLUS_TIMES_SR")
    assert got.dtype == gg.FP32 and host(got.to_dense()).tolist() == [0.0, 16.0]


def test_bad_input(problem):
    A, D, present, x, y = problem
    with pytest.raises(gg.DimensionMismatch):
        srspmv(A, x[:-1], "NVGRAPH_PLUS_TIMES_SR")
    with pytest.raises(gg.DimensionMismatch):
        srspmv(A, x, "NVGRAPH_PLUS_TIMES_SR", beta=1.0, y=y[:3])
    with pytest.raises(gg.GraphBLASError):
        srspmv(A, x, "NVGRAPH_NO_SUCH_SR")
    with pytest.raises(gg.InvalidValue):
        srspmv(D, x, "NVGRAPH_PLUS_TIMES_SR")


@pytest.mark.parametrize("kwargs", [{"semiring": None}, {"semiring": 3}, {"semiring": [1]},
                                    {"semiring": "no_such_semiring"}, {"alpha": [1, 2]},
                                    {"beta": np.zeros((2, 2))}, {"alpha": "x"},
                                    {"x": ["a"] * 4}])
def test_wrong_typed_arguments_raise_graphblas_errors(kwargs):
    A = gg.Matrix.from_coo([0, 1, 2], [1, 2, 3], [1.0, 2.0, 3.0], nrows=4, ncols=4)
    args = {"x": np.ones(4), "semiring": "plus_times", "alpha": None, "beta": None, **kwargs}
    y = gg.Vector.from_dense(np.arange(4.0))
    with pytest.raises(gg.GraphBLASError):
        srspmv(A, args["x"], args["semiring"], args["alpha"], args["beta"], y)
    np.testing.assert_array_equal(backend.to_host(y.to_dense()), np.arange(4.0))
