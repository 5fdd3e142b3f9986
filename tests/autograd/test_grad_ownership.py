"""AccumulateGrad takes a fresh gradient array over instead of copying it (ember's engine
``_own``), including the weight gradient of ``linear``, which reaches the weight through a
double transpose. These tests pin down what must not change when it does."""
import numpy as np

import ember
from ..oracle.oracle import torch


def _linear_grads(lib, steps):
    rng = np.random.default_rng(0)
    w = lib.tensor(rng.standard_normal((5, 7)), requires_grad=True)
    b = lib.tensor(rng.standard_normal(5), requires_grad=True)
    x = lib.tensor(rng.standard_normal((3, 7)))
    for _ in range(steps):
        (lib.nn.functional.linear(x, w, b) ** 2).sum().backward()
    return w, b


def test_linear_weight_grad_is_owned_contiguous_and_accumulates_like_torch():
    for steps in (1, 2):
        (ew, eb), (tw, tb) = _linear_grads(ember, steps), _linear_grads(torch, steps)
        np.testing.assert_allclose(ew.grad.numpy(), tw.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(eb.grad.numpy(), tb.grad.numpy(), rtol=1e-12)
        assert ew.grad.is_contiguous() and ew.grad.stride() == tw.grad.stride()


def test_a_users_gradient_viewed_whole_is_never_taken_over():
    # x.t().t() is a contiguous view of all of x: the engine must still copy it, since the
    # user holds x; the add passes the seed through unchanged to the leaf
    for through in (lambda a: a + 0, lambda a: a.t().t()):
        a = ember.ones(2, 3, requires_grad=True)
        x = ember.ones(2, 3)
        through(a).backward(x.t().t())
        a.grad.add_(1)
        np.testing.assert_array_equal(x.numpy(), np.ones((2, 3)))


def test_one_gradient_array_reaching_two_leaves_is_taken_over_once():
    w1 = ember.ones(4, 3, requires_grad=True)
    w2 = ember.ones(4, 3, requires_grad=True)
    x = ember.ones(2, 3)
    out = ember.nn.functional.linear(x, w1)
    # both weights get gradients; neither may share memory with the other
    (out + ember.nn.functional.linear(x, w2)).sum().backward()
    assert not np.shares_memory(w1.grad.numpy(), w2.grad.numpy())
    w1.grad.add_(1)
    np.testing.assert_array_equal(w2.grad.numpy(), np.full((4, 3), 2.0))
