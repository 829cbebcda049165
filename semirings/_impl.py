"""Shared spelling for the catalog: C fragments per type, NumPy helpers that mirror them.

The C side is written so that it is also valid C99 (the tests compile every expression with
gcc): operands ``x``/``y`` are of the op's input C type, the value is converted to the output
type by the kernel. No GNU extensions, no helper functions: a kernel only pastes the text.
Signed negation goes through the unsigned type so that ``-INT_MIN`` wraps instead of being
undefined. The NumPy side works on NumPy and CuPy arrays alike (ufuncs and ``np.where`` only).
"""
import functools
import math

import numpy as np

from grblas_gpu.types import ALL_TYPES, FP32

NUMERIC = tuple(t for t in ALL_TYPES if not t.is_bool)
INTEGER = tuple(t for t in ALL_TYPES if t.np_type.kind in "iu")
SIGNED_INT = tuple(t for t in INTEGER if t.np_type.kind == "i")
UNSIGNED = tuple(t for t in INTEGER if t.np_type.kind == "u")
FLOATS = tuple(t for t in ALL_TYPES if t.is_float)
NOT_BOOL = NUMERIC

# python-graphblas's coercion for floating-point-only functions applied to other types
SMALL_TO_FP32 = {t: FP32 for t in ALL_TYPES
                 if t.name in ("BOOL", "INT8", "INT16", "UINT8", "UINT16")}
LARGE_TO_FP64 = {t: "FP64" for t in ALL_TYPES if t.name in ("INT32", "INT64", "UINT32", "UINT64")}
TO_FLOAT = {**SMALL_TO_FP32, **LARGE_TO_FP64}

_UNSIGNED_C = {"signed char": "unsigned char", "short": "unsigned short", "int": "unsigned int",
               "long long": "unsigned long long"}
_SUFFIX = {"INT64": "LL", "UINT64": "ULL", "UINT32": "U"}


# ---------------------------------------------------------------- C spelling
def lit(value, t):
    """A C literal of integer type t (INT_MIN spelled as -MAX-1, 64-bit suffixed)."""
    value = int(value)
    sfx = _SUFFIX.get(t.name, "")
    if t.is_signed and value == int(np.iinfo(t.np_type).min):
        return f"(({t.c_type})(-{-value - 1}{sfx} - 1))"
    return f"(({t.c_type}){value}{sfx})"


def cmax(t):
    return lit(np.iinfo(t.np_type).max, t)


def cmin(t):
    return lit(np.iinfo(t.np_type).min, t)


def cneg(t, a="x"):
    """Two's complement negation of a (wraps at the type's minimum)."""
    if t.is_float:
        return f"(-{a})"
    ut = _UNSIGNED_C.get(t.c_type, t.c_type)
    return f"(({t.c_type})(({ut})0 - ({ut}){a}))"


def fn(name, t):
    """A libm function name at float type t: sqrtf for FP32, sqrt for FP64."""
    return f"{name}f" if t is FP32 else name


def cidiv(t, a="x", b="y"):
    """SuiteSparse's integer division a / b (truncating), with its divide-by-zero rule:
    0/0 = 0, a/0 = MAX for a > 0 and MIN for a < 0 (0 for unsigned 0/0, MAX otherwise);
    a / -1 = -a wrapping (so MIN / -1 does not trap)."""
    if t.np_type.kind == "u":
        return (f"(({b}) == 0 ? (({a}) == 0 ? ({t.c_type})0 : {cmax(t)}) : "
                f"({t.c_type})(({a}) / ({b})))")
    return (f"(({b}) == 0 ? (({a}) == 0 ? ({t.c_type})0 : (({a}) < 0 ? {cmin(t)} : {cmax(t)})) : "
            f"(({b}) == -1 ? {cneg(t, a)} : ({t.c_type})(({a}) / ({b}))))")


