"""Pooling (max/avg 1-d and 2-d, adaptive average) against torch: values, indices, first and
second derivatives over a grid of options, unbatched inputs, reprs and errors. Inputs are
random floats, so max-pool windows have no ties."""
import itertools

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check

MAX2D = [dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=c)
         for k, s, p, d, c in itertools.product([2, (3, 2)], [None, 1, (2, 3)], [0, 1],
                                                [1, 2], [False, True])]


@pytest.mark.parametrize('kw', MAX2D, ids=str)
def test_max_pool2d_values_indices_and_derivatives(kw):
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, return_indices=True, **kw),
          arr(2, 3, 9, 8, seed=1), double=True)


@pytest.mark.parametrize('kw', MAX2D, ids=str)
def test_max_pool2d_first_derivatives_on_arrays_with_ties_and_nan(kw):
    # plain backward (no graph of the gradient) takes the array path; ties and NaN decide
    # which window element receives the gradient
    x = np.round(arr(2, 3, 9, 8, seed=1) * 2)        # many equal values per window
    x[0, 1, 2, 3] = x[1, 2, 5, 5] = np.nan
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, return_indices=True, **kw), x)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, **kw), arr(2, 3, 9, 8, seed=1))


@pytest.mark.parametrize('kw', [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1)],
                         ids=str)
def test_max_pool2d_infinite_gradient_reaches_only_the_argmax(kw):
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(arr(1, 2, 4, 4, seed=3), requires_grad=True)
        out = lib.nn.functional.max_pool2d(x, **kw)
        g = lib.ones(out.shape, dtype=out.dtype)
        g[0, 0, 0, 0] = float('inf')
        out.backward(g)
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    assert not np.isnan(grads[0]).any()


@pytest.mark.parametrize('kw', [dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=c)
                                for k, s, p, d, c in itertools.product(
                                    [2, 3], [None, 2], [0, 1], [1, 2], [False, True])], ids=str)
def test_max_pool1d_values_indices_and_derivatives(kw):
    check(lambda lib, x: lib.nn.functional.max_pool1d(x, return_indices=True, **kw),
          arr(2, 3, 11, seed=2), double=True)


AVG2D = [dict(kernel_size=k, stride=s, padding=p, ceil_mode=c, count_include_pad=i)
         for k, s, p, c, i in itertools.product([2, (3, 2)], [None, 1, (2, 3)], [0, 1],
                                                [False, True], [True, False])]


@pytest.mark.parametrize('kw', AVG2D, ids=str)
def test_avg_pool2d_values_and_derivatives(kw):
    check(lambda lib, x: lib.nn.functional.avg_pool2d(x, **kw), arr(2, 3, 9, 8, seed=3),
          double=True)


@pytest.mark.parametrize('kw', [dict(kernel_size=3, padding=1, divisor_override=2),
                                dict(kernel_size=(2, 3), stride=1, divisor_override=5)], ids=str)
def test_avg_pool2d_divisor_override(kw):
    check(lambda lib, x: lib.nn.functional.avg_pool2d(x, **kw), arr(2, 3, 7, 8, seed=4),
          double=True)


@pytest.mark.parametrize('kw', [dict(kernel_size=k, stride=s, padding=p, ceil_mode=c,
                                     count_include_pad=i)
                                for k, s, p, c, i in itertools.product(
                                    [2, 3], [None, 2], [0, 1], [False, True], [True, False])],
                         ids=str)
def test_avg_pool1d_values_and_derivatives(kw):
    check(lambda lib, x: lib.nn.functional.avg_pool1d(x, **kw), arr(2, 3, 11, seed=5),
          double=True)


@pytest.mark.parametrize('size', [3, (4, 5), (2, None), (None, 3), 1, (1, 1), (7, 8), (9, 10)],
                         ids=str)
@pytest.mark.parametrize('shape', [(2, 3, 7, 8), (3, 7, 8)], ids=str)
def test_adaptive_avg_pool2d(size, shape):
    check(lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, size), arr(*shape, seed=6),
          double=True)


@pytest.mark.parametrize('call', [
    lambda lib, x: lib.nn.functional.max_pool2d(x, 2, 1, 1, return_indices=True),
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
    lambda lib, x: lib.nn.functional.max_pool1d(x[0], 3, 2, 1, return_indices=True),
    lambda lib, x: lib.nn.functional.avg_pool1d(x[0], 2, count_include_pad=False, padding=1),
], ids=['max2d', 'avg2d', 'max1d', 'avg1d'])
def test_unbatched(call):
    check(call, arr(3, 7, 8, seed=7), double=True)


