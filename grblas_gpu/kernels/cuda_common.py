"""CUDA source fragments shared by the SpGEMM and masked-dot kernels.

Every generated kernel begins with typedefs (index types IA, IB, IC, the semiring's input
type X, the monoid's type Z and its storage word W) and two device functions pasted from
the operators' C expressions: ``mult_op(x, y, i, k, j)`` (⊗, X×X→Z; the term A(i,k) ⊗ B(k,j),
whose indices only positional multiplies read) and ``add_op(x, y)`` (⊕, Z×Z→Z).
``accum(slot, z)`` folds z into a W-sized slot atomically: atomicAdd for PLUS on types that
have one, a compare-and-swap loop otherwise, a plain store for ANY (any value is right).
W is 4 bytes for types up to 4 bytes (the value sits in the low bytes), 8 otherwise, so the
CAS loop also covers BOOL, INT8 and INT16, which have no atomics of their own.
"""
import numpy as np

__all__ = ["header", "word_dtype", "word_of", "value_args", "c_cast", "ATOMIC_PLUS_TYPES",
           "LAST_BLOCK_TO_FINISH"]

# Z's C type -> the type atomicAdd takes for it (two's complement makes signed 64-bit
# addition the same bits as unsigned)
ATOMIC_PLUS_TYPES = {"float": "float", "double": "double", "int": "int",
                     "unsigned int": "unsigned int", "long long": "unsigned long long",
                     "unsigned long long": "unsigned long long"}

# A device function for kernels whose last block to finish combines what every block left
# (a grid-wide total, a level's counts, a scan's block sums). Every thread of every block
# calls it; it returns true in each thread of that one block, after which the others'
# writes are visible. The ticket (unsigned int or unsigned long long) is zero at launch.
LAST_BLOCK_TO_FINISH = r"""
template <class Ticket>
__device__ __forceinline__ bool last_block_to_finish(Ticket* ticket) {
    __shared__ bool last;
    __threadfence();   // (this thread's writes are visible before the ticket says so)
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(ticket, (Ticket)1) == (Ticket)(gridDim.x - 1);
    __syncthreads();
    if (last) __threadfence();
    return last;
}
"""

_HEADER = r"""
typedef ${IA} IA;
typedef ${IB} IB;
typedef ${X} X;
typedef ${Z} Z;
typedef ${W} W;
#define FULL_MASK 0xffffffffu
#define ANY_MONOID ${ANY}
#define PLUS_ATOMIC ${PLUS_ATOMIC}
// (i, k, j: the term's indices in C = A ⊕.⊗ B, read only by positional multiplies)
__device__ __forceinline__ Z mult_op(X x, X y, long long i, long long k, long long j) {
    return (Z)(${MULT});
}
__device__ __forceinline__ Z add_op(Z x, Z y) { return (Z)(${ADD}); }

union ZW { Z z; W w; };
__device__ __forceinline__ W z2w(Z z) { ZW u; u.w = 0; u.z = z; return u.w; }
__device__ __forceinline__ Z w2z(W w) { ZW u; u.w = w; return u.z; }

// An iso-valued operand passes a one-element value array and mask 0, so that every position
// reads element 0; otherwise the mask is all ones (no branch, one kernel for both).
__device__ __forceinline__ X value_at(const X* __restrict__ vals, long long p, long long mask) {
    return vals[p & mask];
}

// slot = slot (+) v, atomically with respect to other threads folding into the same slot
__device__ __forceinline__ void accum(W* slot, Z v) {
#if ANY_MONOID
    *(volatile W*)slot = z2w(v);
#elif PLUS_ATOMIC
    atomicAdd((${ATOMIC_T}*)slot, (${ATOMIC_T})v);
#else
    W old = *(volatile W*)slot, assumed;
    do {
        assumed = old;
        W nw = z2w(add_op(w2z(assumed), v));
        if (nw == assumed) return;
        old = atomicCAS(slot, assumed, nw);
    } while (old != assumed);
#endif
}

// warp shuffle of any Z (bool and the small integers travel as int)
__device__ __forceinline__ Z shfl_down_z(Z v, int delta) {
    ZW u; u.w = 0; u.z = v;
    u.w = (W)__shfl_down_sync(FULL_MASK, (${SHFL_T})u.w, delta);
    return u.z;
}
""" + LAST_BLOCK_TO_FINISH


