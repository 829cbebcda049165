"""networkx's functions on a GrBGraph: the arguments and results networkx defines, computed
by algorithms/ and the public API (host glue: node labels in, dicts keyed by node out).

Each function keeps networkx's signature, errors and result types; where algorithms/ lacks
what networkx's semantics need (networkx's PageRank iteration and convergence rule, the order
of breadth-first layers, per-node triangles), it is composed here from the public API.
Operators are named by string (within grblas_gpu only grblas_gpu.operators imports
semirings).
"""
import math

import networkx as nx
import numpy as np

from grblas_gpu import algorithms
import grblas_gpu as gg
from grblas_gpu.algorithms.sssp import far_value
from grblas_gpu import backend

__all__ = ["pagerank", "bfs_layers", "single_source_shortest_path_length",
           "single_source_dijkstra_path_length", "triangles", "connected_components",
           "number_connected_components", "betweenness_centrality", "clustering",
           "eigenvector_centrality", "jaccard_coefficient", "core_number", "k_truss",
           "hits"]

# sources per algorithms.betweenness call: its memory is two entries per (vertex, source)
# pair reached
BETWEENNESS_BATCH = 256


def _not_implemented_for(G, kind):
    """networkx's not_implemented_for check, for the decorators the backend's call skips."""
    if (kind == "directed" and G.is_directed()) or (kind == "multigraph"
                                                    and G.is_multigraph()):
        raise nx.NetworkXNotImplemented(f"not implemented for {kind} type")


SELFLOOP_MESSAGE = ("Input graph has self loops which is not permitted; "
                    "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")


def _refuse_selfloops(G):
    """networkx's error for core_number and k_truss on a graph with self-loops."""
    if np.any(G.rows == G.cols):
        raise nx.NetworkXNotImplemented(SELFLOOP_MESSAGE)


def _full(values):
    """A full FP64 Vector held dense."""
    return gg.Vector.from_dense(backend.xp.asarray(values, dtype=np.float64))


# ------------------------------------------------------------------------------ pagerank
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None,
             weight="weight", dangling=None):
    """networkx's pagerank (its _pagerank_scipy): P = D⁻¹A (A summing parallel edges, an
    undirected edge both ways), x the normalised nstart or uniform, p the normalised
    personalization or uniform, dangling rows going to the normalised ``dangling`` or p:

        x = alpha (x P + (x · is_dangling) dw) + (1 - alpha) p,  until ||x - xlast||₁ < N tol

    then PowerIterationFailedConvergence after max_iter. (algorithms.pagerank is nvGRAPH's
    iteration, with its 2-norm rule and no personalization, hence this loop.)"""
    N = len(G)
    if N == 0:
        return {}
    nodelist = G.nodes
    A = G.matrix(weight, "plus")
    # w = A +.first 1   (the row sums, 0 for a row without entries)
    w = _full(np.zeros(N))
    gg.mxv(w, A, _full(np.ones(N)), "plus_first", accum="plus")
    S = backend.to_host(w.to_dense(device=True)).copy()
    is_dangling = S == 0
    S[~is_dangling] = 1.0 / S[~is_dangling]
    # the vectors exactly as networkx prepares them (its errors included)
    if nstart is None:
        x = np.repeat(1.0 / N, N)
    else:
        x = np.array([nstart.get(n, 0) for n in nodelist], dtype=float)
        x /= x.sum()
    if personalization is None:
        p = np.repeat(1.0 / N, N)
    else:
        p = np.array([personalization.get(n, 0) for n in nodelist], dtype=float)
        if p.sum() == 0:
            raise ZeroDivisionError
        p /= p.sum()
    if dangling is None:
        dangling_weights = p
    else:
        dangling_weights = np.array([dangling.get(n, 0) for n in nodelist], dtype=float)
        dangling_weights /= dangling_weights.sum()
    c, dmask = _full(S), _full(is_dangling.astype(np.float64))
    dw, base = _full(alpha * dangling_weights), _full((1 - alpha) * p)
    x, y = _full(x), gg.Vector(gg.FP64, N)
    t, work, s = gg.Vector(gg.FP64, N), gg.Vector(gg.FP64, N), gg.Vector(gg.FP64, 1)
    for _ in range(max_iter):
        # s = Σ x .* dmask           (the rank held by dangling nodes)
        gg.ewise_mult(work, x, dmask, "times")
        gg.reduce_scalar(work, "plus", out=s)
        # y = alpha dw * s           (full)
        gg.apply(y, dw, "times", right=s)
        # t = x .* c ;  y += alpha (t +.* A)
        gg.ewise_mult(t, x, c, "times")
        gg.apply(t, t, "times", left=np.float64(alpha))
        gg.vxm(y, t, A, "plus_times", accum="plus")
        # y = y + (1 - alpha) p
        gg.ewise_add(y, y, base, "plus")
        err = _l1_distance(work, y, x)
        x, y = y, x
        if err < N * tol:
            values = backend.to_host(x.to_dense(device=True))
            return dict(zip(nodelist, map(float, values)))
    raise nx.PowerIterationFailedConvergence(max_iter)


