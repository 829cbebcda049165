"""The kernels' operand records, and what the matrix-vector kernels (pull and push) share.

Records: a matrix as a :class:`Compressed` operand (every product family's: by rows for a
pull or SpGEMM's A, by columns for a push or the masked dot's B),
u as a :class:`DenseOperand` (values + bitmap) or a :class:`SparseOperand` (sorted indices),
the mask as a :class:`DenseMask`, and the typed semiring with the product's order as a
:class:`Product`. NumPy helpers over them (the mask as a bool array, operand values, ⊗ over
matched entries, ⊕ over runs of sorted keys), and the CUDA prelude both kernel families
start from (``operand_source``: cuda_common.header plus the operand casts, ⊗ in mxv or vxm
order, the mask test and the stop rule) with its printable kernel key.
"""
from string import Template
from typing import Any, NamedTuple, Optional

import numpy as np

from .. import backend
from ..types import cast, cast_scalar, lookup_dtype
from .cache import KernelKey
from .cuda_common import c_cast, header
from .segment import segment_reduce

xp = backend.xp

__all__ = ["Compressed", "DenseOperand", "SparseOperand", "DenseMask", "Product",
           "allowed_rows", "iso_scalar", "operand_values", "apply_product", "fold_sorted", "run_starts",
           "operand_source", "kernel_key"]


class Compressed(NamedTuple):
    """A matrix by rows or by columns (every product kernel's matrix operand: pull, push,
    SpGEMM, masked dot): vector v spans idx[ptr[v]:ptr[v+1]], indices sorted within it.
    ``values`` None: every value is ``iso`` (iso or structure-only, or values ⊗ ignores)."""
    ptr: Any
    idx: Any
    values: Any
    iso: Any
    dtype: Any  # DataType of values / iso
    full_width: int = 0  # > 0: every vector holds this many entries, idx[p] is p's offset
    #                      in its vector (pull computes it and never reads idx)
    # (matrix, key): where this operand's shape (kernels.structured) is kept with the matrix
    # it was read from, so it is read from the device once per content
    shape_memo: Any = None

    @property
    def n(self):
        """The number of vectors."""
        return len(self.ptr) - 1

    @property
    def lengths(self):
        return self.ptr[1:] - self.ptr[:-1]

    def values_at(self, pos, dtype):
        """Values at positions pos (an iso value broadcast)."""
        if self.values is not None:
            return self.values[pos]
        return xp.full(len(pos), self.iso, dtype=dtype.np_type)


class DenseOperand(NamedTuple):
    values: Any   # length size, garbage where absent; None: every value is iso
    bitmap: Any   # bool, length size
    iso: Any
    dtype: Any
    full: bool    # every entry present: the bitmap need not be read


class SparseOperand(NamedTuple):
    indices: Any  # int32 or int64, sorted
    values: Any   # None: iso
    iso: Any
    dtype: Any


class DenseMask(NamedTuple):
    """Output i is allowed iff (bitmap[i] and (structure or values[i] != 0)) != complement.
    ``rows``: the allowed outputs as a sorted int64 list, when the caller has it cheaply."""
    bitmap: Any
    values: Any   # None for a structural mask
    complement: bool
    rows: Optional[Any] = None


class Product(NamedTuple):
    """What ⊗ and ⊕ need: the typed semiring and which operand is the matrix."""
    semiring: Any        # semirings.Typed
    matrix_first: bool   # mxv: A(i,k) ⊗ u(k); vxm: u(k) ⊗ A(k,j)

    @property
    def tin(self):
        return self.semiring.type

    @property
    def tout(self):
        return self.semiring.out_type

    @property
    def reads(self):
        """(reads the matrix's values, reads the vector's values): pair reads neither, first
        only x, second and any (which returns y) only y."""
        if self.positional:
            return False, False
        name = self.semiring.op.multiply.name
        rx, ry = name not in ("pair", "second", "any"), name not in ("pair", "first")
        return (rx, ry) if self.matrix_first else (ry, rx)

    @property
    def positional(self):
        """⊗ is an index of the term (firsti, secondj, ...), not a function of values."""
        return self.semiring.op.multiply.positional

    @property
    def stop(self):
        """('any', None), ('value', terminal) or (None, None): when a fold may stop early.
        fmin/fmax (min and max on floats) have no terminal in SuiteSparse, but -inf/+inf
        absorb them (NaN loses to any number), so a row may stop there too."""
        mon = self.semiring.monoid
        if mon.op.all_terminal:
            return "any", None
        term = mon.terminal
        if term is None and self.tout.is_float and mon.op.name in ("min", "max"):
            term = self.tout.np_type.type(-np.inf if mon.op.name == "min" else np.inf)
        return ("value", term) if term is not None else (None, None)


