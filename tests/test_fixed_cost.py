"""The host-side shortcuts of a small operation (issue 35) give what the long way gives:
masks built without re-checking, the semiring memo, the NumPy push's ANY path and
expand's NumPy branch."""
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import backend, operators
from grblas_gpu.descriptor import resolve_mask
from grblas_gpu.kernels.common import expand
from grblas_gpu.mask import NOT_NULL, Mask


def test_masks_equal_checked_ones():
    v = gg.Vector(gg.FP64, 4)
    assert v.S == Mask(v, True, False) and v.V == Mask(v) and ~v == Mask(v, False, True)
    assert ~v.S == Mask(v, True, True) and ~~v.V == v.V
    with pytest.raises(gg.InvalidValue):
        ~NOT_NULL
    m = ~v.S
    assert resolve_mask(m, gg.Descriptor()) is m
    assert resolve_mask(m, gg.Descriptor(mask_structure=True)) == m
    assert resolve_mask(m, gg.Descriptor(mask_complement=True)) == v.S


def test_semiring_memo_keeps_operators_apart():
    a = semirings.make_semiring("memo_sr", semirings.monoid.plus, semirings.binary.times,
                                register=False)
    b = semirings.make_semiring("memo_sr", semirings.monoid.max, semirings.binary.plus,
                                register=False)
    ta, tb = (operators.semiring(s, gg.FP64, gg.FP64) for s in (a, b))
    assert ta.op is a and tb.op is b
    assert operators.semiring(a, gg.FP64, gg.FP64) is ta
    assert operators.semiring("plus_times", gg.INT32, gg.FP32) is operators.semiring(
        "plus_times", gg.INT32, gg.FP32)
    with pytest.raises(gg.InvalidValue):
        operators.semiring("no_such_semiring", gg.FP64, gg.FP64)


@pytest.mark.parametrize("vecs, lengths", [([], None), ([0, 3, 4], None), ([4, 1, 1], None),
                                           ([0, 2, 3], [1, 0, 2])])
def test_expand_matches_the_loop(vecs, lengths):
    ptr = np.array([0, 2, 2, 5, 6, 9])
    vecs = np.array(vecs, dtype=np.int64)
    xp = backend.xp
    pos, owner = expand(xp.asarray(ptr), xp.asarray(vecs),
                        None if lengths is None else xp.asarray(np.array(lengths)))
    want = [(p, o) for o, v in enumerate(vecs)
            for p in range(ptr[v], ptr[v] + (ptr[v + 1] - ptr[v] if lengths is None
                                              else lengths[o]))]
    assert list(zip(pos.tolist(), owner.tolist())) == want
    assert pos.dtype == np.int64


@pytest.mark.parametrize("semiring", ["any_secondi", "any_pair", "any_first", "min_second",
                                      "plus_times"])
@pytest.mark.parametrize("masked", [False, True])
def test_push_equals_pull(semiring, masked):
    rng = np.random.default_rng(35)
    n = 300
    keys = np.unique(rng.integers(0, n * n, 2400))
    A = gg.Matrix.from_coo(keys // n, keys % n, rng.random(len(keys)), nrows=n, ncols=n)
    qi = np.sort(rng.choice(n, 12, replace=False))
    q = gg.Vector.from_coo(qi, rng.random(12), size=n)
    p = gg.Vector.from_coo(np.sort(rng.choice(n, 90, replace=False)), 1.0, size=n)
    sr = getattr(semirings, semiring)
    out = []
    for direction in ("push", "pull"):
        w = gg.Vector(operators.semiring(sr, gg.FP64, gg.FP64).out_type, n)
        gg.vxm(w, q, A, sr, mask=~p.S if masked else None, direction=direction)
        out.append(w.to_coo())
    assert out[0][0].tolist() == out[1][0].tolist()
    if semiring == "any_secondi":
        # any parent k of j is right: k in q with A(k, j) stored
        edges = set(zip((keys // n).tolist(), (keys % n).tolist()))
        for idx, parents in out:
            assert all(k in set(qi.tolist()) and (k, j) in edges
                       for j, k in zip(idx.tolist(), parents.tolist()))
        if not backend.is_gpu:  # NumPy's push takes the first term, the pull's smallest k
            assert out[0][1].tolist() == out[1][1].tolist()
    elif not semiring.startswith("any"):
        np.testing.assert_allclose(out[0][1], out[1][1])
