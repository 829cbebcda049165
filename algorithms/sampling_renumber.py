"""Post-processing of sampled edge lists: sort, renumber, compress (cuGraph's
sort_sampled_edgelist, renumber_and_sort_sampled_edgelist,
renumber_and_compress_sampled_edgelist, heterogeneous_renumber_and_sort_sampled_edgelist).

Formulation (major = src if src_is_major else dst; minor = the other end; labels come from
CSR offsets over the edges, ignored when there is one label; hops are used when given).

Renumbering, per label (and per vertex type, heterogeneous): every vertex gets the smallest
(hop, flag) pair among its appearances, flag major (0) < minor (1); seed vertices count as
(0, major); without hops the pair is (0, 0) for majors and seeds, (0, 1) for minor-only
vertices. Vertices are numbered 0, 1, ... in increasing (pair, vertex id) order; the
renumber map lists the original ids in that order, labels (label, type) one after another.
Heterogeneous edge ids are renumbered the same way per (label, edge type), ordered by
(smallest hop, edge id).

Sorting: by ((label), (edge type, heterogeneous only), (hop), major, minor).

Compression (renumber_and_compress): the sorted edges become a CSR (src major) / CSC; per
label, or per (label, hop) with compress_per_hop. Doubly compressed (DCSR/DCSC): one row per
distinct ((label), (hop), major), with ``majors`` naming it. Otherwise each (label, hop)
gets rows 0 .. N-1 of its own, N = 1 + the largest vertex id it must address: per hop, the
largest of this hop's majors (and seeds, hop 0) and of every earlier hop's majors and
minors; not per hop, the label's rows split at the first major of each next hop (the
label's largest major or seed ends the last hop). One offsets array covers everything (its
entries are positions in ``minors``); label_hop_offsets[l·H + h] is where (l, h)'s rows
start in it.

Ties the reference leaves arbitrary (equal (hop, flag) pairs) are broken by vertex id.

References: cuGraph sampling_functions.hpp and sampling_post_processing_impl.cuh.

NOTE: the reference documents the heterogeneous edge-id map offsets as num_labels +
num_edge_types + 1 long; they are indexed by (label, edge type), so they are
num_labels · num_edge_types + 1 long here, as in the reference's implementation.
NOTE: without compress_per_hop, hop N + 1's majors must all be renumbered above every earlier
hop's majors, seeds included (the reference's precondition: "majors in hop N should not appear
in any of the previous hops", seeds counting as hop-0 majors; true when later hops only expand
earlier hops' minors, e.g. prior_sources_behavior 'exclude'); InvalidValue otherwise, since
label_hop_offsets could not split the rows at hop boundaries. compress_per_hop has no such
precondition.
"""
from collections import namedtuple

import numpy as np

from grblas_gpu import backend
from grblas_gpu.errors import InvalidValue

from .sampling_common import (whole_number, check_offsets, check_range, combined_key, group_offsets,
                              int_array, lexorder, per_edge, run_starts, scalar)

xp = backend.xp

__all__ = ["SortedEdgelist", "RenumberedEdgelist", "CompressedEdgelist",
           "HeterogeneousRenumberedEdgelist", "sort_sampled_edgelist",
           "renumber_and_sort_sampled_edgelist", "renumber_and_compress_sampled_edgelist",
           "heterogeneous_renumber_and_sort_sampled_edgelist"]

SortedEdgelist = namedtuple("SortedEdgelist", "src dst weight edge_id edge_type offsets")
RenumberedEdgelist = namedtuple(
    "RenumberedEdgelist", "src dst weight edge_id edge_type label_hop_offsets renumber_map "
                          "renumber_map_label_offsets")
CompressedEdgelist = namedtuple(
    "CompressedEdgelist", "majors major_offsets minors weight edge_id edge_type "
                          "label_hop_offsets renumber_map renumber_map_label_offsets")
HeterogeneousRenumberedEdgelist = namedtuple(
    "HeterogeneousRenumberedEdgelist",
    "src dst weight edge_id label_type_hop_offsets renumber_map renumber_map_label_type_offsets "
    "edge_id_renumber_map edge_id_renumber_map_label_type_offsets")

