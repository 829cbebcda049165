"""Products: mxm (with methods and multi-stage requests), mxv, vxm, kronecker.

    mxm        C⟨M⟩ = accum(C, op(A) ⊕.⊗ op(B))       A: m x k, B: k x n (as seen)
    mxv        w⟨m⟩ = accum(w, op(A) ⊕.⊗ u)
    vxm        w⟨m⟩ = accum(w, u ⊕.⊗ op(A))
    kronecker  C⟨M⟩ = accum(C, kron(op(A), op(B)))    with a binary operator
"""
from ..cases import register
from ..operands import data
from ._common import OutputFamily

REQUESTS = ("two_stage", "overlapping_buffers")  # the second: stage 2 misused first
METHODS = ("auto", "dot", "gustavson", "hash")
SEMIRING_REPS = ("plus_times", "min_plus", "any_pair", "lor_land", "max_second", "plus_pair",
                 "min_first", "max_min", "any_second", "plus_min")


# C⟨!NULL⟩ (no mask, GrB_DESC_C / GrB_DESC_RC) through the requests: FILL_NNZ counts C's
# own entries (or none), FILL_ENTRIES copies them
_NULL_MASK_REQUESTS = (
    dict(mask="~S", mask_via="null", accum="plus", replace=False),
    dict(mask="~V", mask_via="null", accum=None, replace=True),
)


def _t(shape, transposed):
    return tuple(reversed(shape)) if transposed else tuple(shape)


def _nnz_bound(case, name):
    op = case.operand(name)
    return data(op).nvals if op is not None else 0


@register
class Mxm(OutputFamily):
    name = "mxm"
    function = "mxm"
    reps = SEMIRING_REPS
    spec = True
    quick_every_pair = True  # the headline operation: every semiring at every type

    def shapes(self, p, d):
        return {"C": ("matrix", (d["m"], d["n"])),
                "A": ("matrix", _t((d["m"], d["k"]), p.get("t0"))),
                "B": ("matrix", _t((d["k"], d["n"]), p.get("t1")))}

    def call(self, case, op, kw):
        extra = ""
        if case.p("method", "auto") != "auto":
            extra += f", method=gg.Method.{case.p('method').upper()}"
        if case.p("request") in REQUESTS:
            return _two_stage(op, kw + extra, case.p("request") == "overlapping_buffers")
        if case.p("request") in MATRIX_ALIASES:
            return _aliased_stages(case.p("request"), op, kw + extra)
        return f"gg.mxm(C, A, B, {op}{kw}{extra})"

    def lagraph_layout(self, shape):
        r, c = shape
        if r == c:  # A ⊕.⊗ A
            return {"m": r, "k": r, "n": r}, {"A": "file", "B": "file"}, {}
        return {"m": r, "k": c, "n": r}, {"A": "file", "B": "file"}, {"t1": True}  # A ⊕.⊗ A'

    def extras(self, plan):
        """Every method with each request sequence; each must equal python-graphblas's plain
        result (the reference does not know about methods or stages)."""
        rng = plan.rng(self.name, "extras")
        testable = [(n, ts) for n, ts in ((n, self._types(n)) for n in self.reps) if ts]
        reps = self.rep_pairs(testable, plan)
        if not reps:
            return []
        plain = dict(mask="none", mask_via="object", accum=None, replace=False)
        cfgs = [plain, dict(plain, mask="~S"), dict(plain, mask="V", replace=True),
                dict(plain, accum="plus"), dict(plain, t0=True), dict(plain, t1=True, mask="S"),
                *_NULL_MASK_REQUESTS]
        if plan.mode == "tiny":
            cfgs = cfgs[:2]
        lays = self.layouts(plan)
        lays = lays if plan.full else [lays[0], lays[-1]]
        out = []
        i = 0
        for method in METHODS:
            for request in ("all", "two_stage"):
                if method == "auto" and request == "all":
                    continue  # that is every other case
                for cfg in cfgs:
                    for lay in lays:
                        n, t = reps[i % len(reps)]
                        i += 1
                        extra = {"method": method, "request": request}
                        out.append(self.make(plan, n, t, cfg, lay, rng, extra=extra))
        out += _alias_cases(self, plan, MATRIX_ALIASES, reps)
        return out

    def _types(self, name):
        from .. import catalog

        types, why = catalog.types_for("semiring", name)
        return [] if why else types

    def nterms(self, case, data_):
        k = case.operand("A").shape[0 if case.p("t0") else 1]
        terms = min(k, _nnz_bound(case, "A"), _nnz_bound(case, "B"))
        return terms + 1 + (1 if case.p("accum") else 0)


