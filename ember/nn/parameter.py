"""nn.Parameter: a Tensor subclass that a Module registers as a parameter when assigned;
nn.Buffer: the marker that makes an assigned tensor a buffer."""
from .._tensor import Tensor, make, pickled_state
from ..overrides import _disabled_torch_function_impl

__all__ = ['Parameter', 'Buffer', 'is_lazy']


class Parameter(Tensor):
    """A tensor that is a module parameter: assigned to a Module attribute, it shows up in
    ``parameters()``. Requires grad by default. Ops on it give plain tensors (it opts out
    of ``__torch_function__``, as in torch).

    >>> ember.nn.Parameter(ember.ones(2))
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = make(__import__('numpy').empty((0,), 'float32'))
        return Tensor._make_subclass(cls, data, requires_grad)

    def __repr__(self):
        return 'Parameter containing:\n' + super().__repr__()

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self._data, self._requires_grad, pickled_state(self)))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(make(self._data.copy()), self._requires_grad)
        memo[id(self)] = result
        return result


def _rebuild_parameter(data, requires_grad, state):
    p = Parameter(make(data), requires_grad)
    for k, v in state.items():
        setattr(p, k, v)
    return p


class _BufferMeta(type):
    # a Buffer is a plain Tensor that carries the marker, so isinstance asks for the marker
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, '_is_buffer', False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a module buffer: ``module.x = nn.Buffer(t, persistent=False)``
    registers ``x`` as ``register_buffer`` would. What it returns is a detached plain
    Tensor (keeping ``requires_grad``) with ``persistent`` set on it.

    >>> m = ember.nn.Module(); m.x = ember.nn.Buffer(ember.ones(2)); list(m.buffers())
    [tensor([1., 1.])]
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = make(__import__('numpy').empty((0,), 'float32'))
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param):
    """Whether ``param`` is an uninitialized parameter or buffer of a lazy module."""
    return getattr(param, '_is_uninitialized', False)
