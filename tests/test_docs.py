"""The docs run: every ```python block of README.md, docs/tutorial*.md and docs/tutorial/*.md.

How it works
------------
* Each markdown file is one program. Its ```python blocks run in order, in one namespace per
  file (a block sees what the blocks above it defined), with the working directory set to a
  fresh temporary folder (figures a block saves land there, not in docs/).
* A ```python block followed (blank lines allowed in between) by an ```output block must print
  exactly that text. Normalisation: trailing whitespace is stripped from every line, and
  leading and trailing blank lines from the whole; nothing else (write the doc's prints so
  they are exact: format floats with a fixed number of digits).
* An HTML comment on the line just before a block's opening fence (invisible on GitHub)
  changes how it is run:
      <!-- test: requires matplotlib -->   skipped when matplotlib is not installed (CI
                                           installs .[test] only); any block that uses
                                           grblas_gpu.plot must carry it (checked below)
      <!-- test: skip -->                  shown, never run (e.g. a shell command)
  Other fenced blocks (```bash, ```text, ```output without a python block above it) are
  not run.
* Each block is one test item (``test_block[tutorial/03-bfs.md:L42]``). Running one item runs
  the blocks above it first; when one of those fails, the items below it fail too, naming it.

To refresh the expected output after a deliberate change, run
``python tests/test_docs.py --update [FILE.md ...]``: it reruns the files and rewrites their
```output blocks with what the code now prints (review the diff before committing).
"""
import contextlib
import io
import os
import pathlib
import re
import shutil
import sys
import tempfile
import traceback

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
# The blocks import semirings and algorithms from a temporary working directory: make sure
# they resolve to this checkout's packages (a stale editable install can map them to empty
# namespace packages).
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
FIGURES = DOCS / "figures"

FENCE = re.compile(r"^(\s*)(`{3,})\s*([\w+-]*)[^\n]*$")
MARKER = re.compile(r"^\s*<!--\s*test:\s*(.*?)\s*-->\s*$")


def doc_files():
    files = [REPO / "README.md"] + sorted(DOCS.glob("tutorial*.md")) + sorted((DOCS / "tutorial").glob("*.md"))
    return [f for f in files if f.is_file()]


def _rel(path):
    return path.relative_to(REPO).as_posix()


class Block:
    """One fenced code block: its language, code, first line number and marker."""

    def __init__(self, lang, code, line, marker, end):
        self.lang, self.code, self.line, self.marker, self.end = lang, code, line, marker, end
        self.output = None          # the expected output (a str) when an output block follows
        self.output_span = None     # (first, last) line indices of that output block's body

    @property
    def needs_matplotlib(self):
        return self.marker is not None and "requires matplotlib" in self.marker

    @property
    def skipped(self):
        return self.marker is not None and self.marker.startswith("skip")


def parse(text):
    """The fenced blocks of a markdown text, python blocks paired with the output below."""
    lines = text.split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        ticks, lang = m.group(2), m.group(3).lower()
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(ticks)
                                      and lines[j].strip().strip("`") == ""):
            j += 1
        if j >= len(lines):
            raise ValueError(f"line {i + 1}: code block never closed")
        k = i - 1
        while k >= 0 and lines[k].strip() == "":
            k -= 1
        mm = MARKER.match(lines[k]) if k >= 0 else None
        blk = Block(lang, "\n".join(lines[i + 1:j]), i + 1, mm.group(1) if mm else None, j)
        blk.body_span = (i + 1, j)
        blocks.append(blk)
        i = j + 1
    out = []
    for blk in blocks:
        if blk.lang == "output" and out and out[-1].lang == "python" and out[-1].output is None \
                and _only_blank_between(lines, out[-1].end, blk.line - 1):
            out[-1].output = blk.code
            out[-1].output_span = blk.body_span
            continue
        out.append(blk)
    return [b for b in out if b.lang == "python"]


def _only_blank_between(lines, close_idx, open_idx):
    return all(lines[t].strip() == "" for t in range(close_idx + 1, open_idx))


def normalise(text):
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")


def _have_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


class FileRun:
    """Runs one markdown file's python blocks in order, remembering how far it got."""

    def __init__(self, path, check_output=True):
        self.path = path
        self.check_output = check_output
        self.blocks = parse(path.read_text(encoding="utf-8"))
        self.ns = {"__name__": "__tutorial__"}
        self.done = 0               # blocks run so far
        self.results = []           # per block: ("ok" | "skip" | "fail", message, printed)
        self.workdir = None

    def run_through(self, index):
        if self.workdir is None:
            self.workdir = tempfile.mkdtemp(prefix="grblas_gpu_docs_")
        while self.done <= index:
            self.results.append(self._run(self.blocks[self.done]))
            self.done += 1
        return self.results[index]

    def _run(self, blk):
        failed = [r for r in self.results if r[0] == "fail"]
        if failed:
            return ("fail", f"an earlier block failed ({failed[0][1].splitlines()[0]})", "")
        if blk.skipped:
            return ("skip", "marked <!-- test: skip -->", "")
        if blk.needs_matplotlib and not _have_matplotlib():
            return ("skip", "needs matplotlib (pip install grblas-gpu[plot])", "")
        rel = self.path.relative_to(REPO)
        code = compile(blk.code, f"{rel}:{blk.line}", "exec")
        buf = io.StringIO()
        cwd = os.getcwd()
        try:
            os.chdir(self.workdir)
            with contextlib.redirect_stdout(buf):
                exec(code, self.ns)                     # noqa: S102 -- running the docs
        except Exception:  # noqa: BLE001
            tb = traceback.format_exc()
            return ("fail", f"{rel} block at line {blk.line} raised:\n{tb}", buf.getvalue())
        finally:
            os.chdir(cwd)
        printed = buf.getvalue()
        if self.check_output and blk.output is not None \
                and normalise(printed) != normalise(blk.output):
            return ("fail", f"{rel} block at line {blk.line}: printed output differs from "
                            f"the ```output block below it\n--- expected\n{normalise(blk.output)}"
                            f"\n--- printed\n{normalise(printed)}", printed)
        return ("ok", "", printed)

    def cleanup(self):
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)