def _l1_distance(work, y, x):
    """Σ |y - x| (networkx's convergence measure), with ``work`` as scratch: work = y - x
    over the union, a missing entry taken as 0, then |work|, then its sum."""
    zero = np.float64(0)
    gg.ewise_union(work, y, zero, x, zero, "minus")
    gg.apply(work, work, "abs")
    return float(gg.reduce_scalar(work, "plus"))


# ------------------------------------------------------------------------------ BFS
def _ordered_layers(G, first):
    """The breadth-first layers from vertex ids ``first`` (a list, networkx's layer 0), each
    a host int64 array in networkx's order: a vertex's place in its layer is that of its
    first parent in the layer before (the earliest one), then its position among that
    parent's neighbours. With f(i) = rank of i in its layer · D (D > every position):

        q⟨¬seen.S, replace⟩ = f min.plus Pos     (q(j) = the least f(i) + Pos(i, j))
        next layer = q's indices sorted by q ;  seen⟨q.S⟩ = 1
    """
    n = len(G)
    Pos = G.pattern_positions()
    D = int(G.positions.max()) + 1 if G.positions.size else 1
    layer = np.asarray(first, dtype=np.int64)
    seen = gg.Vector.from_coo(layer, np.ones(layer.size, dtype=bool), size=n, dtype=gg.BOOL)
    q = gg.Vector(gg.INT64, n)
    while layer.size:
        yield layer
        # f = {layer[r]: r · D}
        f = gg.Vector.from_coo(layer, np.arange(layer.size, dtype=np.int64) * D, size=n,
                               dtype=gg.INT64)
        # q⟨¬seen.S, replace⟩ = f min.plus Pos
        gg.vxm(q, f, Pos, "min_plus", mask=~seen.S, desc=gg.GrB_REPLACE)
        # seen⟨q.S⟩ = true
        gg.assign(seen, True, gg.ALL, mask=q.S)
        idx, keys = (backend.to_host(a) for a in q.to_coo())
        layer = np.asarray(idx, dtype=np.int64)[np.argsort(keys, kind="stable")]


def bfs_layers(G, sources):
    """networkx's bfs_layers: lists of nodes, layer by layer, in networkx's order."""
    if sources in G:
        sources = [sources]
    visited = set(sources)
    current_layer = list(visited)
    for source in current_layer:
        if source not in G:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
    nodes = G.nodes
    for layer in _ordered_layers(G, [G.index[v] for v in current_layer]):
        yield [nodes[i] for i in layer]


