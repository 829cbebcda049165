"""Random differential fuzzing: ``python -m grblas_gpu.conformance --fuzz N --seed S``.

The suite enumerates chosen products of its axes; the fuzzer draws N cases at random from
all of them at once, in the same representation (each family's ``make`` builds the Case),
and runs them through the same runner, comparison, shrinker and report. One draw picks,
each independently:

  operation, form   every family but the algorithms, and build and diag (conformance.fuzz_ops)
  operator, type    any pair both libraries accept (python-graphblas's numba-built operators
                    aside: seconds each); reductions also with any binary operator
  dimensions        each 0, 1, small or medium (so 0-size, 1xn and nx1 operands), or all
                    equal (so that the output can alias an input); rarely 2**40
  fills             each operand empty .. full, vectors in dense form, iso-valued inputs,
                    float values with NaN, ±inf and -0.0
  output            mask (value / structure, complemented, or the complement flag with no
                    mask), given by the descriptor or not, accum, replace, transposes and
                    structure-only inputs, C of another type, inputs of two types
  products          mxm's method; mxm, mxv and vxm through the two-stage request sequence,
                    also with overlapping caller buffers tried first (InvalidValue expected)
  aliasing          the output object also passed as an input or as the mask (C = A ⊕.⊗ C)
  invalid calls     an operand one row too long: both must raise and leave C as it was

Refusals must match (tag "strict") where the operator is the question: reductions and
builds, with every operator. Case i depends on (seed, i) alone and carries ``fuzz=i``.
"""
import functools

import numpy as np

from . import catalog
from .cases import FAMILIES, Plan, UnknownOperation
from .families._common import Forms, _with_op_kind
from .families.products import METHODS, REQUESTS

__all__ = ["fuzz_cases"]

SIZES = (0,) + (1,) * 3 + tuple(range(2, 9)) * 2      # small; 1 in 10 draws is medium
FILLS = ("empty", "one", "few", "sparse", "sparse", "half", "half", "half", "full")
MASKS = ("none", "none", "V", "S", "~V", "~S", "comp")


def fuzz_cases(n, seed, ops=None, types=None):
    """n random cases (grouped by operation, in draw order within one)."""
    from . import families, fuzz_ops  # noqa: F401  (register the families)

    names = [k for k, f in FAMILIES.items() if not hasattr(f, "check")]
    if ops:
        unknown = [o for o in ops if o not in FAMILIES]
        if unknown:
            raise UnknownOperation(f"unknown operation(s): {', '.join(unknown)}")
        names = [k for k in names if k in ops]
    cases = [_draw(seed, i, names, types) for i in range(n)]
    order = {name: j for j, name in enumerate(names)}
    return sorted(cases, key=lambda c: order[c.op])  # stable: draw order within an operation


def _draw(seed, i, names, types):
    for attempt in range(50):
        rng = np.random.default_rng([seed, i, attempt])
        try:
            case = _one(rng, names, types, Plan(seed=seed))
        except (ValueError, IndexError):  # an impossible draw (indices into 0 rows): again
            continue
        if case is not None:
            return case.with_param(fuzz=i)
    raise RuntimeError(f"fuzz: no valid case drawn for seed {seed}, case {i}")


