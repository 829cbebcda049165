"""Comparing two results: structure exactly, values exactly or within a float tolerance.

Any result (a grblas_gpu, python-graphblas or dense-mimic Matrix / Vector, or a scalar) is
first put in one canonical form (``canonical``): kind, shape, type name, sorted coordinates
and values as host NumPy arrays.

Tolerance (floats only; BOOL and integers are compared exactly, since integer arithmetic
wraps the same way in every order and SuiteSparse's casts are deterministic): two values
x (ours) and y (reference) agree when both are NaN, or equal (infinities included), or

    |x - y| <= rtol * nterms * max(|x|, |y|, scale)

with rtol = 1e-5 for FP32 and 1e-12 for FP64. ``nterms`` is how many values can be combined
into one entry (the inner dimension bounded by the operands' entries, plus one for the
accumulator), because a monoid's reductions may be reassociated (GPU trees, FMA contraction)
and each reassociation moves the result by about one rounding of the partial sums; ``scale``
is the magnitude of the terms (the largest input value, or product of the two largest, or
the largest result value), so that cancellation to a small sum is not held to a relative
error the sum's terms cannot deliver. FP32's bound sits about 100x above its unit roundoff
(6e-8) times the terms; FP64's about 10,000x above 1.1e-16, to allow libm differences in
transcendental operators (sin, lgamma...) between CUDA, SuiteSparse and NumPy.

``determined`` (for the ANY monoid, whose value is any one of the candidates): a boolean
array over the reference's entries; values are compared only where it is True.
"""
from dataclasses import dataclass

import numpy as np

__all__ = ["Canonical", "canonical", "compare", "RTOL", "explain"]

RTOL = {"FP32": 1e-5, "FP64": 1e-12}


@dataclass
class Canonical:
    kind: str        # "matrix", "vector" or "scalar"
    shape: tuple
    dtype: str       # GraphBLAS type name, or None for a plain Python scalar
    keys: tuple      # (rows, cols) or (indices,), int64 host arrays; () for a scalar
    values: np.ndarray

    @property
    def nvals(self):
        return len(self.values)


def _type_name(dtype):
    name = getattr(dtype, "name", None) or str(dtype)
    return {"bool": "BOOL", "float32": "FP32", "float64": "FP64"}.get(name, name.upper())


def canonical(x):
    """The canonical form of a Matrix, Vector or scalar from any of the three libraries."""
    if hasattr(x, "nrows") and hasattr(x, "to_coo"):
        rows, cols, vals = x.to_coo()
        rows, cols, vals = (np.asarray(a) for a in (rows, cols, vals))
        order = np.lexsort((cols, rows))
        return Canonical("matrix", (int(x.nrows), int(x.ncols)), _type_name(x.dtype),
                         (rows.astype(np.int64)[order], cols.astype(np.int64)[order]),
                         vals[order])
    if hasattr(x, "size") and hasattr(x, "to_coo") and not isinstance(x, np.ndarray):
        idx, vals = (np.asarray(a) for a in x.to_coo())
        order = np.argsort(idx, kind="stable")
        return Canonical("vector", (int(x.size),), _type_name(x.dtype),
                         (idx.astype(np.int64)[order],), vals[order])
    if hasattr(x, "value") and hasattr(x, "dtype") and not isinstance(x, np.generic):  # gb.Scalar
        v = x.value
        vals = np.array([] if v is None else [v], dtype=np.dtype(x.dtype.np_type))
        return Canonical("scalar", (), _type_name(x.dtype), (), vals)
    if x is None:
        return Canonical("scalar", (), None, (), np.array([]))
    arr = np.asarray(x)
    return Canonical("scalar", (), _type_name(arr.dtype) if isinstance(x, np.generic) else None,
                     (), arr.reshape(1))


