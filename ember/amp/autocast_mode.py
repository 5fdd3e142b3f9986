"""autocast: torch's mixed-precision context, checked as torch checks it, casting nothing.

ember has no lower-precision kernels to dispatch to, so inside ``autocast('cpu',
dtype=ember.float16)`` a matmul still returns float32 (torch's CPU build returns bfloat16 or
float16 there). What carries over is the bookkeeping code relies on: the argument checks
and warnings, ``is_autocast_enabled``/``get_autocast_dtype`` answering inside the context,
and use as a decorator.
"""
import functools
import warnings

__all__ = ['autocast', 'is_autocast_available', 'is_autocast_enabled', 'get_autocast_dtype',
           'custom_fwd', 'custom_bwd']

# The device types torch's parser knows, in the order its error message lists them.
DEVICE_TYPES = ('cpu', 'cuda', 'ipu', 'xpu', 'mkldnn', 'opengl', 'opencl', 'ideep', 'hip', 've',
                'fpga', 'maia', 'xla', 'lazy', 'vulkan', 'mps', 'meta', 'hpu', 'mtia',
                'privateuseone')
# Device types torch can autocast on (the others answer False to is_autocast_available).
_AUTOCAST_TYPES = ('cpu', 'cuda', 'xpu', 'mps', 'hpu', 'mtia', 'xla', 'ipu', 'privateuseone')

# device type -> [enabled, dtype]; the dtype defaults are torch's (bfloat16 on the CPU).
_STATE = {}


def _device_type(device_type):
    """The device type of a string such as 'cuda:0', with torch's error for unknown ones."""
    name = device_type.split(':', 1)[0]
    if name not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of "
                           f"device string: {device_type}")
    return name


def _default_dtype(device_type):
    from .. import _dtype
    low = getattr(_dtype, 'bfloat16', None) if device_type == 'cpu' else None
    return low if low is not None else _dtype.float16


def _state(device_type):
    s = _STATE.get(device_type)
    if s is None:
        s = _STATE[device_type] = [False, _default_dtype(device_type)]
    return s


def is_autocast_available(device_type):
    """Whether autocast can run on ``device_type`` (as torch answers: True for 'cpu' and
    'cuda' even without a GPU)."""
    return _device_type(device_type) in _AUTOCAST_TYPES


def is_autocast_enabled(device_type=None):
    """Whether an ``autocast`` context is active for ``device_type`` (without it: for CUDA,
    as torch's no-argument form answers)."""
    return _state(_device_type('cuda' if device_type is None else device_type))[0]


def get_autocast_dtype(device_type):
    """The dtype ``autocast`` would cast to on ``device_type`` (ember casts nothing)."""
    return _state(_device_type(device_type))[1]


def _supported_dtypes():
    from .. import _dtype
    return tuple(d for d in (getattr(_dtype, 'bfloat16', None), _dtype.float16) if d is not None)


class autocast:
    """``with ember.autocast('cpu', dtype=ember.bfloat16):`` or ``@ember.autocast('cpu')``.

    Checks ``device_type`` and ``dtype`` as torch does (an unsupported CPU dtype or a CUDA
    request on this CPU-only build warns and disables it), then runs the code unchanged:
    ember never lowers precision, so results keep their inputs' dtypes.

    >>> with ember.autocast('cpu'):
    ...     ember.is_autocast_enabled('cpu')
    True
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _device_type(device_type)
        self.fast_dtype = _state(self.device)[1] if dtype is None else dtype
        self._enabled = enabled
        # torch tests the string as given: 'cuda:0' skips the availability check
        if device_type == 'cuda' and self._enabled:
            warnings.warn('CUDA is not available or torch_xla is imported. Disabling autocast.',
                          stacklevel=2)
            self._enabled = False
        elif device_type == 'cpu' and self._enabled and \
                self.fast_dtype not in _supported_dtypes():
            warnings.warn('In CPU autocast, but the target dtype is not supported. Disabling '
                          'autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, '
                          'torch.float16 currently.', stacklevel=2)
            self._enabled = False

    def __enter__(self):
        if not isinstance(self._enabled, bool):
            raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 2) must be "
                            f"bool, not {type(self._enabled).__name__}")
        s = _state(self.device)
        self._prev = tuple(s)
        s[0], s[1] = self._enabled, self.fast_dtype
        return self

    def __exit__(self, *exc):
        _STATE[self.device][:] = self._prev
        return False

    def __call__(self, func):
        """Decorates ``func`` to run inside this context."""
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom Function's ``forward`` (as torch.amp.custom_fwd); ember has no
    casting to undo, so it runs ``forward`` as written."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom Function's ``backward`` (as torch.amp.custom_bwd); runs it as
    written."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd
