"""More pooling, padding, shape and dropout layers against torch: adaptive max pooling (and
adaptive average 1-d), the ``_with_indices`` forms, max unpooling, power-average pooling,
padding modules, pixel/channel shuffles, Unfold/Fold, channel dropout, alpha dropout and
ConvTranspose1d -- values, first and second derivatives, reprs and torch's errors."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check


# -- adaptive pooling --------------------------------------------------------------------------
@pytest.mark.parametrize('size', [3, (4, 5), (2, None), 1, (7, 8), (9, 10)], ids=str)
@pytest.mark.parametrize('shape', [(2, 3, 7, 8), (3, 7, 8)], ids=str)
def test_adaptive_max_pool2d(size, shape):
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, size, return_indices=True),
          arr(*shape, seed=1), double=True)


def test_adaptive_max_pool2d_ties_nan_float32_and_with_indices():
    x = np.round(arr(2, 3, 7, 9, seed=2) * 2)        # many equal values per window
    x[0, 1, 2, 3] = x[1, 2, 5, 5] = x[1, 2, 5, 6] = np.nan
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, (3, 4), True), x)
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool2d_with_indices(x, 3),
          arr(2, 3, 7, 9, seed=2, dtype=np.float32))
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, 4), x[:, :, :5], double=True)


@pytest.mark.parametrize('size', [1, 4, 9, 13, (5,)], ids=str)
def test_adaptive_pool1d(size):
    def f(lib, x):
        F = lib.nn.functional
        return [F.adaptive_max_pool1d(x, size, True), F.adaptive_max_pool1d_with_indices(x[0], size),
                F.adaptive_avg_pool1d(x, size), F.adaptive_avg_pool1d(x[0], size)]
    check(f, arr(2, 3, 9, seed=3), double=True)
    check(f, arr(2, 3, 9, seed=3, dtype=np.float32))


def test_max_pool_with_indices_forms():
    def f(lib, x):
        F = lib.nn.functional
        return [F.max_pool2d_with_indices(x, 3, 2, 1), F.max_pool2d_with_indices(x, (2, 3)),
                F.max_pool1d_with_indices(x[0], 2), F.max_pool1d_with_indices(x[0], 3, 1, 1, 2)]
    check(f, arr(2, 3, 7, 8, seed=4), double=True)


# -- max unpooling -----------------------------------------------------------------------------
@pytest.mark.parametrize('kw', [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 3), stride=(1, 2))], ids=str)
@pytest.mark.parametrize('batched', [True, False])
def test_max_unpool2d_roundtrip(kw, batched):
    def f(lib, x):
        F = lib.nn.functional
        xx = x if batched else x[0]
        out, idx = F.max_pool2d(xx, return_indices=True, **kw)
        return F.max_unpool2d(out, idx, **kw)
    check(f, arr(2, 3, 7, 8, seed=5), double=True)
    check(f, arr(2, 3, 7, 8, seed=5, dtype=np.float32))


def test_max_unpool_output_size_and_1d():
    def f(lib, x):
        F = lib.nn.functional
        out, idx = F.max_pool2d(x, 2, return_indices=True)
        o1, i1 = F.max_pool1d(x[0], 3, 2, 1, return_indices=True)
        return [F.max_unpool2d(out, idx, 2, output_size=(7, 9)),
                F.max_unpool2d(out, idx, 2, output_size=[2, 3, 7, 8]),
                F.max_unpool1d(o1, i1, 3, 2, 1), F.max_unpool1d(o1[0], i1[0], 3, 2, 1, [8]),
                F.max_unpool1d(o1, i1, 3, 2, 1, output_size=(3, 8, 9))]
    check(f, arr(2, 3, 7, 8, seed=6), double=True)


def test_pool_modules_and_reprs():
    def f(lib, x):
        nn = lib.nn
        out, idx = nn.MaxPool2d(2, return_indices=True)(x)
        o1, i1 = nn.MaxPool1d(2, return_indices=True)(x[0])
        return [nn.AdaptiveMaxPool2d((3, None))(x), nn.AdaptiveMaxPool2d(3, True)(x),
                nn.AdaptiveMaxPool1d(4)(x[0]), nn.AdaptiveMaxPool1d(4, True)(x[0]),
                nn.AdaptiveAvgPool1d(3)(x[0]), nn.MaxUnpool2d(2)(out, idx),
                nn.MaxUnpool2d(2)(out, idx, output_size=(7, 9)), nn.MaxUnpool1d(2)(o1, i1),
                nn.LPPool2d(2, 2)(x.abs() + 0.5), nn.LPPool2d(1.5, (2, 3), 1, True)(x.abs() + 0.5),
                nn.LPPool1d(3, 2)(x[0].abs() + 0.5), nn.LPPool1d(float('inf'), 3, 2)(x[0])]
    check(f, arr(2, 3, 7, 8, seed=7), double=True)

    def describe(nn):
        mods = [nn.AdaptiveMaxPool2d(3), nn.AdaptiveMaxPool2d((None, 2), True),
                nn.AdaptiveMaxPool1d(3, True), nn.AdaptiveAvgPool1d(2), nn.MaxUnpool2d(2),
                nn.MaxUnpool2d((2, 3), 1, (1, 0)), nn.MaxUnpool1d(3, 2, 1), nn.LPPool2d(2, 3),
                nn.LPPool2d(2, (2, 3), 1, True), nn.LPPool1d(1.5, 3, 2, True)]
        return [(repr(m), getattr(m, 'stride', None), getattr(m, 'return_indices', None))
                for m in mods]
    assert describe(ember.nn) == describe(torch.nn)


@pytest.mark.parametrize('norm', [1, 2, 3.0, 1.5, float('inf'), -float('inf')], ids=str)
def test_lp_pool(norm):
    def f(lib, x):
        F = lib.nn.functional
        return [F.lp_pool2d(x, norm, 2), F.lp_pool2d(x, norm, (3, 2), (2, 1), True),
                F.lp_pool1d(x[0], norm, 3), F.lp_pool1d(x[0], norm, 2, 1, True)]
    check(f, arr(2, 3, 7, 8, seed=8, low=0.5, high=2.0), double=True)


def _unpool_idx(lib, x, bad):
    out, idx = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
    idx = idx.clone()
    idx[1, 0, 1, 2] = bad
    return out, idx


@pytest.mark.parametrize('call', [
    lambda F, x: F.adaptive_max_pool2d(x, (2, 2, 2)),
    lambda F, x: F.adaptive_max_pool2d(x, -1),
    lambda F, x: F.adaptive_max_pool2d(x[0, 0], 2),
    lambda F, x: F.adaptive_max_pool2d(x[:, :, :0], 2),
    lambda F, x: F.adaptive_max_pool2d(x.long(), 2),
    lambda F, x: F.adaptive_max_pool1d(x, 2),
    lambda F, x: F.adaptive_max_pool1d(x[0], (2, 2)),
    lambda F, x: F.adaptive_max_pool1d(x[0], -1),
    lambda F, x: F.adaptive_max_pool1d(x[0], None),
    lambda F, x: F.adaptive_avg_pool1d(x, 2),
    lambda F, x: F.adaptive_avg_pool1d(x[0, 0, 0], 2),
    lambda F, x: F.adaptive_avg_pool1d(x[0], (2, 2)),
    lambda F, x: F.adaptive_avg_pool1d(x[0], -1),
    lambda F, x: F.adaptive_avg_pool1d(x[0, :, :, :0], 2),
    lambda F, x: F.max_unpool2d(*_unpool_idx(F._lib, x, 48), 2),
    lambda F, x: F.max_unpool2d(*_unpool_idx(F._lib, x, -3), 2),
    lambda F, x: F.max_unpool2d(*_unpool_idx(F._lib, x, 5), 2, output_size=(9, 9)),
    lambda F, x: F.max_unpool2d(*_unpool_idx(F._lib, x, 5), 2, output_size=(1, 7, 9)),
    lambda F, x: F.max_unpool2d(_unpool_idx(F._lib, x, 5)[0],
                                _unpool_idx(F._lib, x, 5)[1][:, :, :2], 2),
    lambda F, x: F.max_unpool2d(_unpool_idx(F._lib, x, 5)[0],
                                _unpool_idx(F._lib, x, 5)[1].float(), 2),
    lambda F, x: F.max_unpool2d(_unpool_idx(F._lib, x, 5)[0][0, 0],
                                _unpool_idx(F._lib, x, 5)[1][0, 0], 2),
    lambda F, x: F.max_unpool1d(_unpool_idx(F._lib, x, 5)[0][0],
                                _unpool_idx(F._lib, x, 5)[1][0] * 100, 2),
    lambda F, x: F.max_unpool1d(_unpool_idx(F._lib, x, 5)[0][0, 0, 0],
                                _unpool_idx(F._lib, x, 5)[1][0, 0, 0], 2),
    lambda F, x: F.lp_pool2d(x, 2, 9),
    lambda F, x: F.lp_pool1d(x, 2, 2),
    lambda F, x: F.lp_pool2d(x[0, 0], 2, 2),
])
def test_pool_errors(call):
    def f(lib, x):
        F = lib.nn.functional
        F._lib = lib
        return call(F, x)
    check(f, arr(2, 3, 7, 8, seed=9), match_message=True)


# -- padding layers ----------------------------------------------------------------------------
PADS = [
    (lambda nn: nn.ZeroPad1d(2), (2, 3, 5)), (lambda nn: nn.ZeroPad1d((1, -2)), (3, 5)),
    (lambda nn: nn.ZeroPad2d((1, 2, 0, 1)), (2, 3, 5, 6)), (lambda nn: nn.ZeroPad2d(1), (3, 5, 6)),
    (lambda nn: nn.ConstantPad1d((1, 2), 3.5), (2, 3, 5)),
    (lambda nn: nn.ConstantPad2d(1, -1), (2, 3, 5, 6)),
    (lambda nn: nn.ConstantPad3d((1, 0, 1, 0, 2, 1), 0.5), (2, 3, 4, 5, 6)),
    (lambda nn: nn.ConstantPad3d(1, 2.0), (3, 4, 5)),
    (lambda nn: nn.ReflectionPad1d(2), (2, 3, 5)), (lambda nn: nn.ReflectionPad1d((0, 4)), (3, 5)),
    (lambda nn: nn.ReflectionPad2d((1, 2, 0, 3)), (2, 3, 5, 6)),
    (lambda nn: nn.ReflectionPad2d((-1, 2, 1, -2)), (3, 5, 6)),
    (lambda nn: nn.ReplicationPad1d((1, 3)), (2, 3, 5)), (lambda nn: nn.ReplicationPad1d(2), (3, 5)),
    (lambda nn: nn.ReplicationPad2d(2), (2, 3, 5, 6)),
    (lambda nn: nn.ReplicationPad2d((-1, 1, 0, 3)), (3, 5, 6)),
]


@pytest.mark.parametrize('make,shape', PADS, ids=lambda v: str(v) if isinstance(v, tuple) else '')
def test_padding_modules(make, shape):
    check(lambda lib, x: make(lib.nn)(x), arr(*shape, seed=10), double=True)
    check(lambda lib, x: make(lib.nn)(x), arr(*shape, seed=10, dtype=np.float32))


@pytest.mark.parametrize('make,shape', [
    (lambda nn: nn.CircularPad1d(2), (2, 3, 5)), (lambda nn: nn.CircularPad1d((-1, 3)), (3, 5)),
    (lambda nn: nn.CircularPad2d((1, 0, 2, 1)), (2, 3, 5, 6)),
    (lambda nn: nn.CircularPad2d((2, -1, -1, 2)), (3, 5, 6)),
    (lambda nn: lambda x: nn.functional.pad(x, (1, 2, 0, 1, 2, 2), mode='circular'), (1, 2, 3, 4, 5)),
], ids=lambda v: str(v) if isinstance(v, tuple) else '')
def test_circular_padding_values_and_gradients(make, shape):
    # torch's circular pad shows a CopySlices node, ember's a CircularPad node: values and
    # gradients are compared directly
    x = arr(*shape, seed=11)
    w = arr(*make(torch.nn)(torch.tensor(x)).shape, seed=12)
    res = []
    for lib in (ember, torch):
        t = lib.tensor(x, requires_grad=True)
        y = make(lib.nn)(t)
        (g,) = lib.autograd.grad((y * lib.tensor(w)).sum(), t)
        res.append((y.detach().numpy(), g.numpy()))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-12)


def test_padding_reprs():
    def describe(nn):
        mods = [nn.ZeroPad1d(2), nn.ZeroPad2d((1, 2, 0, 1)), nn.ZeroPad2d(1),
                nn.ConstantPad1d((1, 2), 3.5), nn.ConstantPad2d(1, -1),
                nn.ConstantPad3d((1, 0, 1, 0, 2, 1), 0.), nn.ConstantPad3d(2, 1),
                nn.ReflectionPad1d(2), nn.ReflectionPad2d((1, 2, 0, 1)),
                nn.ReplicationPad1d((1, 2)), nn.ReplicationPad2d(1), nn.CircularPad1d(1),
                nn.CircularPad2d((1, 0, 2, 1)), nn.PixelShuffle(2), nn.PixelUnshuffle(3),
                nn.ChannelShuffle(3)]
        return [(repr(m), getattr(m, 'padding', None), getattr(m, 'value', None),
                 list(m.state_dict())) for m in mods]
    assert describe(ember.nn) == describe(torch.nn)


@pytest.mark.parametrize('call', [
    lambda nn, x: nn.ReflectionPad1d(1)(x), lambda nn, x: nn.ReflectionPad1d(1)(x[0, 0, 0]),
    lambda nn, x: nn.ReflectionPad2d(1)(x[None]), lambda nn, x: nn.ReflectionPad2d(1)(x[0, 0]),
    lambda nn, x: nn.ReplicationPad1d(1)(x), lambda nn, x: nn.ReplicationPad2d(1)(x[0, 0]),
    lambda nn, x: nn.CircularPad1d(1)(x), lambda nn, x: nn.CircularPad2d(1)(x[None]),
    lambda nn, x: nn.CircularPad1d(7)(x[0]), lambda nn, x: nn.ReflectionPad1d(6)(x[0]),
    lambda nn, x: nn.ReplicationPad1d(1)(x[0, :, :0, 0]),
    lambda nn, x: nn.ReflectionPad2d(1)(x[0, :, :0]),
    lambda nn, x: nn.functional.pad(x[0, 0, 0], (1, 1), mode='circular'),
    lambda nn, x: nn.functional.pad(x[None], (1,) * 8, mode='replicate'),
])
def test_padding_errors(call):
    check(lambda lib, x: call(lib.nn, x), arr(2, 3, 5, 6, seed=13), match_message=True)


# -- pixel and channel shuffles ----------------------------------------------------------------
def test_shuffles():
    def f(lib, x):
        nn, F = lib.nn, lib.nn.functional
        return [F.pixel_shuffle(x, 2), nn.PixelShuffle(3)(x[:, :, :2, :3].reshape(2, 18, 2, 1)),
                F.pixel_shuffle(x[0], 1), F.pixel_shuffle(x.reshape(1, 2, 12, 3, 2), 2),
                F.pixel_unshuffle(x, 2), nn.PixelUnshuffle(3)(x[:, :, :3, :6]),
                F.pixel_unshuffle(x[0].reshape(1, 3, 4, 4, 2), 2),
                F.channel_shuffle(x, 3), nn.ChannelShuffle(2)(x.reshape(2, 6, 2, 8)),
                F.channel_shuffle(x.reshape(2, 12, 8), 4), F.channel_shuffle(x, 1)]
    check(f, arr(2, 12, 4, 4, seed=14), double=True)
    check(f, arr(2, 12, 4, 4, seed=14, dtype=np.float32))
    check(lambda lib, x: [lib.nn.functional.pixel_shuffle(x, 2),
                          lib.nn.functional.channel_shuffle(x, 2)],
          arr(2, 12, 4, 4, seed=14, dtype=np.int64))


@pytest.mark.parametrize('call', [
    lambda F, x: F.pixel_shuffle(x[0, 0], 2), lambda F, x: F.pixel_shuffle(x[:, :3], 2),
    lambda F, x: F.pixel_shuffle(x, 0), lambda F, x: F.pixel_shuffle(x, -1),
    lambda F, x: F.pixel_unshuffle(x[0, 0], 2), lambda F, x: F.pixel_unshuffle(x[:, :, :3], 2),
    lambda F, x: F.pixel_unshuffle(x[:, :, :, :3], 2), lambda F, x: F.pixel_unshuffle(x, 0),
    lambda F, x: F.channel_shuffle(x, 5), lambda F, x: F.channel_shuffle(x, 0),
    lambda F, x: F.channel_shuffle(x, -1), lambda F, x: F.channel_shuffle(x[0, 0], 3),
    lambda F, x: F.channel_shuffle(x[0, 0, 0], 3),
])
def test_shuffle_errors(call):
    check(lambda lib, x: call(lib.nn.functional, x), arr(2, 12, 4, 4, seed=15),
          match_message=True)
