"""mxv / vxm benchmark cases (issue 3), on a symmetric Graph500 R-MAT (edge factor 16).

    mxv_pull     w = A ⊕.⊗ x, x dense, pull forced: plus_times, min_plus, max_min on FP32
                 weights (x full), any_pair[BOOL] on the structure (x a 50% bitmap).
                 Peers in the same process: cuSPARSE's csr @ x (cupyx; plus_times only, the
                 reference time for every semiring) and SuiteSparse (python-graphblas, all
                 CPU cores). Checks: plus_times against cuSPARSE (relative 2-norm error), the
                 others against SuiteSparse (exact values; ANY on structure).
    vxm_push     w⟨¬visited, replace⟩ = u ⊕.⊗ A with u 1% dense (sparse) and visited = u plus
                 20% of the vertices (a BFS / SSSP step): any_pair[BOOL] and min_plus[FP32],
                 direction chosen automatically (reported), and forced pull for contrast.
                 The figure of merit: its time over the dense SpMV time (cuSPARSE's and
                 ours, plus_times, same run). Checked against SuiteSparse.
    tune         (not in CASES) pull plus_times / min_plus over the kernel's tuning knobs.

Figures for the dense SpMV: bytes moved at least nnz * (4 + 4) + n * (4 + 4 + 4 + 1) with
int32 indices and FP32 values and vector; about 1.1 GB at scale 22 (0.35 ms at 3 TB/s).
"""
import itertools
import os

import numpy as np

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu.generate import rmat
from grblas_gpu.kernels import operands, pull_plans

from .run import pipelined, suitesparse, timed

xp = backend.xp

CASES = [("mxv_pull", {"scale": 22}), ("vxm_push", {"scale": 22})]

SEED = 20261122
PULL_SEMIRINGS = ("plus_times", "min_plus", "max_min", "any_pair")
_graphs = {}


def _mxv_module():
    import importlib

    return importlib.import_module("grblas_gpu.operations.mxv")


def graph(scale):
    """(A weighted FP32, the same structure as iso BOOL), built once per scale."""
    if scale not in _graphs:
        A = rmat(scale, 16, seed=SEED, weighted=True, dtype="FP32")
        S = gg.Matrix._from_csr(A.nrows, A.ncols, gg.BOOL, A._indptr, A._indices, None, True)
        _graphs.clear()
        _graphs[scale] = (A, S)
    return _graphs[scale]


def _cusparse_time(A, x, reps):
    """(seconds per call, result, seconds per call back to back) of cuSPARSE's csr @ x."""
    if not backend.is_gpu:
        return None, None, None
    import cupyx.scipy.sparse as csp

    S = csp.csr_matrix((A._values, A._indices, A._indptr), shape=A.shape)
    xv = x._dense_form()[0]
    return (*timed(lambda: S @ xv, reps), pipelined(lambda: S @ xv, reps))


def _host_ms(f, reps=10):
    """Median host time of f() in ms, not waiting for the device: the launch overhead a
    call adds (when it exceeds the device time, the call is host-bound)."""
    import time

    times = []
    for _ in range(reps):
        backend.xp.cuda.Device().synchronize() if backend.is_gpu else None
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2] * 1e3


def _row(case, scale, A, method, semiring, seconds, **more):
    return {"case": case, "scale": scale, "method": method, "semiring": semiring,
            "seconds": seconds, "ms": seconds * 1e3, "nnz": A.nvals, **more}


def _random_dense(n, dtype, fraction, seed):
    """Values in [0.5, 1.5); fraction 1: a full vector (as Vector.from_dense makes it, the
    count known), else a bitmap of about that density."""
    rs = xp.random.RandomState(seed)
    vals = (rs.random_sample(n) + 0.5).astype(np.float32)
    if fraction >= 1:
        return gg.Vector.from_dense(vals, dtype=dtype)
    return gg.Vector._from_dense(n, dtype, vals, rs.random_sample(n) < fraction)


