"""Vector: sparse (sorted indices + values, MPGraph's compact frontier queue) or dense
(values + presence bitmap), switching by density and on request.

Either form may be cached beside the other; ``_sparse()`` and ``_dense_form()`` convert on
demand. The dense form's values are undefined where the bitmap is False.
"""
import threading

import numpy as np

from . import _interop, backend
from ._validate import (as_flag, as_index_array, as_int, check_dim, check_in_range, index_dtype,
                        is_array, is_container, is_index_collection, values_and_dtype,
                        values_array)
from .errors import IndexOutOfBounds, InvalidValue
from . import memory
from .mask import MaskableMixin
from .methods import ElementwiseMethods
from .matrix import ClassOrInstance, _host, _insert, _remove, _same_value
from .types import (cast, cast_scalar, check_representable, check_value_kind, lookup_dtype,
                    scalar_value)

xp = backend.xp

__all__ = ["Vector", "DENSE_THRESHOLD"]

# Above this fraction of entries, operations leave their result dense (a bitmap costs
# size bits + values; a sparse queue costs nvals * (index + value)).
DENSE_THRESHOLD = 1 / 16


# Entries handed over from the host, up to this many, are checked and sorted there: one copy
# to the device instead of a dozen small device operations and reads (1.2 ms for one entry).
HOST_BUILD_MAX = 1 << 16

# held while a dense form is made: it may be written into the Vector's fixed storage in
# place, which two threads reading the Vector at once must not both do (the sparse form
# is made in new arrays and published by one assignment: no lock)
_FORM_LOCK = threading.Lock()

# Dense forms (and to_dense) of vectors this long ask the memory budget first.
_DENSE_CHECKED_FROM = 2**20


def _host_entries(indices, values, size, dtype):
    """(size, dtype, indices, values, iso) for Vector._from_sparse, checked and sorted on the
    host; None when the entries are device arrays, many, unsorted-with-duplicates or invalid
    in any way (the general path then combines or rejects them, with its errors)."""
    if (isinstance(indices, xp.ndarray) and backend.is_gpu) or is_container(indices):
        return None
    if values is not None and not np.isscalar(values):
        if (is_container(values) or getattr(values, "ndim", 1) == 0
                or (isinstance(values, xp.ndarray) and backend.is_gpu)):
            return None
    try:
        idx = np.asarray(indices)
        if idx.ndim != 1 or not 0 < idx.size <= HOST_BUILD_MAX or idx.dtype.kind not in "iu":
            return None
        idx = idx.astype(np.int64)
        lo, hi = (int(idx[0]),) * 2 if idx.size == 1 else (int(idx.min()), int(idx.max()))
        n = check_dim(hi + 1 if size is None else size, "size")
        if lo < 0 or hi >= n:
            return None
        order = slice(None)  # (NumPy calls on a few entries cost µs each: skipped if sorted)
        if idx.size > 1 and (idx[1:] <= idx[:-1]).any():
            order = np.argsort(idx, kind="stable")
            idx = idx[order]
            if (idx[1:] == idx[:-1]).any():
                return None
        # (cast on the host: a device cast after the transfer costs a launch and an array)
        idx_out = idx.astype(index_dtype(n))
        if values is None or np.isscalar(values):
            _, iso, dt = values_and_dtype(values, len(idx), dtype)
            return n, dt, backend.to_device(idx_out)[0], None, iso
        vals = np.asarray(values)
        if vals.ndim != 1 or len(vals) != len(idx) or vals.dtype.kind not in "biuf":
            return None
        dt = lookup_dtype(dtype if dtype is not None else vals.dtype)
        if not is_array(values):  # Python numbers: each must fit (types.scalar_value)
            check_representable(vals, dt)
    except Exception:  # noqa: BLE001  (the general path raises the specific error)
        return None
    return n, dt, *backend.to_device(idx_out, cast(vals[order], dt, np)), None


