"""Warm-up: build ahead of time the kernels that common loops use, so that none is compiled
in the middle of one (``gg.warmup()``, ``grblas-gpu warmup``).

On a GPU each new specialisation (operation × operator × types × mask kind × operand forms)
compiles a module with NVRTC at its first call: 0.1 to 1 s each, or milliseconds when CuPy
finds it in its disk cache (``CUPY_CACHE_DIR``). The warm-up runs each operation of the
common set once, on a small R-MAT graph, exactly as a user's call would: there is no second
compile path, so what it builds is what real calls look up. The modules land in the
process's kernel cache and in CuPy's disk cache, where later processes load them.

The common set (:data:`OPERATIONS`, :data:`TYPES`, :data:`SEMIRINGS`) is what BFS, SSSP,
PageRank, connected components, betweenness, triangle counting and loops written like
LAGraph's use. For each type T the graph holds values of T and each product runs with u of
type T and of the product's own output type (a loop feeds a result back: BFS's frontier):

    mxv, vxm    pull and push, each unmasked and with w⟨¬struct(π), replace⟩ (BFS), u
                sparse, as a bitmap and full
    mxm         C = A ⊕.⊗ A unmasked and C⟨struct(A)⟩ (triangle counting); C⟨¬struct(P),
                replace⟩ = A ⊕.⊗ F with F n×4 (betweenness)
    ewise_add   the semirings' monoids (any, min, plus), also as accumulator (CC)
    ewise_mult  the semirings' non-positional multiplies, and ne, lt (convergence tests)
    apply       identity, unmasked and w⟨m, replace⟩ (SSSP), one on a matrix
    select      valuelt, valuegt (vectors), tril (matrices)
    assign      w⟨struct(q)⟩ = q, w⟨struct(q)⟩ = s, w = s, w += u
    reduce      the semirings' monoids, to a scalar and by rows

each over sparse and dense vectors. A kernel whose choice depends on the graph's shape (the
pull's per-row plan, its long-row variant) may still be built at a first call on another
graph: the log (logger ``grblas_gpu.kernels``) and ``gg.kernel_stats()`` say so.

On the NumPy backend the same calls run (quickly) and nothing is built.
"""
import sys
import time
from typing import NamedTuple

import numpy as np

from . import generate, operations, operators
from .compile_log import kernel_stats
from .descriptor import Descriptor
from .errors import DomainMismatch, GraphBLASError, InvalidValue, NotSupported, TypeNotSupported
from .matrix import Matrix
from .types import lookup_dtype
from .vector import Vector

__all__ = ["warmup", "WarmupSummary", "OPERATIONS", "TYPES", "SEMIRINGS"]

OPERATIONS = ("mxv", "vxm", "mxm", "ewise_add", "ewise_mult", "apply", "select", "assign",
              "reduce")
TYPES = ("BOOL", "INT32", "INT64", "FP32", "FP64")
SEMIRINGS = ("any_pair", "any_secondi", "min_plus", "plus_times", "plus_second", "min_second")
COMPARISONS = ("ne", "lt")   # ewise_mult's tests of convergence (CC, SSSP)

SCALE, EDGE_FACTOR, NARROW = 8, 8, 4   # the graph: 256 vertices, R-MAT; F: n × NARROW

_REPLACE = Descriptor(replace=True)
_SKIPPED = (DomainMismatch, TypeNotSupported, NotSupported)   # undefined for the type


class WarmupSummary(NamedTuple):
    """What :func:`warmup` did: ``calls`` operations run, ``skipped`` combinations not
    defined for their type; of the modules built, ``compiled`` by NVRTC, ``from_disk``
    loaded from CuPy's disk cache, ``unknown`` not told apart; ``compile_seconds`` spent
    building them, ``seconds`` in all."""
    calls: int
    skipped: int
    modules: int
    compiled: int
    from_disk: int
    unknown: int
    compile_seconds: float
    seconds: float

    def __str__(self):
        return (f"warm-up: {self.calls} calls ({self.skipped} combinations undefined for "
                f"their type skipped), {self.modules} kernel modules built ({self.compiled} "
                f"compiled, {self.from_disk} from CuPy's disk cache, {self.unknown} not told "
                f"apart) in {self.compile_seconds:.2f} s; {self.seconds:.2f} s in all")


def warmup(operations=None, types=None, semirings=None, *, progress=False):
    """Build ahead of time the kernels of the common set (module docstring): ``operations``
    names from OPERATIONS, ``types`` GraphBLAS types or their names, ``semirings`` semirings
    or their names (each None: the whole default set, a single name: just it).
    ``progress=True`` shows a progress bar on stderr (tqdm when installed, else a line per
    operation). Returns a :class:`WarmupSummary`."""
    ops = _names(operations, OPERATIONS, "operations")
    bad = [o for o in ops if o not in OPERATIONS]
    if bad:
        raise InvalidValue(f"warmup: unknown operation {bad[0]!r}; choose from "
                           f"{', '.join(OPERATIONS)}")
    tys = [_type(t) for t in _names(types, TYPES, "types", objects=True)]
    srs = [_semiring(s) for s in _names(semirings, SEMIRINGS, "semirings", objects=True)]
    if not isinstance(progress, bool):
        raise InvalidValue(f"warmup: progress must be True or False, got {progress!r:.40}")

    start = time.perf_counter()
    before = kernel_stats()
    graph = _graph()
    calls = skipped = 0
    steps = [(op, t) for op in ops for t in tys]
    for op, t in _progress(steps, progress):
        done, undefined = _run(op, t, srs, graph)
        calls += done
        skipped += undefined
    after = kernel_stats()
    return WarmupSummary(
        calls, skipped, after.modules - before.modules, after.compiled - before.compiled,
        after.from_disk - before.from_disk, after.unknown - before.unknown,
        max(0.0, after.seconds - before.seconds), time.perf_counter() - start)


