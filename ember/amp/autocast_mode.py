"""autocast: torch's mixed-precision context, checked as torch checks it.

Inside ``autocast('cpu', dtype=ember.bfloat16)`` (or float16) the ops on torch's CPU lists
cast their floating arguments: matmuls, linear and convolutions to the autocast dtype, the
losses, linear algebra and FFTs to float32, cat/stack to the widest input (the per-op work
lives in ``ember._autocast``). The settings are per thread, as in torch; 'cuda' and the other
device types are bookkeeping only on this CPU build (no ember tensor lives there).
"""
import functools
import warnings

from .. import _autocast

__all__ = ['autocast', 'is_autocast_available', 'is_autocast_enabled', 'get_autocast_dtype',
           'custom_fwd', 'custom_bwd', 'set_autocast_enabled', 'set_autocast_dtype',
           'is_autocast_cache_enabled', 'set_autocast_cache_enabled', 'clear_autocast_cache',
           'autocast_increment_nesting', 'autocast_decrement_nesting']

# Device types torch can autocast on (the others answer False to is_autocast_available).
_AUTOCAST_TYPES = ('cpu', 'cuda', 'xpu', 'mps', 'hpu', 'mtia', 'xla', 'ipu', 'privateuseone')



def _device_type(device_type):
    """The device type of a string such as 'cuda:0', with torch's errors for bad ones."""
    from .._device import device
    return device(device_type).type


def _default_dtype(device_type):
    from .. import _dtype
    # (torch's defaults: bfloat16 where the hardware is built around it)
    low = getattr(_dtype, 'bfloat16', None) if device_type in ('cpu', 'xla', 'hpu') else None
    return low if low is not None else _dtype.float16


def _state(device_type):
    """This thread's [enabled, dtype] for ``device_type`` (the dtype defaults are torch's:
    bfloat16 on the CPU, XLA and HPU, float16 elsewhere)."""
    devices = _autocast.state.devices
    s = devices.get(device_type)
    if s is None:
        s = devices[device_type] = [False, _default_dtype(device_type)]
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
    """The dtype ``autocast`` casts to on ``device_type``."""
    return _state(_device_type(device_type))[1]


def set_autocast_enabled(device_type, enabled=None):
    """Turns autocast on ``device_type`` on or off for this thread (what the context does);
    ``set_autocast_enabled(enabled)`` is torch's older form, for CUDA."""
    if enabled is None:
        device_type, enabled = 'cuda', device_type
    if not isinstance(enabled, bool):
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 2) must be "
                        f"bool, not {type(enabled).__name__}")
    _state(_device_type(device_type))[0] = enabled
    _autocast.sync_gate()


