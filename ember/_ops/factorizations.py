"""Matrix factorizations and what is computed through them: inverses, determinants, solves,
Cholesky, QR, eigh, SVD, pinv, lstsq, rank -- the ``ember.linalg`` functions and the
top-level/Tensor forms torch keeps (inverse, det, logdet, slogdet, svd, pinverse, cholesky,
qr). The ``ember.linalg`` namespace itself (``LINALG``, ``_linalg``) is collected here.

Factorizations run in NumPy (LAPACK). Each differentiable one has a node named as torch's
grad_fn whose backward is the standard formula written in ember ops; it recomputes the
factorization from the saved input with the ember op itself, so the backward is recorded
too and higher derivatives work. Functions torch composes from other ops are in
``linalg_composed.py``; the LU family and triangular solves in ``lu.py``; ``eig`` in
``eig.py``; ``matrix_exp`` in ``matrix_exp.py``; Householder products in ``householder.py``;
LDL in ``ldl.py``. ``ember/linalg.py`` installs the namespace on first use.
"""
import numpy as np

from ._core import (Node, Tensor, register, track, track1, result, results, make,
                    broadcast_shape)
from . import linalg as _products
from .complex import conj_if_complex as cj
from .reduce import _named, _out_pair, _unused
from .pointwise import where as _where
from .shape import cat
from ..overrides import overridable
from ..autograd.graph import _SavedOutput, name_saved_values

__all__ = ['LINALG', 'LinAlgError']

# ember.linalg.<name> -> the dispatching public function.
LINALG = {}


class LinAlgError(RuntimeError):
    """Raised when a matrix is singular or not positive-definite (``torch.linalg.LinAlgError``)."""


LINALG['LinAlgError'] = LinAlgError


def _linalg(name=None):
    def deco(f):
        LINALG[name or f.__name__] = overridable(f, 'ember.linalg.' + (name or f.__name__))
        return f
    return deco


_slogdet_t = _named('linalg_slogdet', ('sign', 'logabsdet'))
_slogdet_top = _named('slogdet', ('sign', 'logabsdet'))
_qr_t = _named('linalg_qr', ('Q', 'R'))
_qr_top = _named('qr', ('Q', 'R'))
_cholesky_ex_t = _named('linalg_cholesky_ex', ('L', 'info'))
_eigh_t = _named('linalg_eigh', ('eigenvalues', 'eigenvectors'))
_svd_t = _named('linalg_svd', ('U', 'S', 'Vh'))
_svd_top = _named('svd', ('U', 'S', 'V'))
_lstsq_t = _named('linalg_lstsq', ('solution', 'residuals', 'rank', 'singular_values'))


# -- checks (torch's messages) -------------------------------------------------------------
def _guarded(fn, a, *args, **kwargs):
    """``fn(a, ...)`` for an iterative LAPACK driver (SVD, symmetric eigensolver): LAPACK can
    loop forever on a matrix holding NaN or inf. As in torch, a NaN fails to converge
    (LinAlgError) and an inf gives NaN results: such matrices go in as zeros and their
    results come out NaN."""
    if a.dtype == np.float16:  # (reached only empty -- torch refuses others -- which torch
        a = a.astype(np.float32)  # answers; NumPy's LAPACK takes no float16)
    bad = ~np.isfinite(a).all(axis=(-2, -1))
    if not bad.any():
        return fn(a, *args, **kwargs)
    nan = np.isnan(a).any(axis=(-2, -1))
    if nan.any() and not (fn in (np.linalg.eigh, np.linalg.eigvalsh) and a.shape[-1] <= 2):
        # (the symmetric solver of a 1x1 or 2x2 matrix is a formula, no iteration: NaN in,
        # NaN out)
        at = f"(Batch element {int(np.flatnonzero(nan.reshape(-1))[0])}): " if a.ndim > 2 else ''
        if fn in (np.linalg.eigh, np.linalg.eigvalsh):
            raise LinAlgError(f"linalg.eigh: {at}The algorithm failed to converge because the "
                              "input matrix is ill-conditioned or has too many repeated "
                              "eigenvalues (error code: 1).")
        raise LinAlgError(f"linalg.svd: {at}The algorithm failed to converge because the input "
                          "matrix contained non-finite values.")
    res = fn(np.where(bad[..., None, None], 0, a), *args, **kwargs)
    for r in res if isinstance(res, tuple) else (res,):
        r[bad] = np.nan
    return res


def _floating(A, op):
    if A._data.dtype.kind not in 'fcV':
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype.kernel_name}")


def _matrices(A, op, square=True):
    """The checks torch's linalg kernels start with: >= 2 dims, square, floating dtype."""
    _products._check_tensor(A, op, 'A', 1)
    if A._data.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    m, n = A._data.shape[-2:]
    if square and m != n:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {m} by "
                           f"{n} matrices")
    _floating(A, op)


def _batch_prefix(shape, index):
    """torch names the failing batch element when the input is a batch."""
    if len(shape) <= 2:
        return ''
    return f"(Batch element {int(np.ravel_multi_index(index, shape[:-2]))}): "


def _first_zero_pivot(a):
    """(batch index, 1-based column) of the first exactly-zero pivot of LU with partial
    pivoting, which is where LAPACK's getrf reports a singular matrix."""
    for idx in np.ndindex(a.shape[:-2]):
        m = np.array(a[idx], dtype=a.dtype)
        n = m.shape[-1]
        for k in range(n):
            p = k + int(np.argmax(np.abs(m[k:, k])))
            if m[p, k] == 0:
                return idx, k + 1
            m[[k, p]] = m[[p, k]]
            m[k + 1:] -= np.outer(m[k + 1:, k] / m[k, k], m[k])
    return None, None


def _first_zero_diagonal(a):
    """(batch index, 1-based column) of the first zero on the diagonal of a triangular
    factor, which is where LAPACK's trtri/potri report a singular matrix."""
    for idx in np.ndindex(a.shape[:-2]):
        zeros = np.flatnonzero(np.diagonal(a[idx]) == 0)
        if zeros.size:
            return idx, int(zeros[0]) + 1
    return None, None


