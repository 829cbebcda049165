"""Matrix Market reading and writing (grblas_gpu.io), checked against LAGraph's data files,
scipy.io.mmread, and LAGraph_MMRead's documented outcomes."""
import gzip
import io
import math
import os
import pathlib
import time

import numpy as np
import pytest
import scipy.io

import grblas_gpu as gg
from grblas_gpu.errors import IndexOutOfBounds, InvalidValue, NotSupported
from grblas_gpu.io import mm_info, read_mm, write_mm

REPO = pathlib.Path(__file__).resolve().parent.parent
DATA = pathlib.Path(os.environ.get("GRBLAS_GPU_LAGRAPH_DATA",
                                   REPO.parent / "shared" / "data" / "lagraph"))
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"LAGraph data not found at {DATA}")

# ------------------------------------------------------------------------------------------
# Every file in LAGraph's data directory -> what read_mm must do with it.
#   ("ok", nrows, ncols, nvals, type, iso)   loads; iso: structure-only (pattern) matrix
#   (ErrorClass, line, why)                  raises ErrorClass; the message names that line
# nvals and types agree with LAGraph's test_MMRead.c table where it lists the file.
# ------------------------------------------------------------------------------------------
OK = "ok"
EXPECTED = {
    "A.mtx": (OK, 7, 7, 30, "BOOL", True),
    "A2.mtx": (OK, 7, 7, 30, "BOOL", True),
    "LFAT5.mtx": (OK, 14, 14, 46, "FP64", False),
    "LFAT5_hypersparse.mtx": (OK, 2000, 2000, 46, "FP64", False),
    "LFAT5_two.mtx": (OK, 28, 28, 92, "FP64", False),
    "bcsstk13.mtx": (OK, 2003, 2003, 83883, "FP64", False),
    "comments_cover.mtx": (OK, 7, 7, 12, "INT32", False),
    "comments_full.mtx": (OK, 3, 3, 9, "FP64", False),
    "comments_west0067.mtx": (OK, 67, 67, 295, "FP64", False),  # west0067 plus A(1,1)=NaN
    "cover.mtx": (OK, 7, 7, 12, "INT32", False),
    "cover_structure.mtx": (OK, 7, 7, 12, "BOOL", True),
    "cryg2500.mtx": (OK, 2500, 2500, 12349, "FP64", False),
    "empty.mtx": (OK, 3, 4, 0, "INT32", False),
    "full.mtx": (OK, 3, 3, 9, "FP64", False),
    "full_noheader.mtx": (OK, 3, 3, 9, "FP64", False),  # implicit 'array real general'
    "full_symmetric.mtx": (OK, 4, 4, 16, "FP64", False),
    "jagmesh7.mtx": (OK, 1138, 1138, 7450, "BOOL", True),
    "karate.mtx": (OK, 34, 34, 156, "BOOL", True),
    "ldbc-cdlp-directed-example.mtx": (OK, 8, 8, 18, "BOOL", False),
    "ldbc-cdlp-undirected-example.mtx": (OK, 8, 8, 24, "BOOL", False),
    "ldbc-directed-example-bool.mtx": (OK, 10, 10, 17, "BOOL", False),
    "ldbc-directed-example-unweighted.mtx": (OK, 10, 10, 17, "BOOL", False),
    "ldbc-directed-example.mtx": (OK, 10, 10, 17, "FP64", False),
    "ldbc-undirected-example-bool.mtx": (OK, 9, 9, 24, "BOOL", False),  # upper triangle only
    "ldbc-undirected-example-unweighted.mtx": (OK, 9, 9, 24, "BOOL", False),
    "ldbc-undirected-example.mtx": (OK, 9, 9, 24, "FP64", False),
    "ldbc-wcc-example.mtx": (OK, 10, 10, 30, "INT64", False),
    "lp_afiro.mtx": (OK, 27, 51, 102, "FP64", False),
    "lp_afiro_structure.mtx": (OK, 27, 51, 102, "BOOL", True),
    "matrix_bool.mtx": (OK, 7, 7, 12, "BOOL", False),
    "matrix_fp32.mtx": (OK, 7, 7, 12, "FP32", False),  # holds -inf and inf
    "matrix_fp32_structure.mtx": (OK, 7, 7, 12, "BOOL", True),
    "matrix_fp64.mtx": (OK, 7, 7, 12, "FP64", False),
    "matrix_int16.mtx": (OK, 7, 7, 12, "INT16", False),
    "matrix_int32.mtx": (OK, 7, 7, 12, "INT32", False),
    "matrix_int64.mtx": (OK, 7, 7, 12, "INT64", False),
    "matrix_int8.mtx": (OK, 7, 7, 12, "INT8", False),
    "matrix_uint16.mtx": (OK, 7, 7, 12, "UINT16", False),
    "matrix_uint32.mtx": (OK, 7, 7, 12, "UINT32", False),
    "matrix_uint64.mtx": (OK, 7, 7, 12, "UINT64", False),  # holds 2**64-1
    "matrix_uint8.mtx": (OK, 7, 7, 12, "UINT8", False),
    "msf1.mtx": (OK, 6, 6, 8, "INT64", False),
    "msf2.mtx": (OK, 8, 8, 12, "INT64", False),
    "msf3.mtx": (OK, 5, 5, 7, "INT64", False),
    "olm1000.mtx": (OK, 1000, 1000, 3996, "FP64", False),
    "pushpull.mtx": (OK, 4000, 4000, 196305, "BOOL", True),
    "sample.mtx": (OK, 8, 8, 12, "BOOL", True),
    "sample2.mtx": (OK, 8, 8, 28, "BOOL", True),
    "skew_fp32.mtx": (OK, 6, 6, 20, "FP32", False),
    "skew_fp64.mtx": (OK, 6, 6, 20, "FP64", False),
    "skew_int16.mtx": (OK, 6, 6, 20, "INT16", False),
    "skew_int32.mtx": (OK, 6, 6, 20, "INT32", False),
    "skew_int64.mtx": (OK, 6, 6, 20, "INT64", False),
    "skew_int8.mtx": (OK, 6, 6, 20, "INT8", False),
    "sources_7.mtx": (OK, 64, 1, 64, "INT64", False),
    "structure.mtx": (OK, 7, 7, 12, "INT32", True),  # pattern with type int32_t: iso 1
    "test_BF.mtx": (OK, 7, 7, 12, "FP64", False),
    "test_FW_1000.mtx": (OK, 1000, 1000, 3996, "FP64", False),
    "test_FW_2003.mtx": (OK, 2003, 2003, 23973, "FP64", False),
    "test_FW_2500.mtx": (OK, 2500, 2500, 7852, "FP64", False),
    "tree-example.mtx": (OK, 6, 6, 10, "INT64", False),
    "west0067.mtx": (OK, 67, 67, 294, "FP64", False),
    "west0067_jumbled.mtx": (OK, 67, 67, 294, "FP64", False),  # comments inside the body
    "west0067_noheader.mtx": (OK, 67, 67, 294, "FP64", False),  # implicit 'coordinate real'
    "zenios.mtx": (OK, 2873, 2873, 27191, "FP64", False),
    # ---- rejected files: (class, line named in the message, the defect) ----
    "complex.mtx": (NotSupported, 1, "field 'complex'"),
    "mangled1.mtx": (InvalidValue, 1, "object 'mangled' instead of 'matrix'"),
    "mangled2.mtx": (InvalidValue, 1, "format 'mangled' instead of coordinate/array"),
    "mangled3.mtx": (InvalidValue, 1, "field 'mangled'"),
    "mangled4.mtx": (InvalidValue, 1, "symmetry 'mangled'"),
    "mangled5.mtx": (InvalidValue, 1, "'pattern hermitian': invalid combination"),
    "mangled6.mtx": (InvalidValue, 1, "'real hermitian': invalid combination"),
    "mangled7.mtx": (InvalidValue, 2, "%%GraphBLAS type gunk"),
    "mangled8.mtx": (InvalidValue, 4, "size line '3' has one integer"),
    "mangled9.mtx": (InvalidValue, 4, "symmetric but 3 x 4"),
    "mangled10.mtx": (InvalidValue, 6, "truncated: 2 of 3 entries (end of file at line 6)"),
    "mangled11.mtx": (InvalidValue, 5, "non-numeric index 'zero'"),
    "mangled12.mtx": (InvalidValue, 5, "entry '1 1' has no value"),
    "mangled13.mtx": (IndexOutOfBounds, 7, "column index 9999 > 4"),
    "mangled14.mtx": (InvalidValue, 8, "duplicate entry (2, 2), lines 7 and 8"),
    "mangled15.mtx": (NotSupported, 2, "%%GraphBLAS type float complex"),
    "mangled16.mtx": (NotSupported, 2, "%%GraphBLAS type double complex"),
    "mangled_bool.mtx": (InvalidValue, 10, "value 2 for type bool"),
    "mangled_format.mtx": (InvalidValue, 1, "'array pattern': invalid combination"),
    "mangled_int8.mtx": (InvalidValue, 8, "value -129 for int8_t"),
    "mangled_int16.mtx": (InvalidValue, 8, "value -32769 for int16_t"),
    "mangled_int32.mtx": (InvalidValue, 8, "value -2147483649 for int32_t"),
    "mangled_uint8.mtx": (InvalidValue, 9, "value 256 for uint8_t"),
    "mangled_uint16.mtx": (InvalidValue, 9, "value 65536 for uint16_t"),
    "mangled_uint32.mtx": (InvalidValue, 9, "value 4294967296 for uint32_t"),
    "mangled_skew.mtx": (InvalidValue, 2, "skew-symmetric with unsigned type uint8_t"),
}
VALID = sorted(k for k, v in EXPECTED.items() if v[0] == OK)
REJECTED = sorted(k for k, v in EXPECTED.items() if v[0] != OK)
# files whose header-less / jumbled / commented copy must equal the original
TWINS = {"full_noheader.mtx": "full.mtx", "west0067_noheader.mtx": "west0067.mtx",
         "west0067_jumbled.mtx": "west0067.mtx", "comments_full.mtx": "full.mtx",
         "comments_cover.mtx": "cover.mtx", "A2.mtx": None}


