"""algorithms.sampling: neighbourhood sampling, renumbering/compression, edge lookup and
negative sampling, checked against slow, obviously-correct references written here.

Statistical tests run at fixed seeds; their thresholds are checked to reject a deliberately
skewed sampler of the same size (test_chi_square_rejects_a_skewed_sampler).
"""
from collections import Counter, defaultdict

import numpy as np
import pytest
from scipy.stats import chisquare

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu.algorithms import sampling as S

H = backend.to_host
P_PASS = 1e-3  # a correct sampler passes at the fixed seeds; skewed ones fall far below


# ---------------------------------------------------------------------- fixtures
def _graph(seed=7, n=40, p=0.15, ntypes=3):
    rng = np.random.default_rng(seed)
    dense = rng.random((n, n)) < p
    np.fill_diagonal(dense, False)
    dense[n - 1, :] = False  # a sink: sources without out-edges
    rows, cols = np.nonzero(dense)
    A = gg.Matrix.from_coo(rows, cols, 1.0, nrows=n, ncols=n)
    m = len(rows)
    props = dict(weights=rng.random(m).astype(np.float32),
                 edge_ids=(rng.permutation(m) * 3 + 7).astype(np.int64),
                 edge_types=rng.integers(0, ntypes, m).astype(np.int32))
    return A, rows, cols, props


@pytest.fixture(scope="module")
def graph():
    return _graph()


def _star(weights=None, degree=8):
    """Vertex 0 -> 1 .. degree."""
    cols = np.arange(1, degree + 1)
    return gg.Matrix.from_coo(np.zeros(degree, dtype=np.int64), cols, 1.0,
                              nrows=degree + 1, ncols=degree + 1)


def _edge_labels(res, n):
    if res.label is None:
        return np.zeros(n, dtype=np.int64)
    return np.repeat(H(res.label), np.diff(H(res.offsets)))


def _k(fan, deg, replace):
    if fan < 0:
        return deg
    if replace:
        return fan if deg > 0 else 0
    return min(fan, deg)


def _check_counts(A, res, seeds, labels, fan, behavior, dedupe, replace):
    """Per (hop, label, source): picks = multiplicity in the reference frontier × k."""
    deg = np.diff(H(A.to_csr()[0]))
    src, dst, hop = H(res.src), H(res.dst), H(res.hop)
    lab = _edge_labels(res, len(src))
    frontier = Counter(zip(labels, seeds))
    used = set()
    for h, f in enumerate(fan):
        sel = hop == h
        observed = Counter(zip(lab[sel], src[sel]))
        expected = {key: m * _k(f, deg[key[1]], replace) for key, m in frontier.items()}
        assert observed == Counter({k: v for k, v in expected.items() if v}), f"hop {h}"
        picked = Counter(zip(lab[sel], dst[sel]))
        nxt = Counter(picked)
        if behavior == "carry_over":
            nxt.update(frontier)
        elif behavior == "exclude":
            used |= set(frontier)
            nxt = Counter({key: m for key, m in nxt.items() if key not in used})
        if dedupe:
            nxt = Counter({key: 1 for key in nxt})
        frontier = nxt


# ---------------------------------------------------------------------- sampled edges
@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("biased", [False, True])
def test_sampled_edges_exist_with_their_properties(graph, replace, biased):
    A, rows, cols, props = graph
    rng = np.random.default_rng(1)
    biases = rng.random(len(rows)) * (rng.random(len(rows)) < 0.7) if biased else None
    res = S.homogeneous_neighbor_sample(A, np.arange(0, 40, 3), [4, 3, 2], biases=biases,
                                        with_replacement=replace, seed=11, **props)
    pos = {(int(r), int(c)): i for i, (r, c) in enumerate(zip(rows, cols))}
    e = np.array([pos[(int(s), int(d))] for s, d in zip(H(res.src), H(res.dst))])
    assert len(e) > 0
    np.testing.assert_array_equal(H(res.weight), props["weights"][e])
    np.testing.assert_array_equal(H(res.edge_id), props["edge_ids"][e])
    np.testing.assert_array_equal(H(res.edge_type), props["edge_types"][e])
    if biased:
        assert (biases[e] > 0).all()
    assert res.label is None and res.offsets is None
    assert list(np.unique(H(res.hop))) == [0, 1, 2]


@pytest.mark.parametrize("behavior", ["default", "carry_over", "exclude"])
@pytest.mark.parametrize("dedupe", [False, True])
@pytest.mark.parametrize("replace", [True, False])
def test_counts_follow_the_frontier(graph, behavior, dedupe, replace):
    A = graph[0]
    seeds = np.array([0, 3, 3, 39, 17, 8])
    labels = np.array([2, 2, 5, 5, 2, 9])
    fan = [3, 2, 2]
    res = S.homogeneous_neighbor_sample(A, seeds, fan, starting_vertex_labels=labels,
                                        prior_sources_behavior=behavior, dedupe_sources=dedupe,
                                        with_replacement=replace, seed=5)
    _check_counts(A, res, seeds, labels, fan, behavior, dedupe, replace)