def single_source_shortest_path_length(G, source, cutoff=None):
    """networkx's single_source_shortest_path_length: {node: hops} for the levels networkx's
    search reaches before ``cutoff`` stops it (the source always), by algorithms.bfs."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if cutoff is None:
        cutoff = float("inf")
    dist, _ = algorithms.bfs(G.matrix(None), G.index[source])
    dist = backend.to_host(dist).astype(np.int64)
    # networkx goes one level deeper while cutoff > level: level L is kept if L - 1 < cutoff
    keep = np.flatnonzero((dist != 2**31 - 1) & ((dist - 1 < cutoff) | (dist == 0)))
    keep = keep[np.argsort(dist[keep], kind="stable")]
    nodes = G.nodes
    return {nodes[i]: int(dist[i]) for i in keep}


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """networkx's single_source_dijkstra_path_length: {node: distance} within ``cutoff``, by
    algorithms.sssp on the least weight of parallel edges (missing weights 1). Weights that
    are negative, NaN or infinite go to networkx's own Dijkstra (its results and errors for
    them are its heap's order, not shortest paths)."""
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    values = G.weight_values(weight) if weight is not None else np.ones(G.rows.size)
    if not np.all(np.isfinite(values) & (values >= 0)):
        return nx.single_source_dijkstra_path_length(
            convert_graph(G), source, cutoff=cutoff, weight=weight, backend="networkx")
    A = G.matrix(weight, "min")
    dist = backend.to_host(algorithms.sssp(A, G.index[source]))
    reached = dist < far_value(gg.FP64)      # DBL_MAX: unreached
    if cutoff is not None:
        reached &= dist <= cutoff
    keep = np.flatnonzero(reached)
    keep = keep[np.argsort(dist[keep], kind="stable")]
    nodes = G.nodes
    # networkx's distances are sums of the weights from an int 0: ints where the weights are
    # (a float where a path mixes float weights with missing, int ones: equal values)
    cast = int if G.integral_weights(weight) else float
    result = {nodes[i]: cast(dist[i]) for i in keep}
    result[source] = 0
    return result


def convert_graph(G):
    """The networkx graph G was converted from."""
    from .graph import convert_to_nx
    return convert_to_nx(G)


# ------------------------------------------------------------------------------ triangles
def _triangles_per_vertex(G, degrees=False):
    """t(i) = the triangles through vertex i, a host int64 array (and d(i), its neighbours
    other than itself, with ``degrees``):
        S = offdiag(pattern(A)) ;  C⟨S.S⟩ = S plus.pair S ;  t = (Σ_j C(i, j)) / 2
        d = S +.reduce rows"""
    n = len(G)
    A = G.matrix(None)
    # S = offdiag(A) as INT64   (self-loops close no triangle)
    S = gg.select(gg.Matrix(gg.INT64, n, n), A, "offdiag", 0)
    C = gg.Matrix(gg.INT64, n, n)
    # C⟨S.S⟩ = S plus.pair S   (C(i, j): the common neighbours of an edge's two ends)
    gg.mxm(C, S, S, "plus_pair", mask=S.S)
    # t = C +.reduce rows
    t = gg.Vector(gg.INT64, n)
    gg.reduce_rowwise(t, C, "plus")
    t = backend.to_host(t.to_dense(device=True)).astype(np.int64) // 2
    if not degrees:
        return t
    # d = S +.reduce rows
    d = gg.Vector(gg.INT64, n)
    gg.reduce_rowwise(d, S, "plus")
    return t, backend.to_host(d.to_dense(device=True)).astype(np.int64)


def triangles(G, nodes=None):
    """networkx's triangles: {node: triangles through it}, or one int for a single node."""
    _not_implemented_for(G, "directed")
    if nodes is not None:
        _not_implemented_for(G, "multigraph")   # networkx's per-node path refuses them
        single = nodes in G
        wanted = [nodes] if single else list(G.nbunch_iter(nodes))
    if len(G) == 0:
        return {}
    t = _triangles_per_vertex(G)
    if nodes is None:
        return {v: int(c) for v, c in zip(G.nodes, t)}
    if single:
        return int(t[G.index[nodes]])
    return {v: int(t[G.index[v]]) for v in wanted}


def clustering(G, nodes=None, weight=None):
    """networkx's clustering of an undirected graph, unweighted (can_run refuses directed
    graphs and weights): c(v) = 2 T(v) / (d(v) (d(v) - 1)), an int 0 where T(v) = 0."""
    _not_implemented_for(G, "multigraph")       # networkx's _triangles_and_degree_iter
    wanted = list(G.nbunch_iter(nodes))
    if not wanted:
        return {}
    t, d = _triangles_per_vertex(G, degrees=True)
    index = G.index
    clusterc = {}
    for v in wanted:
        tv, dv = 2 * int(t[index[v]]), int(d[index[v]])
        clusterc[v] = 0 if tv == 0 else tv / (dv * (dv - 1))
    if nodes in G:
        return clusterc[nodes]
    return clusterc


