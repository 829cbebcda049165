"""grblas_gpu.sampling (the public random-selection API) and the container keywords sampling
uses (to_coo/to_csr values=False, Vector.from_coo trusted=True), on the active backend.

Uniform draws and picks are compared with plain-Python references of the documented
formulas, so the same tests prove NumPy and CUDA bit-identical."""
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu import sampling as gs

xp = backend.xp
H = backend.to_host

_GAMMA, _M1, _M2, _MASK = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 2**64 - 1


def ref_draw(key, counter):
    """splitmix64(key + (counter + 1)·γ), the documented draw, on Python ints."""
    z = (key + (int(counter) + 1) * _GAMMA) & _MASK
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


def ref_floyd(key, start, deg, k, off):
    """Floyd's k-subset of [start, start + deg), draws at counters off, off + 1, ..."""
    picks = []
    for step in range(k):
        j = deg - k + step
        r = ref_draw(key, off + step) % (j + 1)
        picks.append(start + (j if start + r in picks else r))
    return picks


def dev(a, dtype=np.int64):
    return xp.asarray(np.asarray(a, dtype=dtype))


# ---------------------------------------------------------------- random numbers
def test_stream_key_is_fixed_and_separates_streams():
    assert gs.stream_key(2024, 3) == gs.stream_key(np.int64(2024), 3) == 0xd42085ab66b99cc
    keys = {gs.stream_key(s, t) for s in range(20) for t in range(20)}
    assert len(keys) == 400 and all(0 <= k < 2**64 for k in keys)


def test_draws_match_the_formula():
    key = gs.stream_key(7, 1)
    counters = [0, 1, 5, 2**40, 3]
    bits = H(gs.draw_bits(key, dev(counters)))
    assert bits.dtype == np.uint64
    assert [int(b) for b in bits] == [ref_draw(key, c) for c in counters]
    unit = H(gs.draw_unit(key, counters))  # a list is copied to the backend
    assert unit.dtype == np.float64
    np.testing.assert_array_equal(unit, [(ref_draw(key, c) >> 11) / 2.0**53 for c in counters])
    assert ((unit >= 0) & (unit < 1)).all()


# ---------------------------------------------------------------- uniform selection
def test_uniform_with_replacement_matches_the_formula():
    starts, degs, counts = [0, 10, 4, 20], [3, 5, 0, 1], [4, 2, 0, 3]
    key = gs.stream_key(1, 0)
    pos, slot_of = gs.select_uniform(dev(starts), dev(degs), dev(counts), key,
                                     with_replacement=True)
    slot_of = H(slot_of)
    assert slot_of.tolist() == [0] * 4 + [1] * 2 + [3] * 3
    expect = [starts[s] + ref_draw(key, p) % degs[s] for p, s in enumerate(slot_of)]
    assert H(pos).tolist() == expect


def test_uniform_without_replacement_is_floyds_subset():
    starts, degs, counts = [0, 100, 7], [10, 4, 9], [3, 4, 9]
    key = gs.stream_key(5, 2)
    pos, slot_of = gs.select_uniform(dev(starts), dev(degs), dev(counts), key,
                                     with_replacement=False)
    pos, offs = H(pos).tolist(), np.concatenate([[0], np.cumsum(counts)])
    for s in range(3):
        got = pos[offs[s]:offs[s + 1]]
        assert got == ref_floyd(key, starts[s], degs[s], counts[s], offs[s])
        assert len(set(got)) == counts[s]
    assert H(slot_of).tolist() == [0] * 3 + [1] * 4 + [2] * 9


def test_uniform_take_all_and_large_subsets():
    k = gs.FLOYD_MAX_K + 40  # past Floyd: random keys sorted per slot
    starts, degs, counts = [0, 1000, 5], [k + 60, 3, 4], [k, 3, 2]
    take_all = np.array([False, False, True])
    pos, slot_of = gs.select_uniform(dev(starts), dev(degs), dev(counts), 11,
                                     with_replacement=False, take_all=take_all)
    pos, slot_of = H(pos), H(slot_of)
    big = pos[slot_of == 0]
    assert len(big) == k and len(set(big.tolist())) == k and big.min() >= 0 and big.max() < k + 60
    assert sorted(pos[slot_of == 1].tolist()) == [1000, 1001, 1002]
    assert pos[slot_of == 2].tolist() == [5, 6]


