"""Linear, Bilinear and Identity."""
import math

from ... import _ops
from .. import functional as F, init
from ..parameter import Parameter, UninitializedParameter
from ._params import register_new, reset_kaiming_default
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ['Linear', 'LazyLinear', 'Bilinear', 'Identity']


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``, weight and bias initialised as torch does (uniform in
    +-1/sqrt(in_features)), so a seeded model starts from the same distribution."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_ops.creation.empty(out_features, in_features, device=device,
                                                    dtype=dtype))
        register_new(self, 'bias', bias, out_features, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """kaiming_uniform_(a=sqrt(5)) for the weight, uniform +-1/sqrt(fan_in) for the bias."""
        reset_kaiming_default(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f'in_features={self.in_features}, out_features={self.out_features}, '
                f'bias={self.bias is not None}')


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose ``in_features`` is taken from the last dimension of its first input;
    it then becomes a Linear."""
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        """Initialises as Linear does, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materializes weight (out_features, input.shape[-1]) and bias, then initialises
        them."""
        if self.has_uninitialized_params():
            from ...autograd.grad_mode import no_grad
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection of MultiheadAttention (a Linear; the name and its place here are
    torch's, and attention code written outside torch imports it from this module)."""


class Bilinear(Module):
    """``y = x1^T A x2 + b`` with weight (out_features, in1_features, in2_features); weight
    and bias initialised as torch does (uniform in +-1/sqrt(in1_features))."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        if in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={in1_features})")
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_ops.creation.empty(out_features, in1_features, in2_features,
                                                    device=device, dtype=dtype))
        register_new(self, 'bias', bias, out_features, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight and bias uniform in +-1/sqrt(in1_features)."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f'in1_features={self.in1_features}, in2_features={self.in2_features}, '
                f'out_features={self.out_features}, bias={self.bias is not None}')


