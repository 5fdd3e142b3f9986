"""ember.cpu.amp: torch's deprecated CPU spellings of autocast and GradScaler (they warn,
then act as ``ember.amp.autocast('cpu', ...)``/``GradScaler('cpu', ...)``)."""
import warnings

from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler

__all__ = ['autocast', 'GradScaler']


class autocast(_autocast_mode.autocast):
    """Deprecated: ``ember.amp.autocast('cpu', ...)``."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__('cpu', dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """Deprecated: ``ember.amp.GradScaler('cpu', ...)``."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__('cpu', init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
