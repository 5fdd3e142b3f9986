"""Adam: adaptive moment estimation, with AMSGrad and decoupled weight decay as options
(torch.optim.Adam)."""
from .._tensor import Tensor
from . import _functional
from .optimizer import (RuleOptimizer, _to_scalar, advance_step, check_fused, check_lr,
                        check_nonnegative, step_counter, state_like)

__all__ = ['Adam', 'beta_hyper', 'check_adam_options']


class Adam(RuleOptimizer):
    """Adam: running averages ``m`` of the gradient and ``v`` of its square (decay rates
    ``betas``), bias-corrected, give the step ``lr * m_hat / (sqrt(v_hat) + eps)``.
    ``amsgrad`` divides by the running maximum of ``v`` instead; ``weight_decay`` adds L2
    decay to the gradient, or with ``decoupled_weight_decay`` shrinks the weights by
    ``lr * weight_decay`` first (AdamW). ``maximize`` ascends instead.

    State per parameter: ``step`` (a 0-d float tensor), ``exp_avg``, ``exp_avg_sq`` and
    with amsgrad ``max_exp_avg_sq``. ``foreach``, ``fused`` and ``capturable`` are accepted
    and change nothing but, with ``fused``, the dtype of ``step`` (float32, as torch):
    ember has one device and one implementation. ``differentiable=True`` runs the step with
    Tensor ops under autograd.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
    >>> opt = ember.optim.Adam([w], lr=0.1)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 0.9000, -1.1000])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_tensor_hyper(lr, 'lr', foreach, capturable)
        check_adam_options(lr, betas, eps, weight_decay)
        if not (all(isinstance(b, float) for b in betas[:2])
                or all(isinstance(b, Tensor) for b in betas[:2])):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                _check_tensor_hyper(betas[i], f'betas[{i}]', foreach, capturable)
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    sparse_refusal = "Adam does not support sparse gradients, please consider SparseAdam instead"

    def _hyper(self, F, group):
        return dict(beta_hyper(F, group), decoupled=group['decoupled_weight_decay'])

    def _update(self, F, group, p, hyper):
        state = self.state[p]
        if not state:
            state['step'] = step_counter(group['fused'])
            state['exp_avg'] = state_like(p)
            state['exp_avg_sq'] = state_like(p)
            if group['amsgrad']:
                state['max_exp_avg_sq'] = state_like(p)
        m, v = state['exp_avg'], state['exp_avg_sq']
        v_max = state['max_exp_avg_sq'] if group['amsgrad'] else None
        _functional.adam(F, F.of(p), F.of(p._grad), F.of(m), F.of(v),
                         None if v_max is None else F.of(v_max),
                         step=F.state_scalar(advance_step(state)), **hyper)
        F.touched(p, m, v)
        if v_max is not None:
            F.touched(v_max)


def check_adam_options(lr, betas, eps, weight_decay):
    """torch's checks of the options the Adam family shares, in its order."""
    check_lr(lr)
    check_nonnegative(eps, 'epsilon value')
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    check_nonnegative(weight_decay, 'weight_decay value')


def beta_hyper(F, group):
    """The options every Adam-like update rule takes, from a param group: ``lr``, ``beta1``,
    ``beta2``, ``eps``, ``weight_decay`` (numbers through ``F.scalar``) and ``maximize``."""
    beta1, beta2 = group['betas']
    return dict(lr=F.scalar(group['lr']), beta1=F.scalar(beta1), beta2=F.scalar(beta2),
                eps=F.scalar(group['eps']), weight_decay=F.scalar(group['weight_decay']),
                maximize=group['maximize'])


def _check_tensor_hyper(value, name, foreach, capturable):
    """torch refuses a tensor hyperparameter for its foreach path unless capturable."""
    if isinstance(value, Tensor) and foreach and not capturable:
        raise ValueError(f"{name} as a Tensor is not supported for capturable=False and "
                         "foreach=True")