def _scipy_read(path):
    try:
        return scipy.io.mmread(path)
    except Exception:  # noqa: BLE001 -- scipy refuses several files LAGraph reads
        return None


def _assert_same_as_scipy(A, S):
    """Structure exactly (explicit zeros included), values exactly (NaN == NaN)."""
    if isinstance(S, np.ndarray):  # array format: every position is an entry
        assert A.nvals == S.size
        dense = A.to_dense()
        np.testing.assert_array_equal(dense.astype(np.float64), S.astype(np.float64))
        return
    S = S.tocoo()
    order = np.lexsort((S.col, S.row))
    srow, scol, sval = S.row[order], S.col[order], S.data[order]
    rows, cols, vals = A.to_coo()
    assert A.shape == S.shape
    np.testing.assert_array_equal(rows, srow)
    np.testing.assert_array_equal(cols, scol)
    if A._is_iso:  # pattern: scipy gives ones
        assert np.all(sval == 1)
        assert A._iso == 1
    elif vals.dtype.kind in "iub":
        np.testing.assert_array_equal(vals.astype(np.int64), sval.astype(np.int64))
    else:
        np.testing.assert_array_equal(vals, sval.astype(vals.dtype))  # scipy reads FP64


def _bits_equal(A, B):
    """Same type, structure and value bits (NaNs compare as NaNs)."""
    assert A.dtype is B.dtype and A.shape == B.shape and A.nvals == B.nvals
    ra, ca, va = A.to_coo()
    rb, cb, vb = B.to_coo()
    np.testing.assert_array_equal(ra, rb)
    np.testing.assert_array_equal(ca, cb)
    if va.dtype.kind == "f":
        nan = np.isnan(va)
        np.testing.assert_array_equal(nan, np.isnan(vb))
        np.testing.assert_array_equal(va[~nan].view(f"u{va.itemsize}"),
                                      vb[~nan].view(f"u{vb.itemsize}"))
    else:
        np.testing.assert_array_equal(va, vb)


