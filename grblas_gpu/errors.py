"""Exceptions, each carrying the GraphBLAS, nvGRAPH and oneMKL status it stands for.

``err.status`` is the GraphBLAS name by default; the nvGRAPH and oneMKL adapters set it
to their own name (``err.nvgraph_status`` / ``err.mkl_status``) before re-raising.
"""

__all__ = [
    "GraphBLASError", "InvalidValue", "DimensionMismatch", "IndexOutOfBounds",
    "DomainMismatch", "NotSupported", "TypeNotSupported", "AllocFailed",
    "NotConverged", "NotInitialized", "InternalError", "EmptyObject", "status_string",
]


class GraphBLASError(Exception):
    grb_status = "GrB_PANIC"
    nvgraph_status = "NVGRAPH_STATUS_INTERNAL_ERROR"
    mkl_status = "MKL_GRAPH_STATUS_INTERNAL_ERROR"

    def __init__(self, message="", *, status=None):
        super().__init__(message)
        self.status = status or self.grb_status

    def __str__(self):
        return f"{self.status}: {super().__str__()}"


class InvalidValue(GraphBLASError, ValueError):
    grb_status = "GrB_INVALID_VALUE"
    nvgraph_status = "NVGRAPH_STATUS_INVALID_VALUE"
    mkl_status = "MKL_GRAPH_STATUS_INVALID_VALUE"


class DimensionMismatch(GraphBLASError, ValueError):
    grb_status = "GrB_DIMENSION_MISMATCH"
    nvgraph_status = "NVGRAPH_STATUS_INVALID_VALUE"
    mkl_status = "MKL_GRAPH_STATUS_INVALID_VALUE"


class IndexOutOfBounds(GraphBLASError, IndexError):
    grb_status = "GrB_INDEX_OUT_OF_BOUNDS"
    nvgraph_status = "NVGRAPH_STATUS_INVALID_VALUE"
    mkl_status = "MKL_GRAPH_STATUS_INVALID_VALUE"


class DomainMismatch(GraphBLASError, TypeError):
    grb_status = "GrB_DOMAIN_MISMATCH"
    nvgraph_status = "NVGRAPH_STATUS_TYPE_NOT_SUPPORTED"
    mkl_status = "MKL_GRAPH_STATUS_INVALID_VALUE"


class NotSupported(GraphBLASError):
    grb_status = "GrB_NOT_IMPLEMENTED"
    nvgraph_status = "NVGRAPH_STATUS_NOT_IMPLEMENTED"
    mkl_status = "MKL_GRAPH_STATUS_NOT_SUPPORTED"


class TypeNotSupported(NotSupported, TypeError):
    grb_status = "GrB_DOMAIN_MISMATCH"
    nvgraph_status = "NVGRAPH_STATUS_TYPE_NOT_SUPPORTED"
    mkl_status = "MKL_GRAPH_STATUS_NOT_SUPPORTED"


class AllocFailed(GraphBLASError, MemoryError):
    grb_status = "GrB_OUT_OF_MEMORY"
    nvgraph_status = "NVGRAPH_STATUS_ALLOC_FAILED"
    mkl_status = "MKL_GRAPH_STATUS_ALLOC_FAILED"


class EmptyObject(GraphBLASError, ValueError):
    """A GrB_Scalar argument (a 1-entry Vector) holds no entry where a value is needed."""
    grb_status = "GrB_EMPTY_OBJECT"
    nvgraph_status = "NVGRAPH_STATUS_INVALID_VALUE"
    mkl_status = "MKL_GRAPH_STATUS_INVALID_VALUE"


class NotConverged(GraphBLASError):
    """An iterative method stopped at its limit; ``result`` holds the last iterate."""

    grb_status = "GrB_PANIC"
    nvgraph_status = "NVGRAPH_STATUS_NOT_CONVERGED"
    mkl_status = "MKL_GRAPH_STATUS_INTERNAL_ERROR"

    def __init__(self, message="", *, result=None, iterations=None, status=None):
        super().__init__(message, status=status or self.nvgraph_status)
        self.result = result
        self.iterations = iterations


class NotInitialized(GraphBLASError):
    grb_status = "GrB_UNINITIALIZED_OBJECT"
    nvgraph_status = "NVGRAPH_STATUS_NOT_INITIALIZED"
    mkl_status = "MKL_GRAPH_STATUS_NOT_INITIALIZED"


class InternalError(GraphBLASError):
    grb_status = "GrB_PANIC"
    nvgraph_status = "NVGRAPH_STATUS_INTERNAL_ERROR"
    mkl_status = "MKL_GRAPH_STATUS_INTERNAL_ERROR"


# nvgraphStatusGetString's texts (nvGRAPH 9.2 guide, section 2.26)
_STATUS_STRINGS = {
    "NVGRAPH_STATUS_SUCCESS": "Success",
    "NVGRAPH_STATUS_NOT_INITIALIZED": "nvGRAPH not initialized",
    "NVGRAPH_STATUS_ALLOC_FAILED": "nvGRAPH alloc failed",
    "NVGRAPH_STATUS_INVALID_VALUE": "nvGRAPH invalid value",
    "NVGRAPH_STATUS_ARCH_MISMATCH": "nvGRAPH arch mismatch",
    "NVGRAPH_STATUS_MAPPING_ERROR": "nvGRAPH mapping error",
    "NVGRAPH_STATUS_EXECUTION_FAILED": "nvGRAPH execution failed",
    "NVGRAPH_STATUS_INTERNAL_ERROR": "nvGRAPH internal error",
    "NVGRAPH_STATUS_TYPE_NOT_SUPPORTED": "nvGRAPH type not supported",
    "NVGRAPH_STATUS_NOT_CONVERGED": "nvGRAPH algorithm failed to converge",
    "NVGRAPH_STATUS_GRAPH_TYPE_NOT_SUPPORTED": "nvGRAPH graph type not supported",
    "NVGRAPH_STATUS_NOT_IMPLEMENTED": "nvGRAPH feature not implemented",
}


def status_string(status):
    """The text nvgraphStatusGetString gives for a status name (or an exception)."""
    if isinstance(status, GraphBLASError):
        status = status.nvgraph_status
    if not isinstance(status, str):
        raise InvalidValue(f"a status is a name or an exception, got {type(status).__name__}")
    return _STATUS_STRINGS.get(status, "Unknown nvGRAPH Status")
