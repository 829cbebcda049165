"""Layering: algorithms/ (and the networkx backend above it) uses only grblas_gpu's public
API (docs/design.md: arrows point one way; LAGraph's algorithms call only GraphBLAS and
documented GxB extensions).

Every module in algorithms/ is parsed with ``ast`` (nothing is imported) and fails on:
- an import of a private engine module or of an internal package (``grblas_gpu._x``,
  ``grblas_gpu.kernels``, ``from grblas_gpu import _x``);
- a private attribute read through a name bound to the engine (``gg._x``, ``backend._x``,
  ``Matrix._from_csr``);
- a private attribute of an engine class on any object (``A._csr()``, ``v._sparse()``,
  ``A._indices``): the names are taken from the public classes themselves, so an algorithm's
  own private helpers and fields (``_topology._tag``, ``descr._ids``) pass unless they reuse
  one of them.
"""
import ast
import inspect
import pathlib

import pytest

import grblas_gpu as gg

ROOT = pathlib.Path(__file__).resolve().parents[1]
# the networkx backend sits above algorithms/; the distributed layer above the public API
CHECKED_DIRS = ["algorithms", "grblas_gpu/nxbackend", "grblas_gpu/distributed"]
ENGINE = "grblas_gpu"
INTERNAL_PACKAGES = {"kernels"}  # engine packages that are implementation, not API
# packages installed under the grblas_gpu namespace that are users of the engine, not it
USER_PACKAGES = {"algorithms", "semirings", "conformance", "benchmarks", "distributed"}


def _engine_module(dotted):
    parts = dotted.split(".")
    return parts[0] == ENGINE and not (len(parts) > 1 and parts[1] in USER_PACKAGES)

# namedtuple's documented API carries an underscore: never engine-private
_NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}


def _engine_classes():
    from grblas_gpu.transposed import TransposedMatrix

    found = {TransposedMatrix}
    for mod in [gg] + [m for m in vars(gg).values() if inspect.ismodule(m)]:
        for obj in vars(mod).values():
            # (a user package imported earlier, grblas_gpu.distributed say, is a module of
            # gg too: its classes are not the engine's)
            if inspect.isclass(obj) and _engine_module(getattr(obj, "__module__", "")):
                found.add(obj)
    return found


def engine_private_names():
    """The private attribute names (one leading underscore) of the engine's public classes."""
    names = set()
    for cls in _engine_classes():
        for klass in cls.__mro__:
            if not _engine_module(getattr(klass, "__module__", "")):
                continue
            names.update(vars(klass))
            names.update(getattr(klass, "__slots__", ()))
    return {n for n in names if n.startswith("_") and not n.startswith("__")} - _NAMEDTUPLE_API


def _private(part):
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _bad_module(dotted):
    """Why importing grblas_gpu module ``dotted`` breaks the layering, or None."""
    parts = dotted.split(".")
    if not _engine_module(dotted):
        return None
    for p in parts[1:]:
        if _private(p) or p in INTERNAL_PACKAGES:
            return f"imports {dotted}"
    return None


def _root_name(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def violations(source, private_names):
    """(line, what) for each use of the engine past its public API in ``source``."""
    tree = ast.parse(source)
    bound = set()  # local names bound to the engine or to something imported from it
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _engine_module(alias.name):
                    bound.add(alias.asname or ENGINE)
                    if (why := _bad_module(alias.name)):
                        found.append((node.lineno, why))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and _engine_module(node.module):
            why = _bad_module(node.module)
            for alias in node.names:
                if node.module == ENGINE and alias.name in USER_PACKAGES:
                    continue
                bound.add(alias.asname or alias.name)
                why = why or _bad_module(f"{node.module}.{alias.name}")
            if why:
                found.append((node.lineno, why))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        if _root_name(node) in bound:
            found.append((node.lineno, f"reads {ast.unparse(node)} (an engine-private name)"))
        elif node.attr in private_names:
            found.append((node.lineno, f"reads .{node.attr} (a private attribute of an engine "
                                       f"class) in {ast.unparse(node)}"))
    return sorted(set(found))


def _modules():
    return sorted(str(p.relative_to(ROOT)) for d in CHECKED_DIRS for p in (ROOT / d).rglob("*.py"))


def _violations_of(rel):
    return violations((ROOT / rel).read_text(), engine_private_names())


@pytest.mark.parametrize("rel", _modules())
def test_module_uses_only_the_public_api(rel):
    found = _violations_of(rel)
    assert not found, f"{rel} reaches past grblas_gpu's public API:\n" + \
        "\n".join(f"  line {line}: {what}" for line, what in found)


def test_the_checker_catches_each_kind_of_violation():
    names = engine_private_names()
    assert {"_csr", "_rows", "_indices", "_sparse", "_from_sparse"} <= names
    bad = """
import grblas_gpu.kernels.sampling
from grblas_gpu.kernels import sampling as rk
from grblas_gpu import _validate, kernels
from grblas_gpu._buffers import set_csr
import grblas_gpu as gg
from grblas_gpu import Vector, backend
gg._core
backend._Staging
Vector._from_sparse(1, 2, 3, 4)
A._csr()
v._sparse()[0]
"""
    lines = [line for line, _ in violations(bad, names)]
    assert lines == [2, 3, 4, 5, 8, 9, 10, 11, 12], violations(bad, names)
    good = """
import grblas_gpu as gg
from grblas_gpu import backend, sampling
from grblas_gpu.errors import InvalidValue
from . import topology as _topology
_topology._tag(1)
descr._ids.to_csr(device=True)
e._replace(src=1)
gg.sampling.stream_key(1, 2)
"""
    assert violations(good, names) == []
