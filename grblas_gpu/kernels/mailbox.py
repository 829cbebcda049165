"""The device side of a Mailbox (grblas_gpu.mailbox): one kernel copies a small vector's
values and bitmap into pinned host memory, then writes a sequence number after them.

Pinned memory is mapped into the device's address space (unified addressing: its host
address is its device address), so a kernel writes it directly and the host sees the
writes without a copy or a synchronisation. Every thread fences its writes at system scope
before the block's barrier, so the sequence number, written last by one thread, is never
seen before the content it announces. The number comes from a device counter the kernel
increments: a recording replays the same launch, and each replay still posts a new number.
"""
import numpy as np

from .cache import KernelKey, get_kernel

__all__ = ["post"]

THREADS = 256

_SOURCE = r"""
// box: [sequence number (8 bytes) | 8 unused | values (value_bytes) | bitmap (n)]
extern "C" __global__ void mailbox_post(const unsigned char* __restrict__ values,
                                        const long long value_bytes,
                                        const unsigned char* __restrict__ bitmap,
                                        const long long n, const unsigned long long box_address,
                                        unsigned long long* __restrict__ counter) {
    unsigned char* box = reinterpret_cast<unsigned char*>(box_address);
    for (long long k = threadIdx.x; k < value_bytes; k += blockDim.x) box[16 + k] = values[k];
    for (long long k = threadIdx.x; k < n; k += blockDim.x) box[16 + value_bytes + k] = bitmap[k];
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned long long s = *counter + 1;
        *counter = s;
        *reinterpret_cast<volatile unsigned long long*>(box) = s;
    }
}
"""


def post(values, bitmap, box_address, counter):
    """Launch the copy of ``values`` and ``bitmap`` (device arrays) into the pinned box at
    ``box_address``, then its next sequence number from ``counter`` (a device uint64)."""
    kernel = get_kernel(KernelKey("mailbox", "post"), lambda: _SOURCE, "mailbox_post")
    kernel((1,), (THREADS,), (values, np.int64(values.nbytes), bitmap, np.int64(len(bitmap)),
                              np.uint64(box_address), counter))
