"""networkx's ``networkx.backend_info`` entry point for grblas_gpu's backend (as nx-cugraph's
``_nx_cugraph``): imported whenever networkx is, so it imports nothing."""

# networkx function name -> notes shown in networkx's docs for the grblas_gpu backend
_FUNCTIONS = {
    "pagerank": "networkx's power iteration and convergence rule, on the device.",
    "bfs_layers": "Layers in networkx's order.",
    "single_source_shortest_path_length": "Breadth-first search on the device.",
    "single_source_dijkstra_path_length":
        "Shortest paths on the device for finite non-negative weights; other weights use "
        "networkx's own Dijkstra.",
    "triangles": "Per-node counts from one masked product.",
    "connected_components": "FastSV on the device.",
    "number_connected_components": "FastSV on the device.",
    "betweenness_centrality": "Batched Brandes on the device; weight=None only.",
    "clustering": "Undirected graphs, weight=None only.",
    "eigenvector_centrality": "networkx's power iteration on A + I, on the device.",
    "jaccard_coefficient": "Common neighbours of all the pairs by one masked product.",
    "core_number": "Peeling by degree with masked operations.",
    "k_truss": "Edge supports by a masked product, iterated; returns networkx's graph type.",
    "hits": "scipy's svds (ARPACK), as networkx, with the products on the device.",
}


def get_info():
    """The backend's description for networkx (names, docs, functions)."""
    return {
        "backend_name": "grblas_gpu",
        "project": "grblas-gpu",
        "package": "grblas_gpu",
        "short_summary": "GraphBLAS on GPUs (CuPy), with a NumPy backend.",
        "functions": {name: {"additional_docs": doc} for name, doc in _FUNCTIONS.items()},
        "default_config": {},
    }
