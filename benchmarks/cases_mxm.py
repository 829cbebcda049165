"""mxm benchmark cases (issue 3).

    spgemm_rmat   T = A ⊕.⊗ A, plus_times on FP32, A a symmetric weighted Graph500 R-MAT
                  (edge factor 16): grblas_gpu's GUSTAVSON, HASH and AUTO against cuSPARSE's
                  SpGEMM (cupyx csr @ csr); the outputs are compared entry by entry.
    llt_unmasked  T = L ⊕.⊗ Lᵀ (plus_pair) with no mask: computed when it fits, AllocFailed
                  (before allocating) when it cannot; cuSPARSE's outcome beside it.
    tricount_dot  C⟨L⟩ = L ⊕.⊗ Lᵀ with plus_pair, L = tril(A) of a symmetric R-MAT, by the
                  masked dot (DOT; AUTO must pick it); C is compared with python-graphblas's
                  (SuiteSparse) computed in the same run, and so is the triangle count Σ C.
                  (SuiteSparse's published counts, 82,915,793 at scale 18 and 423,288,200 at
                  20, are for the Graph500 generator's seeds; ours differs, so the reference
                  is recomputed here.)

``CASES`` lists (name, params); ``run(name, **params)`` returns rows (dicts: case, scale,
method, seconds, and the case's checks), as benchmarks.run expects (``python -m grblas_gpu.benchmarks
--cases mxm``). Standalone: ``python -m grblas_gpu.benchmarks.cases_mxm [--scales 16 18 20] [--spgemm
16:16 14:16] [--llt 18] [--ablation] [--json FILE]``. Times are medians of
``reps`` runs after one warm-up (which also compiles the kernels), taken with CUDA events
under CuPy.
"""
import json
import sys
import time

import numpy as np

import grblas_gpu as gg
from grblas_gpu import Descriptor, backend
from grblas_gpu.cli_errors import ArgumentParser, check_writable, run_main
from grblas_gpu.generate import rmat

from grblas_gpu.benchmarks.run import timed as shared_timed

xp = backend.xp

CASES = [
    ("spgemm_rmat", {"scale": 16, "edge_factor": 16}),
    ("spgemm_rmat", {"scale": 16, "edge_factor": 4}),
    ("spgemm_rmat", {"scale": 14, "edge_factor": 16}),
    ("llt_unmasked", {"scale": 18}),
    ("tricount_dot", {"scale": 16}),
    ("tricount_dot", {"scale": 18}),
    ("tricount_dot", {"scale": 20}),
]


def timed(f, reps=3):
    """(median seconds, last result) of f() after one warm-up call: the runner's timer."""
    return shared_timed(f, reps, warmup=1)


def _once(f):
    """(seconds, result) of one call (compilation included: for cases too big to repeat)."""
    if backend.is_gpu:
        xp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    out = f()
    if backend.is_gpu:
        xp.cuda.Device().synchronize()
    return time.perf_counter() - t0, out


def _mxm_module():
    return sys.modules["grblas_gpu.operations.mxm"]


