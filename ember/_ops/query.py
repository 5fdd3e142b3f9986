"""Questions about a tensor asked as ember functions: numel, is_floating_point, is_complex,
is_nonzero, is_same_size (the Tensor methods of the same names live on the class)."""
from ._core import Tensor, register


@register(method=False)
def numel(input):
    """Number of elements of ``input``."""
    return input.numel()


@register(method=False)
def is_floating_point(input):
    """True if ``input`` has a floating-point dtype."""
    return input.is_floating_point()


@register(method=False)
def is_complex(input):
    """True if ``input`` has a complex dtype."""
    return input.is_complex()


@register
def is_nonzero(input):
    """The truth of a one-element tensor (RuntimeError for any other size)."""
    n = input._data.size
    if n != 1:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous" if n == 0 else
                           "Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()))


@register
def is_same_size(input, other):
    """True if both tensors have the same shape."""
    return input._data.shape == other._data.shape


def is_tensor(obj):
    """True if ``obj`` is an ember Tensor (or subclass); not overridable, as in torch."""
    return isinstance(obj, Tensor)
