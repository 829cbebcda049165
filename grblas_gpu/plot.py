"""Pictures and text renderings of small graphs, vectors and algorithm traces (for teaching).

Drawing (needs the ``plot`` extra: ``pip install grblas-gpu[plot]``, i.e. matplotlib):

    plot_graph(A, node_values=None, *, title, ax, layout, seed, ...)
                                      a small graph, a vector as the node colours
    plot_frontier(trace_records, *, distances=None, ...)
                                      BFS: frontier size and push/pull per level
    plot_residual(trace_records, *, tolerance=None, ...)
                                      PageRank (or any solver): residual per iteration, log y
    plot_sparsity(A, *, values=False, ...)
                                      a matrix's sparsity pattern
    plot_result(algo, A, result, path)
                                      what ``grblas-gpu run ALGO GRAPH --plot PNG`` draws

Every drawing function validates its arguments first (DimensionMismatch, InvalidValue), then
imports matplotlib (NotSupported when it is missing), draws into ``ax`` when given or into a
new figure, saves a PNG when ``path`` is given, and returns the Axes. New figures are built
with ``matplotlib.figure.Figure`` and rendered by the Agg canvas: pyplot and its global
backend are never touched, so this works on a headless machine and leaves no figure open. A
saved PNG is ``figsize * dpi`` pixels exactly (no tight bounding box) and carries no
"Software" metadata, so the same input gives the same bytes with one matplotlib.

Text (no matplotlib): :func:`format_vector`, :func:`format_matrix` (a small matrix with '.'
for the entries it does not hold), :func:`format_record` and :func:`format_trace` (an
algorithm's trace dicts as one line each, or as a table).

Layouts: 'spring' (Fruchterman & Reingold 1991, computed here with NumPy, deterministic for a
``seed``; O(n²) per step, so at most SPRING_MAX_VERTICES vertices), 'circular', or an (n, 2)
array of positions. Node values that are absent (a Vector's missing entries), NaN or ±inf,
or nvGRAPH's "unreached" markers (2**31 - 1 in an integer array, ±FLT_MAX / ±DBL_MAX in a
float one) are drawn as hollow grey nodes.
"""
import math

import numpy as np

from . import backend
from .errors import DimensionMismatch, InvalidValue, NotSupported

__all__ = ["plot_graph", "plot_frontier", "plot_residual", "plot_sparsity", "plot_result",
           "spring_layout", "circular_layout", "format_vector", "format_matrix",
           "format_record", "format_trace", "label_colour", "RESULT_ALGORITHMS",
           "SPRING_MAX_VERTICES", "DRAW_MAX_VERTICES"]

SPRING_MAX_VERTICES = 2000    # the spring layout holds n x n x 2 distances per step
DRAW_MAX_VERTICES = 300       # plot_result draws the graph itself up to this size
_INT32_UNREACHED = 2**31 - 1  # nvGRAPH's BFS distance of an unreached vertex
_PUSH_PULL_COLOURS = {"push": "#1f77b4", "pull": "#ff7f0e"}
_PNG_METADATA = {"Software": None}


# ----------------------------------------------------------------------------- helpers
def _matplotlib():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise NotSupported("grblas_gpu.plot needs matplotlib: install grblas-gpu[plot]") from None
    return matplotlib, Figure


def _new_axes(ax, figsize, dpi):
    """(fig, ax): the given Axes' figure, or a new Agg-rendered Figure with one Axes."""
    _, Figure = _matplotlib()
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=figsize, dpi=dpi, layout="constrained")
    return fig, fig.add_subplot(1, 1, 1)


def _finish(fig, ax, path, dpi):
    if path is not None:
        # savefig renders a PNG with Agg whatever canvas the figure has
        fig.savefig(path, format="png", dpi=dpi, metadata=_PNG_METADATA)
    return ax


def _check_figure_args(figsize, dpi):
    try:
        w, h = (float(x) for x in figsize)
        dpi = float(dpi)
    except (TypeError, ValueError):
        raise InvalidValue(f"figsize must be (width, height) in inches and dpi a number, "
                           f"got {figsize!r}, {dpi!r}") from None
    if not (w > 0 and h > 0 and dpi > 0):
        raise InvalidValue(f"figsize and dpi must be positive, got {figsize!r}, {dpi!r}")


