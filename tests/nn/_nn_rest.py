"""Helpers shared by the adaptations of the rest of PyTorch's test/test_nn.py (the
tests/nn/test_nn_upstream_rest*.py files).

Each adapted test takes ``lib`` (ember or real torch 2.13, from ``lib_fixture`` of the
autograd adaptations) and runs on both. Upstream draws its inputs from torch's generator;
here they come from NumPy's, so the two libraries see the same numbers, and where upstream
compares with hard-coded numbers the test compares ember's result with torch's (``oracle``).
"""
import numpy as np

from ..autograd._upstream import eq, lib_fixture, oracle, raises
from ..oracle.oracle import torch  # (importing it runs torch on one thread)

__all__ = ['eq', 'lib_fixture', 'oracle', 'raises', 'torch', 'randn', 'rand', 'cos_params',
           'same_params', 'check_module_empty_input']


def randn(lib, *shape, seed=0, dtype=None, requires_grad=False):
    """A tensor of standard normal numbers from NumPy's generator (float32 unless ``dtype``
    names another of ``lib``'s dtypes)."""
    data = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    t = lib.tensor(data)
    if dtype is not None:
        t = t.to(getattr(lib, dtype))
    return t.requires_grad_(requires_grad)


def rand(lib, *shape, seed=0, dtype=None, requires_grad=False):
    """As ``randn``, uniform on [0, 1)."""
    data = np.random.default_rng(seed).random(shape).astype(np.float32)
    t = lib.tensor(data)
    if dtype is not None:
        t = t.to(getattr(lib, dtype))
    return t.requires_grad_(requires_grad)


def cos_params(lib, module):
    """Upstream's deterministic weights: each parameter becomes cos(0, 1, 2, ...) in its
    shape, so a module built in either library holds the same numbers."""
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.cos(lib.arange(p.numel()).float().view(p.shape)))
    return module


def same_params(lib, module, seed=0):
    """Fills every parameter with NumPy-drawn numbers (by its position), so a module built
    in either library computes the same function."""
    with lib.no_grad():
        for i, p in enumerate(module.parameters()):
            data = np.random.default_rng(seed + i).uniform(-0.5, 0.5, tuple(p.shape))
            p.copy_(lib.tensor(data.astype(np.float64)).to(p.dtype))
    return module


def check_module_empty_input(lib, module, inp, check_size=True, inference=False):
    """torch's ``_test_module_empty_input``: an empty input runs through ``module`` (and
    back, unless ``inference``), giving an empty result of its size and zero gradients."""
    if not inference:
        inp.requires_grad_(True)
    out = module(inp)
    if not inference:
        out.backward(lib.rand_like(out))
        assert lib.equal(inp.grad, lib.zeros_like(inp))
        for p in module.parameters():
            if p.requires_grad:
                assert lib.equal(p.grad, lib.zeros_like(p.grad))
    if check_size:
        assert out.size() == inp.size()
    return out
