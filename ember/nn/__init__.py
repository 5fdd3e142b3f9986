"""ember.nn: Parameter, Module and the layers built on them (growing; see the issues)."""
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403  (the layer classes; the list is modules.__all__)
from . import functional, init, parallel, utils  # noqa: F401
from .parallel import DataParallel  # noqa: F401,E402  (torch.nn.DataParallel, as torch has it)
from . import grad  # noqa: F401,E402  (torch.nn.grad; also nn.functional.grad)

functional.grad = grad

_SUBMODULES = ('attention', 'common_types')  # imported on first use


def __getattr__(name):
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module(f'{__name__}.{name}')
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def factory_kwargs(kwargs):
    """``kwargs`` checked to hold only factory arguments (device, dtype, memory_format),
    merged with the ``factory_kwargs`` entry among them (a key may not be in both)."""
    if kwargs is None:
        return {}
    simple = {'device', 'dtype', 'memory_format'}
    expected = simple | {'factory_kwargs'}
    if not kwargs.keys() <= expected:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected}")
    result = dict(kwargs.get('factory_kwargs', {}))
    for key in simple & kwargs.keys():
        if key in result:
            raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
        result[key] = kwargs[key]
    return result