def _check_matrix(A, what="A", square=True):
    from .matrix import Matrix

    if not isinstance(A, Matrix):
        raise InvalidValue(f"{what} must be a grblas_gpu.Matrix, got {type(A).__name__}")
    if square and A.nrows != A.ncols:
        raise DimensionMismatch(f"{what} must be square (an adjacency matrix), got {A.shape}")
    return A.nrows


def _host_values(x, n, what):
    """(values as float64, present mask) on the host, from a Vector, an array or a list."""
    from .vector import Vector

    if isinstance(x, Vector):
        if x.size != n:
            raise DimensionMismatch(f"{what} has size {x.size}, the graph has {n} vertices")
        idx, vals = x.to_coo()
        out = np.zeros(n, dtype=np.float64)
        present = np.zeros(n, dtype=bool)
        out[idx] = np.asarray(vals, dtype=np.float64)
        present[idx] = True
        kind = np.dtype(x.dtype.np_type).kind
    else:
        try:
            raw = backend.to_host(x) if hasattr(x, "shape") else np.asarray(x)
        except Exception:  # noqa: BLE001
            raise InvalidValue(f"{what} must be a Vector or a 1-D array, "
                               f"got {type(x).__name__}") from None
        raw = np.asarray(raw)
        if raw.ndim != 1:
            raise InvalidValue(f"{what} must be 1-D, got shape {raw.shape}")
        if raw.shape[0] != n:
            raise DimensionMismatch(f"{what} has length {raw.shape[0]}, the graph has {n} "
                                    "vertices")
        if raw.dtype.kind not in "biuf":
            raise InvalidValue(f"{what} must hold numbers, got dtype {raw.dtype}")
        out = raw.astype(np.float64)
        present = np.ones(n, dtype=bool)
        kind = raw.dtype.kind
    present &= np.isfinite(out)
    if kind in "iu":
        present &= out != _INT32_UNREACHED
    elif kind == "f":
        big = np.abs(out) >= np.finfo(np.float32).max * (1 - 1e-7)
        present &= ~big
    return out, present


def _pattern_coo(A):
    """(rows, cols) of A's stored entries on the host, without the diagonal."""
    rows, cols, _ = A.to_coo()
    keep = rows != cols
    return rows[keep].astype(np.int64), cols[keep].astype(np.int64)


# ----------------------------------------------------------------------------- layouts
def spring_layout(A, *, seed=0, iterations=200):
    """(n, 2) positions in [-1, 1]² by Fruchterman-Reingold force-directed placement.

    Vertices repel with force k²/d and edges (taken undirected) attract with d²/k, k = 1/√n;
    each step moves a vertex by at most the temperature, which cools linearly to 0; a weak
    pull to the centre keeps separate components near each other. Deterministic for a seed.
    """
    n = _check_matrix(A)
    if n > SPRING_MAX_VERTICES:
        raise InvalidValue(f"spring_layout: {n} vertices is more than SPRING_MAX_VERTICES "
                           f"({SPRING_MAX_VERTICES}); pass layout='circular' or positions")
    rows, cols = _pattern_coo(A)
    return _spring(n, rows, cols, seed, iterations)


def _spring(n, rows, cols, seed, iterations):
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-1.0, 1.0, size=(n, 2))
    if n <= 1:
        return np.zeros((n, 2))
    und = np.unique(np.minimum(rows, cols) * n + np.maximum(rows, cols))
    ei, ej = und // n, und % n
    k = math.sqrt(4.0 / n)            # the ideal edge length in a 2 x 2 box
    t0 = 0.2
    for step in range(iterations):
        temp = t0 * (1.0 - step / iterations) + 1e-3
        delta = pos[:, None, :] - pos[None, :, :]               # (n, n, 2)
        dist = np.sqrt((delta ** 2).sum(-1))
        np.fill_diagonal(dist, 1.0)
        dist = np.maximum(dist, 1e-3)
        disp = (delta * (k * k / dist ** 2)[:, :, None]).sum(1)  # repulsion k²/d along delta/d
        d_e = pos[ei] - pos[ej]
        l_e = np.maximum(np.sqrt((d_e ** 2).sum(-1)), 1e-3)
        f_e = d_e * (l_e / k)[:, None]                           # attraction d²/k along d/d
        np.subtract.at(disp, ei, f_e)
        np.add.at(disp, ej, f_e)
        disp -= 0.05 * pos * n * k                               # gravity
        length = np.maximum(np.sqrt((disp ** 2).sum(-1)), 1e-9)
        pos += disp / length[:, None] * np.minimum(length, temp)[:, None]
    pos -= pos.mean(0)
    _, _, vt = np.linalg.svd(pos, full_matrices=False)
    pos = pos @ vt.T                                             # widest spread along x
    pos *= np.where(pos[0] < 0, -1.0, 1.0) if n else 1.0          # vertex 0 on the right/top
    scale = np.abs(pos).max()
    return pos / scale if scale > 0 else pos


