"""The import graph of grblas_gpu (and of semirings, which it reaches through operators.py) has
no cycles, counting imports at module level and inside functions alike.

One kind of edge is declared and left out of the cycle check: a public method of a container
class (Matrix, Vector, TransposedMatrix) importing the operation it runs, inside the method's
body (``from .operations import mxv`` in ``Matrix.mxv``). The operations build and test
containers, so they sit above them; a method is the public API's door into them, one call
deep. The test checks that such imports are only inside functions of those modules.
"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
# folder -> the package it installs as (semirings/ is grblas_gpu.semirings)
PACKAGES = {"grblas_gpu": "grblas_gpu", "semirings": "grblas_gpu.semirings"}
CONTAINERS = ("grblas_gpu.matrix", "grblas_gpu.vector", "grblas_gpu.transposed",
              "grblas_gpu.methods")


def _modules():
    mods = {}
    for folder, pkg in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = pkg.split(".") + list(path.relative_to(ROOT / folder).with_suffix("").parts)
            is_pkg = parts[-1] == "__init__"
            mods[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return mods


def _known(name, mods):
    """The innermost module of ours that ``name`` lies in (None: not ours)."""
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def _targets(node, module, is_pkg, mods):
    if isinstance(node, ast.Import):
        return [t for t in (_known(a.name, mods) for a in node.names) if t]
    if node.level:
        base = module.split(".") if is_pkg else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module
    out = []
    for alias in node.names:  # ``from pkg import mod`` imports the submodule
        sub = f"{target}.{alias.name}"
        out.append(sub if sub in mods else _known(target, mods))
    return [t for t in out if t]


def _imports(mods):
    """{module: {(imported module, at module level?)}}."""
    graph = {}
    for module, (path, is_pkg) in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        nested = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                nested.update(id(n) for n in ast.walk(fn) if n is not fn)
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for t in _targets(node, module, is_pkg, mods):
                    if t != module:
                        edges.add((t, id(node) not in nested))
        graph[module] = edges
    return graph


def _is_method_door(src, dst, top_level):
    return src in CONTAINERS and dst.startswith("grblas_gpu.operations") and not top_level


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    mods = _modules()
    graph = {m: {t for t, top in edges if not _is_method_door(m, t, top)}
             for m, edges in _imports(mods).items()}
    assert _cycles(graph) == []


def test_containers_reach_operations_only_inside_methods():
    imports = _imports(_modules())
    for module in CONTAINERS:
        top = sorted(t for t, at_top in imports[module]
                     if at_top and t.startswith("grblas_gpu.operations"))
        assert top == [], (module, top)


# layers above the public API (users of grblas_gpu, as algorithms/ is): free to name operators
ABOVE_THE_API = ("grblas_gpu.distributed", "grblas_gpu.nxbackend")


def test_only_operators_imports_semirings():
    """Within the engine; the layers above the public API use semirings as any user does."""
    importers = sorted(m for m, edges in _imports(_modules()).items()
                       if not m.startswith("grblas_gpu.semirings")
                       and not m.startswith(ABOVE_THE_API)
                       and any(t == "grblas_gpu.semirings" or t.startswith("grblas_gpu.semirings.")
                               for t, _ in edges))
    assert importers == ["grblas_gpu.operators"]


def test_the_check_sees_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
