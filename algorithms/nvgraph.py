"""nvGRAPH's C API (9.2 guide), mirrored function for function so the guide's programs port line
for line. A thin adapter: it checks arguments and graph state as nvGRAPH does, turns topology
and data sets into Matrices and Vectors, calls ``algorithms``, and stores the results back.

    C                                               Python (this module, ``nv``)
    nvgraphCreate(&h)                               h = nv.create()          (or nv.Handle())
    nvgraphCreateGraphDescr(h, &g)                  g = nv.create_graph_descr(h)
    nvgraphSetGraphStructure(h, g, csr, NVGRAPH_CSR_32)
                                                    nv.set_graph_structure(h, g, csr, nv.CSR_32)
    nvgraphAllocateVertexData(h, g, 2, types)       nv.allocate_vertex_data(h, g, 2, types)
    nvgraphSetVertexData(h, g, x_h, 0)              nv.set_vertex_data(h, g, x_h, 0)
    nvgraphGetVertexData(h, g, y_h, 1)              nv.get_vertex_data(h, g, y_h, 1)  (fills y_h,
                                                                                      returns it)
    nvgraphSssp(h, g, 0, &src, 0)                   nv.sssp(h, g, 0, src, 0)
    nvgraphTriangleCount(h, g, &count)              count = nv.triangle_count(h, g)
    check(status) / nvgraphStatusGetString(s)       errors raise; err.status is the
                                                    NVGRAPH_STATUS_* name; nv.status_get_string

Pointers to results become return values; arrays the C code fills (vertex data, topology
fields, edge data) are filled in place when given and returned either way. Topology structs
are dataclasses with the guide's field names (CSRTopology32I, CSCTopology32I, COOTopology32I).
Types are the cudaDataType_t names ("CUDA_R_32F", "CUDA_R_64F", "CUDA_R_32I").

State rules (nvgraph.cpp): a topology is set once (INVALID_VALUE after), with nvertices > 0
and nedges > 0; vertex and edge data are each allocated once (the guide's rule), after the
topology, all sets of one type, the same for vertices and edges (INVALID_VALUE otherwise; an
unknown type is TYPE_NOT_SUPPORTED); data is written with the set's exact type (no
conversions, as the guide says). Algorithms require their topology (SSSP, widest path and
PageRank: CSC; SrSpmv and traversal: CSR; triangles: CSR or CSC; INVALID_VALUE otherwise;
spectral clustering and its analysis: CSR, GRAPH_TYPE_NOT_SUPPORTED otherwise) and data type
(float or double; traversal int: TYPE_NOT_SUPPORTED otherwise).

A CSC topology is kept, as nvGRAPH keeps it, as the CSR of the transposed graph: edge numbers
are positions in source_indices; sub-graphs of a CSC graph are CSC graphs.
"""
import functools
import numbers
from dataclasses import dataclass

import numpy as np

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu.errors import (GraphBLASError, InvalidValue, NotConverged, NotInitialized,
                               TypeNotSupported)

from . import spectral as _spectral
from . import subgraph as _subgraph
from . import topology as _topology
from .bfs import DEFAULT_ALPHA, DEFAULT_BETA, bfs as _bfs
from .pagerank import pagerank as _pagerank
from .srspmv import srspmv as _srspmv
from .sssp import sssp as _sssp
from .triangle_count import triangle_count as _triangle_count
from .widest_path import widest_path as _widest_path

__all__ = [
    "Handle", "GraphDescr", "create", "destroy", "create_graph_descr", "destroy_graph_descr",
    "set_graph_structure", "get_graph_structure", "allocate_vertex_data", "allocate_edge_data",
    "set_vertex_data", "get_vertex_data", "set_edge_data", "get_edge_data", "convert_topology",
    "convert_graph", "extract_subgraph_by_vertex", "extract_subgraph_by_edge", "sssp",
    "widest_path", "srspmv", "pagerank", "triangle_count", "spectral_clustering",
    "analyze_clustering", "TraversalParameter", "traversal_parameter_init",
    "traversal_set_distances_index", "traversal_get_distances_index",
    "traversal_set_predecessors_index", "traversal_get_predecessors_index",
    "traversal_set_edge_mask_index", "traversal_get_edge_mask_index",
    "traversal_set_undirected_flag", "traversal_get_undirected_flag", "traversal_set_alpha",
    "traversal_get_alpha", "traversal_set_beta", "traversal_get_beta", "traversal",
    "get_property", "status_get_string", "SpectralClusteringParameter", "CSRTopology32I",
    "CSCTopology32I", "COOTopology32I",
]