def _singular(a, op, find=_first_zero_pivot):
    """torch's LinAlgError for the first singular matrix of ``a`` (found by ``find``), or
    None when there is none."""
    idx, k = find(a)
    if idx is None:
        return None
    return LinAlgError(f"{op}: {_batch_prefix(a.shape, idx)}The diagonal element {k} is zero, "
                       "the inversion could not be completed because the input matrix is "
                       "singular.")


def _eye_like(A):
    n = A._data.shape[-1]
    return make(np.broadcast_to(np.eye(n, dtype=A._data.dtype), A._data.shape).copy())


# -- inverse / det / slogdet / logdet --------------------------------------------------------
class LinalgInvExBackward0(Node):
    """Gradient of ``inv``: ``-A^{-H} g A^{-H}``, from the saved inverse (as torch: of a
    singular matrix, ``inv_ex``'s inf/nan, so the gradient is inf/nan, not an error)."""

    def backward(self, g):
        Ai = self.saved_tensors[0].mH
        return -Ai.matmul(g).matmul(Ai)


def _inv(A, op):
    _matrices(A, op)
    a = A._data
    if a.dtype.kind == 'V' or a.dtype == np.float16:  # (torch's check for inv, as inv_ex's)
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got "
                           f"{A.dtype.kernel_name}")
    try:
        r = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        r = None
    err = _singular(a, op) if r is None or not np.all(np.isfinite(r)) else None
    if r is None or (err is not None and np.all(np.isfinite(a))):
        raise err or LinAlgError(f"{op}: The input matrix is singular.")
    return inverse_result(A, r.astype(a.dtype, copy=False))


def inverse_result(A, r):
    """The inverse ``r`` of ``A`` (an array) as the tensor ``inv`` returns, its node keeping
    it for the backward."""
    n = track1(LinalgInvExBackward0, A)
    t = result(r, n)
    if n is not None:
        n.save_output(t)
    return t


name_saved_values(LinalgInvExBackward0, ('inverse',))


@_linalg()
def inv(A, *, out=None):
    """Inverse of a square matrix (or a batch); a singular one raises LinAlgError."""
    return _products._out(_inv(A, 'linalg.inv'), out)


@register
def inverse(input, *, out=None):
    """``linalg.inv`` under its older name."""
    return _products._out(_inv(input, 'linalg.inv'), out)


class LinalgDetBackward0(Node):
    """Gradient of ``det``: ``g * conj(det A) * A^{-H}``."""

    def backward(self, g):
        A = self.saved_tensors[0]
        d = det(A)
        if not (d._data == 0).any():
            return (g * cj(d)).unsqueeze(-1).unsqueeze(-1) * inv(A).mH
        # A singular matrix has no inverse, but det still has a derivative: the adjugate.
        # (torch returns zeros here, which is wrong for rank n-1.)
        return g.unsqueeze(-1).unsqueeze(-1) * make(_adjugate(A._data)).mH


def _adjugate(a):
    """adj(a) = det(a) a^{-1}, defined for singular matrices too, through the SVD:
    a = U S Vh gives adj(a) = det(U) det(Vh) V diag(prod_{j != i} s_j) U^H."""
    u, s, vh = _guarded(np.linalg.svd, a)
    n = s.shape[-1]
    ones = np.ones(s.shape[:-1] + (1,), s.dtype)
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], -1), -1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], -1), -1)[..., ::-1]
    others = before * after if n else s
    phase = np.linalg.det(u) * np.linalg.det(vh)
    v, uh = np.conj(np.swapaxes(vh, -1, -2)), np.conj(np.swapaxes(u, -1, -2))
    return (phase[..., None, None] * (v * others[..., None, :]) @ uh).astype(a.dtype)


@_linalg()
def det(A, *, out=None):
    """Determinant of a square matrix (or a batch)."""
    _matrices(A, 'linalg.det')
    n = track1(LinalgDetBackward0, A)
    if n is not None:
        n.save(A)
    return _products._out(result(np.asarray(np.linalg.det(A._data), A._data.dtype), n), out)


register(det)


class LinalgSlogdetBackward0(Node):
    """Gradient of ``slogdet`` through ``logabsdet``: ``g * A^{-H}`` (the sign is locally
    constant for real matrices)."""

    def backward(self, gsign, glogabs):
        A = self.saved_tensors[0]
        d = np.linalg.det(A._data)
        if A._data.dtype.kind == 'c':
            # The sign (a phase) moves with the matrix too: dL = Re(conj(w) tr(A^-1 dA))
            # with w = glogabs + i Im(gsign conj(sign)), so the gradient is w A^{-H}.
            if (d == 0).any():
                sign = make(np.asarray(d / np.where(d == 0, 1, np.abs(d)), A._data.dtype))
            else:  # (as ember ops, so that double backward sees it move)
                dt = det(A)
                sign = dt / dt.abs()
            glogabs = glogabs + 1j * (gsign * sign.conj()).imag
        if not (d == 0).any():
            return glogabs.unsqueeze(-1).unsqueeze(-1) * inv(A).mH
        # Singular: A^{-H} = adj(A)^H / conj(det A), infinite where the adjugate is not 0.
        with np.errstate(divide='ignore', invalid='ignore'):
            ainv_h = np.conj(np.swapaxes(_adjugate(A._data), -1, -2)) / np.conj(d)[..., None, None]
        return glogabs.unsqueeze(-1).unsqueeze(-1) * make(ainv_h.astype(A._data.dtype))


def _slogdet(A, op, cls):
    _matrices(A, op)
    sign, logabs = np.linalg.slogdet(A._data)
    if sign.dtype.kind == 'f':
        # torch's sign is the product of the pivots' signs, and the sign of NaN is 0: a NaN
        # log|det| (a NaN pivot, or 0 and inf ones) has sign 0 (NumPy says 1)
        sign = np.where(np.isnan(logabs), 0, sign)
    n = track1(LinalgSlogdetBackward0, A)
    if n is not None:
        n.save(A)
    dt = A._data.dtype
    s, la = results([np.asarray(sign, dt), np.asarray(logabs, np.abs(A._data[..., :0, :0]).dtype)],
                    n)
    return cls(s, la)


