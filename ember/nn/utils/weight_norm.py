"""``nn.utils.weight_norm`` (the hook-based form torch deprecates in favour of
``parametrizations.weight_norm``): a parameter ``w`` is split into a magnitude ``w_g`` and a
direction ``w_v``; a forward pre-hook sets the plain attribute ``w = w_v * w_g / ||w_v||``
(the norm over every dim but ``dim``) before each call."""
import warnings

from ..parameter import Parameter, UninitializedParameter

__all__ = ['WeightNorm', 'weight_norm', 'remove_weight_norm']


def _norm_except_dim(v, dim):
    from ... import norm_except_dim
    return norm_except_dim(v, 2, dim)


class WeightNorm:
    """The forward pre-hook of one weight-normalised parameter ``name`` (its ``dim`` is -1
    for the norm of the whole tensor)."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        """``name_v * name_g / ||name_v||`` from the module's two parameters."""
        g = getattr(module, self.name + '_g')
        v = getattr(module, self.name + '_v')
        from ... import _weight_norm
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        """Splits ``module.<name>`` into ``<name>_g`` and ``<name>_v`` and registers the hook
        that recomputes it; returns the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        del module._parameters[name]
        module.register_parameter(name + '_g', Parameter(_norm_except_dim(weight, fn.dim).data))
        module.register_parameter(name + '_v', Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        """Puts the (recomputed) weight back as the parameter ``name``."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + '_g']
        del module._parameters[self.name + '_v']
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name='weight', dim=0):
    """Applies weight normalisation to ``module.<name>`` (see the module docstring);
    ``dim=None`` normalises by the norm of the whole tensor. Returns ``module``."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name='weight'):
    """Undoes ``weight_norm(module, name)``; returns ``module``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
