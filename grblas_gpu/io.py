"""Matrix Market files: :func:`read_mm` and :func:`write_mm`, with LAGraph's semantics.

Reading follows ``LAGraph_MMRead`` (LAGraph/src/utility/LAGraph_MMRead.c):

* Header ``%%MatrixMarket matrix <format> <field> <symmetry>`` on line 1; format
  ``coordinate`` or ``array``; field ``real``, ``double`` (a synonym of real), ``integer``,
  ``pattern`` (``complex`` raises NotSupported); symmetry ``general``, ``symmetric``,
  ``skew-symmetric``, ``hermitian`` (hermitian needs a complex field, so it is an invalid
  combination here; ``pattern`` needs coordinate format and general or symmetric storage).
* ``%%GraphBLAS type <ctype>`` (after the header, before the size line) sets the type:
  bool, int8_t ... uint64_t, float, double (``float complex`` / ``double complex``:
  NotSupported; unknown: InvalidValue; an unsigned or bool type with skew-symmetric storage:
  InvalidValue). Other ``%%GraphBLAS`` lines are comments. Without it: pattern -> BOOL,
  integer -> INT64, real -> FP64.
* A file without the header line is read as LAGraph does: a size line of 3 integers means
  ``coordinate real general``, 2 integers ``array real general`` (FP64). ``require_header=True``
  makes a missing header an error instead.
* pattern files give a structure-only, iso-valued matrix (value 1 of the type; True for BOOL).
* symmetric / skew-symmetric files are expanded: each off-diagonal entry (i, j) also gives
  (j, i) (negated for skew). Like LAGraph, an entry may be stored in either triangle; giving
  both (i, j) and (j, i) is a duplicate. A skew-symmetric diagonal entry must be zero (it is
  kept as an explicit zero); a value whose negation overflows its type is out of range.
  Array symmetric files store the lower triangle with the diagonal, column by column;
  array skew-symmetric files the strict lower triangle (the Matrix Market specification).
* Entries must be numbers of the type: integers for bool and integer types (``3.0`` is
  accepted as 3, ``3.5`` is not), within the type's range (bool: 0 or 1); floats may be
  ``inf``/``nan``; a finite value that overflows the float type is out of range.

Every error names the file and line: InvalidValue (bad header, size line, type line,
token count, non-numeric or out-of-range value, truncated file, too many entries,
duplicate entries), IndexOutOfBounds (an index of 0 or beyond the dimension),
NotSupported (complex). When a file has several errors, the one on the earliest line is
reported (duplicates are found after all lines are read, as LAGraph finds them in build).

The body is parsed with vectorised NumPy (one tokenisation of the whole body, then columnar
``astype`` conversions); a slow per-token path runs only to locate an error.
"""
import gzip
import io as _io
import os
import re
import tempfile
import zlib

import numpy as np

from . import backend
from .errors import IndexOutOfBounds, InvalidValue, NotSupported
from .types import (BOOL, FP32, FP64, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32,
                    UINT64)

from .io_convert import from_networkx, from_scipy_sparse, to_networkx, to_scipy_sparse

__all__ = ["read_mm", "write_mm", "mm_info", "mmread", "mmwrite", "from_networkx",
           "to_networkx", "from_scipy_sparse", "to_scipy_sparse"]

# C names used by LAGraph's %%GraphBLAS type line, and the older GrB_ names
_CTYPE_TO_DTYPE = {
    "bool": BOOL, "int8_t": INT8, "int16_t": INT16, "int32_t": INT32, "int64_t": INT64,
    "uint8_t": UINT8, "uint16_t": UINT16, "uint32_t": UINT32, "uint64_t": UINT64,
    "float": FP32, "double": FP64,
}
_GRB_TO_DTYPE = {"grb_" + t.name.lower(): t for t in _CTYPE_TO_DTYPE.values()}
_DTYPE_TO_CTYPE = {t: c for c, t in _CTYPE_TO_DTYPE.items()}
_COMPLEX_TYPES = ("float complex", "double complex", "gxb_fc32", "gxb_fc64")