def test_biased_counts_and_zero_bias(graph):
    A, rows, _, _ = graph
    biases = np.where(np.arange(len(rows)) % 4 == 0, 0.0, 1.0 + np.arange(len(rows)) % 3)
    for replace in (True, False):
        res = S.homogeneous_neighbor_sample(A, np.arange(40), [3], biases=biases,
                                            with_replacement=replace, seed=2)
        indptr = H(A.to_csr()[0])
        positive = np.concatenate([[0], np.cumsum(biases > 0)])
        npos = positive[indptr[1:]] - positive[indptr[:-1]]
        got = np.bincount(H(res.src), minlength=40)
        want = np.where(npos > 0, 3, 0) if replace else np.minimum(npos, 3)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("biased", [False, True])
def test_no_repeated_edge_without_replacement(graph, biased):
    A, rows, _, _ = graph
    biases = np.random.default_rng(3).random(len(rows)) if biased else None
    res = S.homogeneous_neighbor_sample(A, np.arange(40), [6, 5], biases=biases,
                                        with_replacement=False, dedupe_sources=True, seed=9)
    rows_out = list(zip(H(res.hop), H(res.src), H(res.dst)))
    assert len(rows_out) == len(set(rows_out))


def test_negative_fan_out_takes_every_neighbour(graph):
    A, rows, cols, _ = graph
    res = S.homogeneous_neighbor_sample(A, [4, 9], [-1], seed=1)
    got = sorted(zip(H(res.src), H(res.dst)))
    want = sorted((r, c) for r, c in zip(rows, cols) if r in (4, 9))
    assert got == want


def test_labels_offsets_and_hops_are_consistent(graph):
    A = graph[0]
    seeds = np.array([1, 2, 3, 4, 5, 6])
    labels = np.array([30, 10, 30, 10, 20, 30])
    res = S.homogeneous_neighbor_sample(A, seeds, [2, 2], starting_vertex_labels=labels,
                                        with_replacement=False, seed=3)
    lab, off = H(res.label), H(res.offsets)
    assert list(lab) == sorted(set(lab)) and set(lab) <= {10, 20, 30}
    assert off[0] == 0 and off[-1] == len(H(res.src)) and (np.diff(off) > 0).all()
    hop = H(res.hop)
    for i, value in enumerate(lab):
        seg = slice(off[i], off[i + 1])
        assert (np.diff(hop[seg]) >= 0).all()  # hop order within a label
        first = H(res.src)[seg][hop[seg] == 0]
        assert set(first) <= set(seeds[labels == value])


def test_prior_sources_exclude_and_carry_over(graph):
    A = graph[0]
    seeds = np.array([0, 1, 2])
    ex = S.homogeneous_neighbor_sample(A, seeds, [3, 3, 3], prior_sources_behavior="exclude",
                                       with_replacement=False, seed=4)
    src, hop = H(ex.src), H(ex.hop)
    seen = set(seeds)
    for h in (1, 2):
        assert not (set(src[hop == h]) & seen)
        seen |= set(src[hop == h])
    co = S.homogeneous_neighbor_sample(A, seeds, [3, 3], prior_sources_behavior="carry_over",
                                       with_replacement=False, dedupe_sources=True, seed=4)
    src, dst, hop = H(co.src), H(co.dst), H(co.hop)
    assert set(src[hop == 0]) <= set(src[hop == 1])  # hop-0 sources are sources again
    deg = np.diff(H(A.to_csr()[0]))
    want = {v for v in set(dst[hop == 0]) | set(seeds) if deg[v] > 0}
    assert set(src[hop == 1]) == want


def test_reproducible_by_seed(graph):
    A, _, _, props = graph
    a = S.homogeneous_neighbor_sample(A, np.arange(20), [3, 3], seed=42, **props)
    b = S.homogeneous_neighbor_sample(A, np.arange(20), [3, 3], seed=42, **props)
    c = S.homogeneous_neighbor_sample(A, np.arange(20), [3, 3], seed=43, **props)
    for x, y in zip(a, b):
        if x is not None:
            np.testing.assert_array_equal(H(x), H(y))
    assert not np.array_equal(H(a.dst), H(c.dst))


def test_optional_outputs_are_none(graph):
    res = S.homogeneous_neighbor_sample(graph[0], [0, 1], [2], return_hops=False, seed=1)
    assert res.weight is None and res.edge_id is None and res.edge_type is None
    assert res.hop is None and res.label is None and res.offsets is None


# ---------------------------------------------------------------------- heterogeneous
@pytest.mark.parametrize("replace", [True, False])
def test_heterogeneous_fan_out_per_type(graph, replace):
    A, rows, cols, props = graph
    T = 3
    fan = [2, 0, -1, 1, 3, 0]
    seeds = np.array([0, 5, 11])
    res = S.heterogeneous_neighbor_sample(A, seeds, fan, T, edge_types=props["edge_types"],
                                          with_replacement=replace, dedupe_sources=True,
                                          seed=8)
    types = props["edge_types"]
    deg = np.zeros((40, T), dtype=int)
    np.add.at(deg, (rows, types), 1)
    src, dst, hop, et = H(res.src), H(res.dst), H(res.hop), H(res.edge_type)
    pos = {(int(r), int(c)): i for i, (r, c) in enumerate(zip(rows, cols))}
    assert all(types[pos[(int(s), int(d))]] == t for s, d, t in zip(src, dst, et))
    frontier = set(seeds)
    for h in range(2):
        for v in frontier:
            for t in range(T):
                got = int(((hop == h) & (src == v) & (et == t)).sum())
                assert got == _k(fan[h * T + t], deg[v, t], replace), (h, v, t)
        frontier = set(dst[hop == h])


