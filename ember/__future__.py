"""``torch.__future__``: switches for behaviour that will become the default. Both concern how
``nn.Module._apply`` (``to``, ``float``, ``half``...) and ``load_state_dict`` put new values
into a module's parameters:

- ``overwrite_module_params_on_conversion``: ``_apply`` makes new Parameter objects (and new
  gradients) instead of replacing the data of the existing ones;
- ``swap_module_params_on_conversion``: ``_apply`` and ``load_state_dict`` swap the new
  values into the existing Parameter objects (``ember.utils.swap_tensors``), so references
  to them stay valid and see the new dtype/subclass. It takes precedence over the first."""

__all__ = ['set_overwrite_module_params_on_conversion', 'get_overwrite_module_params_on_conversion',
           'set_swap_module_params_on_conversion', 'get_swap_module_params_on_conversion']

_overwrite_module_params_on_conversion = False
_swap_module_params_on_conversion = False


def set_overwrite_module_params_on_conversion(value):
    """Whether ``Module._apply`` makes new parameters rather than changing their data."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion():
    """See ``set_overwrite_module_params_on_conversion`` (False by default)."""
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value):
    """Whether ``Module._apply`` and ``load_state_dict`` swap new values into the existing
    parameter objects (``ember.utils.swap_tensors``)."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion():
    """See ``set_swap_module_params_on_conversion`` (False by default)."""
    return _swap_module_params_on_conversion
