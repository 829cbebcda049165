"""Building from coordinates with duplicates (Matrix.from_coo / Vector.from_coo / from_scipy
with ``dup_op``) against python-graphblas: GrB_Matrix_build folds duplicates left to right in
input order, ((v0 ⊙ v1) ⊙ v2) ..., for every binary operator, float plus included."""
import warnings

import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import DomainMismatch, InvalidValue, NotSupported

ALL = tuple(t.name for t in gg.types.ALL_TYPES)


def _values(rng, t, n):
    npt = gg.lookup_dtype(t).np_type
    if npt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if npt.kind == "f":
        return rng.normal(0, 3, n).astype(npt)
    return rng.integers(1 if npt.kind == "u" else -4, 5, n).astype(npt)


def _gb_build(kind, idx, vals, size, t, op):
    """python-graphblas's build, or the exception class it raises."""
    import graphblas as gb

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == "vector":
                return gb.Vector.from_coo(idx[0], vals, size=size[0], dtype=t, dup_op=op)
            return gb.Matrix.from_coo(*idx, vals, nrows=size[0], ncols=size[1], dtype=t,
                                      dup_op=op)
    except Exception as e:  # noqa: BLE001  (its refusals: DomainMismatch, KeyError ...)
        return type(e)


def _gg_build(kind, idx, vals, size, t, op):
    if kind == "vector":
        return gg.Vector.from_coo(idx[0], vals, size=size[0], dtype=t, dup_op=op)
    return gg.Matrix.from_coo(*idx, vals, nrows=size[0], ncols=size[1], dtype=t, dup_op=op)


def _same(ours, ref, t, computed_in=None):
    """Equal structure and values; values computed in floating point (libm's last bits, pow
    or hypot, differ from one library and device to another) are close: relatively for a
    float type, within 1 for an integer type truncating a float result (hypot's 6.9999 or 7)."""
    o, r = ours.to_coo(), ref.to_coo()
    for a, b in zip(o[:-1], r[:-1]):
        np.testing.assert_array_equal(a, b)
    if t.startswith("FP"):
        np.testing.assert_allclose(o[-1], r[-1], rtol=1e-5 if t == "FP32" else 1e-12)
    elif computed_in is not None and computed_in.startswith("FP"):
        np.testing.assert_allclose(o[-1].astype(np.float64), r[-1].astype(np.float64), atol=1)
    else:
        np.testing.assert_array_equal(o[-1], r[-1])


def test_hand_folded_left_to_right():
    # ((10 - 3) - 2) - 1 = 4, not the grouped (10 - 3) - (2 - 1) = 6
    v = gg.Vector.from_coo([0, 0, 0, 0], [10, 3, 2, 1], size=1, dup_op="minus")
    assert v.to_coo()[1].tolist() == [4]
    expect = {"rminus": -8, "cdiv": 1, "div": 1, "pow": 10**6, "first": 10, "second": 1,
              "plus": 16, "times": 60, "min": 1, "max": 10}
    for op, want in expect.items():
        v = gg.Vector.from_coo([0, 0, 0, 0], [10, 3, 2, 1], size=1, dup_op=op)
        assert v.to_coo()[1].tolist() == [want], op
    # duplicates stay in input order whatever the positions' order: (5 - 1) - 7 at (1, 2)
    A = gg.Matrix.from_coo([1, 0, 1, 1], [2, 0, 2, 2], [5, 9, 1, 7], nrows=2, ncols=3,
                           dup_op=semirings.binary.minus)
    assert [a.tolist() for a in A.to_coo()] == [[0, 1], [0, 2], [9, -3]]