# ------------------------------------------------------------------------------ eigenvector
def eigenvector_centrality(G, max_iter=100, tol=1.0e-6, nstart=None, weight=None):
    """networkx's eigenvector_centrality: the power iteration on A + I from the normalised
    nstart (all ones when None), x = (x + x A) / ||x + x A||₂, until ||x - xlast||₁ < n tol,
    else PowerIterationFailedConvergence. An nstart not keyed by exactly G's nodes goes to
    networkx's own loop (it raises KeyError where it meets the first missing one)."""
    _not_implemented_for(G, "multigraph")
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    if nstart is None:
        nstart = {v: 1 for v in G}
    if all(v == 0 for v in nstart.values()):
        raise nx.NetworkXError("initial vector cannot have all zero values")
    if len(nstart) != len(G) or any(v not in G.index for v in nstart):
        return nx.eigenvector_centrality(convert_graph(G), max_iter=max_iter, tol=tol,
                                         nstart=nstart, weight=weight, backend="networkx")
    nstart_sum = sum(nstart.values())
    keys = list(nstart)
    n = len(G)
    x0 = np.zeros(n)
    for k in keys:
        x0[G.index[k]] = nstart[k] / nstart_sum
    # networkx reads a weight only where ``weight`` is truthy, 1 elsewhere and where missing
    A = G.matrix(weight if weight else None, "plus")
    x, y = _full(x0), gg.Vector(gg.FP64, n)
    work = gg.Vector(gg.FP64, n)
    for _ in range(max_iter):
        # y = x ;  y += x +.* A      (x (A + I))
        gg.assign(y, x, gg.ALL)
        gg.vxm(y, x, A, "plus_times", accum="plus")
        # y = y / ||y||₂   (1 where 0, as networkx)
        gg.ewise_mult(work, y, y, "times")
        norm = math.sqrt(float(gg.reduce_scalar(work, "plus"))) or 1
        gg.apply(y, y, "div", right=np.float64(norm))
        err = _l1_distance(work, y, x)
        x, y = y, x
        if err < n * tol:
            values = backend.to_host(x.to_dense(device=True))
            return {k: float(values[G.index[k]]) for k in keys}
    raise nx.PowerIterationFailedConvergence(max_iter)


# ------------------------------------------------------------------------------ components
def _component_labels(G):
    """labels[i] = the least vertex id of i's component (algorithms.connected_components)."""
    if len(G) == 0:
        return np.zeros(0, dtype=np.int64)
    return backend.to_host(algorithms.connected_components(G.matrix(None))).astype(np.int64)


def connected_components(G):
    """networkx's connected_components: a generator of node sets, in the order of each
    component's first node in G (as networkx's scan finds them)."""
    _not_implemented_for(G, "directed")
    labels = _component_labels(G)
    order = np.argsort(labels, kind="stable")
    firsts, starts = np.unique(labels[order], return_index=True)
    nodes = G.nodes
    bounds = list(starts[1:]) + [labels.size]
    for start, stop in zip(starts, bounds):
        yield {nodes[i] for i in order[start:stop]}


def number_connected_components(G):
    """networkx's number_connected_components."""
    _not_implemented_for(G, "directed")
    return int(np.unique(_component_labels(G)).size)


# ------------------------------------------------------------------------------ betweenness
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                           seed=None):
    """networkx's betweenness_centrality, unweighted (can_run refuses a weight): Brandes'
    dependencies summed over the sources by algorithms.betweenness (in batches), then
    networkx's rescaling; k sources sampled as networkx does (seed.sample(list(G), k))."""
    n = len(G)
    if k == n:
        k = None
    if k is None:
        sources = list(range(n))
        sampled = None
    else:
        rng = nx.utils.create_py_random_state(seed)
        sampled = rng.sample(list(G), k)
        sources = [G.index[v] for v in sampled]
    raw = np.zeros(n)
    A = G.matrix(None)
    for lo in range(0, len(sources), BETWEENNESS_BATCH):
        batch = sources[lo:lo + BETWEENNESS_BATCH]
        raw += backend.to_host(algorithms.betweenness(A, batch))
        if endpoints:
            raw += _endpoint_counts(A, batch)
    bc = dict(zip(G.nodes, map(float, raw)))
    return _rescale(bc, n, normalized=normalized, directed=G.is_directed(),
                    endpoints=endpoints, sampled_nodes=sampled)


