"""Questions about a tensor asked as ember functions: numel, is_floating_point, is_complex,
is_nonzero, is_same_size (the Tensor methods of the same names live on the class), and about
dtypes: result_type, can_cast, is_storage, typename."""
from .. import _dtype
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


@register(method=False)
def result_type(tensor, other):
    """The dtype an arithmetic op between ``tensor`` and ``other`` (tensors or Python
    numbers) computes in, by torch's promotion rules: a 0-d tensor or a number lifts only
    the category."""
    a, b = (isinstance(x, Tensor) for x in (tensor, other))
    if a and b:
        return _dtype.promote_tensors(tensor.dtype, tensor._data.ndim, other.dtype,
                                      other._data.ndim)
    if a or b:
        t, number = (tensor, other) if a else (other, tensor)
        return _dtype.result_type(t.dtype, number)
    return _dtype.promote_types(_dtype.scalar_dtype(tensor), _dtype.scalar_dtype(other))


@register(method=False)
def can_cast(from_, to):
    """Whether torch's in-place ops and ``out=`` may cast ``from_`` into ``to`` (not to a
    lower category: float to int, complex to float, anything but bool to bool)."""
    return _dtype.can_cast(from_, to)


def is_storage(obj):
    """True if ``obj`` is a storage (typed or untyped)."""
    from ..storage import TypedStorage, UntypedStorage
    return isinstance(obj, (TypedStorage, UntypedStorage))


def typename(obj):
    """torch's type name of ``obj``: a tensor's legacy type (``'torch.FloatTensor'``), else
    the object's qualified class name."""
    if isinstance(obj, Tensor):
        return 'torch.' + obj.dtype._legacy
    module = type(obj).__module__
    if module in ('builtins', '__builtin__', None):
        return type(obj).__qualname__
    return f'{module}.{type(obj).__qualname__}'