def allowed_rows(mask, n):
    """The mask as a bool array of length n (True: the output may hold an entry)."""
    m = mask.bitmap.astype(bool, copy=False)
    if mask.values is not None:
        m = m & (mask.values != 0)
    return ~m if mask.complement else m


def iso_scalar(iso, tin):
    """An operand's iso value cast to tin (0 where ⊗ does not read it), as a NumPy scalar."""
    return tin.np_type.type(cast_scalar(0 if iso is None else iso, tin))


def operand_values(op, where, tin):
    """op's values at positions ``where``, cast to tin (zeros for values ⊗ does not read)."""
    if op.values is None:
        return xp.full(len(where), iso_scalar(op.iso, tin), dtype=tin.np_type)
    return cast(op.values[where], tin, xp)


def apply_product(prod, a, x, o, k):
    """⊗ over matched operand arrays (a: matrix values, x: vector values; o: the output's
    index of each term, k: its inner index), in T's type."""
    mult = prod.semiring.op.multiply
    if mult.positional:  # mxv: A(o,k) ⊗ u(k), the term (i, k, j) = (o, k, 0); vxm: (0, k, o)
        zero = xp.zeros(k.shape, dtype=k.dtype)
        z = mult.positions(o, k, zero) if prod.matrix_first else mult.positions(zero, k, o)
        return cast(z, prod.tout, xp)
    fn = mult.numpy
    z = fn(a, x) if prod.matrix_first else fn(x, a)
    z = xp.asarray(z)
    if z.shape != a.shape:
        z = xp.broadcast_to(z, a.shape)
    return cast(z, prod.tout, xp)


def run_starts(keys):
    """The offsets where a run of equal keys begins (keys sorted, not empty)."""
    first = xp.empty(len(keys), dtype=bool)
    first[0] = True
    xp.not_equal(keys[1:], keys[:-1], out=first[1:])
    return first.nonzero()[0]


def fold_sorted(keys, vals, prod):
    """(unique keys, ⊕ of each run of equal keys): keys sorted."""
    return fold_runs(keys, vals, prod.semiring.monoid.op, prod.tout)


def fold_runs(keys, vals, monoid, tout):
    """(unique keys, each run of equal keys folded by ``monoid`` into ``tout``): keys sorted.
    ANY takes each run's first value (every candidate is a right answer)."""
    if len(keys) == 0:
        return keys, vals
    starts = run_starts(keys)
    if monoid.all_terminal:
        return keys[starts], vals[starts]
    return keys[starts], segment_reduce(vals, starts, monoid, tout)


_OPERANDS = r"""
typedef ${TA} TA;   // B's stored value type
typedef ${TU} TU;   // u's stored value type
typedef ${TM} TM;   // the mask's value type
#define MATRIX_FIRST ${MATRIX_FIRST}
#define READ_A ${READ_A}
#define READ_U ${READ_U}
#define MASK ${MASK}            // 0 none, 1 structural, 2 by value
#define MASK_COMP ${MASK_COMP}
#define STOP ${STOP}            // 0 never, 1 once the fold equals term, 2 at the first entry

__device__ __forceinline__ X cast_a(TA v) { return ${CAST_A}; }
__device__ __forceinline__ X cast_u(TU v) { return ${CAST_U}; }
// B's entry (o, k) times u(k), o being the output's index: A(o,k) ⊗ u(k) in mxv (j = 0),
// u(k) ⊗ A(k,o) in vxm (i = 0)
__device__ __forceinline__ Z product(X a, X u, long long o, long long k) {
#if MATRIX_FIRST
    return mult_op(a, u, o, k, 0);
#else
    return mult_op(u, a, 0, k, o);
#endif
}
__device__ __forceinline__ void fold(bool& has, Z& acc, Z v) {
    acc = has ? add_op(acc, v) : v;
    has = true;
}
__device__ __forceinline__ bool allowed(const unsigned char* __restrict__ mmap,
                                        const TM* __restrict__ mval, long long i) {
#if MASK == 0
    return true;
#elif MASK == 1
    return (mmap[i] != 0) != (bool)MASK_COMP;
#else
    return (mmap[i] != 0 && mval[i] != (TM)0) != (bool)MASK_COMP;
#endif
}
__device__ __forceinline__ bool reached(bool has, Z acc, Z term) {
#if STOP == 2
    return has;
#elif STOP == 1
    return has && acc == term;
#else
    return false;
#endif
}
"""


