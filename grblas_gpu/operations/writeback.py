"""The one write-back: C⟨M, replace⟩ = accum(C, T), as the GraphBLAS C API defines it.

Every operation computes its result T as a new object and ends here. In the spec's terms:

    Z = accum(C, T)   (union: accum where both have an entry, else whichever has one;
                       without accum, Z = T)
    C⟨M⟩ = Z          (inside the mask: Z's entries; outside: C's old entries kept,
                       or deleted with replace)

Z is built in C's type, as SuiteSparse builds it. The new content is assembled in new
arrays and swapped into C last, so C is untouched if anything raises, and C may alias any
input. The one exception: a Vector with fixed storage (Vector._fixed_out: arrays it alone
holds) gets a dense result in it, by one elementwise kernel launched after every check,
in place where C holds it (writing only the elements that change). Vectors with a dense
form go through an elementwise bitmap path (no sorting; one fused kernel on the GPU);
everything else merges sorted keys. Under a mask or an accumulator a dense result is built
in new arrays (or C's fixed storage), never from T's own: T may hold an input's arrays.
"""

import numpy as np

from .. import backend
from ..errors import DimensionMismatch, DomainMismatch
from ..kernels.elementwise import dense_scatter, dense_write
from ..operators import y_domain
from ..types import cast
from ..vector import Vector
from ._keys import (build_like as _build_like, entries as _entries, linear_keys as _linear_keys,
                    member as _member, sorted_concat as _sorted_concat)

xp = backend.xp

__all__ = ["write_back", "check_mask_shape", "allows_nothing", "dense_pays"]


def check_mask_shape(C, mask):
    """Raise unless the mask's object is the same kind and shape as C."""
    if mask is None:
        return
    M = mask.parent
    if type(M) is not type(C) or M.shape != C.shape:
        raise DimensionMismatch(f"mask {getattr(M, 'shape', None)} does not match output {C.shape}")


def write_back(C, T, *, mask=None, accum=None, replace=False, t_is_masked=False):
    """C⟨mask, replace⟩ = accum(C, T). ``accum``: a typed binary op (semirings.Typed) or None.
    ``t_is_masked``: T already holds entries only where the mask allows."""
    if T.shape != C.shape or type(T) is not type(C):
        raise DimensionMismatch(f"result {T.shape} does not match output {C.shape}")
    check_mask_shape(C, mask)
    if allows_nothing(mask):
        # C⟨M⟩ with M allowing nothing (C⟨!NULL⟩): no write, accum included; replace clears C
        if replace and not _stores_nothing(C):
            C._swap_in(type(C)(C.dtype, *C.shape))
        return C
    if mask is None or (t_is_masked and accum is None and replace):
        if accum is None:
            C._swap_in(_keeping_fixed_bitmap(C, T._cast_to(C.dtype)))
            return C
    if isinstance(C, Vector) and (T.has_dense or C.has_dense
                                  or (mask is not None and mask.parent.has_dense)
                                  or dense_pays(C, T, None if mask is None else mask.parent)):
        new = _dense_vector(C, T, mask, accum, replace)
    elif (mask is None or t_is_masked) and _stores_nothing(C):
        # nothing of C to accumulate into or to keep outside the mask: Z = T, in C's type
        new = T._cast_to(C.dtype)
    else:
        new = _merged(C, T, mask, accum, replace)
    C._swap_in(new)
    return C


# A pass over a dense vector this short costs the GPU a few µs, while merging sorted keys
# compacts by boolean masks, each reading a count back to the host (20-200 µs).
GPU_DENSE_SIZE = 1 << 24


def dense_pays(*vectors):
    """Vectors (None skipped) are better worked in their dense forms than merged as sorted
    keys: on the GPU when short (GPU_DENSE_SIZE), else (and on the host) when their entries
    are at least a sixteenth of the size."""
    size = vectors[0].size
    if backend.is_gpu and size <= GPU_DENSE_SIZE:
        return True
    return 16 * sum(v._nvals or 0 for v in vectors if v is not None) >= size


def _keeping_fixed_bitmap(C, new):
    """new, or new's values with C's fixed bitmap where C holds it and both are full (all
    true either way): a full result replaces a full Vector's values only, so a Replay
    carrying C finds its fixed bitmap still held (nothing to copy back)."""
    if (isinstance(C, Vector) and new.has_dense and new._nvals == C._nvals == C.size
            and C._holds_fixed() and new._dn[1] is not C._dn[1]):
        return Vector._from_dense(C.size, C.dtype, new._dn[0], C._dn[1], C.size)
    return new


def allows_nothing(mask):
    """The mask is known, without a device sync, to allow no output: not complemented, and
    its object holds no entry (C⟨!NULL⟩ is such a mask, mask.materialize)."""
    return mask is not None and not mask.complement and _stores_nothing(mask.parent)


def _stores_nothing(C):
    """C holds no entry (a sparse vector's or a matrix's count is known without a sync)."""
    return (C._nvals if isinstance(C, Vector) else len(C._indices)) == 0


