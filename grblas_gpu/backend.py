"""The one place that chooses the array module.

CuPy when a CUDA device is usable, NumPy otherwise; ``GRBLAS_GPU_BACKEND=numpy|cupy``
forces one. Everything else takes ``xp`` from here and never asks which it is,
except the kernel layer, which holds one implementation per backend.
"""
import os
import threading

import numpy

from .compile_log import timed_build
from .errors import NotSupported

__all__ = ["xp", "name", "is_gpu", "asarray", "to_device", "to_host", "to_scalar", "count_true",
           "row_ids", "data_address", "device_info"]


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


def to_device(*arrays):
    """Host (NumPy) arrays as arrays of the backend, by one transfer under CuPy: their bytes
    packed into a pinned staging buffer (each at a 16-byte boundary) and copied by one
    asynchronous copy, each array a view of its part (a copy from pageable memory costs
    several times the host time of one from pinned memory, per array)."""
    if not is_gpu:
        return arrays
    arrays = [numpy.ascontiguousarray(a) for a in arrays]
    offsets, total = [], 0
    for a in arrays:
        total = -(-total // 16) * 16
        offsets.append(total)
        total += a.nbytes
    if xp.cuda.get_current_stream().is_capturing():
        # a recording would replay a copy from a staging buffer reused since: copied from
        # pageable memory instead, which CUDA refuses while capturing (the Replay then runs
        # its function plainly, as it must: it reads the host)
        return tuple(xp.asarray(a) for a in arrays)
    device = xp.empty(max(total, 1), dtype=numpy.uint8)
    if total:
        staged = _Staging.take(total)
        for a, o in zip(arrays, offsets):
            staged.view[o:o + a.nbytes] = a.reshape(-1).view(numpy.uint8)
        device.data.copy_from_host_async(staged.memory.ptr, total)
        staged.copied()
    return tuple(device[o:o + a.nbytes].view(a.dtype) for a, o in zip(arrays, offsets))


class _Staging:
    """A pinned host buffer for to_device, reused once the device has read it (an event
    recorded after each copy: a buffer still being read is not written)."""

    _free = []   # buffers, the most recently used last
    _SIZE = 1 << 16

    def __init__(self, nbytes):
        self.memory = xp.cuda.alloc_pinned_memory(nbytes)
        self.view = numpy.frombuffer(self.memory, dtype=numpy.uint8, count=nbytes)
        self.event = None

    @classmethod
    def take(cls, nbytes):
        for k, buf in enumerate(cls._free):
            if len(buf.view) >= nbytes and (buf.event is None or buf.event.done):
                return cls._free.pop(k)
        return cls(max(nbytes, cls._SIZE))

    def copied(self):
        self.event = xp.cuda.get_current_stream().record()
        _Staging._free.append(self)
        for old in _Staging._free[:-8]:  # at most eight kept; one let go is read first
            old.event.synchronize()
        del _Staging._free[:-8]


def to_host(a):
    """A NumPy array (copies from the device under CuPy)."""
    if isinstance(a, numpy.ndarray):
        return a
    if is_gpu and isinstance(a, xp.ndarray):
        return xp.asnumpy(a)
    return numpy.asarray(a)


def host_copy(a):
    """A NumPy array of a's values that nothing else holds (an export's result: writing
    into it never reaches the container, on either backend)."""
    if isinstance(a, numpy.ndarray):
        return a.copy()
    return to_host(a)


def to_scalar(a):
    """A Python scalar from a 0-d array: the one device-to-host read a loop may need."""
    return a.item() if hasattr(a, "item") else a


# How many flags of a bool array are set: what a Vector's count reads. CuPy's count_nonzero
# runs two CUB passes and costs far more host time a call; this is one launch (one 16-byte load per thread and step, its nonzero
# bytes counted with __popc, an atomic per block) and one read.
_COUNT_SOURCE = r"""
// the bytes of w that are not 0 (a bool written by any kernel counts, whatever its bits)
__device__ __forceinline__ int nonzero_bytes(unsigned int w) {
    return __popc((((w & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | w) & 0x80808080u);
}

extern "C" __global__ void count_true(const unsigned char* __restrict__ flags, long long n,
                                      unsigned long long* __restrict__ total) {
    __shared__ unsigned long long warp_sums[32];
    unsigned long long c = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const uint4* words = reinterpret_cast<const uint4*>(flags);  // (allocations are aligned)
    for (long long k = t; k < (n >> 4); k += stride) {
        const uint4 w = words[k];
        c += nonzero_bytes(w.x) + nonzero_bytes(w.y) + nonzero_bytes(w.z) + nonzero_bytes(w.w);
    }
    for (long long k = ((n >> 4) << 4) + t; k < n; k += stride) c += flags[k] != 0;
    for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xffffffffu, c, d);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = c;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (blockDim.x >> 5); ++w) c += warp_sums[w];
        atomicAdd(total, c);
    }
}
"""
_count_kernel = None  # built once, under _build_lock


_DTYPE_NAMES = {}  # (threads: get-then-set; two may both make a value, equal, either kept)


def dtype_name(dtype):
    """numpy.dtype(dtype).name, memoised: NumPy's ``name`` costs ~1.5 µs a call, which a
    product's kernel lookup paid on every call."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = numpy.dtype(dtype).name
    return name


def count_true(flags):
    """The number of True elements of a bool array, as a Python int (one device read)."""
    global _count_kernel
    if not is_gpu or flags.data.ptr % 16 or not flags.flags.c_contiguous:
        return int(to_scalar(xp.count_nonzero(flags)))
    if _count_kernel is None:
        with _build_lock:
            if _count_kernel is None:
                kernel = xp.RawKernel(_COUNT_SOURCE, "count_true")
                timed_build("backend__count_true", ("count_true",), kernel.compile)
                _count_kernel = kernel
    total = xp.zeros(1, dtype=numpy.uint64)
    n = flags.size
    blocks = max(1, min(1024, -(-n // (16 * 256))))
    _count_kernel((blocks,), (256,), (flags, numpy.int64(n), total))
    return int(total.get()[0])


# The row of every entry of a compressed-row structure (what index operators, COO views
# and CSC construction need): a warp per row writes its row number over its range (a thread
# per row when rows are short: a warp would idle its lanes), rather than a searchsorted of
# every position in the offsets.
_ROW_IDS_SOURCE = r"""
template <typename P, typename R>
__device__ void row_ids(const P* __restrict__ ptr, long long nrows, R* __restrict__ rows,
                        int lanes) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = ((long long)gridDim.x * blockDim.x) / lanes;
    const int lane = threadIdx.x % lanes;
    for (long long r = t / lanes; r < nrows; r += stride) {
        const long long end = ptr[r + 1];
        for (long long p = ptr[r] + lane; p < end; p += lanes) rows[p] = (R)r;
    }
}
#define ROW_IDS(P, R, NAME) extern "C" __global__ void NAME(const P* ptr, long long nrows, \
    R* rows, int lanes) { row_ids<P, R>(ptr, nrows, rows, lanes); }
