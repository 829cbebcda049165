"""The unmasked product over a full u (one CSR SpMV: scipy's csr_matvec for plus.times /
plus.first / plus.second, one reduceat for other ufunc monoids) gives python-graphblas's
result: integers exactly (wrapping as SuiteSparse does), floats within rounding; empty rows
anywhere (leading, inside, trailing) hold no entry; iso, full and empty matrices; A and Aᵀ."""
import numpy as np
import pytest

import grblas_gpu as gg

gb = pytest.importorskip("graphblas")

SEMIRINGS = ["plus_times", "plus_first", "plus_second", "plus_pair", "plus_min", "min_plus",
             "max_times", "times_plus"]
TYPES = ["INT8", "UINT16", "INT64", "FP32", "FP64", "BOOL"]


def _matrix(rng, m, n, dtype, kind):
    if kind == "full":
        r, c = np.divmod(np.arange(m * n), n)
    elif kind == "empty":
        r = c = np.zeros(0, dtype=np.int64)
    else:
        k = 3 * (m + n)
        r, c = rng.integers(0, m, k), rng.integers(0, n, k)
        # empty rows: the first, one inside, the last two (and as many columns)
        keep = ~np.isin(r, [0, m // 2, m - 2, m - 1]) & ~np.isin(c, [0, n // 2, n - 1])
        r, c = r[keep], c[keep]
    if kind == "iso":
        vals = 3
    else:
        vals = rng.integers(-100, 100, len(r)) if dtype != "BOOL" else rng.random(len(r)) < .5
        if dtype.startswith("U"):
            vals = np.abs(vals)
    A = gg.Matrix.from_coo(r, c, vals, nrows=m, ncols=n, dtype=dtype, dup_op="first")
    return A, A.to_graphblas()


@pytest.mark.parametrize("kind", ["sparse", "iso", "full", "empty"])
@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("semiring", SEMIRINGS)
def test_full_u_product_matches_suitesparse(semiring, dtype, kind):
    rng = np.random.default_rng(abs(hash((semiring, dtype, kind))) % 2**32)
    m, n = 23, 17
    A, G = _matrix(rng, m, n, dtype, kind)
    x = rng.integers(-9, 9, max(m, n))
    if dtype == "BOOL":
        x = x > 0
    elif dtype.startswith("U"):
        x = np.abs(x)
    try:
        sr = getattr(gb.semiring, semiring)[dtype]
    except (KeyError, AttributeError):
        pytest.skip("python-graphblas has no such typed semiring")
    for op, transpose in [("mxv", False), ("mxv", True), ("vxm", False), ("vxm", True)]:
        size = (m if transpose else n) if op == "mxv" else (n if transpose else m)
        u = gg.Vector.from_dense(x[:size].astype(gg.lookup_dtype(dtype).np_type))
        gu = u.to_graphblas()
        Ap, Gp = (A.T, G.T) if transpose else (A, G)
        if op == "mxv":
            ours, ref = gg.mxv(gg.Vector(dtype, Ap.shape[0]), Ap, u, semiring), Gp.mxv(gu, sr).new()
        else:
            ours, ref = gg.vxm(gg.Vector(dtype, Ap.shape[1]), u, Ap, semiring), gu.vxm(Gp, sr).new()
        if ref.dtype.name != dtype:  # (python-graphblas types BOOL plus_pair as INT64)
            continue
        o_idx, o_vals = ours.to_coo()
        r_idx, r_vals = ref.to_coo()
        np.testing.assert_array_equal(o_idx, r_idx, err_msg=f"{op} T={transpose}")
        if o_vals.dtype.kind == "f":
            np.testing.assert_allclose(o_vals, r_vals, rtol=1e-6)
        else:
            np.testing.assert_array_equal(o_vals, r_vals, err_msg=f"{op} T={transpose}")
        if kind != "empty":
            assert ours.nvals == len(r_idx)


def test_full_u_product_with_accum_and_a_changed_matrix():
    """The arrays kept with A's structure (ones, index casts) follow A when it changes."""
    A = gg.Matrix.from_coo([0, 1, 1], [1, 0, 2], 2.0, nrows=3, ncols=3)
    u = gg.Vector.from_dense(np.array([1.0, 2.0, 4.0]))
    w = gg.Vector.from_dense(np.array([10.0, 10.0, 10.0]))
    gg.mxv(w, A, u, "plus_second", accum="plus")
    np.testing.assert_array_equal(w.to_dense(), [12.0, 15.0, 10.0])
    assert gg.mxv(gg.Vector(gg.FP64, 3), A, u, "plus_times").to_dense().tolist() == [4, 10, 0]
    A[2, 2] = 1.0  # a new structure: nothing kept for the old one is read
    assert gg.mxv(gg.Vector(gg.FP64, 3), A, u, "plus_second").to_dense().tolist() == [2, 5, 4]
    assert gg.mxv(gg.Vector(gg.FP64, 3), A, u, "plus_times").to_dense().tolist() == [4, 10, 4]


@pytest.mark.parametrize("mask_kind", ["none", "S", "~S", "V"])
@pytest.mark.parametrize("dtype", ["INT8", "UINT16", "INT64", "FP32", "FP64"])
@pytest.mark.parametrize("semiring", ["plus_times", "plus_min", "plus_first", "plus_second",
                                      "min_plus", "times_plus", "plus_pair"])
@pytest.mark.parametrize("iso", [False, True])
def test_push_matches_suitesparse(semiring, dtype, mask_kind, iso):
    """The NumPy push (a sparse u: plus in scipy's C++ loops, other ufunc monoids by
    reduceat) over duplicated outputs, empty vectors and a mask."""
    rng = np.random.default_rng(abs(hash((semiring, dtype, mask_kind, iso))) % 2**32)
    m, n = 40, 31
    A, G = _matrix(rng, m, n, dtype, "iso" if iso else "sparse")
    np_t = gg.lookup_dtype(dtype).np_type
    sr = getattr(gb.semiring, semiring)[dtype]
    for op in ("mxv", "vxm"):
        size = n if op == "mxv" else m
        nout = m if op == "mxv" else n
        ui = np.sort(rng.choice(size, 6, replace=False))
        uv = np.abs(rng.integers(1, 90, 6)).astype(np_t)
        u = gg.Vector.from_coo(ui, uv, size=size, dtype=dtype)
        M = gg.Vector.from_coo(np.sort(rng.choice(nout, nout // 3, replace=False)),
                               rng.integers(0, 2, nout // 3), size=nout, dtype=dtype)
        gu, gM = u.to_graphblas(), M.to_graphblas()
        mask, gmask = {"none": (None, None), "S": (M.S, gM.S), "~S": (~M.S, ~gM.S),
                       "V": (M.V, gM.V)}[mask_kind]
        w = gg.Vector(dtype, nout)
        ref = gb.Vector(dtype, nout)
        if op == "mxv":
            gg.mxv(w, A, u, semiring, mask=mask, direction="push")
            ref(mask=gmask) << G.mxv(gu, sr)
        else:
            gg.vxm(w, u, A, semiring, mask=mask, direction="push")
            ref(mask=gmask) << gu.vxm(G, sr)
        o_idx, o_vals = w.to_coo()
        r_idx, r_vals = ref.to_coo()
        np.testing.assert_array_equal(o_idx, r_idx, err_msg=op)
        if o_vals.dtype.kind == "f":
            np.testing.assert_allclose(o_vals, r_vals, rtol=1e-6)
        else:
            np.testing.assert_array_equal(o_vals, r_vals, err_msg=op)
