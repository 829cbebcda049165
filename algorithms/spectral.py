"""Spectral clustering (nvgraphSpectralClustering) and clustering scores (nvgraphAnalyzeClustering).

For an undirected weighted graph A (symmetric), degrees d = A +.* 1 and 2m = Σ d:

    Laplacian        L = D - A                 L x = d .* x - A +.* x
    Modularity       B = A - d dᵀ / 2m         B x = A +.* x - d (dᵀx) / 2m

    MODULARITY_MAXIMIZATION   the n_eig_vects largest eigenpairs of B   (Lanczos)
    BALANCED_CUT_LANCZOS      the n_eig_vects smallest eigenpairs of L  (Lanczos)
    BALANCED_CUT_LOBPCG       the n_eig_vects smallest eigenpairs of L  (LOBPCG, Jacobi
                                                                        preconditioner 1/d)

then the eigenvector matrix (n x n_eig_vects) is whitened column by column (mean 0, standard
deviation 1), for modularity also scaled row by row to unit length (nvGRAPH's "normalized by
row and by column"), and its rows are clustered by k-means (k-means++ seeding, Lloyd steps).

The products with A are the engine's: A +.* x (mxv) for Lanczos, A +.* X (mxm with the
n x b block as a Matrix) for LOBPCG; the rank-one and diagonal terms, the orthogonalisation
and the small Rayleigh-Ritz problems (xp.linalg.eigh on (15 + k)-square tridiagonal-plus-
arrow matrices and 3(k + 4)-square projections, and the dense solver) are dense
backend-array work.

Eigensolvers:
* Dense: graphs of at most DENSE_MAX (400) vertices, and any graph whose Krylov basis
  (Lanczos: k + 15 vectors) or LOBPCG subspace (3(k + 4) vectors) reaches half of n, are solved
  by xp.linalg.eigh on the dense L or B: exact, every repeated eigenvalue included.
* Lanczos with full reorthogonalisation (two classical Gram-Schmidt passes) and thick restart
  (Wu & Simon 2000): a basis of 15 + k vectors (nvGRAPH's restartIter), restarted from the
  wanted Ritz vectors plus the residual direction; a Ritz pair has converged when
  ||A y - θ y|| = |β s_m| <= tolerance * max|θ|. A breakdown (β = 0, an invariant subspace)
  continues from a random direction, decided on the device. A Krylov space holds one vector
  per eigenspace, so repeated eigenvalues are found by deflation: Lanczos runs again in the
  orthogonal complement of the pairs found, and what it finds better than the worst kept
  (by more than the tolerance) replaces it, until a run finds nothing better (at most k
  more runs, each with the full ``evs_max_iter``).
* LOBPCG (Knyazev 2001): X, preconditioned residuals W and directions P, orthonormalised
  column by column (two Gram-Schmidt passes; a column the others already span, as W and P
  become near convergence, is replaced by a random direction), then a Rayleigh-Ritz step on
  the 3k-dimensional space. Its block (k + 4 vectors) finds eigenvalues repeated up to k + 4
  times.
Before either iterative solver returns, the residuals ||A y - θ y|| are recomputed from the
operator: NotConverged unless within RESIDUAL_SLACK (10) times the tolerance.
Iteration limits: ``evs_max_iter`` counts operator applications (Lanczos) or block iterations
(LOBPCG); past it, NotConverged (``result``: what was reached). Device reads: one pair of
figures per restart cycle or block iteration, one cost per k-means step.

Scores (analyze_clustering), with X the n x k indicator matrix of the clusters:

    intra_c = Σ_i X(i, c) (A X)(i, c)     vol_c = dᵀ X(:, c)     size_c = 1ᵀ X(:, c)
    MODULARITY  Q = (Σ_c intra_c - Σ_c vol_c² / 2m) / 2m
    EDGE_CUT    Σ_c (vol_c - intra_c) / 2            (the weight of edges between clusters)
    RATIO_CUT   Σ_c (vol_c - intra_c) / size_c       (empty clusters skipped)

Parameters (nvGRAPH's rules): n_clusters >= 2 and <= n; 2 <= n_eig_vects <= n_clusters (the
guide's bounds); evs_tolerance and kmean_tolerance 0 mean 1e-3 and 1e-2, otherwise in (0, 1);
evs_max_iter and kmean_max_iter <= 0 mean 4000 and 200. k-means stops when the change of its
cost (the sum of squared distances) divided by n falls below kmean_tolerance.

References: von Luxburg, "A tutorial on spectral clustering" (2007); Newman, "Modularity and
community structure in networks", PNAS 2006; Fender, Emad, Petiton, Naumov, "Parallel
modularity clustering", ICCS 2017 (nvGRAPH's method); Wu & Simon, SIAM J. Matrix Anal. Appl. 22
(2000); Knyazev, SIAM J. Sci. Comput. 23 (2001); nvGRAPH 9.2 guide 2.27.

NOTE: A must be symmetric; this is not checked. NOTE: weights must be finite: a NaN or inf
weight raises InvalidValue (read from the degrees and 2m the operators need anyway).
NOTE: for the balanced cut the Laplacian's first eigenvector is constant (eigenvalue 0 on a
connected graph); whitening would turn it into rounding noise, so a column whose deviation is
~0 is set to 0 instead (nvGRAPH divides anyway).
NOTE: results depend on ``seed`` (starting vectors and k-means seeding); eigenvalues do not.
"""
import math

