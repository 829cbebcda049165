"""The graph the backend converts networkx graphs to: the node list and the stored edges, with
matrices built from them on demand (kept with the graph, one per (weight, how parallel edges
combine)).

Node i of the matrices is the i-th node of ``list(G)``. Edges are read from ``G.adj`` in its
order, so an undirected edge is stored both ways (a self-loop once, as
``nx.to_scipy_sparse_array`` does), each key of a multigraph once, and every edge carries its
position among its tail's neighbours (what the order of networkx's breadth-first layers
follows).
"""
import networkx as nx
import numpy as np

import grblas_gpu as gg

__all__ = ["GrBGraph", "convert_from_nx", "convert_to_nx"]

# how parallel edges of a multigraph combine into one matrix entry: networkx sums them in
# its sparse matrices (pagerank) and takes the least in its weighted searches (dijkstra)
COMBINE = {"plus": "plus", "min": "min", "pattern": "first"}


class GrBGraph:
    """A networkx graph held as GraphBLAS matrices (see the module docstring)."""

    __networkx_backend__ = "grblas_gpu"

    def __init__(self, nodes, *, directed, multigraph, rows, cols, positions, weights,
                 graph_attrs=None, source_graph=None):
        self.nodes = list(nodes)
        self.index = {v: i for i, v in enumerate(self.nodes)}
        self.directed = bool(directed)
        self.multigraph = bool(multigraph)
        self.rows = np.asarray(rows, dtype=np.int64)
        self.cols = np.asarray(cols, dtype=np.int64)
        self.positions = np.asarray(positions, dtype=np.int64)
        self.weights = dict(weights)      # attribute name -> (float64 array per stored edge,
        #                                   whether every value was a Python or NumPy integer)
        self.graph = dict(graph_attrs or {})
        self.source_graph = source_graph  # the networkx graph converted (convert_to_nx)
        self.matrices = {}

    # the parts of networkx's graph protocol its dispatch and decorators read
    def is_directed(self):
        return self.directed

    def is_multigraph(self):
        return self.multigraph

    def __len__(self):
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node):
        try:
            return node in self.index
        except TypeError:
            return False

    def number_of_nodes(self):
        return len(self.nodes)

    def nbunch_iter(self, nbunch=None):
        """The nodes of ``nbunch`` in the graph, with networkx's errors (Graph.nbunch_iter)."""
        if nbunch is None:
            return iter(self.nodes)
        if nbunch in self:
            return iter([nbunch])

        def bunch_iter(nlist, index):
            try:
                for n in nlist:
                    if n in index:
                        yield n
            except TypeError as err:
                exc, message = err, err.args[0]
                if "iter" in message:
                    exc = nx.NetworkXError("nbunch is not a node or a sequence of nodes.")
                if "object is not iterable" in message:
                    exc = nx.NetworkXError(f"Node {nbunch} is not in the graph.")
                if "hashable" in message:
                    exc = nx.NetworkXError(f"Node {n} in sequence nbunch is not a valid node.")
                raise exc
        return bunch_iter(nbunch, self.index)

    def matrix(self, weight=None, combine="pattern"):
        """The n x n FP64 adjacency matrix: A(i, j) the edge i -> j valued by attribute
        ``weight`` (missing: 1), or 1 (weight None); parallel edges combined by ``combine``
        ("plus", "min", or "pattern": one entry of 1)."""
        if weight is None:
            combine = "pattern" if combine == "pattern" else combine
        key = (weight, combine)
        if key not in self.matrices:
            n = len(self.nodes)
            if weight is None or combine == "pattern":
                values = np.ones(self.rows.size)
            else:
                values = self.weight_values(weight)
            self.matrices[key] = gg.Matrix.from_coo(self.rows, self.cols, values, nrows=n,
                                                    ncols=n, dtype=gg.FP64,
                                                    dup_op=COMBINE[combine])
        return self.matrices[key]

    def weight_values(self, weight):
        """The float64 values of edge attribute ``weight`` per stored edge (missing: 1)."""
        return self.weight_entry(weight)[0]

    def integral_weights(self, weight):
        """Whether every value of ``weight`` is an integer (networkx's sums then are ints)."""
        return weight is None or self.weight_entry(weight)[1]

    def weight_entry(self, weight):
        if weight not in self.weights:
            if self.source_graph is None:
                raise NotImplementedError(
                    f"grblas_gpu: edge attribute {weight!r} was not converted")
            self.weights[weight] = _edge_values(self.source_graph, weight, 1)
        return self.weights[weight]

    def pattern_positions(self):
        """P(i, j) = the position of j among i's neighbours (networkx's adjacency order)."""
        key = ("positions", None)
        if key not in self.matrices:
            n = len(self.nodes)
            self.matrices[key] = gg.Matrix.from_coo(self.rows, self.cols, self.positions,
                                                    nrows=n, ncols=n, dtype=gg.INT64,
                                                    dup_op="min")
        return self.matrices[key]


def _adjacency(G):
    """(rows, cols, positions) of every stored edge, in G.adj's order."""
    index = {v: i for i, v in enumerate(G)}
    rows, cols, positions = [], [], []
    multi = G.is_multigraph()
    for u, nbrs in G.adj.items():
        i = index[u]
        for pos, (v, data) in enumerate(nbrs.items()):
            times = len(data) if multi else 1
            rows.extend([i] * times)
            cols.extend([index[v]] * times)
            positions.extend([pos] * times)
    return rows, cols, positions


def _edge_values(G, weight, default):
    """(values, integral): attribute ``weight`` of every stored edge, in _adjacency's order, as
    float64, and whether all were integers (as bools are)."""
    values = []
    if G.is_multigraph():
        for nbrs in G.adj.values():
            for keys in nbrs.values():
                values.extend(d.get(weight, default) for d in keys.values())
    else:
        for nbrs in G.adj.values():
            values.extend(d.get(weight, default) for d in nbrs.values())
    integral = all(isinstance(v, (int, np.integer)) for v in values)
    return np.asarray(values, dtype=np.float64), integral


def convert_from_nx(graph, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                    preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                    graph_name=None):
    """networkx's ``convert_from_nx``: a GrBGraph of ``graph`` with the edge attributes asked
    for (``edge_attrs``: {name: default}); others are read from the original on demand."""
    if isinstance(graph, GrBGraph):
        return graph
    rows, cols, positions = _adjacency(graph)
    weights = {attr: _edge_values(graph, attr, 1 if default is None else default)
               for attr, default in (edge_attrs or {}).items()}
    return GrBGraph(graph, directed=graph.is_directed(), multigraph=graph.is_multigraph(),
                    rows=rows, cols=cols, positions=positions, weights=weights,
                    graph_attrs=graph.graph if preserve_graph_attrs else None,
                    source_graph=graph)


def convert_to_nx(obj, *, name=None):
    """networkx's ``convert_to_nx``: results are networkx's types already; a GrBGraph gives
    back the graph it was converted from."""
    if isinstance(obj, GrBGraph):
        if obj.source_graph is None:
            raise NotImplementedError("grblas_gpu: this graph has no networkx original")
        return obj.source_graph
    return obj
