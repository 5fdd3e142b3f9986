"""nn.init: in-place initialisers for parameters (run without recording a graph).

The formulas, argument checks and error messages follow torch 2.13's ``torch.nn.init``. The
random streams are ember's (NumPy PCG64), so the values differ from torch's for one seed;
the distributions are the same.
"""
import math
import warnings

import numpy as np

from .._ops._core import make
from .._ops.creation import eye as _eye
from .._ops.pointwise import where as _where
from ..autograd.grad_mode import no_grad

__all__ = ['calculate_gain', 'uniform_', 'normal_', 'trunc_normal_', 'constant_', 'zeros_',
           'ones_', 'eye_', 'dirac_', 'sparse_', 'orthogonal_', 'xavier_uniform_',
           'xavier_normal_', 'kaiming_uniform_', 'kaiming_normal_']


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (torch's table): 1 for linear, conv and
    sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + slope**2)) for leaky_relu (slope
    ``param``, default 0.01), 3/4 for selu.

    >>> ember.nn.init.calculate_gain('relu')
    1.4142135623730951
    """
    linear = ('linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d',
              'conv_transpose3d', 'sigmoid')
    if nonlinearity in linear:
        return 1
    if nonlinearity == 'tanh':
        return 5.0 / 3
    if nonlinearity == 'relu':
        return math.sqrt(2.0)
    if nonlinearity == 'leaky_relu':
        if param is None:
            slope = 0.01
        # bool is an int subclass, but torch rejects True/False as a slope.
        elif (isinstance(param, int) and not isinstance(param, bool)) or isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == 'selu':
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(tensor):
    """(fan_in, fan_out): dims 1 and 0, each times the receptive field (dims 2 on)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than "
                         "2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ['fan_in', 'fan_out']
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _fans(tensor)
    return fan_in if mode == 'fan_in' else fan_out


# The private names torch gives these: model code imports them to size its own inits.
_calculate_fan_in_and_fan_out = _fans
_calculate_correct_fan = _correct_fan


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills ``tensor`` with samples uniform on [a, b); returns it."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills ``tensor`` with samples from N(mean, std**2); returns it."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills ``tensor`` with samples from N(mean, std**2) truncated to [a, b]; returns it.

    As torch: when [a, b] holds more than 30% of the mass, normal draws outside it are
    redrawn; otherwise uniform draws on [a, b] are accepted with probability
    pdf(x) / pdf(mode), which stays efficient for narrow or far-off intervals.
    """
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            # Bounds rounded to the tensor's dtype, so a float32 sample equal to the
            # rounded bound is not rejected forever.
            lo = tensor.new_tensor(a).item()
            hi = tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                result = _where(mask, result.new_empty(result.shape).normal_(
                    mean, std, generator=generator), result)
            if result is not tensor:
                tensor.copy_(result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2

            def log_pdf(x):
                return ((x - mean) / std).pow(2) * -0.5 - log_peak

            def rejected(x):
                # Accept x when log(u) <= log pdf(x) - log pdf(mode), u ~ U(0, 1).
                return tensor.new_empty(tensor.shape).uniform_(generator=generator).log() \
                    > log_pdf(x)

            result = tensor.new_empty(tensor.shape).uniform_(a, b, generator=generator)
            pending = rejected(result)
            while pending.any():
                cand = tensor.new_empty(tensor.shape).uniform_(a, b, generator=generator)
                result = _where(pending, cand, result)
                pending = pending & rejected(cand)
            tensor.copy_(result)
        return tensor


def constant_(tensor, val):
    """Fills ``tensor`` with ``val``; returns it."""
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    """Fills ``tensor`` with zeros; returns it."""
    return constant_(tensor, 0.0)


def ones_(tensor):
    """Fills ``tensor`` with ones; returns it."""
    return constant_(tensor, 1.0)


def eye_(tensor):
    """Fills the 2-D ``tensor`` with the identity matrix (ones on the main diagonal of a
    possibly rectangular matrix); returns it."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(_eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor, groups=1):
    """Fills the 3-, 4- or 5-d convolution weight ``tensor`` with the Dirac delta: each of
    the first min(out, in) channels of each of ``groups`` passes its input channel through
    the kernel's centre unchanged. Returns it."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    per_group = tensor.shape[0] // groups
    centre = tuple(s // 2 for s in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.shape[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fills the 2-D ``tensor`` from N(0, std^2), then zeroes ``ceil(sparsity * rows)``
    randomly chosen entries of each column. Returns it."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        from .._ops.random import randperm
        for col in range(cols):
            tensor[randperm(rows)[:zeros], col] = 0
    return tensor


def orthogonal_(tensor, gain=1, generator=None):
    """Fills ``tensor`` with a (semi-)orthogonal matrix times ``gain``; dims after the first
    are flattened, so rows are orthonormal when rows <= columns and columns otherwise.
    Returns ``tensor``.
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)._data
        # QR of the tall orientation: Q's columns are then orthonormal.
        if rows < cols:
            flat = flat.T
        q, r = np.linalg.qr(flat)
        # Multiplying by sign(diag(R)) makes Q Haar-uniform (Mezzadri, math-ph/0609050).
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        tensor.copy_(make(np.ascontiguousarray(q, dtype=flat.dtype)).reshape(tensor.shape))
        return tensor.mul_(gain)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot initialisation, uniform on [-bound, bound] with
    bound = gain * sqrt(6 / (fan_in + fan_out)); returns ``tensor``."""
    fan_in, fan_out = _fans(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot initialisation, normal with std = gain * sqrt(2 / (fan_in + fan_out));
    returns ``tensor``."""
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None):
    """He initialisation, uniform on [-bound, bound] with bound = gain * sqrt(3 / fan),
    ``fan`` picked by ``mode`` ('fan_in' or 'fan_out'); returns ``tensor``."""
    # torch checks for zero elements before it looks at mode or the fans.
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None):
    """He initialisation, normal with std = gain / sqrt(fan), ``fan`` picked by ``mode``
    ('fan_in' or 'fan_out'); returns ``tensor``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def _deprecated(fill):
    """torch's old name of ``fill`` (without the trailing underscore), which warns."""
    new_name = fill.__name__
    old_name = new_name[:-1]

    def deprecated(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return fill(*args, **kwargs)
    deprecated.__name__ = deprecated.__qualname__ = old_name
    deprecated.__doc__ = f"Deprecated: ``{new_name}``."
    return deprecated


uniform, normal, constant, eye, dirac, xavier_uniform, xavier_normal, kaiming_uniform, \
    kaiming_normal, orthogonal, sparse = map(_deprecated, (
        uniform_, normal_, constant_, eye_, dirac_, xavier_uniform_, xavier_normal_,
        kaiming_uniform_, kaiming_normal_, orthogonal_, sparse_))
