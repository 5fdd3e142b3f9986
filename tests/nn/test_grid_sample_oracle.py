"""grid_sample, affine_grid and their torch-level ops (grid_sampler*, affine_grid_generator)
against torch: values, gradients with respect to the input and the grid (first and second
order), grid_fn names, the array path (no graph of the gradient) and torch's errors."""
import itertools
import warnings

import numpy as np
import pytest

from ..oracle.oracle import arr, check

MODES = list(itertools.product(['bilinear', 'nearest'], ['zeros', 'border', 'reflection'],
                               [False, True]))


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('mode, padding, align', MODES, ids=str)
def test_grid_sample_2d(mode, padding, align, dtype):
    # the grid reaches past [-1, 1] so that every padding mode is exercised
    grid = arr(2, 4, 5, 2, seed=1, low=-1.3, high=1.3, dtype=dtype)
    check(lambda lib, x, g: lib.nn.functional.grid_sample(x, g, mode, padding, align),
          arr(2, 3, 5, 6, seed=2, dtype=dtype), grid, double=dtype == np.float64)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('padding, align', list(itertools.product(
    ['zeros', 'border', 'reflection'], [False, True])), ids=str)
def test_grid_sample_bicubic(padding, align, dtype):
    grid = arr(2, 4, 5, 2, seed=19, low=-1.3, high=1.3, dtype=dtype)
    check(lambda lib, x, g: lib.nn.functional.grid_sample(x, g, 'bicubic', padding, align),
          arr(2, 3, 5, 6, seed=20, dtype=dtype), grid, double=dtype == np.float64)
    check(lambda lib, x, g: lib.grid_sampler(x, g, 2, 0, align), arr(1, 2, 4, 4, seed=21),
          arr(1, 3, 3, 2, seed=22, low=-1.1, high=1.1))


@pytest.mark.parametrize('mode, padding, align', MODES, ids=str)
def test_grid_sample_3d(mode, padding, align):
    grid = arr(2, 3, 4, 2, 3, seed=3, low=-1.3, high=1.3)
    check(lambda lib, x, g: lib.nn.functional.grid_sample(x, g, mode, padding, align),
          arr(2, 3, 4, 5, 3, seed=4), grid, double=True)


@pytest.mark.parametrize('mode, padding', [('bilinear', 'zeros'), ('bilinear', 'reflection'),
                                           ('nearest', 'border')])
def test_grid_sample_first_order_on_arrays(mode, padding):
    # backward() without create_graph takes the array path (with scipy when installed)
    def f(lib, x, g):
        x, g = x.detach().requires_grad_(), g.detach().requires_grad_()
        out = lib.nn.functional.grid_sample(x, g, mode, padding, False)
        weights = (lib.arange(out.numel()) % 7 - 3).reshape(out.shape).to(out.dtype)
        (out * weights).sum().backward()
        return [out, x.grad, g.grad]
    for dtype in (np.float32, np.float64):
        check(f, arr(3, 4, 6, 7, seed=5, dtype=dtype),
              arr(3, 5, 4, 2, seed=6, low=-1.2, high=1.2, dtype=dtype), grad=False)
        check(f, arr(2, 2, 3, 4, 5, seed=7, dtype=dtype),
              arr(2, 2, 3, 2, 3, seed=8, low=-1.2, high=1.2, dtype=dtype), grad=False)


@pytest.mark.parametrize('mode, padding, align', MODES, ids=str)
def test_grid_sample_square_inputs_on_arrays(mode, padding, align):
    # square inputs take the arrays' one pass over every dim; the grid reaches well past
    # [-1, 1], so reflections fold more than once; backward() without create_graph takes
    # the array path for both gradients
    def f(lib, x, g):
        x, g = x.detach().requires_grad_(), g.detach().requires_grad_()
        out = lib.nn.functional.grid_sample(x, g, mode, padding, align)
        weights = (lib.arange(out.numel()) % 5 - 2).reshape(out.shape).to(out.dtype)
        (out * weights).sum().backward()
        return [out, x.grad, g.grad]
    for dtype in (np.float32, np.float64):
        check(f, arr(2, 3, 6, 6, seed=23, dtype=dtype),
              arr(2, 5, 4, 2, seed=24, low=-3.5, high=3.5, dtype=dtype), grad=False)
        check(f, arr(2, 2, 4, 4, 4, seed=25, dtype=dtype),
              arr(2, 3, 2, 3, 3, seed=26, low=-3.5, high=3.5, dtype=dtype), grad=False)