def circular_layout(n):
    """(n, 2) positions on the unit circle, vertex 0 at the top, going clockwise."""
    a = np.pi / 2 - 2 * np.pi * np.arange(n) / max(n, 1)
    return np.stack([np.cos(a), np.sin(a)], axis=1)


def _layout(A, layout, seed):
    n = A.nrows
    if isinstance(layout, str):
        if layout == "spring":
            return spring_layout(A, seed=seed)
        if layout == "circular":
            return circular_layout(n)
        raise InvalidValue(f"layout must be 'spring', 'circular' or an (n, 2) array, "
                           f"got {layout!r}")
    pos = np.asarray(backend.to_host(layout) if hasattr(layout, "shape") else layout,
                     dtype=np.float64)
    if pos.ndim != 2 or pos.shape[1] != 2:
        raise InvalidValue(f"layout positions must have shape (n, 2), got {pos.shape}")
    if pos.shape[0] != n:
        raise DimensionMismatch(f"layout has {pos.shape[0]} positions, the graph has {n} "
                                "vertices")
    return pos


# ----------------------------------------------------------------------------- plot_graph
def plot_graph(A, node_values=None, *, title=None, ax=None, layout="spring", seed=0,
               labels=None, edge_labels=False, highlight=None, directed=None, cmap="viridis",
               colorbar_label=None, discrete=None, path=None, figsize=(5.0, 4.0), dpi=100):
    """Draw the graph of the square matrix A (A(i, j): an edge i -> j), a vector as node colours.

    ``node_values``: a Vector or a 1-D array of length n (BFS level, distance, rank, cluster),
    or None. ``layout``: 'spring' (with ``seed``), 'circular' or (n, 2) positions.
    ``labels``: write vertex numbers (default: when n <= 60). ``edge_labels``: write each
    edge's value (for a handful of edges). ``highlight``: vertices to ring in red (a source,
    a frontier). ``directed``: draw arrows (default: when A's pattern is not symmetric).
    ``discrete``: a colour per integer value (default: when the values are few integers).
    ``path``: save a PNG there. Returns the Axes.
    """
    n = _check_matrix(A)
    _check_figure_args(figsize, dpi)
    values, present = (None, None) if node_values is None else _host_values(
        node_values, n, "node_values")
    pos = _layout(A, layout, seed)
    hl = _vertex_list(highlight, n, "highlight")
    rows, cols = _pattern_coo(A)
    if directed is None:
        directed = not A.is_symmetric(structure=True)
    if labels is None:
        labels = n <= 60

    matplotlib, _ = _matplotlib()
    from matplotlib.collections import LineCollection
    from matplotlib.patches import FancyArrowPatch

    fig, ax = _new_axes(ax, figsize, dpi)
    size = float(np.clip(5000.0 / max(n, 1), 12.0, 420.0))
    radius_pts = math.sqrt(size) / 2.0
    edge_colour = "#8c8c8c"
    ev = _edge_values(A) if edge_labels else None
    if directed and rows.size <= 2000:
        keys = set((rows * n + cols).tolist())
        for k, (i, j) in enumerate(zip(rows.tolist(), cols.tolist())):
            rad = 0.18 if (j * n + i) in keys else 0.0
            ax.add_patch(FancyArrowPatch(pos[i], pos[j], arrowstyle="-|>", mutation_scale=10,
                                         connectionstyle=f"arc3,rad={rad}", color=edge_colour,
                                         lw=1.0, shrinkA=radius_pts, shrinkB=radius_pts + 1,
                                         zorder=1))
            if ev is not None:
                _edge_text(ax, pos[i], pos[j], rad, ev.get((i, j)))
    else:
        if directed:
            segs = np.stack([pos[rows], pos[cols]], axis=1)
        else:
            keep = rows < cols
            segs = np.stack([pos[rows[keep]], pos[cols[keep]]], axis=1)
        ax.add_collection(LineCollection(segs, colors=edge_colour, linewidths=0.8, zorder=1))
        if ev is not None:
            for (i, j), val in ev.items():
                if directed or i < j:
                    _edge_text(ax, pos[i], pos[j], 0.0, val)

    face = np.array(["#ffffff"] * n, dtype=object)
    if values is None:
        ax.scatter(pos[:, 0], pos[:, 1], s=size, c="#c6dbef", edgecolors="#2b2b2b",
                   linewidths=0.8, zorder=2)
        face[:] = "#c6dbef"
    else:
        shown = values[present]
        if discrete is None:
            discrete = (shown.size > 0 and np.all(shown == np.round(shown))
                        and np.unique(shown).size <= 12)
        cm = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
        if discrete and shown.size:
            lo, hi = int(shown.min()), int(shown.max())
            bounds = np.arange(lo, hi + 2) - 0.5
            norm = matplotlib.colors.BoundaryNorm(bounds, cm.N)
        else:
            lo = float(shown.min()) if shown.size else 0.0
            hi = float(shown.max()) if shown.size else 1.0
            norm = matplotlib.colors.Normalize(lo, hi if hi > lo else lo + 1.0)
        if (~present).any():
            ax.scatter(pos[~present, 0], pos[~present, 1], s=size, c="#f0f0f0",
                       edgecolors="#9a9a9a", linewidths=0.8, linestyle="--", zorder=2,
                       label="no finite value")
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), fontsize=7,
                      frameon=False, markerscale=0.6)
        sc = ax.scatter(pos[present, 0], pos[present, 1], s=size, c=shown, cmap=cm,
                        norm=norm, edgecolors="#2b2b2b", linewidths=0.8, zorder=2)
        cb = fig.colorbar(sc, ax=ax, fraction=0.046, pad=0.02, shrink=0.8)
        if discrete and shown.size:
            ticks = np.arange(lo, hi + 1)
            if ticks.size > 12:
                ticks = ticks[:: int(math.ceil(ticks.size / 12))]
            cb.set_ticks(ticks)
        if colorbar_label:
            cb.set_label(colorbar_label)
        cb.ax.tick_params(labelsize=8)
        rgba = cm(norm(np.where(present, values, lo)))
        for i in range(n):
            face[i] = rgba[i] if present[i] else "#f0f0f0"
    if hl:
        ax.scatter(pos[hl, 0], pos[hl, 1], s=size * 1.9, facecolors="none",
                   edgecolors="#d62728", linewidths=2.0, zorder=3)
    if labels:
        fs = 8 if n <= 20 else 6
        for i in range(n):
            ax.text(pos[i, 0], pos[i, 1], str(i), ha="center", va="center", fontsize=fs,
                    color=_text_colour(face[i], matplotlib), zorder=4)
    pad = 0.12
    ax.set_xlim(pos[:, 0].min() - pad, pos[:, 0].max() + pad) if n else None
    ax.set_ylim(pos[:, 1].min() - pad, pos[:, 1].max() + pad) if n else None
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=10)
    return _finish(fig, ax, path, dpi)