def _mm(tmp_path, text, name="t.mtx"):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def _raises(path, cls, line, **kw):
    with pytest.raises(cls) as info:
        read_mm(path, **kw)
    assert type(info.value) is cls, f"{type(info.value).__name__} is not {cls.__name__}"
    msg = str(info.value)
    assert f"line {line}:" in msg, msg
    assert str(path) in msg, msg
    return msg


# ---------------------------------------------------------------------- LAGraph's data set
@needs_data
def test_table_covers_every_data_file():
    on_disk = {p.name for p in DATA.glob("*.mtx")}
    assert on_disk == set(EXPECTED), (on_disk ^ set(EXPECTED))


@needs_data
@pytest.mark.parametrize("name", VALID)
def test_valid_file_loads_and_matches_scipy(name):
    _, nrows, ncols, nvals, tname, iso = EXPECTED[name]
    path = DATA / name
    A = read_mm(path)
    assert (A.nrows, A.ncols, A.nvals, A.dtype.name, A._is_iso) == (nrows, ncols, nvals, tname,
                                                                     iso)
    S = _scipy_read(path)
    if S is not None:
        _assert_same_as_scipy(A, S)
    twin = TWINS.get(name)
    if twin:
        B = read_mm(DATA / twin)
        assert A.isequal(B)
    # the header-less files follow LAGraph; requiring a header rejects them on line 1
    if name.endswith("_noheader.mtx"):
        _raises(path, InvalidValue, 1, require_header=True)


@needs_data
@pytest.mark.parametrize("name", VALID)
def test_valid_file_round_trips(name, tmp_path):
    A = read_mm(DATA / name)
    out = tmp_path / name
    write_mm(out, A, comments=f"round trip of {name}")
    B = read_mm(out)
    _bits_equal(A, B)
    assert B._is_iso == A._is_iso
    info = mm_info(out)
    assert info["dtype"] is A.dtype and info["format"] == "coordinate"


@needs_data
@pytest.mark.parametrize("name", REJECTED)
def test_rejected_file_raises_the_specific_error(name):
    cls, line, _why = EXPECTED[name]
    _raises(DATA / name, cls, line)


@needs_data
def test_values_of_typed_files():
    A = read_mm(DATA / "matrix_uint64.mtx")
    assert A[0, 1] == np.uint64(2**64 - 1)
    F = read_mm(DATA / "matrix_fp32.mtx")
    assert F[3, 0] == -np.inf and F[0, 1] == np.inf
    W = read_mm(DATA / "comments_west0067.mtx")
    assert math.isnan(W[0, 0])
    S = read_mm(DATA / "structure.mtx")
    assert S.dtype is gg.INT32 and S._is_iso and S._iso == 1
    K = read_mm(DATA / "skew_int8.mtx")
    r, c, v = K.to_coo()
    d = dict(zip(zip(r.tolist(), c.tolist()), v.tolist()))
    assert all(d[(j, i)] == -x for (i, j), x in d.items())
    assert d[(3, 2)] == 0 and d[(2, 3)] == 0  # an explicit zero and its mirror
    E = read_mm(DATA / "empty.mtx")
    assert E.shape == (3, 4) and E.nvals == 0 and E.dtype is gg.INT32


@needs_data
def test_karate_file_equals_generator():
    from grblas_gpu.generate import karate

    assert read_mm(DATA / "karate.mtx").isequal(karate())


