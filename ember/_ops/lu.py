"""LU factorization and triangular solves: ``linalg.lu_factor(_ex)``, ``linalg.lu``,
``lu_unpack``, ``linalg.lu_solve``, ``linalg.solve_triangular`` and torch's older forms
(``torch.lu``, ``torch.lu_solve``, ``torch.triangular_solve``).

NumPy has no LU. With scipy installed, ``_getrf`` calls LAPACK's getrf through it, one call
per matrix; without it, LU with partial pivoting as getrf does it (the largest magnitude in
the column, the first on ties) is a loop over columns vectorised over the batch. Measured:
scipy's is 3x (64 8x8 matrices) to 60x (one 64x64) faster, so it is used whenever present.
Pivots are 1-based int32 and ``info`` is the first exactly-zero pivot, as torch returns them.
A triangular solve turns the triangle upper (reversing rows and columns) and calls LAPACK's
trtrs through scipy (one call per matrix, 2-25x faster than the alternative from 16 rows or
for a few matrices), else ``np.linalg.solve`` (on an upper triangular matrix getrf does no
row exchange, so LAPACK runs plain back substitution, at getrf's O(n^3) cost); a singular
matrix gets back substitution by hand (torch then gives inf/nan, no error).

Every backward is written in ember ops (triangular solves, ``lu_unpack``, products), so
derivatives of any order follow.
"""
import numpy as np

from ._core import Node, register, track, track1, result, results, make, check_broadcast
from . import linalg as _products
from .reduce import _named, _out_pair
from .shape import cat
from .factorizations import (_linalg, _batch_prefix, _matrices, _singular, _inv, _solve,
                             _first_zero_diagonal, solve_checks, LinAlgError, inverse_result)
from ._scipy import lapack
from .._dtype import promote_types
from .. import _dtype
from ..autograd.grad_mode import STATE

__all__ = []

_lu_factor_t = _named('linalg_lu_factor', ('LU', 'pivots'))
_lu_factor_ex_t = _named('linalg_lu_factor_ex', ('LU', 'pivots', 'info'))
_lu_with_info_t = _named('_lu_with_info', ('LU', 'pivots', 'info'))
_lu_t = _named('linalg_lu', ('P', 'L', 'U'))
_lu_unpack_t = _named('lu_unpack', ('P', 'L', 'U'))
_triangular_solve_t = _named('triangular_solve', ('solution', 'cloned_coefficient'))

# -- kernels (arrays) ----------------------------------------------------------------------
def _getrf_numpy(a):
    shape = a.shape
    m, n = shape[-2:]
    k = min(m, n)
    nb = int(np.prod(shape[:-2], dtype=np.int64))
    lu = np.array(a.reshape((nb, m, n)))
    piv = np.empty((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    for j in range(k if nb else 0):  # (an empty batch: nothing to eliminate, in any dtype)
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        swap = p != j
        if swap.any():
            r, pr = rows[swap], p[swap]
            top = lu[r, j, :].copy()
            lu[r, j, :] = lu[r, pr, :]
            lu[r, pr, :] = top
        d = lu[:, j, j]
        zero = d == 0
        info[(info == 0) & zero] = j + 1
        if j + 1 < m:
            # a zero pivot has a zero column below it: getrf leaves it unscaled
            lu[:, j + 1:, j] /= np.where(zero, 1, d)[:, None]
            if j + 1 < n:
                lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    return lu.reshape(shape), piv.reshape(shape[:-2] + (k,)), info.reshape(shape[:-2])


def _getrf(a):
    """LU with partial pivoting of a (batch of) m x n arrays: (LU packed, 1-based int32
    pivots, int32 info: the 1-based index of the first zero pivot, 0 if none)."""
    m, n = a.shape[-2:]
    mod = lapack()
    if mod is None or a.size == 0:
        return _getrf_numpy(a)
    getrf, = mod.get_lapack_funcs(('getrf',), (a,))
    flat = a.reshape((-1, m, n))
    lu = np.empty_like(flat)
    piv = np.empty((flat.shape[0], min(m, n)), np.int32)
    info = np.empty(flat.shape[0], np.int32)
    for i, x in enumerate(flat):
        lu[i], p, info[i] = getrf(x)
        piv[i] = p + 1
    info[info < 0] = 0
    return (lu.reshape(a.shape), piv.reshape(a.shape[:-2] + piv.shape[-1:]),
            info.reshape(a.shape[:-2]))


def _permutation(piv, m):
    """The row order ``perm`` with ``A[perm] = L U`` (``P[perm[i], i] = 1``), from getrf's
    sequence of row exchanges."""
    batch = piv.shape[:-1]
    nb = int(np.prod(batch, dtype=np.int64))
    perm = np.broadcast_to(np.arange(m), batch + (m,)).reshape(nb, m).copy()
    p = piv.reshape(nb, piv.shape[-1]).astype(np.intp) - 1
    rows = np.arange(perm.shape[0])
    for i in range(p.shape[1]):
        a, b = perm[:, i].copy(), perm[rows, p[:, i]]
        perm[:, i] = b
        perm[rows, p[:, i]] = a
    return perm.reshape(batch + (m,))


def _back_substitute(a, b):
    """``A X = B`` for upper triangular ``A`` by hand: inf/nan where a pivot is zero."""
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:],
                 np.result_type(a, b))
    for i in range(a.shape[-1] - 1, -1, -1):
        s = b[..., i, :] - np.einsum('...j,...jk->...k', a[..., i, i + 1:], x[..., i + 1:, :])
        x[..., i, :] = s / a[..., i, i, None]
    return x


