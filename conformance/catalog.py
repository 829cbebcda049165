"""Which operators exist on each side, and at which types.

Both catalogs use python-graphblas's names (grblas_gpu's ``semirings`` mirrors them), so a
name is the link between the two. For each kind the suite tests the union:

* in both: every type both accept (python-graphblas's coercions included: ``lor_land`` on
  FP32 runs at BOOL on both sides);
* only in grblas_gpu: compared against an operator python-graphblas builds from the same
  parts (a semiring from its monoid and multiply), else skipped "no python-graphblas reference";
* only in python-graphblas: one case, skipped "not in the grblas_gpu catalog".

Kinds: semiring, binary, monoid, unary, indexunary (value and positional), select (the
index-unary operators with a BOOL result).
"""
import functools

from grblas_gpu.types import ALL_TYPES

__all__ = ["names", "types_for", "gg_expr", "gb_expr", "TYPE_NAMES", "SELECT_NAMES"]

TYPE_NAMES = tuple(t.name for t in ALL_TYPES)
SELECT_NAMES = ("tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt",
                "valueeq", "valuene", "valuegt", "valuege", "valuelt", "valuele")
_GB_NAMESPACE = {"semiring": "semiring", "binary": "binary", "monoid": "monoid",
                 "unary": "unary", "indexunary": "indexunary", "select": "select"}


def _semirings():
    try:
        from grblas_gpu import semirings
    except ImportError:
        return None
    return semirings


@functools.lru_cache(maxsize=None)
def gg_ops(kind):
    """{canonical name: operator} in grblas_gpu's catalog; None if there is none yet."""
    sr = _semirings()
    if sr is None:
        return None
    if kind in ("indexunary", "select"):
        iu = getattr(sr, "indexunary", None)
        if iu is None:
            try:
                import grblas_gpu.semirings.indexunary as iu
            except ImportError:
                return None
        names = iu.names()
        if kind == "select":
            return {n: iu.lookup(n) for n in names if n in SELECT_NAMES}
        return {n: iu.lookup(n) for n in names if n not in SELECT_NAMES}
    ops = {}
    for name, op in getattr(sr, "REGISTRY", {}).get(kind, {}).items():
        if kind == "binary" and getattr(op, "positional", False):
            continue  # (firsti ...: a semiring's multiply only, tested as the semirings)
        ops.setdefault(op.name, op)  # aliases (div, oneb) collapse onto the canonical name
    return ops


def gb_positional(kind, name):
    """Whether python-graphblas keeps this semiring under gb.semiring.ss (SuiteSparse's
    positional ones, min_firsti, any_secondi, ...: the multiplies of semirings.positional)."""
    sr = _semirings()
    return (kind == "semiring" and sr is not None
            and name.partition("_")[2] in sr.positional.OPS)


def gb_names(kind):
    """python-graphblas's names for a kind, without building them (building a semiring can
    compile a numba UDF: seconds). The positional semirings of gb.semiring.ss (SuiteSparse's
    GxB ones) are counted; its positional binary operators are not (grblas_gpu has them as
    semiring multiplies only)."""
    import graphblas as gb
    from graphblas.core.operator import OpBase

    ns = getattr(gb, _GB_NAMESPACE[kind])
    # aliases (index = rowindex, indexle = rowle) are the same operator: counted once
    names = {n for n, v in vars(ns).items()
             if isinstance(v, OpBase) and not n.startswith("_") and v.name.split(".")[-1] == n}
    names |= set(getattr(ns, "_delayed", {}))
    if kind == "indexunary":
        names -= set(SELECT_NAMES)
    if kind == "semiring":
        names |= {n for n in dir(gb.semiring.ss) if gb_positional(kind, n)}
    return names


def gb_is_udf(kind, name):
    """Whether python-graphblas builds this operator with numba (slow the first time)."""
    import graphblas as gb

    ns = getattr(gb, _GB_NAMESPACE[kind])
    return name in getattr(ns, "_udfs", ()) or name in getattr(ns, "_delayed", {})