def _endpoint_counts(A, batch):
    """networkx's endpoint terms for the sources ``batch``: each vertex t ≠ s reached from s
    counts 1, and s counts the vertices it reaches (a multi-source BFS, R n x ns):
        F_0 = R = {(s_j, j)} ;  F⟨¬R.S, replace⟩ = Aᵀ any.pair F ;  R⟨F.S⟩ = 1
        e = (R +.reduce rows) - 1 on reached-from-others ;  e(s_j) += |R(:, j)| - 1"""
    n, ns = A.nrows, len(batch)
    src = np.asarray(batch, dtype=np.int64)
    cols = np.arange(ns, dtype=np.int64)
    R = gg.Matrix.from_coo(src, cols, np.ones(ns, dtype=bool), nrows=n, ncols=ns,
                           dtype=gg.BOOL)
    F = R.dup()
    while F.nvals:
        # F⟨¬R.S, replace⟩ = Aᵀ any.pair F
        gg.mxm(F, A, F, "any_pair", mask=~R.S, desc=gg.GrB_TRAN | gg.GrB_REPLACE)
        # R⟨F.S⟩ = true
        gg.assign(R, True, gg.ALL, gg.ALL, mask=F.S)
    rows, cols_r, _ = R.to_coo()
    rows, cols_r = backend.to_host(rows), backend.to_host(cols_r)
    e = np.bincount(rows, minlength=n).astype(np.float64)   # sources reaching each vertex
    per_source = np.bincount(cols_r, minlength=ns)             # vertices each source reaches
    e[src] -= 1                                                # s does not count itself...
    np.add.at(e, src, per_source - 1)                          # ...but every t it reaches
    return e


def _rescale(betweenness, n, *, normalized, directed, endpoints=True, sampled_nodes=None):
    """networkx's betweenness rescaling (networkx/algorithms/centrality/betweenness.py)."""
    k = None if sampled_nodes is None else len(sampled_nodes)
    N = n if endpoints else n - 1
    if N < 2:
        return betweenness
    K_source = N if k is None else k
    if k is None or endpoints:
        if normalized:
            scale = 1 / (K_source * (N - 1))
        else:
            scale = N / (K_source * (1 if directed else 2))
        if scale != 1:
            for v in betweenness:
                betweenness[v] *= scale
        return betweenness
    if normalized:
        scale_source = 1 / ((K_source - 1) * (N - 1)) if K_source > 1 else math.nan
        scale_nonsource = 1 / (K_source * (N - 1))
    else:
        correction = 1 if directed else 2
        scale_source = N / ((K_source - 1) * correction) if K_source > 1 else math.nan
        scale_nonsource = N / (K_source * correction)
    sampled_nodes = set(sampled_nodes)
    for v in betweenness:
        betweenness[v] *= scale_source if v in sampled_nodes else scale_nonsource
    return betweenness


# ------------------------------------------------------------------------------ jaccard
def _neighbour_sets(G):
    """set(G[u]) for every vertex id u, from the stored edges (a self-loop included)."""
    nodes = G.nodes
    sets = [set() for _ in nodes]
    for i, j in zip(G.rows.tolist(), G.cols.tolist()):
        sets[i].add(nodes[j])
    return sets


def _non_edges(G, neighbours):
    """networkx's non_edges of an undirected graph, in its order: the nodes in a set, popped
    one by one, each paired with the rest of the set less its neighbours (a set's order
    depends only on its members and their insertion order, both as networkx's)."""
    remaining = set(iter(G.nodes))
    while remaining:
        u = remaining.pop()
        for v in remaining - neighbours[G.index[u]]:
            yield u, v