_RUNS = {}


def _items():
    out = []
    for f in doc_files():
        for k, blk in enumerate(parse(f.read_text(encoding="utf-8"))):
            rel = _rel(f)
            out.append(pytest.param(f, k, id=f"{rel}:L{blk.line}"))
    return out


@pytest.fixture(scope="module", autouse=True)
def _cleanup_runs():
    yield
    for run in _RUNS.values():
        run.cleanup()
    _RUNS.clear()


@pytest.mark.parametrize("path, index", _items())
def test_block(path, index):
    run = _RUNS.get(path)
    if run is None:
        run = _RUNS[path] = FileRun(path)
    status, message, _ = run.run_through(index)
    if status == "skip":
        pytest.skip(message)
    if status == "fail":
        pytest.fail(message, pytrace=False)


# ----------------------------------------------------------------------------- static checks
def test_tutorial_exists():
    assert len(doc_files()) > 1, "no docs/tutorial*.md or docs/tutorial/*.md"


@pytest.mark.parametrize("path", doc_files(), ids=_rel)
def test_plot_blocks_are_marked(path):
    """A block that draws must be skippable without matplotlib."""
    for blk in parse(path.read_text(encoding="utf-8")):
        if re.search(r"\bplot_(graph|frontier|residual|sparsity|result)\b|matplotlib",
                     blk.code) and not (blk.needs_matplotlib or blk.skipped):
            pytest.fail(f"{path.name} line {blk.line}: a block that plots needs "
                        "<!-- test: requires matplotlib --> before it")


IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s#]+\.md)(#[^)]*)?\)")


@pytest.mark.parametrize("path", doc_files(), ids=_rel)
def test_links_resolve(path):
    """Every embedded image is a committed PNG under docs/figures that make_figures.py
    produces, under 100 KB; every link to another .md file exists."""
    sys.path.insert(0, str(DOCS))
    try:
        import make_figures
    finally:
        sys.path.remove(str(DOCS))
    text = path.read_text(encoding="utf-8")
    for target in IMAGE.findall(text):
        img = (path.parent / target).resolve()
        assert img.parent == FIGURES.resolve(), f"{path.name}: {target} is not in docs/figures"
        assert img.name in make_figures.FIGURES, f"make_figures.py does not produce {img.name}"
        assert img.is_file(), f"{path.name}: {target} missing (run python docs/make_figures.py)"
        assert img.stat().st_size < 100_000, f"{img.name} is {img.stat().st_size} bytes"
    for target, _ in LINK.findall(text):
        if "://" in target:
            continue
        assert (path.parent / target).is_file(), f"{path.name}: link to missing {target}"


def test_parse_pairs_output_blocks():
    text = ("intro\n\n```python\nprint(1)\n```\n\n```output\n1\n```\n\n<!-- test: skip -->\n"
            "```python\nboom\n```\n\n```bash\nls\n```\n")
    blocks = parse(text)
    assert [b.line for b in blocks] == [3, 12]
    assert blocks[0].output == "1" and blocks[1].output is None
    assert blocks[1].skipped and not blocks[0].skipped
    assert normalise("\n a  \nb\t\n\n") == " a\nb"


# ----------------------------------------------------------------------------- --update
def update(paths):
    """Rewrite the ```output blocks of these files with what their code prints now."""
    for path in paths:
        path = pathlib.Path(path).resolve()
        run = FileRun(path, check_output=False)
        lines = path.read_text(encoding="utf-8").split("\n")
        edits = []
        try:
            for k, blk in enumerate(run.blocks):
                status, message, printed = run.run_through(k)
                if status == "fail":
                    print(message, file=sys.stderr)
                    return 1
                if blk.output is not None and status != "skip":
                    edits.append((blk.output_span, normalise(printed).split("\n")))
        finally:
            run.cleanup()
        for (first, last), new in reversed(edits):
            lines[first:last] = new
        path.write_text("\n".join(lines), encoding="utf-8")
        print(f"updated {path.relative_to(REPO)}: {len(edits)} output blocks")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] != "--update":
        print(__doc__)
        sys.exit(2)
    sys.exit(update(args[1:] or doc_files()))
