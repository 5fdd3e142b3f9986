"""F.bilinear / nn.Bilinear and F.interpolate / nn.Upsample against torch: values, first and
second derivatives, float32 and float64, reprs, errors."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check


# -- bilinear ------------------------------------------------------------------------------
@pytest.mark.parametrize('b1,b2', [((3,), (3,)), ((2, 3), (2, 3)), ((), ())])
@pytest.mark.parametrize('bias', [True, False])
def test_bilinear_values_and_derivatives(b1, b2, bias):
    args = [arr(*b1, 4, seed=1), arr(*b2, 5, seed=2), arr(2, 4, 5, seed=3)]
    if bias:
        check(lambda lib, x1, x2, w, b: lib.nn.functional.bilinear(x1, x2, w, b),
              *args, arr(2, seed=4), double=True)
    else:
        check(lambda lib, x1, x2, w: lib.nn.functional.bilinear(x1, x2, w), *args, double=True)


def test_bilinear_module_float32_and_repr():
    def f(lib, x1, x2):
        m = lib.nn.Bilinear(3, 4, 2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(arr(2, 3, 4, dtype=np.float32, seed=5)))
            m.bias.copy_(lib.tensor(arr(2, dtype=np.float32, seed=6)))
        return m(x1, x2)
    check(f, arr(5, 3, dtype=np.float32, seed=1), arr(5, 4, dtype=np.float32, seed=2))
    for lib in (ember, torch):
        m = lib.nn.Bilinear(3, 4, 2, bias=False)
        assert repr(m) == 'Bilinear(in1_features=3, in2_features=4, out_features=2, bias=False)'
        assert m.bias is None and tuple(m.weight.shape) == (2, 3, 4)
    w = ember.nn.Bilinear(9, 4, 50).weight
    assert w.abs().max().item() <= 1 / 3 and w.abs().max().item() > 0.3


@pytest.mark.parametrize('call', [
    lambda lib, a, b, w: lib.nn.functional.bilinear(a, b[:2], w),
    lambda lib, a, b, w: lib.nn.functional.bilinear(a, b, w[:, :, :3]),
    lambda lib, a, b, w: lib.nn.functional.bilinear(a, b, w[:, :2]),
    lambda lib, a, b, w: lib.nn.functional.bilinear(a, b, w, lib.ones(3, dtype=lib.float64)),
])
def test_bilinear_errors(call):
    check(call, arr(3, 4), arr(3, 5), arr(2, 4, 5), match_message=True)


# -- interpolate ---------------------------------------------------------------------------
NEAREST = [((1, 2, 5), {'size': 3}), ((1, 2, 5), {'scale_factor': 2}),
           ((2, 1, 4), {'scale_factor': 1.7}), ((1, 2, 5), {'scale_factor': 2.1}),
           ((1, 1, 5), {'scale_factor': 1.1}),
           ((1, 1, 3, 4), {'scale_factor': (1.1, 2.1)}), ((1, 1, 2, 5, 4), {'scale_factor': 2.1}),
           ((1, 2, 5, 6), {'size': (7, 4)}), ((1, 2, 5, 6), {'scale_factor': 1.5}),
           ((1, 1, 5, 6), {'scale_factor': (0.6, 2.5)}), ((1, 1, 3, 7), {'size': 11}),
           ((1, 2, 5, 6), {'scale_factor': 1.7, 'recompute_scale_factor': True}),
           ((1, 1, 3, 4, 2), {'scale_factor': 2}), ((1, 1, 3, 4, 2), {'size': (2, 5, 3)})]
LINEAR = [((1, 2, 5), {'size': 3}), ((1, 2, 5), {'scale_factor': 2.3}),
          ((2, 2, 4, 5), {'size': (7, 3)}), ((1, 2, 5, 6), {'scale_factor': 1.7}),
          ((1, 1, 6, 5), {'scale_factor': (0.5, 2.5)}), ((1, 1, 4, 4), {'size': 1}),
          ((1, 2, 5, 6), {'scale_factor': 1.3, 'recompute_scale_factor': True}),
          ((1, 1, 3, 4, 2), {'scale_factor': (1.5, 0.7, 2)})]


@pytest.mark.parametrize('shape,kw', NEAREST)
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_interpolate_nearest(shape, kw, dtype):
    check(lambda lib, x: lib.nn.functional.interpolate(x, **kw), arr(*shape, dtype=dtype),
          double=True)


@pytest.mark.parametrize('shape,kw', LINEAR)
@pytest.mark.parametrize('align_corners', [False, True])
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_interpolate_linear_and_bilinear(shape, kw, align_corners, dtype):
    mode = {3: 'linear', 4: 'bilinear', 5: 'trilinear'}[len(shape)]
    check(lambda lib, x: lib.nn.functional.interpolate(x, mode=mode, align_corners=align_corners,
                                                       **kw),
          arr(*shape, dtype=dtype), double=True)


def test_interpolate_bilinear_default_align_corners_and_upsample_module():
    check(lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=3, mode='bilinear'),
          arr(1, 2, 3, 4), double=True)
    check(lambda lib, x: lib.nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)(x),
          arr(1, 2, 3, 4))
    check(lambda lib, x: lib.nn.Upsample(size=(4, 5))(x), arr(1, 2, 3, 4))
    for args, text in [({'scale_factor': 2}, "Upsample(scale_factor=2.0, mode='nearest')"),
                       ({'size': 3, 'mode': 'bilinear'}, "Upsample(size=3, mode='bilinear')"),
                       ({'scale_factor': (2, 3)},
                        "Upsample(scale_factor=(2.0, 3.0), mode='nearest')")]:
        for lib in (ember, torch):
            assert repr(lib.nn.Upsample(**args)) == text


@pytest.mark.parametrize('call', [
    lambda lib, x: lib.nn.functional.interpolate(x, size=3, scale_factor=2),
    lambda lib, x: lib.nn.functional.interpolate(x, size=3, align_corners=True),
    lambda lib, x: lib.nn.functional.interpolate(x, size=3, mode='foo'),
    lambda lib, x: lib.nn.functional.interpolate(x, size=3, mode='linear'),
    lambda lib, x: lib.nn.functional.interpolate(x[0], size=3, mode='bilinear'),
    lambda lib, x: lib.nn.functional.interpolate(x),
    lambda lib, x: lib.nn.functional.interpolate(x, size=(3,)),
    lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=(2,)),
    lambda lib, x: lib.nn.functional.interpolate(x, size=0),
    lambda lib, x: lib.nn.functional.interpolate(x, size=3, recompute_scale_factor=True),
    lambda lib, x: lib.nn.functional.interpolate(x[0, 0], size=3),
])
def test_interpolate_errors(call):
    check(call, arr(1, 2, 5, 6), match_message=True)
