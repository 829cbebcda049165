"""The one place that chooses the array module.

CuPy when a CUDA device is usable, NumPy otherwise; ``GRBLAS_GPU_BACKEND=numpy|cupy``
forces one. Everything else takes ``xp`` from here and never asks which it is,
except the kernel layer, which holds one implementation per backend.
"""
import os

import numpy

from .errors import NotSupported

__all__ = ["xp", "name", "is_gpu", "asarray", "to_host", "to_scalar", "data_address",
           "device_info"]


def _usable_cupy():
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        cupy.arange(2).sum().item()  # a real launch: fails early on a broken driver
        return cupy
    except Exception:  # noqa: BLE001 -- any failure means "no usable GPU"
        return None


def _choose():
    forced = os.environ.get("GRBLAS_GPU_BACKEND", "").strip().lower()
    if forced not in ("", "numpy", "cupy"):
        raise NotSupported(f"GRBLAS_GPU_BACKEND={forced!r}: expected 'numpy' or 'cupy'")
    if forced == "numpy":
        return numpy
    cupy = _usable_cupy()
    if forced == "cupy" and cupy is None:
        raise NotSupported(
            "GRBLAS_GPU_BACKEND=cupy but CuPy cannot use a CUDA device here "
            "(install cupy-cuda12x/cupy-cuda13x and check the driver)"
        )
    return cupy if cupy is not None else numpy


xp = _choose()
name = "cupy" if xp is not numpy else "numpy"
is_gpu = name == "cupy"


def asarray(a, dtype=None):
    """An array of the active backend (device arrays stay on the device)."""
    return xp.asarray(a, dtype=dtype)


def to_host(a):
    """A NumPy array (copies from the device under CuPy)."""
    if isinstance(a, numpy.ndarray):
        return a
    if is_gpu and isinstance(a, xp.ndarray):
        return xp.asnumpy(a)
    return numpy.asarray(a)


def to_scalar(a):
    """A Python scalar from a 0-d array: the one device-to-host read a loop may need."""
    return a.item() if hasattr(a, "item") else a


def data_address(a):
    """The address of an array's first element (device or host): tells shared buffers apart."""
    return a.data.ptr if is_gpu else a.__array_interface__["data"][0]


def device_info():
    """Backend, device name and memory, and library versions, as plain data."""
    info = {"backend": name, "numpy": numpy.__version__}
    try:
        import scipy

        info["scipy"] = scipy.__version__
    except ImportError:  # pragma: no cover
        pass
    if is_gpu:
        props = xp.cuda.runtime.getDeviceProperties(xp.cuda.Device().id)
        free, total = xp.cuda.runtime.memGetInfo()
        info.update(
            cupy=xp.__version__,
            device=props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
            compute_capability=f"{props['major']}.{props['minor']}",
            multiprocessors=props["multiProcessorCount"],
            memory_total_bytes=int(total),
            memory_free_bytes=int(free),
            cuda_runtime=xp.cuda.runtime.runtimeGetVersion(),
        )
    else:
        info["device"] = "CPU"
    return info
