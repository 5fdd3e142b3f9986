"""Optimizer: the base class of every optimizer -- parameter groups, per-parameter state,
state_dict / load_state_dict, zero_grad, and the step / state_dict hooks.

Subclasses implement ``step``; ``__init_subclass__`` wraps it once so that the step hooks
run around it (torch patches the class on first use instead).
"""
import functools
import warnings
from collections import defaultdict, OrderedDict
from copy import deepcopy
from itertools import chain

import numpy as np

from .. import _dtype
from .._layout import STORAGE as _STORAGE
from .._tensor import Tensor, make
from ..autograd.grad_mode import enable_grad, set_grad_enabled
from . import _functional
from ..nn.modules.module import _DictHandle, _type_name

__all__ = ['Optimizer', 'register_optimizer_step_pre_hook', 'register_optimizer_step_post_hook',
           'required']

_GLOBAL_PRE_HOOKS = OrderedDict()
_GLOBAL_POST_HOOKS = OrderedDict()


class _RequiredParameter:
    """Marks a default that every parameter group must give (``optimizer.required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def register_optimizer_step_pre_hook(hook):
    """Registers ``hook(optimizer, args, kwargs)`` to run before every optimizer's ``step``;
    it may return ``(new_args, new_kwargs)``. Returns a handle with ``remove()``."""
    return _DictHandle(_GLOBAL_PRE_HOOKS, hook)


def register_optimizer_step_post_hook(hook):
    """Registers ``hook(optimizer, args, kwargs)`` to run after every optimizer's ``step``.
    Returns a handle with ``remove()``."""
    return _DictHandle(_GLOBAL_POST_HOOKS, hook)


def _with_step_hooks(step):
    """``step`` running the global and per-optimizer pre/post hooks around it."""
    @functools.wraps(step)
    def hooked_step(*args, **kwargs):
        self = args[0]
        # Read by the lr schedulers to warn when they are stepped before the optimizer.
        self._opt_called = True
        pre, post = self._optimizer_step_pre_hooks, self._optimizer_step_post_hooks
        if not (pre or post or _GLOBAL_PRE_HOOKS or _GLOBAL_POST_HOOKS):
            return step(*args, **kwargs)
        for hook in chain(list(_GLOBAL_PRE_HOOKS.values()), list(pre.values())):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        for hook in chain(list(post.values()), list(_GLOBAL_POST_HOOKS.values())):
            hook(self, args, kwargs)
        return out
    hooked_step._hooked = True
    return hooked_step


def _closure(closure):
    """Calls ``step``'s optional closure with grad mode on; its result, or None."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def _to_scalar(x):
    """A 1-element tensor hyperparameter as a 0-d tensor; anything else unchanged."""
    if isinstance(x, Tensor) and x._data.ndim != 0:
        return x.squeeze()
    return x


