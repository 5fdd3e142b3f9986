"""Householder reflectors, LAPACK's compact form of ``Q``: ``geqrf`` (QR as reflectors),
``linalg.householder_product`` (= ``orgqr``: the first columns of ``Q``) and ``ormqr``
(``Q`` or ``Q^H`` times a matrix, from either side).

Column ``i < k`` of ``input`` below the diagonal holds reflector ``v_i`` (whose entry ``i``
is an implicit 1), and ``Q = H_0 H_1 ... H_{k-1}`` with ``H_i = I - tau_i v_i v_i^H``.
Every product is reduced to applying reflectors from the left, in one order or the other,
with ``tau`` or its conjugate (``C Q = (Q^H C^H)^H``). ``geqrf`` is NumPy's ``qr(mode='raw')``
(LAPACK's geqrf itself, transposed back); the products are a loop over reflectors vectorised
over the batch, except that ``householder_product`` calls LAPACK's orgqr/ungqr through scipy
when it is installed and faster (``lu._few_or_large``). Backwards go through the same loop in reverse, in ember ops: for one step
``y = x - t v (v^H x)``, ``gx = gy - conj(t) v (v^H gy)``, ``gt = -v^H gy (v^H x)^H`` and
``gv = -conj(t) gy (v^H x)^H - t x (gy^H v)``, so second derivatives follow.
"""
import numpy as np

from ._core import Node, register, track, track1, result, results
from . import linalg as _products
from .complex import conj_if_complex as cj
from .reduce import _named, _out_pair
from .shape import cat, stack
from .factorizations import _linalg
from ._scipy import lapack

__all__ = []

_geqrf_t = _named('geqrf', ('a', 'tau'))


# -- kernels (arrays) ----------------------------------------------------------------------
def _reflector_arrays(a, k):
    """The reflectors ``v_0 .. v_{k-1}`` as the columns of an ``m x k`` array."""
    v = np.tril(a[..., :, :k], -1)
    idx = np.arange(k)
    v[..., idx, idx] = 1
    return v


def _apply_arrays(a, tau, x, forward, conj):
    """``H_i`` (``H_i^H`` if ``conj``) applied to ``x`` from the left for ``i`` in
    ``0..k-1`` (``forward``) or ``k-1..0``: ``forward`` and ``conj`` give ``Q^H x``;
    neither gives ``Q x``."""
    k = tau.shape[-1]
    v = _reflector_arrays(a, k)
    t = np.conj(tau) if conj else tau
    x = np.array(x, dtype=np.result_type(a, x))
    for i in (range(k) if forward else range(k - 1, -1, -1)):
        vi = v[..., :, i:i + 1]
        x -= t[..., i, None, None] * vi * (np.conj(vi).swapaxes(-1, -2) @ x)
    return x


def _orgqr(a, tau):
    """``Q``'s first ``n`` columns: LAPACK's orgqr/ungqr through scipy where that is the
    faster path (``lu._few_or_large``), else the reflector loop."""
    from .lu import _few_or_large
    mod = lapack()
    m, n = a.shape[-2:]
    if (mod is None or not a.size or a.dtype.char not in 'fdFD'
            or not _few_or_large(a.shape[:-2], n)):
        return _apply_arrays(a, tau, np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape),
                             False, False)
    name = 'ungqr' if a.dtype.kind == 'c' else 'orgqr'
    gqr, = mod.get_lapack_funcs((name,), (a,))
    fa = a.reshape((-1, m, n))
    ft = tau.reshape((fa.shape[0], tau.shape[-1]))  # (-1 is ambiguous when tau is empty)
    q = np.empty_like(fa)
    for i in range(fa.shape[0]):
        q[i] = gqr(fa[i], ft[i])[0] if ft.shape[-1] else np.eye(m, n, dtype=a.dtype)
    return q.reshape(a.shape)


def _order(left, transpose):
    """``(forward, conj, adjoint)`` for ``op(Q) C`` / ``C op(Q)`` as a left application:
    ``adjoint`` means the reflectors act on ``C^H`` and the result is taken back."""
    if left:
        return transpose, transpose, False
    return not transpose, not transpose, True


# -- backward (ember ops) ------------------------------------------------------------------
def _reflectors(A, k):
    """The reflectors as ember tensors (``(..., m, 1)`` each), built from ``A`` so that a
    backward written with them stays differentiable in ``A``."""
    m = A.shape[-2]
    batch = tuple(A.shape[:-2])
    vs = []
    for i in range(k):
        parts = [A.new_zeros(batch + (i,)), A.new_ones(batch + (1,)), A[..., i + 1:, i]]
        vs.append(cat(parts, -1).unsqueeze(-1) if m else A.new_zeros(batch + (0, 1)))
    return vs


