"""grblas_gpu.plot: PNGs of the expected size on a headless machine, clear errors on bad input,
NotSupported without matplotlib, and the text formatters (which need no matplotlib).

Drawing tests skip when matplotlib is not installed (CI installs .[test] only); the argument
checks run first in every drawing function, so the error tests run everywhere.
"""
import subprocess
import sys

import numpy as np
import pytest

import grblas_gpu as gg
from grblas_gpu import generate, plot


def _mpl():
    return pytest.importorskip("matplotlib")


def _png_size(path):
    """(width, height) of a PNG, read back with matplotlib.image."""
    import matplotlib.image as mpimg

    img = mpimg.imread(str(path))
    return img.shape[1], img.shape[0]


@pytest.fixture(scope="module")
def karate():
    return generate.karate()


@pytest.fixture(scope="module")
def nvgraph6():
    """The nvGRAPH guide's six-vertex weighted example (directed)."""
    return gg.Matrix.from_csc([0, 1, 3, 4, 6, 8, 10], [2, 0, 2, 0, 4, 5, 2, 3, 3, 4],
                              [1 / 3, .5, 1 / 3, .5, .5, 1., 1 / 3, .5, .5, .5], dtype=gg.FP32)


# ----------------------------------------------------------------------------- plot_graph
def test_plot_graph_png_size(tmp_path, karate):
    _mpl()
    from grblas_gpu import algorithms

    dist, _ = algorithms.bfs(karate, 0, undirected=True)
    path = tmp_path / "g.png"
    ax = plot.plot_graph(karate, dist, title="levels", highlight=[0], path=path)
    assert _png_size(path) == (500, 400)
    assert ax.get_title() == "levels"


@pytest.mark.parametrize("values", ["vector", "sparse", "array", "list", "none", "floats"])
def test_plot_graph_value_kinds(tmp_path, karate, values):
    _mpl()
    n = karate.nrows
    v = {
        "vector": gg.Vector.from_dense(np.arange(n, dtype=np.int64)),
        "sparse": gg.Vector.from_coo([0, 5, 7], [1.0, 2.0, 3.0], size=n),
        "array": np.arange(n) % 3,
        "list": [float(i) for i in range(n)],
        "none": None,
        "floats": np.where(np.arange(n) % 4 == 0, np.inf, np.linspace(0, 1, n)),
    }[values]
    path = tmp_path / "g.png"
    plot.plot_graph(karate, v, path=path, figsize=(3, 2), dpi=50)
    assert _png_size(path) == (150, 100)


def test_plot_graph_unreached_markers(tmp_path, nvgraph6):
    _mpl()
    n = nvgraph6.nrows
    far = np.finfo(np.float32).max
    d = np.array([0, 1, far, far, 2, 3], dtype=np.float32)       # sssp-style FLT_MAX
    vals, present = plot._host_values(d, n, "d")
    assert present.tolist() == [True, True, False, False, True, True]
    bfs_d = np.array([0, 1, 2**31 - 1, 1, 1, 2], dtype=np.int32)  # bfs-style INT_MAX
    assert plot._host_values(bfs_d, n, "d")[1].tolist() == [True, True, False, True, True, True]
    plot.plot_graph(nvgraph6, d, edge_labels=True, path=tmp_path / "d.png")
    assert _png_size(tmp_path / "d.png") == (500, 400)


@pytest.mark.parametrize("layout", ["spring", "circular", "positions"])
def test_plot_graph_layouts(tmp_path, nvgraph6, layout):
    _mpl()
    if layout == "positions":
        layout = np.array([[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]], dtype=float)
    plot.plot_graph(nvgraph6, layout=layout, directed=True, path=tmp_path / "l.png")
    assert _png_size(tmp_path / "l.png") == (500, 400)


def test_plot_graph_into_given_axes(tmp_path, karate, nvgraph6):
    _mpl()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 3), dpi=100)
    a, b = fig.subplots(1, 2)
    assert plot.plot_graph(karate, ax=a) is a
    assert plot.plot_graph(nvgraph6, np.arange(6), ax=b) is b
    fig.savefig(tmp_path / "two.png")
    assert _png_size(tmp_path / "two.png") == (800, 300)


