"""SGD: stochastic gradient descent with optional momentum, Nesterov momentum, dampening and
L2 weight decay (torch.optim.SGD)."""
from . import _functional
from .optimizer import RuleOptimizer, check_fused, check_lr, check_nonnegative

__all__ = ['SGD']


class SGD(RuleOptimizer):
    """Stochastic gradient descent: ``p -= lr * d`` where ``d`` is the gradient (plus
    ``weight_decay * p``), or with ``momentum`` the buffer ``b = momentum * b + (1 -
    dampening) * d`` (``b = d`` on the first step), or with ``nesterov`` ``d + momentum *
    b``. ``maximize`` ascends instead.

    ``foreach`` and ``fused`` are accepted and change nothing: ember has one device and one
    implementation. ``differentiable=True`` runs the step with Tensor ops under autograd.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, 2.0]))
    >>> opt = ember.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([0.8000, 1.6000])
    """
    sparse_refusal = None  # (SGD adds a sparse gradient's entries)


    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_lr(lr)
        check_nonnegative(momentum, 'momentum value')
        check_nonnegative(weight_decay, 'weight_decay value')
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    def _hyper(self, F, group):
        return dict(lr=F.scalar(group['lr']), momentum=F.scalar(group['momentum']),
                    dampening=F.scalar(group['dampening']),
                    weight_decay=F.scalar(group['weight_decay']), nesterov=group['nesterov'],
                    maximize=group['maximize'])

    def _update(self, F, group, p, hyper):
        # Without momentum SGD keeps no state at all (not even an empty entry), as torch.
        with_momentum = hyper['momentum'] != 0
        buf = self.state[p].get('momentum_buffer') if with_momentum else None
        new_buf = _functional.sgd(F, F.of(p), F.of(p._grad),
                                  None if buf is None else F.of(buf), **hyper)
        F.touched(p)
        if buf is not None:
            F.touched(buf)
        elif with_momentum:
            new_buf = F.wrap(new_buf)
            if new_buf.dim() != p.dim():  # a 0-d parameter's array came as 1 element
                new_buf = new_buf.reshape(p.shape)
            self.state[p]['momentum_buffer'] = new_buf
