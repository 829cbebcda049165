"""Positional multiplies (firsti ... secondj1) and their semirings, against python-graphblas's
gb.semiring.ss / gb.binary.ss (SuiteSparse): mxm by every method, mxv and vxm pushed and
pulled, with masks, accumulators, replace and transposes; typing; refusal elsewhere."""
import warnings

import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import Descriptor, Method
from grblas_gpu.errors import NotSupported
from conftest import random_matrix_pair, random_vector_pair, snapshot

gb = pytest.importorskip("graphblas")

MULTS = ("firsti", "firsti1", "firstj", "firstj1", "secondi", "secondi1", "secondj", "secondj1")
MONOIDS = ("any", "min", "max", "plus", "times")


def _gb(name):
    return getattr(gb.semiring.ss, name)


def _check(ours, ref_of, name):
    """ours against python-graphblas's result ``ref_of(semiring)``; under ANY, the structure
    and values between the min and max results (equal where those agree)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        if not name.startswith("any_"):
            ref = ref_of(_gb(name))
            lo = hi = ref
        else:
            mult = name[4:]
            ref, lo, hi = ref_of(_gb(name)), ref_of(_gb("min_" + mult)), ref_of(_gb("max_" + mult))
    o = ours.to_coo()
    r, lv, hv = ref.to_coo(), lo.to_coo()[-1], hi.to_coo()[-1]
    assert ours.dtype.name == ref.dtype.name
    for a, b in zip(o[:-1], r[:-1]):
        np.testing.assert_array_equal(a, b)
    assert np.all((o[-1] >= lv) & (o[-1] <= hv)), (name, o[-1], lv, hv)


# ---------------------------------------------------------------- catalog and typing
def test_catalog_has_suitesparse_positional_semirings():
    names = {f"{m}_{f}" for m in MONOIDS for f in MULTS}
    gb_names = {n for n in dir(gb.semiring.ss) if n.split("_", 1)[-1] in MULTS}
    assert names == gb_names
    for n in names:
        assert semirings.lookup(n) is getattr(semirings, n)
        assert semirings.positional.is_positional(getattr(semirings, n))
    for f in MULTS:
        assert semirings.lookup(f"binary.{f}") is getattr(semirings.binary, f)
    assert not semirings.positional.is_positional(semirings.min_plus)


@pytest.mark.parametrize("t1,t2,out", [("INT32", "INT32", "INT32"), ("INT32", "BOOL", "INT32"),
                                       ("INT64", "INT32", "INT64"), ("FP32", "FP32", "INT64"),
                                       ("BOOL", "BOOL", "INT64"), ("UINT8", "INT8", "INT64")])
def test_typing_matches_python_graphblas(t1, t2, out):
    A = gg.Matrix.from_coo([0, 1], [1, 0], [1, 1], nrows=2, ncols=2, dtype=t1)
    u = gg.Vector.from_coo([0, 1], [1, 1], size=2, dtype=t2)
    w = A.mxv(u, "min_secondi")
    GA = gb.Matrix.from_coo([0, 1], [1, 0], [1, 1], nrows=2, ncols=2, dtype=t1)
    gu = gb.Vector.from_coo([0, 1], [1, 1], size=2, dtype=t2)
    ref = GA.mxv(gu, gb.semiring.ss.min_secondi).new()
    assert w.dtype.name == ref.dtype.name == out
    np.testing.assert_array_equal(w.to_coo()[1], ref.to_coo()[1])


# ---------------------------------------------------------------- mxm
MXM_CASES = [(f"{m}_{f}", method) for f in MULTS for m in ("min", "plus", "any")
             for method in ("GUSTAVSON", "HASH", "DOT")]


@pytest.mark.parametrize("name,method", MXM_CASES, ids=[f"{n}-{m}" for n, m in MXM_CASES])
def test_mxm(name, method, rng):
    A, GA = random_matrix_pair(rng, 23, 19, 0.25, "FP64")
    B, GB = random_matrix_pair(rng, 19, 21, 0.25, "INT32")
    M, GM = random_matrix_pair(rng, 23, 21, 0.5, "BOOL")
    mask, gmask = (M.S, GM.S) if method == "DOT" else (None, None)
    C = gg.Matrix(gg.INT64, 23, 21)
    gg.mxm(C, A, B, name, mask=mask, method=getattr(Method, method))

    def ref(sr):
        GC = gb.Matrix("INT64", 23, 21)
        GC(mask=gmask) << GA.mxm(GB, sr)
        return GC

    _check(C, ref, name)


@pytest.mark.parametrize("mult", MULTS)
def test_mxm_transposed_int32_accum_replace(mult, rng):
    name = "max_" + mult
    A, GA = random_matrix_pair(rng, 15, 12, 0.3, "INT32")
    B, GB = random_matrix_pair(rng, 14, 15, 0.3, "INT32")
    M, GM = random_matrix_pair(rng, 12, 14, 0.4, "BOOL")
    C0, GC0 = random_matrix_pair(rng, 12, 14, 0.3, "INT32")
    d = Descriptor(transpose_first=True, transpose_second=True, replace=True)
    C = gg.mxm(C0.dup(), A, B, name, mask=~M.V, accum="plus", desc=d)

    def ref(sr):
        GC = GC0.dup()
        GC(mask=~GM.V, accum=gb.binary.plus, replace=True) << GA.T.mxm(GB.T, sr)
        return GC

    _check(C, ref, name)


# ---------------------------------------------------------------- mxv and vxm
VEC_CASES = [(f"{m}_{f}", d) for f in MULTS for m in ("min", "any") for d in ("push", "pull")]


@pytest.mark.parametrize("name,direction", VEC_CASES, ids=[f"{n}-{d}" for n, d in VEC_CASES])
@pytest.mark.parametrize("product", ["mxv", "vxm"])
def test_mxv_vxm(product, name, direction, rng):
    A, GA = random_matrix_pair(rng, 40, 33, 0.15, "FP32")
    n_in = 33 if product == "mxv" else 40
    n_out = 40 if product == "mxv" else 33
    u, gu = random_vector_pair(rng, n_in, 0.3, "BOOL")
    for mask_kind in ("none", "~S", "V"):
        m, gm = random_vector_pair(rng, n_out, 0.5, "INT64")
        mask, gmask = {"none": (None, None), "~S": (~m.S, ~gm.S), "V": (m.V, gm.V)}[mask_kind]
        w = gg.Vector(gg.INT64, n_out)
        if product == "mxv":
            gg.mxv(w, A, u, name, mask=mask, desc=Descriptor(replace=True), direction=direction)
        else:
            gg.vxm(w, u, A, name, mask=mask, desc=Descriptor(replace=True), direction=direction)

        def ref(sr):
            gw = gb.Vector("INT64", n_out)
            gw(mask=gmask, replace=gmask is not None) << (GA.mxv(gu, sr) if product == "mxv"
                                                          else gu.vxm(GA, sr))
            return gw

        _check(w, ref, name)


@pytest.mark.parametrize("direction", ["push", "pull"])
def test_bfs_parent_step(direction, rng):
    """LAGraph's BFS step: q⟨¬pi.S, replace⟩ = q any.secondi A, on a dense (bitmap) q and a
    transposed A, then pi⟨q.S⟩ = q: every new parent is an in-neighbour in the frontier."""
    A, GA = random_matrix_pair(rng, 60, 60, 0.06, "BOOL")
    q = gg.Vector.from_coo([3, 7, 11], [3, 7, 11], size=60, dtype=gg.INT64)
    q.set_format("dense")
    pi = q.dup()
    gg.mxv(q, A.T, q, "any_secondi", mask=~pi.S, desc=Descriptor(replace=True),
           direction=direction)
    idx, parents = q.to_coo()
    gq = gb.Vector.from_coo([3, 7, 11], [3, 7, 11], size=60, dtype="INT64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ref = GA.T.mxv(gq, gb.semiring.ss.any_secondi).new(mask=~gq.S)
    np.testing.assert_array_equal(idx, ref.to_coo()[0])
    rows, cols, _ = A.to_coo()
    edges = set(zip(rows.tolist(), cols.tolist()))
    assert all((int(p), int(v)) in edges and int(p) in (3, 7, 11) for v, p in zip(idx, parents))


# ---------------------------------------------------------------- refused elsewhere
def test_refused_outside_semirings(rng):
    A, _ = random_matrix_pair(rng, 6, 6, 0.5, "INT64")
    u, _ = random_vector_pair(rng, 6, 0.5, "INT64")
    C = A.dup()
    before = snapshot(C)
    for call in (lambda: gg.ewise_add(C, A, A, "firsti"),
                 lambda: gg.ewise_mult(C, A, A, semirings.binary.secondj),
                 lambda: gg.apply(C, A, semirings.binary.firstj1, right=1),
                 lambda: gg.mxm(C, A, A, "plus_times", accum="secondi"),
                 lambda: gg.kronecker(C, A, A, "firsti")):
        with pytest.raises(NotSupported, match="positional"):
            call()
        assert snapshot(C) == before
    w = u.dup()
    with pytest.raises(NotSupported, match="positional"):
        gg.mxv(w, A, u, "plus_times", accum=semirings.binary.firsti["INT64"])
