"""Command line: ``python -m grblas_gpu.conformance`` (also ``grblas-gpu conformance``).

    --quick            a sample covering every operation, operator family, mask / accum /
                       replace combination, operand shape and density (the default; CI)
    --full             everything (every operator at every type, every descriptor flag
                       combination, every LAGraph file); meant for the GPU machine
    --ops mxm,mxv      only these operations (see --list-ops)
    --types FP32,INT32 only cases at these input types
    --seed N           operand values and sampling (a case replays from its seed)
    --json FILE        every case's outcome (and reproducers) as JSON
    --list             print the cases and exit
    --no-shrink        keep failing operands as generated (shrinking is on by default)
    --max-reproducers  how many reproducers to print (default 10; JSON has them all)
    --shard I/N        only the I-th of N parts (0 <= I < N), split by operation x operator x
                       type so that parts compile disjoint kernels: run the parts as parallel
                       processes (NVRTC compiles one kernel at a time per process)
    --merge A.json ... the combined table of parts' --json files (no cases run)
    --debug            show the traceback of an error
    --fuzz N           N random cases (conformance.fuzz) instead of the enumerated ones;
                       deterministic for --seed; --ops, --types, --shard and --json apply
    --quiet            no progress bar (one is drawn on stderr when it is a terminal and
                       tqdm is installed: cases done, failures so far)

Needs python-graphblas (the ``conformance`` extra); without it every mode but --merge is
a failure whose one line names the extra.

Exit code: 0 when nothing failed, 1 on any failure (a failed case, or an error: one line
on stderr), 2 on bad arguments (grblas_gpu.cli_errors).
"""
import argparse
import platform
import sys
import time

from grblas_gpu import cli_progress
from grblas_gpu.cli_errors import EXIT_CODES_HELP, ArgumentParser, Failure, UsageError
from grblas_gpu.cli_errors import check_writable, run_main

__all__ = ["main"]


def _parser(prog="python -m grblas_gpu.conformance"):
    p = ArgumentParser(
        prog=prog, epilog=EXIT_CODES_HELP,
        description="grblas_gpu against python-graphblas (and a dense mimic)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_const", dest="mode", const="quick",
                      help="a sample covering every operation and operator family (default)")
    mode.add_argument("--full", action="store_const", dest="mode", const="full",
                      help="everything: every operator x type, flag combination, LAGraph file")
    mode.add_argument("--tiny", action="store_const", dest="mode", const="tiny",
                      help=argparse.SUPPRESS)  # the test suite's smallest plan
    mode.add_argument("--fuzz", type=int, default=None, metavar="N",
                      help="N random cases drawn from every axis (deterministic for --seed)")
    p.add_argument("--ops", default=None, help="comma-separated operations")
    p.add_argument("--types", default=None, help="comma-separated GraphBLAS type names")
    p.add_argument("--seed", type=int, default=0, help="operand values and sampling")
    p.add_argument("--json", default=None, metavar="FILE",
                   help="write every case's outcome (and reproducers) as JSON")
    p.add_argument("--list", action="store_true", help="print the cases without running them")
    p.add_argument("--list-ops", action="store_true", help="print the operations and exit")
    p.add_argument("--no-shrink", action="store_true",
                   help="keep failing operands as generated (default: shrink them)")
    p.add_argument("--max-reproducers", type=int, default=10, metavar="N",
                   help="reproducers to print (all are in --json)")
    p.add_argument("--shard", default=None, metavar="I/N",
                   help="only part I of N (by operation x operator x type), for parallel runs")
    p.add_argument("--merge", nargs="+", default=None, metavar="JSON",
                   help="print the combined table of parts' --json files and exit")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (drawn on a terminal when tqdm is installed)")
    p.add_argument("--debug", action="store_true", help="show the traceback of an error")
    p.set_defaults(mode="quick")
    return p


def _split(text):
    return tuple(x.strip() for x in text.split(",") if x.strip()) if text else None


def main(argv=None, prog="python -m grblas_gpu.conformance"):
    """Run the suite as the command line says; returns the exit code (errors: one line on
    stderr, see grblas_gpu.cli_errors)."""
    return run_main(prog, lambda argv: _main(argv, prog), argv)