def cfloordiv_int(t, a="x", b="y"):
    """Integer division rounding to -inf, with cidiv's divide-by-zero rule."""
    if t.np_type.kind == "u":
        return cidiv(t, a, b)
    q = f"({a}) / ({b})"
    adj = f"((({a}) % ({b}) != 0) && ((({a}) < 0) != (({b}) < 0)))"
    return (f"(({b}) == 0 ? (({a}) == 0 ? ({t.c_type})0 : (({a}) < 0 ? {cmin(t)} : {cmax(t)})) : "
            f"(({b}) == -1 ? {cneg(t, a)} : ({t.c_type})({q} - {adj})))")


def cfloordiv_float(t, a="x", b="y"):
    """NumPy's (and Python's) float floor division, npy_divmod spelled out: fmod, then
    correct the truncated quotient toward -inf; a / 0 gives a / b (inf or nan)."""
    fmod, floor, copysign = fn("fmod", t), fn("floor", t), fn("copysign", t)
    m = f"{fmod}({a}, {b})"
    d = f"((({a}) - {m}) / ({b}))"
    d2 = f"(({m} != 0 && ((({b}) < 0) != ({m} < 0))) ? {d} - 1 : {d})"
    f = f"{floor}({d2})"
    return (f"(({b}) == 0 ? ({a}) / ({b}) : ({d2} != 0 ? (({d2} - {f} > 0.5f) ? {f} + 1 : {f}) "
            f": {copysign}(({t.c_type})0, ({a}) / ({b}))))")


def cpow(t, a="x", b="y"):
    """SuiteSparse's pow: floats: NaN if either is NaN, 1 if b == 0, else pow; integers:
    pow in double, then the saturating cast (NaN -> 0, clipped to [MIN, MAX]); BOOL: a || !b."""
    if t.is_bool:
        return f"(({a}) || !({b}))"
    if t.is_float:
        return (f"((isnan({a}) || isnan({b})) ? ({a}) + ({b}) : (({b}) == 0 ? ({t.c_type})1 : "
                f"{fn('pow', t)}({a}, {b})))")
    # CUDA's pow may miss an exact integer power by an ulp (2.0^21 -> 2097151.99...), which
    # the cast would truncate; with b >= 0 the exact result is an integer: round to it
    p = f"pow((double)({a}), (double)({b}))"
    p = f"(({b}) >= 0 ? rint({p}) : {p})"
    info = np.iinfo(t.np_type)
    return (f"({p} >= {float(info.max)!r} ? {cmax(t)} : ({p} <= {float(info.min)!r} ? {cmin(t)} "
            f": ({t.c_type}){p}))")


def by_kind(*, bool_=None, int_=None, uint=None, sint=None, float_=None, default=None):
    """A c_expr function choosing a spelling by the type's kind. Entries may be strings or
    functions of the DataType."""

    def choose(t):
        if t.is_bool:
            e = bool_
        elif t.is_float:
            e = float_
        elif t.np_type.kind == "u":
            e = uint if uint is not None else int_
        else:
            e = sint if sint is not None else int_
        if e is None:
            e = default
        if e is None:
            raise KeyError(f"no C spelling for {t.name}")
        return e(t) if callable(e) else e

    return choose


# ---------------------------------------------------------------- NumPy side
def quiet(f):
    """Run f with floating-point warnings off: division by zero, overflow and NaN are
    defined results here, not errors."""

    @functools.wraps(f)
    def wrapper(*args):
        with np.errstate(all="ignore"):
            return f(*args)

    return wrapper


def kind(a):
    return a.dtype.kind


def as_type(a, like):
    """a (bool or numeric) as like's dtype."""
    return a.astype(like.dtype)


def neg(a):
    """Two's complement / IEEE negation (wraps for integers, identity for bool)."""
    if kind(a) == "b":
        return a
    return np.negative(a)


def saturate(p, dtype):
    """SuiteSparse's double -> integer cast: NaN -> 0, clipped to the type's range."""
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype)
    hi = p >= float(info.max)
    lo = p <= float(info.min)
    z = np.where(np.isnan(p) | hi | lo, 0, p).astype(dtype)
    z = np.where(hi, dtype.type(info.max), z)
    return np.where(lo, dtype.type(info.min), z).astype(dtype)


