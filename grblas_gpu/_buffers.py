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
"""
import numpy as np

from . import backend
from ._validate import check_dim
from .errors import InvalidValue
from .types import lookup_dtype

xp = backend.xp

__all__ = ["set_csr", "get_csr", "set_csc", "get_csc"]

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


def _check_buffer(a, what, length, dtypes):
    if not _is_buffer(a):
        raise InvalidValue(f"{what} must be a contiguous 1-D {backend.name} array "
                           f"(results are written into it), got {type(a).__name__}")
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
    from .matrix import Matrix

    nrows = A.nrows if nrows is None else check_dim(nrows, "nrows")
    ncols = A.ncols if ncols is None else check_dim(ncols, "ncols")
    dt = A.dtype if dtype is None else lookup_dtype(dtype)
    _check_buffer(buf, "the row offsets buffer", nrows + 1, _INDEX_TYPES)
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
    stage["indices"], stage["values"] = indices, values
    return A


def _adopt(A, indptr, indices, values, nrows, ncols, dtype):
    """A's content becomes the CSR arrays (validated; shared when they can be)."""
    from .matrix import Matrix

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
    from .matrix import Matrix

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
