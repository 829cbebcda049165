import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import backend
from conftest import random_coo, snapshot


def test_from_coo_round_trip_all_types(rng):
    for t in gg.types.ALL_TYPES:
        idx, _, vals = random_coo(rng, 30, 1, 0.3, t)
        v = gg.Vector.from_coo(idx, vals, size=30, dtype=t)
        i2, v2 = v.to_coo()
        np.testing.assert_array_equal(i2, idx)
        np.testing.assert_array_equal(v2, vals)
        assert v.nvals == len(idx) and v.dtype is t and v.size == 30


def test_host_and_device_entries_build_the_same_vector(rng):
    """Few entries handed over from the host are checked and sorted there; device arrays
    (and many entries) take the general path. Both must build what python-graphblas builds,
    from unsorted indices, array, scalar and absent values, typecast to another dtype."""
    import graphblas as gb

    from grblas_gpu import backend
    from grblas_gpu.vector import HOST_BUILD_MAX

    n = 1000
    for t in ("BOOL", "INT8", "UINT16", "INT64", "FP32", "FP64"):
        for count, ordered in ((1, False), (37, False), (37, True), (HOST_BUILD_MAX + 1, False)):
            idx = rng.permutation(max(n, count + 1))[:count]
            idx = np.sort(idx) if ordered else idx
            vals = rng.integers(0, 100, count).astype(np.float64) + 0.5  # in every range
            size = max(n, count + 1)
            ref = gb.Vector.from_coo(idx, vals, size=size, dtype=t)
            for host in (True, False):
                i_in = idx if host else backend.asarray(idx)
                v_in = vals if host else backend.asarray(vals)
                for values, gref in ((v_in, ref), (np.float64(2.5), None), (None, None)):
                    v = gg.Vector.from_coo(i_in, values, size=size, dtype=t)
                    if gref is None:
                        gref = gb.Vector.from_coo(idx, values if values is not None else True,
                                                  size=size, dtype=t)
                    gi, gv = gref.to_coo()
                    i2, v2 = v.to_coo()
                    np.testing.assert_array_equal(i2, gi)
                    np.testing.assert_array_equal(v2, gv)
                    assert v.dtype.name == t and v.nvals == count and v.size == size


def test_many_host_builds_in_a_row_keep_their_entries(rng):
    """Host entries reach the device through reused staging buffers (backend.to_device):
    vectors built back to back, none read in between, each keep their own entries, and
    duplicates in host entries are still combined (or rejected) by the general path."""
    built = []
    for k in range(300):
        idx = rng.choice(5000, 1 + k % 50, replace=False)
        vals = rng.integers(-1000, 1000, len(idx))
        built.append((idx, vals, gg.Vector.from_coo(idx, vals, size=5000, dtype=gg.INT32)))
    for idx, vals, v in built:
        i2, v2 = v.to_coo()
        order = np.argsort(idx)
        np.testing.assert_array_equal(i2, idx[order])
        np.testing.assert_array_equal(v2, vals[order])
    dup = gg.Vector.from_coo(np.array([3, 1, 3]), np.array([1, 2, 4]), size=9, dup_op="plus")
    assert dup.to_coo()[0].tolist() == [1, 3] and dup.to_coo()[1].tolist() == [2, 5]
    with pytest.raises(gg.errors.InvalidValue):
        gg.Vector.from_coo(np.array([3, 1, 3]), np.array([1, 2, 4]), size=9)


def test_sparse_dense_forms_switch_and_agree(rng):
    idx, _, vals = random_coo(rng, 50, 1, 0.5, "FP64")
    v = gg.Vector.from_coo(idx[::-1].copy(), vals[::-1].copy(), size=50)
    assert v.format == "sparse" and v.has_sparse and not v.has_dense
    dense = v.to_dense(fill=-1)
    expect = np.full(50, -1.0)
    expect[idx] = vals
    np.testing.assert_array_equal(dense, expect)
    v.set_format("dense")
    assert v.format == "dense" and not v.has_sparse
    np.testing.assert_array_equal(v.to_coo()[0], idx)
    v.set_format("auto")
    assert v.format == ("dense" if len(idx) > 50 * gg.vector.DENSE_THRESHOLD else "sparse")
    with pytest.raises(gg.InvalidValue):
        v.set_format("diagonal")