def _trsolve(a, b, upper, unit=False):
    """``X`` with ``A X = B`` for triangular ``A`` (only its ``upper`` or lower triangle is
    read; ``unit``: ones on the diagonal); batch dimensions broadcast."""
    if not upper:  # reversing rows and columns turns a lower triangle into an upper one
        a, b = a[..., ::-1, ::-1], b[..., ::-1, :]
    a = np.triu(a)
    if unit:
        idx = np.arange(a.shape[-1])
        a[..., idx, idx] = 1
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    with np.errstate(all='ignore'):
        ok = np.all(np.diagonal(a, 0, -2, -1) != 0) and np.all(np.isfinite(a))
        x = _trtrs(a, b) if ok else None
        if x is None:
            try:
                x = np.linalg.solve(a, b) if ok else _back_substitute(a, b)
            except np.linalg.LinAlgError:
                x = _back_substitute(a, b)
    return x if upper else x[..., ::-1, :]


def _few_or_large(batch, n):
    """Whether one LAPACK call per matrix beats NumPy's batched loops: measured, scipy's
    trtrs/orgqr win by 2-25x from 16 rows or for up to 16 matrices, and lose (by up to
    1.6x) on many tiny ones, where the per-call cost dominates."""
    return n >= 16 or int(np.prod(batch, dtype=np.int64)) <= 16


def _trtrs(a, b):
    """LAPACK's trtrs (through scipy) on a batch of upper triangular systems with nonzero
    diagonals, or None where NumPy's path is the faster one (or scipy is absent)."""
    mod = lapack()
    n = a.shape[-1]
    if (mod is None or a.dtype.char not in 'fdFD' or a.dtype != b.dtype or not a.size
            or not b.size or not _few_or_large(a.shape[:-2], n)):
        return None
    trtrs, = mod.get_lapack_funcs(('trtrs',), (a,))
    fa, fb = a.reshape((-1, n, n)), b.reshape((-1,) + b.shape[-2:])
    x = np.empty(fb.shape, b.dtype)
    for i in range(fa.shape[0]):
        x[i] = trtrs(fa[i], fb[i], lower=0)[0]
    return x.reshape(b.shape)


def _lu_solve_arrays(lu, piv, b, adjoint):
    """``A X = B`` (``A^H X = B`` if ``adjoint``) from ``A``'s packed LU; batches
    broadcast."""
    m = lu.shape[-1]
    batch = np.broadcast_shapes(lu.shape[:-2], piv.shape[:-1], b.shape[:-2])
    lu = np.broadcast_to(lu, batch + lu.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    perm = np.broadcast_to(_permutation(piv, m), batch + (m,))
    if not adjoint:  # U^{-1} L^{-1} P^T B
        y = np.take_along_axis(b, perm[..., None], -2)
        return _trsolve(lu, _trsolve(lu, y, False, True), True)
    luh = np.conj(np.swapaxes(lu, -1, -2))  # P L^{-H} U^{-H} B
    y = _trsolve(luh, _trsolve(luh, b, False), True, True)
    x = np.empty_like(y)
    np.put_along_axis(x, np.broadcast_to(perm[..., None], y.shape), y, -2)
    return x


# -- checks --------------------------------------------------------------------------------
def _float_kernel(A, kernel, nonempty=False):
    """LAPACK's four types only, as torch's CPU kernels (with ``nonempty``: only for a
    non-empty ``A``, where the kernel runs at all)."""
    if A._data.dtype.char not in 'fdFD' and not (nonempty and A._data.size == 0):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{A.dtype.kernel_name}\'')


def _at_least_2d(A, op, what='tensor'):
    if A._data.ndim < 2:
        raise RuntimeError(f"{op}: Expected {what} with 2 or more dimensions. Got size: "
                           f"{list(A._data.shape)} instead")


def _pivots_int32(p, op):
    if p._data.dtype != np.int32:
        raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type torch.int32")


# -- lu_factor -----------------------------------------------------------------------------
class LinalgLuFactorExBackward0(Node):
    """Gradient of ``lu_factor``: the packed factor's gradient split into ``L``'s (strictly
    lower) and ``U``'s (upper) and taken back through ``A = P L U``."""

    def backward(self, gLU, *rest):
        A = self.saved_tensors[0]
        P, L, U = _lu(A, 'linalg.lu')
        k = min(A.shape[-2:])
        return _lu_grad(P, L, U, gLU[..., :, :k].tril(-1), gLU[..., :k, :].triu())