def test_grid_sample_nan_coordinate_gives_the_input_no_gradient():
    # a nan coordinate samples nan; no gradient flows from it to the input (torch's mask)
    def f(lib, x, g):
        x, g = x.detach().requires_grad_(), g.detach()
        g[0, 1, 2, 0] = float('nan')
        out = lib.nn.functional.grid_sample(x, g, 'bilinear', 'zeros', False)
        out.sum().backward()
        return [out, x.grad]
    check(f, arr(2, 3, 5, 5, seed=27, dtype=np.float32),
          arr(2, 3, 4, 2, seed=28, low=-1.2, high=1.2, dtype=np.float32), grad=False)


def test_grid_sampler_torch_level_and_default_align_warning():
    def f(lib, x, g):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            default = lib.nn.functional.grid_sample(x, g)
        return [default, str(w[0].message), lib.grid_sampler(x, g, 0, 2, True),
                lib.grid_sampler_2d(x, g, 1, 1, False), lib.grid_sampler(x, g, 1, 0, True)]
    check(f, arr(2, 3, 5, 6, seed=9), arr(2, 4, 5, 2, seed=10, low=-1.2, high=1.2))
    check(lambda lib, x, g: lib.grid_sampler_3d(x, g, 0, 0, False), arr(2, 3, 4, 5, 3, seed=11),
          arr(2, 3, 4, 2, 3, seed=12, low=-1.2, high=1.2))


@pytest.mark.parametrize('call', [
    lambda F, x, g: F.grid_sample(x, g, mode='foo', align_corners=False),
    lambda F, x, g: F.grid_sample(x, g, padding_mode='foo', align_corners=False),
    lambda F, x, g: F.grid_sample(x, g[0], align_corners=False),
    lambda F, x, g: F.grid_sample(x, g[:1], align_corners=False),
    lambda F, x, g: F.grid_sample(x, g[..., :1], align_corners=False),
    lambda F, x, g: F.grid_sample(x[:, :, :0], g, align_corners=False),
    lambda F, x, g: F.grid_sample(x[0], g[0], align_corners=False),
    lambda F, x, g: F.grid_sample(x, g.float(), align_corners=False),
    lambda F, x, g: F.grid_sample(x.unsqueeze(2), g.unsqueeze(1).expand(2, 2, 4, 5, 2),
                                  align_corners=False),
    lambda F, x, g: F.grid_sample(x.unsqueeze(2), g.unsqueeze(1)[..., :1].expand(2, 2, 4, 5, 3),
                                  mode='bicubic', align_corners=False),
    lambda F, x, g: F.grid_sample(x.int(), g.int(), align_corners=False),
    lambda F, x, g: F.grid_sample(x[:, :0], g, align_corners=False),
])
def test_grid_sample_errors(call):
    check(lambda lib, x, g: call(lib.nn.functional, x, g), arr(2, 3, 5, 6, seed=13),
          arr(2, 4, 5, 2, seed=14), match_message=True)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('size, theta, align', [
    ((2, 3, 4, 5), (2, 2, 3), False), ((2, 3, 4, 5), (2, 2, 3), True),
    ((2, 3, 1, 5), (2, 2, 3), False), ((1, 1, 6, 1), (1, 2, 3), False),
    ((2, 3, 4, 5, 3), (2, 3, 4), False), ((2, 3, 4, 5, 3), (2, 3, 4), True),
], ids=str)
def test_affine_grid(size, theta, align, dtype):
    def f(lib, t):
        return [lib.nn.functional.affine_grid(t, size, align),
                lib.affine_grid_generator(t, size, align)]
    check(f, arr(*theta, seed=15, dtype=dtype), double=dtype == np.float64)


def test_affine_grid_then_grid_sample():
    def f(lib, t, x):
        F = lib.nn.functional
        return F.grid_sample(x, F.affine_grid(t, (2, 3, 6, 4), False), align_corners=False)
    check(f, arr(2, 2, 3, seed=16) * 0.7, arr(2, 3, 5, 6, seed=17), double=True)


@pytest.mark.parametrize('call', [
    lambda lib, t: lib.nn.functional.affine_grid(t.int(), (2, 3, 4, 5), False),
    lambda lib, t: lib.nn.functional.affine_grid(t[..., :2], (2, 3, 4, 5), False),
    lambda lib, t: lib.nn.functional.affine_grid(t, (2, 3, 4, 5, 6), False),
    lambda lib, t: lib.nn.functional.affine_grid(t, (2, 3, 4), False),
    lambda lib, t: lib.nn.functional.affine_grid(t, (2, 3, 0, 5), False),
    lambda lib, t: lib.nn.functional.affine_grid(t, (3, 3, 4, 5), False),
    lambda lib, t: lib.affine_grid_generator(t, (3, 3, 4, 5), False),
])
def test_affine_grid_errors(call):
    check(call, arr(2, 2, 3, seed=18), match_message=True)
