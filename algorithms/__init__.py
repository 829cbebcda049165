"""Graph algorithms on grblas_gpu: nvGRAPH's set, written in GraphBLAS.

    srspmv(A, x, semiring, alpha, beta, y)        y = alpha ⊗ (A ⊕.⊗ x) ⊕ beta ⊗ y
    bfs(A, source, undirected=, edge_mask=, alpha=, beta=, method=)
                                                  -> (distances, predecessors)
    sssp(A, source)                               (min, +) frontier Bellman-Ford
    widest_path(A, source)                        (max, min)
    pagerank(A, alpha, bookmark=, guess=, tolerance=, max_iter=)
    triangle_count(A)                             C⟨L⟩ = L plus.pair Lᵀ, Σ C
    betweenness(A, sources)                       batched Brandes: ns BFSs as one frontier
                                                  matrix, dependencies accumulated back
    connected_components(A)                       FastSV: min.second hooking, f = f(f)
    spectral_clustering(A, n_clusters, n_eig_vects, algorithm, ...) -> (clustering, eig_vals,
                                                                       eig_vects)
    analyze_clustering(A, n_clusters, clustering, metric)
    extract_subgraph_by_vertex(A, vertices), extract_subgraph_by_edge(A, edges)
    convert_topology(src, edge_data, dst)         CSR / CSC / COO (sort tags)

Each module opens with its formulation, cached properties, references and failure modes.
Graphs are square Matrices, A(i, j) the edge i -> j. Results the nvGRAPH API returns as
vertex data are dense backend arrays (NumPy or CuPy). ``algorithms.nvgraph`` mirrors the
nvGRAPH C API over these functions; ``demo()`` runs everything on Zachary's karate club.
"""
import sys

from . import topology
from .betweenness import betweenness
from .bfs import bfs, bfs_advanced
from .connected_components import connected_components
from .pagerank import pagerank, pagerank_advanced
from .spectral import (BALANCED_CUT_LANCZOS, BALANCED_CUT_LOBPCG, EDGE_CUT, MODULARITY,
                       MODULARITY_MAXIMIZATION, RATIO_CUT, analyze_clustering,
                       spectral_clustering)
from .srspmv import srspmv
from .sssp import sssp
from .subgraph import extract_subgraph_by_edge, extract_subgraph_by_vertex
from .topology import (COOTopology, CSCTopology, CSRTopology, SORT_BY_DESTINATION,
                       SORT_BY_SOURCE, UNSORTED, convert_topology)
from .triangle_count import triangle_count
from .widest_path import widest_path

__all__ = [
    "srspmv", "bfs", "bfs_advanced", "sssp", "widest_path", "pagerank", "pagerank_advanced",
    "triangle_count", "connected_components", "betweenness", "spectral_clustering",
    "analyze_clustering",
    "extract_subgraph_by_vertex", "extract_subgraph_by_edge", "convert_topology",
    "CSRTopology", "CSCTopology", "COOTopology", "UNSORTED", "SORT_BY_SOURCE",
    "SORT_BY_DESTINATION", "MODULARITY_MAXIMIZATION", "BALANCED_CUT_LANCZOS",
    "BALANCED_CUT_LOBPCG", "MODULARITY", "EDGE_CUT", "RATIO_CUT", "demo", "CLI_ALGORITHMS",
    "summarize", "topology", "sampling",
]

from . import sampling  # noqa: E402  (cuGraph-style sampling; its names join the package's)
from .sampling import *  # noqa: E402,F401,F403

__all__ += sampling.__all__


# ------------------------------------------------------------------------------ CLI
# ``grblas-gpu run ALGO GRAPH`` calls CLI_ALGORITHMS[ALGO](A, trace=..., source=...): a
# runner's keyword parameters are the options it takes (the CLI refuses the others), the
# first line of its docstring is its line in ``run --help``.
def _run_bfs(A, source=0, trace=None):
    """levels and parents from --source (direction-optimising BFS)"""
    return bfs(A, source, trace=trace)  # pulls where A's pattern is symmetric or has Aᵀ


def _run_sssp(A, source=0, trace=None):
    """shortest path lengths from --source (min.+ Bellman-Ford)"""
    return sssp(A, source, trace=trace)


def _run_widest_path(A, source=0, trace=None):
    """widest path widths from --source (max.min)"""
    return widest_path(A, source, trace=trace)


def _run_pagerank(A, trace=None):
    """PageRank, alpha 0.85 (power method)"""
    return pagerank(A, trace=trace)


def _run_triangles(A, trace=None):
    """the number of triangles (masked L plus.pair Lᵀ)"""
    return triangle_count(A)


def _run_spectral(A, trace=None):
    """two clusters by modularity maximisation (Lanczos, k-means)"""
    return spectral_clustering(A, 2, 2, MODULARITY_MAXIMIZATION, trace=trace)


def _run_components(A, trace=None):
    """weakly connected components (FastSV)"""
    return connected_components(A, trace=trace)


def _run_betweenness(A, source=0, trace=None):
    """Brandes dependencies from --source (betweenness of one source)"""
    return betweenness(A, [source], trace=trace)


CLI_ALGORITHMS = {
    "bfs": _run_bfs,
    "sssp": _run_sssp,
    "widest_path": _run_widest_path,
    "pagerank": _run_pagerank,
    "triangle_count": _run_triangles,
    "spectral_clustering": _run_spectral,
    "connected_components": _run_components,
    "betweenness": _run_betweenness,
}