# ------------------------------------------------------------------------------ enums
CSR_32, CSC_32, COO_32 = "NVGRAPH_CSR_32", "NVGRAPH_CSC_32", "NVGRAPH_COO_32"
CUDA_R_32F, CUDA_R_64F, CUDA_R_32I = "CUDA_R_32F", "CUDA_R_64F", "CUDA_R_32I"
PLUS_TIMES_SR, MIN_PLUS_SR = "NVGRAPH_PLUS_TIMES_SR", "NVGRAPH_MIN_PLUS_SR"
MAX_MIN_SR, OR_AND_SR = "NVGRAPH_MAX_MIN_SR", "NVGRAPH_OR_AND_SR"
SEMIRINGS = (PLUS_TIMES_SR, MIN_PLUS_SR, MAX_MIN_SR, OR_AND_SR)
TRAVERSAL_BFS = "NVGRAPH_TRAVERSAL_BFS"
UNSORTED, SORT_BY_SOURCE = _topology.UNSORTED, _topology.SORT_BY_SOURCE
SORT_BY_DESTINATION, DEFAULT = _topology.SORT_BY_DESTINATION, _topology.DEFAULT
MODULARITY_MAXIMIZATION = _spectral.MODULARITY_MAXIMIZATION
BALANCED_CUT_LANCZOS = _spectral.BALANCED_CUT_LANCZOS
BALANCED_CUT_LOBPCG = _spectral.BALANCED_CUT_LOBPCG
MODULARITY, EDGE_CUT, RATIO_CUT = _spectral.MODULARITY, _spectral.EDGE_CUT, _spectral.RATIO_CUT
MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL = "MAJOR_VERSION", "MINOR_VERSION", "PATCH_LEVEL"
# the API level mirrored: the nvGRAPH 9.2 guide
_PROPERTIES = {MAJOR_VERSION: 9, MINOR_VERSION: 2, PATCH_LEVEL: 0}

SUCCESS = "NVGRAPH_STATUS_SUCCESS"
NOT_INITIALIZED = "NVGRAPH_STATUS_NOT_INITIALIZED"
INVALID_VALUE = "NVGRAPH_STATUS_INVALID_VALUE"
TYPE_NOT_SUPPORTED = "NVGRAPH_STATUS_TYPE_NOT_SUPPORTED"
GRAPH_TYPE_NOT_SUPPORTED = "NVGRAPH_STATUS_GRAPH_TYPE_NOT_SUPPORTED"
NOT_CONVERGED = "NVGRAPH_STATUS_NOT_CONVERGED"

_TYPES = {CUDA_R_32F: gg.FP32, CUDA_R_64F: gg.FP64, CUDA_R_32I: gg.INT32}
_TOPOLOGIES = {CSR_32: _topology.CSRTopology, CSC_32: _topology.CSCTopology,
               COO_32: _topology.COOTopology}

CSRTopology32I = _topology.CSRTopology
CSCTopology32I = _topology.CSCTopology
COOTopology32I = _topology.COOTopology


@dataclass
class SpectralClusteringParameter:
    n_clusters: int = 2
    n_eig_vects: int = 2
    algorithm: str = MODULARITY_MAXIMIZATION
    evs_tolerance: float = 0.0
    evs_max_iter: int = 0
    kmean_tolerance: float = 0.0
    kmean_max_iter: int = 0


@dataclass
class TraversalParameter:
    """nvgraphTraversalParameter_t; None means "not set"."""
    distances_index: int = None
    predecessors_index: int = None
    edge_mask_index: int = None
    undirected: int = 0
    alpha: int = DEFAULT_ALPHA
    beta: int = DEFAULT_BETA


class Handle:
    """nvgraphHandle_t: ``Handle()`` is nvgraphCreate."""

    def __init__(self):
        self.alive = True


class GraphDescr:
    """nvgraphGraphDescr_t: a topology, then vertex and edge data sets of one type."""

    def __init__(self):
        self.alive = True
        self.ttype = None          # CSR_32 / CSC_32
        self.topology = None       # the topology dataclass (backend arrays)
        self.dtype = None          # CUDA_R_* once data is allocated
        self.vertex_data = None    # list of backend arrays
        self.edge_data = None
        self._ids = None           # stored-orientation Matrix valued by user edge numbers

    @property
    def nvertices(self):
        return self.topology.nvertices

    @property
    def nedges(self):
        return self.topology.nedges