@pytest.mark.parametrize("kind", ["vector", "matrix"])
def test_every_binary_dup_op_matches_python_graphblas(rng, kind):
    """Every binary operator of the catalog on every type, duplicates in shuffled order (runs
    of 1 to 9 values): equal values where python-graphblas builds, a refusal where it
    refuses on its own types (it types some coerced operators with mixed domains and
    refuses them where grblas_gpu runs them at one type: skipped)."""
    import graphblas as gb

    size = (5,) if kind == "vector" else (3, 4)
    ncells = int(np.prod(size))
    runs = rng.integers(1, 10, ncells)
    flat = rng.permutation(np.repeat(np.arange(ncells), runs))
    idx = (flat,) if kind == "vector" else np.divmod(flat, size[1])
    checked = 0
    for name in sorted({op.name for op in semirings.REGISTRY["binary"].values()
                        if not getattr(op, "positional", False)}):
        if name in gb.binary._udfs or name in getattr(gb.binary, "_delayed", {}):
            continue  # numba-built: seconds each (the conformance family runs them)
        gop = getattr(gb.binary, name, None)
        if gop is None:
            continue
        for t in ALL if kind == "vector" else ALL[::4]:
            vals = _values(rng, t, len(flat))
            ref = _gb_build(kind, idx, vals, size, t, gop)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ours = _gg_build(kind, idx, vals, size, t, getattr(semirings.binary, name))
            except (DomainMismatch, InvalidValue) as e:
                assert isinstance(ref, type), f"{name}[{t}]: grblas_gpu raised {e}"
                continue
            if isinstance(ref, type):
                continue
            _same(ours, ref, t, semirings.resolve_binary(name, t, t).type.name)
            checked += 1
    assert checked > (300 if kind == "vector" else 80)


def test_float_plus_sums_duplicates_in_input_order():
    """SuiteSparse adds duplicates one after the other: 1e8 + 1 + 1 ... in FP32 stays 1e8;
    a pairwise sum would give 1e8 + 16."""
    import graphblas as gb

    vals = np.array([1e8] + [1.0] * 40 + [-1e8, 3.0], dtype=np.float32)
    idx = np.zeros(len(vals), dtype=np.int64)
    for t in ("FP32", "FP64"):
        ours = gg.Vector.from_coo(idx, vals, size=1, dtype=t, dup_op="plus")
        ref = gb.Vector.from_coo(idx, vals, size=1, dtype=t, dup_op=gb.binary.plus)
        assert ours.to_coo()[1].tobytes() == ref.to_coo()[1].tobytes()


def test_long_and_short_runs(rng):
    """One run of 3000 duplicates among runs of one: every step of the fold is one vectorised
    call over the runs still folding."""
    import graphblas as gb

    idx = np.concatenate([np.zeros(3000, dtype=np.int64), np.arange(1, 200)])
    idx = idx[rng.permutation(len(idx))]
    vals = rng.integers(-3, 4, len(idx)).astype(np.int64)
    for op in ("minus", "rminus", "second", "plus"):
        ours = gg.Vector.from_coo(idx, vals, size=200, dup_op=op)
        ref = gb.Vector.from_coo(idx, vals, size=200, dup_op=getattr(gb.binary, op))
        _same(ours, ref, "INT64")


def test_values_pass_through_the_operators_type():
    """An operator typed apart from the values (lxnor on INT8 runs at BOOL, hypot on INT32 at
    FP64) sees every value cast to its type, lone entries too, and its results cast back:
    SuiteSparse's order. pair on FP64 is pair[FP64] (one type), keeping a lone value."""
    import graphblas as gb

    cases = (([0, 0, 1], [2, 5, 3], "INT8", "lxnor"), ([1, 0], [2, 0], "INT8", "lxnor"),
             ([1, 0], [2.5, -1], "FP32", "lxnor"),
             ([0, 0, 0, 0, 1], [1, 1, 1, 1, 7], "INT32", "hypot"),
             ([0, 0, 1], [2.5, 3.5, -0.75], "FP64", "pair"))
    for idx, vals, t, op in cases:
        ours = gg.Vector.from_coo(idx, vals, size=2, dtype=t, dup_op=op)
        ref = gb.Vector.from_coo(idx, vals, size=2, dtype=t, dup_op=getattr(gb.binary, op))
        _same(ours, ref, t)
    v = gg.Vector.from_coo([0, 0, 0, 0], [1, 1, 1, 1], size=1, dtype="INT32", dup_op="hypot")
    assert v.to_coo()[1].tolist() == [2]
    v = gg.Vector.from_coo([1, 0], 7, size=2, dtype="INT16", dup_op="lxnor")  # iso: 7 -> 1
    assert v.to_coo()[1].tolist() == [1, 1]


