"""mxm: C⟨M, replace⟩ = accum(C, A ⊕.⊗ B), as GrB_mxm (C API 2.x) and oneMKL's mkl_graph_mxm.

    A' = A or Aᵀ, B' = B or Bᵀ       (descriptor transpose fields, or A.T / B.T views)
    A', B' structure-only on request  (every value taken as 1)
    T(i,j) = ⊕_k A'(i,k) ⊗ B'(k,j)    over the k where both have an entry; A' and B' cast to
                                      the semiring's input type, T in the monoid's type
    C⟨M, replace⟩ = accum(C, T)        operations.writeback.write_back

Methods (``method=``, oneMKL's names):
    DOT        T⟨M⟩ by masked dot products: only the mask's entries are computed, each the
               intersection of A'(i,:) and B'(:,j) (kernels.masked_dot). Needs a mask that is
               not complemented; otherwise it raises NotSupported (oneMKL's status for an
               unsupported combination): an explicit method is never silently replaced.
    GUSTAVSON  row-wise saxpy; heavy rows in dense accumulators (kernels.spgemm).
    HASH       row-wise saxpy; heavy rows in hash tables.
    AUTO       :func:`choose_narrow` for a narrow B' (below), else :func:`choose_method`.
All methods give the same T (ANY: the same structure; values may be any candidate).

AUTO also has a strategy of its own for a B' of at most NARROW_MAX_COLS columns (no Method
value: neither oneMKL nor SuiteSparse names it; SuiteSparse's nearest is dot2 with a bitmap
B): B' scattered into a dense k-wide form, each row of A' walked once with k accumulators
(kernels.narrow). It computes only what the mask allows, a complemented mask included (a
row whose k columns are all masked is skipped), so T is masked; the write-back as always.

Requests (``request=``): COMPUTE_ALL, or FILL_NNZ then FILL_ENTRIES (operations._stages).

Memory: the products per row (flops) are counted before anything is allocated, the exact
output size after the symbolic phase; a product that cannot fit raises AllocFailed, as do
the allocator's own failures, and C is left unchanged.

Known limits: keep_mask_structure (oneMKL) adds an explicit zero at every mask entry where
T has none; it applies only with a mask that is not complemented (ignored otherwise).
"""
import logging

import numpy as np

from .. import backend, operators
from .._validate import index_dtype
from ..descriptor import Method, Request, _enum_of
from ..errors import DimensionMismatch, InvalidValue, NotSupported
from .. import memory
from ..kernels import masked_dot, narrow
from ..kernels.compact import compact
from ..kernels.operands import Compressed
from ..kernels.spgemm import row_flops, spgemm
from ..kernels.structured import SHAPE_KEYS, structured_product
from ..matrix import Matrix
from ..transposed import TransposedMatrix
from ..types import cast, cast_scalar
from ..vector import Vector
from . import _stages
from ._common import check_kind, check_output_shape, output_args, unwrap_transpose
from .writeback import allows_nothing, write_back

xp = backend.xp
log = logging.getLogger("grblas_gpu.mxm")

__all__ = ["mxm"]

# ---- AUTO's choice (choose_method)
# DOT when its work, Σ over allowed mask entries (i,j) of min(|A'(i,:)|, |B'(:,j)|) (each
# index of the shorter list looked up in the longer), is at most DOT_WORK_RATIO times the
# saxpy flops Σ_i flops(i): a lookup and a product folded into a hash table cost about the
# same, and saxpy also writes (then discards) every entry of T outside the mask.
DOT_WORK_RATIO = 1.0
# A row is heavy when it may have more entries than the largest shared-memory table holds
# (kernels.spgemm_cuda.SHARED_BINS: 2048 slots at load 1/2).
HEAVY_ROW = 1024
# GUSTAVSON scans a dense accumulator of ncols per heavy row: worth it when the heavy rows
# fill at least this fraction of it on average; HASH otherwise.
GUSTAVSON_MIN_FILL = 1 / 16
# NARROW (kernels.narrow) for a B' of at most this many columns: its work, Σ over the rows
# it visits of |A'(i,:)|, is at most one pass over A', which any saxpy also makes (its flop
# count alone reads every entry of A'), so without an allowed mask it is chosen outright and
# the flops are never counted. With one (rows visited: the mask's), against DOT's work: a
# row walked once with a lookup a step, against up to k intersections of binary searches.
NARROW_MAX_COLS = narrow.MAX_COLS
NARROW_DOT_RATIO = 2.0
NARROW = "NARROW"   # AUTO's choice, not a Method

last_plan = {}  # the last call's choice and estimates (for tracing and benchmarks)
trace = None    # optional callable(operation: str, plan: dict), as operations.mxv.trace