def _apply_backward(A, tau, X, gY, forward, conj, need_a=True):
    """Gradients of ``Y = (reflectors applied to X)`` for ``X``, ``A`` and ``tau``."""
    k = tau.shape[-1]
    vs = _reflectors(A, k)
    ts = [(cj(tau[..., i]) if conj else tau[..., i]).unsqueeze(-1).unsqueeze(-1)
          for i in range(k)]
    order = list(range(k)) if forward else list(range(k - 1, -1, -1))
    xs = [X]
    for i in order[:-1]:
        v, t = vs[i], ts[i]
        xs.append(xs[-1] - t * v.matmul(v.mH.matmul(xs[-1])))
    g = gY
    gv, gt = [None] * k, [None] * k
    for step in range(len(order) - 1, -1, -1):
        i = order[step]
        v, t, x = vs[i], ts[i], xs[step]
        w = v.mH.matmul(x)
        gt[i] = -v.mH.matmul(g).matmul(w.mH).squeeze(-1).squeeze(-1)
        if need_a:
            gv[i] = (-cj(t) * g.matmul(w.mH) - t * x.matmul(g.mH.matmul(v))).squeeze(-1)
        g = g - cj(t) * v.matmul(v.mH.matmul(g))
    gtau = stack([cj(x) if conj else x for x in gt], -1) if k else tau.new_zeros(tau.shape)
    gA = None
    if need_a:
        m, n = A.shape[-2:]
        batch = tuple(A.shape[:-2])
        cols = [cat([A.new_zeros(batch + (i + 1,)), gv[i][..., i + 1:]], -1) for i in range(k)]
        cols += [A.new_zeros(batch + (m,))] * (n - k)
        gA = stack(cols, -1) if cols else A.new_zeros(tuple(A.shape))
    return g, gA, gtau


# -- geqrf ---------------------------------------------------------------------------------
class GeqrfBackward0(Node):
    """``geqrf`` has no derivative in torch: using one is an error."""

    def backward(self, *grads):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def _lapack_types(A, kernel):
    if A._data.dtype.char not in 'fdFD':
        raise NotImplementedError(f'"{kernel}" not implemented for \'{A.dtype.kernel_name}\'')


@register
def geqrf(input, *, out=None):
    """QR as LAPACK's geqrf leaves it: ``R`` on and above the diagonal, the Householder
    reflectors below it, and their scales ``tau`` (see ``householder_product``)."""
    _products._check_tensor(input, 'geqrf', 'input', 1)
    _lapack_types(input, 'geqrf_cpu')
    a = input._data
    if a.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    m, n = a.shape[-2:]
    if a.size:
        r, tau = _geqrf_arrays(a)
    else:
        r, tau = a.copy(), np.zeros(a.shape[:-2] + (min(m, n),), a.dtype)
    node = track1(GeqrfBackward0, input)
    return _out_pair(_geqrf_t(*results([r, np.asarray(tau, a.dtype)], node)), out)


def _geqrf_arrays(a):
    """LAPACK's geqrf of each matrix of ``a``, in ``a``'s precision through scipy (NumPy's
    raw QR works in double: a rank-deficient float32 matrix keeps 1e-17 remainders there
    that float32 makes exact zeros, and reflects them), else NumPy's."""
    mod = lapack()
    if mod is None or a.dtype.char not in 'fdFD':
        h, tau = np.linalg.qr(a, mode='raw')
        return np.ascontiguousarray(np.swapaxes(h, -1, -2), dtype=a.dtype), tau
    gqr, = mod.get_lapack_funcs(('geqrf',), (a,))
    m, n = a.shape[-2:]
    fa = a.reshape((-1, m, n))
    r = np.empty_like(fa)
    tau = np.empty((fa.shape[0], min(m, n)), a.dtype)
    for i in range(fa.shape[0]):
        r[i], tau[i] = gqr(fa[i])[:2]
    return r.reshape(a.shape), tau.reshape(a.shape[:-2] + (min(m, n),))


# -- householder_product / orgqr -----------------------------------------------------------
class LinalgHouseholderProductBackward0(Node):
    """Gradient of ``householder_product``: ``Q E`` (``E`` the first ``n`` columns of the
    identity) differentiated through the reflector loop."""

    def backward(self, g):
        A, tau = self.saved_tensors
        m, n = A.shape[-2:]
        E = _eye(m, n, A).expand(tuple(A.shape))
        _, gA, gtau = _apply_backward(A, tau, E, g, False, False)
        return gA, gtau


def _eye(m, n, like):
    from .creation import eye
    return eye(m, n, dtype=like.dtype)


