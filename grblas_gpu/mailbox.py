"""Mailbox and Inbox: small contents passed between the host and a device step without
stopping the device.

Mailbox: a small Vector's content read by the host while the device goes on working.

A loop that must read a scalar from the device to decide its next step (a BFS's frontier
counts, its stop test) otherwise stops the device: the host waits for the whole step to
finish, copies, decides, and only then issues the next step. With a mailbox the step posts
the scalar as soon as it is computed, and keeps running:

    box = gg.Mailbox(counts)
    step = gg.Replay(lambda: (compute(counts), box.post(), more_work()))
    step()
    mf, nf = box.take()      # returns once the post is visible, while more_work() runs

``post()`` (a kernel: grblas_gpu.kernels.mailbox) writes the Vector's values and bitmap to
pinned host memory and then a new sequence number; it may be recorded in a gg.Replay, each
replay posting anew. ``take(fill)`` waits until a post newer than the last one taken is
visible and returns what ``to_dense(fill)`` would have returned at the post. Under NumPy
post keeps a copy and take returns it. Taking with nothing posted since the last take
raises InvalidValue (once the device has finished everything issued before the take).

Inbox: a few entries sent by the host into a Vector, by a step that may be recorded:

    inbox = gg.Inbox(q, capacity=1)
    begin = gg.Replay(lambda: (inbox.deliver(), more_work(q)))
    inbox.put([source], [value]); begin()      # each search its own source

``put(indices, values)`` checks the entries, writes them to pinned host memory and issues
their copy to a device buffer on the stream (so a step issued after the put reads them,
and one issued before does not); a later put first waits until that copy has read the
pinned memory. ``deliver()`` (a memset and a kernel, recordable) makes the Vector hold
exactly the entries of the latest put, in dense form, in place where a recording keeps its
arrays. Under NumPy put keeps a copy and deliver writes it. Sending one vertex this way
costs a few µs of host time, where a 1-entry Vector built from host arrays costs 50-90.
"""
import numpy as np

from . import backend, memory, replay
from .errors import IndexOutOfBounds, InvalidValue
from .kernels import mailbox as _kernel
from .vector import Vector

__all__ = ["Mailbox", "Inbox"]

xp = backend.xp

class Mailbox:
    """Posts ``v``'s content (a Vector of fixed size and type) to the host."""

    def __init__(self, v):
        if not isinstance(v, Vector):
            raise InvalidValue(f"Mailbox needs a Vector, got {type(v).__name__}")
        self.vector = v
        value_bytes = v.size * v.dtype.np_type.itemsize
        self._posted = None  # NumPy: the content posted and not yet taken
        if backend.is_gpu:
            self._box = _kernel.PinnedBox(value_bytes, v.size)
            self._values = self._box.values.view(v.dtype.np_type)

    def post(self):
        """Send the Vector's content now (in stream order: after the work issued before)."""
        values, bitmap = self.vector._dense_form()
        if backend.is_gpu:
            self._box.post(values, bitmap)
        else:
            self._posted = (values.copy(), bitmap.copy())

    def take(self, fill=0):
        """The content of the latest post not yet taken, as ``to_dense(fill)`` gives it."""
        if backend.is_gpu:
            values, bitmap = self._wait()
        else:
            if self._posted is None:
                raise InvalidValue("Mailbox.take: nothing was posted since the last take")
            (values, bitmap), self._posted = self._posted, None
        return np.where(bitmap, values, np.asarray(fill).astype(values.dtype)[()])

    def _wait(self):
        if not self._box.wait():
            raise InvalidValue("Mailbox.take: nothing was posted since the last take")
        return self._values.copy(), self._box.bitmap.copy()


