"""``linalg.ldl_factor(_ex)`` and ``linalg.ldl_solve``: the Bunch-Kaufman factorization
``A = L D L^T`` (``L D L^H`` with ``hermitian``) of a symmetric indefinite matrix.

torch returns LAPACK's sytrf/hetrf output as it is (the lower triangle holding ``L`` and the
1x1 and 2x2 blocks of ``D``; pivots 1-based, negative for 2x2 blocks). NumPy does not expose
those routines: with scipy installed (the ``[scipy]`` extra) they are called through it, one
call per matrix; without it, ``_sytf2_lower``/``_sytrs_lower`` do the same Bunch-Kaufman
steps in NumPy (same pivot choices, alpha = (1 + sqrt(17)) / 8, |re| + |im| as LAPACK's
magnitude; checked against LAPACK on random real, complex-symmetric and Hermitian
matrices: identical pivots, factors equal to 2e-14). As in torch, neither function has a
derivative (the outputs carry a ``NotImplemented`` grad_fn).
"""
import numpy as np

from ._core import track, result, results, make, wrap_dim
from . import linalg as _products
from .reduce import _named, _out_pair
from .pointwise import NotImplemented_
from .factorizations import _linalg, _matrices, _batch_prefix, LinAlgError
from ._scipy import lapack

__all__ = []

_ldl_t = _named('linalg_ldl_factor', ('LD', 'pivots'))
_ldl_ex_t = _named('linalg_ldl_factor_ex', ('LD', 'pivots', 'info'))


def _lapack(name, dtype):
    """scipy's LAPACK routine, or None without scipy."""
    mod = lapack()
    return None if mod is None else mod.get_lapack_funcs((name,), (np.empty(0, dtype),))[0]


# -- the NumPy kernels (without scipy) -----------------------------------------------------
# Bunch and Kaufman's threshold: a 1x1 pivot is taken when the diagonal is at least this
# fraction of the column's largest entry (it minimises the worst-case element growth).
_ALPHA = (1 + 17 ** 0.5) / 8


def _cabs1(x):
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def _sytf2_lower(a, hermitian):
    """Bunch-Kaufman LDL of one matrix from its lower triangle, as LAPACK's sytf2/hetf2 ('L')."""
    a = np.tril(np.array(a))
    n = a.shape[-1]
    piv = np.zeros(n, np.int32)
    info = 0
    herm = hermitian and np.iscomplexobj(a)
    cj = np.conj if herm else (lambda x: x)
    if herm:
        idx = np.arange(n)
        a[idx, idx] = a[idx, idx].real
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k].real) if herm else _cabs1(a[k, k])
        if k < n - 1:
            col = _cabs1(a[k + 1:, k])
            imax = k + 1 + int(np.argmax(col))
            colmax = col[imax - k - 1]
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                row = _cabs1(a[imax, k:imax])
                rowmax = row.max()
                if imax < n - 1:
                    rowmax = max(rowmax, _cabs1(a[imax + 1:, imax]).max())
                diag_imax = abs(a[imax, imax].real) if herm else _cabs1(a[imax, imax])
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif diag_imax >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = 2
            kk = k + kstep - 1
            if kp != kk:
                # symmetric interchange of rows and columns kk and kp of the trailing matrix
                t = a[kp + 1:, kk].copy()
                a[kp + 1:, kk] = a[kp + 1:, kp]
                a[kp + 1:, kp] = t
                t = cj(a[kk + 1:kp, kk].copy())
                a[kk + 1:kp, kk] = cj(a[kp, kk + 1:kp])
                a[kp, kk + 1:kp] = t
                if herm:
                    a[kp, kk] = np.conj(a[kp, kk])
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if kstep == 1:
                d = a[k, k].real if herm else a[k, k]
                if k < n - 1:
                    l = a[k + 1:, k] / d
                    a[k + 1:, k + 1:] -= np.tril(np.outer(l, cj(a[k + 1:, k])))
                    a[k + 1:, k] = l
                    if herm:
                        j = np.arange(k + 1, n)
                        a[j, j] = a[j, j].real
            elif k < n - 2:
                D = np.array([[a[k, k], cj(a[k + 1, k])], [a[k + 1, k], a[k + 1, k + 1]]])
                C = a[k + 2:, k:k + 2]
                W = np.linalg.solve(D.T, C.T).T  # C D^{-1}
                a[k + 2:, k + 2:] -= np.tril(W @ cj(C).T)
                a[k + 2:, k:k + 2] = W
                if herm:
                    j = np.arange(k + 2, n)
                    a[j, j] = a[j, j].real
        if kstep == 1:
            piv[k] = kp + 1
        else:
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return a, piv, info



