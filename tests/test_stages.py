"""Multi-stage requests (FILL_NNZ, FILL_ENTRIES): caller buffers that cannot receive the
result are rejected with InvalidValue before anything is written. Each case checks the
exception, that the output (its content and its pending count), the operands and the
buffers are unchanged, and that the request then completes with proper buffers."""
import numpy as np
import pytest

from conftest import snapshot

import grblas_gpu as gg

xp = gg.backend.xp
FILL_NNZ, FILL_ENTRIES = gg.Request.FILL_NNZ, gg.Request.FILL_ENTRIES


def _operands():
    A = gg.Matrix.from_coo([0, 0, 1, 2, 2], [0, 2, 1, 0, 2], [1, 2, 3, 4, 5], nrows=3, ncols=3,
                           dtype="INT64")
    B = gg.Matrix.from_coo([0, 1, 1, 2, 2], [1, 0, 2, 0, 2], [6, 7, 8, 9, 1], nrows=3, ncols=3,
                           dtype="INT64")
    return A, B


def _content(X):
    """The entries as plain lists (the index arrays' types aside)."""
    return [np.asarray(a).tolist() for a in X.to_coo()]


def _expected(A, B):
    return _content(gg.mxm(gg.Matrix("INT64", 3, 3), A, B))


def _copies(arrays):
    return [gg.backend.to_host(a).copy() for a in arrays]


def _unchanged(arrays, saved):
    return all(np.array_equal(gg.backend.to_host(a), s) for a, s in zip(arrays, saved))


def _byte_views(n, dtype_a, dtype_b, shift=8):
    """Two contiguous arrays of n elements carved from one allocation, overlapping."""
    raw = xp.zeros(n * 8 + shift + 8, dtype=np.uint8)
    a = raw[:n * np.dtype(dtype_a).itemsize].view(dtype_a)
    b = raw[shift:shift + n * np.dtype(dtype_b).itemsize].view(dtype_b)
    return a, b


@pytest.mark.parametrize("case", ["same_array", "one_allocation", "values_in_an_operand",
                                  "indices_over_offsets", "values_over_offsets"])
def test_entry_buffers_that_alias(case):
    A, B = _operands()
    # A larger than the result: a slice of its values has the result's length
    big = gg.Matrix.from_coo(np.arange(9) // 3, np.arange(9) % 3, np.arange(9), nrows=3,
                             ncols=3, dtype="INT64")
    C = gg.Matrix("INT64", 3, 3)
    raw = xp.zeros((4 + 9) * 8, dtype=np.uint8)
    indptr = raw[:32].view(np.int64) if case.endswith("offsets") else xp.zeros(4, np.int64)
    C.set_csr(indptr=indptr)
    gg.mxm(C, A, big if case == "values_in_an_operand" else B, request=FILL_NNZ)
    n = C.nvals
    if case == "same_array":
        indices = values = xp.zeros(n, dtype=np.int64)
    elif case == "one_allocation":
        indices, values = _byte_views(n, np.int64, np.int64)
    elif case == "values_in_an_operand":
        indices, values = xp.zeros(n, dtype=np.int64), big.get_csr()[2][:n]
    elif case == "indices_over_offsets":
        indices, values = raw[8:8 + 8 * n].view(np.int64), xp.zeros(n, dtype=np.int64)
    else:
        indices, values = xp.zeros(n, dtype=np.int64), raw[16:16 + 8 * n].view(np.int64)
    buffers = [indptr, indices, values]
    saved, before = _copies(buffers), snapshot(C)
    ops_before = [snapshot(X) for X in (A, B, big)]
    with pytest.raises(gg.InvalidValue):
        C.set_csr(indptr, indices, values)
        gg.mxm(C, A, big if case == "values_in_an_operand" else B, request=FILL_ENTRIES)
    assert snapshot(C) == before and C.nvals == n
    assert _unchanged(buffers, saved)
    assert [snapshot(X) for X in (A, B, big)] == ops_before
    # the pending result is still there: proper buffers complete the request
    C.set_csr(indptr, xp.zeros(n, dtype=np.int64), xp.zeros(n, dtype=np.int64))
    second = big if case == "values_in_an_operand" else B
    gg.mxm(C, A, second, request=FILL_ENTRIES)
    assert _content(C) == _expected(A, second)


