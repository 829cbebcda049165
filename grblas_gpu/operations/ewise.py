"""Element-wise operations on Matrices or Vectors (GrB_eWiseAdd, GrB_eWiseMult, GxB_eWiseUnion):

    ewise_add:    T = A ⊕ B over the union: A(i,j) ⊕ B(i,j) where both have an entry,
                  A(i,j) or B(i,j) (cast to ⊕'s output type) where only one has
    ewise_mult:   T = A ⊗ B over the intersection
    ewise_union:  T(i,j) = A(i,j) ⊙ B(i,j) over the union, A(i,j) := α and B(i,j) := β
                  where missing
    then C⟨M, replace⟩ = accum(C, T).

``op``: a binary operator, a monoid (its operator) or a semiring (its ⊕ for add, its ⊗ for
mult, as the C API allows). Inputs are typed at the unified operand type (python-graphblas's
rule). A Matrix operand may be an ``A.T`` view; the descriptor's transpose_first /
transpose_second flip it again.

Structures are merged as sorted linear keys (searchsorted membership, a merge path for the
union); vectors that both hold a dense form take a bitmap path instead.
"""
import numpy as np

from .. import backend
from ..descriptor import as_descriptor
from ..errors import DimensionMismatch, InvalidValue
from ..kernels.elementwise import dense_ewise
from ..matrix import Matrix
from ..types import cast, cast_scalar, unify
from ..vector import Vector
from ._common import (check_output_shape, computed, matrix_input, method_output, output_args,
                      unwrap_transpose, vector_input)
from ._keys import build_like, entries, linear_keys, member, merge_positions
from ._opargs import bound_binary, ewise_binary, result_array, scalar_of
from .writeback import dense_pays, write_back

xp = backend.xp

__all__ = ["ewise_add", "ewise_mult", "ewise_union"]


def ewise_add(C, A, B, op, *, mask=None, accum=None, desc=None):
    """C⟨M⟩ = accum(C, A ⊕ B): set union, ⊕ where both have an entry."""
    A, B = _operands(C, A, B, desc)
    typed = ewise_binary(op, A.dtype, B.dtype, "add")
    return _finish(C, A, B, typed, "add", None, mask, accum, desc)


def ewise_mult(C, A, B, op, *, mask=None, accum=None, desc=None):
    """C⟨M⟩ = accum(C, A ⊗ B): set intersection."""
    A, B = _operands(C, A, B, desc)
    typed = ewise_binary(op, A.dtype, B.dtype, "mult")
    return _finish(C, A, B, typed, "mult", None, mask, accum, desc)


def ewise_union(C, A, alpha, B, beta, op, *, mask=None, accum=None, desc=None):
    """C⟨M⟩ = accum(C, T), T = (A or α) ⊙ (B or β) over the union of the structures."""
    A, B = _operands(C, A, B, desc)
    alpha, ta = scalar_of(alpha, "alpha (left default)")
    beta, tb = scalar_of(beta, "beta (right default)")
    typed = bound_binary(op, unify(A.dtype, tb), unify(ta, B.dtype))
    defaults = (cast_scalar(alpha, typed.type), cast_scalar(beta, typed.type))
    return _finish(C, A, B, typed, "union", defaults, mask, accum, desc)


# ---------------------------------------------------------------------- arguments
def _operands(C, A, B, desc):
    """A and B as the operation sees them (transposes applied), shapes checked against C."""
    d = as_descriptor(desc)
    if isinstance(C, Vector):
        A, B = vector_input(A, d.structure_first, "A"), vector_input(B, d.structure_second, "B")
    elif isinstance(C, Matrix):
        A, ta = unwrap_transpose(A)
        B, tb = unwrap_transpose(B)
        for X, what in ((A, "A"), (B, "B")):
            if not isinstance(X, Matrix):
                raise InvalidValue(f"{what} must be a Matrix, got {type(X).__name__}")
        A = matrix_input(A, ta != d.transpose_first, d.structure_first, "A")
        B = matrix_input(B, tb != d.transpose_second, d.structure_second, "B")
    else:
        raise InvalidValue(f"output must be a Matrix or a Vector, got {type(C).__name__}")
    if A.shape != B.shape:
        raise DimensionMismatch(f"ewise operands have shapes {A.shape} and {B.shape}")
    check_output_shape(C, A.shape)
    return A, B


