"""Fused traversal: a direction-optimising breadth-first search as one engine primitive.

    dist, parent = gg.traverse(S, source, ST=None, alpha=None, beta=None, trace=None)

S: a square Matrix whose stored entries are the edges (S(i, j): an edge i -> j; values are
not read). ST: Sᵀ's pattern as a Matrix (S itself when S is symmetric), or None: then every
level pushes. It computes what LAGraph writes as GraphBLAS calls (algorithms.bfs's
``method="semiring"``), for levels k = 1, 2, ...:

    push:  q⟨¬pi.S, replace⟩ = q any.secondi S      (each unreached child of the frontier)
    pull:  q⟨¬pi.S, replace⟩ = Sᵀ any.secondi q     (each unreached vertex asks its in-
                                                      neighbours; ANY stops at the first)
    dist⟨q.S⟩ = k ;  parent⟨q.S⟩ = q ;  [mf nf] = [Σ deg(q)  |q|]
    the next level's direction: next_direction(...)

but each level is ONE fused kernel (grblas_gpu.kernels.bfs) and the level loop runs on the
device: the last block of a level applies the direction rule to its counts and sets a stop
flag that the next level's kernel reads. The host issues BATCH levels at a time, recorded
once (``gg.Replay``: a CUDA graph), and reads the stop flag once per batch: the only device
read of a search. On the NumPy backend the same levels run on the host, one at a time.

Results (nvGRAPH's): dense int32 backend arrays of length n, new for each search;
dist[source] = 0, dist = UNREACHED (2**31 - 1) where unreached; parent[source] = -1,
parent = -1 where unreached. Only levels are unique: parent is one valid BFS tree.

Direction (Beamer, Asanović, Patterson, SC 2012; nvGRAPH's bfs.cu): DIRECTION_RULE below,
written once. :func:`next_direction` evaluates it; the kernel runs it rendered to C
(:func:`rule_in_c`), in the last block of each level.

Capability: :func:`supports` says whether S (and ST) fit the fused kernels: square, ST of
S's shape, at most 2**31 - 1 vertices (int32 ids, as nvGRAPH's 32-bit topologies) and
2**33 - 1 edges (a frontier list's edge offsets share a 64-bit word with its length).
:func:`traverse` raises where it says no; algorithms.bfs's ``method="auto"`` takes the
GraphBLAS formulation there.

Workspace (kept with S: ``Matrix.memo``): the level kernels' state and lists and the
recorded batch. A search holds one for its duration, so searches on one graph from several
threads each use their own (as many are made as run at once, kept for later searches). One
made with another ST object, or before ST was given new content, is dropped.

Trace: ``trace(dict)`` per level: {iteration, direction ("push"/"pull"), frontier (the
vertices the level found), edges (the edges out of them), unexplored (the edges not yet
explored as the level began), path ("fused")}. It is computed after the search from the
levels found (the frontier of level k is dist == k) with the same rule, so it costs the
search nothing.

References: Beamer et al., "Direction-Optimizing Breadth-First Search", SC 2012; LAGraph
LG_BreadthFirstSearch_SSGrB.c; nvGRAPH 9.2 guide 2.28.
"""
import ast
import math

import numpy as np

from . import backend
from ._validate import as_flag, as_int
from .errors import DimensionMismatch, IndexOutOfBounds, InvalidValue
from .kernels.bfs import BATCH, MAX_EDGES, UNREACHED, Levels
from .matrix import Matrix
from .replay import Replay

__all__ = ["traverse", "supports", "next_direction", "rule_in_c", "DIRECTION_RULE",
           "UNREACHED", "DEFAULT_ALPHA", "DEFAULT_BETA", "MAX_VERTICES", "MAX_EDGES", "BATCH"]

MAX_VERTICES = 2**31 - 1  # vertex ids are int32, as the results are

# Beamer's thresholds with nvGRAPH's values (nvgraph bfs.hxx TRAVERSAL_DEFAULT_ALPHA/BETA).
DEFAULT_ALPHA = 15
DEFAULT_BETA = 18

# ---- Beamer's rule, the one definition: the next level's direction (true: push), from the
# level just run (push: its direction) and its counts: nf vertices found, mf edges out of
# them, seen edges out of all vertices reached so far, growing (nf grew); n vertices, m
# edges. push -> pull once the frontier's edges exceed 1/alpha of the edges not yet
# explored; pull -> push once the frontier shrinks below n/beta vertices; push only without
# Sᵀ (can_pull false). Python syntax: next_direction evaluates it, rule_in_c renders it for
# the level kernel (its names are the kernel's locals of the same names).
UNEXPLORED = "m - seen + mf"
TO_PULL = f"mf > ({UNEXPLORED}) / alpha"
TO_PUSH = "not growing and nf < n / beta"
DIRECTION_RULE = f"not can_pull or (not ({TO_PULL}) if push else {TO_PUSH})"