# ---------------------------------------------------------------------- header rules
@pytest.mark.parametrize("text, cls, line", [
    ("", InvalidValue, 1),
    ("%%MatrixMarket matrix coordinate real general\n% only comments\n", InvalidValue, 2),
    ("%%MatrixMarket vector coordinate real general\n1 1 0\n", InvalidValue, 1),
    ("%%MatrixMarket matrix coordinate\n1 1 0\n", InvalidValue, 1),
    ("%%MatrixMarket matrix coordinate real\n1 1 0\n", InvalidValue, 1),
    ("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", InvalidValue, 1),
    ("%%MatrixMarketx matrix coordinate real general\n1 1 0\n", InvalidValue, 1),
    ("%%MatrixMarket matrix coordinate complex hermitian\n1 1 0\n", NotSupported, 1),
    ("%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 0\n", InvalidValue, 1),
    ("%%MatrixMarket matrix coordinate integer hermitian\n2 2 0\n", InvalidValue, 1),
    ("%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type\n1 1 0\n",
     InvalidValue, 2),
    ("%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type int8_t x\n1 1 0\n",
     InvalidValue, 2),
    ("%%MatrixMarket matrix coordinate real general\n%\n%%GraphBLAS type GxB_FC64\n1 1 0\n",
     NotSupported, 3),
    ("%%MatrixMarket matrix coordinate real skew-symmetric\n%%GraphBLAS type bool\n2 2 0\n",
     InvalidValue, 2),
    ("%%MatrixMarket matrix coordinate real general\n3 3\n", InvalidValue, 2),
    ("%%MatrixMarket matrix array real general\n3 3 3\n", InvalidValue, 2),
    ("%%MatrixMarket matrix coordinate real general\n3 -3 1\n", InvalidValue, 2),
    ("%%MatrixMarket matrix coordinate real general\n3 3.0 1\n", InvalidValue, 2),
    ("%%MatrixMarket matrix coordinate real general\nthree 3 1\n", InvalidValue, 2),
    ("%%MatrixMarket matrix coordinate real symmetric\n\n\n2 3 0\n", InvalidValue, 4),
    ("1 2 3 4\n", InvalidValue, 1),
])
def test_header_errors(tmp_path, text, cls, line):
    _raises(_mm(tmp_path, text), cls, line)


def test_header_variants(tmp_path):
    # case-insensitive, 'double' field synonym, old-style %%GraphBLAS GrB_<TYPE>, the type
    # line after other comments, other %%GraphBLAS lines ignored, CRLF line ends
    A = read_mm(_mm(tmp_path, "%%matrixmarket MATRIX Coordinate DOUBLE General\r\n"
                              "% comment\r\n%%GraphBLAS something else\r\n"
                              "%%GraphBLAS GrB_INT16\r\n\r\n2 2 1\r\n1 2 -7\r\n"))
    assert A.dtype is gg.INT16 and A[0, 1] == -7
    # a %%GraphBLAS line before the header line is not a header: line 1 must be it
    B = read_mm(_mm(tmp_path, "%%GraphBLAS type int8_t\n2 2 1\n1 1 3.5\n"))
    assert B.dtype is gg.FP64 and B[0, 0] == 3.5
    # a %%GraphBLAS type line after the size line is a comment in the body
    C = read_mm(_mm(tmp_path, "%%MatrixMarket matrix coordinate integer general\n1 1 1\n"
                              "%%GraphBLAS type int8_t\n1 1 1000\n"))
    assert C.dtype is gg.INT64 and C[0, 0] == 1000
    info = mm_info(_mm(tmp_path, "%%MatrixMarket matrix array real symmetric\n"
                                 "%%GraphBLAS type float\n3 3\n"))
    assert info == {"format": "array", "field": "real", "symmetry": "symmetric",
                    "dtype": gg.FP32, "nrows": 3, "ncols": 3, "nvals": 6}


def test_default_types(tmp_path):
    hdr = "%%MatrixMarket matrix coordinate {} general\n2 2 1\n1 1{}\n"
    assert read_mm(_mm(tmp_path, hdr.format("integer", " 5"))).dtype is gg.INT64
    assert read_mm(_mm(tmp_path, hdr.format("real", " 5"))).dtype is gg.FP64
    P = read_mm(_mm(tmp_path, hdr.format("pattern", "")))
    assert P.dtype is gg.BOOL and P._is_iso and P._iso


# ---------------------------------------------------------------------- body rules
HDR = "%%MatrixMarket matrix coordinate {field} {sym}\n{typeline}"


def _file(field="real", sym="general", ctype=None, size="3 3 {n}", lines=()):
    typeline = f"%%GraphBLAS type {ctype}\n" if ctype else ""
    text = HDR.format(field=field, sym=sym, typeline=typeline)
    return text + size.format(n=len(lines)) + "\n" + "".join(x + "\n" for x in lines)


