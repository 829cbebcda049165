"""Launch geometry shared by the generated kernels.

Kernels over n items are grid-stride loops on a grid that fills the device and no more
(``strided_grid``): measured on the H100, a 4M-element pass runs in 14 µs that way against
24 µs for one thread per element (CuPy's ElementwiseKernel), the difference being block
scheduling and 64-bit index arithmetic per element.
"""
from .. import backend

__all__ = ["THREADS", "BLOCK", "BLOCKS_PER_SM", "grid", "strided_grid", "sm_count"]

THREADS = 256       # threads per block
BLOCK = (THREADS,)
BLOCKS_PER_SM = 16  # resident blocks per multiprocessor for the grid-stride kernels

_sm_counts = {}  # (threads: get-then-set; two may both make a value, equal, either kept)


def grid(threads_needed):
    """One thread per item: the number of blocks of THREADS."""
    return (max(1, (int(threads_needed) + THREADS - 1) // THREADS),)


def strided_grid(threads_needed):
    """The grid of a grid-stride kernel: enough blocks to fill the device, no more."""
    return (min(grid(threads_needed)[0], sm_count() * BLOCKS_PER_SM),)


def sm_count():
    """Multiprocessors of the current device (memoised: Device.attributes queries them all)."""
    xp = backend.xp
    dev = xp.cuda.runtime.getDevice()  # (a Device object costs more than the lookup)
    if dev not in _sm_counts:
        _sm_counts[dev] = xp.cuda.runtime.deviceGetAttribute(
            xp.cuda.runtime.cudaDevAttrMultiProcessorCount, dev)
    return _sm_counts[dev]