_FORMATS = ("coordinate", "array")
_FIELDS = ("real", "double", "integer", "pattern")
_SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")

# bytes.split() whitespace: space, \t, \n, \v, \f, \r
_WS = np.zeros(256, dtype=bool)
_WS[[9, 10, 11, 12, 13, 32]] = True
_MAX_TOKEN = 128  # longer tokens are rejected (they cannot be numbers we can represent)

_INT_RE = re.compile(rb"[+-]?[0-9]+\Z")
_FLOAT_RE = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\Z",
    re.IGNORECASE)


class _Header:
    """What the header lines say, and where the body starts."""

    __slots__ = ("fmt", "field", "symmetry", "dtype", "nrows", "ncols", "nvals",
                 "size_line", "body_offset", "has_banner", "type_line")

    def __init__(self):
        self.fmt, self.field, self.symmetry = "coordinate", "real", "general"
        self.dtype = None
        self.nrows = self.ncols = self.nvals = 0
        self.size_line = self.body_offset = 0
        self.has_banner = False
        self.type_line = None

    def as_dict(self):
        return {"format": self.fmt, "field": self.field, "symmetry": self.symmetry,
                "dtype": self.dtype, "nrows": self.nrows, "ncols": self.ncols,
                "nvals": self.nvals}


# ---------------------------------------------------------------------- public API
def read_mm(path_or_file, *, require_header=False):
    """Read a Matrix Market file into a :class:`grblas_gpu.Matrix` (LAGraph_MMRead semantics).

    ``path_or_file``: a path (``.gz`` is decompressed) or a file object opened in binary or
    text mode. Raises InvalidValue, IndexOutOfBounds or NotSupported with a message naming
    the file and the line (see the module docstring for the rules).
    """
    from .memory import oom_guard
    from .matrix import Matrix

    with oom_guard("read_mm"):
        parsed = _read_arrays(path_or_file, require_header=require_header)
        nrows, ncols, dtype, indptr, indices, values = parsed
        xp = backend.xp
        return Matrix._from_csr(nrows, ncols, dtype, xp.asarray(indptr), xp.asarray(indices),
                                None if values is None else xp.asarray(values))


def mm_info(path_or_file, *, require_header=False):
    """The header of a Matrix Market file as a dict (format, field, symmetry, dtype,
    nrows, ncols, nvals as stored in the file), without reading the entries."""
    name, data = _load(path_or_file)
    return _parse_header(data, name, require_header).as_dict()