def _no_pivot_check(A, pivot):
    """torch's CPU kernels factor only with pivoting, but an empty input needs no kernel."""
    if not pivot and A._data.size:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _lu_factor(A, op, pivot=True):
    _products._check_tensor(A, op, 'A', 1)
    _at_least_2d(A, 'torch.lu_factor')
    _float_kernel(A, 'lu_cpu', True)  # (the kernel's dtypes after the meta checks, as torch)
    _no_pivot_check(A, pivot)
    lu, piv, info = _getrf(A._data)
    n = track1(LinalgLuFactorExBackward0, A)
    if n is not None:
        n.save(A)
    return results([lu.astype(A._data.dtype, copy=False), piv, info], n, (True, False, False))


def _check_info(info, op):
    """torch's error for ``check_errors``: the first batch element with a zero pivot."""
    i = info._data
    if np.any(i > 0):
        idx = np.unravel_index(int(np.argmax(i.reshape(-1) > 0)), i.shape)
        k = int(i[idx])
        prefix = _batch_prefix(i.shape + (0, 0), idx)
        raise RuntimeError(f"{op}: {prefix}U[{k},{k}] is zero and using it on lu_solve would "
                           "result in a division by zero. If you still want to perform the "
                           "factorization, consider calling linalg.lu(A, pivot) or "
                           "linalg.lu_factor_ex(A, pivot)")


def _dtype_first(fn):
    fn._dtype_first = True  # (the body refuses the kernel's dtypes in torch's order: _args)
    return fn


@_linalg()
@_dtype_first
def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """Packed LU factorization with partial pivoting, the pivots (1-based, int32) and
    ``info`` (the first zero pivot per matrix, 0 if none); ``check_errors`` raises on it."""
    r = _lu_factor_ex_t(*_lu_factor(A, 'linalg.lu_factor_ex', pivot))
    if check_errors:
        _check_info(r.info, 'torch.linalg.lu_factor_ex')
    return _out_pair(r, out)


@_linalg()
@_dtype_first
def lu_factor(A, *, pivot=True, out=None):
    """Packed LU factorization ``(LU, pivots)`` of ``A = P L U``; a singular matrix
    raises (``lu_factor_ex`` reports it in ``info`` instead)."""
    LU, piv, info = _lu_factor(A, 'linalg.lu_factor', pivot)
    _check_info(info, 'torch.linalg.lu_factor')
    return _out_pair(_lu_factor_t(LU, piv), out)


@register(name='lu')
@_dtype_first
def _lu_toplevel(A, pivot=True, get_infos=False, out=None):
    """``torch.lu`` (deprecated in torch for ``linalg.lu_factor``): ``(LU, pivots)``, plus
    ``infos`` with ``get_infos=True``. A singular matrix does not raise (as in torch)."""
    LU, piv, info = _lu_factor(A, 'linalg.lu_factor', pivot)
    if get_infos:
        return _out_pair(_lu_with_info_t(LU, piv, info), out)
    return _out_pair((LU, piv), out)


# -- lu_unpack and linalg.lu ---------------------------------------------------------------
def _unpack_arrays(lu, piv, data=True, pivots=True):
    m, n = lu.shape[-2:]
    k = min(m, n)
    P = L = U = None
    if data:
        L = np.tril(lu[..., :, :k], -1)
        idx = np.arange(k)
        # (complex32's structured element takes 1 as both parts: its own 1+0j)
        L[..., idx, idx] = 1 if lu.dtype.names is None else _dtype.chalf_scalar(1)
        U = np.triu(lu[..., :k, :])
    if pivots:
        perm = _permutation(piv, m)
        P = np.zeros(perm.shape + (m,), lu.dtype)
        np.put_along_axis(P, perm[..., None], 1, -1)
        P = np.swapaxes(P, -1, -2)  # P[perm[i], i] = 1
        P = np.broadcast_to(P, lu.shape[:-2] + (m, m)).copy()
    return P, L, U


def _pad_to(g, shape):
    """``g`` (the L or U corner) placed in a zero matrix of the packed factor's shape."""
    m, n = shape[-2:]
    r, c = g.shape[-2:]
    if c < n:
        g = cat([g, g.new_zeros(g.shape[:-1] + (n - c,))], -1)
    if r < m:
        g = cat([g, g.new_zeros(g.shape[:-2] + (m - r, n))], -2)
    return g


class LuUnpackBackward0(Node):
    """Gradient of ``lu_unpack``: ``L``'s strictly lower and ``U``'s upper part go back to
    their places in the packed factor."""

    def backward(self, gP, gL, gU):
        shape = self._meta[0][0]
        return _pad_to(gL.tril(-1), shape) + _pad_to(gU.triu(), shape)


