"""Subgraph extraction by a vertex set or an edge set, edge data carried along
(nvgraphExtractSubgraphByVertex / nvgraphExtractSubgraphByEdge).

By vertex (V sorted, duplicate-free, in range, non-empty): the induced subgraph, its vertices
renumbered 0 .. |V|-1 in V's order:

    S = A(V, V)                        (extract)
    E = A_ids(V, V)                    the same extraction of the edge-id matrix
                                       (A_ids(i, j) = the CSR position of A(i, j))

By edge (E sorted, duplicate-free, in [0, nvals), non-empty; positions in A's CSR edge list):
the edges themselves, on the vertices they touch (sources and destinations, sorted, renumbered
as above); this is nvGRAPH's graph_extractor (extract_subgraph_by_edge), not an induced graph.

Edge data: S carries A's values. ``with_ids=True`` also returns the original vertex ids of
S's vertices and the original CSR positions of S's edges (in S's CSR order), which is how
the nvGRAPH adapter gathers every edge and vertex data set.

Cached properties: none. Index arrays (V, E) are validated and renumbered with backend array
operations (sorting, searchsorted): data movement, not iteration.
References: nvGRAPH 9.2 guide 2.19, 2.20; nvgraph graph_concrete_visitors.hxx.
"""
import numpy as np

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu.errors import InvalidValue

from ._common import check_flag, check_square

__all__ = ["extract_subgraph_by_vertex", "extract_subgraph_by_edge"]


def extract_subgraph_by_vertex(A, vertices, *, with_ids=False):
    """The subgraph of A induced by ``vertices`` (see the module docstring)."""
    n = check_square(A)
    with_ids = check_flag(with_ids, "with_ids")
    V = _checked_set(vertices, n, "vertices")
    k = int(V.shape[0])
    S = gg.Matrix(A.dtype, k, k)
    # S = A(V, V)
    gg.extract(S, A, V, V)
    if not with_ids:
        return S
    ids = gg.Matrix(gg.INT64, k, k)
    # ids = A_ids(V, V)
    gg.extract(ids, _edge_ids(A), V, V)
    return S, V, ids.to_csr(device=True)[2]


def extract_subgraph_by_edge(A, edges, *, with_ids=False):
    """The subgraph made of the edges at CSR positions ``edges`` (see the module docstring)."""
    check_square(A)
    with_ids = check_flag(with_ids, "with_ids")
    xp = backend.xp
    E = _checked_set(edges, A.nvals, "edges")
    rows, cols, vals = A.to_coo(device=True)
    src, dst = rows[E].astype(np.int64), cols[E].astype(np.int64)
    V = xp.unique(xp.concatenate([src, dst]))
    k = int(V.shape[0])
    # the selected edges keep their CSR order: renumbered sources stay sorted
    S = gg.Matrix.from_coo(xp.searchsorted(V, src), xp.searchsorted(V, dst), vals[E],
                           nrows=k, ncols=k, dtype=A.dtype)
    return (S, V, E) if with_ids else S


def _checked_set(x, bound, what):
    """A sorted, duplicate-free, in-range, non-empty int64 index array (else InvalidValue)."""
    xp = backend.xp
    a = xp.asarray(x)
    if a.ndim != 1 or a.shape[0] == 0:
        raise InvalidValue(f"{what} must be a non-empty 1-D array of indices")
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and bool(backend.to_scalar((a == xp.floor(a)).all())):
            a = a.astype(np.int64)
        else:
            raise InvalidValue(f"{what} must hold integers, got dtype {a.dtype}")
    a = a.astype(np.int64)
    if a.shape[0] > bound:
        raise InvalidValue(f"{what}: {a.shape[0]} indices, more than the {bound} available")
    lo, hi = (int(v) for v in backend.to_host(xp.stack([a.min(), a.max()])))
    if lo < 0 or hi >= bound:
        raise InvalidValue(f"{what} must lie in [0, {bound}), got [{lo}, {hi}]")
    if a.shape[0] > 1 and not bool(backend.to_scalar((a[1:] > a[:-1]).all())):
        raise InvalidValue(f"{what} must be sorted in ascending order without duplicates")
    return a


def _edge_ids(A):
    """A_ids: A's pattern valued by each entry's CSR position."""
    xp = backend.xp
    indptr, indices, _ = A.to_csr(device=True)
    return gg.Matrix.from_csr(indptr, indices, xp.arange(A.nvals, dtype=np.int64),
                              ncols=A.ncols)