def fold_start(monoid, z):
    """The value a workspace slot starts from before its first term is folded in: the
    monoid's identity, except NaN for min and max on floats. Those fold with fmin/fmax,
    which skip a NaN term, and SuiteSparse's result is NaN when every term is NaN; a slot
    starting at ±inf would return the identity instead. fmin(NaN, x) = x, so starting at
    NaN gives SuiteSparse's result either way. ANY: any value (0)."""
    if getattr(monoid.op, "all_terminal", False):
        return 0
    if np.dtype(z.np_type).kind == "f" and monoid.op.name in ("min", "max"):
        return z.np_type.type(np.nan)
    return monoid.identity


def word_dtype(z):
    """NumPy dtype of the storage word for monoid type z (a DataType)."""
    return np.dtype(np.uint64) if z.np_type.itemsize > 4 else np.dtype(np.uint32)


def word_of(value, z):
    """The storage word holding ``value`` of type z in its low bytes (little endian)."""
    w = np.zeros(1, dtype=word_dtype(z))
    w.view(np.uint8)[:z.np_type.itemsize] = np.asarray([value], dtype=z.np_type).view(np.uint8)
    return w[0]


def c_word_type(nbytes):
    """The unsigned C type of ``nbytes`` (1, 2, 4 or 8) bytes: kernels that move values of
    any type as raw words."""
    return _WORDS[nbytes]


_WORDS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}


def c_index_type(dtype):
    return "long long" if np.dtype(dtype).itemsize == 8 else "int"


def header(*, ia, ib, x, z, mult_c, add_c, any_monoid, plus):
    """The common prelude. ia, ib: NumPy index dtypes; x, z: DataTypes; mult_c, add_c: C
    expressions over x and y; plus: True when ⊕ is PLUS (atomicAdd where Z has one)."""
    from string import Template

    w = "unsigned long long" if word_dtype(z).itemsize == 8 else "unsigned int"
    atomic_t = ATOMIC_PLUS_TYPES.get(z.c_type)
    return Template(_HEADER).substitute(
        IA=c_index_type(ia), IB=c_index_type(ib), X=x.c_type, Z=z.c_type, W=w,
        ANY=int(bool(any_monoid)), PLUS_ATOMIC=int(bool(plus and atomic_t)),
        ATOMIC_T=atomic_t or "W",
        MULT=mult_c, ADD=add_c, SHFL_T="long long" if w == "unsigned long long" else "int")


def value_args(op, x):
    """(values array, index mask) kernel arguments for a Compressed operand: an iso operand passes its
    value as a one-element array and mask 0 (see value_at)."""
    import numpy as _np
    from .. import backend

    if op.values is not None:
        return op.values, _np.int64(-1)
    return backend.xp.full(1, op.iso, dtype=x.np_type), _np.int64(0)


def _int_literal(value, t):
    v = int(value)
    sfx = ("ULL" if t.np_type.kind == "u" else "LL") if t.np_type.itemsize == 8 else (
        "U" if t.np_type.kind == "u" else "")
    if v == int(np.iinfo(t.np_type).min) and v < 0:
        return f"(({t.c_type})(-{-v - 1}{sfx} - 1))"
    return f"(({t.c_type}){v}{sfx})"


def c_cast(src, dst, v="v"):
    """C expression casting v from DataType src to dst as grblas_gpu.types.cast does."""
    if src == dst:
        return v
    if dst.is_bool:
        return f"({v} != 0)"
    if src.is_float and dst.np_type.kind in "iu":
        info = np.iinfo(dst.np_type)
        return (f"(({v}) != ({v}) ? ({dst.c_type})0 : (({v}) >= {float(info.max)!r} ? "
                f"{_int_literal(info.max, dst)} : (({v}) <= {float(info.min)!r} ? "
                f"{_int_literal(info.min, dst)} : ({dst.c_type})({v}))))")
    return f"(({dst.c_type})({v}))"