@register(method=False)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``(P, L, U)`` with ``A = P L U`` from ``lu_factor``'s packed result; a part not asked
    for is an empty tensor."""
    _products._check_tensor(LU_data, 'lu_unpack', 'LU_data', 1)
    if LU_data.requires_grad and STATE.enabled:
        # (torch's autograd reads the sizes it saves before the op checks anything)
        LU_data.size(-1)
        LU_data.size(-2)
    _at_least_2d(LU_data, 'torch.lu_unpack')
    # the pivots are read (and checked) only when they are unpacked, as in torch
    if unpack_pivots and LU_pivots._data.dtype != np.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor "
                           "of torch.int32 dtype.")
    lu, piv = LU_data._data, LU_pivots._data
    k = min(lu.shape[-2:])
    if unpack_pivots and not k:
        piv = np.zeros(lu.shape[:-2] + (0,), np.int32)  # (no exchange: torch reads none)
    elif unpack_pivots and piv.shape != lu.shape[:-2] + (k,):
        # (torch reads them by LU's shape, unchecked: see tests/fuzz/known.py)
        raise RuntimeError(f"torch.lu_unpack: LU_pivots of shape {list(piv.shape)} do not "
                           f"match LU_data of shape {list(lu.shape)}: expected "
                           f"{list(lu.shape[:-2] + (k,))}")
    if unpack_pivots and piv.size and (piv.min() < 1 or piv.max() > lu.shape[-2]):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                           "inclusive.Did you properly pass the result of lu_factor?")
    P, L, U = _unpack_arrays(lu, piv, unpack_data, unpack_pivots)
    empty = np.zeros((0,), lu.dtype)
    n = track1(LuUnpackBackward0, LU_data)
    r = results([empty if P is None else P, empty if L is None else L,
                 empty if U is None else U], n, (False, True, True))
    return _out_pair(_lu_unpack_t(*r), out)


def _lu_grad(P, L, U, gL, gU):
    """``A``'s gradient from those of the factors of ``A = P L U`` (``L`` unit lower
    m x k, ``U`` upper k x n). Writing ``dA = P (dL U + L dU)`` and splitting off the
    square corners gives, with ``phi`` the part of the factors' gradients that lives on
    the triangles:
    wide (m < n, ``U = [U1 U2]``): ``gA = P L^{-H} [phi U1^{-H} | gU2]``,
    ``phi = tril(L^H gL - gU2 U2^H, -1) + triu(gU1 U1^H)``;
    tall (m > n, ``L = [L1; L2]``): ``gA = P [L1^{-H} phi; gL2] U^{-H}``,
    ``phi = tril(L1^H gL1, -1) + triu(gU U^H - L2^H gL2)``."""
    m, n = L.shape[-2], U.shape[-1]
    if m <= n:
        U1, U2, gU1, gU2 = U[..., :m], U[..., m:], gU[..., :m], gU[..., m:]
        phi = (L.mH.matmul(gL) - gU2.matmul(U2.mH)).tril(-1) + gU1.matmul(U1.mH).triu()
        g = _solve_tri(U1.mH, phi, upper=False, left=False)
        if m < n:
            g = cat([g, gU2], -1)
        return P.matmul(_solve_tri(L.mH, g, upper=True, unitriangular=True))
    L1, L2, gL1, gL2 = L[..., :n, :], L[..., n:, :], gL[..., :n, :], gL[..., n:, :]
    phi = L1.mH.matmul(gL1).tril(-1) + (gU.matmul(U.mH) - L2.mH.matmul(gL2)).triu()
    g = cat([_solve_tri(L1.mH, phi, upper=True, unitriangular=True), gL2], -2)
    return P.matmul(_solve_tri(U.mH, g, upper=False, left=False))


class LinalgLuBackward0(Node):
    """Gradient of ``linalg.lu`` through ``L`` and ``U`` (``P`` is piecewise constant)."""

    def backward(self, gP, gL, gU):
        P, L, U = _lu(self.saved_tensors[0], 'linalg.lu')
        return _lu_grad(P, L, U, gL, gU)


def _lu(A, op, pivot=True):
    _products._check_tensor(A, op, 'A', 1)
    _at_least_2d(A, op)
    _float_kernel(A, 'lu_cpu', True)  # (the kernel's dtypes after the meta checks, as torch)
    _no_pivot_check(A, pivot)
    lu, piv, _ = _getrf(A._data)
    P, L, U = _unpack_arrays(lu, piv)
    if not pivot:  # (an empty input: torch's P is then an empty vector)
        P = np.zeros(0, A._data.dtype)
    n = track1(LinalgLuBackward0, A)
    if n is not None:
        n.save(A)
    dt = A._data.dtype
    return _lu_t(*results([P, L.astype(dt, copy=False), U.astype(dt, copy=False)], n,
                          (False, True, True)))


@_linalg()
@_dtype_first
def lu(A, *, pivot=True, out=None):
    """LU factorization with partial pivoting, unpacked: ``A = P L U`` with ``P`` a
    permutation, ``L`` unit lower triangular and ``U`` upper triangular."""
    return _out_pair(_lu(A, 'linalg.lu', pivot), out)


# -- lu_solve ------------------------------------------------------------------------------
class LinalgLuSolveBackward0(Node):
    """Gradient of ``lu_solve``, in the left form ``op(A) X = B`` (``X A = B`` is its
    adjoint): ``gB = op(A)^{-H} gX``; ``gA = -gB X^H`` (``-X gB^H`` for ``A^H``), taken to
    the packed factor as ``tril(P^T gA U^H, -1) + triu(L^H P^T gA)``."""

    def backward(self, gX):
        LU, piv, B = self.saved_tensors
        adj = self.adjoint
        if not self.left:  # X op(A) = B  <=>  op(A)^H X^H = B^H
            B, gX, adj = B.mH, gX.mH, not adj
        X = _lu_solve(LU, piv, B, True, adj)
        gB = _lu_solve(LU, piv, gX, True, not adj)
        gLU = None
        if _products._needs(self, 0):
            gA = -X.matmul(gB.mH) if adj else -gB.matmul(X.mH)
            P, L, U = lu_unpack(LU, piv)
            PtgA = P.mT.matmul(gA)
            gLU = _pad_to(PtgA.matmul(U.mH)[..., :, :L.shape[-1]].tril(-1), LU.shape)
            gLU = gLU + _pad_to(L.mH.matmul(PtgA).triu(), LU.shape)
        return gLU, None, gB if self.left else gB.mH


def _lu_solve(LU, pivots, B, left, adjoint, op='linalg.lu_solve'):
    """torch's checks in its order: LU's dtype kind, one dtype, the pivots' dtype, LU's
    rank and squareness, B's rank, the sizes of B, the number and batch of the pivots, the
    batches, the pivots' values, then the kernel's dtypes."""
    _products._check_tensor(LU, op, 'LU', 1)
    _products._check_tensor(B, op, 'B', 3)
    if getattr(pivots, '_requires_grad', False) and STATE.enabled:  # (autograd's, first)
        raise RuntimeError("The function 'linalg_lu_solve' is not differentiable with respect "
                           "to argument 'pivots'. This input cannot have requires_grad True.")
    lu, b = LU._data, B._data
    if lu.dtype.kind not in 'fcV':
        raise RuntimeError(f"torch.{op}: Expected a floating point or complex tensor as input. "
                           f"Got {LU.dtype.kernel_name}")
    if lu.dtype != b.dtype:
        raise RuntimeError(f"{op}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {LU.dtype.kernel_name} and B of type {B.dtype.kernel_name} "
                           "instead")
    _pivots_int32(pivots, op)
    if lu.ndim < 2:
        raise RuntimeError(f"torch.{op}: The input tensor A must have at least 2 dimensions.")
    if lu.shape[-1] != lu.shape[-2]:
        raise RuntimeError(f"torch.{op}: A must be batches of square matrices, but they are "
                           f"{lu.shape[-2]} by {lu.shape[-1]} matrices")
    if b.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    n = lu.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        eq = 'AX = B' if left else 'XA = B'
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    piv = pivots._data
    if pivots.size(-1) != n:
        raise RuntimeError(f"{op}: Number of pivots per batch should be same as the dimension "
                           "of the matrix")
    if piv.shape != lu.shape[:-1]:
        raise RuntimeError(f"{op}: Expected LU.shape[:-1] and pivots.shape to be the same, but "
                           f"got pivots with shape {list(piv.shape)} instead")
    batch = check_broadcast(b.shape[:-2], lu.shape[:-2])
    if piv.size and piv.min() < 1:
        raise RuntimeError("Pivots given to lu_solve must all be greater or equal to 1. Did you "
                           "properly pass the result of lu_factor?")
    if piv.size and piv.max() > n:
        raise RuntimeError("Pivots given to lu_solve must all be smaller or equal to LU.size(-2)"
                           ". Did you properly pass the result of lu_factor?")
    if lu.size and b.size:  # (an empty solution needs no kernel)
        _float_kernel(LU, 'linalg.lu_solve_cpu')
    if not (lu.size and b.size):
        x = np.zeros(tuple(batch) + b.shape[-2:], lu.dtype)
    elif left:
        x = _lu_solve_arrays(lu, piv, b, adjoint)
    else:
        bh = np.conj(np.swapaxes(b, -1, -2))
        x = np.conj(np.swapaxes(_lu_solve_arrays(lu, piv, bh, not adjoint), -1, -2))
    node = track(LinalgLuSolveBackward0, (LU, pivots, B))
    if node is not None:
        node.save(LU, pivots, B)
        node.left, node.adjoint = left, adjoint
    return result(np.ascontiguousarray(x, dtype=lu.dtype), node)


@_linalg()
def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """Solves ``A X = B`` from ``lu_factor(A)``'s result (``A^H X = B`` with ``adjoint``,
    ``X A = B`` with ``left=False``); batch dimensions broadcast."""
    return _products._out(_lu_solve(LU, pivots, B, left, adjoint), out)


@register(name='lu_solve')
def _lu_solve_toplevel(input, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve(b, LU, pivots)``: ``linalg.lu_solve`` with its arguments in the
    older order (deprecated in torch)."""
    return _products._out(_lu_solve(LU_data, LU_pivots, input, True, False), out)


