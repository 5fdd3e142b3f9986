"""In-place ops through views of a Tensor subclass reach the subclass tensor's history, as in
torch (a converted view used to lose its base, so the gradient ignored the in-place op)."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch


def _grads(lib, body):
    class S(lib.Tensor):
        pass
    a = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    s = (a * 1).as_subclass(S)
    loss = body(s)
    loss.backward()
    return a.grad.numpy(), type(s).__name__


@pytest.mark.parametrize('body', [
    lambda s: (s[:2].mul_(2), s.sum())[1],
    lambda s: (s[1:3].mul_(3), (s * s).sum())[1],
    lambda s: (s.view(2, 2)[0].add_(s.detach()[:2]), s.exp().sum())[1],
    lambda s: (s[::2].mul_(2.5), (s ** 2)[1:].sum())[1],
], ids=['slice', 'product', 'view-of-view', 'strided'])
def test_in_place_through_a_subclass_view_reaches_its_base(body):
    (eg, etype), (tg, ttype) = _grads(ember, body), _grads(torch, body)
    np.testing.assert_allclose(eg, tg, rtol=1e-6)
    assert etype == ttype == 'S'