@pytest.mark.parametrize("kw, cls, line", [
    # indices: 0, beyond n, negative, huge (IndexOutOfBounds); non-integer (InvalidValue)
    (dict(lines=["1 1 1", "0 2 1"]), IndexOutOfBounds, 4),
    (dict(lines=["4 1 1"]), IndexOutOfBounds, 3),
    (dict(lines=["1 1 1", "1 2 1", "2 -1 1"]), IndexOutOfBounds, 5),
    (dict(lines=["1 99999999999999999999999 1"]), IndexOutOfBounds, 3),
    (dict(lines=["1 1.0 1"]), InvalidValue, 3),
    (dict(lines=["1 1_0 1"]), InvalidValue, 3),
    # token counts; too few and too many entries
    (dict(lines=["1 1 1 1"]), InvalidValue, 3),
    (dict(field="pattern", lines=["1 1", "2 2 1"]), InvalidValue, 4),
    (dict(size="3 3 1", lines=["1 1 1", "2 2 2"]), InvalidValue, 4),
    (dict(size="3 3 0", lines=["1 1 1"]), InvalidValue, 3),
    (dict(size="3 3 3", lines=["1 1 1", "% comment", ""]), InvalidValue, 5),
    # values
    (dict(lines=["1 1 x"]), InvalidValue, 3),
    (dict(lines=["1 1 1", "2 2 1.5.5"]), InvalidValue, 4),
    (dict(lines=["1 1 1e400"]), InvalidValue, 3),
    (dict(ctype="float", lines=["1 1 1", "2 2 1e39"]), InvalidValue, 5),
    (dict(field="integer", lines=["1 1 3.5"]), InvalidValue, 3),
    (dict(field="integer", lines=["1 1 9223372036854775808"]), InvalidValue, 3),
    (dict(field="integer", ctype="uint64_t", lines=["1 1 -1"]), InvalidValue, 4),
    (dict(field="integer", ctype="uint64_t", lines=["1 1 18446744073709551616"]),
     InvalidValue, 4),
    (dict(field="integer", ctype="bool", lines=["1 1 -1"]), InvalidValue, 4),
    (dict(field="integer", ctype="bool", lines=["1 1 1", "1 2 true"]), InvalidValue, 5),
    # symmetric storage: (i, j) and (j, i) both given is a duplicate
    (dict(sym="symmetric", lines=["2 1 1", "3 3 1", "1 2 1"]), InvalidValue, 5),
    (dict(lines=["1 1 1", "2 2 1", "1 1 2"]), InvalidValue, 5),
    # skew-symmetric: nonzero diagonal; a value whose negation overflows
    (dict(sym="skew-symmetric", lines=["2 1 1", "2 2 5"]), InvalidValue, 4),
    (dict(field="integer", sym="skew-symmetric", ctype="int8_t", lines=["2 1 -128"]),
     InvalidValue, 4),
    # a token far longer than any number (entry lines start at 3, or 4 after a type line)
    (dict(lines=["1 1 " + "1" * 200]), InvalidValue, 3),
])
def test_body_errors(tmp_path, kw, cls, line):
    _raises(_mm(tmp_path, _file(**kw)), cls, line)


def test_earliest_error_wins(tmp_path):
    # line 4 has a bad value, line 5 a bad index, line 3 a duplicate found only at the end
    lines = ["1 1 1", "2 2 nope", "9 9 1", "1 1 1"]
    msg = _raises(_mm(tmp_path, _file(size="3 3 4", lines=lines)), InvalidValue, 4)
    assert "nope" in msg
    lines = ["1 1 1", "2 2 2", "9 9 1", "1 1 1", "3 3 zz"]
    _raises(_mm(tmp_path, _file(lines=lines)), IndexOutOfBounds, 5)
    # a malformed line before the end of a short file is reported, not the end of file
    _raises(_mm(tmp_path, _file(size="3 3 5", lines=["1 1", "2 2 2"])), InvalidValue, 3)


def test_duplicate_message_names_both_lines(tmp_path):
    msg = _raises(_mm(tmp_path, _file(sym="symmetric", lines=["2 1 1", "3 3 1", "1 2 1"])),
                  InvalidValue, 5)
    assert "line 3" in msg and "(1, 2)" in msg


def test_symmetric_and_skew_expansion(tmp_path):
    A = read_mm(_mm(tmp_path, _file(sym="symmetric", lines=["2 1 1.5", "3 3 2", "1 3 4"])))
    np.testing.assert_array_equal(A.to_dense(), [[0, 1.5, 4], [1.5, 0, 0], [4, 0, 2]])
    assert A.nvals == 5
    K = read_mm(_mm(tmp_path, _file(field="integer", sym="skew-symmetric", ctype="int16_t",
                                    lines=["2 1 3", "3 3 0", "1 3 -32767"])))
    assert K.dtype is gg.INT16 and K.nvals == 5
    np.testing.assert_array_equal(K.to_dense(), [[0, -3, -32767], [3, 0, 0], [32767, 0, 0]])
    assert K[2, 2] == 0  # explicit zero on the diagonal is kept


