"""Neighbourhood sampling, cuGraph style (homogeneous / heterogeneous, uniform / biased).

Formulation. A is n×n in CSR (row = source; its stored columns are the out-neighbours);
per-edge arrays (weights, edge ids, edge types, biases) are 1:1 with A's CSR entries. T edge
types (T = 1 when homogeneous), H hops, fan_out[h·T + t] picks per source, hop and type.

    F_0 = multiset of (label, v) over the starting vertices       (sparse Vector, size L·n,
                                                                    values = multiplicities)
    for h in 0 .. H-1:
        for t in 0 .. T-1, for every occurrence of v in F_h:
            pick k = fan_out[h·T + t] of v's type-t out-edges:
              k < 0: all of them;  uniform or ∝ bias;  with replacement: k draws (none if v
              has no eligible edge);  without: min(k, #eligible) distinct edges
        D_h = the picked destinations (multiset of (label, dst))
        F_{h+1} = D_h                                   default
                = D_h ⊎ F_h                             carry_over (so every earlier frontier)
                = D_h ⟨¬struct(U_h)⟩,  U_h = F_0 ∪ … ∪ F_h      exclude
        dedupe_sources: F_{h+1} = struct(F_{h+1})       (each (label, v) once)

Eligible edges: all of the type's edges; with biases, those of positive bias (bias 0 is never
picked), except k < 0, which takes every edge as the reference does. Output (a SampleResult):
one row per picked edge — src, dst, and (when asked) weight, edge_id, edge_type, hop; with
labels, rows are sorted by label (stable, so hop order holds within a label), ``label`` holds
the distinct labels present, ascending, and ``offsets`` (int64, len(label) + 1) where each
label's rows begin. One process: label_to_output_comm_rank is checked (every label must map
to rank 0) and every row stays here.

Cached properties: none; the CSR arrays are read as they are. Heterogeneous sampling sorts
the edges by (row, type) once per call (O(nvals log nvals)); biased sampling builds
per-segment prefix sums once per call (O(nvals)). Random selection is the engine's
grblas_gpu.sampling (counter-based RNG, Floyd's algorithm, inverse CDF,
Efraimidis–Spirakis keys); a seed reproduces the sample on the same backend.

References: cuGraph sampling_functions.hpp (neighbor_sample, prepare_next_frontier);
Hamilton, Ying & Leskovec, "Inductive representation learning on large graphs" (GraphSAGE),
NeurIPS 2017.

NOTE: heterogeneous fan-outs follow the reference's documented meaning (a negative value
takes every neighbour); a fan-out of 0 picks nothing (the reference's implementation treats
0 like a negative value). The next frontier is built from every edge type's picks.
"""
from collections import namedtuple

import numpy as np

import grblas_gpu as gg
from grblas_gpu import INT64, Matrix, Vector, backend
from grblas_gpu import sampling as rk
from grblas_gpu.errors import DimensionMismatch, InvalidValue

from ._common import check_flag
from .sampling_common import (check_offsets, check_range, int_array, per_edge, scalar, seed_of,
                              whole_number)

xp = backend.xp

__all__ = ["SampleResult", "homogeneous_neighbor_sample", "heterogeneous_neighbor_sample",
           "uniform_neighbor_sample", "biased_neighbor_sample"]

SampleResult = namedtuple("SampleResult", "src dst weight edge_id edge_type hop label offsets")

# the rest of issue 7, so that ``from algorithms.sampling import *`` brings everything
from . import sampling_lookup, sampling_negative, sampling_renumber  # noqa: E402
from .sampling_lookup import *  # noqa: E402,F401,F403
from .sampling_negative import *  # noqa: E402,F401,F403
from .sampling_renumber import *  # noqa: E402,F401,F403

__all__ += sampling_renumber.__all__ + sampling_lookup.__all__ + sampling_negative.__all__

_BEHAVIORS = ("default", "carry_over", "exclude")

_Adjacency = namedtuple("_Adjacency", "ptr perm ntypes")


