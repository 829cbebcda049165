"""The benchmark runner: ``python -m grblas_gpu.benchmarks [--scale N] [--cases mxv,mxm] [--json F]``.

``--gap`` runs the GAP Benchmark Suite's kernels on its graphs instead
(:mod:`benchmarks.cases_gap`): ``python -m grblas_gpu.benchmarks --gap [--scale N] [--graphs
kron,urand,grid] [--kernels bfs,sssp,pr,cc,bc,tc] [--sources K] [--fresh] [--json F]``.

Runs the ``CASES`` of each named case module (``benchmarks.cases_<name>``), passing
``--scale`` (and ``--reps``) to every case when given, else each case's own parameters;
prints the device, a table of all rows, and writes them as JSON. :func:`timed` is the one
timer the case modules share: the median of ``reps`` runs after ``warmup`` runs (which also
compile the kernels), with CUDA events on the GPU and the wall clock otherwise.

``--plot FILE`` draws the rows as a chart (:mod:`benchmarks.chart`: seconds per case, the
methods side by side); ``--from-json F`` prints and draws the rows of an earlier ``--json``
instead of running. A progress bar (cases done) is drawn on stderr when it is a terminal
and tqdm is installed, unless ``--quiet``.

``python -m grblas_gpu.benchmarks`` runs :func:`command`: errors are one line on stderr, exit code 2
for bad arguments (an unknown case module or case), 1 for a failure
(:mod:`grblas_gpu.cli_errors`).
"""
import contextlib
import gc
import glob
import importlib
import json
import os
import statistics
import time

# SuiteSparse's OpenMP threads spin after each call by default, starving the host thread
# that launches our kernels (seen: 5x host overhead right after a SuiteSparse run); set
# before anything loads the OpenMP runtime
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from grblas_gpu import backend, cli_progress  # noqa: E402
from grblas_gpu.cli_errors import EXIT_CODES_HELP, ArgumentParser, Failure, UsageError  # noqa: E402,E501
from grblas_gpu.cli_errors import check_plot, check_writable, run_main  # noqa: E402

__all__ = ["main", "command", "timed", "print_table"]

PROG = "python -m grblas_gpu.benchmarks"

DEFAULT_CASES = "mxv,mxm"


def timed(f, reps=10, warmup=2, device=None):
    """(median seconds, last result) of f(). ``device``: time with CUDA events (default:
    when the backend is CuPy); peers that run on the host pass False. Python's cyclic GC is
    off while a call is timed, as timeit does: a full collection in a process holding these
    libraries' objects takes 40-130 ms (seen inside 0.5 ms BFS trials); it runs between the
    timed calls instead."""
    device = backend.is_gpu if device is None else device
    out = None
    for _ in range(warmup):
        out = f()
    times = []
    for _ in range(max(1, reps)):
        with _no_gc():
            seconds, out = _time_once(f, device)
        times.append(seconds)
    return statistics.median(times), out


@contextlib.contextmanager
def _no_gc():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _time_once(f, device):
    """(seconds, result) of one call of f()."""
    if device:
        xp = backend.xp
        start, stop = xp.cuda.Event(), xp.cuda.Event()
        start.record()
        out = f()
        stop.record()
        stop.synchronize()
        return xp.cuda.get_elapsed_time(start, stop) / 1e3, out
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def pipelined(f, reps=20, warmup=2):
    """Seconds per call of f() issued back to back, CUDA events around the whole run: the
    device time of a call in a loop, where the host's launch overhead overlaps the device's
    work (``timed`` waits after each call, so a call's host time before its first launch
    counts too). None without a GPU."""
    if not backend.is_gpu:
        return None
    xp = backend.xp
    for _ in range(warmup):
        f()
    start, stop = xp.cuda.Event(), xp.cuda.Event()
    xp.cuda.Device().synchronize()
    start.record()
    for _ in range(max(1, reps)):
        f()
    stop.record()
    stop.synchronize()
    return xp.cuda.get_elapsed_time(start, stop) / 1e3 / max(1, reps)


def suitesparse():
    """python-graphblas set to use every CPU core (the peer the cases compare with), or None
    when it is not installed."""
    try:
        import graphblas as gb
    except ImportError:
        return None
    gb.ss.config["nthreads"] = os.cpu_count()
    return gb


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def print_table(rows, write=None):
    """One line per row: the common columns first, then each row's own keys. ``write``:
    how a line is written (default: print it)."""
    first = ["case", "scale", "method", "semiring", "seconds"]
    for row in rows:
        keys = [k for k in first if k in row] + [k for k in row if k not in first]
        line = "  ".join(f"{k}={_fmt(row[k])}" for k in keys)
        if write is None:
            print(line, flush=True)
        else:
            write(line)


def _case_module(name):
    """benchmarks.cases_<name>; an unknown name is a usage error."""
    try:
        return importlib.import_module(f"grblas_gpu.benchmarks.cases_{name}")
    except ModuleNotFoundError as e:
        if e.name != f"grblas_gpu.benchmarks.cases_{name}":
            raise  # the module exists but needs something missing: a failure, not usage
        here = os.path.dirname(os.path.abspath(__file__))
        known = sorted(os.path.basename(f)[len("cases_"):-len(".py")]
                       for f in glob.glob(os.path.join(here, "cases_*.py")))
        raise UsageError(f"--cases: unknown case module {name!r}; choose from "
                         f"{', '.join(known)}") from None


