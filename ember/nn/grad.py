"""Gradients of the convolutions with respect to their input or weight, as functions
(``torch.nn.grad``): each runs the convolution's own backward on the shapes given."""
from .. import autograd as _autograd
from .. import _ops
from . import functional as F

__all__ = ['conv1d_input', 'conv1d_weight', 'conv2d_input', 'conv2d_weight', 'conv3d_input',
           'conv3d_weight']


def _grad_input(conv, input_size, weight, grad_output, stride, padding, dilation, groups):
    # the input is rebuilt from its size: zeros suffice, the convolution is linear in it
    x = _ops.creation.zeros(*input_size, dtype=grad_output.dtype).requires_grad_()
    with _autograd.grad_mode.enable_grad():
        out = conv(x, weight.detach(), None, stride, padding, dilation, groups)
    return _autograd.grad(out, x, grad_output)[0]


def _grad_weight(conv, input, weight_size, grad_output, stride, padding, dilation, groups):
    w = _ops.creation.zeros(*weight_size, dtype=grad_output.dtype).requires_grad_()
    with _autograd.grad_mode.enable_grad():
        out = conv(input.detach(), w, None, stride, padding, dilation, groups)
    return _autograd.grad(out, w, grad_output)[0]


def _grad_functions(dims):
    """``conv<dims>d_input`` and ``conv<dims>d_weight``."""
    name = f'conv{dims}d'

    def grad_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1,
                   groups=1):
        return _grad_input(getattr(F, name), input_size, weight, grad_output, stride, padding,
                           dilation, groups)

    def grad_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1,
                    groups=1):
        return _grad_weight(getattr(F, name), input, weight_size, grad_output, stride,
                            padding, dilation, groups)
    grad_input.__name__, grad_weight.__name__ = f'{name}_input', f'{name}_weight'
    grad_input.__doc__ = (f"The gradient of ``{name}`` with respect to an input of size "
                          "``input_size``.")
    grad_weight.__doc__ = (f"The gradient of ``{name}`` with respect to a weight of size "
                           "``weight_size``.")
    return grad_input, grad_weight


conv1d_input, conv1d_weight = _grad_functions(1)
conv2d_input, conv2d_weight = _grad_functions(2)
conv3d_input, conv3d_weight = _grad_functions(3)
