"""The NumPy products' shortcuts give python-graphblas's results. The unmasked product over a
full u (one CSR SpMV: scipy's csr_matvec for plus.times / plus.first / plus.second, one
reduceat for other ufunc monoids): integers exactly (wrapping as SuiteSparse does), floats
within rounding; empty rows anywhere hold no entry; iso, full and empty matrices; A and Aᵀ.
The push (scipy's row copies and duplicate sums, ANY's first term, a radix-sorted fold) and
the operands kept with a matrix, which must follow it when it changes."""
import zlib

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
    rng = np.random.default_rng(zlib.crc32(repr((semiring, dtype, kind)).encode()))
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
    rng = np.random.default_rng(zlib.crc32(repr((semiring, dtype, mask_kind, iso)).encode()))
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


@pytest.mark.parametrize("n", [300, 3000, 70000])
@pytest.mark.parametrize("mask_kind", ["none", "~S", "V"])
@pytest.mark.parametrize("semiring", ["any_secondi", "any_firsti", "any_secondj1", "min_secondi",
                                      "plus_times", "any_first"])
def test_push_equals_pull_over_many_terms(n, mask_kind, semiring):
    """The push's terms past the radix sort's threshold (and outputs past 16 bits): ANY's
    first term in stable order is the pull's first (the smallest k) in both directions (on
    the GPU, any one of the terms)."""
    rng = np.random.default_rng(n)
    k = 12 * n // 10
    A = gg.Matrix.from_coo(rng.integers(0, n, k), rng.integers(0, n, k),
                           rng.integers(1, 5, k).astype(float), nrows=n, ncols=n,
                           dup_op="first")
    ui = np.sort(rng.choice(n, max(n // 10, 1), replace=False))
    u = gg.Vector.from_coo(ui, rng.integers(1, 5, len(ui)).astype(float), size=n)
    P = gg.Vector.from_coo(np.sort(rng.choice(n, n // 4, replace=False)), 1.0, size=n)
    mask = {"none": None, "~S": ~P.S, "V": P.V}[mask_kind]
    sr = getattr(__import__("grblas_gpu.semirings", fromlist=["_"]), semiring)
    out = "INT64" if semiring[-1] in "i1" else "FP64"
    for op in ("mxv", "vxm"):
        got = []
        for direction in ("push", "pull"):
            w = gg.Vector(out, n)
            if op == "mxv":
                gg.mxv(w, A, u, sr, mask=mask, direction=direction)
            else:
                gg.vxm(w, u, A, sr, mask=mask, direction=direction)
            got.append(w.to_coo())
        np.testing.assert_array_equal(got[0][0], got[1][0])
        if gg.backend.is_gpu and semiring in ("any_first", "any_secondi"):
            # on the GPU ANY takes whichever term lands first: each value must be one of them
            for idx, vals in got:
                assert _any_terms(op, A, u, semiring) >= set(zip(idx.tolist(), vals.tolist()))
        else:
            np.testing.assert_allclose(got[0][1], got[1][1])


def _any_terms(op, A, u, semiring):
    """Every (output index, term value) pair that ANY may choose for A·u or u·A."""
    r, c, a = A.to_coo()
    ui, uv = u.to_coo()
    uval = dict(zip(ui.tolist(), uv.tolist()))
    out, k = (r, c) if op == "mxv" else (c, r)
    keep = np.isin(k, ui)
    out, k, a = out[keep], k[keep], a[keep]
    if semiring == "any_secondi":
        vals = k.tolist()
    elif op == "mxv":
        vals = a.tolist()
    else:
        vals = [uval[x] for x in k.tolist()]
    return set(zip(out.tolist(), vals))


def _bfs_step(w, q, A, p):
    return gg.vxm(w, q, A, "any_secondi", mask=~p.S, desc=gg.Descriptor(replace=True))


def test_kept_operands_follow_the_matrix():
    """What a product keeps with A (its operand records, vector ids, ones) is dropped when A
    changes: values, structure, size, or a new type through a new content."""
    A = gg.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1.0, 2.0, 3.0, 4.0], nrows=3, ncols=3)
    q = gg.Vector.from_coo([0, 1], [1.0, 1.0], size=3)
    p = gg.Vector.from_coo([0], [1.0], size=3)
    w = gg.Vector(gg.INT64, 3)
    assert _bfs_step(w, q, A, p).to_coo()[0].tolist() == [1, 2]
    assert gg.vxm(gg.Vector(gg.FP64, 3), q, A).to_coo()[1].tolist() == [1.0, 5.0]
    A[0, 2] = 10.0  # a value
    assert gg.vxm(gg.Vector(gg.FP64, 3), q, A).to_coo()[1].tolist() == [1.0, 13.0]
    A[1, 0] = 7.0  # the structure
    assert gg.vxm(gg.Vector(gg.FP64, 3), q, A).to_coo()[1].tolist() == [7.0, 1.0, 13.0]
    assert _bfs_step(w, q, A, p).to_coo()[0].tolist() == [1, 2]
    gg.vxm(w, q, A, "any_secondi", desc=gg.Descriptor(replace=True))
    assert w.to_coo()[1].tolist() == [1, 0, 0]
    A.resize(4, 4)
    A[3, 3] = 1.0
    q4 = gg.Vector.from_coo([0, 3], [1.0, 2.0], size=4)
    assert gg.vxm(gg.Vector(gg.FP64, 4), q4, A).to_coo()[1].tolist() == [1.0, 10.0, 2.0]
    B = gg.Matrix.from_coo([0, 1], [1, 0], 3, nrows=4, ncols=4, dtype=gg.INT8)  # iso INT8
    A._swap_in(B)
    assert gg.vxm(gg.Vector(gg.INT8, 4), q4.dup(gg.INT8), A).to_coo()[1].tolist() == [3]


def test_bad_input_after_a_kept_call_still_raises():
    """A call that fits what a previous call kept still checks its arguments first, and
    leaves the output unchanged."""
    A = gg.Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=3, ncols=3)
    q = gg.Vector.from_coo([0], [1.0], size=3)
    p = gg.Vector.from_coo([0], [1.0], size=3)
    w = gg.Vector(gg.INT64, 3)
    _bfs_step(w, q, A, p)
    before = w.to_coo()
    with pytest.raises(gg.DimensionMismatch):
        _bfs_step(w, gg.Vector.from_coo([0], [1.0], size=4), A, p)
    with pytest.raises(gg.DimensionMismatch):
        _bfs_step(w, q, A, gg.Vector.from_coo([0], [1.0], size=4))
    with pytest.raises(gg.DimensionMismatch):
        _bfs_step(gg.Vector(gg.INT64, 4), q, A, p)
    with pytest.raises(gg.InvalidValue):
        gg.vxm(w, q, A, "no_such_semiring")
    for got, want in zip(w.to_coo(), before):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(gg.DimensionMismatch):
        gg.mxv(gg.Vector(gg.FP64, 3), A, gg.Vector.from_dense(np.ones(4)), "plus_times")
