"""Graphs to test and benchmark with: Graph500 R-MAT (Kronecker), GAP's uniform random graph
(:func:`urand`), a 2-D grid (:func:`grid`, high diameter), Zachary's karate club, and
:func:`graph`, which turns a CLI spec string into a Matrix.

R-MAT (Chakrabarti, Zhan, Faloutsos, SDM 2004), as the Graph500 reference generator draws it
(``kronecker_generator.m``): N = 2^scale vertices, M = edge_factor * N edges; for each of the
``scale`` bit levels, every edge independently picks a quadrant of the adjacency matrix

    row bit    = U1 > a + b                       (P(row bit 0) = a + b)
    column bit = U2 > (c / (c + d) if row bit else a / (a + b))

so an edge lands in quadrant a / b / c / d with those probabilities at every level; then the
vertex labels go through a random permutation (Graph500 does this so that vertex number says
nothing about degree). All draws are vectorised over the M edges with the backend's ``xp``,
so under CuPy the graph is built on the device. Self loops and duplicate edges are removed
(the result is a simple graph); ``symmetric=True`` gives the undirected graph A | Aᵀ.

Values: ``weighted=False`` gives a structure-only, iso-valued matrix (no value array): BOOL
True by default, or iso 1 of ``dtype`` when given (``dtype=FP32`` gives iso 1.0, which
plus_times / min_plus algorithms can use directly). ``weighted=True`` gives weights uniform
in (0, 1] (FP32 unless ``dtype`` is FP64); an undirected graph has one weight per edge,
stored at both (i, j) and (j, i).

Reproducibility: the same ``seed`` gives the same graph on either backend: every random number
is counter-based (splitmix64 of the seed, the stream and the draw's index, from
kernels.sampling), computed bit for bit alike by NumPy and by a CUDA kernel.
"""
import operator
import os

import numpy as np

from . import backend
from .errors import InvalidValue
from .memory import require
from .kernels.sampling import draw_bits, draw_unit, stream_key
from ._validate import as_flag
from .types import BOOL, FP32, lookup_dtype

__all__ = ["rmat", "rmat_edges", "urand", "grid", "karate", "graph", "KARATE_EDGES"]

