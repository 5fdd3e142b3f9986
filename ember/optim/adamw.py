"""AdamW: Adam with decoupled weight decay (torch.optim.AdamW)."""
from .adam import Adam

__all__ = ['AdamW']


class AdamW(Adam):
    """Adam whose weight decay shrinks the weights (``p *= 1 - lr * weight_decay``) instead
    of adding to the gradient; ``weight_decay`` defaults to 1e-2. Options and state as
    :class:`Adam`.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
    >>> opt = ember.optim.AdamW([w], lr=0.1, weight_decay=0.5)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([ 0.8500, -1.0500])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        # An Adam state_dict loaded into AdamW still decays the AdamW way.
        for group in self.param_groups:
            group['decoupled_weight_decay'] = True
