"""A bad-argument fuzzer over the public API (issue #32: no silent wrong answer, no raw
exception).

Every public callable has a valid base call in ``CALLS``. For each of its parameters, the
fuzzer substitutes wrong kinds of values (``bad_values``, plus per-parameter ``EXTRA``
values) one at a time into that call: every (callable, parameter, value) triple, so the run
is deterministic without sampling. Each call must either succeed or raise a
``GraphBLASError`` subclass; when it raises, every object it could see (output, inputs,
mask, descriptor) must be exactly as it was, and when it succeeds, every object but its
output. ``test_every_public_callable_is_fuzzed`` fails when a public callable
has no entry (or no listed reason for having none).
"""
import dataclasses
import inspect
import operator
import types as pytypes

import numpy as np
import pytest

from grblas_gpu import algorithms
import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import generate, onemkl
from grblas_gpu.transposed import TransposedMatrix

N = 4


# ---------------------------------------------------------------- the objects a call sees
def objects():
    """Fresh operands for one call: square N x N matrices, size-N vectors, masks."""
    r = np.array([0, 0, 1, 2, 3, 3])
    c = np.array([0, 2, 1, 3, 0, 3])
    A = gg.Matrix.from_coo(r, c, np.arange(1.0, 7.0), nrows=N, ncols=N)
    B = gg.Matrix.from_coo(c, r, np.arange(2, 8), nrows=N, ncols=N, dtype="INT64")
    C = gg.Matrix.from_coo([1, 2], [2, 2], [5.0, 6.0], nrows=N, ncols=N)
    M = gg.Matrix.from_coo([0, 1, 3], [0, 1, 3], [True, False, True], nrows=N, ncols=N)
    u = gg.Vector.from_coo([0, 2, 3], [1.0, 2.0, 3.0], size=N)
    v = gg.Vector.from_coo([1, 2], [4, 5], size=N, dtype="INT64")
    w = gg.Vector.from_coo([3], [9.0], size=N)
    m = gg.Vector.from_coo([0, 3], [True, True], size=N)
    s = gg.Vector.from_coo([0], [2.0], size=1)  # a GrB_Scalar
    d = gg.Descriptor()
    F = gg.Matrix.from_dense(np.arange(4.0).reshape(2, 2))  # full: np.asarray gives it
    f = gg.Vector.from_dense(np.arange(float(N)))
    return pytypes.SimpleNamespace(A=A, B=B, C=C, M=M, u=u, v=v, w=w, m=m, s=s, d=d, F=F, f=f)


def snapshot(o):
    """Everything observable about each object: shape, type, entries; a descriptor's fields."""
    snap = {}
    for name, x in vars(o).items():
        if isinstance(x, gg.Matrix):
            r, c, vals = x.to_coo()
            snap[name] = ("M", x.shape, x.dtype.name, x.nvals, r.tolist(), c.tolist(), vals.tolist())
        elif isinstance(x, gg.Vector):
            i, vals = x.to_coo()
            snap[name] = ("V", x.size, x.dtype.name, x.nvals, i.tolist(), vals.tolist())
        elif isinstance(x, gg.Descriptor):
            snap[name] = dataclasses.asdict(x)
    return snap


# ---------------------------------------------------------------- wrong kinds of values
def bad_values(o):
    """(label, value) pairs substituted into every parameter."""
    other = gg.Matrix.from_coo([0], [4], [1.0], nrows=3, ncols=5)
    other_v = gg.Vector.from_coo([6], [1.0], size=7)
    o.other, o.other_v = other, other_v
    return [
        ("None", None),
        ("str", "bogus"),
        ("float", 1.5),
        ("huge", 2 ** 70),
        ("negative", -1),
        ("bool", True),
        ("float-array", np.array([0.5, 1.5])),
        ("object-array", np.array([object(), 1], dtype=object)),
        ("str-array", np.array(["a", "b"])),
        ("0d-array", np.array(1)),
        ("2d-array", np.ones((2, 2), dtype=np.int64)),
        ("matrix", other),
        ("vector", other_v),
        ("transposed", other.T),
        ("descriptor", gg.Descriptor(replace=True)),
        ("semiring", semirings.plus_times),
        ("monoid", semirings.monoid.plus),
        ("binary", semirings.binary.minus),
        ("unary", semirings.unary.abs),
        ("semiring-name", "min_plus"),
        ("binary-name-no-monoid", "eq"),
        ("unary-name", "ainv"),
        ("indexunary-name", "tril"),
        ("mask", other.S),
        ("list", [0, 1]),
        ("dict", {"a": 1}),
        ("type", gg.FP64),
        ("enum", gg.Request.FILL_NNZ),
    ]


# per-parameter extras: parameter name -> builder of (label, value) pairs
def _index_extras(o):
    return [("out-of-range", [0, 99]), ("negative-index", [-7]), ("dup", [1, 1]),
            ("float-list", [0.5]), ("nested", [[0, 1]]), ("bool-array", np.array([True, False])),
            ("uint-array", np.array([1, 2], dtype=np.uint64)), ("empty", [])]


EXTRA = {
    "rows": _index_extras, "cols": _index_extras, "indices": _index_extras, "key": _index_extras,
    "i": _index_extras,
    "k": lambda o: [("big-k", 10 ** 6), ("np-int", np.int64(1)), ("np-float", np.float64(1.0))],
    "values": lambda o: [("short", np.array([1.0])), ("long", np.ones(40))],
    "op": lambda o: [("typed-semiring", semirings.plus_times[gg.FP64]),
                     ("typed-binary", semirings.binary.plus[gg.INT8]),
                     ("positional", "firsti"), ("user-name", "no_such_op"),
                     ("typed-name", "plus[FP128]")],
    "semiring": lambda o: [("typed-semiring-other", semirings.min_plus[gg.INT8]),
                           ("positional", semirings.binary.firsti), ("mkl-name", "MKL_GRAPH_SEMIRING_BOGUS")],
    "accum": lambda o: [("accum-monoid", "plus"), ("accum-positional", "secondi"),
                        ("accum-semiring", semirings.min_plus), ("accum-bitwise", "bor"),
                        ("accum-typed", semirings.binary.plus[gg.INT8]),
                        ("accum-none-name", "MKL_GRAPH_ACCUMULATOR_NONE")],
    "mask": lambda o: [("mask-wrong-shape-vector", o.other_v.S), ("complement", ~o.M),
                       ("mask-vector-for-matrix", o.m.S), ("mask-matrix-for-vector", ~o.M.S),
                       ("mask-is-input", o.A)],
    "request": lambda o: [("fill-entries-first", gg.Request.FILL_ENTRIES),
                          ("request-name", "MKL_GRAPH_REQUEST_FILL_NNZ")],
    "method": lambda o: [("method-name", "MKL_GRAPH_METHOD_HASH"), ("method-dot", gg.Method.DOT)],
    "direction": lambda o: [("pull", "pull"), ("push", "push"), ("upper", "PUSH")],
    "thunk": lambda o: [("empty-scalar", gg.Vector("FP64", 1)), ("scalar-vector", o.s)],
    "right": lambda o: [("empty-scalar", gg.Vector("FP64", 1)), ("scalar-vector", o.s)],
    "left": lambda o: [("empty-scalar", gg.Vector("FP64", 1)), ("scalar-vector", o.s)],
    "initial": lambda o: [("nan", float("nan")), ("scalar-vector", o.s)],
    "out": lambda o: [("scalar-vector", o.s), ("wrong-size-out", o.w)],
    "desc": lambda o: [("desc-str", "GrB_REPLACE")],
    "dtype": lambda o: [("complex", np.complex64), ("dtype-name", "INT128")],
}


