"""``grblas-gpu run ALGO GRAPH``: one algorithm of algorithms.CLI_ALGORITHMS on one graph.

Reads the graph (a generator spec or a .mtx file), runs the algorithm, checks the result
keeps its promises, prints a summary (and draws it with --plot). Options that do not apply
(--source to an algorithm without a source, --seed to a graph that is not drawn at random)
are usage errors. Generated graphs are reproducible: --seed defaults to DEFAULT_SEED, and
``--seed random`` draws one and prints it so the run can be repeated.
"""
import argparse
import inspect
import os
import re
import time

from . import backend, cli_progress
from .cli_errors import EXIT_CODES_HELP, Failure, UsageError, check_plot

__all__ = ["add_parser", "DEFAULT_SEED"]

DEFAULT_SEED = 0
GRAPH_HELP = ("'karate', 'rmat:SCALE[:EDGE_FACTOR]', 'urand:SCALE[:EDGE_FACTOR]', "
              "'grid:SCALE', or the path of a .mtx file")
_GENERATED_SPEC = re.compile(r"(rmat|urand):\s*\d+\s*(:\s*\d+\s*)?|grid:\s*\d+\s*")
_RANDOM_GRAPHS = ("rmat", "urand")     # the generators that draw; a grid draws nothing
_FILE_SUFFIXES = (".mtx", ".mtx.gz", ".mm")
# the progress bar follows the algorithm's trace on graphs of at least this many stored
# edges (a trace record can cost a host read an iteration: small graphs run untraced)
PROGRESS_MIN_EDGES = 1 << 20
PROGRESS_DELAY_S = 0.5

_EPILOG = """\
GRAPH of the wrong form ('rmat:abc', 'foo'), an unknown ALGO, or an option the algorithm
or graph does not take (--source to pagerank, --seed to karate or a file):
usage error (2). A missing, unreadable or malformed file, numbers the generator rejects ('rmat:99'), a
--source outside the graph, a graph the algorithm cannot take, a result with NaN (or
non-finite PageRank ranks, never printed), a --plot without matplotlib or not writable
(both checked before the run): failure (1).

Generated graphs (rmat, urand) are drawn from --seed: the same seed gives the same graph
and the same result on either backend. The default seed is {seed}; '--seed random' draws
one and prints it. A progress bar (tqdm, on a terminal) follows the iterations of runs on
graphs of {edges} stored edges or more; --quiet hides it.

"""

# algorithms whose every value is promised finite; for the others only NaN is never valid
# (sssp's and widest_path's unreached vertices are ±FLT_MAX, not inf, but inf weights give inf)
_FINITE_RESULTS = {"pagerank": "ranks", "spectral_clustering": "values"}


def _graph_spec(text):
    """argparse type of GRAPH: the spec's form only (the generator checks the numbers, the
    reader the file)."""
    low = text.strip().lower()
    if low == "karate" or os.path.exists(text):
        return text
    if low.startswith(("rmat", "urand", "grid")):
        if not _GENERATED_SPEC.fullmatch(low):
            kind = next(k for k in ("rmat", "urand", "grid") if low.startswith(k))
            form = "grid:SCALE" if kind == "grid" else f"{kind}:SCALE[:EDGE_FACTOR]"
            raise argparse.ArgumentTypeError(f"{text!r}: expected '{form}' with non-negative "
                                             "integers")
        return text
    if low.endswith(_FILE_SUFFIXES) or os.sep in text:
        return text  # a path that is not there: reading it fails (exit 1, like cat)
    raise argparse.ArgumentTypeError(f"unknown graph {text!r}: expected {GRAPH_HELP}")


def _seed(text):
    """argparse type of --seed: a non-negative integer or 'random'."""
    if text.strip().lower() == "random":
        return "random"
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a non-negative integer or "
                                         "'random'")
    return value


def _options(runner):
    """The CLI options a runner takes: its keyword parameters other than trace."""
    try:
        params = inspect.signature(runner).parameters
    except (TypeError, ValueError):  # pragma: no cover  (a builtin: assume the usual)
        return {"source"}
    return {p for p in params if p not in ("A", "trace")}


def _algorithm_lines():
    from grblas_gpu import algorithms

    width = max(map(len, algorithms.CLI_ALGORITHMS))
    lines = []
    for name, runner in algorithms.CLI_ALGORITHMS.items():
        doc = (inspect.getdoc(runner) or "").split("\n")[0]
        lines.append(f"  {name:<{width}}  {doc}")
    return "algorithms:\n" + "\n".join(lines) + "\n\n"