def test_plot_graph_same_bytes_twice(tmp_path, karate):
    _mpl()
    plot.plot_graph(karate, np.arange(34), path=tmp_path / "a.png")
    plot.plot_graph(karate, np.arange(34), path=tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


def test_empty_and_tiny_inputs_draw(tmp_path):
    _mpl()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot.plot_graph(gg.Matrix(gg.BOOL, 0, 0), path=tmp_path / "a.png")
        plot.plot_graph(gg.Matrix(gg.BOOL, 1, 1), [3.0], path=tmp_path / "b.png")
        plot.plot_graph(gg.Matrix(gg.BOOL, 3, 3), gg.Vector(gg.FP64, 3), path=tmp_path / "c.png")
        plot.plot_sparsity(gg.Matrix(gg.BOOL, 0, 0), path=tmp_path / "d.png")
        plot.plot_sparsity(gg.Matrix(gg.BOOL, 5, 5), values=True, path=tmp_path / "e.png")
        plot.plot_frontier([], path=tmp_path / "f.png")
    for name in "abcdef":
        assert _png_size(tmp_path / f"{name}.png")[0] > 0


# ----------------------------------------------------------------------------- layouts
def test_spring_layout_deterministic_and_bounded(karate):
    p1 = plot.spring_layout(karate, seed=0)
    p2 = plot.spring_layout(karate, seed=0)
    p3 = plot.spring_layout(karate, seed=1)
    assert p1.shape == (34, 2) and np.array_equal(p1, p2) and not np.array_equal(p1, p3)
    assert np.isfinite(p1).all() and np.abs(p1).max() <= 1.0 + 1e-12


def test_spring_layout_isolated_vertices_and_tiny_graphs():
    A = gg.Matrix.from_coo([0], [1], [True], nrows=5, ncols=5)       # 2, 3, 4 isolated
    pos = plot.spring_layout(A)
    assert pos.shape == (5, 2) and np.isfinite(pos).all()
    assert plot.spring_layout(gg.Matrix(gg.BOOL, 1, 1)).shape == (1, 2)
    assert plot.spring_layout(gg.Matrix(gg.BOOL, 0, 0)).shape == (0, 2)


def test_spring_layout_edges_pull_neighbours_together(karate):
    pos = plot.spring_layout(karate)
    rows, cols, _ = karate.to_coo()
    edge = np.linalg.norm(pos[rows] - pos[cols], axis=1).mean()
    i, j = np.triu_indices(34, 1)
    pair = np.linalg.norm(pos[i] - pos[j], axis=1).mean()
    assert edge < pair


def test_circular_layout():
    pos = plot.circular_layout(4)
    np.testing.assert_allclose(pos, [[0, 1], [1, 0], [0, -1], [-1, 0]], atol=1e-12)


# ----------------------------------------------------------------------------- traces
def _bfs_trace(A):
    from grblas_gpu import algorithms

    trace = []
    dist, _ = algorithms.bfs(A, 0, undirected=True, trace=trace.append)
    return trace, dist


def test_plot_frontier_png_size(tmp_path):
    _mpl()
    R = generate.rmat(9, 8, seed=3)
    trace, dist = _bfs_trace(R)
    plot.plot_frontier(trace, distances=dist, title="frontier", path=tmp_path / "f.png")
    assert _png_size(tmp_path / "f.png") == (500, 320)
    # without distances, push levels (no frontier count) still draw
    plot.plot_frontier(trace, path=tmp_path / "g.png", figsize=(4, 3), dpi=80)
    assert _png_size(tmp_path / "g.png") == (320, 240)


def test_plot_frontier_handwritten_records(tmp_path):
    _mpl()
    recs = [{"iteration": 1, "direction": "push", "frontier": 3},
            {"iteration": 2, "direction": "pull", "frontier": 900},
            {"iteration": 3, "direction": "push", "frontier": None, "edges": 4}]
    ax = plot.plot_frontier(recs, log=True, path=tmp_path / "f.png")
    assert ax.get_yscale() == "log"
    assert _png_size(tmp_path / "f.png") == (500, 320)


def test_plot_residual_png_size(tmp_path, karate):
    _mpl()
    from grblas_gpu import algorithms

    trace = []
    algorithms.pagerank(karate, trace=trace.append)
    ax = plot.plot_residual(trace, tolerance=1e-6, path=tmp_path / "r.png")
    assert ax.get_yscale() == "log"
    assert _png_size(tmp_path / "r.png") == (500, 320)


def test_plot_residual_stages(tmp_path):
    _mpl()
    recs = [{"stage": "lanczos", "iteration": 1, "residual": 1e-1},
            {"stage": "lanczos", "iteration": 2, "residual": 1e-4},
            {"stage": "kmeans", "iteration": 1, "cost": 3.0},
            {"stage": "lobpcg", "iteration": 1, "residual": 0.0}]
    ax = plot.plot_residual(recs, path=tmp_path / "r.png")
    assert len(ax.get_lines()) == 2
    assert _png_size(tmp_path / "r.png") == (500, 320)


# ----------------------------------------------------------------------------- sparsity
def test_plot_sparsity_png_size(tmp_path, karate, nvgraph6):
    _mpl()
    plot.plot_sparsity(karate, title="karate", path=tmp_path / "s.png")
    assert _png_size(tmp_path / "s.png") == (400, 400)
    plot.plot_sparsity(nvgraph6, values=True, order=[5, 4, 3, 2, 1, 0],
                       path=tmp_path / "v.png", figsize=(3, 3))
    assert _png_size(tmp_path / "v.png") == (300, 300)
    rect = gg.Matrix.from_coo([0, 2], [5, 9], [1.0, 2.0], nrows=3, ncols=10)
    plot.plot_sparsity(rect, path=tmp_path / "rect.png")              # any shape
    assert _png_size(tmp_path / "rect.png") == (400, 400)


def test_plot_sparsity_large_matrices(tmp_path):
    _mpl()
    rng = np.random.default_rng(0)
    n = 3000
    for k, nnz in ((1, 5000), (2, 250_000)):                         # points, then density
        flat = np.unique(rng.integers(0, n * n, size=nnz))
        A = gg.Matrix.from_coo(flat // n, flat % n, True, nrows=n, ncols=n)
        plot.plot_sparsity(A, path=tmp_path / f"big{k}.png", figsize=(3, 3))
        assert _png_size(tmp_path / f"big{k}.png") == (300, 300)


# ----------------------------------------------------------------------------- plot_result
ALGOS = list(plot.RESULT_ALGORITHMS)


@pytest.mark.parametrize("algo", ALGOS)
@pytest.mark.parametrize("size", ["small", "large"])
def test_plot_result_png_size(tmp_path, karate, algo, size):
    _mpl()
    from grblas_gpu import algorithms

    A = karate.dup(gg.FP32) if size == "small" else generate.rmat(9, 4, seed=2, dtype=gg.FP32)
    assert (A.nrows <= plot.DRAW_MAX_VERTICES) == (size == "small")
    result = algorithms.CLI_ALGORITHMS[algo](A)
    path = tmp_path / f"{algo}.png"
    plot.plot_result(algo, A, result, str(path))
    assert _png_size(path) == (600, 450)


def test_cli_run_plot(tmp_path, capsys):
    _mpl()
    from grblas_gpu import cli

    path = tmp_path / "bfs.png"
    assert cli.main(["run", "bfs", "karate", "--plot", str(path)]) == 0
    assert f"wrote {path}" in capsys.readouterr().out
    assert _png_size(path) == (600, 450)


def test_no_pyplot_and_no_open_figures(tmp_path):
    """Drawing never imports pyplot (so no GUI backend and no global figure list)."""
    _mpl()
    code = ("import sys, numpy as np; from grblas_gpu import generate, plot; "
            "A = generate.karate(); "
            f"plot.plot_graph(A, np.arange(34), path=r'{tmp_path / 'a.png'}'); "
            f"plot.plot_sparsity(A, path=r'{tmp_path / 'b.png'}'); "
            "print('matplotlib.pyplot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"MPLBACKEND": "TkAgg", "PATH": "/usr/bin:/bin",
                                          "HOME": str(tmp_path)})
    assert out.stdout.strip() == "False"
    assert (tmp_path / "a.png").is_file() and (tmp_path / "b.png").is_file()


# ----------------------------------------------------------------------------- bad input
def test_non_square_matrix_raises_dimension_mismatch():
    rect = gg.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=3)
    with pytest.raises(gg.DimensionMismatch):
        plot.plot_graph(rect)
    with pytest.raises(gg.DimensionMismatch):
        plot.plot_result("bfs", rect, (np.zeros(2), np.zeros(2)), "x.png")
    with pytest.raises(gg.DimensionMismatch):
        plot.spring_layout(rect)


