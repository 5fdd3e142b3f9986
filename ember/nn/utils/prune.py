"""``torch.nn.utils.prune``: zeroing parts of a module's tensor through a mask.

Pruning ``module.weight`` moves the tensor to the parameter ``weight_orig``, keeps the mask in
the buffer ``weight_mask`` and registers the method as a forward pre-hook that sets
``module.weight = weight_orig * weight_mask`` before each forward. Pruning the same tensor
again combines the masks in a ``PruningContainer``: the new method only looks at what the
previous ones kept (its entries for unstructured methods, its channels for structured ones).
``remove`` makes the pruning permanent.
"""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable


__all__ = ['BasePruningMethod', 'PruningContainer', 'Identity', 'RandomUnstructured',
           'L1Unstructured', 'RandomStructured', 'LnStructured', 'CustomFromMask', 'identity',
           'random_unstructured', 'l1_unstructured', 'random_structured', 'ln_structured',
           'global_unstructured', 'custom_from_mask', 'remove', 'is_pruned']


def _ember():
    import ember
    return ember


class BasePruningMethod(ABC):
    """A way of choosing what to prune: ``compute_mask(t, default_mask)`` returns the mask of
    ``t`` (``default_mask``: what earlier prunings kept). ``PRUNING_TYPE`` is 'unstructured',
    'structured' (with a ``dim``) or 'global'."""

    _tensor_name = None

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask for ``t``, on top of ``default_mask``."""

    def apply_mask(self, module):
        """``<name>_orig * <name>_mask`` of ``module``."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + '_mask')
        orig = getattr(module, self._tensor_name + '_orig')
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prunes ``module.<name>`` with ``cls(*args, **kwargs)`` (``importance_scores``, of
        the tensor's shape, ranks the entries instead of the tensor itself); returns the
        method (a ``PruningContainer`` when the tensor was pruned before)."""
        method = _join_earlier(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as "
                                     f"parameter {name} of {module}, got "
                                     f"{importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + '_orig', orig)
            del module._parameters[name]
            default_mask = _ember().ones_like(orig)
        else:
            default_mask = getattr(module, name + '_mask').detach().clone(
                memory_format=_ember().contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + '_mask', mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # (the tensor goes back where it was)
                module.register_parameter(name, getattr(module, name + '_orig'))
                del module._parameters[name + '_orig']
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times its mask (computed from ``importance_scores`` when given)."""
        if importance_scores is not None and importance_scores.shape != t.shape:
            raise AssertionError(f"importance_scores should have the same shape as tensor t, "
                                 f"got {importance_scores.shape} vs {t.shape}")
        scores = t if importance_scores is None else importance_scores
        mask = _ember().ones_like(t) if default_mask is None else default_mask
        return t * self.compute_mask(scores, default_mask=mask)

    def remove(self, module):
        """Makes the pruning permanent: ``module.<name>`` becomes the pruned parameter again,
        without ``_orig``, ``_mask`` or the hook's effect (the zeros stay)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + '_orig']
        orig.data = weight.data
        del module._parameters[self._tensor_name + '_orig']
        del module._buffers[self._tensor_name + '_mask']
        setattr(module, self._tensor_name, orig)


def _join_earlier(cls, module, name, *args, **kwargs):
    """The method to apply: ``cls(*args, **kwargs)``, joined into a container with the
    pruning already hooked on ``module.<name>`` (whose hook is taken off)."""
    earlier = [(k, h) for k, h in module._forward_pre_hooks.items()
               if isinstance(h, BasePruningMethod) and h._tensor_name == name]
    if len(earlier) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} "
                             f"of module {module}. Use a PruningContainer.")
    for k, _ in earlier:
        del module._forward_pre_hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not earlier:
        return method
    old = earlier[0][1]
    container = old if isinstance(old, PruningContainer) else PruningContainer(old)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """Successive prunings of one tensor; its mask is the last method's, computed on what the
    earlier masks kept."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1 and not isinstance(args[0], Iterable):
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Appends ``method`` (acting on the same tensor)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The last method's mask of the part of ``t`` that ``default_mask`` kept."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == 'unstructured':
            kept = mask == 1
        elif kind == 'structured':
            if not hasattr(method, 'dim'):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have '
                                     'the attribute `dim` defined.')
            rank = t.dim()
            dim = method.dim + rank if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {rank}")
            channels = mask.sum(dim=[d for d in range(rank) if d != dim]) != 0
            kept = tuple(channels if d == dim else slice(None) for d in range(rank))
        elif kind == 'global':
            kept = (slice(None),) * t.dim()
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        mask[kept] = method.compute_mask(t[kept], default_mask=mask[kept]).to(dtype=mask.dtype)
        return mask


