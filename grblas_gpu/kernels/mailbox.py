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

from .. import backend
from .cache import KernelKey, get_kernel

__all__ = ["post", "PinnedBox"]

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


_WAIT_CHECKS = 4096  # spins between looks at whether the device is still working


class PinnedBox:
    """Pinned host memory laid out as the post kernel writes it, with the host's wait for
    the next post: the device half of a Mailbox, and what a kernel's own state (a BFS's
    stop flag) is posted through."""

    def __init__(self, value_bytes, bitmap_bytes):
        xp = backend.xp
        nbytes = 16 + value_bytes + bitmap_bytes
        self._box = xp.cuda.alloc_pinned_memory(nbytes)
        raw = np.frombuffer(self._box, dtype=np.uint8, count=nbytes)
        self._sequence = raw[:8].view(np.uint64)
        self._sequence[0] = 0
        self.values = raw[16:16 + value_bytes]                  # (bytes; view as the type)
        self.bitmap = raw[16 + value_bytes:].view(bool)
        self._counter = xp.zeros(1, dtype=np.uint64)
        self._taken = 0

    def post(self, values, bitmap):
        """Launch the post of ``values`` and ``bitmap`` (device arrays of the box's sizes)."""
        post(values, bitmap, self._box.ptr, self._counter)

    def wait(self):
        """Wait for a post newer than the last one waited for; False (at once) when the
        device has finished all the work issued and none came."""
        stream = backend.xp.cuda.get_current_stream()
        spins = 0
        while int(self._sequence[0]) == self._taken:
            spins += 1
            if spins % _WAIT_CHECKS == 0 and stream.done and int(self._sequence[0]) == self._taken:
                return False
        self._taken = int(self._sequence[0])
        return True
