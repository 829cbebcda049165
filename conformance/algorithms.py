"""Algorithms against independent references, on the LAGraph graphs.

The references share nothing with GraphBLAS: networkx on the graph's edge list (every stored
entry, explicit zeros included, is an edge i -> j).

    bfs             levels equal networkx's single_source_shortest_path_length; the
                    predecessors form a BFS tree (Graph500's validation: pred(source) = -1,
                    each reached v has an edge pred(v) -> v with level(pred) = level(v) - 1;
                    unreached: level 2**31-1, pred -1)
    sssp            distances equal networkx's Bellman-Ford (Dijkstra's answer where weights
                    are nonnegative) within float tolerance; unreachable = FLT_MAX / DBL_MAX;
                    a negative cycle must raise NotConverged
    pagerank        networkx.pagerank (alpha 0.85, dangling mass spread uniformly, which is
                    nvGRAPH's bookmark rule) on the pattern, within 1e-4 per vertex
    triangle_count  networkx.triangles on the undirected graph of A's lower triangle (or
                    upper, when A has nothing below the diagonal), self loops ignored
    connected_components
                    labels equal the least vertex of each of networkx's
                    weakly_connected_components
    betweenness     from sources {0, s}: networkx's betweenness_centrality_subset (all
                    targets, unnormalised, unweighted) within 1e-9 relative

Each algorithm is its own operation in the report; one missing from ``algorithms`` is
skipped "not implemented". Cases: every square LAGraph file (quick: up to 1000 entries),
sources 0 and one chosen by the seed.
"""
import numpy as np

from .cases import Case, Family, params, register
from .operands import Operand, lagraph_files

INT32_MAX = 2**31 - 1


class _Algorithm(Family):
    output = "result"
    sources = True

    def available(self):
        try:
            from grblas_gpu import algorithms
        except ImportError:
            return False
        return getattr(algorithms, self.name, None) is not None

    def cases(self, plan):
        out = []
        loaded, _ = lagraph_files()
        limit = plan.lagraph_max_nvals if plan.mode != "tiny" else 200
        for fname, (shape, ftype, nvals) in sorted(loaded.items()):
            if shape[0] != shape[1] or shape[0] == 0 or (limit is not None and nvals > limit):
                continue
            if plan.types and ftype not in plan.types:
                continue
            op = Operand("matrix", tuple(shape), ftype, "file", 0, fname)
            rng = plan.rng(self.name, fname)
            srcs = sorted({0, int(rng.integers(shape[0]))}) if self.sources else [None]
            for s in srcs:
                out.append(Case(self.name, params(operator=self.name, type=ftype, source=s),
                                (("A", op),), plan.seed_for(self.name, fname, s), ("lagraph",)))
        return out

    def evaluate(self, case, datas):
        """(status, reason): run the algorithm, then check it against the reference."""
        from grblas_gpu import algorithms
        import networkx as nx

        import grblas_gpu as gg

        d = datas["A"]
        ns = {"A": d.build(gg), "gg": gg, "algorithms": algorithms}
        try:  # the very source the reproducer prints
            exec(compile(self.source_text(case), "<algorithm>", "exec"), ns)
            ours = self.host(ns["result"])
        except gg.NotConverged as e:
            ours = e
        except gg.NotSupported as e:
            return "skipped", f"grblas_gpu: {e}"
        except Exception as e:  # any other error of the algorithm is a failure to report
            return "failed", f"grblas_gpu raised {type(e).__name__}: {e}"
        G = nx.DiGraph()
        G.add_nodes_from(range(d.shape[0]))
        G.add_weighted_edges_from(zip(d.rows.tolist(), d.cols.tolist(),
                                      d.values.astype(np.float64).tolist()))
        return self.check(ours, G, d, case.p("source"))

    def source_text(self, case):
        s = case.p("source")
        return f"result = algorithms.{self.name}(A{'' if s is None else f', {s}'})"

    def host(self, result):
        return _host(result)


def _host(x):
    import grblas_gpu as gg

    if hasattr(x, "to_dense"):
        x = x.to_dense(fill=0)
    return np.asarray(gg.backend.to_host(x))


@register
class Bfs(_Algorithm):
    name = function = "bfs"

    def host(self, result):
        dist, pred = result
        return _host(dist), _host(pred)

    def check(self, ours, G, d, s):
        import networkx as nx

        if isinstance(ours, Exception):
            return "failed", f"grblas_gpu raised {type(ours).__name__}: {ours}"
        dist, pred = ours
        n = d.shape[0]
        lv = nx.single_source_shortest_path_length(G, s)
        want = np.full(n, INT32_MAX, dtype=np.int64)
        for v, k in lv.items():
            want[v] = k
        if not np.array_equal(dist.astype(np.int64), want):
            bad = np.flatnonzero(dist.astype(np.int64) != want)
            return "failed", (f"levels differ at {len(bad)} vertices, first {bad[0]}: "
                              f"ours {dist[bad[0]]}, networkx {want[bad[0]]}")
        for v in range(n):
            p = int(pred[v])
            if v == s or want[v] == INT32_MAX:
                if p != -1:
                    what = "the source" if v == s else "unreached"
                    return "failed", f"predecessor of {what} {v} is {p}, not -1"
            elif not (0 <= p < n and G.has_edge(p, v) and want[p] == want[v] - 1):
                return "failed", (f"predecessor {p} of vertex {v} (level {want[v]}) "
                                  "is not a BFS parent")
        return "passed", ""


