"""Assign and subassign: update the region C(I, J) of C from A (a Matrix, a Vector or a scalar).

    GrB_assign     C⟨M, r⟩(I, J) = accum(C(I, J), A)   M has C's shape; replace clears C
                                                       everywhere outside M
    GxB_subassign  C(I, J)⟨M, r⟩ = accum(C(I, J), A)   M has A's shape (|I| x |J|): M(k, l)
                                                       governs C(I[k], J[l]); replace clears
                                                       only inside C(I, J)

Both reduce to write_back and one splice, step by step as SuiteSparse's spec mimics state
them (Test/GB_spec_assign.m; the table in @GrB/subassign.m):

    step  assign                                   subassign
    1     S = C(I, J)                              S = C(I, J)
    2     S = accum(S, A)                          S⟨M, r⟩ = accum(S, A)
          write_back(S, A, accum=accum)            write_back(S, A, mask=M, accum=accum, replace=r)
    3     Z = C; Z(I, J) = S        (splice)       Z = C; Z(I, J) = S        (splice)
    4     C⟨M, r⟩ = Z                              C = Z
          write_back(C, Z, mask=M, replace=r)      write_back(C, Z)

The splice drops C's entries inside I x J and adds S's (S(k, l) goes to C(I[k], J[l])); so
without accum, region entries absent from A are deleted. Step 1 is skipped when S's old
content cannot matter (no accum, and for subassign no mask): S starts empty. Without a mask
the two operations are identical and take subassign's shorter path.

Forms:
  assign(C, A, I, J)      GrB_Matrix_assign / GxB_Matrix_subassign (Aᵀ with desc.transpose_first
                          or an A.T view)
  assign(C, x, I, J)      scalar x: A is the |I| x |J| matrix of x, in x's own type
  assign(C, u, i, J)      GrB_Row_assign: C⟨m'⟩(i, J) = accum(C(i, J), u'), m has ncols(C):
                          x = C(i, :)ᵀ; x⟨m, r⟩(J) = accum(x(J), u) (the vector assign);
                          C(i, :) = xᵀ. replace touches row i only.
                          GxB_Row_subassign: m has |J|; the subassign steps on s = C(i, J).
                          With a Matrix mask of C's shape (python-graphblas's C(M)[i, J] << u)
                          it is the matrix assign with I = [i] and A = u' (1 x |J|).
  assign(C, u, I, j)      GrB_Col_assign / GxB_Col_subassign, the same on column j.
  assign(w, u, I)         GrB_Vector_assign / GxB_Vector_subassign (and scalar u).

Types: S and Z are in C's type (write_back's rule); the accumulator is resolved by
grblas_gpu.operators.accumulator(accum, C.dtype, A.dtype). NOTE: python-graphblas types the
accumulator at C's type alone, so with mixed types (C INT64, A FP64, accum=plus) results may
differ from it by the rounding of A.

Indices are parsed as for extract (grblas_gpu.operations.extract.parse_index). Unlike
SuiteSparse, which accepts duplicate indices in some cases (scalar expansion; assignments
where the last duplicate wins), a repeated index in I or J raises InvalidValue here, as
issue 4 requires: the result would depend on the order of the duplicates. (extract allows
duplicates: there they only copy.)
"""
import numbers

import numpy as np

from .. import backend, operators
from ..descriptor import as_descriptor, resolve_mask
from ..errors import DimensionMismatch, InvalidValue
from ..mask import materialize
from ..matrix import Matrix
from .._validate import scalar_dtype
from ..types import lookup_dtype, scalar_value
from ..vector import Vector
from ._common import unwrap_transpose
from .extract import (_NO_COLS, all_of, check_unique, column_of, parse_index, row_major_order,
                      row_of, submatrix, subvector)
from .writeback import allows_nothing, write_back

xp = backend.xp

__all__ = ["assign", "subassign"]


# ---------------------------------------------------------------------------- splices
def _in(x, index):
    """For each value of x: is it one of the index's values."""
    if index.is_all:
        return xp.ones(len(x), dtype=bool)
    s = index.idx if index.monotone else xp.sort(index.idx)
    if len(s) == 0:
        return xp.zeros(len(x), dtype=bool)
    return s[xp.minimum(xp.searchsorted(s, x), len(s) - 1)] == x