@_linalg()
def slogdet(A, *, out=None):
    """(sign, log|det|) of a square matrix: a determinant that neither over- nor
    underflows."""
    return _slogdet(A, 'linalg.slogdet', _slogdet_t)


@register(name='slogdet')
def _slogdet_toplevel(input):
    """``linalg.slogdet`` as ``torch.slogdet`` (its named tuple is ``slogdet``)."""
    return _slogdet(input, 'linalg.slogdet', _slogdet_top)


@register
def logdet(input):
    """``log(det(input))``: NaN for a negative determinant, -inf for a singular matrix."""
    _products._check_tensor(input, 'logdet', 'input', 1)
    sign, logabs = _slogdet(input, 'logdet', _slogdet_top)
    if input._data.dtype.kind == 'c':
        return logabs + sign.log()
    return _where(sign.lt(0), make(np.asarray(np.nan, logabs._data.dtype)), logabs)


# -- solve ---------------------------------------------------------------------------------
class LinalgSolveExBackward0(Node):
    """Gradient of ``solve`` (``A X = B``): ``gB = A^{-H} g``, ``gA = -gB X^H``."""

    def backward(self, g):
        A, B = self.saved_tensors
        if not self.left:  # X A = B is X^T = solve(A^T, B^T)
            A, B, g = A.mT, B.mT, g.mT
        # (a singular A, which solve_ex let through: the LU solves' inf/nan, as torch's)
        from .lu import _lu_solve_singular, _lu_solve_trans  # (lu builds on this module)
        if self.factor is not None:
            # as torch, through the forward's LU of F (A; A^T here for left=False after the
            # mT above): A^H y = g is F^H y = g where the forward solved with F, else
            # conj(F) y = g -- whose zero pivot gives inf/nan where a fresh LU of A^H can
            # leave a rounding remainder
            lu, piv, t = self.factor
            trans = t == self.left  # (the forward solved with F^T)
            gd = g._data[..., None] if self.vector else g._data
            if trans:
                gb = _lu_solve_trans(lu, piv, gd, False) if lu.dtype.kind != 'c' else \
                    np.conj(_lu_solve_trans(lu, piv, np.conj(gd), False))
            else:
                from .lu import _lu_solve_arrays
                with np.errstate(all='ignore'):
                    gb = _lu_solve_arrays(lu, piv, gd, True)
            gB = make(np.ascontiguousarray(gb[..., 0] if self.vector else gb, g._data.dtype))
        else:
            gB = _solve(A.mH, g, 'linalg.solve', singular=_lu_solve_singular)
        # (X through the same LU: the mT above made this a left solve, F^T where it was)
        f = self.factor and self.factor[:2] + (self.factor[2] == self.left,)
        X = _solve(A, B, 'linalg.solve', singular=_lu_solve_singular, factor=f)
        if self.vector:
            gA = -gB.unsqueeze(-1).matmul(X.unsqueeze(-1).mH)
        else:
            gA = -gB.matmul(X.mH)
        return (gA, gB) if self.left else (gA.mT, gB.mT)


def _vector_rhs(a_shape, b_shape):
    """Whether a right-hand side B of ``b_shape`` is a (batch of) vector(s) for matrices A
    of ``a_shape``: it is 1-D or has exactly A's batch shape plus one dim."""
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1
                                 and tuple(b_shape) == tuple(a_shape[:-1]))


def solve_checks(A, B, op, left=True):
    """torch's checks of ``solve``'s operands, in its order (``solve_ex`` makes them before
    it looks for a singular ``A``): A's dtype, rank and shape, one dtype, B a matrix (or a
    vector per matrix) of matching size, the batch dims broadcasting. Returns (a, b, vec):
    the arrays to solve ``a x = b`` (transposed for ``left=False``) and whether B is a
    vector (``b`` then has a trailing dim of one)."""
    _products._check_tensor(A, op, 'A', 1)
    _floating(A, op)  # (solve checks the dtypes first, unlike the other linalg kernels)
    _products._check_tensor(B, op, 'B', 2)
    a, b = A._data, B._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{op}: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.kernel_name} and B of type {B.dtype.kernel_name} instead")
    _matrices(A, op)
    vec = _vector_rhs(a.shape, b.shape)
    if not vec and b.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    if vec and not left:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation XA = B "
                           f"({a.shape[-2]}x{a.shape[-1]} and {b.shape[-1]}x1)")
    if not left:  # X A = B is X^T = solve(A^T, B^T)
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    bm = b[..., None] if vec else b
    if bm.shape[-2] != a.shape[-1]:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation AX = B "
                           f"({a.shape[-2]}x{a.shape[-1]} and {bm.shape[-2]}x{bm.shape[-1]})")
    broadcast_shape(bm.shape[:-2], a.shape[:-2])
    if a.size and (a.dtype.kind == 'V' or a.dtype == np.float16):  # (an empty A runs no
        raise NotImplementedError(f'"lu_cpu" not implemented for '  # kernel)
                                  f"'{A.dtype.kernel_name}'")
    return a, bm, vec


def _solve(A, B, op, left=True, singular=None, factor=None):
    """``solve``'s one body; ``singular(a, b)`` (for ``solve_ex``) gives the values for a
    singular ``A`` instead of the error; ``factor`` (solve_ex, a singular matrix in the batch)
    is torch's LU ``(lu, piv, t)`` of ``A`` (``A^T`` if ``t``) to solve through."""
    a, bm, vec = solve_checks(A, B, op, left)
    dtype = a.dtype
    if dtype.kind == 'V' or dtype == np.float16:  # (empty here: solved in float32)
        a, bm = a.astype(np.float32), bm.astype(np.float32)
    if factor is not None:
        from .lu import _lu_solve_trans  # (lu builds on this module)
        x = _lu_solve_trans(factor[0], factor[1], bm, factor[2] == left)
    else:
        try:
            x = np.linalg.solve(a, bm)
        except np.linalg.LinAlgError:
            if singular is None:
                raise LinAlgError("torch.linalg.solve: The solver failed because the input "
                                  "matrix is singular.") from None
            x = singular(a, bm)
    if vec:
        x = x[..., 0]
    elif not left:
        x = np.swapaxes(x, -1, -2)
    n = track(LinalgSolveExBackward0, (A, B))
    if n is not None:
        n.save(A, B)
        n.vector, n.left, n.factor = vec, left, factor
    return result(np.ascontiguousarray(x, dtype=dtype), n)


