"""Source-text spellings shared by both sides: scalars, index lists, masks.

Cases are executed as source text (so that reproducers are exactly what ran); these
functions spell a case's values the same way for grblas_gpu and python-graphblas.
"""

__all__ = ["scalar_text", "index_text", "mask_text", "alias_text"]


def scalar_text(value, tname):
    """A typed NumPy scalar literal: np.int8(3), np.float32(0.5), np.bool_(True)."""
    npname = {"BOOL": "bool_", "FP32": "float32", "FP64": "float64"}.get(tname, tname.lower())
    if isinstance(value, float) and value != value:
        lit = "np.nan"
    elif isinstance(value, float) and value in (float("inf"), float("-inf")):
        lit = "np.inf" if value > 0 else "-np.inf"
    else:
        lit = repr(value)
    return f"np.{npname}({lit})"


def index_text(key, lib):
    """An index argument: a list, one int, or ALL (python-graphblas ':', grblas_gpu gg.ALL)."""
    if key == "ALL":
        return ":" if lib == "gb" else "gg.ALL"
    if isinstance(key, int):
        return repr(key)
    if not key:  # typed: python-graphblas reads an empty list as float64
        return "np.array([], dtype=np.int64)"
    return repr([int(k) for k in key])


def mask_text(case, lib):
    """(mask argument text, {descriptor fields}) for grblas_gpu ('gg') or python-graphblas.
    ``mask_via``: 'object' (M.S, ~M.V...), 'desc' (M with the descriptor's mask fields) or
    'null': no mask object, only the descriptor's fields (GrB_DESC_C, GrB_DESC_RC,
    GrB_DESC_S with a NULL mask). python-graphblas cannot pass a NULL mask with a
    descriptor; SuiteSparse's C⟨!NULL⟩ allows nothing, as an empty mask does, and its
    C⟨struct(NULL)⟩ is no mask (tests/test_desc_null_mask.py checks both against
    SuiteSparse's own GrB_DESC_C / _RC / _S)."""
    mask = case.p("mask", "none")
    if mask == "none":
        return None, {}
    if case.p("mask_via") == "null":
        if lib == "gg":
            return None, {"mask_complement": True} if "~" in mask else {}
        return ("type(M)(bool, *M.shape).S" if "~" in mask else None), {}
    if mask == "comp":  # the descriptor's complement with no mask: nothing may be written
        # (python-graphblas cannot say it; an empty structural mask M means the same)
        return (None, {"mask_complement": True}) if lib == "gg" else ("M.S", {})
    if lib == "gg" and case.p("mask_via") == "desc":
        fields = {}
        if "S" in mask:
            fields["mask_structure"] = True
        if "~" in mask:
            fields["mask_complement"] = True
        return "M", fields
    return f"{'~' if '~' in mask else ''}M.{mask[-1]}", {}


def alias_text(case, out):
    """Lines making inputs (or the mask) the output object itself (``alias``: their names),
    for calls such as C = A ⊕.⊗ C or C⟨C⟩ = ...: the operation must read them as they were."""
    return "".join(f"{name} = {out}  # aliased: the output is also {name}\n"
                   for name in case.p("alias", ()))