# -- triangular solves ---------------------------------------------------------------------
def _triangle(g, upper, unit):
    """The part of a gradient that reaches a triangular matrix's read entries."""
    off = 1 if unit else 0
    return g.triu(off) if upper else g.tril(-off)


class LinalgSolveTriangularBackward0(Node):
    """Gradient of ``solve_triangular``: ``gB = A^{-H} gX`` (``gX A^{-H}`` for ``X A = B``),
    ``gA = -gB X^H`` (``-X^H gB``) restricted to the triangle that was read."""

    def backward(self, gX):
        A, B = self.saved_tensors
        up, unit, left = self.upper, self.unit, self.left
        gB = _solve_tri(A.mH, gX, upper=not up, left=left, unitriangular=unit)
        gA = None
        if _products._needs(self, 0):
            X = _solve_tri(A, B, upper=up, left=left, unitriangular=unit)
            gA = _triangle(-(gB.matmul(X.mH) if left else X.mH.matmul(gB)), up, unit)
        return gA, gB


def _solve_tri(A, B, *, upper, left=True, unitriangular=False, op='linalg.solve_triangular'):
    _products._check_tensor(A, op, 'A', 1)
    _products._check_tensor(B, op, 'B', 2)
    a, b = A._data, B._data
    for t, name in ((a, 'A'), (b, 'B')):
        if t.ndim < 2:
            raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 "
                               "dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    n = a.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        eq = 'AX = B' if left else 'XA = B'
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    # (the kernel runs in A's dtype, B cast to it: A's dtype is the one refused, after the
    # shapes)
    _float_kernel(A, 'triangular_solve_cpu')
    if a.dtype != b.dtype:
        # torch solves in A's dtype (B cast to it), except that ember keeps a complex B's
        # imaginary part where torch would drop it for a real A (promoting instead)
        dt = A.dtype if A.dtype.is_complex or not B.dtype.is_complex else \
            promote_types(A.dtype, B.dtype)
        A, B = A.to(dt), B.to(dt)
        a, b = A._data, B._data
    if left:
        x = _trsolve(a, b, upper, unitriangular)
    else:  # X A = B  <=>  A^T X^T = B^T
        x = np.swapaxes(_trsolve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper,
                                 unitriangular), -1, -2)
    node = track(LinalgSolveTriangularBackward0, (A, B))
    if node is not None:
        node.save(A, B)
        node.upper, node.unit, node.left = upper, unitriangular, left
    return result(np.ascontiguousarray(x, dtype=a.dtype), node)


