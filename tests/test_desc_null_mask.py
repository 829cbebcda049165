"""The descriptor's mask fields with no mask, against SuiteSparse called with a NULL mask.

C⟨!NULL⟩ (GrB_DESC_C): no mask means every output allowed, so its complement allows none:
C is left exactly as it was, accumulator included. With replace (GrB_DESC_RC) C is cleared
(GxB_subassign: only C(I, J); a row assign: only the row). GrB_DESC_S alone is no mask.
python-graphblas cannot pass a NULL mask with a descriptor, so SuiteSparse is called
through its C API (graphblas.core.lib); the conformance suite spells the same cases with an
empty mask (conformance.texts.mask_text), an equivalence checked here too.
"""
import numpy as np
import pytest

from conftest import snapshot

import grblas_gpu as gg
from grblas_gpu.descriptor import Descriptor

gb = pytest.importorskip("graphblas")
from graphblas.core import ffi, lib  # noqa: E402

NULL = ffi.NULL
DESCS = {  # name: (SuiteSparse's descriptor, grblas_gpu's)
    "C": ("GrB_DESC_C", Descriptor(mask_complement=True)),
    "RC": ("GrB_DESC_RC", Descriptor(mask_complement=True, replace=True)),
    "SC": ("GrB_DESC_SC", Descriptor(mask_complement=True, mask_structure=True)),
    "RSC": ("GrB_DESC_RSC", Descriptor(mask_complement=True, mask_structure=True, replace=True)),
    "S": ("GrB_DESC_S", Descriptor(mask_structure=True)),
    "RS": ("GrB_DESC_RS", Descriptor(mask_structure=True, replace=True)),
}
A_COO = ([0, 0, 1, 2, 2], [0, 2, 1, 0, 2], [1.0, 2.0, 3.0, 4.0, -5.0])
B_COO = ([0, 1, 1, 2], [1, 0, 2, 2], [6.0, 7.0, -8.0, 9.0])
C_COO = ([0, 1, 2], [1, 1, 2], [10.0, 20.0, 30.0])
U_COO = ([0, 2], [2.0, 3.0])
W_COO = ([1, 2], [40.0, 50.0])


def _idx(values):
    return ffi.new("GrB_Index[]", values), len(values)


I2, J2 = _idx([0, 1]), _idx([1, 2])


def _pair(kind):
    """(grblas_gpu object, python-graphblas object) with the same content."""
    if kind in ("A", "B", "C"):
        r, c, v = {"A": A_COO, "B": B_COO, "C": C_COO}[kind]
        return (gg.Matrix.from_coo(r, c, v, nrows=3, ncols=3),
                gb.Matrix.from_coo(r, c, v, nrows=3, ncols=3))
    if kind == "C9":
        return gg.Matrix(float, 9, 9), gb.Matrix(float, 9, 9)
    if kind == "C2":
        return (gg.Matrix.from_coo([1], [0], [7.0], nrows=2, ncols=2),
                gb.Matrix.from_coo([1], [0], [7.0], nrows=2, ncols=2))
    i, v = {"u": U_COO, "w": W_COO}[kind]
    return gg.Vector.from_coo(i, v, size=3), gb.Vector.from_coo(i, v, size=3)


def _row():
    """The vector a row assign writes (size 2, the region's |J|)."""
    return gg.Vector.from_coo([0], [7.0], size=2), gb.Vector.from_coo([0], [7.0], size=2)