# ------------------------------------------------------------------------------ errors
def _api(fn):
    """Run an API function; any failure leaves as a GraphBLASError whose .status is its
    NVGRAPH_STATUS_* name."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except GraphBLASError as err:
            if not str(err.status).startswith("NVGRAPH_"):
                err.status = err.nvgraph_status
            err.nvgraph_status = err.status
            raise
        except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
            err = InvalidValue(f"{fn.__name__}: {exc}", status=INVALID_VALUE)
            err.nvgraph_status = INVALID_VALUE
            raise err from exc
    return wrapper


def _fail(cls, status, message):
    err = cls(message, status=status)
    err.nvgraph_status = status
    raise err


def _handle(h):
    if not isinstance(h, Handle) or not h.alive:
        _fail(NotInitialized, NOT_INITIALIZED, "the nvGRAPH handle is not initialized "
              "(call create() first; a destroyed handle cannot be used)")


def _descr(g, *, topology=True, values=False):
    if not isinstance(g, GraphDescr) or not g.alive:
        _fail(InvalidValue, INVALID_VALUE, "invalid or destroyed graph descriptor")
    if topology and g.topology is None:
        _fail(InvalidValue, INVALID_VALUE, "the graph has no topology (set_graph_structure)")
    if values and g.dtype is None:
        _fail(InvalidValue, INVALID_VALUE, "the graph has no data sets allocated")
    return g


def _require_topology(g, allowed, status=INVALID_VALUE, what="this algorithm"):
    if g.ttype not in allowed:
        cls = TypeNotSupported if status != INVALID_VALUE else InvalidValue
        _fail(cls, status, f"{what} needs a {' or '.join(allowed)} topology, the graph is "
              f"{g.ttype}")


def _require_type(g, allowed, what):
    if g.dtype not in allowed:
        _fail(TypeNotSupported, TYPE_NOT_SUPPORTED, f"{what} supports {' and '.join(allowed)} "
              f"data, the graph holds {g.dtype}")


def _type_name(t):
    if isinstance(t, str) and t.upper() in _TYPES:
        return t.upper()
    try:
        dt = gg.lookup_dtype(t)
    except GraphBLASError:
        dt = None
    for name, typ in _TYPES.items():
        if dt is typ:
            return name
    _fail(TypeNotSupported, TYPE_NOT_SUPPORTED, f"data type {t!r} is not supported "
          "(CUDA_R_32F, CUDA_R_64F or CUDA_R_32I)")


def _index(i, count, what):
    if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= int(i) < count:
        _fail(InvalidValue, INVALID_VALUE, f"{what} {i!r} is not one of the {count} sets")
    return int(i)


def _scalar_arg(x, what):
    """A C pointer argument (&source_vert, alpha_p): a number or a one-element sequence."""
    a = np.asarray(backend.to_host(x) if not isinstance(x, (list, tuple)) else x)
    if a.size != 1:
        _fail(InvalidValue, INVALID_VALUE, f"{what} must be one value")
    return a.reshape(()).item()


# ------------------------------------------------------------------------------ library
@_api
def create():
    """nvgraphCreate."""
    return Handle()


@_api
def destroy(handle):
    """nvgraphDestroy: the handle (and what it allocated) is released."""
    _handle(handle)
    handle.alive = False


@_api
def create_graph_descr(handle):
    _handle(handle)
    return GraphDescr()


@_api
def destroy_graph_descr(handle, descr):
    _handle(handle)
    _descr(descr, topology=False)
    descr.alive = False
    descr.topology = descr.vertex_data = descr.edge_data = descr._ids = None


@_api
def get_property(prop):
    """nvgraphGetProperty: MAJOR_VERSION, MINOR_VERSION or PATCH_LEVEL of the API mirrored."""
    if prop not in _PROPERTIES:
        _fail(InvalidValue, INVALID_VALUE, f"unknown library property {prop!r}")
    return _PROPERTIES[prop]


def status_get_string(status):
    """nvgraphStatusGetString."""
    return gg.status_string(status)


# ------------------------------------------------------------------------------ structure
@_api
def set_graph_structure(handle, descr, topology, ttype):
    """nvgraphSetGraphStructure (once per graph; CSR_32 or CSC_32)."""
    _handle(handle)
    _descr(descr, topology=False)
    if descr.topology is not None:
        _fail(InvalidValue, INVALID_VALUE, "the graph topology is already set")
    if ttype not in (CSR_32, CSC_32):
        _fail(TypeNotSupported, TYPE_NOT_SUPPORTED, f"topology type {ttype!r} is not supported "
              "for a graph (CSR_32 or CSC_32; COO is for storage only)")
    if not isinstance(topology, _TOPOLOGIES[ttype]):
        _fail(InvalidValue, INVALID_VALUE, f"{ttype} needs a {_TOPOLOGIES[ttype].__name__}")
    if not (int(topology.nvertices) > 0 and int(topology.nedges) > 0):
        _fail(InvalidValue, INVALID_VALUE, "nvertices and nedges must be positive")
    topo, _ = _topology.convert_topology(topology, None, _TOPOLOGIES[ttype])
    ids = _stored_ids(topo)          # validates the arrays
    descr.ttype, descr.topology, descr._ids = ttype, topo, ids


@_api
def get_graph_structure(handle, descr, topology=None):
    """nvgraphGetGraphStructure: (topology, topology type). A given topology struct must match
    the graph's type; its arrays are filled in place when allocated, else set."""
    _handle(handle)
    _descr(descr)
    if topology is None:
        topology = _TOPOLOGIES[descr.ttype]()
    elif not isinstance(topology, _TOPOLOGIES[descr.ttype]):
        _fail(TypeNotSupported, TYPE_NOT_SUPPORTED, f"the graph's topology is {descr.ttype}")
    _fill_topology(topology, descr.topology)
    return topology, descr.ttype


