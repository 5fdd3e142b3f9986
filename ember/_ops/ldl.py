"""``linalg.ldl_factor(_ex)`` and ``linalg.ldl_solve``: the Bunch-Kaufman factorization
``A = L D L^T`` (``L D L^H`` with ``hermitian``) of a symmetric indefinite matrix.

torch returns LAPACK's sytrf/hetrf output as it is (the lower triangle holding ``L`` and the
1x1 and 2x2 blocks of ``D``; pivots 1-based, negative for 2x2 blocks), so these need LAPACK's
routines themselves, which NumPy does not expose: they come from scipy (the ``[scipy]``
extra), one call per matrix, and without it the functions raise saying so. As in torch,
neither has a derivative (the outputs carry a ``NotImplemented`` grad_fn).
"""
import numpy as np

from ._core import track, result, results, make
from . import linalg as _products
from .reduce import _named, _out_pair
from .pointwise import NotImplemented_
from .factorizations import _linalg, _matrices, _batch_prefix, LinAlgError
from ._scipy import lapack

__all__ = []

_ldl_t = _named('linalg_ldl_factor', ('LD', 'pivots'))
_ldl_ex_t = _named('linalg_ldl_factor_ex', ('LD', 'pivots', 'info'))


def _lapack(op, name, dtype):
    mod = lapack()
    if mod is None:
        raise RuntimeError(f"{op} needs LAPACK's {name}, which ember takes from scipy: "
                           "pip install 'ember[scipy]'")
    return mod.get_lapack_funcs((name,), (np.empty(0, dtype),))[0]


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
        trf = _lapack(op, _routine(hermitian, a.dtype), a.dtype)
        for i, m in enumerate(flat):
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
    if ld.dtype.char not in 'fdFD':
        raise NotImplementedError(f'"ldl_solve_cpu" not implemented for '
                                  f"'{LD.dtype.kernel_name}'")
    if piv.shape != ld.shape[:-1]:
        raise RuntimeError(f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got pivots with shape {list(piv.shape)} instead")
    if b.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    if b.dtype != ld.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{B.dtype.kernel_name} and A of type {LD.dtype.kernel_name} "
                           "instead.")
    n = ld.shape[-1]
    if b.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} "
                           f"but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    nb = int(np.prod(batch, dtype=np.int64))
    ldb = np.broadcast_to(ld, batch + (n, n)).reshape((nb, n, n))
    pb = np.broadcast_to(piv, batch + (n,)).reshape((nb, n))
    bb = np.broadcast_to(b, batch + b.shape[-2:]).reshape((nb,) + b.shape[-2:])
    x = np.empty(bb.shape, b.dtype)
    if x.size:
        name = 'hetrs' if hermitian and ld.dtype.kind == 'c' else 'sytrs'
        trs = _lapack(op, name, ld.dtype)
        for i in range(x.shape[0]):
            x[i] = trs(ldb[i], pb[i], bb[i], lower=1)[0]
    node = track(NotImplemented_, (LD, B))
    if node is not None:
        node.op = 'linalg_ldl_solve'
    return _products._out(result(x.reshape(batch + b.shape[-2:]), node), out)