# name: (output kind, input kinds, SuiteSparse call, grblas_gpu call); calls get
# (C, inputs..., accum, desc)
OPS = {
    "mxm": ("C", ("A", "B"), lambda C, A, B, acc, d: lib.GrB_mxm(
        C, NULL, acc, lib.GrB_PLUS_TIMES_SEMIRING_FP64, A, B, d),
        lambda C, A, B, acc, d: gg.mxm(C, A, B, "plus_times", accum=acc, desc=d)),
    "mxv": ("w", ("A", "u"), lambda w, A, u, acc, d: lib.GrB_mxv(
        w, NULL, acc, lib.GrB_PLUS_TIMES_SEMIRING_FP64, A, u, d),
        lambda w, A, u, acc, d: gg.mxv(w, A, u, "plus_times", accum=acc, desc=d)),
    "vxm": ("w", ("u", "A"), lambda w, u, A, acc, d: lib.GrB_vxm(
        w, NULL, acc, lib.GrB_PLUS_TIMES_SEMIRING_FP64, u, A, d),
        lambda w, u, A, acc, d: gg.vxm(w, u, A, "plus_times", accum=acc, desc=d)),
    "ewise_add": ("C", ("A", "B"), lambda C, A, B, acc, d: lib.GrB_Matrix_eWiseAdd_BinaryOp(
        C, NULL, acc, lib.GrB_PLUS_FP64, A, B, d),
        lambda C, A, B, acc, d: gg.ewise_add(C, A, B, "plus", accum=acc, desc=d)),
    "ewise_mult_vector": ("w", ("u", "u"), lambda w, u, v, acc, d: (
        lib.GrB_Vector_eWiseMult_BinaryOp(w, NULL, acc, lib.GrB_TIMES_FP64, u, v, d)),
        lambda w, u, v, acc, d: gg.ewise_mult(w, u, v, "times", accum=acc, desc=d)),
    "apply": ("C", ("A",), lambda C, A, acc, d: lib.GrB_Matrix_apply(
        C, NULL, acc, lib.GrB_AINV_FP64, A, d),
        lambda C, A, acc, d: gg.apply(C, A, "ainv", accum=acc, desc=d)),
    "select": ("C", ("A",), lambda C, A, acc, d: lib.GrB_Matrix_select_FP64(
        C, NULL, acc, lib.GrB_VALUEGT_FP64, A, 0.0, d),
        lambda C, A, acc, d: gg.select(C, A, "valuegt", 0.0, accum=acc, desc=d)),
    "reduce_rowwise": ("w", ("A",), lambda w, A, acc, d: lib.GrB_Matrix_reduce_Monoid(
        w, NULL, acc, lib.GrB_PLUS_MONOID_FP64, A, d),
        lambda w, A, acc, d: gg.reduce_rowwise(w, A, "plus", accum=acc, desc=d)),
    "transpose": ("C", ("A",), lambda C, A, acc, d: lib.GrB_transpose(C, NULL, acc, A, d),
                  lambda C, A, acc, d: gg.transpose(C, A, accum=acc, desc=d)),
    "extract": ("C2", ("A",), lambda C, A, acc, d: lib.GrB_Matrix_extract(
        C, NULL, acc, A, *I2, *J2, d),
        lambda C, A, acc, d: gg.extract(C, A, [0, 1], [1, 2], accum=acc, desc=d)),
    "kronecker": ("C9", ("A", "B"), lambda C, A, B, acc, d: lib.GrB_Matrix_kronecker_BinaryOp(
        C, NULL, acc, lib.GrB_TIMES_FP64, A, B, d),
        lambda C, A, B, acc, d: gg.kronecker(C, A, B, "times", accum=acc, desc=d)),
    "assign": ("C", ("C2",), lambda C, A, acc, d: lib.GrB_Matrix_assign(
        C, NULL, acc, A, *I2, *J2, d),
        lambda C, A, acc, d: gg.assign(C, A, [0, 1], [1, 2], accum=acc, desc=d)),
    "subassign": ("C", ("C2",), lambda C, A, acc, d: lib.GxB_Matrix_subassign(
        C, NULL, acc, A, *I2, *J2, d),
        lambda C, A, acc, d: gg.subassign(C, A, [0, 1], [1, 2], accum=acc, desc=d)),
    "row_assign": ("C", ("r",), lambda C, u, acc, d: lib.GrB_Row_assign(
        C, NULL, acc, u, 1, *J2, d),
        lambda C, u, acc, d: gg.assign(C, u, 1, [1, 2], accum=acc, desc=d)),
    "row_subassign": ("C", ("r",), lambda C, u, acc, d: lib.GxB_Row_subassign(
        C, NULL, acc, u, 1, *J2, d),
        lambda C, u, acc, d: gg.subassign(C, u, 1, [1, 2], accum=acc, desc=d)),
    "vector_assign_scalar": ("w", (), lambda w, acc, d: lib.GrB_Vector_assign_FP64(
        w, NULL, acc, 5.0, *I2, d),
        lambda w, acc, d: gg.assign(w, 5.0, [0, 1], accum=acc, desc=d)),
}


