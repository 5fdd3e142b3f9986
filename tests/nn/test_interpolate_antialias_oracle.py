"""F.interpolate(..., antialias=True) ('bilinear', 'bicubic', 'lanczos') and uint8 resampling
against torch: values, gradients (and their gradients), dtypes, memory formats, the saved
values of torch's nodes, errors.

Left out, as torch's own bugs: a contiguous float input resized to width 1 and a new
height (torch's antialiased forward repeats its first row down the column, while its
backward and its channels-last forward do not), and a contiguous uint8 image of 3 channels
resized to 1 x 1 (torch's INTERNAL ASSERT).
"""
import math

import numpy as np
import pytest

import ember
from ..oracle.oracle import arr, check, torch

MODES = [('bilinear', False), ('bilinear', True), ('bicubic', False), ('bicubic', True),
         ('lanczos', False)]
# (input H, W; the interpolate arguments): down, up, mixed, by size and by scale factor
CASES = [((9, 9), dict(size=(5, 13))), ((16, 16), dict(size=(16, 7))),
         ((8, 12), dict(scale_factor=(0.3, 1.7))), ((20, 17), dict(scale_factor=1.1)),
         ((40, 33), dict(size=(3, 100))), ((7, 5), dict(size=(1, 1))),
         ((6, 6), dict(scale_factor=(0.5, 0.75))), ((3, 30), dict(size=(9, 2))),
         ((5, 3), dict(scale_factor=2.5, recompute_scale_factor=True)),
         ((31, 29), dict(scale_factor=0.13))]


def _aa(mode, align_corners, channels_last=False, **kwargs):
    def f(lib, x):
        if channels_last:
            x = x.contiguous(memory_format=lib.channels_last)
        y = lib.nn.functional.interpolate(x, mode=mode, align_corners=align_corners,
                                          antialias=True, **kwargs)
        return y, y.is_contiguous(memory_format=lib.channels_last)
    return f


@pytest.mark.parametrize('mode,align_corners', MODES)
@pytest.mark.parametrize('hw,kwargs', CASES)
def test_values_and_gradients_float64(mode, align_corners, hw, kwargs):
    """Exact to float64 rounding, first and second derivatives too."""
    check(_aa(mode, align_corners, **kwargs), arr(2, 3, *hw, seed=1), double=True,
          rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize('mode,align_corners', MODES)
@pytest.mark.parametrize('hw,kwargs', CASES[:6])
def test_values_and_gradients_float32_channels_last(mode, align_corners, hw, kwargs):
    """float32 and channels-last inputs: the result (and the gradient) keep the format."""
    x = arr(2, 3, *hw, dtype=np.float32, seed=2)
    check(_aa(mode, align_corners, channels_last=True, **kwargs), x)
    check(_aa(mode, align_corners, **kwargs), x)


@pytest.mark.parametrize('mode', ['bilinear', 'bicubic'])
def test_channels_last_gradient_keeps_format(mode):
    for lib in (ember, torch):
        x = lib.ones(2, 3, 8, 8, dtype=lib.float64).contiguous(memory_format=lib.channels_last)
        x.requires_grad_()
        y = lib.nn.functional.interpolate(x, size=(3, 5), mode=mode, antialias=True)
        y.backward(lib.ones(2, 3, 3, 5, dtype=lib.float64))
        assert x.grad.is_contiguous(memory_format=lib.channels_last)
        assert not x.grad.is_contiguous()


@pytest.mark.parametrize('mode,align_corners', MODES)
def test_gradcheck(mode, align_corners):
    """ember's gradients against its own finite differences (and second order)."""
    for size in [(3, 4), (11, 2), (5, 5)]:
        x = ember.tensor(arr(1, 2, 5, 5, seed=3), requires_grad=True)

        def f(t):
            return ember.nn.functional.interpolate(t, size, mode=mode, antialias=True,
                                                   align_corners=align_corners)
        assert ember.autograd.gradcheck(f, [x])
        assert ember.autograd.gradgradcheck(f, [x])


def test_saved_values_and_node_names():
    for mode, node in [('bilinear', 'UpsampleBilinear2DAaBackward0'),
                       ('bicubic', 'UpsampleBicubic2DAaBackward0'),
                       ('lanczos', 'UpsampleLanczos2DAaBackward0')]:
        for kwargs in [dict(size=(3, 7)), dict(scale_factor=(0.5, 1.5))]:
            got = []
            for lib in (ember, torch):
                x = lib.ones(1, 2, 8, 6, requires_grad=True)
                fn = lib.nn.functional.interpolate(x, mode=mode, antialias=True,
                                                   **kwargs).grad_fn
                got.append((type(fn).__name__ if lib is ember else fn.name(),
                            fn._saved_output_size, fn._saved_scales_h, fn._saved_scales_w,
                            fn._saved_align_corners, fn._saved_self_sym_sizes))
            assert got[0] == got[1] and got[0][0] == node


@pytest.mark.parametrize('mode', ['bilinear', 'bicubic'])
def test_unchanged_size_with_scale_factor(mode):
    """A dim whose size a scale factor leaves as it is (8 * 1.1 -> 8): torch's forward
    leaves it alone while its backward applies the weights of that scale, as ember's."""
    check(lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=(1.1, 0.5), mode=mode,
                                                       antialias=True),
          arr(1, 2, 8, 8, seed=4), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize('mode,align_corners,antialias',
                         [m + (aa,) for m in MODES for aa in (True, False)
                          if m[0] != 'lanczos' or aa])   # (lanczos needs antialias)
@pytest.mark.parametrize('channels', [3, 5])
@pytest.mark.parametrize('channels_last', [False, True])
def test_uint8_exact(mode, align_corners, antialias, channels, channels_last):
    """uint8 images (antialiased or not) give torch's bytes exactly: its fixed-point
    kernels, one dim at a time, rounding and clamping each pass."""
    rng = np.random.default_rng(5)
    for hw, kwargs in CASES:
        if 'recompute_scale_factor' in kwargs or (kwargs.get('size') == (1, 1)
                                                  and not channels_last):
            continue
        x = rng.integers(0, 256, (2, channels) + hw).astype(np.uint8)
        got = []
        for lib in (ember, torch):
            t = lib.tensor(x)
            if channels_last:
                t = t.contiguous(memory_format=lib.channels_last)
            y = lib.nn.functional.interpolate(t, mode=mode, align_corners=align_corners,
                                              antialias=antialias, **kwargs)
            got.append((y.numpy(), str(y.dtype).split('.')[-1],
                        y.is_contiguous(memory_format=lib.channels_last)))
        assert got[0][1:] == got[1][1:]
        np.testing.assert_array_equal(got[0][0], got[1][0])


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'int8', 'int32', 'int64', 'bool',
                                   'complex64'])
