"""A Dask client for the distributed objects: an existing one, or a local cluster."""
from ..errors import InvalidValue, NotSupported

__all__ = ["connect"]


def connect(client=None, *, n_workers=None):
    """The ``distributed.Client`` given, or a new local cluster's: ``n_workers`` worker
    processes of one thread each (default: the CPU count, at most 4), on CPU. (A GPU
    cluster, dask_cuda.LocalCUDACluster with a worker per GPU, is not supported yet.)"""
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
    if n_workers is None:
        import os

        n_workers = min(4, os.cpu_count() or 1)
    if isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1:
        raise InvalidValue(f"connect: n_workers must be an integer >= 1, got {n_workers!r}")
    cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None)
    return distributed.Client(cluster)