_Edges = namedtuple("_Edges", "src dst weight edge_id edge_type hop label L H "
                              "has_labels has_hops seeds seed_label")


# ---------------------------------------------------------------------- entry points
def sort_sampled_edgelist(srcs, dsts, *, weights=None, edge_ids=None, edge_types=None,
                          hops=None, label_offsets=None, num_labels=None, num_hops=None,
                          src_is_major=True):
    """Sort by ((label), (hop), major, minor). Returns SortedEdgelist; ``offsets``
    (int64, num_labels·num_hops + 1: where each (label, hop) begins) when hops or labels."""
    e = _edges(srcs, dsts, weights, edge_ids, edge_types, hops, label_offsets, num_labels,
               num_hops)
    major, minor = (e.src, e.dst) if src_is_major else (e.dst, e.src)
    order = _edge_order(e, None, 1, major, minor)
    out = _permute(e, order)
    return SortedEdgelist(out.src, out.dst, out.weight, out.edge_id, out.edge_type,
                          _label_hop_offsets(out, None, 1))


def renumber_and_sort_sampled_edgelist(srcs, dsts, *, weights=None, edge_ids=None,
                                       edge_types=None, hops=None, seed_vertices=None,
                                       seed_vertex_label_offsets=None, label_offsets=None,
                                       num_labels=None, num_hops=None, src_is_major=True):
    """Renumber (see the module docstring), then sort by ((label), (hop), major, minor).
    Returns RenumberedEdgelist: renumbered src/dst, the other arrays permuted alike,
    label_hop_offsets (num_labels·num_hops + 1, when hops or labels), renumber_map (the
    original id of every new id, label by label) and renumber_map_label_offsets
    (num_labels + 1, when labels)."""
    e = _edges(srcs, dsts, weights, edge_ids, edge_types, hops, label_offsets, num_labels,
               num_hops, seed_vertices, seed_vertex_label_offsets)
    e, rmap, rmap_offsets, _ = _renumbered(e, src_is_major)
    major, minor = (e.src, e.dst) if src_is_major else (e.dst, e.src)
    out = _permute(e, _edge_order(e, None, 1, major, minor))
    return RenumberedEdgelist(out.src, out.dst, out.weight, out.edge_id, out.edge_type,
                              _label_hop_offsets(out, None, 1), rmap,
                              rmap_offsets if e.has_labels else None)


def renumber_and_compress_sampled_edgelist(srcs, dsts, *, weights=None, edge_ids=None,
                                           edge_types=None, hops=None, seed_vertices=None,
                                           seed_vertex_label_offsets=None, label_offsets=None,
                                           num_labels=None, num_hops=None, src_is_major=True,
                                           compress_per_hop=False, doubly_compress=False):
    """Renumber, sort, and compress to CSR/CSC (DCSR/DCSC with doubly_compress); see the
    module docstring. Returns CompressedEdgelist: majors (DCSR/DCSC only), major_offsets,
    minors, weight/edge_id/edge_type, label_hop_offsets into major_offsets (when hops or
    labels), renumber_map, renumber_map_label_offsets (when labels)."""
    if compress_per_hop and doubly_compress:
        raise InvalidValue("compress_per_hop must be False when doubly_compress is True")
    if compress_per_hop and hops is None:
        raise InvalidValue("compress_per_hop needs hops")
    e = _edges(srcs, dsts, weights, edge_ids, edge_types, hops, label_offsets, num_labels,
               num_hops, seed_vertices, seed_vertex_label_offsets)
    e, rmap, rmap_offsets, seeds_new = _renumbered(e, src_is_major)
    major, minor = (e.src, e.dst) if src_is_major else (e.dst, e.src)
    order = _edge_order(e, None, 1, major, minor)
    out = _permute(e, order)
    major, minor = major[order], minor[order]
    if doubly_compress:
        majors, offsets, lho = _doubly_compress(out, major)
    else:
        majors = None
        offsets, lho = _compress(out, major, minor, seeds_new, bool(compress_per_hop))
    return CompressedEdgelist(majors, offsets, minor, out.weight, out.edge_id, out.edge_type,
                              lho if (e.has_labels or e.has_hops) else None, rmap,
                              rmap_offsets if e.has_labels else None)