def _check_reflectors(input, tau, op, want_dtype=True):
    a, t = input._data, tau._data
    if a.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if t.ndim != a.ndim - 1:
        raise RuntimeError(f"{op}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {t.ndim} and input.ndim is equal to "
                           f"{a.ndim}")
    if t.shape[:-1] != a.shape[:-2]:
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(t.shape[:-1])}")
    if want_dtype and t.dtype != a.dtype:
        raise RuntimeError(f"{op}: tau dtype {tau.dtype.kernel_name} does not match input "
                           f"dtype {input.dtype.kernel_name}")


def _householder_product(input, tau):
    op = 'torch.linalg.householder_product'
    _products._check_tensor(input, 'linalg_householder_product', 'input', 1)
    _products._check_tensor(tau, 'linalg_householder_product', 'tau', 2)
    a = input._data
    if a.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    m, n = a.shape[-2:]
    if m < n:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if not tau._data.ndim:  # (torch reads tau.size(-1) here)
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if tau._data.shape[-1] > n:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    _check_reflectors(input, tau, op)
    _lapack_types(input, 'orgqr_cpu')
    q = _orgqr(a, tau._data)
    node = track(LinalgHouseholderProductBackward0, (input, tau))
    if node is not None:
        node.save(input, tau)
    return result(np.ascontiguousarray(q, dtype=a.dtype), node)


@_linalg()
def householder_product(A, tau, *, out=None):
    """The first ``n`` columns of ``Q = H_0 ... H_{k-1}`` from reflectors stored below the
    diagonal of ``A`` (m x n, m >= n) and their scales ``tau`` (k <= n), as ``geqrf``
    returns them."""
    return _products._out(_householder_product(A, tau), out)


@register
def orgqr(input, input2):
    """``linalg.householder_product`` under LAPACK's name."""
    return _householder_product(input, input2)


# -- ormqr ---------------------------------------------------------------------------------
class OrmqrBackward0(Node):
    """Gradient of ``ormqr`` through the reflector loop (for ``C op(Q)`` the loop runs on
    ``C^H``)."""

    def backward(self, g):
        A, tau, C = self.saved_tensors
        forward, conj, adjoint = self.order
        X, gY = (C.mH, g.mH) if adjoint else (C, g)
        gX, gA, gtau = _apply_backward(A, tau, X, gY, forward, conj,
                                       _products._needs(self, 0))
        return gA, gtau, gX.mH if adjoint else gX


@register
def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """``op(Q) C`` (``C op(Q)`` if not ``left``) for the full ``Q`` of the reflectors in
    ``input``/``input2`` (as ``geqrf`` returns them), ``op(Q) = Q^H`` if ``transpose``."""
    op = 'torch.ormqr'
    A, tau, C = input, input2, input3
    for t, name, pos in ((A, 'input', 1), (tau, 'input2', 2), (C, 'input3', 3)):
        _products._check_tensor(t, 'ormqr', name, pos)
    a, c = A._data, C._data
    if a.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if c.ndim < 2:
        raise RuntimeError(f"{op}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if c.shape[side] != a.shape[-2]:  # (checked before tau, as torch does)
        raise RuntimeError(f"{op}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.size(-1) != min(c.shape[side], a.shape[-1]):  # (size: torch's IndexError for 0-d)
        raise RuntimeError(f"{op}: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           "input.shape[-1])")
    _check_reflectors(A, tau, op, want_dtype=False)
    if c.ndim != a.ndim:
        raise RuntimeError(f"{op}: Expected other to have the same number of dimensions as "
                           f"input, but got other.ndim equal to {c.ndim} and input.ndim is "
                           f"equal to {a.ndim}")
    if c.shape[:-2] != a.shape[:-2]:
        raise RuntimeError(f"{op}: Expected batch dimensions of other to be equal to "
                           f"input.shape[:-2], but got {list(c.shape[:-2])}")
    if c.dtype != a.dtype:
        raise RuntimeError(f"{op}: Expected input and other to have the same dtype, but input "
                           f"has dtype{A.dtype.kernel_name} and other has dtype "
                           f"{C.dtype.kernel_name}")
    if tau._data.dtype != a.dtype:
        raise RuntimeError(f"{op}: Expected input and tau to have the same dtype, but input "
                           f"has dtype{A.dtype.kernel_name} and tau has dtype "
                           f"{tau.dtype.kernel_name}")
    _lapack_types(A, 'ormqr_cpu')
    forward, conj, adjoint = _order(left, transpose)
    x = np.conj(np.swapaxes(c, -1, -2)) if adjoint else c
    y = _apply_arrays(a, tau._data, x, forward, conj)
    if adjoint:
        y = np.conj(np.swapaxes(y, -1, -2))
    node = track(OrmqrBackward0, (A, tau, C))
    if node is not None:
        node.save(A, tau, C)
        node.order = (forward, conj, adjoint)
    return _products._out(result(np.ascontiguousarray(y, dtype=a.dtype), node), out)