# ---------------------------------------------------------------- dense vectors
def _dense_vector(C, T, mask, accum, replace):
    if mask is None and accum is not None and C.has_dense and not T.has_dense:
        new = _scattered(C, T, accum)
        if new is not None:
            return new
    cv, cb = C._dense_form()
    t_raw, tb = T._dense_form()
    n = C.size
    # without a mask, accumulating into or from a full vector gives a full one: a count
    # known without counting (no device sync)
    full = n if (mask is None and accum is not None and n in (C._nvals, T._nvals)) else None
    # into C's fixed storage where it has some (in place where C holds it): a Replay
    # carrying C then copies nothing back
    fused = dense_write(cv, cb, C.dtype, t_raw, tb, T.dtype, _kernel_mask(mask), accum, replace,
                        out=C._fixed_out())
    if fused is not None:
        return Vector._from_dense(n, C.dtype, *fused, full)
    tv = cast(t_raw, C.dtype, xp)
    if accum is None:
        zv, zb = tv, tb
    else:
        both = cb & tb
        acc = _apply_accum(accum, cv, t_raw, C.dtype)
        zv = xp.where(both, acc, xp.where(tb, tv, cv))
        zb = cb | tb
    if mask is None:
        return Vector._from_dense(n, C.dtype, zv, zb, full)
    m = _dense_mask(mask)
    if replace:
        return Vector._from_dense(C.size, C.dtype, zv, zb & m)
    return Vector._from_dense(C.size, C.dtype, xp.where(m, zv, cv), xp.where(m, zb, cb))


def _scattered(C, T, accum):
    """accum(C, T) for a dense C and a sparse T: only T's positions change (a BFS writing
    its frontier into the parent vector touches a few entries of a long one)."""
    cv, cb = C._dense_form()
    idx, _ = T._sparse()
    tv = T._values_full()
    full = C.size if C._nvals == C.size else None
    fused = dense_scatter(cv, cb, C.dtype, idx, tv, T.dtype, accum)
    if fused is not None:
        return Vector._from_dense(C.size, C.dtype, *fused, full)
    had = cb[idx]
    zv, zb = cv.copy(), cb.copy()
    with np.errstate(all="ignore"):  # accum also runs where C had no entry; those are dropped
        acc = _apply_accum(accum, cv[idx], tv, C.dtype)
    zv[idx] = xp.where(had, acc, cast(tv, C.dtype, xp))
    zb[idx] = True
    return Vector._from_dense(C.size, C.dtype, zv, zb, full)


def _kernel_mask(mask):
    """(values or None when structural, bitmap, complement) of the mask's dense form."""
    if mask is None:
        return None
    values, bitmap = mask.parent._dense_form()
    return (None if mask.structure else values), bitmap, mask.complement


def _dense_mask(mask):
    values, bitmap, complement = _kernel_mask(mask)
    m = bitmap if values is None else bitmap & (values != 0)
    return ~m if complement else m


# ---------------------------------------------------------------- sorted-key merge
def _merged(C, T, mask, accum, replace):
    cr, cc, cv = _entries(C)
    tr, tc, t_raw = _entries(T)
    tv = cast(t_raw, C.dtype, xp)
    parts = [(cr, cc), (tr, tc)]
    if mask is not None:
        mr, mc, mv = _entries(mask.parent)
        if not mask.structure:
            keep = mv != 0
            mr, mc = mr[keep], (None if mc is None else mc[keep])
        parts.append((mr, mc))
    keys = _linear_keys(C, parts)
    kc, kt = keys[0], keys[1]

    # Z = accum(C, T) or T
    if accum is None:
        kz, zv, zr, zc = kt, tv, tr, tc
    else:
        t_in_c, pos = _member(kt, kc)
        c_in_t, _ = _member(kc, kt)
        zv_c = cv.copy()
        hit = xp.nonzero(t_in_c)[0]
        zv_c[pos[hit]] = _apply_accum(accum, cv[pos[hit]], t_raw[hit], C.dtype)
        only_t = ~t_in_c
        kz, order = _sorted_concat(kc, kt[only_t])
        zv = xp.concatenate([zv_c, tv[only_t]])[order]
        zr = xp.concatenate([cr, tr[only_t]])[order]
        zc = None if cc is None else xp.concatenate([cc, tc[only_t]])[order]

    # C⟨M⟩ = Z
    if mask is not None:
        km = keys[2]
        z_in, _ = _member(kz, km)
        z_in = z_in != mask.complement
        parts_out = [(zr[z_in], None if zc is None else zc[z_in], zv[z_in], kz[z_in])]
        if not replace:
            c_in, _ = _member(kc, km)
            c_out = c_in == mask.complement  # outside the mask: keep C's entries
            parts_out.append((cr[c_out], None if cc is None else cc[c_out], cv[c_out], kc[c_out]))
        if len(parts_out) == 2:
            k_all, order = _sorted_concat(parts_out[0][3], parts_out[1][3])
            zr = xp.concatenate([parts_out[0][0], parts_out[1][0]])[order]
            zc = None if zc is None else xp.concatenate([parts_out[0][1], parts_out[1][1]])[order]
            zv = xp.concatenate([parts_out[0][2], parts_out[1][2]])[order]
        else:
            zr, zc, zv, _ = parts_out[0]
    return _build_like(C, zr, zc, zv)


def _apply_accum(accum, c, t, ctype):
    """accum(c, t) with both cast to the accumulator's input type, the result to C's type."""
    op, in_type = accum.op, accum.type
    if in_type not in op.types:
        raise DomainMismatch(f"accumulator {op.name} is not defined for {in_type.name}")
    # t goes to the operator's y domain (bshift's is INT8, FP64 -3.0 becoming -3 directly)
    z = op.numpy(cast(c, in_type, xp), cast(t, y_domain(accum), xp))
    return cast(xp.asarray(z), ctype, xp)
