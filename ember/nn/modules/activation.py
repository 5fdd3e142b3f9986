"""Activation modules: thin wrappers over ``nn.functional`` with torch's arguments and reprs."""
import warnings

from ... import _ops
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ['ReLU', 'LeakyReLU', 'ELU', 'GELU', 'SiLU', 'Sigmoid', 'Tanh', 'Softmax',
           'LogSoftmax', 'Softplus', 'Hardtanh', 'ReLU6', 'SELU', 'CELU', 'Mish', 'Hardswish',
           'Hardsigmoid', 'LogSigmoid', 'Softsign', 'Softmin', 'Tanhshrink', 'Softshrink',
           'Hardshrink', 'Threshold', 'GLU', 'PReLU', 'RReLU', 'Softmax2d']


class ReLU(Module):
    """``max(x, 0)``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        inplace_str = ', inplace=True' if self.inplace else ''
        return f'negative_slope={self.negative_slope}{inplace_str}'


class ELU(Module):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        inplace_str = ', inplace=True' if self.inplace else ''
        return f'alpha={self.alpha}{inplace_str}'


class GELU(Module):
    """``x * Phi(x)``, or its tanh approximation with ``approximate='tanh'``."""

    def __init__(self, approximate='none'):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f'approximate={self.approximate!r}'


class SiLU(Module):
    """``x * sigmoid(x)``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``."""

    def forward(self, input):
        return input.sigmoid()


class Tanh(Module):
    """Hyperbolic tangent."""

    def forward(self, input):
        return input.tanh()


class Softmax(Module):
    """Softmax over ``dim`` (``None``: torch's legacy implicit choice, with its warning)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f'dim={self.dim}'


class LogSoftmax(Softmax):
    """Log-softmax over ``dim``."""

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f'beta={self.beta}, threshold={self.threshold}'


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]``."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        inplace_str = ', inplace=True' if self.inplace else ''
        return f'min_val={self.min_val}, max_val={self.max_val}{inplace_str}'


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``: a Hardtanh with limits 0 and 6."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


class SELU(Module):
    """``scale * elu(x, alpha)`` with torch's self-normalising constants."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


class CELU(Module):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        inplace_str = ', inplace=True' if self.inplace else ''
        return f'alpha={self.alpha}{inplace_str}'


class Mish(Module):
    """``x * tanh(softplus(x))``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


class Hardswish(Module):
    """``x * relu6(x + 3) / 6`` (torch gives it no extra_repr, even with ``inplace``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Hardsigmoid(Module):
    """``relu6(x + 3) / 6`` (torch gives it no extra_repr, even with ``inplace``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class LogSigmoid(Module):
    """``log(sigmoid(x))``."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    """``x / (1 + |x|)``."""

    def forward(self, input):
        return F.softsign(input)


class Softmin(Module):
    """``softmax(-x)`` over ``dim`` (``None``: torch's legacy implicit choice, with its
    warning)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f'dim={self.dim}'


class Tanhshrink(Module):
    """``x - tanh(x)``."""

    def forward(self, input):
        return F.tanhshrink(input)


class Softshrink(Module):
    """``x`` moved ``lambd`` toward 0, and 0 inside ``[-lambd, lambd]``."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Module):
    """``x``, and 0 inside ``[-lambd, lambd]``."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f'{self.lambd}'


class Threshold(Module):
    """``value`` where ``x <= threshold``, else ``x``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        inplace_str = ', inplace=True' if self.inplace else ''
        return f'threshold={self.threshold}, value={self.value}{inplace_str}'


class GLU(Module):
    """The gated linear unit: ``a * sigmoid(b)`` for the two halves of ``dim``."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f'dim={self.dim}'


class PReLU(Module):
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` (``num_parameters``
    values: one, or one per channel, dim 1 of the input) is learnt, initialised to ``init``."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_ops.creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Fills the weight with ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f'num_parameters={self.num_parameters}'


class RReLU(Module):
    """Randomised leaky ReLU: in training each non-positive element gets a slope drawn
    uniformly from ``[lower, upper]`` (ember's generator); in eval the mean slope."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace_str = ', inplace=True' if self.inplace else ''
        return f'lower={self.lower}, upper={self.upper}{inplace_str}'


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of a (C, H, W) or (N, C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


def __getattr__(name):
    # torch defines MultiheadAttention in this module, and code imports it from here; it
    # lives with the Transformer family (which imports this module, hence no eager import).
    if name == 'MultiheadAttention':
        from .transformer import MultiheadAttention
        return MultiheadAttention
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
