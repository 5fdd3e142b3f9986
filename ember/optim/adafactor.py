"""Adafactor: adaptive steps with a factored second moment, memory sublinear in the size of
a matrix (torch.optim.Adafactor)."""
import numpy as np

from .._tensor import make
from . import _functional
from .optimizer import RuleOptimizer, _to_scalar, advance_step, state_like, step_counter

__all__ = ['Adafactor']


class Adafactor(RuleOptimizer):
    """Adafactor (as torch's): for a parameter of two or more dimensions the running
    mean of the squared gradient is kept as its row and column means over the last two
    dimensions (``row_var``, ``col_var``), whose outer product estimates it; a vector keeps
    it whole (``variance``). The means decay at ``1 - t ** beta2_decay``. The step
    ``g / sqrt(v)`` (``v`` at least ``eps[0] ** 2``, ``eps[0]`` by default the dtype's
    machine epsilon) is scaled down to RMS at most ``d``, then by ``min(lr, 1/sqrt(t))``
    times the parameter's RMS (at least ``eps[1]``). ``weight_decay`` shrinks the weights
    by ``lr * weight_decay`` first (decoupled); ``maximize`` ascends instead.

    State per parameter: ``step`` (a 0-d float tensor) and ``row_var``/``col_var`` or
    ``variance``. Complex parameters are refused, as torch; ``foreach`` is accepted and
    changes nothing.

    >>> w = ember.nn.Parameter(ember.tensor([3.0, -4.0]))
    >>> opt = ember.optim.Adafactor([w], lr=0.1)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 2.6464, -4.3536])
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if hasattr(lr, 'numel') and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def _hyper(self, F, group):
        eps1, eps2 = group['eps']
        return dict(lr=float(_to_scalar(group['lr'])), beta2_decay=group['beta2_decay'],
                    eps1=eps1, eps2=eps2, d=group['d'], weight_decay=group['weight_decay'],
                    maximize=group['maximize'])

    def _update(self, F, group, p, hyper):
        if p.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        state = self.state[p]
        if not state:
            state['step'] = step_counter()
            g = p._grad._data
            if g.ndim > 1:
                state['row_var'] = make(np.zeros(g.shape[:-1] + (1,), g.dtype))
                state['col_var'] = make(np.zeros(g.shape[:-2] + (1,) + g.shape[-1:], g.dtype))
            else:
                state['variance'] = state_like(p)
        step = float(advance_step(state))
        if hyper['eps1'] is None:
            hyper = dict(hyper, eps1=float(np.finfo(p._data.dtype).eps))
        tensors = [state.get(n) for n in ('row_var', 'col_var', 'variance')]
        _functional.adafactor(F, F.of(p), F.of(p._grad),
                              *[None if t is None else F.of(t) for t in tensors],
                              step=step, **hyper)
        F.touched(p, *[t for t in tensors if t is not None])
