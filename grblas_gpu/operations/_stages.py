"""oneMKL's multi-stage requests, for a Matrix or a Vector output.

    FILL_NNZ      C.set_csr(indptr=rows_start) first; the operation computes its whole
                  result R = (C⟨M, replace⟩ = accum(C, T)) aside, writes R's row offsets into
                  rows_start and makes C.nvals report R's count. C's content is unchanged.
    FILL_ENTRIES  C.set_csr(rows_start, col_indx, values) with buffers of that size first;
                  the operation (same arguments) copies R's indices and values into them and
                  C's content becomes R, stored in the caller's three arrays.

A Vector output takes no offsets buffer: FILL_NNZ makes w.nvals report R's count, and
FILL_ENTRIES follows w.set_sparse(indices, values) or w.set_dense(values) with buffers of
that size.

Misuse raises InvalidValue and changes nothing: FILL_NNZ without an offsets buffer,
FILL_ENTRIES without a FILL_NNZ before it or without entry buffers, buffers of the wrong
size or type, read-only or overlapping one another (checked as they are attached,
grblas_gpu._buffers), buffers overlapping an operand's storage, the output's included
(checked by each request, :func:`check_buffers`, before anything is computed or written),
offsets changed in between, or operands changed in between: a fingerprint of
every operand (identity, shape, type, and a position-weighted checksum of its arrays, so
in-place edits count) and of the operator arguments is kept at FILL_NNZ and compared.
R is kept between the stages (memory: one copy of the result).
"""
import numpy as np

from .. import _buffers, backend
from ..errors import InvalidValue
from ..mask import Mask
from ..matrix import Matrix
from ..types import cast
from ..vector import Vector
from .writeback import allows_nothing, write_back

xp = backend.xp

__all__ = ["fingerprint", "check_buffers", "offsets_buffer", "fill_nnz", "check_entries",
           "fill_entries"]

_VIEW = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def _checksum(a):
    if a is None or len(a) == 0:
        return None if a is None else 0
    ints = a.view(_VIEW[a.dtype.itemsize]).astype(np.int64)
    weights = xp.arange(len(a), dtype=np.int64) % 1021 + 1
    return int(backend.to_scalar((ints * weights).sum()))


def _print_of(x):
    if x is None:
        return None
    if isinstance(x, Mask):
        if allows_nothing(x):  # C⟨!NULL⟩'s empty mask is a new object at every call
            return ("mask", "nothing")
        return ("mask", x.structure, x.complement, _print_of(x.parent))
    if isinstance(x, Matrix):
        return ("matrix", id(x), x.shape, x.dtype.name, len(x._indices), repr(x._iso),
                _checksum(x._indptr), _checksum(x._indices), _checksum(x._values))
    if isinstance(x, Vector):  # its content, not nvals (which a pending stage redefines)
        idx, vals = x._sparse()
        return ("vector", id(x), x.size, x.dtype.name, repr(x._iso), _checksum(idx),
                _checksum(vals))
    return ("other", id(x), getattr(x, "shape", None), getattr(x, "nvals", None))


def fingerprint(operands, params):
    """What must not change between FILL_NNZ and FILL_ENTRIES."""
    return (repr(params), tuple(_print_of(o) for o in operands))


# the caller's buffers a pending request may hold, by their key in ``_stage``
_BUFFERS = {"indptr": "the row offsets buffer", "indices": "the indices buffer",
            "values": "the values buffer", "dense": "the dense values buffer"}


def _arrays_of(x):
    if isinstance(x, Mask):
        return _arrays_of(x.parent)
    if isinstance(x, Matrix):
        return _buffers._storage(x)
    if isinstance(x, Vector):
        return x._storage_arrays()
    return []


def check_buffers(C, operands):
    """InvalidValue unless the buffers attached to C share no memory with an operand's
    storage (C's own included) or with the pending result's: results written into them
    would change an input, or be read back half overwritten."""
    stage = C._stage
    if not stage:
        return
    others = [a for o in operands for a in _arrays_of(o)]
    if stage.get("result") is not None:
        others += _arrays_of(stage["result"])
    _buffers.check_disjoint({name: stage[k] for k, name in _BUFFERS.items() if k in stage},
                            others)


