"""Randomized low-rank SVD and PCA: ``svd_lowrank`` and ``pca_lowrank`` (Python-level
functions in torch too), written in ember ops, so they are differentiable like any
composition.

The method is Halko, Martinsson and Tropp, "Finding structure with randomness" (2009):
an orthonormal basis ``Q`` of the range of ``A R`` (``R`` a Gaussian ``n x q`` draw),
refined by ``niter`` power iterations with re-orthonormalisation (QR) after every product,
then the SVD of the small ``Q^H A``. Wide matrices are handled through their adjoint. The
Gaussian draw comes from ember's generator, so the results match torch's exactly only where
they do not depend on it (a matrix of rank at most ``q``), as with any two seeds.
"""
from .. import _dtype
from ._core import register
from .random import randn
from .factorizations import svd
from . import linalg as _products


def qr(A):
    """``linalg.qr`` (the public op: its dtype refusals, float16's among them)."""
    from ..linalg import qr as public
    return public(A)

__all__ = []


def _basis(A, q, niter, M):
    """An ``m x q`` orthonormal basis approximating the range of ``A - M``."""
    def times(X):
        return A.matmul(X) if M is None else A.matmul(X) - M.matmul(X)

    def adjoint_times(X):
        return A.mH.matmul(X) if M is None else A.mH.matmul(X) - M.mH.matmul(X)

    # (q=False is 0, as in torch; an A of another dtype than float16/32/64 or complex gets
    # float32 samples, as torch's, whose product with A then refuses the mix of dtypes)
    keep = A.dtype in (_dtype.float16, _dtype.float32, _dtype.float64) or A.dtype.is_complex
    R = randn(A.shape[-1], q, dtype=A.dtype if keep else _dtype.float32)
    Q = qr(times(R)).Q
    for _ in range(niter):
        Q = qr(adjoint_times(Q)).Q
        Q = qr(times(Q)).Q
    return Q


def _svd_lowrank(A, q, niter, M):
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:  # work on the tall adjoint
        A = A.mH
        M = None if M is None else M.mH
    Q = _basis(A, q, niter, M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    return (V, S, U) if wide else (U, S, V)


@register(method=False)
def svd_lowrank(A, q=6, niter=2, M=None):
    """An approximate rank-``q`` SVD ``A - M ~ U diag(S) V^H`` by randomized range finding
    (``niter`` power iterations); exact for a matrix of rank at most ``q``."""
    _products._check_tensor(A, 'svd_lowrank', 'A', 1)
    return _svd_lowrank(A, 6 if q is None else q, 2 if niter is None else niter, M)


@register(method=False)
def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal components of the rows of ``A``: ``svd_lowrank`` of ``A`` minus its
    column means (``center``), ``q`` defaulting to ``min(6, m, n)``."""
    _products._check_tensor(A, 'pca_lowrank', 'A', 1)
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):  # (in that order, as torch: its TypeErrors)
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A, q, niter, None)
