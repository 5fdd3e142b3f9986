"""``torch._dynamo.config``: the switches scripts set, with torch's defaults. Setting or
reading one torch does not have raises torch's AttributeError."""
import sys
import types

_DEFAULTS = {
    'suppress_errors': False, 'cache_size_limit': 8, 'recompile_limit': 8,
    'accumulated_cache_size_limit': 256, 'accumulated_recompile_limit': 256, 'verbose': False,
    'capture_scalar_outputs': False, 'capture_dynamic_output_shape_ops': False,
    'optimize_ddp': True, 'automatic_dynamic_shapes': True, 'assume_static_by_default': True,
    'specialize_int': False, 'specialize_float': False, 'force_parameter_static_shapes': True,
    'inline_inbuilt_nn_modules': True, 'guard_nn_modules': True, 'dynamic_shapes': True,
    'error_on_recompile': False, 'raise_on_ctx_manager_usage': True,
    'replay_record_enabled': False, 'allow_unspec_int_on_nn_module': False,
    'skip_nnmodule_hook_guards': True, 'log_compilation_metrics': True,
    'compiled_autograd': False, 'use_numpy_random_stream': False,
}


class _Config(types.ModuleType):
    """The module object itself: known switches read and write, unknown ones are refused."""

    def __getattr__(self, name):
        values = self.__dict__['_values']
        if name in values:
            return values[name]
        raise AttributeError(f"torch._dynamo.config.{name} does not exist")

    def __setattr__(self, name, value):
        if name.startswith('__') or name in ('_values', '_DEFAULTS', '_Config'):
            return super().__setattr__(name, value)
        if name not in self.__dict__['_values']:
            raise AttributeError(f"torch._dynamo.config.{name} does not exist")
        self.__dict__['_values'][name] = value


_values = dict(_DEFAULTS)
sys.modules[__name__].__class__ = _Config