def compare(ours, ref, *, nterms=2, scale=0.0, determined=None, check_dtype=True,
            computed_in=None):
    """None when they agree, else a short text saying how they differ. ``computed_in``: the
    type the values were computed in, when it is less precise than their own (FP32 values
    in an FP64 result are held to FP32's tolerance)."""
    a, b = canonical(ours), canonical(ref)
    if a.kind != b.kind or a.shape != b.shape:
        return f"shape: ours {a.kind} {a.shape}, reference {b.kind} {b.shape}"
    if check_dtype and a.dtype and b.dtype and a.dtype != b.dtype:
        return f"type: ours {a.dtype}, reference {b.dtype}"
    if a.nvals != b.nvals or any(not np.array_equal(x, y) for x, y in zip(a.keys, b.keys)):
        return _structure_text(a, b)
    dtype = b.dtype or a.dtype
    if computed_in == "FP32" and dtype == "FP64":
        dtype = "FP32"
    bad = _value_mismatch(a.values, b.values, dtype, nterms, scale)
    if computed_in in ("FP32", "FP64") and a.values.dtype.kind in "iu":
        # a float result truncated to an integer type: libm's last bits (hypot's 6.9999 or
        # 7) may move it by one from one library or device to another
        bad &= np.abs(a.values.astype(np.float64) - b.values.astype(np.float64)) > 1
    if determined is not None:
        bad &= determined
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        where = tuple(int(key[k]) for key in a.keys)
        return (f"values differ at {int(bad.sum())} of {a.nvals} entries, first at "
                f"{where if where else 'the scalar'}: ours {a.values[k]!r}, "
                f"reference {b.values[k]!r}")
    return None


def _value_mismatch(x, y, dtype, nterms, scale):
    if x.dtype.kind != "f" and y.dtype.kind != "f":
        if x.dtype == y.dtype:
            return x != y
        return np.array([p != q for p, q in zip(x.tolist(), y.tolist())], dtype=bool)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        same = (x64 == y64) | (np.isnan(x64) & np.isnan(y64))
        rtol = RTOL.get(dtype, RTOL["FP64"]) * max(nterms, 1)
        mag = np.maximum(np.maximum(np.abs(x64), np.abs(y64)), scale)
        close = np.abs(x64 - y64) <= rtol * mag
    return ~(same | (close & np.isfinite(x64) & np.isfinite(y64)))


def _structure_text(a, b):
    ka = set(zip(*(k.tolist() for k in a.keys))) if a.keys else set()
    kb = set(zip(*(k.tolist() for k in b.keys))) if b.keys else set()
    if not a.keys:
        return f"scalar: ours {a.values.tolist()}, reference {b.values.tolist()}"
    extra, missing = sorted(ka - kb), sorted(kb - ka)
    out = [f"structure: ours {a.nvals} entries, reference {b.nvals}"]
    if extra:
        out.append(f"only in ours: {_fmt_keys(extra)}")
    if missing:
        out.append(f"only in reference: {_fmt_keys(missing)}")
    return "; ".join(out)


def _fmt_keys(keys, k=5):
    keys = [k_[0] if len(k_) == 1 else k_ for k_ in keys]
    more = f" ... (+{len(keys) - k})" if len(keys) > k else ""
    return ", ".join(map(str, keys[:k])) + more


def explain(ours, ref):
    """A printable side-by-side of the entries where two results differ (for reproducers:
    structure and values, exactly)."""
    a, b = canonical(ours), canonical(ref)
    if a.kind == "scalar" or b.kind == "scalar":
        return f"ours: {a.values.tolist()}  reference: {b.values.tolist()}"
    da = dict(zip(zip(*(k.tolist() for k in a.keys)), a.values.tolist()))
    db = dict(zip(zip(*(k.tolist() for k in b.keys)), b.values.tolist()))
    lines = [f"ours: {a.kind} {a.shape} {a.dtype}, {a.nvals} entries; "
             f"reference: {b.kind} {b.shape} {b.dtype}, {b.nvals} entries"]
    for key in sorted(set(da) | set(db)):
        x, y = da.get(key, "-"), db.get(key, "-")
        if x != y and not (isinstance(x, float) and isinstance(y, float) and x != x and y != y):
            lines.append(f"  {key if len(key) > 1 else key[0]}: ours {x!r}  reference {y!r}")
    if len(lines) == 1:
        lines.append("  (no entry differs exactly: the difference is within float rounding)")
    return "\n".join(lines[:40] + ([f"  ... {len(lines) - 40} more"] if len(lines) > 40 else []))
