"""GradScaler: loss scaling for mixed-precision training, as torch.amp.GradScaler.

The scale lives in a float32 0-d tensor and is updated with float32 arithmetic, as in
torch, so ``get_scale()`` and ``state_dict()`` give torch's numbers step for step. On this
CPU-only build a scaler for 'cuda' (the default device) warns and disables itself, as
torch's CPU build does; ``GradScaler('cpu')`` is enabled and really scales.
"""
import collections.abc
import warnings

import numpy as np

__all__ = ['GradScaler']

_READY, _UNSCALED, _STEPPED = 0, 1, 2
_FIX = ("This may indicate your script did not use scaler.scale(loss or outputs) earlier in "
        "the iteration.")


def _fresh_state():
    return {'stage': _READY, 'found_inf': None}


class GradScaler:
    """Scales a loss before ``backward`` and unscales the gradients before the optimizer step,
    skipping steps whose gradients overflowed.

    >>> scaler = ember.amp.GradScaler('cpu')
    >>> scaler.get_scale()
    65536.0
    """

    def __init__(self, device='cuda', init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == 'cuda' and enabled:
            warnings.warn('torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  '
                          'Disabling.', stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError('The growth factor must be > 1.0.')
            if backoff_factor >= 1.0:
                raise AssertionError('The backoff factor must be < 1.0.')
            self._init_scale = init_scale
            self._scale = None  # a float32 0-d tensor, made by the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = {}

    def _check_scale(self, funcname):
        if self._scale is None:
            raise AssertionError(f'Attempted {funcname} but _scale is None.  ' + _FIX)

    def _lazy_init(self):
        from .. import full, float32
        self._scale = full((), self._init_scale, dtype=float32)
        self._growth_tracker = self._init_growth_tracker

    def _opt_state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_state())

    def scale(self, outputs):
        """``outputs`` (a tensor, or nested lists/tuples of them) times the scale."""
        from .._tensor import Tensor
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._lazy_init()
        if isinstance(outputs, Tensor):
            return outputs * self._scale

        def apply(v):
            if isinstance(v, Tensor):
                return v * self._scale
            if isinstance(v, collections.abc.Iterable):
                scaled = map(apply, v)
                return type(v)(scaled) if isinstance(v, (list, tuple)) else scaled
            raise ValueError('outputs must be a Tensor or an iterable of Tensors')
        return apply(outputs)

    def unscale_(self, optimizer):
        """Divides the gradients of ``optimizer``'s parameters by the scale, in place, and
        notes whether any is inf or NaN."""
        if not self._enabled:
            return
        self._check_scale('unscale_')
        state = self._opt_state(optimizer)
        if state['stage'] == _UNSCALED:
            raise RuntimeError('unscale_() has already been called on this optimizer since '
                               'the last update().')
        if state['stage'] == _STEPPED:
            raise RuntimeError('unscale_() is being called after step().')
        # The reciprocal in float64, rounded once to float32 (as torch computes it).
        inv = np.float32(1.0 / np.float64(self._scale._data))
        found = False
        for group in optimizer.param_groups:
            for p in group['params']:
                g = p.grad
                if g is None:
                    continue
                if g.dtype.name == 'float16':
                    raise ValueError('Attempting to unscale FP16 gradients.')
                arr = g._data
                found = found or not bool(np.isfinite(arr).all())
                arr *= inv.astype(arr.dtype) if arr.dtype.kind in 'fc' else inv
                g._vc[0] += 1
        state['found_inf'] = found
        state['stage'] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscales (unless ``unscale_`` already did) and runs ``optimizer.step`` if no
        gradient overflowed; returns what it returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if 'closure' in kwargs:
            raise RuntimeError('Closure use is not currently supported if GradScaler is '
                               'enabled.')
        self._check_scale('step')
        state = self._opt_state(optimizer)
        if state['stage'] == _STEPPED:
            raise RuntimeError('step() has already been called since the last update().')
        if state['stage'] == _READY:
            self.unscale_(optimizer)
        retval = None if state['found_inf'] else optimizer.step(*args, **kwargs)
        state['stage'] = _STEPPED
        return retval

    def update(self, new_scale=None):
        """Backs the scale off after an overflow, grows it after ``growth_interval`` clean
        steps, or sets it to ``new_scale``."""
        from .._tensor import Tensor
        if not self._enabled:
            return
        self._check_scale('update')
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale._data[...] = new_scale
            else:
                reason = ('new_scale should be a float or a 1-element torch.cuda.FloatTensor or '
                          'torch.FloatTensor with requires_grad=False.')
                if not isinstance(new_scale, Tensor) or new_scale.device.type != self._device \
                        or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                from ..autograd.grad_mode import no_grad
                with no_grad():
                    self._scale.copy_(new_scale)
        else:
            found = [s['found_inf'] for s in self._per_optimizer_states.values()
                     if s['found_inf'] is not None]
            if not found:
                raise AssertionError('No inf checks were recorded prior to update.')
            f32 = np.float32
            if any(found):
                self._scale._data[...] = self._scale._data * f32(self._backoff_factor)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale._data[...] = self._scale._data * f32(self._growth_factor)
                    self._growth_tracker = 0
        self._scale._vc[0] += 1
        self._per_optimizer_states = {}

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale._data)

    def get_growth_factor(self):
        """The factor the scale grows by."""
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        """Sets the factor the scale grows by."""
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        """The factor the scale shrinks by after an overflow."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        """Sets the factor the scale shrinks by."""
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        """How many clean steps make the scale grow."""
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        """Sets how many clean steps make the scale grow."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else \
            self._growth_tracker

    def is_enabled(self):
        """Whether this scaler scales (False after it disabled itself)."""
        return self._enabled

    def state_dict(self):
        """The scale and its schedule, as torch's keys (empty when disabled)."""
        if not self._enabled:
            return {}
        return {'scale': self.get_scale(), 'growth_factor': self._growth_factor,
                'backoff_factor': self._backoff_factor, 'growth_interval': self._growth_interval,
                '_growth_tracker': self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        """Restores a ``state_dict()``."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError('The source state dict is empty, possibly because it was saved '
                               'from a disabled instance of GradScaler.')
        self._init_scale = state_dict['scale']
        if self._scale is not None:
            self._scale._data[...] = state_dict['scale']
        self._growth_factor = state_dict['growth_factor']
        self._backoff_factor = state_dict['backoff_factor']
        self._growth_interval = state_dict['growth_interval']
        self._init_growth_tracker = state_dict['_growth_tracker']
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict['_growth_tracker']
