"""Containers to and from other array libraries: scipy.sparse (cupyx.scipy.sparse on the
GPU), DLPack and NumPy's ``__array__`` protocol.

Matrix and Vector call these from their methods; the functions take the class or the object
and import no container (the containers import this module).

* scipy: out as the modern ``csr_array`` (a Vector as one 1 x n row, as python-graphblas's
  ``to_scipy_sparse``); in from any format, arrays and matrices alike (a Vector also from
  an n x 1 column or scipy's 1-D ``coo_array``). ``device=True`` keeps the arrays where
  they are: the storage itself under NumPy, a ``cupyx.scipy.sparse.csr_matrix`` over the
  device storage under CuPy (cupyx has no sparse arrays, and holds only bool and float
  values with int32 indices).
* DLPack and ``__array__`` export a full object's dense values and refuse one with missing
  entries (there is no fill value to invent; ``to_dense(fill)`` and ``to_coo(device=True)``
  give the arrays, which support DLPack themselves).
"""
import numpy as np

from . import backend
from ._validate import INT32_MAX, as_flag
from .errors import DimensionMismatch, DomainMismatch, InvalidValue, NotSupported, TypeNotSupported

xp = backend.xp

__all__ = ["from_scipy_matrix", "from_scipy_vector", "csr_export", "dense_export",
           "dlpack_export", "dlpack_device", "from_dlpack_vector"]


def _is_cupyx(S):
    return type(S).__module__.startswith("cupyx.")


def _sparse_input(S, ndims, what):
    """S itself where the backend reads it without a copy; a cupyx input on the host."""
    if not (hasattr(S, "tocoo") and getattr(S, "ndim", None) in ndims
            and hasattr(S, "shape") and hasattr(S, "dtype")):
        raise InvalidValue(f"{what} needs a scipy.sparse (or cupyx.scipy.sparse) array or "
                           f"matrix, got {type(S).__name__}")
    if _is_cupyx(S) and not backend.is_gpu:
        S = S.get()
    return S


def from_scipy_matrix(cls, S, dtype, dup_op):
    """A Matrix from a 2-D scipy / cupyx sparse array or matrix of any format."""
    S = _sparse_input(S, (2,), "Matrix.from_scipy")
    nrows, ncols = S.shape
    if S.format == "csr" and getattr(S, "has_canonical_format", False):
        # sorted, no duplicates: read as CSR (no sort; dup_op has nothing to combine)
        return cls.from_csr(S.indptr, S.indices, S.data, ncols=ncols, dtype=dtype)
    coo = S.tocoo()
    return cls.from_coo(coo.row, coo.col, coo.data, nrows=nrows, ncols=ncols, dtype=dtype,
                        dup_op=dup_op)


def from_scipy_vector(cls, S, dtype, dup_op):
    """A Vector from a 1 x n or n x 1 sparse array or matrix, or scipy's 1-D coo_array."""
    S = _sparse_input(S, (1, 2), "Vector.from_scipy")
    coo = S.tocoo()
    if S.ndim == 1:
        size, idx = S.shape[0], coo.coords[0]
    elif S.shape[0] == 1:
        size, idx = S.shape[1], coo.col
    elif S.shape[1] == 1:
        size, idx = S.shape[0], coo.row
    else:
        raise DimensionMismatch(f"Vector.from_scipy needs one row or one column, got shape "
                                f"{S.shape}")
    return cls.from_coo(idx, coo.data, size=size, dtype=dtype, dup_op=dup_op)