import numpy as np

import grblas_gpu as gg
from grblas_gpu import semirings
from grblas_gpu import backend
from grblas_gpu.errors import InvalidValue, NotConverged

from ._common import check_number, check_square, check_trace, emit, float_type

__all__ = ["spectral_clustering", "analyze_clustering", "MODULARITY_MAXIMIZATION",
           "BALANCED_CUT_LANCZOS", "BALANCED_CUT_LOBPCG", "MODULARITY", "EDGE_CUT", "RATIO_CUT",
           "laplacian_eigenpairs", "modularity_eigenpairs"]

MODULARITY_MAXIMIZATION = "NVGRAPH_MODULARITY_MAXIMIZATION"
BALANCED_CUT_LANCZOS = "NVGRAPH_BALANCED_CUT_LANCZOS"
BALANCED_CUT_LOBPCG = "NVGRAPH_BALANCED_CUT_LOBPCG"
ALGORITHMS = (MODULARITY_MAXIMIZATION, BALANCED_CUT_LANCZOS, BALANCED_CUT_LOBPCG)
MODULARITY = "NVGRAPH_MODULARITY"
EDGE_CUT = "NVGRAPH_EDGE_CUT"
RATIO_CUT = "NVGRAPH_RATIO_CUT"
METRICS = (MODULARITY, EDGE_CUT, RATIO_CUT)

# nvGRAPH's Lanczos restart length is 15 + n_eig_vects (nvgraph.cpp, restartIter_lanczos).
LANCZOS_EXTRA = 15
# LOBPCG iterates on k + LOBPCG_GUARD vectors (Knyazev's guard vectors): the wanted k converge
# at the rate set by the gap to the (k + guard + 1)-th eigenvalue instead of the (k + 1)-th.
LOBPCG_GUARD = 4
# Graphs of at most this many vertices are solved densely (xp.linalg.eigh on the n x n L or
# B): exact, repeated eigenvalues included, and faster than the iterative solvers up there.
DENSE_MAX = 400
# The final residual check accepts this multiple of the tolerance (the solvers' own residual
# estimates and the recomputed residual differ by rounding).
RESIDUAL_SLACK = 10


