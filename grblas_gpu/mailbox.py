"""Mailbox: a small Vector's content read by the host while the device goes on working.

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
"""
import numpy as np

from . import backend
from .errors import InvalidValue
from .kernels import mailbox as _kernel
from .vector import Vector

__all__ = ["Mailbox"]


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
