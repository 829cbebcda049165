"""gg.Replay: a function of operations recorded once (a CUDA graph on the GPU) and replayed.

Each test runs the same steps plainly and through a Replay and compares every value; on the
GPU it also checks that the recording happened (or, where fn cannot be recorded, that it
fell back with the objects intact). On NumPy a Replay simply calls fn."""
import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import backend


def _graph(seed, n=300):
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n)
    rows, cols = np.concatenate([rows, np.arange(n)]), np.concatenate([cols, np.arange(n)])
    return gg.Matrix.from_coo(rows, cols, rng.uniform(0.1, 1.0, len(rows)), nrows=n, ncols=n,
                              dup_op="plus")


def _power(A, J, x, y, s, r):
    """x <- A x / ||A x||₁ ; r = ||y - x||₁ (y: the previous x): a carried x, scratch y, s, r."""
    gg.apply(y, x, "identity")
    gg.mxv(x, A, y, "plus_times")
    gg.vxm(s, x, J, "plus_times")
    gg.apply(s, s, "minv")
    gg.mxv(r, J, s, "plus_times")          # r: the broadcast 1/||x||₁ (scratch here)
    gg.ewise_mult(x, x, r, "times")
    gg.ewise_union(r, y, 0, x, 0, "minus")
    gg.apply(r, r, "abs")
    gg.vxm(s, r, J, "plus_times")


def _state(n, dtype=gg.FP64):
    J = gg.Matrix.from_coo(np.arange(n), np.zeros(n, np.int64), 1.0, nrows=n, ncols=1)
    x = gg.Vector.from_dense(np.full(n, 1.0 / n))
    return J, x, gg.Vector(dtype, n), gg.Vector(dtype, 1), gg.Vector(dtype, n)


def _twins(seed):
    """A graph, the state of a plain power iteration, the same state for a replayed one, and
    the Replay of that second iteration's step."""
    A = _graph(seed)
    plain, replayed = _state(A.nrows), _state(A.nrows)
    return A, plain, replayed, gg.Replay(lambda: _power(A, *replayed))


def test_replayed_steps_equal_plain_steps():
    A, (J, x, y, s, r), (J2, x2, y2, s2, r2), step = _twins(1)
    for it in range(8):
        _power(A, J, x, y, s, r)
        step()
        np.testing.assert_allclose(x2.to_dense(), x.to_dense(), rtol=1e-12)
        assert s2[0] == pytest.approx(s[0], rel=1e-9, abs=1e-15)
        np.testing.assert_allclose(y2.to_dense(), y.to_dense(), rtol=1e-12)
    assert step.calls == 8
    if backend.is_gpu:
        assert step.recorded, step.why_not_recorded
    else:
        assert not step.recorded and step.why_not_recorded == "NumPy backend"


def test_objects_read_between_calls_see_the_latest_values():
    """Forms built outside fn between calls (a sparse form of x) must not survive the next
    replay: they are rebuilt from the replayed arrays."""
    A, (J, x, y, s, r), (J2, x2, y2, s2, r2), step = _twins(2)
    n = A.nrows
    for _ in range(5):
        _power(A, J, x, y, s, r)
        step()
        idx, vals = x2.to_coo()           # builds x2's sparse form
        np.testing.assert_array_equal(idx, np.arange(n))
        np.testing.assert_allclose(vals, x.to_dense(), rtol=1e-12)
        copy = x2.dup()
        step()
        _power(A, J, x, y, s, r)
        np.testing.assert_allclose(x2.to_dense(), x.to_dense(), rtol=1e-12)
        assert not np.allclose(copy.to_dense(), x2.to_dense(), rtol=0, atol=1e-15)


def test_fn_reading_the_device_runs_plainly():
    """A host read inside fn cannot be recorded: the Replay falls back, objects intact."""
    A = _graph(3)
    n = A.nrows
    J, x, y, s, r = _state(n)
    J2, x2, y2, s2, r2 = _state(n)
    seen, seen2 = [], []

    def reads(J, x, y, s, r, out):
        _power(A, J, x, y, s, r)
        out.append(gg.reduce_scalar(x, "plus"))   # a device read

    step = gg.Replay(lambda: reads(J2, x2, y2, s2, r2, seen2))
    for _ in range(4):
        reads(J, x, y, s, r, seen)
        step()
        np.testing.assert_allclose(x2.to_dense(), x.to_dense(), rtol=1e-12)
    np.testing.assert_allclose(seen2, seen, rtol=1e-12)
    assert not step.recorded
    if backend.is_gpu:
        assert step.why_not_recorded and step.why_not_recorded != "NumPy backend"


