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


class _Functional:
    """A library's ``nn.functional`` that also knows the library (``F._lib``), for error
    cases that build their inputs with it."""

    def __init__(self, lib):
        self._lib = lib

    def __getattr__(self, name):
        return getattr(self._lib.nn.functional, name)


def _check_error(call, x):
    check(lambda lib, x: call(_Functional(lib), x), x, match_message=True)


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
    _check_error(call, arr(2, 3, 7, 8, seed=9))


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


# -- Unfold / Fold -----------------------------------------------------------------------------
@pytest.mark.parametrize('kw', [dict(kernel_size=2), dict(kernel_size=(2, 3), stride=(2, 1)),
                                dict(kernel_size=3, padding=1, dilation=2),
                                dict(kernel_size=(3, 2), padding=(1, 0), stride=2, dilation=(1, 2))],
                         ids=str)
def test_unfold_fold(kw):
    def f(lib, x):
        nn, F = lib.nn, lib.nn.functional
        cols = F.unfold(x, **kw)
        return [cols, nn.Unfold(**kw)(x[0]), F.fold(cols, (7, 8), **kw),
                nn.Fold((7, 8), **kw)(cols[0] * 2)]
    check(f, arr(2, 3, 7, 8, seed=16), double=True)
    check(f, arr(2, 3, 7, 8, seed=16, dtype=np.float32))


def test_unfold_fold_reprs():
    def describe(nn):
        return [repr(m) for m in (nn.Unfold(2), nn.Unfold((2, 3), 2, 1, (1, 2)),
                                  nn.Fold((4, 5), 2), nn.Fold(4, 3, 1, 1, 2))]
    assert describe(ember.nn) == describe(torch.nn)


def _cols(lib, x):
    return lib.nn.functional.unfold(x, 2)


@pytest.mark.parametrize('call', [
    lambda F, x: F.unfold(x[0, 0], 2), lambda F, x: F.unfold(x[None], 2),
    lambda F, x: F.unfold(x, 9), lambda F, x: F.unfold(x, 0), lambda F, x: F.unfold(x, 2, stride=0),
    lambda F, x: F.unfold(x, 2, dilation=0), lambda F, x: F.unfold(x, 2, padding=-1),
    lambda F, x: F.unfold(x, (2, 2, 2)), lambda F, x: F.unfold(x, 4, stride=3, padding=0),
    lambda F, x: F.fold(_cols(F._lib, x)[:, :11], (7, 8), 2),
    lambda F, x: F.fold(_cols(F._lib, x)[:, :, :40], (7, 8), 2),
    lambda F, x: F.fold(x, (7, 8), 2), lambda F, x: F.fold(_cols(F._lib, x)[0, 0], (7, 8), 2),
    lambda F, x: F.fold(_cols(F._lib, x), (1, 1), 2),
    lambda F, x: F.fold(_cols(F._lib, x), (7, 8), 0),
    lambda F, x: F.fold(_cols(F._lib, x), (7, 8), 2, stride=0),
    lambda F, x: F.fold(_cols(F._lib, x), (7, 8, 9), 2),
])
def test_unfold_fold_errors(call):
    _check_error(call, arr(2, 3, 7, 8, seed=17))


# -- channel and alpha dropout -----------------------------------------------------------------
@pytest.mark.parametrize('fn,shape', [('dropout1d', (4, 50, 6)), ('dropout1d', (50, 6)),
                                      ('dropout2d', (4, 50, 3, 2)), ('dropout3d', (4, 50, 2, 3, 1)),
                                      ('dropout3d', (50, 2, 3, 2))])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_channel_dropout(fn, shape, dtype):
    F = ember.nn.functional
    x = ember.tensor(arr(*shape, seed=18, low=1.0, high=2.0, dtype=dtype), requires_grad=True)
    np.testing.assert_array_equal(getattr(F, fn)(x, 0.4, training=False).detach().numpy(),
                                  x.detach().numpy())
    ember.manual_seed(0)
    y = getattr(F, fn)(x, 0.4)
    assert y.dtype == x.dtype and y.shape == x.shape
    ratio = (y / x).detach().numpy()
    batched = len(shape) == {'dropout1d': 3, 'dropout2d': 4, 'dropout3d': 5}[fn]
    chans = ratio.reshape(ratio.shape[:2 if batched else 1] + (-1,))
    # every channel is all zeros or all 1 / (1 - p)
    assert np.isclose(chans, 0).all(-1).sum() + np.isclose(chans, 1 / 0.6).all(-1).sum() \
        == chans[..., 0].size
    assert 0.2 < np.isclose(chans[..., 0], 0).mean() < 0.6
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ratio, rtol=1e-6)
    assert not getattr(F, fn)(x, 1.0).detach().numpy().any()


