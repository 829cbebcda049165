"""oneMKL's graph API (mkl_graph_*), so that oneMKL graph programs port line for line.

A thin adapter over the core API: every function converts its arguments, calls the engine,
and converts errors; it computes nothing itself. Names drop the ``mkl_graph_`` prefix;
constants keep their oneMKL names::

    C code                                          Python
    mkl_graph_matrix_create(&A);                    A = onemkl.matrix_create()
    mkl_graph_matrix_set_csr(A, m, n, rows,         onemkl.matrix_set_csr(A, m, n, rows,
        MKL_GRAPH_TYPE_INT64, cols, ..., vals, ..);     MKL_GRAPH_TYPE_INT64, cols, ..., vals, ..)
    mkl_graph_mxm(C, M, accum, sr, A, B, desc,      onemkl.mxm(C, M, accum, sr, A, B, desc,
                  request, method);                            request, method)
    mkl_graph_matrix_get_property(C,                nnz = onemkl.matrix_get_property(C,
        MKL_GRAPH_PROPERTY_NNZ, &nnz);                  MKL_GRAPH_PROPERTY_NNZ)

Functions that return only a status in C return MKL_GRAPH_STATUS_SUCCESS; the others return
what C writes through its pointer arguments. A failure raises the engine's exception with
``.status`` set to its MKL_GRAPH_STATUS_* name (also ``err.mkl_status``). Arrays are backend
arrays (device arrays under CuPy); set_csr/set_sparse share them with the object when they
can, and multi-stage outputs are written INTO the caller's buffers.

Methods: mxm takes AUTO, DOT, GUSTAVSON, HASH. mxv/vxm take AUTO, DOT (the dot-product,
"pull", direction: one dot product per output entry) and GUSTAVSON (the saxpy, "push",
direction); HASH is NOT_SUPPORTED there (oneMKL: "not yet supported anywhere").
"""
import functools
import operator
import weakref

import numpy as np

from . import backend, operators
from .descriptor import Descriptor, Field, Method, Modifier, Request, _enum_of
from .errors import GraphBLASError, InvalidValue, NotInitialized, NotSupported
from .matrix import Matrix
from .types import lookup_dtype
from .vector import Vector

xp = backend.xp

# ---------------------------------------------------------------- constants
MKL_GRAPH_STATUS_SUCCESS = "MKL_GRAPH_STATUS_SUCCESS"
MKL_GRAPH_STATUS_NOT_INITIALIZED = "MKL_GRAPH_STATUS_NOT_INITIALIZED"
MKL_GRAPH_STATUS_ALLOC_FAILED = "MKL_GRAPH_STATUS_ALLOC_FAILED"
MKL_GRAPH_STATUS_INVALID_VALUE = "MKL_GRAPH_STATUS_INVALID_VALUE"
MKL_GRAPH_STATUS_INTERNAL_ERROR = "MKL_GRAPH_STATUS_INTERNAL_ERROR"
MKL_GRAPH_STATUS_NOT_SUPPORTED = "MKL_GRAPH_STATUS_NOT_SUPPORTED"

MKL_GRAPH_TYPE_UNSET = "MKL_GRAPH_TYPE_UNSET"
MKL_GRAPH_TYPE_INT32 = "MKL_GRAPH_TYPE_INT32"
MKL_GRAPH_TYPE_INT64 = "MKL_GRAPH_TYPE_INT64"
MKL_GRAPH_TYPE_FP32 = "MKL_GRAPH_TYPE_FP32"
MKL_GRAPH_TYPE_FP64 = "MKL_GRAPH_TYPE_FP64"
MKL_GRAPH_TYPE_BOOL = "MKL_GRAPH_TYPE_BOOL"

SEMIRINGS = ("PLUS_TIMES_INT32", "PLUS_TIMES_INT64", "PLUS_TIMES_FP32", "PLUS_TIMES_FP64",
             "PLUS_FIRST_FP32", "PLUS_SECOND_FP32", "PLUS_PAIR_INT32", "PLUS_PAIR_INT64",
             "LOR_LAND_BOOL", "MIN_PLUS_INT32", "MIN_FIRST_INT32", "MIN_SECOND_INT32",
             "ANY_FIRST_INT32", "ANY_FIRST_FP32", "ANY_SECOND_INT32", "ANY_SECOND_FP32",
             "ANY_PAIR_BOOL")
for _s in SEMIRINGS:
    globals()["MKL_GRAPH_SEMIRING_" + _s] = "MKL_GRAPH_SEMIRING_" + _s