def mxv_pull(scale=22, reps=20, semirings=PULL_SEMIRINGS):
    A, S = graph(scale)
    n = A.nrows
    x = _random_dense(n, gg.FP32, 1.0, SEED + 1)
    xb = _random_dense(n, gg.BOOL, 0.5, SEED + 2)
    cu_secs, cu_y, cu_piped = _cusparse_time(A, x, reps)
    rows = []
    if cu_secs is not None:
        rows.append(_row("mxv_pull", scale, A, "cuSPARSE csr@x", "plus_times", cu_secs,
                         **{"pipelined ms": cu_piped * 1e3}))
    gb = suitesparse()
    G = GS = None
    if gb is not None:
        G, GS = A.to_graphblas(), S.to_graphblas()
        gx, gxb = x.to_graphblas(), xb.to_graphblas()
    ours = {}
    for name in semirings:  # ours first: the peers' CPU threads must not share the host
        M, u = (S, xb) if name == "any_pair" else (A, x)
        sr = "any_pair[BOOL]" if name == "any_pair" else name
        w = gg.Vector(gg.BOOL if name == "any_pair" else gg.FP32, n)
        secs, w = timed(lambda: gg.mxv(w, M, u, sr, direction="pull"), reps)
        extra = {"vs cuSPARSE": secs / cu_secs} if cu_secs else {}
        if cu_secs:
            piped = pipelined(lambda: gg.mxv(w, M, u, sr, direction="pull"), reps)
            extra.update({"pipelined ms": piped * 1e3, "vs cuSPARSE (pipelined)": piped / cu_piped})
        extra["host ms"] = _host_ms(lambda: gg.mxv(w, M, u, sr, direction="pull"))
        if name == "plus_times" and cu_y is not None:
            y = w.to_dense(0, device=True).astype(np.float64)
            extra["rel err vs cuSPARSE"] = float(xp.linalg.norm(y - cu_y) / xp.linalg.norm(cu_y))
        ours[name] = (secs, w, extra)
    for name in semirings:
        secs, w, extra = ours[name]
        if gb is not None:
            gsr = gb.semiring.any_pair["BOOL"] if name == "any_pair" else getattr(gb.semiring, name)
            GM, gu = (GS, gxb) if name == "any_pair" else (G, gx)
            ss_secs, gw = timed(lambda: GM.mxv(gu, gsr).new(), max(3, reps // 4), warmup=1,
                                device=False)
            extra.update({"SuiteSparse ms": ss_secs * 1e3, "vs SuiteSparse": secs / ss_secs,
                          "SuiteSparse threads": os.cpu_count()})
            extra["matches SuiteSparse"] = _same(w, gw, values=name != "any_pair",
                                                 exact=name != "plus_times")
        rows.append(_row("mxv_pull", scale, A, "grblas_gpu pull", name, secs, **extra))
    return rows


def _same(w, gw, values=True, exact=True):
    idx, vals = w.to_coo()
    gi, gv = gw.to_coo()
    if not np.array_equal(idx, gi):
        return False
    if not values:
        return True
    if exact:
        return bool(np.array_equal(vals, gv))
    return bool(np.allclose(vals, gv, rtol=1e-4, atol=1e-4))


def vxm_push(scale=22, reps=20, frontier=0.01, visited_extra=0.2):
    A, S = graph(scale)
    n = A.nrows
    rs = np.random.default_rng(SEED + 3)
    f_idx = np.sort(rs.choice(n, int(frontier * n), replace=False))
    v_idx = np.union1d(f_idx, rs.choice(n, int(visited_extra * n), replace=False))
    visited = gg.Vector.from_coo(v_idx, True, size=n)
    desc = gg.Descriptor(replace=True)
    x = _random_dense(n, gg.FP32, 1.0, SEED + 1)
    dense_secs, _ = timed(lambda: gg.mxv(gg.Vector(gg.FP32, n), A, x, "plus_times",
                                         direction="pull"), reps)
    cu_secs, _, _ = _cusparse_time(A, x, reps)
    cases = (("any_pair", S, gg.Vector.from_coo(f_idx, True, size=n)),
             ("min_plus", A, gg.Vector.from_coo(
                 f_idx, rs.random(len(f_idx)).astype(np.float32) + 1, size=n)))
    rows, results = [], {}
    for name, M, u in cases:  # ours first: the peers' CPU threads must not share the host
        sr = "any_pair[BOOL]" if name == "any_pair" else name
        for direction in (None, "pull"):
            w = gg.Vector(gg.BOOL if name == "any_pair" else gg.FP32, n)

            def call():
                return gg.vxm(w, u, M, sr, mask=~visited.S, desc=desc, direction=direction)

            secs, w = timed(call, reps)
            chosen = _mxv_module().last_choice.direction
            extra = {"direction": f"{direction or 'auto'} -> {chosen}", "host ms": _host_ms(call),
                     "u density": frontier, "vs dense SpMV (ours)": secs / dense_secs}
            if cu_secs:
                extra["vs dense SpMV (cuSPARSE)"] = secs / cu_secs
            if direction is None:
                extra.update(_push_stages(M, u, sr, visited, n, reps))
                results[name] = w
            rows.append(_row("vxm_push", scale, A, "grblas_gpu", name, secs, **extra))
    gb = suitesparse()
    for (name, M, u), row in zip(cases, rows[::2]):
        if gb is None:
            break
        G, gu, gv = M.to_graphblas(), u.to_graphblas(), visited.to_graphblas()
        gsr = gb.semiring.any_pair["BOOL"] if name == "any_pair" else gb.semiring.min_plus
        gw = gb.Vector("BOOL" if name == "any_pair" else "FP32", n)

        def ss():
            gw(~gv.S, replace=True) << gu.vxm(G, gsr)
            return gw

        ss_secs, gw = timed(ss, max(3, reps // 4), warmup=1, device=False)
        row.update({"SuiteSparse ms": ss_secs * 1e3, "vs SuiteSparse": row["seconds"] / ss_secs,
                    "matches SuiteSparse": _same(results[name], gw, values=name != "any_pair")})
    rows.append(_row("vxm_push", scale, A, "grblas_gpu pull (dense ref)", "plus_times",
                     dense_secs))
    return rows


def _push_stages(M, u, sr, visited, n, reps):
    """The push kernels alone (without the operation around them), and on the GPU the time
    between push's stages (CUDA events)."""
    from grblas_gpu.kernels import spmspv

    mxv_mod = _mxv_module()
    prod = operands.Product(gg.operators.semiring(sr, u.dtype, M.dtype), False)
    B = mxv_mod._compressed(M, True, False, prod.reads[0])
    uo = mxv_mod._sparse_operand(u, False, prod.reads[1])
    dm = mxv_mod._dense_mask(~visited.S, n)
    k_secs, _ = timed(lambda: spmspv.push(B, uo, prod, dm, nout=n), reps)
    out = {"push kernels ms": k_secs * 1e3}
    if backend.is_gpu:
        spmspv.probe = []
        spmspv.push(B, uo, prod, dm, nout=n)
        xp.cuda.Device().synchronize()
        marks, spmspv.probe = spmspv.probe, None
        for (_, e0), (stage, e1) in zip(marks, marks[1:]):
            out[f"stage {stage} ms"] = xp.cuda.get_elapsed_time(e0, e1)
    return out


def tune(scale=22, reps=10, widths=(2, 4, 8), unrolls=(1,), passes=(2, 4, 8), chunks=(2048,),
         halves=(512, 1024, 2048)):
    """Pull times over kernels.pull_plans' knobs: for the row kernel (any_pair, lanes per row, vectors per
    lane per pass, short-row passes), for the stream kernel (plus_times, min_plus: the
    stretch of entries a block reads), and the long-row chunk of both."""
    A, S = graph(scale)
    x = _random_dense(A.nrows, gg.FP32, 1.0, SEED + 1)
    xb = _random_dense(A.nrows, gg.BOOL, 0.5, SEED + 2)
    rows = []

    def sweep(knobs, settings, cases):
        saved = [getattr(pull_plans, k) for k in knobs]
        try:
            for setting in settings:
                for k, v in zip(knobs, setting):
                    setattr(pull_plans, k, v)
                label = " ".join(f"{k.strip('_').lower()}={v}" for k, v in zip(knobs, setting))
                for name, M, u in cases:
                    w = gg.Vector(u.dtype, A.nrows)
                    secs, _ = timed(lambda: gg.mxv(w, M, u, name, direction="pull"), reps)
                    rows.append(_row("tune", scale, A, label, name, secs))
        finally:
            for k, v in zip(knobs, saved):
                setattr(pull_plans, k, v)

    sweep(("WIDTH_OVERRIDE", "UNROLL", "SHORT_PASSES", "LONG_CHUNK"),
          itertools.product(widths, unrolls, passes, chunks), [("any_pair[BOOL]", S, xb)])
    sweep(("STREAM_HALF", "LONG_CHUNK"), itertools.product(halves, chunks),
          [("plus_times", A, x), ("min_plus", A, x)])
    return rows


def run(name, **params):
    return {"mxv_pull": mxv_pull, "vxm_push": vxm_push, "tune": tune}[name](**params)