def test_fn_changing_shapes_runs_plainly():
    """A frontier whose entry count changes every call (a BFS push step) cannot be replayed:
    the recording fails on the changed shape and every call runs plainly."""
    n = 200
    rows = np.arange(n - 1)
    A = gg.Matrix.from_coo(rows, rows + 1, 1.0, nrows=n, ncols=n)  # a path 0 -> 1 -> ...
    q = gg.Vector.from_coo([0, 1], [1.0, 1.0], size=n)
    q2, t, t2 = q.dup(), gg.Vector(gg.FP64, n), gg.Vector(gg.FP64, n)

    def advance(q, t):
        gg.vxm(t, q, A, "plus_times")
        gg.ewise_add(q, q, t, "plus")       # q gains one entry per call

    step = gg.Replay(lambda: advance(q2, t2))
    for _ in range(5):
        advance(q, t)
        step()
        assert q2.nvals == q.nvals
        np.testing.assert_array_equal(q2.to_dense(), q.to_dense())
    assert not step.recorded


def test_two_recordings_take_turns_on_shared_objects():
    """Two steps writing the same vectors (a BFS's push and pull levels), called in an
    irregular order, with the vectors also rewritten between calls by plain operations: each
    replay starts from the content the objects hold, as plain calls do."""
    n = 300
    rng = np.random.default_rng(5)
    rows, cols = rng.integers(0, n, 1500), rng.integers(0, n, 1500)
    A = gg.Matrix.from_coo(rows, cols, 1.0, nrows=n, ncols=n, dup_op="plus")

    def make():
        x = gg.Vector.from_dense(rng_x.random(n))
        return x, gg.Vector(gg.FP64, n)

    def up(x, y):    # y = A x ;  x = y / 2 + x
        gg.mxv(y, A, x, "plus_times")
        gg.apply(y, y, "times", right=0.5)
        gg.ewise_add(x, x, y, "plus")

    def down(x, y):  # y = Aᵀ x ;  x = x - y / 4
        gg.vxm(y, x, A, "plus_times")
        gg.apply(y, y, "times", right=0.25)
        gg.ewise_add(x, x, y, "minus")

    rng_x = np.random.default_rng(9)
    plain = make()
    rng_x = np.random.default_rng(9)
    replayed = make()
    steps = {"up": gg.Replay(lambda: up(*replayed)), "down": gg.Replay(lambda: down(*replayed))}
    order = ["up", "up", "down", "up", "down", "down", "up", "reset", "down", "up", "up",
             "reset", "down", "down", "up"]
    for k, what in enumerate(order):
        if what == "reset":  # new content from outside: x(:) = k
            for x, _ in (plain, replayed):
                gg.apply(x, x, "times", right=0.0)
                gg.apply(x, x, "plus", right=float(k))
            continue
        (up if what == "up" else down)(*plain)
        steps[what]()
        np.testing.assert_allclose(replayed[0].to_dense(), plain[0].to_dense(), rtol=1e-12)
        np.testing.assert_allclose(replayed[1].to_dense(), plain[1].to_dense(), rtol=1e-12)
    if backend.is_gpu:
        assert steps["up"].recorded and steps["down"].recorded
        assert steps["up"].plain_calls == 0 and steps["down"].plain_calls == 0