MKL_GRAPH_ACCUMULATOR_NONE = "MKL_GRAPH_ACCUMULATOR_NONE"
MKL_GRAPH_ACCUMULATOR_PLUS = "MKL_GRAPH_ACCUMULATOR_PLUS"
MKL_GRAPH_ACCUMULATOR_MIN = "MKL_GRAPH_ACCUMULATOR_MIN"

for _enum in (Request, Method, Field, Modifier):
    for _m in _enum:
        globals()[_m.value] = _m

MKL_GRAPH_PROPERTY_NROWS = "MKL_GRAPH_PROPERTY_NROWS"
MKL_GRAPH_PROPERTY_NCOLS = "MKL_GRAPH_PROPERTY_NCOLS"
MKL_GRAPH_PROPERTY_NNZ = "MKL_GRAPH_PROPERTY_NNZ"
MKL_GRAPH_PROPERTY_MATRIX_HAS_CSR = "MKL_GRAPH_PROPERTY_MATRIX_HAS_CSR"
MKL_GRAPH_PROPERTY_MATRIX_HAS_CSC = "MKL_GRAPH_PROPERTY_MATRIX_HAS_CSC"
MKL_GRAPH_PROPERTY_VECTOR_HAS_DENSE = "MKL_GRAPH_PROPERTY_VECTOR_HAS_DENSE"
MKL_GRAPH_PROPERTY_VECTOR_HAS_SPARSE = "MKL_GRAPH_PROPERTY_VECTOR_HAS_SPARSE"

# destroyed handles, by id (Matrix, Vector and Descriptor are unhashable); the weak reference
# tells a destroyed object from a new one that reuses its id
_destroyed = {}


def _mark_destroyed(obj):
    _destroyed[id(obj)] = weakref.ref(obj)


def _is_destroyed(obj):
    ref = _destroyed.get(id(obj))
    return ref is not None and ref() is obj


def _mkl_status(f):
    """Raise the engine's errors with their oneMKL status names."""

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except GraphBLASError as err:
            err.status = err.mkl_status
            raise

    return wrapper


def _live(obj, cls, what, optional=False):
    if obj is None and optional:
        return None
    if _is_destroyed(obj):
        raise NotInitialized(f"{what} was destroyed")
    if not isinstance(obj, cls):
        raise NotInitialized(f"{what} is not a {cls.__name__} created by {cls.__name__.lower()}_create")
    return obj


def _type_of(t, what):
    if t is None or (isinstance(t, str) and t == MKL_GRAPH_TYPE_UNSET):
        return None
    if not isinstance(t, str):
        raise InvalidValue(f"{what} type must be an MKL_GRAPH_TYPE_* name, got {t!r}")
    return lookup_dtype(t)


def _dim(n, what):
    """A count or dimension: a non-negative integer (floats and bools refused)."""
    if isinstance(n, (bool, np.bool_)):
        raise InvalidValue(f"{what} must be an integer, got {n!r}")
    try:
        n = operator.index(n)
    except TypeError:
        raise InvalidValue(f"{what} must be an integer, got {n!r}") from None
    if not 0 <= n < 2**60:
        raise InvalidValue(f"{what} = {n} is out of range [0, 2**60)")
    return n


def _has_dtype(a, want):
    """Whether ``a`` is an array of dtype ``want`` (None == np.dtype('float64') in NumPy, so
    an object without a dtype is told apart first)."""
    dtype = getattr(a, "dtype", None)
    return isinstance(dtype, np.dtype) and dtype == want


def _index_array(a, t, what):
    """A caller's index array, checked against its declared type."""
    if a is None:
        return None
    want = _type_of(t, what)
    if want is not None and want.name not in ("INT32", "INT64"):
        raise InvalidValue(f"{what} type must be MKL_GRAPH_TYPE_INT32 or _INT64, got {t}")
    if want is not None and not _has_dtype(a, want.np_type):
        raise InvalidValue(f"{what} has dtype {getattr(a, 'dtype', None)}, declared {t}")
    return a


def _values_array(a, t, what):
    if a is None:
        return None
    want = _type_of(t, what)
    if want is not None and not _has_dtype(a, want.np_type):
        raise InvalidValue(f"{what} has dtype {getattr(a, 'dtype', None)}, declared {t}")
    return a


def _mkl_type(dtype):
    return dtype.mkl_name or dtype.name


# ---------------------------------------------------------------- matrices
@_mkl_status
def matrix_create():
    """A new, empty matrix handle (its shape and type come with set_csr / set_csc)."""
    return Matrix("FP32", 0, 0)


