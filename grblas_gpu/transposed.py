"""``A.T``: a lazy transposed view of a Matrix.

The view holds only its parent; nothing is computed until an operation reads it
(operations treat ``A.T`` as A with its transpose flag flipped, so a transposing
descriptor and a view cancel) or ``A.T.new()`` materialises Aᵀ (one CSC build, cached on A).
"""
from .descriptor import Method
from .errors import InvalidValue
from .methods import MatrixMethods

__all__ = ["TransposedMatrix"]


class TransposedMatrix(MatrixMethods):
    """Aᵀ without computing it. ``A.T.T is A``."""

    __slots__ = ("parent",)

    def __init__(self, parent):
        self.parent = parent

    @property
    def T(self):
        return self.parent

    nrows = property(lambda self: self.parent.ncols)
    ncols = property(lambda self: self.parent.nrows)
    shape = property(lambda self: (self.parent.ncols, self.parent.nrows))
    dtype = property(lambda self: self.parent.dtype)
    nvals = property(lambda self: self.parent.nvals)

    def new(self, dtype=None):
        """A new Matrix equal to Aᵀ (cast to ``dtype`` when given)."""
        At = self.parent._transposed()
        return At if dtype is None else At.dup(dtype)

    def to_dense(self, fill=0, *, device=False):
        return self.parent.to_dense(fill, device=device).T

    def to_coo(self, *, device=False):
        return self.new().to_coo(device=device)

    def isequal(self, other, tolerance=None):
        return self.new().isequal(other, tolerance)

    def __repr__(self):
        return f"<grblas_gpu.TransposedMatrix of {self.parent!r}>"

    def __bool__(self):
        raise InvalidValue("the truth value of a Matrix is ambiguous; use A.nvals or isequal")

    # ------------------------------------------------------------------ operations
    # (as Matrix's: each runs the operation it names on the view, which operations read as
    # the parent with its transpose flag flipped)
    def mxm(self, other, semiring="plus_times", *, mask=None, accum=None, desc=None,
            method=Method.AUTO):
        """A new Matrix T = Aᵀ ⊕.⊗ B in the semiring's output type."""
        from .operations.mxm import mxm_method
        return mxm_method(self, other, semiring, mask=mask, accum=accum, desc=desc, method=method)

    def mxv(self, u, semiring="plus_times", *, mask=None, accum=None, desc=None,
            direction=None):
        """A new Vector w = Aᵀ ⊕.⊗ u in the semiring's output type."""
        from .operations.mxv import mxv_method
        return mxv_method(self, u, semiring, mask=mask, accum=accum, desc=desc,
                          direction=direction)

    def __matmul__(self, other):
        from .operations.mxm import matmul
        return matmul(self, other)

    def __rmatmul__(self, other):  # x @ A.T for an x that is no GraphBLAS object
        raise InvalidValue(f"x @ A needs a Matrix or a Vector x, got {type(other).__name__}")

    __array_ufunc__ = None  # (see Matrix.__array_ufunc__)

    def diag(self, k=0):
        """Diagonal k of Aᵀ as a Vector."""
        from .operations.diag import vector_diag
        return vector_diag(self, k)