def jaccard_coefficient(G, ebunch=None):
    """networkx's jaccard_coefficient: a generator of (u, v, |N(u) ∩ N(v) - {u, v}| /
    |N(u) ∪ N(v)|) (an int 0 where the union is empty) over ``ebunch`` or, when None, every
    non-edge in networkx's order. The intersections for all the pairs at once:

        S = offdiag(A) ;  C⟨M⟩ = S plus.pair S      (M: the pairs; ¬A.S for the non-edges)
        |N(u) ∪ N(v)| = d(u) + d(v) - C(u, v) - [u ~ v] (loop(u) + loop(v))   (u ≠ v)

    with d(u) = |N(u)| (a self-loop counts u itself)."""
    _not_implemented_for(G, "directed")
    _not_implemented_for(G, "multigraph")
    index, n = G.index, len(G)
    if ebunch is not None:
        # networkx checks the pairs as it is called, then yields from the same iterable
        # (so an iterator passed in is spent: nothing is yielded, as networkx)
        for u, v in ebunch:
            if u not in G:
                raise nx.NodeNotFound(f"Node {u} not in G.")
            if v not in G:
                raise nx.NodeNotFound(f"Node {v} not in G.")
        pairs = [(u, v) for u, v in ebunch]
    if n == 0:
        return (p for p in ())
    A = G.matrix(None)
    S = gg.select(gg.Matrix(gg.INT64, n, n), A, "offdiag", 0)
    # d = A +.pair 1     (full: 0 for a vertex without neighbours)
    d = gg.Vector.from_dense(backend.xp.zeros(n, dtype=np.int64))
    gg.reduce_rowwise(d, S, "plus", accum="plus")
    d = backend.to_host(d.to_dense(device=True)).astype(np.int64)
    loops = np.zeros(n, dtype=np.int64)
    loops[G.rows[G.rows == G.cols]] = 1
    d += loops
    C = gg.Matrix(gg.INT64, n, n)
    adjacent = set()
    if ebunch is None:
        neighbours = _neighbour_sets(G)
        pairs = _non_edges(G, neighbours)
        # C⟨¬A.S⟩ = S plus.pair S
        gg.mxm(C, S, S, "plus_pair", mask=~A.S)
    else:
        iu = np.fromiter((index[u] for u, _ in pairs), dtype=np.int64, count=len(pairs))
        iv = np.fromiter((index[v] for _, v in pairs), dtype=np.int64, count=len(pairs))
        M = gg.Matrix.from_coo(iu, iv, True, nrows=n, ncols=n, dtype=gg.BOOL, dup_op="first")
        # C⟨M.S⟩ = S plus.pair S
        gg.mxm(C, S, S, "plus_pair", mask=M.S)
        if loops.any():
            # the asked pairs that are edges: E⟨M.S⟩ = offdiag(A)
            E = gg.select(gg.Matrix(gg.BOOL, n, n), A, "offdiag", 0, mask=M.S)
            er, ec, _ = E.to_coo()
            adjacent = set(zip(backend.to_host(er).tolist(), backend.to_host(ec).tolist()))
    rows, cols, vals = (backend.to_host(a).tolist() for a in C.to_coo())
    common = dict(zip(zip(rows, cols), vals))

    def predictions():
        for u, v in pairs:
            i, j = index[u], index[v]
            inter = common.get((i, j), 0)
            if i == j:
                union = int(d[i])
            else:
                both = inter + ((loops[i] + loops[j]) if (i, j) in adjacent else 0)
                union = int(d[i] + d[j] - both)
            yield u, v, (0 if union == 0 else inter / union)
    return predictions()


# ------------------------------------------------------------------------------ cores
def core_number(G):
    """networkx's core_number (degree = in + out degree for a directed graph, as networkx's
    all_neighbors counts a reciprocated edge twice), by peeling level by level:

        M = A (undirected) or A + Aᵀ ;  d = M +.reduce rows ;  level = 0
        while d has entries:
            level = max(level, min d) ;  peel = d ≤ level ;  core⟨peel.S⟩ = level
            d = d > level ;  d⟨d.S⟩ -= M plus.first peel
    """
    _not_implemented_for(G, "multigraph")
    _refuse_selfloops(G)
    n = len(G)
    if n == 0:
        return {}
    A = G.matrix(None)
    if G.is_directed():
        # M = A + Aᵀ   (2 for a reciprocated pair)
        M = gg.transpose(gg.Matrix(gg.INT64, n, n), A)
        gg.ewise_add(M, M, A, "plus")
    else:
        M = gg.select(gg.Matrix(gg.INT64, n, n), A, "offdiag", 0)
    d = gg.Vector.from_dense(backend.xp.zeros(n, dtype=np.int64))
    gg.reduce_rowwise(d, M, "plus", accum="plus")
    core = gg.Vector(gg.INT64, n)
    peel = gg.Vector(gg.INT64, n)
    level = 0
    while d.nvals:
        level = max(level, int(gg.reduce_scalar(d, "min")))
        # peel = d ≤ level ;  core⟨peel.S⟩ = level ;  d = d > level
        gg.select(peel, d, "valuele", level)
        gg.assign(core, np.int64(level), gg.ALL, mask=peel.S)
        gg.select(d, d, "valuegt", level)
        # d⟨d.S⟩ -= M plus.first peel     (the edges to the peeled vertices)
        gg.mxv(d, M, peel, "plus_first", mask=d.S, accum="minus")
    values = backend.to_host(core.to_dense(device=True)).astype(np.int64)
    return {v: int(c) for v, c in zip(G.nodes, values)}


