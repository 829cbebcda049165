"""Caller-owned storage for a Matrix: oneMKL's set_csr / get_csr / set_csc / get_csc.

``A.set_csr(indptr, indices, values)`` makes the caller's arrays A's storage (validated; shared,
not copied, when they are backend arrays of an index type A can hold: int32 or int64, the
same for both, and values of A's type). ``A.set_csr(indptr=buf)`` alone attaches an offsets
buffer for a multi-stage operation (oneMKL's FILL_NNZ writes the result's row offsets into
it); after FILL_NNZ, ``A.set_csr(buf, indices_buf, values_buf)`` with the same offsets buffer
attaches the entry buffers that FILL_ENTRIES fills. Results are written INTO those arrays;
they are never replaced. Between the stages A's content is its old content; ``A.nvals``
reports the pending result's count (what the caller allocates).

The pending state lives in ``A._stage`` (a dict); any other change to A drops it.

Buffers that results are written into must be contiguous, 1-D, writable, of the expected
type and length, and must not overlap one another (indices written over offsets would
leave offsets that no longer describe them) nor any operand's storage
(operations._stages.check_disjoint): any of these raises InvalidValue before anything is
written. Overlap is decided by address ranges, on the host and the device alike.
"""
import numpy as np

from . import backend
from ._validate import check_dim
from .errors import InvalidValue
from .types import lookup_dtype

xp = backend.xp

__all__ = ["set_csr", "get_csr", "set_csc", "get_csc", "overlaps", "check_disjoint"]

_INDEX_TYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _is_buffer(a):
    return isinstance(a, xp.ndarray) and a.ndim == 1 and a.flags.c_contiguous


def same_buffer(a, b):
    """True when a and b are the same memory (the same array object, or the same data)."""
    if a is b:
        return True
    if not (_is_buffer(a) and _is_buffer(b)) or a.dtype != b.dtype or a.shape != b.shape:
        return False
    return backend.data_address(a) == backend.data_address(b)


def _bounds(a):
    """[first, last) byte addresses an array's elements occupy; None when it has none."""
    if a.size == 0:
        return None
    lo = hi = backend.data_address(a)
    for n, stride in zip(a.shape, a.strides):
        if stride > 0:
            hi += (n - 1) * stride
        else:
            lo += (n - 1) * stride
    return lo, hi + a.itemsize


def overlaps(a, b):
    """Whether two backend arrays' address ranges meet (views of one allocation included)."""
    ba, bb = _bounds(a), _bounds(b)
    return ba is not None and bb is not None and ba[0] < bb[1] and bb[0] < ba[1]


def check_disjoint(buffers, others=(), what_others="an operand's storage"):
    """InvalidValue unless the named buffers ({name: array}) overlap neither one another
    nor any array of ``others``."""
    named = [(k, v) for k, v in buffers.items() if v is not None]
    for i, (ka, a) in enumerate(named):
        for kb, b in named[i + 1:]:
            if overlaps(a, b):
                raise InvalidValue(f"{ka} and {kb} share memory: results written into one "
                                   "would overwrite the other; pass separate arrays")
        for o in others:
            if overlaps(a, o):
                raise InvalidValue(f"{ka} shares memory with {what_others}: writing results "
                                   "into it would change an input; pass a separate array")


def _check_buffer(a, what, length, dtypes):
    if not _is_buffer(a):
        raise InvalidValue(f"{what} must be a contiguous 1-D {backend.name} array "
                           f"(results are written into it), got {type(a).__name__}")
    if not getattr(a.flags, "writeable", True):  # NumPy's read-only arrays; CuPy has none
        raise InvalidValue(f"{what} is read-only; results are written into it")
    if a.dtype not in dtypes:
        raise InvalidValue(f"{what} has dtype {a.dtype}, expected one of "
                           f"{', '.join(str(d) for d in dtypes)}")
    if len(a) != length:
        raise InvalidValue(f"{what} has length {len(a)}, expected {length}")


def set_csr(A, indptr, indices=None, values=None, *, nrows=None, ncols=None, dtype=None):
    if indices is None and values is None:
        return _attach_offsets(A, indptr, nrows, ncols, dtype)
    stage = A._stage
    if stage is not None and "result" in stage and same_buffer(indptr, stage["indptr"]):
        return _attach_entries(A, indices, values)
    return _adopt(A, indptr, indices, values, nrows, ncols, dtype)


