"""The SuiteSparse-style conformance suite: grblas_gpu against python-graphblas.

    python -m grblas_gpu.conformance --quick          (CI: every operation and operator family)
    python -m grblas_gpu.conformance --full           (everything; meant for a GPU machine)
    conformance.main(["--ops", "mxm"])     (returns the exit code: 1 on any failure)

Modules: cases (what a case is, enumeration), operands (operand data, LAGraph files),
families (each operation's cases and grblas_gpu call), reference (the python-graphblas
call), spec (a dense mimic, a second reference for small mxm/mxv/vxm), compare (tolerances),
runner (run, compare, shrink), report (tables, reproducers, JSON), algorithms (algorithms
against networkx / scipy), cli.
"""
from .cli import main

__all__ = ["main"]
