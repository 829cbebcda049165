"""Running a case: build its operands, execute both sides' source, compare, shrink failures.

Each side is source text (from the family and from conformance.reference) executed in its
own namespace holding the operands built by that library, so the reproducer printed for a
failure is exactly what ran. Verdicts:

    passed   results agree (and agree with the dense mimic where the case has one), or both
             libraries reject the case with an error (a strict case: whatever the error)
    failed   they differ, grblas_gpu raises where python-graphblas does not, grblas_gpu
             changed an input, or (cases tagged "strict": reductions and builds with any
             operator) one library refuses where the other computes
    skipped  with a reason: the operation or operator is not in grblas_gpu yet, grblas_gpu
             raises NotSupported (an explicit, documented limit), or python-graphblas
             cannot express the case (it raises where grblas_gpu computes)
"""
import contextlib
import dataclasses
import os
import time
from dataclasses import dataclass, field

import numpy as np

from . import compare as cmp
from . import reference, spec
from .cases import FAMILIES
from .families._common import SKIP, spec_source
from .operands import data

__all__ = ["Outcome", "run", "run_case", "evaluate"]


@dataclass
class Outcome:
    case: object
    status: str                 # "passed", "failed" or "skipped"
    reason: str = ""
    seconds: float = 0.0
    checks: tuple = ()          # references compared against
    reproducer: str = None
    datas: dict = field(default=None, repr=False)  # the (shrunk) operands of a failure


def run(cases, *, shrink=True, progress=None):
    """Outcomes of every case, in order. ``progress(outcome)`` is called after each."""
    out = []
    for case in cases:
        o = run_case(case, shrink=shrink)
        out.append(o)
        if progress is not None:
            progress(o)
    return out


def run_case(case, *, shrink=True):
    start = time.perf_counter()
    try:
        o = _run_case(case, shrink)
    except Exception as e:  # a bug in the harness itself: reported, never hidden
        o = Outcome(case, "failed", f"conformance harness error: {_short(e, 300)}")
    o.seconds = time.perf_counter() - start
    return o


def _run_case(case, shrink):
    why = case.p(SKIP)
    if why:
        return Outcome(case, "skipped", why)
    family = FAMILIES[case.op].for_case(case)
    if not family.available():
        return Outcome(case, "skipped", "not implemented in grblas_gpu")
    aliased = case.p("alias", ())  # the output object stands for them
    datas = {name: data(op) for name, op in case.operands if name not in aliased}
    if hasattr(family, "check"):  # an algorithm: checked against networkx, not shrunk
        from .algorithms import reproducer

        status, reason = family.evaluate(case, datas)
        o = Outcome(case, status, reason, checks=("networkx",))
        if status == "failed":
            make = getattr(family, "reproducer", None)
            o.reproducer = make(case) if make is not None else reproducer(case, family)
        return o
    o = evaluate(case, family, datas)
    if o.status == "failed":
        if shrink:
            datas = _shrink(case, family, datas, o)
            o2 = evaluate(case, family, datas)
            if o2.status == "failed":
                o = o2
        from .report import reproducer

        o.datas = datas
        o.reproducer = reproducer(case, family, datas, o)
    return o


# ---------------------------------------------------------------------- one evaluation
def _namespace(lib_name, datas):
    import graphblas as gb

    import grblas_gpu as gg

    ns = {"np": np, "gg": gg, "gb": gb, "spec": spec}
    try:
        from grblas_gpu import semirings
        import grblas_gpu.semirings.indexunary  # noqa: F401  (gg_expr names semirings.indexunary)
        from grblas_gpu import semirings
        ns["semirings"] = semirings
    except ImportError:
        pass
    lib = {"gg": gg, "gb": gb, "spec": spec}[lib_name]
    for name, d in datas.items():
        ns[name] = d.build(lib)
    return ns


def _execute(src, lib_name, datas, output, guard=False):
    """(namespace, result, exception) of running ``src`` on fresh operands."""
    with _memory_guard(guard and lib_name == "gg"):
        try:
            ns = _namespace(lib_name, datas)
        except Exception as e:  # building operands is part of what is tested
            return None, None, e
        try:
            exec(compile(src, f"<{lib_name} source>", "exec"), ns)
        except Exception as e:  # any failure of the library under test is a verdict
            return ns, None, e
    return ns, ns.get(output), None


