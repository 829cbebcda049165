"""Transpose (GrB_transpose):

    C⟨M, replace⟩ = accum(C, Aᵀ)

With the descriptor's transpose_first the input is transposed first, so the two cancel and
C⟨M⟩ = accum(C, A), as the C API specifies; an ``A.T`` view flips once more. Aᵀ comes from
A's cached CSC form (built once, O(nvals)); ``A.T`` alone computes nothing until used.
"""
from ..descriptor import as_descriptor
from ..matrix import Matrix
from ._common import (check_kind, check_output_shape, computed, matrix_input, output_args,
                      unwrap_transpose)
from .writeback import write_back

__all__ = ["transpose"]


def transpose(C, A, *, mask=None, accum=None, desc=None):
    """C⟨M⟩ = accum(C, Aᵀ) (accum(C, A) under transpose_first)."""
    d = as_descriptor(desc)
    check_kind(C, Matrix, "output C")
    A, view = unwrap_transpose(A)
    check_kind(A, Matrix, "A")
    flip = not (view != d.transpose_first)  # GrB_transpose transposes once more
    check_output_shape(C, A.shape[::-1] if flip else A.shape)
    mask, acc, d = output_args(C, mask, accum, d, A.dtype)
    T = computed(C, mask, lambda: matrix_input(A, flip, d.structure_first, "A"))
    return write_back(C, T, mask=mask, accum=acc, replace=d.replace)
