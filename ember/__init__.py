"""ember: a hackable deep-learning framework in Python on NumPy, with PyTorch's API.

``import ember as torch`` runs code written for PyTorch: tensors, autograd, and the
extension mechanisms of the note "Extending PyTorch".
"""
from . import _dtype
from ._dtype import (dtype, float16, bfloat16, float32, float64, complex64, complex128,  # noqa
                     uint8, int8, int16, int32, int64, half, float, double, short, int, long,
                     cfloat, cdouble, set_default_dtype, get_default_dtype, promote_types,
                     uint16, uint32, uint64, complex32, chalf)
from ._dtype import bool_ as bool  # noqa: F401  (ember.bool, as torch.bool)
from ._device import device, set_default_device, get_default_device  # noqa: F401
from ._memory_format import (memory_format, contiguous_format, channels_last,  # noqa: F401
                             channels_last_3d, preserve_format)
from ._memory_format import contiguous_format as legacy_contiguous_format  # noqa: F401
from ._tensor import Tensor, Size  # noqa: F401
from ._layout import (layout, strided, sparse_coo, sparse_csr, sparse_csc,  # noqa: F401
                      sparse_bsr, sparse_bsc, _mkldnn, jagged)
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

from math import e, inf, nan, pi  # noqa: E402,F401  (torch re-exports them too)
newaxis = None  # (as NumPy's: ``t[:, ember.newaxis]``)
# What torch reports of its build; ember's linear algebra and FFTs come from NumPy.
has_lapack = has_spectral = True
has_mkl = has_openmp = False

globals().update(_ops.OPS)
del _ops


from ._ops.query import is_tensor, is_storage, typename  # noqa: E402,F401  (not overridable)


# Loaded on first use, keeping `import ember` fast: name -> (module, attribute or None).
_LAZY = {'nn': ('ember.nn', None), 'distributed': ('ember.distributed', None),
         'multiprocessing': ('ember.multiprocessing', None), 'linalg': ('ember.linalg', None),
         'fft': ('ember.fft', None), 'optim': ('ember.optim', None), 'utils': ('ember.utils', None),
         'storage': ('ember.storage', None),
         'UntypedStorage': ('ember.storage', 'UntypedStorage'),
         'TypedStorage': ('ember.storage', 'TypedStorage'),
         'serialization': ('ember.serialization', None),
         'special': ('ember.special', None), 'sparse': ('ember.sparse', None),
         'distributions': ('ember.distributions', None),
         'save': ('ember.serialization', 'save'), 'load': ('ember.serialization', 'load'),
         'from_dlpack': ('ember.utils.dlpack', 'from_dlpack'),
         'install_as_torch': ('ember._torch_alias', 'install_as_torch'),
         'uninstall_as_torch': ('ember._torch_alias', 'uninstall_as_torch'),
         'finfo': ('ember._finfo', 'finfo'), 'iinfo': ('ember._finfo', 'iinfo'),
         '__future__': ('ember.__future__', None), '__config__': ('ember.__config__', None)}
# The namespaces scripts touch first (CPU-only answers, eager stand-ins; see each module).
_LAZY.update({name: (f'ember.{name}', None) for name in (
    'cuda', 'cpu', 'backends', 'accelerator', 'amp', 'jit', 'onnx', 'testing', 'random',
    'version', 'compiler', '_dynamo', 'types', 'xpu', 'mps', 'profiler', 'hub', 'signal',
    'functional', 'quasirandom', 'library', 'fx')})
_LAZY.update({'compile': ('ember._compile', 'compile'), 'autocast': ('ember.amp', 'autocast')})
_LAZY['ops'] = ('ember._ops.op_namespace', 'ops')  # (torch.ops: aten.<op>, profiler.<op>)
_LAZY.update({'func': ('ember.func', None), 'vmap': ('ember.func', 'vmap'),
              '_vmap_internals': ('ember._vmap_internals', None)})
_LAZY.update({name: ('ember.amp.autocast_mode', name) for name in (
    'is_autocast_enabled', 'get_autocast_dtype', 'set_autocast_enabled', 'set_autocast_dtype',
    'is_autocast_cache_enabled', 'set_autocast_cache_enabled', 'clear_autocast_cache',
    'autocast_increment_nesting', 'autocast_decrement_nesting') + tuple(
    f'{verb}_autocast_{device}_{what}' for verb, what, devices in (
        ('is', 'enabled', ('cpu', 'ipu', 'xla')), ('get', 'dtype', ('cpu', 'gpu', 'ipu', 'xla')),
        ('set', 'enabled', ('cpu', 'ipu', 'xla')), ('set', 'dtype', ('cpu', 'gpu', 'ipu', 'xla')))
    for device in devices)})
_LAZY.update({name: ('ember._threads', name) for name in (
    'set_num_threads', 'get_num_threads', 'set_num_interop_threads', 'get_num_interop_threads')})
_LAZY.update({name: ('ember._settings', name) for name in (
    'set_float32_matmul_precision', 'get_float32_matmul_precision', 'use_deterministic_algorithms',
    'are_deterministic_algorithms_enabled', 'is_deterministic_algorithms_warn_only_enabled',
    'set_deterministic_debug_mode', 'get_deterministic_debug_mode', 'set_anomaly_enabled',
    'is_anomaly_enabled', 'is_anomaly_check_nan_enabled', 'set_warn_always',
    'is_warn_always_enabled', 'set_flush_denormal', 'set_default_tensor_type', 'init_num_threads',
    'compiled_with_cxx11_abi', 'get_device_module', 'is_vulkan_available')})
_LAZY.update({name: ('ember._removed', name) for name in (
    'solve', 'lstsq', 'eig', 'symeig', 'matrix_rank')})
_LAZY.update({'cond': ('ember._higher_order', 'cond'),
              'while_loop': ('ember._higher_order', 'while_loop')})
_LAZY.update({name: ('ember._legacy', name) for name in (
    'FloatTensor', 'DoubleTensor', 'HalfTensor', 'LongTensor', 'IntTensor', 'ShortTensor',
    'CharTensor', 'ByteTensor', 'BoolTensor', 'ComplexFloatTensor', 'ComplexDoubleTensor',
    'BFloat16Tensor')})
_LAZY.update({name: ('ember.storage', name) for name in (
    'FloatStorage', 'DoubleStorage', 'HalfStorage', 'BFloat16Storage', 'LongStorage',
    'IntStorage', 'ShortStorage', 'CharStorage', 'ByteStorage', 'BoolStorage',
    'ComplexFloatStorage', 'ComplexDoubleStorage')})
_LAZY['Storage'] = ('ember.storage', 'FloatStorage')  # (torch's default storage type)
_LAZY.update({name: ('ember._runtime_types', name) for name in (
    'OutOfMemoryError', 'AcceleratorError', 'Stream', 'Event', 'SymInt', 'SymFloat', 'SymBool',
    'sym_fresh_size', 'sym_constrain_range', 'sym_constrain_range_for_size')})
_LAZY.update({'GradScaler': ('ember.amp', 'GradScaler'),
              'to_dlpack': ('ember.utils.dlpack', 'to_dlpack'),
              'fork': ('ember.jit', '_run_now'), 'wait': ('ember.jit', '_wait_for'),
              'DisableTorchFunction': ('ember._C', 'DisableTorchFunction'),
              'DisableTorchFunctionSubclass': ('ember._C', 'DisableTorchFunctionSubclass')})


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