# ---------------------------------------------------------------------- basic entry points
def homogeneous_neighbor_sample(A, starting_vertices, fan_out, *, biases=None, weights=None,
                                edge_ids=None, edge_types=None, starting_vertex_labels=None,
                                label_to_output_comm_rank=None, with_replacement=True,
                                prior_sources_behavior="default", dedupe_sources=False,
                                return_hops=True, seed=None):
    """Sample fan_out[h] out-edges per source at hop h (uniform, or ∝ ``biases``) from
    ``starting_vertices``; see the module docstring. ``starting_vertex_labels``: one integer
    per starting vertex; ``label_to_output_comm_rank``: rank per label value (all 0 here).
    ``prior_sources_behavior``: 'default', 'carry_over' or 'exclude'. Returns SampleResult."""
    req = _request(A, starting_vertices, fan_out, 1, biases=biases, weights=weights,
                   edge_ids=edge_ids, edge_types=edge_types, typed=False,
                   labels=starting_vertex_labels, label_ranks=label_to_output_comm_rank,
                   behavior=prior_sources_behavior, seed=seed)
    return _sample(req, with_replacement=check_flag(with_replacement, "with_replacement"),
                   dedupe=check_flag(dedupe_sources, "dedupe_sources"),
                   return_hops=check_flag(return_hops, "return_hops"))


def heterogeneous_neighbor_sample(A, starting_vertices, fan_out, num_edge_types, *, edge_types,
                                  biases=None, weights=None, edge_ids=None,
                                  starting_vertex_labels=None, label_to_output_comm_rank=None,
                                  with_replacement=True, prior_sources_behavior="default",
                                  dedupe_sources=False, return_hops=True, seed=None):
    """As homogeneous_neighbor_sample, with fan_out[h * num_edge_types + t] picks among each
    source's edges of type t (``edge_types``: per edge, in [0, num_edge_types))."""
    req = _request(A, starting_vertices, fan_out, num_edge_types, biases=biases,
                   weights=weights, edge_ids=edge_ids, edge_types=edge_types, typed=True,
                   labels=starting_vertex_labels, label_ranks=label_to_output_comm_rank,
                   behavior=prior_sources_behavior, seed=seed)
    return _sample(req, with_replacement=check_flag(with_replacement, "with_replacement"),
                   dedupe=check_flag(dedupe_sources, "dedupe_sources"),
                   return_hops=check_flag(return_hops, "return_hops"))


def uniform_neighbor_sample(A, starting_vertices, fan_out, *, weights=None, edge_ids=None,
                            edge_types=None, starting_vertex_label_offsets=None,
                            label_to_output_comm_rank=None, return_hops=True,
                            with_replacement=True, prior_sources_behavior="default",
                            dedupe_sources=False, seed=None):
    """Deprecated form (use homogeneous_neighbor_sample). ``starting_vertex_label_offsets``:
    CSR offsets over starting_vertices, label i = starting_vertices[off[i]:off[i+1]];
    ``label_to_output_comm_rank``: (labels ascending, ranks)."""
    labels, ranks = _deprecated_labels(starting_vertices, starting_vertex_label_offsets,
                                       label_to_output_comm_rank)
    return homogeneous_neighbor_sample(
        A, starting_vertices, fan_out, weights=weights, edge_ids=edge_ids,
        edge_types=edge_types, starting_vertex_labels=labels, label_to_output_comm_rank=ranks,
        with_replacement=with_replacement, prior_sources_behavior=prior_sources_behavior,
        dedupe_sources=dedupe_sources, return_hops=return_hops, seed=seed)


def biased_neighbor_sample(A, biases, starting_vertices, fan_out, *, weights=None,
                           edge_ids=None, edge_types=None, starting_vertex_label_offsets=None,
                           label_to_output_comm_rank=None, return_hops=True,
                           with_replacement=True, prior_sources_behavior="default",
                           dedupe_sources=False, seed=None):
    """Deprecated form of homogeneous_neighbor_sample with ``biases`` (see
    uniform_neighbor_sample for the label arguments)."""
    labels, ranks = _deprecated_labels(starting_vertices, starting_vertex_label_offsets,
                                       label_to_output_comm_rank)
    return homogeneous_neighbor_sample(
        A, starting_vertices, fan_out, biases=biases, weights=weights, edge_ids=edge_ids,
        edge_types=edge_types, starting_vertex_labels=labels, label_to_output_comm_rank=ranks,
        with_replacement=with_replacement, prior_sources_behavior=prior_sources_behavior,
        dedupe_sources=dedupe_sources, return_hops=return_hops, seed=seed)


# ---------------------------------------------------------------------- validation
_Request = namedtuple("_Request", "A n seeds fan ntypes biases weights edge_ids edge_types "
                                  "typed labels behavior seed")