@_linalg()
def solve(A, B, *, left=True, out=None):
    """The solution ``X`` of ``A X = B`` (``X A = B`` with ``left=False``); ``B`` may be a
    (batch of) vector(s)."""
    if not left:
        return _products._out(_solve(A, B, 'linalg.solve', False), out)
    return _products._out(_solve(A, B, 'linalg.solve'), out)


# -- cholesky ------------------------------------------------------------------------------
def _cholesky_grad(L, gL):
    """``A``'s gradient from the lower factor's: ``L^{-H} sym(tril(L^H gL)) L^{-1}`` where
    sym keeps the diagonal once and mirrors the strict lower part."""
    P = L.mH.matmul(gL).tril()
    P = 0.5 * (P + P.tril(-1).mH)
    from .lu import _solve_tri  # (lu builds on this module)
    # (triangular solves: a singular partial factor gives inf/nan, not an error, as torch)
    X = _solve_tri(L.mH, P, upper=True)
    return _solve_tri(L, X, upper=False, left=False)


class LinalgCholeskyExBackward0(Node):
    """Gradient of ``linalg.cholesky``."""

    def backward(self, g):
        # (from the factor returned, as torch: a partial one too, with check_errors=False)
        R = self.saved_tensors[0]
        return _cholesky_grad(R.mH if self.upper else R, g.mH if self.upper else g)


class CholeskyBackward0(LinalgCholeskyExBackward0):
    """Gradient of the older ``torch.cholesky``: the same formula."""


def _potrf(a, upper=False):
    """The lower Cholesky factor of a (batch of) matrices and LAPACK's ``info`` per matrix:
    the order of the first leading minor that is not positive-definite (0 if none). The
    factor is of the triangle torch reads: the lower one, or with ``upper`` the upper one
    (conjugate-transposed into a lower one). Where it fails, the result is LAPACK's partial
    factor (as torch's), from scipy's potrf; without scipy, the factor of the leading
    minors that passed, zeros elsewhere. A NaN pivot fails (see ``_nan_pivot``)."""
    info = np.zeros(a.shape[:-2], np.int32)
    src = np.conj(np.swapaxes(a, -1, -2)) if upper else a
    try:
        L = np.linalg.cholesky(src)
        if np.all(np.isfinite(L)):
            return L, info
    except np.linalg.LinAlgError:
        L = np.zeros_like(a)
    from ._scipy import lapack
    mod = lapack()
    for idx in np.ndindex(a.shape[:-2]):
        try:
            L[idx] = np.linalg.cholesky(src[idx])
            if np.all(np.isfinite(L[idx])):
                continue
        except np.linalg.LinAlgError:
            pass
        if mod is not None and a.dtype.kind in 'fc' and a.dtype.itemsize >= 4:
            potrf, = mod.get_lapack_funcs(('potrf',), (a[idx],))
            c, info[idx] = potrf(a[idx], lower=not upper, clean=1)
            L[idx] = np.conj(c.T) if upper else c
        else:
            L[idx] = 0
            for k in range(1, a.shape[-1] + 1):
                try:
                    L[idx][:k, :k] = np.linalg.cholesky(src[idx][:k, :k])
                except np.linalg.LinAlgError:
                    info[idx] = k
                    break
        if not info[idx]:
            info[idx] = _nan_pivot(L[idx], src[idx])
    return L, info


def _nan_pivot(L, a):
    """LAPACK's reference potrf fails at a NaN pivot (MKL's, torch's, too; OpenBLAS's and
    NumPy's compute through it): its 1-based index (0 if none), ``L`` made the partial
    factor LAPACK leaves -- the columns before it factored, the pivot NaN, the rest of
    ``a``'s lower triangle as it was."""
    bad = np.flatnonzero(np.isnan(np.diagonal(L)))
    if not bad.size:
        return 0
    j = int(bad[0])
    part = np.tril(a)
    part[:, :j] = L[:, :j]
    part[j, j] = np.nan
    L[...] = part
    return j + 1


def _cholesky_error(info, op):
    """torch's error for the first batch element whose factorization failed."""
    idx = np.unravel_index(int(np.argmax(info.reshape(-1) > 0)), info.shape)
    return LinAlgError(f"{op}: {_batch_prefix(info.shape + (0, 0), idx)}The factorization "
                       "could not be completed because the input is not positive-definite "
                       f"(the leading minor of order {int(info[idx])} is not "
                       "positive-definite).")


def _cholesky(A, upper, op, cls, check=True):
    _matrices(A, op)
    a = A._data
    L, info = _potrf(a, upper)
    if check and np.any(info):
        raise _cholesky_error(info, op)
    r = np.conj(np.swapaxes(L, -1, -2)) if upper else L
    n = track1(cls, A)
    out = result(np.ascontiguousarray(r, dtype=a.dtype), n)
    if n is not None:
        n.save_output(out)
        n.upper = upper
    return out if check else (out, make(info))


@_linalg('cholesky')
def _linalg_cholesky(A, *, upper=False, out=None):
    """Cholesky factor of a Hermitian positive-definite matrix: lower ``L`` with
    ``A = L L^H`` (or upper ``U = L^H``)."""
    return _products._out(_cholesky(A, upper, 'linalg.cholesky', LinalgCholeskyExBackward0),
                          out)


