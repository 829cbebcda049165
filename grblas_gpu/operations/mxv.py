"""mxv and vxm: the matrix-vector products (GrB_mxv, GrB_vxm; oneMKL mkl_graph_mxv/vxm).

    mxv:  w⟨m, replace⟩ = accum(w, A' ⊕.⊗ u)        T(i) = ⊕_k A'(i,k) ⊗ u(k)
    vxm:  wᵀ⟨mᵀ, replace⟩ = accum(wᵀ, uᵀ ⊕.⊗ A')    T(j) = ⊕_k u(k) ⊗ A'(k,j)

A' = A, or Aᵀ under the descriptor's transpose field for A (transpose_first in mxv,
transpose_second in vxm, as GrB_INP0/GrB_INP1 name them) or an ``A.T`` view; the
structure_* fields take an operand's values as 1. Operands are cast to the semiring's input
type, T is in its output type, and :func:`~grblas_gpu.operations.writeback.write_back` does
the rest (T holds only entries the mask allows: ``t_is_masked``).

Both are one product T = B ⊕.⊗ u, B = A' (mxv) or A'ᵀ (vxm), with ⊗'s operands in the
operation's order. Two methods compute it (LAGraph's BFS names them):

    pull  kernels.pull.pull      B by rows (A's CSR, or its cached CSC), u dense: the mask is
                                 tested before a row is read, and a row stops at ⊕'s
                                 terminal value (ANY at its first entry).
    push  kernels.spmspv.push    B by columns, u sparse: only the columns u names are read
                                 (u held as a bitmap is listed on the device, and T left a
                                 bitmap: a push then reads nothing back to the host).

:func:`choose_direction` picks one (GraphBLAST's rule, below); ``direction=`` forces it. The
choice is reported in ``last_choice`` and to ``trace`` (a callable) when set.

Requests (oneMKL multi-stage, for a Vector output):
    FILL_NNZ      compute R = (w⟨m, replace⟩ = accum(w, T)) aside; w.nvals reports R's count,
                  w's content is unchanged.
    FILL_ENTRIES  after w.set_sparse(indices, values) (or w.set_dense(values)) with buffers of
                  that size: copy R into them; w's storage becomes those arrays.
Misuse raises InvalidValue and changes nothing (no FILL_NNZ before, missing or misshapen
buffers, operands or arguments changed in between: operations._stages.fingerprint).

References: Yang, Buluç, Owens, "Implementing Push-Pull Efficiently in GraphBLAS" (ICPP
2018); Davis, "Algorithm 1000: SuiteSparse:GraphBLAS" (TOMS 2019).
"""
from typing import NamedTuple, Union

import numpy as np

from .. import backend, operators
from ..descriptor import Request, _enum_of, as_descriptor
from ..errors import DimensionMismatch, InvalidValue
from ..kernels import operands, pull_plans, spmspv
from ..kernels.common import kept
from ..kernels.pull import pull
from ..memory import oom_guard
from ..matrix import Matrix
from ..transposed import TransposedMatrix
from ..vector import Vector
from . import _stages
from ._common import check_kind, check_output_shape, output_args, unwrap_transpose
from .writeback import allows_nothing, write_back

xp = backend.xp

__all__ = ["mxv", "vxm"]

# ---- the push/pull choice (choose_direction)
# GraphBLAST switches from push (SpMSpV) to pull (masked SpMV) once u is dense enough.
# Push reads the edges of u's entries, about density(u) * nvals(B), each with an atomic and
# a scattered write; pull reads the rows the mask allows, about allowed * nvals(B), with
# neither, and may stop rows early. A pushed edge costs about PUSH_EDGE_COST pulled ones, so
# push when density(u) * PUSH_EDGE_COST < allowed (1/8 of u present, unmasked).
PUSH_EDGE_COST = 8.0