def test_integer_and_float_spellings(tmp_path):
    A = read_mm(_mm(tmp_path, _file(field="integer", ctype="int32_t",
                                    lines=["1 1 +5", "2 2 3.0", "3 3 -2e3"])))
    assert (A[0, 0], A[1, 1], A[2, 2]) == (5, 3, -2000)
    F = read_mm(_mm(tmp_path, _file(lines=["1 1 .5", "2 2 -Inf", "3 3 NaN", "1 2 5.",
                                           "2 1 1E-3", "3 1 -0.0", "1 3 infinity"])))
    assert F[0, 0] == 0.5 and F[1, 1] == -np.inf and math.isnan(F[2, 2])
    assert F[0, 1] == 5 and F[1, 0] == 1e-3 and F[0, 2] == np.inf
    assert math.copysign(1, F[2, 0]) == -1
    B = read_mm(_mm(tmp_path, _file(field="integer", ctype="bool", lines=["1 1 0", "2 2 1"])))
    assert B.dtype is gg.BOOL and B.nvals == 2 and B[0, 0] == False and B[1, 1] == True  # noqa
    U = read_mm(_mm(tmp_path, _file(field="integer", ctype="uint64_t",
                                    lines=["1 1 18446744073709551615", "2 2 0"])))
    assert U[0, 0] == np.uint64(2**64 - 1)
    I64 = read_mm(_mm(tmp_path, _file(field="integer", lines=["1 1 -9223372036854775808",
                                                              "2 2 9223372036854775807"])))
    assert I64[0, 0] == np.iinfo(np.int64).min and I64[1, 1] == np.iinfo(np.int64).max


def test_array_formats(tmp_path):
    G = read_mm(_mm(tmp_path, "%%MatrixMarket matrix array integer general\n2 3\n"
                              "1\n2\n3\n4\n0\n6\n"))
    np.testing.assert_array_equal(G.to_dense(), [[1, 3, 0], [2, 4, 6]])
    assert G.nvals == 6 and G.dtype is gg.INT64  # the zero is an entry
    S = read_mm(_mm(tmp_path, "%%MatrixMarket matrix array real symmetric\n3 3\n"
                              "1\n2\n3\n4\n5\n6\n"))
    np.testing.assert_array_equal(S.to_dense(), [[1, 2, 3], [2, 4, 5], [3, 5, 6]])
    K = read_mm(_mm(tmp_path, "%%MatrixMarket matrix array real skew-symmetric\n3 3\n"
                              "1\n2\n3\n"))
    np.testing.assert_array_equal(K.to_dense(), [[0, -1, -2], [1, 0, -3], [2, 3, 0]])
    assert K.nvals == 6
    _raises(_mm(tmp_path, "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n"),
            InvalidValue, 5)
    _raises(_mm(tmp_path, "%%MatrixMarket matrix array real general\n1 2\n1 2\n"),
            InvalidValue, 3)


def test_comments_and_blank_lines_in_body(tmp_path):
    text = ("%%MatrixMarket matrix coordinate real general\n3 3 2\n% a comment 1 2 3\n\n"
            "   \n1 1 1\n%another\n2 2 2\n\n% trailing comment\n")
    A = read_mm(_mm(tmp_path, text))
    assert A.nvals == 2 and A[1, 1] == 2
    # a value error after a comment line still names the right line
    _raises(_mm(tmp_path, text.replace("2 2 2", "2 2 x")), InvalidValue, 8)


def test_file_objects_and_gzip(tmp_path):
    text = _file(lines=["1 1 1", "3 2 2"])
    for src in (io.StringIO(text), io.BytesIO(text.encode())):
        assert read_mm(src).nvals == 2
    gz = tmp_path / "a.mtx.gz"
    with gzip.open(gz, "wb") as f:
        f.write(text.encode())
    assert read_mm(gz)[2, 1] == 2
    with open(_mm(tmp_path, text), "rb") as f:
        assert read_mm(f).nvals == 2
    with pytest.raises(InvalidValue):
        read_mm(12)
    bad = io.BytesIO(b"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 x\n")
    with pytest.raises(InvalidValue, match=r"<file>, line 3:"):
        read_mm(bad)


# ---------------------------------------------------------------------- writing
def _random_values(rng, t, n):
    npt = t.np_type
    if t.is_bool:
        return rng.integers(0, 2, n).astype(bool)
    if t.is_float:
        scale = npt.type(10) ** rng.integers(-30, 30, n).astype(npt)
        v = rng.standard_normal(n).astype(npt) * scale
        special = np.array([np.nan, np.inf, -np.inf, -0.0, np.finfo(npt).max,
                            np.finfo(npt).tiny, np.finfo(npt).smallest_subnormal], dtype=npt)
        v[:len(special)] = special
        return v
    info = np.iinfo(npt)
    v = rng.integers(info.min, info.max, n, dtype=npt, endpoint=True)
    v[:2] = [info.min, info.max]
    return v


@pytest.mark.parametrize("t", gg.types.ALL_TYPES, ids=lambda t: t.name)
def test_write_read_round_trip_every_type(tmp_path, rng, t):
    n = 300
    flat = rng.choice(40 * 30, n, replace=False)
    rows, cols = np.divmod(flat, 30)
    A = gg.Matrix.from_coo(rows, cols, _random_values(rng, t, n), nrows=40, ncols=30, dtype=t)
    p = tmp_path / "a.mtx"
    write_mm(p, A)
    head = p.read_text().splitlines()[:2]
    assert head[1] == f"%%GraphBLAS type {gg.io._DTYPE_TO_CTYPE[t]}"
    assert head[0].endswith(("real general" if t.is_float else "integer general"))
    _bits_equal(A, read_mm(p))
    # iso and empty matrices of the type
    iso1 = gg.Matrix.from_coo(rows, cols, None, nrows=40, ncols=30, dtype=t)
    write_mm(p, iso1)
    assert "pattern" in p.read_text().splitlines()[0]
    B = read_mm(p)
    assert B._is_iso and B.dtype is t and B.isequal(iso1)
    if not t.is_bool:
        iso0 = gg.Matrix.from_coo(rows, cols, 0, nrows=40, ncols=30, dtype=t)
        write_mm(p, iso0)
        _bits_equal(iso0, read_mm(p))
    for shape in ((0, 0), (3, 4), (5, 0)):
        E = gg.Matrix(t, *shape)
        write_mm(p, E)
        _bits_equal(E, read_mm(p))


