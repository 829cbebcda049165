"""python-graphblas's ``graphblas.io`` conversions, re-exported by :mod:`grblas_gpu.io`:
networkx graphs and scipy.sparse arrays in and out (the Matrix Market functions live in
grblas_gpu.io itself; ``mmread`` / ``mmwrite`` are its names for them).

``from_networkx`` reads the graph through ``networkx.to_scipy_sparse_array`` exactly as
python-graphblas does: rows and columns in ``nodelist`` order (default ``G.nodes``), the
value of each edge its ``weight`` attribute (1 where an edge lacks it; ``weight=None``: 1
everywhere), an undirected edge stored both ways, a multigraph's parallel edges summed.
``to_networkx`` gives a ``DiGraph`` over the nodes 0 .. n-1 (every node, isolated ones too),
each entry an edge whose ``edge_attribute`` holds its value.
"""
from .errors import InvalidValue

__all__ = ["from_networkx", "to_networkx", "from_scipy_sparse", "to_scipy_sparse"]

_SCIPY_FORMATS = ("bsr", "csr", "csc", "coo", "lil", "dia", "dok")


def from_networkx(G, nodelist=None, dtype=None, weight="weight", name=None):
    """A square adjacency Matrix of a networkx graph (python-graphblas's signature; ``name``
    is accepted and ignored: grblas_gpu objects have no names)."""
    import networkx as nx

    from .types import lookup_dtype

    if not isinstance(G, nx.Graph):
        raise InvalidValue(f"from_networkx needs a networkx graph, got {type(G).__name__}")
    np_dtype = None if dtype is None else lookup_dtype(dtype).np_type
    try:
        S = nx.to_scipy_sparse_array(G, nodelist=nodelist, dtype=np_dtype, weight=weight)
    except (nx.NetworkXError, TypeError, ValueError, KeyError) as e:
        raise InvalidValue(f"from_networkx: {e}") from None
    return from_scipy_sparse(S, dup_op="plus")


def to_networkx(A, edge_attribute="weight", *, create_using=None):
    """A networkx ``DiGraph`` (or ``create_using``, a graph class or an empty graph) with
    nodes 0 .. nrows-1 and one edge per entry of the square Matrix ``A``, its value under
    ``edge_attribute`` (``None``: no attribute). An undirected ``create_using`` keeps one
    edge per pair (the last entry read, in row-major order, gives its value)."""
    import networkx as nx

    from .matrix import Matrix

    if not isinstance(A, Matrix):
        raise InvalidValue(f"to_networkx needs a Matrix, got {type(A).__name__}")
    if A.nrows != A.ncols:
        raise InvalidValue(f"to_networkx needs a square Matrix, got {A.nrows} x {A.ncols}")
    if edge_attribute is not None and not isinstance(edge_attribute, str):
        raise InvalidValue(f"edge_attribute must be a str or None, got {edge_attribute!r:.40}")
    try:
        G = nx.empty_graph(0, create_using=nx.DiGraph if create_using is None else create_using)
    except (nx.NetworkXError, TypeError) as e:
        raise InvalidValue(f"to_networkx: create_using: {e}") from None
    rows, cols, vals = A.to_coo(values=edge_attribute is not None)
    G.add_nodes_from(range(A.nrows))
    if edge_attribute is None:
        G.add_edges_from(zip(rows.tolist(), cols.tolist()))
    else:
        G.add_weighted_edges_from(zip(rows.tolist(), cols.tolist(), vals.tolist()),
                                  weight=edge_attribute)
    return G


def from_scipy_sparse(A, *, dup_op=None, name=None):
    """``Matrix.from_scipy`` under python-graphblas's name (``name`` ignored)."""
    from .matrix import Matrix

    return Matrix.from_scipy(A, dup_op=dup_op)


def to_scipy_sparse(A, format="csr"):
    """A scipy.sparse array of a Matrix or Vector (a Vector as one row; ``format='csc'``: one
    column), in ``format``: bsr, csr, csc, coo, lil, dia or dok (python-graphblas's
    ``to_scipy_sparse``)."""
    from .matrix import Matrix
    from .vector import Vector

    if not isinstance(format, str) or format.lower() not in _SCIPY_FORMATS:
        raise InvalidValue(f"format must be one of {', '.join(_SCIPY_FORMATS)}, got "
                           f"{format!r:.40}")
    if not isinstance(A, (Matrix, Vector)):
        raise InvalidValue(f"to_scipy_sparse needs a Matrix or a Vector, got {type(A).__name__}")
    S = A.to_scipy()
    format = format.lower()
    if isinstance(A, Vector) and format == "csc":
        return S.T.tocsc()
    return S if format == "csr" else S.asformat(format)