def mxm(C, A, B, semiring="plus_times", *, mask=None, accum=None, desc=None,
        request=Request.COMPUTE_ALL, method=Method.AUTO):
    """C⟨mask, replace⟩ = accum(C, A' ⊕.⊗ B'). Writes into C and returns it."""
    # ---- validate everything before changing anything
    check_kind(C, Matrix, "output C")
    A, ta = unwrap_transpose(A)
    B, tb = unwrap_transpose(B)
    check_kind(A, Matrix, "A")
    check_kind(B, Matrix, "B")
    request, method = _enum_of(Request, request), _enum_of(Method, method)
    typed = operators.semiring(semiring, A.dtype, B.dtype)
    mask, acc, desc = output_args(C, mask, accum, desc, typed.monoid.type)
    ta, tb = ta != desc.transpose_first, tb != desc.transpose_second
    m, k1 = (A.ncols, A.nrows) if ta else A.shape
    k2, n = (B.ncols, B.nrows) if tb else B.shape
    if k1 != k2:
        raise DimensionMismatch(f"inner dimensions differ: A' is {m}x{k1}, B' is {k2}x{n}")
    check_output_shape(C, (m, n))
    usable_mask = mask is not None and not mask.complement
    if method is Method.DOT and not usable_mask:
        raise NotSupported("Method.DOT computes only the entries of a mask: it needs a mask "
                           "that is not complemented (use AUTO, GUSTAVSON or HASH)")
    fp = None
    if request is not Request.COMPUTE_ALL:
        fp = _stages.fingerprint((C, A, B, mask), (typed, acc, desc, ta, tb))
        _stages.check_buffers(C, (C, A, B, mask))
        if request is Request.FILL_ENTRIES:
            with memory.oom_guard("mxm FILL_ENTRIES"):
                return _stages.fill_entries(C, fp)
        _stages.offsets_buffer(C)

    # ---- compute T
    with memory.oom_guard("mxm"):
        if allows_nothing(mask):  # C⟨!NULL⟩: nothing to compute
            T, t_is_masked = Matrix(typed.monoid.type, m, n), True
        else:
            T, t_is_masked = _product(A, ta, B, tb, typed, mask, desc, method, (m, n))
        if request is Request.FILL_NNZ:
            return _stages.fill_nnz(C, T, fp, mask=mask, accum=acc, replace=desc.replace,
                                    t_is_masked=t_is_masked)
        return write_back(C, T, mask=mask, accum=acc, replace=desc.replace,
                          t_is_masked=t_is_masked)


# ---------------------------------------------------------------- the product
def _product(A, ta, B, tb, typed, mask, desc, method, shape):
    """(T, t_is_masked). mask: the operation's mask (complemented or not) or None."""
    mult, mon = typed.multiply, typed.monoid
    x = mult.type
    excluded = mask if mask is not None and mask.complement else None
    mask = mask if mask is not None and not mask.complement else None   # an allowed mask
    a = _operand(A, ta, desc.structure_first, x)            # rows of A'
    b = structured = None
    if mask is None and method is not Method.DOT:
        # A' of at most one entry per row, or a diagonal B': gathered or scaled, every method
        # alike, so neither the flops nor the method are needed
        b = _operand(B, tb, desc.structure_second, x)        # rows of B'
        structured = structured_product(a, b, mult, mon)
    entries = _mask_entries(mask) if mask is not None else None
    keep = desc.keep_mask_structure and mask is not None
    # (not ANY: its narrow kernel with a valued ⊗ (first, second) fails ptxas's register
    # allocation under CUDA 13; ANY products keep the other methods)
    narrow_ok = (method is Method.AUTO and 0 < shape[1] <= NARROW_MAX_COLS and not keep
                 and not mon.op.all_terminal)
    if structured is not None:
        chosen, plan, flops = method, {"kernel": structured[0]}, None
    elif method is Method.DOT:   # chosen by the caller: no flops to estimate
        chosen, plan, flops = Method.DOT, {"mask_entries": int(len(entries[0]))}, None
    else:
        chosen, plan, flops = (None, {}, None)
        if narrow_ok:
            chosen, plan = choose_narrow(a, B, tb, entries)
        if chosen is None:
            flops = row_flops(a, _lengths(B, tb))            # Σ |B'(k,:)| over A'(i,:)
            chosen, more = choose_method(method, a, B, tb, flops, entries, shape[1],
                                         dot_work=plan.get("dot_work"))
            plan.update(more)
    last_plan.clear()
    last_plan.update(plan, method=getattr(chosen, "name", chosen))
    log.debug("mxm %s: %s", typed, last_plan)
    if trace is not None:
        trace("mxm", dict(last_plan))
    if chosen == NARROW:
        if b is None:
            b = _operand(B, tb, desc.structure_second, x)
        if excluded is not None:   # the entries a complemented mask holds are the excluded
            entries = (None, *_mask_columns(excluded))
        indptr, idx, vals = narrow.narrow(a, b, shape[1], mult, mon, entries,
                                          complement=excluded is not None)
        itype = index_dtype(shape[0], shape[1], len(idx))
        return Matrix._from_csr(*shape, mon.type, indptr.astype(itype, copy=False),
                                idx.astype(itype, copy=False), vals), True
    if chosen is Method.DOT:
        mi, mj, mptr = entries
        bcols = _operand(B, not tb, desc.structure_second, x)   # columns of B'
        present, vals = masked_dot.dot(a, bcols, mi, mj, mult, mon)
        if keep:   # every mask entry, an explicit 0 where the intersection is empty
            itype = index_dtype(shape[0], shape[1], len(mj))
            return Matrix._from_csr(*shape, mon.type, mptr.astype(itype), mj.astype(itype),
                                    xp.where(present, vals, mon.type.np_type.type(0))), True
        return _present_entries(shape, mon.type, entries, present, vals), True
    if b is None:   # a masked saxpy: the structured forms are tried here (mask in write-back)
        b = _operand(B, tb, desc.structure_second, x)
        structured = structured_product(a, b, mult, mon)
    if structured is not None:
        indptr, idx, vals = structured[1]
    else:
        indptr, idx, vals = spgemm(a, b, shape[1], mult, mon, method=chosen.name.lower(),
                                   flops=flops)
    T = Matrix._from_csr(*shape, mon.type, indptr, idx, vals)
    if keep:
        return _with_mask_structure(T, entries, mon.type), True
    return T, False


