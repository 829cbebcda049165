"""Regenerate the tutorial's figures (docs/figures/*.png) from real runs.

The figures are drawn by the tutorial's own code: the ```python blocks of docs/tutorial/*.md
marked ``<!-- test: requires matplotlib -->`` save them (``path="bfs_karate.png"``,
``fig.savefig(...)``). This script runs each page that has such a block, all its python
blocks in order in one namespace (as tests/test_docs.py does, without comparing output),
with the working directory set to the output folder, so the pictures are exactly what the
code shown beside them draws. It then checks that every figure in FIGURES was written and
is smaller than MAX_BYTES.

    python docs/make_figures.py            # writes docs/figures/*.png
    python docs/make_figures.py OUTDIR     # writes elsewhere (tests use a temporary folder)

Needs matplotlib (pip install grblas-gpu[plot]). Runs on the NumPy backend in a few
seconds; the spring layouts are seeded, so a rerun gives the same pictures.
"""
import contextlib
import io
import os
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
TUTORIAL = HERE / "tutorial"
FIGURES_DIR = HERE / "figures"

# every figure the tutorial embeds, and so every file this script must produce
FIGURES = (
    "nvgraph6.png",            # 01-semirings: the nvGRAPH example graph with its weights
    "bfs_karate.png",          # 03-bfs: karate coloured by BFS level
    "bfs_frontier.png",        # 03-bfs: frontier size per level, push / pull (R-MAT)
    "paths_nvgraph6.png",      # 04-paths: shortest distances and widest paths
    "pagerank_residual.png",   # 05-pagerank: residual per iteration
    "pagerank_karate.png",     # 05-pagerank: karate coloured by rank
    "triangles_karate.png",    # 06-triangles: triangles per member, per-edge counts
    "spectral_karate.png",     # 07-spectral: the two clusters
)
MAX_BYTES = 100_000

_FENCE = re.compile(r"^\s*(`{3,})\s*([\w+-]*)")
_MARKER = re.compile(r"^\s*<!--\s*test:\s*(.*?)\s*-->\s*$")


def python_blocks(text):
    """[(line, code, marker)] for the ```python blocks of a markdown text."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() != m.group(1):
            j += 1
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = _MARKER.match(lines[k]) if k >= 0 else None
        if m.group(2).lower() == "python":
            out.append((i + 1, "\n".join(lines[i + 1:j]), marker.group(1) if marker else ""))
        i = j + 1
    return out


def run_page(page, outdir):
    """Run a page's python blocks in order with outdir as the working directory."""
    ns = {"__name__": "__tutorial__"}
    cwd = os.getcwd()
    try:
        os.chdir(outdir)
        for line, code, marker in python_blocks(page.read_text(encoding="utf-8")):
            if marker.startswith("skip"):
                continue
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, f"{page.name}:{line}", "exec"), ns)  # noqa: S102
    finally:
        os.chdir(cwd)


def main(outdir=None):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        sys.exit("make_figures.py needs matplotlib: pip install grblas-gpu[plot]")
    if str(REPO) not in sys.path:       # the checkout's packages, whatever is installed
        sys.path.insert(0, str(REPO))
    outdir = pathlib.Path(outdir or FIGURES_DIR).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    for page in sorted(TUTORIAL.glob("*.md")):
        blocks = python_blocks(page.read_text(encoding="utf-8"))
        if any("requires matplotlib" in marker for _, _, marker in blocks):
            run_page(page, outdir)
    problems = []
    for name in FIGURES:
        f = outdir / name
        if not f.is_file():
            problems.append(f"{name}: not produced by any tutorial block")
        elif f.stat().st_size >= MAX_BYTES:
            problems.append(f"{name}: {f.stat().st_size} bytes (limit {MAX_BYTES})")
    if problems:
        raise SystemExit("make_figures.py:\n  " + "\n  ".join(problems))
    for name in FIGURES:
        print(f"{outdir / name}  {(outdir / name).stat().st_size // 1024} KB")
    return [outdir / name for name in FIGURES]


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