class Choice(NamedTuple):
    direction: str   # 'push' or 'pull'
    why: Union[tuple, str]  # the rule's figures, or a phrase; worded on demand (``reason``)

    @property
    def reason(self):
        if isinstance(self.why, str):
            return self.why
        density, allowed = self.why
        op = "<" if self.direction == "push" else ">="
        return (f"u density {density:.3g} x {PUSH_EDGE_COST:g} {op} allowed "
                f"fraction {allowed:.3g}")


last_choice = None  # the last mxv/vxm's Choice
trace = None        # optional callable(operation: str, choice: Choice)


def choose_direction(u_nvals, u_size, allowed_fraction):
    """'push' or 'pull' for a product with u of u_nvals entries among u_size and a mask
    allowing ``allowed_fraction`` of the outputs (1 without a mask)."""
    density = u_nvals / max(u_size, 1)
    direction = "push" if density * PUSH_EDGE_COST < allowed_fraction else "pull"
    return Choice(direction, (density, allowed_fraction))


# ---------------------------------------------------------------- public API
def mxv(w, A, u, semiring="plus_times", *, mask=None, accum=None, desc=None,
        request=Request.COMPUTE_ALL, direction=None):
    """w⟨mask, replace⟩ = accum(w, A' ⊕.⊗ u). Writes into w and returns it."""
    return _product(w, A, u, semiring, mask, accum, desc, request, direction, matrix_first=True)


def vxm(w, u, A, semiring="plus_times", *, mask=None, accum=None, desc=None,
        request=Request.COMPUTE_ALL, direction=None):
    """wᵀ⟨maskᵀ, replace⟩ = accum(wᵀ, uᵀ ⊕.⊗ A'). Writes into w and returns it."""
    return _product(w, A, u, semiring, mask, accum, desc, request, direction, matrix_first=False)


def _product(w, A, u, semiring, mask, accum, desc, request, direction, *, matrix_first):
    # ---- validate everything before changing anything
    what = "mxv" if matrix_first else "vxm"
    check_kind(w, Vector, "output w")
    A, viewed = unwrap_transpose(A)
    check_kind(A, Matrix, "A")
    check_kind(u, Vector, "u")
    request = _enum_of(Request, request)
    if direction is not None and not (isinstance(direction, str)
                                      and direction in ("auto", "push", "pull")):
        raise InvalidValue(f"direction must be 'push', 'pull', 'auto' or None, got {direction!r}")
    d = as_descriptor(desc)
    typed = (operators.semiring(semiring, A.dtype, u.dtype) if matrix_first
             else operators.semiring(semiring, u.dtype, A.dtype))
    mask, acc, d = output_args(w, mask, accum, d, typed.monoid.type)
    if matrix_first:
        transpose = viewed != d.transpose_first
        a_structure, u_structure = d.structure_first, d.structure_second
    else:
        transpose = viewed != d.transpose_second
        a_structure, u_structure = d.structure_second, d.structure_first
    # B = A' (mxv) or A'ᵀ (vxm): read A by rows for pull exactly when B is A itself
    b_is_a = transpose != matrix_first
    nrows, ncols = (A.nrows, A.ncols) if b_is_a else (A.ncols, A.nrows)
    if u.size != ncols:
        raise DimensionMismatch(f"{what}: u has size {u.size}, A' needs {ncols}")
    check_output_shape(w, (nrows,))
    fp = None
    if request is not Request.COMPUTE_ALL:
        fp = _stages.fingerprint((w, A, u, mask), (what, typed, acc, d, transpose, direction))
        _stages.check_buffers(w, (w, A, u, mask))
        if request is Request.FILL_ENTRIES:
            return _stages.fill_entries(w, fp)

    # ---- compute T
    prod = operands.Product(typed, matrix_first)
    reads_a, reads_u = prod.reads
    with oom_guard(what):
        choice = _choose(u, mask, nrows, direction)
        _report(what, choice)
        full = None  # T's count, when known without counting
        if allows_nothing(mask):  # w⟨!NULL⟩: nothing to compute
            form, a, b = "sparse", *Vector(prod.tout, nrows)._sparse()
        elif choice.direction == "pull":
            B = _compressed(A, b_is_a, a_structure, reads_a)
            U = _dense_operand(u, u_structure, reads_u)
            form, a, b = pull(B, U, prod, _dense_mask(mask, nrows),
                              plan_cache=A._caching())
            if mask is None and U.full and _no_empty_vectors(A, b_is_a):
                full = nrows
        else:
            B = _compressed(A, not b_is_a, a_structure, reads_a)
            # u held as a bitmap is pushed as one (listed on the device): no read back
            U = (_sparse_operand(u, u_structure, reads_u) if u.has_sparse
                 else _dense_operand(u, u_structure, reads_u))
            form, a, b = spmspv.push(B, U, prod, _dense_mask(mask, nrows), nout=nrows,
                                     plan_cache=A._caching())
        T = (Vector._from_dense(nrows, prod.tout, a, b, full) if form == "dense"
             else Vector._from_sparse(nrows, prod.tout, a, b))
        t_is_masked = mask is not None
        if request is Request.FILL_NNZ:
            return _stages.fill_nnz(w, T, fp, mask=mask, accum=acc, replace=d.replace,
                                    t_is_masked=t_is_masked)
        return write_back(w, T, mask=mask, accum=acc, replace=d.replace, t_is_masked=t_is_masked)


