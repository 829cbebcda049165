"""Edge lookup by (edge id, edge type) (cuGraph's build_edge_id_and_type_to_src_dst_lookup_map,
lookup_endpoints_from_edge_ids_and_single_type / _and_types).

Formulation: the map (type, id) -> (src, dst) over A's CSR entries, stored as one sorted int64
key per edge, key = rank(type)·(max id + 1) + id, beside the endpoints in key order; a lookup
is a searchsorted of the query keys. Pairs not present give -1 (invalid_vertex_id) for both
endpoints. (type, id) pairs must be unique.
"""
from collections import namedtuple

import numpy as np

from grblas_gpu import Matrix, backend
from grblas_gpu.errors import InvalidValue

from .sampling_common import check_range, combined_key, int_array, per_edge, scalar

xp = backend.xp

__all__ = ["EdgeLookup", "build_edge_id_and_type_lookup", "lookup_endpoints",
           "INVALID_VERTEX_ID"]

INVALID_VERTEX_ID = -1

EdgeLookup = namedtuple("EdgeLookup", "types id_bound keys src dst")


def build_edge_id_and_type_lookup(A, edge_ids, edge_types=None):
    """The lookup map of A's edges by (edge id, edge type); edge_ids and edge_types are
    1:1 with A's CSR entries (edge_types None: every edge has type 0)."""
    if not isinstance(A, Matrix):
        raise InvalidValue(f"A must be a grblas_gpu Matrix, got {type(A).__name__}")
    ids = per_edge(edge_ids, A.nvals, "edge_ids", numeric=True)
    if ids is None:
        raise InvalidValue("edge_ids is required")
    ids = int_array(ids, "edge_ids")
    check_range(ids, 0, 2**62, "edge id")
    types = per_edge(edge_types, A.nvals, "edge_types", numeric=True)
    types = int_array(types, "edge_types") if types is not None else \
        xp.zeros(A.nvals, dtype=np.int64)
    check_range(types, 0, 2**31, "edge type")
    distinct = xp.unique(types)
    bound = int(scalar(ids.max())) + 1 if len(ids) else 1
    keys = combined_key([(xp.searchsorted(distinct, types), len(distinct)), (ids, bound)])
    order = xp.argsort(keys, kind="stable")
    keys = keys[order]
    if len(keys) > 1 and bool(scalar((keys[1:] == keys[:-1]).any())):
        raise InvalidValue("(edge id, edge type) pairs must be unique")
    rows, cols, _ = A.to_coo(device=True, values=False)
    return EdgeLookup(distinct, bound, keys, rows.astype(np.int64)[order],
                      cols.astype(np.int64)[order])


def lookup_endpoints(lookup, edge_ids, edge_type_or_types):
    """(src, dst) int64 arrays for each queried edge id, of one edge type (a scalar) or of
    its own type (an array as long as edge_ids); -1 where the pair is not in the map."""
    if not isinstance(lookup, EdgeLookup):
        raise InvalidValue("lookup must come from build_edge_id_and_type_lookup")
    ids = int_array(edge_ids, "edge_ids")
    ndim = edge_type_or_types.ndim if hasattr(edge_type_or_types, "ndim") else \
        np.ndim(edge_type_or_types)
    if ndim == 0:
        types = xp.full(len(ids), int(edge_type_or_types), dtype=np.int64)
    else:
        types = int_array(edge_type_or_types, "edge types")
        if len(types) != len(ids):
            raise InvalidValue(f"{len(types)} edge types for {len(ids)} edge ids")
    rank = xp.searchsorted(lookup.types, types)
    rank_c = xp.minimum(rank, max(len(lookup.types) - 1, 0))
    ok = (ids >= 0) & (ids < lookup.id_bound) & (rank < len(lookup.types))
    if len(lookup.types):
        ok &= lookup.types[rank_c] == types
    q = rank_c * lookup.id_bound + xp.where(ok, ids, 0)
    pos = xp.minimum(xp.searchsorted(lookup.keys, q), max(len(lookup.keys) - 1, 0))
    if len(lookup.keys):
        ok &= lookup.keys[pos] == q
        src = xp.where(ok, lookup.src[pos], INVALID_VERTEX_ID)
        dst = xp.where(ok, lookup.dst[pos], INVALID_VERTEX_ID)
    else:
        src = dst = xp.full(len(ids), INVALID_VERTEX_ID, dtype=np.int64)
    return src.astype(np.int64), dst.astype(np.int64)
