"""Reporting: a table per operation, reproducers for failures, JSON.

The table counts cases, passed, failed and skipped per operation, then lists the skip
reasons (grouped, with counts). Each failure gets a reproducer: Python a user can paste,
building the operands with ``from_coo`` and literal arrays, calling grblas_gpu and
python-graphblas with exactly the source the harness ran, and printing the difference.
"""
import json
import re
from collections import Counter, OrderedDict

from . import reference
from .families._common import spec_source
from .operands import HUGE

__all__ = ["summarize", "table", "merged_table", "reproducer", "to_json", "failures_text"]

LITERAL_LIMIT = 2000  # entries; beyond this an operand is rebuilt from its description


def summarize(outcomes):
    """{op: {"cases", "passed", "failed", "skipped", "reasons": Counter}} in first-seen order."""
    out = OrderedDict()
    for o in outcomes:
        s = out.setdefault(o.case.op, {"cases": 0, "passed": 0, "failed": 0, "skipped": 0,
                                       "reasons": Counter(), "seconds": 0.0})
        s["cases"] += 1
        s[o.status] += 1
        s["seconds"] += o.seconds
        if o.status == "skipped":
            s["reasons"][_group(o.reason)] += 1
    return out


def _group(reason):
    """Skip reasons with names and numbers folded, so that like reasons count together."""
    r = re.sub(r"'[^']*'", "X", reason)
    r = re.sub(r"\b\d+\b", "N", r)
    return r if len(r) <= 120 else r[:117].rsplit(" ", 1)[0] + " ..."


def table(outcomes, *, reasons=True):
    return _table(summarize(outcomes), reasons)


def merged_table(ops):
    """The table from merged summaries: {op: Counter of the counts and ("reason", why)}."""
    s = {op: dict(r, reasons=Counter({k[1]: n for k, n in r.items() if isinstance(k, tuple)}))
         for op, r in ops.items()}
    return _table(s, True)


def _table(s, reasons):
    head = f"{'operation':<16}{'cases':>7}{'passed':>8}{'failed':>8}{'skipped':>9}{'seconds':>9}"
    lines = [head, "-" * len(head)]
    tot = Counter()
    for op, r in s.items():
        lines.append(f"{op:<16}{r['cases']:>7}{r['passed']:>8}{r['failed']:>8}{r['skipped']:>9}"
                     f"{r['seconds']:>9.1f}")
        for k in ("cases", "passed", "failed", "skipped", "seconds"):
            tot[k] += r[k]
        if reasons:
            for why, n in r["reasons"].most_common():
                lines.append(f"    skipped {n:>4}: {why}")
    lines.append("-" * len(head))
    lines.append(f"{'total':<16}{tot['cases']:>7}{tot['passed']:>8}{tot['failed']:>8}"
                 f"{tot['skipped']:>9}{tot['seconds']:>9.1f}")
    return "\n".join(lines)


def failures_text(outcomes):
    parts = []
    for o in outcomes:
        if o.status != "failed":
            continue
        parts.append(f"FAILED {o.case.key}: {o.case.label}\n  {o.reason}\n"
                     + _indent(o.reproducer or "", "    "))
    return "\n".join(parts)


def _indent(text, pad):
    return "\n".join(pad + line if line else line for line in text.splitlines())


def to_json(outcomes, meta):
    return json.dumps({
        **meta,
        "summary": {op: {k: (dict(v) if isinstance(v, Counter) else v) for k, v in r.items()}
                    for op, r in summarize(outcomes).items()},
        "cases": [{"key": o.case.key, "op": o.case.op, "label": o.case.label,
                   "status": o.status, "reason": o.reason, "seconds": round(o.seconds, 4),
                   "checks": list(o.checks), "seed": o.case.seed,
                   **({"reproducer": o.reproducer} if o.reproducer else {})}
                  for o in outcomes],
    }, indent=1, default=str)


# ---------------------------------------------------------------------- reproducers
def _dim(n):
    return "2**40" if n == HUGE else str(int(n))


def _values_literal(v, tname):
    npname = {"BOOL": "bool_", "FP32": "float32", "FP64": "float64"}.get(tname, tname.lower())
    items = []
    for x in v.tolist():
        if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
            items.append("np.nan" if x != x else ("np.inf" if x > 0 else "-np.inf"))
        else:
            items.append(repr(x))
    return f"np.array([{', '.join(items)}], dtype=np.{npname})"


def _operand_line(name, d, op):
    if d.nvals > LITERAL_LIMIT:
        return (f"    {name} = conformance.operands.data(conformance.operands.{op!r}).build(lib)"
                f"  # {d.nvals} entries")
    rows = repr([int(x) for x in d.rows])
    values = _values_literal(d.values, d.dtype)
    if d.storage == "tuples":  # a build's input: the arrays themselves
        keys = [d.rows] if d.cols is None else [d.rows, d.cols]
        arrays = [f"np.array({[int(x) for x in k]!r}, dtype=np.int64)" for k in keys]
        return f"    {name} = ({', '.join(arrays + [values])})"
    if d.storage == "iso" and d.nvals:  # one scalar: an iso-valued object
        values = f"{values}[0].item()"
    if d.kind == "vector":
        line = (f"    {name} = lib.Vector.from_coo({rows}, {values}, "
                f"size={_dim(d.shape[0])}, dtype={d.dtype!r})")
        if d.storage == "dense":
            line += (f"\n    if lib is gg:\n        {name}.set_format('dense')"
                     "  # grblas_gpu's bitmap form")
        return line
    cols = repr([int(x) for x in d.cols])
    return (f"    {name} = lib.Matrix.from_coo({rows}, {cols}, {values}, "
            f"nrows={_dim(d.shape[0])}, ncols={_dim(d.shape[1])}, dtype={d.dtype!r})")


def reproducer(case, family, datas, outcome):
    """Python source reproducing a failure on the given (shrunk) operands."""
    names = list(datas)
    ops = dict(case.operands)
    big = any(d.nvals > LITERAL_LIMIT for d in datas.values())
    out_name = family.output
    lines = [
        f"# conformance case {case.key}: {case.label}",
        *(f"# {part}" for part in outcome.reason.split(" || ")),
        "import numpy as np",
        "import graphblas as gb",
        "import grblas_gpu as gg",
        "from grblas_gpu import semirings",
        "from grblas_gpu import semirings; import grblas_gpu.semirings.indexunary",
        *(["from grblas_gpu import conformance; import grblas_gpu.conformance.operands"] if big else []),
        "from grblas_gpu.conformance import spec",
        "from grblas_gpu.conformance.compare import explain",
        "",
        "",
        "def operands(lib):",
        '    """The same operands in grblas_gpu (gg), python-graphblas (gb) or the dense mimic."""',
        *(_operand_line(n, datas[n], ops[n]) for n in names),
        f"    return {', '.join(names)}",
        "",
        "",
        "# grblas_gpu",
        f"{', '.join(names)} = operands(gg)",
        family.gpu_source(case),
        f"ours = {out_name}",
        "",
        "# python-graphblas",
        f"{', '.join(names)} = operands(gb)",
        reference.source(case, family),
        f"ref = {out_name}",
        "",
        "print(explain(ours, ref))",
    ]
    if "dense mimic" in outcome.reason:
        lines += ["", "# the dense mimic (conformance.spec)",
                  f"{', '.join(names)} = operands(spec)",
                  spec_source(case, family), f"mimic = {out_name}",
                  "print(explain(ours, mimic))"]
    return "\n".join(lines) + "\n"
