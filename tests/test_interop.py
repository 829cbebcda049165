"""Interop with scipy.sparse, DLPack and NumPy's array protocol (grblas_gpu._interop), and
the python-graphblas-style conversions in grblas_gpu.io (networkx, scipy)."""
import numpy as np
import pytest
import scipy.sparse as sp

import grblas_gpu as gg
from grblas_gpu import backend

FORMATS = ["csr", "csc", "coo", "lil", "dok", "bsr", "dia"]


@pytest.fixture
def A():
    return gg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 2], [1.0, 2.0, 3.0, 0.0], nrows=3, ncols=4)


# ---------------------------------------------------------------------- scipy
def test_to_scipy_is_a_csr_array(A):
    S = A.to_scipy()
    assert isinstance(S, sp.csr_array) and S.shape == (3, 4) and S.nnz == 4  # explicit 0 kept
    assert np.array_equal(S.toarray(), A.to_dense(0.0))
    S.data[0] = 99.0  # a copy: the matrix does not change
    assert A[0, 1] == 1.0


def test_to_scipy_device_shares_the_storage_on_numpy(A):
    S = A.to_scipy(device=True)
    assert isinstance(S, sp.csr_array if not backend.is_gpu else object)
    if not backend.is_gpu:
        assert np.shares_memory(S.indices, A.to_csr(device=True)[1])


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ["array", "matrix"])
def test_from_scipy_any_format_arrays_and_matrices(A, fmt, kind):
    S = A.to_scipy()
    if kind == "matrix":
        S = sp.csr_matrix(S)
    S = S.asformat(fmt)
    B = gg.Matrix.from_scipy(S)
    if fmt == "dia":  # dia drops the stored zero's position? it keeps what toarray shows
        assert np.array_equal(B.to_dense(0.0), A.to_dense(0.0))
    else:
        assert B.isequal(A)


def test_from_scipy_coo_duplicates_need_dup_op():
    S = sp.coo_array((np.array([1.0, 2.0]), (np.array([0, 0]), np.array([1, 1]))), shape=(2, 2))
    with pytest.raises(gg.InvalidValue):
        gg.Matrix.from_scipy(S)
    assert gg.Matrix.from_scipy(S, dup_op="plus")[0, 1] == 3.0


def test_vector_scipy_round_trip_and_shapes():
    u = gg.Vector.from_coo([1, 3], [2.0, 5.0], size=5)
    V = u.to_scipy()
    assert isinstance(V, sp.csr_array) and V.shape == (1, 5)   # one row, as python-graphblas
    assert np.array_equal(V.toarray()[0], [0, 2, 0, 5, 0])
    assert gg.Vector.from_scipy(V).isequal(u)
    assert gg.Vector.from_scipy(V.T).isequal(u)                 # a column
    assert gg.Vector.from_scipy(sp.csc_matrix(V.T)).isequal(u)
    one_d = sp.coo_array((np.array([2.0, 5.0]), (np.array([1, 3]),)), shape=(5,))
    assert gg.Vector.from_scipy(one_d).isequal(u)
    with pytest.raises(gg.DimensionMismatch):
        gg.Vector.from_scipy(sp.csr_array(np.ones((2, 2))))
    with pytest.raises(gg.InvalidValue):
        gg.Vector.from_scipy(np.ones(3))
    assert gg.Vector(gg.INT32, 4).to_scipy().nnz == 0


# ---------------------------------------------------------------------- __array__
def test_asarray_of_full_objects_and_missing_entries_refused(A):
    F = gg.Matrix.from_dense(np.arange(6.0).reshape(2, 3))
    assert np.array_equal(np.asarray(F), np.arange(6.0).reshape(2, 3))
    assert np.asarray(F, dtype=np.int64).dtype == np.int64
    f = gg.Vector.from_dense(np.arange(4))
    assert np.array_equal(np.asarray(f), np.arange(4))
    with pytest.raises(gg.InvalidValue, match="to_dense"):
        np.asarray(A)
    with pytest.raises(gg.InvalidValue):
        np.asarray(gg.Vector.from_coo([1], [1.0], size=3))


def test_containers_are_not_taken_for_arrays():
    f = gg.Vector.from_dense(np.arange(4))
    with pytest.raises(gg.TypeNotSupported):
        gg.Vector.from_coo([0, 1, 2, 3], f)
    with pytest.raises(gg.InvalidValue):
        gg.Vector.from_coo(f, [1.0, 2.0, 3.0, 4.0])