def spectral_clustering(A, n_clusters, n_eig_vects, algorithm=MODULARITY_MAXIMIZATION,
                        evs_tolerance=1e-3, evs_max_iter=4000, kmean_tolerance=1e-2,
                        kmean_max_iter=200, *, seed=0, trace=None):
    """(clustering, eig_vals, eig_vects): an int32 array of n cluster numbers in
    [0, n_clusters), the n_eig_vects eigenvalues (largest of B first, or smallest of L first),
    and the processed n x n_eig_vects eigenvector matrix (see the module docstring).
    ``trace(dict)``: per solver cycle {stage, iteration, ...}."""
    n = check_square(A)
    check_trace(trace, "spectral_clustering")
    algorithm = _name(algorithm, ALGORITHMS, "algorithm")
    k = check_number(n_clusters, "spectral_clustering: n_clusters", integer=True)
    ne = check_number(n_eig_vects, "spectral_clustering: n_eig_vects", integer=True)
    if not 2 <= k <= n:
        raise InvalidValue(f"spectral_clustering: n_clusters must lie in [2, n={n}], got {k}")
    if not 2 <= ne <= k or ne >= n:
        raise InvalidValue(f"spectral_clustering: n_eig_vects must lie in [2, n_clusters={k}] "
                           f"and below n={n}, got {ne}")
    evs_tol = _tolerance(evs_tolerance, 1e-3, "evs_tolerance")
    km_tol = _tolerance(kmean_tolerance, 1e-2, "kmean_tolerance")
    evs_max = check_number(evs_max_iter, "spectral_clustering: evs_max_iter", integer=True)
    km_max = check_number(kmean_max_iter, "spectral_clustering: kmean_max_iter", integer=True)
    evs_max, km_max = (evs_max if evs_max > 0 else 4000), (km_max if km_max > 0 else 200)
    rs = backend.xp.random.RandomState(
        check_number(seed, "spectral_clustering: seed", integer=True) % 2**32)
    if algorithm == MODULARITY_MAXIMIZATION:
        vals, vecs = modularity_eigenpairs(A, ne, tol=evs_tol, max_iter=evs_max, rs=rs,
                                           trace=trace)
    else:
        method = "lanczos" if algorithm == BALANCED_CUT_LANCZOS else "lobpcg"
        vals, vecs = laplacian_eigenpairs(A, ne, tol=evs_tol, max_iter=evs_max, rs=rs,
                                          method=method, trace=trace)
    Y = _whiten(vecs)
    if algorithm == MODULARITY_MAXIMIZATION:
        Y = _unit_rows(Y)
    labels, converged = _best_kmeans(Y, k, km_tol, km_max, rs, trace)
    out = (labels, vals, Y)
    if not converged:
        raise NotConverged(f"spectral_clustering: k-means did not settle in {km_max} "
                           "iterations", result=out, iterations=km_max)
    return out


def modularity_eigenpairs(A, k, *, tol=1e-3, max_iter=4000, rs=None, trace=None):
    """The k largest eigenpairs of the modularity matrix B (values descending)."""
    A, d, two_m = _weighted(A)
    n, k = A.nrows, _wanted(k, A.nrows)
    xp = backend.xp
    if _dense(n, k + LANCZOS_EXTRA):
        # B = A - d dᵀ / 2m, dense
        B = A.to_dense(device=True).astype(np.float64) - xp.outer(d, d) / two_m
        return _cast_pairs(_dense_pairs(B, k, True, trace), A.dtype)

    def op(x):
        # y = A +.* x - d (dᵀx) / 2m
        return _spmv(A, x) - d * (d @ x) / two_m

    rs = rs if rs is not None else xp.random.RandomState(0)
    return _cast_pairs(_lanczos_deflated(op, n, k, True, tol, max_iter, rs, trace), A.dtype)


def laplacian_eigenpairs(A, k, *, tol=1e-3, max_iter=4000, rs=None, method="lanczos",
                         trace=None):
    """The k smallest eigenpairs of the Laplacian L = D - A (values ascending)."""
    if not isinstance(method, str) or method not in ("lanczos", "lobpcg"):
        raise InvalidValue(f"laplacian_eigenpairs: method must be 'lanczos' or 'lobpcg', "
                           f"got {method!r}")
    A, d, _ = _weighted(A)
    n, k = A.nrows, _wanted(k, A.nrows)
    xp = backend.xp
    rs = rs if rs is not None else xp.random.RandomState(0)
    block = k + LANCZOS_EXTRA if method == "lanczos" else 3 * (k + LOBPCG_GUARD)
    if _dense(n, block):
        # L = diag(d) - A, dense
        L = xp.diag(d) - A.to_dense(device=True).astype(np.float64)
        return _cast_pairs(_dense_pairs(L, k, False, trace), A.dtype)
    if method == "lanczos":
        # y = d .* x - A +.* x
        pairs = _lanczos_deflated(lambda x: d * x - _spmv(A, x), n, k, False, tol, max_iter,
                                  rs, trace)
        return _cast_pairs(pairs, A.dtype)
    dinv = xp.where(d > 0, 1.0 / xp.where(d > 0, d, 1), 1).astype(d.dtype)
    # Y = d .* X - A +.* X
    pairs = _lobpcg(lambda X: d[:, None] * X - _spmm(A, X), n, k, tol, max_iter, rs,
                    dinv, trace)
    return _cast_pairs(pairs, A.dtype)