def idiv(a, b):
    """SuiteSparse's truncating integer division (see cidiv)."""
    dt = a.dtype
    info = np.iinfo(dt)
    zero_b = b == 0
    if dt.kind == "u":
        safe = np.where(zero_b, dt.type(1), b)
        q = np.floor_divide(a, safe)
        return np.where(zero_b, np.where(a == 0, dt.type(0), dt.type(info.max)), q).astype(dt)
    minus1 = b == -1
    safe = np.where(zero_b | minus1, dt.type(1), b)
    q = np.floor_divide(a, safe)
    r = a - q * safe
    q = np.where((r != 0) & ((a < 0) != (safe < 0)), q + dt.type(1), q)
    by0 = np.where(a == 0, dt.type(0), np.where(a < 0, dt.type(info.min), dt.type(info.max)))
    return np.where(zero_b, by0, np.where(minus1, np.negative(a), q)).astype(dt)


def ifloordiv(a, b):
    """Integer floor division with idiv's divide-by-zero rule."""
    dt = a.dtype
    if dt.kind == "u":
        return idiv(a, b)
    info = np.iinfo(dt)
    zero_b = b == 0
    minus1 = b == -1
    safe = np.where(zero_b | minus1, dt.type(1), b)
    q = np.floor_divide(a, safe)
    by0 = np.where(a == 0, dt.type(0), np.where(a < 0, dt.type(info.min), dt.type(info.max)))
    return np.where(zero_b, by0, np.where(minus1, np.negative(a), q)).astype(dt)


def ffloordiv(a, b):
    """Float floor division exactly as cfloordiv_float (NumPy's npy_divmod)."""
    one = a.dtype.type(1)
    m = np.fmod(a, b)
    d = (a - m) / b
    d2 = np.where((m != 0) & ((b < 0) != (m < 0)), d - one, d)
    f = np.floor(d2)
    r = np.where(d2 - f > 0.5, f + one, f)
    r = np.where(d2 != 0, r, np.copysign(a.dtype.type(0), a / b))
    return np.where(b == 0, a / b, r).astype(a.dtype)


def fpow(a, b):
    """SuiteSparse's pow (see cpow)."""
    k = kind(a)
    if k == "b":
        return a | ~b
    if k == "f":
        p = np.where(b == 0, a.dtype.type(1), np.power(a, b))
        return np.where(np.isnan(a) | np.isnan(b), a + b, p).astype(a.dtype)
    p = np.power(a.astype(np.float64), b.astype(np.float64))
    return saturate(np.where(b >= 0, np.rint(p), p), a.dtype)  # see cpow: exact integer powers


def fremainder(a, b):
    """IEEE remainder (C's remainder(): x - n*y with n = x/y rounded half to even), exact,
    as glibc computes it: fmod by 2|y|, then at most two corrections."""
    p = np.abs(b)
    two_p = p + p
    r = np.where(np.isfinite(two_p), np.fmod(a, np.where(np.isfinite(two_p), two_p, 1)), a)
    r = np.abs(r)
    big = r + r > p
    r = np.where(big, r - p, r)
    r = np.where(big & (r + r >= p), r - p, r)
    r = np.where(np.signbit(a), -r, r)
    bad = np.isnan(a) | np.isnan(b) | np.isinf(a) | (b == 0)
    return np.where(bad, a.dtype.type(np.nan), r).astype(a.dtype)


def round_half_away(a):
    """C's round(): halves away from zero (np.round rounds them to even)."""
    t = np.trunc(a)
    frac = np.abs(a - t)
    return np.where(frac >= 0.5, t + np.sign(a), t).astype(a.dtype)


def signum(a):
    """SuiteSparse's signum: -1, 0, 1, NaN for NaN."""
    return np.where(np.isnan(a), a, np.sign(a)).astype(a.dtype)


def truth(a):
    """a as bool: nonzero is true (NaN too, as in C)."""
    return a if kind(a) == "b" else a != 0