def test_write_fp64_exact_with_repr_precision(tmp_path, rng):
    v = rng.random(1000) * 10.0 ** rng.integers(-300, 300, 1000)
    v[:3] = [0.1, 1 / 3, 5e-324]
    A = gg.Matrix.from_coo(np.arange(1000), np.zeros(1000, np.int64), v, nrows=1000, ncols=1)
    p = tmp_path / "f.mtx"
    write_mm(p, A)
    body = p.read_text().splitlines()
    assert body[3] == "1 1 0.1" and body[4] == "2 1 0.3333333333333333"
    _bits_equal(A, read_mm(p))
    F = gg.Matrix.from_coo([0], [0], np.array([0.1], np.float32), nrows=1, ncols=1)
    write_mm(p, F)
    assert p.read_text().splitlines()[-1] == "1 1 0.1"  # shortest float32 string


def test_write_comments_symmetry_and_targets(tmp_path):
    rows = np.array([0, 1, 1, 2])
    cols = np.array([1, 0, 2, 1])
    A = gg.Matrix.from_coo(rows, cols, np.array([1.5, 1.5, -2.0, -2.0]), nrows=3, ncols=3)
    p = tmp_path / "s.mtx"
    write_mm(p, A, comments="first\nsecond", symmetry="auto")
    lines = p.read_text().splitlines()
    assert lines[0] == "%%MatrixMarket matrix coordinate real symmetric"
    assert lines[2:4] == ["% first", "% second"] and lines[4] == "3 3 2"
    assert read_mm(p).isequal(A)
    # not symmetric: auto falls back to general
    B = gg.Matrix.from_coo([0], [1], [1.0], nrows=3, ncols=3)
    write_mm(p, B, symmetry="auto", comments=["a", "b"])
    assert p.read_text().splitlines()[0].endswith("general")
    with pytest.raises(InvalidValue):
        write_mm(p, B, symmetry="hermitian")
    # text and binary file objects, gzip
    s = io.StringIO()
    write_mm(s, A)
    s.seek(0)
    assert read_mm(s).isequal(A)
    b = io.BytesIO()
    write_mm(b, A)
    b.seek(0)
    assert read_mm(b).isequal(A)
    gz = tmp_path / "a.mtx.gz"
    write_mm(gz, A)
    assert read_mm(gz).isequal(A)


def test_iso_non_one_writes_values(tmp_path):
    A = gg.Matrix.from_coo([0, 2], [1, 1], 7, nrows=3, ncols=2, dtype=gg.INT8)
    p = tmp_path / "i.mtx"
    write_mm(p, A)
    assert p.read_text().splitlines()[0].endswith("integer general")
    B = read_mm(p)
    assert B.dtype is gg.INT8 and B.isequal(A)


def test_large_file_reads_fast(tmp_path, rng):
    n, N = 1_000_000, 100_000
    flat = np.unique(rng.integers(0, N * N, int(n * 1.05)))[:n]
    rows, cols = np.divmod(flat, N)
    A = gg.Matrix.from_coo(rows, cols, rng.random(n), nrows=N, ncols=N)
    p = tmp_path / "big.mtx"
    write_mm(p, A)
    t = time.perf_counter()
    B = read_mm(p)
    elapsed = time.perf_counter() - t
    assert B.isequal(A)
    assert elapsed < 8, f"read of 1M entries took {elapsed:.1f} s"