@pytest.mark.parametrize("values", [np.zeros(33), gg.Vector(gg.FP64, 35), [1.0, 2.0]])
def test_mismatched_vector_length_raises(karate, values):
    with pytest.raises(gg.DimensionMismatch):
        plot.plot_graph(karate, values)


@pytest.mark.parametrize("kwargs, error", [
    (dict(node_values=np.zeros((34, 2))), gg.InvalidValue),
    (dict(node_values=np.array(["a"] * 34)), gg.InvalidValue),
    (dict(layout="hexagonal"), gg.InvalidValue),
    (dict(layout=np.zeros((34, 3))), gg.InvalidValue),
    (dict(layout=np.zeros((30, 2))), gg.DimensionMismatch),
    (dict(highlight=[34]), gg.InvalidValue),
    (dict(highlight=["x"]), gg.InvalidValue),
    (dict(figsize=(0, 3)), gg.InvalidValue),
    (dict(figsize="big"), gg.InvalidValue),
    (dict(dpi=-1), gg.InvalidValue),
])
def test_plot_graph_bad_arguments(karate, kwargs, error):
    with pytest.raises(error):
        plot.plot_graph(karate, **kwargs)


def test_bad_input_other_functions(karate):
    with pytest.raises(gg.InvalidValue):
        plot.plot_graph(np.eye(3))
    with pytest.raises(gg.InvalidValue):
        plot.plot_sparsity([[1, 0], [0, 1]])
    with pytest.raises(gg.InvalidValue):
        plot.plot_sparsity(karate, order=[0] * 34)                      # not a permutation
    with pytest.raises(gg.DimensionMismatch):
        plot.plot_sparsity(karate, order=list(range(10)))
    with pytest.raises(gg.InvalidValue):
        plot.plot_residual([{"iteration": 1, "frontier": 3}])         # no residual at all
    with pytest.raises(gg.InvalidValue):
        plot.plot_residual(5)
    with pytest.raises(gg.InvalidValue):
        plot.plot_frontier([1, 2, 3])
    with pytest.raises(gg.InvalidValue):
        plot.plot_frontier([], distances=np.zeros((2, 2), dtype=np.int32))
    with pytest.raises(gg.InvalidValue):
        plot.plot_result("dfs", karate, None, "x.png")
    with pytest.raises(gg.InvalidValue):
        plot.plot_result("bfs", karate, np.zeros(34), "x.png")        # not (dist, pred)
    with pytest.raises(gg.InvalidValue):
        plot.plot_result("triangle_count", karate, "many", "x.png")
    with pytest.raises(gg.InvalidValue):
        plot.plot_result("pagerank", karate, np.zeros(34), None)
    with pytest.raises(gg.DimensionMismatch):
        plot.plot_result("pagerank", karate, np.zeros(5), "x.png")


