"""Adamax: Adam with the infinity norm (torch.optim.Adamax)."""
from . import _functional
from .adam import beta_hyper, check_adam_options
from .optimizer import RuleOptimizer, advance_step

__all__ = ['Adamax']

_STATE = ('exp_avg', 'exp_inf')


class Adamax(RuleOptimizer):
    """Adamax: Adam whose denominator is an exponentially weighted infinity norm of the
    gradients, ``u = max(beta2 * u, |g| + eps)``, instead of their root mean square; the
    step is ``lr / (1 - beta1**t) * m / u``. ``weight_decay`` adds L2 decay to the
    gradient; ``maximize`` ascends instead.

    State per parameter: ``step`` (a 0-d float tensor), ``exp_avg`` and ``exp_inf``.
    ``foreach`` and ``capturable`` are accepted and change nothing (one device, one
    implementation); ``differentiable=True`` runs the step with Tensor ops under autograd.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
    >>> opt = ember.optim.Adamax([w], lr=0.1)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 0.9000, -1.1000])
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_adam_options(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _hyper(self, F, group):
        return beta_hyper(F, group)

    def _update(self, F, group, p, hyper):
        state = self._fresh_state(p, *_STATE)
        self._run_rule(F, p, _functional.adamax, _STATE,
                       step=float(advance_step(state)._data), **hyper)