def write_mm(path_or_file, A, *, comments=None, symmetry="general"):
    """Write ``A`` in Matrix Market coordinate format with a ``%%GraphBLAS type`` line.

    ``A``: a Matrix, or a Vector, written as a 1 x size matrix (python-graphblas's
    ``mmwrite`` does the same). The field is ``pattern`` for an iso-valued matrix whose value
    is 1 (True), ``real`` for FP32/FP64 (shortest strings that read back exactly,
    ``nan``/``inf`` and ``-0.0`` included) and ``integer`` otherwise (BOOL as 0/1).
    ``comments``: a string (may hold newlines) or an iterable of lines, written as ``%``
    lines after the type line. ``symmetry="auto"`` writes ``symmetric`` storage (the lower
    triangle) when A is square and equals its transpose bit for bit (+0.0 and -0.0 differ; a
    NaN matches a NaN of the same bits); ``"general"`` (the default) writes every entry.
    ``read_mm(write_mm(A))`` equals A (same type, structure and values).

    Everything is checked before anything is written; a path is written to a temporary file
    beside it, renamed into place once complete, so a failure leaves no partial file. Errors:
    InvalidValue (a bad argument, a path that cannot be written).
    """
    from .matrix import Matrix
    from .vector import Vector

    if symmetry not in ("general", "auto"):
        raise InvalidValue(f"write_mm: symmetry must be 'general' or 'auto', got {symmetry!r}")
    if isinstance(A, Vector):
        idx, vals = A.to_coo()
        nrows, ncols, dt = 1, A.size, A.dtype
        rows, cols = np.zeros(len(idx), dtype=np.int64), np.asarray(idx).astype(np.int64)
        vals = np.asarray(vals)
        pattern = False
    elif isinstance(A, Matrix):
        nrows, ncols, dt = A.nrows, A.ncols, A.dtype
        rows, cols, vals = (np.asarray(a) for a in A.to_coo())
        rows = rows.astype(np.int64, copy=False)
        cols = cols.astype(np.int64, copy=False)
        pattern = bool(A._is_iso) and bool(A._iso == 1)
    else:
        raise InvalidValue(f"write_mm needs a Matrix or a Vector, got {type(A).__name__}")
    if not isinstance(path_or_file, (str, os.PathLike)) and not hasattr(path_or_file, "write"):
        raise InvalidValue("write_mm needs a path or a file object opened for writing, got "
                           f"{type(path_or_file).__name__}")
    sym = "general"
    if symmetry == "auto" and nrows == ncols and (
            isinstance(A, Vector) or (A.is_symmetric(structure=True) and (
                pattern or _mirrored_values_identical(rows, cols, vals, ncols)))):
        sym = "symmetric"
        lower = rows >= cols
        rows, cols, vals = rows[lower], cols[lower], vals[lower]
    field = "pattern" if pattern else ("real" if dt.is_float else "integer")
    head = [f"%%MatrixMarket matrix coordinate {field} {sym}",
            f"%%GraphBLAS type {_DTYPE_TO_CTYPE[dt]}"]
    head += ["%" + ("" if not line or line[0] == " " else " ") + line
             for line in _comment_lines(comments)]
    head.append(f"{nrows} {ncols} {len(rows)}")
    header = ("\n".join(head) + "\n").encode("utf-8")

    def chunks(step=1 << 20):
        yield header
        for lo in range(0, len(rows), step):
            r = (rows[lo:lo + step] + 1).tolist()
            c = (cols[lo:lo + step] + 1).tolist()
            if pattern:
                text = "".join([f"{i} {j}\n" for i, j in zip(r, c)])
            else:
                text = "".join([f"{i} {j} {x}\n" for i, j, x in
                                zip(r, c, _value_strings(vals[lo:lo + step], dt))])
            yield text.encode("ascii")

    if isinstance(path_or_file, (str, os.PathLike)):
        _write_path(os.fspath(path_or_file), chunks())
        return
    text_mode = isinstance(path_or_file, _io.TextIOBase)
    try:
        for chunk in chunks():
            path_or_file.write(chunk.decode("utf-8") if text_mode else chunk)
    except (OSError, TypeError, ValueError) as e:  # closed, read-only, of the other mode
        name = getattr(path_or_file, "name", "<file>")
        raise InvalidValue(f"write_mm: cannot write to {name}: {e}") from e


# python-graphblas's names (graphblas.io.mmread / mmwrite) for the same functions
mmread = read_mm
mmwrite = write_mm


