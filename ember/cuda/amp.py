"""ember.cuda.amp: torch's deprecated CUDA spellings of autocast and GradScaler.

Both warn as torch 2.13 does (a FutureWarning pointing at ``ember.amp``), then behave as
``ember.amp.autocast('cuda', ...)``/``GradScaler('cuda', ...)``: on this CPU-only build they
warn again and disable themselves.
"""
import functools
import warnings

from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler

__all__ = ['autocast', 'GradScaler', 'custom_fwd', 'custom_bwd']


class autocast(_autocast_mode.autocast):
    """Deprecated: ``ember.amp.autocast('cuda', ...)`` (which disables itself without CUDA)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        from .. import float16
        super().__init__('cuda', dtype=float16 if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """Deprecated: ``ember.amp.GradScaler('cuda', ...)`` (disabled without CUDA)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__('cuda', init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated spelling of ``ember.amp.custom_fwd(device_type='cuda')``."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    if fwd is None:
        return functools.partial(_autocast_mode.custom_fwd, device_type='cuda',
                                 cast_inputs=cast_inputs)
    return _autocast_mode.custom_fwd(fwd, device_type='cuda', cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated spelling of ``ember.amp.custom_bwd(device_type='cuda')``."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return _autocast_mode.custom_bwd(bwd, device_type='cuda')