# ---------------------------------------------------------------------- DLPack
def test_dlpack_of_a_full_vector_shares_its_values():
    xp = backend.xp   # the array library that reads this backend's memory
    f = gg.Vector.from_dense(np.arange(5.0))
    x = xp.from_dlpack(f)
    assert np.array_equal(backend.to_host(x), np.arange(5.0))
    assert f.__dlpack_device__() == ((2, x.device.id) if backend.is_gpu else (1, 0))
    sparse_full = gg.Vector.from_coo([0, 1, 2], [1, 2, 3], size=3)   # sparse form, full
    assert np.array_equal(backend.to_host(xp.from_dlpack(sparse_full)), [1, 2, 3])
    with pytest.raises(gg.InvalidValue, match="missing"):
        xp.from_dlpack(gg.Vector.from_coo([1], [1.0], size=3))


def test_from_dlpack_adopts_and_casts():
    a = np.arange(4, dtype=np.float64)
    v = gg.Vector.from_dlpack(a)
    assert v.nvals == 4 and v.dtype is gg.FP64 and np.array_equal(v.to_dense(), a)
    if not backend.is_gpu:  # adopted: the dense values are the caller's array
        assert np.shares_memory(np.from_dlpack(v), a)
    else:   # a host array is copied to the device; a device array is adopted
        d = backend.xp.arange(4, dtype=np.float64)
        assert backend.xp.from_dlpack(gg.Vector.from_dlpack(d)).data.ptr == d.data.ptr
    w = gg.Vector.from_dlpack(a, dtype="INT32")
    assert w.dtype is gg.INT32 and np.array_equal(w.to_dense(), [0, 1, 2, 3])
    with pytest.raises(gg.InvalidValue):
        gg.Vector.from_dlpack(np.ones((2, 2)))
    with pytest.raises(gg.InvalidValue):
        gg.Vector.from_dlpack([1, 2])


def test_csr_arrays_support_dlpack(A):
    indptr, indices, values = A.to_csr(device=True)
    for a in (indptr, indices, values):
        assert hasattr(a, "__dlpack__")
        assert np.array_equal(np.from_dlpack(a) if not backend.is_gpu else backend.to_host(a),
                              backend.to_host(a))


def test_torch_reads_a_vector_without_a_copy():
    torch = pytest.importorskip("torch")
    f = gg.Vector.from_dense(np.arange(3.0))
    t = torch.from_dlpack(f)
    assert t.tolist() == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------------- gg.io: networkx, scipy
