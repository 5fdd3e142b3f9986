"""nn.Module: the base class of models -- parameter/buffer/submodule registration by
attribute assignment, traversal, state_dict, train/eval, dtype conversion, hooks, repr."""
import collections
import collections.abc
import inspect
import itertools
import warnings
import weakref

from ...utils.hooks import RemovableHandle
from ..._tensor import Tensor
from ..parameter import Buffer, Parameter, is_lazy
from ._backward_hooks import BackwardHook

__all__ = ['Module', 'register_module_forward_pre_hook', 'register_module_forward_hook',
           'register_module_full_backward_pre_hook', 'register_module_full_backward_hook',
           'register_module_backward_hook', 'register_module_parameter_registration_hook',
           'register_module_buffer_registration_hook',
           'register_module_module_registration_hook']

_HOOK_TABLES = ('_forward_pre_hooks', '_forward_pre_hooks_with_kwargs', '_forward_hooks',
                '_forward_hooks_with_kwargs', '_forward_hooks_always_called',
                '_backward_pre_hooks', '_backward_hooks', '_state_dict_hooks',
                '_state_dict_pre_hooks', '_load_state_dict_pre_hooks',
                '_load_state_dict_post_hooks')
_EXTRA_STATE = '_extra_state'  # the state_dict key of get_extra_state()'s value
_MIXED_BACKWARD_HOOKS = ("Cannot use both regular backward hooks and full backward hooks {}. "
                         "Please use only one of them.")
# (torch's warning when a module is converted to a complex dtype)
_COMPLEX_MODULES = (
    "Complex modules are a new feature under active development whose design may change, and "
    "some modules might not work as expected when using complex tensors as parameters or "
    "buffers. Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
    "bug-report.yml if a complex module does not work as expected.")


class _IncompatibleKeys(collections.namedtuple('IncompatibleKeys',
                                               ['missing_keys', 'unexpected_keys'])):
    """What load_state_dict reports: keys the module lacked in the dict, and extra keys."""
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return '<All keys matched successfully>'
        return super().__repr__()

    __str__ = __repr__


class _GlobalHooks:
    """The hooks of every module (``register_module_*_hook``). ``active`` holds the id of
    every registered call-time hook (forward or backward), so that one dict lookup keeps a
    call without hooks on the fast path."""

    def __init__(self):
        self.forward_pre_hooks = collections.OrderedDict()
        self.forward_hooks = collections.OrderedDict()
        self.forward_hooks_with_kwargs = {}
        self.forward_hooks_always_called = {}
        self.backward_pre_hooks = collections.OrderedDict()
        self.backward_hooks = collections.OrderedDict()
        self.is_full_backward_hook = None  # as torch: set by the first kind registered
        self.parameter_registration_hooks = collections.OrderedDict()
        self.buffer_registration_hooks = collections.OrderedDict()
        self.module_registration_hooks = collections.OrderedDict()
        self.active = {}

    def register(self, table, hook, extra=()):
        """The handle of ``hook`` put in ``table``, one of the call-time tables."""
        handle = _DictHandle(table, hook, extra=extra + (self.active,))
        self.active[handle.id] = True
        return handle


_GLOBAL = _GlobalHooks()
_GLOBAL_ACTIVE = _GLOBAL.active  # (a module global: the fast path's one lookup)
# torch's module-level names of the global tables (read-only views: the same dicts)
_global_forward_pre_hooks = _GLOBAL.forward_pre_hooks
_global_forward_hooks = _GLOBAL.forward_hooks
_global_forward_hooks_with_kwargs = _GLOBAL.forward_hooks_with_kwargs
_global_forward_hooks_always_called = _GLOBAL.forward_hooks_always_called
_global_backward_pre_hooks = _GLOBAL.backward_pre_hooks
_global_backward_hooks = _GLOBAL.backward_hooks


def _registered(hooks, module, name, value):
    """``value`` after the registration hooks of its kind (each may return a replacement)."""
    for hook in list(hooks.values()):
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


def register_module_parameter_registration_hook(hook):
    """``hook(module, name, param)`` runs whenever any module registers a parameter; may
    return a replacement."""
    return _DictHandle(_GLOBAL.parameter_registration_hooks, hook)