def _request(A, starting_vertices, fan_out, num_edge_types, *, biases, weights, edge_ids,
             edge_types, typed, labels, label_ranks, behavior, seed):
    if not isinstance(A, Matrix):
        raise InvalidValue(f"A must be a grblas_gpu Matrix, got {type(A).__name__}")
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"sampling needs a square matrix, got {A.shape}")
    n, nvals = A.nrows, A.nvals
    seeds = int_array(starting_vertices, "starting_vertices")
    check_range(seeds, 0, n, "starting vertex")
    ntypes = whole_number(num_edge_types, "num_edge_types", 1)
    fan = _fan_out(fan_out, ntypes)
    biases = per_edge(biases, nvals, "biases", numeric=True)
    if biases is not None and biases.size and not bool(scalar(
            ((biases >= 0) & xp.isfinite(biases.astype(np.float64))).all())):
        raise InvalidValue("biases must be finite and non-negative")
    weights = per_edge(weights, nvals, "weights", numeric=True)
    edge_ids = per_edge(edge_ids, nvals, "edge_ids", numeric=True)
    edge_types = per_edge(edge_types, nvals, "edge_types", numeric=True)
    if typed:
        if edge_types is None:
            raise InvalidValue("heterogeneous sampling needs edge_types")
        if edge_types.size and edge_types.dtype.kind not in "iu":
            raise InvalidValue(f"edge_types must be integers, got {edge_types.dtype}")
        check_range(edge_types.astype(np.int64), 0, ntypes, "edge type")
    if labels is not None:
        labels = int_array(labels, "starting_vertex_labels")
        if len(labels) != len(seeds):
            raise InvalidValue(f"starting_vertex_labels has {len(labels)} entries for "
                               f"{len(seeds)} starting vertices")
    _check_ranks(label_ranks, labels)
    if not isinstance(behavior, str) or behavior.lower() not in _BEHAVIORS:
        raise InvalidValue(f"prior_sources_behavior must be one of {_BEHAVIORS}, got {behavior!r}")
    return _Request(A, n, seeds, fan, ntypes, biases, weights, edge_ids, edge_types, typed,
                    labels, behavior.lower(), seed_of(seed))


def _fan_out(fan_out, ntypes):
    """fan_out as a list of Python ints (it lives on the host, as in the reference)."""
    if fan_out is None:
        raise InvalidValue("fan_out is required")
    fan = np.asarray(fan_out) if isinstance(fan_out, (list, tuple)) else backend.to_host(fan_out)
    if fan.ndim != 1 or fan.size == 0:
        raise InvalidValue("fan_out must be a non-empty sequence of integers")
    if fan.dtype.kind not in "iu":
        raise InvalidValue(f"fan_out must hold integers, got {fan.dtype}")
    if fan.size % ntypes:
        raise InvalidValue(f"fan_out has {fan.size} entries, not a multiple of "
                           f"num_edge_types={ntypes}")
    return [int(k) for k in fan]


def _check_ranks(label_ranks, labels):
    """One process: every label must go to rank 0 (the map is checked, nothing moves)."""
    if label_ranks is None:
        return
    if labels is None:
        raise InvalidValue("label_to_output_comm_rank needs starting_vertex_labels")
    ranks = int_array(label_ranks, "label_to_output_comm_rank")
    check_range(labels, 0, len(ranks), "label (index into label_to_output_comm_rank)")
    check_range(ranks, 0, 1, "output rank (one process)")


def _deprecated_labels(starting_vertices, label_offsets, label_to_rank):
    """Per-vertex labels from CSR label offsets, and the (labels, ranks) map as a rank per
    label index, for the deprecated forms."""
    if label_offsets is None:
        if label_to_rank is not None:
            raise InvalidValue("label_to_output_comm_rank needs starting_vertex_label_offsets")
        return None, None
    nseeds = len(int_array(starting_vertices, "starting_vertices"))
    off = int_array(label_offsets, "starting_vertex_label_offsets")
    check_offsets(off, nseeds, "starting_vertex_label_offsets")
    labels = xp.searchsorted(off[1:], xp.arange(nseeds, dtype=np.int64), side="right")
    if label_to_rank is None:
        return labels, None
    if not (isinstance(label_to_rank, (tuple, list)) and len(label_to_rank) == 2):
        raise InvalidValue("label_to_output_comm_rank must be a (labels, ranks) pair")
    keys = int_array(label_to_rank[0], "label_to_output_comm_rank labels")
    ranks = int_array(label_to_rank[1], "label_to_output_comm_rank ranks")
    if len(keys) != len(ranks):
        raise InvalidValue("label_to_output_comm_rank: labels and ranks differ in length")
    if len(keys) > 1 and bool(scalar((keys[1:] <= keys[:-1]).any())):
        raise InvalidValue("label_to_output_comm_rank labels must be sorted ascending")
    nlabels = len(off) - 1
    wanted = xp.arange(nlabels, dtype=np.int64)
    if len(keys):
        pos = xp.minimum(xp.searchsorted(keys, wanted), len(keys) - 1)
        found = keys[pos] == wanted
    else:
        found = xp.zeros(nlabels, dtype=bool)
    if nlabels and not bool(scalar(found.all())):
        raise InvalidValue("label_to_output_comm_rank does not cover every label")
    check_range(ranks, 0, 1, "output rank (one process)")
    return labels, xp.zeros(nlabels, dtype=np.int64)