def _check_amount(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _how_many(amount, size):
    """The number of units ``amount`` prunes out of ``size`` (an int, or a fraction
    rounded)."""
    count = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if isinstance(amount, numbers.Integral) and amount > size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={size}")
    return count


def _check_structured(t, dim):
    if t.dim() <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {t.dim()} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _channels_mask(t, dim, kept):
    """A mask of ``t``'s shape that keeps the channels ``kept`` (indices or a bool mask)
    along ``dim``."""
    mask = _ember().zeros_like(t)
    dim %= t.dim()
    mask[tuple(kept if d == dim else slice(None) for d in range(t.dim()))] = 1
    return mask


class Identity(BasePruningMethod):
    """Prunes nothing (the mask is all ones)."""
    PRUNING_TYPE = 'unstructured'

    def compute_mask(self, t, default_mask):
        """``default_mask`` itself."""
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Reparametrizes ``module.<name>`` with an all-ones mask."""
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a count, or a fraction of them), the ones ``_doomed``
    picks."""
    PRUNING_TYPE = 'unstructured'

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the picked entries zeroed."""
        count = _how_many(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=_ember().contiguous_format)
        if count:
            mask.view(-1)[self._doomed(t, count)] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` entries chosen at random."""

    @staticmethod
    def _doomed(t, count):
        return _ember().topk(_ember().rand_like(t).view(-1), k=count).indices

    @classmethod
    def apply(cls, module, name, amount):
        """Prunes ``amount`` random entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes the ``amount`` entries of smallest magnitude."""

    @staticmethod
    def _doomed(t, count):
        return _ember().topk(t.abs().view(-1), k=count, largest=False).indices

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Prunes the ``amount`` smallest entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` channels along ``dim`` chosen at random."""
    PRUNING_TYPE = 'structured'

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        """``default_mask`` with ``amount`` random channels zeroed."""
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        count = _how_many(self.amount, size)
        if not count:
            return default_mask
        draw = _ember().rand(size)
        mask = _channels_mask(t, self.dim, draw > _ember().kthvalue(draw, k=count).values)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Prunes ``amount`` random channels of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest L``n`` norm."""
    PRUNING_TYPE = 'structured'

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the ``amount`` channels of smallest norm zeroed."""
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        count = _how_many(self.amount, size)
        dim = self.dim + t.dim() if self.dim < 0 else self.dim
        norms = _ember().norm(t, p=self.n, dim=[d for d in range(t.dim()) if d != dim])
        largest = _ember().topk(norms, k=size - count, largest=True).indices
        if not count:
            return default_mask
        mask = _channels_mask(t, self.dim, largest)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Prunes the ``amount`` channels of smallest L``n`` norm of ``module.<name>``."""
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is 0."""
    PRUNING_TYPE = 'global'

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        """``default_mask`` times the given mask."""
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match mask "
                                 f"shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Prunes ``module.<name>`` where ``mask`` is 0."""
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Reparametrizes ``module.<name>`` with an all-ones mask; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prunes ``amount`` (a count, or a fraction) random entries; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prunes the ``amount`` entries of smallest magnitude; returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prunes ``amount`` random channels along ``dim``; returns ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prunes the ``amount`` channels along ``dim`` of smallest L``n`` norm; returns
    ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prunes the ``(module, name)`` tensors of ``parameters`` together: an unstructured
    ``pruning_method`` (class) ranks all their entries at once, then each tensor gets its
    part of the mask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    T = _ember()
    scores = T.nn.utils.parameters_to_vector(
        [importance_scores.get((m, n), getattr(m, n)) for m, n in parameters])
    default = T.nn.utils.parameters_to_vector(
        [getattr(m, n + '_mask', T.ones_like(getattr(m, n))) for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = 'temp'
    method = pruning_method(**kwargs)
    method._tensor_name = 'temp'
    if method.PRUNING_TYPE != 'unstructured':
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f'Found method {pruning_method} of type {method.PRUNING_TYPE}')
    container.add_pruning_method(method)
    final = container.compute_mask(scores, default)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        custom_from_mask(module, name, mask=final[start:start + param.numel()].view_as(param))
        start += param.numel()


def custom_from_mask(module, name, mask):
    """Prunes ``module.<name>`` where ``mask`` is 0; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Makes the pruning of ``module.<name>`` permanent (see ``BasePruningMethod.remove``);
    returns ``module``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    """Whether ``module`` or one of its submodules has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())