# ---------------------------------------------------------------- valid base calls
def _graph_data():
    import graphblas as gb

    return gb.Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=N, ncols=N)


def _graph_vec():
    import graphblas as gb

    return gb.Vector.from_coo([0, 1], [1.0, 2.0], size=N)


def _nx_graph():
    import networkx as nx

    G = nx.Graph()
    G.add_edge("a", "b", weight=2.0)
    G.add_edge("b", "c")
    return G


OPS = {"mask": None, "accum": None, "desc": None}


def _bias_table():
    return gg.sampling.bias_table(np.array([0, 3, 5]), np.array([1.0, 0.0, 2.0, 1.0, 1.0]))


def _ops(**kw):
    """The output keywords of an operation, each fuzzed."""
    d = dict(OPS)
    d.update(kw)
    return d


# name -> o -> (callable, args, kwargs)
CALLS = {
    "algorithms.connected_components": lambda o: (algorithms.connected_components, [o.A],
                                                  dict(trace=None)),
    "algorithms.betweenness": lambda o: (algorithms.betweenness, [o.A, [0, 1]],
                                         dict(trace=None)),
    # ---- grblas_gpu operations
    "mxm": lambda o: (gg.mxm, [o.C, o.A, o.B, "plus_times"],
                      _ops(request=gg.Request.COMPUTE_ALL, method=gg.Method.AUTO)),
    "mxv": lambda o: (gg.mxv, [o.w, o.A, o.u, "plus_times"],
                      _ops(request=gg.Request.COMPUTE_ALL, direction=None)),
    "vxm": lambda o: (gg.vxm, [o.w, o.u, o.A, "min_plus"],
                      _ops(request=gg.Request.COMPUTE_ALL, direction="push")),
    "ewise_add": lambda o: (gg.ewise_add, [o.C, o.A, o.B, "plus"], _ops()),
    "ewise_mult": lambda o: (gg.ewise_mult, [o.w, o.u, o.v, "times"], _ops()),
    "ewise_union": lambda o: (gg.ewise_union, [o.C, o.A, 0.0, o.B, 1, "minus"], _ops()),
    "apply": lambda o: (gg.apply, [o.C, o.A, "plus"], _ops(left=None, right=2.0, thunk=None)),
    "select": lambda o: (gg.select, [o.w, o.u, "valuegt", 1.0], _ops()),
    "reduce_rowwise": lambda o: (gg.reduce_rowwise, [o.w, o.A, "plus"], _ops()),
    "reduce_columnwise": lambda o: (gg.reduce_columnwise, [o.w, o.A, "max"], _ops()),
    "reduce_scalar": lambda o: (gg.reduce_scalar, [o.A, "plus"],
                                dict(accum=None, initial=None, out=None)),
    "transpose": lambda o: (gg.transpose, [o.C, o.A], _ops()),
    "kronecker": lambda o: (gg.kronecker, [gg.Matrix("FP64", N * N, N * N), o.A, o.B, "times"],
                            _ops()),
    "extract": lambda o: (gg.extract, [o.C, o.A, [0, 1, 2, 3], [3, 2, 1, 0]], _ops()),
    "assign": lambda o: (gg.assign, [o.C, o.A, [0, 1, 2, 3], [0, 1, 2, 3]], _ops()),
    "subassign": lambda o: (gg.subassign, [o.w, 3.0, [0, 2]], _ops()),
    "matrix_diag": lambda o: (gg.matrix_diag, [o.u], dict(k=1)),
    "vector_diag": lambda o: (gg.vector_diag, [o.A], dict(k=0)),
    "lookup_dtype": lambda o: (gg.lookup_dtype, ["FP32"], {}),
    "status_string": lambda o: (gg.status_string, ["NVGRAPH_STATUS_SUCCESS"], {}),
    # ---- constructors
    "Matrix": lambda o: (gg.Matrix, ["FP32", 3, 2], {}),
    "Vector": lambda o: (gg.Vector, ["INT32", 5], {}),
    "Mask": lambda o: (gg.Mask, [o.M, True, False], {}),
    "Descriptor": lambda o: (gg.Descriptor, [], dict(replace=True, mask_complement=False,
                                                     transpose_first=True)),
    "Replay": lambda o: (gg.Replay, [lambda: None], dict(carries=(o.w,), reads=(o.A, o.u),
                                                          scratch=())),
    "Mailbox": lambda o: (gg.Mailbox, [o.u], {}),
    "Loop": lambda o: (gg.Loop, [lambda: None], dict(carries=(o.w,), reads=(o.A,), scratch=(),
                                                      watch=o.u, every=2, fill=0)),
    "loop": lambda o: (gg.loop, [], dict(carries=(o.w,), reads=(o.A,), scratch=(), watch=o.u,
                                         every=2, fill=0)),
    # ---- Matrix methods
    "Matrix.apply": lambda o: (o.A.apply, ["times", 2.0], dict(left=None, thunk=None, mask=None,
                                                                accum=None, desc=None, out=None)),
    "Matrix.assign": lambda o: (o.C.assign, [o.A, [0, 1, 2, 3], [0, 1, 2, 3]], _ops()),
    "Matrix.subassign": lambda o: (o.C.subassign, [1.0, [0, 1], [2]], _ops()),
    "Matrix.clear": lambda o: (o.C.clear, [], {}),
    "Matrix.diag": lambda o: (gg.Matrix.diag, [o.u], dict(k=-1)),
    "Matrix.dup": lambda o: (o.A.dup, [], dict(dtype="INT32")),
    "Matrix.ewise_add": lambda o: (o.A.ewise_add, [o.B, "max"], _ops(out=None)),
    "Matrix.ewise_mult": lambda o: (o.A.ewise_mult, [o.B, "times"], _ops(out=o.C)),
    "Matrix.ewise_union": lambda o: (o.A.ewise_union, [o.B, "plus", 0.0, 0.0], _ops(out=None)),
    "Matrix.__or__": lambda o: (operator.or_, [o.M, o.M.apply("one")], {}),
    "Matrix.__ror__": lambda o: (o.M.__ror__, [1], {}),   # 1 | x
    "Matrix.__rand__": lambda o: (o.M.__rand__, [1], {}),
    "Matrix.__and__": lambda o: (operator.and_, [o.M, o.M], {}),
    "Matrix.extract": lambda o: (o.A.extract, [[1, 2], [0, 3]], dict(mask=None, desc=None, dtype=None)),
    "Matrix.from_coo": lambda o: (gg.Matrix.from_coo, [[0, 1, 1], [1, 2, 2], [1.0, 2.0, 3.0]],
                                  dict(nrows=3, ncols=3, dtype="FP32", dup_op="plus")),
    "Matrix.from_csc": lambda o: (gg.Matrix.from_csc, [[0, 1, 2], [0, 1], [1.0, 2.0]],
                                  dict(nrows=2, dtype=None)),
    "Matrix.from_csr": lambda o: (gg.Matrix.from_csr, [[0, 1, 2], [0, 1], [1.0, 2.0]],
                                  dict(ncols=2, dtype=None, trusted=False)),
    "Matrix.from_dense": lambda o: (gg.Matrix.from_dense, [np.eye(3)], dict(missing_value=0.0, dtype=None)),
    "Matrix.from_graphblas": lambda o: (gg.Matrix.from_graphblas, [_graph_data()], {}),
    "Matrix.from_scipy": lambda o: (gg.Matrix.from_scipy, [o.A.to_scipy()], dict(dtype=None, dup_op=None)),
    "Matrix.get_csc": lambda o: (o.A.get_csc, [], {}),
    "Matrix.get_csr": lambda o: (o.A.get_csr, [], {}),
    "Matrix.isequal": lambda o: (o.A.isequal, [o.C], dict(tolerance=None)),
    "Matrix.is_symmetric": lambda o: (o.A.is_symmetric, [], dict(structure=True)),
    "Matrix.kronecker": lambda o: (o.A.kronecker, [o.B, "times"], {}),
    "Matrix.memo": lambda o: (o.A.memo, ["fuzz-key", lambda: 1], {}),
    "Matrix.mxm": lambda o: (o.A.mxm, [o.B, "plus_times"],
                             dict(mask=None, accum=None, desc=None, method=gg.Method.AUTO)),
    "Matrix.mxv": lambda o: (o.A.mxv, [o.u, "plus_times"],
                             dict(mask=None, accum=None, desc=None, direction=None)),
    "Matrix.reduce_columnwise": lambda o: (o.A.reduce_columnwise, ["plus"], {}),
    "Matrix.reduce_rowwise": lambda o: (o.A.reduce_rowwise, ["min"], {}),
    "Matrix.reduce_scalar": lambda o: (o.A.reduce_scalar, ["plus"], dict(accum=None, initial=None)),
    "Matrix.replace_indices": lambda o: (o.C.replace_indices,
                                          [gg.backend.xp.asarray([0, 1], dtype=o.C.index_dtype)], {}),
    "Matrix.resize": lambda o: (o.C.resize, [3, 5], {}),
    "Matrix.select": lambda o: (o.A.select, ["valuegt", 2.0], _ops(out=o.C, accum="plus")),
    "Matrix.set_csc": lambda o: (o.C.set_csc, [np.array([0, 1, 2]), np.array([0, 1]), np.array([1.0, 2.0])],
                                 dict(nrows=2, ncols=2, dtype=None)),
    "Matrix.set_csr": lambda o: (o.C.set_csr, [np.array([0, 1, 2]), np.array([0, 1]), np.array([1.0, 2.0])],
                                 dict(nrows=2, ncols=2, dtype=None)),
    "Matrix.to_coo": lambda o: (o.A.to_coo, [], dict(device=False, values=False)),
    "Matrix.to_csc": lambda o: (o.A.to_csc, [], dict(device=False)),
    "Matrix.to_csr": lambda o: (o.A.to_csr, [], dict(device=False, values=True)),
    "Matrix.to_dense": lambda o: (o.A.to_dense, [0.0], dict(device=False)),
    "Matrix.to_graphblas": lambda o: (o.A.to_graphblas, [], {}),
    "Matrix.to_scipy": lambda o: (o.A.to_scipy, [], dict(device=False)),
    "Matrix.__array__": lambda o: (o.F.__array__, [], dict(dtype=None, copy=None)),
    "Matrix.tril": lambda o: (o.A.tril, [0], {}),
    "Matrix.triu": lambda o: (o.A.triu, [1], {}),
    "Matrix.__bool__": lambda o: (o.A.__bool__, [], {}),
    "Matrix.__delitem__": lambda o: (o.C.__delitem__, [(1, 2)], {}),
    "Matrix.__eq__": lambda o: (o.A.__eq__, [o.C], {}),
    "Matrix.__getitem__": lambda o: (o.A.__getitem__, [(0, 2)], {}),
    "Matrix.__init__": lambda o: (gg.Matrix, ["FP64", 2, 3], {}),
    "Matrix.__invert__": lambda o: (o.M.__invert__, [], {}),
    "Matrix.__matmul__": lambda o: (operator.matmul, [o.A, o.B], {}),
    "Matrix.__rmatmul__": lambda o: (operator.matmul, [o.u, o.A], {}),  # x @ A, x not a Vector
    "Matrix.__repr__": lambda o: (o.A.__repr__, [], {}),
    "Matrix.__setitem__": lambda o: (o.C.__setitem__, [(0, 1), 7.0], {}),
    "Matrix.T": lambda o: (lambda: o.A.T, [], {}),
    # ---- Vector methods
    "Vector.apply": lambda o: (o.u.apply, ["abs"], dict(left=None, thunk=None, mask=o.m.S,
                                                         accum="plus", desc=None, out=o.w)),
    "Vector.assign": lambda o: (o.w.assign, [o.u.extract([0, 1]), [2, 3]], _ops()),
    "Vector.subassign": lambda o: (o.w.subassign, [2.0, [0, 1]], _ops()),
    "Vector.clear": lambda o: (o.w.clear, [], {}),
    "Vector.diag": lambda o: (gg.Vector.diag, [o.A], dict(k=1)),
    "Vector.dup": lambda o: (o.u.dup, [], dict(dtype="FP32")),
    "Vector.ewise_add": lambda o: (o.u.ewise_add, [o.v, "plus"], _ops(out=o.w)),
    "Vector.ewise_mult": lambda o: (o.u.ewise_mult, [o.v, "min"], _ops(out=None)),
    "Vector.ewise_union": lambda o: (o.u.ewise_union, [o.v, "minus", 0.0, 1], _ops(out=o.w)),
    "Vector.__or__": lambda o: (operator.or_, [o.m, o.m], {}),
    "Vector.__ror__": lambda o: (o.m.__ror__, [1], {}),   # 1 | x
    "Vector.__rand__": lambda o: (o.m.__rand__, [1], {}),
    "Vector.__and__": lambda o: (operator.and_, [o.m, o.m.apply("one")], {}),
    "Vector.extract": lambda o: (o.u.extract, [[3, 0]], dict(mask=None, desc=None, dtype=None)),
    "Vector.from_coo": lambda o: (gg.Vector.from_coo, [[0, 2, 2], [1.0, 2.0, 3.0]],
                                  dict(size=3, dtype="FP64", dup_op="plus", trusted=False)),
    "Vector.from_dense": lambda o: (gg.Vector.from_dense, [np.array([1.0, 0.0, 2.0])],
                                    dict(missing_value=0.0, dtype=None)),
    "Vector.from_graphblas": lambda o: (gg.Vector.from_graphblas, [_graph_vec()], {}),
    "Vector.get_dense": lambda o: (o.u.get_dense, [], {}),
    "Vector.get_sparse": lambda o: (o.u.get_sparse, [], {}),
    "Vector.isequal": lambda o: (o.u.isequal, [o.w], dict(tolerance=1e-9)),
    "Vector.reduce": lambda o: (o.u.reduce, ["max"], dict(accum=None, initial=None)),
    "Vector.reduce_scalar": lambda o: (o.u.reduce_scalar, ["plus"], dict(accum="plus", initial=1.0)),
    "Vector.resize": lambda o: (o.w.resize, [6], {}),
    "Vector.select": lambda o: (o.u.select, ["valuene", 2.0], _ops(out=None)),
    "Vector.set_dense": lambda o: (o.w.set_dense, [np.arange(float(N))], {}),
    "Vector.set_format": lambda o: (o.w.set_format, ["dense"], {}),
    "Vector.set_sparse": lambda o: (o.w.set_sparse, [np.array([0, 2]), np.array([1.0, 3.0])], {}),
    "Vector.to_coo": lambda o: (o.u.to_coo, [], dict(device=False, values=False)),
    "Vector.to_dense": lambda o: (o.u.to_dense, [0.0], dict(device=False)),
    "Vector.to_graphblas": lambda o: (o.u.to_graphblas, [], {}),
    "Vector.to_scipy": lambda o: (o.u.to_scipy, [], dict(device=True)),
    "Vector.from_scipy": lambda o: (gg.Vector.from_scipy, [o.u.to_scipy()],
                                    dict(dtype=None, dup_op=None)),
    "Vector.from_dlpack": lambda o: (gg.Vector.from_dlpack, [np.arange(3.0)], dict(dtype=None)),
    "Vector.__array__": lambda o: (o.f.__array__, [], dict(dtype=None, copy=None)),
    "Vector.__dlpack__": lambda o: (o.f.__dlpack__, [], dict(stream=None, max_version=None,
                                                             dl_device=None, copy=None)),
    "Vector.__dlpack_device__": lambda o: (o.u.__dlpack_device__, [], {}),
    "Vector.vxm": lambda o: (o.u.vxm, [o.A, "plus_times"],
                             dict(mask=None, accum=None, desc=None, direction=None)),
    "Vector.__bool__": lambda o: (o.u.__bool__, [], {}),
    "Vector.__delitem__": lambda o: (o.w.__delitem__, [3], {}),
    "Vector.__eq__": lambda o: (o.u.__eq__, [o.w], {}),
    "Vector.__getitem__": lambda o: (o.u.__getitem__, [2], {}),
    "Vector.__init__": lambda o: (gg.Vector, ["BOOL", 3], {}),
    "Vector.__invert__": lambda o: (o.m.__invert__, [], {}),
    "Vector.__len__": lambda o: (o.u.__len__, [], {}),
    "Vector.__matmul__": lambda o: (operator.matmul, [o.u, o.A], {}),
    "Vector.__rmatmul__": lambda o: (operator.matmul, [o.A, o.u], {}),
    "Vector.__repr__": lambda o: (o.u.__repr__, [], {}),
    "Vector.__setitem__": lambda o: (o.w.__setitem__, [1, 4.0], {}),
    # ---- transposed views (A.T)
    "TransposedMatrix.__matmul__": lambda o: (operator.matmul, [o.A.T, o.B], {}),
    "TransposedMatrix.__rmatmul__": lambda o: (operator.matmul, [o.u, o.A.T], {}),
    "TransposedMatrix.__bool__": lambda o: (o.A.T.__bool__, [], {}),
    "TransposedMatrix.__repr__": lambda o: (o.A.T.__repr__, [], {}),
    "TransposedMatrix.apply": lambda o: (o.A.T.apply, ["minus", 1.0], dict(left=None, thunk=None)),
    "TransposedMatrix.diag": lambda o: (o.A.T.diag, [1], {}),
    "TransposedMatrix.ewise_add": lambda o: (o.A.T.ewise_add, [o.B, "plus"], {}),
    "TransposedMatrix.ewise_mult": lambda o: (o.A.T.ewise_mult, [o.B.T, "times"], {}),
    "TransposedMatrix.__or__": lambda o: (operator.or_, [o.M.T, o.M], {}),
    "TransposedMatrix.__ror__": lambda o: (o.M.__ror__, [1], {}),   # 1 | x
    "TransposedMatrix.__rand__": lambda o: (o.M.T.__rand__, [1], {}),
    "TransposedMatrix.__and__": lambda o: (operator.and_, [o.M.T, o.M.T], {}),
    "TransposedMatrix.ewise_union": lambda o: (o.A.T.ewise_union, [o.B, "minus", 0.0, 0.0], {}),
    "TransposedMatrix.isequal": lambda o: (o.A.T.isequal, [o.A], dict(tolerance=None)),
    "TransposedMatrix.kronecker": lambda o: (o.A.T.kronecker, [o.B, "times"], {}),
    "TransposedMatrix.mxm": lambda o: (o.A.T.mxm, [o.B, "min_plus"],
                                       dict(mask=None, accum=None, desc=None, method=gg.Method.AUTO)),
    "TransposedMatrix.mxv": lambda o: (o.A.T.mxv, [o.u, "plus_times"],
                                       dict(mask=None, accum=None, desc=None, direction=None)),
    "TransposedMatrix.new": lambda o: (o.A.T.new, [], dict(dtype="FP32")),
    "TransposedMatrix.reduce_columnwise": lambda o: (o.A.T.reduce_columnwise, ["plus"], {}),
    "TransposedMatrix.reduce_rowwise": lambda o: (o.A.T.reduce_rowwise, ["max"], {}),
    "TransposedMatrix.reduce_scalar": lambda o: (o.A.T.reduce_scalar, ["plus"], dict(accum=None, initial=None)),
    "TransposedMatrix.select": lambda o: (o.A.T.select, ["tril", 0], {}),
    "TransposedMatrix.to_coo": lambda o: (o.A.T.to_coo, [], dict(device=False)),
    "TransposedMatrix.to_dense": lambda o: (o.A.T.to_dense, [0.0], dict(device=False)),
    "TransposedMatrix.tril": lambda o: (o.A.T.tril, [0], {}),
    "TransposedMatrix.triu": lambda o: (o.A.T.triu, [-1], {}),
    # ---- descriptors and masks
    "Descriptor.set": lambda o: (o.d.set, [gg.Field.OUTPUT, gg.Modifier.REPLACE], {}),
    "Descriptor.with_": lambda o: (o.d.with_, [], dict(replace=True)),
    "Descriptor.__or__": lambda o: (o.d.__or__, [gg.GrB_TRAN], {}),
    "Mask.__invert__": lambda o: (o.M.S.__invert__, [], {}),
    # ---- the operator catalog
    "semirings.lookup": lambda o: (semirings.lookup, ["min_plus"], dict(kind="semiring")),
    "semirings.resolve": lambda o: (semirings.resolve, ["plus", gg.FP64, gg.INT64], dict(kind=None)),
    "semirings.resolve_semiring": lambda o: (semirings.resolve_semiring, ["min_plus", gg.FP64, gg.FP32], {}),
    "semirings.resolve_binary": lambda o: (semirings.resolve_binary, ["plus", gg.INT32], {}),
    "semirings.resolve_monoid": lambda o: (semirings.resolve_monoid, ["max", gg.INT32], {}),
    "semirings.resolve_unary": lambda o: (semirings.resolve_unary, ["abs", gg.FP32], {}),
    "semirings.catalog": lambda o: (semirings.catalog, ["monoid"], {}),
    "semirings.make_monoid": lambda o: (semirings.make_monoid, ["fuzz_m", "plus", 0],
                                        dict(terminal=None, types=None, register=False)),
    "semirings.make_semiring": lambda o: (semirings.make_semiring, ["fuzz_sr", "max", "plus"],
                                          dict(types=None, register=False)),
    "semirings.binary_op": lambda o: (semirings.binary_op, ["fuzz_b", "x", lambda x, y: x],
                                      dict(types=(gg.FP64,), out_type=None, commutes_to=None,
                                           register=False)),
    "semirings.unary_op": lambda o: (semirings.unary_op, ["fuzz_u", "x", lambda x: x],
                                     dict(types=(gg.INT32, gg.FP64), out_type=None,
                                          register=False)),
    "semirings.indexunary_op": lambda o: (semirings.indexunary_op,
                                          ["fuzz_iu"], dict(c_expr="x", numpy=lambda x, i, j, t: x,
                                                            types=(gg.FP64,), register=False)),
    # ---- the fused traversal
    "traverse": lambda o: (gg.traverse, [o.A, 0], dict(ST=None, alpha=None, beta=None,
                                                       trace=None)),
    "traversal.supports": lambda o: (gg.traversal.supports, [o.A], dict(ST=o.B)),
    "traversal.next_direction": lambda o: (gg.traversal.next_direction, [True],
                                           dict(mf=3, nf=1, seen=3, growing=True, n=4, m=6,
                                                alpha=15, beta=18, can_pull=True)),
    # ---- kernel builds: statistics and the warm-up (narrowed: the fuzzer calls it often)
    "kernel_stats": lambda o: (gg.kernel_stats, [], dict(reset=False)),
    "warmup": lambda o: (gg.warmup, [["apply"], ["INT32"], ["min_plus"]], dict(progress=False)),
    "traversal.rule_in_c": lambda o: (gg.traversal.rule_in_c, ["mf > m / alpha"], {}),
    # ---- generators
    "generate.rmat": lambda o: (generate.rmat, [3, 2, 0.57, 0.19, 0.19],
                                dict(seed=1, symmetric=True, weighted=False, dtype=None)),
    "generate.rmat_edges": lambda o: (generate.rmat_edges, [3, 2, 0.57, 0.19, 0.19],
                                      dict(seed=1, start=4, stop=12)),
    "generate.urand": lambda o: (generate.urand, [3, 2],
                                 dict(seed=1, symmetric=True, weighted=False, dtype=None)),
    "generate.grid": lambda o: (generate.grid, [2, 3], dict(seed=1, weighted=False, dtype=None)),
    "generate.karate": lambda o: (generate.karate, [], dict(dtype=None)),
    "generate.graph": lambda o: (generate.graph, ["rmat:2:2"], dict(seed=3)),
    # ---- conversions (grblas_gpu.io, python-graphblas's graphblas.io names)
    "io.from_networkx": lambda o: (gg.io.from_networkx, [_nx_graph()],
                                   dict(nodelist=None, dtype=None, weight="weight", name=None)),
    "io.to_networkx": lambda o: (gg.io.to_networkx, [o.A, "weight"], dict(create_using=None)),
    "io.from_scipy_sparse": lambda o: (gg.io.from_scipy_sparse, [o.A.to_scipy()],
                                       dict(dup_op=None, name=None)),
    "io.to_scipy_sparse": lambda o: (gg.io.to_scipy_sparse, [o.u, "coo"], {}),
    # ---- random selection (three slots, so a two-element list is the wrong length)
    "sampling.stream_key": lambda o: (gg.sampling.stream_key, [2024, 3], {}),
    "sampling.draw_bits": lambda o: (gg.sampling.draw_bits, [12345, np.arange(3)], {}),
    "sampling.draw_unit": lambda o: (gg.sampling.draw_unit, [12345, [0, 5, 9]], {}),
    "sampling.select_uniform": lambda o: (gg.sampling.select_uniform,
                                          [np.array([0, 2, 5]), np.array([2, 3, 4]),
                                           np.array([1, 3, 2]), 77],
                                          dict(with_replacement=False,
                                               take_all=np.array([False, True, False]))),
    "sampling.select_uniform_rows": lambda o: (gg.sampling.select_uniform_rows,
                                               [np.array([0, 2, 5, 9]), np.array([2, 0, 2]),
                                                3, 77], dict(with_replacement=False)),
    "sampling.bias_table": lambda o: (gg.sampling.bias_table,
                                      [np.array([0, 3, 5]), np.array([1.0, 0.0, 2.0, 1.0, 1.0])], {}),
    "sampling.select_biased": lambda o: (gg.sampling.select_biased,
                                         [_bias_table(), np.array([0, 1, 1]), np.array([1, 1, 1]), 5],
                                         dict(with_replacement=True)),
    "sampling.repeat_index": lambda o: (gg.sampling.repeat_index, [np.array([2, 0, 3])], {}),
    # ---- oneMKL adapter
    "onemkl.matrix_create": lambda o: (onemkl.matrix_create, [], {}),
    "onemkl.matrix_destroy": lambda o: (onemkl.matrix_destroy, [o.C], {}),
    "onemkl.matrix_set_csr": lambda o: (onemkl.matrix_set_csr,
                                        [o.C, 2, 2, np.array([0, 1, 2]), "MKL_GRAPH_TYPE_INT64",
                                         np.array([0, 1]), "MKL_GRAPH_TYPE_INT64",
                                         np.array([1.0, 2.0]), "MKL_GRAPH_TYPE_FP64"], {}),
    "onemkl.matrix_set_csc": lambda o: (onemkl.matrix_set_csc,
                                        [o.C, 2, 2, np.array([0, 1, 2]), "MKL_GRAPH_TYPE_INT64",
                                         np.array([0, 1]), "MKL_GRAPH_TYPE_INT64",
                                         np.array([1.0, 2.0]), "MKL_GRAPH_TYPE_FP64"], {}),
    "onemkl.matrix_get_csr": lambda o: (onemkl.matrix_get_csr, [o.A], {}),
    "onemkl.matrix_get_csc": lambda o: (onemkl.matrix_get_csc, [o.A], {}),
    "onemkl.matrix_get_property": lambda o: (onemkl.matrix_get_property,
                                             [o.A, onemkl.MKL_GRAPH_PROPERTY_NNZ], {}),
    "onemkl.vector_create": lambda o: (onemkl.vector_create, [], {}),
    "onemkl.vector_destroy": lambda o: (onemkl.vector_destroy, [o.w], {}),
    "onemkl.vector_set_dense": lambda o: (onemkl.vector_set_dense,
                                          [o.w, N, np.arange(float(N)), "MKL_GRAPH_TYPE_FP64"], {}),
    "onemkl.vector_set_sparse": lambda o: (onemkl.vector_set_sparse,
                                           [o.w, N, 2, np.array([0, 3]), "MKL_GRAPH_TYPE_INT64",
                                            np.array([1.0, 2.0]), "MKL_GRAPH_TYPE_FP64"], {}),
    "onemkl.vector_get_dense": lambda o: (onemkl.vector_get_dense, [o.u], {}),
    "onemkl.vector_get_sparse": lambda o: (onemkl.vector_get_sparse, [o.u], {}),
    "onemkl.vector_get_property": lambda o: (onemkl.vector_get_property,
                                             [o.u, onemkl.MKL_GRAPH_PROPERTY_NNZ], {}),
    "onemkl.descriptor_create": lambda o: (onemkl.descriptor_create, [], {}),
    "onemkl.descriptor_set_field": lambda o: (onemkl.descriptor_set_field,
                                              [o.d, "MKL_GRAPH_FIELD_OUTPUT", "MKL_GRAPH_MOD_REPLACE"], {}),
    "onemkl.descriptor_destroy": lambda o: (onemkl.descriptor_destroy, [o.d], {}),
    "onemkl.mxv": lambda o: (onemkl.mxv, [o.w, o.m, "MKL_GRAPH_ACCUMULATOR_PLUS",
                                          "MKL_GRAPH_SEMIRING_PLUS_TIMES_FP64", o.A, o.u, o.d,
                                          gg.Request.COMPUTE_ALL, gg.Method.AUTO], {}),
    "onemkl.vxm": lambda o: (onemkl.vxm, [o.w, None, None, "MKL_GRAPH_SEMIRING_PLUS_TIMES_FP64",
                                          o.u, o.A, None, gg.Request.COMPUTE_ALL,
                                          gg.Method.GUSTAVSON], {}),
    "onemkl.mxm": lambda o: (onemkl.mxm, [o.C, o.M, None, "MKL_GRAPH_SEMIRING_PLUS_TIMES_FP64",
                                          o.A, o.A, o.d, gg.Request.COMPUTE_ALL,
                                          gg.Method.DOT], {}),
    "onemkl.transpose": lambda o: (onemkl.transpose, [o.C, o.M, "MKL_GRAPH_ACCUMULATOR_PLUS",
                                                      o.A, o.d], {}),
    "onemkl.optimize_mxm": lambda o: (onemkl.optimize_mxm, [o.M, "plus_times", o.A, o.A, o.d],
                                      dict(ncalls=2)),
    "onemkl.optimize_mxv": lambda o: (onemkl.optimize_mxv, [None, "plus_times", o.A, o.d],
                                      dict(ncalls=2)),
}

