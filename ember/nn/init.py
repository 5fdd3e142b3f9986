"""nn.init: in-place initialisers for parameters (run without recording a graph)."""
import math

from ..autograd.grad_mode import no_grad

__all__ = ['calculate_gain', 'uniform_', 'normal_', 'constant_', 'zeros_', 'ones_',
           'kaiming_uniform_', 'xavier_uniform_']


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (as torch's table)."""
    linear = ('linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d',
              'conv_transpose3d', 'sigmoid')
    if nonlinearity in linear:
        return 1
    if nonlinearity == 'tanh':
        return 5.0 / 3
    if nonlinearity == 'relu':
        return math.sqrt(2.0)
    if nonlinearity == 'leaky_relu':
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == 'selu':
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than "
                         "2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills ``tensor`` with samples uniform on [a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills ``tensor`` with normal samples."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor, val):
    """Fills ``tensor`` with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    """Fills ``tensor`` with zeros."""
    return constant_(tensor, 0.0)


def ones_(tensor):
    """Fills ``tensor`` with ones."""
    return constant_(tensor, 1.0)


def kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None):
    """He initialisation, uniform: bound = gain * sqrt(3 / fan)."""
    fan_in, fan_out = _fans(tensor)
    fan = fan_in if mode == 'fan_in' else fan_out
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan) if fan else 0.0
    return uniform_(tensor, -bound, bound, generator)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot initialisation, uniform: bound = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)