@_mkl_status
def matrix_destroy(A):
    _live(A, Matrix, "matrix").clear()
    _mark_destroyed(A)
    return MKL_GRAPH_STATUS_SUCCESS


@_mkl_status
def matrix_set_csr(A, nrows, ncols, rows_start, rows_start_type, col_indx=None,
                   col_indx_type=MKL_GRAPH_TYPE_UNSET, values=None, values_type=MKL_GRAPH_TYPE_UNSET):
    """A's CSR arrays. With only rows_start: the offsets buffer of a multi-stage output."""
    _live(A, Matrix, "matrix")
    rows_start = _index_array(rows_start, rows_start_type, "rows_start")
    col_indx = _index_array(col_indx, col_indx_type, "col_indx")
    values = _values_array(values, values_type, "values")
    nrows, ncols = _dim(nrows, "nrows"), _dim(ncols, "ncols")
    A.set_csr(rows_start, col_indx, values, nrows=nrows, ncols=ncols,
              dtype=_type_of(values_type, "values"))
    return MKL_GRAPH_STATUS_SUCCESS


@_mkl_status
def matrix_get_csr(A):
    """(nrows, ncols, rows_start, rows_start_type, col_indx, col_indx_type, values, values_type)."""
    _live(A, Matrix, "matrix")
    indptr, indices, values = A.get_csr()
    return (A.nrows, A.ncols, indptr, _mkl_type(lookup_dtype(indptr.dtype)), indices,
            _mkl_type(lookup_dtype(indices.dtype)), values, _mkl_type(A.dtype))


@_mkl_status
def matrix_set_csc(A, nrows, ncols, cols_start, cols_start_type, row_indx,
                   row_indx_type, values=None, values_type=MKL_GRAPH_TYPE_UNSET):
    _live(A, Matrix, "matrix")
    cols_start = _index_array(cols_start, cols_start_type, "cols_start")
    row_indx = _index_array(row_indx, row_indx_type, "row_indx")
    values = _values_array(values, values_type, "values")
    nrows, ncols = _dim(nrows, "nrows"), _dim(ncols, "ncols")
    A.set_csc(cols_start, row_indx, values, nrows=nrows, ncols=ncols,
              dtype=_type_of(values_type, "values"))
    return MKL_GRAPH_STATUS_SUCCESS


@_mkl_status
def matrix_get_csc(A):
    """(nrows, ncols, cols_start, cols_start_type, row_indx, row_indx_type, values, values_type)."""
    _live(A, Matrix, "matrix")
    colptr, rowidx, values = A.get_csc()
    return (A.nrows, A.ncols, colptr, _mkl_type(lookup_dtype(colptr.dtype)), rowidx,
            _mkl_type(lookup_dtype(rowidx.dtype)), values, _mkl_type(A.dtype))


@_mkl_status
def matrix_get_property(A, prop):
    _live(A, Matrix, "matrix")
    table = {MKL_GRAPH_PROPERTY_NROWS: lambda: A.nrows, MKL_GRAPH_PROPERTY_NCOLS: lambda: A.ncols,
             MKL_GRAPH_PROPERTY_NNZ: lambda: A.nvals,
             MKL_GRAPH_PROPERTY_MATRIX_HAS_CSR: lambda: A.has_csr,
             MKL_GRAPH_PROPERTY_MATRIX_HAS_CSC: lambda: A.has_csc}
    if not isinstance(prop, str) or prop not in table:
        raise InvalidValue(f"{prop!r} is not a matrix property")
    return table[prop]()


# ---------------------------------------------------------------- vectors
@_mkl_status
def vector_create():
    return Vector("FP32", 0)


@_mkl_status
def vector_destroy(v):
    _live(v, Vector, "vector").clear()
    _mark_destroyed(v)
    return MKL_GRAPH_STATUS_SUCCESS


def _set_shaped(v, dim, dtype, setter):
    """``setter`` applied to v, or, where the call gives v a new size or type, to a new
    Vector of that shape that then replaces v's content: v changes only once the
    content is accepted."""
    dtype = dtype or v.dtype
    if (dim, dtype) == (v.size, v.dtype):
        setter(v)
    else:
        new = Vector(dtype, dim)
        setter(new)
        v._swap_in(new)


@_mkl_status
def vector_set_dense(v, dim, values, values_type):
    _live(v, Vector, "vector")
    values = _values_array(values, values_type, "values")
    _set_shaped(v, _dim(dim, "dim"), _type_of(values_type, "values"),
                lambda x: x.set_dense(values))
    return MKL_GRAPH_STATUS_SUCCESS