# public names that are not calls to fuzz, each with its reason
NOT_FUZZED = {
    # classes whose construction takes no user data, or values rather than calls
    "GraphBLASError": "an exception class", "InvalidValue": "an exception class",
    "DimensionMismatch": "an exception class", "IndexOutOfBounds": "an exception class",
    "DomainMismatch": "an exception class", "NotSupported": "an exception class",
    "TypeNotSupported": "an exception class", "AllocFailed": "an exception class",
    "NotConverged": "an exception class", "NotInitialized": "an exception class",
    "InternalError": "an exception class", "EmptyObject": "an exception class",
    "Field": "an enum (constructing one by value is Python's enum)",
    "TransposedMatrix.__init__": "not public: a view comes from A.T",
    "Modifier": "an enum", "Request": "an enum", "Method": "an enum",
    "sampling.BiasTable": "a namedtuple of bias_table's results (select_biased fuzzes its use)",
    "KernelStats": "a namedtuple of kernel_stats's results",
    "WarmupSummary": "a namedtuple of warmup's results",
}

# calls that raise by design (a container has no truth value and no ==)
ALWAYS_RAISE = {"Matrix.__bool__", "Vector.__bool__", "TransposedMatrix.__bool__",
                "Matrix.__ror__", "Matrix.__rand__", "Vector.__ror__", "Vector.__rand__",
                "TransposedMatrix.__ror__", "TransposedMatrix.__rand__",
                "Matrix.__eq__", "Vector.__eq__"}