def evaluate(case, family, datas):
    """The verdict for a case on given operand data (no shrinking, no reproducer)."""
    import grblas_gpu as gg

    gpu_src = family.gpu_source(case)
    ref_src = reference.source(case, family)
    ns_g, ours, err_g = _execute(gpu_src, "gg", datas, family.output, "huge" in case.tags)
    _, ref, err_r = _execute(ref_src, "gb", datas, family.output)
    if err_r is not None and not _rejection(err_r):
        # the reference itself is broken (a version mismatch, a harness bug): never a skip
        return Outcome(case, "failed", f"conformance harness: python-graphblas failed to run: "
                                       f"{_short(err_r)}")
    if "strict" in case.tags and err_g is not None:  # refusals must match SuiteSparse's
        if err_r is not None:
            return Outcome(case, "passed", "both refuse", checks=("python-graphblas",))
        if "huge" not in case.tags:  # (2**40 operands: grblas_gpu's documented size limit)
            return Outcome(case, "failed", f"grblas_gpu refuses where python-graphblas "
                                           f"computes: {_short(err_g)}")
    if isinstance(err_g, gg.NotSupported) and not isinstance(err_g, gg.TypeNotSupported):
        return Outcome(case, "skipped", f"grblas_gpu: {_short(err_g)}")
    if "invalid" in case.tags:
        return _invalid_verdict(case, family, datas, ns_g, err_g, err_r)
    if "misuse" in case.tags:
        return _misuse_verdict(case, family, datas, ns_g, err_g)
    if err_g is not None and err_r is not None:
        return Outcome(case, "passed", "both reject", checks=("python-graphblas",))
    if err_r is not None and "strict" in case.tags:  # a refusal SuiteSparse makes: ours too
        return Outcome(case, "failed", f"grblas_gpu computes where python-graphblas refuses: "
                                       f"{_short(err_r)}")
    if err_r is not None:
        return Outcome(case, "skipped", f"python-graphblas cannot express it: {_short(err_r)}")
    if err_g is not None:
        return Outcome(case, "failed", f"grblas_gpu raised {_short(err_g)}")
    problems = _inputs_changed(case, family, ns_g, datas)
    nterms, scale = family.nterms(case, datas), _scale(datas, ref, family)
    det = _determined(case, family, datas, ref)
    diff = cmp.compare(ours, ref, nterms=nterms, scale=scale, determined=det,
                       computed_in=_computed_in(case, family))
    checks = ["python-graphblas"] + (["ANY-bounds"] if det is not None else [])
    if diff:
        problems.append(f"grblas_gpu vs python-graphblas: {diff}")
    if "spec" in case.tags:
        problems += _against_spec(case, family, datas, ours, ref, nterms, scale, checks)
    if problems:
        return Outcome(case, "failed", " || ".join(problems), checks=tuple(checks))
    return Outcome(case, "passed", checks=tuple(checks))


def _computed_in(case, family):
    """The type the operator computes in (its result type), which bounds the precision of
    a result cast to a wider C: atan2 on INT8 computes in FP32."""
    from .families._common import out_type_of

    name = case.p("operator")
    if not (family.op_kind and name):
        return None
    # with inputs of other types (the fuzzer's "types"), the operator is typed by the first
    # input, as python-graphblas and grblas_gpu resolve it (cos on INT8 computes in FP32)
    t = (case.p("types") or "").split("/")[0] or case.p("type")
    return out_type_of(family.op_kind, name, t)


def _invalid_verdict(case, family, datas, ns_g, err_g, err_r):
    """An invalid call: both must raise, and grblas_gpu must leave its output unchanged
    (validate everything before changing anything)."""
    if err_r is None:
        return Outcome(case, "failed", "conformance harness: the invalid case is valid for "
                                       "python-graphblas")
    if err_g is None:
        return Outcome(case, "failed", f"grblas_gpu accepted an invalid call "
                                       f"(python-graphblas: {_short(err_r)})")
    out = family.output
    if ns_g is not None and out in ns_g and out in datas:
        import grblas_gpu as gg

        if cmp.compare(ns_g[out], datas[out].build(gg)):
            return Outcome(case, "failed", f"grblas_gpu raised {_short(err_g)} but changed {out}")
    return Outcome(case, "passed", "both reject", checks=("python-graphblas",))


