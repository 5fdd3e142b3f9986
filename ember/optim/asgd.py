"""ASGD: averaged stochastic gradient descent (torch.optim.ASGD)."""
from . import _functional
from .optimizer import (RuleOptimizer, _to_scalar, advance_step, check_lr, check_nonnegative,
                        scalar_state, state_like, step_counter)

__all__ = ['ASGD']


class ASGD(RuleOptimizer):
    """Averaged SGD: gradient steps of size ``eta_t = lr / (1 + lambd * lr * t) ** alpha``
    on weights that also decay by ``lambd * eta_t``, while ``ax`` keeps a running average
    of the iterates, starting at step ``t0`` (``mu_t = 1 / max(1, t - t0)``; before that
    ``ax`` is the latest iterate). The parameters themselves are the SGD iterates: copy
    ``ax`` into them to use the average. ``weight_decay`` adds L2 decay to the gradient;
    ``maximize`` ascends instead.

    State per parameter: ``step``, ``eta`` and ``mu`` (0-d float tensors) and ``ax``.
    ``foreach`` and ``capturable`` are accepted and change nothing (one device, one
    implementation); ``differentiable=True`` runs the step with Tensor ops under
    autograd.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
    >>> opt = ember.optim.ASGD([w], lr=0.1)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 0.9000, -1.1000])
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonnegative(weight_decay, 'weight_decay value')
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _scalar_state = ('step', 'eta', 'mu')

    def _hyper(self, F, group):
        return dict(lambd=F.scalar(group['lambd']),
                    weight_decay=F.scalar(group['weight_decay']), maximize=group['maximize'])

    def _update(self, F, group, p, hyper):
        state = self.state[p]
        if not state:
            state['step'] = step_counter()
            state['eta'] = scalar_state(float(_to_scalar(group['lr'])))
            state['mu'] = scalar_state(1)
            state['ax'] = state_like(p)
        step = float(advance_step(state))
        eta, mu = state['eta'], state['mu']
        self._run_rule(F, p, _functional.asgd, ('ax',), eta=float(eta), mu=float(mu),
                       **hyper)
        # This step's rates are those of the next: they enter the state (in its dtype,
        # as torch stores them) after the update.
        lr, lambd = float(_to_scalar(group['lr'])), group['lambd']
        eta._data[...] = lr / ((1 + lambd * lr * step) ** group['alpha'])
        mu._data[...] = 1 / max(1, step - group['t0'])
        eta._vc[0] += 1
        mu._vc[0] += 1
