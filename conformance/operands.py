"""Operands: what a case computes on, as a small hashable description and as data.

An ``Operand`` names a shape, a type and a fill (how many entries, where); ``data(op)``
turns it into host COO arrays, deterministically from its seed, so a case replays exactly.
The same arrays build the grblas_gpu object, the python-graphblas object and the dense
mimic's object (each library's ``Matrix.from_coo`` / ``Vector.from_coo``), and are printed
as literals in reproducers.

Fills: ``empty``, ``one`` (one entry), ``few`` (hypersparse: three entries on rows and
columns drawn from a small pool, so that products of two ``few`` operands meet), ``sparse``
(20%), ``half``, ``full``, ``file`` (a LAGraph Matrix Market file, read with
grblas_gpu.io.read_mm, cast to the operand's type), ``dups`` (unsorted coordinates with
repeats, drawn from a few positions: a build's input tuples).

Storage: ``dense`` (a grblas_gpu Vector in its bitmap form), ``iso`` (every value equal,
built from one scalar: an iso-valued object in both libraries), ``tuples`` (not an object:
the host arrays themselves, for a build).
"""
import functools
import os
import pathlib
from dataclasses import dataclass, replace as _replace

import numpy as np

__all__ = ["Operand", "Data", "data", "lagraph_dir", "lagraph_files", "HUGE"]

# "int64-sized": the dimension of hypersparse cases; beyond int32, far beyond memory if dense
HUGE = 2**40

_DENSITY = {"sparse": 0.2, "half": 0.5, "full": 1.0}


@dataclass(frozen=True)
class Operand:
    kind: str          # "matrix" or "vector"
    shape: tuple       # (nrows, ncols) or (size,)
    dtype: str         # GraphBLAS type name
    fill: str          # see the module docstring
    seed: int = 0
    file: str = None   # LAGraph file name when fill == "file"
    domain: str = None  # "nonzero", "small" (0..3) or "special": see random_values
    storage: str = None  # "dense", "iso" or "tuples": see the module docstring

    def with_(self, **changes):
        return _replace(self, **changes)

    @property
    def label(self):
        dims = "x".join("2**40" if d == HUGE else str(d) for d in self.shape)
        what = self.file if self.fill == "file" else self.fill
        extra = "".join(f",{x}" for x in (self.storage, self.domain)
                        if x in ("dense", "iso", "special"))
        return f"{what}({dims},{self.dtype}{extra})"


@dataclass
class Data:
    """Host COO arrays of an operand (``cols`` is None for a vector)."""

    kind: str
    shape: tuple
    dtype: str
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    storage: str = None

    @property
    def nvals(self):
        return len(self.rows)

    def restricted(self, keep):
        """The same operand with only the entries where ``keep`` (a bool array) holds."""
        return Data(self.kind, self.shape, self.dtype, self.rows[keep],
                    None if self.cols is None else self.cols[keep], self.values[keep],
                    self.storage)

    def build(self, lib):
        """This operand in ``lib`` (grblas_gpu, graphblas or conformance.spec)."""
        if self.storage == "tuples":  # the same host arrays for every library
            keys = (self.rows,) if self.cols is None else (self.rows, self.cols)
            return (*(k.copy() for k in keys), self.values.copy())
        values = self.values
        if self.storage == "iso" and self.nvals:
            values = self.values[0].item()
        if self.kind == "vector":
            v = lib.Vector.from_coo(self.rows, values, size=self.shape[0], dtype=self.dtype)
            if self.storage == "dense" and hasattr(v, "set_format"):  # grblas_gpu only
                v.set_format("dense")
            return v
        return lib.Matrix.from_coo(self.rows, self.cols, values, nrows=self.shape[0],
                                   ncols=self.shape[1], dtype=self.dtype)


def data(op):
    """The operand's entries (cached: cases share operands, and the shrinker rebuilds often)."""
    return _data(op)


@functools.lru_cache(maxsize=512)
def _data(op):
    rng = np.random.default_rng(op.seed)
    if op.fill == "file":
        rows, cols, values = _file_coo(op.file, op.dtype)
    else:
        rows, cols = _coordinates(rng, op.shape, op.fill)
        values = random_values(rng, len(rows), op.dtype, op.domain)
    if op.storage == "iso":
        values = np.full(len(rows), values[0] if len(values) else 0, dtype=values.dtype)
    if op.kind == "vector":
        return Data("vector", op.shape, op.dtype, rows, None, values, op.storage)
    return Data("matrix", op.shape, op.dtype, rows, cols, values,
                op.storage if op.storage in ("iso", "tuples") else None)


