"""Matrix: a typed sparse matrix stored as CSR, with CSC built on demand.

Storage follows MPGraph's layout: CSR is the primary form; CSC is cached together with an
edge-id array mapping each CSC entry to its CSR position, so per-edge data stays 1:1 with
one edge list. Values may be absent: an iso-valued matrix keeps one scalar instead.
"""
import threading

import numpy as np

from . import _interop, backend
from ._validate import (as_flag, as_index_array, as_int, check_dim, check_in_range, check_same_length,
                        index_dtype, is_index_collection, values_and_dtype, values_array)
from .errors import DimensionMismatch, IndexOutOfBounds, InvalidValue, NotSupported
from . import memory
from .mask import MaskableMixin
from .methods import MatrixMethods
from .types import cast, cast_scalar, lookup_dtype, scalar_value

xp = backend.xp

__all__ = ["Matrix"]

# CSR keeps nrows+1 offsets (and CSC ncols+1): past this many, a matrix would need
# hypersparse (DCSR) storage, which is not implemented. Column counts (for CSR) and vector
# sizes may be as large as 2**60.
MAX_POINTER_LENGTH = 2**31


# held while a memo is made (made once however many threads ask; reentrant: a make() may
# ask for another memo); never taken when the memo is there
_MEMO_LOCK = threading.RLock()
_MISSING = object()

# Offsets longer than this ask the memory budget first (shorter ones cannot matter).
_OFFSETS_CHECKED_FROM = 2**24


def _check_pointer_length(n, what):
    """NotSupported beyond the CSR limit; AllocFailed, before anything is allocated, when the
    offsets (and the searchsorted that builds them) cannot fit."""
    if n + 1 > MAX_POINTER_LENGTH:
        raise NotSupported(f"{what} = {n}: CSR/CSC offsets of that length need hypersparse "
                           f"storage, which grblas_gpu does not implement (limit {MAX_POINTER_LENGTH - 1})")
    if n >= _OFFSETS_CHECKED_FROM:
        memory.require(8 * (n + 1), f"the {n + 1} offsets of {what} = {n}")


class ClassOrInstance:
    """A method that is one function on the class (``Matrix.diag(v, k)``) and another on an
    instance (``A.diag(k)``)."""

    def __init__(self, on_class, on_instance, doc):
        self.on_class, self.on_instance, self.__doc__ = on_class, on_instance, doc

    def __get__(self, obj, cls=None):
        if obj is None:
            return self.on_class
        return lambda k=0: self.on_instance(obj, k)


