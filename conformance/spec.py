"""A slow, obvious mimic of mxm / mxv / vxm, as SuiteSparse's Test/GB_spec_*.m are.

A second reference for small cases: it shares no code with python-graphblas or grblas_gpu,
so a disagreement with python-graphblas points at the translation in conformance.reference
rather than at grblas_gpu. Objects are dense: a value array and a presence array.

    spec_mxm:     T(i,j) = ⊕_k A(i,k) ⊗ B(k,j) over the k where both are present (a loop)
    spec_accum:   Z = accum(C, T) on the union (C's type), or Z = T cast to C's type
    spec_mask:    C⟨M, replace⟩ = Z: inside the mask Z, outside C (or nothing with replace)

Operators are written here again, in plain Python on typed NumPy scalars (so integers wrap
as C's do): monoids plus, times, min, max, lor, land; multiplies first, second, pair,
plus, minus, times, min, max, land, lor. BOOL is only used with the logical ones (SuiteSparse
redefines BOOL arithmetic); anything else raises ``Unsupported`` and the case simply has no
second reference.
"""
from dataclasses import dataclass

import numpy as np

__all__ = ["Matrix", "Vector", "mxm", "mxv", "vxm", "spec_accum", "spec_mask", "Unsupported"]


class Unsupported(Exception):
    """The mimic does not model this operator or type."""


_NP = {"BOOL": np.bool_, "FP32": np.float32, "FP64": np.float64}


def np_type(tname):
    return np.dtype(_NP.get(tname, tname.lower()))


@dataclass(frozen=True)
class Mask:
    parent: object
    structure: bool
    complement: bool = False

    def __invert__(self):
        return Mask(self.parent, self.structure, not self.complement)


class _Dense:
    """values and present, both of the object's shape; dtype a GraphBLAS type name."""

    def __init__(self, shape, dtype, values=None, present=None):
        self.dtype = dtype
        self.values = np.zeros(shape, dtype=np_type(dtype)) if values is None else values
        self.present = np.zeros(shape, dtype=bool) if present is None else present

    @property
    def S(self):
        return Mask(self, True)

    @property
    def V(self):
        return Mask(self, False)

    def __invert__(self):
        return Mask(self, False, True)


class Matrix(_Dense):
    @classmethod
    def from_coo(cls, rows, cols, values, *, nrows, ncols, dtype):
        if nrows * ncols > 10**6:
            raise Unsupported("too large for the dense mimic")
        M = cls((nrows, ncols), dtype)
        M.values[np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)] = values
        M.present[np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)] = True
        return M

    nrows = property(lambda self: self.values.shape[0])
    ncols = property(lambda self: self.values.shape[1])

    def to_coo(self):
        r, c = np.nonzero(self.present)
        return r, c, self.values[r, c]


class Vector(_Dense):
    @classmethod
    def from_coo(cls, indices, values, *, size, dtype):
        if size > 10**6:
            raise Unsupported("too large for the dense mimic")
        v = cls((size,), dtype)
        v.values[np.asarray(indices, dtype=np.int64)] = values
        v.present[np.asarray(indices, dtype=np.int64)] = True
        return v

    size = property(lambda self: self.values.shape[0])

    def to_coo(self):
        (i,) = np.nonzero(self.present)
        return i, self.values[i]


# ---------------------------------------------------------------------- operators
_LOGICAL = {"lor", "land", "first", "second", "pair", "min", "max"}
_MULT = {
    "first": lambda x, y: x, "second": lambda x, y: y, "pair": lambda x, y: 1,
    "plus": lambda x, y: x + y, "minus": lambda x, y: x - y, "times": lambda x, y: x * y,
    "min": lambda x, y: min(x, y), "max": lambda x, y: max(x, y),
    "land": lambda x, y: bool(x) and bool(y), "lor": lambda x, y: bool(x) or bool(y),
}
_MONOID = {"plus": _MULT["plus"], "times": _MULT["times"], "min": _MULT["min"],
           "max": _MULT["max"], "lor": _MULT["lor"], "land": _MULT["land"]}


def binary(name, tname):
    """f(x, y) on typed scalars of tname, the result cast back to tname (wrapping)."""
    if name not in _MULT or (tname == "BOOL" and name not in _LOGICAL):
        raise Unsupported(f"binary {name} at {tname}")
    if name in ("land", "lor") and tname != "BOOL":
        raise Unsupported(f"{name} at {tname} (SuiteSparse returns 0/1 of the type)")
    t = np_type(tname).type
    f = _MULT[name]

    def typed(x, y):
        with np.errstate(over="ignore", invalid="ignore"):
            return cast(f(t(x), t(y)), tname)
    return typed


def cast(x, tname):
    """SuiteSparse's typecast of one value: to BOOL x != 0; float to integer saturates, NaN 0."""
    npt = np_type(tname)
    if npt.kind == "b":
        return np.bool_(x != 0)
    if npt.kind in "iu" and isinstance(x, (float, np.floating)):
        info = np.iinfo(npt)
        if x != x:
            return npt.type(0)
        if x >= info.max:
            return npt.type(info.max)
        if x <= info.min:
            return npt.type(info.min)
        return npt.type(int(x))
    with np.errstate(over="ignore"):
        return np.array(x).astype(npt)[()]


