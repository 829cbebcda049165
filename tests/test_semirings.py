"""The operator catalog against python-graphblas (SuiteSparse) and against its own C spelling.

Reference: python-graphblas computes each op on vectors of sample values (edge values of each
type -- 0, -1, MIN, MAX, NaN, +-inf, -0.0 -- and seeded random ones); our NumPy functions must
give the same values and types. The C expressions are compiled with gcc as C99 and run on the
same samples, so the two definitions of each operator cannot drift apart.
"""
import itertools
import shutil
import subprocess
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grblas_gpu import semirings
from grblas_gpu.errors import DomainMismatch, InvalidValue
from grblas_gpu.types import (
    ALL_TYPES, BOOL, FP32, FP64, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, cast,
)
from grblas_gpu.semirings import _impl as I_
from grblas_gpu.semirings import binary as B
from grblas_gpu.semirings import monoid as M
from grblas_gpu.semirings import unary as U

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    gb = pytest.importorskip("graphblas")
from graphblas.core.operator import get_typed_op  # noqa: E402

NAMES = [t.name for t in ALL_TYPES]
SEED = 20240607

# ops we define that python-graphblas names differently, and python-graphblas ops we leave out
OUR_ALIASES = {"div", "oneb"}
NOT_HERE_BINARY = {"isclose", "cmplx"}
NOT_HERE_UNARY = {"carg", "cimag", "conj", "creal", "erf", "erfc", "frexpe", "frexpx", "lgamma",
                  "tgamma"}
POSITIONAL = ("firsti", "firstj", "secondi", "secondj", "positioni", "positionj")


def _positional(name):
    return any(p in name for p in POSITIONAL)


# ---------------------------------------------------------------- samples
def edge_values(t):
    if t.is_bool:
        return [False, True]
    if t.is_float:
        f = np.finfo(t.np_type)
        return [np.nan, -np.inf, np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
                3.0, -7.0, 10.0, 1e-3, 1e30, -1e30, float(f.max), float(f.tiny) / 4, 0.49999997]
    info = np.iinfo(t.np_type)
    vals = [info.min, info.min + 1, -7, -2, -1, 0, 1, 2, 3, 7, 100, info.max - 1, info.max]
    return sorted({v for v in vals if info.min <= v <= info.max})