def _write_path(path, chunks):
    """Write chunks to a temporary file in path's directory, then rename it to path."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InvalidValue(f"write_mm: cannot write {path}: it is a directory")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".write_mm-", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as raw:
            f = gzip.GzipFile(fileobj=raw, mode="wb") if path.endswith(".gz") else raw
            for chunk in chunks:
                f.write(chunk)
            if f is not raw:
                f.close()
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise InvalidValue(f"write_mm: cannot write {path}: {e}") from e
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---------------------------------------------------------------------- reading
def _load(path_or_file):
    """(name for messages, the file's bytes)."""
    if isinstance(path_or_file, (str, os.PathLike)):
        path = os.fspath(path_or_file)
        opener = gzip.open if path.endswith(".gz") else open
        try:
            with opener(path, "rb") as f:
                return path, f.read()
        except (OSError, EOFError, zlib.error) as e:  # missing, unreadable, a truncated .gz
            why = getattr(e, "strerror", None) or str(e) or type(e).__name__
            raise InvalidValue(f"{path}: cannot be read: {why}") from e
    if hasattr(path_or_file, "read"):
        name = str(getattr(path_or_file, "name", "<file>"))
        try:
            data = path_or_file.read()
        except (OSError, EOFError, zlib.error, ValueError) as e:  # closed, undecodable
            raise InvalidValue(f"{name}: cannot be read: {e or type(e).__name__}") from e
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InvalidValue(f"{name}: read() gave {type(data).__name__}, not text or bytes")
        return name, bytes(data)
    raise InvalidValue(f"read_mm needs a path or a file object, got {type(path_or_file).__name__}")


def _fail(cls, name, line, msg):
    return cls(f"{name}, line {line}: {msg}")


def _parse_header(data, name, require_header):
    h = _Header()
    pos, lineno, n = 0, 0, len(data)
    while True:
        if pos >= n:
            raise _fail(InvalidValue, name, max(lineno, 1),
                        "end of file before the size line (nrows ncols [nvals])")
        nl = data.find(b"\n", pos)
        end = n if nl < 0 else nl
        text = data[pos:end].decode("latin-1")
        pos = end + 1
        lineno += 1
        low = text.lower()
        if lineno == 1 and low.startswith("%%matrixmarket"):
            _parse_banner(low.split(), h, name)
            continue
        if lineno == 1 and require_header:
            raise _fail(InvalidValue, name, 1, "missing '%%MatrixMarket matrix ...' header")
        if h.has_banner and low.startswith("%%graphblas"):
            _parse_type_line(low.split()[1:], h, name, lineno)
            continue
        if low.startswith("%") or not low.strip():
            continue
        _parse_size_line(text, h, name, lineno)
        h.body_offset = min(pos, n)
        return h


def _parse_banner(toks, h, name):
    h.has_banner = True

    def bad(msg):
        return _fail(InvalidValue, name, 1, f"invalid MatrixMarket header: {msg}")

    if toks[0] != "%%matrixmarket":
        raise bad(f"expected '%%MatrixMarket', got {toks[0]!r}")
    if len(toks) < 2 or toks[1] != "matrix":
        raise bad(f"object must be 'matrix', got {toks[1] if len(toks) > 1 else 'nothing'!r}")
    if len(toks) < 3 or toks[2] not in _FORMATS:
        raise bad("format must be 'coordinate' or 'array', got "
                  f"{toks[2] if len(toks) > 2 else 'nothing'!r}")
    h.fmt = toks[2]
    field = toks[3] if len(toks) > 3 else None
    if field == "complex":
        raise _fail(NotSupported, name, 1, "complex matrices are not supported")
    if field not in _FIELDS:
        raise bad(f"field must be real, integer or pattern, got {field or 'nothing'!r}")
    h.field = "real" if field == "double" else field
    sym = toks[4] if len(toks) > 4 else None
    if sym not in _SYMMETRIES:
        raise bad("symmetry must be general, symmetric, skew-symmetric or hermitian, got "
                  f"{sym or 'nothing'!r}")
    h.symmetry = sym
    if len(toks) > 5:
        raise bad(f"unexpected text after the symmetry: {' '.join(toks[5:])!r}")
    if h.field == "pattern" and not (h.fmt == "coordinate" and sym in ("general", "symmetric")):
        raise bad(f"'{h.fmt} pattern {sym}' is an invalid combination (pattern needs "
                  "coordinate format and general or symmetric storage)")
    if sym == "hermitian":
        raise bad(f"'{h.field} hermitian' is an invalid combination (hermitian needs a complex "
                  "field)")


def _parse_type_line(toks, h, name, lineno):
    # %%GraphBLAS type <ctype>  (or the older  %%GraphBLAS GrB_<TYPE>); others are comments
    if toks and toks[0] in _GRB_TO_DTYPE and len(toks) == 1:
        h.dtype = _GRB_TO_DTYPE[toks[0]]
    elif not toks or toks[0] != "type":
        return
    else:
        rest = " ".join(toks[1:])
        if rest in _COMPLEX_TYPES:
            raise _fail(NotSupported, name, lineno,
                        f"%%GraphBLAS type {rest!r}: complex types are not supported")
        t = _CTYPE_TO_DTYPE.get(rest) or _GRB_TO_DTYPE.get(rest)
        if t is None:
            raise _fail(InvalidValue, name, lineno, f"unknown %%GraphBLAS type {rest!r} "
                        "(expected bool, int8_t .. uint64_t, float or double)")
        h.dtype = t
    h.type_line = lineno
    if h.symmetry == "skew-symmetric" and (h.dtype.is_bool or not h.dtype.is_signed):
        raise _fail(InvalidValue, name, lineno, f"a skew-symmetric matrix cannot have the "
                    f"unsigned type {h.dtype.name}")


def _parse_size_line(text, h, name, lineno):
    toks = text.split()
    if not all(t.isascii() and t.isdigit() for t in toks):
        raise _fail(InvalidValue, name, lineno, f"invalid size line {text.strip()!r}: "
                    "expected non-negative integers (nrows ncols [nvals])")
    if not h.has_banner and len(toks) in (2, 3):
        h.fmt = "array" if len(toks) == 2 else "coordinate"
    want = 3 if h.fmt == "coordinate" else 2
    if len(toks) != want:
        what = "nrows ncols nvals" if want == 3 else "nrows ncols"
        raise _fail(InvalidValue, name, lineno, f"invalid size line {text.strip()!r}: "
                    f"{h.fmt} format needs {want} integers ({what})")
    nums = [int(t) for t in toks]
    if nums[0] >= 2**60 or nums[1] >= 2**60:
        raise _fail(InvalidValue, name, lineno, f"dimensions {nums[0]} x {nums[1]} are too large")
    h.nrows, h.ncols = nums[0], nums[1]
    if h.symmetry != "general" and h.nrows != h.ncols:
        raise _fail(InvalidValue, name, lineno, f"a {h.symmetry} matrix must be square, "
                    f"got {h.nrows} x {h.ncols}")
    n = h.nrows
    if h.fmt == "coordinate":
        h.nvals = nums[2]
    elif h.symmetry == "general":
        h.nvals = h.nrows * h.ncols
    elif h.symmetry == "symmetric":
        h.nvals = n * (n + 1) // 2
    else:  # skew-symmetric: strict lower triangle
        h.nvals = n * (n - 1) // 2
    if h.dtype is None:
        h.dtype = {"pattern": BOOL, "integer": INT64}.get(h.field, FP64)
    h.size_line = lineno


def _read_arrays(path_or_file, *, require_header=False):
    """Parse a file: (nrows, ncols, dtype, indptr, indices, values or None) as host arrays,
    sorted by row then column, duplicates rejected."""
    name, data = _load(path_or_file)
    h = _parse_header(data, name, require_header)
    _check_size(h, name)
    body = data[h.body_offset:]
    k = 2 if h.field == "pattern" else 3
    if h.fmt == "array":
        k = 1
    toks, entry_line, slow = _tokenize(body, name, h, k)
    nrows, ncols, dt = h.nrows, h.ncols, h.dtype
    m = len(entry_line)

    fails = []  # (entry position, priority, exception)
    if h.fmt == "coordinate":
        rows = _parse_indices(toks[0::k], nrows, "row", 0, fails, name, entry_line, slow)
        cols = _parse_indices(toks[1::k], ncols, "column", 2, fails, name, entry_line, slow)
    else:
        rows, cols = _array_positions(h)
    if h.field == "pattern":
        vals = None
    else:
        vals = _parse_values(toks[k - 1::k], dt, 4, fails, name, entry_line, slow)
        if h.symmetry == "skew-symmetric" and vals is not None and rows is not None \
                and cols is not None:
            _check_skew(rows, cols, vals, dt, fails, name, entry_line)
    if fails:
        raise min(fails, key=lambda f: (f[0], f[1]))[2]
    if h.fmt == "coordinate":  # 1-based -> 0-based (array positions are 0-based already)
        rows, cols = rows - 1, cols - 1
    src = np.arange(m)
    if h.symmetry != "general":
        off = np.flatnonzero(rows != cols)
        rows, cols = np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]])
        src = np.concatenate([src, off])
        if vals is not None:
            mirror = vals[off]
            if h.symmetry == "skew-symmetric":
                mirror = -mirror
            vals = np.concatenate([vals, mirror])
    order = _row_major_order(rows, cols, nrows, ncols)
    rows, cols, src = rows[order], cols[order], src[order]
    if vals is not None:
        vals = vals[order]
    _check_duplicates(rows, cols, src, name, entry_line)
    indptr = np.searchsorted(rows, np.arange(nrows + 1), side="left")
    return nrows, ncols, dt, indptr, cols, vals


