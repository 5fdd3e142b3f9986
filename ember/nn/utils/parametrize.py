"""``nn.utils.parametrize``: a module's parameter or buffer computed from other tensors.

``register_parametrization(module, 'weight', p)`` moves ``module.weight`` into
``module.parametrizations.weight.original`` (or ``original0``, ``original1``... when ``p``'s
``right_inverse`` splits it) and swaps the module's class for a subclass,
``Parametrized<Class>``, whose ``weight`` property returns ``p(original)`` on every read and
whose setter runs the ``right_inverse`` chain. The originals keep their identity (their data
is replaced with ``set_``), so an optimizer built before still holds them.
"""
import collections.abc
import contextlib
import copy
import copyreg

from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ['cached', 'ParametrizationList', 'register_parametrization', 'is_parametrized',
           'remove_parametrizations', 'type_before_parametrizations',
           'transfer_parametrizations_and_params']

_CACHE = {}            # (id(module), tensor name) -> its value, while cached() is in force
_CACHE_DEPTH = [0]     # how many cached() contexts are open


@contextlib.contextmanager
def cached():
    """Within the context each parametrized tensor is computed once, on its first read, and
    reused (for a weight read many times in one forward, as an RNN's); leaving the
    outermost context drops the values."""
    _CACHE_DEPTH[0] += 1
    try:
        yield
    finally:
        _CACHE_DEPTH[0] -= 1
        if not _CACHE_DEPTH[0]:
            _CACHE.clear()


def _register_parameter_or_buffer(module, name, x):
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _set_in_place(dest, src):
    """Gives ``dest`` the value of ``src`` keeping ``dest`` the same object (``set_``, or
    ``swap_tensors`` under ``set_swap_module_params_on_conversion(True)``)."""
    from ... import __future__ as future
    from ...utils import swap_tensors
    if future.get_swap_module_params_on_conversion():
        if isinstance(dest, Parameter) and not isinstance(src, Parameter):
            src = Parameter(src, requires_grad=dest.requires_grad)
        swap_tensors(dest, src)
    else:
        dest.set_(src)


def _dtype_shape_error(what, first, second, unsafe_flag='`unsafe` flag'):
    return ValueError(f"Registering a parametrization may not change the {what} of the "
                      f"tensor, unless {unsafe_flag} is enabled.\n{first}\n{second}")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in registration order, and the original
    tensor(s) they start from (``original``, or ``original0``, ``original1``...)."""

    def __init__(self, modules, original, unsafe=False):
        from ... import Tensor, no_grad
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, 'right_inverse'):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass  # (a parametrization may decline; the value goes on as it is)
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            with no_grad():
                _set_in_place(original, new)
            _register_parameter_or_buffer(self, 'original', original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     "tensors (list, tuple...). Got element "
                                     f"{i} of the sequence with type {type(part).__name__}.")
                if isinstance(original, Parameter):
                    part = Parameter(part, original.requires_grad)
                part.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f'original{i}', part)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(z).__name__}.")
            if z.dtype != dtype:
                raise _dtype_shape_error('dtype', f"unparametrized dtype: {dtype}",
                                         f"parametrized dtype: {z.dtype}")
            if z.shape != shape:
                raise _dtype_shape_error('shape', f"unparametrized shape: {shape}",
                                         f"parametrized shape: {z.shape}")

    def right_inverse(self, value):
        """Stores ``value`` as the tensor's new value: the ``right_inverse`` of each
        parametrization, last registered first, then into the original(s)."""
        from ... import Tensor, no_grad
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, 'right_inverse'):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError("`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_in_place(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                 f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, t in enumerate(value):
                original_i = getattr(self, f'original{i}')
                if not isinstance(t, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or "
                                     "reference-type opaques. Got element "
                                     f"{i} of type {type(t).__name__}.")
                if original_i.dtype != t.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{t.dtype} while `original{i}` has dtype "
                                     f"{original_i.dtype}")
                _set_in_place(original_i, t)

    def forward(self):
        """The parametrized tensor: the first parametrization on the original(s), each
        later one on the result."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f'original{i}') for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _deepcopy_parametrized(self, memo):
    # (a parametrized module refuses pickling, so deepcopy copies its state directly)
    done = memo.get(id(self))
    if done is not None:
        return done
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_pickling(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). "
        "See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _make_parametrized_class(module):
    cls = module.__class__
    namespace = {'__getstate__': _refuse_pickling}
    if not hasattr(cls, '__deepcopy__'):
        namespace['__deepcopy__'] = _deepcopy_parametrized
    module.__class__ = type(f'Parametrized{cls.__name__}', (cls,), namespace)


def _add_property(module, tensor_name):
    key = (id(module), tensor_name)

    def get(self):
        parametrization = self.parametrizations[tensor_name]
        if not _CACHE_DEPTH[0]:
            return parametrization()
        value = _CACHE.get(key)
        if value is None:
            value = _CACHE[key] = parametrization()
        return value

    def set(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get, set))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes ``module.<tensor_name>`` the output of ``parametrization`` (a module) applied
    to the original tensor, or to what the parametrizations already registered on it give.
    Unless ``unsafe``, a parametrization may not change the tensor's dtype or shape.
    Returns ``module``."""
    from ... import Tensor
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_another(module, tensor_name, parametrization, Tensor)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _make_parametrized_class(module)
            module.parametrizations = ModuleDict()
        _add_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def _check_another(module, name, parametrization, Tensor):
    """A second parametrization on ``name``: it (and its right inverse) must keep the
    tensor's dtype and shape."""
    y = getattr(module, name)
    x = parametrization(y)
    if not isinstance(x, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    flag = 'the `unsafe` flag'
    if x.dtype != y.dtype:
        raise _dtype_shape_error('dtype', f"module.{name}.dtype: {y.dtype}",
                                 f"parametrization(module.{name}).dtype: {x.dtype}", flag)
    if x.shape != y.shape:
        raise _dtype_shape_error('shape', f"module.{name}.shape: {y.shape}",
                                 f"parametrization(module.{name}).shape: {x.shape}", flag)
    if not hasattr(parametrization, 'right_inverse'):
        return
    try:
        z = parametrization.right_inverse(x)
    except NotImplementedError:
        return
    if not isinstance(z, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(z).__name__}")
    for what, a, b in (('dtype', y.dtype, z.dtype), ('shape', y.shape, z.shape)):
        if a != b:
            raise ValueError(f"The tensor returned by parametrization.right_inverse must have "
                             f"the same {what} as module.{name}, unless the `unsafe` flag is "
                             f"enabled.\nmodule.{name}.{what}: {a}\nreturned {what}: {b}")


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization on ``tensor_name`` (on any tensor, when
    None)."""
    parametrizations = getattr(module, 'parametrizations', None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Takes the parametrizations off ``module.<tensor_name>``: it becomes a plain
    parameter (or buffer) again, holding its current parametrized value
    (``leave_parametrized``) or the original tensor. The module gets its class back once no
    parametrization is left. Returns ``module``."""
    from ... import no_grad
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _set_in_place(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, 'parametrizations')
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class as it was before any parametrization was registered."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Registers ``from_module``'s parametrizations (of ``tensor_name``, or all) on
    ``to_module`` too, sharing the original tensors; a tensor ``to_module`` lacks is created
    from ``from_module``'s value. Returns ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for p in source:
            register_parametrization(to_module, name, p)
        target = to_module.parametrizations[name]
        if hasattr(source, 'original'):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f'original{i}'):
                setattr(target, f'original{i}', getattr(source, f'original{i}'))
                i += 1
    return to_module
