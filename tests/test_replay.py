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
    J, x, y, s, r = replayed
    return A, plain, replayed, gg.Replay(lambda: _power(A, *replayed), carries=(x, y, s, r),
                                         reads=(A, J))


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

    step = gg.Replay(lambda: reads(J2, x2, y2, s2, r2, seen2), carries=(x2, y2, s2, r2),
                     reads=(A, J2))
    for _ in range(4):
        reads(J, x, y, s, r, seen)
        step()
        np.testing.assert_allclose(x2.to_dense(), x.to_dense(), rtol=1e-12)
    np.testing.assert_allclose(seen2, seen, rtol=1e-12)
    assert not step.recorded
    if backend.is_gpu:
        assert step.why_not_recorded and step.why_not_recorded != "NumPy backend"


def test_a_carried_vector_gaining_entries():
    """A frontier whose entry count changes every call (a BFS push step): declared, it is
    held in dense form (fixed storage), so its shape does not change; plain or replayed, the
    values are those of plain calls."""
    n = 200
    rows = np.arange(n - 1)
    A = gg.Matrix.from_coo(rows, rows + 1, 1.0, nrows=n, ncols=n)  # a path 0 -> 1 -> ...
    q = gg.Vector.from_coo([0, 1], [1.0, 1.0], size=n)
    q2, t, t2 = q.dup(), gg.Vector(gg.FP64, n), gg.Vector(gg.FP64, n)

    def advance(q, t):
        gg.vxm(t, q, A, "plus_times")
        gg.ewise_add(q, q, t, "plus")       # q gains one entry per call

    step = gg.Replay(lambda: advance(q2, t2), carries=(q2,), reads=(A,), scratch=(t2,))
    for _ in range(5):
        advance(q, t)
        step()
        assert q2.nvals == q.nvals
        np.testing.assert_array_equal(q2.to_dense(), q.to_dense())


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
    steps = {"up": gg.Replay(lambda: up(*replayed), carries=replayed, reads=(A,)),
             "down": gg.Replay(lambda: down(*replayed), carries=replayed, reads=(A,))}
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

    replayed = gg.Replay(step, carries=(w,), reads=(seed, A), scratch=(q,))
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
        # (each new seed reaches the recording through its fixed storage: its dense form is
        # built there, so nothing needs copying in)
        assert replayed.recorded and replayed.plain_calls == 0, replayed.why_not_recorded


def _frontier_step(q, pi, w, mask_v, variant):
    """A BFS-like step over carried dense vectors: pi and w written by the write-back (in
    place in their fixed storage), q's next values by a dense apply (into its own)."""
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
    """Under a Replay the write-back updates a dense output in its fixed storage in place,
    touching only the elements that change, and a dense apply writes into it: every mask,
    accumulator and replace case against the same steps run plainly; the recording copies
    nothing back."""
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
    step = gg.Replay(lambda: _frontier_step(*replayed, variant), carries=replayed[:3],
                     reads=replayed[3:])
    for it in range(7):
        _frontier_step(*plain, variant)
        step()
        for a, b in zip(plain, replayed):
            np.testing.assert_array_equal(b.to_dense(fill=-99), a.to_dense(fill=-99))
        if it == 3:
            # outside the Replay: an object given pi's structure by apply (a copy of pi's fixed
            # bitmap) keeps its content when pi gains entries in place
            borrowed = gg.apply(gg.Vector(gg.INT64, n), replayed[1], "abs")
            kept = borrowed.to_dense(fill=-99)
            r = gg.Vector.from_coo(np.arange(0, n, 7), 1, size=n, dtype=gg.INT64)
            for pi in (plain[1], replayed[1]):
                gg.apply(pi, r, "identity", accum="plus")
            np.testing.assert_array_equal(borrowed.to_dense(fill=-99), kept)
    if backend.is_gpu:
        assert step.recorded, step.why_not_recorded
        assert step.plain_calls == 0 and step.copies == 0


# ---------------------------------------------------------------------- the contract
def test_declarations_are_checked():
    u, A = gg.Vector(gg.FP64, 3), gg.Matrix(gg.FP64, 3, 3)
    for bad in (dict(carries=u), dict(reads="A"), dict(scratch=(u, 3)), dict(carries=(A.T,)),
                dict(carries=(u,), scratch=(u,)), dict(reads=(A, A))):
        with pytest.raises(gg.InvalidValue):
            gg.Replay(lambda: None, **bad)
    with pytest.raises(gg.InvalidValue):
        gg.Replay(None)
    step = gg.Replay(lambda: None, carries=[u], reads=(A,))
    assert step.carries == (u,) and step.reads == (A,) and step.scratch == ()


