"""grblas-gpu (also python -m grblas_gpu): info, demo, run, warmup, conformance, bench.

A thin adapter over the public API: it parses arguments, loads a graph and prints; it
computes nothing itself. Errors are one line on stderr with exit code 1 (failure) or 2
(usage), reported in one place (grblas_gpu.cli_errors.run_main). The run command lives in
grblas_gpu.cli_run, info's report in grblas_gpu.cli_info, progress bars in
grblas_gpu.cli_progress; conformance and bench hand their arguments to their own parsers.
"""
import argparse
import importlib.util
import sys

from . import backend, cli_run, operators
from .cli_errors import EXIT_CODES_HELP, ArgumentParser, UsageError
from .cli_errors import run_main

__all__ = ["main"]

PROG = "grblas-gpu"


def _cmd_info(args):
    import json

    from .cli_info import collect, print_info

    info = collect()
    if args.json:
        print(json.dumps(info, indent=2, default=str))
    else:
        print_info(info)
    return 0


def _cmd_demo(args):
    from grblas_gpu import algorithms

    algorithms.demo(file=sys.stdout)
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
    cli_run.add_parser(sub, [debug])
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
    # their own parsers read the rest of the line: 'grblas-gpu conformance --help'
    sub.add_parser("conformance", help="compare against SuiteSparse through python-graphblas "
                   "(python -m grblas_gpu.conformance; needs the conformance extra)")
    sub.add_parser("bench", help="the benchmarks, e.g. bench --gap, bench --plot FILE "
                   "(python -m grblas_gpu.benchmarks; from a source checkout)")
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
    if words[:1] == ["bench"]:  # the benchmarks package, with its options
        bench_main = _benchmarks().main
        bench_main(argv[argv.index("bench") + 1:], prog=f"{PROG} bench")
        return 0
    args = _parser().parse_args(argv)
    return args.func(args)


def _benchmarks():
    """grblas_gpu.benchmarks.run (installed with the package from the checkout's
    benchmarks/ folder)."""
    from grblas_gpu.benchmarks import run as bench_run

    return bench_run


def main(argv=None):
    """The ``grblas-gpu`` command; returns the exit code (0, 1 failure, 2 usage, 130)."""
    return run_main(PROG, _main, argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