def test_heterogeneous_needs_edge_types(graph):
    with pytest.raises(gg.InvalidValue):
        S.heterogeneous_neighbor_sample(graph[0], [0], [1, 1], 2, edge_types=None)
    with pytest.raises(gg.InvalidValue):  # fan_out not a multiple of num_edge_types
        S.heterogeneous_neighbor_sample(graph[0], [0], [1, 1, 1], 2,
                                        edge_types=graph[3]["edge_types"] % 2)
    with pytest.raises(gg.InvalidValue):  # a type beyond num_edge_types
        S.heterogeneous_neighbor_sample(graph[0], [0], [1, 1], 2,
                                        edge_types=graph[3]["edge_types"])


# ---------------------------------------------------------------------- deprecated forms
def test_deprecated_forms(graph):
    A, rows, _, props = graph
    seeds = np.array([3, 4, 5, 6, 7])
    offsets = np.array([0, 2, 2, 5])
    res = S.uniform_neighbor_sample(A, seeds, [2, 1], starting_vertex_label_offsets=offsets,
                                    label_to_output_comm_rank=([0, 1, 2], [0, 0, 0]),
                                    with_replacement=False, seed=1, **props)
    lab, off = H(res.label), H(res.offsets)
    assert set(lab) <= {0, 2} and off[-1] == len(H(res.src))
    for i, value in enumerate(lab):
        hop0 = H(res.src)[off[i]:off[i + 1]][H(res.hop)[off[i]:off[i + 1]] == 0]
        assert set(hop0) <= set(seeds[offsets[value]:offsets[value + 1]])
    b = S.biased_neighbor_sample(A, np.ones(len(rows)), seeds, [2], seed=1)
    assert len(H(b.src)) == sum(_k(2, d, True) for d in np.diff(H(A.to_csr()[0]))[seeds])
    with pytest.raises(gg.InvalidValue):  # rank 1 does not exist with one process
        S.uniform_neighbor_sample(A, seeds, [2], starting_vertex_label_offsets=offsets,
                                  label_to_output_comm_rank=([0, 1, 2], [0, 1, 0]))
    with pytest.raises(gg.InvalidValue):  # a label missing from the map
        S.uniform_neighbor_sample(A, seeds, [2], starting_vertex_label_offsets=offsets,
                                  label_to_output_comm_rank=([0, 2], [0, 0]))


def test_label_to_output_comm_rank(graph):
    A = graph[0]
    res = S.homogeneous_neighbor_sample(A, [1, 2], [2], starting_vertex_labels=[0, 3],
                                        label_to_output_comm_rank=[0, 0, 0, 0], seed=1)
    assert set(H(res.label)) <= {0, 3}
    with pytest.raises(gg.InvalidValue):
        S.homogeneous_neighbor_sample(A, [1, 2], [2], starting_vertex_labels=[0, 3],
                                      label_to_output_comm_rank=[0, 0, 0, 1])
    with pytest.raises(gg.InvalidValue):  # label 3 has no entry
        S.homogeneous_neighbor_sample(A, [1, 2], [2], starting_vertex_labels=[0, 3],
                                      label_to_output_comm_rank=[0, 0])
    with pytest.raises(gg.InvalidValue):  # a rank map needs labels
        S.homogeneous_neighbor_sample(A, [1, 2], [2], label_to_output_comm_rank=[0])


# ---------------------------------------------------------------------- bad input
def test_bad_input_raises_invalid_value(graph):
    A, rows, _, _ = graph
    bad = [
        dict(starting_vertices=[0, 40], fan_out=[2]),
        dict(starting_vertices=[-1], fan_out=[2]),
        dict(starting_vertices=[0], fan_out=[]),
        dict(starting_vertices=[0], fan_out=[1.5]),
        dict(starting_vertices=[0], fan_out=[2], biases=np.ones(len(rows) - 1)),
        dict(starting_vertices=[0], fan_out=[2], biases=-np.ones(len(rows))),
        dict(starting_vertices=[0], fan_out=[2], biases=np.full(len(rows), np.nan)),
        dict(starting_vertices=[0], fan_out=[2], weights=np.ones(3)),
        dict(starting_vertices=[0], fan_out=[2], starting_vertex_labels=[1, 2]),
        dict(starting_vertices=[0], fan_out=[2], prior_sources_behavior="sometimes"),
        dict(starting_vertices=[0], fan_out=[2], seed=-3),
    ]
    for kw in bad:
        sv, fan = kw.pop("starting_vertices"), kw.pop("fan_out")
        with pytest.raises(gg.InvalidValue):
            S.homogeneous_neighbor_sample(A, sv, fan, **kw)
    with pytest.raises(gg.InvalidValue):
        S.renumber_and_compress_sampled_edgelist([0], [1], hops=[0], compress_per_hop=True,
                                                 doubly_compress=True)
    with pytest.raises(gg.InvalidValue):
        S.renumber_and_compress_sampled_edgelist([0], [1], compress_per_hop=True)
    with pytest.raises(gg.InvalidValue):
        S.sort_sampled_edgelist([0, 1], [1], hops=[0, 0])
    with pytest.raises(gg.InvalidValue):
        S.sort_sampled_edgelist([0, 1], [1, 2], label_offsets=[0, 1])


