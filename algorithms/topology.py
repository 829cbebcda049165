"""Graph topologies (CSR, CSC, COO with a sort tag) and conversion between them, edge data
carried along (nvgraphConvertTopology; the topology structs of the nvGRAPH 9.2 guide, 2.3).

A topology holds only connectivity, with the guide's field names:

    CSRTopology  nvertices, nedges, source_offsets (n+1), destination_indices (nedges)
    CSCTopology  nvertices, nedges, destination_offsets (n+1), source_indices (nedges)
    COOTopology  nvertices, nedges, source_indices, destination_indices, tag

Edge data is one array of nedges values in the topology's own edge order. Conversion goes
through a Matrix A (A(src, dst) = the edge's value), whose CSR and cached CSC are the two
compressed forms; the edge data follows its edge:

    CSR -> A:  A = from_coo(expand(source_offsets), destination_indices, data)
    CSC -> A:  A = from_coo(source_indices, expand(destination_offsets), data)
    COO -> A:  A = from_coo(source_indices, destination_indices, data)
    A -> CSR:  A's CSR;  A -> CSC: A's CSC (edge data gathered by its edge-id map)
    A -> COO:  SORT_BY_SOURCE: CSR order;  SORT_BY_DESTINATION: CSC order

nvGRAPH's special cases are kept: a conversion to the same format (for COO: to the same tag,
or to UNSORTED) is a copy, and UNSORTED output takes the source's natural order (CSR gives
source order, CSC destination order). Within a row (CSR) or column (CSC) the output is sorted
by the other endpoint.

Index arrays are int32 (nvGRAPH's 32I topologies) while they fit, on the active backend.
References: nvGRAPH 9.2 guide 2.2, 2.3, 2.11; nvgraph.cpp nvgraphConvertTopology_impl.

NOTE: duplicate edges (a multigraph) raise InvalidValue: a Matrix holds one value per (i, j).
"""
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu.errors import InvalidValue, TypeNotSupported

__all__ = ["CSRTopology", "CSCTopology", "COOTopology", "UNSORTED", "SORT_BY_SOURCE",
           "SORT_BY_DESTINATION", "DEFAULT", "convert_topology", "topology_to_matrix",
           "matrix_to_topology", "TAGS"]

UNSORTED = "NVGRAPH_UNSORTED"
SORT_BY_SOURCE = "NVGRAPH_SORT_BY_SOURCE"
SORT_BY_DESTINATION = "NVGRAPH_SORT_BY_DESTINATION"
DEFAULT = "NVGRAPH_DEFAULT"  # nvgraph.h's name for "no preference": treated as UNSORTED
TAGS = (UNSORTED, SORT_BY_SOURCE, SORT_BY_DESTINATION, DEFAULT)


@dataclass
class CSRTopology:
    nvertices: int = 0
    nedges: int = 0
    source_offsets: Any = None
    destination_indices: Any = None


@dataclass
class CSCTopology:
    nvertices: int = 0
    nedges: int = 0
    destination_offsets: Any = None
    source_indices: Any = None


@dataclass
class COOTopology:
    nvertices: int = 0
    nedges: int = 0
    source_indices: Any = None
    destination_indices: Any = None
    tag: str = UNSORTED


def _kind(t):
    for cls in (CSRTopology, CSCTopology, COOTopology):
        if isinstance(t, cls) or t is cls:
            return cls
    raise TypeNotSupported(f"not a topology (CSR, CSC or COO): {t!r}")


def _tag(tag):
    tag = UNSORTED if tag is None else str(tag).upper()
    if not tag.startswith("NVGRAPH_"):
        tag = "NVGRAPH_" + tag
    tag = {"NVGRAPH_SORTED_BY_SOURCE": SORT_BY_SOURCE,
           "NVGRAPH_SORTED_BY_DESTINATION": SORT_BY_DESTINATION, DEFAULT: UNSORTED}.get(tag, tag)
    if tag not in TAGS:
        raise TypeNotSupported(f"unknown COO tag {tag!r}")
    return tag


def convert_topology(src, edge_data, dst, *, tag=None):
    """(dst topology, dst edge data) converted from ``src`` and its ``edge_data`` (None: no
    edge data). ``dst``: a topology class or instance naming the format (an instance's tag
    is used for COO unless ``tag`` is given)."""
    src_kind, dst_kind = _kind(src), _kind(dst)
    if dst_kind is COOTopology:
        tag = _tag(tag if tag is not None else getattr(dst, "tag", UNSORTED))
    n, m = _sizes(src)
    data = _edge_array(edge_data, m)
    if src_kind is dst_kind and (src_kind is not COOTopology or tag == UNSORTED
                                 or tag == _tag(src.tag)):
        out = replace(src, **{f: backend.xp.asarray(getattr(src, f)).copy()
                              for f in _array_fields(src_kind)})
        if dst_kind is COOTopology:
            out.tag = tag
        return out, None if data is None else data.copy()
    A = topology_to_matrix(src, data)
    if dst_kind is COOTopology and tag == UNSORTED:
        order = SORT_BY_DESTINATION if src_kind is CSCTopology else SORT_BY_SOURCE
        topo, out = matrix_to_topology(A, COOTopology, tag=order)
        topo.tag = UNSORTED
    else:
        topo, out = matrix_to_topology(A, dst_kind, tag=tag)
    return topo, None if data is None else out