def _run_case(mod, modname, name, params):
    try:
        return mod.run(name, **params)
    except KeyError as e:  # each module's run() looks the case up in a dict
        if e.args != (name,):
            raise
        raise UsageError(f"--cases: unknown case {modname}:{name}") from None


def command(argv=None):
    """``python -m grblas_gpu.benchmarks``: :func:`main` with every error as one line on stderr;
    returns the exit code."""
    def body(argv):
        main(argv)
        return 0

    return run_main(PROG, body, argv)


def main(argv=None, prog=PROG):
    """Run the benchmarks the command line names; returns the rows (errors raise)."""
    p = ArgumentParser(prog=prog, description="Runs grblas_gpu's benchmarks and their peers; "
                       "prints one table of rows.", epilog=EXIT_CODES_HELP)
    p.add_argument("--scale", type=int, default=None, help="R-MAT scale for every case "
                   "(default: each case's own)")
    p.add_argument("--cases", default=DEFAULT_CASES,
                   help=f"comma-separated case modules (default {DEFAULT_CASES}); a "
                        "module:case item runs only that case")
    p.add_argument("--reps", type=int, default=None, help="timed runs per measurement")
    p.add_argument("--json", default=None, metavar="FILE", help="write the rows to this file")
    p.add_argument("--plot", default=None, metavar="FILE", help="draw the rows as a chart "
                   "(seconds per case, methods side by side; needs matplotlib)")
    p.add_argument("--from-json", default=None, metavar="FILE", help="print (and --plot) the "
                   "rows of an earlier --json instead of running")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--debug", action="store_true", help="show the traceback of an error")
    g = p.add_argument_group("GAP (--gap)")
    g.add_argument("--gap", action="store_true", help="run the GAP benchmark (default scale "
                   "22 on the GPU, 10 on the host) instead of --cases")
    g.add_argument("--graphs", default="kron,urand,grid", help="comma-separated GAP graphs")
    g.add_argument("--kernels", default="bfs,sssp,pr,cc,bc,tc",
                   help="comma-separated GAP kernels")
    g.add_argument("--sources", type=int, default=64,
                   help="random sources for bfs and sssp (bc: batches of 4 of them)")
    g.add_argument("--fresh", action="store_true", help="also time each kernel's first call "
                   "in a new Python process")
    args = p.parse_args(argv)
    if args.json:
        check_writable(args.json, "--json")
    if args.plot:
        check_plot(args.plot)
    if args.from_json:
        return _finish(_load_rows(args.from_json), args)
    if args.gap:
        return _gap(args)
    items = [item.partition(":") for item in filter(None, (c.strip() for c in
                                                           args.cases.split(",")))]
    modules = {modname: _case_module(modname) for modname, _, _ in items}
    print(json.dumps(backend.device_info(), default=str), flush=True)
    todo = []
    for modname, _, only in items:
        cases = [(n, p) for n, p in modules[modname].CASES if not only or n == only]
        # module:case may name a case outside CASES
        todo += [(modname, name, params) for name, params in cases or [(only, {})]]
    rows = []
    with cli_progress.bar(total=len(todo), desc="bench", unit="case", quiet=args.quiet) as bar:
        for modname, name, params in todo:
            bar.describe(f"{modname}:{name}")
            params = dict(params)
            if args.scale is not None:
                params["scale"] = args.scale
            if args.reps is not None:
                params["reps"] = args.reps
            new = _run_case(modules[modname], modname, name, params)
            print_table(new, write=bar.write)
            rows += new
            bar.update()
    return _finish(rows, args)


def _load_rows(path):
    try:
        with open(path) as f:
            rows = json.load(f)
    except ValueError as e:
        raise Failure(f"--from-json {path}: not a benchmarks --json file ({e})") from None
    if not (isinstance(rows, list) and all(isinstance(r, dict) for r in rows)):
        raise Failure(f"--from-json {path}: not a benchmarks --json file (a list of rows)")
    return rows


def _finish(rows, args):
    print("\n== summary", flush=True)
    print_table(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, default=str)
    if args.plot:
        from .chart import draw

        draw(rows, args.plot)
        print(f"wrote {args.plot}", flush=True)
    return rows


def _names(text, known, flag):
    names = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in names if x not in known]
    if bad or not names:
        raise UsageError(f"{flag}: unknown {', '.join(map(repr, bad)) or 'empty list'}; "
                         f"choose from {', '.join(known)}")
    return names


def _gap(args):
    from . import cases_gap

    graphs = _names(args.graphs, cases_gap.GRAPHS, "--graphs")
    kernels = _names(args.kernels, cases_gap.KERNELS, "--kernels")
    if args.sources < 1:
        raise UsageError(f"--sources must be at least 1, got {args.sources}")
    if args.scale is not None and args.scale < 2:
        raise UsageError(f"--scale must be at least 2 for --gap, got {args.scale}")
    print(json.dumps(backend.device_info(), default=str), flush=True)
    with cli_progress.bar(total=len(graphs) * len(kernels), desc="gap", unit="kernel",
                          quiet=args.quiet) as bar:
        def report(new):   # once per (graph, kernel)
            print_table(new, write=bar.write)
            bar.update()

        rows = cases_gap.run_gap(args.scale, graphs, kernels, args.sources, fresh=args.fresh,
                                 report=report)
    rows = _finish(rows, args)
    print("\n== GAP tables (markdown)\n" + cases_gap.markdown(rows), flush=True)
    return rows
