"""The object networkx loads for the ``grblas_gpu`` backend (entry point
``networkx.backends``): the dispatched functions, ``convert_from_nx`` / ``convert_to_nx``,
``can_run`` and ``should_run``."""
import inspect
import numbers

from . import functions
from .graph import convert_from_nx, convert_to_nx

__all__ = ["BackendInterface", "FUNCTIONS", "can_run", "should_run"]

FUNCTIONS = tuple(functions.__all__)


def _refusal(name, bound):
    """Why the backend cannot run ``name`` with these arguments, or None."""
    args = bound.arguments
    if name == "single_source_dijkstra_path_length" and callable(args.get("weight")):
        return "a callable weight is not supported (an edge attribute name or None is)"
    if name == "betweenness_centrality" and args.get("weight") is not None:
        return "weighted betweenness is not supported (weight=None only)"
    if name == "clustering":
        if args.get("weight") is not None:
            return "weighted clustering is not supported (weight=None only)"
        G = args.get("G")
        if G is not None and G.is_directed():
            return "directed clustering is not supported (undirected graphs only)"
    if name == "eigenvector_centrality" and callable(args.get("weight")):
        return "a callable weight is not supported"
    if name == "k_truss" and not isinstance(args.get("k"), numbers.Real):
        return "k must be a real number"
    return None


def can_run(name, args, kwargs):
    """True, or a string saying why not (networkx logs it and tries the next backend)."""
    func = getattr(functions, name, None)
    if name not in FUNCTIONS or func is None:
        return f"grblas_gpu does not implement {name}"
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except TypeError as exc:
        return f"arguments not understood: {exc}"
    bound.apply_defaults()
    return _refusal(name, bound) or True


def should_run(name, args, kwargs):
    """Every function the backend can run is worth running on it when asked for."""
    return True


class BackendInterface:
    """networkx's backend interface: attributes named as networkx's functions."""
    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)


for _name in FUNCTIONS:
    setattr(BackendInterface, _name, staticmethod(getattr(functions, _name)))
