"""benchmarks.cases_gap (``python -m grblas_gpu.benchmarks --gap``) at a small scale on the active
backend: every kernel's rows verified, peers beside them, the checks catching wrong results,
and the command line (also ``grblas-gpu bench --gap``). Kernels algorithms lacks get stand-ins
built from the harness's own references, so their checks and peers run too."""
import json

import numpy as np
import pytest

from grblas_gpu import algorithms
from grblas_gpu.benchmarks import cases_gap as gap
from grblas_gpu.benchmarks.run import command
from grblas_gpu import backend, cli, generate


@pytest.fixture
def all_kernels(monkeypatch):
    """Stand-ins for the kernels this tree may not have yet (their contracts)."""
    if getattr(algorithms, "connected_components", None) is None:
        monkeypatch.setattr(algorithms, "connected_components", lambda A, trace=None:
                            backend.xp.asarray(gap.reference_components(A)), raising=False)
    if getattr(algorithms, "betweenness", None) is None:
        def betweenness(A, sources, trace=None):
            E = gap._Edges(A)
            sparse, _ = gap._sparse()
            M = sparse.csr_matrix((backend.xp.ones(len(E.indices)), E.indices, E.indptr),
                                  shape=A.shape)
            return gap.reference_betweenness(M, sources)
        monkeypatch.setattr(algorithms, "betweenness", betweenness, raising=False)


@pytest.mark.parametrize("graph", gap.GRAPHS)
def test_every_kernel_verified(graph, all_kernels):
    rows = gap.run_gap(6, [graph], gap.KERNELS, sources=4)
    ours = [r for r in rows if r["method"].startswith("grblas_gpu")]
    assert [r["kernel"] for r in ours] == list(gap.KERNELS)
    for r in ours:
        assert r["check passed"] is True, r
        assert r["seconds"] > 0 and r["first call s"] > 0
    assert ours[0]["GTEPS (harmonic mean)"] > 0 and ours[0]["trials"] == 4
    assert ours[4]["trials"] == 1                       # bc: 4 sources per trial
    peers = [r for r in rows if not r["method"].startswith("grblas_gpu")]
    if not any("skipped" in r for r in peers):          # python-graphblas installed
        assert all("speedup vs SuiteSparse" in r for r in ours)


def test_missing_kernel_is_a_skipped_row(monkeypatch):
    monkeypatch.delattr(algorithms, "triangle_count")
    rows = gap.run_gap(5, ["kron"], ["tc"], sources=2)
    assert rows == [{"case": "gap", "graph": "kron", "scale": 5, "kernel": "tc",
                     "method": "grblas_gpu triangle_count", "skipped": "not available"}]


def test_checks_catch_wrong_results():
    A = gap.make_graph("grid", 4)                       # 4 x 4
    E = gap._Edges(A)
    dist, pred = algorithms.bfs(A, 0)
    assert gap.check_bfs(E, 0, dist, pred) is None
    bad = pred.copy()
    bad[15] = 0                                         # not a neighbour
    assert gap.check_bfs(E, 0, dist, bad) == "a tree edge is not in the graph"
    far = dist.copy()
    far[15] = 7                                         # one level too deep
    assert gap.check_bfs(E, 0, far, pred) is not None
    W = gap.make_graph("grid", 4, weighted=True)
    EW = gap._Edges(W)
    w = backend.to_host(EW.values)
    assert w.min() >= 1 and w.max() <= 255 and np.array_equal(w, np.round(w))
    d = algorithms.sssp(W, 0)
    assert gap.check_sssp(EW, 0, d) is None
    short = d.copy()
    short[5] -= 1
    assert gap.check_sssp(EW, 0, short) is not None
    long = d.copy()
    long[5] += 1
    assert gap.check_sssp(EW, 0, long) == "an edge still relaxes"


def test_sources_are_non_isolated_and_reproducible():
    A = gap.make_graph("kron", 8)
    deg = np.diff(backend.to_host(A.to_csr(device=True)[0]))
    src = gap.pick_sources(A, 64)
    assert src == gap.pick_sources(A, 64) and (deg[src] > 0).all()


def test_command_line(tmp_path, capsys, all_kernels):
    out = tmp_path / "gap.json"
    assert command(["--gap", "--scale", "5", "--graphs", "urand", "--kernels", "bfs,cc",
                    "--sources", "2", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert {r["kernel"] for r in rows} == {"bfs", "cc"}
    assert all(r["check passed"] for r in rows if r["method"].startswith("grblas_gpu"))
    assert command(["--gap", "--graphs", "web"]) == 2
    assert "--graphs: unknown 'web'" in capsys.readouterr().err
    assert cli.main(["bench", "--gap", "--scale", "5", "--graphs", "grid", "--kernels", "tc",
                     "--sources", "1"]) == 0
    assert "kernel=tc" in capsys.readouterr().out


def test_fresh_process_row():
    rows = gap.run_gap(5, ["kron"], ["tc"], sources=1, fresh=True)
    assert rows[0]["fresh process s"] > 0 and rows[0]["check passed"]
    assert rows[0]["fresh process kernel modules"] >= 0 and rows[0]["fresh process kernel module s"] >= 0


def test_generators_urand_and_grid():
    U = generate.urand(8, seed=3)
    S = U.to_scipy()
    assert (S != S.T).nnz == 0 and S.diagonal().sum() == 0 and U.nvals > 7000
    G = generate.grid(3, 4)
    assert G.nvals == 2 * (3 * 3 + 2 * 4)
    deg = np.diff(backend.to_host(G.to_csr(device=True)[0]))
    assert sorted(set(deg.tolist())) == [2, 3, 4]
    assert generate.graph("grid:5").shape == (32, 32)   # 4 x 8
    assert generate.graph("urand:6:4", seed=1).nrows == 64
    W = generate.grid(4, weighted=True, seed=2)
    Ws = W.to_scipy()
    assert abs(Ws - Ws.T).max() == 0


def test_markdown_tables_from_the_rows(all_kernels):
    rows = gap.run_gap(5, ["kron", "grid"], ["bfs", "pr", "tc"], sources=2)
    text = gap.markdown(rows)
    lines = text.splitlines()
    assert lines.count("| graph | BFS | PageRank | TC |") == 2
    kron = [line for line in lines if line.startswith("| kron 5 |")]
    assert len(kron) == 2
    bfs = next(r for r in rows if r["method"] == "grblas_gpu bfs" and r["graph"] == "kron")
    assert f"{bfs['GTEPS (harmonic mean)']:.3g} GTEPS" in kron[0]
    assert "the SpMV loop" in kron[0] and f"{bfs['first / repeated']:.2g}×" in kron[1]
    assert "check failed" not in text
    bad = [dict(r, **{"check passed": False}) if r is bfs else r for r in rows]
    assert "**check failed**" in gap.markdown(bad)