def operand_source(prod, ta, tu, ia, mask, read_a, read_u, *, early_stop=True):
    """The prelude (cuda_common.header) plus the operand casts, ⊗ in mxv or vxm order, the
    mask test and the stop rule shared by the pull and push kernels. ``early_stop=False``
    compiles the stop rule out (``reached`` is always false): the result is the same, and a
    fold that tests after every entry waits for each lookup in turn."""
    sr = prod.semiring
    stop = prod.stop[0] if early_stop else None
    mon = sr.monoid
    pre = header(ia=ia, ib=np.int64, x=prod.tin, z=prod.tout, mult_c=sr.multiply.c(),
                 add_c=mon.c(), any_monoid=mon.op.all_terminal,
                 plus=mon.op.name == "plus")
    tm = mask.values.dtype if (mask is not None and mask.values is not None) else np.uint8
    ops = Template(_OPERANDS).substitute(
        TA=ta.c_type, TU=tu.c_type, TM=_c_value_type(tm), MATRIX_FIRST=int(prod.matrix_first),
        READ_A=int(read_a), READ_U=int(read_u), MASK=_mask_kind(mask),
        MASK_COMP=int(bool(mask is not None and mask.complement)),
        STOP={None: 0, "value": 1, "any": 2}[stop],
        CAST_A=c_cast(ta, prod.tin), CAST_U=c_cast(tu, prod.tin))
    return pre + ops


def _c_value_type(np_dtype):
    return lookup_dtype(np.dtype(np_dtype)).c_type


def _mask_kind(mask):
    if mask is None:
        return 0
    return 1 if mask.values is None else 2


def kernel_key(family, variant, prod, ta, tu, ia, mask, read_a, read_u, extra=()):
    """A printable description of one specialisation (KernelKey), built once per distinct
    argument set (a product's host time is otherwise mostly spent here)."""
    mvals = None if mask is None or mask.values is None else np.dtype(mask.values.dtype)
    memo = (family, variant, prod, ta, tu, np.dtype(ia), _mask_kind(mask), mvals,
            mask is not None and mask.complement, read_a, read_u, extra)
    key = _keys.get(memo)
    if key is None:
        key = _keys[memo] = _kernel_key(family, variant, prod, ta, tu, ia, mask, read_a,
                                        read_u, extra)
    return key


_keys = {}  # (threads: get-then-set; two may both make a value, equal, either kept)


def _kernel_key(family, variant, prod, ta, tu, ia, mask, read_a, read_u, extra):
    sr = prod.semiring
    mk = ("none", "struct", "value")[_mask_kind(mask)]
    if _mask_kind(mask) == 2:  # the source reads the mask's values as their own type (TM)
        mk += ":" + np.dtype(mask.values.dtype).name
    if mask is not None and mask.complement:
        mk = "~" + mk
    return KernelKey(family, variant, (sr.op.monoid.name, sr.op.multiply.name),
                     (ta.name, tu.name, prod.tin.name, prod.tout.name, np.dtype(ia).name),
                     (("order", "mxv" if prod.matrix_first else "vxm"), ("mask", mk),
                      ("a", "values" if read_a else "iso"), ("u", "values" if read_u else "iso"),
                      ("stop", str(prod.stop[0])), *extra))