def _attach_offsets(A, buf, nrows, ncols, dtype):
    Matrix = type(A)  # (this module sits below matrix.py: the class comes with A)

    nrows = A.nrows if nrows is None else check_dim(nrows, "nrows")
    ncols = A.ncols if ncols is None else check_dim(ncols, "ncols")
    dt = A.dtype if dtype is None else lookup_dtype(dtype)
    _check_buffer(buf, "the row offsets buffer", nrows + 1, _INDEX_TYPES)
    check_disjoint({"the row offsets buffer": buf}, _storage(A), "the matrix's own storage")
    if (nrows, ncols, dt) != (A.nrows, A.ncols, A.dtype):
        if len(A._indices):
            raise InvalidValue(f"set_csr with only offsets cannot change the shape or type of a "
                               f"matrix with entries ({A.shape} {A.dtype} -> {(nrows, ncols)} {dt})")
        A._swap_in(Matrix(dt, nrows, ncols))
    A._stage = {"indptr": buf}
    return A


def _attach_entries(A, indices, values):
    stage = A._stage
    n = stage["nvals"]
    _check_buffer(indices, "the column indices buffer", n, (stage["indptr"].dtype,))
    _check_buffer(values, "the values buffer", n, (A.dtype.np_type,))
    check_disjoint({"the row offsets buffer": stage["indptr"],
                    "the column indices buffer": indices, "the values buffer": values},
                   _storage(A), "the matrix's own storage")
    stage["indices"], stage["values"] = indices, values
    return A


def _storage(A):
    """A's arrays: its CSR storage and the cached forms (a FILL_NNZ leaves them in place)."""
    arrays = [A._indptr, A._indices, A._values]
    for v in A._cache.values():
        arrays += list(v) if isinstance(v, tuple) else [v]
    return [a for a in arrays if isinstance(a, xp.ndarray)]


def _adopt(A, indptr, indices, values, nrows, ncols, dtype):
    """A's content becomes the CSR arrays (validated; shared when they can be)."""
    Matrix = type(A)  # (this module sits below matrix.py: the class comes with A)

    ncols = A.ncols if ncols is None else ncols
    M = Matrix.from_csr(indptr, indices, values, ncols=ncols, dtype=dtype)
    if nrows is not None and check_dim(nrows, "nrows") != M.nrows:
        raise InvalidValue(f"nrows = {nrows} but the offsets have length {M.nrows + 1}")
    share = (_is_buffer(indptr) and _is_buffer(indices) and indptr.dtype in _INDEX_TYPES
             and indices.dtype == indptr.dtype
             and (values is None or (_is_buffer(values) and values.dtype == M.dtype.np_type)))
    if share:
        A._set(M.nrows, M.ncols, M.dtype, indptr, indices, values, M._iso if values is None else None)
        A._stage = None
    else:
        A._swap_in(M)
    return A


def get_csr(A):
    """(indptr, indices, values): A's storage itself (values materialised for an iso matrix)."""
    return A._indptr, A._indices, A._values_full()


def set_csc(A, indptr, indices, values=None, *, nrows=None, ncols=None, dtype=None):
    """A's content from CSC arrays; the CSR form is built, and the caller's arrays become A's
    cached CSC form (shared when they can be)."""
    Matrix = type(A)  # (this module sits below matrix.py: the class comes with A)

    nrows = A.nrows if nrows is None else nrows
    At = Matrix.from_csr(indptr, indices, values, ncols=nrows, dtype=dtype)  # validates, as Aᵀ
    if ncols is not None and check_dim(ncols, "ncols") != At.nrows:
        raise InvalidValue(f"ncols = {ncols} but the offsets have length {At.nrows + 1}")
    new = At._transposed()
    _, _, eid_t = At._csc()               # CSR position of A -> CSC position
    edge_id = xp.empty_like(eid_t)
    edge_id[eid_t] = xp.arange(len(eid_t), dtype=eid_t.dtype)
    share = _is_buffer(indptr) and _is_buffer(indices) and indptr.dtype in _INDEX_TYPES
    A._swap_in(new)
    colptr, rowidx = (indptr, indices) if share else (At._indptr, At._indices)
    A._caching()["csc"] = (colptr, rowidx, edge_id.astype(A._indices.dtype))
    return A


def get_csc(A):
    """(colptr, rowidx, values) of A's CSC form (built and cached on first use)."""
    colptr, rowidx, edge_id = A._csc()
    return colptr, rowidx, A._values_full()[edge_id]