def heterogeneous_renumber_and_sort_sampled_edgelist(
        srcs, dsts, *, vertex_type_offsets, weights=None, edge_ids=None, edge_types=None,
        hops=None, seed_vertices=None, seed_vertex_label_offsets=None, label_offsets=None,
        num_labels=None, num_hops=None, num_vertex_types=None, num_edge_types=None,
        src_is_major=True):
    """Renumber vertices per (label, vertex type) and edge ids per (label, edge type), then
    sort by ((label), (edge type), (hop), major, minor); see the module docstring.
    ``vertex_type_offsets``: vertex ids [off[i], off[i+1]) have type i. Returns
    HeterogeneousRenumberedEdgelist: src, dst, weight, edge_id (renumbered),
    label_type_hop_offsets (num_labels·num_edge_types·num_hops + 1, when edge types, hops
    or labels), renumber_map and its (label, vertex type) offsets
    (num_labels·num_vertex_types + 1), edge_id_renumber_map and its (label, edge type)
    offsets (num_labels·num_edge_types + 1), when edge ids."""
    e = _edges(srcs, dsts, weights, edge_ids, edge_types, hops, label_offsets, num_labels,
               num_hops, seed_vertices, seed_vertex_label_offsets)
    vto = int_array(vertex_type_offsets, "vertex_type_offsets")
    nvt = _count(num_vertex_types, len(vto) - 1, "num_vertex_types")
    if len(vto) != nvt + 1:
        raise InvalidValue(f"vertex_type_offsets must have num_vertex_types + 1 = {nvt + 1} "
                           f"entries, got {len(vto)}")
    top = _max_vertex(e) + 1
    check_offsets(vto, int(scalar(vto[-1])) if len(vto) else 0, "vertex_type_offsets")
    if int(scalar(vto[-1])) < top:
        raise InvalidValue(f"vertex_type_offsets must cover every vertex (up to {top - 1})")
    net = _count(num_edge_types, 1, "num_edge_types")
    if e.edge_type is not None:
        check_range(e.edge_type.astype(np.int64), 0, net, "edge type")
    e, rmap, rmap_offsets, _ = _renumbered(e, src_is_major, vto, nvt)
    etype = (e.edge_type.astype(np.int64) if e.edge_type is not None
             else xp.zeros(len(e.src), dtype=np.int64))
    new_ids, emap, emap_offsets = (None, None, None) if e.edge_id is None else \
        _renumber_edge_ids(e, etype, net)
    if new_ids is not None:
        e = e._replace(edge_id=new_ids.astype(e.edge_id.dtype))
    major, minor = (e.src, e.dst) if src_is_major else (e.dst, e.src)
    order = _edge_order(e, etype, net, major, minor)
    out = _permute(e, order)
    lto = _label_hop_offsets(out, etype[order], net) \
        if (e.has_labels or e.has_hops or e.edge_type is not None) else None
    return HeterogeneousRenumberedEdgelist(out.src, out.dst, out.weight, out.edge_id, lto, rmap,
                                           rmap_offsets, emap, emap_offsets)


# ---------------------------------------------------------------------- input
def _count(x, default, what):
    """A positive count, ``default`` (at least 1) when not given."""
    return max(int(default), 1) if x is None else whole_number(x, what, 1)


