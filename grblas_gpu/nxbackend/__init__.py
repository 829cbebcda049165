"""A networkx backend: ``nx.pagerank(G, backend="grblas_gpu")``.

networkx finds it through two entry points (pyproject.toml): ``networkx.backends`` names
:class:`interface.BackendInterface` (the functions, ``convert_from_nx`` / ``convert_to_nx``,
``can_run`` / ``should_run``) and ``networkx.backend_info`` names ``_nx_grblas_gpu.get_info``
(kept outside this package so that importing networkx does not import the engine).

The backend converts a networkx graph to a :class:`graph.GrBGraph` (its nodes in ``list(G)``
order and its edges, matrices built from them on demand) and runs networkx's functions on it
with networkx's arguments, errors and results: dicts keyed by node, unreachable nodes absent,
weights by attribute name (missing: 1), undirected edges both ways, multigraphs as networkx
treats them. It sits above algorithms/ and uses only algorithms/ and the public API.
"""
from .graph import GrBGraph, convert_from_nx, convert_to_nx
from .interface import FUNCTIONS, BackendInterface, can_run, should_run

__all__ = ["GrBGraph", "BackendInterface", "FUNCTIONS", "convert_from_nx", "convert_to_nx",
           "can_run", "should_run"]