# ---------------------------------------------------------------- the enumeration
def _own_methods(cls):
    """Public methods and dunder operators a class defines or was given (not object's)."""
    names = []
    for name in dir(cls):
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, property) or not callable(getattr(cls, name, None)):
            continue
        if getattr(object, name, None) is getattr(cls, name) or name in (
                "__init_subclass__", "__subclasshook__", "__class__", "__new__",
                "__getattribute__", "__setattr__", "__delattr__", "__dir__", "__reduce__",
                "__reduce_ex__", "__format__", "__sizeof__", "__ne__", "__hash__", "__str__",
                "__getstate__"):
            continue
        names.append(f"{cls.__name__}.{name}")
    return names


def public_callables():
    """Every public callable the fuzzer must cover."""
    names = [n for n in gg.__all__ if callable(getattr(gg, n))]
    for cls in (gg.Matrix, gg.Vector, TransposedMatrix):
        names += _own_methods(cls)
    names += ["Matrix.T", "Descriptor.set", "Descriptor.with_",
              "Descriptor.__or__", "Mask.__invert__"]
    names += [f"semirings.{n}" for n in ("lookup", "resolve", "resolve_semiring",
                                          "resolve_binary", "resolve_monoid", "resolve_unary",
                                          "catalog", "make_monoid", "make_semiring", "binary_op",
                                          "unary_op", "indexunary_op")]
    names += [f"generate.{n}" for n in generate.__all__ if callable(getattr(generate, n))]
    names += [f"io.{n}" for n in gg.io.__all__
              if n in ("from_networkx", "to_networkx", "from_scipy_sparse", "to_scipy_sparse")]
    names += [f"sampling.{n}" for n in gg.sampling.__all__ if callable(getattr(gg.sampling, n))]
    names += [f"traversal.{n}" for n in gg.traversal.__all__
              if callable(getattr(gg.traversal, n)) and n != "traverse"]   # (gg.traverse)
    names += [f"onemkl.{n}" for n, f in vars(onemkl).items()
              if not n.startswith("_") and inspect.isfunction(f) and f.__module__ == onemkl.__name__]
    names += ["algorithms.connected_components", "algorithms.betweenness"]   # (algorithms/
    # has no fuzzer of its own)
    return sorted(set(names))