def set_autocast_dtype(device_type, dtype):
    """Sets the dtype autocast on ``device_type`` casts to, for this thread."""
    _state(_device_type(device_type))[1] = dtype
    _autocast.sync_gate()


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def _old_spelling(kind, device, old_device):
    """torch's deprecated per-device spelling of a query or setter (``is_autocast_cpu_enabled``,
    ``set_autocast_xla_dtype`` ...): the general function for ``device``, which warns."""
    if kind == 'is':
        name = f'is_autocast_{old_device}_enabled'

        def fn():
            _deprecated(name + '()', f"is_autocast_enabled('{device}')")
            return is_autocast_enabled(device)
    elif kind == 'get':
        name = f'get_autocast_{old_device}_dtype'

        def fn():
            _deprecated(name + '()', f"get_autocast_dtype('{device}')")
            return get_autocast_dtype(device)
    elif kind == 'set_enabled':
        name = f'set_autocast_{old_device}_enabled'

        def fn(enabled):
            if not isinstance(enabled, bool):
                raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
            _deprecated(name + '(enabled)', f"set_autocast_enabled('{device}', enabled)")
            set_autocast_enabled(device, enabled)
    else:
        name = f'set_autocast_{old_device}_dtype'

        def fn(dtype):
            from .._dtype import dtype as dtype_type
            if not isinstance(dtype, dtype_type):
                raise TypeError(f"dtype must be a torch.dtype (got {type(dtype).__name__})")
            _deprecated(name + '(dtype)', f"set_autocast_dtype('{device}', dtype)")
            set_autocast_dtype(device, dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch's deprecated spelling of the autocast {kind.replace('_', ' ')} " \
                 f"for '{device}' (it warns)."
    return name, fn


# (the old spellings torch keeps, each warning: 'gpu' is CUDA)
_OLD_SPELLINGS = dict(
    _old_spelling(kind, 'cuda' if old == 'gpu' else old, old)
    for kind, olds in (('is', ('cpu', 'ipu', 'xla')), ('get', ('cpu', 'gpu', 'ipu', 'xla')),
                       ('set_enabled', ('cpu', 'ipu', 'xla')),
                       ('set_dtype', ('cpu', 'gpu', 'ipu', 'xla')))
    for old in olds)
globals().update(_OLD_SPELLINGS)
__all__ += list(_OLD_SPELLINGS)


def is_autocast_cache_enabled():
    """Whether casts of float32 leaves are kept for the rest of the outermost region."""
    return _autocast.state.cache_enabled


def set_autocast_cache_enabled(enabled):
    """Turns the cast cache on or off for this thread."""
    _autocast.state.cache_enabled = enabled


def clear_autocast_cache():
    """Drops the cached casts (the outermost ``autocast`` does this on exit)."""
    _autocast.state.cache.clear()


def autocast_increment_nesting():
    """One more ``autocast`` region open on this thread; returns the new depth."""
    _autocast.state.nesting += 1
    return _autocast.state.nesting


def autocast_decrement_nesting():
    """One ``autocast`` region fewer; returns the new depth."""
    _autocast.state.nesting -= 1
    return _autocast.state.nesting


def _supported_dtypes():
    from .. import _dtype
    return tuple(d for d in (getattr(_dtype, 'bfloat16', None), _dtype.float16) if d is not None)


class autocast:
    """``with ember.autocast('cpu', dtype=ember.bfloat16):`` or ``@ember.autocast('cpu')``.

    Checks ``device_type`` and ``dtype`` as torch does (an unsupported CPU dtype or a CUDA
    request on this CPU-only build warns and disables it); on the CPU the listed ops then
    cast their floating arguments (``ember._autocast``).

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
        self._cache_enabled = _autocast.state.cache_enabled if cache_enabled is None \
            else cache_enabled
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
        st = _autocast.state
        self._prev = (tuple(s), st.cache_enabled)
        s[0], s[1] = self._enabled, self.fast_dtype
        st.cache_enabled = self._cache_enabled
        st.nesting += 1
        _autocast.sync_gate()
        return self

    def __exit__(self, *exc):
        st = _autocast.state
        _state(self.device)[:], st.cache_enabled = self._prev
        st.nesting -= 1
        if st.nesting == 0:
            st.cache.clear()
        _autocast.sync_gate()
        return False

    def __call__(self, func):
        """Decorates ``func`` to run inside this context."""
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper


def _cast_inputs(value, dtype):
    """``value`` with its floating tensors (not float64 ones) cast to ``dtype``, through
    lists, tuples and dicts (torch's ``custom_fwd(cast_inputs=...)``)."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        return value.to(dtype) if value.is_floating_point() and \
            value.dtype.name != 'float64' else value
    if isinstance(value, dict):
        return {_cast_inputs(k, dtype): _cast_inputs(v, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_inputs(v, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom Function's ``forward`` (as torch.amp.custom_fwd): it records
    whether autocast was on (so ``custom_bwd`` runs backward the same way); with
    ``cast_inputs=dtype`` inside an autocast region, it casts the floating inputs to
    ``dtype`` and runs ``forward`` with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast_inputs(args, cast_inputs), **_cast_inputs(kwargs, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom Function's ``backward`` (as torch.amp.custom_bwd): runs it
    with the autocast state its ``custom_fwd`` forward ran with."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                      dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