def test_from_dense_and_missing_value():
    v = gg.Vector.from_dense(np.array([0, 3, 0, 4]))
    assert v.nvals == 4 and v.has_dense
    w = gg.Vector.from_dense(np.array([0, 3, 0, 4]), missing_value=0)
    assert w.nvals == 2 and w[1] == 3 and w[0] is None


def test_iso_and_dup_op():
    v = gg.Vector.from_coo([3, 1], size=5)
    assert v.dtype is gg.BOOL and v.nvals == 2 and v[1]
    w = gg.Vector.from_coo([1, 1, 2], [1.5, 2.5, 3.0], dup_op="max")
    assert w[1] == 2.5 and w.size == 3


def test_element_access_and_whole_object_ops():
    v = gg.Vector(gg.INT64, 4)
    v[2] = 9
    v[0] = 1
    assert v[2] == 9 and v[1] is None and v.nvals == 2
    del v[2]
    assert v.nvals == 1
    c = v.dup()
    c[3] = 4
    assert v.nvals == 1 and c.nvals == 2
    c.resize(3)
    assert c.size == 3 and c.nvals == 1
    c.clear()
    assert c.nvals == 0
    assert v.isequal(gg.Vector.from_coo([0], [1], size=4, dtype=gg.INT64))
    assert not v.isequal(gg.Vector.from_coo([0], [2], size=4, dtype=gg.INT64))
    assert "size=4" in repr(v) and "INT64" in repr(v)


@pytest.mark.parametrize("build, exc", [
    (lambda: gg.Vector.from_coo([0, 5], [1, 2], size=5), gg.IndexOutOfBounds),
    (lambda: gg.Vector.from_coo([0, 0], [1, 2]), gg.InvalidValue),
    (lambda: gg.Vector.from_coo([0, 1], [1.0]), gg.DimensionMismatch),
    (lambda: gg.Vector.from_coo([[0, 1]], [1.0, 2.0]), gg.InvalidValue),
    (lambda: gg.Vector.from_dense(np.zeros((2, 2))), gg.InvalidValue),
    (lambda: gg.Vector(gg.FP32, -3), gg.InvalidValue),
])
def test_bad_construction(build, exc):
    with pytest.raises(exc):
        build()


def test_bad_access_changes_nothing():
    v = gg.Vector.from_coo([0, 2], [1.0, 2.0], size=3)
    before = snapshot(v)
    with pytest.raises(gg.IndexOutOfBounds):
        v[3] = 1.0
    with pytest.raises(gg.IndexOutOfBounds):
        del v[-1]
    with pytest.raises(gg.InvalidValue):
        v["a"]
    assert snapshot(v) == before


def test_huge_sparse_vector():
    n = 2**40
    v = gg.Vector.from_coo([n - 1, 3, 3], [1.0, 2.0, 5.0], size=n, dup_op="plus")
    idx, vals = v.to_coo()
    np.testing.assert_array_equal(idx, [3, n - 1])
    np.testing.assert_array_equal(vals, [7.0, 1.0])
    assert v[n - 1] == 1.0 and v.nvals == 2


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 4099, 200_003])
def test_count_true_counts_every_nonzero_byte(n):
    """backend.count_true (a Vector's count of its bitmap): any nonzero byte is a True, at
    every length (the 16-byte words and the tail), and at an unaligned start."""
    rng = np.random.default_rng(n)
    raw = (rng.integers(0, 256, n + 1) * (rng.random(n + 1) < 0.3)).astype(np.uint8)
    flags = backend.xp.asarray(raw).view(bool)
    assert backend.count_true(flags[:n]) == int(np.count_nonzero(raw[:n]))
    assert backend.count_true(flags[1:]) == int(np.count_nonzero(raw[1:]))