def add_parser(sub, parents):
    """The ``run`` sub-command on the sub-parsers ``sub``."""
    from grblas_gpu import algorithms

    names = ", ".join(algorithms.CLI_ALGORITHMS)
    p = sub.add_parser("run", help="run one algorithm on a graph", parents=parents,
                       epilog=_algorithm_lines() + _EPILOG.format(
                           seed=DEFAULT_SEED, edges=f"{PROGRESS_MIN_EDGES:,}")
                       + EXIT_CODES_HELP)
    p.add_argument("algo", metavar="ALGO", help=f"one of {names} (see below)")
    p.add_argument("graph", metavar="GRAPH", type=_graph_spec, help=GRAPH_HELP)
    p.add_argument("--source", type=int, default=None,
                   help="the source vertex of bfs, sssp, widest_path, betweenness (default 0)")
    p.add_argument("--seed", type=_seed, default=None, metavar="N|random",
                   help=f"the seed of a generated graph, rmat or urand (default {DEFAULT_SEED})")
    p.add_argument("--trace", action="store_true", help="print per-iteration figures")
    p.add_argument("--plot", metavar="PNG", help="draw the result (needs matplotlib)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
    return p


def _check_options(args, runner):
    """Options the algorithm or the graph does not take are usage errors."""
    takes = _options(runner)
    if args.source is not None and "source" not in takes:
        raise UsageError(f"--source does not apply to {args.algo} (it has no source vertex)")
    kind = args.graph.strip().lower().split(":")[0]
    if args.seed is not None and kind not in _RANDOM_GRAPHS:
        raise UsageError(f"--seed does not apply to {args.graph!r}: only generated random "
                         f"graphs ({', '.join(_RANDOM_GRAPHS)}) take a seed")
    if args.plot:
        from .plot import RESULT_ALGORITHMS

        if args.algo not in RESULT_ALGORITHMS:
            raise UsageError(f"--plot does not apply to {args.algo} (plot_result draws "
                             f"{', '.join(RESULT_ALGORITHMS)})")
    return kind in _RANDOM_GRAPHS


def _float_arrays(result):
    """The floating-point arrays of an algorithm's result (an array, or a tuple holding
    some), on the host."""
    import numpy as np

    items = result if isinstance(result, tuple) else (result,)
    return [backend.to_host(a) for a in items
            if isinstance(a, (np.ndarray, backend.xp.ndarray)) and a.dtype.kind in "fc"]


def _check_finite(algo, result):
    """Raise Failure when the result holds NaN (or, where finite values are promised, ±inf):
    such a result is wrong, and printing it would look like an answer."""
    import numpy as np

    for a in _float_arrays(result):
        promised = algo in _FINITE_RESULTS
        bad = int(np.count_nonzero(~np.isfinite(a) if promised else np.isnan(a)))
        if bad:
            what = _FINITE_RESULTS.get(algo, "values")
            kind = "non-finite (NaN or inf)" if promised else "NaN"
            raise Failure(f"{algo} returned {bad} {kind} {what} of {a.size}; not printing "
                          "them (a wrong result: negative, zero or non-finite weights can "
                          "cause it)")


def _trace(args, bar, shown):
    """The trace callback: --trace lines and the progress bar's figures (None: untraced)."""
    if not (args.trace or shown):
        return None
    from .plot import format_record  # text only: does not import matplotlib

    def trace(record):
        if args.trace:
            bar.write(format_record(record))
        bar.update()
        bar.postfix(**{k: v for k, v in record.items()
                       if k != "iteration" and isinstance(v, (int, float, str))})

    return trace


def run(args):
    import secrets

    from grblas_gpu import algorithms

    from .generate import graph

    runner = algorithms.CLI_ALGORITHMS.get(args.algo)
    if runner is None:
        raise UsageError(f"unknown algorithm {args.algo!r}; choose from "
                         f"{', '.join(sorted(algorithms.CLI_ALGORITHMS))}")
    drawn = _check_options(args, runner)
    if args.plot:
        check_plot(args.plot)
    seed, about = None, ""
    if drawn:
        seed = DEFAULT_SEED if args.seed is None else args.seed
        if seed == "random":
            seed = secrets.randbelow(1 << 32)
            about = f", seed {seed} (drawn: --seed {seed} repeats this run)"
        else:
            about = f", seed {seed}"
    A = graph(args.graph, seed=seed) if drawn else graph(args.graph)
    kwargs = ({"source": 0 if args.source is None else args.source}
              if "source" in _options(runner) else {})
    quiet = args.quiet or A.nvals < PROGRESS_MIN_EDGES
    with cli_progress.bar(desc=args.algo, unit="iter", quiet=quiet,
                          delay=PROGRESS_DELAY_S) as bar:
        trace = _trace(args, bar, cli_progress.shown(quiet))
        start = time.perf_counter()
        result = runner(A, trace=trace, **kwargs)
        elapsed = time.perf_counter() - start
    _check_finite(args.algo, result)
    print(f"{args.algo} on {args.graph}{about}: {A.nrows} vertices, {A.nvals} stored edges, "
          f"backend {backend.name}, {elapsed:.3f} s")
    print(algorithms.summarize(args.algo, result))
    if args.plot:
        from . import plot

        plot.plot_result(args.algo, A, result, args.plot)
        print(f"wrote {args.plot}")
    return 0
