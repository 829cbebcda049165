"""The installed package takes one import name, grblas_gpu (and _nx_grblas_gpu, networkx's
entry to its backend information, as nx-cugraph's _nx_cugraph): algorithms/, semirings/ and
conformance/ install as grblas_gpu.algorithms, .semirings and .conformance, so installing
grblas-gpu beside distributions named algorithms, semirings or conformance clobbers nothing,
and no code of ours imports them by their top-level folder names."""
import ast
import importlib.util
import pathlib
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FOLDERS = ("algorithms", "semirings", "conformance", "benchmarks")
SKIP = {".git", ".venv", ".gpu", ".base", ".whl", ".lagraph", "build", "__pycache__"}


def _sources():
    for path in ROOT.rglob("*.py"):
        if not SKIP & set(path.relative_to(ROOT).parts):
            yield path


def _top_level_imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.split(".")[0] in FOLDERS)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in FOLDERS:
            yield node.module


def test_no_module_imports_a_folder_by_its_top_level_name():
    # (the same module under two names would be two modules: two operator registries)
    found = [(str(p.relative_to(ROOT)), name) for p in _sources()
             for name in _top_level_imports(ast.parse(p.read_text(), str(p)))]
    assert found == []


def test_the_folders_are_grblas_gpu_subpackages():
    import grblas_gpu.algorithms
    import grblas_gpu.conformance
    import grblas_gpu.semirings
    for mod, folder in ((grblas_gpu.algorithms, "algorithms"),
                        (grblas_gpu.semirings, "semirings"),
                        (grblas_gpu.conformance, "conformance")):
        assert pathlib.Path(mod.__file__).resolve() == ROOT / folder / "__init__.py"


def test_the_checker_sees_a_top_level_import():
    src = "import semirings\nfrom algorithms.bfs import bfs\nfrom grblas_gpu import semirings\n"
    assert list(_top_level_imports(ast.parse(src))) == ["semirings", "algorithms.bfs"]


@pytest.mark.skipif(importlib.util.find_spec("setuptools") is None, reason="needs setuptools")
def test_the_wheel_holds_grblas_gpu_alone(tmp_path):
    import setuptools
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip("needs setuptools >= 77 (SPDX license string)")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("grblas_gpu-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    # (_nx_grblas_gpu: the networkx backend's information, read at "import networkx")
    assert tops == {"grblas_gpu", "_nx_grblas_gpu",
                    wheel.name.split("-py3")[0] + ".dist-info"}, tops
    for folder in FOLDERS:
        assert f"grblas_gpu/{folder}/__init__.py" in names
    assert any(n.endswith("licenses/LICENSE") for n in names)