def _placed(local, index):
    """Region-local positions to positions in C."""
    return local if index.is_all else index.idx[local]


def splice_matrix(C, I, J, S):
    """Z = C with Z(I, J) = S: C's entries inside I x J are dropped, S(k, l) goes to
    Z(I[k], J[l]). S has C's type; I and J are duplicate-free."""
    if I.is_all and J.is_all:
        return S
    rows, cols = C._rows(), C._indices
    keep = xp.nonzero(~(_in(rows, I) & _in(cols, J)))[0]
    rows = xp.concatenate([rows[keep].astype(np.int64), _placed(S._rows(), I)])
    cols = xp.concatenate([cols[keep].astype(np.int64), _placed(S._indices.astype(np.int64), J)])
    perm = row_major_order(rows, cols, C.nrows, C.ncols)
    ptr = xp.searchsorted(rows[perm], xp.arange(C.nrows + 1), side="left")
    if C._values is None and S._values is None and C._iso == S._iso:  # stays iso
        return Matrix._from_csr(C.nrows, C.ncols, C.dtype, ptr, cols[perm], None, C._iso)
    vals = xp.concatenate([C._values_full()[keep], S._values_full()])
    return Matrix._from_csr(C.nrows, C.ncols, C.dtype, ptr, cols[perm], vals[perm])


def splice_vector(w, I, s):
    """z = w with z(I) = s (I duplicate-free)."""
    if I.is_all:
        return s
    s_idx = _placed(s._sparse()[0].astype(np.int64), I)
    if w.has_dense:  # bitmap form: clear the region, scatter s; no sort
        values, bitmap = (a.copy() for a in w._dense_form())
        bitmap[I.idx] = False
        values[s_idx] = s._values_full()
        bitmap[s_idx] = True
        return Vector._from_dense(w.size, w.dtype, values, bitmap)
    idx, _ = w._sparse()
    keep = xp.nonzero(~_in(idx, I))[0]
    idx = xp.concatenate([idx[keep].astype(np.int64), s_idx])
    vals = xp.concatenate([w._values_full()[keep], s._values_full()])
    order = xp.argsort(idx, kind="stable")
    return Vector._from_sparse(w.size, w.dtype, idx[order], vals[order])


def _as_row(v):
    """A Vector of size n as a 1 x n Matrix."""
    idx, vals = v._sparse()
    ptr = xp.asarray([0, len(idx)], dtype=np.int64)
    return Matrix._from_csr(1, v.size, v.dtype, ptr, idx, vals, v._iso)


def _as_col(v):
    """A Vector of size n as an n x 1 Matrix."""
    idx, vals = v._sparse()
    ptr = xp.searchsorted(idx, xp.arange(v.size + 1), side="left")
    return Matrix._from_csr(v.size, 1, v.dtype, ptr, xp.zeros(len(idx), dtype=np.int64), vals,
                            v._iso)


# ---------------------------------------------------------------------------- the update
def _update(C, value, mask, acc, replace, sub, region, splice, empty):
    """Steps 1-4 of the module docstring. value() = A (a scalar's region matrix is built only
    when needed); region() = C(I, J); splice(S) = C with C(I, J) = S; empty() = an empty S.
    C changes only in the last write_back."""
    if allows_nothing(mask):
        # C⟨!NULL⟩: A is not read; replace clears C (assign) or C(I, J) (subassign)
        if not replace:
            return C
        if sub:
            return write_back(C, splice(empty()))
        return write_back(C, type(C)(C.dtype, *C.shape), mask=mask, replace=True)
    A = value()
    if mask is None:
        sub = True
    S = region() if (acc is not None or (sub and mask is not None)) else empty()
    if sub:
        # S⟨M, replace⟩ = accum(S, A); C(I, J) = S
        write_back(S, A, mask=mask, accum=acc, replace=replace)
        return write_back(C, splice(S))
    # S = accum(S, A); Z = C; Z(I, J) = S; C⟨M, replace⟩ = Z
    write_back(S, A, accum=acc)
    return write_back(C, splice(S), mask=mask, replace=replace)