# ---------------------------------------------------------------------- distributions
def _star_slots(A, nslots, fan, **kw):
    return S.homogeneous_neighbor_sample(A, np.zeros(nslots, dtype=np.int64), [fan], **kw)


def test_uniform_marginals_chi_square():
    A = _star(degree=8)
    for replace in (False, True):
        res = _star_slots(A, 3000, 3, with_replacement=replace, seed=2024)
        counts = np.bincount(H(res.dst), minlength=9)[1:]
        assert counts.sum() == 9000
        assert chisquare(counts).pvalue > P_PASS


def test_uniform_subsets_chi_square():
    """Without replacement every k-subset is equally likely (Floyd's algorithm)."""
    A = _star(degree=4)
    res = _star_slots(A, 6000, 2, with_replacement=False, seed=77)
    pairs = np.sort(H(res.dst).reshape(-1, 2), axis=1)
    assert (pairs[:, 0] != pairs[:, 1]).all()
    counts = Counter(map(tuple, pairs))
    assert len(counts) == 6
    assert chisquare(list(counts.values())).pvalue > P_PASS


def test_biased_with_replacement_chi_square():
    A = _star(degree=5)
    biases = np.array([1.0, 2.0, 3.0, 4.0, 0.0])
    res = _star_slots(A, 4000, 2, biases=biases, with_replacement=True, seed=31)
    counts = np.bincount(H(res.dst), minlength=6)[1:]
    assert counts[4] == 0  # bias 0: never picked
    expected = counts.sum() * biases[:4] / biases[:4].sum()
    assert chisquare(counts[:4], expected).pvalue > P_PASS


def _successive_pair_probabilities(w):
    """P({i, j}) when picking 2 of len(w) without replacement, each pick ∝ w among the rest."""
    W = w.sum()
    return {(i, j): w[i] / W * w[j] / (W - w[i]) + w[j] / W * w[i] / (W - w[j])
            for i in range(len(w)) for j in range(i + 1, len(w))}


def test_biased_without_replacement_chi_square():
    A = _star(degree=4)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    res = _star_slots(A, 6000, 2, biases=w, with_replacement=False, seed=123)
    pairs = np.sort(H(res.dst).reshape(-1, 2), axis=1) - 1
    counts = Counter(map(tuple, pairs))
    probs = _successive_pair_probabilities(w)
    keys = sorted(probs)
    observed = [counts.get(k, 0) for k in keys]
    expected = [probs[k] * len(pairs) for k in keys]
    assert chisquare(observed, expected).pvalue > P_PASS
    one = _star_slots(A, 4000, 1, biases=w, with_replacement=False, seed=5)  # k = 1: ∝ w
    counts = np.bincount(H(one.dst), minlength=5)[1:]
    assert chisquare(counts, 4000 * w / w.sum()).pvalue > P_PASS


def test_chi_square_rejects_a_skewed_sampler():
    """The thresholds above have power: at each test's sample size and expected
    distribution, a sampler 25% too likely on the likeliest outcome fails the statistic, and a
    sampler that ignores the biases."""
    rng = np.random.default_rng(0)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    pairs = _successive_pair_probabilities(w)
    cases = [(np.full(8, 1 / 8), 9000), (np.full(6, 1 / 6), 6000), (w / w.sum(), 8000),
             (np.array([pairs[k] for k in sorted(pairs)]), 6000), (w / w.sum(), 4000)]
    for p0, n in cases:
        p = p0.copy()
        p[np.argmax(p0)] *= 1.25
        skewed = rng.multinomial(n, p / p.sum())
        assert chisquare(skewed, n * p0).pvalue < P_PASS
        ignoring = rng.multinomial(n, np.full(len(p0), 1 / len(p0)))
        if not np.allclose(p0, p0[0]):
            assert chisquare(ignoring, n * p0).pvalue < P_PASS


# ---------------------------------------------------------------------- renumbering refs
def _labels_of(m, label_offsets):
    if label_offsets is None:
        return [0] * m
    return [int(np.searchsorted(label_offsets[1:], i, side="right")) for i in range(m)]


def _ref_renumber(majors, minors, hops, lab, seeds, seed_lab, vtype=lambda v: 0):
    """{(label, v): new id}, renumber map (list), its (label, type) keys."""
    best = {}
    for i in range(len(majors)):
        h = hops[i] if hops is not None else 0
        for v, flag in ((majors[i], 0), (minors[i], 1)):
            key = (lab[i], v)
            best[key] = min(best.get(key, (h, flag)), (h, flag))
    for s, l in zip(seeds, seed_lab):
        best[(l, s)] = min(best.get((l, s), (0, 0)), (0, 0))
    order = sorted(best, key=lambda lv: (lv[0], vtype(lv[1]), best[lv], lv[1]))
    new, counters = {}, defaultdict(int)
    for l, v in order:
        new[(l, v)] = counters[(l, vtype(v))]
        counters[(l, vtype(v))] += 1
    return new, [v for _, v in order], [(l, vtype(v)) for l, v in order]