def _check_size(h, name):
    """Refuse, before allocating anything, a matrix whose row offsets cannot be stored or
    would not fit in memory (the entries are bounded by the file's length)."""
    from .memory import require
    from .matrix import MAX_POINTER_LENGTH

    if h.nrows + 1 > MAX_POINTER_LENGTH:
        raise _fail(NotSupported, name, h.size_line,
                    f"{h.nrows} rows: CSR offsets of that length need hypersparse storage, "
                    f"which grblas_gpu does not implement (limit {MAX_POINTER_LENGTH - 1})")
    require(8 * (h.nrows + 1), f"{name}: the row offsets of {h.nrows} rows")


def _tokenize(body, name, h, k):
    """The body's tokens (a list of bytes, k per data line), each entry's file line, and
    whether the tokens need the strict per-token parse."""
    first_line = h.size_line + 1
    a = np.frombuffer(body, dtype=np.uint8)
    nlpos = np.flatnonzero(a == 10)
    nlines = len(nlpos) + (1 if len(a) and (len(nlpos) == 0 or nlpos[-1] != len(a) - 1) else 0)
    starts = np.concatenate([[0], nlpos + 1])[:nlines]
    ws = _WS[a]
    tstart = ~ws
    tstart[1:] &= ws[:-1]
    tpos = np.flatnonzero(tstart)
    tline = np.searchsorted(nlpos, tpos)  # line index (in the body) of each token
    ntok = np.bincount(tline, minlength=nlines)
    comment = a[starts] == ord("%")
    data_lines = np.flatnonzero((ntok > 0) & ~comment)
    expected, found = h.nvals, len(data_lines)

    # wrong token count on a line, or lines beyond the declared count: the earliest wins
    bad = data_lines[ntok[data_lines] != k]
    cands = []
    if bad.size:
        cands.append((int(bad[0]), "count"))
    if found > expected:
        cands.append((int(data_lines[expected]), "extra"))
    if cands:
        line, why = min(cands)
        if why == "extra":
            raise _fail(InvalidValue, name, first_line + line,
                        f"too many entries: the size line (line {h.size_line}) declares "
                        f"{expected}")
        what = {1: "1 value", 2: "2 indices (row column)",
                3: "3 items (row column value)"}[k]
        raise _fail(InvalidValue, name, first_line + line,
                    f"expected {what}, found {int(ntok[line])} items")
    if found < expected:
        last = h.size_line + nlines
        raise _fail(InvalidValue, name, last,
                    f"premature end of file: {found} of the {expected} entries declared on "
                    f"line {h.size_line} were found")

    # tokens longer than any number we accept (they would bloat the string arrays)
    tend = ~ws
    tend[:-1] &= ws[1:]
    tlen = np.flatnonzero(tend) + 1 - tpos
    keep_tok = ~comment[tline]
    long_tok = np.flatnonzero((tlen > _MAX_TOKEN) & keep_tok)
    if long_tok.size:
        raise _fail(InvalidValue, name, first_line + int(tline[long_tok[0]]),
                    f"a token of {int(tlen[long_tok[0]])} characters is not a valid number")
    if comment.any() and ntok[comment].any():
        # blank the comment lines so that split() sees only data tokens
        lengths = np.diff(np.concatenate([starts, [len(a)]]))
        clean = a.copy()
        clean[np.repeat(comment, lengths)] = 32
        body = clean.tobytes()
    toks = body.split()
    # int() and float() accept 1_000: a body with '_' goes to the strict per-token path
    return toks, first_line + data_lines, b"_" in body