# ---------------------------------------------------------------------------- arguments
def _scalar(value, into):
    """(DataType, NumPy scalar) of a scalar value, or None if value is not a scalar. A Python
    number stored as it is (``into``: C's type when there is no accum) must fit that type
    (grblas_gpu.types.scalar_value); one that feeds an accum is typed by its Python type."""
    if isinstance(value, (Matrix, Vector)):
        return None
    if isinstance(value, (bool, int, float, complex)):
        dt = into if into is not None else scalar_dtype(value, "the scalar")
        return dt, scalar_value(value, dt, "the scalar")
    if isinstance(value, (numbers.Number, np.generic)) or getattr(value, "ndim", None) == 0:
        arr = backend.to_host(value)
        return lookup_dtype(arr.dtype), arr[()]
    return None


def _full_vector(dtype, x, n):
    return Vector._from_sparse(n, dtype, xp.arange(n, dtype=np.int64), None, x)


def _full_matrix(dtype, x, nrows, ncols):
    ptr = xp.arange(nrows + 1, dtype=np.int64) * ncols
    cols = xp.arange(nrows * ncols, dtype=np.int64) % max(ncols, 1)
    return Matrix._from_csr(nrows, ncols, dtype, ptr, cols, None, x)


def _value(A, kind, shape, what, C, accum):
    """(value dtype, a function building the value as a `kind` of `shape`)."""
    sc = _scalar(A, C.dtype if accum is None else None)
    if sc is not None:
        dt, x = sc
        if kind is Vector:
            return dt, lambda: _full_vector(dt, x, shape[0])
        return dt, lambda: _full_matrix(dt, x, *shape)
    if not isinstance(A, kind):
        raise InvalidValue(f"{what} must be a {kind.__name__} or a scalar, got {type(A).__name__}")
    if A.shape != shape:
        raise DimensionMismatch(f"{what} has shape {A.shape}, the region has shape {shape}")
    return A.dtype, lambda: A


def _check_mask(mask, kind, shape, what):
    """The mask, its shape checked; C⟨!NULL⟩ as an empty structural mask of that shape."""
    if mask is None:
        return None
    mask = materialize(mask, kind, shape)
    M = mask.parent
    if not isinstance(M, kind) or M.shape != shape:
        raise DimensionMismatch(f"mask {type(M).__name__} {M.shape} does not match {what}: "
                                f"{kind.__name__} {shape}")
    return mask


def _accum(accum, C, value_dtype):
    return operators.accumulator(accum, C.dtype, value_dtype) if accum is not None else None


# ---------------------------------------------------------------------------- the forms
def _vector_form(w, u, rows, cols, m, accum, d, sub):
    if cols is not _NO_COLS:
        raise InvalidValue("a Vector takes one index argument: assign(w, u, indices)")
    I = parse_index(rows, w.size, "index")
    check_unique(I, "index")
    vdt, value = _value(u, Vector, (I.size,), "input", w, accum)
    m = _check_mask(m, Vector, (I.size,) if sub else w.shape, "the region" if sub else "the output")
    acc = _accum(accum, w, vdt)
    return lambda: _update(w, value, m, acc, d.replace, sub, lambda: subvector(w, I),
                           lambda s: splice_vector(w, I, s), lambda: Vector(w.dtype, I.size))


def _matrix_form(C, A, I, J, m, accum, d, sub):
    A, view = unwrap_transpose(A)  # A.T under GrB_TRAN is A itself
    transpose = isinstance(A, Matrix) and d.transpose_first != view
    vdt, value = _value(A, Matrix, (J.size, I.size) if transpose else (I.size, J.size), "input",
                        C, accum)
    block = (lambda: value()._transposed()) if transpose else value
    m = _check_mask(m, Matrix, (I.size, J.size) if sub else C.shape,
                "the region" if sub else "the output")
    acc = _accum(accum, C, vdt)
    I, J = I._replace(scalar=False), J._replace(scalar=False)
    return lambda: _update(C, block, m, acc, d.replace, sub, lambda: submatrix(C, I, J),
                           lambda S: splice_matrix(C, I, J, S),
                           lambda: Matrix(C.dtype, I.size, J.size))


