"""Kernel builds reported (grblas_gpu.compile_log): one INFO record on the logger
"grblas_gpu.kernels" and one count in gg.kernel_stats() per module built.

No CUDA here: the builds go through kernels.cache with a stand-in for CuPy's RawModule
(the one seam, cache.backend), or through timed_build directly."""
import logging
import threading
import time
import types

import pytest

import grblas_gpu as gg
from grblas_gpu import backend, compile_log
from grblas_gpu.kernels import cache


class FakeModule:
    """CuPy's RawModule as cache.py uses it: compile() builds, get_function() looks up."""
    builds = []

    def __init__(self, code, options):
        self.code = code

    def compile(self):
        FakeModule.builds.append(self.code)
        time.sleep(0.003)   # (NVRTC's time: other threads ask meanwhile)

    def get_function(self, name):
        return (self, name)


@pytest.fixture
def fake_cuda(monkeypatch):
    FakeModule.builds = []
    fake = types.SimpleNamespace(is_gpu=False, xp=types.SimpleNamespace(RawModule=FakeModule))
    monkeypatch.setattr(cache, "backend", fake)
    monkeypatch.setattr(compile_log, "_cache_dir", lambda: None)  # (a fake build writes no file)
    gg.kernel_stats(reset=True)
    yield
    gg.kernel_stats(reset=True)


def _key(tag):
    return cache.KernelKey("test", f"{tag}_{time.time_ns()}", ("plus", "times"), ("fp64",))


def test_stats_start_at_zero_on_numpy():
    if backend.is_gpu:
        pytest.skip("the GPU builds kernels")
    stats = gg.kernel_stats()
    assert isinstance(stats, gg.KernelStats)
    assert stats.modules == stats.compiled == stats.from_disk == stats.unknown == 0
    assert stats.seconds == 0.0 and stats.last == ()


def test_a_build_is_logged_once_and_counted(fake_cuda, caplog):
    key = _key("logged")
    with caplog.at_level(logging.INFO, logger="grblas_gpu.kernels"):
        table = cache.get_functions(key, lambda: "// source", ("k1", "k2"))
        again = cache.get_functions(key, lambda: "// other", ("k1",))
        table["k3"]  # noqa: B018  (a function looked up later: no build)
    assert again is table and FakeModule.builds == ["// source"]
    records = [r for r in caplog.records if r.name == "grblas_gpu.kernels"]
    assert len(records) == 1
    rec = records[0]
    assert rec.levelno == logging.INFO
    assert rec.kernel_key == str(key) and rec.kernel_names == ("k1", "k2")
    assert rec.seconds >= 0.003 and rec.from_disk is None   # (no cache directory: cannot tell)
    assert str(key) in rec.getMessage() and "k1, k2" in rec.getMessage()
    stats = gg.kernel_stats()
    assert stats.modules == 1 and stats.unknown == 1 and stats.compiled == stats.from_disk == 0
    assert stats.seconds == pytest.approx(rec.seconds) and stats.last == (str(key),)


def test_get_kernel_reports_its_kernel_name(fake_cuda, caplog):
    key = _key("one")
    with caplog.at_level(logging.INFO, logger="grblas_gpu.kernels"):
        kernel = cache.get_kernel(key, lambda: "// one", "only")
        assert cache.get_kernel(key, lambda: "// one", "only") is kernel
    records = [r for r in caplog.records if r.name == "grblas_gpu.kernels"]
    assert [r.kernel_names for r in records] == [("only",)]
    assert gg.kernel_stats().modules == 1


def test_threads_asking_for_one_new_key_count_one_build(fake_cuda):
    key = _key("threads")
    barrier = threading.Barrier(8)
    tables = [None] * 8

    def ask(t):
        barrier.wait()
        tables[t] = cache.get_functions(key, lambda: "// shared", ("k",))

    threads = [threading.Thread(target=ask, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len({id(t) for t in tables}) == 1
    assert FakeModule.builds == ["// shared"]
    stats = gg.kernel_stats()
    assert stats.modules == 1 and stats.last == (str(key),)


def test_reset_reads_and_zeroes(fake_cuda):
    cache.get_functions(_key("a"), lambda: "// a", ())
    cache.get_functions(_key("b"), lambda: "// b", ())
    before = gg.kernel_stats(reset=True)
    assert before.modules == 2 and len(before.last) == 2
    assert gg.kernel_stats() == gg.KernelStats()


def test_last_keeps_the_latest_keys(fake_cuda):
    keys = [str(_key(f"k{i}")) for i in range(compile_log.LAST_KEYS + 3)]
    for k in keys:
        compile_log.record(k, (), 0.001, False)
    stats = gg.kernel_stats()
    assert stats.last == tuple(keys[-compile_log.LAST_KEYS:])
    assert stats.modules == stats.compiled == len(keys)


@pytest.mark.parametrize("added, expected", [(0, True), (1, False)])
def test_disk_cache_load_or_compile_told_by_new_files(fake_cuda, monkeypatch, tmp_path,
                                                      added, expected):
    """A build that adds no .cubin to CuPy's cache directory was a load from it."""
    (tmp_path / "old_2.cubin").write_bytes(b"x")
    monkeypatch.setattr(compile_log, "_cache_dir", lambda: str(tmp_path))
    monkeypatch.delenv("CUPY_CACHE_IN_MEMORY", raising=False)

    def build():
        for i in range(added):
            (tmp_path / f"new{i}_2.cubin").write_bytes(b"y")
        return "module"

    assert compile_log.timed_build("disk_key", ("k",), build) == "module"
    stats = gg.kernel_stats()
    assert (stats.from_disk, stats.compiled) == ((1, 0) if expected else (0, 1))


def test_in_memory_cache_always_compiles(fake_cuda, monkeypatch):
    monkeypatch.setenv("CUPY_CACHE_IN_MEMORY", "1")
    compile_log.timed_build("mem_key", (), lambda: None)
    assert gg.kernel_stats().compiled == 1


def test_a_failed_build_is_not_counted(fake_cuda):
    def build():
        raise RuntimeError("nvrtc says no")

    with pytest.raises(RuntimeError):
        compile_log.timed_build("bad_key", (), build)
    assert gg.kernel_stats().modules == 0


def test_bad_reset_raises():
    with pytest.raises(gg.InvalidValue):
        gg.kernel_stats(reset="yes")
