"""``torch.nn.utils.parametrize``: a module's tensor computed from others on every access.

``register_parametrization(module, 'weight', P)`` moves ``module.weight`` into
``module.parametrizations.weight.original`` (or ``original0``, ``original1``... when
``P.right_inverse`` splits it) and makes ``weight`` a property of a subclass made for this
module (``ParametrizedLinear``...) that returns ``P(original)``; assigning to it runs the
parametrizations' ``right_inverse`` backwards into the originals. Several parametrizations on
one tensor apply in registration order. ``cached()`` computes each parametrized tensor once
per context.
"""
import collections.abc
import contextlib
import copy

from ... import _tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ['register_parametrization', 'remove_parametrizations', 'is_parametrized', 'cached',
           'type_before_parametrizations', 'transfer_parametrizations_and_params',
           'ParametrizationList']

_CACHE = {}        # {(id(module), tensor name): the parametrized tensor} inside cached()
_CACHING = [0]     # how many cached() contexts are open


@contextlib.contextmanager
def cached():
    """Within it, each parametrized tensor is computed on its first access and reused (a
    weight used at every step of a loop); the values are dropped when the outermost
    context exits."""
    _CACHING[0] += 1
    try:
        yield
    finally:
        _CACHING[0] -= 1
        if not _CACHING[0]:
            _CACHE.clear()


def _keep(module, name, value):
    """Registers ``value`` on ``module`` as a parameter if it is one, else as a buffer."""
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _place(dest, src):
    """Makes ``dest`` hold ``src``'s values and shape, keeping ``dest`` the same object."""
    dest.set_(src)