def _edges(srcs, dsts, weights, edge_ids, edge_types, hops, label_offsets, num_labels,
           num_hops, seeds=None, seed_label_offsets=None):
    src = int_array(srcs, "srcs")
    dst = int_array(dsts, "dsts")
    m = len(src)
    if len(dst) != m:
        raise InvalidValue(f"srcs and dsts differ in length ({m}, {len(dst)})")
    check_range(src, 0, 2**62, "vertex id")
    check_range(dst, 0, 2**62, "vertex id")
    weight = per_edge(weights, m, "weights", numeric=True)
    edge_id = per_edge(edge_ids, m, "edge_ids", numeric=True)
    edge_type = per_edge(edge_types, m, "edge_types", numeric=True)
    if edge_id is not None:
        check_range(edge_id.astype(np.int64), 0, 2**62, "edge id")
    if edge_type is not None:
        check_range(edge_type.astype(np.int64), 0, 2**31, "edge type")
    hop = int_array(hops, "hops", allow_none=True)
    if hop is not None and len(hop) != m:
        raise InvalidValue(f"hops must have one entry per edge ({m})")
    lo = int_array(label_offsets, "label_offsets", allow_none=True)
    if lo is not None:
        check_offsets(lo, m, "label_offsets")
    L = _count(num_labels, len(lo) - 1 if lo is not None else 1, "num_labels")
    if lo is not None and len(lo) != L + 1:
        raise InvalidValue(f"label_offsets must have num_labels + 1 = {L + 1} entries")
    if L > 1 and lo is None:
        raise InvalidValue("num_labels >= 2 needs label_offsets")
    top_hop = int(scalar(hop.max())) + 1 if hop is not None and m else 1
    H = _count(num_hops, top_hop, "num_hops")
    if H > 1 and hop is None:
        raise InvalidValue("num_hops >= 2 needs hops")
    if hop is not None:
        check_range(hop, 0, H, "hop")
    label = (xp.searchsorted(lo[1:], xp.arange(m, dtype=np.int64), side="right").astype(np.int64)
             if lo is not None else xp.zeros(m, dtype=np.int64))
    seed_label = None
    if seeds is not None:
        seeds = int_array(seeds, "seed_vertices")
        check_range(seeds, 0, 2**62, "seed vertex")
        if (seed_label_offsets is not None) != (lo is not None):
            raise InvalidValue("seed_vertex_label_offsets must be given exactly when "
                               "label_offsets are")
        if seed_label_offsets is not None:
            slo = int_array(seed_label_offsets, "seed_vertex_label_offsets")
            check_offsets(slo, len(seeds), "seed_vertex_label_offsets")
            if len(slo) != L + 1:
                raise InvalidValue(f"seed_vertex_label_offsets must have {L + 1} entries")
            seed_label = xp.searchsorted(slo[1:], xp.arange(len(seeds), dtype=np.int64),
                                         side="right").astype(np.int64)
        else:
            seed_label = xp.zeros(len(seeds), dtype=np.int64)
    elif seed_label_offsets is not None:
        raise InvalidValue("seed_vertex_label_offsets needs seed_vertices")
    return _Edges(src, dst, weight, edge_id, edge_type,
                  hop if hop is not None else xp.zeros(m, dtype=np.int64), label, L, H,
                  lo is not None, hop is not None, seeds, seed_label)


def _max_vertex(e):
    parts = [a.max() for a in (e.src, e.dst) if len(a)]
    if e.seeds is not None and len(e.seeds):
        parts.append(e.seeds.max())
    return max((int(scalar(p)) for p in parts), default=-1)


# ---------------------------------------------------------------------- renumbering
def _renumbered(e, src_is_major, vto=None, nvt=1):
    """(edges with src/dst renumbered, renumber map, its (label, type) offsets, renumbered
    seeds or None)."""
    major, minor = (e.src, e.dst) if src_is_major else (e.dst, e.src)
    seeds = e.seeds if e.seeds is not None else xp.zeros(0, dtype=np.int64)
    seed_label = e.seed_label if e.seed_label is not None else xp.zeros(0, dtype=np.int64)
    verts = xp.concatenate([major, minor, seeds])
    labels = xp.concatenate([e.label, e.label, seed_label])
    # (hop, flag) as one rank: 2·hop + flag; seeds are (0, major)
    rank = xp.concatenate([2 * e.hop, 2 * e.hop + 1, xp.zeros(len(seeds), dtype=np.int64)])
    top = _max_vertex(e) + 1
    R = 2 * e.H
    order = lexorder([labels, verts, rank], [e.L, top, R])
    sl, sv, sr = labels[order], verts[order], rank[order]
    first = run_starts(sl, sv)  # the first of each (label, vertex) run holds its min rank
    ul, uv, ur = sl[first], sv[first], sr[first]
    ut = (xp.searchsorted(vto[1:], uv, side="right").astype(np.int64) if vto is not None
          else xp.zeros(len(uv), dtype=np.int64))
    order2 = lexorder([ul, ut, ur, uv], [e.L, nvt, R, top])
    group = (ul * nvt + ut)[order2]
    offsets = group_offsets(group, e.L * nvt)
    new = xp.empty(len(uv), dtype=np.int64)
    new[order2] = xp.arange(len(uv), dtype=np.int64) - offsets[group]
    ukey = combined_key([(ul, e.L), (uv, top)])  # ascending: (ul, uv) are sorted

    def lookup(lab, v):
        return new[xp.searchsorted(ukey, combined_key([(lab, e.L), (v, top)]))]

    new_major = lookup(e.label, major).astype(e.src.dtype)
    new_minor = lookup(e.label, minor).astype(e.src.dtype)
    seeds_new = lookup(seed_label, seeds) if e.seeds is not None else None
    src, dst = (new_major, new_minor) if src_is_major else (new_minor, new_major)
    renumber_map = uv[order2]
    return e._replace(src=src, dst=dst), renumber_map, offsets, \
        (seeds_new, seed_label) if seeds_new is not None else None