def test_every_public_callable_is_fuzzed():
    missing = [n for n in public_callables() if n not in CALLS and n not in NOT_FUZZED]
    assert not missing, f"public callables without a fuzzer entry: {missing}"
    stale = [n for n in CALLS if n not in public_callables()]
    assert not stale, f"fuzzer entries for no public callable: {stale}"


# ---------------------------------------------------------------- the fuzzer
def _params(args, kwargs):
    """The fuzzed slots of a base call: positions 0.. and keyword names."""
    return [i for i in range(len(args))] + list(kwargs)


def _slot_name(fn, slot):
    if isinstance(slot, str):
        return slot
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return params[slot].name
    except (ValueError, TypeError, IndexError):
        return f"arg{slot}"


def _values(o, fn, slot):
    """The (label, value) pairs tried in one slot: the generic ones and the slot's extras."""
    pairs = bad_values(o)
    extra = EXTRA.get(_slot_name(fn, slot))
    return pairs + (extra(o) if extra is not None else [])


def _call(entry, slot, label):
    """Run the base call of ``entry`` with one slot replaced by the value called ``label``:
    '' if it behaved, else what went wrong."""
    o = objects()
    fn, args, kwargs = CALLS[entry](o)
    value = dict(_values(o, fn, slot))[label]
    if isinstance(slot, str):
        kwargs[slot] = value
    else:
        args[slot] = value
    before = snapshot(o)
    try:
        result = fn(*args, **kwargs)
        if entry in DEFINES:
            _forget(result)
    except gg.GraphBLASError:
        changed = _changed(o, before)
        if changed:
            return f"{entry}[{slot}={label}]: raised but changed {changed}"
        return ""
    except Exception as err:  # noqa: BLE001 (the point: any other exception is a leak)
        return f"{entry}[{slot}={label}]: {type(err).__name__}: {str(err)[:200]}"
    changed = _changed(o, before, _outputs(entry, fn, args, kwargs))
    if changed:
        return f"{entry}[{slot}={label}]: succeeded but changed inputs {changed}"
    return ""