@_linalg()
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``linalg.cholesky`` that reports failure in ``info`` (the order of the first leading
    minor that is not positive-definite, per matrix) instead of raising, unless
    ``check_errors``."""
    L, info = _cholesky(A, upper, 'linalg.cholesky', LinalgCholeskyExBackward0, check=False)
    if check_errors and np.any(info._data):
        raise _cholesky_error(info._data, 'linalg.cholesky_ex')
    return _out_pair(_cholesky_ex_t(L, info), out)


@register
def cholesky(input, upper=False, *, out=None):
    """``torch.cholesky`` (deprecated in torch in favour of ``linalg.cholesky``)."""
    x = input._data
    if x.size and x.ndim >= 2 and x.shape[-1] == x.shape[-2] and (
            x.dtype.kind not in 'fc' or x.dtype == np.float16):
        # (its kernel's dtype dispatch, after the shape checks: not linalg's message)
        raise NotImplementedError(f'"cholesky_cpu" not implemented for '
                                  f"'{input.dtype.kernel_name}'")
    if input._data.size == 0:  # (torch checks an empty input for nothing: it is the answer)
        return _products._out(result(np.empty_like(input._data),
                                     track1(_EmptyCholesky, input)), out)
    return _products._out(_cholesky(input, upper, 'cholesky', CholeskyBackward0), out)


class _EmptyCholesky(Node):
    """torch.cholesky's node on an empty input: nothing flows back."""

    def backward(self, g):
        return g


_EmptyCholesky.__name__ = _EmptyCholesky.__qualname__ = 'CholeskyBackward0'


# -- qr ------------------------------------------------------------------------------------
class LinalgQrBackward0(Node):
    """Gradient of ``qr`` for ``m >= n`` (reduced, or complete on square matrices):
    ``(gQ + Q sym(triu(gR R^H - Q^H gQ))) R^{-H}``; for a wide ``A = [X | Y]`` (``m < n``,
    ``R = [U | V]``) ``X = Q U`` is a square QR whose ``Q`` also makes ``Y = Q V``: ``X``
    takes the square formula with ``gQ + Y gV^H`` for ``gQ``, and ``gY = Q gV``."""

    def backward(self, gQ, gR):
        A = self.saved_tensors[0]
        m, n = A.shape[-2:]
        if self.mode == 'r':
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        Q, R = _qr(A, self.mode, 'linalg.qr', _qr_t)
        if m >= n:
            return _qr_grad(Q, R, gQ, gR)
        Y, U, gV = A[..., :, m:], R[..., :, :m], gR[..., :, m:]
        gX = _qr_grad(Q, U, gQ + Y.matmul(gV.mH), gR[..., :, :m])
        return cat([gX, Q.matmul(gV)], -1)


def _qr_grad(Q, R, gQ, gR):
    """The gradient of ``A = Q R`` with ``R`` square and invertible."""
    M = (gR.matmul(R.mH) - Q.mH.matmul(gQ)).triu()
    M = M + M.mH
    M = M - 0.5 * M.diagonal(0, -2, -1).diag_embed()
    gA = Q.matmul(M) + gQ
    from .lu import _solve_tri  # (lu builds on this module)
    # gA R^{-H}: a triangular solve, which gives inf/nan for a rank-deficient A, as torch
    return _solve_tri(R.mH, gA, upper=False, left=False)


def _qr(A, mode, op, cls):
    _matrices(A, op, square=False)
    if mode not in ('reduced', 'r', 'complete'):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    a = A._data
    q, r = np.linalg.qr(a, mode='complete' if mode == 'complete' else 'reduced')
    if mode == 'r':
        q = np.zeros((0,), a.dtype)
    n = track1(LinalgQrBackward0, A)
    if n is not None:
        n.save(A)
        n.mode = mode
    return cls(*results([q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)], n))


@_linalg('qr')
def _linalg_qr(A, mode='reduced', *, out=None):
    """QR decomposition ``A = Q R`` (``mode``: 'reduced', 'complete' or 'r')."""
    return _qr(A, mode, 'linalg.qr', _qr_t)


@register
def qr(input, some=True, *, out=None):
    """``torch.qr``: ``some=True`` is ``linalg.qr``'s 'reduced' mode, False 'complete'."""
    return _qr(input, 'reduced' if some else 'complete', 'linalg.qr', _qr_top)


# -- eigh ----------------------------------------------------------------------------------
class LinalgEighBackward0(Node):
    """Gradient of ``eigh`` (distinct eigenvalues):
    ``V (diag(gL) + skew(V^H gV) / (L_j - L_i)) V^H``."""

    def backward(self, gL, gV=None):
        A = self.saved_tensors[0]
        L, V = _eigh(A, self.uplo, 'linalg.eigh', True)
        inner = gL.diag_embed()
        if gV is not None and not _unused(gV):  # (an unused V: zeros from the engine)
            VhgV = V.mH.matmul(gV)
            VhgV = 0.5 * (VhgV - VhgV.mH)
            E = L.unsqueeze(-2) - L.unsqueeze(-1)
            E = E + _eye_like(E)
            inner = inner + VhgV / E
        return V.matmul(inner.to(V.dtype)).matmul(V.mH)


def _eigh(A, UPLO, op, vectors):
    _matrices(A, op)
    if UPLO not in ('L', 'U'):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    a = A._data
    # (LAPACK reads only the UPLO triangle: a NaN or inf in the other one changes nothing)
    w, v = _guarded(np.linalg.eigh, np.triu(a) if UPLO == 'U' else np.tril(a), UPLO)
    n = track1(LinalgEighBackward0, A)
    if n is not None:
        n.save(A)
        n.uplo = UPLO
    if vectors:
        return results([w, v.astype(a.dtype, copy=False)], n)
    return result(w, n)


def _eigh_dtype(A):
    _products._check_tensor(A, 'linalg.eigh', 'A', 1)
    if A._data.dtype.kind not in 'fcV':
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for '
                                  f"'{A.dtype.kernel_name}'")


@_linalg()
def eigh(A, UPLO='L', *, out=None):
    """Eigenvalues (ascending, real) and eigenvectors of a Hermitian matrix, read from its
    lower (``UPLO='L'``) or upper triangle."""
    _eigh_dtype(A)
    return _eigh_t(*_eigh(A, UPLO, 'linalg.eigh', True))


@_linalg()
def eigvalsh(A, UPLO='L', *, out=None):
    """Eigenvalues (ascending) of a Hermitian matrix."""
    _eigh_dtype(A)
    return _products._out(_eigh(A, UPLO, 'linalg.eigh', False), out)


