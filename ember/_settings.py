"""Global switches scripts set at the top: float32 matmul precision, deterministic
algorithms, anomaly detection, warn-always, denormal flushing, the legacy default tensor
type. ember records them as torch does and answers with them; its NumPy kernels are always
deterministic and always compute float32 matmuls in float32, so neither changes a result."""
import warnings

__all__ = ['set_float32_matmul_precision', 'get_float32_matmul_precision',
           'use_deterministic_algorithms', 'are_deterministic_algorithms_enabled',
           'is_deterministic_algorithms_warn_only_enabled', 'set_deterministic_debug_mode',
           'get_deterministic_debug_mode', 'set_anomaly_enabled', 'is_anomaly_enabled',
           'is_anomaly_check_nan_enabled', 'set_warn_always', 'is_warn_always_enabled',
           'set_flush_denormal', 'set_default_tensor_type', 'init_num_threads',
           'compiled_with_cxx11_abi', 'get_device_module', 'is_vulkan_available']

_STATE = {'precision': 'highest', 'deterministic': False, 'warn_only': False,
          'warn_always': False}
_MODES = ('default', 'warn', 'error')


def set_float32_matmul_precision(precision):
    """Records 'highest', 'high' or 'medium' (any other string warns and is ignored).

    >>> ember.set_float32_matmul_precision('high'); ember.get_float32_matmul_precision()
    'high'
    >>> ember.set_float32_matmul_precision('highest')
    """
    if not isinstance(precision, str):
        raise RuntimeError(f'set_float32_matmul_precision expects a str, but got '
                           f'{type(precision).__name__}')
    if precision not in ('highest', 'high', 'medium'):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      'setFloat32MatmulPrecision call has no effect.', stacklevel=2)
        return
    _STATE['precision'] = precision


def get_float32_matmul_precision():
    """The last precision set ('highest' by default)."""
    return _STATE['precision']


def _check_bool(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument '{name}'"
                        f"{' (position 1)' if name == 'mode' else ''} must be bool, not "
                        f'{type(value).__name__}')


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records the switch (ember's ops are deterministic either way).

    >>> ember.use_deterministic_algorithms(True); ember.are_deterministic_algorithms_enabled()
    True
    >>> ember.use_deterministic_algorithms(False)
    """
    _check_bool(mode, 'mode')
    _check_bool(warn_only, 'warn_only')
    _STATE['deterministic'], _STATE['warn_only'] = mode, warn_only


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return _STATE['deterministic']


def is_deterministic_algorithms_warn_only_enabled():
    """Whether it was set with ``warn_only=True``."""
    return _STATE['warn_only']


def set_deterministic_debug_mode(debug_mode):
    """The same switch by level: 'default'/0 off, 'warn'/1 warn only, 'error'/2 on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError('invalid value of debug_mode, expected one of `default`, `warn`, '
                               f'`error`, but got {debug_mode}')
        debug_mode = _MODES.index(debug_mode)
    elif not isinstance(debug_mode, int):
        raise TypeError(f'debug_mode must be str or int, but got {type(debug_mode)}')
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f'invalid value of debug_mode, expected 0, 1, or 2, but got '
                           f'{debug_mode}')
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0, 1 or 2, as ``set_deterministic_debug_mode`` takes it."""
    if not _STATE['deterministic']:
        return 0
    return 1 if _STATE['warn_only'] else 2


def _check_type(value, kind, op, name, position=1):
    if not isinstance(value, kind):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be "
                        f"{kind.__name__}, not {type(value).__name__}")


def set_anomaly_enabled(enabled, check_nan=True):
    """Turns anomaly detection on or off for good (``autograd.set_detect_anomaly`` without
    the context)."""
    _check_type(enabled, bool, 'set_anomaly_enabled', 'enabled')
    _check_type(check_nan, bool, 'set_anomaly_enabled', 'check_nan', 2)
    from .autograd.anomaly_mode import ANOMALY
    ANOMALY.enabled, ANOMALY.check_nan = enabled, check_nan


def is_anomaly_enabled():
    """True while anomaly detection is on."""
    from .autograd.anomaly_mode import ANOMALY
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled():
    """True if anomaly detection also checks backward results for NaN."""
    from .autograd.anomaly_mode import ANOMALY
    return ANOMALY.check_nan


def set_warn_always(b):
    """Records torch's switch that makes its warn-once warnings warn every time (ember's
    warnings go through Python's ``warnings``, whose filters decide)."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _STATE['warn_always'] = b


def is_warn_always_enabled():
    """Whether ``set_warn_always(True)`` is in force."""
    return _STATE['warn_always']


def set_flush_denormal(mode):
    """Whether denormal floats could be flushed to zero: False, as NumPy gives no such
    switch (torch answers True on x86 CPUs and flushes)."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False


def set_default_tensor_type(t):
    """Deprecated: sets the default dtype from a floating legacy type
    (``ember.DoubleTensor`` or ``'torch.DoubleTensor'``)."""
    from . import _dtype, _legacy
    if not _STATE.get('warned_tensor_type'):  # (once per process, as torch)
        _STATE['warned_tensor_type'] = True
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                      "use torch.set_default_dtype() and torch.set_default_device() as "
                      "alternatives.", UserWarning, stacklevel=2)
    if isinstance(t, str):
        module, _, name = t.rpartition('.')
        kind = getattr(_legacy, name, None)
        if module != 'torch' or not isinstance(kind, _legacy.tensortype):
            raise AttributeError(f"module '{module}' has no attribute '{name}'")
        if kind.dtype.category != _dtype.FLOAT:
            raise TypeError("only floating-point types are supported as the default type")
        t = kind
    if not isinstance(t, _legacy.tensortype) or t.dtype is None:
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if t.dtype.category != _dtype.FLOAT:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(t.dtype)


def init_num_threads():
    """Nothing to do: NumPy's thread pools start themselves."""


def compiled_with_cxx11_abi():
    """True, as torch answers for its own builds (ember's C++ extensions build with the
    compiler's default ABI)."""
    return True


def get_device_module(device=None):
    """The module of a device type (``ember.cpu``, ``ember.cuda`` ...); the default device's
    without an argument."""
    import importlib
    from ._device import device as device_type, get_default_device
    if device is not None and not isinstance(device, (str, device_type)):
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or "
                           "None")
    kind = get_default_device().type if device is None else device_type(device).type
    try:
        return importlib.import_module(f'ember.{kind}')
    except ImportError:
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered "
                           f"as 'torch.{kind}'.") from None


def is_vulkan_available():
    """False: ember has no Vulkan backend."""
    return False
