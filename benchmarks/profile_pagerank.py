"""PageRank's set-up by function counts: ``python -m grblas_gpu.benchmarks.profile_pagerank [--scale N]``.

cProfile over ``algorithms.pagerank`` on a directed R-MAT graph (weighted, FP64; with
``--undirected``, GAP's kind: undirected, iso FP32, tolerance 1e-4): a first call on a fresh graph and a repeated call on the same graph, each after a warm-up call on
another graph (kernels compiled, caches filled). Prints the calls of the functions that
compact or synchronise (nonzero, boolean indexing's helpers, host reads) and the top
functions by cumulative time. On the NumPy backend the counts are exact and the times
are the CPU's; run it on the GPU for device times.
"""
import argparse
import cProfile
import io
import pstats

import grblas_gpu as gg
from grblas_gpu.algorithms import pagerank
from grblas_gpu import backend, generate

WATCHED = ("nonzero", "flatnonzero", "argwhere", "compress", "to_host", "to_scalar",
           "count_nonzero", "searchsorted", "argsort", "lexsort")


def _profile(fn):
    pr = cProfile.Profile()
    pr.enable()
    fn()
    if backend.is_gpu:
        backend.xp.cuda.Device().synchronize()
    pr.disable()
    return pstats.Stats(pr)


def _watched(stats):
    counts = {}
    for (file, line, name), (cc, nc, tt, ct, callers) in stats.stats.items():
        if name in WATCHED or ("nonzero" in name and "grblas_gpu" not in file
                               and "algorithms" not in file):
            key = f"{name} ({file.rsplit('/', 1)[-1]}:{line})"
            counts[key] = counts.get(key, 0) + nc
    return counts


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m grblas_gpu.benchmarks.profile_pagerank")
    p.add_argument("--scale", type=int, default=14)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--callers", action="store_true", help="who calls nonzero")
    p.add_argument("--undirected", action="store_true",
                   help="an undirected iso FP32 graph (GAP's kron), tolerance 1e-4")
    args = p.parse_args(argv)
    if args.undirected:
        graph = lambda seed: generate.rmat(args.scale, seed=seed, dtype=gg.FP32)
        kwargs = {"tolerance": 1e-4}
    else:
        graph = lambda seed: generate.rmat(args.scale, seed=seed, symmetric=False,
                                          weighted=True, dtype=gg.FP64)
        kwargs = {}
    pagerank(graph(1), **kwargs)              # warm-up: kernels, caches
    A = graph(2)
    for label in ("first call (fresh graph)", "repeated call (same graph)"):
        stats = _profile(lambda: pagerank(A, **kwargs))
        print(f"== {label}: {stats.total_calls} function calls, {stats.total_tt * 1e3:.1f} ms")
        for key, n in sorted(_watched(stats).items()):
            print(f"   {n:5d}  {key}")
        out = io.StringIO()
        stats.stream = out
        stats.sort_stats("cumulative").print_stats(args.top)
        if args.callers:
            stats.print_callers("nonzero")
        print("\n".join(out.getvalue().splitlines()[6:]))


if __name__ == "__main__":
    main()