ROW_IDS(int, int, row_ids_int32_int32)
ROW_IDS(int, long long, row_ids_int32_int64)
ROW_IDS(long long, int, row_ids_int64_int32)
ROW_IDS(long long, long long, row_ids_int64_int64)

// A sparse vector's dense form in one launch: values[idx[k]] = vals[k] (or the iso word),
// bitmap[idx[k]] = true. Values move as words of their size (no conversion).
template <typename I, typename W>
__device__ void scatter_dense(const I* __restrict__ idx, const W* __restrict__ vals, W iso,
                              long long n, W* __restrict__ values, bool* __restrict__ bitmap) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        const I p = idx[k];
        values[p] = vals ? vals[k] : iso;
        bitmap[p] = true;
    }
}
#define SCATTER(I, W, NAME) extern "C" __global__ void NAME(const I* idx, const W* vals, \
    W iso, long long n, W* values, bool* bitmap) { scatter_dense<I, W>(idx, vals, iso, n, \
    values, bitmap); }
SCATTER(int, unsigned char, scatter_dense_int32_1)
SCATTER(int, unsigned short, scatter_dense_int32_2)
SCATTER(int, unsigned int, scatter_dense_int32_4)
SCATTER(int, unsigned long long, scatter_dense_int32_8)
SCATTER(long long, unsigned char, scatter_dense_int64_1)
SCATTER(long long, unsigned short, scatter_dense_int64_2)
SCATTER(long long, unsigned int, scatter_dense_int64_4)
SCATTER(long long, unsigned long long, scatter_dense_int64_8)
"""
_WORDS = {1: numpy.uint8, 2: numpy.uint16, 4: numpy.uint32, 8: numpy.uint64}
_row_ids_module = None  # (threads: as _count_kernel)
_build_lock = threading.Lock()  # the first build of either (one build reported, not two)
_row_ids_functions = {}  # (index types, device) -> kernel: get_function costs ~5 µs a call
# (threads: get-then-set; two may both make a value, equal, either kept)


def _module_function(name):
    """A kernel of the module above (built once), memoised per device."""
    global _row_ids_module
    memo = (name, xp.cuda.runtime.getDevice())
    kernel = _row_ids_functions.get(memo)
    if kernel is None:
        with _build_lock:
            if _row_ids_module is None:
                module = xp.RawModule(code=_ROW_IDS_SOURCE, options=("--std=c++17",))
                timed_build("backend__row_ids", (), module.compile)
                _row_ids_module = module
        kernel = _row_ids_functions[memo] = _row_ids_module.get_function(name)
    return kernel


def row_ids(indptr, nnz, dtype):
    """rows[p] = r for every p in [indptr[r], indptr[r+1]): an int array of ``dtype``."""
    nrows = len(indptr) - 1
    names = (dtype_name(indptr.dtype), dtype_name(dtype))
    if not is_gpu or nnz == 0 or any(t not in ("int32", "int64") for t in names):
        return (xp.searchsorted(indptr, xp.arange(nnz), side="right") - 1).astype(dtype)
    kernel = _module_function("row_ids_%s_%s" % names)
    rows = xp.empty(nnz, dtype=dtype)
    lanes = 32 if nnz >= 8 * nrows else 1
    blocks = max(1, min(4096, -(-nrows * lanes // 256)))
    kernel((blocks,), (256,), (indptr, numpy.int64(nrows), rows, numpy.int32(lanes)))
    return rows


def scatter_dense(idx, vals, iso, values, bitmap):
    """values[idx] = vals (or the scalar ``iso`` where vals is None), bitmap[idx] = True:
    one launch on the GPU (two fancy-index stores cost CuPy ~30 µs of host time each)."""
    n = len(idx)
    word = values.dtype.itemsize
    idx_name = dtype_name(idx.dtype)
    if (not is_gpu or word not in _WORDS or idx_name not in ("int32", "int64")
            or not values.flags.c_contiguous):
        values[idx] = vals if vals is not None else iso
        bitmap[idx] = True
        return
    if n == 0:
        return
    w = _WORDS[word]
    iso_word = (numpy.asarray(iso if vals is None else 0, dtype=values.dtype)
                .reshape(1).view(w)[0])
    src = numpy.uint64(0) if vals is None else xp.ascontiguousarray(vals).view(w)  # (null: iso)
    kernel = _module_function("scatter_dense_%s_%d" % (idx_name, word))
    blocks = max(1, min(4096, -(-n // 256)))
    kernel((blocks,), (256,), (xp.ascontiguousarray(idx), src, iso_word, numpy.int64(n),
                               values.view(w), bitmap))


def mirror_positions(indptr, indices, rows, *, positions=True):
    """For a square compressed-row structure with sorted indices in each row and the row of
    every entry (``rows``): (every entry's mirror exists, pos) where pos[p] is the position
    of A(j, i) for the entry A(i, j) at p, -1 where there is none (int64; None unless
    ``positions``). One device read.

    A search of the entries' keys i·n + j, which ascend in CSR order."""
    m = len(indices)
    if m == 0:
        return True, (xp.zeros(0, dtype=numpy.int64) if positions else None)
    n = len(indptr) - 1     # (n < 2**31: i·n + j does not overflow)
    r, c = rows.astype(numpy.int64), indices.astype(numpy.int64)
    key = r * n + c
    mirror = c * n + r
    del r, c
    pos = xp.searchsorted(key, mirror)
    xp.minimum(pos, m - 1, out=pos)
    found = key[pos] == mirror
    every = bool(to_scalar(found.all()))
    if positions and not every:
        pos = xp.where(found, pos, -1)
    return every, (pos if positions else None)


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
