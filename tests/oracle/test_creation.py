"""Factories, conversions and Tensor attributes against torch."""
import numpy as np
import pytest

import ember
from .oracle import check, arr, torch

FACTORIES = [
    lambda T: T.zeros(2, 3), lambda T: T.zeros((2, 3)), lambda T: T.ones(4, dtype=T.int32),
    lambda T: T.empty(0, 3).shape, lambda T: T.full((2, 2), 1.5), lambda T: T.full((2,), 3),
    lambda T: T.full((2,), True), lambda T: T.arange(5), lambda T: T.arange(1, 4, 0.5),
    lambda T: T.arange(0, 1, 0.1), lambda T: T.arange(10, 0, -3), lambda T: T.arange(5.0),
    lambda T: T.linspace(0, 1, 5), lambda T: T.linspace(-2, 2, 1), lambda T: T.eye(3),
    lambda T: T.eye(2, 4, dtype=T.float64), lambda T: T.tensor(3), lambda T: T.tensor(2.5),
    lambda T: T.tensor(True), lambda T: T.tensor([1, 2]), lambda T: T.tensor([[1., 2.], [3, 4]]),
    lambda T: T.tensor([True, False]), lambda T: T.tensor([]), lambda T: T.tensor([[]]),
    lambda T: T.tensor([1, 2.5]), lambda T: T.tensor([1 + 2j]), lambda T: T.tensor(np.float64(2)),
    lambda T: T.tensor(np.arange(3, dtype=np.int32)), lambda T: T.tensor([1, 2], dtype=T.float16),
    lambda T: T.as_tensor([1, 2]), lambda T: T.as_tensor(np.ones(2, np.float32)),
    lambda T: T.from_numpy(np.ones((2, 2), np.int16)), lambda T: T.zeros_like(T.ones(2, 3)),
    lambda T: T.ones_like(T.ones(2, dtype=T.int64)), lambda T: T.full_like(T.ones(2), 7),
    lambda T: T.ones(2).new_zeros(3), lambda T: T.ones(2, dtype=T.int32).new_ones((2, 2)),
    lambda T: T.ones(2).new_full((2,), 4), lambda T: T.ones(2).new_tensor([1, 2]),
    lambda T: T.ones(2, dtype=T.float64).new_empty(3).shape, lambda T: T.Tensor([1, 2]),
    lambda T: T.Tensor(2, 3).shape, lambda T: T.scalar_tensor(3),
    lambda T: T.zeros(2, 3, requires_grad=True), lambda T: T.tensor([1.], requires_grad=True),
    lambda T: T.zeros(-1), lambda T: T.tensor([1, 2], requires_grad=True),
    lambda T: T.arange(0, 5, 0), lambda T: T.eye(-1), lambda T: T.zeros(2, device='cpu'),
    lambda T: T.tensor([[1, 2], [3]]),
]


@pytest.mark.parametrize('fn', FACTORIES)
def test_factories(fn):
    check(fn, grad=False)


def test_default_dtype_and_promotion():
    for lib in (ember, torch):
        assert lib.get_default_dtype() is lib.float32
    try:
        for lib in (ember, torch):
            lib.set_default_dtype(lib.float64)
        check(lambda T: [T.tensor([1.5]), T.zeros(2), T.arange(0.5, 2), T.tensor([1]) * 2.5,
                         T.tensor([1j])], grad=False)
    finally:
        for lib in (ember, torch):
            lib.set_default_dtype(lib.float32)
    check(lambda T: T.set_default_dtype(T.int64), grad=False)


ATTRS = [
    lambda T, x: [x.shape, x.size(), x.size(1), x.size(-1), x.dim(), x.ndim, x.numel(),
                  len(x), x.dtype, x.is_leaf, x.requires_grad, x.element_size(),
                  x.is_floating_point(), x.is_contiguous(), x.stride(), x.stride(0)],
    lambda T, x: [x.t().is_contiguous(), x.t().stride(), x.t().contiguous().stride(),
                  x[0].stride(), x.T.shape],
    lambda T, x: [x.tolist(), x.sum().item(), float(x.sum()), int(x.sum() * 0 + 3),
                  bool(x.sum() > -100), T.is_tensor(x), T.numel(x)],
    lambda T, x: [x.float(), x.double(), x.long(), x.int(), x.bool(), x.half(),
                  x.to(T.int16), x.to('cpu'), x.to(T.zeros(1, dtype=T.float64)), x.type(),
                  x.double().type(), x.type(T.int32)],
    lambda T, x: [t for t in x], lambda T, x: x.size(2), lambda T, x: x.sum().__index__(),
    lambda T, x: bool(x), lambda T, x: x.new_tensor(x.detach()),
    lambda T, x: [x.detach().requires_grad, (x * 2).is_leaf, (x * 2).detach().is_leaf],
    lambda T, x: x.view(-1)[0:1].item(),
    lambda T, x: x.item(), lambda T, x: x.numpy(), lambda T, x: x.long().numpy().tolist(),
    lambda T, x: x.requires_grad_(True).requires_grad,
    lambda T, x: (x * 2).requires_grad_(False),
    lambda T, x: x.long().requires_grad_(True),
]


