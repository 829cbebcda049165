"""Cases: one operation call, fully described (operation, parameters, operands, seed).

A ``Case`` is a frozen, printable record; ``case.label`` is its one-line name (what --list
prints and what the report names). Operation families (``conformance.families``) register
here and enumerate their cases from a ``Plan`` (quick or full, seed, type filter).

Enumeration is a union of small products rather than one huge product, so that every value
of every axis is exercised and the important interactions are exhaustive:

1. operators: every (operator, type) pair (quick: every operator once, types rotating, and
   for semirings a set covering every monoid and multiply; mxm on the CPU: every pair);
2. output configurations: mask (none, value, structural, complemented) x accum x replace,
   crossed with the descriptor's input flags (quick: the first product, flags sampled);
3. operands: every shape / density of each input (empty, one entry, hypersparse 2**40,
   sparse, half, full, rectangular, 1x1, medium, vectors in grblas_gpu's dense form, and
   large ones with a heavy row, past the GPU kernels' thresholds);
4. the descriptor's mask fields with no mask (C⟨!NULL⟩ under GrB_DESC_C / GrB_DESC_RC,
   GrB_DESC_S alone), C of another type than the result, inputs of two types, one invalid
   call (both libraries must raise, and grblas_gpu must leave its output alone), family
   extras (every mxm method with each request sequence; request buffers that alias, which
   grblas_gpu must reject changing nothing: "misuse");
5. LAGraph files as operands (quick: up to 5000 entries);
6. every third case of block 2 also checked against the dense mimic (conformance.spec).
"""
import hashlib
import zlib
from dataclasses import dataclass

import numpy as np

from .operands import HUGE, Operand

__all__ = ["Case", "Plan", "Family", "FAMILIES", "register", "enumerate_cases", "MASKS",
           "UnknownOperation", "check_operations"]

MASKS = ("none", "V", "S", "~V", "~S")
FLAGS = ("t0", "t1", "s0", "s1", "replace")  # descriptor flags: shown by name when set
FILLS = ("empty", "one", "few", "sparse", "half", "full")


@dataclass(frozen=True)
class Case:
    op: str                 # family name, e.g. "mxm"
    params: tuple           # sorted ((key, value), ...)
    operands: tuple         # ((name, Operand), ...) in call order; the output first
    seed: int
    tags: tuple = ()        # "spec": also compare with the dense mimic; "lagraph"; "huge";
                            # "invalid"; "misuse" (runner._misuse_verdict)

    def p(self, key, default=None):
        for k, v in self.params:
            if k == key:
                return v
        return default

    def operand(self, name):
        return dict(self.operands).get(name)

    def with_param(self, **kw):
        return Case(self.op, tuple(sorted(dict(self.params, **kw).items())), self.operands,
                    self.seed, self.tags)

    @property
    def label(self):
        skip = {"type", "operator", "form"}
        parts = [self.op, self.p("form") or "", self.p("operator") or "", self.p("type") or ""]
        for k, v in self.params:
            if k in skip or v is None or v == "none" or (k, v) == ("mask_via", "object"):
                continue
            if k in FLAGS:
                parts += [k] if v else []
            else:
                parts.append(f"{k}={v}")
        parts += [f"{n}={o.label}" for n, o in self.operands]
        return " ".join(p for p in parts if p)

    @property
    def key(self):
        """A short stable hash of the case (names the case in JSON and tests)."""
        text = repr((self.op, self.params, self.operands, self.seed))
        return hashlib.sha1(text.encode()).hexdigest()[:10]


@dataclass
class Plan:
    """What to enumerate: ``mode`` is 'quick', 'full' or 'tiny' (the test suite's)."""

    mode: str = "quick"
    seed: int = 0
    types: tuple = None          # keep only cases at these input types (None: all)
    lagraph_max_nvals: int = None

    def __post_init__(self):
        if self.lagraph_max_nvals is None:
            self.lagraph_max_nvals = {"full": None, "quick": 5000, "tiny": 0}[self.mode]

    @property
    def full(self):
        return self.mode == "full"

    def rng(self, *salt):
        return np.random.default_rng([self.seed, zlib.crc32(repr(salt).encode())])

    def seed_for(self, *salt):
        return int(self.rng(*salt).integers(2**31))

    def sample(self, items, k, *salt):
        """Everything in full mode; else k items (all when fewer), chosen by the seed."""
        items = list(items)
        if self.full or len(items) <= k:
            return items
        idx = self.rng("sample", *salt).choice(len(items), size=k, replace=False)
        return [items[i] for i in sorted(idx)]

    def keeps_type(self, case):
        t = case.p("type")
        return self.types is None or t is None or t in self.types


class Family:
    """One operation: how to enumerate its cases and call grblas_gpu. Subclasses set
    ``name``, ``function`` (the grblas_gpu attribute that must exist), ``output`` (the output
    operand's name) and implement ``cases`` and ``gpu_source``; the python-graphblas side is
    in ``conformance.reference``."""

    name = None
    function = None
    output = "C"

    def cases(self, plan):
        raise NotImplementedError

    def gpu_source(self, case):
        raise NotImplementedError

    def nterms(self, case, data):
        """How many values may be combined into one output entry (scales float tolerance)."""
        return 2

    def available(self):
        import grblas_gpu

        return getattr(grblas_gpu, self.function, None) is not None

    def for_case(self, case):
        """The family object that runs this case (a form, for families with several)."""
        return self


