"""Variable: torch's legacy tensor wrapper, now a function of a plain Tensor."""
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, make

__all__ = ['Variable']


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)


class _ExecutionEngine:
    """``Variable._execution_engine``: torch's handle on its backward engine."""

    @staticmethod
    def queue_callback(callback):
        """Runs ``callback()`` when the current backward ends."""
        from .engine import queue_callback
        queue_callback(callback)


class Variable(metaclass=_VariableMeta):
    """torch's legacy wrapper: ``Variable(t, requires_grad=True)`` returns a plain Tensor
    sharing ``t``'s memory, detached from its history; every tensor is a ``Variable``.

    >>> v = ember.autograd.Variable(ember.ones(2), requires_grad=True)
    >>> type(v).__name__, v.requires_grad, isinstance(v, ember.autograd.Variable)
    ('Tensor', True, True)
    """

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn('volatile was removed and now has no effect. Use `with '
                          'torch.no_grad():` instead.', stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same "
                                 "time!")
        if data is None:
            return make(np.empty((0,), _dtype.DEFAULT.float.np))
        if not isinstance(data, Tensor):
            raise TypeError(f'Variable data has to be a tensor, but got {type(data).__name__}')
        from .._legacy import alias
        out = alias(data)
        if requires_grad:
            if out._data.dtype.kind not in 'fc':
                raise RuntimeError('Only Tensors of floating point and complex dtype can '
                                   'require gradients')
            out.requires_grad_(True)
        return out
