"""Results of transposed convolutions stay valid after the next one: each is its own memory
(a result once shared the reused col2im work buffer when nothing was cropped from it)."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr


@pytest.mark.parametrize('kw', [{}, {'stride': 2}, {'padding': 1}])
def test_transposed_convolution_result_survives_the_next_call(kw):
    w = arr(2, 3, 2, 2, seed=1)
    firsts = []
    for lib in (ember, torch):
        F = lib.nn.functional
        first = F.conv_transpose2d(lib.tensor(arr(1, 2, 3, 3, seed=2)), lib.tensor(w), **kw)
        F.conv_transpose2d(lib.tensor(arr(1, 2, 3, 3, seed=3)), lib.tensor(w), **kw)
        firsts.append(first.numpy())
    np.testing.assert_allclose(*firsts, rtol=1e-12, atol=1e-12)


def test_input_gradient_survives_a_second_backward():
    # conv's input gradient is a transposed convolution: a second-order backward used to
    # overwrite the first-order gradient in place.
    x = ember.tensor(arr(2, 3, 8), requires_grad=True)
    w = ember.tensor(arr(4, 3, 3, seed=2), requires_grad=True)
    out = ember.nn.functional.conv1d(x, w, stride=2)
    gx, gw = ember.autograd.grad((out * ember.tensor(arr(2, 4, 3, seed=9))).sum(), [x, w],
                                 create_graph=True)
    before = gx.detach().numpy().copy()
    ember.autograd.grad((gx * 2).sum() + gw.sum(), [x, w])
    np.testing.assert_array_equal(gx.detach().numpy(), before)
