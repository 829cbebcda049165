"""Operation families; importing this package registers them (conformance.cases.FAMILIES)."""
from . import products  # noqa: F401
from . import elementwise  # noqa: F401
from . import reductions  # noqa: F401
from . import indexing  # noqa: F401
from . import construction  # noqa: F401
from .. import algorithms  # noqa: F401,E402  (bfs, sssp, pagerank, triangle_count)