@register
class Sssp(_Algorithm):
    name = function = "sssp"

    def check(self, ours, G, d, s):
        import networkx as nx

        if not np.isfinite(d.values.astype(np.float64)).all():
            return "skipped", "weights include inf or NaN: shortest paths are not defined"
        try:
            ref = nx.single_source_bellman_ford_path_length(G, s)
        except nx.NetworkXUnbounded:
            import grblas_gpu as gg

            if isinstance(ours, gg.NotConverged):
                return "passed", ""
            return "failed", ("networkx finds a negative cycle; "
                              "grblas_gpu did not raise NotConverged")
        if isinstance(ours, Exception):
            return "failed", f"grblas_gpu raised {type(ours).__name__}: {ours}"
        far = np.finfo(ours.dtype).max if ours.dtype.kind == "f" else None
        rtol = 1e-5 if ours.dtype == np.float32 else 1e-12
        for v in range(d.shape[0]):
            x = float(ours[v])
            if v not in ref:
                if not (x == far or x == np.inf):
                    return "failed", (f"vertex {v} is unreachable; ours {x!r}, "
                                      f"not the maximum {far!r}")
                continue
            y = float(ref[v])
            if abs(x - y) > rtol * G.number_of_nodes() * max(abs(x), abs(y), 1.0):
                return "failed", f"distance to {v}: ours {x!r}, networkx {y!r}"
        return "passed", ""


@register
class Pagerank(_Algorithm):
    name = function = "pagerank"
    sources = False

    def source_text(self, case):
        return "\n".join([
            "# on the pattern: weights may be negative or zero in the LAGraph files",
            "P = gg.Matrix.from_coo(*A.to_coo()[:2], 1.0, nrows=A.nrows, ncols=A.ncols)",
            "result = algorithms.pagerank(P, 0.85, tolerance=1e-6)"])

    def check(self, ours, G, d, s):
        import networkx as nx

        if isinstance(ours, Exception):
            return "failed", f"grblas_gpu raised {type(ours).__name__}: {ours}"
        H = nx.DiGraph()
        H.add_nodes_from(G.nodes)
        H.add_edges_from(G.edges)
        ref = nx.pagerank(H, alpha=0.85, tol=1e-12, max_iter=10000, weight=None)
        want = np.array([ref[v] for v in range(d.shape[0])])
        err = np.abs(ours.astype(np.float64) - want)
        if err.max() > 1e-4:
            v = int(err.argmax())
            return "failed", f"rank of vertex {v}: ours {ours[v]!r}, networkx {want[v]!r}"
        return "passed", ""


@register
class TriangleCount(_Algorithm):
    name = function = "triangle_count"
    sources = False

    def host(self, result):
        return int(result)

    def check(self, ours, G, d, s):
        import networkx as nx

        if isinstance(ours, Exception):
            return "failed", f"grblas_gpu raised {type(ours).__name__}: {ours}"
        lower = d.rows > d.cols
        keep = lower if lower.any() else d.rows < d.cols
        U = nx.Graph()
        U.add_edges_from(zip(d.rows[keep].tolist(), d.cols[keep].tolist()))
        want = sum(nx.triangles(U).values()) // 3
        if ours != want:
            return "failed", f"ours {ours} triangles, networkx {want}"
        return "passed", ""


@register
class ConnectedComponents(_Algorithm):
    name = function = "connected_components"
    sources = False

    def check(self, ours, G, d, s):
        import networkx as nx

        if isinstance(ours, Exception):
            return "failed", f"grblas_gpu raised {type(ours).__name__}: {ours}"
        want = np.empty(d.shape[0], dtype=np.int64)
        for comp in nx.weakly_connected_components(G):
            members = np.fromiter(comp, dtype=np.int64)
            want[members] = members.min()
        bad = np.flatnonzero(ours.astype(np.int64) != want)
        if len(bad):
            return "failed", (f"labels differ at {len(bad)} vertices, first {bad[0]}: "
                              f"ours {ours[bad[0]]}, networkx's least member {want[bad[0]]}")
        return "passed", ""


@register
class Betweenness(_Algorithm):
    name = function = "betweenness"

    def source_text(self, case):
        return f"result = algorithms.betweenness(A, {sorted({0, case.p('source')})})"

    def check(self, ours, G, d, s):
        import networkx as nx

        if isinstance(ours, Exception):
            return "failed", f"grblas_gpu raised {type(ours).__name__}: {ours}"
        ref = nx.betweenness_centrality_subset(G, sorted({0, s}), list(G), normalized=False)
        want = np.array([ref[v] for v in range(d.shape[0])], dtype=np.float64)
        err = np.abs(ours.astype(np.float64) - want)
        tol = 1e-9 * max(1.0, float(np.abs(want).max(initial=0)))
        if err.max(initial=0) > tol:
            v = int(err.argmax())
            return "failed", f"betweenness of {v}: ours {ours[v]!r}, networkx {want[v]!r}"
        return "passed", ""


def reproducer(case, family):
    """Python that reruns an algorithm case and prints the reference's view."""
    op = case.operand("A")
    path = f"{op.file!r}"
    return "\n".join([
        f"# conformance case {case.key}: {case.label}",
        "from grblas_gpu import algorithms",
        "import grblas_gpu as gg",
        "from grblas_gpu.io import read_mm",
        "from grblas_gpu.conformance.operands import lagraph_dir",
        f"A = read_mm(str(lagraph_dir() / {path}))",
        family.source_text(case),
        "print(result)",
        f"# check against networkx: conformance.algorithms.{type(family).__name__}().check(...)",
    ]) + "\n"
