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


def test_launch_profile():
    from grblas_gpu import backend
    if not backend.is_gpu:   # NumPy: a usage error (exit 2, one line), not a traceback
        code = profile_ops.run_main(profile_ops.PROG, profile_ops.main,
                                    ["--fixed-cost", "--launches"])
        assert code == 2
        return
    pytest.importorskip("torch")
    rows = {r[0]: r[1:] for r in profile_ops.launch_profile(n=100, calls=5)}
    floor_first, floor_all, floor_launches = rows["(profiler floor)"][:3]
    assert floor_launches == 0 and np.isnan(floor_first)
    first, total, launches = rows["(one CuPy launch)"][:3]
    assert launches == 1 and 0 < first <= total
    first, total, launches = rows["apply ainv"][:3]
    assert launches >= 1 and 0 < first <= total
    assert rows["nvals"][2] == 0
