"""Shared fixtures: random operands as (grblas_gpu, python-graphblas) pairs, data paths."""
import os
import pathlib

import numpy as np
import pytest

import grblas_gpu as gg

REPO = pathlib.Path(__file__).resolve().parent.parent
LAGRAPH = pathlib.Path(os.environ.get("GRBLAS_GPU_LAGRAPH_DATA", REPO.parent / "shared" / "data" / "lagraph"))

TEST_TYPES = ("BOOL", "INT32", "INT64", "FP32", "FP64")


def lagraph_file(name):
    """The path of one of LAGraph's test matrices; skips the test when the data is absent
    (it lives beside the checkout, in ../shared, or wherever GRBLAS_GPU_LAGRAPH_DATA says)."""
    path = LAGRAPH / name
    if not path.is_file():
        pytest.skip(f"LAGraph data not found at {LAGRAPH} (set GRBLAS_GPU_LAGRAPH_DATA)")
    return path


def random_coo(rng, nrows, ncols, density, dtype):
    """Unique random coordinates and values of a type (small integers, to avoid overflow noise)."""
    n = int(round(density * nrows * ncols))
    flat = rng.choice(nrows * ncols, size=min(n, nrows * ncols), replace=False) if nrows * ncols else np.zeros(0, np.int64)
    rows, cols = np.divmod(np.sort(flat), max(ncols, 1))
    npt = gg.lookup_dtype(dtype).np_type
    if npt.kind == "b":
        vals = rng.integers(0, 2, size=len(rows)).astype(bool)
    elif npt.kind == "f":
        # + 0.0 turns -0.0 into 0.0: SuiteSparse reads an FP value mask by its bytes (-0.0 is
        # true there), while the spec, and grblas_gpu, cast it to bool (false)
        vals = (rng.uniform(-4, 4, size=len(rows)).round(2) + 0.0).astype(npt)
    else:
        vals = rng.integers(-5 if npt.kind == "i" else 0, 6, size=len(rows)).astype(npt)
    return rows.astype(np.int64), cols.astype(np.int64), vals


def random_matrix_pair(rng, nrows, ncols, density, dtype):
    import graphblas as gb

    rows, cols, vals = random_coo(rng, nrows, ncols, density, dtype)
    A = gg.Matrix.from_coo(rows, cols, vals, nrows=nrows, ncols=ncols, dtype=dtype)
    G = gb.Matrix.from_coo(rows, cols, vals, nrows=nrows, ncols=ncols, dtype=dtype)
    return A, G


def random_vector_pair(rng, size, density, dtype):
    import graphblas as gb

    rows, _, vals = random_coo(rng, size, 1, density, dtype)
    v = gg.Vector.from_coo(rows, vals, size=size, dtype=dtype)
    g = gb.Vector.from_coo(rows, vals, size=size, dtype=dtype)
    return v, g


def gb_semiring(name):
    """python-graphblas's semiring ``name`` (SuiteSparse's own positional ones under ss)."""
    import graphblas as gb
    ss = getattr(gb.semiring, "ss", None)
    return getattr(ss, name) if ss is not None and name in dir(ss) else getattr(gb.semiring, name)


def semiring_defined(name, t):
    """Both grblas_gpu and python-graphblas define semiring ``name`` on type ``t``."""
    try:
        gg.operators.semiring(name, gg.lookup_dtype(t), gg.lookup_dtype(t))
        gb_semiring(name)[t]
        return True
    except (gg.GraphBLASError, KeyError, AttributeError, TypeError):
        return False


def simt_build(work, main, kernels_name, source, defines=()):
    """Compile a cuda_on_cpu driver (``main``, a .cpp in tests/cuda_on_cpu) over the CUDA
    ``source`` with g++ and simt.h; the executable's path. Skips where g++ lacks C++20."""
    import shutil
    import subprocess

    if shutil.which("g++") is None:
        pytest.skip("no g++")
    here = pathlib.Path(__file__).parent / "cuda_on_cpu"
    (work / f"{kernels_name}.cuh").write_text(source)
    exe = work / f"{kernels_name}_{pathlib.Path(main).stem}"
    r = subprocess.run(["g++", "-O1", "-std=c++20", "-pthread", f"-I{here}", f"-I{work}",
                        f'-DKERNELS="{kernels_name}.cuh"', *defines, "-o", str(exe),
                        str(here / main)], capture_output=True, text=True)
    if r.returncode != 0:
        if "barrier" in r.stderr and "No such file" in r.stderr:
            pytest.skip("g++ without C++20 <barrier>")
        raise AssertionError(r.stderr)
    return exe


def assert_matches(ours, ref, rtol=None):
    """Structure exactly; values exactly for BOOL/integers, to rtol for floats."""
    import graphblas as gb

    if isinstance(ref, gb.Matrix):
        r_rows, r_cols, r_vals = ref.to_coo()
        o_rows, o_cols, o_vals = ours.to_coo()
        assert ours.shape == ref.shape
        np.testing.assert_array_equal(o_rows, r_rows)
        np.testing.assert_array_equal(o_cols, r_cols)
    else:
        r_idx, r_vals = ref.to_coo()
        o_idx, o_vals = ours.to_coo()
        assert ours.size == ref.size
        np.testing.assert_array_equal(o_idx, r_idx)
    assert ours.dtype.name == ref.dtype.name, (ours.dtype, ref.dtype)
    if o_vals.dtype.kind == "f":
        # a reassociated sum errs relative to its terms, not to a result that cancels: allow
        # rtol of the largest value as an absolute error too
        rtol = rtol or (1e-5 if o_vals.dtype == np.float32 else 1e-12)
        finite = np.abs(r_vals[np.isfinite(r_vals)])
        scale = float(finite.max()) if finite.size else 0.0
        np.testing.assert_allclose(o_vals, r_vals, rtol=rtol, atol=rtol * scale)
    else:
        np.testing.assert_array_equal(o_vals, r_vals)


def snapshot(x):
    """Everything observable about a Matrix or Vector, for 'nothing changed' checks."""
    if isinstance(x, gg.Matrix):
        return (x.shape, x.dtype, *map(np.ndarray.tobytes, x.to_coo()))
    return (x.size, x.dtype, *map(np.ndarray.tobytes, x.to_coo()))


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)