def test_iso_values_with_duplicates_are_combined():
    """A scalar value stands for that value at every coordinate; dup_op combines them
    (python-graphblas refuses a dup_op with a scalar: compared with the full array)."""
    import graphblas as gb

    ours = gg.Vector.from_coo([0, 2, 0, 0], 5, size=3, dup_op="minus")
    ref = gb.Vector.from_coo([0, 2, 0, 0], [5, 5, 5, 5], size=3, dup_op=gb.binary.minus)
    _same(ours, ref, "INT64")
    A = gg.Matrix.from_coo([0, 0], [1, 1], 2.0, nrows=1, ncols=2, dup_op="plus")
    assert A.to_coo()[2].tolist() == [4.0]
    B = gg.Matrix.from_coo([0, 1], [1, 1], 2.0, nrows=2, ncols=2, dup_op="plus")
    assert B._is_iso  # no duplicates: still iso


def test_from_scipy_dup_op():
    import scipy.sparse as sp

    S = sp.coo_matrix((np.array([10.0, 3.0, 2.0]), (np.array([1, 1, 1]), np.array([0, 0, 0]))),
                      shape=(2, 2))
    A = gg.Matrix.from_scipy(S, dup_op="minus")
    assert [a.tolist() for a in A.to_coo()] == [[1], [0], [5.0]]


@pytest.mark.parametrize("kind", ["vector", "matrix"])
def test_bad_dup_op_raises_and_inputs_are_unchanged(kind):
    """eq gives BOOL from numbers: GrB_DOMAIN_MISMATCH, with or without duplicates (as
    SuiteSparse); unknown names, non-operators, unary operators, semirings and positional
    operators are refused before anything is built; no dup_op with duplicates is
    GrB_INVALID_VALUE. The caller's arrays are never changed."""
    import graphblas as gb

    dup_idx, vals = np.array([2, 0, 2]), np.array([1.5, 2.0, 4.0])
    uniq_idx = np.array([2, 0, 1])
    for bad, cls in (("eq", DomainMismatch), ("lt", DomainMismatch),
                     ("nosuch", InvalidValue), (3, InvalidValue), ("plus_times", InvalidValue),
                     (semirings.unary.abs, DomainMismatch), (semirings.plus_times, DomainMismatch),
                     ("firsti", NotSupported)):
        for idx in (dup_idx, uniq_idx):
            before = idx.copy(), vals.copy()
            args = (idx,) if kind == "vector" else (idx, np.zeros_like(idx))
            with pytest.raises(cls, match="GrB_"):
                if kind == "vector":
                    gg.Vector.from_coo(*args, vals, size=3, dup_op=bad)
                else:
                    gg.Matrix.from_coo(*args, vals, nrows=3, ncols=1, dup_op=bad)
            np.testing.assert_array_equal(idx, before[0])
            np.testing.assert_array_equal(vals, before[1])
    with pytest.raises(gb.exceptions.DomainMismatch):  # the reference refuses eq too
        gb.Vector.from_coo(uniq_idx, vals, size=3, dup_op=gb.binary.eq)
    with pytest.raises(InvalidValue, match="duplicate entry"):
        gg.Vector.from_coo(dup_idx, vals, size=3)
    # bshift's y is INT8 in SuiteSparse: one type only on INT8
    with pytest.raises(DomainMismatch, match="identical"):
        gg.Vector.from_coo([0, 0], [1, 2], size=1, dtype="INT32", dup_op="bshift")
    with pytest.raises(gb.exceptions.DomainMismatch):
        gb.Vector.from_coo([0, 0], [1, 2], size=1, dtype="INT32", dup_op=gb.binary.bshift)
    ref = gb.Vector.from_coo([0, 0], [3, 1], size=1, dtype="INT8", dup_op=gb.binary.bshift)
    _same(gg.Vector.from_coo([0, 0], [3, 1], size=1, dtype="INT8", dup_op="bshift"), ref, "INT8")
    # eq on BOOL stays in BOOL: it is an operator that can combine (lxnor)
    v = gg.Vector.from_coo([0, 0, 0], [True, False, False], size=1, dup_op="eq")
    assert v.to_coo()[1].tolist() == [True]