def _sytrs_lower(a, piv, b, hermitian):
    """Solves A X = B from _sytf2_lower's result, as LAPACK's sytrs/hetrs ('L')."""
    herm = hermitian and np.iscomplexobj(a)
    cj = np.conj if herm else (lambda x: x)
    b = np.array(b, dtype=np.result_type(a, b))
    n = a.shape[-1]
    k = 0
    while k < n:  # L D Y = P^T B
        if piv[k] > 0:
            kp = piv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= np.outer(a[k + 1:, k], b[k])
            b[k] = b[k] / (a[k, k].real if herm else a[k, k])
            k += 1
        else:
            kp = -piv[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= np.outer(a[k + 2:, k], b[k]) + np.outer(a[k + 2:, k + 1], b[k + 1])
            D = np.array([[a[k, k], cj(a[k + 1, k])], [a[k + 1, k], a[k + 1, k + 1]]])
            b[k:k + 2] = np.linalg.solve(D, b[k:k + 2])
            k += 2
    k = n - 1
    while k >= 0:  # L^T X = Y (L^H if hermitian), then the interchanges back
        if piv[k] > 0:
            b[k] -= cj(a[k + 1:, k]) @ b[k + 1:]
            kp = piv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= cj(a[k + 1:, k]) @ b[k + 1:]
            b[k - 1] -= cj(a[k + 1:, k - 1]) @ b[k + 1:]
            kp = -piv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b



def _routine(hermitian, dtype):
    return 'hetrf' if hermitian and dtype.kind == 'c' else 'sytrf'


def _ldl_factor(A, hermitian, op):
    _matrices(A, op)
    a = A._data
    if a.dtype.char not in 'fdFD':
        raise NotImplementedError(f'"ldl_factor_kernel_cpu" not implemented for '
                                  f"'{A.dtype.kernel_name}'")
    n = a.shape[-1]
    flat = a.reshape((int(np.prod(a.shape[:-2], dtype=np.int64)), n, n))
    ld = np.zeros_like(flat)
    piv = np.zeros((flat.shape[0], n), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    if flat.size:
        trf = _lapack(_routine(hermitian, a.dtype), a.dtype)
        for i, m in enumerate(flat):
            if trf is None:
                ld[i], piv[i], info[i] = _sytf2_lower(m, hermitian)
            else:
                f, p, info[i] = trf(m, lower=1)
                ld[i], piv[i] = np.tril(f), p
    node = track(NotImplemented_, (A,))
    if node is not None:
        node.op = 'linalg_ldl_factor_ex'
    LD, pivots = results([ld.reshape(a.shape), piv.reshape(a.shape[:-1])], node,
                         (True, False))
    return LD, pivots, make(info.reshape(a.shape[:-2]))


def _check_info(info, op):
    """A zero on ``D``'s diagonal: the factorization finished but ``D`` is singular."""
    i = info._data
    if np.any(i > 0):
        idx = np.unravel_index(int(np.argmax(i.reshape(-1) > 0)), i.shape)
        k = int(i[idx])
        raise LinAlgError(f"{op}: {_batch_prefix(i.shape + (0, 0), idx)}The factorization "
                          f"could not be completed because D[{k},{k}] is exactly zero: the "
                          "input matrix is singular.")


@_linalg()
def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """The compact LDL factorization of a symmetric (Hermitian if ``hermitian``) matrix as
    LAPACK's sytrf/hetrf gives it, and ``info`` (``k > 0``: ``D[k,k]`` is exactly zero)."""
    r = _ldl_ex_t(*_ldl_factor(A, hermitian, 'torch.linalg.ldl_factor_ex'))
    if check_errors:
        _check_info(r.info, 'torch.linalg.ldl_factor_ex')
    return _out_pair(r, out)


@_linalg()
def ldl_factor(A, *, hermitian=False, out=None):
    """``(LD, pivots)`` of ``ldl_factor_ex``; a singular ``D`` raises."""
    LD, piv, info = _ldl_factor(A, hermitian, 'torch.linalg.ldl_factor_ex')
    _check_info(info, 'torch.linalg.ldl_factor')
    return _out_pair(_ldl_t(LD, piv), out)


@_linalg()
def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """Solves ``A X = B`` from ``ldl_factor(A)``'s result; batch dimensions broadcast."""
    op = 'torch.linalg.ldl_solve'
    _products._check_tensor(LD, 'linalg_ldl_solve', 'LD', 1)
    _products._check_tensor(B, 'linalg_ldl_solve', 'B', 3)
    _matrices(LD, op)
    ld, piv, b = LD._data, pivots._data, B._data
    # (torch's order: B's dtype, B's rows -- read as B.size(-2), an IndexError for a vector
    # -- then the pivots)
    if b.dtype != ld.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{B.dtype.kernel_name} and A of type {LD.dtype.kernel_name} "
                           "instead.")
    if b.ndim == 0:
        raise IndexError("Dimension specified as -2 but tensor has no dimensions")
    n = ld.shape[-1]
    if b.shape[wrap_dim(-2, b.ndim)] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} "
                           f"but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if piv.shape != ld.shape[:-1]:
        raise RuntimeError(f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got pivots with shape {list(piv.shape)} instead")
    if piv.dtype.kind not in 'iu':
        raise RuntimeError(f"{op}: Expected pivots to be integers. Got "
                           f"{pivots.dtype.kernel_name}")
    if ld.dtype.char not in 'fdFD':  # (float16, bfloat16: the kernel, after every check)
        raise NotImplementedError(f'"ldl_solve_kernel_cpu" not implemented for '
                                  f"'{LD.dtype.kernel_name}'")
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    nb = int(np.prod(batch, dtype=np.int64))
    ldb = np.broadcast_to(ld, batch + (n, n)).reshape((nb, n, n))
    pb = np.broadcast_to(piv, batch + (n,)).reshape((nb, n))
    bb = np.broadcast_to(b, batch + b.shape[-2:]).reshape((nb,) + b.shape[-2:])
    x = np.empty(bb.shape, b.dtype)
    if x.size:
        name = 'hetrs' if hermitian and ld.dtype.kind == 'c' else 'sytrs'
        trs = _lapack(name, ld.dtype)
        for i in range(x.shape[0]):
            x[i] = (_sytrs_lower(ldb[i], pb[i], bb[i], hermitian) if trs is None else
                    trs(ldb[i], pb[i], bb[i], lower=1)[0])
    node = track(NotImplemented_, (LD, B))
    if node is not None:
        node.op = 'linalg_ldl_solve'
    return _products._out(result(x.reshape(batch + b.shape[-2:]), node), out)
