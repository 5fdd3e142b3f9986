"""ember.amp: automatic mixed precision, as ``torch.amp``.

``autocast('cpu', dtype=...)`` casts the arguments of the ops on torch's CPU autocast lists
(matmuls, linear, convolutions to bfloat16 or float16; losses, linear algebra, FFTs to
float32; cat/stack to the widest input). ``GradScaler`` really scales losses and unscales
gradients, so training loops written for mixed precision run unchanged.
"""
from .autocast_mode import (autocast, is_autocast_available, custom_fwd,  # noqa: F401
                            custom_bwd)
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ['autocast', 'GradScaler', 'is_autocast_available', 'custom_fwd', 'custom_bwd']
