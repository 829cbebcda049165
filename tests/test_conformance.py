"""The conformance harness itself: its report, its exit codes, and that it can fail.

A harness that never fails proves nothing, so grblas_gpu functions are replaced here by a
correct stand-in (built on python-graphblas) and by deliberately wrong ones; the first must
pass, the second must be reported with a reproducer that, pasted and run, shows the error.
Everything runs the "tiny" plan (a few dozen cases per operation, seconds).
"""
import contextlib
import io
import json

import pytest

from conftest import lagraph_file

import grblas_gpu as gg
from grblas_gpu.conformance.cases import FAMILIES, Plan, enumerate_cases
from grblas_gpu.conformance.cli import main
from grblas_gpu.conformance.runner import run


def _main(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(list(argv))
    return rc, out.getvalue()


def test_list_prints_cases_without_running(capsys):
    assert main(["--tiny", "--ops", "mxm", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(" mxm " in line for line in lines)


def test_bad_arguments_exit_2():
    assert main(["--ops", "no_such_operation"]) == 2
    assert main(["--types", "COMPLEX128"]) == 2


def test_every_operation_is_enumerated():
    ops = {c.op for c in enumerate_cases(Plan(mode="tiny"))}
    assert {"mxm", "mxv", "vxm", "ewise_add", "ewise_mult", "ewise_union", "apply", "select",
            "reduce_rowwise", "reduce_scalar", "transpose", "kronecker", "extract", "assign",
            "subassign"} <= ops


def test_types_filter():
    cases = enumerate_cases(Plan(mode="tiny", types=("INT32",)), ["mxm"])
    assert cases and all(c.p("type") in (None, "INT32") for c in cases)


def test_report_and_json_agree_with_exit_code(tmp_path):
    path = tmp_path / "out.json"
    rc, text = _main("--tiny", "--ops", "mxv,reduce_scalar,transpose", "--json", str(path))
    doc = json.loads(path.read_text())
    statuses = [c["status"] for c in doc["cases"]]
    assert rc == (1 if "failed" in statuses else 0)
    assert set(doc["summary"]) == {"mxv", "reduce_scalar", "transpose"}
    for op, s in doc["summary"].items():
        assert s["cases"] == s["passed"] + s["failed"] + s["skipped"]
        assert f"{op:<16}{s['cases']:>7}" in text
    assert all(c["reason"] for c in doc["cases"] if c["status"] == "skipped")


# ---------------------------------------------------------------------- stand-ins
def _transpose_via_graphblas(C, A, *, mask=None, accum=None, desc=None):
    """A correct transpose: python-graphblas computes it, the result is copied into C."""
    import graphblas as gb

    from grblas_gpu.descriptor import as_descriptor, resolve_mask
    from grblas_gpu.mask import materialize

    d = as_descriptor(desc)
    m = materialize(resolve_mask(mask, d), gg.Matrix, C.shape)  # C⟨!NULL⟩: an empty mask
    Cg, Ag, kw = C.to_graphblas(), A.to_graphblas(), {}
    if m is not None:
        Mg = m.parent.to_graphblas()
        kw["mask"] = Mg.S if m.structure else Mg.V
        if m.complement:
            kw["mask"] = ~kw["mask"]
        kw["replace"] = d.replace
    if accum is not None:
        kw["accum"] = getattr(gb.binary, accum.name)
    Cg(**kw) << (Ag if d.transpose_first else Ag.T)
    C._swap_in(gg.Matrix.from_graphblas(Cg))
    return C


def test_a_correct_implementation_passes(monkeypatch):
    monkeypatch.setattr(gg, "transpose", _transpose_via_graphblas)
    rc, text = _main("--tiny", "--ops", "transpose")
    assert rc == 0, text
    outcomes = run(enumerate_cases(Plan(mode="tiny"), ["transpose"]))
    assert {o.status for o in outcomes} <= {"passed", "skipped"}
    assert sum(o.status == "passed" for o in outcomes) >= 5


def _drops_an_entry(real):
    """mxm that forgets one entry of its result: the harness must notice."""
    def wrong(C, *args, **kw):
        real(C, *args, **kw)
        if C.nvals:
            rows, cols, _ = C.to_coo()
            del C[int(rows[-1]), int(cols[-1])]
        return C
    return wrong


def test_a_wrong_implementation_fails_with_a_reproducer(monkeypatch, capsys):
    monkeypatch.setattr(gg, "mxm", _drops_an_entry(gg.mxm))
    cases = [c for c in enumerate_cases(Plan(mode="tiny"), ["mxm"]) if c.operands][:12]
    outcomes = run(cases)
    failed = [o for o in outcomes if o.status == "failed"]
    assert failed, [o.reason for o in outcomes]
    o = failed[0]
    assert "grblas_gpu vs python-graphblas" in o.reason
    src = o.reproducer
    for piece in ("Matrix.from_coo(", "gg.mxm(C, A, B", ".mxm(B, gb.semiring.",
                  "explain(ours, ref)"):
        assert piece in src, src
    # the shrinker keeps the failing operands small
    assert sum(d.nvals for d in o.datas.values()) <= 6, o.datas
    # pasted and run (grblas_gpu still wrong), it shows the difference
    exec(compile(src, "<reproducer>", "exec"), {})
    shown = capsys.readouterr().out
    assert "ours" in shown and "reference" in shown and "-" in shown.splitlines()[1]


def test_the_cli_exits_1_on_failure(monkeypatch):
    monkeypatch.setattr(gg, "mxm", _drops_an_entry(gg.mxm))
    rc, text = _main("--tiny", "--ops", "mxm", "--no-shrink", "--max-reproducers", "1")
    assert rc == 1
    assert "FAILED" in text and "reproducer for" in text


def test_a_missing_operation_is_skipped_not_passed(monkeypatch):
    monkeypatch.delattr(gg, "kronecker")
    outcomes = run(enumerate_cases(Plan(mode="tiny"), ["kronecker"]))
    assert outcomes and all(o.status == "skipped" for o in outcomes)
    assert any(o.reason == "not implemented in grblas_gpu" for o in outcomes)


@pytest.mark.parametrize("name", ["bfs", "triangle_count"])
def test_algorithm_checks_can_fail(monkeypatch, name):
    from grblas_gpu import algorithms

    lagraph_file("karate.mtx")  # skips without LAGraph's data
    fam = FAMILIES[name]
    cases = [c for c in fam.cases(Plan(mode="tiny")) if "karate" in c.operand("A").file][:1]
    assert cases
    assert run(cases)[0].status == "passed"
    if name == "bfs":
        real = algorithms.bfs
        monkeypatch.setattr(algorithms, "bfs", lambda A, s: (lambda d, p: (d + 1, p))(*real(A, s)))
    else:
        monkeypatch.setattr(algorithms, "triangle_count", lambda A: 44)
    o = run(cases)[0]
    assert o.status == "failed" and o.reproducer


def test_build_and_reduce_binary_families_pass_and_can_fail(monkeypatch):
    """Builds with every binary dup_op and reductions with every binary operator agree with
    python-graphblas; a build that folds duplicates right to left fails, with a reproducer that
    rebuilds the case."""
    cases = enumerate_cases(Plan(mode="tiny"), ["build", "reduce_binary"])
    assert {c.op for c in cases} == {"build", "reduce_binary"}
    outs = run(cases, shrink=False)
    assert [o.reason for o in outs if o.status == "failed"] == []
    assert sum(o.status == "passed" for o in outs) >= 20

    from grblas_gpu.kernels import segment

    left = segment.segment_fold_left

    def right_to_left(values, starts, typed):  # each segment's values mirrored, then folded
        xp = gg.backend.xp
        n = len(values)
        ends = xp.concatenate([starts[1:], xp.asarray([n], dtype=starts.dtype)])
        seg = xp.searchsorted(starts, xp.arange(n), side="right") - 1
        return left(values[ends[seg] - 1 - (xp.arange(n) - starts[seg])], starts, typed)

    monkeypatch.setattr(segment, "segment_fold_left", right_to_left)
    bad = [o for o in run(enumerate_cases(Plan(mode="tiny"), ["build"]), shrink=False)
           if o.status == "failed"]
    assert bad and any("minus" in o.case.label or "pow" in o.case.label for o in bad)
    assert "from_coo(" in bad[0].reproducer and "dup_op=" in bad[0].reproducer


def test_components_and_betweenness_checks_catch_wrong_answers():
    """The networkx checks of the conformance suite's connected components and betweenness
    pass the right answer and fail a wrong one (0 -> 1 -> 2, vertex 3 alone)."""
    import types

    import networkx as nx
    import numpy as np

    from grblas_gpu.conformance.algorithms import Betweenness, ConnectedComponents

    G = nx.DiGraph()
    G.add_nodes_from(range(4))
    G.add_edges_from([(0, 1), (1, 2)])
    d = types.SimpleNamespace(shape=(4, 4))
    assert ConnectedComponents().check(np.array([0, 0, 0, 3]), G, d, None)[0] == "passed"
    assert ConnectedComponents().check(np.array([0, 0, 1, 3]), G, d, None)[0] == "failed"
    assert Betweenness().check(np.array([0.0, 1.0, 0.0, 0.0]), G, d, 0)[0] == "passed"
    assert Betweenness().check(np.array([0.0, 1.5, 0.0, 0.0]), G, d, 0)[0] == "failed"
