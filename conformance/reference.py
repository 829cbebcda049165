"""The python-graphblas side: each case as python-graphblas statements.

The translation is direct, one GraphBLAS call per case:

    C⟨M.S, replace⟩ = plus(C, A plus.times B)
        ->  C(mask=M.S, accum=gb.binary.plus, replace=True) << A.mxm(B, gb.semiring.plus_times)

* transposed inputs (t0 / t1) are ``.T``; structure-only inputs (s0 / s1, oneMKL's
  ONLY_STRUCTURE, which python-graphblas lacks) become an iso-1 copy, ``A.apply(gb.unary.one)``;
* a mask given through the descriptor (mask_structure / mask_complement) is the same mask
  object here; replace without a mask is dropped (python-graphblas refuses it; the C API
  makes it a no-op);
* methods and request sequences do not exist here: their cases must equal the plain result;
* the ANY monoid picks any candidate: ``alternatives`` gives the operators whose results
  bound the choice (min and max monoids over the same multiply; first and second for the
  ANY binary operator); a value is compared only where they agree.

Statements assign the result to the family's output name (C, w, or s).
"""
from . import catalog
from .texts import alias_text, index_text, mask_text, scalar_text

__all__ = ["source", "alternatives", "op_text"]


def op_text(kind, name):
    """python-graphblas's operator ``name`` of ``kind`` as source text; a semiring it does not
    name is built from its monoid and multiply (grblas_gpu's catalog says which, else the
    name's halves)."""
    if name in catalog.gb_names(kind):  # named there (built lazily, when the case runs)
        return f"gb.{kind}{'.ss' if catalog.gb_positional(kind, name) else ''}.{name}"
    if kind == "semiring":
        fallback = catalog.gb_fallback(kind, name)
        if fallback:
            return fallback
        mon, _, mult = name.partition("_")
        return f"gb.core.operator.Semiring.register_anonymous(gb.monoid.{mon}, gb.binary.{mult})"
    raise KeyError(f"python-graphblas has no {kind} {name!r}")


def alternatives(case, kind):
    """[(kind, name, role)] of the operators that pin down an ANY result, [] without ANY.
    role "bound": min and max over the same multiply (first and second for the ANY binary
    operator); where they agree every candidate is equal. role "nan": plus over the same
    multiply, NaN where a candidate is NaN (min and max skip NaN, as fmin / fmax do)."""
    name = case.p("operator")
    if not isinstance(name, str):
        return []
    if kind == "semiring" and name.startswith("any_"):
        ops = catalog.gg_ops("semiring") or {}
        mult = ops[name].multiply.name if name in ops else name[4:]
        return [("semiring", f"min_{mult}", "bound"), ("semiring", f"max_{mult}", "bound"),
                ("semiring", f"plus_{mult}", "nan")]
    if name == "any" and kind == "binary":
        return [("binary", "first", "bound"), ("binary", "second", "bound")]
    if name == "any" and kind == "monoid":
        return [("monoid", "min", "bound"), ("monoid", "max", "bound"), ("monoid", "plus", "nan")]
    return []


def _lhs(case, out):
    """'C(mask=..., accum=..., replace=True)' or just 'C'."""
    m, _ = mask_text(case, "gb")
    kw = []
    if m:
        kw.append(f"mask={m}")
    if case.p("accum"):
        kw.append(f"accum={op_text('binary', case.p('accum'))}")
    if case.p("replace") and m:
        kw.append("replace=True")
    return f"{out}({', '.join(kw)})" if kw else out


def _inputs(case, names):
    """(preparation lines, {name: text as used}) for structure-only and transposed inputs."""
    lines, texts = [], {}
    for i, name in enumerate(names):
        if case.p(f"s{i}"):
            lines.append(f"{name} = {name}.apply(gb.unary.one).new()  # structure only: iso 1")
        texts[name] = f"{name}.T" if case.p(f"t{i}") else name
    return lines, texts


# each: (case, input texts in call order, operator text) -> what python-graphblas assigns
_EXPR = {
    "mxm": lambda c, x, op: f"{x[0]}.mxm({x[1]}, {op})",
    "mxv": lambda c, x, op: f"{x[0]}.mxv({x[1]}, {op})",
    "vxm": lambda c, x, op: f"{x[0]}.vxm({x[1]}, {op})",
    "kronecker": lambda c, x, op: f"{x[0]}.kronecker({x[1]}, {op})",
    "ewise_add": lambda c, x, op: f"{x[0]}.ewise_add({x[1]}, {op})",
    "ewise_mult": lambda c, x, op: f"{x[0]}.ewise_mult({x[1]}, {op})",
    "ewise_union": lambda c, x, op: (
        f"{x[0]}.ewise_union({x[1]}, {op}, left_default={_scalar(c, 'alpha')}, "
        f"right_default={_scalar(c, 'beta')})"),
    "apply": lambda c, x, op: _apply_expr(c, x[0], op),
    "select": lambda c, x, op: f"{x[0]}.select({op}, {_scalar(c, 'thunk')})",
    "reduce_rowwise": lambda c, x, op: f"{x[0]}.reduce_rowwise({op})",
    "reduce_columnwise": lambda c, x, op: f"{x[0]}.reduce_columnwise({op})",
    "transpose": lambda c, x, op: x[0][:-2] if x[0].endswith(".T") else f"{x[0]}.T",
    "extract": lambda c, x, op: f"{x[0]}[{_index_text(c)}]",
}


