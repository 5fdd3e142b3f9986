"""A whole LSTM layer (one direction) as one op: the loop over time runs on arrays, and one
node carries the gradient of every step.

Why: composed from ember ops, each time step records a dozen nodes (linear, chunk, three
sigmoids, two tanhs, products, sums), so a 35-step, 2-layer language model walks ~2,000
nodes per backward and spends its time in bookkeeping rather than arithmetic. Here the
forward is a GEMM and a few ufuncs per step, and the backward one GEMM per step (the
gradient reaching the previous hidden state) plus one large GEMM for the recurrent weight's
gradient over all steps at once.

The step's forward and backward formulas are written once over operators (``*``, ``+``,
``@``, slicing) and a small namespace of functions, so they run on NumPy arrays (the common
backward) and on ember Tensors (``create_graph``: the forward is recomputed in ember ops from
the saved inputs, and the same backward formulas on it give gradients that are themselves
differentiable). The node is named as torch names its fused CPU kernel's
(``MkldnnRnnLayerBackward0``).
"""
import numpy as np

from ..._ops import _core, pointwise as _pw, shape as _shape
from ..._ops._core import Node, make
from ...autograd.grad_mode import STATE


class _ArrayOps:
    sigmoid = staticmethod(_pw._sigmoid)
    tanh = staticmethod(np.tanh)
    stack = staticmethod(np.stack)

    @staticmethod
    def cat(parts):
        return np.concatenate(parts, -1)


class _TensorOps:
    @staticmethod
    def sigmoid(t):
        return t.sigmoid()

    @staticmethod
    def tanh(t):
        return t.tanh()

    @staticmethod
    def stack(ts):
        return _shape.stack(ts)

    @staticmethod
    def cat(parts):
        return _shape.cat(parts, -1)


def _times(n, reverse):
    return range(n - 1, -1, -1) if reverse else range(n)


def _run(x_proj, h, c, w_hh, b_hh, reverse, ops):
    """The forward over the sequence: returns the hidden states in time order, the final
    (h, c), and each step's saved values (i, f, g, o, c_prev, tanh(c), h_prev)."""
    hidden = x_proj.shape[-1] // 4
    w_t = w_hh.T
    hs = [None] * x_proj.shape[0]
    steps = []
    for t in _times(x_proj.shape[0], reverse):
        gates = x_proj[t] + h @ w_t
        if b_hh is not None:
            gates = gates + b_hh
        i = ops.sigmoid(gates[:, :hidden])
        f = ops.sigmoid(gates[:, hidden:2 * hidden])
        g = ops.tanh(gates[:, 2 * hidden:3 * hidden])
        o = ops.sigmoid(gates[:, 3 * hidden:])
        c_new = f * c + i * g
        tc = ops.tanh(c_new)
        steps.append((i, f, g, o, c, tc, h))
        h, c = o * tc, c_new
        hs[t] = h
    return hs, h, c, steps


def _backward(g_hs, g_h, g_c, steps, w_hh, reverse, ops):
    """Gradients of (x_proj, h0, c0, w_hh, b_hh) from those of (hs, h_n, c_n)."""
    n = len(steps)
    d_gates = [None] * n
    dh, dc = g_h, g_c
    for k, t in zip(range(n - 1, -1, -1), _times(n, not reverse)):
        i, f, g, o, c_prev, tc, _ = steps[k]
        gh = g_hs[t] + dh
        dc = dc + gh * o * (1 - tc * tc)
        di = dc * g * i * (1 - i)
        df = dc * c_prev * f * (1 - f)
        dg = dc * i * (1 - g * g)
        do = gh * tc * o * (1 - o)
        d = ops.cat([di, df, dg, do])
        d_gates[t] = d
        dh = d @ w_hh
        dc = dc * f
    d_x = ops.stack(d_gates)
    h_prev = ops.stack([steps[k][6] for k in range(n)] if not reverse else
                       [steps[k][6] for k in range(n - 1, -1, -1)])
    rows = d_x.shape[0] * d_x.shape[1]
    d_w = d_x.reshape(rows, d_x.shape[2]).T @ h_prev.reshape(rows, h_prev.shape[2])
    return d_x, dh, dc, d_w, d_x.sum((0, 1))


class MkldnnRnnLayerBackward0(Node):
    """Gradients of ``lstm_layer``'s (output, h_n, c_n) for (x_proj, h0, c0, w_hh, b_hh)."""

    def backward(self, g_hs, g_h, g_c):
        x_proj, h0, c0, w_hh, b_hh = self.saved_tensors
        if not STATE.enabled:   # no graph of the gradients wanted: on the forward's arrays
            r = _backward(g_hs._data, g_h._data, g_c._data, self.steps, w_hh._data,
                          self.reverse, _ArrayOps)
            grads = [make(np.asarray(a)) for a in r]
        else:                   # recompute the forward in ember ops, differentiate it
            _, _, _, steps = _run(x_proj, h0, c0, w_hh, b_hh, self.reverse, _TensorOps)
            grads = list(_backward(g_hs, g_h, g_c, steps, w_hh, self.reverse, _TensorOps))
        if b_hh is None:
            grads[4] = None
        return tuple(grads)


def lstm_layer(x_proj, h0, c0, w_hh, b_hh, reverse=False):
    """One direction of one LSTM layer over a sequence: ``x_proj`` (T, N, 4H) is the input
    already through ``linear(x, w_ih, b_ih)``, ``h0``/``c0`` (N, H) the initial state;
    returns ``(output (T, N, H), h_n, c_n)``."""
    b = None if b_hh is None else b_hh._data
    hs, h, c, steps = _run(x_proj._data, h0._data, c0._data, w_hh._data, b, reverse,
                           _ArrayOps)
    n = _core.track(MkldnnRnnLayerBackward0, (x_proj, h0, c0, w_hh, b_hh))
    outs = _core.results([np.stack(hs), h, c], n)
    if n is not None:
        n._saved = tuple((t, t._vc[0]) if t is not None else (None, 0)
                         for t in (x_proj, h0, c0, w_hh, b_hh))
        n.steps, n.reverse = steps, reverse
    return tuple(outs)