def _operands(op):
    out_kind, in_kinds, _, _ = OPS[op]
    return _pair(out_kind), [_row() if k == "r" else _pair(k) for k in in_kinds]


def _assert_same(ours, ref):
    r, o = ref.to_coo(), ours.to_coo()
    for a, b in zip(o, r):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("accum", [None, "plus"])
@pytest.mark.parametrize("dname", sorted(DESCS))
@pytest.mark.parametrize("op", sorted(OPS))
def test_no_mask_with_mask_fields_matches_suitesparse(op, dname, accum):
    (C, Cg), ins = _operands(op)
    ss_desc, desc = getattr(lib, DESCS[dname][0]), DESCS[dname][1]
    _, _, ss_call, gg_call = OPS[op]
    acc_ss = lib.GrB_PLUS_FP64 if accum else NULL
    assert ss_call(Cg._carg, *(g._carg for _, g in ins), acc_ss, ss_desc) == lib.GrB_SUCCESS
    before = C.get_csr() if isinstance(C, gg.Matrix) else C._storage_arrays()
    gg_call(C, *(x for x, _ in ins), accum, desc)
    _assert_same(C, Cg)
    if dname in ("C", "SC"):  # C⟨!NULL⟩ writes nothing: C keeps its very arrays
        after = C.get_csr() if isinstance(C, gg.Matrix) else C._storage_arrays()
        assert all(a is b for a, b in zip(before[:2], after[:2]))


@pytest.mark.parametrize("replace", [False, True])
def test_suitesparse_null_complemented_mask_is_an_empty_mask(replace):
    """conformance spells C⟨!NULL⟩ for python-graphblas as an empty structural mask."""
    _, Ag = _pair("A")
    _, Bg = _pair("B")
    _, C1 = _pair("C")
    _, C2 = _pair("C")
    d = lib.GrB_DESC_RC if replace else lib.GrB_DESC_C
    assert lib.GrB_mxm(C1._carg, NULL, lib.GrB_PLUS_FP64, lib.GrB_PLUS_TIMES_SEMIRING_FP64,
                       Ag._carg, Bg._carg, d) == lib.GrB_SUCCESS
    C2(mask=gb.Matrix(bool, 3, 3).S, accum=gb.binary.plus, replace=replace) << Ag.mxm(Bg)
    assert C1.isequal(C2)


def test_nothing_is_computed_under_a_null_complemented_mask(monkeypatch):
    import importlib

    apply_mod = importlib.import_module("grblas_gpu.operations.apply")
    mxm_mod = importlib.import_module("grblas_gpu.operations.mxm")

    def boom(*a, **k):
        raise AssertionError("T computed under C⟨!NULL⟩")

    monkeypatch.setattr(apply_mod, "_compute", boom)
    monkeypatch.setattr(mxm_mod, "_product", boom)
    (C, _), [(A, _)] = _operands("apply")
    gg.apply(C, A, "ainv", desc=DESCS["RC"][1])
    assert C.nvals == 0
    (C, _), [(A, _), (B, _)] = _operands("mxm")
    before = snapshot(C)
    gg.mxm(C, A, B, "plus_times", accum="plus", desc=DESCS["C"][1])
    assert snapshot(C) == before


def test_a_null_complemented_mask_still_validates_first():
    (C, Cg), [(A, Ag), (B, Bg)] = _operands("mxm")
    before = snapshot(C)
    bad = gg.Matrix(float, 2, 3)
    with pytest.raises(gg.DimensionMismatch):
        gg.mxm(C, A, bad, "plus_times", desc=DESCS["RC"][1])
    with pytest.raises(gg.DimensionMismatch):
        gg.assign(C, bad, [0, 1], [1, 2], desc=DESCS["RC"][1])
    assert snapshot(C) == before
    assert lib.GrB_mxm(Cg._carg, NULL, NULL, lib.GrB_PLUS_TIMES_SEMIRING_FP64, Ag._carg,
                       gb.Matrix(float, 2, 3)._carg, lib.GrB_DESC_RC) == lib.GrB_DIMENSION_MISMATCH