def summarize(name, result):
    """One or two lines describing an algorithm's result."""
    import numpy as np

    from grblas_gpu import backend

    if name == "bfs":
        dist, pred = (backend.to_host(a) for a in result)
        reached = dist[dist != 2**31 - 1]
        levels = np.bincount(reached) if reached.size else np.zeros(0, int)
        return (f"reached {reached.size} of {dist.size} vertices, depth {len(levels) - 1}; "
                f"vertices per level {levels.tolist()}")
    if name in ("sssp", "widest_path"):
        d = backend.to_host(result)
        far = np.finfo(d.dtype).max
        reached = d != (far if name == "sssp" else -far)
        finite = reached & (np.abs(d) < far)            # the source's width is FLT_MAX
        span = (f"; min {d[finite].min():.4g}, max {d[finite].max():.4g} over finite values"
                if finite.any() else "")
        return f"reached {int(reached.sum())} of {d.size} vertices{span}"
    if name == "pagerank":
        pr = backend.to_host(result)
        top = np.argsort(-pr)[:5]
        return "top 5: " + ", ".join(f"{int(i)}:{pr[i]:.4f}" for i in top)
    if name == "triangle_count":
        return f"{result} triangles"
    if name == "connected_components":
        sizes = np.unique(backend.to_host(result), return_counts=True)[1]
        return (f"{sizes.size} component{'s' * (sizes.size != 1)}, the largest of "
                f"{int(sizes.max(initial=0))} vertices")
    if name == "betweenness":
        c = backend.to_host(result)
        top = np.argsort(-c, kind="stable")[:5]
        return "top 5: " + ", ".join(f"{int(i)}:{c[i]:.4g}" for i in top)
    if name == "spectral_clustering":
        labels, vals, _ = result
        sizes = np.bincount(backend.to_host(labels))
        return (f"cluster sizes {sizes.tolist()}; eigenvalues "
                + ", ".join(f"{v:.4f}" for v in backend.to_host(vals)))
    return repr(result)


# ------------------------------------------------------------------------------ demo
def demo(file=sys.stdout):
    """Run every algorithm on Zachary's karate club and print the results compactly."""
    import numpy as np

    import grblas_gpu as gg
    from grblas_gpu import backend, generate
    from grblas_gpu.semirings import indexunary

    def out(label, text):
        print(f"  {label:<22} {text}", file=file)

    A = generate.karate()
    n = A.nrows
    rows, cols, _ = A.to_coo()
    w = (1 + (rows + cols) % 5).astype(np.float32)      # a symmetric weight per friendship
    W = gg.Matrix.from_coo(rows, cols, w, nrows=n, ncols=n)
    print(f"karate club: {n} members, {A.nvals // 2} friendships; backend {backend.name}; "
          "weights w(i, j) = 1 + (i + j) mod 5 where weighted", file=file)
    out("bfs from 0", summarize("bfs", bfs(A, 0, undirected=True)))
    d = backend.to_host(sssp(W, 0))
    out("sssp from 0 (w)", f"farthest {int(d.argmax())} at {d.max():g}; "
        f"distances {' '.join(f'{x:g}' for x in d[:10])} ...")
    wp = backend.to_host(widest_path(W, 0))
    out("widest path from 0", f"widths {' '.join(f'{x:g}' for x in wp[1:11])} ... "
        "(source: FLT_MAX)")
    out("pagerank (0.85)", summarize("pagerank", pagerank(A)))
    out("triangles", f"{triangle_count(A)} (nvGRAPH lower-triangle input: "
        f"{triangle_count(gg.select(gg.Matrix(A.dtype, n, n), A, indexunary.tril, -1))})")
    out("components", summarize("connected_components", connected_components(A)))
    out("betweenness (all)", summarize("betweenness", betweenness(A, list(range(n)))))
    x = gg.Vector.from_dense(backend.xp.ones(n, dtype=np.float32))
    deg = backend.to_host(srspmv(A, x, "NVGRAPH_PLUS_TIMES_SR").to_dense())
    out("srspmv plus_times 1", f"degrees: max {deg.max():g} (member {int(deg.argmax())}), "
        f"sum {deg.sum():g}")
    hops = backend.to_host(srspmv(A.dup(gg.FP32), x, "NVGRAPH_MIN_PLUS_SR").to_dense())
    out("srspmv min_plus 1", f"min over neighbours of (1 + 1): {sorted(set(hops.tolist()))}")
    Af = A.dup(gg.FP32)
    for alg, metric in ((MODULARITY_MAXIMIZATION, MODULARITY), (BALANCED_CUT_LANCZOS, EDGE_CUT),
                        (BALANCED_CUT_LOBPCG, RATIO_CUT)):
        labels, vals, _ = spectral_clustering(Af, 2, 2, alg)
        score = analyze_clustering(Af, 2, labels, metric)
        sizes = np.bincount(backend.to_host(labels), minlength=2).tolist()
        out(alg.replace("NVGRAPH_", "").lower(), f"sizes {sizes}, eigenvalues "
            f"{', '.join(f'{v:.4f}' for v in backend.to_host(vals))}; "
            f"{metric.replace('NVGRAPH_', '').lower()} {score:.4f}")
    S = extract_subgraph_by_vertex(A, list(range(10)))
    E = extract_subgraph_by_edge(A, list(range(0, A.nvals, 10)))
    out("subgraphs", f"members 0..9 induce {S.nvals // 2} friendships; every 10th stored "
        f"edge: {E.nvals} edges on {E.nrows} members")
    csr, _ = topology.matrix_to_topology(A, CSRTopology)
    coo, _ = convert_topology(csr, None, COOTopology(tag=SORT_BY_DESTINATION))
    first = backend.to_host(coo.destination_indices[:6]).tolist()
    out("convert CSR -> COO", f"{coo.nedges} edges sorted by destination: {first} ...")