def _array_positions(h):
    n, m = h.nrows, h.ncols
    if h.symmetry == "general":  # column-major
        return np.tile(np.arange(n, dtype=np.int64), m), np.repeat(np.arange(m, dtype=np.int64), n)
    r, c = np.triu_indices(n, k=0 if h.symmetry == "symmetric" else 1)
    # triu_indices walks the upper triangle row by row, which is the lower one column by column
    return c.astype(np.int64), r.astype(np.int64)


def _strings(col):
    return np.array(col, dtype=np.bytes_) if col else np.zeros(0, dtype="S1")


def _py_int(tok):
    """A Python int for an integer token (or an integral float token), else None."""
    if _INT_RE.match(tok):
        return int(tok)
    if _FLOAT_RE.match(tok):
        x = float(tok)
        if np.isfinite(x) and x == int(x) and abs(x) <= 2**53:
            return int(x)
    return None


def _parse_indices(col, bound, what, prio, fails, name, entry_line, slow):
    """1-based indices as int64; records the first unparsable or out-of-range index."""
    try:
        if slow:
            raise ValueError
        idx = _strings(col).astype(np.int64)
    except (ValueError, OverflowError):
        ints = [int(t) if _INT_RE.match(t) else None for t in col]
        bad = next((p for p, v in enumerate(ints) if v is None), None)
        if bad is not None:
            fails.append((bad, prio, _fail(
                InvalidValue, name, int(entry_line[bad]),
                f"{what} index {col[bad].decode('latin-1')!r} is not an integer")))
        oob = next((p for p, v in enumerate(ints) if v is not None and not 1 <= v <= bound),
                   None)
        if oob is not None:
            fails.append((oob, prio + 1, _fail(
                IndexOutOfBounds, name, int(entry_line[oob]),
                f"{what} index {ints[oob]} is out of range [1, {bound}]")))
        if bad is not None or oob is not None:
            return None
        return np.array(ints, dtype=np.int64)
    oob = np.flatnonzero((idx < 1) | (idx > bound))
    if oob.size:
        p = int(oob[0])
        fails.append((p, prio + 1, _fail(
            IndexOutOfBounds, name, int(entry_line[p]),
            f"{what} index {int(idx[p])} is out of range [1, {bound}]")))
    return idx


