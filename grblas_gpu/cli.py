"""``grblas-gpu`` (also ``python -m grblas_gpu``): info, demo, run, conformance.

A thin adapter over the public API: it parses arguments, loads a graph and prints; it
computes nothing itself.
"""
import argparse
import json
import sys
import time

from . import backend


def _cmd_info(args):
    info = backend.device_info()
    try:
        import semirings

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
    import algorithms

    algorithms.demo(file=sys.stdout)
    return 0


def _cmd_run(args):
    import algorithms
    from .generate import graph

    A = graph(args.graph)
    runner = algorithms.CLI_ALGORITHMS.get(args.algo)
    if runner is None:
        print(f"unknown algorithm {args.algo!r}; choose from {', '.join(sorted(algorithms.CLI_ALGORITHMS))}",
              file=sys.stderr)
        return 2
    trace = None
    if args.trace:
        from .plot import format_record  # text only: does not import matplotlib

        trace = lambda record: print(format_record(record))  # noqa: E731
    start = time.perf_counter()
    result = runner(A, source=args.source, trace=trace)
    elapsed = time.perf_counter() - start
    print(f"{args.algo} on {args.graph}: {A.nrows} vertices, {A.nvals} stored edges, "
          f"backend {backend.name}, {elapsed:.3f} s")
    print(algorithms.summarize(args.algo, result))
    if args.plot:
        from . import plot

        plot.plot_result(args.algo, A, result, args.plot)
        print(f"wrote {args.plot}")
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["conformance"]:  # its options are its own (python -m conformance --help)
        import conformance

        return conformance.main(argv[1:])
    parser = argparse.ArgumentParser(prog="grblas-gpu", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("info", help="backend, device, memory and versions")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_info)
    p = sub.add_parser("demo", help="run every algorithm on the karate graph")
    p.set_defaults(func=_cmd_demo)
    p = sub.add_parser("run", help="run one algorithm on a graph")
    p.add_argument("algo")
    p.add_argument("graph", help="a .mtx path, 'karate', or 'rmat:SCALE[:EDGE_FACTOR]'")
    p.add_argument("--source", type=int, default=0)
    p.add_argument("--trace", action="store_true", help="print per-iteration figures")
    p.add_argument("--plot", metavar="PNG", help="draw the result (needs matplotlib)")
    p.set_defaults(func=_cmd_run)
    sub.add_parser("conformance", help="compare against SuiteSparse (python -m conformance)")
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