# -- svd -----------------------------------------------------------------------------------
class LinalgSvdBackward0(Node):
    """Gradient of the SVD ``A = U diag(S) Vh`` (distinct, non-zero singular values)."""

    def backward(self, gU, gS=None, gVh=None):
        if gS is None:  # svdvals: S is the only output
            gU, gS, gVh = None, gU, None
        # Outputs nobody used come as zeros from the engine: drop them as torch does, so a
        # loss on S alone never divides by the (zero) gaps of repeated singular values.
        if gU is not None and gVh is not None and _unused(gU) and _unused(gVh):
            gU = gVh = None
        if self.uv:
            # svd's own outputs (not a recomputation), so that a second derivative sees the
            # gradients and the formula depend on one U and V: with a recomputed pair the
            # phase-invariance of a complex loss would be lost between them
            U, S, Vh = self.saved_tensors
            m, n = self._meta[0][0][-2:]
        else:  # svdvals: the formula below is phase-free, recomputing is fine
            A = self.saved_tensors[0]
            m, n = A.shape[-2:]
            U, S, Vh = _svd(A, False, 'linalg.svd', True)
        k = min(m, n)
        U, Vh = U[..., :k], Vh[..., :k, :]
        if gU is not None and gU.shape[-1] != k:
            gU = gU[..., :k]
        if gVh is not None and gVh.shape[-2] != k:
            gVh = gVh[..., :k, :]
        Sd = S.to(U.dtype)
        if gU is None and gVh is None:
            return U.matmul(gS.to(U.dtype).diag_embed()).matmul(Vh)
        V, gV = Vh.mH, gVh.mH
        UhgU = U.mH.matmul(gU)
        UhgU = UhgU - UhgU.mH
        VhgV = V.mH.matmul(gV)
        VhgV = VhgV - VhgV.mH
        S2 = S * S
        E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
        E = E + _eye_like(E)
        gA = (UhgU * Sd.unsqueeze(-2) + Sd.unsqueeze(-1) * VhgV) / E
        gA = gA + gS.to(U.dtype).diag_embed()
        if U._data.dtype.kind == 'c':
            # Only U's and V's common phase per singular pair is free: a loss that depends
            # on it is ill-defined (as torch says). What is left of U^H gU's diagonal is the
            # derivative through the relative phase: i Im((U^H gU)_ii) / S_i.
            d = UhgU.diagonal(0, -2, -1)
            if not np.allclose((d + VhgV.diagonal(0, -2, -1))._data.imag, 0, rtol=1e-2,
                               atol=1e-2):
                raise RuntimeError("svd_backward: The singular vectors in the complex case "
                                   "are specified up to multiplication by e^{i phi}. The "
                                   "specified loss function depends on this phase term, "
                                   "making it ill-defined.")
            gA = gA + (d / (2 * Sd)).diag_embed()
        if m > k:
            gA = U.matmul(gA)
            gUSinv = gU / Sd.unsqueeze(-2)
            gA = (gA + gUSinv - U.matmul(U.mH.matmul(gUSinv))).matmul(Vh)
        elif n > k:
            gA = gA.matmul(Vh)
            gVSinv = gV / Sd.unsqueeze(-2)
            gA = U.matmul(gA + gVSinv.mH - gVSinv.mH.matmul(V).matmul(Vh))
        else:
            gA = U.matmul(gA).matmul(Vh)
        return gA


def _svd(A, full_matrices, op, uv):
    _matrices(A, op, square=False)
    a = A._data
    if uv:
        u, s, vh = _guarded(np.linalg.svd, a, full_matrices=full_matrices)
    else:
        s = _guarded(np.linalg.svd, a, compute_uv=False)
    n = track1(LinalgSvdBackward0, A)
    real = np.abs(a[..., :0, :0]).dtype
    if not uv:
        if n is not None:
            n.save(A)
            n.uv = False
        return result(s.astype(real, copy=False), n)
    outs = results([u.astype(a.dtype, copy=False), s.astype(real, copy=False),
                    vh.astype(a.dtype, copy=False)], n)
    if n is not None:
        n._saved = tuple((_SavedOutput(t), t._vc[0]) for t in outs)
        n.uv = True
    return outs


@_linalg()
def svd(A, full_matrices=True, *, driver=None, out=None):
    """Singular value decomposition ``A = U diag(S) Vh``, singular values descending."""
    if driver is not None:
        _cpu_driver(A)
    return _svd_t(*_svd(A, full_matrices, 'linalg.svd', True))


def _cpu_driver(A):
    """torch's refusal of ``driver=`` on a CPU input, after the input's own checks (an empty
    input returns before its LAPACK call, driver or not)."""
    _matrices(A, 'linalg.svd', square=False)
    if A._data.size == 0:
        return
    raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA "
                       "inputs with cuSOLVER backend.")


@register(name='svd')
def _svd_toplevel(input, some=True, compute_uv=True, *, out=None):
    """``torch.svd``: returns ``V`` (not ``Vh``); ``compute_uv=False`` gives zero U and V."""
    _products._check_tensor(input, 'svd', 'input', 1)
    if input._data.ndim < 2:  # (torch.svd's own check, in its words, comes first)
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input._data.ndim} dimensions instead")
    if not compute_uv:
        S = _svd(input, False, 'linalg.svd', False)
        m, n = input._data.shape[-2:]
        batch = input._data.shape[:-2]
        return _svd_top(make(np.zeros(batch + (m, m), input._data.dtype)), S,
                        make(np.zeros(batch + (n, n), input._data.dtype)))
    U, S, Vh = _svd(input, not some, 'linalg.svd', True)
    return _svd_top(U, S, Vh.mH)


@_linalg()
def svdvals(A, *, driver=None, out=None):
    """Singular values of ``A``, descending."""
    if driver is not None:
        _cpu_driver(A)
    return _products._out(_svd(A, False, 'linalg.svd', False), out)


# -- pinv / lstsq / matrix_rank ------------------------------------------------------------
def _pinv_grad(A, P, G):
    """``A``'s gradient from ``pinv(A)``'s (``P``, gradient ``G``): the derivative of the
    pseudo-inverse (Golub and Pereyra), valid where the rank is locally constant."""
    Gh = G.mH
    PPh = P.matmul(P.mH)
    PhP = P.mH.matmul(P)
    return (-P.mH.matmul(G).matmul(P.mH) + (Gh - A.matmul(P).matmul(Gh)).matmul(PPh)
            + PhP.matmul(Gh - Gh.matmul(P).matmul(A)))