def test_selection_is_deterministic_and_depends_on_the_key():
    args = (dev([0, 50]), dev([50, 50]), dev([20, 20]))
    a = H(gs.select_uniform(*args, 3, with_replacement=False)[0])
    b = H(gs.select_uniform(*args, 3, with_replacement=False)[0])
    c = H(gs.select_uniform(*args, 4, with_replacement=False)[0])
    assert (a == b).all() and not (a == c).all()


def test_no_slots():
    pos, slot_of = gs.select_uniform([], [], [], 1, with_replacement=True)
    assert len(pos) == len(slot_of) == 0 and pos.dtype == np.int64


@pytest.mark.parametrize("itypes", [(np.int64, np.int64), (np.int32, np.int32),
                                    (np.int32, np.int64), (np.int64, np.int32)])
@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("k", [0, 1, 3, 7, gs.FLOYD_MAX_K + 5])
def test_uniform_rows_are_select_uniform_on_the_rows(itypes, replace, k):
    # rows of lengths 0, 2, 3, 7, 9, 1, 300: degree below, at and above k, repeats
    lengths = np.array([0, 2, 3, 7, 9, 1, 300])
    ptr = np.concatenate([[0], np.cumsum(lengths)])
    rows = np.array([4, 0, 1, 6, 2, 3, 3, 5, 4, 0, 6])
    key = gs.stream_key(9, 4)
    pos, slot_of = gs.select_uniform_rows(dev(ptr, itypes[0]), dev(rows, itypes[1]), k, key,
                                          with_replacement=replace)
    starts, degs = ptr[rows], lengths[rows]
    counts = np.where(degs > 0, k, 0) if replace else np.minimum(degs, k)
    take_all = np.zeros(len(rows), bool) if replace else degs <= k
    want, want_slot = gs.select_uniform(dev(starts), dev(degs), dev(counts), key,
                                        with_replacement=replace, take_all=dev(take_all, bool))
    assert pos.dtype == slot_of.dtype == np.int64
    assert H(pos).tolist() == H(want).tolist()
    assert H(slot_of).tolist() == H(want_slot).tolist()


def test_uniform_rows_without_slots_and_bad_input():
    pos, slot_of = gs.select_uniform_rows(dev([0, 3]), dev([]), 2, 1, with_replacement=True)
    assert len(pos) == len(slot_of) == 0 and pos.dtype == np.int64
    for replace in (True, False):  # a row outside the offsets: no picks, nothing read there
        pos, slot_of = gs.select_uniform_rows(dev([0, 3]), dev([-1, 0, 1, 99]), 2, 1,
                                              with_replacement=replace)
        assert H(slot_of).tolist() == [1, 1] and set(H(pos).tolist()) <= {0, 1, 2}
    for call in (lambda: gs.select_uniform_rows([0, 2], [0], -1, 1, with_replacement=True),
                 lambda: gs.select_uniform_rows([0, 2], [0], 2**63, 1, with_replacement=True),
                 lambda: gs.select_uniform_rows([], [], 1, 1, with_replacement=True),
                 lambda: gs.select_uniform_rows([0, 2], [0.5], 1, 1, with_replacement=True),
                 lambda: gs.select_uniform_rows([0, 2], [0], 1, -1, with_replacement=True),
                 lambda: gs.select_uniform_rows([0, 2], [0], 1, 1, with_replacement=None)):
        with pytest.raises(gg.InvalidValue):
            call()


# ---------------------------------------------------------------- biased selection
def table():
    # segment 0: candidates 0..2 (weights 1, 0, 3); segment 1: 3..4 (2, 2); segment 2: empty
    return gs.bias_table(dev([0, 3, 5, 5]), dev([1.0, 0.0, 3.0, 2.0, 2.0], np.float64))


def test_bias_table_fields():
    t = table()
    assert isinstance(t, gs.BiasTable)
    assert H(t.npos).tolist() == [2, 2, 0]
    assert H(t.last).tolist()[:2] == [2, 4]
    np.testing.assert_allclose(H(t.cum), [0.25, 0.25, 1.0, 1.5, 2.0])
    np.testing.assert_allclose(H(t.base), [0.0, 1.0, 2.0])


@pytest.mark.parametrize("offsets, weights", [([0, 3], [1.0, 2.0]), ([1, 2], [1.0, 2.0]),
                                              ([0, 2, 1, 2], [1.0, 2.0]), ([0, 2], [1.0, -1.0]),
                                              ([0, 2], [1.0, np.inf]), ([], []),
                                              ([0, 2], [[1.0], [2.0]])])
