"""Adadelta: steps scaled by running RMS of past steps over that of the gradients
(torch.optim.Adadelta)."""
from . import _functional
from .optimizer import RuleOptimizer, advance_step, check_lr, check_nonnegative

__all__ = ['Adadelta']

_STATE = ('square_avg', 'acc_delta')


class Adadelta(RuleOptimizer):
    """Adadelta: ``v = rho * v + (1 - rho) * g**2``, the step ``delta = sqrt(u + eps) /
    sqrt(v + eps) * g`` with ``u`` the same running average of past ``delta**2``, and ``p
    -= lr * delta`` (``lr`` 1.0 by default: the ratio already carries the units of ``p``).
    ``weight_decay`` adds L2 decay to the gradient; ``maximize`` ascends instead.

    State per parameter: ``step`` (a 0-d float tensor, counted though the rule does not use
    it), ``square_avg`` and ``acc_delta``. ``foreach`` and ``capturable`` are accepted and
    change nothing (one device, one implementation); ``differentiable=True`` runs the step
    with Tensor ops under autograd.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
    >>> opt = ember.optim.Adadelta([w], lr=1.0, rho=0.0, eps=1e-4)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 0.9900, -1.0100])
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative(eps, 'epsilon value')
        check_nonnegative(weight_decay, 'weight_decay value')
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _hyper(self, F, group):
        return dict(lr=F.scalar(group['lr']), rho=F.scalar(group['rho']),
                    eps=F.scalar(group['eps']), weight_decay=F.scalar(group['weight_decay']),
                    maximize=group['maximize'])

    def _update(self, F, group, p, hyper):
        advance_step(self._fresh_state(p, *_STATE))
        self._run_rule(F, p, _functional.adadelta, _STATE, **hyper)