def _coordinates(rng, shape, fill):
    """Sorted, unique (rows, cols) for a fill; cols is zeros for a vector."""
    n = int(np.prod([int(d) for d in shape], dtype=object))
    ncols = int(shape[1]) if len(shape) == 2 else 1
    if fill in ("empty", "one", "few") or n == 0:  # exact Python ints: dimensions up to 2**40
        if fill == "empty" or n == 0:
            picks = []
        elif fill == "one":
            picks = [_pick(rng, shape)]
        else:
            picks = {_pick(rng, shape, pool=True) for _ in range(3)}
        flat = sorted(int(f) for f in picks)
        return (np.array([f // ncols for f in flat], dtype=np.int64),
                np.array([f % ncols for f in flat], dtype=np.int64))
    if fill == "dups" and n:  # repeats of a few positions, in no order (exact Python ints)
        pool = [_pick(rng, shape, pool=n > 10**7) for _ in range(4)]
        flat = [pool[k] for k in rng.integers(len(pool), size=int(rng.integers(1, 13)))]
        return (np.array([f // ncols for f in flat], dtype=np.int64),
                np.array([f % ncols for f in flat], dtype=np.int64))
    if n > 10**7:
        raise ValueError(f"fill {fill!r} on {shape} would hold too many entries")
    if fill == "skewed":
        # about 4 entries a row, plus a full row 0: a heavy row (a full column as well would
        # make a product's output an outer product, millions of entries)
        nrows = n // ncols
        parts = [rng.integers(0, n, size=4 * nrows)]
        if len(shape) == 2:
            parts.append(np.arange(ncols))
        flat = np.unique(np.concatenate(parts))
    else:
        flat = np.sort(rng.choice(n, size=int(round(_DENSITY[fill] * n)), replace=False))
    rows, cols = np.divmod(flat.astype(np.int64), ncols)
    return rows, cols


def _pick(rng, shape, pool=False):
    """A random linear position; ``pool`` draws each coordinate from {0, 1, 7, 2**33+5, n-1}
    (those below n), so that sparse operands of huge dimension still meet in products."""
    idx = []
    for d in shape:
        d = int(d)
        if pool:
            choices = sorted({c for c in (0, 1, 7, 2**33 + 5, d - 1) if 0 <= c < d})
            idx.append(int(choices[rng.integers(len(choices))]))
        else:
            idx.append(int(rng.integers(d)))
    if len(shape) == 1:
        return idx[0]
    return idx[0] * int(shape[1]) + idx[1]


def random_values(rng, n, dtype, domain=None):
    """Small values that keep integer arithmetic interesting (zeros included: value masks,
    division) without making every product overflow. ``domain`` narrows them where
    python-graphblas's numba-built operators leave integers undefined: "nonzero" (floordiv
    by 0) or "small", 0..3 (rpow: numba wraps and mishandles negative exponents, where
    SuiteSparse's pow saturates). "special" mixes NaN, ±inf and -0.0 into float values."""
    npt = np.dtype(_np_name(dtype))
    if domain == "special" and npt.kind == "f":
        v = rng.uniform(-4, 4, size=n).astype(npt)
        pick = rng.random(n) < 0.4
        v[pick] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0], dtype=npt), size=n)[pick]
        return v
    if npt.kind == "b":
        if domain == "nonzero":
            return np.ones(n, dtype=bool)
        return rng.integers(0, 2, size=n).astype(bool)
    if npt.kind in "iu" and domain == "small":
        return rng.integers(0, 4, size=n).astype(npt)
    if npt.kind == "u":
        return rng.integers(1 if domain == "nonzero" else 0, 10, size=n).astype(npt)
    if npt.kind == "i":
        v = rng.integers(-5, 6, size=n)
        return (np.where(v == 0, 3, v) if domain == "nonzero" else v).astype(npt)
    return rng.uniform(-4, 4, size=n).astype(npt)


def random_scalar(rng, dtype):
    return random_values(rng, 1, dtype)[0].item()


def _np_name(dtype):
    return {"BOOL": "bool", "FP32": "float32", "FP64": "float64"}.get(dtype, dtype.lower())


# ---------------------------------------------------------------------- LAGraph files
def lagraph_dir():
    """$GRBLAS_GPU_LAGRAPH_DATA, else ../shared/data/lagraph beside the repository (or
    shared/data/lagraph inside it, where a checkout carries one)."""
    env = os.environ.get("GRBLAS_GPU_LAGRAPH_DATA")
    if env:
        return pathlib.Path(env)
    repo = pathlib.Path(__file__).resolve().parent.parent
    for cand in (repo.parent / "shared" / "data" / "lagraph", repo / "shared" / "data" / "lagraph"):
        if cand.is_dir():
            return cand
    return repo.parent / "shared" / "data" / "lagraph"


@functools.lru_cache(maxsize=1)
def lagraph_files():
    """{name: (shape, dtype name, nvals)} of every file read_mm loads, and {name: reason} of
    those it rejects (the mangled ones: negative tests belong to the reader's own tests)."""
    import grblas_gpu.io

    loaded, rejected = {}, {}
    folder = lagraph_dir()
    if not folder.is_dir():
        return loaded, {"*": f"no LAGraph data at {folder} (set GRBLAS_GPU_LAGRAPH_DATA)"}
    for path in sorted(folder.glob("*.mtx")):
        try:
            A = grblas_gpu.io.read_mm(str(path))
        except Exception as e:  # the reader's errors are its own tests' business
            rejected[path.name] = f"{type(e).__name__}"
            continue
        loaded[path.name] = (A.shape, A.dtype.name, A.nvals)
    return loaded, rejected


@functools.lru_cache(maxsize=64)
def _file_coo(name, dtype):
    import grblas_gpu.io

    A = grblas_gpu.io.read_mm(str(lagraph_dir() / name))
    rows, cols, values = A.to_coo()
    import grblas_gpu.types as gt

    values = gt.cast(values, dtype)  # SuiteSparse's typecast, as a GrB_Matrix_dup to the type
    return rows.astype(np.int64), cols.astype(np.int64), np.asarray(values)
