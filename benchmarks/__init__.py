"""grblas_gpu's benchmarks: ``python -m grblas_gpu.benchmarks [--scale N] [--cases mxv,mxm] [--json F]``.

Each case module (``benchmarks.cases_<name>``) lists ``CASES`` as (name, params) pairs and
has ``run(name, **params)``, which returns result rows (dicts: case, scale, method, seconds,
and the case's own figures and checks). :mod:`benchmarks.run` runs the modules asked for,
prints one table and writes the rows as JSON. Never run in CI: the cases need a GPU to mean
anything, and minutes.
"""
