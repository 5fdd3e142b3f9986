"""Gradient clipping, as torch.nn.utils.clip_grad (foreach is accepted and ignored: ember
has one device and no fused multi-tensor kernels, so every path is the per-tensor loop)."""
import types
import warnings

from ..._ops.creation import tensor as _tensor
from ..._ops.shape import stack as _stack
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ['clip_grad_norm_', 'clip_grad_value_', 'get_total_norm', 'clip_grads_with_norm_']


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of all of ``tensors`` together, as if concatenated into one
    vector (computed as the norm of the per-tensor norms). A 0-d tensor; ``tensor(0.)``
    when there are none. ``error_if_nonfinite`` raises RuntimeError on a nan/inf total.
    """
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    with no_grad():
        if not tensors:
            return _tensor(0.0)
        norms = [t.norm(norm_type) for t in tensors]
        total = _stack(norms).norm(norm_type)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the grads of ``parameters`` in place by min(1, max_norm / (total_norm + 1e-6))."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        # Multiplying by a coefficient clamped to 1 (instead of branching on it) is torch's
        # choice; it also makes the grads' rounding identical to torch's when no clip occurs.
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Clips the gradients of ``parameters`` (a tensor or an iterable of them) in place so
    that their total ``norm_type`` norm is at most ``max_norm``; params whose grad is None
    are skipped. Returns the total norm before clipping, a 0-d tensor.

    >>> p = ember.nn.Parameter(ember.ones(4)); p.grad = ember.full((4,), 3.0)
    >>> ember.nn.utils.clip_grad_norm_(p, 1.0)
    tensor(6.)
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        # A generator can be walked only once and we walk it twice (norm, then scale).
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps the gradients of ``parameters`` in place to [-clip_value, clip_value]; params
    whose grad is None are skipped. Returns None."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    with no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated: ``clip_grad_norm_``."""
    import warnings
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