def _stored_ids(topo):
    """The graph as stored (CSR, or CSC as the CSR of the transpose), valued by the user's edge
    numbers (INT64)."""
    m = topo.nedges
    ids = backend.xp.arange(m, dtype=np.int64)
    if isinstance(topo, _topology.CSCTopology):
        flipped = _topology.CSRTopology(topo.nvertices, m, topo.destination_offsets,
                                        topo.source_indices)
        return _topology.topology_to_matrix(flipped, ids)
    return _topology.topology_to_matrix(topo, ids)


def _stored(descr, values, dtype=None):
    """The stored-orientation Matrix valued by an edge set (user order)."""
    indptr, indices, perm = descr._ids.to_csr(device=True)
    vals = None if values is None else backend.xp.asarray(values)[perm]
    return gg.Matrix.from_csr(indptr, indices, vals, ncols=descr.nvertices,
                              dtype=dtype if values is None else None)


def _graph(descr, values):
    """A(src, dst) valued by an edge set: the stored matrix, transposed for CSC."""
    S = _stored(descr, values)
    if descr.ttype == CSR_32:
        return S
    A = gg.Matrix(S.dtype, S.ncols, S.nrows)
    # A = Sᵀ
    return gg.transpose(A, S)


# ------------------------------------------------------------------------------ data sets
def _allocate(descr, numsets, settypes, kind):
    n_sets = int(numsets)
    if n_sets <= 0:
        _fail(InvalidValue, INVALID_VALUE, "numsets must be more than 0")
    types = [settypes] * n_sets if isinstance(settypes, str) or not hasattr(
        settypes, "__len__") else list(settypes)[:n_sets]
    if len(types) < n_sets:
        _fail(InvalidValue, INVALID_VALUE, f"settypes holds {len(types)} types for {n_sets} sets")
    names = [_type_name(t) for t in types]
    if len(set(names)) != 1:
        _fail(InvalidValue, INVALID_VALUE, f"all data sets must have one type, got {names}")
    if getattr(descr, kind) is not None:
        _fail(InvalidValue, INVALID_VALUE, f"{kind.replace('_', ' ')} is already allocated")
    if descr.dtype is not None and descr.dtype != names[0]:
        _fail(InvalidValue, INVALID_VALUE, f"the graph's data is {descr.dtype}, not {names[0]}")
    size = descr.nvertices if kind == "vertex_data" else descr.nedges
    npt = _TYPES[names[0]].np_type
    descr.dtype = names[0]
    setattr(descr, kind, [backend.xp.zeros(size, dtype=npt) for _ in range(n_sets)])


@_api
def allocate_vertex_data(handle, descr, numsets, settypes):
    """nvgraphAllocateVertexData: ``settypes`` a list of numsets equal types (or one type)."""
    _handle(handle)
    _allocate(_descr(descr), numsets, settypes, "vertex_data")


@_api
def allocate_edge_data(handle, descr, numsets, settypes):
    """nvgraphAllocateEdgeData."""
    _handle(handle)
    _allocate(_descr(descr), numsets, settypes, "edge_data")