def csr_export(indptr, indices, values, shape, device):
    """A scipy ``csr_array`` of host copies; with ``device``, over the storage (NumPy) or a
    ``cupyx.scipy.sparse.csr_matrix`` over the device storage (CuPy)."""
    if not (device and backend.is_gpu):
        import scipy.sparse as sp

        if not device:
            indptr, indices, values = (backend.host_copy(a) for a in (indptr, indices, values))
        return sp.csr_array((values, indices, indptr), shape=shape)
    import cupyx.scipy.sparse as csp

    if values.dtype.kind not in "bf":
        raise TypeNotSupported(f"cupyx.scipy.sparse holds bool and float values, not "
                               f"{values.dtype}: convert with dup(dtype='FP64') first")
    if len(indices) > INT32_MAX or max(shape) > INT32_MAX:
        raise NotSupported("cupyx.scipy.sparse has int32 indices: this matrix needs int64")
    # (indices of type int32, as ours are while they fit, are taken as they are)
    return csp.csr_matrix((values, indices.astype(np.int32, copy=False),
                           indptr.astype(np.int32, copy=False)), shape=shape)


def _check_full(obj, nvals, count, what):
    if nvals != count:
        raise InvalidValue(
            f"{what}: the {type(obj).__name__} has {count - nvals} missing entries, and no "
            f"value stands for a missing entry; use to_dense(fill) (or to_coo(device=True), "
            f"whose arrays support DLPack)")


def dense_export(obj, nvals, count, dtype, copy):
    """``__array__``: the dense values of a full object as a NumPy array (a host copy under
    CuPy); missing entries refuse."""
    if copy is False:
        raise InvalidValue(f"np.asarray(copy=False): a {type(obj).__name__} is not stored as "
                           f"a dense NumPy array")
    _check_full(obj, nvals, count, "np.asarray")
    out = obj.to_dense()
    if dtype is not None:
        try:
            out = out.astype(dtype, copy=False)
        except (TypeError, ValueError) as e:
            raise DomainMismatch(f"np.asarray: dtype {dtype!r:.40}: {e}") from None
    return out


def dlpack_export(values, obj, nvals, count, stream, max_version, dl_device, copy):
    """``__dlpack__`` of a full Vector's dense values (shared, not copied)."""
    _check_full(obj, nvals, count, "__dlpack__")
    kw = {k: v for k, v in (("stream", stream), ("max_version", max_version),
                             ("dl_device", dl_device), ("copy", copy)) if v is not None}
    if copy is not None:
        as_flag(copy, "copy")
    try:
        return values.__dlpack__(**kw)
    except (TypeError, ValueError, OverflowError, BufferError, RuntimeError) as e:  # bad keyword
        raise InvalidValue(f"__dlpack__: {backend.name} refuses {kw} ({e})") from None


def dlpack_device(a):
    return a.__dlpack_device__()


def _host_to_device(x):
    """A host array under CuPy, which reads DLPack only from device memory, becomes a device
    copy (as ``cupy.asarray`` would make); anything else is read as it is."""
    if not backend.is_gpu:
        return x
    try:
        on_host = x.__dlpack_device__()[0] == 1   # kDLCPU
    except Exception:
        return x   # let from_dlpack say what is wrong
    return xp.asarray(np.from_dlpack(x)) if on_host else x


def from_dlpack_vector(cls, x, dtype):
    """A full Vector over a 1-D DLPack-exporting array (adopted without a copy where its
    type is the vector's: the caller must not write into it afterwards)."""
    if not hasattr(x, "__dlpack__"):
        raise InvalidValue(f"Vector.from_dlpack needs an object with __dlpack__, got "
                           f"{type(x).__name__}")
    try:
        a = xp.from_dlpack(_host_to_device(x))
    except (BufferError, TypeError, ValueError, RuntimeError) as e:
        raise InvalidValue(f"Vector.from_dlpack: {backend.name} cannot read this array "
                           f"({e})") from None
    if a.ndim != 1:
        raise InvalidValue(f"Vector.from_dlpack needs a 1-D array, got shape {a.shape}")
    v = cls.from_dense(a[:0], dtype=dtype)  # checks the type (cheaply) and resolves dtype
    if a.dtype == v.dtype.np_type and a.flags.c_contiguous:
        return cls._from_dense(len(a), v.dtype, a, xp.ones(len(a), dtype=bool), len(a))
    return cls.from_dense(a, dtype=v.dtype)