# ---------------------------------------------------------------------- no raw exceptions
def test_unreadable_sources_raise_invalid_value(tmp_path):
    """A missing file, a directory, a truncated .gz, a file object whose read fails: each an
    InvalidValue naming the file (never FileNotFoundError, EOFError, BadGzipFile)."""
    with pytest.raises(InvalidValue, match="no_such.mtx"):
        read_mm(tmp_path / "no_such.mtx")
    with pytest.raises(InvalidValue, match="cannot be read"):
        read_mm(tmp_path)
    gz = tmp_path / "t.mtx.gz"
    whole = gzip.compress(_file(lines=["1 1 1", "3 2 2"]).encode())
    for part in (whole[: len(whole) // 2], b"not gzip at all"):
        gz.write_bytes(part)
        with pytest.raises(InvalidValue, match="t.mtx.gz"):
            read_mm(gz)
        with pytest.raises(InvalidValue):
            mm_info(gz)
    closed = io.BytesIO(b"")
    closed.close()
    with pytest.raises(InvalidValue, match="cannot be read"):
        read_mm(closed)


def test_huge_headers_are_refused_before_allocating():
    """10**18 rows: CSR offsets of that length cannot be stored (NotSupported, before any
    allocation); rows within the limit whose offsets exceed the memory budget: AllocFailed;
    10**18 declared entries that the file does not hold: InvalidValue (premature end)."""
    from grblas_gpu import memory

    head = b"%%MatrixMarket matrix coordinate real general\n"
    for size in (b"1000000000000000000 3 0", b"100000000000 1 1"):
        with pytest.raises(NotSupported, match="hypersparse"):
            read_mm(io.BytesIO(head + size + b"\n"))
    with pytest.raises(NotSupported):
        read_mm(io.BytesIO(b"%%MatrixMarket matrix array real general\n3000000000 1\n1\n"))
    old = memory.set_limit(2**20)
    try:
        with pytest.raises(gg.AllocFailed, match="row offsets"):
            read_mm(io.BytesIO(head + b"1000000000 3 0\n"))
    finally:
        memory.set_limit(old)
    with pytest.raises(InvalidValue, match="premature end"):
        read_mm(io.BytesIO(head + b"3 3 1000000000000000000\n1 1 1\n"))
    # many columns need no offsets per column: fine
    assert read_mm(io.BytesIO(head + b"2 1000000000000000000 1\n1 5 2.5\n"))[0, 4] == 2.5


def test_write_vector_as_one_row_like_python_graphblas(tmp_path):
    """A Vector is written as a 1 x size matrix, as python-graphblas's mmwrite writes it."""
    import graphblas as gb

    v = gg.Vector.from_coo([0, 3, 4], [1.5, -2.0, 0.0], size=6)
    p = tmp_path / "v.mtx"
    write_mm(p, v)
    A = read_mm(p)
    assert A.shape == (1, 6) and [a.tolist() for a in A.to_coo()] == [[0, 0, 0], [0, 3, 4],
                                                                       [1.5, -2.0, 0.0]]
    theirs = io.BytesIO()
    gb.io.mmwrite(theirs, v.to_graphblas())
    ref = gb.io.mmread(io.BytesIO(theirs.getvalue()))
    assert ref.shape == A.shape and A.isequal(gg.Matrix.from_graphblas(ref))
    iso = gg.Vector.from_coo([1], 7, size=3, dtype="INT16")
    write_mm(p, iso)
    assert read_mm(p).dtype == gg.INT16 and read_mm(p)[0, 1] == 7


def test_write_bad_arguments_leave_nothing_behind(tmp_path, monkeypatch):
    """None for the matrix or the target, a missing directory, a directory as the target, a
    closed or read-only file object: InvalidValue, and no file (or temporary) is left; an
    existing file is replaced only by a complete one."""
    A = gg.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0])
    with pytest.raises(InvalidValue, match="Matrix or a Vector"):
        write_mm(tmp_path / "x.mtx", None)
    with pytest.raises(InvalidValue, match="Matrix or a Vector"):
        write_mm(tmp_path / "x.mtx", np.eye(2))
    with pytest.raises(InvalidValue, match="path or a file object"):
        write_mm(None, A)
    with pytest.raises(InvalidValue, match="cannot write"):
        write_mm(tmp_path / "no_dir" / "x.mtx", A)
    with pytest.raises(InvalidValue, match="directory"):
        write_mm(tmp_path, A)
    assert os.listdir(tmp_path) == []
    closed = io.BytesIO()
    closed.close()
    with pytest.raises(InvalidValue, match="cannot write"):
        write_mm(closed, A)
    with open(tmp_path / "r.mtx", "wb") as f:
        f.write(b"old")
    with open(tmp_path / "r.mtx", "rb") as f, pytest.raises(InvalidValue, match="cannot write"):
        write_mm(f, A)
    # a failure while writing (the disk full after the header) leaves the old file as it
    # was, and no temporary
    import grblas_gpu.io as gio

    def full(*args):
        raise OSError(28, "No space left on device")

    target = tmp_path / "r.mtx"
    with monkeypatch.context() as m:
        m.setattr(gio, "_value_strings", full)
        with pytest.raises(InvalidValue, match="No space left"):
            write_mm(target, A)
    assert target.read_bytes() == b"old" and sorted(os.listdir(tmp_path)) == ["r.mtx"]
    write_mm(target, A)
    assert read_mm(target).isequal(A) and sorted(os.listdir(tmp_path)) == ["r.mtx"]


def test_symmetry_auto_compares_bits(tmp_path):
    """+0.0 and -0.0 compare equal but are different values: a matrix holding them at
    (i, j) and (j, i) is written general, so the round trip is exact bit for bit; a NaN
    opposite the same NaN is symmetric."""
    p = tmp_path / "z.mtx"
    for t in ("FP32", "FP64"):
        A = gg.Matrix.from_coo([0, 1, 2, 2], [1, 0, 0, 2], [0.0, -0.0, 1.5, 2.0], nrows=3,
                               ncols=3, dtype=t)
        write_mm(p, A, symmetry="auto")
        assert p.read_text().splitlines()[0].endswith("general")
        _bits_equal(read_mm(p), A)
        N = gg.Matrix.from_coo([0, 1, 1], [1, 0, 1], [np.nan, np.nan, -0.0], nrows=2, ncols=2,
                               dtype=t)
        write_mm(p, N, symmetry="auto")
        assert p.read_text().splitlines()[0].endswith("symmetric")
        _bits_equal(read_mm(p), N)
