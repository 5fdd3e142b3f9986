"""ember.amp: automatic mixed precision, as ``torch.amp``.

ember computes every op in the dtype of its inputs: ``autocast`` is a context that checks its
arguments as torch does and records that it is active (``ember.is_autocast_enabled``), but
casts nothing. ``GradScaler`` really scales losses and unscales gradients, so training loops
written for mixed precision run unchanged (with the scale doing no harm in float32).
"""
from .autocast_mode import (autocast, is_autocast_available, custom_fwd,  # noqa: F401
                            custom_bwd)
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ['autocast', 'GradScaler', 'is_autocast_available', 'custom_fwd', 'custom_bwd']
