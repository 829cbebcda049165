"""Foreign names for catalog operators: nvGRAPH, oneMKL and the GraphBLAS C names.

nvGRAPH (nvgraphSemiring_t) names untyped semirings; nvgraphSrSpmv runs them on the graph's
float or double data:

* NVGRAPH_PLUS_TIMES_SR -> plus_times, NVGRAPH_MIN_PLUS_SR -> min_plus,
  NVGRAPH_MAX_MIN_SR -> max_min.
* NVGRAPH_OR_AND_SR -> lor_land. nvGRAPH defines it on the set {0.0, 1.0} with OR and AND
  (identities 0 and 1): values are truth values, nonzero meaning true. lor_land is BOOL only,
  and on float operands it runs at BOOL (python-graphblas's coercion): each value is cast to
  BOOL (nonzero, NaN included, is true), the result is BOOL. The nvGRAPH adapter stores it back
  into the float vertex set as 1.0 / 0.0, which is what nvGRAPH's (T)(a || b) gives.

oneMKL (mkl_graph_semiring_t) names a semiring at one type, MKL_GRAPH_SEMIRING_<ADD>_<MUL>_<T>;
these resolve to ``Typed`` semirings (the type is the input type; for all 17 it is also the
output type). The glossary's example spells one without SEMIRING_ (MKL_GRAPH_PLUS_TIMES_FP32);
that spelling is accepted too. Accumulators (mkl_graph_accumulator_t) name binary operators:
NONE is None, PLUS, MIN and LOR are plus, min, lor (untyped: the write-back runs them at the
output's type).

GraphBLAS C names (GrB_PLUS_TIMES_SEMIRING_FP64, GxB_PLUS_TIMES_FP64, GrB_PLUS_MONOID_INT32,
GxB_PLUS_INT32_MONOID, GrB_PLUS_INT32, GrB_AINV_FP32, GrB_DIV_INT32) resolve to Typed
operators; DIV is cdiv.
"""
from grblas_gpu.types import ALL_TYPES, lookup_dtype

NVGRAPH_SEMIRINGS = {
    "NVGRAPH_PLUS_TIMES_SR": "plus_times",
    "NVGRAPH_MIN_PLUS_SR": "min_plus",
    "NVGRAPH_MAX_MIN_SR": "max_min",
    "NVGRAPH_OR_AND_SR": "lor_land",
}

_ONEMKL_LIST = """
    PLUS_TIMES_INT32 PLUS_TIMES_INT64 PLUS_TIMES_FP32 PLUS_TIMES_FP64 PLUS_FIRST_FP32
    PLUS_SECOND_FP32 PLUS_PAIR_INT32 PLUS_PAIR_INT64 LOR_LAND_BOOL MIN_PLUS_INT32
    MIN_FIRST_INT32 MIN_SECOND_INT32 ANY_FIRST_INT32 ANY_FIRST_FP32 ANY_SECOND_INT32
    ANY_SECOND_FP32 ANY_PAIR_BOOL
""".split()


def _split_typed(word):
    *ops, tname = word.split("_")
    return "_".join(ops).lower(), lookup_dtype(tname)


# name -> (semiring name, DataType)
ONEMKL_SEMIRINGS = {"MKL_GRAPH_SEMIRING_" + w: _split_typed(w) for w in _ONEMKL_LIST}
ONEMKL_SEMIRINGS.update({"MKL_GRAPH_" + w: _split_typed(w) for w in _ONEMKL_LIST})

# name -> binary op name, or None for no accumulation
ONEMKL_ACCUMULATORS = {
    "MKL_GRAPH_ACCUMULATOR_NONE": None,
    "MKL_GRAPH_ACCUMULATOR_PLUS": "plus",
    "MKL_GRAPH_ACCUMULATOR_MIN": "min",
    "MKL_GRAPH_ACCUMULATOR_LOR": "lor",
}

_TYPE_WORDS = {t.name for t in ALL_TYPES}
_C_OP_NAMES = {"div": "cdiv", "oneb": "pair"}


def parse_c_name(name):
    """(kind or None, operator name, DataType) for a GrB_/GxB_ name, or None if it is not one.
    kind is None where the name alone does not say (GrB_PLUS_INT32: binary op or monoid)."""
    upper = name.upper()
    if not (upper.startswith("GRB_") or upper.startswith("GXB_")):
        return None
    words = upper[4:].split("_")
    kind = None
    for marker, k in (("SEMIRING", "semiring"), ("MONOID", "monoid")):
        if marker in words:
            words.remove(marker)
            kind = k
    types = [w for w in words if w in _TYPE_WORDS]
    if len(types) != 1:
        return None
    words.remove(types[0])
    ops = [_C_OP_NAMES.get(w.lower(), w.lower()) for w in words]
    if len(ops) == 2 and kind is None:
        kind = "semiring"
    if not ops or len(ops) > 2:
        return None
    return kind, "_".join(ops), lookup_dtype(types[0])
