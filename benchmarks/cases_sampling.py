"""Neighbour sampling benchmark (issue 34): cuGraph's uniform neighbour sample, GraphSAGE's
shape, against the same sampling written directly with array primitives.

    sampling    algorithms.uniform_neighbor_sample(A, seeds, [10, 10, 10],
                with_replacement=True / False) (the default call otherwise) on the undirected
                R-MAT at ``scale`` (edge factor 16) from ``seeds`` random non-isolated vertices
                (fixed seed, without replacement while there are enough). Throughput = sampled
                edges (result rows) per second. Peer: the same sampling as a plain loop of
                array operations (CuPy on the GPU, NumPy on the host; ``_peer``): per hop,
                gather degrees, draw k offsets per source (Floyd's algorithm vectorised over
                sources without replacement), compact by a boolean mask; the next hop's
                sources are the picked destinations, as ours by default. No graph-sampling
                library (PyG, DGL, cuGraph) is installed on the device.
                Check (ours and the peer's): every (src, dst) an edge of A; at each hop h,
                each vertex v appearing m times among hop h's sources (the seeds at hop 0,
                hop h-1's destinations after) is the src of m·c(v) rows, c(v) = k if deg(v) > 0
                else 0 with replacement, min(deg(v), k) without; without replacement no
                (hop, src, dst) repeats more than m times (each occurrence's picks distinct).

Rows as benchmarks.run expects (case, scale, method, seconds, ...); ours carries
"vs <peer>" = our time / the peer's (below 1: ours is faster) and "check passed".
"""
import numpy as np

from grblas_gpu import algorithms
from grblas_gpu import backend

from .cases_algorithms import graph
from .run import timed

xp = backend.xp

CASES = [("sampling", {"scale": 22})]

SEED = 20261203
FAN_OUT = (10, 10, 10)


def pick_seeds(A, count, seed=SEED):
    """``count`` non-isolated vertices, uniform (without replacement while there are enough),
    as a backend int64 array."""
    deg = np.diff(backend.to_host(A.to_csr(device=True, values=False)[0]))
    live = np.flatnonzero(deg > 0)
    rng = np.random.default_rng(seed)
    return xp.asarray(rng.choice(live, count, replace=count > len(live)).astype(np.int64))


class _Edges:
    """A's CSR on the device and its sorted keys row·n + col: what the check reads."""

    def __init__(self, A):
        self.n = A.nrows
        self.indptr, self.indices, _ = A.to_csr(device=True, values=False)
        rows = A.to_coo(device=True, values=False)[0]
        self.keys = rows.astype(np.int64) * self.n + self.indices.astype(np.int64)
        self.deg = xp.diff(self.indptr).astype(np.int64)


