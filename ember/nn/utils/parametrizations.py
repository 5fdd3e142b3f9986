"""``torch.nn.utils.parametrizations``: weight normalisation, spectral normalisation and
orthogonality as parametrizations (``nn.utils.parametrize``), the forms torch recommends
over the older hook-based ``nn.utils.weight_norm``/``spectral_norm``."""
import enum

from ... import _tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ['orthogonal', 'spectral_norm', 'weight_norm']


def _ember():
    import ember
    return ember


# -- orthogonal ----------------------------------------------------------------------------------
def _is_orthogonal(Q):
    T = _ember()
    n, k = Q.size(-2), Q.size(-1)
    eye = T.eye(k, dtype=Q.dtype, device=Q.device)
    return T.allclose(Q.mH @ Q, eye, atol=10.0 * n * T.finfo(Q.dtype).eps)


def _make_orthogonal(A):
    """The Q factor of a tall ``A`` = QR whose R has a real non-negative diagonal."""
    T = _ember()
    X, tau = T.geqrf(A)
    Q = T.linalg.householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


class _Orthogonal(Module):
    """Maps a matrix (or a batch) to an orthogonal one: the exponential or Cayley map of its
    skew-symmetric part, or a product of Householder reflectors; with ``use_trivialization``
    the result is composed with a stored orthogonal ``base``."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map is _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer('base', None)

    def forward(self, X):
        T = _ember()
        n, k = X.size(-2), X.size(-1)
        wide = n < k
        if wide:
            X, n, k = X.mT, k, n
        if self.orthogonal_map is _OrthMaps.householder:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = T.linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        else:
            X = X.tril()
            if n != k:
                X = T.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map is _OrthMaps.matrix_exp:
                Q = T.matrix_exp(A)
            else:
                eye = T.eye(n, dtype=A.dtype, device=A.device)
                Q = T.linalg.solve(T.add(eye, A, alpha=-0.5), T.add(eye, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        if hasattr(self, 'base'):
            Q = self.base @ Q
        return Q.mT if wide else Q

    @no_grad()
    def right_inverse(self, Q):
        """An original that this map sends to ``Q`` (with a trivialization: ``base`` becomes
        ``Q`` made orthogonal, the original minus the identity)."""
        T = _ember()
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        given = Q
        n, k = Q.size(-2), Q.size(-1)
        wide = n < k
        if wide:
            Q, n, k = Q.mT, k, n
        if not hasattr(self, 'base'):
            if self.orthogonal_map is not _OrthMaps.householder:
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            A, tau = T.geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if wide else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            extra = T.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(T.cat([Q, extra], dim=-1))
        self.base = Q
        minus_eye = T.zeros_like(given)
        minus_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return minus_eye


def orthogonal(module, name='weight', orthogonal_map=None, *, use_trivialization=True):
    """Makes ``module.<name>`` (a matrix or a batch of them) orthogonal -- orthonormal
    columns, or rows for a wide matrix -- through ``orthogonal_map`` ("matrix_exp" (default
    for square or complex matrices), "cayley" or "householder"). Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _tensor.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = 'matrix_exp' if square or weight.is_complex() else 'householder'
    kind = getattr(_OrthMaps, orthogonal_map, None)
    if kind is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    parametrize.register_parametrization(
        module, name, _Orthogonal(weight, kind, use_trivialization=use_trivialization),
        unsafe=True)
    return module


# -- weight norm ---------------------------------------------------------------------------------
class _WeightNorm(Module):
    """``g * v / ||v||``, the norm taken over every dim but ``dim``."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _ember()._weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _ember().norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name='weight', dim=0):
    """Splits ``module.<name>`` into a magnitude ``original0`` (g) and a direction
    ``original1`` (v): the weight is ``g * v / ||v||``. State dicts saved with the older
    ``nn.utils.weight_norm`` (``<name>_g``/``<name>_v``) load into it. Returns ``module``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def old_keys(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs):
        g, v = f'{prefix}{name}_g', f'{prefix}{name}_v'
        if g in state_dict and v in state_dict:
            state_dict[f'{prefix}parametrizations.{name}.original0'] = state_dict.pop(g)
            state_dict[f'{prefix}parametrizations.{name}.original1'] = state_dict.pop(v)
    module._register_load_state_dict_pre_hook(old_keys)
    return module


# -- spectral norm -------------------------------------------------------------------------------
class _SpectralNorm(Module):
    """``W / sigma(W)``, sigma the largest singular value of W seen as a matrix (``dim``
    first), estimated by power iteration on the buffers ``_u``, ``_v`` (one more round per
    training-mode forward)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._as_matrix(weight)
            h, w = mat.size()
            self.register_buffer('_u', F.normalize(mat.new_empty(h).normal_(0, 1), dim=0,
                                                   eps=eps))
            self.register_buffer('_v', F.normalize(mat.new_empty(w).normal_(0, 1), dim=0,
                                                   eps=eps))
            self._power_method(mat, 15)

    def _as_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    @no_grad()
    def _power_method(self, mat, rounds):
        T = _ember()
        for _ in range(rounds):
            self._u = F.normalize(T.mv(mat, self._v), dim=0, eps=self.eps, out=self._u)
            self._v = F.normalize(T.mv(mat.H, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        T = _ember()
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._as_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u = self._u.clone(memory_format=T.contiguous_format)
        v = self._v.clone(memory_format=T.contiguous_format)
        return weight / T.vdot(u, T.mv(mat, v))

    def right_inverse(self, value):
        return value


def spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    """Divides ``module.<name>`` by its spectral norm (estimated by ``n_power_iterations``
    rounds of power iteration per training forward); ``dim`` defaults to 1 for transposed
    convolutions, 0 otherwise. Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _tensor.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