def _wanted(k, n):
    k = check_number(k, "the number of eigenpairs", integer=True)
    if not 1 <= k <= n:
        raise InvalidValue(f"the number of eigenpairs must lie in [1, n={n}], got {k}")
    return k


def _dense(n, block):
    """Solve densely: a small graph (n <= DENSE_MAX), or a Krylov basis or LOBPCG subspace
    (``block`` vectors) not much smaller than n, where the iterative solvers lose orthogonality
    or cover the whole space anyway."""
    return n <= DENSE_MAX or 2 * block >= n


def _dense_pairs(M, k, largest, trace):
    """The k largest (or smallest) eigenpairs of the dense symmetric M (xp.linalg.eigh)."""
    theta, S = backend.xp.linalg.eigh(M)            # ascending
    emit(trace, stage="dense", iteration=1, n=M.shape[0])
    if largest:
        return theta[::-1][:k], S[:, ::-1][:, :k]
    return theta[:k], S[:, :k]


# ------------------------------------------------------------------------------ operators
def _cast_pairs(pairs, dtype):
    vals, vecs = pairs
    return vals.astype(dtype.np_type), vecs.astype(dtype.np_type)


def _weighted(A):
    """(A in its float type, degrees as an FP64 array, 2m)."""
    n = check_square(A)
    dt = float_type(A)
    A = A.dup(dt) if A.dtype != dt else A
    dv = gg.Vector(gg.FP64, n)
    # d(i) = Σ_j A(i, j)   (weighted degree)
    gg.reduce_rowwise(dv, A, semirings.monoid.plus)
    d = dv.to_dense(device=True)
    # 2m = Σ A   (NaN or ±inf exactly when a weight, or a degree, is not finite)
    two_m = float(gg.reduce_scalar(A, semirings.monoid.plus))
    if not math.isfinite(two_m) or not bool(backend.to_scalar(backend.xp.isfinite(d).all())):
        raise InvalidValue("spectral_clustering: the weights must be finite (NaN or inf found)")
    if two_m <= 0:
        raise InvalidValue("spectral_clustering: the graph has no positive edge weight")
    return A, d, two_m


def _spmv(A, x):
    y = gg.Vector(gg.FP64, A.nrows)
    # y = A +.* x
    gg.mxv(y, A, gg.Vector.from_dense(x), semirings.plus_times)
    return y.to_dense(device=True)


def _spmm(A, X):
    Y = gg.Matrix(gg.FP64, A.nrows, X.shape[1])
    # Y = A +.* X
    gg.mxm(Y, A, gg.Matrix.from_dense(X), semirings.plus_times)
    return Y.to_dense(device=True)


# ------------------------------------------------------------------------------ Lanczos
def _lanczos_deflated(op, n, k, largest, tol, max_iter, rs, trace):
    """The k wanted eigenpairs by Lanczos, with repeated eigenvalues found by deflation: a
    single-vector Krylov space holds one vector per eigenspace (in exact arithmetic), so a
    second copy of an eigenvalue is missed. After each run, Lanczos runs again on the
    orthogonal complement of the pairs found; while it finds eigenvalues better than the
    worst kept (by more than the tolerance), they replace it (at most k more runs). Then the
    true residuals ||op(y) - θ y|| are checked: NotConverged unless within the tolerance."""
    xp = backend.xp
    vals, vecs, anorm = _lanczos(op, n, k, largest, tol, max_iter, rs, trace, None)
    sign = -1.0 if largest else 1.0                  # sign * value: smaller is better
    for _ in range(k):
        if vecs.shape[1] >= n:
            break
        nv, nV, an = _lanczos(op, n, min(k, n - vecs.shape[1]), largest, tol, max_iter, rs,
                              trace, vecs)
        anorm = max(anorm, an)
        margin = tol * max(anorm, 1.0)
        worst = float(backend.to_scalar(xp.max(sign * vals)))
        if not bool(backend.to_scalar(xp.any(sign * nv < worst - margin))):
            break
        allv = xp.concatenate([vals, nv])
        allV = xp.concatenate([vecs, nV], axis=1)
        keep = xp.argsort(sign * allv)[:k]
        vals, vecs = allv[keep], allV[:, keep]
    _check_residuals(lambda Y: xp.stack([op(Y[:, i]) for i in range(Y.shape[1])], axis=1),
                     vals, vecs, anorm, tol, "Lanczos")
    return vals, vecs