def test_from_networkx_node_order_weights_and_direction():
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_edge("a", "b", weight=2.5)
    G.add_edge("b", "c")                       # no weight: 1, as to_scipy_sparse_array
    G.add_node("z")                            # isolated: a row and a column all the same
    A = gg.io.from_networkx(G)
    assert A.shape == (4, 4) and A.dtype is gg.FP64
    assert np.array_equal(A.to_dense(0.0), [[0, 2.5, 0, 0], [2.5, 0, 1, 0], [0, 1, 0, 0],
                                            [0, 0, 0, 0]])
    B = gg.io.from_networkx(G, nodelist=["c", "b", "a"], dtype="INT32", weight=None)
    assert B.dtype is gg.INT32
    assert np.array_equal(B.to_dense(0), [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    D = nx.DiGraph([(0, 1, {"w": 3}), (2, 0, {"w": 4})])
    C = gg.io.from_networkx(D, weight="w")
    assert C.to_coo()[0].tolist() == [0, 2] and C.to_coo()[2].tolist() == [3, 4]
    M = nx.MultiGraph([(0, 1), (0, 1)])
    assert gg.io.from_networkx(M)[0, 1] == 2                       # parallel edges summed
    with pytest.raises(gg.InvalidValue):
        gg.io.from_networkx(G, nodelist=["nowhere"])
    with pytest.raises(gg.InvalidValue):
        gg.io.from_networkx(A)


def test_to_networkx_round_trip():
    nx = pytest.importorskip("networkx")
    A = gg.Matrix.from_coo([0, 1, 1], [1, 0, 2], [2.0, 2.0, 5.0], nrows=4, ncols=4)
    H = gg.io.to_networkx(A)
    assert isinstance(H, nx.DiGraph) and sorted(H.nodes) == [0, 1, 2, 3]
    assert H[1][2]["weight"] == 5.0 and H.number_of_edges() == 3
    assert gg.io.from_networkx(H).isequal(A)
    U = gg.io.to_networkx(A, create_using=nx.Graph)
    assert not U.is_directed() and U.number_of_edges() == 2
    P = gg.io.to_networkx(A, None)
    assert P.edges[0, 1] == {}
    with pytest.raises(gg.InvalidValue):
        gg.io.to_networkx(gg.Matrix(gg.FP64, 2, 3))


def test_scipy_sparse_names_of_python_graphblas(A):
    assert gg.io.from_scipy_sparse(A.to_scipy()).isequal(A)
    for fmt in FORMATS:
        S = gg.io.to_scipy_sparse(A, fmt)
        assert S.format == fmt and np.array_equal(S.toarray(), A.to_dense(0.0))
    u = gg.Vector.from_coo([2], [7], size=3)
    assert gg.io.to_scipy_sparse(u).shape == (1, 3)
    assert gg.io.to_scipy_sparse(u, "csc").shape == (3, 1)
    with pytest.raises(gg.InvalidValue):
        gg.io.to_scipy_sparse(A, "xyz")
    assert gg.io.mmread is gg.io.read_mm and gg.io.mmwrite is gg.io.write_mm


def test_modules_are_attributes_after_import_alone():
    import subprocess
    import sys

    code = ("import sys, grblas_gpu as gg; assert 'matplotlib' not in sys.modules; "
            "gg.io.read_mm; gg.generate.rmat; gg.plot.format_vector; "
            "assert 'matplotlib' not in sys.modules; assert 'io' in dir(gg); print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
    with pytest.raises(AttributeError):
        gg.no_such_module


# ---------------------------------------------------------------------- infix, method outputs
def test_infix_union_and_intersection_follow_python_graphblas():
    a = gg.Vector.from_coo([0, 1], [True, False], size=4)
    b = gg.Vector.from_coo([1, 2], [True, True], size=4)
    assert (a | b).isequal(a.ewise_add(b, "lor"))
    assert (a & b).isequal(a.ewise_mult(b, "land"))
    assert (a | b).to_coo()[1].tolist() == [True, True, True]
    M = gg.Matrix.from_coo([0, 1], [1, 0], [True, True], nrows=2, ncols=2)
    assert (M.T | M).isequal(M) and (M & M.T).isequal(M)
    f = gg.Vector.from_coo([0], [1.0], size=4)
    with pytest.raises(gg.DomainMismatch, match="ewise_add"):
        f | f                                  # python-graphblas: BOOL only (TypeError)
    with pytest.raises(gg.DomainMismatch, match="ewise_mult"):
        a & f
    with pytest.raises(gg.InvalidValue):
        a | 1
    with pytest.raises(gg.InvalidValue):
        1 & a
    with pytest.raises(gg.DimensionMismatch):
        a | gg.Vector(gg.BOOL, 3)


def test_method_forms_take_mask_accum_desc_out():
    u = gg.Vector.from_coo([0, 1, 2], [1.0, -2.0, 3.0], size=4)
    m = gg.Vector.from_coo([0, 2], [True, True], size=4)
    assert u.apply("abs", mask=m.S).to_coo()[0].tolist() == [0, 2]
    assert u.apply("abs", mask=~m.S).to_coo()[0].tolist() == [1]
    w = gg.Vector.from_coo([0, 3], [10.0, 20.0], size=4)
    assert u.apply("abs", accum="plus", out=w) is w
    assert w.to_coo()[1].tolist() == [11.0, 2.0, 3.0, 20.0]
    c = gg.Vector.from_coo([3], [5.0], size=4)
    u.select("valuegt", 0.0, mask=m.S, out=c)                       # c⟨m⟩ = select(u)
    assert c.to_coo()[0].tolist() == [0, 2, 3]
    t = u.ewise_add(w, "plus", mask=m.S, desc=gg.GrB_REPLACE)
    assert t.to_coo()[1].tolist() == [12.0, 6.0]
    s = gg.Vector.from_coo([1], [100.0], size=4)
    u.ewise_mult(w, "times", accum="plus", out=s)
    assert s.to_coo()[1].tolist() == [11.0, 96.0, 9.0]
    r = gg.Vector(gg.FP64, 4)
    u.ewise_union(w, "minus", 0.0, 0.0, out=r)
    assert r.to_coo()[1].tolist() == [-10.0, -4.0, 0.0, -20.0]
    with pytest.raises(gg.InvalidValue, match="out="):
        u.apply("abs", accum="plus")
    with pytest.raises(gg.InvalidValue):
        u.apply("abs", out="w")
    A = gg.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], nrows=2, ncols=2)
    M = gg.Matrix.from_coo([0], [1], [True], nrows=2, ncols=2)
    assert A.T.apply("ainv", mask=M.S).to_coo()[2].tolist() == [-2.0]


# ---------------------------------------------------------------------- empty reductions
def test_reduction_of_an_empty_vector_to_a_scalar_is_empty():
    u = gg.Vector(gg.INT64, 5)
    s = gg.Vector(gg.INT64, 1)                       # a GrB_Scalar with no entry
    assert gg.reduce_scalar(u, "plus", out=s) is s and s.nvals == 0
    d = gg.Vector.from_dense(np.zeros(5, dtype=np.int64))
    d.clear()
    gg.reduce_scalar(d, "max", out=s)
    assert s.nvals == 0
    # the host form returns a number: the monoid's identity, as GrB_reduce to a C scalar
    assert gg.reduce_scalar(u, "plus") == 0
    w = gg.Vector(gg.INT64, 5)
    with pytest.raises(gg.EmptyObject, match="right="):
        gg.apply(w, gg.Vector.from_coo([1], [2], size=5), "plus", right=s)
    assert w.nvals == 0
