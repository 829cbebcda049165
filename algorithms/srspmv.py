"""Semiring sparse matrix-vector product with scaling: nvgraphSrSpmv.

Formulation, over a semiring (⊕, ⊗) with ⊕-identity 0⊕ and ⊗-identity 1⊗:

    y = alpha ⊗ (A ⊕.⊗ x) ⊕ beta ⊗ y

    t = A ⊕.⊗ x                      (mxv; rows of A with no entry give 0⊕)
    t = alpha ⊗ t                    (apply with a bound first operand), skipped if alpha is 1⊗
    y = beta ⊗ y                     (apply), skipped when beta is 1⊗
    y = t ⊕ y                        (ewise_union with 0⊕ for missing entries)

so per semiring (nvGRAPH's table):

    NVGRAPH_PLUS_TIMES_SR   y = alpha * (A x) + beta * y          0⊕ = 0,    1⊗ = 1
    NVGRAPH_MIN_PLUS_SR     y = min(alpha + min(A + x), beta + y)  0⊕ = +inf, 1⊗ = 0
    NVGRAPH_MAX_MIN_SR      y = max(min(alpha, max(min(A, x))), min(beta, y))
                                                                   0⊕ = -inf, 1⊗ = +inf
    NVGRAPH_OR_AND_SR       y = (alpha and (A or.and x)) or (beta and y)   on {0, 1}

and the same for any other catalog semiring. ``beta`` equal to 0⊕ (the ⊗-annihilator: 0 for
plus_times, as the guide says "if beta is zero, y does not have to be a valid input") means
y is not read.

Defaults: ``alpha=None`` means 1⊗ and ``beta=None`` means "y is not read", which for
plus_times are nvGRAPH's example values alpha = 1, beta = 0; for min_plus they are alpha = 0
and beta = +inf (a literal alpha = 1 would add 1 to every entry).

The result is full (every vertex has a value), as nvGRAPH's vertex set is: a row of A with no
entries gives alpha ⊗ 0⊕ ⊕ beta ⊗ y(i). ±inf stay ±inf (the guide's set is R ∪ {-∞, +∞}).
OR_AND on float data runs at BOOL (nonzero is true) and is stored back as 1.0 / 0.0.

Cached properties: none. References: nvGRAPH 9.2 guide 2.23 (Merrill's merge-path CSR SpMV
there; here the engine's mxv).

NOTE: nvGRAPH's own semiring identities are FLT_MAX-based; this uses true infinities.
"""
import numpy as np

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import backend
from grblas_gpu.errors import InvalidValue

from ._common import as_vector, float_type

__all__ = ["srspmv"]


def srspmv(A, x, semiring, alpha=None, beta=None, y=None):
    """y = alpha ⊗ (A ⊕.⊗ x) ⊕ beta ⊗ y (see the module docstring).

    ``semiring``: a catalog semiring, its name, or an nvGRAPH name (NVGRAPH_MIN_PLUS_SR).
    ``x``: a Vector or an array of length ncols. ``y``: a Vector (updated in place and
    returned), an array of length nrows, or None. Returns a full Vector of y's type (A's
    float type when y is not a Vector)."""
    sr = _semiring(semiring)
    if not isinstance(A, gg.Matrix):
        raise InvalidValue(f"srspmv: A must be a grblas_gpu.Matrix, got {type(A).__name__}")
    for s, what in ((alpha, "alpha"), (beta, "beta")):
        if s is not None and (np.ndim(s) != 0 or isinstance(s, str)):
            raise InvalidValue(f"srspmv: {what} must be a scalar, got {s!r}")
    nr, nc = A.shape
    out = y if isinstance(y, gg.Vector) else None
    dt = out.dtype if out is not None else float_type(A)
    xv = as_vector(x, nc, dt, "x")
    add, mul = sr.monoid, sr.multiply
    zero = _identity(add, dt)                       # 0⊕
    one = _times_identity(sr, dt)                   # 1⊗
    read_y = beta is not None and y is not None and not _same(beta, zero)
    t = gg.Vector(dt, nr)
    # t = A ⊕.⊗ x
    gg.mxv(t, A, xv, sr)
    if alpha is not None and not _same(alpha, one):
        # t = alpha ⊗ t
        gg.apply(t, t, mul, left=alpha)
    z = gg.Vector(dt, nr)
    if read_y:
        yv = as_vector(y, nr, dt, "y")
        if not _same(beta, one):
            # y = beta ⊗ y
            gg.apply(yv, yv, mul, left=beta)
        # z = t ⊕ y   (0⊕ where one side is missing)
        gg.ewise_union(z, t, zero, yv, zero, add)
    else:
        # z(:) = 0⊕
        gg.assign(z, zero, gg.ALL)
        # z⟨t.S⟩ = t
        gg.apply(z, t, semirings.unary.identity, accum=semirings.binary.second)
    if out is None:
        return z
    # y = z
    return gg.apply(out, z, semirings.unary.identity)


def _semiring(semiring):
    if semiring is None:
        raise InvalidValue("srspmv: a semiring is required")
    sr = semirings.lookup(semiring, "semiring")      # InvalidValue / DomainMismatch otherwise
    return getattr(sr, "op", sr)


def _identity(monoid, dt):
    """0⊕ at type dt (a BOOL-only monoid such as lor keeps its BOOL identity: False)."""
    t = dt if dt in monoid.types else gg.BOOL
    return monoid.identity_of(t).item()


def _times_identity(sr, dt):
    """1⊗ of the semiring's multiply, from the monoid of the same name where the catalog has
    one (times: 1, plus: 0, min: +inf, max: -inf, land: True); None where there is none."""
    try:
        m = semirings.lookup(sr.multiply.name, "monoid")
    except Exception:  # noqa: BLE001 -- no monoid of that name: no identity to skip on
        return None
    return _identity(m, dt)


def _same(a, b):
    if b is None:
        return False
    a, b = np.asarray(backend.to_host(a)).item(), np.asarray(backend.to_host(b)).item()
    return a == b or (a != a and b != b)
