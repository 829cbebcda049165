"""The benchmark rows as a chart: ``python -m grblas_gpu.benchmarks --plot FILE`` (``grblas-gpu bench
--plot FILE``).

One group of bars per case (its name, and the graph, kernel, semiring and scale where the
row has them), one bar per method in the group, so grblas_gpu and its peers (SuiteSparse,
cuSPARSE, the vendor loops) stand side by side; the height is the median time, in s, ms or
µs as the largest time reads best, on a log axis when the times span more than 100x. Rows
without a time (skipped peers) are left out. Drawn with matplotlib's Figure and Agg canvas
(pyplot is never touched); the file's suffix picks the format (.png, .svg, .pdf).
"""
__all__ = ["draw", "groups"]

_LABEL_KEYS = ("case", "graph", "kernel", "semiring")


def _label(row):
    words = [str(row[k]) for k in _LABEL_KEYS if row.get(k) not in (None, "")]
    if row.get("scale") is not None:
        words.append(f"scale {row['scale']}")
    return " ".join(words)


def groups(rows):
    """(case labels, methods, {(label, method): seconds}) of the timed rows, each in order
    of first appearance (a repeated (case, method) keeps its last time)."""
    labels, methods, seconds = [], [], {}
    for row in rows:
        s = row.get("seconds")
        if not isinstance(s, (int, float)) or s != s or s <= 0:
            continue
        label, method = _label(row), str(row.get("method", "?"))
        if label not in labels:
            labels.append(label)
        if method not in methods:
            methods.append(method)
        seconds[label, method] = float(s)
    return labels, methods, seconds


def draw(rows, path):
    """Save the chart of ``rows`` (benchmark result dicts) at ``path``."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    labels, methods, seconds = groups(rows)
    fig = Figure(figsize=(max(6.0, 0.9 * len(labels) * max(1, len(methods)) ** 0.5 + 2), 4.8),
                 dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if not labels:
        ax.text(0.5, 0.5, "no timed rows", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
    else:
        width = 0.8 / len(methods)
        cmap = matplotlib.colormaps["tab10"]
        unit, scale = _unit(max(seconds.values()))
        for m, method in enumerate(methods):
            xs = [i + (m - (len(methods) - 1) / 2) * width for i, lab in enumerate(labels)
                  if (lab, method) in seconds]
            ys = [seconds[lab, method] * scale for lab in labels if (lab, method) in seconds]
            ax.bar(xs, ys, width, label=method, color=cmap(m % 10))
        times = list(seconds.values())
        if max(times) > 100 * min(times):
            ax.set_yscale("log")
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(f"{unit} (median)")
        ax.legend(fontsize=7, frameon=False)
        ax.grid(True, axis="y", linewidth=0.4, alpha=0.6)
        ax.set_title("benchmarks: time per case", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    return ax


def _unit(largest):
    """(unit name, factor from seconds) that shows ``largest`` seconds as 1 to 999."""
    for unit, scale in (("s", 1.0), ("ms", 1e3), ("µs", 1e6)):
        if largest * scale >= 1:
            return unit, scale
    return "µs", 1e6