def _ref_offsets(group_keys, ngroups):
    counts = Counter(group_keys)
    return np.concatenate([[0], np.cumsum([counts.get(g, 0) for g in range(ngroups)])])


def _ref_renumber_and_sort(srcs, dsts, hops, label_offsets, seeds, seed_offsets, src_is_major):
    m = len(srcs)
    lab = _labels_of(m, label_offsets)
    L = len(label_offsets) - 1 if label_offsets is not None else 1
    Hn = max(hops) + 1 if hops is not None else 1
    majors, minors = (srcs, dsts) if src_is_major else (dsts, srcs)
    seed_lab = _labels_of(len(seeds), seed_offsets) if seeds is not None else []
    new, rmap, groups = _ref_renumber(majors, minors, hops, lab, seeds if seeds is not None
                                      else [], seed_lab)
    rows = []
    for i in range(m):
        h = hops[i] if hops is not None else 0
        rows.append((lab[i], h, new[(lab[i], majors[i])], new[(lab[i], minors[i])], i))
    rows.sort()
    lho = _ref_offsets([r[0] * Hn + r[1] for r in rows], L * Hn)
    rmo = _ref_offsets([g[0] for g in groups], L)
    return rows, rmap, lho, rmo, L, Hn, new, seed_lab


def _ref_compress(rows, L, Hn, new, seeds, seed_lab, per_hop, doubly):
    if doubly:
        runs = []
        for r in rows:
            if not runs or tuple(runs[-1][:3]) != (r[0], r[1], r[2]):
                runs.append([r[0], r[1], r[2], 0])
            runs[-1][3] += 1
        offsets = np.concatenate([[0], np.cumsum([x[3] for x in runs])])
        lho = _ref_offsets([x[0] * Hn + x[1] for x in runs], L * Hn)
        return [x[2] for x in runs], offsets, lho
    seeds_new = defaultdict(list)
    for s, l in zip(seeds, seed_lab):
        seeds_new[l].append(new[(l, s)])
    nrows_of, hop_rows = {}, {}
    for l in range(L):
        er = [r for r in rows if r[0] == l]
        top_seed = max(seeds_new[l], default=-1)
        if per_hop:
            seen = -1
            for h in range(Hn):
                hr = [r for r in er if r[1] == h]
                top = max([r[2] for r in hr] + [seen] + ([top_seed] if h == 0 else []))
                nrows_of[(l, h)] = top + 1
                seen = max([seen, top] + [r[3] for r in hr])
        else:
            n_label = max([r[2] for r in er] + [top_seed]) + 1
            nrows_of[(l, 0)] = n_label
            bounds = [0]
            for h in range(Hn):
                later = [r[2] for r in er if r[1] > h]
                bounds.append(max(min(later), top_seed + 1) if later else n_label)
            hop_rows[l] = bounds
    offsets, lho = [0], []
    for l in range(L):
        for h in range(Hn if per_hop else 1):
            base = len(offsets) - 1
            if per_hop:
                lho.append(base)
            else:
                lho += [base + b for b in hop_rows[l][:-1]]
            for row in range(nrows_of[(l, h)]):
                offsets.append(offsets[-1] + sum(1 for r in rows if r[0] == l and
                                                 (not per_hop or r[1] == h) and r[2] == row))
    lho.append(len(offsets) - 1)
    return None, np.array(offsets), np.array(lho)


def _random_edgelist(seed, m=60, nv=30, nlabels=3, nhops=3, exclude_like=False):
    rng = np.random.default_rng(seed)
    srcs = rng.integers(0, nv, m)
    dsts = rng.integers(0, nv, m)
    hops = np.sort(rng.integers(0, nhops, m))
    cuts = np.sort(rng.integers(0, m + 1, nlabels - 1))
    label_offsets = np.concatenate([[0], cuts, [m]])
    hops = np.concatenate([np.sort(hops[a:b]) for a, b in zip(label_offsets[:-1],
                                                               label_offsets[1:])])
    if exclude_like:  # each hop's sources in a band of their own (CSR's precondition)
        srcs = hops * 100 + rng.integers(0, 5, m)
        dsts = (hops + 1) * 100 + rng.integers(0, 5, m)
    seeds = rng.integers(0, nv + 5, 8)
    seed_offsets = np.concatenate([[0], np.sort(rng.integers(0, 9, nlabels - 1)), [8]])
    return srcs, dsts, hops, label_offsets, seeds, seed_offsets


@pytest.mark.parametrize("src_is_major", [True, False])
@pytest.mark.parametrize("labelled", [True, False])
def test_sort_sampled_edgelist_matches_reference(src_is_major, labelled):
    srcs, dsts, hops, lo, _, _ = _random_edgelist(1)
    lo = lo if labelled else None
    w = np.arange(len(srcs), dtype=np.float64)
    out = S.sort_sampled_edgelist(srcs, dsts, weights=w, hops=hops, label_offsets=lo,
                                  src_is_major=src_is_major)
    lab = _labels_of(len(srcs), lo)
    maj, mnr = (srcs, dsts) if src_is_major else (dsts, srcs)
    order = sorted(range(len(srcs)), key=lambda i: (lab[i], hops[i], maj[i], mnr[i], i))
    np.testing.assert_array_equal(H(out.src), srcs[order])
    np.testing.assert_array_equal(H(out.dst), dsts[order])
    np.testing.assert_array_equal(H(out.weight), w[order])
    L = len(lo) - 1 if lo is not None else 1
    np.testing.assert_array_equal(H(out.offsets),
                                  _ref_offsets([lab[i] * 3 + hops[i] for i in order], L * 3))


