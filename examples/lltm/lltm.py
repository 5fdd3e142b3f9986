"""The LLTM cell from PyTorch's C++ extension tutorial, for ember: forward and backward in
C++ (lltm.cpp, built on first use with ``ember.utils.cpp_extension.load``), wrapped in an
``autograd.Function``; and the same cell in plain ops, for checking and for comparison.

Run: python examples/lltm/lltm.py   (builds the extension, checks it, times both cells)
"""
import functools
import math
import os
import sys
import time

if __name__ == '__main__':  # run as a script: make the repository's ember importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))

import ember  # noqa: E402
from ember import nn  # noqa: E402
from ember.autograd import Function  # noqa: E402
from ember.autograd.function import once_differentiable  # noqa: E402
from ember.utils.cpp_extension import load  # noqa: E402

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lltm.cpp')


# -ffast-math lets GCC vectorize the forward's exp and tanh with glibc's vector math, which
# makes its elementwise loop about 2.5 times faster (float64 gradcheck still passes).
CFLAGS = ['-O3', '-ffast-math']


@functools.lru_cache(maxsize=None)
def extension(verbose=False):
    """The compiled module (built once, then loaded from the cache in milliseconds)."""
    return load('lltm_cpp', [SOURCE], extra_cflags=CFLAGS, verbose=verbose)


class LLTMFunction(Function):
    """One LLTM step with the C++ forward and backward; differentiable once."""

    @staticmethod
    def forward(ctx, input, weights, bias, old_h, old_cell):
        new_h, new_cell, *saved = extension().forward(input, weights, bias, old_h, old_cell)
        ctx.save_for_backward(*saved, weights)
        return new_h, new_cell

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_h, grad_cell):
        need_d_x = ctx.needs_input_grad[0] or ctx.needs_input_grad[3]
        d_old_h, d_input, d_weights, d_bias, d_old_cell = extension().backward(
            grad_h, grad_cell, *ctx.saved_tensors, need_d_x)
        return d_input, d_weights, d_bias, d_old_h, d_old_cell


def lltm_cell(lib, input, weights, bias, old_h, old_cell):
    """The same step in plain ops of ``lib`` (ember or torch): the tutorial's Python LLTM."""
    X = lib.cat([old_h, input], dim=1)
    gates = lib.addmm(bias, X, weights.t()).chunk(3, dim=1)
    input_gate = lib.sigmoid(gates[0])
    output_gate = lib.sigmoid(gates[1])
    candidate_cell = lib.nn.functional.elu(gates[2])
    new_cell = old_cell + candidate_cell * input_gate
    new_h = lib.tanh(new_cell) * output_gate
    return new_h, new_cell


class LLTM(nn.Module):
    """An LLTM layer: ``LLTM(input_features, state_size)(input, (h, c)) -> (h', c')``, its
    step computed by the C++ extension."""

    def __init__(self, input_features, state_size):
        super().__init__()
        self.input_features = input_features
        self.state_size = state_size
        self.weights = nn.Parameter(ember.empty(3 * state_size, input_features + state_size))
        self.bias = nn.Parameter(ember.empty(3 * state_size))
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.state_size)
        for p in self.parameters():
            nn.init.uniform_(p, -stdv, stdv)

    def forward(self, input, state):
        return LLTMFunction.apply(input, self.weights, self.bias, *state)


def _demo(batch=64, features=128, state=128, steps=200):
    ember.manual_seed(0)
    extension(verbose=True)
    layer = LLTM(features, state)
    x = ember.randn(batch, features)
    h, c = ember.randn(batch, state), ember.randn(batch, state)

    def timed(cell):
        start = time.perf_counter()
        for _ in range(steps):
            layer.zero_grad()
            new_h, new_c = cell()
            (new_h.sum() + new_c.sum()).backward()
        return (time.perf_counter() - start) / steps

    cpp = timed(lambda: layer(x, (h, c)))
    plain = timed(lambda: lltm_cell(ember, x, layer.weights, layer.bias, h, c))
    same = all(ember.allclose(a, b, atol=1e-5) for a, b in
               zip(layer(x, (h, c)), lltm_cell(ember, x, layer.weights, layer.bias, h, c)))
    print(f'batch {batch}, {features} features, state {state}: forward + backward '
          f'C++ {cpp * 1e3:.3f} ms, plain ember ops {plain * 1e3:.3f} ms; same values: {same}')


if __name__ == '__main__':
    _demo()