@pytest.mark.parametrize('mode', ['bilinear', 'bicubic', 'lanczos'])
def test_unsupported_dtypes(dtype, mode):
    """torch's CPU antialiased kernel takes float32, float64 and uint8 only."""
    check(lambda lib: lib.nn.functional.interpolate(
        lib.ones(1, 2, 8, 8, dtype=getattr(lib, dtype)), size=(3, 3), mode=mode,
        antialias=True), match_message=True)


@pytest.mark.parametrize('call', [
    lambda F, lib: F.interpolate(lib.ones(1, 2, 8), size=3, mode='bilinear', antialias=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 4, 4, 4), size=3, mode='bicubic',
                                 antialias=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 8, 8), size=3, mode='nearest',
                                 antialias=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 8, 8), size=3, mode='area', antialias=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 8, 8), size=3, mode='linear', antialias=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 8, 8), size=3, mode='bogus', antialias=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 8, 8), size=0, mode='bilinear',
                                 antialias=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 0, 8), size=3, mode='bicubic',
                                 antialias=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 8, 8, dtype=lib.int32), size=(0, 3),
                                 mode='bicubic', antialias=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 8, 8, dtype=lib.int32), size=(0, 3),
                                 mode='bilinear'),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 4, 8), size=3, mode='lanczos'),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 4, 8), size=3, mode='lanczos',
                                 align_corners=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 4, 8), size=3, mode='lanczos',
                                 align_corners=True, antialias=True),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 4), size=3, mode='lanczos'),
    lambda F, lib: F.interpolate(lib.ones(1, 2, 8, 8), size=3, mode='nearest',
                                 align_corners=True, antialias=True),
])
def test_errors(call):
    check(lambda lib: call(lib.nn.functional, lib), match_message=True)


def test_empty_batch_and_module():
    """An empty batch resamples to an empty result; nn.Upsample has no antialias argument,
    so the functional form is the way in (as in torch)."""
    check(lambda lib, x: lib.nn.functional.interpolate(x, size=(3, 3), mode='bicubic',
                                                       antialias=True),
          arr(0, 2, 4, 8))
    for lib in (ember, torch):
        with pytest.raises(TypeError):
            lib.nn.Upsample(size=3, mode='bilinear', antialias=True)


def test_downsampling_averages():
    """The point of antialiasing: a checkerboard downsampled by 4 comes out near its mean."""
    x = np.indices((16, 16)).sum(0) % 2 * 1.0
    for lib in (ember, torch):
        t = lib.tensor(x).reshape(1, 1, 16, 16)
        y = lib.nn.functional.interpolate(t, scale_factor=0.25, mode='bilinear',
                                          antialias=True)
        assert math.isclose(y.mean().item(), 0.5) and (y - 0.5).abs().max().item() < 0.1