def register_module_buffer_registration_hook(hook):
    """``hook(module, name, buffer)`` runs whenever any module registers a buffer; may
    return a replacement."""
    return _DictHandle(_GLOBAL.buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """``hook(module, name, submodule)`` runs whenever any module registers a submodule;
    may return a replacement."""
    return _DictHandle(_GLOBAL.module_registration_hooks, hook)


def register_module_forward_pre_hook(hook):
    """``hook(module, args)`` runs before the forward of every module (before the module's
    own pre-hooks); may return new args."""
    return _GLOBAL.register(_GLOBAL.forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """``hook(module, args, output)`` runs after the forward of every module (before the
    module's own hooks); the keywords are those of ``Module.register_forward_hook``."""
    handle = _GLOBAL.register(_GLOBAL.forward_hooks, hook, extra=(
        _GLOBAL.forward_hooks_with_kwargs, _GLOBAL.forward_hooks_always_called))
    if with_kwargs:
        _GLOBAL.forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _GLOBAL.forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    """``hook(module, grad_output)`` for every module, as ``register_full_backward_pre_hook``."""
    return _GLOBAL.register(_GLOBAL.backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """``hook(module, grad_input, grad_output)`` for every module, as
    ``register_full_backward_hook``; cannot be mixed with ``register_module_backward_hook``."""
    if _GLOBAL.is_full_backward_hook is False:
        raise RuntimeError(_MIXED_BACKWARD_HOOKS.format('as a global Module hook'))
    _GLOBAL.is_full_backward_hook = True
    return _GLOBAL.register(_GLOBAL.backward_hooks, hook)


def register_module_backward_hook(hook):
    """The legacy backward hook for every module, as ``Module.register_backward_hook``."""
    if _GLOBAL.is_full_backward_hook is True:
        raise RuntimeError(_MIXED_BACKWARD_HOOKS.format('as a global Module hook'))
    _GLOBAL.is_full_backward_hook = False
    return _GLOBAL.register(_GLOBAL.backward_hooks, hook)


class Module:
    """Base class for all neural-network modules; subclasses define ``forward``.

    Assigning a ``Parameter``, a ``Module`` or (via ``register_buffer``) a tensor to an
    attribute registers it, so ``parameters()``, ``state_dict()``, ``to()`` and the repr
    find it.
    """
    training = True
    dump_patches = False
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if kwargs and not self.call_super_init:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args and not self.call_super_init:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        setattr_ = object.__setattr__
        setattr_(self, 'training', True)
        setattr_(self, '_parameters', {})
        setattr_(self, '_buffers', {})
        setattr_(self, '_non_persistent_buffers_set', set())
        setattr_(self, '_modules', {})
        setattr_(self, '_forward_pre_hooks', collections.OrderedDict())
        setattr_(self, '_forward_pre_hooks_with_kwargs', {})
        setattr_(self, '_forward_hooks', collections.OrderedDict())
        setattr_(self, '_forward_hooks_with_kwargs', {})
        setattr_(self, '_forward_hooks_always_called', {})
        setattr_(self, '_backward_pre_hooks', collections.OrderedDict())
        setattr_(self, '_backward_hooks', collections.OrderedDict())
        setattr_(self, '_is_full_backward_hook', None)
        setattr_(self, '_state_dict_hooks', collections.OrderedDict())
        setattr_(self, '_state_dict_pre_hooks', collections.OrderedDict())
        setattr_(self, '_load_state_dict_pre_hooks', collections.OrderedDict())
        setattr_(self, '_load_state_dict_post_hooks', collections.OrderedDict())
        if self.call_super_init:  # (a mixin after Module in the bases gets the arguments)
            super().__init__(*args, **kwargs)

    def __setstate__(self, state):
        # a module pickled before some hook table existed (or with one deleted) gets it back
        self.__dict__.update(state)
        for name in _HOOK_TABLES:
            if name not in self.__dict__:
                object.__setattr__(self, name, collections.OrderedDict())
        self.__dict__.setdefault('_non_persistent_buffers_set', set())
        self.__dict__.setdefault('_is_full_backward_hook', None)

    def forward(self, *input):
        """The computation; every subclass defines it."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _GLOBAL_ACTIVE):
            return self.forward(*args, **kwargs)  # the common case: no hooks, no bookkeeping
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        output = None
        called = set()
        backward_hook = None
        try:
            args, kwargs = self._run_forward_pre_hooks(args, kwargs)
            full, legacy = self._backward_hook_lists()
            backward_pre = list(_GLOBAL.backward_pre_hooks.values()) + \
                list(self._backward_pre_hooks.values())
            if full or backward_pre:
                backward_hook = BackwardHook(self, args, backward_pre, full)
                args = backward_hook.wrap_inputs(args)
            output = self.forward(*args, **kwargs)
            for hook_id, with_kwargs, always, hook in self._forward_hook_list():
                if always:
                    called.add(hook_id)
                result = hook(self, args, kwargs, output) if with_kwargs \
                    else hook(self, args, output)
                if result is not None:
                    output = result
        except Exception:
            # hooks registered with always_call=True still run (once) when a pre-hook, the
            # forward or another hook raised
            for hook_id, with_kwargs, always, hook in self._forward_hook_list():
                if always and hook_id not in called:
                    try:
                        result = hook(self, args, kwargs, output) if with_kwargs \
                            else hook(self, args, output)
                        if result is not None:
                            output = result
                    except Exception as e:  # noqa: BLE001 - the first error wins
                        warnings.warn("module forward hook with ``always_call=True`` raised "
                                      "an exception that was silenced as another error was "
                                      f"raised in forward: {e}")
            raise
        if backward_hook is not None:
            if not isinstance(output, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(output)}",
                              stacklevel=3)
            output = backward_hook.wrap_outputs(output)
        if legacy:
            _attach_legacy_backward_hooks(self, legacy, args, output)
        return output

    def _forward_hook_list(self):
        """[(id, with_kwargs, always_call, hook)] of the forward hooks, the global ones
        first: a snapshot, so that a hook may remove itself while the list runs."""
        hooks = [(i, i in _GLOBAL.forward_hooks_with_kwargs,
                  i in _GLOBAL.forward_hooks_always_called, h)
                 for i, h in _GLOBAL.forward_hooks.items()]
        return hooks + [(i, i in self._forward_hooks_with_kwargs,
                         i in self._forward_hooks_always_called, h)
                        for i, h in self._forward_hooks.items()]

    def _run_forward_pre_hooks(self, args, kwargs):
        """(args, kwargs) after the forward pre-hooks, the global ones (register_module_*)
        first; each may return replacements."""
        pre_hooks = [(False, h) for h in _GLOBAL.forward_pre_hooks.values()]
        pre_hooks += [(i in self._forward_pre_hooks_with_kwargs, h)
                      for i, h in self._forward_pre_hooks.items()]
        for with_kwargs, hook in pre_hooks:
            if with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        return args, kwargs

    def _backward_hook_lists(self):
        """(full backward hooks, legacy backward hooks), the global ones first."""
        full, legacy = [], []
        for flag, table in ((_GLOBAL.is_full_backward_hook, _GLOBAL.backward_hooks),
                            (self._is_full_backward_hook, self._backward_hooks)):
            if flag is True:
                full += table.values()
            elif flag is False:
                legacy += table.values()
        return full, legacy

    # -- registration ---------------------------------------------------------------------
    def _check_name(self, name, kind):
        if '_parameters' not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if '.' in name:
            raise KeyError(f'{kind} name can\'t contain "."' +
                           (f', got: {name}' if kind == 'module' else ''))
        if name == '':
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name, param):
        """Registers ``param`` (a Parameter, or None for an optional one) as ``name``."""
        self._check_name(name, 'parameter')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             "parameters must be created explicitly. To express '"
                             f"{name}' as a function of another Tensor, compute the value in "
                             "the forward() method.")
        if param is not None:  # (None is registered without the hooks, as in torch)
            param = _registered(_GLOBAL.parameter_registration_hooks, self, name, param)
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Registers a tensor that is state but not a parameter (saved in state_dict unless
        ``persistent=False``)."""
        self._check_name(name, 'buffer')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = _registered(_GLOBAL.buffer_registration_hooks, self, name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Registers a submodule (or None) as ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._check_name(name, 'module')
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = _registered(_GLOBAL.module_registration_hooks, self, name, module)

    register_module = add_module

    def __setattr__(self, name, value):
        params = self.__dict__.get('_parameters')
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._discard(name, keep='_parameters')
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._discard(name, keep='_modules')
            self._modules[name] = _registered(_GLOBAL.module_registration_hooks, self, name,
                                              value)
        elif params is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            self._modules[name] = _registered(_GLOBAL.module_registration_hooks, self, name,
                                              value)
        elif isinstance(value, Buffer) or params is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self._register_buffer_compat(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    def _register_buffer_compat(self, name, value, persistent):
        # a subclass may override register_buffer without the persistent argument (as torch,
        # it is then called without it, which is only right for a persistent buffer)
        method = self.register_buffer
        if getattr(method, '__func__', None) is Module.register_buffer or \
                'persistent' in inspect.signature(method).parameters:
            method(name, value, persistent)
        elif not persistent:
            raise RuntimeError("Registering a non-persistent buffer on a Module subclass that "
                               "implements register_buffer() without the persistent argument "
                               "is not allowed.")
        else:
            method(name, value)

    def _discard(self, name, keep=None):
        self.__dict__.pop(name, None)
        for table in ('_parameters', '_buffers', '_modules'):
            if table != keep:
                self.__dict__[table].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ('_parameters', '_buffers', '_modules'):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in ('_parameters', '_buffers', '_modules'):
            if name in self.__dict__.get(table, ()):
                del self.__dict__[table][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        # attributes, parameters, modules and buffers -- but not the numbered children of
        # containers ('0', '1', ...), which are no identifiers
        keys = set(super().__dir__()) | set(self._parameters) | set(self._buffers) | \
            set(self._modules)
        return sorted(k for k in keys if not k[:1].isdigit())

    # -- traversal ------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix='', remove_duplicate=True):
        """(name, module) for this module and every submodule, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ('.' if prefix else '') + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        """This module and every submodule."""
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        """(name, module) for the direct submodules."""
        seen = set()
        for name, m in self._modules.items():
            if m is not None and m not in seen:
                seen.add(m)
                yield name, m

    def children(self):
        """The direct submodules."""
        for _, m in self.named_children():
            yield m

    def _named_members(self, table, prefix, recurse, remove_duplicate):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for mod_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None:
                    continue
                if remove_duplicate:
                    if id(value) in seen:
                        continue
                    seen.add(id(value))
                yield mod_prefix + ('.' if mod_prefix else '') + name, value

    def named_parameters(self, prefix='', recurse=True, remove_duplicate=True):
        """(name, parameter) pairs; a parameter shared by two modules comes once."""
        return self._named_members('_parameters', prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        """The parameters (shared ones once)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix='', recurse=True, remove_duplicate=True):
        """(name, buffer) pairs."""
        return self._named_members('_buffers', prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """The buffers."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def _replicate_for_data_parallel(self):
        # a shallow copy for data-parallel replicas: no parameters of its own (the replica
        # code sets them as views of the original's), its own buffer and child tables
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica

    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` (``''`` is self)."""
        if target == '':
            return self
        mod = self
        for item in target.split('.'):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Puts ``module`` at the dotted path ``target`` (whose parent must exist; with
        ``strict``, so must the name itself)."""
        if target == '':
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition('.')
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def _get_member(self, target):
        module_path, _, name = target.rpartition('.')
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        return mod, name, getattr(mod, name)

    def get_parameter(self, target):
        """The parameter at the dotted path ``target`` (e.g. ``'layer.0.weight'``)."""
        _, name, param = self._get_member(target)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path ``target`` (e.g. ``'bn.running_mean'``)."""
        mod, name, buffer = self._get_member(target)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return buffer

    def apply(self, fn):
        """Calls ``fn`` on every submodule (children first) and on self; returns self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # -- state ----------------------------------------------------------------------------
    _version = 1  # saved in state_dict()._metadata; subclasses bump it when their keys change

    def state_dict(self, *args, destination=None, prefix='', keep_vars=False):
        """An ordered dict name -> tensor of the parameters and persistent buffers (detached
        unless ``keep_vars``), in registration order, submodules after their parent's own.
        Its ``_metadata`` maps each module's prefix (``''``, ``'0'``, ``'layer.sub'``) to
        ``{'version': type(module)._version}``. Pre-hooks run first, post-hooks last."""
        if args:  # torch's deprecated positional form: (destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn."
                          "Module.state_dict for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == '':
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = collections.OrderedDict()
            destination._metadata = collections.OrderedDict()
        local_metadata = {'version': self._version}
        if hasattr(destination, '_metadata'):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + '.',
                             keep_vars=keep_vars)
        for hook in list(self._state_dict_hooks.values()):
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, '_from_public_api', False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:  # the private hooks may hand back a new dict
                destination = result
        return destination

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Puts this module's own state (not its children's) into ``destination``: the
        parameters, the persistent buffers and, when ``get_extra_state`` is overridden,
        ``prefix + '_extra_state'``. Override it to save something else."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    def get_extra_state(self):
        """The picklable extra state to store under ``'_extra_state'`` in the state_dict;
        override it together with ``set_extra_state`` (the base version is never called)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        """Restores what ``get_extra_state`` returned; override the two together."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Loads this module's own state (not its children's) from ``state_dict``, appending
        to ``missing_keys``/``unexpected_keys``/``error_msgs``; ``local_metadata`` is what
        ``state_dict`` saved for this module. Override it to load something else."""
        for hook in list(self._load_state_dict_pre_hooks.values()):
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local = {n: p for n, p in self._parameters.items() if p is not None}
        local.update((n, b) for n, b in self._buffers.items()
                     if b is not None and n not in self._non_persistent_buffers_set)
        assign = local_metadata.get('assign_to_params_buffers', False)
        from ...autograd.grad_mode import no_grad
        from ... import __future__ as future
        swap = future.get_swap_module_params_on_conversion()
        for name, target in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  'torch.Tensor or Tensor-like object from checkpoint but '
                                  f'received {type(value)}')
                continue
            lazy = is_lazy(target)
            if lazy and is_lazy(value):
                continue  # two uninitialized tensors: nothing to copy
            if not lazy and len(target.shape) == 0 and tuple(value.shape) == (1,):
                value = value[0]  # checkpoints of torch 0.3 saved scalars as 1-element
            if not lazy and value.shape != target.shape:
                error_msgs.append(f'size mismatch for {key}: copying a param with shape '
                                  f'{value.shape} from checkpoint, the shape in current model '
                                  f'is {target.shape}.')
                continue
            if target.is_meta and not value.is_meta and not assign:
                warnings.warn(f'for {key}: copying from a non-meta parameter in the checkpoint '
                              'to a meta parameter in the current model, which is a no-op. '
                              '(Did you mean to pass `assign=True` to assign items in the '
                              'state dictionary to their corresponding key in the module '
                              'instead of copying them in place?)')
            try:
                with no_grad():
                    if swap:
                        self._swap_in_loaded(target, value, assign)
                    elif assign:
                        if isinstance(target, Parameter):
                            if isinstance(value, Parameter):
                                value.requires_grad_(target.requires_grad)
                            else:
                                value = Parameter(value, requires_grad=target.requires_grad)
                        setattr(self, name, value)
                    else:
                        target.copy_(value)
            except Exception as ex:  # noqa: BLE001 - reported as torch does, with the others
                error_msgs.append(f'While copying the parameter named "{key}", whose '
                                  f'dimensions in the model are {target.size()} and whose '
                                  f'dimensions in the checkpoint are {value.size()}, an '
                                  f'exception occurred : {ex.args}.')
        extra_key = prefix + _EXTRA_STATE
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            # a key under prefix is unexpected when its next dotted part names no child (if
            # the key goes deeper) or no local persistent tensor
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head, *rest = key[len(prefix):].split('.', 1)
                    if (head not in self._modules) if rest else (head not in local):
                        unexpected_keys.append(key)

    @staticmethod
    def _swap_in_loaded(target, value, assign):
        """load_state_dict under ``torch.__future__``'s parameter swapping: the value
        ``Tensor.module_load`` makes of the checkpoint's tensor (a Parameter for a
        parameter) is swapped into the module's tensor object."""
        new = target.module_load(value, assign=assign)
        if new is value or new is target:
            raise RuntimeError("module_load returned one of self or other, please .detach() "
                               "the result if returning one of the inputs in module_load")
        if isinstance(target, Parameter):
            if isinstance(new, Parameter):
                new.requires_grad_(target.requires_grad)
            else:
                new = Parameter(new, requires_grad=target.requires_grad)
        from ...utils import swap_tensors
        swap_tensors(target, new)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies tensors from ``state_dict`` into the parameters and buffers (or, with
        ``assign``, puts the given tensors in their place); returns (missing_keys,
        unexpected_keys). With ``strict``, either kind of key raises RuntimeError listing
        them all; a shape mismatch always does. Each module's ``_load_from_state_dict`` gets
        the keys under its prefix and the metadata ``state_dict`` saved for it; its
        post-hooks see (and may edit) the incompatible keys."""
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, '_metadata', None)
        state_dict = collections.OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state, prefix):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata['assign_to_params_buffers'] = assign
            module._load_from_state_dict(local_state, prefix, local_metadata, True, missing,
                                         unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + '.'
                    load(child, {k: v for k, v in local_state.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in list(module._load_state_dict_post_hooks.values()):
                if hook(module, keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")

        load(self, state_dict, '')
        del load  # the recursive closure refers to itself: break that cycle now
        if strict:
            if unexpected:
                errors.insert(0, 'Unexpected key(s) in state_dict: ' +
                              ', '.join(f'"{k}"' for k in unexpected) + '. ')
            if missing:
                errors.insert(0, 'Missing key(s) in state_dict: ' +
                              ', '.join(f'"{k}"' for k in missing) + '. ')
        if errors:
            body = '\n\t'.join(errors)
            raise RuntimeError(f'Error(s) in loading state_dict for {type(self).__name__}:\n\t'
                               f'{body}')
        return _IncompatibleKeys(missing, unexpected)

    def train(self, mode=True):
        """Sets training mode (affects Dropout, BatchNorm...) here and below; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Sets ``requires_grad`` of every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Clears the gradients of every parameter (None by default, else zeros)."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.detach_().zero_()

    # -- conversion ---------------------------------------------------------------------
    def _apply(self, fn, recurse=True):
        """Replaces every parameter's data (and grad) and every buffer by ``fn`` of it, in
        this module and (with ``recurse``) below; returns self. What ``to``, ``float``,
        ``type``... are built on."""
        from ...autograd.grad_mode import no_grad
        from ... import __future__ as future
        swap = future.get_swap_module_params_on_conversion()
        overwrite = future.get_overwrite_module_params_on_conversion()
        for m in (self.modules() if recurse else (self,)):
            with no_grad():
                for name, p in list(m._parameters.items()):
                    if p is not None:
                        m._apply_to_parameter(name, p, fn, swap, overwrite)
                for name, b in m._buffers.items():
                    if b is not None:
                        m._buffers[name] = fn(b)
        return self

    def _apply_to_parameter(self, name, p, fn, swap, overwrite):
        """``_apply`` on one parameter and its gradient: by default their data is replaced
        (the objects stay); ``torch.__future__`` may ask for new objects (overwrite) or for
        the new values swapped into the old objects (swap)."""
        grad = p.grad
        new = fn(p)
        # (a new layout -- dense to sparse -- cannot be set as data: new objects, as in torch)
        overwrite = overwrite or new.layout is not p.layout
        if swap:
            from ...utils import swap_tensors
            try:
                if grad is not None:
                    p.grad = None
                swap_tensors(p, Parameter(new, requires_grad=p.requires_grad))
            except Exception as e:
                if grad is not None:
                    p.grad = grad
                raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{name}") from e
            out = p
        elif not overwrite:
            if new is not p:
                p.data = new
            out = p
        else:
            out = Parameter(new, p.requires_grad)
            self._parameters[name] = out
        if grad is None:
            return
        new_grad = fn(grad)
        overwrite = overwrite or new_grad.layout is not grad.layout
        if swap:
            from ...utils import swap_tensors
            new_grad.requires_grad_(grad.requires_grad)
            try:
                swap_tensors(grad, new_grad)
            except Exception as e:
                raise RuntimeError(
                    f"_apply(): Couldn't swap {self._get_name()}.{name}.grad") from e
            out.grad = grad
        elif not overwrite:
            grad.data = new_grad  # (the gradient object stays, as the parameter does)
        else:
            out.grad = new_grad.requires_grad_(grad.requires_grad)

    def to(self, *args, **kwargs):
        """Converts floating-point parameters and buffers to a dtype, a device (the CPU or
        'meta') and, for 4-D and 5-D ones, a ``memory_format``; returns self."""
        from ..._device import check_device
        from ._to_args import parse_to
        bound = parse_to(args, kwargs)
        if 'copy' in bound:  # a module's tensors are converted in place, never copied
            raise RuntimeError('.to() does not accept copy argument')
        device = bound.get('device')
        dtype = bound['tensor'].dtype if 'tensor' in bound else bound.get('dtype')
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype}")
            if dtype.is_complex:
                warnings.warn(_COMPLEX_MODULES, stacklevel=2)
        if device is not None:
            dev = check_device(device, 'Module.to')
            if any(t.device is not dev for t in itertools.chain(self.parameters(),
                                                                  self.buffers())):
                self._apply(lambda t: _to_device(t, dev))
        fmt = bound.get('memory_format')
        if fmt is not None:  # as torch: only 4-D and 5-D tensors take the layout
            self._apply(lambda t: t.to(memory_format=fmt) if t.dim() in (4, 5) else t)
        if dtype is None:
            return self
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def type(self, dst_type):
        """Casts every parameter and buffer (floating or not) to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device, recurse=True):
        """Gives every parameter and buffer new uninitialized memory of the same shape on
        ``device``; returns self."""
        from ... import _ops
        return self._apply(lambda t: _ops.creation.empty_like(t, device=device),
                           recurse=recurse)

    def share_memory(self):
        """Moves every parameter and buffer to shared memory (``Tensor.share_memory_``), so
        processes the module is sent to through ``ember.multiprocessing`` train the same
        numbers (Hogwild); returns self."""
        return self._apply(lambda t: t.share_memory_())

    def float(self):
        """Floating-point parameters and buffers to float32."""
        from ... import _dtype
        return self.to(_dtype.float32)

    def double(self):
        """Floating-point parameters and buffers to float64."""
        from ... import _dtype
        return self.to(_dtype.float64)

    def half(self):
        """Floating-point parameters and buffers to float16."""
        from ... import _dtype
        return self.to(_dtype.float16)

    def bfloat16(self):
        """Floating-point parameters and buffers to bfloat16."""
        from ... import _dtype
        return self.to(_dtype.bfloat16)

    def cpu(self):
        """Self: everything already lives on the CPU."""
        return self

    def cuda(self, device=None):
        """Raises: ember has no CUDA backend yet."""
        from ..._device import check_device
        check_device('cuda', 'Module.cuda')

    def xpu(self, device=None):
        """Raises: ember has no XPU backend (torch's CPU build's AssertionError)."""
        raise AssertionError("Torch not compiled with XPU enabled")

    def mtia(self, device=None):
        """Raises: ember has no MTIA backend (torch's CPU build's AssertionError)."""
        raise AssertionError("Torch not compiled with MTIA enabled.")

    def ipu(self, device=None):
        """Raises: ember has no IPU backend (torch's RuntimeError)."""
        raise RuntimeError("PyTorch is not linked with support for ipu devices")

    def compile(self, *args, **kwargs):
        """``torch.compile`` of this module in place: ember runs eagerly, so the module
        stays as it is (the arguments are checked as ``ember.compile`` checks them)."""
        from ..._compile import compile as _compile
        _compile(self.forward, *args, **kwargs)

    # -- hooks ------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` runs before forward; may return new args. With
        ``with_kwargs``, ``hook(module, args, kwargs)`` may return ``(args, kwargs)``.
        ``prepend`` puts it before the hooks already registered."""
        handle = _DictHandle(self._forward_pre_hooks, hook, prepend,
                             extra=(self._forward_pre_hooks_with_kwargs,))
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` runs after forward; may return a new output. With
        ``with_kwargs`` it is ``hook(module, args, kwargs, output)``; ``always_call`` runs it
        even when forward raises; ``prepend`` puts it before the hooks already registered."""
        handle = _DictHandle(self._forward_hooks, hook, prepend,
                             extra=(self._forward_hooks_with_kwargs,
                                    self._forward_hooks_always_called))
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` runs when the gradients with respect to the module's
        outputs are known; may return new ones (a tuple, one per output)."""
        return _DictHandle(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients with respect to
        the module's positional inputs are known; may return new ``grad_input``."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(_MIXED_BACKWARD_HOOKS.format('on a single Module'))
        self._is_full_backward_hook = True
        return _DictHandle(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """The legacy form of ``register_full_backward_hook``: ``hook(module, grad_input,
        grad_output)`` is a hook on the autograd node that made the (first) output, so
        ``grad_input`` holds that node's input gradients only. Deprecated, as in torch; it
        cannot be mixed with full backward hooks on one module."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(_MIXED_BACKWARD_HOOKS.format('on a single Module'))
        self._is_full_backward_hook = False
        return _DictHandle(self._backward_hooks, hook)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict`` saves anything."""
        return _DictHandle(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after ``state_dict``
        saved this module and its children; it may edit the dict in place and must return
        None."""
        hook._from_public_api = True
        return _DictHandle(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        # the older private form: the hook may return a new dict, which replaces the old
        if getattr(hook, '_from_public_api', False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        return _DictHandle(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before this module loads its own state; it may
        edit ``state_dict`` in place."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        # the private form calls the hook without the module first
        if with_module:
            hook = _WithModule(hook, self)
        return _DictHandle(self._load_state_dict_pre_hooks, hook)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after ``load_state_dict`` loaded this
        module and its children; it may edit ``incompatible_keys``' lists in place (which
        decides what ``strict`` reports) and must return None."""
        return _DictHandle(self._load_state_dict_post_hooks, hook)

    # -- repr -----------------------------------------------------------------------------
    def extra_repr(self):
        """The text inside this module's parentheses in its repr (override it)."""
        return ''

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split('\n') if extra else []
        for name, module in self._modules.items():
            text = _indent(repr(module), 2)
            lines.append(f'({name}): {text}')
        main = self._get_name() + '('
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += '\n  ' + '\n  '.join(lines) + '\n'
        return main + ')'


def _attach_legacy_backward_hooks(module, hooks, args, output):
    """Puts the legacy backward hooks on the node that made the module's (first) output,
    with torch's warnings where that node cannot see all of the module's gradients."""
    var = output
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) \
            if isinstance(var, dict) else var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(_LegacyHook(hook, module))
    _warn_legacy_backward_hook(args, output, grad_fn)


class _WithModule:
    """A hook stored on a module that is called with that module first. It holds the module
    weakly (a module is not kept alive by its own hook table) and pickles with it."""

    def __init__(self, hook, module):
        self.hook, self.module = hook, weakref.ref(module)
        self.__name__ = getattr(hook, '__name__', type(hook).__name__)

    def __call__(self, *args):
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args)

    def __getstate__(self):
        return {'hook': self.hook, 'module': self.module()}

    def __setstate__(self, state):
        self.hook, self.module = state['hook'], weakref.ref(state['module'])
        self.__name__ = getattr(self.hook, '__name__', type(self.hook).__name__)


class _LegacyHook:
    """A node hook ``(grad_inputs, grad_outputs)`` calling a module's legacy backward hook
    with the module first; named after the hook for the engine's messages."""

    def __init__(self, hook, module):
        self.hook, self.module = hook, module
        self.__name__ = getattr(hook, '__name__', type(hook).__name__)

    def __call__(self, grad_inputs, grad_outputs):
        return self.hook(self.module, grad_inputs, grad_outputs)


def _warn_legacy_backward_hook(inputs, result, grad_fn):
    # the cases where the output's node is not the module's whole backward
    full_text = " Please use register_full_backward_hook to get the documented behavior."
    def warn(text, missing, advice=True):
        warnings.warn(f"Using {text} is deprecated and will be removed in future versions. "
                      f"This hook will be missing some {missing}." + (full_text if advice
                                                                       else ''),
                      FutureWarning, stacklevel=4)
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        return warn("non-full backward hooks on a Module that does not return a single Tensor "
                    "or a tuple of Tensors", "of the grad_output")
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        return warn("non-full backward hooks on a Module that does not take as input a single "
                    "Tensor or a tuple of Tensors", "of the grad_input")
    out_nodes = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_nodes or (len(out_nodes) == 1 and grad_fn not in out_nodes):
        warn("a non-full backward hook when outputs are nested in python data structure",
             "grad_output", advice=False)
    elif len(out_nodes) > 1:
        warn("a non-full backward hook when outputs are generated by different autograd "
             "Nodes", "grad_output")
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != \
            {n[0] for n in grad_fn.next_functions}:
        warn("a non-full backward hook when the forward contains multiple autograd Nodes",
             "grad_input")


def _indent(text, n):
    first, *rest = text.split('\n')
    return '\n'.join([first] + [' ' * n + line for line in rest])


def _type_name(value):
    if isinstance(value, Tensor):
        return 'torch.' + value.dtype._legacy
    return type(value).__module__ + '.' + type(value).__name__ \
        if type(value).__module__ != 'builtins' else type(value).__name__


class _DictHandle(RemovableHandle):
    """The handle of a hook put in ``table`` (first with ``prepend``), also listed by id in
    the ``extra`` tables."""

    def __init__(self, table, hook, prepend=False, extra=()):
        super().__init__(table, extra_dict=list(extra))
        table[self.id] = hook
        if prepend:
            table.move_to_end(self.id, last=False)


def _to_device(t, dev):
    """``t`` on ``dev`` for ``Module.to``: a meta tensor cannot get values back that way."""
    if t.device is dev:
        return t
    if t.is_meta:
        raise NotImplementedError(
            "Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() "
            "instead of torch.nn.Module.to() when moving module from meta to a different "
            "device.")
    return t.to(dev)