@pytest.mark.parametrize("src_is_major", [True, False])
@pytest.mark.parametrize("labelled", [True, False])
@pytest.mark.parametrize("with_hops", [True, False])
@pytest.mark.parametrize("with_seeds", [True, False])
def test_renumber_and_sort_matches_reference(src_is_major, labelled, with_hops, with_seeds):
    srcs, dsts, hops, lo, seeds, so = _random_edgelist(2)
    lo = lo if labelled else None
    so = so if (labelled and with_seeds) else None
    seeds = seeds if with_seeds else None
    hops = hops if with_hops else None
    ids = np.arange(len(srcs)) + 100
    out = S.renumber_and_sort_sampled_edgelist(srcs, dsts, edge_ids=ids, hops=hops,
                                               seed_vertices=seeds,
                                               seed_vertex_label_offsets=so, label_offsets=lo,
                                               src_is_major=src_is_major)
    rows, rmap, lho, rmo, *_ = _ref_renumber_and_sort(srcs, dsts, hops, lo, seeds, so,
                                                      src_is_major)
    maj = [r[2] for r in rows]
    mnr = [r[3] for r in rows]
    np.testing.assert_array_equal(H(out.src), maj if src_is_major else mnr)
    np.testing.assert_array_equal(H(out.dst), mnr if src_is_major else maj)
    np.testing.assert_array_equal(H(out.edge_id), ids[[r[4] for r in rows]])
    np.testing.assert_array_equal(H(out.renumber_map), rmap)
    if labelled or with_hops:
        np.testing.assert_array_equal(H(out.label_hop_offsets), lho)
    else:
        assert out.label_hop_offsets is None
    if labelled:
        np.testing.assert_array_equal(H(out.renumber_map_label_offsets), rmo)
    else:
        assert out.renumber_map_label_offsets is None


