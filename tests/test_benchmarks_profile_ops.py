"""benchmarks.profile_ops --fixed-cost at a small size on the active backend: every case
runs, ours and python-graphblas's compute the same thing, and the report prints a row each."""
import numpy as np
import pytest

from grblas_gpu.benchmarks import profile_ops


def _values(x):
    if isinstance(x, (int, float, np.generic)):
        return x
    idx, vals = x.to_coo()
    return dict(zip(np.asarray(idx).tolist(), np.asarray(vals).tolist()))


def test_fixed_cost_cases_agree():
    pytest.importorskip("graphblas")
    for name, (ours, theirs) in profile_ops._fixed_cost_cases(200, seed=7).items():
        a, b = ours(), theirs()
        if name == "nvals" or name.startswith("reduce"):
            assert a == pytest.approx(b), name
        elif name.startswith("bfs"):  # ANY may pick any parent: compare the structure
            assert _values(a).keys() == _values(b).keys(), name
        else:
            assert _values(a) == pytest.approx(_values(b)), name


def test_fixed_cost_report(capsys):
    rows = profile_ops.fixed_cost(n=100, number=2, repeat=2)
    assert [r[0] for r in rows] == list(profile_ops._fixed_cost_cases(100, 1))
    assert all(us > 0 for _, us, _ in rows)
    profile_ops.main(["--fixed-cost", "--n", "100", "--number", "2"])
    out = capsys.readouterr().out
    assert "bfs step vxm" in out and "nvals" in out