FAMILIES = {}


class UnknownOperation(ValueError):
    """--ops named an operation no family implements."""


def register(cls):
    FAMILIES[cls.name] = cls()
    return cls


def check_operations(ops):
    """The named families (all when None); an unknown name raises UnknownOperation."""
    names = list(FAMILIES) if not ops else list(ops)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise UnknownOperation(f"unknown operation(s): {', '.join(unknown)}; "
                               f"known: {', '.join(FAMILIES)}")
    return names


def enumerate_cases(plan, ops=None):
    """Every case of the plan, for the named families (all when None), in a stable order."""
    from . import families  # noqa: F401  (registers them)

    names = check_operations(ops)
    out, seen = [], set()
    for n in names:
        for case in FAMILIES[n].cases(plan):
            if plan.keeps_type(case) and case.key not in seen:
                seen.add(case.key)
                out.append(case)
    return out


# ---------------------------------------------------------------------- helpers for families
def params(**kw):
    return tuple(sorted(kw.items()))


def operand(kind, shape, dtype, fill, seed, file=None, domain=None):
    """An Operand; ``fill`` may carry a storage: "half:dense"."""
    fill, _, storage = fill.partition(":")
    storage = storage if storage and kind == "vector" else None  # matrices have one form
    return Operand(kind, tuple(int(d) for d in shape), dtype, fill, int(seed), file, domain,
                   storage)


def layouts(plan, dims, inputs, salt, huge=HUGE, medium=(30, 60), large=(1000, 2500)):
    """[(tag, {dim: size}, {operand: fill})]: the operand shapes/densities a family runs on.
    ``dims``: names of the free dimensions; ``inputs``: names of the input operands. A fill
    "F:dense" asks for a grblas_gpu Vector in dense form (matrices ignore it); "*" names
    every operand, the output and the mask included."""
    rng = plan.rng("layouts", salt)
    small = lambda: {d: int(rng.integers(3, 9)) for d in dims}  # noqa: E731
    out = [("small", small(), {i: "half" for i in inputs})]
    for i in inputs:  # every density of each input, the others half full
        for f in FILLS:
            fills = {j: "half" for j in inputs}
            fills[i] = f
            out.append((f"{i}:{f}", small(), fills))
    rect = {d: s for d, s in zip(dims, (2, 9, 5, 7, 3)[:len(dims)])}
    out.append(("rectangular", rect, {i: "sparse" for i in inputs}))
    out.append(("1x1", {d: 1 for d in dims}, {i: "full" for i in inputs}))
    out.append(("huge", {d: huge for d in dims}, {i: "few" for i in inputs}))
    out.append(("medium", {d: int(rng.integers(*medium)) for d in dims},
                {i: "sparse" for i in inputs}))
    out.append(("dense-vectors", small(), {"*": "half:dense"}))
    if large:  # past the GPU kernels' thresholds (block sizes, heavy rows, dense switches)
        out.append(("large", {d: int(rng.integers(*large)) for d in dims},
                    {i: "skewed" for i in inputs}))
    return out


def configs(plan, flags, salt, accums=("plus", "min", "minus", "second")):
    """Output configurations: dicts of mask, mask_via, accum, replace and descriptor flags.
    Always the full mask x accum x replace product; the flags crossed with it in full mode,
    one flag set drawn per configuration in quick mode (and each flag alone once)."""
    rng = plan.rng("configs", salt)
    flag_sets = [{f: bool(b) for f, b in zip(flags, bits)}
                 for bits in np.ndindex(*(2,) * len(flags))]
    out = []
    for mask in MASKS:
        for accum in (None,) + tuple(accums):
            for replace in (False, True):
                chosen = flag_sets if plan.full else [flag_sets[int(rng.integers(len(flag_sets)))]]
                for fs in chosen:
                    via = "desc" if mask != "none" and rng.random() < 0.3 else "object"
                    out.append(dict(mask=mask, mask_via=via, accum=accum, replace=replace, **fs))
    if not plan.full:  # and every flag on at least once
        for f in flags:
            out.append(dict(mask="none", mask_via="object", accum=None, replace=False,
                            **{g: g == f for g in flags}))
    return out


def cover(names_types, plan, salt, groups=None, k=None):
    """(name, type) pairs to test. Full: every pair. Otherwise each name is taken when it
    brings a group value not yet covered (``groups(name)`` -> values such as its monoid and
    multiply), or all names when ``groups`` is None, each at one type, rotating through types
    so that every type appears; ``k`` caps the count."""
    if plan.full:
        return [(n, t) for n, types in names_types for t in types]
    rng = plan.rng("cover", salt)
    order = list(range(len(names_types)))
    rng.shuffle(order)
    chosen, covered = [], set()
    for i in order:
        n, types = names_types[i]
        if groups is not None:
            new = set(groups(n)) - covered
            if not new:
                continue
            covered |= new
        chosen.append((n, types))
    if k is not None:
        chosen = chosen[:k]
    out, seen_types = [], set()
    for j, (n, types) in enumerate(sorted(chosen)):
        fresh = [t for t in types if t not in seen_types]
        t = (fresh or types)[int(rng.integers(len(fresh or types)))]
        seen_types.add(t)
        out.append((n, t))
    return out