@_mkl_status
def vector_set_sparse(v, dim, nnz, indices, indices_type, values, values_type):
    _live(v, Vector, "vector")
    indices = _index_array(indices, indices_type, "indices")
    values = _values_array(values, values_type, "values")
    dim, nnz = _dim(dim, "dim"), _dim(nnz, "nnz")
    if indices is not None and (getattr(indices, "ndim", 1) != 1 or len(indices) != nnz):
        raise InvalidValue(f"nnz = {nnz} but indices has shape {getattr(indices, 'shape', None)}")
    _set_shaped(v, dim, _type_of(values_type, "values"), lambda x: x.set_sparse(indices, values))
    return MKL_GRAPH_STATUS_SUCCESS


@_mkl_status
def vector_get_dense(v):
    """(dim, values, values_type)."""
    _live(v, Vector, "vector")
    return v.size, v.get_dense(), _mkl_type(v.dtype)


@_mkl_status
def vector_get_sparse(v):
    """(dim, nnz, indices, indices_type, values, values_type)."""
    _live(v, Vector, "vector")
    idx, vals = v.get_sparse()
    return v.size, len(idx), idx, _mkl_type(lookup_dtype(idx.dtype)), vals, _mkl_type(v.dtype)


@_mkl_status
def vector_get_property(v, prop):
    _live(v, Vector, "vector")
    table = {MKL_GRAPH_PROPERTY_NROWS: lambda: v.size, MKL_GRAPH_PROPERTY_NCOLS: lambda: 1,
             MKL_GRAPH_PROPERTY_NNZ: lambda: v.nvals,
             MKL_GRAPH_PROPERTY_VECTOR_HAS_DENSE: lambda: v.has_dense,
             MKL_GRAPH_PROPERTY_VECTOR_HAS_SPARSE: lambda: v.has_sparse}
    if not isinstance(prop, str) or prop not in table:
        raise InvalidValue(f"{prop!r} is not a vector property")
    return table[prop]()


# ---------------------------------------------------------------- descriptors
@_mkl_status
def descriptor_create():
    return Descriptor()


@_mkl_status
def descriptor_set_field(desc, field, value):
    _live(desc, Descriptor, "descriptor").set(field, value)
    return MKL_GRAPH_STATUS_SUCCESS


@_mkl_status
def descriptor_destroy(desc):
    _live(desc, Descriptor, "descriptor")
    _mark_destroyed(desc)
    return MKL_GRAPH_STATUS_SUCCESS


# ---------------------------------------------------------------- operations
def _accum(accum):
    none = accum is None or (isinstance(accum, str) and accum == MKL_GRAPH_ACCUMULATOR_NONE)
    return None if none else accum


def _desc(desc):
    return _live(desc, Descriptor, "descriptor", optional=True)


_MXV_DIRECTION = {Method.AUTO: None, Method.DOT: "pull", Method.GUSTAVSON: "push"}


def _direction(method):
    method = _enum_of(Method, method)
    if method not in _MXV_DIRECTION:
        raise NotSupported(f"{method.value} is not supported for mxv/vxm")
    return _MXV_DIRECTION[method]


@_mkl_status
def mxv(w, mask, accum, semiring, A, u, desc=None, request=Request.COMPUTE_ALL,
        method=Method.AUTO):
    """w⟨mask⟩ = accum(w, A ⊕.⊗ u) (mkl_graph_mxv)."""
    from .operations.mxv import mxv as _mxv

    _live(w, Vector, "w"), _live(A, Matrix, "A"), _live(u, Vector, "u")
    _mxv(w, A, u, semiring, mask=_live(mask, Vector, "mask", optional=True), accum=_accum(accum),
         desc=_desc(desc), request=request, direction=_direction(method))
    return MKL_GRAPH_STATUS_SUCCESS


@_mkl_status
def vxm(w, mask, accum, semiring, u, A, desc=None, request=Request.COMPUTE_ALL,
        method=Method.AUTO):
    """wᵀ⟨maskᵀ⟩ = accum(wᵀ, uᵀ ⊕.⊗ A) (mkl_graph_vxm)."""
    from .operations.mxv import vxm as _vxm

    _live(w, Vector, "w"), _live(A, Matrix, "A"), _live(u, Vector, "u")
    _vxm(w, u, A, semiring, mask=_live(mask, Vector, "mask", optional=True), accum=_accum(accum),
         desc=_desc(desc), request=request, direction=_direction(method))
    return MKL_GRAPH_STATUS_SUCCESS


