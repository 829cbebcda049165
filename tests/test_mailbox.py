"""gg.Mailbox: a small Vector posted to the host from inside a step, taken while it runs."""
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import semirings


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
    step = (gg.Replay(lambda: _step(v, box, u), carries=(v,), reads=(u,)) if recorded
            else (lambda: _step(v, box, u)))
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