# ---------------------------------------------------------------- arguments
def _names(value, default, what, objects=False):
    """The list a selection names: None the default, one name (or, with ``objects``, one
    type or semiring) itself, else a list, tuple or set of them."""
    if value is None:
        return list(default)
    if isinstance(value, str) or (objects and not isinstance(value, _COLLECTIONS)):
        value = [value]
    if not isinstance(value, _COLLECTIONS):
        raise InvalidValue(f"warmup: {what} must be a name, a list of names or None, "
                           f"got {type(value).__name__}")
    out = list(value)
    if not out:
        raise InvalidValue(f"warmup: {what} is empty")
    if not objects:
        for v in out:
            if not isinstance(v, str):
                raise InvalidValue(f"warmup: {what} must hold names, got {v!r:.40}")
    return out


_COLLECTIONS = (list, tuple, set, frozenset)


def _type(t):
    try:
        return lookup_dtype(t)
    except GraphBLASError:
        raise
    except Exception:   # noqa: BLE001  (any other object: not a type)
        raise InvalidValue(f"warmup: not a GraphBLAS type: {t!r:.40}") from None


def _semiring(s):
    catalog = operators.catalog()
    found = catalog.lookup(s, kind="semiring")
    if not isinstance(found, catalog.Semiring):
        raise InvalidValue(f"warmup: not a semiring: {s!r:.40}")
    return found


def _progress(steps, show):
    if not show:
        return steps
    try:
        from tqdm import tqdm
    except ImportError:
        return _lines(steps)
    return tqdm(steps, desc="warm-up", unit="step", file=sys.stderr)


def _lines(steps):
    for k, (op, t) in enumerate(steps, 1):
        print(f"warm-up {k}/{len(steps)}: {op} {t.name}", file=sys.stderr, flush=True)
        yield op, t


# ---------------------------------------------------------------- the operands
class _Graph(NamedTuple):
    n: int
    rows: np.ndarray
    cols: np.ndarray
    frontier: np.ndarray   # a few vertices: a sparse u, and π of a search under way


def _graph():
    A = generate.rmat(SCALE, EDGE_FACTOR, seed=1)
    rows, cols, _ = A.to_coo(values=False)   # (on the host)
    n = A.nrows
    return _Graph(n, rows, cols, np.arange(0, n, 37))


def _values(t, k):
    """k values of type t, varied (not iso) and positive."""
    return (np.arange(k) % 7 + 1).astype(t.np_type)


def _matrix(g, t):
    return Matrix.from_coo(g.rows, g.cols, _values(t, len(g.rows)), nrows=g.n, ncols=g.n,
                           dtype=t)


def _vectors(g, t):
    """u sparse, u a bitmap (not full), u full: the forms a loop's vectors take."""
    sparse = Vector.from_coo(g.frontier, _values(t, len(g.frontier)), size=g.n, dtype=t)
    bitmap = sparse.dup()
    bitmap.set_format("dense")
    full = Vector.from_dense(_values(t, g.n), dtype=t)
    return {"sparse": sparse, "bitmap": bitmap, "full": full}


# ---------------------------------------------------------------- the calls
def _run(op, t, srs, g):
    """Run operation ``op`` at type ``t``: (calls made, combinations undefined)."""
    calls = skipped = 0
    for call in _CALLS[op](t, srs, g):
        try:
            call()
            calls += 1
        except _SKIPPED:
            skipped += 1
    return calls, skipped


def _out_type(sr, t):
    return operators.semiring(sr, t, t).monoid.type


def _per_semiring(srs, t, calls):
    """The calls ``calls(sr, tout)`` gives for each semiring (tout: its output type at t);
    one _undefined call (counted as skipped) for a semiring t does not define."""
    for sr in srs:
        try:
            tout = _out_type(sr, t)
        except _SKIPPED:
            yield _undefined
            continue
        yield from calls(sr, tout)


def _products(op, t, srs, g):
    A = _matrix(g, t)
    product = operations.mxv if op == "mxv" else operations.vxm

    def calls(sr, tout):
        for tu in dict.fromkeys((t, tout)):
            us = _vectors(g, tu)
            pi = us["sparse"]   # π of a search under way
            for u in us.values():
                for direction in ("push", "pull"):
                    for masked in (False, True):
                        yield _product_call(product, op, A, u, sr, tout, g.n, direction,
                                            pi if masked else None)
    yield from _per_semiring(srs, t, calls)