def k_truss(G, k):
    """networkx's k_truss: a copy of G (networkx's type, its attributes) keeping the edges of
    the k-truss and the nodes they touch. The supports, iterated to a fixed point:

        S = A ;  repeat  C⟨S.S, replace⟩ = S plus.pair S ;  S = C ≥ k - 2  until S keeps all
    """
    _not_implemented_for(G, "directed")
    _not_implemented_for(G, "multigraph")
    _refuse_selfloops(G)
    H = convert_graph(G).copy()
    n = len(G)
    if n == 0:
        return H
    A = G.matrix(None)
    S = gg.select(gg.Matrix(gg.INT64, n, n), A, "offdiag", 0)
    # networkx drops an edge whose support s has s < k - 2: for k ≤ 2, none
    need = math.ceil(k - 2)
    if need > 0:
        C = gg.Matrix(gg.INT64, n, n)
        nvals = S.nvals
        while True:
            # C⟨S.S, replace⟩ = S plus.pair S ;  S = C ≥ need
            gg.mxm(C, S, S, "plus_pair", mask=S.S, desc=gg.GrB_REPLACE)
            gg.select(S, C, "valuege", need)
            if S.nvals == nvals:
                break
            nvals = S.nvals
    # the dropped edges: D⟨¬S.S, replace⟩ = triu(A)
    D = gg.select(gg.Matrix(gg.BOOL, n, n), A, "triu", 1, mask=~S.S, desc=gg.GrB_REPLACE)
    rows, cols, _ = D.to_coo()
    nodes = G.nodes
    H.remove_edges_from((nodes[i], nodes[j]) for i, j in
                        zip(backend.to_host(rows).tolist(), backend.to_host(cols).tolist()))
    # networkx then removes the isolated nodes (those of G included)
    deg = gg.Vector(gg.INT64, n)
    gg.reduce_rowwise(deg, S, "plus")
    kept = np.zeros(n, dtype=bool)
    kept[backend.to_host(deg.to_coo()[0])] = True
    H.remove_nodes_from([nodes[i] for i in np.flatnonzero(~kept).tolist()])
    return H


# ------------------------------------------------------------------------------ hits
def _product(A, x, transpose):
    """A x (or Aᵀ x) of a host vector, on the engine: w = A plus.times x."""
    u = _full(np.ravel(x))
    w = gg.Vector(gg.FP64, A.nrows)
    if transpose:
        gg.vxm(w, u, A, "plus_times")
    else:
        gg.mxv(w, A, u, "plus_times")
    return backend.to_host(w.to_dense(device=True))


def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    """networkx's hits: the leading singular vectors of A (attribute "weight", missing 1,
    parallel edges summed) by the same solver networkx calls, scipy's svds (ARPACK, its tol
    and maxiter, nstart as its v0, a random start without one), with A's products on the
    engine; then h = A a, each normalised to sum 1. ArpackNoConvergence (and max_iter ≤ 0)
    raise PowerIterationFailedConvergence, as networkx."""
    import scipy.sparse.linalg

    if len(G) == 0:
        return {}, {}
    n = len(G)
    A = G.matrix("weight", "plus")
    if nstart is not None:
        nstart = np.array(list(nstart.values()))     # networkx's v0: nstart's values in order
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    op = scipy.sparse.linalg.LinearOperator(
        (n, n), matvec=lambda x: _product(A, x, False),
        rmatvec=lambda x: _product(A, x, True), dtype=np.float64)
    try:
        _, _, vt = scipy.sparse.linalg.svds(op, k=1, v0=nstart, maxiter=max_iter, tol=tol)
    except scipy.sparse.linalg.ArpackNoConvergence as exc:
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    a = vt.flatten().real
    h = _product(A, a, False)
    if normalized:
        h /= h.sum()
        a /= a.sum()
    return dict(zip(G.nodes, map(float, h))), dict(zip(G.nodes, map(float, a)))