_RULE = compile(DIRECTION_RULE, "<DIRECTION_RULE>", "eval")
_NO_BUILTINS = {"__builtins__": {}}


def next_direction(push, *, mf, nf, seen, growing, n, m, alpha, beta, can_pull):
    """DIRECTION_RULE: True to push the next level, False to pull (see the module
    docstring). Counts are non-negative integers; alpha and beta positive numbers. The
    numbers are compared as doubles, as the kernel compares them."""
    names = {k: as_flag(v, f"next_direction: {k}")
             for k, v in (("push", push), ("growing", growing), ("can_pull", can_pull))}
    for k, v in (("mf", mf), ("nf", nf), ("seen", seen), ("n", n), ("m", m)):
        v = as_int(v, f"next_direction: {k}")
        if v < 0:
            raise InvalidValue(f"next_direction: {k} must be >= 0, got {v}")
        names[k] = float(v)
    names["alpha"], names["beta"] = _thresholds(alpha, beta, "next_direction")
    return bool(eval(_RULE, _NO_BUILTINS, names))  # noqa: S307 (our own constant expression)


def rule_in_c(expression=DIRECTION_RULE):
    """A rule (Python syntax: names, numbers, + - * /, comparisons, and/or/not, x if c
    else y) as a C expression over variables of the same names; numbers become doubles, so
    / divides as in Python."""
    def c(node):
        if isinstance(node, ast.BoolOp):
            op = " && " if isinstance(node.op, ast.And) else " || "
            return "(" + op.join(c(v) for v in node.values) + ")"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return "!" + c(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"(-{c(node.operand)})"
        if isinstance(node, ast.BinOp) and type(node.op) in _C_ARITHMETIC:
            return f"({c(node.left)} {_C_ARITHMETIC[type(node.op)]} {c(node.right)})"
        if (isinstance(node, ast.Compare) and len(node.ops) == 1
                and type(node.ops[0]) in _C_COMPARISONS):
            op = _C_COMPARISONS[type(node.ops[0])]
            return f"({c(node.left)} {op} {c(node.comparators[0])})"
        if isinstance(node, ast.IfExp):
            return f"({c(node.test)} ? {c(node.body)} : {c(node.orelse)})"
        if isinstance(node, ast.Name):
            return node.id
        if (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
                and not isinstance(node.value, bool) and math.isfinite(node.value)):
            return repr(float(node.value))
        raise InvalidValue(f"rule_in_c: {ast.unparse(node)!r} has no C rendering here")

    if not isinstance(expression, str):
        raise InvalidValue(f"rule_in_c: the rule must be a string, got "
                           f"{type(expression).__name__}")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as err:
        raise InvalidValue(f"rule_in_c: not an expression: {err.msg}") from None
    return c(tree.body)


_C_ARITHMETIC = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_C_COMPARISONS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
                  ast.NotEq: "!="}
_DIRECTION_C = rule_in_c()


def supports(S, ST=None):
    """Can :func:`traverse` search S (with ST)? True for a square S of at most
    MAX_VERTICES vertices and MAX_EDGES edges, with ST None or a Matrix of S's shape."""
    return _refusal(S, ST, "supports") is None


def _refusal(S, ST, what):
    """(error class, message) for what the fused levels cannot search, else None.
    InvalidValue at once for what is no matrix at all."""
    if not isinstance(S, Matrix):
        raise InvalidValue(f"{what}: S must be a grblas_gpu.Matrix, got {type(S).__name__}")
    if ST is not None and not isinstance(ST, Matrix):
        raise InvalidValue(f"{what}: ST must be a grblas_gpu.Matrix or None, got "
                           f"{type(ST).__name__}")
    if S.nrows != S.ncols:
        return DimensionMismatch, f"{what}: S must be square (an adjacency matrix), got {S.shape}"
    if ST is not None and ST.shape != S.shape:
        return DimensionMismatch, f"{what}: ST has shape {ST.shape}, S has {S.shape}"
    if S.nrows > MAX_VERTICES:
        return InvalidValue, f"{what}: at most 2**31 - 1 vertices, got {S.nrows}"
    if S.nvals > MAX_EDGES:
        return InvalidValue, f"{what}: at most 2**33 - 1 edges, got {S.nvals}"
    return None