def _overlapping(out, attach, call):
    """Stage 2 tried first with index and value buffers that are views of one array (the
    caller's mistake): InvalidValue, changing nothing, so that the proper stage 2 still
    completes the request (accepted, it corrupts the entries and the proper stage 2 then
    finds no request pending)."""
    return [
        "# stage 2 misused: indices and values share memory (must raise InvalidValue)",
        f"if {out}.nvals:",
        f"    shared = gg.backend.xp.zeros({out}.nvals * 8, dtype=np.uint8)",
        f"    size = {out}.nvals * np.dtype({out}.dtype.np_type).itemsize",
        "    try:",
        f"        {attach.format('shared.view(np.int64)', f'shared[:size].view({out}.dtype.np_type)')}",
        f"        {call}",
        "    except gg.InvalidValue:",
        "        pass"]


def _two_stage(op, kw, overlap=False):
    """oneMKL's two-stage sequence: FILL_NNZ computes C's row pointers into a buffer the caller
    set, then the caller sizes C's indices and values and FILL_ENTRIES fills them."""
    xp = "gg.backend.xp"
    fill = f"gg.mxm(C, A, B, {op}{kw}, request=gg.Request.FILL_ENTRIES)"
    misuse = _overlapping("C", "C.set_csr(indptr=indptr, indices={}, values={})", fill)
    return "\n".join([
        "# stage 1: row pointers only (oneMKL's MKL_GRAPH_REQUEST_FILL_NNZ)",
        f"indptr = {xp}.zeros(C.nrows + 1, dtype=np.int64)",
        "C.set_csr(indptr=indptr)",
        f"gg.mxm(C, A, B, {op}{kw}, request=gg.Request.FILL_NNZ)",
        *(misuse if overlap else []),
        "# stage 2: the caller allocates nvals indices and values, then FILL_ENTRIES",
        f"indices = {xp}.zeros(C.nvals, dtype=np.int64)",
        f"values = {xp}.zeros(C.nvals, dtype=C.dtype.np_type)",
        "C.set_csr(indptr=indptr, indices=indices, values=values)",
        fill,
    ])


# caller buffers that share memory (misuse: grblas_gpu must raise InvalidValue, changing
# neither the output nor the buffers; runner's "misuse" verdict): indices and values in one
# allocation, indices over the offsets, the offsets in an operand's (A's) or the output's own
# storage
MATRIX_ALIASES = ("alias_ind_val", "alias_ptr_ind", "alias_operand", "alias_output")
VECTOR_ALIASES = ("alias_ind_val",)


def _one_allocation(n, dtype):
    """Source text: two buffers of n int64 indices and n values of ``dtype`` (text) carved
    from one byte allocation, the values starting 8 bytes in: they overlap when n > 0."""
    xp = "gg.backend.xp"
    return [f"raw = {xp}.zeros({n} * 8 + 8 * {dtype}.itemsize + 8, dtype=np.uint8)",
            f"indices = raw[:{n} * 8].view(np.int64)",
            f"values = raw[8:8 + {n} * {dtype}.itemsize].view({dtype})"]


