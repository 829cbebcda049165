"""gg.Mailbox: a small Vector posted to the host from inside a step, taken while it runs."""
import numpy as np
import pytest

import grblas_gpu as gg
import semirings


def _step(v, box, u):
    # v = reduce(u) as a 1-entry vector; posted; then more work that changes v
    gg.reduce_scalar(u, semirings.monoid.plus, out=v)
    box.post()
    gg.apply(v, v, semirings.unary.ainv)


@pytest.mark.parametrize("recorded", [False, True])
def test_take_returns_each_post_while_the_step_goes_on(recorded):
    u = gg.Vector.from_coo([1, 4, 7], np.array([3, 5, 11], dtype=np.int64), size=10)
    v = gg.Vector(gg.INT64, 1)
    box = gg.Mailbox(v)
    step = gg.Replay(lambda: _step(v, box, u)) if recorded else (lambda: _step(v, box, u))
    for k in range(5):
        u[0] = k  # new content from outside the step (copied in by a replay)
        step()
        # the post's content (the sum), not the negated value the step leaves after it
        np.testing.assert_array_equal(box.take(), [19 + k])
        np.testing.assert_array_equal(v.to_dense(), [-(19 + k)])
    if recorded and gg.backend.is_gpu:
        assert step.recorded and step.plain_calls == 0


def test_take_fills_missing_entries_and_refuses_a_second_take():
    v = gg.Vector.from_coo([2], np.array([1.5], dtype=np.float32), size=3)
    box = gg.Mailbox(v)
    box.post()
    got = box.take(fill=-1)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [-1, -1, 1.5])
    with pytest.raises(gg.InvalidValue, match="nothing was posted"):
        box.take()
    box.post()
    box.post()  # the latest post wins
    np.testing.assert_array_equal(box.take(fill=0), [0, 0, 1.5])


def test_mailbox_needs_a_vector():
    with pytest.raises(gg.InvalidValue):
        gg.Mailbox(gg.Matrix(gg.INT64, 2, 2))


# ---------------------------------------------------------------------- Inbox
def _begin(q, inbox, out):
    # q = the entries put ;  out = q + 1 (dense)
    inbox.deliver()
    gg.apply(out, q, semirings.binary.plus, right=np.int64(1))


@pytest.mark.parametrize("recorded", [False, True])
def test_inbox_delivers_each_put_to_the_step_issued_after_it(recorded):
    q, out = gg.Vector(gg.INT64, 9), gg.Vector(gg.INT64, 9)
    inbox = gg.Inbox(q, capacity=3)
    step = gg.Replay(lambda: _begin(q, inbox, out)) if recorded else (lambda: _begin(q, inbox, out))
    sends = [([4], [40]), ([0, 8, 2], [-1, 7, 5]), ([], []), ([8], [2**40])]
    for _ in range(2):
        for idx, vals in sends:
            inbox.put(idx, vals)
            step()
            expected = gg.Vector.from_coo(idx, np.array(vals, dtype=np.int64), size=9)
            assert q.isequal(expected) and q.nvals == len(idx)
            assert out.isequal(gg.Vector.from_coo(idx, np.array(vals, dtype=np.int64) + 1,
                                                  size=9))
    if recorded and gg.backend.is_gpu:
        assert step.recorded and step.plain_calls == 0


def test_inbox_types_and_bad_puts_change_nothing():
    v = gg.Vector.from_coo([1], [2.5], size=4)
    inbox = gg.Inbox(v, capacity=2)
    inbox.put([3, 0], [1.25, True])   # cast to FP64
    inbox.deliver()
    np.testing.assert_array_equal(v.to_dense(fill=-9), [1.0, -9, -9, 1.25])
    b = gg.Vector(gg.BOOL, 5)
    flags = gg.Inbox(b, capacity=4)
    flags.put([4, 1], [True, False])
    flags.deliver()
    assert b.to_coo()[0].tolist() == [1, 4] and b.to_coo()[1].tolist() == [False, True]
    for bad, error in ((([0, 1, 2], [1, 1, 1]), gg.InvalidValue),   # over capacity
                       (([4], [1.0]), gg.IndexOutOfBounds), (([-1], [1.0]), gg.IndexOutOfBounds),
                       (([2, 2], [1.0, 2.0]), gg.InvalidValue),      # duplicates
                       (([0.5], [1.0]), gg.InvalidValue),            # not integers
                       (([[0]], [[1.0]]), gg.InvalidValue), (([0, 1], [1.0]), gg.InvalidValue)):
        with pytest.raises(error):
            inbox.put(*bad)
        inbox.deliver()   # the last good put is still what is delivered
        np.testing.assert_array_equal(v.to_dense(fill=-9), [1.0, -9, -9, 1.25])
    with pytest.raises(gg.InvalidValue):
        gg.Inbox(gg.Matrix(gg.INT64, 2, 2))
    with pytest.raises(gg.InvalidValue):
        gg.Inbox(v, capacity=0)