def _set(descr, data, setnum, kind):
    sets = getattr(descr, kind)
    if sets is None:
        _fail(InvalidValue, INVALID_VALUE, f"no {kind.replace('_', ' ')} is allocated")
    i = _index(setnum, len(sets), "setnum")
    npt = _TYPES[descr.dtype].np_type
    if isinstance(data, (list, tuple)):
        a = np.asarray(data, dtype=npt)
    else:
        a = data
        if getattr(a, "dtype", None) != npt:
            _fail(InvalidValue, INVALID_VALUE, f"data of dtype {getattr(a, 'dtype', type(a))} "
                  f"for a {descr.dtype} set (conversions are not supported)")
    size = sets[i].shape[0]
    if a.ndim != 1 or a.shape[0] < size:
        _fail(InvalidValue, INVALID_VALUE, f"the data must hold {size} values")
    sets[i] = backend.xp.array(a[:size], dtype=npt)


def _get(descr, out, setnum, kind):
    sets = getattr(descr, kind)
    if sets is None:
        _fail(InvalidValue, INVALID_VALUE, f"no {kind.replace('_', ' ')} is allocated")
    return _copy_out(sets[_index(setnum, len(sets), "setnum")], out)


def _copy_out(src, out):
    """Copy into ``out`` when given (host or device array), else return a copy."""
    if out is None:
        return src.copy()
    if isinstance(out, np.ndarray):
        out[:src.shape[0]] = backend.to_host(src)
    else:
        out[:src.shape[0]] = src
    return out


@_api
def set_vertex_data(handle, descr, vertex_data, setnum):
    _handle(handle)
    _set(_descr(descr, values=True), vertex_data, setnum, "vertex_data")


@_api
def get_vertex_data(handle, descr, vertex_data, setnum):
    """nvgraphGetVertexData: fills ``vertex_data`` (an array, or None for a new one); returns it."""
    _handle(handle)
    return _get(_descr(descr, values=True), vertex_data, setnum, "vertex_data")


@_api
def set_edge_data(handle, descr, edge_data, setnum):
    _handle(handle)
    _set(_descr(descr, values=True), edge_data, setnum, "edge_data")


@_api
def get_edge_data(handle, descr, edge_data, setnum):
    _handle(handle)
    return _get(_descr(descr, values=True), edge_data, setnum, "edge_data")


# ------------------------------------------------------------------------------ conversion
def _fill_topology(dst, src):
    dst.nvertices, dst.nedges = src.nvertices, src.nedges
    for field in _topology._array_fields(type(src)):
        _set_field(dst, field, getattr(src, field))
    if isinstance(src, _topology.COOTopology):
        dst.tag = src.tag


def _set_field(obj, field, value):
    current = getattr(obj, field)
    if current is None or isinstance(current, (list, tuple)):
        setattr(obj, field, value.copy())
    else:
        _copy_out(value, current)


@_api
def convert_topology(handle, src_ttype, src_topology, src_edge_data, data_type, dst_ttype,
                     dst_topology, dst_edge_data=None):
    """nvgraphConvertTopology: fills ``dst_topology`` (its COO tag chooses the order) and
    ``dst_edge_data`` (or returns a new array); returns (dst_topology, dst_edge_data)."""
    _handle(handle)
    if src_edge_data is None:
        _fail(InvalidValue, INVALID_VALUE, "srcEdgeData is required")
    name = _type_name(data_type)
    if name not in (CUDA_R_32F, CUDA_R_64F):
        _fail(TypeNotSupported, TYPE_NOT_SUPPORTED, "edge data must be CUDA_R_32F or CUDA_R_64F")
    for tt, topo, what in ((src_ttype, src_topology, "source"),
                           (dst_ttype, dst_topology, "destination")):
        if tt not in _TOPOLOGIES or not isinstance(topo, _TOPOLOGIES[tt]):
            _fail(InvalidValue, INVALID_VALUE, f"the {what} topology does not match {tt!r}")
    data = backend.xp.asarray(src_edge_data, dtype=_TYPES[name].np_type)
    tag = getattr(dst_topology, "tag", None)
    topo, out = _topology.convert_topology(src_topology, data, _TOPOLOGIES[dst_ttype], tag=tag)
    _fill_topology(dst_topology, topo)
    if isinstance(dst_topology, _topology.COOTopology):
        dst_topology.tag = _topology._tag(tag)
    return dst_topology, _copy_out(out, dst_edge_data)


@_api
def convert_graph(handle, src_descr, dst_descr, dst_ttype):
    """nvgraphConvertGraph: dst (empty) gets src's graph in dst_ttype, with its data sets."""
    _handle(handle)
    _descr(src_descr)
    _descr(dst_descr, topology=False)
    if dst_descr.topology is not None:
        _fail(InvalidValue, INVALID_VALUE, "the destination graph must be empty")
    if dst_ttype not in (CSR_32, CSC_32):
        _fail(TypeNotSupported, TYPE_NOT_SUPPORTED, "a graph converts to CSR_32 or CSC_32 only")
    A_ids = _graph(src_descr, backend.xp.arange(src_descr.nedges, dtype=np.int64))
    topo, perm = _topology.matrix_to_topology(A_ids, _TOPOLOGIES[dst_ttype])
    _install(handle, dst_descr, dst_ttype, topo, src_descr, vertices=None, edges=perm)


