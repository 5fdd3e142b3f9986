"""SparseAdam: Adam's update for sparse gradients (``nn.Embedding(sparse=True)``), applied
only at the entries the gradient has -- moments and parameter alike."""
import math

import numpy as np

from .._layout import STORAGE as _STORAGE
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, _closure, check_nonnegative, state_like


class SparseAdam(Optimizer):
    """Adam for sparse gradients: each step decays the running moments and moves the
    parameter at the gradient's entries only (lazy Adam); a dense gradient is refused."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        check_nonnegative(lr, 'learning rate')
        check_nonnegative(eps, 'epsilon value')
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse = [[i, j] for i, group in enumerate(self.param_groups)
                  for j, p in enumerate(group['params']) if type(p._data) in _STORAGE]
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense "
                             f"parameter tensors")

    def step(self, closure=None):
        """One update of every parameter that has a (sparse) ``.grad``; returns the
        closure's loss (or None)."""
        loss = _closure(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group['params']:
                    if p._grad is not None:
                        if type(p._grad._data) not in _STORAGE:
                            raise RuntimeError("SparseAdam does not support dense gradients, "
                                               "please consider Adam instead")
                        self._update(group, p)
        return loss

    def _update(self, group, p):
        state = self.state[p]
        if not state:
            state['step'] = 0
            state['exp_avg'] = state_like(p)
            state['exp_avg_sq'] = state_like(p)
        state['step'] += 1
        grad = p._grad._data.coalesce()
        if not grad.nnz:
            return
        where = tuple(grad.indices)
        values = -grad.values if group['maximize'] else grad.values
        beta1, beta2 = group['betas']
        m, v = state['exp_avg'], state['exp_avg_sq']
        # (old <- b * old + (1 - b) * new, at the entries, written as old += (1 - b)(new - old))
        m_old, v_old = m._data[where], v._data[where]
        m_new = m_old + (values - m_old) * (1 - beta1)
        v_new = v_old + (values * values - v_old) * (1 - beta2)
        m._data[where] = m_new
        v._data[where] = v_new
        step = state['step']
        step_size = group['lr'] * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        update = -step_size * (m_new / (np.sqrt(v_new) + group['eps']))
        np.add.at(p._data, where, update.astype(p._data.dtype))
        for t in (p, m, v):
            t._vc[0] += 1