def _unchanged(shape, dtype, after, unless, labels):
    """torch's ValueError when registering a parametrization changes the tensor's dtype or
    shape (``labels``: how the message names the tensor before and after)."""
    for what, before in (('dtype', dtype), ('shape', shape)):
        if getattr(after, what) != before:
            raise ValueError(f"Registering a parametrization may not change the {what} of the "
                             f"tensor, unless {unless}.\n{labels[0]}{what}: {before}\n"
                             f"{labels[1]}{what}: {getattr(after, what)}")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in registration order, and the tensor(s) they
    start from (``original``, or ``original0``, ``original1``...). Calling it computes the
    parametrized tensor."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            start = original
            for m in reversed(self):
                if hasattr(m, 'right_inverse'):
                    try:
                        start = m.right_inverse(start)
                    except NotImplementedError:
                        pass
        if not isinstance(start, (_tensor.Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(start).__name__}")
        self.is_tensor = isinstance(start, _tensor.Tensor)
        self.ntensors = 1 if self.is_tensor else len(start)
        if self.is_tensor:
            if start.dtype != dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {dtype}\n"
                                 f"right_inverse(original).dtype: {start.dtype}")
            with no_grad():
                _place(original, start)
            _keep(self, 'original', original)
        else:
            for i, part in enumerate(start):
                if not isinstance(part, _tensor.Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     "tensors (list, tuple...). Got element "
                                     f"{i} of the sequence with type {type(part).__name__}.")
                if isinstance(original, Parameter):
                    part = Parameter(part, original.requires_grad)
                part.requires_grad_(original.requires_grad)
                _keep(self, f'original{i}', part)
        if not self.unsafe:
            value = self()
            if not isinstance(value, _tensor.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(value).__name__}.")
            _unchanged(shape, dtype, value, '`unsafe` flag is enabled',
                       ('unparametrized ', 'parametrized '))

    def right_inverse(self, value):
        """Sets the originals so that the parametrized tensor becomes ``value``: each
        parametrization's ``right_inverse``, last registered first."""
        with no_grad():
            for m in reversed(self):
                if not hasattr(m, 'right_inverse'):
                    raise RuntimeError(f"parametrization {type(m).__name__} does not implement "
                                       "right_inverse.")
                value = m.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, _tensor.Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _place(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got "
                                 f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, part in enumerate(value):
                target = getattr(self, f'original{i}')
                if not isinstance(part, _tensor.Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or "
                                     "reference-type opaques. Got element "
                                     f"{i} of type {type(part).__name__}.")
                if part.dtype != target.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{part.dtype} while `original{i}` has dtype "
                                     f"{target.dtype}")
                _place(target, part)

    def forward(self):
        """The parametrized tensor: the first parametrization of the originals, then each
        following one of the previous result."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f'original{i}') for i in range(self.ntensors)))
        for m in list(self)[1:]:
            x = m(x)
        return x


def _parametrized_class(module):
    """Gives ``module`` a class of its own (``Parametrized<Class>``) to hold the properties,
    refusing to pickle (a state dict carries a parametrized module)."""
    cls = module.__class__

    def refuse_pickling(self):
        raise RuntimeError("Serialization of parametrized modules is only supported through "
                           "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/"
                           "saving_loading_models.html#saving-loading-a-general-checkpoint-"
                           "for-inference-and-or-resuming-training")

    def deep_copy(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        twin = self.__new__(self.__class__)
        memo[id(self)] = twin
        twin.__dict__ = copy.deepcopy(self.__dict__, memo)
        return twin

    members = {'__getstate__': refuse_pickling}
    if not hasattr(cls, '__deepcopy__'):
        members['__deepcopy__'] = deep_copy
    module.__class__ = type(f'Parametrized{cls.__name__}', (cls,), members)


def _add_property(module, name):
    if hasattr(module, name):
        raise AssertionError(f"Module already has an attribute named '{name}'")

    def get(self):
        chain = self.parametrizations[name]
        if not _CACHING[0]:
            return chain()
        key = (id(self), name)
        if key not in _CACHE:
            _CACHE[key] = chain()
        return _CACHE[key]

    def set_(self, value):
        self.parametrizations[name].right_inverse(value)

    setattr(module.__class__, name, property(get, set_))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes ``module.<tensor_name>`` the output of ``parametrization`` (a module) of the
    tensor it was (its ``right_inverse``, if it has one, sets the starting value); a second
    registration on the same tensor applies after the first. ``unsafe`` lets a
    parametrization change the tensor's shape or dtype. Returns ``module``."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            new = parametrization(current)
            if not isinstance(new, _tensor.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(new).__name__}.")
            _unchanged(current.shape, current.dtype, new, 'the `unsafe` flag is enabled',
                       (f'module.{tensor_name}.', f'parametrization(module.{tensor_name}).'))
            if hasattr(parametrization, 'right_inverse'):
                try:
                    back = parametrization.right_inverse(new)
                except NotImplementedError:
                    back = None
                if back is not None and not isinstance(back, _tensor.Tensor):
                    raise ValueError("parametrization.right_inverse must return a tensor. "
                                     f"Got: {type(back).__name__}")
                if back is not None:
                    _check_inverse(back, current, tensor_name)
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _parametrized_class(module)
            module.parametrizations = ModuleDict()
        _add_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def _check_inverse(back, current, name):
    for what in ('dtype', 'shape'):
        if getattr(back, what) != getattr(current, what):
            raise ValueError(f"The tensor returned by parametrization.right_inverse must have "
                             f"the same {what} as module.{name}, unless the `unsafe` flag is "
                             f"enabled.\nmodule.{name}.{what}: {getattr(current, what)}\n"
                             f"returned {what}: {getattr(back, what)}")


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has parametrizations (on ``tensor_name``, when given)."""
    chains = getattr(module, 'parametrizations', None)
    if not isinstance(chains, ModuleDict):
        return False
    return len(chains) > 0 if tensor_name is None else tensor_name in chains


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Makes ``module.<tensor_name>`` a plain tensor again: its current parametrized value
    (``leave_parametrized``), or the original it was computed from. The module gets its class
    back once nothing is parametrized. Returns ``module``."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _place(original, value)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _keep(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, 'parametrizations')
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before any parametrization was registered."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Gives ``to_module`` the parametrizations (and their originals' values) that
    ``from_module`` has on ``tensor_name`` (on every tensor when None). Returns
    ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for p in from_module.parametrizations[name]:
            if not is_parametrized(to_module, name) or \
                    p not in list(to_module.parametrizations[name]):
                register_parametrization(to_module, name, p)
        with no_grad():
            source, target = from_module.parametrizations[name], to_module.parametrizations[name]
            if source.is_tensor:
                target.original.set_(source.original.detach().clone())
            else:
                for i in range(source.ntensors):
                    getattr(target, f'original{i}').set_(
                        getattr(source, f'original{i}').detach().clone())
    return to_module