class LinalgPinvBackward0(Node):
    """Gradient of ``pinv``."""

    def backward(self, g):
        A = self.saved_tensors[0]
        return _pinv_grad(A, _pinv(A, self.atol, self.rtol, self.hermitian), g)


def _square_for_eigh(a):
    """The ``hermitian`` forms go through torch's eigh: its error for non-square input."""
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.eigh: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def _tolerances(a, atol, rtol):
    """torch's defaults: with neither given, ``rtol = eps * max(m, n)``; with only ``atol``
    given, ``rtol = 0``. Returned as arrays broadcasting against the singular values."""
    real = np.abs(a[..., :0, :0]).dtype
    if rtol is None:
        rtol = np.finfo(real).eps * max(a.shape[-2:]) if atol is None else 0.0
    atol = 0.0 if atol is None else atol
    at = atol._data if isinstance(atol, Tensor) else np.asarray(atol)
    rt = rtol._data if isinstance(rtol, Tensor) else np.asarray(rtol)
    return at[..., None] if at.ndim else at, rt[..., None] if rt.ndim else rt


def _dropped(keep, u, vh):
    """The singular (or eigen) vectors with those of dropped values zeroed -- only where a
    value is NaN (a non-finite matrix, whose vectors ``_guarded`` makes NaN): NaN fails the
    tolerance test, and torch's LAPACK leaves finite vectors, so such a value contributes
    nothing to the pseudo-inverse (0, not NaN); finite vectors times a zero are zero anyway."""
    if keep.all() or not np.isnan(u).any():
        return u, vh
    u = np.where(keep[..., None, :], u, 0)
    return u, None if vh is None else np.where(keep[..., :, None], vh, 0)


def _svd_pinv(a, at, rt):
    """The pseudo-inverse array through the SVD, and which singular values it kept."""
    u, s, vh = _guarded(np.linalg.svd, a, full_matrices=False)
    keep = s > np.maximum(at, rt * s[..., :1])
    u, vh = _dropped(keep, u, vh)
    sinv = np.where(keep, 1 / np.where(keep, s, 1), 0)
    vinv = np.conj(np.swapaxes(vh, -1, -2)) * sinv[..., None, :]
    return vinv @ np.conj(np.swapaxes(u, -1, -2)), keep


def _pinv(A, atol, rtol, hermitian):
    a = A._data
    if a.dtype.char not in 'fdFD' or a.ndim < 2:
        raise RuntimeError(f"linalg.pinv({A.dtype.kernel_name}{{{list(a.shape)}}}): expected a "
                           "tensor with 2 or more dimensions of float, double, cfloat or "
                           "cdouble types")
    if not a.size:
        # (torch answers an empty input with its empty transpose, square or not; the
        # tolerances do not broadcast in)
        p = np.zeros(a.shape[:-2] + a.shape[:-3:-1], a.dtype)
    elif hermitian:
        at, rt = _tolerances(a, atol, rtol)
        _square_for_eigh(a)
        w, v = _guarded(np.linalg.eigh, np.tril(a))  # (eigh reads the lower triangle)
        s = np.abs(w)
        smax = s.max(-1, keepdims=True) if s.shape[-1] else s[..., :1]
        keep = s > np.maximum(at, rt * smax)
        winv = np.where(keep, 1 / np.where(keep, w, 1), 0)
        v, _ = _dropped(keep, v, None)
        p = (v * winv[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))
    else:
        p, _ = _svd_pinv(a, *_tolerances(a, atol, rtol))
    n = track1(LinalgPinvBackward0, A)
    if n is not None:
        n.save(A)
        n.atol, n.rtol, n.hermitian = atol, rtol, hermitian
    return result(np.ascontiguousarray(p, dtype=a.dtype), n)