def choose_narrow(a, B, tb, entries):
    """(NARROW or None, plan dict) for a B' of at most NARROW_MAX_COLS columns: NARROW unless
    an allowed mask makes DOT's work less than its own by NARROW_DOT_RATIO (then None, the
    plan holding dot_work for choose_method)."""
    if entries is None:
        return NARROW, {}
    mi, mj, mptr = entries
    if len(mi) == 0:
        return NARROW, {"mask_entries": 0, "narrow_work": 0, "dot_work": 0}
    # Σ |A'(i,:)| over the mask's rows, and Σ min(|A'(i,:)|, |B'(:,j)|) over its entries:
    # one read for both
    narrow_work = xp.where(mptr[1:] > mptr[:-1], a.lengths.astype(np.int64), 0).sum()
    both = xp.stack([narrow_work, _dot_work(a, B, tb, mi, mj)])
    nwork, dwork = (int(v) for v in backend.to_host(both))
    plan = {"mask_entries": int(len(mi)), "narrow_work": nwork, "dot_work": dwork}
    return (NARROW if nwork <= NARROW_DOT_RATIO * dwork else None), plan


def choose_method(method, a, B, tb, flops, entries, ncols, dot_work=None):
    """(Method, plan dict). AUTO: DOT when a usable mask makes the dot work cheap (see
    DOT_WORK_RATIO), else GUSTAVSON when the heavy rows fill their dense accumulators well
    enough (GUSTAVSON_MIN_FILL), else HASH. ``dot_work``: the dot work when already known."""
    total = int(backend.to_scalar(flops.sum())) if len(flops) else 0
    plan = {"flops": total}
    if entries is not None:
        mi, mj, _ = entries
        work = dot_work
        if work is None:
            work = int(backend.to_scalar(_dot_work(a, B, tb, mi, mj))) if len(mi) else 0
        plan.update(mask_entries=int(len(mi)), dot_work=work)
        if method is Method.AUTO and work <= DOT_WORK_RATIO * total:
            return Method.DOT, plan
    if method is not Method.AUTO:
        return method, plan
    u = xp.minimum(flops, ncols)
    heavy = u[u > HEAVY_ROW]
    plan["heavy_rows"] = int(len(heavy))
    if len(heavy) and float(backend.to_scalar(heavy.mean())) >= GUSTAVSON_MIN_FILL * ncols:
        return Method.GUSTAVSON, plan
    return Method.HASH, plan


# ---------------------------------------------------------------- operands
def _operand(M, transpose, structure, x):
    """Rows of M (or of Mᵀ: M's cached CSC) with values cast to x; iso when structure-only."""
    if transpose:
        ptr, idx, eid = M._csc()
        vals = None if M._values is None else M._values[eid]
    else:
        ptr, idx, vals = M._csr()
    if structure:
        vals, iso = None, 1
    else:
        iso = M._iso if vals is None else 0
    vals = None if vals is None else cast(vals, x, xp)
    return Compressed(ptr, idx, vals, cast_scalar(iso, x), x,
                      shape_memo=(M, SHAPE_KEYS[bool(transpose)]))