@pytest.mark.parametrize("owner", ["input", "output"])
def test_offsets_buffer_in_an_operands_storage(owner):
    A, B = _operands()
    C = gg.Matrix.from_coo([1], [1], [7], nrows=3, ncols=3, dtype="INT64")
    X = A if owner == "input" else C
    indptr = X.get_csr()[0]
    saved, before, a_before = _copies([indptr]), snapshot(C), snapshot(A)
    with pytest.raises(gg.InvalidValue):
        C.set_csr(indptr=indptr)
        gg.mxm(C, A, B, request=FILL_NNZ)
    assert snapshot(C) == before and snapshot(A) == a_before
    assert _unchanged([indptr], saved)


def test_offsets_buffer_read_only_wrong_type_length_or_strided():
    A, B = _operands()
    C = gg.Matrix("INT64", 3, 3)
    bad = [xp.zeros(4, dtype=np.float64), xp.zeros(3, dtype=np.int64),
           xp.zeros(8, dtype=np.int64)[::2], xp.zeros((4, 1), dtype=np.int64)]
    if not gg.backend.is_gpu:  # CuPy arrays cannot be made read-only
        ro = np.zeros(4, dtype=np.int64)
        ro.flags.writeable = False
        bad.append(ro)
    for buf in bad:
        with pytest.raises(gg.InvalidValue):
            C.set_csr(indptr=buf)
        assert C._stage is None and C.nvals == 0
    with pytest.raises(gg.InvalidValue):  # no offsets buffer attached
        gg.mxm(C, A, B, request=FILL_NNZ)


def _vector_setup(dense_u=False):
    A, _ = _operands()
    u = (gg.Vector.from_dense(xp.asarray([1, 2, 3], dtype=np.int64)) if dense_u
         else gg.Vector.from_coo([0, 1, 2], [1, 2, 3], size=3, dtype="INT64"))
    w = gg.Vector("INT64", 3)
    gg.mxv(w, A, u, request=FILL_NNZ)
    return A, u, w


@pytest.mark.parametrize("case", ["same_array", "one_allocation", "indices_of_u", "values_of_u",
                                  "dense_of_u", "dense_of_w"])
def test_vector_buffers_that_alias(case):
    A, u, w = _vector_setup(dense_u=case == "dense_of_u")
    n = w.nvals
    if case == "dense_of_w":
        w = gg.Vector.from_dense(xp.asarray([5, 6, 7], dtype=np.int64))
        gg.mxv(w, A, u, request=FILL_NNZ)
    if case == "same_array":
        bufs = [xp.zeros(n, dtype=np.int64)] * 2
    elif case == "one_allocation":
        bufs = list(_byte_views(n, np.int64, np.int64))
    elif case == "indices_of_u":
        bufs = [u.get_sparse()[0], xp.zeros(n, dtype=np.int64)]
    elif case == "values_of_u":
        bufs = [xp.zeros(n, dtype=np.int64), u._sparse()[1]]
    elif case == "dense_of_u":
        bufs = [u._dense_form()[0]]
    else:
        bufs = [w._dense_form()[0]]
    saved, before, u_before = _copies(bufs), snapshot(w), snapshot(u)
    with pytest.raises(gg.InvalidValue):
        if len(bufs) == 2:
            w.set_sparse(*bufs)
        else:
            w.set_dense(bufs[0])
        gg.mxv(w, A, u, request=FILL_ENTRIES)
    assert snapshot(w) == before and w.nvals == n and snapshot(u) == u_before
    assert _unchanged(bufs, saved)
    w.set_sparse(xp.zeros(n, dtype=np.int64), xp.zeros(n, dtype=np.int64))
    gg.mxv(w, A, u, request=FILL_ENTRIES)
    expect = gg.mxv(gg.Vector("INT64", 3), A, u)
    if case == "dense_of_w":
        expect = gg.Vector.from_dense(xp.asarray([5, 6, 7], dtype=np.int64))
        gg.mxv(expect, A, u)
    assert _content(w) == _content(expect)
