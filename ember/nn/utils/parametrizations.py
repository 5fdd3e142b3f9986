"""``nn.utils.parametrizations``: orthogonal matrices, weight normalisation and spectral
normalisation written as parametrizations (``nn.utils.parametrize``), the forms torch
recommends over the hook-based ``nn.utils.weight_norm`` / ``spectral_norm``."""
import enum

from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ['orthogonal', 'weight_norm', 'spectral_norm']


class _OrthMaps(enum.Enum):
    """The maps ``orthogonal`` can build its matrix with (torch keeps them as an Enum)."""
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


def _is_orthogonal(q):
    from ... import allclose, eye, finfo
    n, k = q.size(-2), q.size(-1)
    return allclose(q.mH @ q, eye(k, dtype=q.dtype), atol=10.0 * n * finfo(q.dtype).eps)


def _make_orthogonal(a):
    """The Q of a tall ``a``'s QR decomposition, signed so that R's diagonal is
    non-negative."""
    from ... import geqrf, linalg
    x, tau = geqrf(a)
    q = linalg.householder_product(x, tau)
    q *= x.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return q


class _Orthogonal(Module):
    """A matrix (or batch) with orthonormal columns (rows, when wide) made from an
    unconstrained one: the exponential or the Cayley transform of its lower triangle made
    skew-symmetric, or a product of Householder reflectors. With ``use_trivialization`` the
    result is multiplied by the buffer ``base``, which assigning a weight sets (the stored
    tensor then restarts from -I, whose map is the identity-like start)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer('base', None)

    def forward(self, X):
        from ... import cat, eye, linalg, matrix_exp
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map == _OrthMaps.householder:
            a = X.tril(diagonal=-1)
            q = linalg.householder_product(a, 2.0 / (1.0 + (a * a).sum(dim=-2)))
            q = q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        else:
            X = X.tril()
            if n != k:  # (square it with zero columns; the first k columns are kept)
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            a = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = matrix_exp(a)
            else:
                i = eye(n, dtype=a.dtype)
                q = linalg.solve(i.add(a, alpha=-0.5), i.add(a, alpha=0.5))
            if n != k:
                q = q[..., :k]
        if hasattr(self, 'base'):
            q = self.base @ q
        return q.mT if transposed else q

    def right_inverse(self, Q):
        """What to store so that the map gives ``Q`` (orthogonalised first if it is not)."""
        from ... import cat, geqrf, no_grad, randn, zeros_like
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape "
                                 f"{self.shape}. Got a tensor of shape {Q.shape}.")
            q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q, n, k = Q.mT, k, n
            if not hasattr(self, 'base'):
                if self.orthogonal_map != _OrthMaps.householder:
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the "
                        "Cayley parametrizations when use_trivialization=False.")
                a, tau = geqrf(Q)
                a.diagonal(dim1=-2, dim2=-1).sign_()
                a.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
                return a.mT if transpose else a
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:  # (completed to a square with random columns, as torch does)
                Q = _make_orthogonal(cat([Q, randn(*(Q.size()[:-2] + (n, n - k)),
                                                   dtype=Q.dtype)], dim=-1))
            self.base = Q
            neg_eye = zeros_like(q_init)
            neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_eye


def orthogonal(module, name='weight', orthogonal_map=None, *, use_trivialization=True):
    """Parametrizes the matrix (or batch) ``module.<name>`` to stay orthogonal (unitary,
    when complex); ``orthogonal_map`` is ``'matrix_exp'`` (the default for square or complex
    matrices), ``'cayley'`` or ``'householder'`` (the default otherwise). The weight starts
    as the orthogonalised current one. Returns ``module``."""
    from ... import Tensor
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = 'matrix_exp' if square or weight.is_complex() else 'householder'
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    parametrize.register_parametrization(
        module, name, _Orthogonal(weight, orth_enum,
                                  use_trivialization=use_trivialization), unsafe=True)
    return module


class _WeightNorm(Module):
    """``weight = v * g / ||v||`` (the norm over every dim but ``dim``; ``dim=None`` or -1:
    the norm of the whole tensor), stored as ``original0`` = g and ``original1`` = v."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        from ... import _weight_norm
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        """(g, v) of ``weight``: its norm and itself."""
        from ... import norm_except_dim
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name='weight', dim=0):
    """Parametrizes ``module.<name>`` as a magnitude ``original0`` times the direction of
    ``original1``. A state_dict saved with the hook-based ``weight_norm`` (``<name>_g``,
    ``<name>_v``) still loads. Returns ``module``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_old_keys(state_dict, prefix, local_metadata, strict, missing_keys,
                      unexpected_keys, error_msgs):
        g_key, v_key = f'{prefix}{name}_g', f'{prefix}{name}_v'
        if g_key in state_dict and v_key in state_dict:
            state_dict[f'{prefix}parametrizations.{name}.original0'] = state_dict.pop(g_key)
            state_dict[f'{prefix}parametrizations.{name}.original1'] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_old_keys)
    return module


class _SpectralNorm(Module):
    """``weight / sigma``, sigma the largest singular value of the weight seen as a matrix
    (``dim`` first, the rest flattened), estimated by power iteration on the buffers ``_u``
    and ``_v``; one step per forward in training mode. A 1-D weight is just normalised."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            from ... import no_grad
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            with no_grad():  # (random starting vectors, from the global generator as torch)
                u = weight_mat.new_empty(h).normal_(0, 1)
                v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer('_u', F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer('_v', F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # (in place into the buffers, so a module replicated across devices shares them)
        from ... import mv, no_grad
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps,
                                      out=self._u)
                self._v = F.normalize(mv(weight_mat.H, self._u), dim=0, eps=self.eps,
                                      out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        from ... import contiguous_format, mv, vdot
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone(memory_format=contiguous_format)
        v = self._v.clone(memory_format=contiguous_format)
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        """Assigning a weight stores it as it is (its sigma is divided out on reads)."""
        return value


def spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrizes ``module.<name>`` as itself divided by its spectral norm (see
    ``_SpectralNorm``); ``dim`` defaults to 1 for transposed convolutions (their output
    channels), else 0. Returns ``module``."""
    from ... import Tensor
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) \
            else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
