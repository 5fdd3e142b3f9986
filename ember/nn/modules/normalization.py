"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm and CrossMapLRN2d."""
import numbers

from .. import _functions, functional as F, init
from ._params import register_affine, register_new, reset_affine
from .module import Module

__all__ = ['LayerNorm', 'GroupNorm', 'RMSNorm', 'LocalResponseNorm']


def _set_normalized_shape(module, normalized_shape, eps, elementwise_affine):
    """The attributes LayerNorm and RMSNorm share (an int shape becomes a 1-tuple)."""
    if isinstance(normalized_shape, numbers.Integral):  # (a NumPy int too, as torch)
        normalized_shape = (normalized_shape,)
    module.normalized_shape = tuple(normalized_shape)
    module.eps = eps
    module.elementwise_affine = elementwise_affine


class LayerNorm(Module):
    """Normalises over the trailing ``normalized_shape`` dims, then applies a learned
    elementwise scale (ones) and shift (zeros) when ``elementwise_affine``."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        _set_normalized_shape(self, normalized_shape, eps, elementwise_affine)
        register_affine(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Scale to ones, shift to zeros."""
        reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f'{self.normalized_shape}, eps={self.eps}, elementwise_affine='
                f'{self.elementwise_affine}, bias={self.bias is not None}')



class GroupNorm(Module):
    """Normalises each sample over ``num_groups`` groups of channels, then applies a learned
    per-channel scale (ones) and shift (zeros) when ``affine``."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        register_affine(self, (num_channels,), affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Scale to ones, shift to zeros."""
        reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f'{self.num_groups}, {self.num_channels}, eps={self.eps}, '
                f'affine={self.affine}, bias={self.bias is not None}')


class RMSNorm(Module):
    """Divides by the root mean square over the trailing ``normalized_shape`` dims (plus
    ``eps``; None: the machine epsilon of the input's dtype), then applies a learned
    elementwise scale (ones) when ``elementwise_affine``."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        _set_normalized_shape(self, normalized_shape, eps, elementwise_affine)
        register_new(self, 'weight', elementwise_affine, *self.normalized_shape, device=device,
                     dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Scale to ones."""
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f'{self.normalized_shape}, eps={self.eps}, '
                f'elementwise_affine={self.elementwise_affine}')


class LocalResponseNorm(Module):
    """Divides each channel by ``(k + alpha * mean of squares over size neighbouring
    channels) ** beta``."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f'{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}'


class CrossMapLRN2d(Module):
    """torch's legacy cross-channel response normalisation of a 4-d input:
    ``x * (k + alpha / size * sum of x**2 over a window of channels) ** -beta``, with
    torch's own window and backward (see ``nn._functions.CrossMapLRN2d``)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _functions.CrossMapLRN2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f'{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}'