def _install(handle, dst, ttype, topo, src, *, vertices, edges):
    """Give dst the topology and src's data sets gathered by vertex and edge numbers."""
    dst.ttype, dst.topology, dst._ids = ttype, topo, _stored_ids(topo)
    for sets, pick, allocate, put in ((src.vertex_data, vertices, allocate_vertex_data,
                                       set_vertex_data),
                                      (src.edge_data, edges, allocate_edge_data, set_edge_data)):
        if sets is None:
            continue
        allocate(handle, dst, len(sets), [src.dtype] * len(sets))
        for i, a in enumerate(sets):
            put(handle, dst, a if pick is None else a[pick], i)


# ------------------------------------------------------------------------------ subgraphs
@_api
def extract_subgraph_by_vertex(handle, descr, subdescr, subvertices, numvertices=None):
    """nvgraphExtractSubgraphByVertex: subdescr (empty) gets the induced subgraph."""
    _handle(handle)
    _descr(descr)
    V = _first(subvertices, numvertices, "subvertices")
    S = _subgraph.extract_subgraph_by_vertex(descr._ids, V)   # valued by edge numbers
    _install_sub(handle, descr, subdescr, S, _subgraph._checked_set(V, descr.nvertices,
                                                                   "subvertices"),
                 S.to_csr(device=True)[2])


@_api
def extract_subgraph_by_edge(handle, descr, subdescr, subedges, numedges=None):
    """nvgraphExtractSubgraphByEdge: subdescr (empty) gets the listed edges (positions in the
    destination_indices of a CSR graph, the source_indices of a CSC one) and their vertices."""
    _handle(handle)
    _descr(descr)
    E = _first(subedges, numedges, "subedges")
    E = _subgraph._checked_set(E, descr.nedges, "subedges")     # the guide's rules
    xp = backend.xp
    inv = xp.empty(descr.nedges, dtype=np.int64)
    inv[descr._ids.to_csr(device=True)[2]] = xp.arange(descr.nedges, dtype=np.int64)
    S, V, _ = _subgraph.extract_subgraph_by_edge(descr._ids, xp.sort(inv[E]), with_ids=True)
    _install_sub(handle, descr, subdescr, S, V, S.to_csr(device=True)[2])


def _install_sub(handle, descr, subdescr, S, V, E):
    _descr(subdescr, topology=False)
    if subdescr.topology is not None:
        _fail(InvalidValue, INVALID_VALUE, "the subgraph descriptor must be empty")
    ptr, idx, _ = S.to_csr(device=True)
    k, m = S.nrows, S.nvals
    if descr.ttype == CSR_32:
        topo = _topology.CSRTopology(k, m, ptr.astype(np.int32), idx.astype(np.int32))
    else:
        topo = _topology.CSCTopology(k, m, ptr.astype(np.int32), idx.astype(np.int32))
    _install(handle, subdescr, descr.ttype, topo, descr, vertices=V, edges=E)


def _first(a, count, what):
    arr = backend.xp.asarray(a)
    if count is not None:
        if int(count) <= 0:
            _fail(InvalidValue, INVALID_VALUE, f"the number of {what} must be positive")
        arr = arr[:int(count)]
    return arr


# ------------------------------------------------------------------------------ algorithms
def _weights(descr, weight_index):
    return descr.edge_data[_index(weight_index, len(descr.edge_data or []), "weight_index")]


def _vertex_set(descr, i, what):
    return _index(i, len(descr.vertex_data or []), what)


def _source(descr, source_vert):
    s = _scalar_arg(source_vert, "source_vert")
    if not isinstance(s, numbers.Integral) or not 0 <= s < descr.nvertices:
        _fail(InvalidValue, INVALID_VALUE, f"source vertex {s!r} is not in [0, {descr.nvertices})")
    return int(s)


def _store(descr, i, values):
    npt = _TYPES[descr.dtype].np_type
    descr.vertex_data[i] = backend.xp.asarray(values).astype(npt)


@_api
def sssp(handle, descr, weight_index, source_vert, sssp_index):
    """nvgraphSssp (CSC): VertexData[sssp_index] = the shortest distances (FLT_MAX unreached)."""
    _single_source(handle, descr, weight_index, source_vert, sssp_index, "sssp_index",
                   _sssp, "SSSP")