def _product_call(product, op, A, u, sr, tout, n, direction, pi):
    def call():
        w = Vector(tout, n)
        args = (w, A, u) if op == "mxv" else (w, u, A)
        if pi is None:
            product(*args, sr, direction=direction)
        else:   # w⟨¬struct(π), replace⟩ = A ⊕.⊗ u
            product(*args, sr, mask=~pi.S, desc=_REPLACE, direction=direction)
    return call


def _undefined():
    raise DomainMismatch("undefined for the type")


def _mxm(t, srs, g):
    A = _matrix(g, t)
    F = Matrix.from_coo(g.frontier % g.n, np.arange(len(g.frontier)) % NARROW,
                        _values(t, len(g.frontier)), nrows=g.n, ncols=NARROW, dtype=t)
    P = F.dup()

    def calls(sr, tout):
        # C = A ⊕.⊗ A
        yield lambda: operations.mxm(Matrix(tout, g.n, g.n), A, A, sr)
        # C⟨struct(A)⟩ = A ⊕.⊗ A
        yield lambda: operations.mxm(Matrix(tout, g.n, g.n), A, A, sr, mask=A.S)
        # C⟨¬struct(P), replace⟩ = A ⊕.⊗ F
        yield lambda: operations.mxm(Matrix(tout, g.n, NARROW), A, F, sr, mask=~P.S,
                                     desc=_REPLACE)
    yield from _per_semiring(srs, t, calls)


def _monoids(srs):
    return list(dict.fromkeys(sr.monoid.name for sr in srs))


def _multiplies(srs):
    return list(dict.fromkeys(sr.multiply.name for sr in srs if not sr.multiply.positional))


def _ewise(op, t, srs, g):
    names = _monoids(srs) if op == "ewise_add" else _multiplies(srs) + list(COMPARISONS)
    fn = operations.ewise_add if op == "ewise_add" else operations.ewise_mult
    us, A = _vectors(g, t), _matrix(g, t)
    for name in names:
        for u in us.values():
            for v in us.values():
                yield lambda u=u, v=v, name=name: fn(Vector(u.dtype, g.n), u, v, name)
        if op == "ewise_add":   # w = accum(w, u ⊕ v), as CC's f = min(f, ...)
            yield lambda name=name: fn(us["full"].dup(), us["full"], us["sparse"], name,
                                       accum=name)
        yield lambda name=name: fn(Matrix(t, g.n, g.n), A, A, name)


def _apply(t, srs, g):
    us, A = _vectors(g, t), _matrix(g, t)
    for u in us.values():
        # w = u; w⟨m, replace⟩ = u; w⟨m⟩ = u (SSSP's relaxations)
        yield lambda u=u: operations.apply(Vector(t, g.n), u, "identity")
        yield lambda u=u: operations.apply(us["full"].dup(), u, "identity",
                                           mask=us["sparse"].V, desc=_REPLACE)
        yield lambda u=u: operations.apply(us["full"].dup(), u, "identity",
                                           mask=us["sparse"].V)
    yield lambda: operations.apply(Matrix(t, g.n, g.n), A, "one")


def _select(t, srs, g):
    us, A = _vectors(g, t), _matrix(g, t)
    thunk = t.np_type.type(1)
    for name in ("valuelt", "valuegt"):
        for u in us.values():
            yield lambda u=u, name=name: operations.select(Vector(t, g.n), u, name, thunk)
    yield lambda: operations.select(Matrix(t, g.n, g.n), A, "tril", -1)


def _assign(t, srs, g):
    us = _vectors(g, t)
    q = us["sparse"]
    one = t.np_type.type(1)
    ALL = operations.ALL
    for w in us.values():
        yield lambda w=w: operations.assign(w.dup(), q, ALL, mask=q.S)    # π⟨struct(q)⟩ = q
        yield lambda w=w: operations.assign(w.dup(), one, ALL, mask=q.S)  # d⟨struct(q)⟩ = k
        yield lambda w=w: operations.assign(w.dup(), one, ALL)            # w = s
        yield lambda w=w: operations.assign(w.dup(), us["full"], ALL,     # w += u
                                            accum=_monoids(srs)[0])


def _reduce(t, srs, g):
    us, A = _vectors(g, t), _matrix(g, t)
    for name in _monoids(srs):
        for x in (*us.values(), A):
            yield lambda x=x, name=name: operations.reduce_scalar(x, name)
        yield lambda name=name: operations.reduce_rowwise(Vector(t, g.n), A, name)


_CALLS = {
    "mxv": lambda t, srs, g: _products("mxv", t, srs, g),
    "vxm": lambda t, srs, g: _products("vxm", t, srs, g),
    "mxm": _mxm,
    "ewise_add": lambda t, srs, g: _ewise("ewise_add", t, srs, g),
    "ewise_mult": lambda t, srs, g: _ewise("ewise_mult", t, srs, g),
    "apply": _apply,
    "select": _select,
    "assign": _assign,
    "reduce": _reduce,
}
