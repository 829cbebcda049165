"""algorithms' package level: demo() (what ``grblas-gpu demo`` prints) and the CLI runners."""
import io

import numpy as np
import pytest

from grblas_gpu import algorithms
import grblas_gpu as gg
from grblas_gpu import backend, generate


def test_demo_prints_every_algorithm():
    out = io.StringIO()
    algorithms.demo(file=out)
    text = out.getvalue()
    for label in ("bfs from 0", "sssp", "widest path", "pagerank", "triangles", "srspmv",
                  "modularity_maximization", "balanced_cut_lanczos", "balanced_cut_lobpcg",
                  "subgraphs", "convert CSR -> COO", "components", "betweenness"):
        assert label in text, label
    assert "45 (nvGRAPH lower-triangle input: 45)" in text
    assert "vertices per level [1, 16, 9, 8]" in text
    assert "1 component, the largest of 34 vertices" in text
    # networkx's undirected betweenness of member 0 is 231.07; over stored (i, j) and (j, i)
    # every pair is counted from both ends: twice that
    assert "top 5: 0:462.1, 33:321.1" in text


def test_cli_runners_and_summaries():
    A = generate.karate()
    for name, run in algorithms.CLI_ALGORITHMS.items():
        figures = []
        result = run(A, trace=figures.append)  # source (where taken) defaults to 0
        line = algorithms.summarize(name, result)
        assert isinstance(line, str) and line
    dist, _ = algorithms.CLI_ALGORITHMS["bfs"](A, source=0)
    assert np.bincount(backend.to_host(dist)).tolist() == [1, 16, 9, 8]
    assert algorithms.summarize("triangle_count", 45) == "45 triangles"


@pytest.mark.parametrize("name, call", [
    ("bfs", lambda A, t: algorithms.bfs(A, 0, trace=t)),
    ("sssp", lambda A, t: algorithms.sssp(A, 0, trace=t)),
    ("widest_path", lambda A, t: algorithms.widest_path(A, 0, trace=t)),
    ("pagerank", lambda A, t: algorithms.pagerank(A, trace=t)),
    ("spectral_clustering", lambda A, t: algorithms.spectral_clustering(
        A, 2, 2, algorithms.MODULARITY_MAXIMIZATION, trace=t)),
    ("connected_components", lambda A, t: algorithms.connected_components(A, trace=t)),
    ("betweenness", lambda A, t: algorithms.betweenness(A, [0], trace=t)),
])
def test_a_trace_that_is_not_callable_is_refused_before_anything_runs(name, call):
    A = generate.karate(dtype="FP32")
    before = A.dup()
    for bad in (3, "trace", [print]):
        with pytest.raises(gg.InvalidValue, match=f"{name}: trace must be callable"):
            call(A, bad)
    assert A.isequal(before)
    figures = []
    call(A, figures.append)
    assert figures and all(isinstance(f, dict) for f in figures)