def _finish(C, A, B, typed, mode, defaults, mask, accum, desc):
    """The last checks (mask, accumulator), then T, then the one write-back."""
    mask, acc, d = output_args(C, mask, accum, desc, typed.out_type)

    def compute():
        if isinstance(A, Vector) and mode == "mult" and (_sparse_full(A, B)
                                                         or _sparse_full(B, A)):
            return _sparse_times_full(A, B, typed)
        if isinstance(A, Vector) and ((_dense_ready(A) and _dense_ready(B))
                                      or dense_pays(A, B)):
            return _dense(A, B, typed, mode, defaults, C)
        return _merged(A, B, typed, mode, defaults)
    return write_back(C, computed(C, mask, compute), mask=mask, accum=acc, replace=d.replace)


# ---------------------------------------------------------------------- computation

def _iso_of(X):
    """X's single value if X is iso-valued, else None."""
    if isinstance(X, Matrix):
        return X._iso if X._values is None else None
    return X._iso if X.has_sparse and X._sparse()[1] is None else None


def _merged(A, B, typed, mode, defaults):
    fn, t_in, t_out = typed.op.numpy, typed.type, typed.out_type
    ar, ac, av = entries(A)
    br, bc, bv = entries(B)
    ka, kb = linear_keys(A, [(ar, ac), (br, bc)])
    a_in_b, pos = member(ka, kb)
    hit = xp.nonzero(a_in_b)[0]
    with np.errstate(all="ignore"):
        if mode == "mult":
            ia, ib = _iso_of(A), _iso_of(B)
            cols = None if ac is None else ac[hit]
            if ia is not None and ib is not None:  # iso ⊗ iso is iso
                z = result_array(fn(_scalar(ia, t_in), _scalar(ib, t_in)), 1, t_out)
                return build_like(A, ar[hit], cols, None, dtype=t_out, iso=backend.to_host(z)[0])
            z = fn(cast(av[hit], t_in, xp), cast(bv[pos[hit]], t_in, xp))
            return build_like(A, ar[hit], cols, result_array(z, len(hit), t_out), dtype=t_out)
        # union: A's entries in A's order, then B's own entries merged in by key
        b_only = xp.nonzero(~member(kb, ka)[0])[0]
        a_only = xp.nonzero(~a_in_b)[0]
        za = xp.empty(len(ka), dtype=t_out.np_type)
        za[hit] = result_array(fn(cast(av[hit], t_in, xp), cast(bv[pos[hit]], t_in, xp)),
                               len(hit), t_out)
        if mode == "add":  # one side only: the value passes through, cast (SuiteSparse)
            za[a_only] = cast(av[a_only], t_out, xp)
            zb = cast(bv[b_only], t_out, xp)
        else:
            alpha, beta = (_scalar(s, t_in) for s in defaults)
            za[a_only] = result_array(fn(cast(av[a_only], t_in, xp), beta), len(a_only), t_out)
            zb = result_array(fn(alpha, cast(bv[b_only], t_in, xp)), len(b_only), t_out)
    pa, pb = merge_positions(ka, kb[b_only])
    rows = _scatter2(pa, ar, pb, br[b_only])
    cols = None if ac is None else _scatter2(pa, ac, pb, bc[b_only])
    return build_like(A, rows, cols, _scatter2(pa, za, pb, zb), dtype=t_out)


def _sparse_full(S, F):
    """S is sparse (not full) in its sparse form and F is full (its dense form is made once
    and kept). A full S takes the dense path instead: its dense form, made once, serves
    every later call, where gathering F at S's indices would cost a pass every time."""
    return S.has_sparse and S._nvals != S.size and F._nvals == F.size


def _dense_ready(X):
    """X has its dense form, or is full (its dense form, made once, is kept for later calls)."""
    return X.has_dense or X._nvals == X.size