def test_bias_table_checks_its_input(offsets, weights):
    with pytest.raises(gg.InvalidValue):
        gs.bias_table(offsets, np.asarray(weights))


@pytest.mark.parametrize("replace", [True, False])
def test_biased_picks_follow_the_weights(replace):
    t = table()
    counts = [2, 2, 0, 1]
    pos, slot_of = gs.select_biased(t, dev([0, 1, 2, 0]), dev(counts), gs.stream_key(3, 3),
                                    with_replacement=replace)
    pos, slot_of = H(pos), H(slot_of)
    assert slot_of.tolist() == [0, 0, 1, 1, 3]
    assert set(pos[slot_of == 0]) <= {0, 2} and set(pos[slot_of == 3]) <= {0, 2}
    assert set(pos[slot_of == 1]) <= {3, 4}
    if not replace:
        assert sorted(pos[slot_of == 0]) == [0, 2] and sorted(pos[slot_of == 1]) == [3, 4]
    again = H(gs.select_biased(t, dev([0, 1, 2, 0]), dev(counts), gs.stream_key(3, 3),
                               with_replacement=replace)[0])
    assert (again == pos).all()


def test_biased_frequencies():
    t = gs.bias_table([0, 4], np.array([1.0, 2.0, 0.0, 5.0]))
    pos, _ = gs.select_biased(t, [0], [80000], 99, with_replacement=True)
    freq = np.bincount(H(pos), minlength=4) / 80000
    np.testing.assert_allclose(freq, [1 / 8, 2 / 8, 0, 5 / 8], atol=0.01)


def test_biased_large_subsets_without_replacement():
    n = gs.FLOYD_MAX_K + 100
    w = np.ones(n)
    w[::7] = 0.0
    t = gs.bias_table([0, n], w)
    k = int(H(t.npos)[0]) - 3
    pos, _ = gs.select_biased(t, [0], [k], 5, with_replacement=False)
    pos = H(pos)
    assert len(pos) == k and len(set(pos.tolist())) == k and (w[pos] > 0).all()


def test_repeat_index():
    assert H(gs.repeat_index(dev([2, 0, 3, 1]))).tolist() == [0, 0, 2, 2, 2, 3]
    assert len(gs.repeat_index([])) == 0


@pytest.mark.parametrize("call", [
    lambda: gs.select_uniform([0, 1], [1], [1, 1], 1, with_replacement=True),
    lambda: gs.select_uniform([0], [1], [1], -1, with_replacement=True),
    lambda: gs.select_uniform([0], [1], [1], 2**64, with_replacement=True),
    lambda: gs.select_uniform([0], [1], [1], 1, with_replacement="yes"),
    lambda: gs.select_uniform([0], [1], [1], 1, with_replacement=True, take_all=[True]),
    lambda: gs.select_uniform([0], [1], [1], 1, with_replacement=True,
                              take_all=np.array([True, False])),
    lambda: gs.select_uniform([0.5], [1], [1], 1, with_replacement=True),
    lambda: gs.select_biased(tuple(table()), [0], [1], 1, with_replacement=True),
    lambda: gs.select_biased(table(), [0, 1], [1], 1, with_replacement=True),
    lambda: gs.stream_key(-1, 0),
    lambda: gs.stream_key(1, 1.5),
    lambda: gs.draw_bits(1, np.ones((2, 2), dtype=np.int64)),
    lambda: gs.repeat_index(np.array([1.0])),
])
def test_bad_input_raises_invalid_value(call):
    with pytest.raises(gg.InvalidValue):
        call()


# ---------------------------------------------------------------- container keywords
def test_matrix_exports_without_values():
    A = gg.Matrix.from_coo([0, 0, 2], [1, 2, 0], 1.0, nrows=3, ncols=3)  # iso
    rows, cols, vals = A.to_coo(device=True, values=False)
    assert vals is None and H(rows).tolist() == [0, 0, 2] and H(cols).tolist() == [1, 2, 0]
    indptr, indices, vals = A.to_csr(device=True, values=False)
    assert vals is None and H(indptr).tolist() == [0, 2, 2, 3]
    # the storage itself, not copies
    assert indices is A.to_csr(device=True)[1] and rows is A.to_coo(device=True)[0]
    host = A.to_coo(values=False)
    assert isinstance(host[0], np.ndarray) and host[2] is None
    assert A.to_csr(values=False)[2] is None
    assert H(A.to_coo(device=True)[2]).tolist() == [1.0, 1.0, 1.0]


