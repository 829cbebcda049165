"""gg.traversal: the fused traversal primitive. traverse's levels and trees (against SciPy and
Graph500's rules), its trace, the workspaces kept with S, the capability check, and the
direction rule: its one definition evaluated in Python (next_direction) and rendered to C
(rule_in_c, compiled with g++ here and compared value by value)."""
import itertools
import shutil
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

import grblas_gpu as gg
from grblas_gpu import backend, generate, traversal
from test_algorithms_bfs import check_graph500, reference_levels, scipy_of

INF = 2**31 - 1
FREE = "grblas_gpu.traversal.free"


def host(a):
    return backend.to_host(a)


def pattern_and_transpose(A):
    P = gg.apply(gg.Matrix(gg.INT32, A.nrows, A.ncols), A, "one")
    return P, gg.transpose(gg.Matrix(gg.INT32, A.nrows, A.ncols), P)


def test_public_names():
    assert gg.traverse is traversal.traverse
    assert (traversal.UNREACHED, traversal.DEFAULT_ALPHA, traversal.DEFAULT_BETA) == \
        (2**31 - 1, 15, 18)
    assert (traversal.MAX_VERTICES, traversal.MAX_EDGES) == (2**31 - 1, 2**33 - 1)
    for name in traversal.__all__:
        assert hasattr(gg.traversal, name)


@pytest.mark.parametrize("symmetric", [True, False])
def test_levels_and_trees(symmetric):
    A = generate.rmat(9, seed=21, symmetric=symmetric)
    S = scipy_of(A)
    P, T = pattern_and_transpose(A)
    degrees = np.diff(S.indptr)
    for source in (int(np.argmax(degrees)), int(np.nonzero(degrees)[0][-1]), 0):
        ref = reference_levels(S, source)
        for ST in (None, T, *((P,) if symmetric else ())):
            dist, parent = gg.traverse(P, source, ST=ST)
            assert host(dist).dtype == np.int32 and host(parent).dtype == np.int32
            np.testing.assert_array_equal(host(dist), ref)
            check_graph500(S, source, host(dist), host(parent))


def test_each_search_returns_new_arrays():
    A = generate.rmat(8, seed=2)
    P, _ = pattern_and_transpose(A)
    first = [host(x).copy() for x in gg.traverse(P, 0, ST=P)]
    d0, p0 = gg.traverse(P, 0, ST=P)
    d1, p1 = gg.traverse(P, 1, ST=P)
    assert d0 is not d1 and p0 is not p1
    np.testing.assert_array_equal(host(d0), first[0])
    np.testing.assert_array_equal(host(d1), reference_levels(scipy_of(A), 1))


def beamer(push, mf, nf, seen, growing, n, m, alpha, beta, can_pull):
    """Beamer's rule as nvGRAPH's bfs.cu writes it (branches, not the shared expression)."""
    if not can_pull:
        return True
    unexplored = m - seen + mf
    if push:
        return not (mf > unexplored / alpha)
    return (not growing) and nf < n / beta


GRID = dict(push=(True, False), mf=(0, 1, 7, 100), nf=(0, 1, 5, 60), seen=(1, 50, 120),
            growing=(True, False), n=(10, 1000), m=(100, 300), alpha=(1e-9, 2, 15),
            beta=(0.5, 18, 1e9), can_pull=(True, False))


def grid():
    keys = list(GRID)
    for values in itertools.product(*GRID.values()):
        yield dict(zip(keys, values))


def test_next_direction_is_beamers_rule():
    for point in grid():
        assert traversal.next_direction(**point) == beamer(**point), point


