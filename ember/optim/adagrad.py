"""Adagrad: per-coordinate steps scaled by the accumulated squared gradients
(torch.optim.Adagrad)."""
from . import _functional
from .._layout import strided
from .optimizer import (RuleOptimizer, advance_step, check_fused, check_lr, check_nonnegative,
                        step_counter, state_like)

__all__ = ['Adagrad']


class Adagrad(RuleOptimizer):
    """Adagrad: ``sum += g**2`` and ``p -= clr * g / (sqrt(sum) + eps)`` with ``clr = lr /
    (1 + (step - 1) * lr_decay)``. ``sum`` starts at ``initial_accumulator_value``;
    ``weight_decay`` adds L2 decay to the gradient; ``maximize`` ascends instead.

    State per parameter (created at construction, as torch): ``step`` and ``sum``.
    ``foreach`` and ``fused`` are accepted and change nothing but, with ``fused``, the
    dtype of ``step`` (float32): ember has one device and one implementation.
    ``differentiable=True`` runs the step with Tensor ops under autograd.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
    >>> opt = ember.optim.Adagrad([w], lr=0.5)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 0.5000, -1.5000])
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_lr(lr)
        check_nonnegative(lr_decay, 'lr_decay value')
        check_nonnegative(weight_decay, 'weight_decay value')
        check_nonnegative(initial_accumulator_value, 'initial_accumulator_value value')
        check_nonnegative(eps, 'epsilon value')
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)
        for group in self.param_groups:
            for p in group['params']:
                self._init_state(group, p)

    def _init_state(self, group, p):
        state = self.state[p]
        state['step'] = step_counter(group['fused'])
        init = self.defaults['initial_accumulator_value']
        state['sum'] = state_like(p, complex(init, init) if p.is_complex() else init)
        return state

    sparse_refusal = None  # (a sparse gradient updates the entries it has, as a dense one)

    def _hyper(self, F, group):
        return dict(lr=F.scalar(group['lr']), lr_decay=F.scalar(group['lr_decay']),
                    eps=F.scalar(group['eps']), weight_decay=F.scalar(group['weight_decay']),
                    maximize=group['maximize'])

    def _update(self, F, group, p, hyper):
        # Parameters added with add_param_group get their state on first use.
        state = self.state[p] or self._init_state(group, p)
        total = state['sum']
        # Adagrad's decayed lr uses the count as a Python float even when differentiable.
        grad = p._grad
        if grad.layout is not strided:
            if group['weight_decay'] != 0:
                raise RuntimeError("weight_decay option is not compatible with sparse "
                                   "gradients")
            grad = grad.to_dense()  # (zero off its entries: it moves nothing else)
        _functional.adagrad(F, F.of(p), F.of(grad), F.of(total),
                            step=float(advance_step(state)._data), **hyper)
        F.touched(p, total)
