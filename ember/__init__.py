"""ember: a hackable deep-learning framework in Python on NumPy, with PyTorch's API.

``import ember as torch`` runs code written for PyTorch: tensors, autograd, and the
extension mechanisms of the note "Extending PyTorch".
"""
from . import _dtype
from ._dtype import (dtype, float16, float32, float64, complex64, complex128, uint8,  # noqa
                     int8, int16, int32, int64, half, float, double, short, int, long, cfloat,
                     cdouble, set_default_dtype, get_default_dtype, promote_types)
from ._dtype import bool_ as bool  # noqa: F401  (ember.bool, as torch.bool)
from ._device import device  # noqa: F401
from ._tensor import Tensor, Size  # noqa: F401
from . import autograd  # noqa: F401
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled,  # noqa: F401
                                 inference_mode, is_grad_enabled, is_inference_mode_enabled)
from . import _ops
from ._ops.random import Generator, default_generator  # noqa: F401
from ._ops.reduce import return_types  # noqa: F401
from . import _tensor_str  # noqa: F401
from . import overrides, _C  # noqa: F401
from ._tensor_str import set_printoptions  # noqa: F401

__version__ = '0.1.0'

globals().update(_ops.OPS)
del _ops


from ._ops.query import is_tensor  # noqa: E402,F401  (not overridable, as in torch)


# Loaded on first use, keeping `import ember` fast: name -> (module, attribute or None).
_LAZY = {'nn': ('ember.nn', None), 'distributed': ('ember.distributed', None),
         'multiprocessing': ('ember.multiprocessing', None), 'linalg': ('ember.linalg', None), 'optim': ('ember.optim', None), 'utils': ('ember.utils', None),
         'serialization': ('ember.serialization', None),
         'save': ('ember.serialization', 'save'), 'load': ('ember.serialization', 'load')}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        module = importlib.import_module(_LAZY[name][0])
        value = getattr(module, _LAZY[name][1]) if _LAZY[name][1] else module
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ember' has no attribute '{name}'")


# `ember.autograd.gradcheck` names both a submodule and the function (as in torch). Python
# rebinds a package attribute to a submodule when the submodule is first imported, so load
# it now, through the lazy export that binds the function, before user code can.
from .autograd import gradcheck as _gradcheck  # noqa: E402,F401
del _gradcheck
