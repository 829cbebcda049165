"""gg.Loop / @gg.loop: a loop of GraphBLAS calls in recorded batches, its stopping test read
once per batch. Each test compares with the same loop written plainly; on the GPU it also
checks that the batches were recorded (or, for a body that reads the device, that they ran
plainly with the same results)."""
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import backend, semirings
from grblas_gpu.benchmarks.user_algorithms import (captured_bfs, captured_pagerank, user_bfs,
                                                   user_pagerank)


def _counter(every, limit):
    """x += 1 each iteration; c = x: a loop whose iterations are counted by the device."""
    x = gg.Vector.from_dense(np.zeros(4))
    c = gg.Vector(gg.FP64, 1)
    body_calls = [0]

    def body():
        body_calls[0] += 1
        gg.apply(x, x, semirings.binary.plus, right=1.0)
        gg.reduce_scalar(x, semirings.monoid.max, out=c)
    return x, gg.Loop(body, carries=(x,), watch=c, every=every), body_calls


@pytest.mark.parametrize("every", [1, 3, 4])
def test_the_test_is_read_once_per_batch(every):
    x, lp, calls = _counter(every, None)
    seen = []
    its = lp.run(until=lambda c: seen.append(c[0]) or c[0] >= 10)
    # stops after the first batch that reaches 10: iterations a multiple of every
    assert its == lp.iterations == -(-10 // every) * every
    assert seen == [float(k * every) for k in range(1, its // every + 1)]
    np.testing.assert_array_equal(x.to_dense(), np.full(4, float(its)))
    if backend.is_gpu:
        assert lp.recorded or its == every, lp.why_not_recorded


@pytest.mark.parametrize("max_iter", [0, 1, 5, 7, 8])
def test_max_iter_is_exact(max_iter):
    x, lp, _ = _counter(4, None)
    assert lp.run(until=lambda c: False, max_iter=max_iter) == max_iter
    np.testing.assert_array_equal(x.to_dense(), np.full(4, float(max_iter)))


def test_decorator_form_and_a_second_run_continues():
    x = gg.Vector.from_dense(np.ones(3))
    c = gg.Vector(gg.FP64, 1)

    @gg.loop(carries=(x,), watch=c, every=2)
    def double():
        gg.apply(x, x, semirings.binary.times, right=2.0)
        gg.reduce_scalar(x, semirings.monoid.plus, out=c)

    assert isinstance(double, gg.Loop)
    assert double.run(until=lambda c: c[0] >= 24) == 4     # 3 * 2**4 = 48 >= 24 at 4
    assert double.run(until=lambda c: True) == 2
    np.testing.assert_array_equal(x.to_dense(), np.full(3, 64.0))


def test_a_body_reading_the_device_runs_plainly_with_the_same_results():
    x = gg.Vector.from_dense(np.zeros(5))
    c = gg.Vector(gg.FP64, 1)
    host = []

    def body():
        gg.apply(x, x, semirings.binary.plus, right=1.0)
        host.append(float(gg.reduce_scalar(x, semirings.monoid.plus)))   # a device read
        gg.reduce_scalar(x, semirings.monoid.max, out=c)

    lp = gg.Loop(body, carries=(x,), watch=c, every=2)
    assert lp.run(until=lambda c: c[0] >= 6) == 6
    assert host == [5.0 * k for k in range(1, 7)]
    if backend.is_gpu:
        assert not lp.recorded and lp.why_not_recorded


def test_captured_bfs_reaches_what_the_plain_one_does_with_valid_parents():
    """One captured search function serves every source: the first searches record its
    levels, the later ones replay them (on the GPU)."""
    A = gg.generate.rmat(10, seed=7)
    r, c, _ = A.to_coo()
    edges = set(zip(r.tolist(), c.tolist()))
    search = captured_bfs(A, A, every=2)
    for s in (0, 9, 100, 0, 511):
        plain, captured = user_bfs(A, A, s), search(s)
        pi_idx, pi_val = captured.to_coo()
        np.testing.assert_array_equal(pi_idx, plain.to_coo()[0])
        for v, p in zip(pi_idx.tolist(), pi_val.tolist()):
            assert v == s and p == s or (p, v) in edges
    if backend.is_gpu:
        assert search.loop.recorded, search.loop.why_not_recorded


@pytest.mark.parametrize("undirected", [True, False])
def test_captured_pagerank_equals_the_plain_loop(undirected):
    A = gg.generate.rmat(10, seed=2, symmetric=undirected)
    AT = A if undirected else None
    r1, i1 = user_pagerank(A, AT)
    rank = captured_pagerank(A, AT)
    for _ in range(3):   # plain batches, the recording, replays: the same ranks each time
        r2, i2 = rank()
        assert i1 == i2
        np.testing.assert_allclose(r2.to_dense(), r1.to_dense(), rtol=1e-5, atol=1e-9)
    if backend.is_gpu:
        assert rank.loop.recorded, rank.loop.why_not_recorded


@pytest.mark.parametrize("kwargs, match", [
    (dict(body=3), "callable body"),
    (dict(watch=np.zeros(1)), "watch must be a Vector"),
    (dict(every=0), "every must be an integer >= 1"),
    (dict(every=2.0), "every must be an integer"),
    (dict(every=True), "every must be an integer"),
    (dict(carries=[1]), "carries holds a int"),
])
def test_bad_arguments(kwargs, match):
    v = gg.Vector(gg.FP64, 1)
    args = dict(body=lambda: None, watch=v)
    args.update(kwargs)
    body = args.pop("body")
    with pytest.raises(gg.InvalidValue, match=match):
        gg.Loop(body, **args)


def test_bad_run_arguments():
    lp = gg.Loop(lambda: None, watch=gg.Vector(gg.FP64, 1))
    with pytest.raises(gg.InvalidValue, match="until must be callable"):
        lp.run(until=None)
    with pytest.raises(gg.InvalidValue, match="max_iter must be an integer >= 0"):
        lp.run(until=lambda c: True, max_iter=-1)