def _lengths(M, transpose):
    """Entries per row of M (transpose=False) or per column (True), without building CSC."""
    if not transpose:
        return M._indptr[1:] - M._indptr[:-1]
    if "csc" in M._cache:
        colptr = M._csc()[0]
        return colptr[1:] - colptr[:-1]
    return xp.bincount(M._indices, minlength=M.ncols)


def _mask_entries(mask):
    """(rows, cols, ptr) of the entries a (not complemented) mask allows, in row-major order;
    row i's entries are [ptr[i], ptr[i+1])."""
    M = mask.parent
    rows, cols, ptr = M._rows(), M._indices, M._indptr
    if mask.structure or (M._values is None and bool(M._iso)):
        return rows, cols, ptr
    if M._values is None:
        return rows[:0], cols[:0], xp.zeros_like(ptr)
    ptr, (rows, cols) = compact(ptr, M._values != 0, [rows, cols])
    return rows, cols, ptr


def _dot_work(a, B, tb, mi, mj):
    """DOT's work on the device (int64, 0-d): Σ over the mask entries (i, j) of
    min(|A'(i,:)|, |B'(:,j)|), the shorter list's lookups in the longer."""
    return xp.minimum(a.lengths[mi], _lengths(B, not tb)[mj]).astype(np.int64).sum()


def _mask_columns(mask):
    """(cols, ptr) of the entries a mask's parent holds as true (its structure, or its
    nonzero values), row i's in [ptr[i], ptr[i+1]); the complement flag is not read."""
    M = mask.parent
    if mask.structure or (M._values is None and bool(M._iso)):
        return M._indices, M._indptr
    if M._values is None:
        return M._indices[:0], xp.zeros_like(M._indptr)
    ptr, (cols,) = compact(M._indptr, M._values != 0, [M._indices])
    return cols, ptr


def _from_entries(shape, dtype, rows, cols, vals):
    itype = index_dtype(shape[0], shape[1], len(cols))
    indptr = xp.searchsorted(rows, xp.arange(shape[0] + 1), side="left").astype(itype)
    return Matrix._from_csr(*shape, dtype, indptr, cols, vals)


def _present_entries(shape, dtype, entries, present, vals):
    """T from the mask entries (rows, cols, ptr) that ``present`` keeps: one compaction, the
    row pointers from a running count of the kept entries."""
    _, mj, mptr = entries
    indptr, (cols, vals) = compact(mptr, present, [mj, vals])
    itype = index_dtype(shape[0], shape[1], len(cols))
    return Matrix._from_csr(*shape, dtype, indptr.astype(itype), cols, vals)


def _with_mask_structure(T, entries, z):
    """T restricted to the mask's entries, with an explicit 0 where T has none there."""
    mi, mj = (e.astype(np.int64) for e in entries[:2])
    n = T.ncols
    tkeys = T._rows().astype(np.int64) * n + T._indices.astype(np.int64)
    mkeys = mi * n + mj
    pos = xp.minimum(xp.searchsorted(tkeys, mkeys), max(len(tkeys) - 1, 0))
    hit = (tkeys[pos] == mkeys) if len(tkeys) else xp.zeros(len(mkeys), dtype=bool)
    vals = xp.where(hit, T._values_full()[pos] if len(tkeys) else 0, z.np_type.type(0))
    return _from_entries(T.shape, z, mi, mj, vals.astype(z.np_type))


# ---------------------------------------------------------------- method forms
def mxm_method(self, other, semiring="plus_times", *, mask=None, accum=None, desc=None,
                method=Method.AUTO):
    """A.mxm(B, semiring): a new Matrix T = A ⊕.⊗ B in the semiring's output type."""
    A, ta = unwrap_transpose(self)
    B, tb = unwrap_transpose(other)
    check_kind(B, Matrix, "B")
    typed = operators.semiring(semiring, A.dtype, B.dtype)
    from ..descriptor import as_descriptor

    d = as_descriptor(desc)
    m = A.ncols if ta != d.transpose_first else A.nrows
    n = B.nrows if tb != d.transpose_second else B.ncols
    C = Matrix(typed.monoid.type, m, n)
    return mxm(C, self, other, semiring, mask=mask, accum=accum, desc=desc, method=method)


def matmul(self, other):
    """A @ B = A.mxm(B, plus_times); A @ u goes to mxv (operations.mxv)."""
    if isinstance(other, Vector):
        from .mxv import mxv  # the function: the package's name mxv is the function too

        typed = operators.semiring("plus_times", self.dtype, other.dtype)
        w = Vector(typed.monoid.type, self.nrows)
        return mxv(w, self, other, "plus_times")
    if isinstance(other, (Matrix, TransposedMatrix)):
        return mxm_method(self, other, "plus_times")
    # not NotImplemented: Python would turn that into a raw TypeError
    raise InvalidValue(f"A @ x needs a Matrix or a Vector x, got {type(other).__name__}")