def _one(rng, names, types, plan):
    top = FAMILIES[names[rng.integers(len(names))]]
    forms = list(top._forms.values()) if isinstance(top, Forms) else [top]
    fam = forms[rng.integers(len(forms))]
    strict, kind = getattr(fam, "strict", False), None
    if fam.op_kind == "monoid":  # reductions: any binary operator half the time
        strict = True
        if rng.random() < 0.5:
            kind, fam = "binary", _with_op_kind(type(fam), "binary")
    name, t, valid = _operator(rng, fam.op_kind, types)
    if t is None:
        return None
    huge = rng.random() < 0.03 and fam.huge is not None
    if huge:
        dims = {d: fam.huge for d in fam.dims}
    elif rng.random() < 0.3:
        dims = dict.fromkeys(fam.dims, _size(rng, fam))
    else:
        dims = {d: _size(rng, fam) for d in fam.dims}
    everyone = (fam.output, "M", *fam.inputs)
    fills = {n: _fill(rng, huge) for n in everyone}
    lay = ("huge" if huge else "fuzz", dims, fills)
    probe = fam.make(plan, name, t, _plain(), lay, np.random.default_rng(0))
    has_out = probe.operand(fam.output) is not None
    cfg, out_type, input_types = _plain(), None, None
    if has_out:
        cfg = _config(rng, fam)
        if cfg["mask"] == "comp":
            fills["M"] = "empty"  # python-graphblas's side: an empty structural mask
        elif _full_value_mask_with_accum(cfg, fills["M"]):
            fills["M"] = "half"
    if fam.name == "reduce_scalar" and rng.random() < 0.5:
        cfg["accum"] = _binary(rng)
    if (has_out or fam.name == "build") and rng.random() < 0.25:
        out_type = catalog.TYPE_NAMES[rng.integers(len(catalog.TYPE_NAMES))]
    # (where SuiteSparse 9.4, the reference, is wrong, the fuzzer does not go: see _avoid)
    if fam.op_kind is not None and rng.random() < 0.2 and not _avoid(fam, name, "mixed"):
        t, input_types = _mixed(rng, fam, t, valid)
    if _avoid(fam, name, "t1"):
        cfg["t1"] = False
    tags = ("strict",) if strict else ()
    misfit = fam.misfit_target() if has_out and rng.random() < 0.04 else None
    tags += ("invalid",) if misfit is not None else ()
    tags += ("huge",) if huge else ()
    case = fam.make(plan, name, t, cfg, lay, rng, tags=tags, out_type=out_type,
                    input_types=input_types, misfit=misfit, extra=_request(rng, fam))
    case = _values(rng, case, fam)
    if has_out and misfit is None and rng.random() < 0.2 and not _avoid(fam, name, "mixed"):
        case = _alias(rng, case, fam)
    if kind is not None:
        case = case.with_param(op_kind=kind)
    return case.with_param(form=fam.form) if isinstance(top, Forms) else case


def _request(rng, fam):
    """mxm's method, and the two-stage request sequence for mxm, mxv and vxm (also with the
    caller's stage-2 buffers overlapping first); None: the family's own parameters."""
    if fam.name not in ("mxm", "mxv", "vxm"):
        return None
    extra = {"request": REQUESTS[rng.integers(2)]} if rng.random() < 0.3 else {}
    if fam.name == "mxm":
        extra["method"] = METHODS[rng.integers(len(METHODS))]
    return extra


def _avoid(fam, name, what):
    """Draws where SuiteSparse 9.4 (the reference) is wrong. "mixed" (inputs of another type,
    or aliased to an output of another type): a value select on A of another type than the
    operator's (valuelt[FP64] with thunk 1.71 keeps a UINT32 3 and drops a 0). "t1": mxm's
    positional semirings with B transposed by the descriptor (min_firsti gives 0 where B'
    materialised gives the row index)."""
    if what == "mixed":
        return fam.name == "select" and str(name).startswith("value")
    return fam.name == "mxm" and catalog.gb_positional("semiring", name)


@functools.lru_cache(maxsize=None)
def _operators(kind):
    """[(name, types)] both libraries accept, numba-built ones aside."""
    out = []
    for name in catalog.names(kind):
        if catalog.gb_is_udf(kind, name):
            continue
        ts, why = catalog.types_for(kind, name)
        if ts and not why:
            out.append((name, tuple(ts)))
    return out