def test_missing_matplotlib_raises_not_supported(monkeypatch, karate, tmp_path):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)     # import matplotlib -> ImportError
    for call in (lambda: plot.plot_graph(karate, path=tmp_path / "x.png"),
                 lambda: plot.plot_sparsity(karate),
                 lambda: plot.plot_residual([{"residual": 1.0}]),
                 lambda: plot.plot_frontier([{"iteration": 1, "frontier": 1}]),
                 lambda: plot.plot_result("triangle_count", karate, 45, tmp_path / "t.png")):
        with pytest.raises(gg.NotSupported, match=r"grblas-gpu\[plot\]"):
            call()
    assert not (tmp_path / "x.png").exists()


# ----------------------------------------------------------------------------- text
def test_format_vector():
    v = gg.Vector.from_coo([0, 2, 3], [0.5, 2.0, 1 / 3], size=5)
    assert plot.format_vector(v) == "[   0.5      .      2 0.3333      .]"
    assert plot.format_vector(v, fmt=".2f", width=4) == "[0.50    .    2 0.33    .]"
    assert plot.format_vector(np.array([1, -1, 7])) == "[ 1 -1  7]"
    assert plot.format_vector([np.inf, -np.inf, 1.5]) == "[ inf -inf  1.5]"
    assert plot.format_vector(gg.Vector.from_coo([1], [True], size=3)) == "[. 1 .]"
    assert plot.format_vector(gg.Vector(gg.INT32, 2), missing="-") == "[- -]"
    with pytest.raises(gg.InvalidValue):
        plot.format_vector(np.zeros((2, 2)))


def test_format_matrix():
    A = gg.Matrix.from_coo([0, 1, 1], [1, 0, 2], [0.5, 2.0, 10.0], nrows=2, ncols=3)
    assert plot.format_matrix(A) == "  . 0.5   .\n  2   .  10"


def test_format_record_and_trace():
    recs = [{"iteration": 1, "direction": "push", "frontier": None, "edges": np.int64(475)},
            {"iteration": 2, "direction": "pull", "frontier": 421, "residual": 1.5e-7}]
    assert plot.format_record(recs[0]) == "iteration 1  direction push  frontier -  edges 475"
    table = plot.format_trace(recs).split("\n")
    assert table[0].split() == ["iteration", "direction", "frontier", "edges", "residual"]
    assert table[1].split() == ["1", "push", "-", "475", "-"]
    assert table[2].split() == ["2", "pull", "421", "-", "1.500e-07"]
    assert plot.format_trace([]) == ""