def offsets_buffer(C):
    """The offsets buffer attached with C.set_csr(indptr=...), or InvalidValue."""
    stage = C._stage
    if stage is None or "indptr" not in stage:
        raise InvalidValue("FILL_NNZ needs the output's row offsets buffer: call "
                           "C.set_csr(indptr=buffer) (length nrows+1) first")
    return stage["indptr"]


def fill_nnz(C, T, fp, *, mask, accum, replace, t_is_masked):
    """Stage 1: R = (C⟨mask, replace⟩ = accum(C, T)) computed aside; C.nvals reports R's
    count, and a Matrix's offsets buffer receives R's row offsets. C's content is unchanged."""
    buf = offsets_buffer(C) if isinstance(C, Matrix) else None
    R = write_back(_shadow(C), T, mask=mask, accum=accum, replace=replace,
                   t_is_masked=t_is_masked)
    if buf is None:
        C._stage = {"result": R, "nvals": int(len(R._sparse()[0])), "fingerprint": fp}
        return C
    if len(R._indices) > np.iinfo(buf.dtype).max:
        raise InvalidValue(f"the result has {len(R._indices)} entries: too many for "
                           f"{buf.dtype} offsets; attach an int64 buffer")
    buf[...] = R._indptr.astype(buf.dtype)
    C._stage = {"indptr": buf, "result": R, "nvals": int(len(R._indices)), "fingerprint": fp}
    return C


def _shadow(C):
    """A stand-in holding C's content, written in C's place."""
    if isinstance(C, Matrix):
        return Matrix._from_csr(*C.shape, C.dtype, C._indptr, C._indices, C._values, C._iso)
    shadow = Vector.__new__(Vector)
    shadow._swap_in(C)
    return shadow


def check_entries(C, fp):
    """Stage 2's preconditions, all checked before anything is written."""
    stage = C._stage
    if stage is None or "result" not in stage:
        raise InvalidValue("FILL_ENTRIES needs a FILL_NNZ on this output first")
    if isinstance(C, Vector):
        if stage["fingerprint"] != fp:
            raise InvalidValue("the operands or arguments changed between FILL_NNZ and "
                               "FILL_ENTRIES")
        if "indices" not in stage and "dense" not in stage:
            raise InvalidValue("FILL_ENTRIES needs the output buffers: call w.set_sparse("
                               "indices, values) with arrays of w.nvals entries, or "
                               "w.set_dense(values)")
        return
    if "indices" not in stage:
        raise InvalidValue("FILL_ENTRIES needs the entry buffers: call "
                           "C.set_csr(indptr, indices, values) with arrays of C.nvals entries")
    if stage["fingerprint"] != fp:
        raise InvalidValue("the operands or arguments changed between FILL_NNZ and FILL_ENTRIES")
    R = stage["result"]
    n = stage["nvals"]
    if len(stage["indices"]) != n or len(stage["values"]) != n:
        raise InvalidValue(f"the entry buffers must have {n} entries")
    if not bool(backend.to_scalar((stage["indptr"] == R._indptr).all())):
        raise InvalidValue("the row offsets buffer changed between FILL_NNZ and FILL_ENTRIES")


def fill_entries(C, fp):
    """Stage 2: R copied into the caller's buffers (every check first); C's storage becomes
    those arrays."""
    check_entries(C, fp)
    stage = C._stage
    R = stage["result"]
    if isinstance(C, Vector):
        idx, _ = R._sparse()
        vals = cast(R._values_full(), C.dtype, xp)
        if "dense" in stage:
            buf = stage["dense"]
            dense = xp.zeros(C.size, dtype=C.dtype.np_type)
            dense[idx] = vals
            bitmap = xp.zeros(C.size, dtype=bool)
            bitmap[idx] = True
            buf[...] = dense
            C._set(C.size, C.dtype, sp=None, dn=(buf, bitmap), nvals=len(idx))
            return C
        ind, val = stage["indices"], stage["values"]
        ind[...] = idx.astype(ind.dtype)
        val[...] = vals
        C._set(C.size, C.dtype, sp=(ind, val), dn=None, nvals=len(idx))
        return C
    ind, val = stage["indices"], stage["values"]
    ind[...] = R._indices.astype(ind.dtype)
    val[...] = cast(R._values_full(), C.dtype, xp)
    C._set(R.nrows, R.ncols, C.dtype, stage["indptr"], ind, val, None)
    C._stage = None
    return C
