"""The grblas-gpu command line: a thin adapter, tested through main(argv).

Errors: exactly one line on stderr (``PROG: error: ...``, the GraphBLAS status named), no
traceback unless --debug, exit 2 for usage and 1 for failures (grblas_gpu.cli_errors)."""
import json
import os
import re
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

from grblas_gpu import algorithms
from conftest import REPO, lagraph_file
from grblas_gpu import backend, cli
from grblas_gpu.errors import NotConverged

MANGLED = [f"mangled{i}.mtx" for i in range(1, 17)] + [
    f"mangled_{t}.mtx" for t in ("bool", "format", "int8", "int16", "int32", "skew", "uint8",
                                  "uint16", "uint32")] + ["complex.mtx"]


def _error_line(capsys, prog="grblas-gpu", stdout_empty=True):
    """The one stderr line of a failed command (asserting there is exactly one)."""
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prog}: error: "), lines[0]
    if stdout_empty:
        assert out == "", out
    return lines[0]


def _never_run(monkeypatch, algo="bfs"):
    def runner(A, source=0, trace=None):
        raise AssertionError("the algorithm ran although the command line was refused")

    monkeypatch.setitem(algorithms.CLI_ALGORITHMS, algo, runner)


def _returning(monkeypatch, algo, result=None, exc=None):
    def runner(A, source=0, trace=None):
        if exc is not None:
            raise exc
        return result

    monkeypatch.setitem(algorithms.CLI_ALGORITHMS, algo, runner)


# ------------------------------------------------------------------------------- success
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


def test_conformance_takes_its_own_options(capsys):
    assert cli.main(["conformance", "--ops", "transpose", "--quick", "--types", "INT32"]) == 0
    assert "transpose" in capsys.readouterr().out