@functools.lru_cache(maxsize=None)
def gb_op(kind, name):
    """python-graphblas's operator, or None."""
    import graphblas as gb

    if name not in gb_names(kind):
        return None
    try:
        if gb_positional(kind, name):
            return getattr(gb.semiring.ss, name)
        return getattr(getattr(gb, _GB_NAMESPACE[kind]), name)
    except AttributeError:  # a UDF without numba
        return None


def _gb_accepts(op, tname):
    try:
        op[tname]
    except KeyError:  # python-graphblas's "X does not work with T"; anything else propagates
        return False
    return True


def _gg_accepts(kind, op, tname):
    from grblas_gpu.errors import GraphBLASError

    sr = _semirings()
    try:
        if kind == "semiring":
            sr.resolve_semiring(op, tname, tname)
        elif kind == "binary":
            sr.resolve_binary(op, tname, tname)
        elif kind == "monoid":
            sr.resolve_monoid(op, tname)
        elif kind == "unary":
            sr.resolve_unary(op, tname)
        else:
            import grblas_gpu.semirings.indexunary as iu

            iu.resolve_indexunary(op, tname, "INT64")
    except GraphBLASError:  # DomainMismatch / TypeNotSupported: not at this type
        return False
    return True


def gb_fallback(kind, name):
    """python-graphblas operator for a grblas_gpu-only name, as source text, or None."""
    ops = gg_ops(kind)
    if kind != "semiring" or ops is None or name not in ops:
        return None
    mon, mult = ops[name].monoid.name, ops[name].multiply.name
    if gb_op("monoid", mon) is not None and gb_op("binary", mult) is not None:
        return f"gb.core.operator.Semiring.register_anonymous(gb.monoid.{mon}, gb.binary.{mult})"
    return None


def names(kind):
    """Every name to test: grblas_gpu's catalog and python-graphblas's, sorted."""
    gg = gg_ops(kind) or {}
    return sorted(set(gg) | gb_names(kind))


@functools.lru_cache(maxsize=None)
def types_for(kind, name):
    """([type names to test], skip reason or None) for one operator; ([], None): not
    applicable (python-graphblas's complex-only operators)."""
    gg = gg_ops(kind)
    if gg is None:
        return ["FP64"], "grblas_gpu has no operator catalog (semirings) yet"
    if name not in gg:
        ref = None if gb_is_udf(kind, name) else gb_op(kind, name)
        real = gb_is_udf(kind, name) or ref is None or any(_gb_accepts(ref, t) for t in TYPE_NAMES)
        if not real:  # complex-only (conj, creal...): outside grblas_gpu's eleven types
            return [], None
        return ["FP64"], f"{kind} {name!r} is not in the grblas_gpu catalog"
    udf = gb_is_udf(kind, name)
    if udf and name in gb_names(kind):  # building it compiles with numba: not for a probe
        return [t for t in TYPE_NAMES if _gg_accepts(kind, gg[name], t)], None
    ref = gb_op(kind, name)
    if ref is None and gb_fallback(kind, name) is None:
        return ["FP64"], f"{kind} {name!r}: no python-graphblas reference"
    if ref is None:
        import graphblas as gb

        ref = eval(gb_fallback(kind, name), {"gb": gb})
    types = [t for t in TYPE_NAMES if _gg_accepts(kind, gg[name], t) and _gb_accepts(ref, t)]
    if not types:
        return ["FP64"], f"{kind} {name!r}: no type both libraries accept"
    return types, None


def gg_expr(kind, name):
    """Source text for grblas_gpu's operator (what a user would write)."""
    if kind in ("indexunary", "select"):
        return f"semirings.indexunary.lookup({name!r})"
    if kind == "semiring":
        if name.isidentifier():
            return f"semirings.{name}"
        return f"semirings.lookup({name!r}, 'semiring')"
    return f"semirings.{kind}.{name}"


def gb_expr(kind, name):
    """Source text for python-graphblas's operator of that name."""
    if gb_op(kind, name) is not None:
        ss = ".ss" if gb_positional(kind, name) else ""
        return f"gb.{_GB_NAMESPACE[kind]}{ss}.{name}"
    fallback = gb_fallback(kind, name)
    if fallback is None:
        raise KeyError(f"python-graphblas has no {kind} {name!r}")
    return fallback
