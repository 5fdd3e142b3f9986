"""RMSprop: gradient steps scaled by a running RMS of the gradient (torch.optim.RMSprop)."""
from . import _functional
from .optimizer import (RuleOptimizer, advance_step, check_lr, check_nonnegative, step_counter,
                        state_like)

__all__ = ['RMSprop']


class RMSprop(RuleOptimizer):
    """RMSprop: ``v = alpha * v + (1 - alpha) * g**2`` and ``p -= lr * g / (sqrt(v) +
    eps)``. ``centered`` subtracts the square of the running mean gradient from ``v``
    first; ``momentum`` accumulates ``g / (sqrt(v) + eps)`` in a buffer and steps by it;
    ``weight_decay`` adds L2 decay to the gradient; ``maximize`` ascends instead.

    State per parameter: ``step``, ``square_avg``, and ``momentum_buffer`` / ``grad_avg``
    when momentum / centered are on. ``foreach`` and ``capturable`` are accepted and change
    nothing (one device, one implementation); ``differentiable=True`` runs the step with
    Tensor ops under autograd.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
    >>> opt = ember.optim.RMSprop([w], lr=0.01, alpha=0.75)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 0.9800, -1.0200])
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_lr(lr)
        check_nonnegative(eps, 'epsilon value')
        check_nonnegative(momentum, 'momentum value')
        check_nonnegative(weight_decay, 'weight_decay value')
        check_nonnegative(alpha, 'alpha value')
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _hyper(self, F, group):
        return dict(lr=F.scalar(group['lr']), alpha=F.scalar(group['alpha']),
                    eps=F.scalar(group['eps']), weight_decay=F.scalar(group['weight_decay']),
                    momentum=F.scalar(group['momentum']), maximize=group['maximize'])

    def _update(self, F, group, p, hyper):
        with_momentum, centered = hyper['momentum'] > 0, group['centered']
        state = self.state[p]
        if not state:
            state['step'] = step_counter()
            state['square_avg'] = state_like(p)
            if with_momentum:
                state['momentum_buffer'] = state_like(p)
            if centered:
                state['grad_avg'] = state_like(p)
        advance_step(state)
        v = state['square_avg']
        buf = state['momentum_buffer'] if with_momentum else None
        g_avg = state['grad_avg'] if centered else None
        _functional.rmsprop(F, F.of(p), F.of(p._grad), F.of(v),
                            None if g_avg is None else F.of(g_avg),
                            None if buf is None else F.of(buf), **hyper)
        F.touched(p, v, *[t for t in (buf, g_avg) if t is not None])