# operations whose first argument is their output (onemkl's functions too)
WRITES_FIRST = {"mxm", "mxv", "vxm", "ewise_add", "ewise_mult", "ewise_union", "apply", "select",
                "reduce_rowwise", "reduce_columnwise", "transpose", "kronecker", "extract",
                "assign", "subassign"}


def _outputs(entry, fn, args, kwargs):
    """The ids of the objects a successful call may change: its output (the first argument of
    an operation or oneMKL call, reduce_scalar's out=) or the object whose method it is."""
    ids = {id(getattr(fn, "__self__", None))}
    if (entry in WRITES_FIRST or entry.startswith("onemkl.")) and args:
        ids.add(id(args[0]))
    if "out" in kwargs:
        ids.add(id(kwargs["out"]))
    return ids


def _changed(o, before, may_change=()):
    after = snapshot(o)
    return [k for k in before if before[k] != after.get(k) and id(getattr(o, k)) not in may_change]


# calls that define operators: what they define is unregistered again
DEFINES = {"semirings.make_monoid", "semirings.make_semiring", "semirings.binary_op",
           "semirings.unary_op", "semirings.indexunary_op"}


def _forget(result):
    """Unregister an operator a call defined (register=True is an acceptable value too)."""
    from grblas_gpu.semirings import indexunary

    if isinstance(result, indexunary.IndexUnaryOp):
        if indexunary._REGISTRY.get(result.name.lower()) is result:
            del indexunary._REGISTRY[result.name.lower()]
    elif isinstance(result, (semirings.UnaryOp, semirings.BinaryOp, semirings.Monoid,
                             semirings.Semiring)):
        if semirings.REGISTRY[result.kind].get(result.name) is result:
            semirings.registry._unregister(result)


