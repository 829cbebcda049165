"""The operation methods Matrix, Aᵀ and Vector share (python-graphblas's names): each returns
a new object made by the operation it names.

A method imports its operation when called: the operations build and check containers, so
they sit above the containers, and a method is the public door into them, one call deep (the
one kind of edge tests/test_import_graph.py declares and leaves out of its cycle check)."""

from .descriptor import Method
from .errors import InvalidValue

__all__ = ["ElementwiseMethods", "MatrixMethods"]


class ElementwiseMethods:
    """Methods of every container (Matrix, TransposedMatrix, Vector)."""

    __slots__ = ()

    def ewise_add(self, other, op=None):
        """A new object: self ⊕ other over the union (default op 'plus')."""
        from .operations.ewise import ewise_method
        return ewise_method("add", self, other, op)

    def ewise_mult(self, other, op=None):
        """A new object: self ⊗ other over the intersection (default op 'times')."""
        from .operations.ewise import ewise_method
        return ewise_method("mult", self, other, op)

    def ewise_union(self, other, op, left_default, right_default):
        """A new object: ewise_union(self, left_default, other, right_default, op)."""
        from .operations.ewise import ewise_method
        return ewise_method("union", self, other, op, left_default, right_default)

    def apply(self, op, right=None, *, left=None, thunk=None):
        """A new object: f(x) (unary), f(left, x), f(x, right), or f(x, i, j, thunk)."""
        from .operations.apply import apply_method
        return apply_method(self, op, right, left=left, thunk=thunk)

    def select(self, op, thunk=None):
        """A new object: the entries where f(x, i, j, thunk) is true."""
        from .operations.select import select_method
        return select_method(self, op, thunk)

    def reduce_scalar(self, op="plus", *, accum=None, initial=None):
        """⊕ over every entry, as a NumPy scalar (the identity when there are none)."""
        from .operations.reduce import reduce_scalar_method
        return reduce_scalar_method(self, op, accum=accum, initial=initial)


class MatrixMethods(ElementwiseMethods):
    """Methods of a Matrix and of a transposed view (which the operations read as the parent
    with its transpose flag flipped)."""

    __slots__ = ()

    def mxm(self, other, semiring="plus_times", *, mask=None, accum=None, desc=None,
            method=Method.AUTO):
        """A new Matrix T = A ⊕.⊗ B in the semiring's output type."""
        from .operations.mxm import mxm_method
        return mxm_method(self, other, semiring, mask=mask, accum=accum, desc=desc, method=method)

    def mxv(self, u, semiring="plus_times", *, mask=None, accum=None, desc=None,
            direction=None):
        """A new Vector w = A ⊕.⊗ u in the semiring's output type."""
        from .operations.mxv import mxv_method
        return mxv_method(self, u, semiring, mask=mask, accum=accum, desc=desc,
                          direction=direction)

    def __matmul__(self, other):
        """A @ B = A.mxm(B, plus_times); A @ u = A.mxv(u, plus_times)."""
        from .operations.mxm import matmul
        return matmul(self, other)

    def __rmatmul__(self, other):  # x @ A for an x that is no GraphBLAS object
        raise InvalidValue(f"x @ A needs a Matrix or a Vector x, got {type(other).__name__}")

    # NumPy operators (array @ A, array + A) defer to this class instead of reading it as an
    # object array, so an array operand meets the InvalidValue above
    __array_ufunc__ = None

    def tril(self, k=0):
        """The entries on and below diagonal k (j <= i + k)."""
        return self.select("tril", k)

    def triu(self, k=0):
        """The entries on and above diagonal k (j >= i + k)."""
        return self.select("triu", k)

    def reduce_rowwise(self, op="plus"):
        """A new Vector: ⊕ over each row with entries."""
        from .operations.reduce import reduce_rowwise_method
        return reduce_rowwise_method(self, op)

    def reduce_columnwise(self, op="plus"):
        """A new Vector: ⊕ over each column with entries."""
        from .operations.reduce import reduce_columnwise_method
        return reduce_columnwise_method(self, op)

    def kronecker(self, other, op="times"):
        """A new Matrix: kron(A, B) with ⊗ = op."""
        from .operations.kronecker import kronecker_method
        return kronecker_method(self, other, op)
