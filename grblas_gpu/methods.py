"""The operation methods Matrix, Aᵀ and Vector share (python-graphblas's names): each returns
a new object made by the operation it names.

A method imports its operation when called: the operations build and check containers, so
they sit above the containers, and a method is the public door into them, one call deep (the
one kind of edge tests/test_import_graph.py declares and leaves out of its cycle check)."""

from ._validate import is_container
from .descriptor import Method
from .errors import DomainMismatch, InvalidValue

__all__ = ["ElementwiseMethods", "MatrixMethods"]


class ElementwiseMethods:
    """Methods of every container (Matrix, TransposedMatrix, Vector)."""

    __slots__ = ()

    # Output keywords of the method forms: ``mask`` and ``desc`` shape the new object (or
    # ``out``), ``accum`` and ``out`` write into an existing one: out⟨mask⟩ = accum(out, T),
    # returning out (python-graphblas's ``C(mask, accum) << A.apply(op)``).
    def ewise_add(self, other, op=None, *, mask=None, accum=None, desc=None, out=None):
        """A new object: self ⊕ other over the union (default op 'plus')."""
        from .operations.ewise import ewise_method
        return ewise_method("add", self, other, op, mask=mask, accum=accum, desc=desc, out=out)

    def ewise_mult(self, other, op=None, *, mask=None, accum=None, desc=None, out=None):
        """A new object: self ⊗ other over the intersection (default op 'times')."""
        from .operations.ewise import ewise_method
        return ewise_method("mult", self, other, op, mask=mask, accum=accum, desc=desc, out=out)

    def ewise_union(self, other, op, left_default, right_default, *, mask=None, accum=None,
                    desc=None, out=None):
        """A new object: ewise_union(self, left_default, other, right_default, op)."""
        from .operations.ewise import ewise_method
        return ewise_method("union", self, other, op, left_default, right_default, mask=mask,
                            accum=accum, desc=desc, out=out)

    def __or__(self, other):
        """``A | B``: the union with lor, for BOOL operands only (python-graphblas's infix
        rule); other types raise DomainMismatch: name the operator with ewise_add."""
        return self._infix(other, "add", "|", "lor")

    def __and__(self, other):
        """``A & B``: the intersection with land, for BOOL operands only (python-graphblas's
        rule); other types raise DomainMismatch: name the operator with ewise_mult."""
        return self._infix(other, "mult", "&", "land")

    def __ror__(self, other):  # x | A for an x that is no GraphBLAS object
        raise InvalidValue(f"x | y needs two Matrix or Vector operands, got {type(other).__name__}")

    def __rand__(self, other):
        raise InvalidValue(f"x & y needs two Matrix or Vector operands, got {type(other).__name__}")

    def _infix(self, other, mode, symbol, op):
        from .operations.ewise import ewise_method
        from .types import BOOL

        if not is_container(other):
            raise InvalidValue(f"x {symbol} y needs two Matrix or Vector operands, got "
                               f"{type(other).__name__}")
        if self.dtype is not BOOL or other.dtype is not BOOL:
            method = "ewise_add" if mode == "add" else "ewise_mult"
            raise DomainMismatch(
                f"x {symbol} y is {method} with {op}, for BOOL operands only (as in "
                f"python-graphblas); got {self.dtype.name} and {other.dtype.name}: call "
                f"x.{method}(y, op) with the operator")
        return ewise_method(mode, self, other, op)

    def apply(self, op, right=None, *, left=None, thunk=None, mask=None, accum=None, desc=None,
              out=None):
        """A new object: f(x) (unary), f(left, x), f(x, right), or f(x, i, j, thunk)."""
        from .operations.apply import apply_method
        return apply_method(self, op, right, left=left, thunk=thunk, mask=mask, accum=accum,
                            desc=desc, out=out)

    def select(self, op, thunk=None, *, mask=None, accum=None, desc=None, out=None):
        """A new object: the entries where f(x, i, j, thunk) is true."""
        from .operations.select import select_method
        return select_method(self, op, thunk, mask=mask, accum=accum, desc=desc, out=out)

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