class Vector(MaskableMixin, ElementwiseMethods):
    """A sparse vector of one GraphBLAS type. ``Vector(dtype, size)`` is empty."""

    __slots__ = ("_size", "_dtype", "_sp", "_dn", "_nvals", "_iso", "_stage", "_fixed",
                 "__weakref__")

    def __init__(self, dtype=float, size=0):
        size = check_dim(size, "size")
        dt = lookup_dtype(dtype)
        self._set(size, dt, sp=(xp.zeros(0, dtype=index_dtype(size)),
                                xp.zeros(0, dtype=dt.np_type)), dn=None, nvals=0)

    def _set(self, size, dtype, *, sp, dn, nvals, iso=None):
        self._size, self._dtype, self._sp, self._dn = size, dtype, sp, dn
        self._nvals, self._iso, self._stage = nvals, iso, None

    # ------------------------------------------------------------------ fixed storage
    # A Vector may be given fixed dense storage (a Replay gives it to the Vectors it
    # declares, grblas_gpu.replay): a (values, bitmap) pair this Vector alone holds, which
    # operations writing a dense result into it fill (in place where it holds them now)
    # instead of new arrays. What keeps "alone" true: an operation whose result would hold
    # an input's arrays (apply's bitmap, select's values, a full ewise's bitmap, extract of
    # everything) takes them through ``_lend`` / ``_bitmap_for``, which copy fixed arrays
    # for another object. Plain arrays are never written in place, so they are shared freely.
    def _fixed_out(self):
        """(values, bitmap) of the fixed storage, for a dense result written into this
        Vector; (None, None) without (or made for another size or type)."""
        fixed = getattr(self, "_fixed", None)
        if fixed is None or len(fixed[1]) != self._size or fixed[0].dtype != self._dtype.np_type:
            return None, None
        return fixed

    def _holds_fixed(self):
        """Is its dense form its fixed storage?"""
        dn, fixed = self._dn, self._fixed_out()
        return dn is not None and dn[0] is fixed[0] and dn[1] is fixed[1]

    def _fix(self):
        """Hold the content in fixed storage (made once; the sparse form is dropped): the
        number of device copies that took (0 when it holds it already)."""
        if self._holds_fixed():
            self._sp, self._iso = None, None
            return 0
        values, bitmap = self._dense_form()
        if self._fixed_out()[0] is None:
            self._require_dense(0, "fixed storage")
            with memory.oom_guard("the fixed storage of a Vector"):
                self._fixed = (xp.empty(self._size, dtype=self._dtype.np_type),
                               xp.empty(self._size, dtype=bool))
        fixed = self._fixed
        copies = 0
        for mine, new in zip(fixed, (values, bitmap)):
            if mine is not new:
                xp.copyto(mine, new)
                copies += 1
        self._sp, self._dn, self._iso = None, fixed, None
        return copies

    def _lend(self, a):
        """``a`` (one of this Vector's arrays) for another object to hold: a copy of fixed
        storage (written in place later), else ``a`` itself."""
        fixed = getattr(self, "_fixed", None)
        if fixed is not None and (a is fixed[0] or a is fixed[1]):
            return a.copy()
        return a

    def _bitmap_for(self, C, full):
        """This Vector's bitmap for a result with its structure that C will hold (``full``:
        the result is known full). C's own fixed bitmap where C holds it and C and the
        result are both full (both all true: nothing copied); else ``_lend``'s answer."""
        bitmap = self._dn[1]
        if C is self or not (getattr(self, "_fixed", None) is not None
                             and bitmap is self._fixed[1]):
            return bitmap
        if (isinstance(C, Vector) and full and C._nvals == C._size == self._size
                and C._holds_fixed()):
            return C._dn[1]
        return bitmap.copy()

    # the whole state, for a Replay (grblas_gpu.replay): saved before a recording, put back
    # after a failed one and after each replay. (Fixed storage is not state: it stays.)
    _FIELDS = ("_size", "_dtype", "_sp", "_dn", "_nvals", "_iso", "_stage")

    def _snapshot(self):
        """The state, or None while the object is being built."""
        try:
            return tuple(getattr(self, f) for f in self._FIELDS)
        except AttributeError:
            return None

    def _restore(self, state):
        for f, v in zip(self._FIELDS, state):
            setattr(self, f, v)

    @staticmethod
    def _arrays(state):
        """The arrays of a state in a fixed layout (None where a form is absent)."""
        sp, dn = state[2], state[3]
        return [*(sp or (None, None)), *(dn or (None, None))]

    @staticmethod
    def _with_arrays(state, arrays):
        sp = None if state[2] is None else tuple(arrays[0:2])
        dn = None if state[3] is None else tuple(arrays[2:4])
        return state[:2] + (sp, dn) + state[4:]

    # ------------------------------------------------------------------ construction
    @classmethod
    def _from_sparse(cls, size, dtype, indices, values, iso=None):
        """Trusted: sorted unique indices on the active backend; values None means iso."""
        v = cls.__new__(cls)
        dtype = lookup_dtype(dtype)
        if values is not None:
            values, iso = cast(values, dtype, xp), None
        else:
            iso = dtype.np_type.type(1) if iso is None else cast_scalar(iso, dtype)
        v._set(size, dtype, sp=(indices.astype(index_dtype(size), copy=False), values),
               dn=None, nvals=len(indices), iso=iso)
        return v

    @classmethod
    def _from_dense(cls, size, dtype, values, bitmap, nvals=None):
        """Trusted: values (length size, any content where absent) and a bool bitmap."""
        v = cls.__new__(cls)
        dtype = lookup_dtype(dtype)
        v._set(size, dtype, sp=None, dn=(cast(values, dtype, xp), bitmap.astype(bool, copy=False)),
               nvals=nvals)
        return v

    @classmethod
    def from_coo(cls, indices, values=None, *, size=None, dtype=None, dup_op=None,
                 trusted=False):
        """From indices and values (array, scalar for iso, or None for structure only).
        trusted=True (SuiteSparse's fast import): ``indices`` is a backend integer array,
        sorted, unique and in [0, size), ``values`` a backend array as long (or a scalar or
        None); size and dtype are required. Only types and lengths are checked (nothing that
        reads the device). Arrays already of the vector's index type (int32 while size fits,
        else int64) and value type are adopted, not copied: the caller must not write into
        them afterwards."""
        from .matrix import Matrix, _dup_operator

        if as_flag(trusted, "trusted"):
            return cls._trusted_coo(indices, values, size, dtype, dup_op)
        host = _host_entries(indices, values, size, dtype)
        # no duplicates; a dup_op that cannot combine is refused all the same, and one of
        # another type than the values' takes the general path (values pass through its type)
        typed = None if host is None else _dup_operator(dup_op, host[1])
        if host is not None and (typed is None or typed.type == host[1]):
            return cls._from_sparse(*host)
        idx = as_index_array(indices, "indices")
        vals, iso, dt = values_and_dtype(values, len(idx), dtype)
        size = check_dim(size, "size") if size is not None else check_dim(
            int(backend.to_scalar(idx.max())) + 1 if idx.size else 0, "size (the largest index + 1)")
        check_in_range(idx, size, "index")
        # the matrix builder sorts and combines duplicates: reuse it as a 1 x size row (two
        # row offsets, whatever the size)
        M = Matrix.from_coo(xp.zeros(len(idx), dtype=np.int64), idx,
                            vals if vals is not None else iso, nrows=1, ncols=size, dtype=dt,
                            dup_op=dup_op)
        return cls._from_sparse(size, dt, M._indices, M._values, iso=M._iso)

    @classmethod
    def _trusted_coo(cls, indices, values, size, dtype, dup_op):
        if size is None or dtype is None:
            raise InvalidValue("from_coo(trusted=True) needs size and dtype")
        size, dt = check_dim(size, "size"), lookup_dtype(dtype)
        if dup_op is not None:
            raise InvalidValue("from_coo(trusted=True) takes unique indices: no dup_op")
        if not (isinstance(indices, xp.ndarray) and indices.ndim == 1
                and indices.dtype.kind in "iu"):
            raise InvalidValue(f"from_coo(trusted=True) needs indices as a 1-D integer "
                               f"{backend.name} array, got {type(indices).__name__}")
        if values is None or np.isscalar(values):
            _, iso, _ = values_and_dtype(values, len(indices), dt)
            return cls._from_sparse(size, dt, indices, None, iso=iso)
        if not (isinstance(values, xp.ndarray) and values.ndim == 1
                and len(values) == len(indices)):
            raise InvalidValue(f"from_coo(trusted=True) needs values as a 1-D {backend.name} "
                               f"array of {len(indices)} entries, a scalar or None")
        check_value_kind(values.dtype, "from_coo's values")
        return cls._from_sparse(size, dt, indices, values)

    @classmethod
    def from_dense(cls, array, missing_value=None, *, dtype=None):
        """Every element is an entry, except those equal to ``missing_value`` when given."""
        a = values_array(array, dtype, "from_dense's array")
        if a.ndim != 1:
            raise InvalidValue(f"from_dense needs a 1-D array, got shape {a.shape}")
        dt = lookup_dtype(dtype if dtype is not None else a.dtype)
        if missing_value is None:  # full: its count is known
            return cls._from_dense(len(a), dt, a.copy(), xp.ones(a.shape, dtype=bool), len(a))
        missing = scalar_value(missing_value, lookup_dtype(a.dtype), "missing_value")
        return cls._from_dense(len(a), dt, a.copy(), a != missing)

    @classmethod
    def from_graphblas(cls, g):
        """From a python-graphblas Vector (copies through the host)."""
        if type(g).__module__.split(".")[0] != "graphblas" or not hasattr(g, "size"):
            raise InvalidValue(f"from_graphblas needs a graphblas.Vector, got {type(g).__name__}")
        idx, vals = g.to_coo()
        return cls.from_coo(idx.astype(np.int64), vals, size=g.size, dtype=g.dtype.name)

    @classmethod
    def from_scipy(cls, S, *, dtype=None, dup_op=None):
        """From a 1 x n or n x 1 scipy.sparse array or matrix of any format, or scipy's 1-D
        ``coo_array`` (a cupyx.scipy.sparse matrix is read on the device under CuPy)."""
        return _interop.from_scipy_vector(cls, S, dtype, dup_op)

    @classmethod
    def from_dlpack(cls, x, *, dtype=None):
        """A full Vector over a 1-D array exporting DLPack (``torch.from_dlpack``'s
        counterpart): on the backend's device, adopted without a copy when its type is the
        vector's (the caller must not write into it afterwards), else cast."""
        return _interop.from_dlpack_vector(cls, x, dtype)

    # ------------------------------------------------------------------ properties
    size = property(lambda self: self._size)
    shape = property(lambda self: (self._size,))
    dtype = property(lambda self: self._dtype)
    has_sparse = property(lambda self: self._sp is not None)
    has_dense = property(lambda self: self._dn is not None)

    @property
    def format(self):
        return "sparse" if self._sp is not None else "dense"

    @property
    def nvals(self):
        if self._stage is not None and "nvals" in self._stage:
            return self._stage["nvals"]  # a multi-stage FILL_NNZ result awaiting its buffers
        if self._nvals is None:
            self._nvals = backend.count_true(self._dn[1])
        return self._nvals

    # ------------------------------------------------------------------ forms
    def _sparse(self):
        """(indices, values or None for iso)."""
        if self._sp is None:
            values, bitmap = self._dn
            if self._nvals == self._size:  # full: every index, no compaction (no device sync)
                idx = xp.arange(self._size, dtype=index_dtype(self._size))
            else:
                idx = xp.nonzero(bitmap)[0].astype(index_dtype(self._size))
            self._sp = (idx, values[idx])
            self._nvals = len(idx)
        return self._sp

    def _values_full(self):
        idx, vals = self._sparse()
        return vals if vals is not None else xp.full(len(idx), self._iso, self._dtype.np_type)

    def _dense_form(self):
        """(values, bitmap), both of length size."""
        if self._dn is None:
            with _FORM_LOCK:
                if self._dn is None:
                    self._make_dense()
        return self._dn

    def _make_dense(self):
        idx, _ = self._sp
        values, bitmap = self._fixed_out()  # (free now: this Vector has no dense form)
        if values is None:
            self._require_dense(0, "the dense form")
            with memory.oom_guard("the dense form of a Vector"):
                values = xp.zeros(self._size, dtype=self._dtype.np_type)
                bitmap = xp.zeros(self._size, dtype=bool)
        else:
            bitmap.fill(False)
        if len(idx):  # (a scatter of nothing still costs CuPy 30-40 µs of host time)
            backend.scatter_dense(idx, self._sp[1], self._iso, values, bitmap)
        self._dn = (values, bitmap)

    def _require_dense(self, extra_itemsize, what):
        """AllocFailed, before anything is allocated, unless the dense form (when it is not
        made yet) and ``extra_itemsize`` more bytes an element fit."""
        per = extra_itemsize + (0 if self._dn is not None else self._dtype.np_type.itemsize + 1)
        if per and self._size >= _DENSE_CHECKED_FROM:
            memory.require(self._size * per,
                           f"{what} of a Vector of size {self._size} ({self._dtype.name})")

    def set_format(self, fmt):
        """'sparse', 'dense' or 'auto' (by density); the contents do not change."""
        if not isinstance(fmt, str) or fmt not in ("sparse", "dense", "auto"):
            raise InvalidValue(f"format must be 'sparse', 'dense' or 'auto', got {fmt!r:.40}")
        if fmt == "auto":
            fmt = "dense" if self.nvals > DENSE_THRESHOLD * self._size else "sparse"
        if fmt == "sparse":
            self._sparse()
            self._dn = None
        elif fmt == "dense":
            self._dense_form()
            self._sp = None
            self._iso = None
        return self

    def _swap_in(self, other):
        self._set(other._size, other._dtype, sp=other._sp, dn=other._dn, nvals=other._nvals,
                  iso=other._iso)

    def _cast_to(self, dtype):
        dtype = lookup_dtype(dtype)
        if dtype is self._dtype:
            return self
        if self._sp is not None:
            idx, vals = self._sp
            return Vector._from_sparse(self._size, dtype, idx, vals,
                                       iso=None if vals is not None else self._iso)
        values, bitmap = self._dn
        return Vector._from_dense(self._size, dtype, values, bitmap, self._nvals)

    # ------------------------------------------------------------------ export
    def to_coo(self, *, device=False, values=True):
        """(indices, values) as NumPy arrays, values None with values=False. With
        device=True, backend arrays: the sparse form itself, not copies (read-only,
        describing the content until the vector next changes)."""
        device, values = as_flag(device, "device"), as_flag(values, "values")
        out = (self._sparse()[0], self._values_full() if values else None)
        return out if device else tuple(_host(a) for a in out)

    def to_dense(self, fill=0, *, device=False):
        """A dense 1-D array, ``fill`` (which the type must hold) where there is no entry.
        AllocFailed, before anything is allocated, when it cannot fit."""
        device = as_flag(device, "device")
        fill = scalar_value(fill, self._dtype, "fill")  # (cast on the host: no transfer)
        self._require_dense(self._dtype.np_type.itemsize, "to_dense")
        values, bitmap = self._dense_form()
        with memory.oom_guard("Vector.to_dense"):
            out = xp.where(bitmap, values, fill)
            return out if device else backend.to_host(out)

    def to_scipy(self, *, device=False):
        """One row: a 1 x size ``scipy.sparse.csr_array`` (python-graphblas's
        ``to_scipy_sparse``), as Matrix.to_scipy (device=True: cupyx under CuPy)."""
        device = as_flag(device, "device")
        idx, vals = self.to_coo(device=True)
        indptr = xp.asarray(np.array([0, len(idx)], dtype=idx.dtype))
        return _interop.csr_export(indptr, idx, vals, (1, self._size), device)

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(v)``: the dense values of a full vector (a host copy); InvalidValue
        when entries are missing (use ``to_dense(fill)``)."""
        return _interop.dense_export(self, self.nvals, self._size, dtype, copy)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack export of a full vector's dense values, shared with the vector (valid until
        it next changes): ``torch.from_dlpack(v)``. A vector with missing entries refuses
        (InvalidValue): export ``to_coo(device=True)``'s arrays or ``to_dense(fill,
        device=True)`` instead."""
        nvals = self.nvals
        return _interop.dlpack_export(self._dense_form()[0] if nvals == self._size else None,
                                      self, nvals, self._size, stream, max_version, dl_device,
                                      copy)

    def __dlpack_device__(self):
        """(device type, device id) of the storage: (1, 0) under NumPy, (2, id) under CuPy."""
        return _interop.dlpack_device(self._storage_arrays()[0])

    def to_graphblas(self):
        import graphblas as gb

        idx, vals = self.to_coo()
        return gb.Vector.from_coo(idx, vals, size=self._size, dtype=self._dtype.name)

    # ------------------------------------------------------------------ elements
    def __getitem__(self, i):
        if is_index_collection(i):  # u[I]: grblas_gpu.operations.extract
            return self._getitem_many(i)
        i = self._element_key(i)
        if self._dn is not None:
            values, bitmap = self._dn
            # (a full vector's bitmap is not read: one transfer, not two)
            if self._nvals != self._size and not bool(backend.to_scalar(bitmap[i])):
                return None
            return backend.to_host(values[i])[()]
        vals = self._sp[1]
        k, found = self._locate(i)
        if found:
            return self._iso if vals is None else backend.to_host(vals[k])[()]
        return None

    def __setitem__(self, i, value):
        if is_index_collection(i):  # w[I] = u: subassign, grblas_gpu.operations.assign
            self._setitem_many(i, value)
            return
        i = self._element_key(i)
        value = scalar_value(value, self._dtype)
        if self._sp is None:  # dense: a new dense form (the old one is shared with its holders)
            values, bitmap = (a.copy() for a in self._dn)
            values[i] = value
            bitmap[i] = True
            self._swap_in(Vector._from_dense(self._size, self._dtype, values, bitmap))
            return
        # sparse: an insertion into the sorted entries, O(log nvals) to find, O(nvals) to copy
        idx, vals = self._sp
        k, found = self._locate(i)
        keep_iso = vals is None and _same_value(value, self._iso)
        if found and keep_iso:
            return
        if found:
            vals = self._values_full().copy()
            vals[k] = value
        else:
            idx = _insert(idx, k, i)
            vals = None if keep_iso else _insert(self._values_full(), k, value)
        self._swap_in(Vector._from_sparse(self._size, self._dtype, idx, vals,
                                          iso=self._iso if keep_iso else None))

    def __delitem__(self, i):
        i = self._element_key(i)
        if self._sp is None:
            values, bitmap = self._dn
            bitmap = bitmap.copy()
            bitmap[i] = False
            self._swap_in(Vector._from_dense(self._size, self._dtype, values, bitmap))
            return
        k, found = self._locate(i)
        if not found:
            return
        idx, vals = self._sp
        self._swap_in(Vector._from_sparse(self._size, self._dtype, _remove(idx, k),
                                          None if vals is None else _remove(vals, k),
                                          iso=self._iso))

    def _locate(self, i):
        """(position, found): where entry i is in the sparse form, or would be inserted."""
        idx = self._sp[0]
        if not len(idx):
            return 0, False
        k = int(backend.to_scalar(xp.searchsorted(idx, i)))
        return k, k < len(idx) and int(backend.to_scalar(idx[k])) == i

    def _element_key(self, i):
        i = as_int(i, "vector index")
        if not 0 <= i < self._size:
            raise IndexOutOfBounds(f"index {i} is out of range [0, {self._size})")
        return i

    # ------------------------------------------------------------------ caller buffers (oneMKL)
    # Issue 3: set_sparse / set_dense adopt the caller's arrays as the content (shared when
    # they can be) or, while a FILL_NNZ result is pending, attach the buffers that
    # FILL_ENTRIES writes it INTO (operations.mxv); they are never replaced.
    def set_sparse(self, indices, values=None):
        """Adopt (indices, values) as the content (validated: sorted unique indices < size;
        values None: iso 1), or attach the FILL_ENTRIES buffers of a pending FILL_NNZ."""
        from ._buffers import _INDEX_TYPES, _check_buffer, _is_buffer, check_disjoint

        if self._stage is not None and "result" in self._stage:
            n = self._stage["nvals"]
            _check_buffer(indices, "the indices buffer", n, _INDEX_TYPES)
            _check_buffer(values, "the values buffer", n, (self._dtype.np_type,))
            check_disjoint({"the indices buffer": indices, "the values buffer": values},
                           self._storage_arrays(), "the vector's own storage")
            self._stage.pop("dense", None)
            self._stage.update(indices=indices, values=values)
            return self
        v = Vector.from_coo(indices, values, size=self._size, dtype=self._dtype)
        if (_is_buffer(indices) and indices.dtype == np.dtype(index_dtype(self._size))
                and v.nvals == len(indices)
                and (values is None or (_is_buffer(values) and values.dtype == self._dtype.np_type))
                and bool(backend.to_scalar((v._sp[0] == indices).all()))):
            # already sorted and unique: share the caller's arrays
            v._set(self._size, self._dtype, sp=(indices, values), dn=None, nvals=len(indices),
                   iso=v._iso)
        self._swap_in(v)
        return self

    def _storage_arrays(self):
        """The backend arrays of its storage (sparse and dense forms)."""
        return [a for form in (self._sp, self._dn) if form is not None for a in form
                if isinstance(a, xp.ndarray)]

    def get_sparse(self):
        """(indices, values): the sparse storage (values materialised for an iso vector)."""
        return self._sparse()[0], self._values_full()

    def set_dense(self, values):
        """Adopt ``values`` (length size) as the content, every element an entry (shared when
        it is a backend array of this type), or attach the FILL_ENTRIES buffer of a pending
        FILL_NNZ (absent entries are written as 0)."""
        from ._buffers import _check_buffer, _is_buffer, check_disjoint

        if self._stage is not None and "result" in self._stage:
            _check_buffer(values, "the dense values buffer", self._size, (self._dtype.np_type,))
            check_disjoint({"the dense values buffer": values}, self._storage_arrays(),
                           "the vector's own storage")
            for k in ("indices", "values"):
                self._stage.pop(k, None)
            self._stage["dense"] = values
            return self
        if getattr(values, "ndim", None) != 1 or len(values) != self._size:
            raise InvalidValue(f"set_dense needs a 1-D array of length {self._size}")
        if not (_is_buffer(values) and values.dtype == self._dtype.np_type):
            values = Vector.from_dense(values, dtype=self._dtype)._dense_form()[0]
        self._swap_in(Vector._from_dense(self._size, self._dtype, values,
                                         xp.ones(self._size, dtype=bool), nvals=self._size))
        return self

    def get_dense(self):
        """The dense values (0 where there is no entry)."""
        return self.to_dense(device=True)

    # ------------------------------------------------------------------ whole-object
    def dup(self, dtype=None):
        v = self._cast_to(dtype) if dtype is not None else self
        out = Vector.__new__(Vector)
        sp = None if v._sp is None else tuple(None if a is None else a.copy() for a in v._sp)
        dn = None if v._dn is None else tuple(a.copy() for a in v._dn)
        out._set(v._size, v._dtype, sp=sp, dn=dn, nvals=v._nvals, iso=v._iso)
        return out

    def clear(self):
        self._swap_in(Vector(self._dtype, self._size))

    def resize(self, size):
        size = check_dim(size, "size")
        idx, vals = self._sparse()
        keep = idx < size
        self._swap_in(Vector._from_sparse(size, self._dtype, idx[keep],
                                          None if vals is None else vals[keep], iso=self._iso))

    def isequal(self, other, tolerance=None):
        from .matrix import _check_tolerance, _values_equal

        _check_tolerance(tolerance)
        if not isinstance(other, Vector) or self._size != other._size or self.nvals != other.nvals:
            return False
        if not bool(backend.to_scalar((self._sparse()[0] == other._sparse()[0]).all())):
            return False
        return _values_equal(self._values_full(), other._values_full(), tolerance)

    def __repr__(self):
        return (f"<grblas_gpu.Vector size={self._size} {self._dtype.name} nvals={self.nvals} "
                f"format={self.format} backend={backend.name}>")

    def __len__(self):
        return self._size

    def __bool__(self):
        raise InvalidValue("the truth value of a Vector is ambiguous; use v.nvals or isequal")

    __hash__ = None

    def __eq__(self, other):
        raise InvalidValue("use u.isequal(v) to compare vectors (== is not defined)")

    # ------------------------------------------------------------------ operations
    # Each method runs the operation it names (imported in the body: grblas_gpu.operations
    # sits above the containers; tests/test_import_graph.py) and returns a new object, except
    # assign and subassign (in place).
    def vxm(self, A, semiring="plus_times", *, mask=None, accum=None, desc=None,
            direction=None):
        """A new Vector wᵀ = uᵀ ⊕.⊗ A in the semiring's output type."""
        from .operations.mxv import vxm_method
        return vxm_method(self, A, semiring, mask=mask, accum=accum, desc=desc,
                          direction=direction)

    def __matmul__(self, other):
        """u @ A = u.vxm(A, plus_times)."""
        from .operations.mxv import vector_matmul
        return vector_matmul(self, other)

    def __rmatmul__(self, other):
        """A @ u for operands whose own __matmul__ declined (an A.T view)."""
        from .operations.mxv import vector_rmatmul
        return vector_rmatmul(self, other)

    __array_ufunc__ = None  # (see Matrix.__array_ufunc__)

    reduce = ElementwiseMethods.reduce_scalar  # python-graphblas's name for a Vector

    def _diag_of(A, k=0):
        """Vector.diag(A, k=0): diagonal k of A."""
        from .operations.diag import vector_diag
        return vector_diag(A, k)

    def _diagonal(self, k=0):
        """v.diag(k=0): a Matrix with v on diagonal k."""
        from .operations.diag import matrix_diag
        return matrix_diag(self, k)

    diag = ClassOrInstance(_diag_of, _diagonal, "Vector.diag(A, k=0): diagonal k of A; "
                           "v.diag(k=0): a Matrix with v on diagonal k.")

    def extract(self, indices, *, mask=None, desc=None, dtype=None):
        """u(indices) as a new Vector."""
        from .operations.extract import vector_extract
        return vector_extract(self, indices, mask=mask, desc=desc, dtype=dtype)

    def _getitem_many(self, key):  # u[I]
        return self.extract(key)

    def assign(self, value, indices, *, mask=None, accum=None, desc=None):
        """In place: self⟨mask⟩(indices) = accum(self(indices), value). Returns self."""
        from .operations.assign import assign
        return assign(self, value, indices, mask=mask, accum=accum, desc=desc)

    def subassign(self, value, indices, *, mask=None, accum=None, desc=None):
        """In place: self(indices)⟨mask⟩ = accum(self(indices), value). Returns self."""
        from .operations.assign import subassign
        return subassign(self, value, indices, mask=mask, accum=accum, desc=desc)

    def _setitem_many(self, key, value):  # w[I] = u
        self.subassign(value, key)