@pytest.mark.parametrize('dtype', [np.float32, np.int64])
def test_dtypes(dtype):
    x = arr(2, 3, 6, 6, seed=8, dtype=dtype)
    for fn in (lambda lib, x: lib.nn.functional.max_pool2d(x, 2, return_indices=True),
               lambda lib, x: lib.nn.functional.avg_pool2d(x, 3, 2, 1),
               lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (4, 5))):
        if dtype == np.int64 and fn.__code__.co_names[-1] == 'adaptive_avg_pool2d':
            continue  # torch has no integer adaptive_avg_pool2d
        check(fn, x)


def test_modules():
    def f(lib, x):
        nn = lib.nn
        return [nn.MaxPool2d(3, 2, 1)(x), nn.MaxPool2d(2, return_indices=True)(x)[1],
                nn.AvgPool2d(2, ceil_mode=True, count_include_pad=False)(x),
                nn.AdaptiveAvgPool2d((3, None))(x), nn.MaxPool1d(3, 2, dilation=2)(x[0]),
                nn.AvgPool1d(3, 1, 1)(x[0])]
    check(f, arr(2, 3, 7, 8, seed=9), double=True)


def test_reprs():
    def describe(nn):
        mods = [nn.MaxPool2d(2), nn.MaxPool2d((2, 3), 1, (1, 0), 2, True, True),
                nn.MaxPool1d(3), nn.MaxPool1d(3, 2, 1, 2, ceil_mode=True), nn.AvgPool2d(2),
                nn.AvgPool2d(3, (1, 2), 1, True, False, 5), nn.AvgPool1d(3),
                nn.AvgPool1d(3, 1, 1, True, False), nn.AdaptiveAvgPool2d(3),
                nn.AdaptiveAvgPool2d((None, 2)), nn.AdaptiveAvgPool2d([2, 2])]
        return [(repr(m), m.stride if hasattr(m, 'stride') else None) for m in mods]
    assert describe(ember.nn) == describe(torch.nn)


@pytest.mark.parametrize('call', [
    lambda F, x: F.max_pool2d(x, 2, padding=2),
    lambda F, x: F.max_pool2d(x, 3, padding=2, dilation=2),
    lambda F, x: F.max_pool2d(x, 3, padding=3, dilation=2),
    lambda F, x: F.avg_pool2d(x, 2, padding=2),
    lambda F, x: F.max_pool2d(x, 9),
    lambda F, x: F.avg_pool2d(x, 9),
    lambda F, x: F.max_pool2d(x, 0),
    lambda F, x: F.avg_pool2d(x, 2, 0),
    lambda F, x: F.max_pool2d(x, 2, dilation=0),
    lambda F, x: F.max_pool2d(x, (2, 3, 4)),
    lambda F, x: F.max_pool2d(x, 2, padding=-1),
    lambda F, x: F.avg_pool2d(x, 2, divisor_override=0),
    lambda F, x: F.max_pool2d(x[0, 0], 2),
    lambda F, x: F.avg_pool2d(x[0, 0], 2),
    lambda F, x: F.max_pool2d(x[:, :0], 2),
    lambda F, x: F.max_pool1d(x[0, 0, 0], 2),
    lambda F, x: F.avg_pool1d(x[0, 0, 0], 2),
    lambda F, x: F.max_pool1d(x[0, :, :2], 3),
    lambda F, x: F.avg_pool1d(x[0, :, :2], 3),
    lambda F, x: F.max_pool1d(x[0], 2, padding=2),
    lambda F, x: F.avg_pool1d(x[0], 2, padding=2),
    lambda F, x: F.max_pool1d(x[0], (2, 2)),
    lambda F, x: F.avg_pool1d(x[0], (2, 2)),
    lambda F, x: F.max_pool1d(x[0], 2, 0),
    lambda F, x: F.max_pool1d(x[0], 2, dilation=0),
    lambda F, x: F.adaptive_avg_pool2d(x[0, 0], 2),
    lambda F, x: F.adaptive_avg_pool2d(x, (2,)),
    lambda F, x: F.adaptive_avg_pool2d(x, -1),
    lambda F, x: F.adaptive_avg_pool2d(x[0, 0, 0], (2, None)),
    lambda F, x: F.adaptive_avg_pool2d(x[:, :, :0], 2),
    lambda F, x: F.adaptive_avg_pool2d(x[0, :, :0], 2),
])
def test_errors(call):
    check(lambda lib, x: call(lib.nn.functional, x), arr(2, 3, 7, 8), match_message=True)