@_api
def widest_path(handle, descr, weight_index, source_vert, widest_path_index):
    """nvgraphWidestPath (CSC): VertexData[widest_path_index] = the widths (-FLT_MAX unreached)."""
    _single_source(handle, descr, weight_index, source_vert, widest_path_index,
                   "widest_path_index", _widest_path, "widest path")


def _single_source(handle, descr, weight_index, source_vert, out_index, out_name, algorithm,
                   what):
    """The checks and data flow SSSP and widest path share: CSC topology, float weights,
    VertexData[out_index] = algorithm(graph, source)."""
    _handle(handle)
    _descr(descr, values=True)
    _require_topology(descr, (CSC_32,), what=what)
    _require_type(descr, (CUDA_R_32F, CUDA_R_64F), what)
    w = _weights(descr, weight_index)
    out = _vertex_set(descr, out_index, out_name)
    source = _source(descr, source_vert)
    _store(descr, out, algorithm(_graph(descr, w), source))


@_api
def srspmv(handle, descr, weight_index, alpha, x_index, beta, y_index, SR):
    """nvgraphSrSpmv (CSR): VertexData[y] = alpha ⊗ (A ⊕.⊗ VertexData[x]) ⊕ beta ⊗ VertexData[y]."""
    _handle(handle)
    _descr(descr, values=True)
    _require_topology(descr, (CSR_32,), what="SrSpmv")
    _require_type(descr, (CUDA_R_32F, CUDA_R_64F), "SrSpmv")
    if SR not in SEMIRINGS:
        _fail(InvalidValue, INVALID_VALUE, f"unknown semiring {SR!r}")
    w = _weights(descr, weight_index)
    x = descr.vertex_data[_vertex_set(descr, x_index, "x_index")]
    yi = _vertex_set(descr, y_index, "y_index")
    a, b = _scalar_arg(alpha, "alpha"), _scalar_arg(beta, "beta")
    y = _srspmv(_graph(descr, w), x, SR, alpha=a, beta=b, y=descr.vertex_data[yi])
    _store(descr, yi, y.to_dense(device=True))


@_api
def pagerank(handle, descr, weight_index, alpha, bookmark_index, has_guess, pagerank_index,
             tolerance=0.0, max_iter=0):
    """nvgraphPagerank (CSC; the edge set holds the transition probabilities). On
    NOT_CONVERGED the last iterate is stored before the error is raised, as nvGRAPH does."""
    _handle(handle)
    _descr(descr, values=True)
    _require_topology(descr, (CSC_32,), what="PageRank")
    if has_guess not in (0, 1):
        _fail(InvalidValue, INVALID_VALUE, "has_guess must be 0 or 1")
    _require_type(descr, (CUDA_R_32F, CUDA_R_64F), "PageRank")
    w = _weights(descr, weight_index)
    bm = descr.vertex_data[_vertex_set(descr, bookmark_index, "bookmark_index")]
    out = _vertex_set(descr, pagerank_index, "pagerank_index")
    guess = descr.vertex_data[out] if has_guess else None
    try:
        pr = _pagerank(_graph(descr, w), _scalar_arg(alpha, "alpha"), bookmark=bm,
                                guess=guess, tolerance=tolerance, max_iter=max_iter,
                                normalize=False)
    except NotConverged as err:
        if err.result is not None:  # (a non-finite residual leaves no iterate worth storing)
            _store(descr, out, err.result)
        raise
    _store(descr, out, pr)


@_api
def triangle_count(handle, descr):
    """nvgraphTriangleCount (CSR or CSC, lower triangle): the number of triangles."""
    _handle(handle)
    _descr(descr)
    _require_topology(descr, (CSR_32, CSC_32), what="triangle counting")
    return _triangle_count(descr._ids)


@_api
def spectral_clustering(handle, descr, weight_index, params, clustering=None, eig_vals=None,
                        eig_vects=None):
    """nvgraphSpectralClustering (CSR): (clustering, eig_vals, eig_vects), filling the arrays
    given. eig_vects is flat: row-major (vertex by vertex) for modularity maximisation,
    column-major (eigenvector by eigenvector) for the balanced cuts, as the guide stores them."""
    _handle(handle)
    _descr(descr, values=True)
    _require_topology(descr, (CSR_32,), GRAPH_TYPE_NOT_SUPPORTED, "spectral clustering")
    _require_type(descr, (CUDA_R_32F, CUDA_R_64F), "spectral clustering")
    w = _weights(descr, weight_index)
    p = params
    labels, vals, Y = _spectral.spectral_clustering(
        _graph(descr, w), p.n_clusters, p.n_eig_vects, p.algorithm, p.evs_tolerance,
        p.evs_max_iter, p.kmean_tolerance, p.kmean_max_iter)
    modularity = _spectral._name(p.algorithm, _spectral.ALGORITHMS, "algorithm") == \
        MODULARITY_MAXIMIZATION
    flat = Y.reshape(-1) if modularity else Y.T.reshape(-1)
    return (_copy_out(labels, clustering), _copy_out(vals, eig_vals),
            _copy_out(flat, eig_vects))