def test_vectors_fn_only_reads_pass_new_values_in():
    """A Vector fn only reads, given new content from the host before each call (a BFS's
    source): every replay reads the latest content, not what the recording saw, and the
    Vector read keeps its values."""
    n = 200
    rng = np.random.default_rng(11)
    A = gg.Matrix.from_coo(rng.integers(0, n, 900), rng.integers(0, n, 900), 1.0,
                           nrows=n, ncols=n, dup_op="plus")
    seed, q, w = gg.Vector(gg.INT64, n), gg.Vector(gg.INT64, n), gg.Vector(gg.FP64, n)

    def step():  # q = seed (as a bitmap) ;  w = A q
        gg.apply(q, seed, "identity")
        q.set_format("dense")
        gg.mxv(w, A, q, "plus_times", direction="pull")

    replayed = gg.Replay(step)
    for k in range(6):
        idx = np.sort(rng.choice(n, 5, replace=False))  # (a fixed count: a fixed shape)
        vals = rng.integers(1, 50, len(idx))
        seed.set_sparse(idx, vals)
        replayed()
        expect = A.to_graphblas().mxv(seed.to_graphblas()).new()
        assert w.to_graphblas().isequal(expect), k
        np.testing.assert_array_equal(seed.to_coo()[0], idx)
        np.testing.assert_array_equal(seed.to_coo()[1], vals)
    if backend.is_gpu:
        assert replayed.recorded and replayed.plain_calls == 0, replayed.why_not_recorded


def _frontier_step(q, pi, w, mask_v, variant):
    """A BFS-like step over carried dense vectors: pi and w written by the write-back (in
    place under a Replay), q's next values by a dense apply (into its private arrays)."""
    accum, mask, replace = variant
    gg.apply(pi, q, "identity", accum="second")              # pi(i) = q(i) where q has one
    desc = gg.Descriptor(replace=True) if replace else None
    m = {None: None, "S": mask_v.S, "~S": ~mask_v.S, "V": mask_v, "~V": ~mask_v}[mask]
    gg.apply(w, q, "ainv", mask=m, accum=accum, desc=desc)
    gg.apply(q, q, "plus", right=3)                           # q's values move on
    gg.ewise_add(q, q, pi, "max", mask=~w.S, desc=gg.Descriptor(replace=True))


@pytest.mark.parametrize("variant", [(acc, m, rep) for acc in (None, "plus")
                                     for m in (None, "S", "~S", "V", "~V")
                                     for rep in (False, True) if m is not None or acc])
def test_in_place_writes_equal_plain_writes(variant):
    """Under a Replay the write-back updates a dense output in its private arrays in place,
    touching only the elements that change, and a dense apply writes into them: every mask,
    accumulator and replace case against the same steps run plainly."""
    n = 500

    def state(rng):
        q = gg.Vector.from_coo(rng.choice(n, 60, replace=False), rng.integers(-9, 9, 60), size=n,
                               dtype=gg.INT64)
        pi = gg.Vector.from_coo(rng.choice(n, 40, replace=False), 7, size=n, dtype=gg.INT64)
        w = gg.Vector.from_coo(rng.choice(n, 200, replace=False), 5, size=n, dtype=gg.INT64)
        mv = gg.Vector.from_coo(rng.choice(n, 250, replace=False), rng.integers(0, 2, 250),
                                size=n, dtype=gg.INT64)
        for v in (q, pi, w, mv):
            v.set_format("dense")
        return q, pi, w, mv

    plain, replayed = state(np.random.default_rng(5)), state(np.random.default_rng(5))
    step = gg.Replay(lambda: _frontier_step(*replayed, variant))
    for it in range(7):
        _frontier_step(*plain, variant)
        step()
        for a, b in zip(plain, replayed):
            np.testing.assert_array_equal(b.to_dense(fill=-99), a.to_dense(fill=-99))
        if it == 3:
            # outside the Replay: an object sharing pi's bitmap (apply shares it) keeps its
            # content when pi gains entries (pi is then written to new arrays, not in place)
            borrowed = gg.apply(gg.Vector(gg.INT64, n), replayed[1], "abs")
            kept = borrowed.to_dense(fill=-99)
            r = gg.Vector.from_coo(np.arange(0, n, 7), 1, size=n, dtype=gg.INT64)
            for pi in (plain[1], replayed[1]):
                gg.apply(pi, r, "identity", accum="plus")
            np.testing.assert_array_equal(borrowed.to_dense(fill=-99), kept)
    if backend.is_gpu:
        assert step.recorded, step.why_not_recorded
        assert step.plain_calls == 0