def _misuse_verdict(case, family, datas, ns_g, err_g):
    """A call only grblas_gpu's API can make wrongly (caller buffers that alias): it must
    raise InvalidValue and change neither its output, nor its inputs, nor the buffers the
    source lists in ``buffers`` (copied into ``before`` just before the call)."""
    import grblas_gpu as gg

    if not isinstance(err_g, gg.InvalidValue):
        got = "nothing" if err_g is None else _short(err_g)
        return Outcome(case, "failed", f"grblas_gpu should raise InvalidValue, raised {got}")
    problems = _inputs_changed(case, family, ns_g, datas)
    out = family.output
    if ns_g is not None and out in ns_g and cmp.compare(ns_g[out], datas[out].build(gg)):
        problems.append(f"grblas_gpu raised {_short(err_g)} but changed {out}")
    if ns_g is None or "buffers" not in ns_g:
        problems.append("conformance harness: the misuse source defines no buffers")
    elif not all(bool(_all_true(b == s)) for b, s in zip(ns_g["buffers"], ns_g["before"])):
        problems.append(f"grblas_gpu raised {_short(err_g)} but wrote into the buffers")
    if problems:
        return Outcome(case, "failed", " || ".join(problems), checks=("misuse",))
    return Outcome(case, "passed", f"rejected: {_short(err_g)}", checks=("misuse",))


def _all_true(flags):
    import grblas_gpu as gg

    return gg.backend.to_scalar(flags.all())


def _rejection(e):
    """Whether python-graphblas raising ``e`` means "this call is not valid GraphBLAS" (its
    own exceptions, and the TypeError / ValueError / IndexError of its argument checks)."""
    import graphblas.exceptions as gbx

    return isinstance(e, (gbx.GraphblasException, TypeError, ValueError, IndexError, KeyError,
                          OverflowError))


def _against_spec(case, family, datas, ours, ref, nterms, scale, checks):
    src = spec_source(case, family)
    if src is None:
        return []
    _, mimic, err = _execute(src, "spec", datas, family.output)
    if isinstance(err, spec.Unsupported):
        return []
    if err is not None:
        return [f"dense mimic raised {_short(err)} (a bug in conformance.spec)"]
    checks.append("dense mimic")
    out = []
    d1 = cmp.compare(ours, mimic, nterms=nterms, scale=scale)
    if d1:
        out.append(f"grblas_gpu vs dense mimic: {d1}")
    d2 = cmp.compare(ref, mimic, nterms=nterms, scale=scale)
    if d2:
        out.append(f"python-graphblas vs dense mimic: {d2} "
                   "(suspect conformance.reference's translation)")
    return out


def _determined(case, family, datas, ref):
    """Under ANY: True where every candidate is provably equal (the bounds agree and no
    candidate is NaN); None for other operators."""
    alts = reference.alternatives(case, family.op_kind)
    if not alts:
        return None
    base = cmp.canonical(ref)
    none = np.zeros(base.nvals, dtype=bool)  # nothing pinned down: compare the structure only
    # a cast to BOOL is not monotone (-4 and 5 are true, 0 between them false): bounds read in
    # a BOOL output pin nothing down when the operator computes in another type
    t = (case.p("types") or "").split("/")[0] or case.p("type")
    if base.values.dtype == np.bool_ and t and t != "BOOL":
        return none
    bounds, nan = [], np.zeros(base.nvals, dtype=bool)
    # an accumulator need not be monotone (cdiv(-0.0, t) is NaN for t = 0 only, between
    # t = -5 and t = 2): bound T itself, without accum, and read its bounds at C's entries
    plain = case.with_param(accum=None) if case.p("accum") else case
    for kind, name, role in alts:
        src = reference.source(plain, family, (kind, name))
        _, r, err = _execute(src, "gb", datas, family.output)
        if err is not None:
            if role == "nan":  # plus over this multiply may not exist: assume no NaN then
                continue
            return none
        c = cmp.canonical(r)
        if plain is not case:
            c = _at(c, base)
            if c is None:
                return none
        if c.nvals != base.nvals:
            return none
        if role == "nan":
            nan = np.isnan(c.values.astype(np.float64)) if c.values.dtype.kind == "f" else nan
        else:
            bounds.append(c.values)  # native dtype: uint64 must not round through float64
    det = ~nan
    for v in bounds[1:]:
        det &= (v == bounds[0])
    return det


