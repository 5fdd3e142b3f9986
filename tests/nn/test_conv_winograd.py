"""The Winograd F(2x2, 3x3) path of conv2d (3x3 kernel, stride 1, 8+ channels each side)
against torch: values, all three gradients, second derivatives, and the scratch buffers it
reuses between calls of different shapes."""
import numpy as np
import pytest

import ember
from ember.nn.functional import _winograd
from ..oracle.oracle import torch, arr, check


def conv(lib, x, w, b=None, padding=1):
    return lib.nn.functional.conv2d(x, w, b, padding=padding)


def test_the_path_is_taken_only_where_it_applies():
    x, w = ember.randn(2, 8, 6, 6, requires_grad=True), ember.randn(8, 8, 3, 3)
    assert conv(ember, x, w).grad_fn.winograd is not None
    assert conv(ember, x[:, :4], w[:, :4]).grad_fn.winograd is None           # 4 channels
    assert conv(ember, x, w[:4]).grad_fn.winograd is None                     # 4 outputs
    assert ember.nn.functional.conv2d(x, w, stride=2).grad_fn.winograd is None
    assert ember.nn.functional.conv2d(x, w, dilation=2).grad_fn.winograd is None
    assert conv(ember, x, ember.randn(8, 8, 2, 2)).grad_fn.winograd is None
    assert conv(ember, x.double(), w.double()).grad_fn.winograd is not None
    assert conv(ember, x.half(), w.half()).grad_fn.winograd is None


# Odd and even output sizes (an odd one has half a tile), paddings 0..3, one output pixel,
# rectangular images.
@pytest.mark.parametrize('size,padding', [((14, 14), 1), ((7, 9), 1), ((6, 6), 0),
                                          ((5, 8), (2, 0)), ((3, 3), 0), ((1, 2), (1, 3)),
                                          ((4, 4), 3)])
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_values_and_gradients(size, padding, dtype):
    tol = {'rtol': 1e-4, 'atol': 1e-4} if dtype == np.float32 else {}
    check(lambda lib, x, w, b: conv(lib, x, w, b, padding),
          arr(3, 8, *size, dtype=dtype, seed=1), arr(9, 8, 3, 3, dtype=dtype, seed=2),
          arr(9, dtype=dtype, seed=3), **tol)


def test_without_bias_and_with_more_channels():
    check(lambda lib, x, w: conv(lib, x, w), arr(2, 17, 6, 5, seed=1), arr(12, 17, 3, 3, seed=2))


@pytest.mark.parametrize('needs', [(True, False, False), (False, True, False),
                                   (False, False, True), (False, True, True)])
def test_only_the_wanted_gradients(needs):
    xs = [arr(2, 8, 5, 6, seed=1), arr(8, 8, 3, 3, seed=2), arr(8, seed=3)]
    e = [ember.tensor(a, requires_grad=r) for a, r in zip(xs, needs)]
    t = [torch.tensor(a, requires_grad=r) for a, r in zip(xs, needs)]
    g = arr(2, 8, 5, 6, seed=4)
    conv(ember, *e).backward(ember.tensor(g))
    conv(torch, *t).backward(torch.tensor(g))
    for a, b in zip(e, t):
        assert (a.grad is None) == (b.grad is None)
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_second_derivatives():
    check(lambda lib, x, w, b: conv(lib, x, w, b).tanh(), arr(1, 8, 4, 5, seed=1),
          arr(8, 8, 3, 3, seed=2), arr(8, seed=3), double=True)


def test_no_grad_and_non_contiguous_input():
    x, w, b = arr(2, 8, 9, 12, seed=1), arr(8, 8, 3, 3, seed=2), arr(8, seed=3)
    with ember.no_grad():
        got = conv(ember, ember.tensor(x)[:, :, :, ::2], ember.tensor(w), ember.tensor(b))
    want = conv(torch, torch.tensor(x)[:, :, :, ::2], torch.tensor(w), torch.tensor(b))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)


def test_broadcast_output_gradient():
    # sum().backward() hands the convolution a gradient with zero strides.
    x = ember.tensor(arr(2, 8, 6, 6, seed=1), requires_grad=True)
    w = ember.tensor(arr(8, 8, 3, 3, seed=2), requires_grad=True)
    tx, tw = (torch.tensor(a.detach().numpy(), requires_grad=True) for a in (x, w))
    conv(ember, x, w).sum().backward()
    conv(torch, tx, tw).sum().backward()
    for a, b in ((x, tx), (w, tw)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_scratch_buffers_stay_right_across_shapes():
    # The padded-input buffer keeps its zero border between calls: inputs with the same
    # buffer shape but a different inside (14x14 padded by 1, 16x16 unpadded) must not see
    # each other's values; so must the output gradient's buffer with a new shape.
    w, b = arr(8, 8, 3, 3, seed=2), arr(8, seed=3)
    cases = [(arr(2, 8, 14, 14, seed=4), 1), (arr(2, 8, 16, 16, seed=5), 0),
             (arr(2, 8, 14, 14, seed=6), 1), (arr(3, 8, 5, 7, seed=7), 2),
             (arr(2, 8, 14, 14, seed=4), 1)]
    for x, p in cases:
        check(lambda lib, x, w, b: conv(lib, x, w, b, p), x, w, b)


def test_a_saved_input_modified_in_place_is_refused():
    x = ember.randn(1, 8, 4, 4, requires_grad=True)
    w = ember.randn(8, 8, 3, 3, requires_grad=True)
    y = conv(ember, x, w)
    with ember.no_grad():
        w.mul_(2)
    with pytest.raises(RuntimeError, match='modified by an inplace operation'):
        y.sum().backward()


def test_transforms_are_exact_adjoints():
    # <conv(x), g> == <x, dconv/dx(g)> == <w, dconv/dw(g)> to rounding: the backward is the
    # forward's adjoint, also through the unused extra tiles.
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 9, 7, 10)), rng.standard_normal((11, 9, 3, 3))
    g = rng.standard_normal((2, 11, 7, 10))
    y, (v, u, tiles) = _winograd.forward(x, w, None, (1, 1))
    dm = _winograd.grad_transform(g, tiles)
    gx, gw = _winograd.input_grad(dm, u, tiles), _winograd.weight_grad(dm, v, w.shape)
    assert np.isclose(np.vdot(y, g), np.vdot(x, gx), rtol=1e-12)
    assert np.isclose(np.vdot(y, g), np.vdot(w, gw), rtol=1e-12)
