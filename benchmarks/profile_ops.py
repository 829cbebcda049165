"""Where an algorithm's time goes, operation by operation:
``python -m grblas_gpu.benchmarks.profile_ops [--scale N] [--algorithms bfs,pagerank]
[--sequence]``; and the fixed cost of one small call:
``python -m grblas_gpu.benchmarks.profile_ops --fixed-cost [--n N] [--launches]``.

Wraps every public operation of ``grblas_gpu`` with a timer that synchronises the device
before and after the call, runs each algorithm once to warm up (compiling kernels) and once
measured, and prints, per calling line of the algorithm, the calls and the total
milliseconds. The synchronisation
adds a few microseconds per call, so totals exceed an unprofiled run slightly; this is for
finding the slow operation, not for figures (``python -m grblas_gpu.benchmarks`` gives those).

``--fixed-cost`` times each small operation of a user's loop (a BFS frontier step
``w⟨¬π.S, replace⟩ = q any.secondi A``, plain vxm/mxv, apply, a masked scalar assign,
ewise_add, select, reduce to a scalar, ``nvals``) on a random graph of n vertices, and the
same call in python-graphblas when it is installed: the median µs per call of several
timeit repeats, and our/its ratio. Small n makes the figure the host's fixed cost.

``--launches`` (GPU, with PyTorch installed: its profiler is the CUPTI timeline Python has)
records the same calls on a timeline of host-side CUDA API calls and reports, per call, the
host µs from the call's start to its first device work (a kernel launch, copy or memset), the
host µs in all, and the launches, copies and synchronisations it made. Two first rows show
the floor the timeline sets: a marker with no call between, and one CuPy launch (``fill``).

``--algorithms user_bfs,user_pagerank`` profiles the user-written loops of
``benchmarks.user_algorithms`` at kron ``--scale`` (BFS from the GAP harness's first random
source, the out-degrees computed once as LAGraph caches them; A its own transpose).
"""
import collections
import functools
import statistics
import sys
import time
import timeit

import numpy as np

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
        self.calls = []                    # (where, operation, seconds) in call order
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
                secs = time.perf_counter() - t0
                row = self.rows[(where, name)]
                row[0] += 1
                row[1] += secs
                self.calls.append((where, name, secs))
        return timed_op

    def install(self):
        originals = {}
        for name in OPERATIONS:
            originals[name] = getattr(gg, name)
            setattr(gg, name, self.wrap(name, originals[name]))
        return originals

    def report(self, title, total, sequence=False):
        inside = sum(secs for _, secs in self.rows.values())
        print(f"\n== {title}: {total * 1e3:.2f} ms in all, {inside * 1e3:.2f} ms in operations")
        if sequence:
            print(f"{'#':>4}  {'where':<28}{'operation':<16}{'ms':>10}")
            for i, (where, name, secs) in enumerate(self.calls):
                print(f"{i:>4}  {where:<28}{name:<16}{secs * 1e3:>10.3f}")
        print(f"{'where':<28}{'operation':<16}{'calls':>6}{'ms':>10}{'ms/call':>10}")
        for (where, name), (calls, secs) in sorted(self.rows.items(), key=lambda kv: -kv[1][1]):
            print(f"{where:<28}{name:<16}{calls:>6}{secs * 1e3:>10.3f}{secs * 1e3 / calls:>10.3f}")


def _bfs(scale):
    from grblas_gpu import algorithms
    from grblas_gpu import semirings
    from grblas_gpu.algorithms._common import index_type
    from grblas_gpu.generate import rmat

    A = rmat(scale, 16, seed=20261122, symmetric=True)
    n = A.nrows
    S = gg.apply(gg.Matrix(index_type(n), n, n), A, semirings.unary.one)
    deg = gg.reduce_rowwise(gg.Vector(gg.INT64, n), S, semirings.monoid.plus)
    src = int(backend.to_scalar(backend.xp.argmax(deg.to_dense(device=True))))
    return lambda: algorithms.bfs_advanced(S, src, AT=S)


def _pagerank(scale):
    from grblas_gpu import algorithms
    from grblas_gpu.generate import rmat

    A = rmat(scale, 16, seed=20261122, symmetric=False, dtype="FP32")
    return lambda: algorithms.pagerank(A, 0.85, max_iter=8, tolerance=1e-9)


def _sssp(scale):
    from grblas_gpu import algorithms
    from grblas_gpu.generate import rmat

    A = rmat(scale, 16, seed=20261122, symmetric=True, weighted=True, dtype="FP32")
    return lambda: algorithms.sssp(A, 0)


def _triangle_count(scale):
    from grblas_gpu import algorithms
    from grblas_gpu.generate import rmat

    A = rmat(scale, 16, seed=20261122, symmetric=True)
    return lambda: algorithms.triangle_count(A)


# ---------------------------------------------------------------- fixed cost
def _random_graph(n, degree, seed):
    """(rows, cols, values) of a random directed graph, no duplicate edges."""
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, n * n, size=n * degree, dtype=np.int64))
    return keys // n, keys % n, rng.random(len(keys))