def _vertex_list(v, n, what):
    if v is None:
        return []
    items = [v] if np.isscalar(v) else list(backend.to_host(v) if hasattr(v, "shape") else v)
    out = []
    for x in items:
        try:
            ix = int(x)
        except (TypeError, ValueError):
            raise InvalidValue(f"{what} must hold vertex numbers, got {x!r}") from None
        if not 0 <= ix < n:
            raise InvalidValue(f"{what}: vertex {ix} is not in [0, {n})")
        out.append(ix)
    return out


def _edge_values(A):
    rows, cols, vals = A.to_coo()
    return {(int(i), int(j)): v for i, j, v in zip(rows, cols, np.asarray(vals).tolist())
            if i != j}


def _edge_text(ax, p, q, rad, val):
    if val is None:
        return
    mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
    dx, dy = q[0] - p[0], q[1] - p[1]
    x, y = mx + 0.5 * rad * dy, my - 0.5 * rad * dx
    text = f"{val:.3g}" if isinstance(val, float) else str(val)
    ax.text(x, y, text, fontsize=7, ha="center", va="center", color="#444444", zorder=3,
            bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.8))


def _text_colour(face, matplotlib):
    return label_colour(matplotlib.colors.to_rgba(face)[:3])


def label_colour(rgb):
    """'black' or 'white', whichever contrasts more with the sRGB colour ``rgb`` (components
    in [0, 1]): WCAG 2's relative luminance L of the linearised components; black's contrast
    (L + 0.05) / 0.05 beats white's 1.05 / (L + 0.05) from L = 0.179 up, so labels stay
    readable on viridis' bright greens and yellows as on its dark blues."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "black" if (lum + 0.05) ** 2 > 0.05 * 1.05 else "white"


# ----------------------------------------------------------------------------- traces
def _records(trace_records, what):
    try:
        recs = list(trace_records)
    except TypeError:
        raise InvalidValue(f"{what}: trace_records must be a list of dicts") from None
    if not all(isinstance(r, dict) for r in recs):
        raise InvalidValue(f"{what}: trace_records must be a list of dicts")
    return recs


def plot_frontier(trace_records, *, distances=None, title=None, ax=None, log=None, path=None,
                  figsize=(5.0, 3.2), dpi=100):
    """Bars of the BFS frontier size per level, coloured by the direction (push / pull).

    ``trace_records``: the dicts algorithms.bfs sends its ``trace`` callback ({iteration,
    direction, frontier, edges, ...}). A level whose record has no frontier size (bfs does
    not count the frontier when pushing) takes it from ``distances`` (the distances array
    bfs returns: the frontier of level k is the vertices at distance k) when given; else it
    is drawn as an empty bar with its edges-out-of-frontier count written above.
    ``log``: a log y axis (default: when the sizes span more than 100x). Returns the Axes.
    """
    recs = _records(trace_records, "plot_frontier")
    _check_figure_args(figsize, dpi)
    counts = None
    if distances is not None:
        d = np.asarray(backend.to_host(distances) if hasattr(distances, "shape") else distances)
        if d.ndim != 1 or d.dtype.kind not in "iu":
            raise InvalidValue("plot_frontier: distances must be bfs's 1-D integer array")
        reached = d[(d >= 0) & (d != _INT32_UNREACHED)]
        counts = np.bincount(reached.astype(np.int64)) if reached.size else np.zeros(0, int)
    levels, sizes, dirs, edges = [], [], [], []
    for k, r in enumerate(recs):
        level = int(r.get("iteration", k + 1))
        f = r.get("frontier")
        if f is None and counts is not None:
            f = int(counts[level]) if level < counts.size else 0
        levels.append(level)
        sizes.append(None if f is None else int(f))
        dirs.append(str(r.get("direction", "?")))
        edges.append(r.get("edges"))
    _, _ = _matplotlib()
    from matplotlib.patches import Patch

    fig, ax = _new_axes(ax, figsize, dpi)
    known = [s for s in sizes if s]
    if log is None:
        log = bool(known) and max(known) > 100 * max(min(known), 1)
    for lv, s, dr, e in zip(levels, sizes, dirs, edges):
        colour = _PUSH_PULL_COLOURS.get(dr, "#7f7f7f")
        if s is None:
            ax.bar(lv, 0, color="none", edgecolor=colour)
            ax.annotate(f"{e} edges" if e is not None else "?", (lv, 1), ha="center",
                        va="bottom", fontsize=7, color=colour)
        else:
            ax.bar(lv, s, color=colour, edgecolor="#2b2b2b", linewidth=0.5)
            ax.annotate(str(s), (lv, max(s, 1)), ha="center", va="bottom", fontsize=7,
                        xytext=(0, 1), textcoords="offset points")
    if log:
        ax.set_yscale("log")
    ax.set_xticks(levels)
    ax.set_xlabel("BFS level (iteration)")
    ax.set_ylabel("frontier size (vertices)")
    used = [d for d in ("push", "pull") if d in dirs]
    ax.legend(handles=[Patch(color=_PUSH_PULL_COLOURS[d], label=d) for d in used],
              fontsize=8, frameon=False)
    ax.margins(y=0.15)
    if title:
        ax.set_title(title, fontsize=10)
    return _finish(fig, ax, path, dpi)


def plot_residual(trace_records, *, tolerance=None, title=None, ax=None, path=None,
                  key="residual", figsize=(5.0, 3.2), dpi=100):
    """The residual per iteration on a log scale (PageRank's trace: {iteration, residual}).

    Records without ``key`` are skipped; records with a 'stage' (spectral clustering's
    solvers) give one line per stage. ``tolerance``: a dashed horizontal line. Returns the
    Axes."""
    recs = _records(trace_records, "plot_residual")
    _check_figure_args(figsize, dpi)
    series = {}
    for k, r in enumerate(recs):
        if r.get(key) is None:
            continue
        try:
            val = float(r[key])
        except (TypeError, ValueError):
            raise InvalidValue(f"plot_residual: {key} must be a number, got {r[key]!r}") from None
        series.setdefault(r.get("stage"), []).append((int(r.get("iteration", k + 1)), val))
    if not series:
        raise InvalidValue(f"plot_residual: no record has a {key!r}")
    _matplotlib()
    fig, ax = _new_axes(ax, figsize, dpi)
    for stage, pts in series.items():
        it, val = zip(*pts)
        val = np.maximum(np.asarray(val, dtype=np.float64), np.finfo(np.float64).tiny)
        ax.plot(it, val, marker="o", markersize=3, linewidth=1.2,
                label=stage if stage is not None else key)
    if tolerance is not None:
        ax.axhline(float(tolerance), color="#d62728", linestyle="--", linewidth=1.0,
                   label=f"tolerance {float(tolerance):g}")
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel(key)
    ax.grid(True, which="major", linewidth=0.4, alpha=0.6)
    if len(series) > 1 or tolerance is not None:
        ax.legend(fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    return _finish(fig, ax, path, dpi)


# ----------------------------------------------------------------------------- sparsity
def plot_sparsity(A, *, values=False, order=None, title=None, ax=None, path=None,
                  markersize=None, cmap="viridis", figsize=(4.0, 4.0), dpi=100):
    """The sparsity pattern of A (row 0 at the top), like MATLAB's spy.

    ``values``: colour each entry by its value (with a colour bar). ``order``: a permutation
    of the rows and columns to draw A(order, order) (e.g. vertices sorted by cluster; A must
    be square). Up to 1000 rows and columns the pattern is an image, one cell per entry;
    beyond, up to 200,000 entries are drawn as points (``markersize``, in points²), more as a
    512 x 512 density image. Returns the Axes."""
    _check_matrix(A, square=order is not None)
    _check_figure_args(figsize, dpi)
    nr, nc = A.nrows, A.ncols
    rows, cols, vals = A.to_coo()
    rows, cols = rows.astype(np.int64), cols.astype(np.int64)
    if order is not None:
        perm = np.asarray(backend.to_host(order) if hasattr(order, "shape") else order)
        if perm.ndim != 1 or perm.shape[0] != nr:
            raise DimensionMismatch(f"plot_sparsity: order must have length {nr}")
        if not np.array_equal(np.sort(perm), np.arange(nr)):
            raise InvalidValue("plot_sparsity: order must be a permutation of 0..n-1")
        inv = np.empty(nr, dtype=np.int64)
        inv[perm.astype(np.int64)] = np.arange(nr)
        rows, cols = inv[rows], inv[cols]
    matplotlib, _ = _matplotlib()
    fig, ax = _new_axes(ax, figsize, dpi)
    if nr == 0 or nc == 0:
        ax.set_xlim(-0.5, max(nc, 1) - 0.5)
        ax.set_ylim(max(nr, 1) - 0.5, -0.5)
    elif max(nr, nc) <= 1000:                # exact: one cell per entry
        img = np.ma.array(np.zeros((nr, nc)), mask=np.ones((nr, nc), dtype=bool))
        img[rows, cols] = np.asarray(vals, dtype=np.float64) if values else 1.0
        cm = (matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap) if values else \
            matplotlib.colors.ListedColormap(["#1f3b73"])
        im = ax.imshow(img, cmap=cm, interpolation="nearest", aspect="equal",
                       extent=(-0.5, nc - 0.5, nr - 0.5, -0.5))
        if values and rows.size:
            fig.colorbar(im, ax=ax, fraction=0.046, pad=0.02).ax.tick_params(labelsize=8)
    elif rows.size <= 200_000:
        ms = 1.0 if markersize is None else float(markersize)
        ax.scatter(cols, rows, s=ms, c="#1f3b73", marker="s", linewidths=0)
        ax.set_xlim(-0.5, nc - 0.5)
        ax.set_ylim(nr - 0.5, -0.5)
    else:
        bins = (min(nr, 512), min(nc, 512))
        h, _, _ = np.histogram2d(rows, cols, bins=bins, range=[[0, nr], [0, nc]])
        im = ax.imshow(np.log1p(h), cmap="Greys", extent=(0, nc, nr, 0), aspect="auto",
                       interpolation="nearest")
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.02).set_label("log(1 + entries)")
    ax.xaxis.tick_top()
    ax.tick_params(labelsize=8)
    ax.set_xlabel(f"{nr} x {nc}, {A.nvals} entries", fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    return _finish(fig, ax, path, dpi)


# ----------------------------------------------------------------------------- plot_result
RESULT_ALGORITHMS = ("bfs", "sssp", "widest_path", "pagerank", "triangle_count",
                     "spectral_clustering", "connected_components", "betweenness")


def plot_result(algo, A, result, path, *, figsize=(6.0, 4.5), dpi=100):
    """Draw what ``algorithms.<algo>`` returned for the graph A and save it as a PNG at path
    (the CLI's ``--plot``). Graphs up to DRAW_MAX_VERTICES vertices are drawn with the result
    as node colours (clusters for spectral_clustering, components for connected_components;
    for triangle_count, which returns only a number, the plain graph); larger ones as a
    chart: vertices per level (bfs), a histogram of the values (sssp, widest_path,
    betweenness) or of the component sizes (connected_components), ranks in decreasing
    order on log axes (pagerank), the sparsity pattern (triangle_count) or the pattern with
    vertices sorted by cluster (spectral_clustering). ``algo``: one of RESULT_ALGORITHMS.
    Returns the Axes."""
    if algo not in RESULT_ALGORITHMS:
        raise InvalidValue(f"plot_result: unknown algorithm {algo!r}; choose from "
                           f"{', '.join(RESULT_ALGORITHMS)}")
    n = _check_matrix(A)
    if path is None:
        raise InvalidValue("plot_result: a path for the PNG is required")
    _check_figure_args(figsize, dpi)
    small = n <= DRAW_MAX_VERTICES
    if algo == "bfs":
        if not (isinstance(result, tuple) and len(result) == 2):
            raise InvalidValue("plot_result: bfs's result is (distances, predecessors)")
        dist, _ = result
        d, present = _host_values(dist, n, "distances")
        src = np.flatnonzero(present & (d == 0)).tolist()
        if small:
            return plot_graph(A, dist, title=f"BFS levels from {src[0] if src else '?'}",
                              highlight=src, colorbar_label="level", path=path,
                              figsize=figsize, dpi=dpi)
        counts = np.bincount(d[present].astype(np.int64))
        return _bar_chart(np.arange(counts.size), counts, "BFS level", "vertices",
                          f"BFS: {int(present.sum())} of {n} vertices reached", path,
                          figsize, dpi)
    if algo == "connected_components":
        labels, _ = _host_values(result, n, "labels")
        sizes = np.unique(labels, return_counts=True)[1] if n else np.zeros(0, int)
        title = f"{sizes.size} connected components"
        if small:
            return plot_graph(A, result, title=title, colorbar_label="component", path=path,
                              figsize=figsize, dpi=dpi)
        return _histogram(sizes, "component size (vertices)", title, path, figsize, dpi)
    if algo in ("sssp", "widest_path", "betweenness"):
        d, present = _host_values(result, n, "result")
        what = {"sssp": "distance", "widest_path": "width", "betweenness": "dependency"}[algo]
        if algo == "betweenness":
            title = "betweenness: dependencies on the source"
            if small:
                return plot_graph(A, result, title=title, colorbar_label=what, path=path,
                                  figsize=figsize, dpi=dpi)
            return _histogram(d[present], what, title, path, figsize, dpi)
        if small:
            return plot_graph(A, result, title=f"{algo}: {what} from the source",
                              colorbar_label=what, path=path, figsize=figsize, dpi=dpi)
        return _histogram(d[present], what, f"{algo}: {int(present.sum())} of {n} reached",
                          path, figsize, dpi)
    if algo == "pagerank":
        r, _ = _host_values(result, n, "ranks")
        if small:
            return plot_graph(A, result, title="PageRank", colorbar_label="rank",
                              path=path, figsize=figsize, dpi=dpi)
        _matplotlib()
        fig, ax = _new_axes(None, figsize, dpi)
        ax.loglog(np.arange(1, n + 1), np.sort(r)[::-1], linewidth=1.2)
        ax.set_xlabel("vertices by decreasing rank")
        ax.set_ylabel("rank")
        ax.grid(True, linewidth=0.4, alpha=0.6)
        ax.set_title(f"PageRank of {n} vertices", fontsize=10)
        return _finish(fig, ax, path, dpi)
    if algo == "triangle_count":
        try:
            count = int(result)
        except (TypeError, ValueError):
            raise InvalidValue("plot_result: triangle_count's result is a number") from None
        title = f"{count} triangles"
        if small:
            return plot_graph(A, title=title, path=path, figsize=figsize, dpi=dpi)
        return plot_sparsity(A, title=title, path=path, figsize=figsize, dpi=dpi)
    # spectral_clustering
    if not (isinstance(result, tuple) and len(result) >= 1):
        raise InvalidValue("plot_result: spectral_clustering's result is (clustering, "
                           "eig_vals, eig_vects)")
    labels, _ = _host_values(result[0], n, "clustering")
    k = int(labels.max()) + 1 if n else 0
    title = f"spectral clustering: {k} clusters"
    if small:
        return plot_graph(A, result[0], title=title, colorbar_label="cluster", discrete=True,
                          path=path, figsize=figsize, dpi=dpi)
    return plot_sparsity(A, order=np.argsort(labels, kind="stable"),
                         title=title + " (vertices sorted by cluster)", path=path,
                         figsize=figsize, dpi=dpi)


def _bar_chart(x, y, xlabel, ylabel, title, path, figsize, dpi):
    _matplotlib()
    fig, ax = _new_axes(None, figsize, dpi)
    ax.bar(x, y, color="#1f77b4", edgecolor="#2b2b2b", linewidth=0.5)
    if y.size and y.max() > 100 * max(y[y > 0].min(), 1):
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    return _finish(fig, ax, path, dpi)


def _histogram(v, what, title, path, figsize, dpi):
    _matplotlib()
    fig, ax = _new_axes(None, figsize, dpi)
    ax.hist(v, bins=min(50, max(v.size, 1)), color="#1f77b4", edgecolor="#2b2b2b",
            linewidth=0.4)
    ax.set_xlabel(what)
    ax.set_ylabel("vertices")
    ax.set_title(title, fontsize=10)
    return _finish(fig, ax, path, dpi)


# ----------------------------------------------------------------------------- text
def _fmt_number(x, fmt):
    if isinstance(x, (bool, np.bool_)):
        return "1" if x else "0"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isfinite(x) and x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return "inf" if x == math.inf else "-inf" if x == -math.inf else format(x, fmt)


def format_vector(v, *, fmt=".4g", missing=".", width=None):
    """A vector on one line, '[a b c]', with ``missing`` where a Vector holds no entry.

    ``v``: a Vector, an array or a list. Integral values print without a decimal point,
    others with ``fmt``; every entry is right-aligned to ``width`` characters (default: the
    widest entry), so successive vectors line up when printed one under another."""
    from .vector import Vector

    if isinstance(v, Vector):
        idx, vals = v.to_coo()
        cells = [missing] * v.size
        for i, x in zip(idx.tolist(), np.asarray(vals).tolist()):
            cells[i] = _fmt_number(x, fmt)
    else:
        arr = np.asarray(backend.to_host(v) if hasattr(v, "shape") else v)
        if arr.ndim != 1:
            raise InvalidValue(f"format_vector: expected a 1-D vector, got shape {arr.shape}")
        cells = [_fmt_number(x, fmt) for x in arr.tolist()]
    w = width if width is not None else max((len(c) for c in cells), default=1)
    return "[" + " ".join(c.rjust(w) for c in cells) + "]"


def format_matrix(A, *, fmt=".4g", missing=".", width=None):
    """A small matrix as text, one row a line, ``missing`` where A holds no entry."""
    _check_matrix(A, square=False)
    rows, cols, vals = A.to_coo()
    cells = [[missing] * A.ncols for _ in range(A.nrows)]
    for i, j, x in zip(rows.tolist(), cols.tolist(), np.asarray(vals).tolist()):
        cells[i][j] = _fmt_number(x, fmt)
    w = width if width is not None else max((len(c) for r in cells for c in r), default=1)
    return "\n".join(" ".join(c.rjust(w) for c in r) for r in cells)


def _fmt_field(x):
    if x is None:
        return "-"
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return f"{x:.3e}" if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e6) else f"{x:.4g}"
    if isinstance(x, np.integer):
        return str(int(x))
    return str(x)


def format_record(record):
    """One trace dict as 'key value  key value ...' (None as '-'): for ``--trace``."""
    return "  ".join(f"{k} {_fmt_field(v)}" for k, v in record.items())


def format_trace(records):
    """Trace dicts as an aligned table: one column per key (in order of first appearance),
    one row per record, '-' where a record lacks the key or holds None."""
    recs = list(records)
    keys = []
    for r in recs:
        for k in r:
            if k not in keys:
                keys.append(k)
    table = [keys] + [[_fmt_field(r.get(k)) for k in keys] for r in recs]
    widths = [max(len(row[c]) for row in table) for c in range(len(keys))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(row, widths)).rstrip()
                     for row in table)