# ---------------------------------------------------------------- direction
def _choose(u, mask, nout, direction):
    """The direction, from counts already known: a bitmap result's count is not known until
    someone counts it, and counting stops the host until the device has caught up. An
    uncounted u is in bitmap form, which pull reads as it is (push would first compact it);
    an uncounted mask is taken to allow every output."""
    if direction in ("push", "pull"):
        return Choice(direction, "forced")
    if u._nvals is None:
        return Choice("pull", "u is an uncounted bitmap")
    allowed = 1.0
    if mask is not None and mask.parent._nvals is not None:
        frac = mask.parent._nvals / max(nout, 1)  # value masks may allow fewer: an estimate
        allowed = 1.0 - frac if mask.complement else frac
    return choose_direction(u._nvals, u.size, allowed)


def _report(what, choice):
    global last_choice
    last_choice = choice
    if trace is not None:
        trace(what, choice)


# ---------------------------------------------------------------- operands
def _compressed(A, by_rows, structure, reads_values):
    """A by rows (CSR) or by columns (the cached CSC, values gathered once and cached);
    values None when ⊗ ignores them, A is iso, or structure-only. Kept in A's cache (which
    any change of A empties): a few µs of host time a call."""
    return kept(A._caching(),
                ("compressed", by_rows, structure, reads_values),
                lambda: _make_compressed(A, by_rows, structure, reads_values))


def _make_compressed(A, by_rows, structure, reads_values):
    if by_rows:
        ptr, idx, vals = A._indptr, A._indices, A._values
    else:
        ptr, idx, _ = A._csc()
        vals = _csc_values(A) if (reads_values and not structure) else None
    # a full A (every position stored): an entry's index is its offset in its row or column
    width = (A.ncols if by_rows else A.nrows) if len(A._indices) == A.nrows * A.ncols else 0
    if structure:
        return operands.Compressed(ptr, idx, None, A.dtype.np_type.type(1), A.dtype, width)
    if not reads_values or vals is None:
        return operands.Compressed(ptr, idx, None, A._iso if A._is_iso else None, A.dtype, width)
    return operands.Compressed(ptr, idx, vals, None, A.dtype, width)


def _no_empty_vectors(A, by_rows):
    """Every row (by_rows) or column of A holds an entry: then a pull over a full u fills
    every output, a count known without counting T's bitmap. Counted once per structure
    (one device read, cached): iterations that feed a product's result into the next
    product (PageRank) then keep their vectors full, and pull skips the bitmap per gather."""
    key = "no_empty_rows" if by_rows else "no_empty_cols"
    known = A._cache.get(key)
    if known is None:
        ptr = A._indptr if by_rows else A._csc()[0]
        known = A._caching()[key] = backend.count_true(ptr[1:] == ptr[:-1]) == 0
    return known