def random_values(t, n, rng):
    if t.is_bool:
        return rng.integers(0, 2, n).astype(bool)
    if t.is_float:
        return (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(t.np_type)
    info = np.iinfo(t.np_type)
    big = rng.integers(info.min, info.max, n, dtype=t.np_type, endpoint=True)
    small = rng.integers(max(info.min, -9), 10, n).astype(t.np_type)
    return np.where(rng.random(n) < 0.5, big, small).astype(t.np_type)


def sample_pairs(t, n_random=150, seed=SEED):
    rng = np.random.default_rng(seed + ALL_TYPES.index(t))
    e = np.array(edge_values(t), dtype=t.np_type)
    xs, ys = (np.array(v, dtype=t.np_type) for v in zip(*itertools.product(e, e)))
    rx, ry = random_values(t, n_random, rng), random_values(t, n_random, rng)
    return np.concatenate([xs, rx]), np.concatenate([ys, ry])


def sample_values(t, n_random=60):
    rng = np.random.default_rng(SEED + 100 + ALL_TYPES.index(t))
    edges = np.array(edge_values(t), dtype=t.np_type)
    return np.concatenate([edges, random_values(t, n_random, rng)])


def assert_values(ours, ref, out_type, *, rtol=1e-6, what=""):
    assert ours.dtype == out_type.np_type, f"{what}: dtype {ours.dtype}, expected {out_type.name}"
    ref = np.asarray(ref, dtype=out_type.np_type)
    if out_type.is_float:
        nan_o, nan_r = np.isnan(ours), np.isnan(ref)
        bad = nan_o != nan_r
        ok = ~nan_o & ~nan_r
        bad |= ok & ~np.isclose(ours, ref, rtol=rtol, atol=0) & (ours != ref)
    else:
        bad = ours != ref
    assert not bad.any(), f"{what}: {int(bad.sum())} differ, first at {np.flatnonzero(bad)[:5]}: " \
        f"ours {ours[bad][:5]} vs reference {ref[bad][:5]}"


# ---------------------------------------------------------------- python-graphblas references
def gb_vec(values, t):
    n = len(values)
    return gb.Vector.from_coo(np.arange(n), values, dtype=t.name, size=n)


def gb_binary(gb_typed, xs, ys, t):
    r = gb_vec(xs, t).ewise_mult(gb_vec(ys, t), gb_typed).new()
    idx, vals = r.to_coo()
    assert len(idx) == len(xs)
    return vals


def gb_unary(gb_typed, xs, t):
    return gb_vec(xs, t).apply(gb_typed).new().to_coo()[1]


def gb_typed(namespace, name, t):
    """python-graphblas's op[t] or None where it has none."""
    try:
        return getattr(namespace, name)[t.name]
    except (KeyError, TypeError, AttributeError):
        return None


def ours_typed(op, t):
    try:
        return op[t]
    except DomainMismatch:
        return None


def assert_same_typing(ours, ref, t, what):
    """Both absent, or same output type and, where python-graphblas coerces, the same type."""
    assert (ours is None) == (ref is None), f"{what}[{t.name}]: ours {ours}, python-graphblas {ref}"
    if ours is None:
        return
    assert ours.out_type.name == ref.return_type.name, f"{what}[{t.name}] output type"
    if ref.type.name != t.name:
        assert ours.type.name == ref.type.name, f"{what}[{t.name}] runs at {ref.type.name}"
    assert ours.type in ours.op.types


def _gb_names(namespace, cls):
    out = set()
    for n in dir(namespace):
        if n.startswith("_") or _positional(n):
            continue
        try:
            obj = getattr(namespace, n)
        except Exception:  # noqa: BLE001 -- lazily built ops that need numba etc.
            continue
        if isinstance(obj, cls) and not _positional(n):
            out.add(n)
    return out


# ---------------------------------------------------------------- catalog contents
def test_catalog_covers_python_graphblas():
    from graphblas.core.operator import BinaryOp, Monoid, Semiring, UnaryOp

    assert _gb_names(gb.binary, BinaryOp) - NOT_HERE_BINARY == set(B._OPS)
    assert _gb_names(gb.unary, UnaryOp) - NOT_HERE_UNARY == set(U._OPS)
    assert _gb_names(gb.monoid, Monoid) == set(M._OPS)
    gb_semirings = _gb_names(gb.semiring, Semiring)
    assert gb_semirings == set(semirings.table.SEMIRINGS)
    assert len(gb_semirings) == 197
    required_unary = ("identity ainv minv abs lnot one bnot sqrt exp log log2 log10 sin cos tan "
                      "floor ceil round trunc signum isnan isinf isfinite").split()
    assert all(getattr(semirings.unary, n).name == n for n in required_unary)
    assert semirings.binary.div is semirings.binary.cdiv
    assert semirings.binary.oneb is semirings.binary.pair


# ---------------------------------------------------------------- binary ops
BINARY_CASES = [(n, t) for n, op in sorted(B._OPS.items()) for t in ALL_TYPES if t in op]


@pytest.mark.parametrize("name", sorted(B._OPS))
def test_binary_typing_matches_python_graphblas(name):
    op = B._OPS[name]
    for t in ALL_TYPES:
        assert_same_typing(ours_typed(op, t), gb_typed(gb.binary, name, t), t, f"binary.{name}")


@pytest.mark.parametrize("name,t", BINARY_CASES, ids=[f"{n}-{t.name}" for n, t in BINARY_CASES])
def test_binary_values_match_python_graphblas(name, t):
    op = B._OPS[name]
    typed = op[t]  # the type it runs at (t, or the coerced type)
    xs, ys = sample_pairs(t)
    ref_name, swap = name, False
    if name == "rpow":  # python-graphblas's rpow is numba's wrapping **; ours is pow swapped
        ref_name, swap = "pow", True
    # python-graphblas's op[t] is its op at the type t coerces to (python-graphblas has no
    # ldexp[FP32] to ask for directly); rpow's reference is pow at the type rpow runs at
    ref_op = getattr(gb.binary, ref_name)[typed.type.name if swap else t.name]
    keep = np.ones(len(xs), dtype=bool)
    if name in ("floordiv", "rfloordiv"):  # numba's x // 0 leaves garbage in python-graphblas
        num, divisor = (xs, ys) if name == "floordiv" else (ys, xs)
        divisor = cast(divisor, typed.type)
        keep = divisor != 0
        if typed.type is INT64:  # and its INT64 MIN // -1 is 0; ours wraps to MIN, as cdiv
            keep &= ~((num == np.iinfo(np.int64).min) & (divisor == -1))
    xs, ys = xs[keep], ys[keep]
    a, b = (ys, xs) if swap else (xs, ys)
    ref = gb_binary(ref_op, cast(a, typed.type), cast(b, typed.type), typed.type)
    ours = op.numpy(cast(xs, typed.type), cast(ys, typed.type))
    assert_values(ours, ref, typed.out_type, what=f"binary.{name}[{t.name}]")


def test_binary_examples_of_suitesparse_semantics():
    i8, u8, f64 = (lambda *v: np.array(v, np.int8)), (lambda *v: np.array(v, np.uint8)), \
        (lambda *v: np.array(v, np.float64))
    # integer division: truncation, x/0 -> 0, MAX or MIN, MIN / -1 wraps
    assert B.cdiv.numpy(i8(-7, 7, 0, 5, -5, -128), i8(2, -2, 0, 0, 0, -1)).tolist() == \
        [-3, -3, 0, 127, -128, -128]
    assert B.cdiv.numpy(u8(0, 5), u8(0, 0)).tolist() == [0, 255]
    assert B.floordiv.numpy(i8(-7, 7), i8(2, -2)).tolist() == [-4, -4]
    # integer pow saturates; float pow is NaN when either operand is
    assert B.pow.numpy(i8(2, 0, -2), i8(10, -1, 7)).tolist() == [127, 127, -128]
    assert np.isnan(B.pow.numpy(f64(1.0, np.nan), f64(np.nan, 0.0))).all()
    # BOOL arithmetic is logic
    tf = np.array([True, True, False, False]), np.array([True, False, True, False])
    assert B.plus.numpy(*tf).tolist() == [True, True, True, False]
    assert B.minus.numpy(*tf).tolist() == [False, True, True, False]
    assert B.cdiv.numpy(*tf).tolist() == [True, True, False, False]
    assert B.pow.numpy(*tf).tolist() == [True, True, False, True]
    # fmin/fmax: NaN loses
    assert B.min.numpy(f64(np.nan, 1.0), f64(2.0, np.nan)).tolist() == [2.0, 1.0]
    assert B.lor[INT32].out_type is INT32
    assert B.lor.numpy(np.int32([0, 5]), np.int32([0, 0])).tolist() == [0, 1]
    assert B.eq[FP32].out_type is BOOL and B.iseq[FP32].out_type is FP32


# ---------------------------------------------------------------- bits, ldexp, binom
BITS_LDEXP_BINOM = ("bget", "bset", "bclr", "bshift", "ldexp", "binom")


def _sweep_pairs(name, t):
    """Operand pairs at type t around each op's edges: every bit position and shift count
    near the width, shift counts whose low byte wraps, exponents at the ends of C int's range,
    binom at its overflow limits."""
    if name == "binom":
        lim = I_.BINOM_LIMITS
        pairs = [(n, k) for n in range(-2, 72) for k in range(-2, n + 3)]
        pairs += [(v + d, k) for m, v in lim.items() for d in (-1, 0, 1, 2)
                  for k in (m, v + d - m, m - 1, m + 1)]
        big = np.iinfo(np.int64)
        pairs += [(big.max, k) for k in (0, 1, 2, -1, big.max, big.max - 1, big.max - 2)]
        pairs += [(big.min, 0), (0, big.min), (3, big.min), (big.max, big.min)]
        if t.np_type.kind == "u":  # past INT64_MAX: negative at INT64, where binom runs
            pairs += [(2 ** 64 - 1, 1), (2 ** 63 + 3, 2), (3, 2 ** 64 - 1)]
        info = np.iinfo(t.np_type)
        pairs = [(n, k) for n, k in pairs if info.min <= min(n, k) and max(n, k) <= info.max]
        ys = None
    elif name == "ldexp":
        ys = [0, 1, -1, 127, 128, -126, -149, -150, 1023, 1024, -1022, -1074, -1075, 2 ** 31 - 1,
              2 ** 31, -2 ** 31, -2 ** 31 - 1, 2 ** 40, -2 ** 40, 2 ** 63 - 1, -2 ** 63]
    else:
        n = t.np_type.itemsize * 8
        ys = list(range(-n - 2, n + 3))
        if name == "bshift":
            ys += [127, 128, 200, 255, 256, 257, 259, 300, 511, 512, -129, -200, -256, -257]
    if ys is not None:
        if t.is_bool:
            ys = [0, 1]
        else:
            info = np.iinfo(t.np_type)
            ys = sorted({y for y in ys + [info.min, info.max] if info.min <= y <= info.max})
        xs = edge_values(t) + ([] if t.is_bool else [5, 100 if t.is_signed else 200])
        pairs = list(itertools.product(xs, ys))
    xs, ys = zip(*pairs)
    return np.array(xs, dtype=t.np_type), np.array(ys, dtype=t.np_type)


BLB_CASES = [(n, t) for n in BITS_LDEXP_BINOM for t in ALL_TYPES if t in B._OPS[n]]


@pytest.mark.parametrize("name,t", BLB_CASES, ids=[f"{n}-{t.name}" for n, t in BLB_CASES])
def test_bits_ldexp_binom_edges_match_python_graphblas(name, t):
    typed = B._OPS[name][t]
    xs, ys = (cast(a, typed.type) for a in _sweep_pairs(name, t))
    ref = gb_binary(getattr(gb.binary, name)[t.name], xs, ys, typed.type)
    assert_values(typed.numpy(xs, ys), ref, typed.out_type, rtol=0, what=f"{name}[{t.name}]")


def test_bits_ldexp_binom_c_has_no_undefined_behaviour(tmp_path):
    """The C expressions on the sweep, compiled without -fwrapv under UBSan (where gcc has
    it): no undefined behaviour, and the NumPy function's values."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler")
    jobs = []
    for name in BITS_LDEXP_BINOM:
        op = B._OPS[name]
        for t in op.types:
            src_types = [s for s in ALL_TYPES if s in op and op[s].type is t]
            xs, ys = (np.concatenate(a) for a in zip(*[
                [cast(v, t) for v in _sweep_pairs(name, s)] for s in src_types]))
            jobs.append((op, t, xs, ys))
    src = ["#include <math.h>", "#include <stdio.h>", "#include <stdbool.h>", ""]
    for k, (op, t, xs, ys) in enumerate(jobs):
        out = op.out(t)
        for arr, vals in (("X", xs), ("Y", ys)):
            body = ", ".join(_c_literal(v, t) for v in vals)
            src.append(f"static const {t.c_type} {arr}{k}[{len(xs)}] = {{{body}}};")
        src += [f"static void f{k}(void) {{",
                f"  for (int i = 0; i < {len(xs)}; i++) {{",
                f"    const {t.c_type} x = X{k}[i]; const {t.c_type} y = Y{k}[i];",
                f"    const {out.c_type} z = ({out.c_type})({op.c(t)});",
                f"    {_emit(out)}", "  }", "  putchar('\\n');", "}"]
    src += ["int main(void) {", *[f"  f{k}();" for k in range(len(jobs))], "  return 0;", "}"]
    c_file, exe = tmp_path / "blb.c", tmp_path / "blb"
    c_file.write_text("\n".join(src))
    base = [gcc, "-std=c99", "-O1", "-ffp-contract=off", "-Werror=implicit-function-declaration",
            str(c_file), "-o", str(exe), "-lm"]
    ubsan = ["-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all"]
    cc = subprocess.run(base + ubsan, capture_output=True, text=True)
    if cc.returncode != 0:  # no libubsan: still check the values
        cc = subprocess.run(base, capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0 and "runtime error" not in run.stderr, run.stderr[-3000:]
    lines = run.stdout.split("\n")
    for k, (op, t, xs, ys) in enumerate(jobs):
        got = _parse(lines[k].split(), op.out(t))
        assert_values(got, op.numpy(xs, ys), op.out(t), rtol=0,
                      what=f"C vs NumPy: {op!r}[{t.name}]")


def test_bits_ldexp_binom_examples():
    i8, u8, i16, i64 = (lambda *v: np.array(v, np.int8)), (lambda *v: np.array(v, np.uint8)), \
        (lambda *v: np.array(v, np.int16)), (lambda *v: np.array(v, np.int64))
    # bit positions are 1-based; out of range: bget 0, bset/bclr leave x
    assert B.bget.numpy(u8(5, 5, 5, 128, 5), u8(0, 1, 2, 8, 9)).tolist() == [0, 1, 0, 1, 0]
    assert B.bset.numpy(i8(5, 5, 5, 5), i8(0, 2, 8, 9)).tolist() == [5, 7, -123, 5]
    assert B.bclr.numpy(i8(-1, -1, -1, -1), i8(1, 8, 0, -1)).tolist() == [-2, 127, -1, -1]
    # bshift: y's low byte as INT8; right shifts of signed types are arithmetic
    assert B.bshift.numpy(i16(5, 5, 5, 5, -100, -100, -1, 5), i16(3, 15, 16, -1, -3, -16, 300, 255)
                          ).tolist() == [40, -32768, 0, 2, -13, -1, 0, 2]
    assert B.bshift.numpy(u8(255, 255, 255), u8(1, 255, 8)).tolist() == [254, 127, 0]
    # ldexp: only from BOOL/integer operands (FP32 for 8/16-bit and BOOL, FP64 for 32/64-bit)
    assert B.ldexp[INT8].type is FP32 and B.ldexp[UINT32].out_type is FP64
    assert FP32 not in B.ldexp and FP64 not in B.ldexp
    with pytest.raises(DomainMismatch):
        B.ldexp[FP64]
    with pytest.raises(DomainMismatch):
        semirings.resolve_binary("ldexp", FP32, INT32)
    one = np.ones(4)
    assert B.ldexp.numpy(one, np.array([3.0, -1075.0, 2.0 ** 31 - 1, 2.0 ** 31])).tolist() == \
        [8.0, 0.0, np.inf, 0.0]  # past int's range: the exponent is INT_MIN, as on x86
    # binom: INT64; 0 outside 0 <= k <= n and where python-graphblas's loop overflows
    assert B.binom[UINT8].type is INT64 and BOOL not in B.binom and FP64 not in B.binom
    assert B.binom.numpy(i64(5, 5, 5, 5, 61, 62, 3037000500, 3037000501),
                         i64(2, 0, 6, -1, 30, 30, 2, 2)).tolist() == \
        [10, 1, 0, 0, 232714176627630544, 0, 4611686016981624750, 0]


# ---------------------------------------------------------------- unary ops
UNARY_CASES = [(n, t) for n, op in sorted(U._OPS.items()) for t in ALL_TYPES if t in op]


@pytest.mark.parametrize("name", sorted(U._OPS))
def test_unary_typing_matches_python_graphblas(name):
    op = U._OPS[name]
    for t in ALL_TYPES:
        assert_same_typing(ours_typed(op, t), gb_typed(gb.unary, name, t), t, f"unary.{name}")


@pytest.mark.parametrize("name,t", UNARY_CASES, ids=[f"{n}-{t.name}" for n, t in UNARY_CASES])
def test_unary_values_match_python_graphblas(name, t):
    op = U._OPS[name]
    typed = semirings.resolve_unary(op, t)
    xs = sample_values(t)
    ref = gb_unary(getattr(gb.unary, name)[t.name], xs, t)
    ours = op.numpy(cast(xs, typed.type))
    assert_values(ours, ref, typed.out_type, what=f"unary.{name}[{t.name}]")


def test_unary_round_is_half_away_from_zero():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999999999999994, np.nan, -np.inf])
    assert np.array_equal(U.round.numpy(x), [1.0, 2.0, 3.0, -1.0, -3.0, 0.0, np.nan, -np.inf],
                          equal_nan=True)


# ---------------------------------------------------------------- CuPy-style dispatch
class DeviceLike(np.lib.mixins.NDArrayOperatorsMixin):
    """Behaves as a CuPy array does toward NumPy: ufuncs and array functions dispatch to it,
    implicit conversion to a NumPy array (and mixing with NumPy arrays) is an error."""

    def __init__(self, a):
        self._a = np.asarray(a)

    dtype = property(lambda self: self._a.dtype)
    shape = property(lambda self: self._a.shape)
    ndim = property(lambda self: self._a.ndim)

    def astype(self, dtype, copy=True):
        return DeviceLike(self._a.astype(dtype))

    def copy(self):
        return DeviceLike(self._a.copy())

    def __array__(self, *args, **kwargs):
        raise TypeError("implicit conversion of a device array to NumPy")

    @staticmethod
    def _unwrap(v):
        if isinstance(v, DeviceLike):
            return v._a
        if isinstance(v, np.ndarray) and v.ndim > 0:
            raise TypeError("host array mixed with device arrays")
        if isinstance(v, (list, tuple)):
            return type(v)(DeviceLike._unwrap(x) for x in v)
        return v

    @staticmethod
    def _wrap(v):
        return DeviceLike(v) if isinstance(v, np.ndarray) else v

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        args = [self._unwrap(x) for x in inputs]
        return self._wrap(getattr(ufunc, method)(*args, **kwargs))

    def __array_function__(self, func, types, args, kwargs):
        args = self._unwrap(args)
        kwargs = {k: self._unwrap(v) for k, v in kwargs.items()}
        return self._wrap(func(*args, **kwargs))


@pytest.mark.parametrize("kind", ["unary", "binary"])
def test_numpy_functions_dispatch_like_cupy(kind):
    ops = U._OPS if kind == "unary" else B._OPS
    for name, op in ops.items():
        for t in op.types:
            xs, ys = sample_pairs(t, n_random=10)
            args = (xs,) if kind == "unary" else (xs, ys)
            host = op.numpy(*args)
            dev = op.numpy(*[DeviceLike(a) for a in args])
            assert isinstance(dev, DeviceLike), f"{name}[{t.name}] left the device"
            assert_values(dev._a, host, op.out(t), rtol=0, what=f"{name}[{t.name}] on device")


# ---------------------------------------------------------------- monoids
MONOID_CASES = [(n, t) for n, m in sorted(M._OPS.items()) for t in m.types]


def _ss_terminal(gb_typed_monoid):
    ffi_mod = pytest.importorskip("suitesparse_graphblas")
    ffi, lib = ffi_mod.ffi, ffi_mod.lib
    ctype = {"BOOL": "bool", "FP32": "float", "FP64": "double"}.get(
        gb_typed_monoid.type.name, gb_typed_monoid.type.name.lower() + "_t")
    has = ffi.new("bool*")
    val = ffi.new(ctype + "*")
    assert lib.GxB_Monoid_terminal(has, val, gb_typed_monoid.gb_obj) == 0
    return val[0] if has[0] else None


@pytest.mark.parametrize("name", sorted(M._OPS))
def test_monoid_typing_identity_terminal_match_suitesparse(name):
    m = M._OPS[name]
    assert m.binop is B._OPS[name]
    for t in ALL_TYPES:
        ours, ref = ours_typed(m, t), gb_typed(gb.monoid, name, t)
        assert (ours is None) == (ref is None), f"monoid.{name}[{t.name}]"
        if ours is None:
            continue
        assert ours.type.name == ref.type.name and ours.out_type.name == ref.return_type.name
        ident = ours.identity
        assert ident.dtype == ours.type.np_type and ident == ref.identity, f"{name}[{t.name}]"
        term, ref_term = ours.terminal, _ss_terminal(ref)
        assert (term is None) == (ref_term is None), f"monoid.{name}[{t.name}] terminal"
        if term is not None:
            assert term == ref_term and term.dtype == ours.type.np_type
    assert M.any.all_terminal and not any(mm.all_terminal for n, mm in M._OPS.items() if n != "any")


@pytest.mark.parametrize("name,t", MONOID_CASES, ids=[f"{n}-{t.name}" for n, t in MONOID_CASES])
def test_monoid_reduce_matches_python_graphblas(name, t):
    m = M._OPS[name]
    rng = np.random.default_rng(SEED + ALL_TYPES.index(t))
    vals = random_values(t, 40, rng)
    if t.is_float:
        vals = np.round(vals, 2).astype(t.np_type)
    acc = vals[0]
    for v in vals[1:]:
        acc = m.numpy(np.array([acc]), np.array([v]))[0]
    ref = gb_vec(vals, t).reduce(getattr(gb.monoid, name)[t.name]).new().value
    if name == "any":
        assert ref in vals
        return
    if t.is_float and name in ("plus", "times"):
        assert np.isclose(acc, ref, rtol=1e-4, atol=1e-4 * float(np.abs(vals).sum()))
    else:
        assert acc == ref, f"{name}[{t.name}]: {acc} vs {ref}"


def _law_values(name, t):
    """Hypothesis elements: exact-arithmetic values for plus/times on floats (so
    associativity is exact), everything else unrestricted (NaN and inf included)."""
    if t.is_float and name in ("plus", "times"):
        return st.integers(-100, 100).map(float)
    return hnp.from_dtype(t.np_type)


def _eq(a, b):
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


@pytest.mark.parametrize("name,t", MONOID_CASES, ids=[f"{n}-{t.name}" for n, t in MONOID_CASES])
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_monoid_laws(name, t, data):
    m = M._OPS[name]
    f = m.numpy
    x, y, z = data.draw(hnp.arrays(t.np_type, (3, 8), elements=_law_values(name, t)))
    ident = np.full(8, m.identity_of(t), dtype=t.np_type)
    if name == "any":  # "either operand": the value is one of them
        r = f(x, y)
        assert np.all((r == x) | (r == y) | (np.isnan(r) if t.is_float else False))
        return
    assert _eq(f(f(x, y), z), f(x, f(y, z))), "associative"
    assert _eq(f(x, y), f(y, x)), "commutative"
    xi = x if not t.is_float else np.where(np.isnan(x), 0, x).astype(t.np_type)  # NaN: see doc
    assert _eq(f(xi, ident), xi) and _eq(f(ident, xi), xi), "identity"
    term = m.terminal_of(t)
    if term is not None:
        tt = np.full(8, term, dtype=t.np_type)
        assert _eq(f(x, tt), tt) and _eq(f(tt, x), tt), "terminal absorbs"


def test_min_max_identity_swallows_nan():
    # fmin/fmax: a NaN entry disappears from a min/max reduction; the identity cannot keep it
    assert M.min.numpy(np.array([np.nan]), np.array([M.min.identity_of(FP64)]))[0] == np.inf


# ---------------------------------------------------------------- semirings
SEMIRING_NAMES = sorted(semirings.table.SEMIRINGS)


@pytest.mark.parametrize("name", SEMIRING_NAMES)
def test_semiring_pair_and_typing(name):
    sr = getattr(semirings, name)
    assert sr is semirings.lookup(name, "semiring") and sr.name == name
    mname, fname = name.split("_", 1)
    ref = getattr(gb.semiring, name)
    assert sr.monoid is M._OPS[mname] and ref.monoid.name == mname
    assert sr.multiply is B._OPS[fname] and ref.binaryop.name == fname
    for t in sr.types:
        assert sr.multiply.out(t) in sr.monoid.types
    for t in ALL_TYPES:
        assert_same_typing(ours_typed(sr, t), gb_typed(gb.semiring, name, t), t, name)


def _dense(t, shape, rng, nonzero=False):
    if t.is_bool:
        v = rng.integers(0, 2, shape).astype(bool)
        return np.ones(shape, bool) if nonzero else v
    pool = [-2.5, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0] if t.is_float else [-3, -2, -1, 1, 2, 3, 5]
    if not t.is_signed:
        pool = [abs(p) for p in pool]
    if not nonzero:
        pool = pool + [0]
    return rng.choice(pool, shape).astype(t.np_type)


@pytest.mark.parametrize("name", SEMIRING_NAMES)
def test_semiring_mxm_matches_python_graphblas(name):
    sr = getattr(semirings, name)
    ref_sr = getattr(gb.semiring, name)
    rng = np.random.default_rng(SEED)
    checked = 0
    for t in ALL_TYPES:
        gbt = gb.dtypes.lookup_dtype(t.name)
        try:
            ref_typed = get_typed_op(ref_sr, gbt, gbt)
        except (KeyError, TypeError):
            with pytest.raises(DomainMismatch):
                semirings.resolve_semiring(sr, t, t)
            continue
        typed = semirings.resolve_semiring(name, t, t)
        assert ref_typed.return_type.name == typed.out_type.name, f"{name}[{t.name}] output"
        if sr.multiply.name == "rpow":
            continue  # python-graphblas's rpow is numba's ** (0 ** -1 raises), not pow
        nonzero = sr.multiply.name in ("floordiv", "rfloordiv")  # numba's x // 0 is garbage
        A, Bm = _dense(t, (3, 4), rng, nonzero), _dense(t, (4, 2), rng, nonzero)
        gA = gb.Matrix.from_dense(A, dtype=t.name)
        gB = gb.Matrix.from_dense(Bm, dtype=t.name)
        C = gA.mxm(gB, ref_sr).new()
        assert C.dtype.name == typed.out_type.name, f"{name}[{t.name}] output type"
        a, b = cast(A, typed.type), cast(Bm, typed.type)
        P = sr.multiply.numpy(a[:, :, None], b[None, :, :])  # (3, 4, 2) products
        assert P.dtype == typed.out_type.np_type
        ref = C.to_dense(fill_value=0)
        for i, j in itertools.product(range(3), range(2)):
            prods = P[i, :, j]
            if sr.monoid.name == "any":
                assert ref[i, j] in prods or (np.isnan(ref[i, j]) and np.isnan(prods).any())
                continue
            acc = prods[:1]
            for k in range(1, 4):
                acc = sr.monoid.numpy(acc, prods[k:k + 1])
            assert_values(acc, ref[i:i + 1, j], typed.out_type, rtol=1e-5, what=f"{name}[{t.name}]")
        checked += 1
    assert checked or sr.multiply.name == "rpow"


def test_semiring_examples():
    assert semirings.min_plus.monoid is M.min and semirings.min_plus.multiply is B.plus
    assert semirings.plus_div is semirings.plus_cdiv
    assert semirings.lxnor_first is semirings.eq_first
    assert BOOL not in semirings.plus_times and BOOL not in semirings.min_plus
    assert semirings.lor_land[FP32].type is BOOL and semirings.lor_land[FP32].out_type is BOOL
    assert semirings.min_first[BOOL].out_type is BOOL
    assert semirings.plus_pair[BOOL].type is INT64
    assert semirings.band_bor[INT8].type is UINT16
    assert semirings.plus_truediv[INT32].out_type is FP64
    typed = semirings.min_plus[FP32]
    assert typed.monoid.op is M.min and typed.monoid.type is FP32 and typed.multiply.op is B.plus


# ---------------------------------------------------------------- names and lookup
NVGRAPH_EXPECTED = {
    "NVGRAPH_PLUS_TIMES_SR": ("plus", "times"), "NVGRAPH_MIN_PLUS_SR": ("min", "plus"),
    "NVGRAPH_MAX_MIN_SR": ("max", "min"), "NVGRAPH_OR_AND_SR": ("lor", "land"),
}
ONEMKL_EXPECTED = {  # the glossary's list: MKL_GRAPH_SEMIRING_<ADD>_<MUL>_<TYPE>
    "PLUS_TIMES_INT32": ("plus", "times", INT32), "PLUS_TIMES_INT64": ("plus", "times", INT64),
    "PLUS_TIMES_FP32": ("plus", "times", FP32), "PLUS_TIMES_FP64": ("plus", "times", FP64),
    "PLUS_FIRST_FP32": ("plus", "first", FP32), "PLUS_SECOND_FP32": ("plus", "second", FP32),
    "PLUS_PAIR_INT32": ("plus", "pair", INT32), "PLUS_PAIR_INT64": ("plus", "pair", INT64),
    "LOR_LAND_BOOL": ("lor", "land", BOOL), "MIN_PLUS_INT32": ("min", "plus", INT32),
    "MIN_FIRST_INT32": ("min", "first", INT32), "MIN_SECOND_INT32": ("min", "second", INT32),
    "ANY_FIRST_INT32": ("any", "first", INT32), "ANY_FIRST_FP32": ("any", "first", FP32),
    "ANY_SECOND_INT32": ("any", "second", INT32), "ANY_SECOND_FP32": ("any", "second", FP32),
    "ANY_PAIR_BOOL": ("any", "pair", BOOL),
}


def test_nvgraph_names():
    for name, (m, f) in NVGRAPH_EXPECTED.items():
        sr = semirings.lookup(name)
        assert sr.monoid is M._OPS[m] and sr.multiply is B._OPS[f]
        assert semirings.lookup(name, "semiring") is sr
    # OR_AND on nvGRAPH's float data: values are truth values, computed at BOOL
    for t in (FP32, FP64):
        typed = semirings.resolve_semiring("NVGRAPH_OR_AND_SR", t, t)
        assert typed.op is semirings.lor_land and typed.type is BOOL and typed.out_type is BOOL
        assert semirings.resolve_semiring("NVGRAPH_MIN_PLUS_SR", t, t).type is t
    with pytest.raises(DomainMismatch):
        semirings.lookup("NVGRAPH_MIN_PLUS_SR", "binary")


def test_onemkl_names():
    assert len(ONEMKL_EXPECTED) == 17
    for short, (m, f, t) in ONEMKL_EXPECTED.items():
        typed = semirings.lookup("MKL_GRAPH_SEMIRING_" + short)
        assert isinstance(typed, semirings.Typed) and typed.type is t and typed.out_type is t
        assert typed.op.monoid is M._OPS[m] and typed.op.multiply is B._OPS[f]
        # a typed semiring keeps its type whatever the operands
        assert semirings.resolve_semiring(typed, FP64, INT8) is typed
    assert semirings.lookup("MKL_GRAPH_ACCUMULATOR_NONE", "binary") is None
    assert semirings.lookup("MKL_GRAPH_ACCUMULATOR_PLUS", "binary") is B.plus
    assert semirings.lookup("MKL_GRAPH_ACCUMULATOR_MIN", "binary") is B.min
    assert semirings.lookup("MKL_GRAPH_ACCUMULATOR_LOR", "binary") is B.lor


def test_lookup_rules():
    lk = semirings.lookup
    assert lk("plus") is B.plus and lk("plus", "binary") is B.plus
    assert lk("plus", "monoid") is M.plus
    assert lk("monoid.plus") is M.plus and lk("semiring.min_plus") is semirings.min_plus
    assert lk("MIN_PLUS") is semirings.min_plus and lk("abs") is U.abs
    assert lk(B.plus, "monoid") is M.plus and lk(B.plus[INT8], "monoid") == M.plus[INT8]
    assert lk(M.plus, "binary") is M.plus  # a monoid serves as a binary op
    typed = semirings.min_plus[FP32]
    assert lk(typed) is typed and lk("min_plus[FP32]") == typed
    assert lk("GrB_PLUS_TIMES_SEMIRING_FP64") == semirings.plus_times[FP64]
    assert lk("GxB_PLUS_TIMES_INT32") == semirings.plus_times[INT32]
    assert lk("GrB_PLUS_MONOID_INT32") == M.plus[INT32] == lk("GxB_PLUS_INT32_MONOID")
    assert lk("GrB_DIV_INT32") == B.cdiv[INT32] and lk("GrB_AINV_FP32") == U.ainv[FP32]
    assert lk(None) is None
    assert semirings.resolve("plus", INT8, FP32) == B.plus[FP32]
    assert semirings.resolve("plus", INT8, kind="monoid") == M.plus[INT8]
    assert semirings.resolve("min_plus", FP32, FP64) == semirings.min_plus[FP64]
    cat = semirings.catalog()
    # python-graphblas's 197, and SuiteSparse's 40 positional ones (gb.semiring.ss)
    assert len(cat) == 197 + 40 and "plus_div" not in cat and cat["plus_cdiv"] is semirings.plus_div
    assert set(semirings.catalog("binary")) == set(B._OPS) | set(semirings.positional.OPS)
    with pytest.raises(InvalidValue):
        lk("no_such_op")
    with pytest.raises(DomainMismatch):
        lk("minus", "monoid")
    with pytest.raises(DomainMismatch):
        lk(semirings.min_plus, "binary")
    with pytest.raises(InvalidValue):
        lk("plus", "ternary")


@pytest.mark.parametrize("kind", ["binary", "semiring"])
def test_resolve_matches_get_typed_op(kind):
    """Two operand types: unify, python-graphblas's pair rule, coercions, errors."""
    names = sorted(B._OPS) if kind == "binary" else SEMIRING_NAMES
    resolve = semirings.resolve_binary if kind == "binary" else semirings.resolve_semiring
    ns = gb.binary if kind == "binary" else gb.semiring
    for name in names:
        ref_op = getattr(ns, name)
        for t1, t2 in itertools.product(ALL_TYPES, repeat=2):
            try:
                ref = get_typed_op(ref_op, gb.dtypes.lookup_dtype(t1.name),
                                   gb.dtypes.lookup_dtype(t2.name))
            except (KeyError, TypeError):
                ref = None
            try:
                ours = resolve(name, t1, t2)
            except DomainMismatch:
                ours = None
            assert (ours is None) == (ref is None), f"{name}({t1.name}, {t2.name})"
            if ours is not None:
                assert ours.out_type.name == ref.return_type.name, f"{name}({t1.name}, {t2.name})"


def test_resolve_single_type_and_errors():
    assert semirings.resolve_unary("sqrt", INT32) == U.sqrt[FP64]
    assert semirings.resolve_unary("sqrt", UINT8) == U.sqrt[FP32]
    assert semirings.resolve_monoid("min", BOOL).out_type is BOOL
    assert semirings.resolve_monoid("lor", INT32) == M.lor[BOOL]
    assert semirings.resolve_binary("pair", FP32, FP32).type is INT64  # python-graphblas's rule
    assert semirings.resolve_binary("pair", FP32).type is FP32
    assert semirings.resolve_binary("plus", INT8, UINT8).type is INT16
    assert semirings.resolve_binary("MKL_GRAPH_ACCUMULATOR_NONE", FP32, FP32) is None
    for bad in (lambda: semirings.resolve_monoid("plus", BOOL),
                lambda: semirings.resolve_unary("isnan", INT32),
                lambda: semirings.resolve_binary("bor", FP32, FP32),
                lambda: semirings.resolve_monoid("bor", INT32),
                lambda: semirings.resolve_semiring("plus_times", BOOL, BOOL)):
        with pytest.raises(DomainMismatch):
            bad()


# ---------------------------------------------------------------- user-defined operators
@pytest.fixture
def registered():
    made = []
    yield made.append
    for op in reversed(made):
        semirings.registry._unregister(op)


def test_user_defined_operators(registered):
    absdiff = semirings.binary_op(
        "t_absdiff", "x > y ? x - y : y - x", lambda x, y: np.where(x > y, x - y, y - x),
        types=[t for t in ALL_TYPES if not t.is_bool], commutes_to="t_absdiff")
    registered(absdiff)
    assert semirings.lookup("t_absdiff") is absdiff is semirings.binary.t_absdiff
    assert absdiff.is_commutative and absdiff.c(INT32) == "x > y ? x - y : y - x"
    assert semirings.resolve_binary("t_absdiff", INT8, INT16) == absdiff[INT16]
    sq = semirings.unary_op("t_square", "x * x", lambda x: x * x, out_type=None)
    registered(sq)
    assert semirings.lookup("t_square", "unary") is sq is semirings.unary.t_square
    m = semirings.make_monoid("t_max", "max", identity=lambda t: t.min,
                              terminal=lambda t: None if t.is_float else t.max)
    registered(m)
    assert semirings.lookup("t_max", "monoid") is m and m.identity_of(INT8) == -128
    sr = semirings.make_semiring("t_max_absdiff", m, absdiff)
    registered(sr)
    assert semirings.t_max_absdiff is sr and semirings.lookup("t_max_absdiff") is sr
    assert BOOL not in sr and sr[FP32].out_type is FP32
    assert semirings.semiring is semirings.make_semiring
    with pytest.raises(InvalidValue):
        semirings.binary_op("plus", "x + y", np.add)
    with pytest.raises(DomainMismatch):
        semirings.make_monoid("t_bad", "eq", identity=True, types=[INT32])
    lor_first = semirings.make_semiring("t_lor_first", "lor", "first", register=False)
    assert lor_first[INT32].type is BOOL  # runs where the monoid can take the products


# ---------------------------------------------------------------- C expressions
def _c_literal(v, t):
    if t.is_bool:
        return "true" if v else "false"
    if t.is_float:
        v = float(v)
        if np.isnan(v):
            return "NAN"
        if np.isinf(v):
            return "INFINITY" if v > 0 else "(-INFINITY)"
        return float.hex(v)
    v = int(v)
    if t.np_type.kind == "u":
        return f"(({t.c_type}){v}ULL)"
    if v == int(np.iinfo(t.np_type).min):
        return f"(({t.c_type})(-{-v - 1}LL - 1))"
    return f"(({t.c_type}){v}LL)"


def _emit(t):
    if t.is_float:
        return "printf(\"%a \", (double)z);"
    if t.np_type.kind == "u":
        return "printf(\"%llu \", (unsigned long long)z);"
    return "printf(\"%lld \", (long long)z);"


def _parse(tokens, t):
    if t.is_float:
        return np.array([float.fromhex(s) for s in tokens], dtype=t.np_type)
    if t.is_bool:
        return np.array([int(s) for s in tokens]).astype(bool)
    return np.array([int(s) for s in tokens], dtype=t.np_type)


def test_c_expressions_compile_and_agree_with_numpy(tmp_path):
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler")
    src = ["#include <math.h>", "#include <stdio.h>", "#include <stdbool.h>", ""]
    jobs = []  # (op, type, x, y)
    calls = []
    for t in ALL_TYPES:
        xs, ys = sample_pairs(t, n_random=40, seed=SEED + 7)
        n = len(xs)
        for arr, vals in (("X", xs), ("Y", ys)):
            body = ", ".join(_c_literal(v, t) for v in vals)
            src.append(f"static const {t.c_type} {arr}_{t.name}[{n}] = {{{body}}};")
        for op in list(U._OPS.values()) + list(B._OPS.values()):
            if t not in op.types:
                continue
            out = op.out(t)
            k = len(jobs)
            jobs.append((op, t, xs, ys))
            src += [f"static void f{k}(void) {{",
                    f"  for (int i = 0; i < {n}; i++) {{",
                    f"    const {t.c_type} x = X_{t.name}[i]; const {t.c_type} y = Y_{t.name}[i];",
                    "    (void)x; (void)y;",
                    f"    const {out.c_type} z = ({out.c_type})({op.c(t)});",
                    f"    {_emit(out)}",
                    "  }", "  putchar('\\n');", "}"]
            calls.append(f"  f{k}();")
    src += ["int main(void) {", *calls, "  return 0;", "}"]
    c_file, exe = tmp_path / "ops.c", tmp_path / "ops"
    c_file.write_text("\n".join(src))
    cc = subprocess.run([gcc, "-std=c99", "-O0", "-fwrapv", "-ffp-contract=off",
                         "-Werror=implicit-function-declaration", str(c_file), "-o", str(exe),
                         "-lm"], capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    lines = run.stdout.split("\n")
    for k, (op, t, xs, ys) in enumerate(jobs):
        out = op.out(t)
        got = _parse(lines[k].split(), out)
        ref = op.numpy(xs) if op.kind == "unary" else op.numpy(xs, ys)
        assert_values(got, ref, out, what=f"C vs NumPy: {op!r}[{t.name}]")
