"""ember.compile: torch.compile's signature and checks, running the model eagerly.

ember has no graph compiler, so the result calls the original code: identical results, no
speed-up. A Module comes back wrapped in an ``OptimizedModule`` (its state_dict keys gain the
``_orig_mod.`` prefix, as torch's do), a function as a wrapper around it.
"""
import functools

from .nn import Module

__all__ = ['compile']

_MODES = ('default', 'lite', 'reduce-overhead', 'max-autotune-no-cudagraphs', 'max-autotune')
_BACKENDS = ('inductor', 'eager', 'aot_eager', 'aot_eager_decomp_partition', 'aot_ts',
             'cudagraphs', 'openxla', 'tvm', 'ts', 'eager_debug', 'eager_noexcept',
             'pre_dispatch_eager', 'aot_eager_default_partitioner', 'openxla_eval',
             'invoke_subgraph')


class OptimizedModule(Module):
    """A compiled Module: calls the original module (``_orig_mod``), whose attributes it
    shows through."""

    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        """Calls the original module."""
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._orig_mod, name)


def compile(model=None, *, fullgraph=False, dynamic=None, backend='inductor', mode=None,
            options=None, disable=False):
    """``model`` ready to run "compiled": the same computation, run eagerly. Checks the
    arguments as torch does; without a model returns a decorator.

    >>> f = ember.compile(lambda x: x * 2)
    >>> f(ember.ones(2))
    tensor([2., 2.])
    """
    if model is None:
        def decorator(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, disable=disable)
        return decorator
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if not callable(model):
        raise AssertionError(f'A callable function is expected, but {type(model)} is provided.')
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise RuntimeError(f"Invalid backend: '{backend}', see "
                           "`torch._dynamo.list_backends()` for available backends.")
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    return compiled