@_linalg()
def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """Solves ``A X = B`` (``X A = B`` with ``left=False``) for a triangular ``A``: only its
    ``upper`` or lower triangle is read (with ``unitriangular``, not its diagonal either).
    A zero on the diagonal gives inf/nan rather than an error, as in torch."""
    return _products._out(_solve_tri(A, B, upper=upper, left=left,
                                     unitriangular=unitriangular), out)


class TriangularSolveBackward0(Node):
    """Gradient of ``triangular_solve``: as ``solve_triangular``'s for ``op(A)`` (``A`` or
    ``A^T``), plus the ``cloned_coefficient``'s gradient, which is ``A``'s own."""

    def backward(self, gX, gM):
        b, A = self.saved_tensors
        up, unit, tr = self.upper, self.unit, self.transpose
        opA = A.mT if tr else A
        opup = up != tr
        gb = _solve_tri(opA.mH, gX, upper=not opup, unitriangular=unit)
        X = _solve_tri(opA, b, upper=opup, unitriangular=unit)
        gA = -gb.matmul(X.mH)
        gA = _triangle(gA.mT if tr else gA, up, unit)
        return gb, gA + gM


@register
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``torch.triangular_solve(b, A)`` (deprecated in torch for ``linalg.solve_triangular``):
    the solution of ``op(A) X = b`` (``op(A) = A^T`` with ``transpose``) and a copy of ``A``
    broadcast to the batch."""
    op = 'torch.triangular_solve'
    _products._check_tensor(input, 'triangular_solve', 'input', 1)
    _products._check_tensor(A, 'triangular_solve', 'A', 2)
    b, a = input._data, A._data
    if b.ndim < 2:
        raise RuntimeError(f"{op}: Expected b to have at least 2 dimensions, but it has "
                           f"{b.ndim} dimensions instead")
    if a.ndim < 2:
        raise RuntimeError(f"{op}: Expected A to have at least 2 dimensions, but it has "
                           f"{a.ndim} dimensions instead")
    if b.dtype != a.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{input.dtype.kernel_name} and A of type {A.dtype.kernel_name} "
                           "instead.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if b.shape[-2] != a.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{a.shape[-1]} by {a.shape[-1]} but each b matrix is {b.shape[-2]} "
                           f"by {b.shape[-1]}")
    for t in (input, A):  # (the kernel's dtypes after the shapes, as torch)
        _float_kernel(t, 'triangular_solve_cpu')
    at = np.swapaxes(a, -1, -2) if transpose else a
    x = _trsolve(at, b, upper != transpose, unitriangular)
    batch = x.shape[:-2]
    node = track(TriangularSolveBackward0, (input, A))
    if node is not None:
        node.save(input, A)
        node.upper, node.unit, node.transpose = upper, unitriangular, transpose
    r = results([np.ascontiguousarray(x, dtype=a.dtype),
                 np.broadcast_to(a, batch + a.shape[-2:]).copy()], node)
    return _out_pair(_triangular_solve_t(*r), out)



# -- inv_ex / solve_ex: inv and solve that report a singular matrix in ``info`` -------------
_inv_ex_t = _named('linalg_inv_ex', ('inverse', 'info'))
_solve_ex_t = _named('linalg_solve_ex', ('result', 'info'))


def _info(A):
    """getrf's ``info`` of a square (batch of) matrices: the first zero pivot, 0 if none."""
    return _getrf(A._data)[2] if A._data.size else np.zeros(A._data.shape[:-2], np.int32)


