"""benchmarks.cases_sampling (``python -m grblas_gpu.benchmarks --cases sampling``) at a small scale on
the active backend: ours and the peer checked, and the check catching wrong samples."""
import numpy as np
import pytest

from grblas_gpu import algorithms
from grblas_gpu.benchmarks import cases_sampling as cs
from grblas_gpu.benchmarks.run import main
from grblas_gpu import backend
from grblas_gpu.generate import rmat

xp = backend.xp


def test_case_runs_checked():
    rows = cs.sampling(scale=8, reps=1, seeds=32)
    ours = [r for r in rows if r["method"].startswith("grblas_gpu")]
    assert [r["method"] for r in ours] == ["grblas_gpu with replacement",
                                           "grblas_gpu without replacement"]
    for r in ours:
        assert r["check passed"] is True, r
        assert r["edges"] > 32 and r["M edges/s"] > 0 and r["seconds"] > 0
    assert len(rows) == 4 and all(r["M edges/s"] > 0 for r in rows)


def test_command_line_runs_the_case(capsys):
    rows = main(["--cases", "sampling", "--scale", "7", "--reps", "1"])
    assert len(rows) == 4 and all(r["check passed"] for r in rows if "check passed" in r)
    assert "M edges/s" in capsys.readouterr().out


@pytest.fixture(scope="module")
def small():
    A = rmat(7, 8, seed=3)
    return A, cs._Edges(A), cs.pick_seeds(A, 16)


@pytest.mark.parametrize("replace", [True, False])
def test_check_catches_wrong_samples(small, replace):
    A, E, S = small
    fan = [4, 3]
    res = algorithms.uniform_neighbor_sample(A, S, fan, with_replacement=replace, seed=5)
    src, dst, hop = res.src, res.dst, res.hop
    assert cs.check_sample(E, S, fan, replace, src, dst, hop) is None
    # an extra row of a real edge: too many picks for its source
    more = [xp.concatenate([a, a[:1]]) for a in (src, dst, hop)]
    assert "wrong number" in cs.check_sample(E, S, fan, replace, *more)
    # a pair that is not an edge
    n = A.nrows
    deg = backend.to_host(E.deg)
    v = int(np.flatnonzero(deg < n - 1)[0])
    nbrs = set(backend.to_host(E.indices[int(E.indptr[v]):int(E.indptr[v + 1])]).tolist())
    w = next(u for u in range(n) if u not in nbrs)
    bad = dst.copy()
    bad_src = src.copy()
    bad_src[0], bad[0] = v, w
    assert cs.check_sample(E, S, fan, replace, bad_src, bad, hop) == \
        "a sampled pair is not an edge of A"
    if not replace:  # a repeated pick in one occurrence's picks
        s, d = backend.to_host(src), backend.to_host(dst)
        h = backend.to_host(hop)
        i = next(i for i in range(len(s) - 1)
                 if s[i] == s[i + 1] and h[i] == h[i + 1] == 0 and d[i] != d[i + 1])
        twice = dst.copy()
        twice[i + 1] = twice[i]
        assert cs.check_sample(E, S, fan, replace, src, twice, hop) is not None


def test_peer_is_a_valid_sample(small):
    A, E, S = small
    for replace in (True, False):
        s, d, h = cs._peer(E, S, [5, 5], replace, cs._generator())
        assert cs.check_sample(E, S, [5, 5], replace, s, d, h) is None