def test_vector_exports_without_values():
    v = gg.Vector.from_coo([1, 4], [3, 5], size=6, dtype="INT64")
    idx, vals = v.to_coo(device=True, values=False)
    assert vals is None and H(idx).tolist() == [1, 4]
    assert idx is v.to_coo(device=True)[0]
    assert v.to_coo(values=False)[1] is None


def test_vector_from_coo_trusted_adopts_the_arrays():
    idx = dev([1, 3, 7], np.int32)
    vals = dev([10, 20, 30])
    v = gg.Vector.from_coo(idx, vals, size=9, dtype=gg.INT64, trusted=True)
    assert v.isequal(gg.Vector.from_coo([1, 3, 7], [10, 20, 30], size=9, dtype="INT64"))
    same = backend.data_address
    got_idx, got_vals = v.to_coo(device=True)
    assert same(got_idx) == same(idx) and same(got_vals) == same(vals)  # adopted, not copied
    iso = gg.Vector.from_coo(idx, 1, size=9, dtype=gg.INT64, trusted=True)
    assert iso.to_coo()[1].tolist() == [1, 1, 1] and same(iso.to_coo(device=True)[0]) == same(idx)
    pattern = gg.Vector.from_coo(idx, None, size=9, dtype=gg.BOOL, trusted=True)
    assert pattern.nvals == 3 and pattern.to_coo()[1].tolist() == [True] * 3


@pytest.mark.parametrize("kwargs", [dict(dtype="INT64"), dict(size=9), dict(size=9, dtype="INT64", dup_op="plus"),
                                    dict(size=9, dtype="INT64", indices=[1, 3, 7]),
                                    dict(size=9, dtype="INT64", values=np.ones(2, dtype=np.int64)),
                                    dict(size=9, dtype="INT64", values=np.ones(3, dtype=complex)),
                                    dict(size=9, dtype="INT64", values="x"),
                                    dict(size=9, dtype="INT64", indices=np.ones((3, 1), dtype=np.int64))])
def test_vector_from_coo_trusted_checks_types_and_lengths(kwargs):
    args = dict(indices=xp.asarray(np.array([1, 3, 7])), values=xp.asarray(np.array([1, 2, 3])))
    args.update(kwargs)
    if "values" in kwargs and isinstance(kwargs["values"], np.ndarray):
        args["values"] = xp.asarray(kwargs["values"])
    if "indices" in kwargs and isinstance(kwargs["indices"], np.ndarray):
        args["indices"] = xp.asarray(kwargs["indices"])
    with pytest.raises(gg.GraphBLASError):
        gg.Vector.from_coo(args.pop("indices"), args.pop("values"), trusted=True, **args)


def test_matrix_from_csr_trusted_adopts_the_arrays():
    ptr, idx, vals = dev([0, 1, 1, 3], np.int32), dev([2, 0, 2], np.int32), dev([10, 20, 30])
    A = gg.Matrix.from_csr(ptr, idx, vals, ncols=3, dtype=gg.INT64, trusted=True)
    assert A.isequal(gg.Matrix.from_coo([0, 2, 2], [2, 0, 2], [10, 20, 30], nrows=3, ncols=3,
                                        dtype="INT64"))
    same = backend.data_address
    got = A.to_csr(device=True)
    assert [same(a) for a in got] == [same(a) for a in (ptr, idx, vals)]  # adopted, not copied
    iso = gg.Matrix.from_csr(ptr, idx, 1, ncols=3, dtype=gg.INT32, trusted=True)
    assert H(iso.to_coo()[2]).tolist() == [1, 1, 1] and iso.shape == (3, 3)
    pattern = gg.Matrix.from_csr(ptr, idx, None, ncols=4, dtype=gg.BOOL, trusted=True)
    assert pattern.shape == (3, 4) and pattern.nvals == 3