def _parse_values(col, dt, prio, fails, name, entry_line, slow):
    """Values of type dt; records the first non-numeric or out-of-range value."""
    if dt.is_float:
        return _parse_floats(col, dt, prio, fails, name, entry_line, slow)
    lo, hi = (0, 1) if dt.is_bool else (int(np.iinfo(dt.np_type).min),
                                         int(np.iinfo(dt.np_type).max))
    parse_as = np.uint64 if dt is UINT64 else np.int64
    try:
        if slow:
            raise ValueError
        v = _strings(col).astype(parse_as)
    except (ValueError, OverflowError):
        ints = [_py_int(t) for t in col]
        bad = next((p for p, x in enumerate(ints) if x is None), None)
        if bad is not None:
            fails.append((bad, prio, _fail(
                InvalidValue, name, int(entry_line[bad]),
                f"value {col[bad].decode('latin-1')!r} is not "
                f"{'an integer' if _FLOAT_RE.match(col[bad]) else 'a number'} "
                f"(type {dt.name})")))
        oor = next((p for p, x in enumerate(ints) if x is not None and not lo <= x <= hi), None)
        if oor is not None:
            fails.append((oor, prio + 1, _out_of_range(name, entry_line[oor], ints[oor], dt)))
        if bad is not None or oor is not None:
            return None
        return np.array(ints, dtype=object).astype(dt.np_type)
    if dt is not UINT64 and dt is not INT64:
        oor = np.flatnonzero((v < lo) | (v > hi))
        if oor.size:
            p = int(oor[0])
            fails.append((p, prio + 1, _out_of_range(name, entry_line[p], int(v[p]), dt)))
            return None
    return v.astype(dt.np_type, copy=False)