# ---------------------------------------------------------------- bits, ldexp, binom
# The C side of these: every shift is by 0 .. bits-1 of an unsigned operand, out-of-range
# positions and shifts are decided before any shift is evaluated (no undefined behaviour).
def nbits(t):
    return t.np_type.itemsize * 8


def cunsigned(t):
    """The unsigned C type of integer type t's width."""
    return _UNSIGNED_C.get(t.c_type, t.c_type)


def _udtype(a):
    return np.dtype(f"u{a.dtype.itemsize}")


def cbit(kind, t, a="x", b="y"):
    """SuiteSparse's GxB_BGET / BSET / BCLR at integer type t: bit b of a, 1-based (b = 1 is
    the least significant bit, b = bits the sign bit). b outside 1 .. bits: bget is 0, bset and
    bclr return a unchanged."""
    u, n = cunsigned(t), nbits(t)
    inr = f"(({b}) >= 1 && ({b}) <= {n})"
    bit = f"(({u})1 << (({b}) - 1))"
    if kind == "bget":
        return f"({inr} ? ({t.c_type})(((({u})({a})) >> (({b}) - 1)) & 1) : ({t.c_type})0)"
    if kind == "bset":
        return f"({inr} ? ({t.c_type})(({u})({a}) | {bit}) : ({a}))"
    return f"({inr} ? ({t.c_type})(({u})({a}) & ({u})~{bit}) : ({a}))"


def fbit(kind):
    """The NumPy side of cbit."""

    def f(a, b):
        ut, n = _udtype(a), a.dtype.itemsize * 8
        inr = (b >= 1) & (b <= n)
        s = (np.where(inr, b, 1) - 1).astype(ut)
        ua = a.astype(ut)
        if kind == "bget":
            z = np.where(inr, np.bitwise_and(np.right_shift(ua, s), 1), 0)
        else:
            mask = np.left_shift(np.ones_like(s), s)
            z = np.where(inr, (ua | mask) if kind == "bset" else (ua & np.invert(mask)), ua)
        return z.astype(a.dtype)

    return f


def _cshift_count(b):
    """b as SuiteSparse passes it to bshift, whose y operand is INT8: its low byte, signed."""
    return f"(((int)((unsigned long long)({b}) & 255ULL) ^ 128) - 128)"


def cbshift(t, a="x", b="y"):
    """SuiteSparse's GxB_BSHIFT at integer type t: k = b converted to INT8 (the low byte);
    k > 0 shifts a left by k (bits shifted out are lost), k < 0 right by -k (arithmetic for
    signed types: the sign is kept); k >= bits gives 0, k <= -bits gives 0 (unsigned) or
    the sign, 0 or -1 (signed)."""
    T, u, n, k = t.c_type, cunsigned(t), nbits(t), _cshift_count(b)
    left = f"({T})(({u})({a}) << {k})"
    if t.is_signed:
        right = f"(({a}) < 0 ? ({T})~(~({a}) >> -{k}) : ({T})(({a}) >> -{k}))"
        far = f"(({a}) < 0 ? ({T})-1 : ({T})0)"
    else:
        right = f"({T})(({a}) >> -{k})"
        far = f"({T})0"
    return (f"({k} == 0 ? ({a}) : ({k} >= {n} ? ({T})0 : ({k} <= -{n} ? {far} : "
            f"({k} > 0 ? {left} : {right}))))")


def fbshift(a, b):
    """The NumPy side of cbshift."""
    dt, ut, n = a.dtype, _udtype(a), a.dtype.itemsize * 8
    k = b.astype(np.int8).astype(np.int16)
    sl = np.where((k > 0) & (k < n), k, 0).astype(ut)
    sr = np.where((k < 0) & (k > -n), -k, 0).astype(dt)
    left = np.left_shift(a.astype(ut), sl).astype(dt)
    if dt.kind == "i":
        right = np.where(a < 0, np.invert(np.right_shift(np.invert(a), sr)), np.right_shift(a, sr))
        far = np.where(a < 0, dt.type(-1), dt.type(0))
    else:
        right = np.right_shift(a, sr)
        far = np.zeros_like(a)
    z = np.where(k > 0, left, right)
    z = np.where(k <= -n, far, z)
    z = np.where(k >= n, dt.type(0), z)
    return np.where(k == 0, a, z).astype(dt)