def topology_to_matrix(topology, edge_data=None, *, dtype=None):
    """A (nvertices x nvertices, A(src, dst) = the edge's value) from a topology and its edge
    data (None: structure only, iso True)."""
    kind = _kind(topology)
    n, m = _sizes(topology)
    if kind is CSRTopology:
        src = _expand(topology.source_offsets, n, m, "source_offsets")
        dst = _indices(topology.destination_indices, n, m, "destination_indices")
    elif kind is CSCTopology:
        dst = _expand(topology.destination_offsets, n, m, "destination_offsets")
        src = _indices(topology.source_indices, n, m, "source_indices")
    else:
        src = _indices(topology.source_indices, n, m, "source_indices")
        dst = _indices(topology.destination_indices, n, m, "destination_indices")
    data = _edge_array(edge_data, m)
    return gg.Matrix.from_coo(src, dst, data, nrows=n, ncols=n,
                              dtype=dtype if dtype is not None or data is not None else gg.BOOL)


def matrix_to_topology(A, kind, *, tag=SORT_BY_SOURCE):
    """(topology, edge data in its order) of a square Matrix."""
    kind = _kind(kind)
    n, m = A.nrows, A.nvals
    itype = np.int32 if max(n, m) < 2**31 else np.int64
    if kind is CSRTopology:
        ptr, idx, vals = A.to_csr(device=True)
        return CSRTopology(n, m, ptr.astype(itype), idx.astype(itype)), vals
    if kind is CSCTopology:
        ptr, idx, vals = A.to_csc(device=True)
        return CSCTopology(n, m, ptr.astype(itype), idx.astype(itype)), vals
    tag = _tag(tag)
    if tag == SORT_BY_DESTINATION:
        ptr, rows, vals = A.to_csc(device=True)
        cols = _expand(ptr, n, m, "offsets")
    else:
        rows, cols, vals = A.to_coo(device=True)
    return COOTopology(n, m, rows.astype(itype), cols.astype(itype), tag), vals


# ---------------------------------------------------------------------------- checks
def _array_fields(kind):
    return {CSRTopology: ("source_offsets", "destination_indices"),
            CSCTopology: ("destination_offsets", "source_indices"),
            COOTopology: ("source_indices", "destination_indices")}[kind]


def _sizes(t):
    try:
        n, m = int(t.nvertices), int(t.nedges)
    except (TypeError, ValueError):
        raise InvalidValue("topology: nvertices and nedges must be integers") from None
    if n < 0 or m < 0:
        raise InvalidValue(f"topology: nvertices={n}, nedges={m} must be >= 0")
    return n, m


def _edge_array(data, m):
    if data is None:
        return None
    a = backend.xp.asarray(data)
    if a.ndim != 1 or a.shape[0] < m:
        raise InvalidValue(f"edge data must hold nedges={m} values, got shape {tuple(a.shape)}")
    return a[:m]


def _indices(a, n, m, what):
    xp = backend.xp
    if a is None:
        raise InvalidValue(f"topology: {what} is missing")
    a = xp.asarray(a)
    if a.ndim != 1 or a.shape[0] < m or (m and a.dtype.kind not in "iu"):
        raise InvalidValue(f"topology: {what} must hold nedges={m} integers")
    a = a[:m].astype(np.int64)
    if m and not bool(backend.to_scalar(((a >= 0) & (a < n)).all())):
        raise InvalidValue(f"topology: {what} has a vertex outside [0, {n})")
    return a


def _expand(offsets, n, m, what):
    """The row (column) of each edge from CSR (CSC) offsets, after checking them."""
    xp = backend.xp
    if offsets is None:
        raise InvalidValue(f"topology: {what} is missing")
    p = xp.asarray(offsets)
    if p.ndim != 1 or p.shape[0] < n + 1 or p.dtype.kind not in "iu":
        raise InvalidValue(f"topology: {what} must hold nvertices+1={n + 1} integers")
    p = p[:n + 1].astype(np.int64)
    ends = backend.to_host(p[xp.asarray([0, n])])
    if int(ends[0]) != 0 or int(ends[1]) != m:
        raise InvalidValue(f"topology: {what} must run from 0 to nedges={m}")
    if n and bool(backend.to_scalar((p[1:] < p[:-1]).any())):
        raise InvalidValue(f"topology: {what} must be non-decreasing")
    return xp.searchsorted(p, xp.arange(m, dtype=np.int64), side="right") - 1
