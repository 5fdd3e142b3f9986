"""Rprop: resilient backpropagation, per-entry step sizes driven by gradient signs
(torch.optim.Rprop)."""
from . import _functional
from .optimizer import RuleOptimizer, _to_scalar, advance_step, check_lr, state_like, step_counter

__all__ = ['Rprop']


class Rprop(RuleOptimizer):
    """Rprop: every entry has its own step size (``lr`` at first) that grows by
    ``etas[1]`` while its gradient keeps its sign and shrinks by ``etas[0]`` when the sign
    flips, within ``step_sizes = (min, max)``; the entry moves by its step size against
    the gradient's sign (only the sign: full-batch training is what it is made for), and
    waits one step after a flip. ``maximize`` ascends instead.

    State per parameter: ``step`` (a 0-d float tensor), ``prev`` (the last gradient
    used) and ``step_size``. ``foreach`` and ``capturable`` are accepted and change nothing
    (one device, one implementation); ``differentiable=True`` runs the step with Tensor
    ops under autograd.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
    >>> opt = ember.optim.Rprop([w], lr=0.1)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 0.9000, -1.1000])
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _hyper(self, F, group):
        (etaminus, etaplus), (lo, hi) = group['etas'], group['step_sizes']
        return dict(etaminus=etaminus, etaplus=etaplus, step_size_min=lo, step_size_max=hi,
                    maximize=group['maximize'])

    def _update(self, F, group, p, hyper):
        state = self.state[p]
        if not state:
            state['step'] = step_counter()
            state['prev'] = state_like(p)
            lr = float(_to_scalar(group['lr']))
            # a complex entry is two real ones, each with its step size
            state['step_size'] = state_like(p, complex(lr, lr) if p.is_complex() else lr)
        advance_step(state)
        self._run_rule(F, p, _functional.rprop, ('prev', 'step_size'), **hyper)