def _renumber_edge_ids(e, etype, net):
    """Edge ids renumbered per (label, edge type) by (smallest hop, id): (new ids, map,
    (label, edge type) offsets)."""
    eid = e.edge_id.astype(np.int64)
    top = int(scalar(eid.max())) + 1 if len(eid) else 1
    order = lexorder([e.label, etype, eid, e.hop], [e.L, net, top, e.H])
    sl, st, se, sh = e.label[order], etype[order], eid[order], e.hop[order]
    first = run_starts(sl, st, se)
    ul, ut, ue, uh = sl[first], st[first], se[first], sh[first]
    order2 = lexorder([ul, ut, uh, ue], [e.L, net, e.H, top])
    group = (ul * net + ut)[order2]
    offsets = group_offsets(group, e.L * net)
    new = xp.empty(len(ue), dtype=np.int64)
    new[order2] = xp.arange(len(ue), dtype=np.int64) - offsets[group]
    ukey = combined_key([(ul, e.L), (ut, net), (ue, top)])
    pos = xp.searchsorted(ukey, combined_key([(e.label, e.L), (etype, net), (eid, top)]))
    return new[pos], ue[order2].astype(e.edge_id.dtype), offsets


# ---------------------------------------------------------------------- sorting
def _edge_order(e, etype, net, major, minor):
    top = _max_vertex(e) + 1
    keys, bounds = [e.label], [e.L]
    if etype is not None:
        keys.append(etype)
        bounds.append(net)
    keys += [e.hop, major.astype(np.int64), minor.astype(np.int64)]
    bounds += [e.H, top, top]
    return lexorder(keys, bounds)


def _permute(e, order):
    take = (lambda a: None if a is None else a[order])
    return e._replace(src=e.src[order], dst=e.dst[order], weight=take(e.weight),
                      edge_id=take(e.edge_id), edge_type=take(e.edge_type), hop=e.hop[order],
                      label=e.label[order])


def _label_hop_offsets(e, etype, net):
    """Where each (label, (type), hop) group begins in the sorted edges (+ the total)."""
    if etype is None:
        if not (e.has_labels or e.has_hops):
            return None
        return group_offsets(e.label * e.H + e.hop, e.L * e.H)
    return group_offsets((e.label * net + etype) * e.H + e.hop, e.L * net * e.H)


# ---------------------------------------------------------------------- compression
def _doubly_compress(e, major):
    first = run_starts(e.label, e.hop, major)
    starts = xp.nonzero(first)[0].astype(np.int64)
    offsets = xp.concatenate([starts, xp.asarray([len(major)], dtype=np.int64)])
    lho = group_offsets(e.label[starts] * e.H + e.hop[starts], e.L * e.H)
    return major[starts], offsets, lho