def test_help_documents_the_exit_codes(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["run", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "exit status:" in out and "usage error (2)" in out and "--debug" in out


# ---------------------------------------------------------------------- usage errors: 2
@pytest.mark.parametrize("argv, needle", [
    ([], "required: COMMAND"),
    (["bogus"], "invalid choice: 'bogus'"),
    (["run", "bfs"], "required: GRAPH"),
    (["run", "nonesuch", "karate"], "unknown algorithm 'nonesuch'; choose from"),
    (["run", "bfs", "rmat:abc"], "'rmat:abc': expected 'rmat:SCALE[:EDGE_FACTOR]'"),
    (["run", "bfs", "rmat:8:x"], "expected 'rmat:SCALE[:EDGE_FACTOR]'"),
    (["run", "bfs", "rmat"], "expected 'rmat:SCALE[:EDGE_FACTOR]'"),
    (["run", "bfs", "nonesuch"], "unknown graph 'nonesuch'"),
    (["run", "bfs", "karate", "--source", "x"], "argument --source: invalid int value"),
    (["run", "bfs", "karate", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_usage_errors_exit_2_with_one_line(capsys, monkeypatch, argv, needle):
    _never_run(monkeypatch)
    assert cli.main(argv) == 2
    assert needle in _error_line(capsys)


# -------------------------------------------------------------------------- failures: 1
@pytest.mark.parametrize("argv, status, needle", [
    (["run", "bfs", "rmat:99"], "GrB_INVALID_VALUE", "scale=99 is too large"),
    (["run", "bfs", "rmat:4:0"], "GrB_INVALID_VALUE", "edge_factor"),
    (["run", "bfs", "karate", "--source", "34"], "GrB_INDEX_OUT_OF_BOUNDS", "source 34"),
    (["run", "sssp", "karate", "--source", "-1"], "GrB_INDEX_OUT_OF_BOUNDS", "source -1"),
])
def test_engine_errors_exit_1_naming_the_status(capsys, argv, status, needle):
    assert cli.main(argv) == 1
    line = _error_line(capsys)
    assert f"grblas-gpu: error: {status}: " in line and needle in line


def test_missing_file_and_directory_exit_1(capsys, tmp_path):
    assert cli.main(["run", "bfs", str(tmp_path / "missing.mtx")]) == 1
    assert "missing.mtx: cannot be read: No such file or directory" in _error_line(capsys)
    folder = tmp_path / "folder.mtx"
    folder.mkdir()
    assert cli.main(["run", "bfs", str(folder)]) == 1
    _error_line(capsys)


@pytest.mark.parametrize("name", MANGLED)
def test_malformed_mtx_exits_1_naming_the_status(capsys, name):
    assert cli.main(["run", "bfs", str(lagraph_file(name))]) == 1
    line = _error_line(capsys)
    assert re.match(r"grblas-gpu: error: GrB_[A-Z_]+: .*" + re.escape(name), line), line


def test_unsuitable_graph_exits_1(capsys):
    # empty.mtx is 3 x 4: no adjacency matrix
    assert cli.main(["run", "triangle_count", str(lagraph_file("empty.mtx"))]) == 1
    assert "GrB_DIMENSION_MISMATCH" in _error_line(capsys)


def test_non_finite_pagerank_is_never_printed(capsys, tmp_path):
    """LFAT5 has negative weights (and rows summing to 0, which are dangling). Whatever
    PageRank makes of them, a rank printed is finite, or the CLI reports one error."""
    code = cli.main(["run", "pagerank", str(lagraph_file("LFAT5.mtx"))])
    if code == 0:
        out = capsys.readouterr().out
        ranks = [float(x.split(":")[1]) for x in out.split("top 5: ")[1].split(", ")]
        assert len(ranks) == 5 and np.isfinite(ranks).all(), out
    else:
        assert code == 1
        _error_line(capsys)


@pytest.mark.parametrize("algo, result, needle", [
    ("pagerank", np.array([0.5, np.nan, 0.5]), "1 non-finite (NaN or inf) ranks of 3"),
    ("pagerank", np.array([np.inf, 0.0, 0.0]), "1 non-finite (NaN or inf) ranks of 3"),
    ("sssp", np.full(34, np.nan, np.float32), "34 NaN values of 34"),
    ("spectral_clustering", (np.zeros(34, np.int32), np.array([np.nan, 1.0]), None),
     "non-finite"),
])
def test_results_breaking_their_promise_exit_1(capsys, monkeypatch, algo, result, needle):
    _returning(monkeypatch, algo, backend.xp.asarray(result) if not isinstance(result, tuple)
               else result)
    assert cli.main(["run", algo, "karate"]) == 1
    assert needle in _error_line(capsys)


def test_unreached_infinities_are_printed(capsys, monkeypatch):
    """sssp promises no finiteness: FLT_MAX and inf distances are answers, not errors."""
    d = np.zeros(34, np.float32)
    d[1], d[2] = np.finfo(np.float32).max, np.inf
    _returning(monkeypatch, "sssp", backend.xp.asarray(d))
    assert cli.main(["run", "sssp", "karate"]) == 0
    assert "reached 33 of 34" in capsys.readouterr().out


def test_not_converged_and_internal_errors_exit_1(capsys, monkeypatch):
    _returning(monkeypatch, "pagerank", exc=NotConverged("pagerank: residual 0.1 after 3"))
    assert cli.main(["run", "pagerank", "karate"]) == 1
    assert "error: NVGRAPH_STATUS_NOT_CONVERGED: pagerank" in _error_line(capsys)
    _returning(monkeypatch, "bfs", exc=TypeError("a bug\nover two lines"))
    assert cli.main(["run", "bfs", "karate"]) == 1
    line = _error_line(capsys)
    assert "internal error: TypeError: a bug over two lines" in line and "--debug" in line


def test_warnings_are_one_line_each_and_silent_after_an_error(capsys, monkeypatch):
    def runner(A, source=0, trace=None):
        for _ in range(2):
            warnings.warn("invalid value\nencountered", RuntimeWarning)
        return backend.xp.full(A.nrows, 1.0 / A.nrows)

    monkeypatch.setitem(algorithms.CLI_ALGORITHMS, "pagerank", runner)
    assert cli.main(["run", "pagerank", "karate"]) == 0
    out, err = capsys.readouterr()
    assert "top 5" in out and err == "grblas-gpu: warning: invalid value encountered\n"
    monkeypatch.setitem(algorithms.CLI_ALGORITHMS, "pagerank",
                        lambda A, source=0, trace=None: runner(A) * np.nan)
    assert cli.main(["run", "pagerank", "karate"]) == 1
    _error_line(capsys)


def test_interrupt_exits_130(capsys, monkeypatch):
    _returning(monkeypatch, "bfs", exc=KeyboardInterrupt())
    assert cli.main(["run", "bfs", "karate"]) == 130
    out, err = capsys.readouterr()
    assert err == "grblas-gpu: interrupted\n"


def test_plot_preconditions_are_checked_before_running(capsys, monkeypatch, tmp_path):
    _never_run(monkeypatch)
    # no matplotlib
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert cli.main(["run", "bfs", "karate", "--plot", str(tmp_path / "a.png")]) == 1
    assert "--plot needs matplotlib" in _error_line(capsys)
    # matplotlib present (a stand-in), the path not writable
    fake = types.ModuleType("matplotlib")
    fake.figure = types.ModuleType("matplotlib.figure")
    monkeypatch.setitem(sys.modules, "matplotlib", fake)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", fake.figure)
    for path, needle in ((tmp_path / "no" / "a.png", "no such directory"),
                         (tmp_path, "is a directory")):
        assert cli.main(["run", "bfs", "karate", "--plot", str(path)]) == 1
        assert needle in _error_line(capsys)
    assert not os.listdir(tmp_path)


# ------------------------------------------------------------------------------ --debug
def test_debug_shows_the_traceback_then_the_line(capsys, monkeypatch):
    for argv in (["--debug", "run", "bfs", "rmat:99"], ["run", "bfs", "rmat:99", "--debug"]):
        assert cli.main(argv) == 1
        err = capsys.readouterr().err
        assert err.startswith("Traceback") and "generate.py" in err
        assert err.splitlines()[-1] == ("grblas-gpu: error: GrB_INVALID_VALUE: rmat: "
                                        "scale=99 is too large (at most 31)")
    monkeypatch.setenv("GRBLAS_GPU_DEBUG", "1")
    assert cli.main(["run", "bfs", "rmat:99"]) == 1
    assert "Traceback" in capsys.readouterr().err


# ------------------------------------------------------- conformance and benchmarks CLIs
def test_conformance_errors(capsys, tmp_path):
    from grblas_gpu import conformance

    assert cli.main(["conformance", "--ops", "nonesuch"]) == 2
    assert "--ops: unknown operation" in _error_line(capsys, "grblas-gpu conformance")
    assert cli.main(["--debug", "conformance", "--ops", "nonesuch"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and err.splitlines()[-1].startswith("grblas-gpu conformance: error")
    assert conformance.main(["--shard", "3/2"]) == 2
    assert "--shard" in _error_line(capsys, "python -m grblas_gpu.conformance")
    assert conformance.main(["--tiny", "--json", str(tmp_path / "no" / "x.json")]) == 1
    assert "no such directory" in _error_line(capsys, "python -m grblas_gpu.conformance")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert conformance.main(["--merge", str(bad)]) == 1
    assert "not a conformance --json file" in _error_line(capsys, "python -m grblas_gpu.conformance")


def test_benchmarks_errors(capsys, tmp_path):
    from grblas_gpu.benchmarks.run import command

    assert command(["--cases", "nonesuch"]) == 2
    assert "unknown case module 'nonesuch'; choose from" in _error_line(
        capsys, "python -m grblas_gpu.benchmarks")
    assert command(["--reps", "x"]) == 2
    _error_line(capsys, "python -m grblas_gpu.benchmarks")
    assert command(["--json", str(tmp_path / "no" / "rows.json")]) == 1
    assert "no such directory" in _error_line(capsys, "python -m grblas_gpu.benchmarks")


# ------------------------------------------------------------------ as a real process
def test_processes_exit_with_the_code_and_one_line():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p))
    env.pop("GRBLAS_GPU_DEBUG", None)
    for args, code in ((["-m", "grblas_gpu", "run", "bfs", "rmat:abc"], 2),
                       (["-m", "grblas_gpu.conformance", "--ops", "nonesuch"], 2)):
        p = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                           cwd=REPO, timeout=120)
        assert p.returncode == code and p.stdout == ""
        assert len(p.stderr.splitlines()) == 1 and "error:" in p.stderr, p.stderr


# --------------------------------------------------------------------------------- warmup
def test_warmup_prints_its_summary(capsys):
    assert cli.main(["warmup", "--operations", "vxm,apply", "--types", "BOOL,FP64",
                     "--semirings", "any_pair,min_plus", "--quiet"]) == 0
    out, err = capsys.readouterr()
    line, = out.splitlines()
    assert line.startswith(f"backend {backend.name}: warm-up: ") and " calls (" in line
    assert err == ""


def test_warmup_log_prints_each_build(capsys, monkeypatch):
    from grblas_gpu import compile_log, kernel_warmup

    def fake(*args, **kwargs):   # one build, as the kernel cache reports it
        compile_log.record("family__variant__fp64", ("k",), 0.25, False)
        return kernel_warmup.WarmupSummary(1, 0, 1, 1, 0, 0, 0.25, 0.3)

    monkeypatch.setattr(kernel_warmup, "warmup", fake)
    try:
        assert cli.main(["warmup", "--log", "--quiet"]) == 0
    finally:
        import grblas_gpu as gg
        import logging

        logger = logging.getLogger("grblas_gpu.kernels")
        for h in list(logger.handlers):
            logger.removeHandler(h)
        logger.setLevel(logging.NOTSET)
        gg.kernel_stats(reset=True)
    out, err = capsys.readouterr()
    assert "grblas_gpu.kernels: kernel module family__variant__fp64 compiled by NVRTC in " \
           "0.250 s (kernels: k)" in err
    assert "1 kernel modules built (1 compiled" in out


@pytest.mark.parametrize("argv, needle", [
    (["warmup", "--operations", "bogus"], "unknown operation 'bogus'; choose from mxv"),
    (["warmup", "--types", "FP128"], "unknown type 'FP128'"),
    (["warmup", "--semirings", "no_such"], "unknown semiring 'no_such'"),
    (["warmup", "--semirings", "plus"], "unknown semiring 'plus'"),
    (["warmup", "--operations", ","], "expected names separated by commas"),
    (["warmup", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_warmup_usage_errors_exit_2(capsys, monkeypatch, argv, needle):
    from grblas_gpu import kernel_warmup

    monkeypatch.setattr(kernel_warmup, "warmup", lambda *a, **k: pytest.fail("it ran"))
    assert cli.main(argv) == 2
    assert needle in _error_line(capsys)