def _random_vector(n, count, rng):
    idx = np.sort(rng.choice(n, size=count, replace=False)).astype(np.int64)
    return idx, rng.random(count) + 0.5


def _fixed_cost_cases(n, seed):
    """{name: (our call, python-graphblas's call or None)} over the same data."""
    from grblas_gpu import semirings
    rng = np.random.default_rng(seed + 1)
    r, c, v = _random_graph(n, 8, seed)
    qi, qv = _random_vector(n, max(n // 100, 1), rng)     # a frontier
    pi, pv = _random_vector(n, max(n // 10, 1), rng)      # the visited set
    xi, xv = _random_vector(n, max(n // 10, 1), rng)
    A = gg.Matrix.from_coo(r, c, v, nrows=n, ncols=n, dtype="FP64")
    q = gg.Vector.from_coo(qi, qv, size=n, dtype="FP64")
    p = gg.Vector.from_coo(pi, pv, size=n, dtype="FP64")
    x = gg.Vector.from_coo(xi, xv, size=n, dtype="FP64")
    full = gg.Vector.from_coo(np.arange(n), np.ones(n), size=n, dtype="FP64")
    w_i, w, p2 = gg.Vector(gg.INT64, n), gg.Vector(gg.FP64, n), p.dup()
    replace = gg.Descriptor(replace=True)
    ours = {
        "bfs step vxm": lambda: gg.vxm(w_i, q, A, semirings.any_secondi, mask=~p.S,
                                       desc=replace),
        "vxm plus_times": lambda: gg.vxm(w, q, A, "plus_times"),
        "mxv plus_times": lambda: gg.mxv(w, A, full, "plus_times"),
        "apply ainv": lambda: gg.apply(w, x, "ainv"),
        "assign scalar⟨q.S⟩": lambda: gg.assign(p2, 1.0, None, mask=q.S),
        "ewise_add plus": lambda: gg.ewise_add(w, x, p, "plus"),
        "select valuegt": lambda: gg.select(w, x, "valuegt", 0.75),
        "reduce plus": lambda: gg.reduce_scalar(x, "plus"),
        "nvals": lambda: x.nvals,
    }
    try:
        import graphblas as gb
    except ImportError:
        return {k: (f, None) for k, f in ours.items()}
    gA = gb.Matrix.from_coo(r, c, v, nrows=n, ncols=n, dtype="FP64")
    gq = gb.Vector.from_coo(qi, qv, size=n, dtype="FP64")
    gp = gb.Vector.from_coo(pi, pv, size=n, dtype="FP64")
    gx = gb.Vector.from_coo(xi, xv, size=n, dtype="FP64")
    gfull = gb.Vector.from_coo(np.arange(n), np.ones(n), size=n, dtype="FP64")
    gw_i, gw, gp2 = gb.Vector("INT64", n), gb.Vector("FP64", n), gp.dup()
    sr = gb.semiring
    any_secondi = sr.ss.any_secondi if hasattr(sr, "ss") else sr.any_secondi

    def g_bfs():
        gw_i(~gp.S, replace=True) << gq.vxm(gA, any_secondi)
        return gw_i

    def g_vxm():
        gw << gq.vxm(gA, sr.plus_times)
        return gw

    def g_mxv():
        gw << gA.mxv(gfull, sr.plus_times)
        return gw

    def g_apply():
        gw << gx.apply(gb.unary.ainv)
        return gw

    def g_assign():
        gp2(gq.S) << 1.0
        return gp2

    def g_ewise():
        gw << gx.ewise_add(gp, gb.binary.plus)
        return gw

    def g_select():
        gw << gb.select.valuegt(gx, 0.75)
        return gw

    theirs = [g_bfs, g_vxm, g_mxv, g_apply, g_assign, g_ewise, g_select,
              lambda: gx.reduce(gb.monoid.plus).value, lambda: gx.nvals]
    return {k: (f, g) for (k, f), g in zip(ours.items(), theirs)}


def _median_us(f, number, repeat):
    f()  # warm: compile, build caches
    return statistics.median(timeit.repeat(f, number=number, repeat=repeat)) / number * 1e6


def fixed_cost(n=1000, number=200, repeat=7, seed=20261125):
    """[(operation, our µs, python-graphblas's µs or None)] per small call."""
    rows = []
    for name, (ours, theirs) in _fixed_cost_cases(n, seed).items():
        us = _median_us(ours, number, repeat)
        them = _median_us(theirs, number, repeat) if theirs is not None else None
        rows.append((name, us, them))
    return rows


def report_fixed_cost(rows, n):
    print(f"== fixed cost per call, n = {n}, backend {backend.name}: median µs")
    print(f"{'operation':<22}{'ours':>9}{'graphblas':>11}{'ratio':>8}")
    for name, us, them in rows:
        tail = f"{them:>11.1f}{us / them:>8.2f}" if them else f"{'-':>11}{'-':>8}"
        print(f"{name:<22}{us:>9.1f}{tail}")


def _user_bfs(scale):
    from grblas_gpu.benchmarks.cases_gap import make_graph, pick_sources
    from grblas_gpu.benchmarks.user_algorithms import out_degree, user_bfs

    A = make_graph("kron", scale)
    src, deg = int(pick_sources(A, 1)[0]), out_degree(A)
    return lambda: user_bfs(A, A, src, deg)


def _user_pagerank(scale):
    from grblas_gpu.benchmarks.cases_gap import make_graph
    from grblas_gpu.benchmarks.user_algorithms import user_pagerank

    A = make_graph("kron", scale)
    return lambda: user_pagerank(A, A)


# ---------------------------------------------------------------- launches (CUPTI timeline)
_LAUNCH = ("cuLaunchKernel", "cudaLaunchKernel", "cuGraphLaunch", "cudaGraphLaunch")
_COPY = ("cudaMemcpy", "cuMemcpy", "cudaMemset", "cuMemset")
_WORK = _LAUNCH + _COPY
_MARK = "cudaStreamQuery"     # a runtime call the operations never make: each call's start


def launch_profile(n=1000, calls=100, seed=20261125):
    """[(operation, host µs before its first device work, host µs in all, kernel launches,
    copies and memsets, synchronisations)] per small call (medians over ``calls``), from the
    CUDA API calls on PyTorch's profiler timeline. Each call starts with a marker API call
    (``cudaStreamQuery``) rather than a PyTorch annotation, which costs far more host time."""
    if not backend.is_gpu:
        raise UsageError("--launches profiles kernel launches: it needs the CuPy backend")
    try:
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        raise UsageError("--launches reads a CUPTI timeline through PyTorch's profiler: "
                         "install torch") from None
    xp = backend.xp
    mark = functools.partial(xp.cuda.runtime.streamQuery, 0)
    ones = xp.ones(n)
    # the floor the timeline itself sets: no call at all, and one CuPy launch
    cases = {"(profiler floor)": lambda: None, "(one CuPy launch)": lambda: ones.fill(1.0),
             **{k: ours for k, (ours, _) in _fixed_cost_cases(n, seed).items()}}
    for f in cases.values():
        f(), f()
    _sync()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for f in cases.values():
            for _ in range(calls):
                mark()
                f()
            mark()
            _sync()
    api = sorted((e.time_range.start, e.name) for e in prof.events()
                 if e.device_type.name == "CPU" and e.name.startswith("cu"))
    marks = [i for i, (_, name) in enumerate(api) if name.startswith(_MARK)]
    rows = []
    for k, name in enumerate(cases):   # calls + 1 marks per operation
        per_call = []
        for m0, m1 in zip(marks[k * (calls + 1):(k + 1) * (calls + 1) - 1],
                          marks[k * (calls + 1) + 1:(k + 1) * (calls + 1)]):
            t0, inside = api[m0][0], api[m0 + 1:m1]
            work = [t for t, nm in inside if nm.startswith(_WORK)]
            per_call.append((work[0] - t0 if work else float("nan"), api[m1][0] - t0,
                             sum(nm.startswith(_LAUNCH) for _, nm in inside),
                             sum(nm.startswith(_COPY) for _, nm in inside),
                             sum("Synchronize" in nm for _, nm in inside)))
        rows.append((name, *(statistics.median(c[i] for c in per_call) for i in range(5))))
    return rows


def report_launches(rows, n):
    print(f"== host time per small call, n = {n} (CUPTI timeline, median of the calls)")
    print(f"{'operation':<22}{'µs to work':>11}{'µs in all':>11}{'launches':>10}"
          f"{'copies':>8}{'syncs':>7}")
    for name, first, total, launches, copies, syncs in rows:
        print(f"{name:<22}{first:>11.1f}{total:>11.1f}{launches:>10.0f}{copies:>8.0f}"
              f"{syncs:>7.0f}")


PROG = "python -m grblas_gpu.benchmarks.profile_ops"
ALGORITHMS = {"bfs": _bfs, "pagerank": _pagerank, "sssp": _sssp,
              "triangle_count": _triangle_count, "user_bfs": _user_bfs,
              "user_pagerank": _user_pagerank}


def main(argv=None):
    p = ArgumentParser(prog=PROG)
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--algorithms", default="bfs,pagerank")
    p.add_argument("--fixed-cost", action="store_true",
                   help="time small calls against python-graphblas instead")
    p.add_argument("--n", type=int, default=1000, help="vertices for --fixed-cost")
    p.add_argument("--number", type=int, default=200, help="calls per timing for --fixed-cost")
    p.add_argument("--sequence", action="store_true",
                   help="also list every call in order (an algorithm's levels)")
    p.add_argument("--launches", action="store_true",
                   help="with --fixed-cost: host time to each call's first device work "
                        "(GPU, torch)")
    p.add_argument("--debug", action="store_true", help="show the traceback of an error")
    args = p.parse_args(argv)
    if args.fixed_cost and args.launches:
        report_launches(launch_profile(args.n, args.number), args.n)
        return
    if args.fixed_cost:
        report_fixed_cost(fixed_cost(args.n, args.number), args.n)
        return
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
        prof.report(f"{name} at scale {args.scale}", total, args.sequence)


if __name__ == "__main__":
    sys.exit(run_main(PROG, lambda argv: main(argv) or 0))