class Inbox:
    """Sends up to ``capacity`` entries from the host into ``v`` (see the module docstring)."""

    def __init__(self, v, capacity=1):
        if not isinstance(v, Vector):
            raise InvalidValue(f"Inbox needs a Vector, got {type(v).__name__}")
        if not (isinstance(capacity, (int, np.integer)) and not isinstance(capacity, bool)
                and 1 <= capacity <= max(1, v.size)):
            raise InvalidValue(f"Inbox: capacity must be an int in [1, size of v = {v.size}] "
                               f"(a put holds distinct indices), got {capacity!r:.40}")
        # the size and type v had: what a delivery gives it
        self.vector, self.capacity, self.size, self.dtype = v, int(capacity), v.size, v.dtype
        self._sent = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=v.dtype.np_type))
        if backend.is_gpu:
            # [count | indices | values] (the layout kernels.mailbox.deliver reads), values
            # padded to whole 8-byte words
            words = 1 + self.capacity + -(-self.capacity * v.dtype.np_type.itemsize // 8)
            memory.require(16 * words, f"an Inbox of capacity {self.capacity}")  # pinned, staged
            with memory.oom_guard(f"an Inbox of capacity {self.capacity}"):
                self._pinned = xp.cuda.alloc_pinned_memory(8 * words)
            self._host = np.frombuffer(self._pinned, dtype=np.int64, count=words)
            self._host[:] = 0
            self._staged = xp.zeros(words, dtype=np.int64)
            self._copied = xp.cuda.Event(disable_timing=True)  # after the last copy from _host
            self._copied.record()

    def put(self, indices, values):
        """Send these entries (distinct indices; values cast to the Vector's type)."""
        idx = np.asarray(indices)
        vals = np.asarray(values)
        if idx.ndim != 1 or vals.shape != idx.shape:
            raise InvalidValue(f"Inbox.put: indices and values must be 1-D of one length, got "
                               f"shapes {idx.shape} and {vals.shape}")
        if len(idx) > self.capacity:
            raise InvalidValue(f"Inbox.put: {len(idx)} entries, capacity {self.capacity}")
        if len(idx) and not np.issubdtype(idx.dtype, np.integer):
            raise InvalidValue(f"Inbox.put: indices must be integers, got {idx.dtype}")
        idx = idx.astype(np.int64)
        if len(idx) and (idx.min() < 0 or idx.max() >= self.size):
            raise IndexOutOfBounds(f"Inbox.put: an index outside [0, {self.size})")
        if len(idx) > 1 and len(np.unique(idx)) != len(idx):
            raise InvalidValue("Inbox.put: duplicate indices")
        vals = vals.astype(self.dtype.np_type)
        if not backend.is_gpu:   # (sorted, as a sparse Vector holds them)
            order = np.argsort(idx)
            self._sent = (idx[order], vals[order])
            return
        self._copied.synchronize()   # (the last copy has read _host)
        k = len(idx)
        self._host[0] = k
        self._host[1:1 + k] = idx
        self._host[1 + self.capacity:].view(self.dtype.np_type)[:k] = vals
        stream = xp.cuda.get_current_stream()
        xp.cuda.runtime.memcpyAsync(self._staged.data.ptr, self._host.ctypes.data,
                                    self._host.nbytes, xp.cuda.runtime.memcpyHostToDevice,
                                    stream.ptr)
        self._copied.record(stream)

    def deliver(self):
        """v = the entries of the latest put (dense form, the Inbox's size and type; in
        stream order on the device)."""
        v = self.vector
        if not backend.is_gpu:   # the entries as a sparse vector, then its dense form
            v._swap_in(Vector._from_sparse(self.size, self.dtype, *self._sent))
            v.set_format("dense")
            return
        values, bitmap = replay.private_dense(v)
        if values is None or bitmap is None or v.dtype != self.dtype or v.size != self.size:
            values = xp.empty(self.size, dtype=self.dtype.np_type)
            bitmap = xp.empty(self.size, dtype=bool)
        _kernel.deliver(self._staged, self.capacity, values, bitmap)
        # (nvals is known on the device only)
        v._set(self.size, self.dtype, sp=None, dn=(values, bitmap), nvals=None)