class Matrix(MaskableMixin, MatrixMethods):
    """A sparse matrix of one GraphBLAS type. ``Matrix(dtype, nrows, ncols)`` is empty."""

    __slots__ = ("_nrows", "_ncols", "_dtype", "_indptr", "_indices", "_values", "_iso",
                 "_cache", "_stage", "__weakref__")

    def __init__(self, dtype=float, nrows=0, ncols=0):
        nrows, ncols = check_dim(nrows, "nrows"), check_dim(ncols, "ncols")
        _check_pointer_length(nrows, "nrows")
        dt = lookup_dtype(dtype)
        itype = index_dtype(nrows, ncols)
        self._set(nrows, ncols, dt, xp.zeros(nrows + 1, dtype=itype), xp.zeros(0, dtype=itype),
                  xp.zeros(0, dtype=dt.np_type), None)
        self._stage = None

    # ------------------------------------------------------------------ construction
    def _set(self, nrows, ncols, dtype, indptr, indices, values, iso):
        self._nrows, self._ncols, self._dtype = nrows, ncols, dtype
        self._indptr, self._indices, self._values, self._iso = indptr, indices, values, iso
        self._cache = {}

    # the whole state, for a Replay (grblas_gpu.replay): saved before a recording, put back
    # after a failed one and after each replay; cached forms included
    _FIELDS = ("_nrows", "_ncols", "_dtype", "_indptr", "_indices", "_values", "_iso",
               "_cache", "_stage")

    def _snapshot(self):
        """The state, or None while the object is being built."""
        try:
            state = [getattr(self, f) for f in self._FIELDS]
        except AttributeError:
            return None
        state[7] = dict(state[7])
        return tuple(state)

    def _restore(self, state):
        for f, v in zip(self._FIELDS, state):
            setattr(self, f, dict(v) if f == "_cache" else v)

    @staticmethod
    def _arrays(state):
        return list(state[3:6])

    @staticmethod
    def _with_arrays(state, arrays):
        return state[:3] + tuple(arrays) + state[6:]

    def _caching(self):
        """The cache a derived form is added to (the one way to add to it)."""
        return self._cache

    def memo(self, key, make):
        """``make()``, made once for this matrix's content and kept with it (dropped when the
        matrix changes): what an algorithm derives from a graph and reuses from call to call,
        like LAGraph's cached graph properties. Threads reading the matrix share it: the
        first to ask makes it, the others wait for that one (so make() runs once; it runs
        under a lock, so it must not wait for another thread that asks for a memo)."""
        try:
            hash(key)
        except TypeError:
            raise InvalidValue(f"a memo key must be hashable, got {type(key).__name__}") from None
        if not callable(make):
            raise InvalidValue(f"memo's make must be callable, got {type(make).__name__}")
        cache = self._cache
        found = cache.get(key, _MISSING)
        if found is _MISSING:
            with _MEMO_LOCK:
                found = self._cache.get(key, _MISSING)
                if found is _MISSING:
                    found = self._caching()[key] = make()
        return found

    @classmethod
    def _from_csr(cls, nrows, ncols, dtype, indptr, indices, values, iso=None):
        """Trusted constructor: arrays already valid and on the active backend."""
        A = cls.__new__(cls)
        dtype = lookup_dtype(dtype)
        itype = index_dtype(nrows, ncols, len(indices))
        if values is not None:
            values = cast(values, dtype, xp)
        elif iso is None:
            iso = dtype.np_type.type(1)
        else:
            iso = cast_scalar(iso, dtype)
        A._set(nrows, ncols, dtype, indptr.astype(itype, copy=False),
               indices.astype(itype, copy=False), values, iso)
        A._stage = None
        return A

    @classmethod
    def from_coo(cls, rows, cols, values=None, *, nrows=None, ncols=None, dtype=None,
                 dup_op=None):
        """Build from coordinates. ``values``: an array, a scalar (iso) or None (structure only,
        iso True/1). Duplicates raise InvalidValue unless ``dup_op`` (a binary op) combines them."""
        rows = as_index_array(rows, "rows")
        cols = as_index_array(cols, "cols")
        check_same_length(rows, cols, "rows and cols")
        vals, iso, dt = values_and_dtype(values, len(rows), dtype)
        dup = _dup_operator(dup_op, dt)
        nrows = _extent(rows, nrows, "nrows")
        ncols = _extent(cols, ncols, "ncols")
        _check_pointer_length(nrows, "nrows")
        check_in_range(rows, nrows, "row index")
        check_in_range(cols, ncols, "column index")
        order = _coo_order(rows, cols, ncols)
        rows, cols = rows[order], cols[order]
        if vals is not None:
            vals = vals[order]
        rows, cols, vals, iso = _combine_duplicates(rows, cols, vals, iso, dt, dup)
        return cls._from_csr(nrows, ncols, dt, row_offsets(rows, nrows), cols, vals, iso)

    @classmethod
    def from_csr(cls, indptr, indices, values=None, *, ncols=None, dtype=None, trusted=False):
        """Build from CSR arrays (column indices sorted and unique within each row).
        trusted=True (SuiteSparse's GxB load, as Vector.from_coo's): ``indptr`` and
        ``indices`` are 1-D integer backend arrays already valid (offsets from 0 to
        len(indices), non-decreasing; indices sorted, unique within each row and in
        [0, ncols)), ``values`` a backend array as long, a scalar or None; ncols and dtype
        are required. Only types and lengths are checked (nothing that reads the device), and
        arrays of the matrix's index type are adopted, not copied: the caller must not write
        into them afterwards."""
        if as_flag(trusted, "trusted"):
            return cls._trusted_csr(indptr, indices, values, ncols, dtype)
        indptr = as_index_array(indptr, "indptr")
        indices = as_index_array(indices, "indices")
        vals, iso, dt = values_and_dtype(values, len(indices), dtype)
        nrows = _check_offsets(indptr, len(indices), "indptr")
        ncols = _extent(indices, ncols, "ncols")
        check_in_range(indices, ncols, "column index")
        rows = xp.searchsorted(indptr, xp.arange(len(indices)), side="right") - 1
        _check_sorted_unique(rows, indices, "column indices")
        return cls._from_csr(nrows, ncols, dt, indptr, indices, vals, iso)

    @classmethod
    def _trusted_csr(cls, indptr, indices, values, ncols, dtype):
        if ncols is None or dtype is None:
            raise InvalidValue("from_csr(trusted=True) needs ncols and dtype")
        ncols, dt = check_dim(ncols, "ncols"), lookup_dtype(dtype)
        for a, what in ((indptr, "indptr"), (indices, "indices")):
            if not (isinstance(a, xp.ndarray) and a.ndim == 1 and a.dtype.kind in "iu"):
                raise InvalidValue(f"from_csr(trusted=True) needs {what} as a 1-D integer "
                                   f"{backend.name} array, got {type(a).__name__}")
        if len(indptr) < 1:
            raise InvalidValue("indptr must have length nrows+1 >= 1")
        nrows = len(indptr) - 1
        if nrows + 1 > MAX_POINTER_LENGTH:
            _check_pointer_length(nrows, "nrows")           # (raises NotSupported)
        if values is None or np.isscalar(values) or getattr(values, "ndim", None) == 0:
            _, iso, _ = values_and_dtype(values, len(indices), dt)
            return cls._from_csr(nrows, ncols, dt, indptr, indices, None, iso)
        if not (isinstance(values, xp.ndarray) and values.ndim == 1
                and len(values) == len(indices)):
            raise InvalidValue(f"from_csr(trusted=True) needs values as a 1-D {backend.name} "
                               f"array of {len(indices)} entries, a scalar or None")
        vals, _, _ = values_and_dtype(values, len(indices), dt)
        return cls._from_csr(nrows, ncols, dt, indptr, indices, vals)

    @classmethod
    def from_csc(cls, indptr, indices, values=None, *, nrows=None, dtype=None):
        """Build from CSC arrays (row indices sorted and unique within each column)."""
        At = cls.from_csr(indptr, indices, values, ncols=nrows, dtype=dtype)
        return At._transposed()

    @classmethod
    def from_dense(cls, array, missing_value=None, *, dtype=None):
        """Every element is an entry, except those equal to ``missing_value`` when given."""
        a = values_array(array, dtype, "from_dense's array")
        if a.ndim != 2:
            raise InvalidValue(f"from_dense needs a 2-D array, got shape {a.shape}")
        present = xp.ones(a.shape, dtype=bool) if missing_value is None else (
            a != scalar_value(missing_value, lookup_dtype(a.dtype), "missing_value"))
        rows, cols = xp.nonzero(present)
        return cls.from_coo(rows, cols, a[rows, cols], nrows=a.shape[0], ncols=a.shape[1],
                            dtype=dtype if dtype is not None else a.dtype)

    @classmethod
    def from_scipy(cls, S, *, dtype=None, dup_op=None):
        """From a scipy.sparse array or matrix of any format (or a cupyx.scipy.sparse matrix,
        read on the device under CuPy); explicit zeros are entries. Duplicates (coo) raise
        InvalidValue unless ``dup_op`` combines them."""
        return _interop.from_scipy_matrix(cls, S, dtype, dup_op)

    @classmethod
    def from_graphblas(cls, G):
        """From a python-graphblas Matrix (copies through the host)."""
        if type(G).__module__.split(".")[0] != "graphblas" or not hasattr(G, "nrows"):
            raise InvalidValue(f"from_graphblas needs a graphblas.Matrix, got {type(G).__name__}")
        rows, cols, vals = G.to_coo()
        return cls.from_coo(rows.astype(np.int64), cols.astype(np.int64), vals,
                            nrows=G.nrows, ncols=G.ncols, dtype=G.dtype.name)

    # ------------------------------------------------------------------ properties
    nrows = property(lambda self: self._nrows)
    ncols = property(lambda self: self._ncols)
    shape = property(lambda self: (self._nrows, self._ncols))
    dtype = property(lambda self: self._dtype)
    has_csr = property(lambda self: True)
    has_csc = property(lambda self: "csc" in self._cache)
    format = property(lambda self: "csr")

    @property
    def nvals(self):
        if self._stage is not None and "nvals" in self._stage:
            return self._stage["nvals"]  # a multi-stage FILL_NNZ result awaiting its buffers
        return int(len(self._indices))

    @property
    def T(self):
        """Aᵀ as a lazy view (grblas_gpu.transposed.TransposedMatrix): free until used."""
        from .transposed import TransposedMatrix

        return TransposedMatrix(self)

    @property
    def _is_iso(self):
        return self._values is None

    @property
    def index_dtype(self):
        return self._indices.dtype

    # ------------------------------------------------------------------ internal views
    def _csr(self):
        return self._indptr, self._indices, self._values

    def _values_full(self):
        if self._values is not None:
            return self._values
        return xp.full(len(self._indices), self._iso, dtype=self._dtype.np_type)

    # _rows and _csc may be made by two threads at once: both make the same arrays from the
    # same content, and whichever is kept serves (no lock on these hot paths)
    def _rows(self):
        rows = self._cache.get("rows")
        if rows is None:
            rows = self._caching()["rows"] = backend.row_ids(
                self._indptr, len(self._indices), self._indices.dtype)
        return rows

    def _csc(self):
        """(colptr, rowidx, edge_id), cached; edge_id maps CSC order to CSR positions."""
        csc = self._cache.get("csc")
        if csc is None:
            _check_pointer_length(self._ncols, "ncols (for the CSC form)")
            edge_id = xp.argsort(self._indices, kind="stable").astype(self._indices.dtype)
            rowidx = self._rows()[edge_id]
            colptr = xp.searchsorted(self._indices[edge_id], xp.arange(self._ncols + 1),
                                     side="left").astype(self._indices.dtype)
            csc = self._caching()["csc"] = (colptr, rowidx, edge_id)
        return csc

    def _csc_values(self):
        if self._values is None:
            return None
        return self._values[self._csc()[2]]

    def _transposed(self):
        colptr, rowidx, _ = self._csc()
        return Matrix._from_csr(self._ncols, self._nrows, self._dtype, colptr, rowidx,
                                self._csc_values(), self._iso)

    def _as_index_dtype(self, itype):
        """The same matrix with indices of another integer type (int64 paths on small data)."""
        A = Matrix._from_csr(*self.shape, self._dtype, self._indptr, self._indices, self._values,
                             self._iso)
        A._indptr, A._indices = self._indptr.astype(itype), self._indices.astype(itype)
        return A

    def _swap_in(self, other):
        """Take other's storage: the single point where an output object changes."""
        self._set(other._nrows, other._ncols, other._dtype, other._indptr, other._indices,
                  other._values, other._iso)
        self._stage = None

    def _cast_to(self, dtype):
        dtype = lookup_dtype(dtype)
        if dtype is self._dtype:
            return self
        vals = None if self._values is None else cast(self._values, dtype, xp)
        iso = None if self._values is not None else cast_scalar(self._iso, dtype)
        return Matrix._from_csr(self._nrows, self._ncols, dtype, self._indptr, self._indices,
                                vals, iso)

    # ------------------------------------------------------------------ export
    # device=True returns the storage (and cached forms) itself, not copies: read-only, and
    # describing the content until the matrix next changes. values=False gives None for the
    # values (an iso matrix's are never expanded), as python-graphblas's to_coo(values=False).
    def to_coo(self, *, device=False, values=True):
        """(rows, cols, values) as NumPy arrays (backend arrays with device=True: no copy,
        read-only; see above); values None with values=False."""
        device, values = as_flag(device, "device"), as_flag(values, "values")
        out = (self._rows(), self._indices, self._values_full() if values else None)
        return out if device else tuple(_host(a) for a in out)

    def to_csr(self, *, device=False, values=True):
        """(indptr, indices, values), as to_coo."""
        device, values = as_flag(device, "device"), as_flag(values, "values")
        out = (self._indptr, self._indices, self._values_full() if values else None)
        return out if device else tuple(_host(a) for a in out)

    def to_csc(self, *, device=False):
        device = as_flag(device, "device")
        colptr, rowidx, edge_id = self._csc()
        out = (colptr, rowidx, self._values_full()[edge_id])
        return out if device else tuple(_host(a) for a in out)

    def to_dense(self, fill=0, *, device=False):
        """A dense 2-D array, ``fill`` (which the type must hold) where there is no entry.
        AllocFailed, before anything is allocated, when it cannot fit."""
        device = as_flag(device, "device")
        fill = scalar_value(fill, self._dtype, "fill")
        nbytes = self._nrows * self._ncols * self._dtype.np_type.itemsize
        memory.require(nbytes,
                       f"a dense {self._nrows} x {self._ncols} {self._dtype.name} array")
        with memory.oom_guard("Matrix.to_dense"):
            dense = xp.full((self._nrows, self._ncols), fill, dtype=self._dtype.np_type)
            dense[self._rows(), self._indices] = self._values_full()
            return dense if device else backend.to_host(dense)

    def to_scipy(self, *, device=False):
        """A ``scipy.sparse.csr_array`` of host copies. device=True: the storage itself, not
        copied (read-only, as to_csr(device=True)): a scipy ``csr_array`` under NumPy, a
        ``cupyx.scipy.sparse.csr_matrix`` under CuPy (bool and float types only)."""
        device = as_flag(device, "device")
        indptr, indices, values = self.to_csr(device=True)
        return _interop.csr_export(indptr, indices, values, self.shape, device)

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(A)``: the dense matrix of a matrix with every entry present (a host
        copy); InvalidValue when entries are missing (use ``to_dense(fill)``)."""
        return _interop.dense_export(self, self.nvals, self._nrows * self._ncols, dtype, copy)

    def to_graphblas(self):
        import graphblas as gb

        rows, cols, vals = self.to_coo()
        return gb.Matrix.from_coo(rows, cols, vals, nrows=self._nrows, ncols=self._ncols,
                                  dtype=self._dtype.name)

    # ------------------------------------------------------------------ elements
    def __getitem__(self, key):
        if _selects_many(key):  # A[I, J], A[i, J], A[I, j]: grblas_gpu.operations.extract
            return self._getitem_many(key)
        i, j = self._element_key(key)
        pos = self._find(i, j)
        if pos is None:
            return None
        return self._iso if self._values is None else backend.to_host(self._values[pos])[()]

    def __setitem__(self, key, value):
        if _selects_many(key):  # C[I, J] = A: subassign, grblas_gpu.operations.assign
            self._setitem_many(key, value)
            return
        i, j = self._element_key(key)
        value = scalar_value(value, self._dtype)
        pos, found = self._locate(i, j)
        keep_iso = self._values is None and _same_value(value, self._iso)
        if found:  # A(i, j) = x: a new values array, the structure shared
            if keep_iso:
                return
            vals = self._values_full().copy()
            vals[pos] = value
            self._swap_in(Matrix._from_csr(*self.shape, self._dtype, self._indptr,
                                           self._indices, vals))
            return
        # insert at CSR position pos: O(nrows + nvals) copies, no sort and no dense array
        itype = index_dtype(self._nrows, self._ncols, self.nvals + 1)
        indptr = self._indptr.astype(itype, copy=True)
        indptr[i + 1:] += 1
        indices = _insert(self._indices.astype(itype, copy=False), pos, j)
        vals = None if keep_iso else _insert(self._values_full(), pos, value)
        self._swap_in(Matrix._from_csr(*self.shape, self._dtype, indptr, indices, vals,
                                       self._iso if keep_iso else None))

    def __delitem__(self, key):
        i, j = self._element_key(key)
        pos, found = self._locate(i, j)
        if not found:
            return
        indptr = self._indptr.copy()
        indptr[i + 1:] -= 1
        vals = None if self._values is None else _remove(self._values, pos)
        self._swap_in(Matrix._from_csr(*self.shape, self._dtype, indptr,
                                       _remove(self._indices, pos), vals, self._iso))

    def _element_key(self, key):
        if not (isinstance(key, tuple) and len(key) == 2):
            raise InvalidValue(f"matrix element access needs A[i, j], got {key!r:.60}")
        i, j = as_int(key[0], "row index"), as_int(key[1], "column index")
        if not (0 <= i < self._nrows and 0 <= j < self._ncols):
            raise IndexOutOfBounds(f"index ({i}, {j}) is out of range for shape {self.shape}")
        return i, j

    def _locate(self, i, j):
        """(CSR position, found): where A(i, j) is, or where it would be inserted."""
        lo, hi = (int(v) for v in backend.to_host(self._indptr[i:i + 2]))
        row = self._indices[lo:hi]
        k = int(backend.to_scalar(xp.searchsorted(row, j))) if hi > lo else 0
        return lo + k, k < hi - lo and int(backend.to_scalar(row[k])) == j

    def _find(self, i, j):
        pos, found = self._locate(i, j)
        return pos if found else None

    # ------------------------------------------------------------------ caller buffers (oneMKL)
    # Issue 3: the caller's arrays become (or receive) the storage; see grblas_gpu/_buffers.py.
    def set_csr(self, indptr, indices=None, values=None, *, nrows=None, ncols=None, dtype=None):
        """Adopt CSR arrays (shared, not copied, when they can be), or with ``indptr`` alone,
        attach an offsets buffer for a multi-stage (FILL_NNZ / FILL_ENTRIES) operation."""
        from . import _buffers

        return _buffers.set_csr(self, indptr, indices, values, nrows=nrows, ncols=ncols,
                                dtype=dtype)

    def get_csr(self):
        """(indptr, indices, values): the storage arrays themselves (backend arrays)."""
        from . import _buffers

        return _buffers.get_csr(self)

    def set_csc(self, indptr, indices, values=None, *, nrows=None, ncols=None, dtype=None):
        """Adopt CSC arrays: the CSR form is built, the arrays become the cached CSC form."""
        from . import _buffers

        return _buffers.set_csc(self, indptr, indices, values, nrows=nrows, ncols=ncols,
                                dtype=dtype)

    def get_csc(self):
        """(colptr, rowidx, values) of the CSC form (built and cached on first use)."""
        from . import _buffers

        return _buffers.get_csc(self)

    # ------------------------------------------------------------------ whole-object
    def dup(self, dtype=None):
        """A copy (cast to ``dtype`` when given)."""
        A = self._cast_to(dtype) if dtype is not None else self
        vals = None if A._values is None else A._values.copy()
        return Matrix._from_csr(*A.shape, A._dtype, A._indptr.copy(), A._indices.copy(), vals,
                                A._iso)

    def clear(self):
        self._swap_in(Matrix(self._dtype, self._nrows, self._ncols))

    def resize(self, nrows, ncols):
        """Change the shape; entries outside the new shape are dropped."""
        nrows, ncols = check_dim(nrows, "nrows"), check_dim(ncols, "ncols")
        _check_pointer_length(nrows, "nrows")
        rows, cols = self._rows(), self._indices
        keep = (rows < nrows) & (cols < ncols)
        vals = None if self._values is None else self._values[keep]
        rows, cols = rows[keep], cols[keep]
        itype = index_dtype(nrows, ncols, len(cols))
        indptr = row_offsets(rows, nrows).astype(itype)
        self._swap_in(Matrix._from_csr(nrows, ncols, self._dtype, indptr, cols, vals, self._iso))

    def isequal(self, other, tolerance=None):
        """Same shape, structure and values (within relative ``tolerance`` for floats).
        Types may differ; values are compared after promotion."""
        _check_tolerance(tolerance)
        if not isinstance(other, Matrix) or self.shape != other.shape or self.nvals != other.nvals:
            return False
        if not (bool(backend.to_scalar((self._indptr == other._indptr).all()))
                and bool(backend.to_scalar((self._indices == other._indices).all()))):
            return False
        return _values_equal(self._values_full(), other._values_full(), tolerance)

    def is_symmetric(self, *, structure=False):
        """A equals Aᵀ: the same pattern and, unless ``structure`` (pattern only, values
        ignored: LAGraph's A_structure_is_symmetric), mirrored values equal as isequal
        compares them. A square matrix only (DimensionMismatch otherwise). Computed on the
        device once, without a sort (a binary search per entry for its mirror), and kept
        with the matrix (memo key ("grblas_gpu.Matrix.is_symmetric", structure)), so it is
        dropped when the matrix changes. An iso matrix's values mirror wherever its pattern
        does: both questions share the pattern's entry."""
        structure = as_flag(structure, "is_symmetric: structure")
        if self._nrows != self._ncols:
            raise DimensionMismatch(f"is_symmetric needs a square matrix, got {self.shape}")
        if self._values is None:
            structure = True
        return self.memo(("grblas_gpu.Matrix.is_symmetric", structure),
                         lambda: self._symmetric(structure))

    def _known_symmetric(self):
        """Record that A equals Aᵀ, pattern and values, where its maker knows it by
        construction (a generator of undirected graphs, as LAGraph's graph kind
        ADJACENCY_UNDIRECTED): is_symmetric answers without the check. Returns self."""
        for structure in (True, False):
            self._caching()[("grblas_gpu.Matrix.is_symmetric", structure)] = True
        return self

    def replace_indices(self, indices):
        """In place, trusted (as from_csr(trusted=True)): the column indices become
        ``indices``, a 1-D backend array of the matrix's index type (``index_dtype``) and
        nvals entries, already valid (sorted and unique within each row, in [0, ncols));
        adopted, not copied, and not read (the caller must not write into it afterwards).
        The row offsets, values and type stay, and so do the forms derived from the row
        offsets alone (``ROW_FORMS``: row ids, the pull's row plans, the empty-row count);
        the others (the CSC form, memos) are dropped. For a loop over a matrix whose rows
        keep their entry counts while their entries move (FastSV's parent matrix
        P(i, f(i))): nothing is read from the device and no row plan is rebuilt. Returns self."""
        idx = self._indices
        if not (isinstance(indices, xp.ndarray) and indices.ndim == 1
                and indices.dtype == idx.dtype and len(indices) == len(idx)):
            raise InvalidValue(f"replace_indices needs a 1-D {backend.name} array of "
                               f"{len(idx)} {idx.dtype} entries, got "
                               f"{_array_summary(indices)}")
        ptr = backend.data_address(self._indptr)
        kept = {k: v for k, v in self._cache.items() if _row_form(k, ptr)}
        self._set(self._nrows, self._ncols, self._dtype, self._indptr, indices, self._values,
                  self._iso)
        self._cache.update(kept)
        self._stage = None
        return self

    def _symmetric(self, structure):
        m = len(self._indices)
        if m == 0:
            return True
        rows = self._cache.get("rows")
        if rows is None:  # not cached: the check is once, the row ids are 4-8 bytes an edge
            rows = backend.row_ids(self._indptr, m, self._indices.dtype)
        values = not (structure or self._values is None)
        every, pos = backend.mirror_positions(self._indptr, self._indices, rows,
                                              positions=values)
        if not every:
            return False
        if not values:
            return True
        return _values_equal(self._values, self._values[pos], None)

    def __repr__(self):
        iso = ", iso" if self._values is None else ""
        return (f"<grblas_gpu.Matrix {self._nrows}x{self._ncols} {self._dtype.name} "
                f"nvals={self.nvals} format=csr{'+csc' if self.has_csc else ''}{iso} "
                f"backend={backend.name}>")

    def __bool__(self):
        raise InvalidValue("the truth value of a Matrix is ambiguous; use A.nvals or isequal")

    __hash__ = None

    def __eq__(self, other):
        raise InvalidValue("use A.isequal(B) to compare matrices (== is not defined)")

    def _diag_of(v, k=0):
        """Matrix.diag(v, k=0): a Matrix with v on diagonal k."""
        from .operations.diag import matrix_diag
        return matrix_diag(v, k)

    def _diagonal(self, k=0):
        """A.diag(k=0): diagonal k of A as a Vector."""
        from .operations.diag import vector_diag
        return vector_diag(self, k)

    diag = ClassOrInstance(_diag_of, _diagonal, "Matrix.diag(v, k=0): a Matrix with v on "
                           "diagonal k; A.diag(k=0): diagonal k of A as a Vector.")

    def extract(self, rows, cols, *, mask=None, desc=None, dtype=None):
        """A(rows, cols) as a new Matrix (a Vector when rows or cols is one int)."""
        from .operations.extract import matrix_extract
        return matrix_extract(self, rows, cols, mask=mask, desc=desc, dtype=dtype)

    def _getitem_many(self, key):  # A[I, J], A[i, J], A[I, j]
        return self.extract(*key)

    def assign(self, value, rows, cols, *, mask=None, accum=None, desc=None):
        """In place: self⟨mask⟩(rows, cols) = accum(self(rows, cols), value). Returns self."""
        from .operations.assign import assign
        return assign(self, value, rows, cols, mask=mask, accum=accum, desc=desc)

    def subassign(self, value, rows, cols, *, mask=None, accum=None, desc=None):
        """In place: self(rows, cols)⟨mask⟩ = accum(self(rows, cols), value). Returns self."""
        from .operations.assign import subassign
        return subassign(self, value, rows, cols, mask=mask, accum=accum, desc=desc)

    def _setitem_many(self, key, value):  # C[I, J] = A: subassign without a mask
        self.subassign(value, *key)


# ---------------------------------------------------------------------- helpers
# cached forms derived from the row offsets alone, which replace_indices keeps: a key, or
# the first field of a tuple key whose second field is the address of the offsets it was
# made from (the pull's plans are keyed so: kernels.pull_plans.row_plan)
ROW_FORMS = ("rows", "no_empty_rows", "spmv_plan")


def _row_form(key, ptr_address):
    if isinstance(key, tuple):
        return len(key) > 1 and key[0] in ROW_FORMS and key[1] == ptr_address
    return isinstance(key, str) and key in ROW_FORMS


def _array_summary(a):
    if isinstance(a, xp.ndarray):
        return f"a {a.ndim}-D array of {a.size} {a.dtype} entries"
    return type(a).__name__


def _host(a):
    return None if a is None else backend.host_copy(a)


def _selects_many(key):
    return isinstance(key, tuple) and len(key) == 2 and any(map(is_index_collection, key))


def row_offsets(rows, nrows):
    """CSR offsets of sorted row ids; the budget is asked first (an arange of nrows + 1 and
    its search, 16 bytes a row), and an allocator failure raises AllocFailed."""
    if nrows >= _OFFSETS_CHECKED_FROM:
        memory.require(16 * (nrows + 1), f"the offsets of {nrows} rows")
    with memory.oom_guard("CSR offsets"):
        return xp.searchsorted(rows, xp.arange(nrows + 1), side="left")


def _same_value(a, b):
    """Bitwise equal NumPy scalars (NaN equals NaN, -0.0 differs from 0.0)."""
    return a.tobytes() == b.tobytes()


def _insert(a, pos, x):
    """a with x inserted before position pos (a new array)."""
    return xp.concatenate([a[:pos], xp.asarray(np.asarray([x], dtype=a.dtype)), a[pos:]])


def _remove(a, pos):
    return xp.concatenate([a[:pos], a[pos + 1:]])


def _extent(idx, given, what):
    if given is not None:
        return check_dim(given, what)
    return check_dim(int(backend.to_scalar(idx.max())) + 1 if idx.size else 0,
                     f"{what} (the largest index + 1)")


def _coo_order(rows, cols, ncols):
    """Row-major order of coordinates (a single int64 key when it cannot overflow)."""
    if ncols == 0 or len(rows) == 0:
        return xp.arange(len(rows))
    if (int(backend.to_scalar(rows.max())) + 1) * ncols < 2**62:
        return xp.argsort(rows * ncols + cols, kind="stable")
    return xp.lexsort(xp.stack([cols, rows]))


def _dup_operator(dup_op, dt):
    """The typed binary operator combining duplicates of type dt (None: duplicates are an
    error). Its inputs and output must share one type, as GrB_Matrix_build requires
    (GrB_DOMAIN_MISMATCH otherwise: ``eq`` on numbers gives BOOL). Where its type is not dt,
    every value is cast to its type, folded there, and cast back to dt, as SuiteSparse does
    (hypot on INT32 runs at FP64: 1, 1, 1, 1 fold to 2.0, then 2; lxnor on INT8 runs at BOOL:
    a lone 3 becomes 1)."""
    if dup_op is None:
        return None
    from . import operators
    from .errors import DomainMismatch

    typed = operators.binary(dup_op, dt)  # typed by one type, as python-graphblas does
    if typed.op.kind == "monoid":  # a monoid stands for its binary operator
        typed = typed.op.binop[typed.type]
    if typed.op.kind != "binary":
        raise DomainMismatch(f"dup_op must be a binary operator, got {dup_op!r}")
    y_type = operators.y_domain(typed)
    if typed.out_type != typed.type or y_type != typed.type:
        raise DomainMismatch(f"dup_op {typed!r} has domains {typed.out_type.name} = "
                             f"f({typed.type.name}, {y_type.name}): the domains of the operator "
                             "combining duplicates must be identical")
    return typed


# associative whatever the grouping, though not monoids here
_ASSOCIATIVE = ("first", "second", "pair", "any")


def _order_free(typed, dt):
    """Whether folding duplicates in any grouping gives the left fold's result exactly: an
    associative operator on an integer or BOOL type, computed in that type. Float sums and
    products depend on the grouping (SuiteSparse adds duplicates in input order), and min /
    max on floats on the order of signed zeros, so floats take the left fold, except for
    first / second / pair / any, which pick a value."""
    if typed.type != dt:
        return False
    if typed.op.name in _ASSOCIATIVE:
        return True
    if dt.is_float:
        return False
    from . import operators
    from .errors import GraphBLASError

    try:
        mon = operators.monoid(typed.op.name, dt)
    except GraphBLASError:
        return False
    return mon.type == dt and getattr(mon.op, "binop", None) is typed.op


def _combine_duplicates(rows, cols, vals, iso, dt, typed):
    """Entries sorted by position, stably (duplicates in input order), each run of
    duplicates folded left to right by ``typed`` (from _dup_operator; None: duplicates are an
    error): ((v0 ⊙ v1) ⊙ v2) ..., GrB_Matrix_build's order. Returns (rows, cols, vals, iso);
    vals None stays iso unless duplicates are combined."""
    if typed is not None and typed.type != dt:
        # SuiteSparse passes every value through the operator's type, duplicated or not
        if vals is None:
            iso = cast_scalar(cast_scalar(iso, typed.type), dt)
        else:
            vals = cast(cast(vals, typed.type, xp), dt, xp)
    if len(rows) < 2:
        return rows, cols, vals, iso
    dup = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
    if not bool(backend.to_scalar(dup.any())):
        return rows, cols, vals, iso
    if typed is None:
        k = int(backend.to_scalar(xp.nonzero(dup)[0][0]))
        r, c = (int(backend.to_scalar(a[k])) for a in (rows, cols))
        raise InvalidValue(f"duplicate entry at ({r}, {c}); pass dup_op to combine duplicates")
    from .kernels.segment import segment_fold_left, segment_reduce

    starts = xp.nonzero(xp.concatenate([xp.ones(1, dtype=bool), ~dup]))[0]
    if vals is None:  # the iso value, once per entry: v ⊙ v need not be v
        vals = xp.full(len(rows), iso, dtype=dt.np_type)
    if _order_free(typed, dt):
        vals = cast(segment_reduce(vals, starts, typed.op, dt), dt, xp)
    else:
        vals = cast(segment_fold_left(cast(vals, typed.type, xp), starts, typed), dt, xp)
    return rows[starts], cols[starts], vals, None


def _check_offsets(indptr, nvals, what):
    if len(indptr) < 1:
        raise InvalidValue(f"{what} must have length nrows+1 >= 1")
    first, last = (int(v) for v in backend.to_host(indptr[xp.asarray([0, -1])]))
    if first != 0 or last != nvals:
        raise InvalidValue(f"{what} must start at 0 and end at nvals={nvals} "
                           f"(got {first} .. {last})")
    if len(indptr) > 1 and bool(backend.to_scalar((indptr[1:] < indptr[:-1]).any())):
        raise InvalidValue(f"{what} is not monotone non-decreasing")
    return len(indptr) - 1


def _check_sorted_unique(segments, idx, what):
    """Within each segment, indices must strictly increase."""
    if len(idx) < 2:
        return
    same = segments[1:] == segments[:-1]
    bad = same & (idx[1:] <= idx[:-1])
    if bool(backend.to_scalar(bad.any())):
        k = int(backend.to_scalar(xp.nonzero(bad)[0][0])) + 1
        dup = bool(backend.to_scalar(idx[k] == idx[k - 1]))
        raise InvalidValue(f"{what} {'duplicated' if dup else 'unsorted'} at position {k}")


def _check_tolerance(tolerance):
    if tolerance is not None and not (isinstance(tolerance, (int, float, np.integer, np.floating))
                                      and not isinstance(tolerance, bool) and tolerance >= 0):
        raise InvalidValue(f"tolerance must be a number >= 0 or None, got {tolerance!r:.40}")


def _values_equal(a, b, tolerance):
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        both_nan = xp.isnan(a64) & xp.isnan(b64)
        if tolerance:
            close = xp.abs(a64 - b64) <= tolerance * xp.maximum(xp.abs(a64), xp.abs(b64)) + 1e-300
            ok = close | both_nan | (a64 == b64)
        else:
            ok = (a64 == b64) | both_nan
        return bool(backend.to_scalar(ok.all()))
    return bool(backend.to_scalar((a == b).all()))
