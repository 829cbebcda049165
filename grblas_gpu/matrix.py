"""Matrix: a typed sparse matrix stored as CSR, with CSC built on demand.

Storage follows MPGraph's layout: CSR is the primary form; CSC is cached together with an
edge-id array mapping each CSC entry to its CSR position, so per-edge data stays 1:1 with
one edge list. Values may be absent: an iso-valued matrix keeps one scalar instead.
"""
import numpy as np

from . import backend, replay
from ._validate import (as_index_array, check_dim, check_in_range, check_same_length,
                        index_dtype, is_index_collection, values_and_dtype)
from .errors import IndexOutOfBounds, InvalidValue, NotSupported
from .mask import MaskableMixin
from .types import cast, cast_scalar, lookup_dtype

xp = backend.xp

__all__ = ["Matrix"]

# CSR keeps nrows+1 offsets (and CSC ncols+1): past this many, a matrix would need
# hypersparse (DCSR) storage, which is not implemented. Column counts (for CSR) and vector
# sizes may be as large as 2**60.
MAX_POINTER_LENGTH = 2**31


def _check_pointer_length(n, what):
    if n + 1 > MAX_POINTER_LENGTH:
        raise NotSupported(f"{what} = {n}: CSR/CSC offsets of that length need hypersparse "
                           f"storage, which grblas_gpu does not implement (limit {MAX_POINTER_LENGTH - 1})")


class Matrix(MaskableMixin):
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
        replay.note(self)
        self._nrows, self._ncols, self._dtype = nrows, ncols, dtype
        self._indptr, self._indices, self._values, self._iso = indptr, indices, values, iso
        self._cache = {}
        replay.adopted(self, (indptr, indices, values))

    # the whole state, for a Replay recording (grblas_gpu.replay); cached forms included,
    # so every write to _cache calls _caching() first
    _FIELDS = ("_nrows", "_ncols", "_dtype", "_indptr", "_indices", "_values", "_iso",
               "_cache", "_stage")
    _REPORTS_READS = False  # read everywhere through its arrays: a recording copies it back
    _FORMS_CACHED = False   # _values None means iso, not a form left unmade

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
        """Called before a derived form is added to _cache (see _FIELDS)."""
        replay.note(self)
        return self._cache

    def memo(self, key, make):
        """``make()``, made once for this matrix's content and kept with it (dropped when the
        matrix changes): what an algorithm derives from a graph and reuses from call to call,
        like LAGraph's cached graph properties."""
        if key not in self._cache:
            self._caching()[key] = make()
        return self._cache[key]

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
        nrows = _extent(rows, nrows, "nrows")
        ncols = _extent(cols, ncols, "ncols")
        _check_pointer_length(nrows, "nrows")
        check_in_range(rows, nrows, "row index")
        check_in_range(cols, ncols, "column index")
        order = _coo_order(rows, cols, ncols)
        rows, cols = rows[order], cols[order]
        if vals is not None:
            vals = vals[order]
        rows, cols, vals = _combine_duplicates(rows, cols, vals, iso, dt, dup_op)
        indptr = xp.searchsorted(rows, xp.arange(nrows + 1), side="left")
        return cls._from_csr(nrows, ncols, dt, indptr, cols, vals, iso)

    @classmethod
    def from_csr(cls, indptr, indices, values=None, *, ncols=None, dtype=None):
        """Build from CSR arrays (column indices sorted and unique within each row)."""
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
    def from_csc(cls, indptr, indices, values=None, *, nrows=None, dtype=None):
        """Build from CSC arrays (row indices sorted and unique within each column)."""
        At = cls.from_csr(indptr, indices, values, ncols=nrows, dtype=dtype)
        return At._transposed()

    @classmethod
    def from_dense(cls, array, missing_value=None, *, dtype=None):
        """Every element is an entry, except those equal to ``missing_value`` when given."""
        a = xp.asarray(array)
        if a.ndim != 2:
            raise InvalidValue(f"from_dense needs a 2-D array, got shape {a.shape}")
        present = xp.ones(a.shape, dtype=bool) if missing_value is None else a != missing_value
        rows, cols = xp.nonzero(present)
        return cls.from_coo(rows, cols, a[rows, cols], nrows=a.shape[0], ncols=a.shape[1],
                            dtype=dtype if dtype is not None else a.dtype)

    @classmethod
    def from_scipy(cls, S, *, dtype=None, dup_op=None):
        """From a scipy.sparse (or cupyx.scipy.sparse) matrix; explicit zeros are entries."""
        coo = S.tocoo()
        return cls.from_coo(coo.row, coo.col, coo.data, nrows=S.shape[0], ncols=S.shape[1],
                            dtype=dtype, dup_op=dup_op)

    @classmethod
    def from_graphblas(cls, G):
        """From a python-graphblas Matrix (copies through the host)."""
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
    def to_coo(self, *, device=False):
        """(rows, cols, values) as NumPy arrays (backend arrays with device=True)."""
        out = (self._rows(), self._indices, self._values_full())
        return out if device else tuple(backend.to_host(a) for a in out)

    def to_csr(self, *, device=False):
        out = (self._indptr, self._indices, self._values_full())
        return out if device else tuple(backend.to_host(a) for a in out)

    def to_csc(self, *, device=False):
        colptr, rowidx, edge_id = self._csc()
        out = (colptr, rowidx, self._values_full()[edge_id])
        return out if device else tuple(backend.to_host(a) for a in out)

    def to_dense(self, fill=0, *, device=False):
        dense = xp.full((self._nrows, self._ncols), fill, dtype=self._dtype.np_type)
        dense[self._rows(), self._indices] = self._values_full()
        return dense if device else backend.to_host(dense)

    def to_scipy(self):
        import scipy.sparse as sp

        indptr, indices, values = self.to_csr()
        return sp.csr_matrix((values, indices, indptr), shape=self.shape)

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
        pos = self._find(i, j)
        value = cast_scalar(value, self._dtype)
        if pos is not None:
            vals = self._values_full().copy()
            vals[pos] = value
            self._swap_in(Matrix._from_csr(*self.shape, self._dtype, self._indptr,
                                           self._indices, vals))
            return
        rows, cols, vals = self.to_coo(device=True)
        self._swap_in(Matrix.from_coo(
            xp.concatenate([rows.astype(np.int64), xp.asarray([i])]),
            xp.concatenate([cols.astype(np.int64), xp.asarray([j])]),
            xp.concatenate([vals, xp.asarray([value], dtype=self._dtype.np_type)]),
            nrows=self._nrows, ncols=self._ncols, dtype=self._dtype))

    def __delitem__(self, key):
        i, j = self._element_key(key)
        pos = self._find(i, j)
        if pos is None:
            return
        keep = xp.ones(self.nvals, dtype=bool)
        keep[pos] = False
        rows = self._rows()[keep]
        indptr = xp.searchsorted(rows, xp.arange(self._nrows + 1), side="left")
        vals = None if self._values is None else self._values[keep]
        self._swap_in(Matrix._from_csr(*self.shape, self._dtype, indptr, self._indices[keep],
                                       vals, self._iso))

    def _element_key(self, key):
        if not (isinstance(key, tuple) and len(key) == 2):
            raise InvalidValue(f"matrix element access needs A[i, j], got {key!r}")
        i, j = (int(k) for k in key)
        if not (0 <= i < self._nrows and 0 <= j < self._ncols):
            raise IndexOutOfBounds(f"index ({i}, {j}) is out of range for shape {self.shape}")
        return i, j

    def _find(self, i, j):
        lo, hi = (int(v) for v in backend.to_host(self._indptr[i:i + 2]))
        row = self._indices[lo:hi]
        k = int(backend.to_scalar(xp.searchsorted(row, j)))
        if k < hi - lo and int(backend.to_scalar(row[k])) == j:
            return lo + k
        return None

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
        rows, cols = self._rows(), self._indices
        keep = (rows < nrows) & (cols < ncols)
        vals = None if self._values is None else self._values[keep]
        rows, cols = rows[keep], cols[keep]
        itype = index_dtype(nrows, ncols, len(cols))
        indptr = xp.searchsorted(rows, xp.arange(nrows + 1), side="left").astype(itype)
        self._swap_in(Matrix._from_csr(nrows, ncols, self._dtype, indptr, cols, vals, self._iso))

    def isequal(self, other, tolerance=None):
        """Same shape, structure and values (within relative ``tolerance`` for floats).
        Types may differ; values are compared after promotion."""
        if not isinstance(other, Matrix) or self.shape != other.shape or self.nvals != other.nvals:
            return False
        if not (bool(backend.to_scalar((self._indptr == other._indptr).all()))
                and bool(backend.to_scalar((self._indices == other._indices).all()))):
            return False
        return _values_equal(self._values_full(), other._values_full(), tolerance)

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