@_linalg()
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Moore-Penrose pseudo-inverse; singular values at most ``max(atol, rtol * s_max)`` are
    treated as zero (torch's older form ``pinv(A, rcond)``: ``rtol = rcond``, ``atol = 0``)."""
    for name, t in (('rcond', rcond), ('atol', atol), ('rtol', rtol)):
        if isinstance(t, Tensor) and t._data.dtype.kind == 'c':  # (whatever A's dtype)
            raise RuntimeError(f"torch.linalg.pinv: {name} tensor of complex type is not "
                               f"supported. Got {t.dtype.kernel_name}")
    if rcond is not None:
        atol, rtol = 0.0, rcond
    elif atol is not None and rtol is None and not isinstance(atol, Tensor):
        A.size(-2)  # (torch sizes its default rtol from the matrix first: its IndexError)
    from .backend_only import not_differentiable  # (autograd's check, before the op's)
    not_differentiable('linalg_pinv', (('atol', atol), ('rtol', rtol)))
    return _products._out(_pinv(A, atol, rtol, hermitian), out)


@register
def pinverse(input, rcond=1e-15):
    """``torch.pinverse``: ``linalg.pinv`` with ``rtol=rcond``."""
    return _pinv(input, None, rcond, False)


class LinalgLstsqBackward0(Node):
    """Gradient of ``lstsq``'s solution ``X = pinv(A) B``."""

    def backward(self, gX, *rest):
        A, B = self.saved_tensors
        P = _pinv(A, None, None, False)
        vector = _vector_rhs(A.shape, B.shape)  # (one right-hand side per matrix: a column)
        if vector:
            gX, B = gX.unsqueeze(-1), B.unsqueeze(-1)
        gB = P.mH.matmul(gX)
        return _pinv_grad(A, P, gX.matmul(B.mH)), gB.squeeze(-1) if vector else gB


@_linalg()
def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B``. Only ``solution`` is computed; ``residuals``
    and ``singular_values`` are empty and ``rank`` is the rank of ``A`` (what torch's default
    CPU driver, gelsy, returns)."""
    for t, name in ((A, 'input'), (B, 'other')):
        _products._check_tensor(t, 'linalg.lstsq', name, 1)
    a, b = A._data, B._data
    # (torch's order: ranks, one dtype, rows, then the dtype's kind)
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if b.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if not 0 <= a.ndim - b.ndim <= 1:  # (other is a matrix, or a vector, per input matrix)
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    if a.dtype != b.dtype:
        raise RuntimeError("torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {A.dtype.kernel_name} and other's "
                           f"dtype {B.dtype.kernel_name}")
    vector = _vector_rhs(a.shape, b.shape)
    if a.shape[-2] != b.shape[-1 if vector else -2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match "
                           f"other.size({-1 if vector else -2})")
    if a.dtype.kind not in 'fc' or a.dtype == np.float16:  # (half and bfloat16 too)
        raise RuntimeError("This function doesn't handle types other than float and double")
    bm = b[..., None] if vector else b
    done = _gelsy(a, bm, rcond) if driver in (None, 'gelsy') else None
    if done is None:
        p, keep = _svd_pinv(a, *_tolerances(a, None, rcond))
        done = p @ bm, keep.sum(-1)
    if vector:
        done = done[0][..., 0], done[1]
    n = track(LinalgLstsqBackward0, (A, B))
    if n is not None:
        n.save(A, B)
    empty = np.zeros((0,), np.abs(a[..., :0, :0]).dtype)
    x, res, sv = results([np.asarray(done[0], a.dtype), empty, empty], n,
                         (True, True, False))  # (the empty residuals are outputs, as in torch)
    return _lstsq_t(x, res, make(np.asarray(done[1], np.int64)), sv)


def _gelsy(a, b, rcond):
    """``(X, rank)`` from LAPACK's gelsy (torch's default CPU driver, through scipy), or
    None without scipy or for inputs it does not take. Where ``rcond`` truncates the rank,
    gelsy's solution is a basic one (zeros where QR's pivoting dropped columns), not the
    minimum-norm one the SVD gives."""
    from ._scipy import lapack
    mod = lapack()
    if mod is None or a.dtype.char not in 'fdFD' or b.dtype != a.dtype or b.ndim < 2 \
            or not a.size or not b.size or not (np.isfinite(a).all() and np.isfinite(b).all()):
        return None
    gelsy, size = mod.get_lapack_funcs(('gelsy', 'gelsy_lwork'), (a,))
    m, n = a.shape[-2:]
    k = b.shape[-1]
    cond = np.finfo(a.dtype).eps * max(m, n) if rcond is None else rcond
    lwork = int(np.real(size(m, n, k, cond)[0]))
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    fa = np.broadcast_to(a, batch + (m, n)).reshape(-1, m, n)
    fb = np.broadcast_to(b, batch + (m, k)).reshape(-1, m, k)
    x = np.empty((fa.shape[0], n, k), a.dtype)
    rank = np.empty(fa.shape[0], np.int64)
    for i in range(fa.shape[0]):
        rhs = np.zeros((max(m, n), k), a.dtype)  # (gelsy writes X over B's rows)
        rhs[:m] = fb[i]
        jpvt = np.zeros(n, np.int32)
        _, sol, _, rank[i], info = gelsy(fa[i], rhs, jpvt, cond, lwork)
        if info:
            return None
        x[i] = sol[:n]
    # (the rank is A's alone: one per matrix of A, not per broadcast batch)
    rank = rank.reshape(batch)
    lead = len(batch) - (a.ndim - 2)
    rank = rank[(0,) * lead + tuple(slice(0, 1) if d == 1 else slice(None)
                                    for d in a.shape[:-2])]
    return x.reshape(batch + (n, k)), rank.reshape(a.shape[:-2])


@_linalg()
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Number of singular values above ``max(atol, rtol * s_max)`` (torch's older form
    ``matrix_rank(A, tol)``: ``atol = tol``, ``rtol = 0``)."""
    _products._check_tensor(A, 'linalg.matrix_rank', 'A', 1)
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at "
                           "least 2 dimensions.")
    for name, t in (('atol', atol), ('rtol', rtol)):
        if isinstance(t, Tensor) and t._data.dtype.kind == 'c':
            raise RuntimeError(f"torch.linalg.matrix_rank: {name} tensor of complex type is not "
                               f"supported. Got {t.dtype.kernel_name}")
    # torch's tol form and its forms given an rtol (a tensor or a number: no default rtol,
    # whose epsilon refuses integer dtypes, to compute) answer an empty input first, then
    # run its eigh (hermitian) or svd, whose checks come before any of their own
    kernels = tol is not None or rtol is not None
    empty = make(np.zeros(a.shape[:-2], np.int64))
    if kernels and not a.size:
        return _products._out(empty, out)
    if kernels and hermitian:
        _square_for_eigh(a)
    if a.dtype.char not in 'fdFD':
        if kernels and (hermitian or a.dtype.kind in 'fV'):  # (float16, bfloat16; eigh: all)
            raise NotImplementedError(f'"linalg_{"eigh" if hermitian else "svd"}_cpu" not '
                                      f"implemented for '{A.dtype.kernel_name}'")
        if kernels:
            raise RuntimeError(f"linalg.svd: Expected a floating point or complex tensor as "
                               f"input. Got {A.dtype.kernel_name}")
        raise RuntimeError("This function doesn't handle types other than float and double")
    if not a.size:  # (rank 0, before eigh's square check)
        return _products._out(empty, out)
    if tol is not None:
        atol, rtol = tol, 0.0
    if hermitian:
        _square_for_eigh(a)
    at, rt = _tolerances(a, atol, rtol)
    s = np.abs(_guarded(np.linalg.eigvalsh, np.tril(a))) if hermitian else \
        _guarded(np.linalg.svd, a, compute_uv=False)
    smax = s.max(-1, keepdims=True) if s.shape[-1] else s[..., :1]
    r = make(np.asarray((s > np.maximum(at, rt * smax)).sum(-1), np.int64))
    return _products._out(r, out)


matrix_rank._refuses_dtypes = True  # (the body refuses dtypes in torch's order)


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``; ember keeps
# A, not torch's Q and R).
name_saved_values(LinalgQrBackward0, attrs={'mode': 'mode'})