def check_sample(E, seeds, fan_out, with_replacement, src, dst, hop):
    """None when (src, dst, hop) is a valid default-call sample from ``seeds`` (see the
    module docstring), else what is wrong."""
    n = E.n
    src, dst, hop = (a.astype(np.int64) for a in (src, dst, hop))
    if len(src):
        key = src * n + dst
        pos = xp.minimum(xp.searchsorted(E.keys, key), len(E.keys) - 1)
        if len(E.keys) == 0 or not bool(backend.to_scalar((E.keys[pos] == key).all())):
            return "a sampled pair is not an edge of A"
    mult = xp.bincount(seeds.astype(np.int64), minlength=n)  # occurrences among hop 0's sources
    for h, k in enumerate(fan_out):
        at = hop == h
        s, d = src[at], dst[at]
        c = xp.where(E.deg > 0, k, 0) if with_replacement else xp.minimum(E.deg, k)
        if not bool(backend.to_scalar((xp.bincount(s, minlength=n) == mult * c).all())):
            return f"hop {h}: a source has the wrong number of picks"
        if not with_replacement and len(s):
            sd = xp.sort(s * n + d)
            first = xp.concatenate([xp.ones(1, dtype=bool), sd[1:] != sd[:-1]])
            starts = xp.flatnonzero(first)
            runs = xp.diff(xp.concatenate([starts, xp.asarray([len(sd)])]))
            if not bool(backend.to_scalar((runs <= mult[sd[starts] // n]).all())):
                return f"hop {h}: an occurrence picked the same edge twice"
        mult = xp.bincount(d, minlength=n)  # hop h + 1's sources are hop h's destinations
    if len(hop) and int(backend.to_scalar(hop.max())) >= len(fan_out):
        return "a row has a hop beyond the fan-out"
    return None


def _peer(E, seeds, fan_out, with_replacement, rng):
    """The same sampling as plain array operations: (src, dst, hop)."""
    srcs, dsts, hops = [], [], []
    v = seeds
    for h, k in enumerate(fan_out):
        start = E.indptr[v].astype(np.int64)
        deg = E.indptr[v + 1].astype(np.int64) - start
        j = xp.arange(k, dtype=np.int64)[None, :]
        bits = rng.integers(0, 2**62, size=(len(v), k), dtype=np.int64)
        if with_replacement:
            local = bits % xp.maximum(deg, 1)[:, None]
            keep = xp.broadcast_to(deg[:, None] > 0, local.shape)
        else:
            # Floyd: for j = deg-k .. deg-1 draw r in [0, j]; take r unless taken, else j
            local = xp.broadcast_to(j, (len(v), k)).copy()       # deg <= k: every edge
            big = deg > k
            for step in range(k):
                jj = deg - k + step
                r = bits[:, step] % xp.maximum(jj + 1, 1)
                seen = ((local[:, :step] == r[:, None]).any(axis=1) if step
                        else xp.zeros(len(v), dtype=bool))
                local[:, step] = xp.where(big, xp.where(seen, jj, r), local[:, step])
            keep = j < deg[:, None]
        edge = (start[:, None] + local)[keep]
        s = xp.broadcast_to(v[:, None], local.shape)[keep]
        d = E.indices[edge].astype(np.int64)
        srcs.append(s)
        dsts.append(d)
        hops.append(xp.full(len(d), h, dtype=np.int32))
        v = d
    return xp.concatenate(srcs), xp.concatenate(dsts), xp.concatenate(hops)


def _generator():
    return xp.random.default_rng(SEED) if backend.is_gpu else np.random.default_rng(SEED)


def sampling(scale=22, reps=10, seeds=1024, fan_out=FAN_OUT):
    A = graph(scale, "undirected")
    S = pick_seeds(A, seeds)
    fan = list(fan_out)
    E = _Edges(A)
    rows = []
    for replace in (True, False):
        label = "with replacement" if replace else "without replacement"
        secs, res = timed(lambda: algorithms.uniform_neighbor_sample(
            A, S, fan, with_replacement=replace, seed=SEED), reps)
        edges = len(res.src)
        row = {"case": "sampling", "scale": scale, "method": f"grblas_gpu {label}",
               "seconds": secs, "ms": secs * 1e3, "n": A.nrows, "nnz": A.nvals,
               "seeds": len(S), "fan_out": "/".join(map(str, fan)), "edges": edges,
               "M edges/s": edges / secs / 1e6}
        rng = _generator()
        p_secs, (ps, pd, ph) = timed(lambda: _peer(E, S, fan, replace, rng), reps)
        p_edges = len(ps)
        what = "CuPy" if backend.is_gpu else "NumPy"
        rows.append(row)
        rows.append({"case": "sampling", "scale": scale,
                     "method": f"{what} array loop {label}", "seconds": p_secs,
                     "ms": p_secs * 1e3, "edges": p_edges, "M edges/s": p_edges / p_secs / 1e6})
        row[f"vs {what} loop"] = (secs / edges) / (p_secs / p_edges) if p_edges else None
        ours = check_sample(E, S, fan, replace, res.src, res.dst, res.hop)
        peer = check_sample(E, S, fan, replace, ps, pd, ph)
        row["check"] = ours or "ok"
        row["peer check"] = peer or "ok"
        row["check passed"] = ours is None and peer is None
    return rows


def run(name, **params):
    return {"sampling": sampling}[name](**params)