def _scalar(case, key):
    value = case.p(key)
    return scalar_text(value, case.p(f"{key}_type") or case.p("type"))


def _apply_expr(case, a, op):
    if case.p("left") is not None:
        return f"{a}.apply({op}, left={_scalar(case, 'left')})"
    if case.p("right") is not None:
        return f"{a}.apply({op}, right={_scalar(case, 'right')})"
    if case.p("thunk") is not None:
        return f"{a}.apply({op}, {_scalar(case, 'thunk')})"
    return f"{a}.apply({op})"


def _index_text(case):
    keys = [case.p("rows")] + ([case.p("cols")] if case.p("cols") is not None else [])
    return ", ".join(index_text(k, "gb") for k in keys)


def _reduce_scalar(case, family, op):
    x = family.inputs[0]
    method = "reduce" if family.form == "vector" else "reduce_scalar"
    lines = [f"t = {x}.{method}({op}).new()",
             "# an empty reduction gives the monoid's identity (GrB_reduce to a C scalar)",
             f"monoid = {op}.monoid if isinstance({op}, gb.core.operator.BinaryOp) else {op}",
             "s = t.value if t.value is not None else monoid[t.dtype].identity",
             "s = np.array(s, dtype=t.dtype.np_type)[()]"]
    if case.p("accum"):
        lines += [f"S = gb.Scalar.from_value({_scalar(case, 'initial')})",
                  f"S(accum={op_text('binary', case.p('accum'))}) << s",
                  "s = np.array(S.value, dtype=S.dtype.np_type)[()]"]
    return "\n".join(lines)


def _assign(case, family, op):
    """GrB_assign is C(mask, accum, replace)[I, J] << A; GxB_subassign C[I, J](...) << A."""
    lines, texts = _inputs(case, family.inputs)
    value = texts[family.inputs[0]] if family.inputs else _scalar(case, "scalar")
    index = _index_text(case)
    out = family.output
    lhs = _lhs(case, out)
    if family.name == "subassign" and lhs != out:
        lines.append(f"{out}[{index}]{lhs[len(out):]} << {value}")
    elif lhs != out:
        lines.append(f"{lhs}[{index}] << {value}")
    else:
        lines.append(f"{out}[{index}] << {value}")
    return "\n".join(lines)


_SPECIAL = {"reduce_scalar": _reduce_scalar, "assign": _assign, "subassign": _assign}


def _not_hyper(case, family, kind, name):
    """Lines keeping the matrix inputs of a positional semiring out of hypersparse form:
    SuiteSparse 9.4.5 gives firsti the hyperlist position instead of the row over a
    hypersparse A (A 48x48 holding only (47, 0): A plus.firsti1 u gives 1, not 48)."""
    if not (name and catalog.gb_positional(kind, name)):
        return ""
    mats = [n for n in family.inputs
            if n in dict(case.operands) and dict(case.operands)[n].kind == "matrix"]
    return "".join(f'{n}.ss.config["sparsity_control"] = ["sparse", "bitmap", "full"]\n'
                   for n in mats)


def source(case, family, variant=None):
    """python-graphblas statements for a case (``variant``: an operator (kind, name) to use
    in place of the case's, for ANY bounds)."""
    kind, name = variant or (family.op_kind, case.p("operator"))
    op = op_text(kind, name) if name else None
    if hasattr(family, "reference_source"):  # the family spells python-graphblas's call
        return family.reference_source(case, op)
    special = _SPECIAL.get(family.name)
    if special is not None:
        return alias_text(case, family.output) + _not_hyper(case, family, kind, name) + special(
            case, family, op_text(kind, name) if name else None)
    lines, texts = _inputs(case, family.inputs)
    lines = (alias_text(case, family.output) + _not_hyper(case, family, kind, name)).splitlines() \
        + lines
    expr = _EXPR[family.name](case, [texts[n] for n in family.inputs],
                              op_text(kind, name) if name else None)
    lines.append(f"{_lhs(case, family.output)} << {expr}")
    return "\n".join(lines)