def spgemm_rmat(scale=16, reps=3, methods=("GUSTAVSON", "HASH", "AUTO"), edge_factor=16):
    A = rmat(scale, edge_factor, seed=20261122, weighted=True, dtype="FP32")
    rows = []
    base = {"case": "spgemm_rmat", "scale": scale, "edge_factor": edge_factor, "nnz(A)": A.nvals}
    # Σ_ij (A A)(i,j) = (1ᵀA)(A1): a cheap whole-product check, in float64
    r, c, v = A.to_coo(device=True)
    v64 = v.astype(np.float64)
    want = float(xp.bincount(c, weights=v64, minlength=A.ncols)
                 @ xp.bincount(r, weights=v64, minlength=A.nrows))
    ours = None
    for method in methods:
        ours = None
        secs, ours = timed(lambda: A.mxm(A, "plus_times", method=method), reps)
        plan = dict(_mxm_module().last_plan)
        got = float(ours._values.astype(np.float64).sum())
        rows.append({**base, "method": method, "seconds": secs, "nnz(T)": ours.nvals,
                     "flops": plan.get("flops"), "chose": plan.get("method"),
                     "GFLOP/s": 2 * plan.get("flops", 0) / secs / 1e9,
                     "sum check rel err": abs(got - want) / abs(want)})
    if backend.is_gpu:
        import cupyx.scipy.sparse as csp

        indptr, indices, values = A.to_csr(device=True)
        S = csp.csr_matrix((values, indices, indptr), shape=A.shape)
        try:
            secs, P = timed(lambda: S @ S, reps)
            P.sort_indices()
            same = (P.nnz == ours.nvals
                    and bool((P.indptr == ours._indptr).all()) and bool((P.indices == ours._indices).all()))
            err = float(xp.linalg.norm(P.data.astype(np.float64) - ours._values.astype(np.float64))
                        / xp.linalg.norm(P.data.astype(np.float64))) if same else None
            rows.append({**base, "method": "cuSPARSE", "seconds": secs, "nnz(T)": int(P.nnz),
                         "same structure": same, "rel err vs ours": err,
                         "GFLOP/s": 2 * rows[0]["flops"] / secs / 1e9})
        except Exception as exc:  # noqa: BLE001 -- report what the vendor library did
            rows.append({**base, "method": "cuSPARSE", "error": repr(exc)[:200]})
    return rows


def _lower(A):
    """L = tril(A, -1), structure only."""
    r, c = A._rows(), A._indices
    keep = r > c
    return gg.Matrix.from_coo(r[keep], c[keep], nrows=A.nrows, ncols=A.ncols, dtype="BOOL")


def tricount_dot(scale=16, reps=5, ablation=None):
    A = rmat(scale, 16, seed=20261122)
    L = _lower(A)
    n = L.nrows
    desc = Descriptor(transpose_second=True)

    def ours(method):
        C = gg.Matrix("INT64", n, n)
        return gg.mxm(C, L, L, "plus_pair", mask=L.S, desc=desc, method=method)

    base = {"case": "tricount_dot", "scale": scale, "nnz(L)": L.nvals}
    rows = []
    methods = ["DOT", "AUTO"] + (list(ablation) if ablation else [])
    C = None
    for method in methods:
        secs, C_m = timed(lambda: ours(method), reps if method != "DOT" else reps)
        plan = dict(_mxm_module().last_plan)
        rows.append({**base, "method": method, "seconds": secs, "chose": plan.get("method"),
                     "triangles": int(backend.to_scalar(C_m._values_full().sum())),
                     "dot_work": plan.get("dot_work"), "flops": plan.get("flops")})
        if method == "DOT":
            C = C_m
    try:
        import graphblas as gb
    except ImportError:
        return rows
    r, c, _ = L.to_coo()
    GL = gb.Matrix.from_coo(r, c, True, nrows=n, ncols=n, dtype="BOOL")
    GC = gb.Matrix("INT64", n, n)
    t0 = time.perf_counter()
    GC(mask=GL.S) << GL.mxm(GL.T, gb.semiring.plus_pair)
    ref_secs = time.perf_counter() - t0
    gr, gc, gv = GC.to_coo()
    o_r, o_c, o_v = C.to_coo()
    identical = (len(gr) == len(o_r) and np.array_equal(gr, o_r) and np.array_equal(gc, o_c)
                 and np.array_equal(gv, o_v))
    ref_tri = int(gv.sum())
    for row in rows:
        row.update({"python-graphblas triangles": ref_tri, "C identical to SuiteSparse": identical,
                    "triangles match": row["triangles"] == ref_tri})
    rows.append({**base, "method": "SuiteSparse (python-graphblas, CPU)", "seconds": ref_secs,
                 "triangles": ref_tri})
    return rows