def _sparse_times_full(A, B, typed):
    """A ⊗ B for one sparse and one full vector: the sparse one's structure, the full one's
    values gathered at its indices (a frontier times a degree vector, say)."""
    a_sparse = _sparse_full(A, B)
    S, F = (A, B) if a_sparse else (B, A)
    idx, _ = S._sparse()
    sv, fv = S._values_full(), F._dense_form()[0][idx]
    a, b = (sv, fv) if a_sparse else (fv, sv)
    present = xp.ones(len(idx), dtype=bool)
    fused = dense_ewise(a, present, b, present, typed, "mult", None)
    if fused is not None:
        z = fused[0]
    else:
        with np.errstate(all="ignore"):
            z = result_array(typed.op.numpy(cast(a, typed.type, xp), cast(b, typed.type, xp)),
                             len(idx), typed.out_type)
    return Vector._from_sparse(S.size, typed.out_type, idx, z)


def _dense(A, B, typed, mode, defaults, C):
    """Both vectors dense: elementwise over all positions, presence from the bitmaps (values
    where a bitmap is False are undefined, and so are the results computed from them). C:
    the output (a shared bitmap is taken through ``_bitmap_for``: A's fixed storage stays
    A's alone)."""
    fn, t_in, t_out = typed.op.numpy, typed.type, typed.out_type
    va, ba = A._dense_form()
    vb, bb = B._dense_form()
    n = A.size
    # full operands give a full result, a count known without counting (no device sync);
    # both full: every position takes the ⊙ branch and the result shares A's all-true bitmap
    both_full = A._nvals == n and B._nvals == n
    full = both_full if mode == "mult" else n in (A._nvals, B._nvals)
    fused = dense_ewise(va, ba, vb, bb, typed, mode, defaults, both_full)
    if fused is not None:
        z, zb = fused
        if zb is ba:  # (both full: A's all-true bitmap)
            zb = A._bitmap_for(C, True)
        return Vector._from_dense(n, t_out, z, zb, n if full else None)
    xa, xb = cast(va, t_in, xp), cast(vb, t_in, xp)
    with np.errstate(all="ignore"):
        if mode == "mult":
            return Vector._from_dense(n, t_out, result_array(fn(xa, xb), n, t_out), ba & bb,
                                      n if full else None)
        if mode == "add":
            both = result_array(fn(xa, xb), n, t_out)
            z = xp.where(ba & bb, both, xp.where(ba, cast(va, t_out, xp), cast(vb, t_out, xp)))
        else:
            alpha, beta = (_scalar(s, t_in) for s in defaults)
            z = result_array(fn(xp.where(ba, xa, alpha), xp.where(bb, xb, beta)), n, t_out)
    return Vector._from_dense(n, t_out, z, ba | bb, n if full else None)


def _scalar(s, dtype):
    """A 0-d backend array of ``dtype`` (operands of one type: no promotion surprises)."""
    return xp.asarray(cast_scalar(s, dtype))


def _scatter2(pa, a, pb, b):
    out = xp.empty(len(pa) + len(pb), dtype=a.dtype)
    out[pa] = a
    out[pb] = b
    return out


# ---------------------------------------------------------------------- method form
def ewise_method(mode, self, other, op=None, left_default=None, right_default=None, *,
                 mask=None, accum=None, desc=None, out=None):
    """A new object: self ⊕ other over the union (mode 'add', default op 'plus'), ⊗ over the
    intersection ('mult', default 'times'), or ewise_union with the two defaults ('union')."""
    out_arg = out
    shape = self.shape
    A, _ = unwrap_transpose(self)
    B, _ = unwrap_transpose(other)
    t1, t2 = A.dtype, getattr(B, "dtype", A.dtype)
    if mode == "union":
        if left_default is None or right_default is None:
            raise InvalidValue("ewise_union needs left_default and right_default")
        ta, tb = scalar_of(left_default)[1], scalar_of(right_default)[1]
        out = bound_binary(op, unify(t1, tb), unify(ta, t2)).out_type
    else:
        op = ("plus" if mode == "add" else "times") if op is None else op
        out = ewise_binary(op, t1, t2, mode).out_type
    C = method_output(out_arg, accum)
    if C is None:
        C = Vector(out, *shape) if isinstance(A, Vector) else Matrix(out, *shape)
    kw = dict(mask=mask, accum=accum, desc=desc)
    if mode == "union":
        return ewise_union(C, self, left_default, other, right_default, op, **kw)
    return (ewise_add if mode == "add" else ewise_mult)(C, self, other, op, **kw)