def _lu_solve_singular(a, b):
    """What LAPACK's gesv leaves for a singular matrix: the LU solve run through its zero
    pivot (inf/nan), rather than an error."""
    lu, piv, _ = _getrf(a)
    with np.errstate(all='ignore'):
        return _lu_solve_arrays(lu, piv, b, False)


@_linalg()
def inv_ex(A, *, check_errors=False, out=None):
    """``linalg.inv`` that reports a singular matrix in ``info`` (its first zero pivot, per
    matrix) instead of raising, unless ``check_errors``."""
    _matrices(A, 'linalg.inv')
    info = _info(A)
    if np.any(info):
        if check_errors:
            raise _singular(A._data, 'linalg.inv_ex')
        eye = np.broadcast_to(np.eye(A._data.shape[-1], dtype=A._data.dtype), A._data.shape)
        inverse = inverse_result(A, np.ascontiguousarray(_lu_solve_singular(A._data, eye)))
    else:
        inverse = _inv(A, 'linalg.inv')
    return _out_pair(_inv_ex_t(inverse, make(info)), out)


def _lu_solve_trans(lu, piv, b, trans):
    """``F x = b`` (``F^T x = b`` if ``trans``) from ``F``'s LU, through a zero pivot."""
    with np.errstate(all='ignore'):
        if not trans:
            return _lu_solve_arrays(lu, piv, b, False)
        if lu.dtype.kind == 'c':  # F^T x = b is F^H conj(x) = conj(b)
            return np.conj(_lu_solve_arrays(lu, piv, np.conj(b), True))
        return _lu_solve_arrays(lu, piv, b, True)


