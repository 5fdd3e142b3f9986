"""``lobpcg``: a few extreme eigenpairs of a large symmetric positive-definite problem
``A X = B X diag(E)`` by the locally optimal block preconditioned conjugate gradient method
(Knyazev, 2001). A Python-level function in torch too; ember's is its own.

The iteration runs on NumPy arrays: with ``B`` the problem is first made standard through
``B``'s Cholesky factor; each step takes the Rayleigh-Ritz solution on the span of the
current vectors, their (preconditioned) residuals and the previous search directions,
orthonormalised through an SVD so that directions that became dependent are dropped rather
than amplified. It stops when every requested pair's relative residual is below ``tol``
(``sqrt(eps)`` by default) or after ``niter`` steps (``-1``: until convergence, bounded so
that a matrix with inf/NaN cannot loop forever). The starting block is a draw from ember's
generator, so results match torch's to the convergence tolerance, up to each vector's sign.

The derivative (``B = I``, as in torch) is that of the eigenpairs themselves:
``gA = sym(sum_i u_i gD_i u_i^T - R_i gU_i u_i^T)`` with ``R_i`` the inverse of
``A - d_i I`` on the complement of ``u_i``, written in ember ops from the saved outputs, so
it differentiates again.
"""
import numpy as np

from ._core import Node, register, track1, results
from . import linalg as _products
from .factorizations import solve
from .random import randn
from ..autograd.graph import _SavedOutput

__all__ = []


def _orthonormal_basis(S):
    """An orthonormal basis of the span of ``S``'s columns, each scaled to unit norm first
    (residuals shrink as the iteration converges), dependent directions dropped."""
    norms = np.linalg.norm(S, axis=0)
    S = S[:, norms > 0] / norms[norms > 0]
    u, s, _ = np.linalg.svd(S, full_matrices=False)
    return u[:, s > s[:1] * np.finfo(S.dtype).eps * S.shape[0]] if s.size else u


def _ritz(A, Q, n, largest):
    """The ``n`` extreme Ritz pairs of ``A`` on the span of the orthonormal ``Q``."""
    e, C = np.linalg.eigh(Q.T @ A @ Q)
    idx = np.argsort(-e if largest else e, kind='stable')[:n]
    return e[idx], Q @ C[:, idx]


def _lobpcg_arrays(A, B, X, k, iK, niter, tol, largest):
    L = None
    if B is not None:  # A x = l B x  <=>  (L^-1 A L^-T) y = l y  with  x = L^-T y
        L = np.linalg.cholesky(B)
        Li = np.linalg.inv(L)
        A = Li @ A @ Li.T
        X = L.T @ X
    m = A.shape[-1]
    n = X.shape[-1]
    E, X = _ritz(A, _orthonormal_basis(X), n, largest)
    scale = np.abs(A).sum(0).max() or 1.0  # a cheap bound of ||A||
    P = None
    steps = niter if niter >= 0 else 10 * m + 1000
    for _ in range(steps):
        R = A @ X - X * E
        err = np.linalg.norm(R, axis=0) / (scale + np.abs(E))
        if np.all(err[:k] < tol) or not np.all(np.isfinite(err)):
            break
        if iK is not None:
            R = iK @ R if L is None else L.T @ (iK @ (L @ R))
        S = [X, R] if P is None else [X, R, P]
        Q = _orthonormal_basis(np.concatenate(S, axis=1))
        E_new, X_new = _ritz(A, Q, n, largest)
        P = X_new - X @ (X.T @ X_new)
        E, X = E_new, X_new
    if L is not None:
        X = np.linalg.solve(L.T, X)
    return E[:k], X[:, :k]


class LOBPCGAutogradFunctionBackward(Node):
    """Gradient of ``lobpcg`` (``B = I``): the eigenpairs' derivative through the resolvent
    of ``A`` on each eigenvector's complement, symmetrised."""

    def backward(self, gE, gX):
        if self.generalized:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        A = self.saved_tensors[0]
        E, U = self.saved_tensors[1:]
        gA = (U * gE.unsqueeze(-2)).matmul(U.mT)
        n = A.shape[-1]
        eye = A.new_zeros((n, n)) + _eye(n, A)
        for i in range(U.shape[-1]):
            u = U[..., i:i + 1]
            P = eye - u.matmul(u.mT)
            shifted = A - E[..., i:i + 1].unsqueeze(-1) * eye + u.matmul(u.mT)
            Rg = P.matmul(solve(shifted, P.matmul(gX[..., i:i + 1])))
            gA = gA - Rg.matmul(u.mT)
        return (gA + gA.mT) / 2


def _eye(n, like):
    from .creation import eye
    return eye(n, dtype=like.dtype)


@register(method=False)
def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """The ``k`` largest (``largest=False``: smallest) eigenpairs ``(E, X)`` of the
    symmetric positive-definite problem ``A X = B X diag(E)`` by LOBPCG, iterating ``n``
    vectors (``X``'s columns when given) from a random start. ``method``, ``tracker`` and
    the ``ortho_*`` parameters of torch's implementation are accepted and not used."""
    _products._check_tensor(A, 'lobpcg', 'A', 1)
    if A.requires_grad or B is not None and B.requires_grad:
        # As torch: the problem solved is the symmetric part of A (and B), so the gradient
        # is symmetric and a perturbation of one entry (gradcheck) moves both triangles.
        # (Their shape errors come first on this path.)
        A = (A + A.mT) / 2
        if B is not None:
            B = (B + B.mT) / 2
    a = A._data
    if a.ndim < 2:  # (torch's own reading of A.shape[-2])
        raise IndexError("tuple index out of range")
    if a.shape[-2:] != a.shape[-1:] * 2:
        raise AssertionError(f"A must be square, got shape torch.Size({list(a.shape)})")
    # (torch's order: the shapes, the number of vectors, then the dtype)
    if B is not None and tuple(B.shape) != a.shape:
        raise AssertionError(f"A and B must have same shape, got torch.Size({list(a.shape)}) "
                             f"vs torch.Size({list(B.shape)})")
    if a.dtype == np.float16:  # (torch's table of tolerances has no float16 row)
        raise KeyError(A.dtype)
    m = a.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]  # (X's columns, as torch)
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    if a.dtype.kind != 'f':  # (torch's first product, A against its default-dtype X)
        from .. import _dtype
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{A.dtype.cpp_name} != {_dtype.DEFAULT.float.cpp_name}")
    tol = float(np.finfo(a.dtype).eps) ** 0.5 if tol is None else tol
    niter = -1 if niter is None else niter
    largest = True if largest is None else largest
    x0 = (randn(*a.shape[:-1], n, dtype=A.dtype) if X is None else X)._data
    b = None if B is None else B._data
    ik = None if iK is None else iK._data
    batch = a.shape[:-2]
    E = np.empty(batch + (k,), a.dtype)
    V = np.empty(batch + (m, k), a.dtype)
    for idx in np.ndindex(batch):
        bi = None if b is None else np.broadcast_to(b, a.shape)[idx]
        xi = np.broadcast_to(x0, batch + x0.shape[-2:])[idx]
        E[idx], V[idx] = _lobpcg_arrays(a[idx].astype(np.float64), bi, xi.astype(np.float64),
                                        k, ik, niter, tol, largest)
    node = track1(LOBPCGAutogradFunctionBackward, A)
    outs = results([E.astype(a.dtype), V.astype(a.dtype)], node)
    if node is not None:
        node.generalized = B is not None
        node._saved = ((A, A._vc[0]),) + tuple((_SavedOutput(t), t._vc[0]) for t in outs)
    return tuple(outs)  # (E, X), a tuple as torch's