def check_lr(lr):
    """torch's checks of ``lr``: a Tensor must have one element, and lr must be >= 0."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    check_nonnegative(lr, 'learning rate')


def check_nonnegative(value, what):
    """ValueError ``Invalid <what>: <value>`` (torch's wording) unless ``value >= 0``."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")


def check_fused(fused, foreach, differentiable):
    """torch's refusals of ``fused=True`` combined with ``differentiable`` or ``foreach``."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def scalar_dtype(fused=False):
    """The dtype of a ``step`` counter: float32 when fused, else float64 under a float64
    default dtype and float32 otherwise (as torch)."""
    if not fused and _dtype.DEFAULT.float is _dtype.float64:
        return np.dtype(np.float64)
    return np.dtype(np.float32)


def scalar_state(value=0, fused=False):
    """A 0-d state tensor in the dtype of ``step`` (``scalar_dtype``), e.g. NAdam's
    ``mu_product``."""
    return make(np.array(value, scalar_dtype(fused)))


def step_counter(fused=False):
    """A fresh 0-d ``step`` state tensor, as torch stores it."""
    return scalar_state(0, fused)


def state_like(p, fill=0):
    """A new state tensor (a plain Tensor, not a Parameter) of ``p``'s shape, dtype and
    layout, filled with ``fill``."""
    arr = np.empty_like(p._data)
    arr.fill(fill)
    return make(arr)


class Optimizer:
    """Base class of all optimizers: holds ``param_groups`` (dicts of ``'params'`` and
    options, missing options filled from ``defaults``) and ``state`` (a dict per parameter).

    Parameters must come in an ordered collection (a list, not a set): ``state_dict``
    refers to them by position.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.SGD([w], lr=0.5)
    >>> w.grad = ember.ones(2); opt.step(); w
    Parameter containing:
    tensor([0.5000, 0.5000], requires_grad=True)
    """

    # Per-parameter state entries that torch keeps as 0-d tensors but older files hold as
    # numbers.
    _scalar_state = ('step',)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get('step')
        if step is not None and not getattr(step, '_hooked', False):
            cls.step = _with_step_hooks(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._init_hooks()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _type_name(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{'params': param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def _init_hooks(self):
        for name in ('_optimizer_step_pre_hooks', '_optimizer_step_post_hooks',
                     '_optimizer_state_dict_pre_hooks', '_optimizer_state_dict_post_hooks',
                     '_optimizer_load_state_dict_pre_hooks',
                     '_optimizer_load_state_dict_post_hooks'):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())

    # -- pickling and printing -------------------------------------------------------------
    def __getstate__(self):
        return {'defaults': self.defaults, 'state': self.state,
                'param_groups': self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._init_hooks()
        # Options this optimizer has but an older state_dict's groups lack get the defaults.
        for group in self.param_groups:
            for name, default in self.defaults.items():
                if default is not required:
                    group.setdefault(name, default)
        # (after the groups: an optimizer without the option, Adafactor, keeps its groups
        # without it, as torch)
        self.defaults.setdefault('differentiable', False)
        # A step (or other _scalar_state) saved as a Python number (older files) becomes
        # the tensor torch keeps now.
        for group in self.param_groups:
            for p in group['params']:
                s = self.state.get(p)
                for key in self._scalar_state if s else ():
                    if key in s and not isinstance(s[key], Tensor):
                        s[key] = scalar_state(float(s[key]), group.get('fused'))

    def __repr__(self):
        text = self.__class__.__name__ + ' ('
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            text += ''.join(f"    {key}: {group[key]}\n" for key in sorted(group)
                            if key != 'params')
        return text + ')'

    # -- parameter groups ------------------------------------------------------------------
    def add_param_group(self, param_group):
        """Adds a group (a dict with ``'params'`` and any per-group options; the others come
        from ``defaults``), e.g. to train layers unfrozen later."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group['params']
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        params = list(params)
        # named_parameters() gives (name, tensor) pairs: keep the names beside the tensors.
        names = [p[0] for p in params if isinstance(p, tuple)]
        param_group['params'] = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group['param_names'] = names
        for p in param_group['params']:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params "
                                "is " + _type_name(p))
            if not self.defaults.get('differentiable') and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group['params']
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(group['params'])
            if ('param_names' in param_group) != ('param_names' in group):
                which = 'with names' if 'param_names' in param_group else 'without names'
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Clears the gradients of every parameter: None (the default), or zeros in place
        (``set_to_none=False``). An optimizer skips a parameter whose grad is None, but
        steps one whose grad is zero (momentum and weight decay still act)."""
        for group in self.param_groups:
            for p in group['params']:
                g = p._grad
                if g is not None:
                    if set_to_none:
                        p._grad = None
                    else:
                        if g._gfn is not None:
                            g.detach_()
                        else:
                            g.requires_grad_(False)
                        g.zero_()

    def step(self, closure=None):
        """Updates the parameters once from their ``.grad``; ``closure`` (optional for most
        optimizers) re-evaluates the model and returns the loss, which ``step`` returns."""
        raise NotImplementedError

    # -- state_dict ------------------------------------------------------------------------
    def state_dict(self):
        """``{'state': {index: per-parameter state}, 'param_groups': [group options with
        'params': [indices]]}``: parameters are numbered in group order, and the parameters
        themselves are not saved. The state dicts are the live ones, not copies (as torch)."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != 'params'}
            for p in group['params']:
                index.setdefault(id(p), len(index))
            packed['params'] = [index[id(p)] for p in group['params']]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        state_dict = {'state': state, 'param_groups': groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict):
        """Loads what ``state_dict`` returned (for an optimizer over parameters of the same
        shapes, in the same groups). Floating state tensors take their parameter's dtype.
        Create lr schedulers before loading: a scheduler's constructor rewrites ``lr``."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict['param_groups'])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g['params']) != len(s['params']) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = {}
        for g, s in zip(groups, saved_groups):
            for i, p in zip(s['params'], g['params']):
                id_map[i] = (p, s)
        state = defaultdict(dict)
        for k, v in state_dict['state'].items():
            if k in id_map:
                param, group = id_map[k]
                state[param] = _cast_state(param, v, group)
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved['params'] = group['params']
            if 'param_names' in group and 'param_names' not in saved:
                saved['param_names'] = group['param_names']
            new_groups.append(saved)
        self.__setstate__({'state': state, 'param_groups': new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # -- hooks -----------------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs before ``step`` and may return
        ``(new_args, new_kwargs)``; ``args`` starts with the optimizer. Returns a handle."""
        return _DictHandle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs after ``step``. Returns a handle."""
        return _DictHandle(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer)`` runs before ``state_dict`` builds its result."""
        return _DictHandle(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict)`` runs on ``state_dict``'s result and may return
        a replacement."""
        return _DictHandle(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict)`` runs before loading (on a shallow copy) and may
        return the state_dict to load instead."""
        return _DictHandle(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer)`` runs after ``load_state_dict``."""
        return _DictHandle(self._optimizer_load_state_dict_post_hooks, hook, prepend)


class RuleOptimizer(Optimizer):
    """The built-in optimizers: ``step`` applies the class's update rule (``_update``, on
    the backend ``_functional.backend`` picks) to every parameter that has a grad, with the
    group's options as ``_hyper`` converts them. A sparse gradient is refused with torch's
    error (``sparse_refusal``) unless the class takes them (None)."""
    sparse_refusal = "{} does not support sparse gradients"

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; returns the closure's loss
        (or None)."""
        loss = _closure(closure)
        # Grad mode follows ``differentiable`` (as torch): the update records a graph only
        # when asked to.
        with set_grad_enabled(self.defaults.get('differentiable', False)):
            for group in self.param_groups:
                F = _functional.backend(group)
                hyper = self._hyper(F, group)
                for p in group['params']:
                    if p._grad is not None:
                        if self.sparse_refusal and type(p._grad._data) in _STORAGE:
                            raise RuntimeError(self.sparse_refusal.format(type(self).__name__))
                        self._update(F, group, p, hyper)
        return loss

    def _hyper(self, F, group):
        """The keyword arguments of the update rule from a group's options (numbers through
        ``F.scalar``)."""
        raise NotImplementedError

    def _update(self, F, group, p, hyper):
        """Updates ``p`` (and its state) once."""
        raise NotImplementedError

    def _fresh_state(self, p, *names, **scalars):
        """``p``'s state; on first use created as torch orders it: ``step`` (0), the 0-d
        ``scalars`` (name=start value), then zero tensors ``names`` shaped like ``p``."""
        state = self.state[p]
        if not state:
            state['step'] = step_counter()
            for name, value in scalars.items():
                state[name] = scalar_state(value)
            for name in names:
                state[name] = state_like(p)
        return state

    def _run_rule(self, F, p, rule, names, **kwargs):
        """Runs the update ``rule`` on ``p``, its grad and its state tensors ``names`` (in
        that order, as ``F`` sees them), then marks them all changed."""
        tensors = [self.state[p][name] for name in names]
        rule(F, F.of(p), F.of(p._grad), *map(F.of, tensors), **kwargs)
        F.touched(p, *tensors)


def _cast_state(param, value, group, key=None):
    """A loaded state value for ``param``: floating tensors in the parameter's dtype (the
    ``step`` counter stays as saved, or float32 for fused/capturable groups), containers
    walked. A tensor already right is kept, not copied (as torch)."""
    if isinstance(value, Tensor):
        if key == 'step':
            if group.get('fused') or group.get('capturable'):
                return _as_dtype(value, np.dtype(np.float32))
            return value
        if param._data.dtype.kind in 'fV':
            return _as_dtype(value, param._data.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, group, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, group) for v in value)
    return value


def _as_dtype(t, dtype):
    return t if t._data.dtype == dtype else make(t._data.astype(dtype))


def advance_step(state):
    """Adds one to ``state['step']`` (a 0-d tensor, as torch keeps it); returns the tensor."""
    t = state['step']
    t._data += 1
    t._vc[0] += 1
    return t
