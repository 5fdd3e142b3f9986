"""NAdam: Adam with Nesterov momentum (torch.optim.NAdam)."""
from . import _functional
from .adam import beta_hyper, check_adam_options
from .optimizer import RuleOptimizer, advance_step, check_nonnegative

__all__ = ['NAdam']

_STATE = ('exp_avg', 'exp_avg_sq', 'mu_product')


class NAdam(RuleOptimizer):
    """NAdam: Adam whose step looks one momentum step ahead -- it mixes the bias-corrected
    running average ``m`` with the current gradient, weighted by a momentum coefficient
    ``mu_t = beta1 * (1 - 0.96 ** (t * momentum_decay) / 2)`` that warms up over the
    steps. ``weight_decay`` adds L2 decay to the gradient, or with
    ``decoupled_weight_decay`` shrinks the weights by ``lr * weight_decay`` first (NAdamW).
    ``maximize`` ascends instead.

    State per parameter: ``step`` and ``mu_product`` (the product of the ``mu_t`` so far),
    both 0-d float tensors, ``exp_avg`` and ``exp_avg_sq``. ``foreach`` and ``capturable``
    are accepted and change nothing (one device, one implementation);
    ``differentiable=True`` runs the step with Tensor ops under autograd.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
    >>> opt = ember.optim.NAdam([w], lr=0.1)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 0.8944, -1.1056])
    """

    _scalar_state = ('step', 'mu_product')

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_adam_options(lr, betas, eps, weight_decay)
        check_nonnegative(momentum_decay, 'momentum_decay value')
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _hyper(self, F, group):
        return dict(beta_hyper(F, group), momentum_decay=F.scalar(group['momentum_decay']),
                    decoupled=group['decoupled_weight_decay'])

    def _update(self, F, group, p, hyper):
        state = self._fresh_state(p, 'exp_avg', 'exp_avg_sq', mu_product=1)
        # NAdam's momentum schedule uses the count as a Python float even when
        # differentiable (as torch).
        self._run_rule(F, p, _functional.nadam, _STATE,
                       step=float(advance_step(state)._data), **hyper)
