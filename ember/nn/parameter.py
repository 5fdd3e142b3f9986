"""nn.Parameter: a Tensor subclass that a Module registers as a parameter when assigned."""
from .._tensor import Tensor, make, pickled_state
from ..overrides import _disabled_torch_function_impl

__all__ = ['Parameter']


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
