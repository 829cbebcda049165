"""gg.warmup: runs the common set's operations once (on NumPy nothing is built) and returns
its summary; bad selections raise GraphBLASError subclasses before any work."""
import logging

import pytest

import grblas_gpu as gg
from grblas_gpu import backend, kernel_warmup


def test_default_warmup_runs_every_operation_and_type():
    s = gg.warmup()
    assert isinstance(s, gg.WarmupSummary)
    assert s.calls > 1000 and s.seconds > 0
    # min_plus, plus_times, plus_second are not defined for BOOL (products and mxm), nor is
    # plus a BOOL monoid (reduce): those are skipped, nothing else
    assert s.skipped == 3 * 3 + 4
    assert s.modules == s.compiled + s.from_disk + s.unknown
    if not backend.is_gpu:
        assert s.modules == 0 and s.compile_seconds == 0.0
        assert gg.kernel_stats().modules == 0
    assert "warm-up:" in str(s) and f"{s.calls} calls" in str(s)


@pytest.mark.parametrize("op", kernel_warmup.OPERATIONS)
def test_each_operation_alone(op):
    s = gg.warmup(op, "FP64", "min_plus")
    assert s.calls > 0 and s.skipped == 0


def test_selections_take_objects_and_single_names():
    from grblas_gpu import semirings

    one = gg.warmup(["vxm"], [gg.INT32], [semirings.any_secondi])
    again = gg.warmup("vxm", "INT32", "any_secondi")
    assert one.calls == again.calls > 0


def test_progress_without_tqdm_prints_a_line_per_step(capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name == "tqdm":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    gg.warmup(["apply", "select"], ["FP32", "INT64"], progress=True)
    err = capsys.readouterr().err.splitlines()
    assert err == ["warm-up 1/4: apply FP32", "warm-up 2/4: apply INT64",
                   "warm-up 3/4: select FP32", "warm-up 4/4: select INT64"]


def test_no_build_is_logged_on_numpy(caplog):
    if backend.is_gpu:
        pytest.skip("the GPU builds kernels")
    with caplog.at_level(logging.INFO, logger="grblas_gpu.kernels"):
        gg.warmup("mxv", "BOOL", "any_pair")
    assert not [r for r in caplog.records if r.name == "grblas_gpu.kernels"]


@pytest.mark.parametrize("kwargs, error", [
    (dict(operations="bogus"), gg.InvalidValue),
    (dict(operations=["mxv", 3]), gg.InvalidValue),
    (dict(operations=[]), gg.InvalidValue),
    (dict(operations=gg.FP64), gg.InvalidValue),
    (dict(types="FP128"), gg.GraphBLASError),
    (dict(types=[object()]), gg.TypeNotSupported),
    (dict(semirings="no_such_semiring"), gg.GraphBLASError),
    (dict(semirings="plus"), gg.InvalidValue),          # a monoid, not a semiring
    (dict(progress="yes"), gg.InvalidValue),
])
def test_bad_selections_raise_before_any_work(kwargs, error, monkeypatch):
    monkeypatch.setattr(kernel_warmup, "_graph", lambda: pytest.fail("work started"))
    with pytest.raises(error):
        gg.warmup(**kwargs)