@_linalg()
def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``linalg.solve`` that reports a singular ``A`` in ``info`` (its first zero pivot, per
    matrix) instead of raising, unless ``check_errors``."""
    solve_checks(A, B, 'linalg.solve', left)  # (before it looks for a singular A)
    if A._data.size:  # (torch factors A itself, for left=False too: its info, its inf/nan)
        lu, piv, info = _getrf(A._data)
    else:
        info, lu = np.zeros(A._data.shape[:-2], np.int32), None
    if check_errors and np.any(info):
        idx = np.unravel_index(int(np.argmax(info.reshape(-1) > 0)), info.shape)
        raise LinAlgError(f"torch.linalg.solve_ex: {_batch_prefix(A._data.shape, idx)}The "
                          "solver failed because the input matrix is singular.")
    factor = (lu, piv, False) if lu is not None and np.any(info) else None
    X = _solve(A, B, 'linalg.solve', left, singular=_lu_solve_singular, factor=factor)
    return _out_pair(_solve_ex_t(X, make(info)), out)


# -- cholesky_solve / cholesky_inverse: two triangular solves with a Cholesky factor -------
def _cholesky_checks(L, kernel, op):
    a = L._data
    if a.ndim < 2:
        raise RuntimeError(f"{op}The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    _float_kernel(L, kernel)  # (the kernel's dtypes after the shapes, as torch)


def _factor_grad(L, gA, upper):
    """A Cholesky factor's gradient from ``A = L L^H``'s (``U^H U`` if ``upper``):
    ``(gA + gA^H) L`` (``U (gA + gA^H)``)."""
    s = gA + gA.mH
    return L.matmul(s) if upper else s.matmul(L)


def _chol_solve_arrays(b, l, upper):
    lh = np.conj(np.swapaxes(l, -1, -2))
    if upper:  # U^H U X = B
        return _trsolve(l, _trsolve(lh, b, False), True)
    return _trsolve(lh, _trsolve(l, b, False), True)


class CholeskySolveBackward0(Node):
    """Gradient of ``cholesky_solve`` (``X = A^{-1} B``, ``A = L L^H``): ``gB = A^{-1} gX``
    and ``gA = -gB X^H`` taken to the factor."""

    def backward(self, gX):
        B, L = self.saved_tensors
        gB = cholesky_solve(gX, L, self.upper)
        gL = None
        if _products._needs(self, 1):
            X = cholesky_solve(B, L, self.upper)
            gL = _factor_grad(L, -gB.matmul(X.mH), self.upper)
        return gB, gL


@register
def cholesky_solve(input, input2, upper=False, *, out=None):
    """``X`` with ``A X = B`` given ``B`` (``input``) and the Cholesky factor of ``A``
    (``input2``: ``L`` with ``A = L L^H``, or ``U`` with ``A = U^H U`` if ``upper``)."""
    _products._check_tensor(input, 'cholesky_solve', 'input', 1)
    _products._check_tensor(input2, 'cholesky_solve', 'input2', 2)
    B, L = input, input2
    b, l = B._data, L._data
    if b.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions "
                           "instead")
    if l.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {l.ndim} dimensions "
                           "instead")
    if b.dtype != l.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{B.dtype.kernel_name} and A of type {L.dtype.kernel_name} instead.")
    _cholesky_checks(L, 'cholesky_solve_cpu', '')
    if b.shape[-2] != l.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{l.shape[-1]} by {l.shape[-1]} but each b matrix is {b.shape[-2]} "
                           f"by {b.shape[-1]}")
    _float_kernel(B, 'cholesky_solve_cpu')  # (the kernel's dtypes after the shapes)
    x = _chol_solve_arrays(b, l, upper)
    node = track(CholeskySolveBackward0, (B, L))
    if node is not None:
        node.save(B, L)
        node.upper = upper
    return _products._out(result(np.ascontiguousarray(x, dtype=b.dtype), node), out)


class CholeskyInverseBackward0(Node):
    """Gradient of ``cholesky_inverse`` (``R = A^{-1}``): ``-R (gR + gR^H) R`` taken to the
    factor (``... L``, ``U ...``); torch's form, which differs from ``_factor_grad`` of
    ``-R gR R`` where R is not Hermitian (a complex diagonal in the factor)."""

    def backward(self, g):
        L = self.saved_tensors[0]
        R = cholesky_inverse(L, self.upper)
        common = -R.matmul(g + g.mH).matmul(R)
        return L.matmul(common) if self.upper else common.matmul(L)


@register
def cholesky_inverse(input, upper=False, *, out=None):
    """``A^{-1}`` from ``A``'s Cholesky factor (``L`` with ``A = L L^H``, or ``U`` with
    ``A = U^H U`` if ``upper``)."""
    _products._check_tensor(input, 'cholesky_inverse', 'input', 1)
    _cholesky_checks(input, 'cholesky_inverse_out_cpu', 'cholesky_inverse: ')
    l = input._data
    if l.size and np.any(np.diagonal(l, 0, -2, -1) == 0):
        raise _singular(l, 'cholesky_inverse', find=_first_zero_diagonal)
    eye = np.broadcast_to(np.eye(l.shape[-1], dtype=l.dtype), l.shape)
    node = track1(CholeskyInverseBackward0, input)
    if node is not None:
        node.save(input)
        node.upper = upper
    inv = _potri(l, upper)
    if inv is None:
        inv = _chol_solve_arrays(eye, l, upper)
    if l.dtype.char in 'fF' and not np.isfinite(inv).all() and np.isfinite(l).all():
        # a single-precision product overflowed: its inf * conj(inf) terms leave NaN in
        # OpenBLAS's potri where the entry is an overflowing real sum of squares (+inf, as
        # torch's MKL gives); the double-precision inverse rounds to it
        wide = l.astype(np.complex128 if l.dtype.kind == 'c' else np.float64)
        with np.errstate(all='ignore'):
            inv = _potri(wide, upper)
            if inv is None:
                inv = _chol_solve_arrays(eye.astype(wide.dtype), wide, upper)
    return _products._out(result(np.ascontiguousarray(inv, dtype=l.dtype), node), out)


def _potri(l, upper):
    """LAPACK's potri of each factor (through scipy; None without it), as torch computes
    it: one triangle of the inverse from the factor's triangle, mirrored (conjugated) into
    the other, so the result is exactly Hermitian."""
    mod = lapack()
    if mod is None or not l.size or l.dtype.char not in 'fdFD':
        return None
    potri, = mod.get_lapack_funcs(('potri',), (l,))
    n = l.shape[-1]
    fl = l.reshape((-1, n, n))
    out = np.empty_like(fl)
    for i in range(fl.shape[0]):
        t = potri(fl[i], lower=not upper)[0]
        t = np.triu(t) if upper else np.tril(t)
        out[i] = t + np.conj(np.swapaxes(np.triu(t, 1) if upper else np.tril(t, -1), -1, -2))
    return out.reshape(l.shape)