def _check_residuals(op_block, vals, vecs, anorm, tol, what):
    """NotConverged unless max_i ||op(y_i) - θ_i y_i|| (relative, as the solvers measure it)
    is within RESIDUAL_SLACK times the tolerance."""
    R = op_block(vecs) - vecs * vals[None, :]
    worst = _relative_residual(backend.xp.linalg.norm(R, axis=0), vals, anorm)
    worst = float(backend.to_scalar(worst))
    if not worst <= RESIDUAL_SLACK * tol:           # (NaN fails too)
        raise NotConverged(f"{what}: the eigenpairs' relative residual {worst:.3g} exceeds "
                           f"the tolerance {tol:g}", result=(vals, vecs))


def _lanczos(op, n, k, largest, tol, max_iter, rs, trace, locked):
    """Thick-restart Lanczos (in FP64) for the k largest (or smallest) eigenpairs of a
    symmetric op, in the orthogonal complement of the columns of ``locked`` (None: the whole
    space). Returns (values, vectors, the largest |Ritz value| seen)."""
    xp = backend.xp
    dt = np.float64
    p0 = 0 if locked is None else locked.shape[1]
    m = min(n - p0, k + LANCZOS_EXTRA)
    v0 = _project(rs.uniform(-1.0, 1.0, n).astype(dt), locked)
    V = xp.zeros((n, m + 1), dtype=dt)
    T = xp.zeros((m, m), dtype=np.float64)
    V[:, 0] = v0 / xp.linalg.norm(v0)
    start, used, cycle, anorm = 0, 0, 0, 0.0
    while True:
        beta = _lanczos_steps(op, V, T, start, m, rs, locked)
        used += m - start
        cycle += 1
        theta, S = xp.linalg.eigh((T + T.T) / 2)
        order = xp.argsort(theta)
        want = order[::-1][:k] if largest else order[:k]
        top = xp.max(xp.abs(theta))
        resid = xp.abs(beta * S[m - 1, want])
        worst = _relative_residual(resid, theta[want], top)
        figures = backend.to_host(xp.stack([worst, top]))    # the one read per cycle
        worst, anorm = float(figures[0]), max(anorm, float(figures[1]))
        ok = worst <= tol                                   # (NaN: never converged)
        emit(trace, stage="lanczos", iteration=cycle, operator_applications=used,
             residual=float(worst))
        if ok or m == n - p0:
            return theta[want].astype(dt), (V[:, :m] @ S[:, want].astype(dt)), anorm
        if used >= max_iter:
            raise NotConverged(f"Lanczos: not converged after {used} operator applications",
                               result=(theta[want].astype(dt), V[:, :m] @ S[:, want].astype(dt)),
                               iterations=used)
        # thick restart: keep the wanted Ritz vectors (and more, up to half the basis)
        p = min(m - 1, max(k, (m + k) // 2))
        keep = order[::-1][:p] if largest else order[:p]
        Y = V[:, :m] @ S[:, keep].astype(dt)
        coupling = beta * S[m - 1, keep]
        V[:, :p] = Y
        V[:, p] = V[:, m]
        T[...] = 0
        T[xp.arange(p), xp.arange(p)] = theta[keep]
        T[p, :p] = coupling
        T[:p, p] = coupling
        start = p


def _project(w, locked):
    """w - Y (Yᵀ w), Y = locked (orthonormal columns): w in their orthogonal complement."""
    return w if locked is None else w - locked @ (locked.T @ w)


def _lanczos_steps(op, V, T, start, m, rs, locked=None):
    """Lanczos steps start .. m-1 with full reorthogonalisation (against V and ``locked``);
    returns β_m (device)."""
    xp = backend.xp
    n = V.shape[0]
    beta = xp.zeros((), dtype=np.float64)
    for j in range(start, m):
        w = _project(op(V[:, j]), locked)
        Vj = V[:, :j + 1]
        h = Vj.T @ w                       # first Gram-Schmidt pass
        w = _project(w - Vj @ h, locked)
        b1 = xp.linalg.norm(w)
        scale = xp.linalg.norm(h) + 1.0
        broke = b1 <= 1e-10 * scale        # an invariant subspace: go on from a random vector
        w = xp.where(broke, _project(rs.uniform(-1.0, 1.0, n).astype(w.dtype), locked), w)
        h2 = Vj.T @ w                      # second pass (orthogonalises the random one too)
        w = _project(w - Vj @ h2, locked)
        h = h + xp.where(broke, 0.0, h2).astype(h.dtype)
        T[:j + 1, j] = h
        T[j, :j + 1] = h
        b = xp.linalg.norm(w)
        beta = xp.where(broke, 0.0, b).astype(np.float64)
        if j + 1 < m:
            T[j + 1, j] = beta
            T[j, j + 1] = beta
        V[:, j + 1] = w / xp.where(b > 0, b, 1)
    return beta


# ------------------------------------------------------------------------------ LOBPCG
def _lobpcg(op, n, k, tol, max_iter, rs, precond, trace):
    """Block LOBPCG (in FP64) for the k smallest eigenpairs of a symmetric op on n x b
    blocks; b = k + LOBPCG_GUARD (guard vectors speed up the wanted ones; only the k wanted
    are tested for convergence)."""
    xp = backend.xp
    b = max(k, min(k + LOBPCG_GUARD, n // 3))
    X = _orthonormalize(rs.uniform(-1.0, 1.0, (n, b)).astype(np.float64), rs)
    AX = op(X)
    theta, C, anorm = _rayleigh_ritz(X, AX, b)
    X, AX = X @ C, AX @ C
    P = None
    for it in range(1, max_iter + 1):
        R = AX - X * theta[None, :]
        resid = xp.linalg.norm(R[:, :k], axis=0)
        worst = _relative_residual(resid, theta[:k], anorm)
        ok = bool(backend.to_scalar(worst <= tol))       # the one read per iteration
        emit(trace, stage="lobpcg", iteration=it,
             residual=float(backend.to_scalar(worst)) if trace is not None else None)
        if ok:
            _check_residuals(op, theta[:k], X[:, :k], anorm, tol, "LOBPCG")
            return theta[:k], X[:, :k]
        W = R * precond[:, None]
        S = xp.concatenate([X, W] + ([P] if P is not None else []), axis=1)
        Q = _orthonormalize(S, rs)
        AQ = op(Q)
        theta, C, top = _rayleigh_ritz(Q, AQ, b)
        anorm = xp.maximum(anorm, top)                  # ||A|| estimate: the largest Ritz value
        X, AX = Q @ C, AQ @ C
        P = Q[:, b:] @ C[b:, :]
    raise NotConverged(f"LOBPCG: not converged after {max_iter} iterations",
                       result=(theta[:k], X[:, :k]), iterations=max_iter)


def _orthonormalize(S, rs):
    """An orthonormal basis whose span contains S's, column by column (two classical
    Gram-Schmidt passes); a column that depends on the previous ones (P and W align near
    convergence) is replaced by a random direction, decided on the device. The first columns
    span the first columns of S, so X stays in front."""
    xp = backend.xp
    n, b = S.shape
    Q = xp.zeros_like(S)
    for j in range(b):
        w = S[:, j]
        scale = xp.linalg.norm(w)
        for _ in range(2):
            w = w - Q[:, :j] @ (Q[:, :j].T @ w)
        low = xp.linalg.norm(w) <= 1e-10 * scale + np.finfo(np.float64).tiny
        w = xp.where(low, rs.uniform(-1.0, 1.0, n).astype(S.dtype), w)
        for _ in range(2):
            w = w - Q[:, :j] @ (Q[:, :j].T @ w)
        Q[:, j] = w / xp.linalg.norm(w)
    return Q


def _relative_residual(resid, theta, anorm):
    """max_i ||A y_i - θ_i y_i|| / max(|θ_i|, sqrt(eps) ||A||): relative to the eigenvalue, as
    ARPACK measures it, with a floor for eigenvalues near 0 (the Laplacian's), so that their
    vectors converge too (whitening would amplify what is left of their error)."""
    xp = backend.xp
    floor = math.sqrt(np.finfo(np.float64).eps) * anorm
    return xp.max(resid / xp.maximum(xp.maximum(xp.abs(theta), floor),
                                     np.finfo(np.float64).tiny))


def _rayleigh_ritz(Q, AQ, k):
    """The k smallest eigenpairs of Qᵀ A Q (Q orthonormal), and the largest |Ritz value|."""
    xp = backend.xp
    G = Q.T @ AQ
    theta, C = xp.linalg.eigh((G + G.T) / 2)
    return theta[:k], C[:, :k], xp.max(xp.abs(theta))


# ------------------------------------------------------------------------------ embedding
# A column whose centred part is below this fraction of its norm is the constant vector (up
# to the eigensolver's error): whitening it would blow that error up to unit variance.
CONSTANT_COLUMN = 1e-6


def _whiten(V):
    """Each column to mean 0 and standard deviation 1 (a ~constant column becomes 0)."""
    xp = backend.xp
    n = V.shape[0]
    norm = xp.sqrt((V * V).sum(axis=0))
    V = V - V.mean(axis=0)[None, :]
    std = xp.sqrt((V * V).sum(axis=0) / n)
    keep = std * math.sqrt(n) > CONSTANT_COLUMN * norm
    return V / xp.where(keep, std, xp.inf)[None, :]


def _unit_rows(Y):
    xp = backend.xp
    norms = xp.sqrt((Y * Y).sum(axis=1))
    return Y / xp.where(norms > 0, norms, 1)[:, None]


# k-means runs from different seeds; the lowest cost wins (Lloyd's steps stop at a local
# optimum, and with nvGRAPH's loose default tolerance, after a few steps).
KMEANS_RUNS = 5


def _best_kmeans(Y, k, tol, max_iter, rs, trace):
    """(labels, converged) of the lowest-cost of KMEANS_RUNS k-means runs."""
    best = None
    for run in range(KMEANS_RUNS):
        labels, converged, cost = _kmeans(Y, k, tol, max_iter, rs, trace, run)
        if best is None or cost < best[2]:
            best = (labels, converged, cost)
    return best[0], best[1]


def _kmeans(Y, k, tol, max_iter, rs, trace, run=0):
    """Lloyd's k-means on the rows of Y with greedy k-means++ seeding (Arthur & Vassilvitskii
    2007; 2 + ln k candidates per center, as scikit-learn does): (int32 labels, converged,
    cost)."""
    xp = backend.xp
    n = Y.shape[0]
    y2 = (Y * Y).sum(axis=1)
    centers = xp.empty((k, Y.shape[1]), dtype=Y.dtype)
    centers[0] = Y[int(rs.randint(0, n))]
    d2 = xp.maximum(y2 - 2 * Y @ centers[0] + centers[0] @ centers[0], 0)
    trials = 2 + int(math.log(k))
    for c in range(1, k):               # greedy k-means++: the best of a few D²-sampled points
        cum = xp.cumsum(d2)
        picks = xp.searchsorted(cum, rs.uniform(0, 1, trials) * cum[-1], side="right")
        cand = Y[xp.minimum(picks, n - 1)]                            # trials x dims
        dc = xp.maximum(y2[:, None] - 2 * Y @ cand.T + (cand * cand).sum(axis=1)[None, :], 0)
        pot = xp.minimum(d2[:, None], dc)                             # n x trials
        best = xp.argmin(pot.sum(axis=0))
        centers[c] = cand[best]
        d2 = pot[:, best]
    cost_prev = math.inf
    for it in range(1, max_iter + 1):
        D = y2[:, None] - 2 * Y @ centers.T + (centers * centers).sum(axis=1)[None, :]
        labels = xp.argmin(D, axis=1)
        cost = float(backend.to_scalar(xp.maximum(D.min(axis=1), 0).sum()))   # the one read
        O = (labels[:, None] == xp.arange(k)[None, :]).astype(Y.dtype)
        counts = O.sum(axis=0)
        sums = O.T @ Y
        centers = xp.where(counts[:, None] > 0, sums / xp.where(counts > 0, counts, 1)[:, None],
                           centers)
        emit(trace, stage="kmeans", run=run, iteration=it, cost=cost)
        if not math.isfinite(cost):  # (NaN never passes the test below: fail now)
            raise NotConverged(f"spectral_clustering: the k-means cost is {cost}",
                               iterations=it)
        if abs(cost_prev - cost) / n < tol:
            return labels.astype(np.int32), True, cost
        cost_prev = cost
    return labels.astype(np.int32), False, cost


# ------------------------------------------------------------------------------ scores
def analyze_clustering(A, n_clusters, clustering, metric=MODULARITY):
    """The clustering's MODULARITY, EDGE_CUT or RATIO_CUT (see the module docstring)."""
    n = check_square(A)
    metric = _name(metric, METRICS, "metric")
    k = check_number(n_clusters, "analyze_clustering: n_clusters", integer=True)
    if k < 1:
        raise InvalidValue(f"analyze_clustering: n_clusters must be >= 1, got {k}")
    xp = backend.xp
    c = xp.asarray(clustering)
    if c.ndim != 1 or c.shape[0] != n or (n and c.dtype.kind not in "iu"):
        raise InvalidValue(f"analyze_clustering: clustering must hold {n} integers")
    if n and not bool(backend.to_scalar(((c >= 0) & (c < k)).all())):
        raise InvalidValue(f"analyze_clustering: cluster numbers must lie in [0, {k})")
    Af = A.dup(gg.FP64)
    X = gg.Matrix.from_coo(xp.arange(n, dtype=np.int64), c.astype(np.int64), 1.0, nrows=n,
                           ncols=k, dtype=gg.FP64)
    AX = gg.Matrix(gg.FP64, n, k)
    # AX = A +.* X
    gg.mxm(AX, Af, X, semirings.plus_times)
    # AX = X .* AX   (AX(i, c): the weight from i into its own cluster c)
    gg.ewise_mult(AX, X, AX, semirings.binary.times)
    d, ones = gg.Vector(gg.FP64, n), gg.Vector(gg.FP64, n)
    # d(i) = Σ_j A(i, j)
    gg.reduce_rowwise(d, Af, semirings.monoid.plus)
    # ones(:) = 1
    gg.assign(ones, 1.0, gg.ALL)
    intra, vol, size = (gg.Vector(gg.FP64, k) for _ in range(3))
    # intra = 1 +.* AX
    gg.vxm(intra, ones, AX, semirings.plus_times)
    # vol = d +.* X
    gg.vxm(vol, d, X, semirings.plus_times)
    # size = 1 +.* X
    gg.vxm(size, ones, X, semirings.plus_times)
    intra, vol, size = (v.to_dense(device=True) for v in (intra, vol, size))
    # 2m = Σ A
    two_m = float(gg.reduce_scalar(Af, semirings.monoid.plus))
    if metric == MODULARITY:
        if two_m == 0:
            return 0.0
        q = (intra.sum() - (vol * vol).sum() / two_m) / two_m
        return float(backend.to_scalar(q))
    cut = vol - intra
    if metric == EDGE_CUT:
        return float(backend.to_scalar(cut.sum() / 2))
    ratio = xp.where(size > 0, cut / xp.where(size > 0, size, 1), 0)
    return float(backend.to_scalar(ratio.sum()))


def _name(x, allowed, what):
    s = str(x).upper()
    if not s.startswith("NVGRAPH_"):
        s = "NVGRAPH_" + s
    if s not in allowed:
        raise InvalidValue(f"unknown {what} {x!r}; expected one of {allowed}")
    return s


def _tolerance(x, default, what):
    x = check_number(x, f"spectral_clustering: {what}")
    if x == 0.0:
        return default
    if not 0.0 < x < 1.0:
        raise InvalidValue(f"spectral_clustering: {what} must be 0 (default) or lie in (0, 1)")
    return x
