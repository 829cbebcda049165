"""benchmarks.cases_distributed at a small scale: every row checked, the ratios computed,
and a wrong distributed result caught by the checks."""
import pytest

pytest.importorskip("distributed")

import grblas_gpu as gg  # noqa: E402
from grblas_gpu.benchmarks import cases_distributed as cd  # noqa: E402

WORKERS = None if gg.backend.is_gpu else "1,2"   # (on GPUs: one worker per GPU)


def test_pagerank_rows():
    rows = cd.run("dist_pagerank", scale=6, workers=WORKERS, reps=1)
    local, spread = rows[0], rows[1:]
    assert local["method"].startswith("one process") and local["iteration ms"] > 0
    assert spread and all(r["check passed"] for r in spread)
    assert spread[0]["speed-up"] == 1.0
    for r in spread:
        assert r["vs one process"] == pytest.approx(r["iteration ms"] / local["iteration ms"])


def test_bfs_rows_and_a_wrong_search_is_caught(monkeypatch):
    rows = cd.run("dist_bfs", scale=6, workers=WORKERS, sources=2)
    assert rows[0]["GTEPS (harmonic mean)"] > 0
    assert all(r["check passed"] for r in rows[1:])
    dist = cd._dist()
    real = dist.bfs_levels

    def wrong(D, s):
        lv = real(D, s)
        return dist.apply(lv, lv, "plus", right=1)         # every level one too deep

    monkeypatch.setattr(dist, "bfs_levels", wrong)
    rows = cd.run("dist_bfs", scale=6, workers="1", sources=1)
    assert rows[1]["check passed"] is False