def test_nothing_declared_runs_fn_each_call_or_replays_it():
    """Replay(fn) with nothing declared: fn's own arrays (a BFS's level batches)."""
    calls = []
    step = gg.Replay(lambda: calls.append(1))
    for _ in range(4):
        step()
    assert step.calls == 4
    if backend.is_gpu:  # (recorded on the 2nd call: Python runs fn twice)
        assert step.recorded and calls == [1, 1]
    else:
        assert calls == [1] * 4 and step.why_not_recorded == "NumPy backend"


def _undirected_with_isolated(seed, n=400):
    """A symmetric pattern in which some vertices have no edge (PageRank's fill path)."""
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, n // 2, 4 * n), rng.integers(0, n // 2, 4 * n)
    return gg.Matrix.from_coo(np.r_[rows, cols], np.r_[cols, rows], 1.0, nrows=n, ncols=n,
                              dup_op="any")


@pytest.mark.parametrize("undirected", [False, True])
def test_pagerank_steps_copy_nothing(monkeypatch, undirected):
    """PageRank's two recorded power steps carry x and y in their fixed storage: no copy at
    the end of a recording and none before a replay (the operations write in place), on a
    directed graph whose every vertex has an in-edge (the product read by A's columns,
    written as it is) and an undirected one with isolated vertices (A's rows, the product
    accumulated into pr)."""
    from grblas_gpu.algorithms.pagerank import pagerank

    made = []

    class Spy(gg.Replay):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(gg, "Replay", Spy)
    A = _undirected_with_isolated(21) if undirected else _graph(21, n=400)
    result = pagerank(A, tolerance=1e-9, max_iter=200)
    np.testing.assert_allclose(float(backend.to_host(result).sum()), 1.0, rtol=1e-9)
    assert len(made) == 2 and all(step.calls > 2 for step in made)
    for step in made:
        if backend.is_gpu:
            assert step.recorded, step.why_not_recorded
            assert (step.copies, step.copies_in, step.plain_calls) == (0, 0, 0)
        else:
            assert not step.recorded and step.copies == 0


def test_reads_given_new_content_and_carried_values():
    """A Vector fn only reads, given new dense content between calls, and a carried
    accumulator: each call sees the latest input and the previous call's total."""
    n = 50
    u, total = gg.Vector.from_dense(np.zeros(n)), gg.Vector.from_dense(np.zeros(n))
    step = gg.Replay(lambda: gg.ewise_add(total, total, u, "plus"), carries=(total,),
                     reads=(u,))
    expect = np.zeros(n)
    for k in range(6):
        new = np.arange(n, dtype=np.float64) * k
        gg.assign(u, gg.Vector.from_dense(new), gg.ALL)   # (new content between calls)
        step()
        expect += new
        np.testing.assert_array_equal(total.to_dense(), expect)
        np.testing.assert_array_equal(u.to_dense(), new)
    if backend.is_gpu:
        assert step.recorded and step.plain_calls == 0, step.why_not_recorded


def test_a_declared_vector_changing_size_runs_plainly():
    u, v = gg.Vector.from_dense(np.ones(8)), gg.Vector(gg.FP64, 8)
    step = gg.Replay(lambda: gg.apply(v, u, "ainv"), carries=(v,), reads=(u,))
    for _ in range(3):
        step()
    u.resize(5)
    v.resize(5)
    step()
    np.testing.assert_array_equal(v.to_dense(), -np.ones(5))
    if backend.is_gpu:
        assert step.recorded and step.plain_calls == 1


def test_a_recording_after_one_is_gone_reuses_its_pool_and_leaves_held_arrays_alone():
    """A recording that is gone spares its memory pool and stream to the next: that one's
    results equal plain steps', and what outlived the first (arrays its objects still hold,
    allocated from that pool) keeps its values while the second records and replays."""
    from grblas_gpu import replay

    A = _graph(2)
    J, x, y, s, r = _state(A.nrows)
    # y, s, r scratch: after the replays they hold the recording's arrays, from its pool
    step = gg.Replay(lambda: _power(A, J, x, y, s, r), carries=(x,), reads=(A, J),
                     scratch=(y, s, r))
    for _ in range(3):
        step()
    kept_r, kept_y = r.to_dense(), y.to_dense()
    spared = len(replay._spare_pools)
    del step
    if backend.is_gpu:
        assert len(replay._spare_pools) == min(spared + 1, replay._SPARE_POOLS)
    A2, (J2, x2, y2, s2, r2), (J3, x3, y3, s3, r3), step2 = _twins(3)
    for _ in range(4):
        _power(A2, J2, x2, y2, s2, r2)
        step2()
        np.testing.assert_allclose(x3.to_dense(), x2.to_dense(), rtol=1e-12)
    if backend.is_gpu:
        assert step2.recorded, step2.why_not_recorded
    np.testing.assert_array_equal(r.to_dense(), kept_r)
    np.testing.assert_array_equal(y.to_dense(), kept_y)
