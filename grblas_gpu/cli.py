"""``grblas-gpu`` (also ``python -m grblas_gpu``): info, demo, run, warmup, conformance, bench.

A thin adapter over the public API: it parses arguments, loads a graph and prints; it
computes nothing itself. Errors are one line on stderr with exit code 1 (failure) or 2
(usage), reported in one place (:func:`grblas_gpu.cli_errors.run_main`).
"""
import argparse
import importlib.util
import os
import re
import sys
import time

from . import backend, operators
from .cli_errors import EXIT_CODES_HELP, ArgumentParser, Failure, UsageError, check_writable
from .cli_errors import run_main

__all__ = ["main"]

PROG = "grblas-gpu"
_GRAPH_HELP = ("'karate', 'rmat:SCALE[:EDGE_FACTOR]', 'urand:SCALE[:EDGE_FACTOR]', "
               "'grid:SCALE', or the path of a .mtx file")
_GENERATED_SPEC = re.compile(r"(rmat|urand):\s*\d+\s*(:\s*\d+\s*)?|grid:\s*\d+\s*")
_FILE_SUFFIXES = (".mtx", ".mtx.gz", ".mm")

_RUN_EPILOG = """\
GRAPH of the wrong form ('rmat:abc', 'foo') or an unknown ALGO: usage error (2). A missing,
unreadable or malformed file, numbers the generator rejects ('rmat:99'), a --source outside
the graph, a graph the algorithm cannot take, a result with NaN (or non-finite PageRank
ranks, never printed), a --plot without matplotlib or not writable (both checked before
the run): failure (1).

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
    raise argparse.ArgumentTypeError(f"unknown graph {text!r}: expected {_GRAPH_HELP}")


def _cmd_info(args):
    import json

    info = backend.device_info()
    try:
        semirings = operators.catalog()
        info["semirings"] = len(semirings.catalog()) if hasattr(semirings, "catalog") else None
    except ImportError:  # pragma: no cover
        pass
    if args.json:
        print(json.dumps(info, indent=2, default=str))
    else:
        width = max(map(len, info))
        for key, value in info.items():
            print(f"{key:<{width}}  {value}")
    return 0


def _cmd_demo(args):
    from grblas_gpu import algorithms

    algorithms.demo(file=sys.stdout)
    return 0


def _check_plot(path):
    """--plot's preconditions, checked before the run: matplotlib and a writable path."""
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError:
        raise Failure("--plot needs matplotlib: install grblas-gpu[plot]") from None
    check_writable(path, "--plot")


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


def _cmd_run(args):
    from grblas_gpu import algorithms

    from .generate import graph

    runner = algorithms.CLI_ALGORITHMS.get(args.algo)
    if runner is None:
        raise UsageError(f"unknown algorithm {args.algo!r}; choose from "
                         f"{', '.join(sorted(algorithms.CLI_ALGORITHMS))}")
    if args.plot:
        _check_plot(args.plot)
    A = graph(args.graph)
    trace = None
    if args.trace:
        from .plot import format_record  # text only: does not import matplotlib

        trace = lambda record: print(format_record(record))  # noqa: E731
    start = time.perf_counter()
    result = runner(A, source=args.source, trace=trace)
    elapsed = time.perf_counter() - start
    _check_finite(args.algo, result)
    print(f"{args.algo} on {args.graph}: {A.nrows} vertices, {A.nvals} stored edges, "
          f"backend {backend.name}, {elapsed:.3f} s")
    print(algorithms.summarize(args.algo, result))
    if args.plot:
        from . import plot

        plot.plot_result(args.algo, A, result, args.plot)
        print(f"wrote {args.plot}")
    return 0


_WARMUP_EPILOG = """\
Runs each operation of the common set once on a small graph, so that its kernels are
compiled (or loaded from CuPy's disk cache, CUPY_CACHE_DIR) before a loop needs them. An
unknown operation, type or semiring: usage error (2). On the NumPy backend the calls run
and nothing is compiled.

"""


def _name_list(text):
    """argparse type of a comma-separated list of names."""
    names = [w.strip() for w in text.split(",") if w.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r}: expected names separated by commas")
    return names


def _check_warmup_names(args):
    """Unknown names are usage errors (as an unknown algorithm is), found before any work."""
    from .errors import GraphBLASError
    from .kernel_warmup import OPERATIONS
    from .types import lookup_dtype

    for name in args.operations or ():
        if name not in OPERATIONS:
            raise UsageError(f"unknown operation {name!r}; choose from {', '.join(OPERATIONS)}")
    for what, names, check in (("type", args.types, lookup_dtype),
                               ("semiring", args.semirings,
                                lambda s: operators.catalog().lookup(s, kind="semiring"))):
        for name in names or ():
            try:
                check(name)
            except GraphBLASError:
                raise UsageError(f"unknown {what} {name!r}") from None