def _labels(entry, slot):
    o = objects()
    fn, _, _ = CALLS[entry](o)
    return [label for label, _ in _values(o, fn, slot)]


def _cases():
    for entry in sorted(CALLS):
        o = objects()
        fn, args, kwargs = CALLS[entry](o)
        for slot in _params(args, kwargs):
            yield entry, slot


CASES = list(_cases())


@pytest.mark.parametrize("entry", sorted(CALLS))
def test_base_call_is_valid(entry):
    """Each base call succeeds, so a failure below is the substituted argument's."""
    o = objects()
    fn, args, kwargs = CALLS[entry](o)
    try:
        result = fn(*args, **kwargs)
        if entry in DEFINES:
            _forget(result)
    except gg.GraphBLASError:
        if entry not in ALWAYS_RAISE:
            raise


def _case_id(case):
    return f"{case[0]}-{case[1]}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_bad_argument(case):
    entry, slot = case
    leaks = [why for label in _labels(entry, slot) if (why := _call(entry, slot, label))]
    assert not leaks, "\n".join(leaks)


# ---------------------------------------------------------------- regressions, by name
def _regressions(o):
    """(name, call, expected exception class) for each leak the fuzzer found and was fixed."""
    return [
        ("mxm None semiring", lambda: gg.mxm(o.C, o.A, o.B, None), gg.InvalidValue),
        ("mxv no-accumulator name as semiring",
         lambda: gg.mxv(o.w, o.A, o.u, "MKL_GRAPH_ACCUMULATOR_NONE"), gg.InvalidValue),
        ("vxm direction array", lambda: gg.vxm(o.w, o.u, o.A, direction=np.array(["push", "pull"])),
         gg.InvalidValue),
        ("apply None op", lambda: gg.apply(o.w, o.u, None), gg.InvalidValue),
        ("diag k float", lambda: gg.matrix_diag(o.u, 1.5), gg.InvalidValue),
        ("diag k huge", lambda: gg.vector_diag(o.A, 2 ** 70), gg.InvalidValue),
        ("diag too large", lambda: gg.matrix_diag(o.u, 2 ** 40), gg.NotSupported),
        ("descriptor flag str", lambda: gg.Descriptor(replace="yes"), gg.InvalidValue),
        ("descriptor | None", lambda: o.d | None, gg.InvalidValue),
        ("mask over a str", lambda: gg.Mask("bogus"), gg.InvalidValue),
        ("str @ A", lambda: "bogus" @ o.A, gg.InvalidValue),
        ("array @ u", lambda: np.ones(N) @ o.u, gg.InvalidValue),
        ("u @ dict", lambda: o.u @ {}, gg.InvalidValue),
        ("lookup kind array", lambda: semirings.lookup("plus", np.array(["a", "b"])), gg.InvalidValue),
        ("catalog None", lambda: semirings.catalog(None), gg.InvalidValue),
        ("monoid identity str", lambda: semirings.make_monoid("m", "plus", "zero", register=False),
         gg.InvalidValue),
        ("unary numpy str", lambda: semirings.unary_op("u", "x", "abs", register=False), gg.InvalidValue),
        ("semiring None monoid", lambda: semirings.make_semiring("s", None, "plus", register=False),
         gg.InvalidValue),
        ("op at an array type", lambda: semirings.binary.plus[np.array([1.0, 2.0])], gg.TypeNotSupported),
        ("status_string array", lambda: gg.status_string(np.array(["x"])), gg.InvalidValue),
        ("onemkl dim float", lambda: onemkl.vector_set_dense(o.w, 5.0, np.arange(5.0), "MKL_GRAPH_TYPE_FP64"),
         gg.InvalidValue),
        ("onemkl buffer without dtype",
         lambda: onemkl.vector_set_sparse(o.w, N, 1, np.array([0]), "MKL_GRAPH_TYPE_INT64", "bogus",
                                          "MKL_GRAPH_TYPE_FP64"), gg.InvalidValue),
        ("onemkl accumulator array", lambda: onemkl.transpose(o.C, None, np.array(["a", "b"]), o.A),
         gg.InvalidValue),
        ("onemkl property array", lambda: onemkl.matrix_get_property(o.A, np.array(["a"])), gg.InvalidValue),
        ("rmat a None", lambda: generate.rmat(2, a=None, seed=1), gg.InvalidValue),
        ("rmat symmetric array", lambda: generate.rmat(2, symmetric=np.array([1, 0]), seed=1), gg.InvalidValue),
        ("rmat seed str", lambda: generate.rmat(2, seed="x"), gg.InvalidValue),
        ("rmat too many edges", lambda: generate.rmat(31, 2 ** 40, seed=1), gg.AllocFailed),
        ("rmat_edges stop past the edges", lambda: generate.rmat_edges(3, 2, seed=1, stop=17),
         gg.InvalidValue),
        ("rmat_edges start after stop", lambda: generate.rmat_edges(3, 2, seed=1, start=5,
                                                                     stop=4), gg.InvalidValue),
        ("rmat_edges float start", lambda: generate.rmat_edges(3, 2, seed=1, start=1.0),
         gg.InvalidValue),
        ("dup_op eq", lambda: gg.Matrix.from_coo([0, 0], [1, 1], [1.0, 2.0], dup_op="eq"), gg.DomainMismatch),
    ]


