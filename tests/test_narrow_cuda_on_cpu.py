"""The narrow product's CUDA source (grblas_gpu.kernels.narrow) compiled with g++ and run on
the CPU through tests/cuda_on_cpu/simt.h, so the kernels' logic (the row ballot, the lanes'
passes and terminal votes, the per-column warp reductions, the three mask modes, the
count / scan / fill) is checked where CI has no GPU: against the NumPy path (itself checked
against SuiteSparse in test_mxm_narrow.py). Skipped without a g++ that has C++20's
<barrier>."""
import subprocess

import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu.kernels import narrow
from grblas_gpu.kernels.narrow import _narrow_numpy
from grblas_gpu.kernels.operands import Compressed
from conftest import simt_build

# the CPU run of the CUDA source compares with the NumPy path on host arrays; on the GPU the
# kernels themselves run in test_mxm_narrow
pytestmark = pytest.mark.skipif(gg.backend.is_gpu, reason="NumPy backend only (CUDA on CPU)")
# (semiring, type, k, index type, mode, long_row): the three modes on betweenness's
# semiring, and each kind of stop rule, multiply (positional included), k up to 32 and index
# width elsewhere; long_row 64 sends the hub rows (1100 and 550 entries) to narrow_long
CASES = [("plus_second", "FP64", 4, np.int64, 0, 64), ("plus_second", "FP64", 4, np.int64, 1, 64),
         ("plus_second", "FP64", 4, np.int64, 2, 64), ("plus_second", "FP64", 4, np.int64, 2, 2048),
         ("min_plus", "INT64", 3, np.int32, 2, 64), ("any_pair", "BOOL", 5, np.int64, 1, 64),
         ("any_pair", "BOOL", 5, np.int64, 2, 2048), ("lor_land", "BOOL", 9, np.int32, 0, 64),
         ("min_secondj", "INT64", 2, np.int64, 1, 64), ("plus_times", "FP32", 1, np.int32, 2, 64),
         ("max_times", "INT32", 32, np.int64, 2, 64)]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("narrow_simt")


def _graph(rng, n, nb, itype, t):
    """A (n x nb) with empty rows, a hub row and a long row; CSR arrays of itype."""
    deg = rng.integers(0, 6, n)
    deg[::7] = 0
    deg[3] = nb                 # a hub: every column (several passes of 32 * UNROLL)
    deg[5] = nb // 2
    rows = np.repeat(np.arange(n), deg)
    cols = np.concatenate([np.sort(rng.choice(nb, d, replace=False)) for d in deg])
    vals = (rng.integers(0, 2, len(cols)) if t == "BOOL" else rng.integers(-4, 9, len(cols)))
    ptr = np.concatenate([[0], np.cumsum(deg)])
    return ptr.astype(itype), cols.astype(itype), vals, rows


@pytest.mark.parametrize("name, t, k, itype, mode, long_row", CASES)
def test_kernels_match_numpy(work, name, t, k, itype, mode, long_row):
    rng = np.random.default_rng(abs(hash((name, k, mode))) % 2**32)
    typed = gg.operators.semiring(name, gg.lookup_dtype(t), gg.lookup_dtype(t))
    mult, mon = typed.multiply, typed.monoid
    x, z = mult.type, mon.type
    n, nb = 300, 1100   # (the hub spans all 8 warps of a narrow_long block)
    ap, aj, av, _ = _graph(rng, n, nb, itype, t)
    bdeg = rng.integers(0, k + 1, nb)
    bcols = np.concatenate([np.sort(rng.choice(k, d, replace=False)) for d in bdeg])
    bp = np.concatenate([[0], np.cumsum(bdeg)]).astype(itype)
    bv = rng.integers(0, 2, len(bcols)) if t == "BOOL" else rng.integers(-4, 9, len(bcols))
    a = Compressed(ap, aj, av.astype(x.np_type), x.np_type.type(0), x)
    b = Compressed(bp, bcols.astype(itype), bv.astype(x.np_type), x.np_type.type(0), x)
    mdeg = rng.integers(0, k + 1, n)
    mdeg[::5] = k               # rows all masked (mode 2 skips them)
    mdeg[::11] = 0
    mj = np.concatenate([np.sort(rng.choice(k, d, replace=False)) for d in mdeg]).astype(itype)
    mptr = np.concatenate([[0], np.cumsum(mdeg)]).astype(itype)
    mi = np.repeat(np.arange(n), mdeg).astype(itype)
    entries = None if mode == 0 else (mi, mj, mptr)
    want = _narrow_numpy(a, b, k, mult, mon, entries, mode == 2)
    src = narrow.source(ia=itype, ib=itype, im=itype, ir=itype, k=k, mult=mult, mon=mon,
                        mode=mode, long_row=long_row)
    exe = simt_build(work, "narrow_main.cpp", f"n_{name}_{t}_{k}_{mode}_{long_row}", src)
    stop, term = narrow._stop(mon)
    nm = len(mi) if mode else 0
    with open(work / "in.bin", "wb") as f:
        np.array([n, nb, len(aj), len(bcols), nm, -1, -1], np.int64).tofile(f)
        for arr, dt in ((ap, itype), (aj, itype), (a.values, x.np_type), (bp, itype),
                        (b.idx, itype), (b.values, x.np_type), (mi if nm else [0], itype),
                        (mj if nm else [0], itype), (mptr if mode else np.zeros(n + 1), itype),
                        ([term if term is not None else 0], z.np_type)):
            arr = np.asarray(arr).astype(dt)
            (arr if len(arr) else np.zeros(1, dt)).tofile(f)
    r = subprocess.run([str(exe), str(work / "in.bin"), str(work / "out.bin"), "1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    raw = (work / "out.bin").read_bytes()
    if mode == 1:
        present = np.frombuffer(raw[:nm], np.uint8).astype(bool)
        tv = np.frombuffer(raw[nm:], z.np_type)
        got_r, got_c, got_v = mi[present].astype(np.int64), mj[present].astype(np.int64), tv[present]
    else:
        tp = np.frombuffer(raw[:8 * (n + 1)], np.int64)
        tot = int(tp[-1])
        got_c = np.frombuffer(raw[8 * (n + 1):8 * (n + 1 + tot)], np.int64)
        got_v = np.frombuffer(raw[8 * (n + 1 + tot):], z.np_type)
        got_r = np.repeat(np.arange(n), np.diff(tp))
    wp, wc, wv = want
    np.testing.assert_array_equal(got_r, np.repeat(np.arange(n), np.diff(wp)))
    np.testing.assert_array_equal(got_c, wc)
    if stop == "any":
        return
    if z.np_type.kind == "f":
        np.testing.assert_allclose(got_v, wv, rtol=1e-5)
    else:
        np.testing.assert_array_equal(got_v, wv)
