"""Where an algorithm's time goes, operation by operation:
``python -m benchmarks.profile_ops [--scale N] [--algorithms bfs,pagerank]``.

Wraps every public operation of ``grblas_gpu`` with a timer that synchronises the device
before and after the call, runs each algorithm once to warm up (compiling kernels) and once
measured, and prints, per calling line of the algorithm, the calls and the total
milliseconds. The synchronisation
adds a few microseconds per call, so totals exceed an unprofiled run slightly; this is for
finding the slow operation, not for figures (``python -m benchmarks`` gives those).
"""
import collections
import functools
import sys
import time

import grblas_gpu as gg
from grblas_gpu import backend
from grblas_gpu.cli_errors import ArgumentParser, UsageError, run_main

OPERATIONS = ["mxv", "vxm", "mxm", "ewise_add", "ewise_mult", "ewise_union", "apply",
              "select", "reduce_rowwise", "reduce_scalar", "assign", "extract", "transpose"]


def _sync():
    if backend.is_gpu:
        backend.xp.cuda.Device().synchronize()


class Profile:
    def __init__(self):
        self.rows = collections.defaultdict(lambda: [0, 0.0])
        self.depth = 0

    def wrap(self, name, f):
        @functools.wraps(f)
        def timed_op(*args, **kwargs):
            if self.depth:                 # an operation called by another: count the outer
                return f(*args, **kwargs)
            caller = sys._getframe(1)
            where = f"{caller.f_code.co_filename.rsplit('/', 1)[-1]}:{caller.f_lineno}"
            _sync()
            t0 = time.perf_counter()
            self.depth += 1
            try:
                return f(*args, **kwargs)
            finally:
                self.depth -= 1
                _sync()
                row = self.rows[(where, name)]
                row[0] += 1
                row[1] += time.perf_counter() - t0
        return timed_op

    def install(self):
        originals = {}
        for name in OPERATIONS:
            originals[name] = getattr(gg, name)
            setattr(gg, name, self.wrap(name, originals[name]))
        return originals

    def report(self, title, total):
        print(f"\n== {title}: {total * 1e3:.2f} ms in all")
        print(f"{'where':<28}{'operation':<16}{'calls':>6}{'ms':>10}{'ms/call':>10}")
        for (where, name), (calls, secs) in sorted(self.rows.items(), key=lambda kv: -kv[1][1]):
            print(f"{where:<28}{name:<16}{calls:>6}{secs * 1e3:>10.3f}{secs * 1e3 / calls:>10.3f}")


def _bfs(scale):
    import algorithms
    import semirings
    from algorithms._common import index_type
    from grblas_gpu.generate import rmat

    A = rmat(scale, 16, seed=20261122, symmetric=True)
    n = A.nrows
    S = gg.apply(gg.Matrix(index_type(n), n, n), A, semirings.unary.one)
    deg = gg.reduce_rowwise(gg.Vector(gg.INT64, n), S, semirings.monoid.plus)
    src = int(backend.to_scalar(backend.xp.argmax(deg.to_dense(device=True))))
    return lambda: algorithms.bfs_advanced(S, src, AT=S)


def _pagerank(scale):
    import algorithms
    from grblas_gpu.generate import rmat

    A = rmat(scale, 16, seed=20261122, symmetric=False, dtype="FP32")
    return lambda: algorithms.pagerank(A, 0.85, max_iter=8, tolerance=1e-9)


def _sssp(scale):
    import algorithms
    from grblas_gpu.generate import rmat

    A = rmat(scale, 16, seed=20261122, symmetric=True, weighted=True, dtype="FP32")
    return lambda: algorithms.sssp(A, 0)


def _triangle_count(scale):
    import algorithms
    from grblas_gpu.generate import rmat

    A = rmat(scale, 16, seed=20261122, symmetric=True)
    return lambda: algorithms.triangle_count(A)


PROG = "python -m benchmarks.profile_ops"
ALGORITHMS = {"bfs": _bfs, "pagerank": _pagerank, "sssp": _sssp,
              "triangle_count": _triangle_count}


def main(argv=None):
    p = ArgumentParser(prog=PROG)
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--algorithms", default="bfs,pagerank")
    p.add_argument("--debug", action="store_true", help="show the traceback of an error")
    args = p.parse_args(argv)
    names = args.algorithms.split(",")
    unknown = [n for n in names if n not in ALGORITHMS]
    if unknown:
        raise UsageError(f"--algorithms: unknown {', '.join(map(repr, unknown))}; choose from "
                         f"{', '.join(ALGORITHMS)}")
    for name in names:
        run = ALGORITHMS[name](args.scale)
        try:
            run()
        except gg.errors.NotConverged:
            pass
        prof = Profile()
        originals = prof.install()
        _sync()
        t0 = time.perf_counter()
        try:
            run()
        except gg.errors.NotConverged:
            pass
        _sync()
        total = time.perf_counter() - t0
        for op, f in originals.items():
            setattr(gg, op, f)
        prof.report(f"{name} at scale {args.scale}", total)


if __name__ == "__main__":
    sys.exit(run_main(PROG, lambda argv: main(argv) or 0))