@pytest.mark.parametrize('fn', ATTRS)
def test_attributes_and_conversions(fn):
    check(fn, arr(2, 3, dtype=np.float32), match_message=True)


@pytest.mark.parametrize('fn', [lambda x: x.to('cuda'), lambda x: ember.zeros(2, device='cuda'),
                                lambda x: x.cuda(), lambda x: ember.tensor([1], device='cuda:0')])
def test_cuda_is_a_clear_error(fn):
    # torch's CPU build raises AssertionError("Torch not compiled with CUDA enabled"); ember
    # raises RuntimeError (what torch raises when no device is present) and says why.
    with pytest.raises(RuntimeError, match="ember runs on the CPU only"):
        fn(ember.ones(2))


def test_numpy_shares_memory_and_from_numpy():
    a = np.zeros(3, np.float32)
    t = ember.from_numpy(a)
    t.add_(1)
    assert a.tolist() == [1, 1, 1]
    n = t.numpy()
    n[0] = 5
    assert t.tolist() == [5, 1, 1]
    assert np.asarray(t) is n
    c = ember.tensor(a)
    a[1] = 9
    assert c.tolist() == [5, 1, 1]


def test_random_is_seeded_and_shaped():
    ember.manual_seed(3)
    a = ember.rand(4, 5)
    ember.manual_seed(3)
    b = ember.rand(4, 5)
    assert ember.equal(a, b) and a.shape == (4, 5) and a.dtype is ember.float32
    assert 0 <= a.min().item() and a.max().item() < 1
    g = ember.Generator().manual_seed(1)
    x1 = ember.randn(1000, generator=g)
    assert abs(x1.mean().item()) < 0.15 and abs(x1.std().item() - 1) < 0.15
    r = ember.randint(3, 7, (200,))
    assert r.dtype is ember.int64 and r.min().item() >= 3 and r.max().item() <= 6
    p = ember.randperm(10)
    assert sorted(p.tolist()) == list(range(10)) and p.dtype is ember.int64
    n = ember.normal(ember.zeros(3), ember.ones(3) * 1e-6)
    assert ember.allclose(n, ember.zeros(3), atol=1e-4)
    u = ember.empty(1000).uniform_(-2, -1)
    assert -2 <= u.min().item() and u.max().item() < -1
    v = ember.empty(500, dtype=ember.float64).normal_(5, 0.01)
    assert v.dtype is ember.float64 and abs(v.mean().item() - 5) < 0.01


def test_random_errors_match_torch():
    check(lambda T: T.randint(5, 3, (2,)), grad=False)
    check(lambda T: T.rand(2, dtype=T.int64), grad=False)
    check(lambda T: T.normal(0., -1., (2,)), grad=False)


def test_inplace_initialisers():
    check(lambda T, x: [x.clone().fill_(2), x.clone().zero_(), x.clone().copy_(T.ones(3)),
                        T.zeros(2, 3, dtype=T.int32).copy_(x)], arr(2, 3))
    check(lambda T, x: (x * 1).fill_(2), arr(3))
    check(lambda T, x, y: (x * 1).copy_(y), arr(2, 3), arr(3), double=True)
    check(lambda T, x: x.fill_(1), arr(3), match_message=True)
    check(lambda T, x: x.detach().copy_(T.ones(4)), arr(3))


@pytest.mark.parametrize('name', ['empty', 'zeros', 'ones', 'rand', 'randn'])
def test_factories_need_a_size(name):
    # regression: ember.empty() used to return a 0-d tensor
    check(lambda lib: getattr(lib, name)(), grad=False)


@pytest.mark.parametrize('fn', [
    lambda T, x: T.ones(2, dtype=T.float64).new(x),          # an alias of x, AliasBackward0
    lambda T, x: T.ones(2, dtype=T.float64).new(x.t()[1:]),  # keeps x's strides and offset
    lambda T, x: T.ones(2).new(x),                           # dtype mismatch: TypeError
])
def test_legacy_new_of_a_tensor_aliases_it(fn):
    check(fn, arr(3, 4), match_message=True)


def test_legacy_new_of_a_tensor_shares_memory():
    for lib in (ember, torch):
        x = lib.arange(6.).view(2, 3)
        y = x.new(x.t())
        y[0, 1] = 9.
        assert x[1, 0].item() == 9. and y.stride() == (1, 3)
