"""nn.Parameter: a Tensor subclass that a Module registers as a parameter when assigned;
nn.Buffer: the marker that makes an assigned tensor a buffer; UninitializedParameter and
UninitializedBuffer: the placeholders of lazy modules until their first forward."""
from .._tensor import Tensor, make, pickled_state
from .. import overrides as _overrides
from ..overrides import _disabled_torch_function_impl

__all__ = ['Parameter', 'Buffer', 'UninitializedParameter', 'UninitializedBuffer', 'is_lazy']


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


_overrides._AS_TENSOR.add(Parameter)


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
    return isinstance(param, UninitializedTensorMixin)


# what may be done with an uninitialized tensor: ask its size, type and device, convert or
# copy into it (as torch allows) -- anything that reads its (absent) values raises
_UNINITIALIZED_ALLOWED = frozenset([
    '__hash__', 'size', 'copy_', 'is_complex', 'is_floating_point', 'half', 'float', 'double',
    'char', 'short', 'int', 'long', 'cuda', 'cpu', 'to', 'get_device', '__get__', '__set__',
    '_has_compatible_shallow_copy_type'])


class UninitializedTensorMixin:
    """A tensor whose shape is not known yet: ``materialize(shape)`` gives it memory and
    turns it into its ``cls_to_become``; until then using it raises."""
    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Allocates (uninitialized) memory of ``shape`` and becomes a ``cls_to_become``."""
        from .._ops.creation import empty
        data = self.data
        self.data = empty(shape, device=device if device is not None else data.device,
                          dtype=dtype if dtype is not None else data.dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f'<{type(self).__name__}>'

    def __reduce_ex__(self, proto):
        return (type(self), (self.requires_grad,))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, '__name__', None) in _UNINITIALIZED_ALLOWED:
            return Tensor.__torch_function__.__func__(cls, func, types, args, kwargs or {})
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {func}. This error happens when "
            "you are using a `LazyModule` or explicitly manipulating "
            "`torch.nn.parameter.UninitializedParameter` objects. When using LazyModules Call "
            "`forward` with a dummy batch to initialize the parameters before calling torch "
            "functions")


def _uninitialized(cls, requires_grad, device, dtype):
    # an empty tensor of cls; requires_grad is set on the slot, since requires_grad_()
    # would go through cls's __torch_function__, which refuses everything
    from .._ops.creation import empty
    t = Tensor._make_subclass(cls, empty(0, device=device, dtype=dtype), False)
    t._requires_grad = bool(requires_grad)
    return t


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """The parameter of a lazy module before its first forward (a Parameter once
    materialized)."""
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, device, dtype)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """The buffer of a lazy module before its first forward (a Tensor once materialized)."""
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _uninitialized(cls, requires_grad, device, dtype)
        t.persistent = persistent
        t._is_buffer = True
        return t
