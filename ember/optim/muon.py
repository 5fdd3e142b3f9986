"""Muon: momentum steps orthogonalized by Newton-Schulz iterations, for the matrices of
hidden layers (torch.optim.Muon)."""
import math

from . import _functional
from .optimizer import RuleOptimizer, _to_scalar, state_like

__all__ = ['Muon']

# torch's defaults: the quintic's coefficients and the number of iterations
_COEFFICIENTS = (3.4445, -4.775, 2.0315)


class Muon(RuleOptimizer):
    """Muon (as torch's): the momentum of the gradients (``momentum``, with ``nesterov``
    looking one step ahead) is replaced by the nearest semi-orthogonal matrix, computed by
    ``ns_steps`` Newton-Schulz iterations with ``ns_coefficients`` in bfloat16, and the
    weights step along it by ``lr`` scaled for the matrix's shape (``adjust_lr_fn``:
    ``'original'``, the default, ``sqrt(max(1, rows / cols))``; ``'match_rms_adamw'``
    ``0.2 * sqrt(max(rows, cols))``, for AdamW's lr and weight decay), after decoupled
    weight decay by ``lr * weight_decay``. Only 2-D parameters: give biases and
    embeddings to another optimizer.

    State per parameter: ``momentum_buffer``.

    >>> w = ember.nn.Parameter(ember.eye(2) * 3)
    >>> opt = ember.optim.Muon([w], lr=0.1, weight_decay=0.0)
    >>> w.sum().backward(); opt.step(); w.detach()
    tensor([[ 2.9656, -0.0344],
            [-0.0344,  2.9656]])
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=_COEFFICIENTS, eps=1e-7, ns_steps=5, adjust_lr_fn=None):
        if hasattr(lr, 'numel') and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ('original', 'match_rms_adamw'):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group['params']:
                if p.dim() != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _hyper(self, F, group):
        return dict(lr=float(_to_scalar(group['lr'])), weight_decay=group['weight_decay'],
                    momentum=group['momentum'], nesterov=group['nesterov'],
                    coefficients=group['ns_coefficients'], steps=group['ns_steps'],
                    eps=group['eps'])

    def _update(self, F, group, p, hyper):
        if p.is_complex():
            raise RuntimeError("Muon does not support complex parameters")
        state = self.state[p]
        if 'momentum_buffer' not in state:
            state['momentum_buffer'] = state_like(p._grad)
        rows, cols = p.shape[:2]
        fn = group['adjust_lr_fn']
        if fn is None or fn == 'original':
            ratio = math.sqrt(max(1, rows / cols))
        else:  # 'match_rms_adamw'
            ratio = 0.2 * math.sqrt(max(rows, cols))
        self._run_rule(F, p, _functional.muon, ('momentum_buffer',),
                       adjusted_lr=hyper['lr'] * ratio, **hyper)