def _semiring(name, tname):
    mon, _, mult = name.partition("_")
    if mon not in _MONOID:
        raise Unsupported(f"monoid {mon}")
    return binary(mon, tname), binary(mult, tname)


# ---------------------------------------------------------------------- accum and mask
def spec_accum(C, T, accum):
    """Z = accum(C, T) on the union of their entries, in C's type (T cast); Z = T without."""
    z = _Dense(C.values.shape, C.dtype)
    tz = np.vectorize(lambda x: cast(x, C.dtype), otypes=[np_type(C.dtype)])
    if accum is None:
        z.present = T.present.copy()
        if T.present.any():
            z.values[T.present] = tz(T.values[T.present])
        return z
    atype = np.promote_types(np_type(C.dtype), np_type(T.dtype))
    aname = {np.dtype(v): k for k, v in _NP.items()}.get(atype, atype.name.upper())
    f = binary(accum, aname)
    z.present = C.present | T.present
    for idx in zip(*np.nonzero(z.present)):
        c_in, t_in = C.present[idx], T.present[idx]
        if c_in and t_in:
            z.values[idx] = cast(f(C.values[idx], T.values[idx]), C.dtype)
        elif c_in:
            z.values[idx] = C.values[idx]
        else:
            z.values[idx] = cast(T.values[idx], C.dtype)
    return z


def spec_mask(C, Z, mask, replace):
    """C⟨mask, replace⟩ = Z."""
    if mask is None:
        m = np.ones(C.values.shape, dtype=bool)
    else:
        M = mask.parent
        m = M.present if mask.structure else M.present & (M.values != 0)
        m = ~m if mask.complement else m
    out = _Dense(C.values.shape, C.dtype)
    out.present = np.where(m, Z.present, False if replace else C.present)
    out.values = np.where(m, Z.values, C.values)
    return out


def _finish(C, T, mask, accum, replace):
    if mask is not None and not isinstance(mask, Mask):
        mask = Mask(mask, False)
    R = spec_mask(C, spec_accum(C, T, accum), mask, replace)
    C.values, C.present = R.values, R.present
    return C


# ---------------------------------------------------------------------- operations
def _input(X, transpose, structure):
    v, p = (X.values.T, X.present.T) if transpose else (X.values, X.present)
    if structure:
        v = np.ones_like(v)
    return v, p


def mxm(C, A, B, semiring, *, mask=None, accum=None, replace=False, t0=False, t1=False,
        s0=False, s1=False):
    """C⟨mask, replace⟩ = accum(C, op(A) ⊕.⊗ op(B)), a triple loop."""
    tname = A.dtype
    if A.dtype != B.dtype:
        raise Unsupported("mixed input types")
    add, mult = _semiring(semiring, tname)
    av, ap = _input(A, t0, s0)
    bv, bp = _input(B, t1, s1)
    T = _Dense((av.shape[0], bv.shape[1]), tname)
    for i in range(av.shape[0]):
        for j in range(bv.shape[1]):
            for k in range(av.shape[1]):
                if ap[i, k] and bp[k, j]:
                    t = mult(av[i, k], bv[k, j])
                    T.values[i, j] = add(T.values[i, j], t) if T.present[i, j] else t
                    T.present[i, j] = True
    return _finish(C, T, mask, accum, replace)


def mxv(w, A, u, semiring, *, mask=None, accum=None, replace=False, t0=False, s0=False,
        s1=False):
    """w⟨mask, replace⟩ = accum(w, op(A) ⊕.⊗ u): mxm with u as a one-column matrix."""
    U = Matrix(u.values.shape + (1,), u.dtype, u.values[:, None], u.present[:, None])
    W = Matrix(w.values.shape + (1,), w.dtype, w.values[:, None], w.present[:, None])
    M = None if mask is None else _column_mask(mask)
    mxm(W, A, U, semiring, mask=M, accum=accum, replace=replace, t0=t0, s0=s0, s1=s1)
    w.values, w.present = W.values[:, 0], W.present[:, 0]
    return w


def vxm(w, u, A, semiring, *, mask=None, accum=None, replace=False, t1=False, s0=False,
        s1=False):
    """w⟨mask, replace⟩ = accum(w, u ⊕.⊗ op(A)): mxm with u as a one-row matrix."""
    U = Matrix((1,) + u.values.shape, u.dtype, u.values[None, :], u.present[None, :])
    W = Matrix((1,) + w.values.shape, w.dtype, w.values[None, :], w.present[None, :])
    M = None if mask is None else _row_mask(mask)
    mxm(W, U, A, semiring, mask=M, accum=accum, replace=replace, t1=t1, s0=s0, s1=s1)
    w.values, w.present = W.values[0], W.present[0]
    return w


def _column_mask(mask):
    if not isinstance(mask, Mask):
        mask = Mask(mask, False)
    P = mask.parent
    return Mask(Matrix(P.values.shape + (1,), P.dtype, P.values[:, None], P.present[:, None]),
                mask.structure, mask.complement)


def _row_mask(mask):
    if not isinstance(mask, Mask):
        mask = Mask(mask, False)
    P = mask.parent
    return Mask(Matrix((1,) + P.values.shape, P.dtype, P.values[None, :], P.present[None, :]),
                mask.structure, mask.complement)