def _operator(rng, kind, types):
    """(name, type, the name's types); type None when the filter leaves none."""
    if kind is None:
        name, valid = None, catalog.TYPE_NAMES
    else:
        ops = _operators(kind)
        name, valid = ops[rng.integers(len(ops))]
    allowed = [t for t in valid if types is None or t in types]
    return name, (allowed[rng.integers(len(allowed))] if allowed else None), valid


def _size(rng, fam):
    if rng.random() < 0.1:
        return int(rng.integers(9, fam.medium[1] + 1))
    return int(SIZES[rng.integers(len(SIZES))])


def _fill(rng, huge):
    if huge:
        return ("empty", "one", "few")[rng.integers(3)]
    fill = FILLS[rng.integers(len(FILLS))]
    return fill + (":dense" if rng.random() < 0.2 else "")  # (vectors only)


def _plain():
    return dict(mask="none", mask_via="object", accum=None, replace=False)


def _binary(rng):
    """An accumulator (any binary operator but copysign: T may hold a NaN that the operator
    computed, log(-3) say, whose sign bit C leaves to the platform, and copysign reads it)."""
    ops = [name for name, _ in _operators("binary") if name != "copysign"]
    return ops[rng.integers(len(ops))]


def _config(rng, fam):
    mask = MASKS[rng.integers(len(MASKS))]
    cfg = dict(mask=mask, accum=_binary(rng) if rng.random() < 0.4 else None,
               mask_via="desc" if mask not in ("none", "comp") and rng.random() < 0.3
               else "object", replace=bool(rng.random() < 0.3))
    cfg.update({f: bool(rng.random() < 0.25) for f in fam.flags})
    return cfg


def _mixed(rng, fam, t, valid):
    """(type, {input: type}): inputs of two types meeting at a type the operator takes, or
    one input of another type than the operator's."""
    from grblas_gpu.types import unify

    names = catalog.TYPE_NAMES
    t1, t2 = (names[k] for k in rng.integers(len(names), size=2))
    if len(fam.inputs) >= 2:
        u = unify(t1, t2).name
        return (u, {fam.inputs[0]: t1, fam.inputs[1]: t2}) if u in valid else (t, None)
    return t, {fam.inputs[0]: t1}


def _values(rng, case, fam):
    """Iso-valued inputs; NaN, ±inf and -0.0 among float values (the output's too)."""
    ops = []
    for n, op in case.operands:
        if n in fam.inputs and op.storage != "tuples" and rng.random() < 0.15:
            op = op.with_(storage="iso")
        if n != "M" and op.dtype in ("FP32", "FP64") and op.domain is None \
                and rng.random() < 0.2:
            op = op.with_(domain="special")
        ops.append((n, op))
    return type(case)(case.op, case.params, tuple(ops), case.seed, case.tags)


def _full_value_mask_with_accum(cfg, mask_fill):
    """SuiteSparse 9.4.5 segfaults on C⟨M⟩ = accum(C, T) with M a value mask in full form
    (python-graphblas: C(mask=M.V, accum=plus) << A.ewise_mult(B), M from a dense array): the
    fuzzer gives such a mask a sparse form instead."""
    return cfg.get("mask") == "V" and bool(cfg.get("accum")) and mask_fill == "full"


def _alias(rng, case, fam):
    """The output also given as one or two of the inputs and mask of its kind and shape (not
    as a mask when it holds -0.0: SuiteSparse's value masks test bytes, so -0.0 is true)."""
    out = case.operand(fam.output)
    same = [n for n, op in case.operands if n != fam.output and op.kind == out.kind
            and op.shape == out.shape and op.storage != "tuples"
            and not (n == "M" and (case.p("mask") == "comp" or out.domain == "special"))]
    if _full_value_mask_with_accum(dict(case.params), out.fill):
        same = [n for n in same if n != "M"]
    if not same:
        return case
    k = 2 if len(same) > 1 and rng.random() < 0.3 else 1
    picks = rng.choice(len(same), size=k, replace=False)
    return case.with_param(alias=tuple(sorted(same[j] for j in picks)))