_INT_MIN = -2 ** 31


def cldexp(t, a="x", b="y"):
    """SuiteSparse's GxB_LDEXP: ldexp(a, (int) trunc(b)). The C conversion is undefined
    outside int's range (and for NaN); SuiteSparse's x86 build gives INT_MIN there, so
    ldexp(1, 2**31) is 0, not inf. That result is spelled out here."""
    f = "f" if t is FP32 else ""
    return (f"{fn('ldexp', t)}({a}, (({b}) >= -2147483648.0{f} && ({b}) < 2147483648.0{f}) "
            f"? (int)({b}) : (-2147483647 - 1))")


def fldexp(a, b):
    """The NumPy side of cldexp."""
    e = np.where((b >= float(_INT_MIN)) & (b < -float(_INT_MIN)), b, float(_INT_MIN))
    return np.ldexp(a, e.astype(np.int32)).astype(a.dtype)


INT64_MAX = 2 ** 63 - 1


def _binom_limits():
    """{m: the largest N >= 2m with m * C(N, m) <= INT64_MAX}, for every m that has one."""
    out, m = {}, 2
    while m * math.comb(2 * m, m) <= INT64_MAX:
        lo, hi = 2 * m, 4 * m
        while m * math.comb(hi, m) <= INT64_MAX:
            lo, hi = hi, 2 * hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if m * math.comb(mid, m) <= INT64_MAX else (lo, mid)
        out[m] = lo
        m += 1
    return out


# {2: 3037000500, 3: 2642246, 4: 86251, ..., 29: 61, 30: 61}
BINOM_LIMITS = _binom_limits()


def cbinom(t, a="x", b="y"):
    """python-graphblas's binom (a numba function, INT64): C(a, b); 0 when b < 0 or b > a, and
    0 on overflow as it detects it. It computes v = v * (a - i) // (i + 1) for i < m =
    min(b, a - b) and gives up (0) once v * (a - i) would pass INT64_MAX. Those products,
    C(a, i + 1) * (i + 1), grow with i, so the result is 0 exactly when m * C(a, m) >
    INT64_MAX: never for m <= 1, always for m > 30, else when a > BINOM_LIMITS[m]. (So
    C(62, 30), which fits, is 0.) The value is that product chain, unrolled to 30 steps."""
    m = f"(({b}) < ({a}) - ({b}) ? ({b}) : ({a}) - ({b}))"
    fits = "0"
    for mm in sorted(BINOM_LIMITS, reverse=True):
        fits = f"({m} == {mm} ? ({a}) <= {BINOM_LIMITS[mm]}LL : {fits})"
    steps = "".join(f" * ({i} < {m} ? (unsigned long long)(({a}) - {i}) : 1ULL)"
                    f" / ({i} < {m} ? {i + 1}ULL : 1ULL)" for i in range(max(BINOM_LIMITS)))
    return (f"((({b}) < 0 || ({b}) > ({a})) ? 0LL : (({m} <= 1 || {fits}) ? "
            f"(long long)(1ULL{steps}) : 0LL))")


def fbinom(a, b):
    """The NumPy side of cbinom (loops over its constant steps, not over elements)."""
    valid = (b >= 0) & (b <= a)
    n, k = np.where(valid, a, 0), np.where(valid, b, 0)
    m = np.minimum(k, n - k)
    limit = np.where(m <= 1, INT64_MAX, -1)
    for mm, lim in BINOM_LIMITS.items():
        limit = np.where(m == mm, lim, limit)
    fits = valid & (n <= limit)
    v = np.ones_like(n)
    for i in range(max(BINOM_LIMITS)):
        step = fits & (m > i)
        v = v * np.where(step, n - i, 1) // np.where(step, i + 1, 1)
    return np.where(fits, v, 0).astype(np.int64)
