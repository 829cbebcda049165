"""Argument handling every operation shares: descriptor, mask, accumulator, inputs."""
from .. import operators
from ..descriptor import as_descriptor, resolve_mask
from ..errors import DimensionMismatch, InvalidValue
from ..mask import materialize
from ..matrix import Matrix
from ..transposed import TransposedMatrix
from ..vector import Vector
from .writeback import allows_nothing, check_mask_shape

__all__ = ["output_args", "computed", "matrix_input", "check_kind", "check_output_shape",
           "unwrap_transpose", "method_output"]


def output_args(C, mask, accum, desc, t_dtype):
    """(mask, typed accum or None, descriptor) with the descriptor's mask fields applied
    and the mask's shape checked against C. C⟨!NULL⟩ (no mask, complemented) comes back as
    an empty structural mask of C's shape."""
    desc = as_descriptor(desc)
    mask = resolve_mask(mask, desc)
    if isinstance(C, (Matrix, Vector)):
        mask = materialize(mask, type(C), C.shape)
    check_mask_shape(C, mask)
    acc = operators.accumulator(accum, C.dtype, t_dtype) if accum is not None else None
    return mask, acc, desc


def computed(C, mask, compute):
    """T = compute(), or, when the mask allows no output (C⟨!NULL⟩), an empty T of C's
    kind and shape without computing anything: the write-back then keeps C (or clears it
    under replace), whatever T would have been."""
    if allows_nothing(mask):
        return type(C)(C.dtype, *C.shape)
    return compute()


def matrix_input(A, transpose=False, structure_only=False, what="input"):
    """The operand as the operation sees it: transposed and/or structure-only (iso 1) as the
    descriptor asks. A transposed view costs one CSC build (cached on A)."""
    check_kind(A, Matrix, what)
    if structure_only:
        A = Matrix._from_csr(A.nrows, A.ncols, A.dtype, A._indptr, A._indices, None, iso=1)
        # the structure-only view shares A's arrays; its CSC cache is its own
    return A._transposed() if transpose else A


def vector_input(u, structure_only=False, what="input"):
    check_kind(u, Vector, what)
    if structure_only:
        idx, _ = u._sparse()
        return Vector._from_sparse(u.size, u.dtype, idx, None, iso=1)
    return u


def check_kind(x, cls, what):
    if not isinstance(x, cls):
        raise InvalidValue(f"{what} must be a {cls.__name__}, got {type(x).__name__}")


def check_output_shape(C, shape, what="output"):
    if C.shape != tuple(shape):
        raise DimensionMismatch(f"{what} has shape {C.shape}, the result has shape {tuple(shape)}")


def unwrap_transpose(X):
    """(Matrix, transposed) for a Matrix or an ``A.T`` view; anything else comes back as
    (X, False) for the caller's own type check. XOR the flag with the descriptor's
    transpose field: a transposed view under a transposing descriptor means A itself."""
    if isinstance(X, TransposedMatrix):
        return X.parent, True
    return X, False


def method_output(out, accum):
    """The output of a method form (A.apply(..., out=C)): ``out`` when given (a Matrix or a
    Vector, checked by the operation), else None (the method makes a new one); ``accum``
    without ``out`` is refused: a new object has nothing to accumulate into."""
    if out is None:
        if accum is not None:
            raise InvalidValue("accum= accumulates into an existing object: pass out= too")
        return None
    if not isinstance(out, (Matrix, Vector)):
        raise InvalidValue(f"out must be a Matrix or a Vector, got {type(out).__name__}")
    return out
