"""grblas_gpu.distributed: Matrix and Vector split over the workers of a Dask cluster.

    from grblas_gpu import distributed as dist

    client = dist.connect(n_workers=3)            # or dist.connect(existing_client)
    A = dist.DistMatrix.from_matrix(M, client)    # row blocks balanced by entries
    u = dist.DistVector.from_vector(v, A)         # split as A's rows
    w = dist.DistVector.empty(A, "FP64")
    dist.mxv(w, A, u, "plus_times", mask=..., accum=..., desc=...)   # gg.mxv's signature
    w.gather()                                    # a local Vector

The model (cuGraph's multi-GPU layer): Dask places the blocks (each an ordinary
grblas_gpu object's CSR or COO arrays, host arrays living on one worker) and starts the work,
one task per worker (SPMD, a rank each); inside a task the ranks exchange data through
collectives (:mod:`grblas_gpu.distributed.comm`), not through one scheduler round trip per
operation. A Matrix is split into row blocks holding about equal entries (1-D; a row is
never split, a block may be empty); a Vector that goes with it is split at the same rows.

On the CuPy backend ``connect()`` starts one worker per visible GPU (dask-cuda's
LocalCUDACluster when it imports, else the same workers as a SpecCluster), each rank runs
the engine on its GPU and the collectives are NCCL's (``cupy.cuda.nccl``: one communicator
per set of workers, kept for later runs); on NumPy, CPU worker processes exchange through
Dask queues.

What is distributed so far (grblas_gpu.distributed.ops says how each works): building from a
local Matrix or Vector and gathering back; mxv and vxm with masks, accumulators, replace
and a transposed A; reduce_rowwise and reduce_columnwise of a DistMatrix; ewise_add,
ewise_mult, apply, select (value operators) and reduce_scalar on vectors. Algorithms
(grblas_gpu.distributed.algorithms): BFS levels, PageRank, SSSP (Bellman-Ford), connected
components (label propagation) and triangle counting (L replicated), each one SPMD task per
rank with its collectives inside the loop. A block becomes a Matrix on its worker once and
stays there between calls (grblas_gpu.distributed.resident). R-MAT graphs are drawn on the
workers (grblas_gpu.distributed.build.rmat). Not written yet: mxm, select by index,
extract and assign, matrices' element-wise operations, reading files on the workers, FastSV.
"""
from .cluster import connect
from .objects import DistMatrix, DistVector
from .ops import (apply, ewise_add, ewise_mult, mxv, reduce_columnwise, reduce_rowwise,
                  reduce_scalar, select, vxm)
from .algorithms import bfs_levels, connected_components, pagerank, sssp, triangle_count
from .build import rmat

__all__ = ["connect", "DistMatrix", "DistVector", "rmat", "mxv", "vxm", "ewise_add",
           "ewise_mult", "apply", "select", "reduce_rowwise", "reduce_columnwise",
           "reduce_scalar", "bfs_levels", "pagerank", "sssp", "connected_components",
           "triangle_count"]
