"""The grblas-gpu command line as its peers behave: progress bars (tqdm) only on a terminal,
reproducible generated graphs (--seed), every algorithm listed and options that do not
apply refused, info's versions, help without reST markup, bench from a checkout (and its
chart), conformance without python-graphblas."""
import io
import json
import re
import sys

import pytest

from grblas_gpu import algorithms
from grblas_gpu import cli, cli_info, cli_run, plot

from test_cli import _error_line


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def _terminal(monkeypatch):
    """stderr as a terminal from here on (set in the test's body: pytest's capture sets
    sys.stderr when the call starts); returns the stream, whose value is what bars drew."""
    pytest.importorskip("tqdm")
    stream = _Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    return stream


def _has_matplotlib():
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError:
        return False
    return True


# ----------------------------------------------------------------------------- progress
def test_conformance_bar_counts_cases_and_failures(capsys, monkeypatch):
    terminal = _terminal(monkeypatch)
    from grblas_gpu import conformance

    assert conformance.main(["--tiny", "--ops", "transpose"]) == 0
    drawn = terminal.getvalue()
    assert "case" in drawn and "failed=0" in drawn, drawn
    out = capsys.readouterr().out
    assert "conformance:" in out and "transpose ..." not in out  # the bar names the op


def test_conformance_quiet_and_piped_draw_no_bar(capsys, monkeypatch):
    from grblas_gpu import conformance

    assert conformance.main(["--tiny", "--ops", "transpose"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "  transpose ..." in out     # a log gets the plain lines
    stream = _Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    assert conformance.main(["--tiny", "--ops", "transpose", "--quiet"]) == 0
    assert stream.getvalue() == ""


def test_run_bar_follows_the_trace_on_large_graphs(capsys, monkeypatch):
    terminal = _terminal(monkeypatch)
    monkeypatch.setattr(cli_run, "PROGRESS_MIN_EDGES", 0)
    monkeypatch.setattr(cli_run, "PROGRESS_DELAY_S", 0.0)
    assert cli.main(["run", "pagerank", "karate"]) == 0
    assert "pagerank" in terminal.getvalue() and "iter" in terminal.getvalue()
    assert "top 5" in capsys.readouterr().out
    terminal.seek(0)
    terminal.truncate()
    assert cli.main(["run", "pagerank", "karate", "--quiet"]) == 0
    assert terminal.getvalue() == ""


def test_run_small_graph_is_untraced(monkeypatch):
    terminal = _terminal(monkeypatch)
    seen, pagerank = [], algorithms.CLI_ALGORITHMS["pagerank"]

    def runner(A, trace=None):
        seen.append(trace)
        return pagerank(A)

    monkeypatch.setitem(algorithms.CLI_ALGORITHMS, "pagerank", runner)
    assert cli.main(["run", "pagerank", "karate"]) == 0
    assert seen == [None] and terminal.getvalue() == ""


def test_no_tqdm_is_no_failure(monkeypatch, capsys):
    from grblas_gpu import conformance

    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    monkeypatch.setattr(cli_run, "PROGRESS_MIN_EDGES", 0)
    assert cli.main(["run", "pagerank", "karate"]) == 0
    assert conformance.main(["--tiny", "--ops", "transpose"]) == 0
    assert sys.stderr.getvalue() == ""
    assert "  transpose ..." in capsys.readouterr().out


def test_bench_bar_counts_cases(capsys, monkeypatch):
    terminal = _terminal(monkeypatch)
    from grblas_gpu.benchmarks import run as bench_run

    fake = type(sys)("benchmarks.cases_fake")
    fake.CASES = [("a", {}), ("b", {})]
    fake.run = lambda name, **p: [{"case": name, "method": "m", "seconds": 0.5}]
    monkeypatch.setattr(bench_run, "_case_module", lambda name: fake)
    assert bench_run.command(["--cases", "fake"]) == 0
    assert "2/2" in terminal.getvalue() or "case" in terminal.getvalue()
    out = capsys.readouterr().out
    assert "case=a" in out and "case=b" in out and "== summary" in out


# ---------------------------------------------------------------------------------- --seed
def test_seed_reproduces_graph_and_result(capsys):
    runs = []
    for argv in (["run", "triangle_count", "rmat:9:8"],
                 ["run", "triangle_count", "rmat:9:8", "--seed", str(cli_run.DEFAULT_SEED)],
                 ["run", "triangle_count", "rmat:9:8", "--seed", "7"],
                 ["run", "triangle_count", "rmat:9:8", "--seed", "7"]):
        assert cli.main(argv) == 0
        header, summary = capsys.readouterr().out.splitlines()
        runs.append((header.split(", backend")[0], summary))
    assert runs[0] == runs[1] and runs[2] == runs[3] and runs[0][0] != runs[2][0]
    assert f"seed {cli_run.DEFAULT_SEED}:" in runs[0][0] and "seed 7:" in runs[2][0]


def test_random_seed_is_printed_and_repeats(capsys):
    assert cli.main(["run", "bfs", "urand:8:4", "--seed", "random"]) == 0
    first = capsys.readouterr().out
    seed = re.search(r"--seed (\d+) repeats this run", first).group(1)
    assert cli.main(["run", "bfs", "urand:8:4", "--seed", seed]) == 0
    again = capsys.readouterr().out
    assert first.splitlines()[1] == again.splitlines()[1]
    assert re.search(r"\d+ stored edges", first).group() == \
        re.search(r"\d+ stored edges", again).group()


@pytest.mark.parametrize("argv, needle", [
    (["run", "bfs", "karate", "--seed", "1"], "--seed does not apply to 'karate'"),
    (["run", "bfs", "grid:4", "--seed", "1"], "--seed does not apply to 'grid:4'"),
    (["run", "bfs", "rmat:4", "--seed", "-1"], "argument --seed: '-1': expected a "
     "non-negative integer or 'random'"),
    (["run", "bfs", "rmat:4", "--seed", "x"], "argument --seed"),
    (["run", "pagerank", "karate", "--source", "3"],
     "--source does not apply to pagerank"),
    (["run", "triangle_count", "karate", "--source", "0"],
     "--source does not apply to triangle_count"),
    (["run", "connected_components", "karate", "--source", "1"],
     "--source does not apply to connected_components"),
])
def test_options_that_do_not_apply_are_usage_errors(capsys, argv, needle):
    assert cli.main(argv) == 2
    assert needle in _error_line(capsys)


def test_file_graph_takes_no_seed(capsys):
    from conftest import lagraph_file

    assert cli.main(["run", "bfs", str(lagraph_file("karate.mtx")), "--seed", "3"]) == 2
    assert "--seed does not apply" in _error_line(capsys)


# ------------------------------------------------------------------------- every algorithm
def test_every_algorithm_is_listed_and_runs(capsys):
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    out = capsys.readouterr().out
    assert len(algorithms.CLI_ALGORITHMS) >= 8
    for name, runner in algorithms.CLI_ALGORITHMS.items():
        assert re.search(rf"^  {name}\s+\S", out, re.M), name
        assert cli.main(["run", name, "karate"]) == 0, name
        assert "34 vertices" in capsys.readouterr().out
    for name in ("bfs", "sssp", "widest_path", "betweenness"):
        assert cli.main(["run", name, "karate", "--source", "5"]) == 0


# ------------------------------------------------------------------------------------ info
INFO_KEYS = ("grblas_gpu", "numpy", "scipy", "cupy", "cuda_runtime", "cuda_driver",
             "python-graphblas", "networkx", "matplotlib", "tqdm", "device", "memory",
             "lagraph_data")


def test_info_lists_versions_device_and_data(capsys, monkeypatch, tmp_path):
    from importlib import metadata

    real = metadata.version

    def version(dist):
        if dist == "networkx":
            raise metadata.PackageNotFoundError(dist)
        return real(dist)

    monkeypatch.setattr(metadata, "version", version)
    monkeypatch.setenv(cli_info.LAGRAPH_ENV, str(tmp_path))
    assert cli.main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert all(k in info for k in INFO_KEYS), info
    assert info["networkx"] == "not installed" and info["numpy"] == real("numpy")
    assert f"not found at {tmp_path}" in info["lagraph_data"]
    if info["backend"] == "numpy":
        assert info["device"] == info["cuda_runtime"] == info["memory"] == "no GPU backend"
    (tmp_path / "a.mtx").write_text("%%MatrixMarket matrix coordinate real general\n1 1 0\n")
    assert cli.main(["info"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"^lagraph_data\s+found: 1 \.mtx files", text, re.M)
    assert re.search(r"^networkx\s+not installed$", text, re.M)


# -------------------------------------------------------------------------------- --help
_REST = re.compile(r"``|:(func|mod|data|class|meth|attr|obj):`|`[^`']+`_")


def _help(main, argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("argv", [[], ["info"], ["demo"], ["run"], ["warmup"],
                                  ["conformance"], ["bench"]])
def test_help_has_no_rest_markup(capsys, argv):
    out = _help(cli.main, argv + ["--help"], capsys)
    assert out.startswith("usage:") and not _REST.search(out), _REST.search(out)


def test_module_help_has_no_rest_markup(capsys):
    from grblas_gpu import conformance
    from grblas_gpu.benchmarks.run import command

    for main in (conformance.main, command):
        out = _help(main, ["--help"], capsys)
        assert not _REST.search(out), _REST.search(out)


# ----------------------------------------------------------------------------------- bench
def test_bench_runs_the_installed_benchmarks():
    from grblas_gpu.benchmarks import run as bench_run

    assert cli._benchmarks() is bench_run


def test_bench_plot_needs_matplotlib_before_running(capsys, monkeypatch, tmp_path):
    from grblas_gpu.benchmarks import run as bench_run

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setattr(bench_run, "_case_module", lambda n: pytest.fail("it ran"))
    assert cli.main(["bench", "--plot", str(tmp_path / "b.png")]) == 1
    assert "--plot needs matplotlib" in _error_line(capsys)


ROWS = [{"case": "mxv_pull", "scale": 10, "method": "grblas_gpu", "seconds": 0.002},
        {"case": "mxv_pull", "scale": 10, "method": "SuiteSparse", "seconds": 0.001},
        {"case": "vxm_push", "scale": 10, "method": "SuiteSparse", "seconds": None}]


def test_bench_chart_groups_peers_side_by_side():
    from grblas_gpu.benchmarks.chart import groups

    labels, methods, seconds = groups(ROWS)
    assert labels == ["mxv_pull scale 10"] and methods == ["grblas_gpu", "SuiteSparse"]
    assert seconds == {("mxv_pull scale 10", "grblas_gpu"): 0.002,
                       ("mxv_pull scale 10", "SuiteSparse"): 0.001}


@pytest.mark.parametrize("largest, unit, height", [(2.5, "s", 2.5), (0.002, "ms", 2.0),
                                                    (6.7e-5, "µs", 67.0)])
def test_bench_chart_reads_in_the_unit_that_suits(tmp_path, largest, unit, height):
    if not _has_matplotlib():
        pytest.skip("matplotlib not installed")
    from grblas_gpu.benchmarks.chart import draw

    rows = [dict(ROWS[0], seconds=largest), dict(ROWS[1], seconds=largest / 2)]
    ax = draw(rows, tmp_path / "c.png")
    assert ax.get_ylabel() == f"{unit} (median)"
    assert max(p.get_height() for p in ax.patches) == pytest.approx(height)


def test_bench_from_json_prints_and_plots(capsys, tmp_path):
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(ROWS))
    argv = ["bench", "--from-json", str(rows)]
    if _has_matplotlib():
        argv += ["--plot", str(tmp_path / "chart.png")]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "== summary" in out and "method=SuiteSparse" in out
    if _has_matplotlib():
        assert (tmp_path / "chart.png").read_bytes()[:4] == b"\x89PNG"
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "rows"}')
    assert cli.main(["bench", "--from-json", str(bad)]) == 1
    assert "not a benchmarks --json file" in _error_line(capsys)


# ------------------------------------------------------------------------------ pictures
@pytest.mark.parametrize("rgb, colour", [
    ((0.267, 0.005, 0.329), "white"),   # viridis' dark end
    ((0.993, 0.906, 0.144), "black"),   # viridis' bright end
    ((0.478, 0.821, 0.318), "black"),   # a bright green
    ((0.128, 0.567, 0.551), "black"),   # the teal in the middle
    ((0.231, 0.322, 0.545), "white"),   # a dark blue
    ((0.0, 0.0, 0.0), "white"), ((1.0, 1.0, 1.0), "black"),
])
def test_labels_contrast_with_their_node(rgb, colour):
    assert plot.label_colour(rgb) == colour


# ------------------------------------------------------------------------- conformance
def test_conformance_without_python_graphblas_names_the_extra(capsys, monkeypatch):
    from grblas_gpu import conformance

    monkeypatch.setitem(sys.modules, "graphblas", None)
    for main, prog in ((conformance.main, "python -m grblas_gpu.conformance"),
                       (lambda a: cli.main(["conformance", *a]), "grblas-gpu conformance")):
        assert main(["--quick"]) == 1
        line = _error_line(capsys, prog)
        assert "python-graphblas, which is not installed" in line
        assert "grblas-gpu[conformance]" in line