def _aliased_stages(kind, op, kw):
    """The two-stage sequence of _two_stage with aliasing buffers; ``buffers`` and their
    copies ``before`` are taken just before the call that must raise."""
    xp = "gg.backend.xp"
    call = f"gg.mxm(C, A, B, {op}{kw}, request=gg.Request.{{}})"
    if kind in ("alias_operand", "alias_output"):
        owner = "A" if kind == "alias_operand" else "C"
        lines = [f"indptr = {owner}.get_csr()[0]  # {owner}'s own row offsets",
                 "buffers = [indptr]", "before = [b.copy() for b in buffers]"]
        if kind == "alias_operand":
            return "\n".join(lines + ["C.set_csr(indptr=indptr)", call.format("FILL_NNZ")])
        return "\n".join(lines + ["C.set_csr(indptr=indptr)"])
    lines = []
    if kind == "alias_ptr_ind":  # the indices start inside the offsets' allocation
        lines += [f"raw = {xp}.zeros((C.nrows + 1 + C.nrows * C.ncols) * 8, dtype=np.uint8)",
                  "indptr = raw[:(C.nrows + 1) * 8].view(np.int64)"]
    else:
        lines += [f"indptr = {xp}.zeros(C.nrows + 1, dtype=np.int64)"]
    lines += ["C.set_csr(indptr=indptr)", call.format("FILL_NNZ")]
    if kind == "alias_ptr_ind":
        lines += ["indices = raw[8:8 + C.nvals * 8].view(np.int64)",
                  f"values = {xp}.zeros(C.nvals, dtype=C.dtype.np_type)"]
    else:
        lines += _one_allocation("C.nvals", "C.dtype.np_type")
    return "\n".join(lines + ["buffers = [indptr, indices, values]",
                              "before = [b.copy() for b in buffers]",
                              "C.set_csr(indptr=indptr, indices=indices, values=values)",
                              call.format("FILL_ENTRIES")])


def _vector_aliased_stages(template, op, kw):
    """FILL_NNZ, then index and value buffers carved from one allocation."""
    return "\n".join([template.format(op, kw, "FILL_NNZ"),
                      *_one_allocation("w.nvals", "w.dtype.np_type"),
                      "buffers = [indices, values]", "before = [b.copy() for b in buffers]",
                      "w.set_sparse(indices, values)",
                      template.format(op, kw, "FILL_ENTRIES")])


def _alias_cases(family, plan, kinds, reps):
    """One misuse case per aliasing kind: no mask, A and u or B half full (the pending
    result is not empty: empty buffers cannot overlap)."""
    rng = plan.rng(family.name, "aliases")
    plain = dict(mask="none", mask_via="object", accum=None, replace=False)
    lay = family.layouts(plan)[0]
    return [family.make(plan, *reps[i % len(reps)], plain, lay, rng, extra={"request": kind},
                        tags=("misuse",)) for i, kind in enumerate(kinds)]


def _vector_two_stage(template, op, kw, overlap=False):
    """The two-stage sequence on a Vector output: FILL_NNZ sets w.nvals to the pending count,
    the caller attaches index and value buffers of that length, FILL_ENTRIES fills them."""
    xp = "gg.backend.xp"
    misuse = _overlapping("w", "w.set_sparse({}, {})", template.format(op, kw, "FILL_ENTRIES"))
    return "\n".join([
        "# stage 1: the count only (oneMKL's MKL_GRAPH_REQUEST_FILL_NNZ); w is unchanged",
        template.format(op, kw, "FILL_NNZ"),
        *(misuse if overlap else []),
        "# stage 2: the caller allocates nvals indices and values, then FILL_ENTRIES",
        f"indices = {xp}.zeros(w.nvals, dtype=np.int64)",
        f"values = {xp}.zeros(w.nvals, dtype=w.dtype.np_type)",
        "w.set_sparse(indices, values)",
        template.format(op, kw, "FILL_ENTRIES"),
    ])


def _vector_request_cases(family, plan):
    """mxv / vxm through FILL_NNZ then FILL_ENTRIES: each must equal python-graphblas's plain
    result. Full: every configuration on every layout; quick: each configuration once, on a
    layout that rotates (small, w in dense form, large)."""
    rng = plan.rng(family.name, "extras")
    testable = [(n, ts) for n, ts in ((n, family._types(n)) for n in family.reps) if ts]
    reps = family.rep_pairs(testable, plan)
    if not reps:
        return []
    plain = dict(mask="none", mask_via="object", accum=None, replace=False)
    tflag = family.flags[0]  # the transpose of A: t0 in mxv, t1 in vxm
    cfgs = [plain, dict(plain, mask="~S"), dict(plain, mask="V", replace=True),
            dict(plain, accum="plus"), dict(plain, **{tflag: True}),
            dict(plain, mask="S", mask_via="desc", accum="min", s0=True),
            dict(plain, mask="~V", replace=True, accum="second", s1=True), *_NULL_MASK_REQUESTS]
    if plan.mode == "tiny":
        cfgs = cfgs[:2]
    lays = family.layouts(plan)
    if not plan.full:
        by_tag = {lay[0]: lay for lay in lays}
        lays = [by_tag[t] for t in ("small", "dense-vectors", "large") if t in by_tag]
    out = []
    i = 0
    for j, cfg in enumerate(cfgs):
        for lay in (lays if plan.full else [lays[j % len(lays)]]):
            n, t = reps[i % len(reps)]
            i += 1
            tags = ("huge",) if lay[0] == "huge" else ()
            out.append(family.make(plan, n, t, cfg, lay, rng, extra={"request": "two_stage"},
                                   tags=tags))
    return out + _alias_cases(family, plan, VECTOR_ALIASES, reps)