def _compress(e, major, minor, seeds_new, per_hop):
    L, H, m = e.L, e.H, len(major)
    major = major.astype(np.int64)
    minor = minor.astype(np.int64)
    if not per_hop and e.has_hops and m:
        _check_hops_above(e, major, seeds_new)
    E = group_offsets(e.label * H + e.hop, L * H)  # edge range of each (l, h)
    start, end = E[:-1], E[1:]
    lab_of = xp.arange(L * H, dtype=np.int64) // H
    lstart, lend = E[lab_of * H], E[lab_of * H + H]
    at = (lambda idx: major[xp.clip(idx, 0, max(m - 1, 0))] if m else xp.zeros(len(idx), np.int64))
    if per_hop:
        nv = xp.where(start < end, at(end - 1) + 1, 0)
    else:
        nv = xp.where(end != lend, at(end), xp.where(lstart < lend, at(end - 1) + 1, 0))
    nv = xp.maximum(nv, _seed_counts(seeds_new, L, H, per_hop))
    counts = nv.reshape(L, H)
    if per_hop:
        minor_top = _group_max(minor, e.label * H + e.hop, L * H).reshape(L, H)
        running = xp.zeros(L, dtype=np.int64)
        for h in range(H):  # a loop over hops: each hop also addresses every earlier id
            hop_count = counts[:, h].copy()
            counts[:, h] = xp.maximum(hop_count, running)
            running = xp.maximum(running, xp.maximum(hop_count, minor_top[:, h]))
    elif H > 1:
        counts = xp.concatenate([counts[:, :1], counts[:, 1:] - counts[:, :-1]], axis=1)
    A = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts.reshape(-1))])
    first = run_starts(e.label, e.hop, major)
    starts = xp.nonzero(first)[0].astype(np.int64)
    run_len = xp.diff(xp.concatenate([starts, xp.asarray([m], dtype=np.int64)]))
    ul, uh = e.label[starts], e.hop[starts]
    row = A[ul * H + (uh if per_hop else 0)] + major[starts]
    nrows = int(scalar(A[-1]))
    degree = (xp.bincount(row, weights=run_len.astype(np.float64), minlength=nrows)[:nrows]
              if m else xp.zeros(nrows, dtype=np.float64))
    offsets = xp.concatenate([xp.zeros(1, dtype=np.int64),
                              xp.cumsum(degree.astype(np.int64))])
    return offsets, A


def _check_hops_above(e, major, seeds_new):
    """InvalidValue unless, in each label, the first (smallest) major of every hop h > 0 is
    above every earlier hop's majors and the label's seeds (hop-0 majors by definition): the
    reference's precondition for one CSR per label split at hop boundaries. The edges are
    sorted by (label, hop, major), so the previous edge holds the largest earlier major."""
    m = len(major)
    idx = xp.arange(m, dtype=np.int64)
    prev = xp.maximum(idx - 1, 0)
    first = (idx == 0) | (e.label != e.label[prev]) | (e.hop != e.hop[prev])
    earlier = xp.where((idx > 0) & (e.label == e.label[prev]), major[prev], -1)
    if seeds_new is not None and len(seeds_new[0]):
        s, lab = seeds_new
        # earlier = max(earlier, the label's largest seed)
        earlier = xp.maximum(earlier, _group_max(s.astype(np.int64), lab, e.L)[e.label] - 1)
    if bool(scalar((first & (e.hop > 0) & (major <= earlier)).any())):
        raise InvalidValue(
            "without compress_per_hop, every hop's majors must be renumbered above the previous "
            "hops' majors and the seeds (a later hop may only expand earlier hops' minors; a "
            "seed vertex, a hop-0 major, must not be a major again in a later hop)")


def _seed_counts(seeds_new, L, H, per_hop):
    """1 + the largest renumbered seed of each label, for hop 0 (every hop, not per hop)."""
    out = xp.zeros(L * H, dtype=np.int64)
    if seeds_new is None or len(seeds_new[0]) == 0:
        return out
    s, lab = seeds_new
    top = _group_max(s.astype(np.int64), lab, L)
    if per_hop:
        out[xp.arange(L, dtype=np.int64) * H] = top
        return out
    return top[xp.arange(L * H, dtype=np.int64) // H]


def _group_max(values, group, ngroups):
    """1 + max(values) per group (0 for empty groups); values >= 0."""
    if len(values) == 0:
        return xp.zeros(ngroups, dtype=np.int64)
    order = lexorder([group, values])
    g = group[order]
    last = xp.searchsorted(g, xp.arange(ngroups, dtype=np.int64), side="right") - 1
    present = (last >= 0) & (g[xp.maximum(last, 0)] == xp.arange(ngroups))
    return xp.where(present, values[order][xp.maximum(last, 0)] + 1, 0)
