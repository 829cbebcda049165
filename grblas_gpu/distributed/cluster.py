"""A Dask client for the distributed objects: an existing one, or a local cluster's.

On the CuPy backend the local cluster has one worker process per visible GPU, worker i
seeing GPU i first (``CUDA_VISIBLE_DEVICES`` rotated, as dask-cuda sets it), one thread
each, the engine on CuPy there too: ``dask_cuda.LocalCUDACluster`` when dask-cuda imports,
else the same workers as a ``distributed.SpecCluster`` (:func:`gpu_cluster_spec`). On
NumPy it has ``n_workers`` CPU processes (``distributed.LocalCluster``)."""
import logging
import os

import grblas_gpu as gg
from ..errors import InvalidValue, NotSupported

__all__ = ["connect", "visible_devices", "device_list", "gpu_cluster_spec"]

# what a GPU worker's engine runs on (inherited by the worker process before it imports)
_GPU_ENV = {"GRBLAS_GPU_BACKEND": "cupy"}


def connect(client=None, *, n_workers=None, dask_cuda=None):
    """The ``distributed.Client`` given, or a new local cluster's. On CuPy: one worker per
    visible GPU (``n_workers``: the first n of them), through dask-cuda when it imports
    (``dask_cuda``: None, True to require it, False for the SpecCluster of the same
    workers). On NumPy: ``n_workers`` worker processes of one thread each (default: the CPU
    count, at most 4)."""
    try:
        import distributed
    except ImportError:
        raise NotSupported("grblas_gpu.distributed needs dask and distributed: pip install "
                           "'grblas-gpu[distributed]'") from None
    if client is not None:
        if not isinstance(client, distributed.Client):
            raise InvalidValue(f"connect: client must be a distributed.Client, got "
                               f"{type(client).__name__}")
        return client
    if dask_cuda not in (None, True, False):
        raise InvalidValue(f"connect: dask_cuda must be None, True or False, got {dask_cuda!r}")
    if n_workers is not None and (isinstance(n_workers, bool) or not isinstance(n_workers, int)
                                  or n_workers < 1):
        raise InvalidValue(f"connect: n_workers must be an integer >= 1, got {n_workers!r}")
    try:
        if gg.backend.is_gpu:
            cluster = _gpu_cluster(n_workers, dask_cuda)
        else:
            n_workers = n_workers or min(4, os.cpu_count() or 1)
            cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                               processes=True, dashboard_address=None)
    except gg.GraphBLASError:
        raise
    except Exception as e:   # noqa: BLE001  (Dask's: a worker process that did not start)
        raise InvalidValue(f"connect: the local cluster did not start ({type(e).__name__}: "
                           f"{str(e).splitlines()[0] if str(e) else ''}); a script that "
                           "starts one needs `if __name__ == '__main__':`, as any "
                           "multiprocessing program") from None
    return _started(distributed.Client(cluster), len(cluster.worker_spec))


# seconds connect() waits for its local cluster's workers to register
START_TIMEOUT = 120.0


def _started(client, expected):
    """The client once all ``expected`` workers have registered (a cluster's constructor may
    return before its workers are up; a GPU worker takes seconds), else InvalidValue."""
    try:
        client.wait_for_workers(expected, timeout=START_TIMEOUT)
    except Exception as e:   # noqa: BLE001  (Dask's TimeoutError, a worker that failed)
        up = len(client.nthreads())
        cluster = client.cluster
        client.close()
        cluster.close()
        raise InvalidValue(f"connect: {up} of the local cluster's {expected} workers started "
                           f"within {START_TIMEOUT:g} s ({type(e).__name__})") from None
    return client


def device_list(count, visible=None):
    """The ids of the ``count`` GPUs CUDA shows: the first ``count`` of
    ``CUDA_VISIBLE_DEVICES`` (``visible``) when it is set, else 0 .. count-1."""
    if visible is None:
        return [str(i) for i in range(count)]
    return [d.strip() for d in visible.split(",") if d.strip()][:count]


def visible_devices():
    """The GPUs this process sees (CUDA's count, CUDA_VISIBLE_DEVICES honoured), by id."""
    return device_list(gg.backend.xp.cuda.runtime.getDeviceCount(),
                       os.environ.get("CUDA_VISIBLE_DEVICES"))


def gpu_cluster_spec(devices, n_workers=None):
    """(scheduler, workers): a ``distributed.SpecCluster``'s specification of one Nanny
    worker per device of ``devices`` (the first ``n_workers``), one thread each, worker i
    seeing ``devices`` rotated to start at its own and running the engine on CuPy; on
    127.0.0.1, without dashboards, the host memory shared out evenly."""
    from distributed import Nanny, Scheduler
    from distributed.system import MEMORY_LIMIT

    devices = [str(d) for d in devices]
    n = len(devices) if n_workers is None else n_workers
    if not 1 <= n <= len(devices):
        raise InvalidValue(f"connect: one worker per GPU: n_workers must lie in [1, "
                           f"{len(devices)}], got {n}")
    scheduler = {"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard": False,
                                               "dashboard_address": None}}
    workers = {}
    for i in range(n):
        env = dict(_GPU_ENV, CUDA_VISIBLE_DEVICES=",".join(devices[i:] + devices[:i]))
        workers[f"gpu-{i}"] = {"cls": Nanny, "options": {
            "nthreads": 1, "host": "127.0.0.1", "dashboard": False, "env": env,
            "memory_limit": MEMORY_LIMIT // n, "silence_logs": logging.WARN}}
    return scheduler, workers


def _gpu_cluster(n_workers, use_dask_cuda):
    devices = visible_devices()
    gpu_cluster_spec(devices, n_workers)        # (checks n_workers against the GPUs)
    if use_dask_cuda is not False:
        try:
            from dask_cuda import LocalCUDACluster
        except Exception as e:   # noqa: BLE001  (absent, or its CUDA packages are)
            if use_dask_cuda:
                raise NotSupported(f"connect: dask_cuda does not import here "
                                   f"({type(e).__name__}: {e})") from None
        else:
            import dask

            # (dask-cuda sets each worker's env to CUDA_VISIBLE_DEVICES alone)
            with dask.config.set({"distributed.nanny.environ": _GPU_ENV}):
                return LocalCUDACluster(CUDA_VISIBLE_DEVICES=devices, n_workers=n_workers,
                                        threads_per_worker=1, dashboard_address=None)
    from distributed import SpecCluster

    scheduler, workers = gpu_cluster_spec(devices, n_workers)
    return SpecCluster(workers=workers, scheduler=scheduler, silence_logs=logging.WARN,
                       name="grblas_gpu GPU workers")