@register
class Mxv(OutputFamily):
    name = "mxv"
    function = "mxv"
    output = "w"
    dims = ("m", "k")
    inputs = ("A", "u")
    flags = ("t0", "s0", "s1")
    reps = SEMIRING_REPS
    spec = True

    def shapes(self, p, d):
        return {"w": ("vector", (d["m"],)),
                "A": ("matrix", _t((d["m"], d["k"]), p.get("t0"))),
                "u": ("vector", (d["k"],))}

    def call(self, case, op, kw):
        if case.p("request") in REQUESTS:
            return _vector_two_stage("gg.mxv(w, A, u, {}{}, request=gg.Request.{})", op, kw,
                                     case.p("request") == "overlapping_buffers")
        if case.p("request") in VECTOR_ALIASES:
            return _vector_aliased_stages("gg.mxv(w, A, u, {}{}, request=gg.Request.{})", op, kw)
        return f"gg.mxv(w, A, u, {op}{kw})"

    def extras(self, plan):
        return _vector_request_cases(self, plan)

    def lagraph_layout(self, shape):
        return {"m": shape[0], "k": shape[1]}, {"A": "file", "u": "half"}, {}

    def nterms(self, case, data_):
        k = case.operand("u").shape[0]
        return min(k, _nnz_bound(case, "u")) + 1 + (1 if case.p("accum") else 0)

    _types = Mxm._types


@register
class Vxm(OutputFamily):
    name = "vxm"
    function = "vxm"
    output = "w"
    dims = ("m", "n")
    inputs = ("u", "A")
    flags = ("t1", "s0", "s1")
    reps = SEMIRING_REPS
    spec = True

    def shapes(self, p, d):
        return {"w": ("vector", (d["n"],)),
                "u": ("vector", (d["m"],)),
                "A": ("matrix", _t((d["m"], d["n"]), p.get("t1")))}

    def call(self, case, op, kw):
        if case.p("request") in REQUESTS:
            return _vector_two_stage("gg.vxm(w, u, A, {}{}, request=gg.Request.{})", op, kw,
                                     case.p("request") == "overlapping_buffers")
        if case.p("request") in VECTOR_ALIASES:
            return _vector_aliased_stages("gg.vxm(w, u, A, {}{}, request=gg.Request.{})", op, kw)
        return f"gg.vxm(w, u, A, {op}{kw})"

    def extras(self, plan):
        return _vector_request_cases(self, plan)

    def lagraph_layout(self, shape):
        return {"m": shape[0], "n": shape[1]}, {"A": "file", "u": "half"}, {}

    def nterms(self, case, data_):
        k = case.operand("u").shape[0]
        return min(k, _nnz_bound(case, "u")) + 1 + (1 if case.p("accum") else 0)

    _types = Mxm._types


@register
class Kronecker(OutputFamily):
    name = "kronecker"
    function = "kronecker"
    op_kind = "binary"
    dims = ("m1", "n1", "m2", "n2")
    flags = ("t0", "t1")
    reps = ("times", "plus", "first", "minus", "lor", "second", "max", "pair")
    huge = 2**20      # C is huge**2 = 2**40 on a side
    medium = (5, 9)   # C holds (density * medium**2)**2 entries
    large = None      # C would hold millions

    def shapes(self, p, d):
        return {"C": ("matrix", (d["m1"] * d["m2"], d["n1"] * d["n2"])),
                "A": ("matrix", _t((d["m1"], d["n1"]), p.get("t0"))),
                "B": ("matrix", _t((d["m2"], d["n2"]), p.get("t1")))}

    def call(self, case, op, kw):
        return f"gg.kronecker(C, A, B, {op}{kw})"

    def op_groups(self, name):
        return [name]
