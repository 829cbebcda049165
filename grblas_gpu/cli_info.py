"""``grblas-gpu info``: the backend, the device and its memory, the versions of the
libraries grblas_gpu uses or compares with, and where the LAGraph test data is.

Versions come from the installed distributions' metadata, so listing one imports nothing
("not installed" where it is absent). Without a GPU backend the CUDA and device lines say
so.
"""
import os
import pathlib
import platform
import sys

from . import backend, operators

__all__ = ["collect", "LAGRAPH_ENV"]

LAGRAPH_ENV = "GRBLAS_GPU_LAGRAPH_DATA"
NOT_INSTALLED = "not installed"
NO_GPU = "no GPU backend"

# key -> the distributions that provide it (the first installed one is reported)
_DISTRIBUTIONS = {
    "numpy": ("numpy",),
    "scipy": ("scipy",),
    "cupy": ("cupy-cuda13x", "cupy-cuda12x", "cupy-cuda11x", "cupy"),
    "python-graphblas": ("python-graphblas",),
    "networkx": ("networkx",),
    "matplotlib": ("matplotlib",),
    "tqdm": ("tqdm",),
}


def _version(dists):
    from importlib import metadata

    for dist in dists:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return NOT_INSTALLED


def _cuda_version(v):
    """CUDA's integer version (12040) as text ('12.4')."""
    return f"{v // 1000}.{v % 1000 // 10}"


def _device():
    if not backend.is_gpu:
        return {"cuda_runtime": NO_GPU, "cuda_driver": NO_GPU, "device": NO_GPU,
                "memory": NO_GPU}
    info = backend.device_info()
    rt = backend.xp.cuda.runtime
    total, free = info["memory_total_bytes"], info["memory_free_bytes"]
    return {"cuda_runtime": _cuda_version(rt.runtimeGetVersion()),
            "cuda_driver": _cuda_version(rt.driverGetVersion()),
            "device": f"{info['device']} (compute capability {info['compute_capability']})",
            "memory": f"{total / 2**30:.1f} GiB, {free / 2**30:.1f} GiB free"}


def lagraph_dir():
    """$GRBLAS_GPU_LAGRAPH_DATA, else ../shared/data/lagraph beside the source tree (where
    the tests and conformance look)."""
    env = os.environ.get(LAGRAPH_ENV)
    if env:
        return pathlib.Path(env)
    repo = pathlib.Path(__file__).resolve().parent.parent
    for cand in (repo.parent / "shared" / "data" / "lagraph",
                 repo / "shared" / "data" / "lagraph"):
        if cand.is_dir():
            return cand
    return repo.parent / "shared" / "data" / "lagraph"


def _lagraph():
    where = lagraph_dir()
    files = sorted(where.glob("*.mtx")) if where.is_dir() else []
    if files:
        return f"found: {len(files)} .mtx files in {where}"
    return f"not found at {where} (set {LAGRAPH_ENV})"


_ORDER = ("backend", "grblas_gpu", "python", "numpy", "scipy", "cupy", "cuda_runtime",
          "cuda_driver", "device", "memory", "python-graphblas", "networkx", "matplotlib",
          "tqdm", "semirings", "lagraph_data")


def collect():
    """Everything ``info`` prints, as plain data: the keys of _ORDER, then the rest of
    backend.device_info() (on a GPU: compute capability, multiprocessors, bytes)."""
    import grblas_gpu

    info = backend.device_info()
    info.update(grblas_gpu=grblas_gpu.__version__, python=platform.python_version())
    info.update({key: _version(dists) for key, dists in _DISTRIBUTIONS.items()})
    info.update(_device())
    catalog = operators.catalog()
    info["semirings"] = len(catalog.catalog()) if hasattr(catalog, "catalog") else None
    info["lagraph_data"] = _lagraph()
    return {**{k: info[k] for k in _ORDER}, **info}


def print_info(info, file=None):
    width = max(map(len, info))
    for key, value in info.items():
        print(f"{key:<{width}}  {value}", file=file or sys.stdout)
