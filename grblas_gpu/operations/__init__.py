"""Operations: each validates, computes its result T, then calls writeback.write_back."""
from .writeback import write_back

__all__ = []
from .extract import ALL, extract  # noqa: E402  (issue 4B: extract; A[I, J])
from .assign import assign, subassign  # noqa: E402  (issue 4B: assign, subassign; C[I, J] = A)
__all__ += ["ALL", "extract", "assign", "subassign"]
from .ewise import ewise_add, ewise_mult, ewise_union  # noqa: E402  (issue 4A)
__all__ += ["ewise_add", "ewise_mult", "ewise_union"]
from .apply import apply  # noqa: E402  (issue 4A)
__all__ += ["apply"]
from .select import select  # noqa: E402  (issue 4A)
__all__ += ["select"]
from .reduce import reduce_columnwise, reduce_rowwise, reduce_scalar  # noqa: E402  (issue 4A)
__all__ += ["reduce_rowwise", "reduce_columnwise", "reduce_scalar"]
from .transpose import transpose  # noqa: E402  (issue 4A)
__all__ += ["transpose"]
from .kronecker import kronecker  # noqa: E402  (issue 4A)
__all__ += ["kronecker"]
from .diag import matrix_diag, vector_diag  # noqa: E402  (issue 4A; Matrix.diag / Vector.diag)
__all__ += ["matrix_diag", "vector_diag"]
from .mxm import mxm  # noqa: E402  (issue 3: mxm; A.mxm(B), A @ B)
__all__ += ["mxm"]
from .mxv import mxv, vxm  # noqa: E402  (issue 3: mxv, vxm; A.mxv, u.vxm, A @ u, u @ A)
__all__ += ["mxv", "vxm"]