def traverse(S, source, *, ST=None, alpha=None, beta=None, trace=None):
    """BFS from ``source`` over S's edges, pulling along ST's where the rule says so:
    (dist, parent), dense int32 backend arrays (see the module docstring). ``alpha``,
    ``beta``: the rule's thresholds (None: DEFAULT_ALPHA, DEFAULT_BETA). ``trace``: a
    callable given one dict per level. Raises where :func:`supports` says no, before
    anything is made."""
    refused = _refusal(S, ST, "traverse")
    if refused is not None:
        raise refused[0](refused[1])
    n = S.nrows
    source = as_int(source, "traverse: source")
    if not 0 <= source < n:
        raise IndexOutOfBounds(f"traverse: source {source} is out of range [0, {n})")
    alpha, beta = _thresholds(alpha, beta, "traverse")
    if trace is not None and not callable(trace):
        raise InvalidValue(f"traverse: trace must be callable or None, got "
                           f"{type(trace).__name__}")
    ws = _take_workspace(S, ST)
    # dist = ∞, parent = -1 ;  dist(source) = 0 ;  q = {source}
    dist, parent = ws.levels.start(source, alpha, beta)
    while True:
        ws.run_batch()                  # BATCH levels, each one fused kernel on the device
        if ws.levels.finished():        # the one device read: no edge leaves the frontier
            break
    _give_back(S, ws)
    if trace is not None:
        _trace(S, ST is not None, dist, alpha, beta, trace)
    return dist, parent


def _thresholds(alpha, beta, what):
    def number(x, name, default):
        if x is None:
            return float(default)
        try:
            x = float(x)
        except (TypeError, ValueError, OverflowError):
            raise InvalidValue(f"{what}: {name} must be a number, got {x!r:.40}") from None
        if not x > 0:   # (NaN fails too)
            raise InvalidValue(f"{what}: {name} must be positive, got {x}")
        return x

    return number(alpha, "alpha", DEFAULT_ALPHA), number(beta, "beta", DEFAULT_BETA)


# ---- the workspaces kept with S
_FREE = "grblas_gpu.traversal.free"   # S's memo: the workspaces no search holds now


class _Workspace:
    """The fused levels on one graph, their batch recorded (a CUDA graph on the GPU,
    replayed by later batches and later searches)."""

    def __init__(self, S, ST):
        sptr, sidx, _ = S._csr()
        self.ST = ST
        self.st_arrays = () if ST is None else ST._csr()[:2]   # what the recording reads
        tptr, tidx = self.st_arrays or (None, None)
        self.levels = Levels(sptr, sidx, tptr, tidx, S.nrows, rule=next_direction,
                             rule_c=_DIRECTION_C)
        self.run_batch = Replay(self.levels.run)

    def made_from(self, ST):
        """Made with this ST, which holds the same pattern arrays still? (A recording reads
        ST's arrays; new content gives ST new ones. S's memo is dropped when S changes.)"""
        if ST is not self.ST:
            return False
        return ST is None or all(a is b for a, b in zip(ST._csr()[:2], self.st_arrays))


def _take_workspace(S, ST):
    """A workspace kept with S and free for this search, taken from the free ones or made;
    one made from another ST (or ST's old content) is dropped."""
    free = S.memo(_FREE, list)
    while True:
        try:
            ws = free.pop()   # (atomic: two threads never take the same one)
        except IndexError:
            return _Workspace(S, ST)
        if ws.made_from(ST):
            return ws


def _give_back(S, ws):
    """The finished search's workspace, free for the next search on S (its kernels are
    done: finished() waited for the last)."""
    S.memo(_FREE, list).append(ws)


# ---- the trace
def _trace(S, can_pull, dist, alpha, beta, trace):
    """The levels' figures from the levels found: the frontier of level k is dist == k,
    and each level's direction is the rule applied to the counts before it."""
    n, m = S.nrows, S.nvals
    d = backend.to_host(dist).astype(np.int64)
    deg = np.diff(backend.to_host(S._csr()[0]).astype(np.int64))
    reached = d != UNREACHED
    sizes = np.bincount(d[reached], minlength=1)
    edges = np.bincount(d[reached], weights=deg[reached], minlength=1).astype(np.int64)
    figures = lambda k: (int(edges[k]), int(sizes[k])) if k < len(sizes) else (0, 0)
    mf, nf = figures(0)
    seen, push, growing, level = mf, True, True, 0
    while True:
        level += 1
        unexplored = m - seen + mf
        push = next_direction(push, mf=mf, nf=nf, seen=seen, growing=growing, n=n, m=m,
                              alpha=alpha, beta=beta, can_pull=can_pull)
        old = nf
        mf, nf = figures(level)
        growing = nf > old
        seen += mf
        trace(dict(iteration=level, direction="push" if push else "pull", frontier=nf,
                   edges=mf, unexplored=unexplored, path="fused"))
        if mf == 0:
            break