REGRESSIONS = [name for name, _, _ in _regressions(objects())]


@pytest.mark.parametrize("name", REGRESSIONS)
def test_fixed_leak(name):
    """The exception class, and every object as it was."""
    o = objects()
    _, call, expected = next(r for r in _regressions(o) if r[0] == name)
    before = snapshot(o)
    with pytest.raises(expected):
        call()
    assert snapshot(o) == before


def test_dup_op_matches_suitesparse():
    """SuiteSparse refuses a dup operator whose output type differs from its inputs' (eq on
    FP64) and combines with one that keeps it."""
    import graphblas as gb

    rows, cols, vals = [0, 0, 0, 1], [1, 1, 1, 0], [1.0, 2.0, 4.0, 3.0]
    with pytest.raises(gb.exceptions.DomainMismatch):
        gb.Matrix.from_coo(rows, cols, vals, dup_op="eq")
    for op in ("minus", "first", "max"):
        ours = gg.Matrix.from_coo(rows, cols, vals, dup_op=op).to_coo()
        ref = gb.Matrix.from_coo(rows, cols, vals, dup_op=op).to_coo()
        for a, b in zip(ours, ref):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("keyword", ["method", "delta"])
def test_sssp_keywords(keyword):
    """algorithms.sssp's method and delta: every wrong kind of value raises a GraphBLASError
    (InvalidValue) and leaves A as it was."""
    from grblas_gpu.algorithms import sssp

    o = objects()
    extras = [("zero", 0), ("nan", float("nan")), ("neg-inf", -float("inf")), ("name", "Delta")]
    for label, value in bad_values(o) + extras:
        before = snapshot(o)
        try:
            sssp(o.A, 0, **{keyword: value})
        except gg.InvalidValue:
            pass
        except Exception as err:  # noqa: BLE001 (the point: any other exception is a leak)
            pytest.fail(f"sssp({keyword}={label}): {type(err).__name__}: {err}")
        assert snapshot(o) == before, f"sssp({keyword}={label}) changed its inputs"