# ---------------------------------------------------------------------- helpers
def _selects_many(key):
    return isinstance(key, tuple) and len(key) == 2 and any(map(is_index_collection, key))


def _extent(idx, given, what):
    if given is not None:
        return check_dim(given, what)
    return int(backend.to_scalar(idx.max())) + 1 if idx.size else 0


def _coo_order(rows, cols, ncols):
    """Row-major order of coordinates (a single int64 key when it cannot overflow)."""
    if ncols == 0 or len(rows) == 0:
        return xp.arange(len(rows))
    if (int(backend.to_scalar(rows.max())) + 1) * ncols < 2**62:
        return xp.argsort(rows * ncols + cols, kind="stable")
    return xp.lexsort(xp.stack([cols, rows]))


def _combine_duplicates(rows, cols, vals, iso, dt, dup_op):
    if len(rows) < 2:
        return rows, cols, vals
    dup = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
    if not bool(backend.to_scalar(dup.any())):
        return rows, cols, vals
    if dup_op is None:
        k = int(backend.to_scalar(xp.nonzero(dup)[0][0]))
        r, c = (int(backend.to_scalar(a[k])) for a in (rows, cols))
        raise InvalidValue(f"duplicate entry at ({r}, {c}); pass dup_op to combine duplicates")
    from . import operators
    from .kernels.segment import segment_reduce

    starts = xp.nonzero(xp.concatenate([xp.ones(1, dtype=bool), ~dup]))[0]
    if vals is not None:
        op = operators.dup_op(dup_op, dt)
        vals = segment_reduce(vals, starts, op.op, op.type)
        vals = cast(vals, dt, xp)
    return rows[starts], cols[starts], vals


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