@pytest.mark.parametrize("dname", ["C", "RC"])
def test_multi_stage_requests_under_a_null_complemented_mask(dname):
    desc = DESCS[dname][1]
    (C, Cg), [(A, Ag), (B, Bg)] = _operands("mxm")
    xp = gg.backend.xp
    indptr = xp.zeros(4, dtype=np.int64)
    C.set_csr(indptr=indptr)
    gg.mxm(C, A, B, "plus_times", accum="plus", desc=desc, request=gg.Request.FILL_NNZ)
    expect = 0 if dname == "RC" else 3
    assert C.nvals == expect
    ind, val = xp.zeros(expect, dtype=np.int64), xp.zeros(expect)
    C.set_csr(indptr, ind, val)
    gg.mxm(C, A, B, "plus_times", accum="plus", desc=desc, request=gg.Request.FILL_ENTRIES)
    lib.GrB_mxm(Cg._carg, NULL, lib.GrB_PLUS_FP64, lib.GrB_PLUS_TIMES_SEMIRING_FP64, Ag._carg,
                Bg._carg, getattr(lib, DESCS[dname][0]))
    _assert_same(C, Cg)
    (w, wg), [(A, Ag), (u, ug)] = _operands("mxv")
    gg.mxv(w, A, u, "plus_times", desc=desc, request=gg.Request.FILL_NNZ)
    assert w.nvals == (0 if dname == "RC" else 2)
    w.set_sparse(xp.zeros(w.nvals, dtype=np.int64), xp.zeros(w.nvals))
    gg.mxv(w, A, u, "plus_times", desc=desc, request=gg.Request.FILL_ENTRIES)
    lib.GrB_mxv(wg._carg, NULL, NULL, lib.GrB_PLUS_TIMES_SEMIRING_FP64, Ag._carg, ug._carg,
                getattr(lib, DESCS[dname][0]))
    _assert_same(w, wg)


def test_a_scalar_assign_under_a_null_complemented_mask_builds_no_region():
    """C⟨!NULL⟩(ALL, ALL) = x on a 10^6 x 10^6 C: the 10^12-entry region is never built."""
    C = gg.Matrix.from_coo([3], [4], [1.0], nrows=10**6, ncols=10**6)
    before = snapshot(C)
    gg.assign(C, 2.0, gg.ALL, gg.ALL, accum="plus", desc=DESCS["C"][1])
    assert snapshot(C) == before
    gg.subassign(C, 2.0, [3], gg.ALL, desc=DESCS["RC"][1])  # clears row 3 only
    assert C.nvals == 0


def _misfit_calls():
    """Each operation with an output one element too long for its inputs."""
    u = gg.Vector.from_coo([0, 2], [1.0, 2.0], size=4)
    A = gg.Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=4, ncols=4)
    return [
        ("apply", lambda w, d: gg.apply(w, u, "ainv", desc=d)),
        ("apply bound", lambda w, d: gg.apply(w, u, "plus", right=1.0, desc=d)),
        ("select", lambda w, d: gg.select(w, u, "valuege", 1.0, desc=d)),
        ("ewise_add", lambda w, d: gg.ewise_add(w, u, u, "plus", desc=d)),
        ("ewise_mult", lambda w, d: gg.ewise_mult(w, u, u, "times", desc=d)),
        ("mxv", lambda w, d: gg.mxv(w, A, u, "plus_times", desc=d)),
        ("vxm", lambda w, d: gg.vxm(w, u, A, "plus_times", desc=d)),
        ("reduce_rowwise", lambda w, d: gg.reduce_rowwise(w, A, "plus", desc=d)),
    ]


@pytest.mark.parametrize("dname", ["C", "RC"])
@pytest.mark.parametrize("name", [n for n, _ in _misfit_calls()])
def test_vector_outputs_of_the_wrong_size_are_refused_under_a_null_complemented_mask(
        dname, name):
    call = dict(_misfit_calls())[name]
    w = gg.Vector.from_coo([4], [9.0], size=5)
    before = snapshot(w)
    with pytest.raises(gg.DimensionMismatch):
        call(w, DESCS[dname][1])
    assert snapshot(w) == before
