"""RAdam: Adam with the variance of its adaptive step rectified (torch.optim.RAdam)."""
from . import _functional
from .adam import beta_hyper, check_adam_options
from .optimizer import RuleOptimizer, advance_step

__all__ = ['RAdam']

_STATE = ('exp_avg', 'exp_avg_sq')


class RAdam(RuleOptimizer):
    """RAdam: Adam without a warm-up. While few steps have been seen, the running average
    of squared gradients is too noisy to divide by, so the step is ``lr`` times the
    bias-corrected ``m`` alone; once the approximated SMA length ``rho_t`` exceeds 5 the
    adaptive Adam step is used, scaled by the rectification term. ``weight_decay`` adds L2
    decay to the gradient, or with ``decoupled_weight_decay`` shrinks the weights by ``lr *
    weight_decay`` first. ``maximize`` ascends instead.

    State per parameter: ``step`` (a 0-d float tensor), ``exp_avg`` and ``exp_avg_sq``.
    ``foreach`` and ``capturable`` are accepted and change nothing (one device, one
    implementation); ``differentiable=True`` runs the step with Tensor ops under autograd.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
    >>> opt = ember.optim.RAdam([w], lr=0.1)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 0.9000, -1.1000])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_adam_options(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _hyper(self, F, group):
        return dict(beta_hyper(F, group), decoupled=group['decoupled_weight_decay'])

    def _update(self, F, group, p, hyper):
        state = self._fresh_state(p, *_STATE)
        self._run_rule(F, p, _functional.radam, _STATE,
                       step=float(advance_step(state)._data), **hyper)
