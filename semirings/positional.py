"""Positional multiplies (SuiteSparse's GxB_FIRSTI ... GxB_SECONDJ1) and their semirings.

In a product C = A ⊕.⊗ B, the term A(i,k) ⊗ B(k,j) of a positional multiply is an index of
one of its operands, not a value:

    firsti  = i      firstj  = k      secondi = k      secondj = j      (…1: the index + 1)

mxv (w = A u) is the product with j = 0 (u is a column), vxm (wᵀ = uᵀ A) the one with i = 0
(uᵀ is a row), as SuiteSparse computes them: in mxv, firsti is the output's index and secondi
the inner one; in vxm, secondj is the output's index. Values are never read, so the operand
types do not matter: like python-graphblas, a positional operator runs at INT32 when both
operands are INT32 and at INT64 otherwise, and its result has that type.

The semirings are ``<monoid>_<multiply>`` for the monoids any, min, max, plus and times:
``semirings.any_secondi`` is LAGraph's BFS parent semiring (the parent of j is the k
found). python-graphblas keeps them under ``gb.semiring.ss`` (SuiteSparse only).

Positional operators exist to be the multiply of a semiring in mxm, mxv and vxm. The
element-wise operations, apply, accumulators and kronecker take value operators and refuse
these with NotSupported (:func:`is_positional` is the test).
"""
from dataclasses import dataclass

import numpy as np

from grblas_gpu.errors import NotSupported
from grblas_gpu.types import ALL_TYPES, INT32, INT64

from . import monoid as M
from ._core import BinaryOp, Semiring

__all__ = ["PositionalOp", "is_positional", "OPS", "SEMIRINGS", "MONOIDS"]

MONOIDS = ("any", "min", "max", "plus", "times")
_RUN_AT = {t: INT64 for t in ALL_TYPES if t not in (INT32, INT64)}


@dataclass(eq=False, repr=False)
class PositionalOp(BinaryOp):
    """z = an index of the term (``index``: 'i', 'k' or 'j', see the module docstring) plus
    ``offset`` (0 or 1). The C expression reads the kernel's ``i``, ``k``, ``j``."""

    index: str = "i"
    offset: int = 0
    positional = True

    def positions(self, i, k, j):
        """The terms' values from their index arrays (NumPy or CuPy), as int64."""
        which = i if self.index == "i" else k if self.index == "k" else j
        z = which.astype(np.int64)
        return z + self.offset if self.offset else z


def _refuse(x, y):
    raise NotSupported("a positional operator has no value function: its terms are indices "
                       "(use it as a semiring's multiply in mxm, mxv or vxm)")


def _op(name, index, offset):
    c = index if not offset else f"({index} + 1)"
    return PositionalOp(name, c, _refuse, (INT32, INT64), None, coercions=dict(_RUN_AT),
                        index=index, offset=offset)


OPS = {}
for _name, _index in (("firsti", "i"), ("firstj", "k"), ("secondi", "k"), ("secondj", "j")):
    OPS[_name] = _op(_name, _index, 0)
    OPS[_name + "1"] = _op(_name + "1", _index, 1)

SEMIRINGS = {f"{m}_{f}": Semiring(f"{m}_{f}", getattr(M, m), op, (INT32, INT64),
                                  coercions=dict(_RUN_AT))
             for m in MONOIDS for f, op in OPS.items()}


def is_positional(op):
    """Whether ``op`` (an operator, a Typed one, or a semiring) multiplies by position."""
    op = getattr(op, "op", op)
    op = getattr(op, "multiply", op)
    return bool(getattr(op, "positional", False))
