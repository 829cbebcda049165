"""operations._keys: entries as sorted linear keys (shared by write-back and ewise)."""
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu.operations import _keys

xp = backend.xp


def _host(a):
    return backend.to_host(a).tolist()


@settings(max_examples=100, deadline=None, derandomize=True)
@given(a=st.sets(st.integers(0, 200)), b=st.sets(st.integers(0, 200)))
def test_member_and_merge_positions(a, b):
    ka, kb = xp.asarray(sorted(a), dtype=np.int64), xp.asarray(sorted(b), dtype=np.int64)
    found, pos = _keys.member(ka, kb)
    assert _host(found) == [x in b for x in sorted(a)]
    assert [int(backend.to_host(kb)[p]) for p, f in zip(_host(pos), _host(found)) if f] == \
        [x for x in sorted(a) if x in b]
    only_b = xp.asarray(sorted(b - a), dtype=np.int64)
    pa, pb = _keys.merge_positions(ka, only_b)
    merged = [None] * (len(a) + len(b - a))
    for p, x in zip(_host(pa), sorted(a)):
        merged[p] = x
    for p, x in zip(_host(pb), sorted(b - a)):
        merged[p] = x
    assert merged == sorted(a | b)
    k, order = _keys.sorted_concat(ka, only_b)
    assert _host(k) == sorted(a | b) and len(_host(order)) == len(merged)


def test_linear_keys_keep_row_major_order_even_for_huge_shapes():
    rows, cols = xp.asarray([0, 0, 3, 7]), xp.asarray([5, 9, 0, 2])
    for shape in ((8, 10), (2**40, 2**40)):  # the second needs ranked keys
        (k,) = _keys.linear_keys(SimpleNamespace(shape=shape), [(rows, cols)])  # reads .shape
        assert _host(xp.argsort(k)) == [0, 1, 2, 3] and len(set(_host(k))) == 4


def test_entries_and_build_like():
    A = gg.Matrix.from_coo([0, 2], [1, 0], [5, 6], nrows=3, ncols=2)
    r, c, v = _keys.entries(A)
    B = _keys.build_like(A, r, c, v)
    assert B.isequal(A)
    I = _keys.build_like(A, r, c, None, dtype=gg.FP32, iso=2.5)
    assert I.dtype == gg.FP32 and I._is_iso and I.to_coo()[2].tolist() == [2.5, 2.5]
    u = gg.Vector.from_coo([1, 4], [7, 8], size=6)
    idx, none, vals = _keys.entries(u)
    assert none is None and _keys.build_like(u, idx, None, vals).isequal(u)