# Zachary's karate club (W. W. Zachary, J. Anthropol. Res. 33, 1977): 34 members, 78
# friendships, 0-based (u, v) with u < v; the same graph as networkx.karate_club_graph()
# and LAGraph's data/karate.mtx.
KARATE_EDGES = (
    (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (0, 10), (0, 11),
    (0, 12), (0, 13), (0, 17), (0, 19), (0, 21), (0, 31), (1, 2), (1, 3), (1, 7), (1, 13),
    (1, 17), (1, 19), (1, 21), (1, 30), (2, 3), (2, 7), (2, 8), (2, 9), (2, 13), (2, 27),
    (2, 28), (2, 32), (3, 7), (3, 12), (3, 13), (4, 6), (4, 10), (5, 6), (5, 10), (5, 16),
    (6, 16), (8, 30), (8, 32), (8, 33), (9, 33), (13, 33), (14, 32), (14, 33), (15, 32),
    (15, 33), (18, 32), (18, 33), (19, 33), (20, 32), (20, 33), (22, 32), (22, 33), (23, 25),
    (23, 27), (23, 29), (23, 32), (23, 33), (24, 25), (24, 27), (24, 31), (25, 31), (26, 29),
    (26, 33), (27, 33), (28, 31), (28, 33), (29, 32), (29, 33), (30, 32), (30, 33), (31, 32),
    (31, 33), (32, 33),
)
KARATE_NODES = 34

# random streams beyond the 2 * scale used for the quadrant bits
_PERMUTATION_STREAM = 1 << 20
_WEIGHT_STREAM = (1 << 20) + 1
_MAX_SCALE = 31  # keeps the edge key row * N + col inside int64


def rmat(scale, edge_factor=16, a=0.57, b=0.19, c=0.19, *, seed=None, symmetric=True,
         weighted=False, dtype=None):
    """A Graph500 R-MAT graph with 2**scale vertices as a square Matrix (see the module
    docstring). Simple: no self loops, no duplicate edges. ``symmetric``: undirected
    (A | Aᵀ). ``weighted``: values uniform in (0, 1] (FP32 or FP64), else iso (BOOL True,
    or 1 of ``dtype``). ``seed``: an int for a reproducible graph."""
    symmetric, weighted = as_flag(symmetric, "rmat: symmetric"), as_flag(weighted, "rmat: weighted")
    dt = _value_type(weighted, dtype)
    seed = _seed(seed)
    ii, jj = rmat_edges(scale, edge_factor, a, b, c, seed=seed)
    xp = backend.xp
    n = 1 << scale
    keep = ii != jj  # no self loops
    ii, jj = ii[keep], jj[keep]
    if symmetric:
        return _undirected(n, _sorted_unique(xp.minimum(ii, jj) * n + xp.maximum(ii, jj)),
                           seed, weighted, dt)
    else:
        key = _sorted_unique(ii * n + jj)  # row-major order, duplicates gone
        rows, cols = key // n, key % n
        w = _weights(seed, len(key), dt) if weighted else None
    return _csr_matrix(n, rows, cols, w, dt)


def rmat_edges(scale, edge_factor=16, a=0.57, b=0.19, c=0.19, *, seed, start=0, stop=None):
    """The R-MAT edges numbered [start, stop) of :func:`rmat`'s edge_factor * 2**scale (all
    by default), as (rows, cols) arrays of the backend, vertices relabelled, self loops and
    duplicates still in: each edge depends only on the seed and its number, so workers that
    draw disjoint ranges of numbers draw, together, the edges :func:`rmat` draws."""
    scale, edge_factor = _count(scale, "scale"), _count(edge_factor, "edge_factor")
    if scale > _MAX_SCALE:
        raise InvalidValue(f"rmat: scale={scale} is too large (at most {_MAX_SCALE})")
    a, b, c = (_probability(x, name) for x, name in ((a, "a"), (b, "b"), (c, "c")))
    d = 1.0 - (a + b + c)
    if min(a, b, c) < 0 or d < -1e-12:
        raise InvalidValue(f"rmat: need a, b, c >= 0 with a + b + c <= 1, got {a}, {b}, {c}")
    seed = _seed(seed)
    n = 1 << scale
    m = edge_factor * n
    start = _count(start, "start", "rmat_edges", least=0)
    stop = m if stop is None else _count(stop, "stop", "rmat_edges", least=0)
    if not 0 <= start <= stop <= m:
        raise InvalidValue(f"rmat_edges: need 0 <= start <= stop <= {m}, got {start}, {stop}")
    xp = backend.xp
    # at least ii, jj and the edge counter (int64 each) live at once: refuse before drawing
    require(24 * (stop - start) + 8 * n,
            f"rmat(scale={scale}, edge_factor={edge_factor}) edges [{start}, {stop})")
    ab = a + b
    a_norm = a / ab if ab > 0 else 0.0
    c_norm = c / (1.0 - ab) if ab < 1 else 0.0

    # one bit of every endpoint per level: (row bit, col bit) = quadrant a, b, c or d
    k = stop - start
    ii = xp.zeros(k, dtype=np.int64)
    jj = xp.zeros(k, dtype=np.int64)
    edge = xp.arange(start, stop, dtype=np.int64)
    for bit in range(scale):
        ii_bit = draw_unit(stream_key(seed, 2 * bit), edge) > ab
        jj_bit = draw_unit(stream_key(seed, 2 * bit + 1), edge) > xp.where(ii_bit, c_norm, a_norm)
        ii |= ii_bit.astype(np.int64) << bit
        jj |= jj_bit.astype(np.int64) << bit
    # Graph500's vertex relabelling: a random permutation (the order of random keys)
    perm = xp.argsort(draw_bits(stream_key(seed, _PERMUTATION_STREAM), xp.arange(n)),
                      kind="stable").astype(np.int64)
    return perm[ii], perm[jj]


def urand(scale, edge_factor=16, *, seed=None, symmetric=True, weighted=False, dtype=None):
    """GAP's uniform random graph (``-u SCALE``): 2**scale vertices, edge_factor * 2**scale
    edges with both endpoints uniform, i.e. the R-MAT with a = b = c = d = 1/4; simple, as
    :func:`rmat` (same arguments and values)."""
    return rmat(scale, edge_factor, 0.25, 0.25, 0.25, seed=seed, symmetric=symmetric,
                weighted=weighted, dtype=dtype)


def grid(nrows, ncols=None, *, seed=None, weighted=False, dtype=None):
    """The undirected 2-D grid graph of nrows x ncols vertices (square when ncols is None):
    vertex r * ncols + c joined to its 4 neighbours, diameter nrows + ncols - 2 (a
    high-diameter graph: one BFS level per step). Values as :func:`rmat`'s symmetric ones:
    iso unless ``weighted`` (uniform in (0, 1], one weight per edge, from ``seed``)."""
    nrows = _count(nrows, "nrows", "grid")
    ncols = nrows if ncols is None else _count(ncols, "ncols", "grid")
    weighted = as_flag(weighted, "grid: weighted")
    dt = _value_type(weighted, dtype)
    xp = backend.xp
    n = nrows * ncols
    require(48 * 2 * n, f"grid({nrows}, {ncols})")
    v = xp.arange(n, dtype=np.int64)
    right = v[(v % ncols) != ncols - 1]          # (v, v + 1)
    down = v[v < n - ncols]                       # (v, v + ncols)
    key = xp.sort(xp.concatenate([right * n + right + 1, down * n + down + ncols]))
    return _undirected(n, key, _seed(seed) if weighted else 0, weighted, dt)


def karate(*, dtype=None):
    """Zachary's karate club: 34 vertices, 78 undirected edges stored both ways (156
    entries), structure-only (iso BOOL True, or iso 1 of ``dtype``)."""
    dt = BOOL if dtype is None else lookup_dtype(dtype)
    xp = backend.xp
    e = np.asarray(KARATE_EDGES, dtype=np.int64)
    rows = np.concatenate([e[:, 0], e[:, 1]])
    cols = np.concatenate([e[:, 1], e[:, 0]])
    order = np.argsort(rows * KARATE_NODES + cols)
    return _csr_matrix(KARATE_NODES, xp.asarray(rows[order]), xp.asarray(cols[order]), None,
                       dt)._known_symmetric()


def graph(spec, *, seed=None, **kwargs):
    """A Matrix from a CLI spec: ``'karate'``, ``'rmat:SCALE[:EDGE_FACTOR]'``,
    ``'urand:SCALE[:EDGE_FACTOR]'``, ``'grid:SCALE'`` (2**scale vertices; keyword arguments
    such as ``symmetric``, ``weighted`` or ``dtype`` go to :func:`rmat`, :func:`urand` or
    :func:`grid`, with ``seed``), or the path of a Matrix Market file (``.mtx`` / ``.mtx.gz``; read with
    :func:`grblas_gpu.io.read_mm`)."""
    if not isinstance(spec, (str, os.PathLike)):
        raise InvalidValue(f"graph spec must be a string, got {type(spec).__name__}")
    text = os.fspath(spec)
    low = text.strip().lower()
    if low == "karate":
        return karate(**kwargs)
    kind = low.split(":")[0]
    if kind in ("rmat", "urand", "grid"):
        parts = low.split(":")[1:]
        most = 1 if kind == "grid" else 2
        if not 1 <= len(parts) <= most or not all(p.strip().isdigit() for p in parts):
            form = "grid:SCALE" if kind == "grid" else f"{kind}:SCALE[:EDGE_FACTOR]"
            raise InvalidValue(f"graph spec {text!r}: expected '{form}' with non-negative "
                               "integers")
        scale = int(parts[0])
        if kind == "grid":  # 2**scale vertices, as square as a power of two allows
            return grid(1 << (scale // 2), 1 << (scale - scale // 2), seed=seed, **kwargs)
        edge_factor = int(parts[1]) if len(parts) > 1 else 16
        return (rmat if kind == "rmat" else urand)(scale, edge_factor, seed=seed, **kwargs)
    if low.endswith((".mtx", ".mtx.gz", ".mm")) or os.path.isfile(text):
        if kwargs:
            raise InvalidValue(f"graph spec {text!r}: options {sorted(kwargs)} do not apply to "
                               "a file")
        from .io import read_mm

        return read_mm(text)
    raise InvalidValue(f"unknown graph spec {text!r}: expected 'karate', "
                       "'rmat:SCALE[:EDGE_FACTOR]', 'urand:SCALE[:EDGE_FACTOR]', "
                       "'grid:SCALE' or the path of a .mtx file")


# ---------------------------------------------------------------------- helpers
def _undirected(n, key, seed, weighted, dt):
    """The symmetric Matrix of the sorted, distinct undirected edge keys lo * n + hi (lo <
    hi): each stored both ways, its weight drawn once and used both ways."""
    xp = backend.xp
    lo, hi = key // n, key % n
    both = xp.concatenate([key, hi * n + lo])
    if weighted:
        w = _weights(seed, len(key), dt)
        order = xp.argsort(both)
        both, w = both[order], xp.concatenate([w, w])[order]
    else:
        both.sort()
        w = None
    # symmetric by construction: is_symmetric (PageRank's and BFS's first question) is known
    return _csr_matrix(n, both // n, both % n, w, dt)._known_symmetric()


def _count(x, what, who="rmat", least=None):
    """An integer argument of at least ``least`` (default: 0 for a scale, else 1); a float,
    even 3.0, or a bool is refused."""
    least = (0 if what == "scale" else 1) if least is None else least
    try:
        v = operator.index(x)
    except TypeError:
        raise InvalidValue(f"{who}: {what} must be an integer, got {x!r}") from None
    if isinstance(x, (bool, np.bool_)) or v < least:
        raise InvalidValue(f"{who}: {what} must be an integer >= {least}, got {x!r}")
    return v


def _probability(x, what):
    """A real number in [0, 1]."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise InvalidValue(f"rmat: {what} must be a number in [0, 1], got {x!r}")
    x = float(x)
    if not 0.0 <= x <= 1.0:
        raise InvalidValue(f"rmat: {what} must be a number in [0, 1], got {x!r}")
    return x


def _value_type(weighted, dtype):
    if not weighted:
        return BOOL if dtype is None else lookup_dtype(dtype)
    dt = FP32 if dtype is None else lookup_dtype(dtype)
    if not dt.is_float:
        raise InvalidValue(f"rmat: weighted=True needs a float dtype (FP32 or FP64), got {dt}")
    return dt


def _sorted_unique(key):
    """Sorted distinct keys (sort + neighbour compare: faster than unique's hashing)."""
    key = backend.xp.sort(key)
    if len(key) < 2:
        return key
    first = backend.xp.concatenate([backend.xp.ones(1, dtype=bool), key[1:] != key[:-1]])
    return key[first]


def _weights(seed, k, dt):
    """k weights uniform in (0, 1]: 1 - U with U uniform in [0, 1)."""
    u = draw_unit(stream_key(seed, _WEIGHT_STREAM), backend.xp.arange(k, dtype=np.int64))
    return (1.0 - u).astype(dt.np_type)


def _seed(seed):
    """A non-negative int seed (a fresh one when None)."""
    if seed is None:
        return int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
    try:
        value = operator.index(seed)
    except TypeError:
        value = -1
    if value < 0 or isinstance(seed, (bool, np.bool_)):
        raise InvalidValue(f"rmat: seed must be a non-negative integer, got {seed!r}")
    return value


def _csr_matrix(n, rows, cols, values, dt):
    """Trusted build from row-major sorted, duplicate-free coordinates on the backend."""
    from .matrix import Matrix

    xp = backend.xp
    indptr = xp.searchsorted(rows, xp.arange(n + 1, dtype=rows.dtype), side="left")
    return Matrix._from_csr(n, n, dt, indptr, cols, values)
