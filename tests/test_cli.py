"""The grblas-gpu command line: a thin adapter, tested through main(argv)."""
import json

import pytest

from grblas_gpu import backend, cli


def test_info_reports_backend_and_versions(capsys):
    assert cli.main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["backend"] == backend.name and "numpy" in info and info["semirings"] > 100


def test_run_bfs_on_karate_and_rmat(capsys):
    assert cli.main(["run", "bfs", "karate", "--source", "0"]) == 0
    out = capsys.readouterr().out
    assert "34 vertices" in out and "reached 34 of 34" in out
    assert cli.main(["run", "triangle_count", "rmat:8:4"]) == 0
    assert "256 vertices" in capsys.readouterr().out


def test_trace_prints_one_line_per_iteration(capsys):
    assert cli.main(["run", "pagerank", "karate", "--trace"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("iteration")]
    assert len(lines) > 5 and "residual" in lines[-1]


def test_unknown_algorithm_and_bad_graph(capsys):
    assert cli.main(["run", "nonesuch", "karate"]) == 2
    assert "choose from" in capsys.readouterr().err
    with pytest.raises(Exception) as info:
        cli.main(["run", "bfs", "rmat:notanumber"])
    assert "GrB_INVALID_VALUE" in str(info.value)


def test_conformance_takes_its_own_options(capsys):
    assert cli.main(["conformance", "--ops", "transpose", "--quick", "--types", "INT32"]) == 0
    assert "transpose" in capsys.readouterr().out