def test_the_c_rendering_computes_the_same_rule(tmp_path):
    """rule_in_c(DIRECTION_RULE), the expression compiled into the level kernel, evaluated by
    g++ over the grid with the kernel's local types: the same answers as next_direction."""
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    points = list(grid())
    rows = "\n".join(
        "{%d, %d, %d, %r, %r, %r, %r, %r, %r, %r, %r}," % (
            p["push"], p["growing"], p["can_pull"], float(p["n"]), float(p["m"]),
            float(p["nf"]), float(p["mf"]), float(p["seen"]), float(p["alpha"]),
            float(p["beta"]), 0.0) for p in points)
    program = f"""
#include <cstdio>
struct P {{ int push, growing, can_pull; double n, m, nf, mf, seen, alpha, beta, pad; }};
static const P points[] = {{ {rows} }};
int main() {{
    for (const P& p : points) {{
        const bool push = p.push, growing = p.growing, can_pull = p.can_pull;
        const double n = p.n, m = p.m, nf = p.nf, mf = p.mf, seen = p.seen,
                     alpha = p.alpha, beta = p.beta;
        std::putchar(({traversal.rule_in_c()}) ? '1' : '0');
    }}
    return 0;
}}
"""
    (tmp_path / "rule.cpp").write_text(program)
    exe = tmp_path / "rule"
    subprocess.run(["g++", "-O1", "-o", str(exe), str(tmp_path / "rule.cpp")], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert out == "".join("1" if traversal.next_direction(**p) else "0" for p in points)


def test_rule_in_c_renders_and_refuses():
    r = traversal.rule_in_c
    assert r("a if b else c") == "(b ? a : c)"
    assert r("not x and y < 1") == "(!x && (y < 1.0))"
    assert r("x / 2 - -y >= 3 or z == w") == "((((x / 2.0) - (-y)) >= 3.0) || (z == w))"
    assert r("- -y") == "(-(-y))"                       # (not C's decrement)
    assert r() == r(traversal.DIRECTION_RULE)
    for bad in ("f(x)", "x.y", "x ** 2", "a < b < c", "[x]", "True", "1e999", "x if", 3,
                None):
        with pytest.raises(gg.InvalidValue):
            r(bad)


def test_next_direction_bad_arguments():
    point = dict(mf=3, nf=1, seen=3, growing=True, n=4, m=6, alpha=15, beta=18, can_pull=True)
    for key, value in (("mf", -1), ("nf", 1.5), ("seen", "x"), ("n", None), ("growing", "yes"),
                       ("can_pull", 2), ("alpha", 0), ("beta", float("nan")), ("alpha", "x")):
        with pytest.raises(gg.InvalidValue):
            traversal.next_direction(True, **{**point, key: value})
    with pytest.raises(gg.InvalidValue):
        traversal.next_direction("push", **point)


def test_trace_figures():
    """One record per level: the frontier of level k is dist == k, edges its out-degrees'
    sum, unexplored m minus the edges out of the earlier levels, the direction the rule's
    on the counts before the level, path "fused"; the last level finds no edge."""
    A = generate.rmat(10, seed=1)
    P, _ = pattern_and_transpose(A)
    S = scipy_of(A)
    deg = np.diff(S.indptr)
    source = int(np.argmax(deg))
    records = []
    dist, _ = gg.traverse(P, source, ST=P, trace=records.append)
    d = host(dist).astype(np.int64)
    assert [r["iteration"] for r in records] == list(range(1, len(records) + 1))
    assert all(r["path"] == "fused" for r in records)
    push, growing, nf, mf = True, True, 1, int(deg[source])
    seen = mf
    for k, r in enumerate(records, start=1):
        assert r["unexplored"] == S.nnz - seen + mf
        push = beamer(push, mf, nf, seen, growing, A.nrows, S.nnz, 15, 18, True)
        assert r["direction"] == ("push" if push else "pull")
        found = d == k
        assert r["frontier"] == int(found.sum())
        assert r["edges"] == int(deg[found].sum())
        growing = r["frontier"] > nf
        nf, mf = r["frontier"], r["edges"]
        seen += mf
    assert records[-1]["edges"] == 0 and all(r["edges"] > 0 for r in records[:-1])
    assert {r["direction"] for r in records} == {"push", "pull"}


def test_workspaces_kept_with_s_and_dropped_with_new_st():
    """A workspace (the level kernels' state, lists and recorded batch) is kept with S:
    later searches reuse it (replayed batches on the GPU); another ST object, or new
    content for ST, makes a new one; new content for S drops them all. Each search's
    results stay as they were."""
    A = generate.rmat(10, seed=3)
    S = scipy_of(A)
    P, T = pattern_and_transpose(A)          # (P is symmetric: T has the same pattern)
    degrees = np.diff(S.indptr)
    sources = [int(s) for s in np.argsort(-degrees)[:4]] + [int(np.nonzero(degrees)[0][-1])]
    results = []
    for source in sources * 2:
        results.append((source, *gg.traverse(P, source, ST=T)))
    [ws] = P.memo(FREE, list)                 # one search at a time: one workspace
    if backend.is_gpu:
        assert ws.run_batch.recorded and ws.run_batch.plain_calls == 0, \
            ws.run_batch.why_not_recorded
    gg.traverse(P, sources[0], ST=T)
    assert P.memo(FREE, list) == [ws]
    gg.apply(T, P, "one")                     # new content for ST (the same values)
    results.append((sources[1], *gg.traverse(P, sources[1], ST=T)))
    [ws2] = P.memo(FREE, list)
    assert ws2 is not ws
    results.append((sources[2], *gg.traverse(P, sources[2], ST=P)))   # another ST
    [ws3] = P.memo(FREE, list)
    assert ws3 is not ws2 and ws3.ST is P
    results.append((sources[3], *gg.traverse(P, sources[3])))         # none
    for source, dist, parent in results:
        np.testing.assert_array_equal(host(dist), reference_levels(S, source))
        check_graph500(S, source, host(dist), host(parent))
    # S changed: its memo is gone, and the search runs on the new graph
    rows, cols, _ = A.to_coo()
    keep = rows != 0
    B = gg.Matrix.from_coo(rows[keep], cols[keep], 1, nrows=A.nrows, ncols=A.ncols,
                           dtype=gg.INT32)
    gg.apply(P, B, "one")
    assert P.memo(FREE, list) == []
    S2 = scipy_of(B)
    dist, parent = gg.traverse(P, sources[1])
    np.testing.assert_array_equal(host(dist), reference_levels(S2, sources[1]))
    check_graph500(S2, sources[1], host(dist), host(parent))


def test_supports():
    P, T = pattern_and_transpose(generate.rmat(6, seed=1, symmetric=False))
    assert traversal.supports(P) and traversal.supports(P, T) and traversal.supports(P, P)
    assert not traversal.supports(gg.Matrix(gg.INT32, 3, 4))             # not square
    assert not traversal.supports(P, gg.Matrix(gg.INT32, 3, 3))          # ST's shape
    assert traversal.supports(gg.Matrix(gg.FP64, 5, 5))                  # any type, no edges

    class Huge(gg.Matrix):
        nrows = ncols = property(lambda self: 2**31)

    class Dense(gg.Matrix):
        nvals = property(lambda self: 2**33)

    assert not traversal.supports(Huge(gg.INT32, 4, 4))
    assert not traversal.supports(Dense(gg.INT32, 4, 4))
    for bad in (None, "S", P.T, gg.Vector(gg.INT32, 4), np.eye(4)):
        with pytest.raises(gg.InvalidValue):
            traversal.supports(bad)
    for bad in ("ST", P.T, gg.Vector(gg.INT32, 64)):
        with pytest.raises(gg.InvalidValue):
            traversal.supports(P, bad)


def test_traverse_refuses_what_it_does_not_support_before_making_anything():
    class Huge(gg.Matrix):
        nrows = ncols = property(lambda self: 2**31)

    class Dense(gg.Matrix):
        nvals = property(lambda self: 2**33)

    for S, error, match in ((Huge(gg.INT32, 4, 4), gg.InvalidValue, "2\\*\\*31 - 1 vertices"),
                            (Dense(gg.INT32, 4, 4), gg.InvalidValue, "2\\*\\*33 - 1 edges"),
                            (gg.Matrix(gg.INT32, 4, 5), gg.DimensionMismatch, "square")):
        with pytest.raises(error, match=match):
            gg.traverse(S, 0)
        assert S.memo(FREE, list) == []      # no workspace was made
    P, _ = pattern_and_transpose(generate.karate())
    with pytest.raises(gg.DimensionMismatch, match="ST has shape"):
        gg.traverse(P, 0, ST=gg.Matrix(gg.INT32, 3, 3))
    assert P.memo(FREE, list) == []


def test_bad_arguments():
    P, _ = pattern_and_transpose(generate.karate())
    for source, error in ((34, gg.IndexOutOfBounds), (-1, gg.IndexOutOfBounds),
                          (1.5, gg.InvalidValue), (True, gg.InvalidValue),
                          ("0", gg.InvalidValue), (None, gg.InvalidValue)):
        with pytest.raises(error):
            gg.traverse(P, source)
    for kwargs in ({"alpha": 0}, {"beta": -1}, {"alpha": "x"}, {"beta": float("nan")},
                   {"alpha": [1, 2]}, {"trace": "print"}, {"trace": 3}, {"ST": P.T},
                   {"ST": "P"}):
        with pytest.raises(gg.InvalidValue):
            gg.traverse(P, 0, **kwargs)
    assert P.memo(FREE, list) == []
    dist, _ = gg.traverse(P, np.int64(0), alpha=np.float32(2), beta=1)   # NumPy scalars
    assert host(dist)[0] == 0


def test_empty_and_one_vertex_graphs():
    dist, parent = gg.traverse(gg.Matrix(gg.BOOL, 1, 1), 0)
    assert host(dist).tolist() == [0] and host(parent).tolist() == [-1]
    loop = gg.Matrix.from_coo([0], [0], [True], nrows=2, ncols=2)
    records = []
    dist, parent = gg.traverse(loop, 0, ST=loop, trace=records.append)
    assert host(dist).tolist() == [0, INF] and host(parent).tolist() == [-1, -1]
    assert [r["frontier"] for r in records] == [0]
    S = sp.csr_matrix((5, 5))
    dist, parent = gg.traverse(gg.Matrix.from_scipy(S), 3)
    assert host(dist).tolist() == [INF, INF, INF, 0, INF]
