"""Keep the entries an index-unary operator accepts (GrB_select):

    T = { A(i,j) : f(A(i,j), i, j, thunk) }      (f's result cast to BOOL, as the C API says)
    then C⟨M, replace⟩ = accum(C, T).

Select operators (semirings.indexunary): tril, triu, diag, offdiag (thunk k: the diagonal
j - i = k), rowle, rowgt, colle, colgt, valueeq, valuene, valuegt, valuege, valuelt,
valuele, and user-defined ones (``semirings.indexunary.indexunary_op``). For a Vector, i is
the index and j = 0 (so ``tril`` with k keeps i >= -k), as in python-graphblas.
T keeps A's type and values. Computation: one vectorised evaluation of f gives a keep flag
per entry, then compaction (a dense Vector only clears bitmap bits).
"""
import numpy as np

from .. import backend, operators
from ..descriptor import as_descriptor
from ..errors import InvalidValue
from ..kernels.compact import compact
from ..matrix import Matrix
from ..types import BOOL, cast, cast_scalar
from ..vector import Vector
from ._common import computed, method_output, output_args, unwrap_transpose
from ._opargs import indexunary, scalar_of
from .apply import _evaluate, _indices, _like, _operand, _values_of, _zero, entries_kernel
from .writeback import write_back

xp = backend.xp

__all__ = ["select"]


def select(C, A, op, thunk=None, *, mask=None, accum=None, desc=None):
    """C⟨M⟩ = accum(C, select(A, f, thunk)): the entries of A where f(a, i, j, thunk) is true."""
    d = as_descriptor(desc)
    A = _operand(C, A, d)
    typed, s = _plan(A.dtype, op, thunk)
    mask, acc, d = output_args(C, mask, accum, d, A.dtype)
    T = computed(C, mask, lambda: _compute(A, typed, s))
    return write_back(C, T, mask=mask, accum=acc, replace=d.replace)


def _plan(a_type, op, thunk):
    s, t = scalar_of(thunk, "thunk", default=False)
    typed = indexunary(op, a_type, t)
    return typed, cast_scalar(s, typed.type)


def _compute(A, typed, s):
    op = typed.op
    if isinstance(A, Vector) and not A.has_sparse:  # dense form: clear bitmap bits
        values, bitmap = A._dense_form()
        i = xp.arange(A.size, dtype=np.int64) if op.reads_index else None
        keep = _keep(typed, s, values, i, _zero() if op.reads_index else None, A.size)
        return Vector._from_dense(A.size, A.dtype, A._lend(values), bitmap & keep)
    vals = _values_of(A)
    if vals is None and not op.reads_index:  # f(iso value): keep everything or nothing
        keep = _keep(typed, s, xp.asarray(A._iso), None, None, 1)
        return A if bool(backend.to_scalar(keep[0])) else _empty_like(A)
    keep = entries_kernel(A, xp.asarray(A._iso) if vals is None else vals, "index", typed, s,
                          BOOL)
    if keep is None:
        x = A._values_full() if vals is None else vals
        i, j = _indices(A) if op.reads_index else (None, None)
        keep = _keep(typed, s, x, i, j, A.nvals)
    return _compact(A, keep, typed, s)


def _keep(typed, s, x, i, j, n):
    """f's result as a keep flag per entry (a non-BOOL result is cast: nonzero keeps)."""
    return cast(_evaluate("index", typed, s, x, i, j, n), BOOL, xp)


def _compact(A, keep, typed, s):
    """A's entries where ``keep`` (a flag per entry) is set, as a new object of A's type;
    a matrix's row pointers count the kept entries before each row's first."""
    vals = _values_of(A)
    iso = _kept_value(A, typed, s)
    arrays = [A._indices if isinstance(A, Matrix) else A._sparse()[0]]
    if vals is not None and iso is None:
        arrays.append(vals)
    kept = compact(A._indptr if isinstance(A, Matrix) else None, keep, arrays, all_kept=None)
    if kept is None:   # all kept: A's structure as it is
        if vals is None or iso is not None:
            return _like(A, A.dtype, None, A._iso if vals is None else iso)
        return _like(A, A.dtype, vals.copy(), None)
    indptr, (indices, *vals) = kept
    iso = A._iso if iso is None else iso
    if isinstance(A, Vector):
        return Vector._from_sparse(A.size, A.dtype, indices, vals[0] if vals else None, iso=iso)
    return Matrix._from_csr(A.nrows, A.ncols, A.dtype, indptr.astype(A._indptr.dtype), indices,
                            vals[0] if vals else None, iso=iso)


def _kept_value(A, typed, s):
    """The one value every kept entry has, or None: valueeq compares in A's own type (no cast
    can merge values) and A's type has one bit pattern per value (not a float: -0.0 == 0.0),
    so its kept entries all hold the thunk (SuiteSparse's select gives the same iso result)."""
    indexunary = operators.catalog().indexunary
    if (typed.op is not indexunary.valueeq or typed.type != A.dtype
            or np.dtype(A.dtype.np_type).kind == "f"):
        return None
    return s


def _empty_like(A):
    return Vector(A.dtype, A.size) if isinstance(A, Vector) else Matrix(A.dtype, *A.shape)


# ---------------------------------------------------------------------- method forms
def select_method(self, op, thunk=None, *, mask=None, accum=None, desc=None, out=None):
    """A new object of A's type: the entries where f(a, i, j, thunk) is true; with ``out``:
    out⟨mask⟩ = accum(out, select(A)), returning out."""
    A, _ = unwrap_transpose(self)
    if not isinstance(A, (Matrix, Vector)):
        raise InvalidValue(f"select needs a Matrix or a Vector, got {type(A).__name__}")
    C = method_output(out, accum)
    if C is None:
        C = Vector(A.dtype, A.size) if isinstance(A, Vector) else Matrix(A.dtype, *self.shape)
    return select(C, self, op, thunk, mask=mask, accum=accum, desc=desc)