def _main(argv, prog):
    args = _parser(prog).parse_args(argv)
    if args.json:
        check_writable(args.json, "--json")
    from . import report
    from .cases import FAMILIES, Plan, UnknownOperation, check_operations, enumerate_cases
    from .runner import run

    from . import families  # noqa: F401  (registers the operations)

    if args.merge:
        return _merge(args.merge)
    try:   # a usage error is told before a missing extra
        check_operations(_split(args.ops))
    except UnknownOperation as e:
        raise UsageError(f"--ops: {e}") from None
    _require_graphblas()
    if args.list_ops:
        for name, fam in FAMILIES.items():
            state = "" if fam.available() else "  (not implemented in grblas_gpu)"
            print(f"{name}{state}")
        return 0
    types = _split(args.types)
    if types:
        from grblas_gpu.types import lookup_dtype

        try:
            types = tuple(lookup_dtype(t).name for t in types)
        except Exception as e:  # an unknown type name is a usage error
            raise UsageError(f"--types: {e}") from None
    plan = Plan(mode=args.mode, seed=args.seed, types=types)
    try:
        if args.fuzz is not None:
            from .fuzz import fuzz_cases

            args.mode = "fuzz"
            cases = fuzz_cases(args.fuzz, args.seed, _split(args.ops), types)
        else:
            cases = enumerate_cases(plan, _split(args.ops))
    except UnknownOperation as e:
        raise UsageError(f"--ops: {e}") from None
    if args.shard:
        try:
            part, nparts = (int(x) for x in args.shard.split("/"))
            if not 0 <= part < nparts:
                raise ValueError
        except ValueError:
            raise UsageError(f"--shard: expected I/N with 0 <= I < N, got {args.shard!r}") \
                from None
        cases = [c for c in cases if _shard_of(c, nparts) == part]
    if args.list:
        for c in cases:
            print(f"{c.key}  {c.label}")
        print(f"{len(cases)} cases", file=sys.stderr)
        return 0

    meta = _meta(args, len(cases))
    print(" ".join(f"{k}={v}" for k, v in meta.items()), flush=True)
    start = time.perf_counter()
    current, nfailed = [None], [0]
    with cli_progress.bar(total=len(cases), desc="conformance", unit="case",
                          quiet=args.quiet) as bar:
        drawn = cli_progress.shown(args.quiet)
        bar.postfix(failed=0, refresh=True)

        def progress(o):
            if o.case.op != current[0]:
                current[0] = o.case.op
                if drawn:   # the bar names the operation; a log gets a line
                    bar.describe(o.case.op)
                else:
                    print(f"  {o.case.op} ...", flush=True)
            failed = o.status == "failed"
            if failed:
                nfailed[0] += 1
                bar.write(f"    FAILED {o.case.key}: {o.case.label}\n      {o.reason}")
                bar.postfix(failed=nfailed[0], refresh=True)
            bar.update()

        outcomes = run(cases, shrink=not args.no_shrink, progress=progress)
    elapsed = time.perf_counter() - start
    print()
    print(report.table(outcomes))
    print(f"\n{len(outcomes)} cases in {elapsed:.1f} s")
    failed = [o for o in outcomes if o.status == "failed"]
    for o in failed[:args.max_reproducers]:
        print(f"\n===== reproducer for {o.case.key}: {o.case.label}\n{o.reproducer}")
    if len(failed) > args.max_reproducers:
        print(f"({len(failed) - args.max_reproducers} more reproducers in --json)")
    if args.json:
        with open(args.json, "w") as f:
            f.write(report.to_json(outcomes, dict(meta, seconds=round(elapsed, 2))))
    counts = {s: sum(o.status == s for o in outcomes) for s in ("passed", "failed", "skipped")}
    # the closing line, in the form test runners end with (CI reads it)
    print(f"conformance: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped")
    return 1 if failed else 0


def _require_graphblas():
    """python-graphblas is the reference every case is compared with."""
    try:
        import graphblas  # noqa: F401
    except ImportError as e:
        what = ("is not installed" if e.name == "graphblas"
                else f"cannot be imported ({e})")
        raise Failure(f"conformance compares grblas_gpu with python-graphblas, which {what}: "
                      "pip install 'grblas-gpu[conformance]'") from None


def _shard_of(case, nparts):
    """Cases of one operation, operator and type share their kernels: keep them together."""
    import zlib

    return zlib.crc32(" ".join(case.label.split()[:3]).encode()) % nparts


def _merge(paths):
    """The table and closing line of several parts' JSON outcomes."""
    import json
    from collections import Counter

    from . import report

    import os

    total, ops, failed, missing = Counter(), {}, [], []
    for path in paths:
        if not os.path.exists(path):  # a part that did not finish: the run is incomplete
            missing.append(path)
            continue
        with open(path) as f:
            try:
                doc = json.load(f)
                summary, cases = doc["summary"], doc["cases"]
            except (ValueError, KeyError, TypeError) as e:
                raise Failure(f"--merge {path}: not a conformance --json file ({e!r})") from None
        for op, r in summary.items():
            acc = ops.setdefault(op, Counter())
            for k in ("cases", "passed", "failed", "skipped", "seconds"):
                acc[k] += r[k]
            acc.update({("reason", why): n for why, n in r.get("reasons", {}).items()})
        failed += [c for c in cases if c["status"] == "failed"]
    print(report.merged_table(ops))
    for c in failed:
        print(f"FAILED {c['key']}: {c['label']}\n  {c['reason']}")
    for c in failed[:10]:
        print(f"\n===== reproducer for {c['key']}: {c['label']}\n{c.get('reproducer', '')}")
    for k in ("passed", "failed", "skipped"):
        total[k] = sum(r[k] for r in ops.values())
    for path in missing:
        print(f"MISSING {path}: that part did not finish")
    print(f"conformance: {total['passed']} passed, {total['failed']} failed, "
          f"{total['skipped']} skipped" + (f", {len(missing)} parts missing" if missing else ""))
    return 1 if total["failed"] or missing else 0


def _meta(args, ncases):
    import graphblas

    import grblas_gpu

    from .operands import lagraph_dir, lagraph_files

    loaded, rejected = lagraph_files()
    return {"mode": args.mode, "seed": args.seed, "cases": ncases,
            "backend": grblas_gpu.backend.name, "grblas_gpu": grblas_gpu.__version__,
            "python-graphblas": graphblas.__version__, "python": platform.python_version(),
            # a missing data folder must show: it silently removes the LAGraph cases
            "lagraph": (f"{len(loaded)} files ({len(rejected)} rejected by read_mm) "
                        f"in {lagraph_dir()}" if loaded
                        else f"NO DATA at {lagraph_dir()} (set GRBLAS_GPU_LAGRAPH_DATA)")}