def _csc_values(A):
    if A._values is None:
        return None
    vals = A._cache.get("csc_values")
    if vals is None:
        vals = A._caching()["csc_values"] = A._values[A._csc()[2]]
    return vals


def _dense_operand(u, structure, reads_values):
    values, bitmap = u._dense_form()
    full = u._nvals == u.size  # uncounted: read the bitmap rather than count it
    if structure or not reads_values:
        return operands.DenseOperand(None, bitmap, 1 if structure else None, u.dtype, full)
    return operands.DenseOperand(values, bitmap, None, u.dtype, full)


def _sparse_operand(u, structure, reads_values):
    idx, vals = u._sparse()
    if structure:
        return operands.SparseOperand(idx, None, 1, u.dtype)
    if vals is None or not reads_values:
        return operands.SparseOperand(idx, None, u._iso, u.dtype)
    return operands.SparseOperand(idx, vals, None, u.dtype)


def _dense_mask(mask, n):
    """The mask as the kernels take it: its dense form, and also the list of the outputs it
    allows when it is not complemented and at most ROWLIST_MAX_DENSITY full (pull then
    visits only those rows)."""
    if mask is None:
        return None
    M = mask.parent
    values, bitmap = M._dense_form()
    rows = None
    if not mask.complement and M.has_sparse and M.nvals <= pull_plans.ROWLIST_MAX_DENSITY * n:
        idx, vals = M._sparse()
        if not mask.structure:
            idx = idx[(vals != 0)] if vals is not None else (idx if bool(M._iso) else idx[:0])
        rows = idx.astype(np.int64)
    return operands.DenseMask(bitmap, None if mask.structure else values, mask.complement, rows)


# ---------------------------------------------------------------- method forms
def _oriented_shape(A, transpose_field, desc):
    """The shape of A' (A, or Aᵀ for an A.T view or the descriptor's transpose field)."""
    base, viewed = unwrap_transpose(A)
    t = viewed != getattr(as_descriptor(desc), transpose_field)
    return (base.ncols, base.nrows) if t else base.shape


def mxv_method(self, u, semiring="plus_times", *, mask=None, accum=None, desc=None,
                direction=None):
    """A.mxv(u, semiring): a new Vector w = A ⊕.⊗ u in the semiring's output type."""
    check_kind(u, Vector, "u")
    base, _ = unwrap_transpose(self)
    typed = operators.semiring(semiring, base.dtype, u.dtype)
    w = Vector(typed.monoid.type, _oriented_shape(self, "transpose_first", desc)[0])
    return mxv(w, self, u, semiring, mask=mask, accum=accum, desc=desc, direction=direction)


def vxm_method(self, A, semiring="plus_times", *, mask=None, accum=None, desc=None,
                direction=None):
    """u.vxm(A, semiring): a new Vector wᵀ = uᵀ ⊕.⊗ A in the semiring's output type."""
    base, _ = unwrap_transpose(A)
    check_kind(base, Matrix, "A")
    typed = operators.semiring(semiring, self.dtype, base.dtype)
    w = Vector(typed.monoid.type, _oriented_shape(A, "transpose_second", desc)[1])
    return vxm(w, self, A, semiring, mask=mask, accum=accum, desc=desc, direction=direction)


def vector_matmul(self, other):
    """u @ A = u.vxm(A, plus_times)."""
    if isinstance(other, (Matrix, TransposedMatrix)):
        return vxm_method(self, other)
    # not NotImplemented: Python would turn that into a raw TypeError
    raise InvalidValue(f"u @ A needs a Matrix A, got {type(other).__name__}")


def vector_rmatmul(self, other):
    """A @ u for operands whose own __matmul__ declined (an A.T view)."""
    if isinstance(other, (Matrix, TransposedMatrix)):
        return mxv_method(other, self)
    raise InvalidValue(f"A @ u needs a Matrix A, got {type(other).__name__}")
