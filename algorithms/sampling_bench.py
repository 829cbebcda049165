"""Benchmark for algorithms.sampling: sampled edges per second, fan_out [10, 10, 10], batches
of 1024 random seeds on a Graph500 R-MAT graph (grblas_gpu.generate.rmat), uniform sampling
with and without replacement.

    python -m algorithms.sampling_bench [--scale 22] [--batches 10] [--cpu-scale 20]

Runs on the active backend; with --cpu-scale it also runs itself in a second process under
GRBLAS_GPU_BACKEND=numpy. Prints one JSON line per run, plus a fingerprint of small fixed
samples on the karate graph (equal fingerprints: both backends drew the same sample).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np

from grblas_gpu import backend
from grblas_gpu.generate import karate, rmat

from .sampling import homogeneous_neighbor_sample

FAN_OUT = [10, 10, 10]
BATCH = 1024


def _wait(res):
    backend.to_host(res.dst[-1:])  # a device-to-host copy waits for the work before it


def run(scale, batches, seed=1):
    """One backend's figures as a dict."""
    t0 = time.perf_counter()
    A = rmat(scale, seed=seed)
    backend.to_host(A.to_csr(device=True, values=False)[1][-1:])  # waits for the generator
    gen_s = time.perf_counter() - t0
    rng = np.random.default_rng(seed)
    out = dict(backend=backend.name, device=backend.device_info().get("device"), scale=scale,
               nvals=A.nvals, generate_s=round(gen_s, 2), batch=BATCH, fan_out=FAN_OUT)
    for replace in (True, False):
        warm = homogeneous_neighbor_sample(A, rng.integers(0, A.nrows, BATCH), FAN_OUT,
                                           with_replacement=replace, seed=0)
        _wait(warm)  # compiles the kernels outside the timing
        edges, elapsed = 0, 0.0
        for b in range(batches):
            seeds = backend.asarray(rng.integers(0, A.nrows, BATCH))
            t = time.perf_counter()
            res = homogeneous_neighbor_sample(A, seeds, FAN_OUT, with_replacement=replace,
                                              seed=b + 1)
            _wait(res)
            elapsed += time.perf_counter() - t
            edges += len(res.dst)
        key = "with_replacement" if replace else "without_replacement"
        out[key] = dict(edges_per_batch=edges // batches,
                        ms_per_batch=round(1e3 * elapsed / batches, 2),
                        edges_per_s=round(edges / elapsed))
    out["fingerprint"] = fingerprint()
    return out


def fingerprint():
    """A hash of fixed samples on the karate graph (uniform with and without replacement,
    biased), to compare backends."""
    A = karate()
    h = hashlib.sha256()
    biases = np.arange(A.nvals) % 5
    for kw in (dict(with_replacement=True), dict(with_replacement=False),
               dict(with_replacement=False, biases=biases)):
        res = homogeneous_neighbor_sample(A, np.arange(34), [3, 2], seed=2024, **kw)
        for a in (res.src, res.dst, res.hop):
            h.update(np.ascontiguousarray(backend.to_host(a)).astype(np.int64).tobytes())
    return h.hexdigest()[:16]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=22)
    p.add_argument("--batches", type=int, default=10)
    p.add_argument("--cpu-scale", type=int, default=None,
                   help="also run under GRBLAS_GPU_BACKEND=numpy at this scale")
    p.add_argument("--cpu-batches", type=int, default=3)
    args = p.parse_args(argv)
    print(json.dumps(run(args.scale, args.batches)), flush=True)
    if args.cpu_scale is not None:
        env = dict(os.environ, GRBLAS_GPU_BACKEND="numpy")
        subprocess.run([sys.executable, "-m", "algorithms.sampling_bench", "--scale",
                        str(args.cpu_scale), "--batches", str(args.cpu_batches)], env=env,
                       check=True)


if __name__ == "__main__":
    main()