def _line_form(C, u, I, J, m, accum, d, sub):
    """Row (I scalar) or column (J scalar) assign of a Vector or scalar."""
    on_row = I.scalar
    n = J.size if on_row else I.size
    vdt, value = _value(u, Vector, (n,), "input", C, accum)
    if m is not None and isinstance(m.parent, Matrix) and not sub:
        # C⟨M⟩(i, J) with a mask of C's shape: the matrix assign with A = u' (or u)
        m = _check_mask(m, Matrix, C.shape, "the output")
        acc = _accum(accum, C, vdt)
        as_block = _as_row if on_row else _as_col
        I, J = I._replace(scalar=False), J._replace(scalar=False)
        return lambda: _update(C, lambda: as_block(value()), m, acc, d.replace, False,
                               lambda: submatrix(C, I, J), lambda S: splice_matrix(C, I, J, S),
                               lambda: Matrix(C.dtype, I.size, J.size))
    line = C.ncols if on_row else C.nrows
    m = _check_mask(m, Vector, (n,) if sub else (line,),
                "the region" if sub else ("row" if on_row else "column") + " of the output")
    acc = _accum(accum, C, vdt)
    to_block = _as_row if on_row else _as_col
    if sub or m is None:
        # C(i, J)⟨m, r⟩ = accum(C(i, J), u): the region as a Vector of size |J|
        region = (lambda: row_of(C, I, J)) if on_row else (lambda: column_of(C, I, J))
        return lambda: _update(C, value, m, acc, d.replace, True, region,
                               lambda s: splice_matrix(C, I, J, to_block(s)),
                               lambda: Vector(C.dtype, n))
    # x = C(i, :)ᵀ; x⟨m, r⟩(J) = accum(x(J), u); C(i, :) = xᵀ  (and likewise on column j)
    whole_I, whole_J = (I, all_of(C.ncols)) if on_row else (all_of(C.nrows), J)
    K = J if on_row else I
    K = K._replace(scalar=False)

    def run():
        if allows_nothing(m) and not d.replace:  # C⟨!NULL⟩(i, J): no write at all
            return C
        x = row_of(C, whole_I, whole_J) if on_row else column_of(C, whole_I, whole_J)
        _update(x, value, m, acc, d.replace, False, lambda: subvector(x, K),
                lambda s: splice_vector(x, K, s), lambda: Vector(C.dtype, K.size))
        return write_back(C, splice_matrix(C, whole_I, whole_J, to_block(x)))
    return run


def _plan(C, A, rows, cols, mask, accum, desc, sub):
    """Validate everything; return a function doing the update."""
    d = as_descriptor(desc)
    m = resolve_mask(mask, d)
    if isinstance(C, Vector):
        return _vector_form(C, A, rows, cols, m, accum, d, sub)
    if not isinstance(C, Matrix):
        raise InvalidValue(f"output must be a Matrix or a Vector, got {type(C).__name__}")
    if cols is _NO_COLS:
        raise InvalidValue("a Matrix takes row and column indices: assign(C, A, rows, cols)")
    I = parse_index(rows, C.nrows, "row index")
    J = parse_index(cols, C.ncols, "column index")
    check_unique(I, "row index")
    check_unique(J, "column index")
    if I.scalar != J.scalar:
        return _line_form(C, A, I, J, m, accum, d, sub)
    return _matrix_form(C, A, I, J, m, accum, d, sub)


def assign(C, A, rows, cols=_NO_COLS, *, mask=None, accum=None, desc=None):
    """GrB_assign: C⟨mask, replace⟩(rows, cols) = accum(C(rows, cols), A), the mask of C's
    shape (of C's row or column for the row/column forms); w⟨mask⟩(rows) = accum(w(rows), u)
    for a Vector w. A: Matrix, Vector (row/column/vector forms) or scalar. Returns C."""
    return _plan(C, A, rows, cols, mask, accum, desc, sub=False)()


def subassign(C, A, rows, cols=_NO_COLS, *, mask=None, accum=None, desc=None):
    """GxB_subassign: C(rows, cols)⟨mask, replace⟩ = accum(C(rows, cols), A), the mask of the
    region's shape (|rows| x |cols|, or |cols| / |rows| for a row / column). Returns C."""
    return _plan(C, A, rows, cols, mask, accum, desc, sub=True)()