# ---------------------------------------------------------------------- the algorithm
def _sample(req, *, with_replacement, dedupe, return_hops):
    n, T = req.n, req.ntypes
    H = len(req.fan) // T
    adj = _adjacency(req.A, req.edge_types if req.typed else None, T)
    table = None
    if req.biases is not None:
        b = req.biases if adj.perm is None else req.biases[adj.perm]
        table = rk.bias_table(adj.ptr, b)
    if req.labels is not None:
        label_values, label_idx = xp.unique(req.labels, return_inverse=True)
        start = label_idx.reshape(-1).astype(np.int64) * n + req.seeds
    else:
        label_values, start = None, req.seeds  # one label: a key is its vertex
    L = max(len(label_values) if label_values is not None else 1, 1)
    size = L * n
    # by default F_{h+1} = D_h is read only as its occurrences in key order, which are the
    # sorted keys of D_h: no multiset Vector is made
    plain = req.behavior == "default" and not dedupe
    if plain:
        keys = xp.sort(start)                               # F_0's occurrences
    else:
        F = _multiset(start, size)                          # F_0 = the starting multiset
    used = Vector(INT64, size) if req.behavior == "exclude" else None
    _, indices, _ = req.A.to_csr(device=True, values=False)
    rows = []  # (hop, CSR edge positions, source keys, destinations)
    for h in range(H):
        if not plain:
            # one slot per occurrence of (label, v) in F_h (each once in a deduped frontier)
            keys = _occurrences(F, counted=not (dedupe and h > 0))
        if len(keys) == 0:
            break
        v = keys if label_values is None else keys % n
        picked = []
        for t in range(T):
            k = req.fan[h * T + t]
            key = rk.stream_key(req.seed, h * T + t)  # one random stream per (hop, type)
            # each slot picks k of A(v, :)'s type-t entries (gathering its CSR segment)
            edge, slot_of = _pick(adj, table, v, t, k, key, with_replacement)
            src, dst = keys[slot_of], indices[edge]
            rows.append((h, edge, src, dst))
            # D_h gets (label, dst) for every pick
            picked.append(dst if label_values is None else
                          (src // n) * n + dst.astype(np.int64))
        if h + 1 < H:
            D = _cat(picked)
            if plain:
                keys = xp.sort(D)                           # F_{h+1} = D_h, occurrences
            else:
                F, used = _next_frontier(F, D, used, req.behavior, dedupe, size)
    return _assemble(req, rows, label_values, return_hops)


def _cat(parts):
    return parts[0] if len(parts) == 1 else xp.concatenate(parts)


def _adjacency(A, edge_types, T):
    """Candidate segments: row v's type-t edges are positions ptr[v·T+t] .. ptr[v·T+t+1] of
    an edge order; perm maps that order to CSR positions (None: the CSR order itself, and
    ptr A's own offsets, of its index type)."""
    if edge_types is None or T == 1:
        indptr, _, _ = A.to_csr(device=True, values=False)
        return _Adjacency(indptr, None, 1)
    rows, _, _ = A.to_coo(device=True, values=False)
    key = rows.astype(np.int64) * T + edge_types.astype(np.int64)
    perm = xp.argsort(key, kind="stable")
    ptr = xp.searchsorted(key[perm], xp.arange(A.nrows * T + 1, dtype=np.int64), side="left")
    return _Adjacency(ptr.astype(np.int64), perm.astype(np.int64), T)


def _pick(adj, table, v, t, k, key, with_replacement):
    """Pick k type-t edges for every source occurrence v: (CSR edge positions, slot of each)."""
    seg = v if adj.ntypes == 1 else v.astype(np.int64) * adj.ntypes + t
    if table is None and k >= 0:
        # with replacement k picks (none from an empty segment), without min(deg, k)
        pos, slot_of = rk.select_uniform_rows(adj.ptr, seg, k, key,
                                              with_replacement=with_replacement)
    else:
        starts = adj.ptr[seg]
        degs = adj.ptr[seg + 1] - starts
        if k < 0:  # every neighbour, as the reference's gather_one_hop
            pos, slot_of = _uniform(starts, degs, degs, xp.ones(len(v), dtype=bool), key,
                                    False)
        else:
            npos = table.npos[seg]
            counts = xp.where(npos > 0, k, 0) if with_replacement else xp.minimum(npos, k)
            pos, slot_of = rk.select_biased(table, seg, counts, key,
                                            with_replacement=with_replacement)
    edge = pos if adj.perm is None else adj.perm[pos]
    return edge, slot_of


def _uniform(starts, degs, counts, take_all, key, with_replacement):
    return rk.select_uniform(starts, degs, counts, key, with_replacement=with_replacement,
                             take_all=take_all)


def _multiset(keys, size):
    """A sparse INT64 Vector: index = key, value = how many times it occurs."""
    keys = xp.sort(keys.astype(np.int64))
    first = xp.ones(len(keys), dtype=bool)
    if len(keys) > 1:
        first[1:] = keys[1:] != keys[:-1]
    starts = xp.nonzero(first)[0]
    uniq = keys[starts]
    counts = xp.diff(xp.concatenate([starts, xp.asarray([len(keys)], dtype=starts.dtype)]))
    return Vector.from_coo(uniq, counts.astype(np.int64), size=size, dtype=INT64, trusted=True)


def _occurrences(F, counted):
    """The frontier's keys, each repeated by its multiplicity when ``counted`` (F's values
    are the multiplicities; otherwise F is a set and its values are not read)."""
    idx, vals = F.to_coo(device=True, values=counted)
    idx = idx.astype(np.int64)
    if vals is None or len(idx) == 0:
        return idx
    return idx[rk.repeat_index(vals)]


def _next_frontier(F, dst_keys, used, behavior, dedupe, size):
    """F_{h+1} from F_h and the picked destinations (see the module docstring)."""
    D = _multiset(dst_keys, size)                       # D_h, values = multiplicities
    if behavior == "carry_over":
        N = Vector(INT64, size)
        gg.ewise_add(N, D, F, "plus")                   # N = D ⊎ F_h
    elif behavior == "exclude":
        U = Vector(INT64, size)
        gg.ewise_add(U, used, F, "plus")                # U_h = U_{h-1} ∪ F_h
        N = Vector(INT64, size)
        gg.apply(N, D, "identity", mask=~U.S)          # N⟨¬struct(U_h)⟩ = D
        used = U
    else:
        N = D
    if dedupe:
        idx, _ = N.to_coo(device=True, values=False)
        N = Vector.from_coo(idx, 1, size=size, dtype=INT64, trusted=True)  # N = struct(N)
    return N, used


def _assemble(req, rows, label_values, return_hops):
    n = req.n
    itype = req.A.index_dtype
    if rows:
        edge = _cat([r[1] for r in rows]).astype(np.int64, copy=False)
        keys = _cat([r[2] for r in rows])
        dst = _cat([r[3] for r in rows])
        hop = (_cat([xp.full(len(r[1]), r[0], dtype=np.int32) for r in rows])
               if return_hops else None)
    else:
        edge = keys = dst = xp.zeros(0, dtype=np.int64)
        hop = xp.zeros(0, dtype=np.int32) if return_hops else None
    label = offsets = None
    if label_values is not None:
        lab = keys // n
        order = xp.argsort(lab, kind="stable")  # by label; hop order kept within a label
        edge, keys, dst, lab = edge[order], keys[order], dst[order], lab[order]
        hop = None if hop is None else hop[order]
        first = xp.ones(len(lab), dtype=bool)
        if len(lab) > 1:
            first[1:] = lab[1:] != lab[:-1]
        starts = xp.nonzero(first)[0].astype(np.int64)
        label = label_values[lab[starts]].astype(np.int32)
        offsets = xp.concatenate([starts, xp.asarray([len(lab)], dtype=np.int64)])
        keys = keys % n
    src = keys.astype(itype, copy=False)
    dst = dst.astype(itype, copy=False)
    pick = (lambda a: None if a is None else a[edge])
    return SampleResult(src, dst, pick(req.weights), pick(req.edge_ids), pick(req.edge_types),
                        hop, label, offsets)