def _at(c, base):
    """c's values at base's entries (an entry c lacks: C's own value, kept by accum, which
    every candidate leaves alone: base's value), as a Canonical like base; None when c
    holds an entry base lacks."""
    if c.kind == "scalar" or base.kind == "scalar":
        return c
    def flat(x):
        return np.ravel_multi_index(x.keys, x.shape) if x.nvals else np.zeros(0, np.int64)
    ck, bk = flat(c), flat(base)
    pos = np.searchsorted(bk, ck)
    if len(ck) and (pos.max() >= len(bk) or not (bk[pos] == ck).all()):
        return None
    vals = base.values.copy()
    vals[pos] = c.values.astype(vals.dtype, copy=False)
    return dataclasses.replace(c, keys=base.keys, values=vals)


def _inputs_changed(case, family, ns, datas):
    """Inputs (and the mask) grblas_gpu modified: an operation writes only its output."""
    import grblas_gpu as gg

    out = []
    for name, d in datas.items():
        if name == family.output or ns is None or name not in ns:
            continue
        if d.storage == "tuples":  # a build's arrays: the caller's, never written
            if any(not np.array_equal(gg.backend.to_host(x), y, equal_nan=y.dtype.kind == "f")
                   for x, y in zip(ns[name], d.build(None))):
                out.append(f"grblas_gpu changed input {name}")
            continue
        try:
            if cmp.compare(ns[name], d.build(gg)):
                out.append(f"grblas_gpu changed input {name}")
        except Exception:  # an input the library cannot even export is changed too
            out.append(f"grblas_gpu left input {name} unreadable")
    return out


def _scale(datas, ref, family):
    """The magnitude of the terms: largest |value| of any operand, the product of the two
    largest, and the largest |value| of the reference result."""
    mags = sorted((float(np.max(np.abs(d.values.astype(np.float64)))) for d in datas.values()
                   if d.nvals and d.values.dtype.kind != "b"), reverse=True)
    r = cmp.canonical(ref).values
    rmax = float(np.max(np.abs(r.astype(np.float64)))) if len(r) and r.dtype.kind != "b" else 0.0
    prod = mags[0] * mags[1] if len(mags) > 1 else 0.0
    with np.errstate(invalid="ignore"):
        return float(np.nan_to_num(max([rmax, prod] + mags[:1]), posinf=0.0))


def _short(e, limit=160):
    """One line: the exception's type and message (a GraphBLASError's message starts with
    its status, GrB_..., which names it better than the class)."""
    msg = str(e)
    text = " ".join((msg if msg.startswith("GrB_") else f"{type(e).__name__}: {msg}").split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


@contextlib.contextmanager
def _memory_guard(on):
    """On the NumPy backend, cap the address space while grblas_gpu runs a huge-dimension
    case, so that an attempt to allocate O(dimension) memory fails with MemoryError instead
    of exhausting the machine (Linux may overcommit a calloc of terabytes)."""
    import grblas_gpu.backend as be

    if not on or getattr(be, "is_gpu", False) or os.name != "posix":
        yield
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _vm_size() + 8 * 2**30
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _vm_size():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


# ---------------------------------------------------------------------- shrinking
def _kind(o):
    return o.reason.split(":")[0].split(" ")[0:2]


def _shrink(case, family, datas, first, budget_s=5.0, max_evals=150):
    """Remove entries from every operand while the case still fails the same way (ddmin
    over each operand's entries), so the reproducer is small."""
    start, evals = time.perf_counter(), 0
    kind = _kind(first)
    datas = dict(datas)
    for name in list(datas):
        chunks = 2
        while datas[name].nvals > 0:
            n = datas[name].nvals
            if time.perf_counter() - start > budget_s or evals >= max_evals:
                return datas
            progressed = False
            bounds = np.linspace(0, n, min(chunks, n) + 1).astype(int)
            for lo, hi in zip(bounds[:-1], bounds[1:]):
                keep = np.ones(n, dtype=bool)
                keep[lo:hi] = False
                trial = dict(datas, **{name: datas[name].restricted(keep)})
                evals += 1
                o = evaluate(case, family, trial)
                if o.status == "failed" and _kind(o) == kind:
                    datas, progressed = trial, True
                    chunks = max(chunks - 1, 2)
                    break
            if not progressed:
                if chunks >= n:
                    break
                chunks = min(2 * chunks, n)
    return datas