def llt_unmasked(scale=18, reps=1, vendor=True):
    """T = L ⊕.⊗ Lᵀ with plus_pair and no mask (cuSPARSE returned an empty product here at
    scale 18): ours computes it when it fits, else raises AllocFailed before allocating."""
    A = rmat(scale, 16, seed=20261122)
    L = _lower(A)
    base = {"case": "llt_unmasked", "scale": scale, "nnz(L)": L.nvals}
    rows = []
    try:
        secs, T = timed(lambda: L.mxm(L.T, "plus_pair"), reps) if reps else _once(
            lambda: L.mxm(L.T, "plus_pair"))
        plan = dict(_mxm_module().last_plan)
        rows.append({**base, "method": plan.get("method"), "seconds": secs, "nnz(T)": T.nvals,
                     "flops": plan.get("flops"), "sum(T)": int(backend.to_scalar(T._values.sum()))})
        del T
    except gg.AllocFailed as exc:
        rows.append({**base, "method": "AUTO", "error": f"AllocFailed: {exc}"[:200]})
    if backend.is_gpu and vendor:
        import cupyx.scipy.sparse as csp

        indptr, indices, _ = L.to_csr(device=True)
        S = csp.csr_matrix((xp.ones(len(indices), dtype=np.float32), indices, indptr), shape=L.shape)
        try:
            P = S @ S.T.tocsr()
            rows.append({**base, "method": "cuSPARSE", "nnz(T)": int(P.nnz),
                         "sum(T)": float(P.data.sum()) if P.nnz else 0.0})
        except Exception as exc:  # noqa: BLE001 -- report what the vendor library did
            rows.append({**base, "method": "cuSPARSE", "error": repr(exc)[:200]})
    return rows


def run(name, **params):
    return {"spgemm_rmat": spgemm_rmat, "tricount_dot": tricount_dot,
            "llt_unmasked": llt_unmasked}[name](**params)


def _table(rows):
    keys = ["case", "scale", "edge_factor", "method", "seconds", "GFLOP/s", "nnz(T)", "flops",
            "sum(T)", "triangles", "chose",
            "same structure", "rel err vs ours", "sum check rel err", "C identical to SuiteSparse", "triangles match",
            "error"]
    for row in rows:
        print("  ".join(f"{k}={row[k]:.4g}" if isinstance(row.get(k), float) else f"{k}={row[k]}"
                        for k in keys if k in row), flush=True)


def main(argv=None):
    p = ArgumentParser(prog="python -m grblas_gpu.benchmarks.cases_mxm",
                       description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="*", default=None,
                   help="triangle-count scales (default: 16 18 20)")
    p.add_argument("--spgemm", nargs="*", default=["16:16"],
                   help="SpGEMM cases as scale:edge_factor (default 16:16)")
    p.add_argument("--llt", type=int, nargs="*", default=[],
                   help="unmasked L·Lᵀ scales (AllocFailed expected where it cannot fit)")
    p.add_argument("--llt-no-vendor", action="store_true", help="skip cuSPARSE in --llt cases")
    p.add_argument("--skip-spgemm", action="store_true")
    p.add_argument("--ablation", action="store_true",
                   help="also time the masked saxpy methods on the smallest triangle case")
    p.add_argument("--json", default=None)
    p.add_argument("--debug", action="store_true", help="show the traceback of an error")
    args = p.parse_args(argv)
    try:
        spgemm = [tuple(int(x) for x in spec.split(":")) for spec in args.spgemm]
        if any(len(t) != 2 for t in spgemm):
            raise ValueError
    except ValueError:
        p.error(f"--spgemm: expected SCALE:EDGE_FACTOR items, got {' '.join(args.spgemm)}")
    if args.json:
        check_writable(args.json, "--json")
    print(json.dumps(backend.device_info(), default=str))
    rows = []

    def emit(new):
        _table(new)
        rows.extend(new)
        if args.json:  # written as we go: a later case that runs out of time loses only itself
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1, default=str)

    scales = args.scales if args.scales is not None else [16, 18, 20]
    for i, s in enumerate(scales):
        emit(tricount_dot(s, ablation=("HASH", "GUSTAVSON") if args.ablation and i == 0 else None))
    if not args.skip_spgemm:
        for scale, ef in spgemm:
            emit(spgemm_rmat(scale, edge_factor=ef))
    for s in args.llt:
        emit(llt_unmasked(s, reps=0 if s >= 20 else 1, vendor=not args.llt_no_vendor))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, default=str)
    return rows


def _command(argv):
    main(argv)
    return 0


if __name__ == "__main__":
    sys.exit(run_main("python -m grblas_gpu.benchmarks.cases_mxm", _command))