def _cmd_warmup(args):
    import logging

    from .kernel_warmup import warmup

    _check_warmup_names(args)
    if args.log:   # each module built, as it is built
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        logger = logging.getLogger("grblas_gpu.kernels")
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    # a bar only where tqdm is installed (warmup's own fallback prints a line per step)
    progress = not args.quiet and importlib.util.find_spec("tqdm") is not None
    summary = warmup(args.operations, args.types, args.semirings, progress=progress)
    print(f"backend {backend.name}: {summary}")
    return 0


def _parser():
    # --debug is read by run_main wherever it stands; declared here for --help and parsing
    debug = ArgumentParser(add_help=False)
    debug.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="show the traceback of an error")
    parser = ArgumentParser(prog=PROG, description=__doc__.splitlines()[0],
                            epilog=EXIT_CODES_HELP, parents=[debug])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("info", help="backend, device, memory and versions", parents=[debug],
                       epilog=EXIT_CODES_HELP)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_info)
    p = sub.add_parser("demo", help="run every algorithm on the karate graph", parents=[debug],
                       epilog=EXIT_CODES_HELP)
    p.set_defaults(func=_cmd_demo)
    p = sub.add_parser("run", help="run one algorithm on a graph", parents=[debug],
                       epilog=_RUN_EPILOG + EXIT_CODES_HELP)
    p.add_argument("algo", metavar="ALGO", help="bfs, sssp, widest_path, pagerank, "
                   "triangle_count or spectral_clustering")
    p.add_argument("graph", metavar="GRAPH", type=_graph_spec, help=_GRAPH_HELP)
    p.add_argument("--source", type=int, default=0, help="the source vertex (default 0)")
    p.add_argument("--trace", action="store_true", help="print per-iteration figures")
    p.add_argument("--plot", metavar="PNG", help="draw the result (needs matplotlib)")
    p.set_defaults(func=_cmd_run)
    p = sub.add_parser("warmup", help="compile the kernels of common operations ahead of time",
                       parents=[debug], epilog=_WARMUP_EPILOG + EXIT_CODES_HELP)
    p.add_argument("--operations", metavar="OPS", type=_name_list,
                   help="comma-separated, e.g. mxv,vxm (default: all of the common set)")
    p.add_argument("--types", metavar="TYPES", type=_name_list,
                   help="comma-separated, e.g. BOOL,FP64 (default: BOOL,INT32,INT64,FP32,FP64)")
    p.add_argument("--semirings", metavar="SEMIRINGS", type=_name_list,
                   help="comma-separated, e.g. any_pair,min_plus (default: any_pair, "
                        "any_secondi, min_plus, plus_times, plus_second, min_second)")
    p.add_argument("--log", action="store_true", help="print each kernel module as it is built")
    p.add_argument("--quiet", action="store_true", help="no progress bar (shown when tqdm is "
                   "installed)")
    p.set_defaults(func=_cmd_warmup)
    sub.add_parser("conformance", help="compare against SuiteSparse (python -m grblas_gpu.conformance)")
    sub.add_parser("bench", help="benchmarks, e.g. bench --gap (python -m benchmarks; needs "
                   "the source tree)")
    return parser


def _main(argv):
    argv = sys.argv[1:] if argv is None else list(argv)
    words = [a for a in argv if a != "--debug"]
    if words[:1] == ["conformance"]:  # its options are its own (python -m grblas_gpu.conformance --help)
        from grblas_gpu.conformance.cli import main as conformance_main

        rest = argv[argv.index("conformance") + 1:]
        if "--debug" in argv and "--debug" not in rest:
            rest.append("--debug")
        return conformance_main(rest, prog=f"{PROG} conformance")
    if words[:1] == ["bench"]:  # the source tree's benchmarks package, with its options
        try:
            from benchmarks.run import main as bench_main
        except ImportError as e:
            if e.name not in ("benchmarks", "benchmarks.run"):
                raise
            raise Failure("bench needs the benchmarks package of grblas_gpu's source tree: "
                          "run it from the repository root") from None
        bench_main(argv[argv.index("bench") + 1:], prog=f"{PROG} bench")
        return 0
    args = _parser().parse_args(argv)
    return args.func(args)


def main(argv=None):
    """The ``grblas-gpu`` command; returns the exit code (0, 1 failure, 2 usage, 130)."""
    return run_main(PROG, _main, argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
