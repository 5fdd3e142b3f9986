"""nn.functional: the stateless versions of layers (growing with ember.nn). Every function
goes through __torch_function__, as the ember namespace does."""
from ..overrides import overridable

__all__ = ['linear', 'relu']


def _linear(input, weight, bias=None):
    out = input.matmul(weight.t())
    return out + bias if bias is not None else out


def _relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


linear = overridable(_linear, 'ember.nn.functional.linear')
linear.__doc__ = "``input @ weight.T + bias``."
relu = overridable(_relu, 'ember.nn.functional.relu')
relu.__doc__ = "max(input, 0), elementwise (in place with ``inplace=True``)."