def _parse_floats(col, dt, prio, fails, name, entry_line, slow):
    try:
        if slow:
            raise ValueError
        v = _strings(col).astype(np.float64)
    except ValueError:
        bad = next((p for p, t in enumerate(col) if not _FLOAT_RE.match(t)), 0)
        fails.append((bad, prio, _fail(
            InvalidValue, name, int(entry_line[bad]),
            f"value {col[bad].decode('latin-1')!r} is not a number (type {dt.name})")))
        return None
    with np.errstate(over="ignore"):
        out = v.astype(dt.np_type)
    inf = np.flatnonzero(np.isinf(out))
    if inf.size:
        # an inf that the file did not spell as inf: the value overflows the type
        over = [int(p) for p in inf if np.isfinite(v[p]) or b"inf" not in col[p].lower()]
        if over:
            p = over[0]
            fails.append((p, prio + 1, _out_of_range(name, entry_line[p],
                                                     col[p].decode("latin-1"), dt)))
            return None
    return out


def _out_of_range(name, line, value, dt):
    rng = "0 or 1" if dt.is_bool else (
        f"[{dt.min}, {dt.max}]" if not dt.is_float else f"the range of {dt.name}")
    return _fail(InvalidValue, name, int(line),
                 f"value {value} is out of range for type {dt.name} ({rng})")


def _check_skew(rows, cols, vals, dt, fails, name, entry_line):
    diag = np.flatnonzero((rows == cols) & (vals != 0))
    if diag.size:
        p = int(diag[0])
        fails.append((p, 6, _fail(InvalidValue, name, int(entry_line[p]),
                                  f"diagonal entry ({int(rows[p])}, {int(cols[p])}) of a "
                                  f"skew-symmetric matrix must be zero, got {vals[p]}")))
    if not dt.is_float:
        low = np.flatnonzero((vals == dt.min) & (rows != cols))
        if low.size:
            p = int(low[0])
            fails.append((p, 7, _fail(InvalidValue, name, int(entry_line[p]),
                                      f"value {vals[p]} cannot be negated in type {dt.name} "
                                      "(its mirror entry is out of range)")))


def _row_major_order(rows, cols, nrows, ncols):
    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64)
    if nrows * ncols < 2**63:
        return np.argsort(rows * ncols + cols, kind="stable")
    return np.lexsort((cols, rows))


def _check_duplicates(rows, cols, src, name, entry_line):
    """rows/cols sorted row-major; src[k]: the file entry that produced entry k (a mirrored
    entry points at the entry it mirrors). Reports the duplicate completed earliest."""
    if len(rows) < 2:
        return
    dup = np.flatnonzero((rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1]))
    if not dup.size:
        return
    a, b = src[dup], src[dup + 1]
    q = int(np.argmin(np.maximum(entry_line[a], entry_line[b])))
    l1, l2 = sorted((int(entry_line[a[q]]), int(entry_line[b[q]])))
    i, j = int(rows[dup[q]]) + 1, int(cols[dup[q]]) + 1
    raise _fail(InvalidValue, name, l2,
                f"duplicate entry ({i}, {j}): already given on line {l1} (directly or as the "
                "mirror image of a symmetric entry)")


# ---------------------------------------------------------------------- writing helpers
def _comment_lines(comments):
    if comments is None:
        return []
    if isinstance(comments, str):
        return comments.splitlines()
    out = []
    for c in comments:
        out.extend(str(c).splitlines() or [""])
    return out


def _value_strings(vals, dt):
    if dt is FP64:
        return [repr(x) for x in vals.tolist()]
    if dt is FP32:
        return vals.astype(str).tolist()  # NumPy's shortest float32 strings
    if dt.is_bool:
        return vals.astype(np.uint8).tolist()
    return vals.tolist()


def _mirrored_values_identical(rows, cols, vals, n):
    """Each value, bit for bit, equals its mirror's (so that the mirrored entries read back
    exactly: +0.0 is not -0.0, a NaN matches only the same NaN), for entries in CSR order
    whose pattern is symmetric (Matrix.is_symmetric(structure=True))."""
    # the keys i·n + j ascend in CSR order, so mirror[p] = the position of A(j, i)
    mirror = np.argsort(cols * n + rows)
    bits = vals.view(f"u{vals.dtype.itemsize}") if vals.dtype.kind == "f" else vals
    return bool(np.all(bits == bits[mirror]))