def test_channel_dropout_modules_and_errors():
    for lib in (ember, torch):
        m = lib.nn.Dropout2d(0.5)
        x = lib.ones(2, 8, 3, 3)
        assert m.eval()(x) is x
    def describe(nn):
        return [repr(m) for m in (nn.Dropout1d(), nn.Dropout2d(0.2, True), nn.Dropout3d(0.1),
                                  nn.AlphaDropout(0.3))]
    assert describe(ember.nn) == describe(torch.nn)
    for call in (lambda lib, x: lib.nn.functional.dropout1d(x, 0.5),
                 lambda lib, x: lib.nn.functional.dropout1d(x[0, 0, 0], 0.5),
                 lambda lib, x: lib.nn.functional.dropout1d(x[0], 1.5),
                 lambda lib, x: lib.nn.functional.dropout2d(x, -0.1),
                 lambda lib, x: lib.nn.functional.dropout3d(x, 2),
                 lambda lib, x: lib.nn.functional.alpha_dropout(x, 2, True),
                 lambda lib, x: lib.nn.Dropout1d(-0.1), lambda lib, x: lib.nn.Dropout2d(2),
                 lambda lib, x: lib.nn.AlphaDropout(1.5)):
        check(call, arr(2, 3, 4, 5, seed=19), match_message=True)
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input"):
        ember.nn.functional.dropout2d(ember.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input to dropout3d"):
        ember.nn.functional.dropout3d(ember.ones(2, 3, 4))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_alpha_dropout(dtype):
    F = ember.nn.functional
    x = ember.tensor(arr(400, 500, seed=20, dtype=dtype), requires_grad=True)
    assert F.alpha_dropout(x, 0.5) is x and F.alpha_dropout(x, 0.0, True) is x
    assert ember.nn.AlphaDropout(0.3).eval()(x) is x
    ember.manual_seed(1)
    y = F.alpha_dropout(x, 0.2, True)
    assert y.dtype == x.dtype and type(y.grad_fn).__name__ == 'AddBackward0'
    out = y.detach().numpy()
    # a standard-normal input keeps (about) zero mean and unit variance
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02
    a = 1 / np.sqrt((1.7580993408473766 ** 2 * 0.2 + 1) * 0.8)
    dropped = np.isclose(out, a * 1.7580993408473766 * (0.2 - 1), rtol=1e-5)
    assert 0.18 < dropped.mean() < 0.22
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(dropped, 0, a), rtol=1e-5)
    np.testing.assert_array_equal(ember.nn.AlphaDropout(0.2)(x).detach().numpy() != x.detach().numpy(),
                                  True)
    assert not F.alpha_dropout(x, 1.0, True).detach().numpy().any()


# -- ConvTranspose1d ---------------------------------------------------------------------------
@pytest.mark.parametrize('kw', [dict(), dict(stride=2, padding=1, output_padding=1),
                                dict(stride=3, dilation=2, groups=2, output_padding=2),
                                dict(padding=2, dilation=3)], ids=str)
def test_conv_transpose1d(kw):
    def f(lib, x, w, b):
        F = lib.nn.functional
        return [F.conv_transpose1d(x, w, b, **kw), F.conv_transpose1d(x[0], w, None, **kw)]
    check(f, arr(2, 4, 9, seed=21), arr(4, 3, 3, seed=22), arr(3 * kw.get('groups', 1), seed=23),
          double=True)
    check(f, *(arr(*s, seed=21, dtype=np.float32) for s in
               ((2, 4, 9), (4, 3, 3), (3 * kw.get('groups', 1),))))


def test_conv_transpose1d_module():
    def f(lib, x):
        lib.manual_seed(0)
        m = lib.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, groups=2).double()
        return [m(x), m(x, output_size=[18]), m(x[0], output_size=[6, 17]),
                tuple(m.weight.shape), list(m.state_dict()), repr(m),
                repr(lib.nn.ConvTranspose1d(2, 4, 3, 2, 1, 1, 2, False, 2))]
    e, t = f(ember, ember.tensor(arr(2, 4, 9, seed=24))), f(torch, torch.tensor(arr(2, 4, 9,
                                                                                    seed=24)))
    assert [tuple(v.shape) for v in e[:3]] == [tuple(v.shape) for v in t[:3]]
    assert e[3:] == t[3:]
    check(lambda lib, x, w: lib.nn.functional.conv_transpose1d(x, w, stride=2, padding=1,
                                                               output_padding=1),
          arr(2, 4, 9), arr(4, 3, 3))
    for call in (lambda lib, x: lib.nn.functional.conv_transpose1d(x, x),
                 lambda lib, x: lib.nn.functional.conv_transpose1d(x, x[:, :, :1], stride=2,
                                                                   output_padding=2),
                 lambda lib, x: lib.nn.functional.conv_transpose1d(x[0, 0], x[:, :, :1])):
        check(call, arr(4, 3, 5), match_message=True)
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                         'ConvTranspose1d'):
        ember.nn.ConvTranspose1d(2, 2, 3, padding_mode='reflect')
