"""``A.T``: a lazy transposed view of a Matrix.

The view holds only its parent; nothing is computed until an operation reads it
(operations treat ``A.T`` as A with its transpose flag flipped, so a transposing
descriptor and a view cancel) or ``A.T.new()`` materialises Aᵀ (one CSC build, cached on A).
"""
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

    def diag(self, k=0):
        """Diagonal k of Aᵀ as a Vector."""
        from .operations.diag import vector_diag
        return vector_diag(self, k)
