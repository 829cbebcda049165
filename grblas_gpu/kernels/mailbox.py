"""The device side of a Mailbox and an Inbox (grblas_gpu.mailbox).

Mailbox: one kernel copies a small vector's values and bitmap into pinned host memory, then
writes a sequence number after them.

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
from .cuda_common import c_word_type

__all__ = ["post", "deliver"]

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


_DELIVER = r"""
typedef ${T} T;
// staged: [count (8 bytes) | indices (8 bytes each, capacity) | values (capacity)]; the
// bitmap was cleared by the memset before this launch
extern "C" __global__ void inbox_deliver(const long long* __restrict__ staged,
                                         const long long capacity, T* __restrict__ values,
                                         bool* __restrict__ bitmap) {
    const long long count = staged[0];
    const T* staged_values = reinterpret_cast<const T*>(staged + 1 + capacity);
    for (long long k = threadIdx.x; k < count; k += blockDim.x) {
        const long long i = staged[1 + k];
        values[i] = staged_values[k];
        bitmap[i] = true;
    }
}
"""


def deliver(staged, capacity, values, bitmap):
    """Clear ``bitmap`` and set the entries ``staged`` (a device array laid out as
    _DELIVER says) holds into ``values`` and ``bitmap``: two launches on the stream."""
    from string import Template

    xp = backend.xp
    word = c_word_type(values.itemsize)
    kernel = get_kernel(KernelKey("mailbox", "deliver", (), (word,)),
                        lambda: Template(_DELIVER).substitute(T=word), "inbox_deliver")
    xp.cuda.runtime.memsetAsync(bitmap.data.ptr, 0, bitmap.nbytes,
                                xp.cuda.get_current_stream().ptr)
    kernel((1,), (THREADS,), (staged, np.int64(capacity), values, bitmap))


def post(values, bitmap, box_address, counter):
    """Launch the copy of ``values`` and ``bitmap`` (device arrays) into the pinned box at
    ``box_address``, then its next sequence number from ``counter`` (a device uint64)."""
    kernel = get_kernel(KernelKey("mailbox", "post"), lambda: _SOURCE, "mailbox_post")
    kernel((1,), (THREADS,), (values, np.int64(values.nbytes), bitmap, np.int64(len(bitmap)),
                              np.uint64(box_address), counter))