@_mkl_status
def mxm(C, M, accum, semiring, A, B, desc=None, request=Request.COMPUTE_ALL,
        method=Method.AUTO):
    """C⟨M⟩ = accum(C, A ⊕.⊗ B) (mkl_graph_mxm)."""
    from .operations.mxm import mxm as _mxm

    _live(C, Matrix, "C"), _live(A, Matrix, "A"), _live(B, Matrix, "B")
    _mxm(C, A, B, semiring, mask=_live(M, Matrix, "mask", optional=True), accum=_accum(accum),
         desc=_desc(desc), request=request, method=method)
    return MKL_GRAPH_STATUS_SUCCESS


@_mkl_status
def transpose(C, mask, accum, A, desc=None):
    """C⟨mask⟩ = accum(C, Aᵀ) (mkl_graph_transpose)."""
    from .operations.transpose import transpose as _transpose

    _live(C, Matrix, "C"), _live(A, Matrix, "A")
    _transpose(C, A, mask=_live(mask, Matrix, "mask", optional=True), accum=_accum(accum),
               desc=_desc(desc))
    return MKL_GRAPH_STATUS_SUCCESS


# ---------------------------------------------------------------- optimisation hints
def _tiny_like(X, dtype=None):
    """A 1x1 (or size-1) object with one entry, X's type, index type and iso-ness: running an
    operation on it compiles the kernels the real call will use."""
    if isinstance(X, Vector):
        return Vector.from_coo([0], [1], size=1, dtype=dtype or X.dtype)
    vals = None if X._values is None else xp.ones(1, dtype=X.dtype.np_type)
    itype = X._indices.dtype
    T = Matrix._from_csr(1, 1, X.dtype, xp.asarray([0, 1], dtype=itype), xp.zeros(1, dtype=itype),
                         vals, None if vals is not None else X._iso)
    return T._as_index_dtype(itype)


def _prepare_transpose_sources(A, transpose_wanted):
    if transpose_wanted and A.nvals:
        A._csc()  # cached on A: later calls reuse it


@_mkl_status
def optimize_mxm(M, semiring, A, B, desc=None, ncalls=1):
    """Hint that mxm(·, M, ·, semiring, A, B, desc) will be called ``ncalls`` times: build the
    CSC forms it will read (A's if transposed; B's columns for the masked dot) and compile its
    kernels now."""
    from .operations.mxm import mxm as _mxm

    _live(A, Matrix, "A"), _live(B, Matrix, "B")
    M = _live(M, Matrix, "mask", optional=True)
    d = _desc(desc) or Descriptor()
    _dim(ncalls, "ncalls")
    operators.semiring(semiring, A.dtype, B.dtype)  # a bad semiring raises before any work
    _prepare_transpose_sources(A, d.transpose_first)
    _prepare_transpose_sources(B, d.transpose_second or M is not None)
    tiny_a, tiny_b = _tiny_like(A), _tiny_like(B)
    methods = [Method.GUSTAVSON, Method.HASH]
    mask = None
    if M is not None and not d.mask_complement:
        methods.append(Method.DOT)
        mask = _tiny_like(M)
    for method in methods:
        _mxm(Matrix(A.dtype, 1, 1), tiny_a, tiny_b, semiring,
             mask=mask if method is Method.DOT else None, method=method,
             desc=Descriptor(structure_first=d.structure_first,
                             structure_second=d.structure_second))
    return MKL_GRAPH_STATUS_SUCCESS


@_mkl_status
def optimize_mxv(mask, semiring, A, desc=None, ncalls=1):
    """Hint that mxv(·, mask, ·, semiring, A, ·, desc) will be called ``ncalls`` times: build
    A's CSC form (the push direction reads A's columns) and compile the kernels now."""
    from .operations.mxv import mxv as _mxv

    _live(A, Matrix, "A")
    _live(mask, Vector, "mask", optional=True)
    d = _desc(desc) or Descriptor()
    _dim(ncalls, "ncalls")
    operators.semiring(semiring, A.dtype, A.dtype)  # a bad semiring raises before any work
    _prepare_transpose_sources(A, True)
    tiny = _tiny_like(A)
    for direction in ("pull", "push"):
        u = Vector.from_coo([0], [1], size=1, dtype=A.dtype)
        _mxv(Vector(A.dtype, 1), tiny, u, semiring, direction=direction,
             desc=Descriptor(structure_first=d.structure_first))
    return MKL_GRAPH_STATUS_SUCCESS