@pytest.mark.parametrize("mode", ["csr", "per_hop", "doubly"])
@pytest.mark.parametrize("src_is_major", [True, False])
@pytest.mark.parametrize("labelled", [True, False])
def test_renumber_and_compress_matches_reference(mode, src_is_major, labelled):
    srcs, dsts, hops, lo, seeds, so = _random_edgelist(3, exclude_like=(mode == "csr"))
    if not src_is_major and mode == "csr":
        srcs, dsts = dsts, srcs
    if mode == "csr":  # seeds: hop-0 majors and one vertex without edges, as in a sample
        seeds = np.append((srcs if src_is_major else dsts)[hops == 0][:3], 999)
        so = np.array([0, 1, 2, 4])
    lo = lo if labelled else None
    so = so if labelled else None
    out = S.renumber_and_compress_sampled_edgelist(
        srcs, dsts, hops=hops, seed_vertices=seeds, seed_vertex_label_offsets=so,
        label_offsets=lo, src_is_major=src_is_major, compress_per_hop=(mode == "per_hop"),
        doubly_compress=(mode == "doubly"))
    rows, rmap, _, rmo, L, Hn, new, seed_lab = _ref_renumber_and_sort(srcs, dsts, hops, lo,
                                                                       seeds, so, src_is_major)
    majors, offsets, lho = _ref_compress(rows, L, Hn, new, seeds, seed_lab,
                                         mode == "per_hop", mode == "doubly")
    np.testing.assert_array_equal(H(out.minors), [r[3] for r in rows])
    np.testing.assert_array_equal(H(out.major_offsets), offsets)
    np.testing.assert_array_equal(H(out.label_hop_offsets), lho)
    np.testing.assert_array_equal(H(out.renumber_map), rmap)
    if mode == "doubly":
        np.testing.assert_array_equal(H(out.majors), majors)
    else:
        assert out.majors is None
    # the compressed form expands back to the sorted, renumbered edges
    offs = H(out.major_offsets)
    if mode == "doubly":
        expanded = np.repeat(H(out.majors), np.diff(offs))
    else:
        lho_h = H(out.label_hop_offsets)
        base = np.zeros(len(offs) - 1, dtype=np.int64)
        for i in range(len(lho_h) - 1):
            first_row = lho_h[i if mode == "per_hop" else (i // Hn) * Hn]
            base[lho_h[i]:lho_h[i + 1]] = first_row
        expanded = np.repeat(np.arange(len(offs) - 1) - base, np.diff(offs))
    np.testing.assert_array_equal(expanded, [r[2] for r in rows])


def test_compress_rejects_overlapping_hops():
    with pytest.raises(gg.InvalidValue):  # vertex 0 is a major in hops 0 and 1
        S.renumber_and_compress_sampled_edgelist([0, 1, 0], [1, 0, 2], hops=[0, 1, 1])


@pytest.mark.parametrize("labelled", [False, True])
def test_compress_rejects_a_seed_that_is_a_later_hops_major(labelled):
    # seed 5 has no hop-0 edge but is a hop-1 major: renumbered among hop 0's rows (seeds are
    # (hop 0, major)), its hop-1 row cannot lie in hop 1's range of label_hop_offsets
    srcs, dsts = np.array([0, 1, 5, 7]), np.array([1, 2, 3, 8])
    hops = np.array([0, 1, 1, 0], np.int32) if labelled else np.array([0, 1, 1, 0][:3])
    if not labelled:
        srcs, dsts = srcs[:3], dsts[:3]
    kw = dict(label_offsets=np.array([0, 3, 4]), seed_vertex_label_offsets=np.array([0, 2, 3]),
              ) if labelled else {}
    seeds = np.array([0, 5, 7]) if labelled else np.array([0, 5])
    before = [a.copy() for a in (srcs, dsts, hops, seeds)]
    with pytest.raises(gg.InvalidValue, match="seed"):
        S.renumber_and_compress_sampled_edgelist(srcs, dsts, hops=hops, seed_vertices=seeds,
                                                 **kw)
    for a, b in zip(before, (srcs, dsts, hops, seeds)):
        np.testing.assert_array_equal(a, b)
    # per hop, the same input is well defined: it matches the reference
    out = S.renumber_and_compress_sampled_edgelist(srcs, dsts, hops=hops, seed_vertices=seeds,
                                                   compress_per_hop=True, **kw)
    lo, so = kw.get("label_offsets"), kw.get("seed_vertex_label_offsets")
    rows, rmap, _, _, L, Hn, new, seed_lab = _ref_renumber_and_sort(srcs, dsts, hops, lo, seeds,
                                                                    so, True)
    _, offsets, lho = _ref_compress(rows, L, Hn, new, seeds, seed_lab, True, False)
    np.testing.assert_array_equal(H(out.major_offsets), offsets)
    np.testing.assert_array_equal(H(out.label_hop_offsets), lho)
    np.testing.assert_array_equal(H(out.renumber_map), rmap)
    if not labelled:
        np.testing.assert_array_equal(H(out.major_offsets), [0, 1, 1, 1, 2, 3])
        np.testing.assert_array_equal(H(out.label_hop_offsets), [0, 2, 5])


def test_heterogeneous_renumber_matches_reference():
    rng = np.random.default_rng(4)
    m, nlabels, T = 50, 2, 2
    etype = rng.integers(0, T, m)
    # type 0 edges: [0, 20) -> [20, 40); type 1: [20, 40) -> [0, 20)
    srcs = np.where(etype == 0, rng.integers(0, 20, m), rng.integers(20, 40, m))
    dsts = np.where(etype == 0, rng.integers(20, 40, m), rng.integers(0, 20, m))
    hops = rng.integers(0, 2, m)
    lo = np.array([0, 23, m])
    hops = np.concatenate([np.sort(hops[:23]), np.sort(hops[23:])])
    ids = rng.integers(0, 30, m)
    vto = np.array([0, 20, 40])
    out = S.heterogeneous_renumber_and_sort_sampled_edgelist(
        srcs, dsts, vertex_type_offsets=vto, edge_ids=ids, edge_types=etype, hops=hops,
        label_offsets=lo, num_edge_types=T)
    lab = _labels_of(m, lo)
    vtype = (lambda v: int(v >= 20))
    new, rmap, groups = _ref_renumber(srcs, dsts, hops, lab, [], [], vtype)
    best = {}
    for i in range(m):
        key = (lab[i], etype[i], ids[i])
        best[key] = min(best.get(key, hops[i]), hops[i])
    eorder = sorted(best, key=lambda k: (k[0], k[1], best[k], k[2]))
    enew, ecount = {}, defaultdict(int)
    for k in eorder:
        enew[k] = ecount[k[:2]]
        ecount[k[:2]] += 1
    rows = sorted((lab[i], etype[i], hops[i], new[(lab[i], srcs[i])], new[(lab[i], dsts[i])],
                   enew[(lab[i], etype[i], ids[i])]) for i in range(m))
    np.testing.assert_array_equal(H(out.src), [r[3] for r in rows])
    np.testing.assert_array_equal(H(out.dst), [r[4] for r in rows])
    np.testing.assert_array_equal(H(out.edge_id), [r[5] for r in rows])
    np.testing.assert_array_equal(H(out.renumber_map), rmap)
    np.testing.assert_array_equal(H(out.renumber_map_label_type_offsets),
                                  _ref_offsets([g[0] * 2 + g[1] for g in groups], nlabels * 2))
    np.testing.assert_array_equal(H(out.label_type_hop_offsets),
                                  _ref_offsets([(r[0] * T + r[1]) * 2 + r[2] for r in rows],
                                               nlabels * T * 2))
    np.testing.assert_array_equal(H(out.edge_id_renumber_map), [k[2] for k in eorder])
    np.testing.assert_array_equal(H(out.edge_id_renumber_map_label_type_offsets),
                                  _ref_offsets([k[0] * T + k[1] for k in eorder], nlabels * T))


def test_renumber_pipeline_on_a_real_sample(graph):
    """Sampling with 'exclude' feeds compression (no compress_per_hop) without violations."""
    A = graph[0]
    res = S.homogeneous_neighbor_sample(A, [0, 1, 2, 3], [3, 3], with_replacement=False,
                                        prior_sources_behavior="exclude", dedupe_sources=True,
                                        seed=6)
    out = S.renumber_and_compress_sampled_edgelist(res.src, res.dst, hops=res.hop,
                                                   seed_vertices=[0, 1, 2, 3])
    assert H(out.major_offsets)[-1] == len(H(res.src))
    rmap = H(out.renumber_map)
    assert set(rmap[:4]) == {0, 1, 2, 3}  # seeds first


# ---------------------------------------------------------------------- lookup
def test_edge_lookup(graph):
    A, rows, cols, props = graph
    lookup = S.build_edge_id_and_type_lookup(A, props["edge_ids"], props["edge_types"])
    pick = np.array([0, 5, len(rows) - 1, 17])
    src, dst = S.lookup_endpoints(lookup, props["edge_ids"][pick], props["edge_types"][pick])
    np.testing.assert_array_equal(H(src), rows[pick])
    np.testing.assert_array_equal(H(dst), cols[pick])
    t = int(props["edge_types"][5])
    ids = np.array([props["edge_ids"][5], 1, 10**9])
    src, dst = S.lookup_endpoints(lookup, ids, t)
    np.testing.assert_array_equal(H(src), [rows[5], -1, -1])
    np.testing.assert_array_equal(H(dst), [cols[5], -1, -1])
    src, _ = S.lookup_endpoints(lookup, props["edge_ids"][pick], 99)  # unknown type
    assert (H(src) == -1).all()
    with pytest.raises(gg.InvalidValue):
        S.build_edge_id_and_type_lookup(A, np.zeros(len(rows), dtype=np.int64), None)


# ---------------------------------------------------------------------- negative sampling
def test_negative_sampling_removes_edges_and_duplicates(graph):
    A, rows, cols, _ = graph
    edges = set(zip(rows.tolist(), cols.tolist()))
    res = S.negative_sampling(A, 300, remove_existing_edges=True, remove_duplicates=True,
                              exact_number_of_samples=True, seed=3)
    pairs = list(zip(H(res.src).tolist(), H(res.dst).tolist()))
    assert len(pairs) == 300 and len(set(pairs)) == 300
    assert not (set(pairs) & edges)
    loose = S.negative_sampling(A, 300, seed=3)
    assert len(H(loose.src)) == 300
    some = S.negative_sampling(A, 300, remove_existing_edges=True, seed=3)
    assert not (set(zip(H(some.src).tolist(), H(some.dst).tolist())) & edges)
    assert len(H(some.src)) <= 300


def test_negative_sampling_biases_and_capacity():
    A = _star(degree=4)  # 5 vertices, edges 0 -> 1..4
    sb = np.array([1.0, 0, 0, 2.0, 0])
    db = np.array([0, 1.0, 1.0, 0, 3.0])
    res = S.negative_sampling(A, 2000, src_biases=sb, dst_biases=db, seed=8)
    assert set(H(res.src).tolist()) <= {0, 3} and set(H(res.dst).tolist()) <= {1, 2, 4}
    counts = np.bincount(H(res.dst), minlength=5)[[1, 2, 4]]
    assert chisquare(counts, 2000 * np.array([1, 1, 3]) / 5).pvalue > P_PASS
    # admissible pairs: src in {0, 3} x dst in {1, 2, 4}, minus edges (0,1), (0,2), (0,4): 3
    exact = S.negative_sampling(A, 3, src_biases=sb, dst_biases=db, remove_duplicates=True,
                                remove_existing_edges=True, exact_number_of_samples=True,
                                seed=1)
    assert sorted(zip(H(exact.src).tolist(), H(exact.dst).tolist())) == [(3, 1), (3, 2), (3, 4)]
    with pytest.raises(gg.InvalidValue):
        S.negative_sampling(A, 4, src_biases=sb, dst_biases=db, remove_duplicates=True,
                            remove_existing_edges=True, exact_number_of_samples=True)
    with pytest.raises(gg.InvalidValue):
        S.negative_sampling(A, 4, src_biases=np.ones(3))
    with pytest.raises(gg.InvalidValue):
        S.negative_sampling(A, 4, dst_biases=-np.ones(5))


@pytest.mark.parametrize("kwargs", [{"with_replacement": np.zeros(2)}, {"return_hops": "no"},
                                    {"dedupe_sources": None}, {"seed": float("inf")},
                                    {"seed": 2**70}])
def test_wrong_typed_sampling_parameters_raise_invalid_value(graph, kwargs):
    with pytest.raises(gg.InvalidValue):
        S.homogeneous_neighbor_sample(graph[0], [0, 1], [2, 2], **kwargs)


@pytest.mark.parametrize("kwargs", [{"num_samples": float("inf")}, {"num_samples": 10**30},
                                    {"remove_duplicates": np.zeros(2)},
                                    {"exact_number_of_samples": "yes"}, {"seed": float("inf")}])
def test_wrong_typed_negative_sampling_parameters_raise_invalid_value(graph, kwargs):
    args = {"num_samples": 5, **kwargs}
    with pytest.raises(gg.InvalidValue):
        S.negative_sampling(graph[0], **args)


def test_negative_sampling_beyond_memory_is_refused_before_allocating(graph):
    with pytest.raises(gg.AllocFailed):
        S.negative_sampling(graph[0], 10**15)