def test_matrix_replace_indices_moves_entries_and_keeps_row_forms():
    """P(i, f(i)), one entry per row, moved in place: products read the new columns (pull by
    rows, push, and the rebuilt CSC for Aᵀ), values stay, forms of the row offsets stay."""
    n = 6
    ptr = xp.arange(n + 1, dtype=np.int32)
    P = gg.Matrix.from_csr(ptr, dev([1, 2, 2, 0, 5, 5], np.int32), dev(np.arange(10, 16)),
                           ncols=n, dtype=gg.INT64, trusted=True)
    u = gg.Vector.from_dense(xp.arange(100, 100 + n, dtype=np.int64))
    w = gg.Vector(gg.INT64, n)
    gg.mxv(w, P, u, "min_second")                   # makes P's row forms (and its pull plan)
    assert H(w.to_dense()).tolist() == [101, 102, 102, 100, 105, 105]
    P.T.to_coo()                                    # and the CSC form
    P.memo("fuzz", lambda: 1)
    kept = {k for k in P._cache if gg.matrix._row_form(k, backend.data_address(ptr))}
    assert "no_empty_rows" in kept
    new = dev([0, 0, 3, 3, 4, 1], np.int32)
    assert P.replace_indices(new) is P
    assert set(P._cache) == kept                    # CSC, memos dropped; row forms kept
    got = P.to_csr(device=True)
    assert backend.data_address(got[1]) == backend.data_address(new)    # adopted
    assert backend.data_address(got[0]) == backend.data_address(ptr)
    assert P.isequal(gg.Matrix.from_coo(range(n), [0, 0, 3, 3, 4, 1], range(10, 16),
                                        nrows=n, ncols=n, dtype=gg.INT64))
    gg.mxv(w, P, u, "min_second")
    assert H(w.to_dense()).tolist() == [100, 100, 103, 103, 104, 101]
    assert w.nvals == n
    t = gg.Vector(gg.INT64, n)
    gg.vxm(t, u, P, "min_first", direction="push")  # T(j) = min over rows i with f(i) = j
    assert H(t.to_coo()[0]).tolist() == [0, 1, 3, 4] and H(t.to_coo()[1]).tolist() == [100, 105, 102, 104]
    gg.mxv(t, P.T, u, "plus_first", direction="pull")   # the CSC made from the new indices
    assert H(t.to_coo()[0]).tolist() == [0, 1, 3, 4]
    assert H(t.to_coo()[1]).tolist() == [21, 15, 25, 14]


@pytest.mark.parametrize("bad", [[0, 0, 3, 3, 4, 1], np.zeros(6, np.int64), np.zeros(5, np.int32),
                                 np.zeros((6, 1), np.int32), np.zeros(6, np.float32), None])
def test_matrix_replace_indices_checks_type_and_length(bad):
    P = gg.Matrix.from_csr(xp.arange(7, dtype=np.int32), dev([1, 2, 2, 0, 5, 5], np.int32), None,
                           ncols=6, dtype=gg.BOOL, trusted=True)
    assert P.index_dtype == np.int32
    before = P.to_coo()
    if isinstance(bad, np.ndarray):
        bad = xp.asarray(bad)
    with pytest.raises(gg.InvalidValue):
        P.replace_indices(bad)
    assert all((a == b).all() for a, b in zip(P.to_coo(), before))


@pytest.mark.parametrize("kwargs", [dict(dtype="INT64"), dict(ncols=3),
                                    dict(ncols=3, dtype="INT64", indptr=[0, 1, 1, 3]),
                                    dict(ncols=3, dtype="INT64", indices=[2, 0, 2]),
                                    dict(ncols=3, dtype="INT64", indptr=np.zeros(0, np.int64)),
                                    dict(ncols=3, dtype="INT64", indices=np.ones((3, 1), np.int64)),
                                    dict(ncols=3, dtype="INT64", values=np.ones(2, np.int64)),
                                    dict(ncols=3, dtype="INT64", values=np.ones(3, complex)),
                                    dict(ncols=3, dtype="INT64", values="x"),
                                    dict(ncols=-1, dtype="INT64"),
                                    dict(ncols=3, dtype="INT64", trusted="yes")])
def test_matrix_from_csr_trusted_checks_types_and_lengths(kwargs):
    args = dict(indptr=np.array([0, 1, 1, 3]), indices=np.array([2, 0, 2]),
                values=np.array([1, 2, 3]), trusted=True)
    args.update(kwargs)
    for k in ("indptr", "indices", "values"):
        if isinstance(args[k], np.ndarray):
            args[k] = xp.asarray(args[k])
    with pytest.raises(gg.GraphBLASError):
        gg.Matrix.from_csr(args.pop("indptr"), args.pop("indices"), args.pop("values"), **args)