@_api
def analyze_clustering(handle, descr, weight_index, n_clusters, clustering, metric):
    """nvgraphAnalyzeClustering (CSR): the score of ``clustering`` under ``metric``."""
    _handle(handle)
    _descr(descr, values=True)
    _require_topology(descr, (CSR_32,), GRAPH_TYPE_NOT_SUPPORTED, "clustering analysis")
    _require_type(descr, (CUDA_R_32F, CUDA_R_64F), "clustering analysis")
    w = _weights(descr, weight_index)
    if int(n_clusters) < 2 or int(n_clusters) > descr.nvertices:
        _fail(InvalidValue, INVALID_VALUE, "n_clusters must lie in [2, nvertices]")
    return _spectral.analyze_clustering(_graph(descr, w), n_clusters,
                                        backend.xp.asarray(clustering), metric)


# ------------------------------------------------------------------------------ traversal
@_api
def traversal_parameter_init(param=None):
    """nvgraphTraversalParameterInit: defaults (alpha 15, beta 18, directed, nothing set)."""
    fresh = TraversalParameter()
    if param is None:
        return fresh
    param.__dict__.update(fresh.__dict__)
    return param


def _setter(field):
    @_api
    def set_(param, value):
        if not isinstance(param, TraversalParameter):
            _fail(InvalidValue, INVALID_VALUE, "not a traversal parameter struct")
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, numbers.Integral) or value < 0:
            _fail(InvalidValue, INVALID_VALUE, f"{field} must be a non-negative integer")
        setattr(param, field, int(value))
    set_.__name__ = f"traversal_set_{field}"
    return set_


def _getter(field):
    @_api
    def get_(param):
        if not isinstance(param, TraversalParameter):
            _fail(InvalidValue, INVALID_VALUE, "not a traversal parameter struct")
        return getattr(param, field)
    get_.__name__ = f"traversal_get_{field}"
    return get_


traversal_set_distances_index = _setter("distances_index")
traversal_get_distances_index = _getter("distances_index")
traversal_set_predecessors_index = _setter("predecessors_index")
traversal_get_predecessors_index = _getter("predecessors_index")
traversal_set_edge_mask_index = _setter("edge_mask_index")
traversal_get_edge_mask_index = _getter("edge_mask_index")
traversal_set_undirected_flag = _setter("undirected")
traversal_get_undirected_flag = _getter("undirected")
traversal_set_alpha = _setter("alpha")
traversal_get_alpha = _getter("alpha")
traversal_set_beta = _setter("beta")
traversal_get_beta = _getter("beta")


@_api
def traversal(handle, descr, traversal_type, source_vert, params):
    """nvgraphTraversal (CSR, int data): BFS distances and predecessors into the vertex sets
    the parameters name."""
    _handle(handle)
    _descr(descr, values=True)
    _require_topology(descr, (CSR_32,), what="traversal")
    _require_type(descr, (CUDA_R_32I,), "traversal")
    if traversal_type != TRAVERSAL_BFS:
        _fail(InvalidValue, INVALID_VALUE, f"unknown traversal {traversal_type!r}")
    if not isinstance(params, TraversalParameter):
        _fail(InvalidValue, INVALID_VALUE, "params must come from traversal_parameter_init")
    source = _source(descr, source_vert)
    nsets = len(descr.vertex_data)
    di = None if params.distances_index is None else _index(params.distances_index, nsets,
                                                             "distances index")
    pi = None if params.predecessors_index is None else _index(params.predecessors_index,
                                                                nsets, "predecessors index")
    mask = None
    if params.edge_mask_index is not None:
        perm = descr._ids.to_csr(device=True)[2]
        mask = _weights(descr, params.edge_mask_index)[perm]
    dist, pred = _bfs(_stored(descr, None), source, undirected=bool(params.undirected),
                          edge_mask=mask, alpha=params.alpha, beta=params.beta)
    if di is not None:
        _store(descr, di, dist)
    if pi is not None:
        _store(descr, pi, pred)
