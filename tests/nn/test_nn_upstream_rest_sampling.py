"""PyTorch's test/test_nn.py, class TestNN, from test_grid_sample_error_checking to test_interpolate
(in upstream's order): grid_sample and affine_grid (argument checks, known inputs, gradient
edge cases, random shapes, rounding consistency), channel shuffle, and upsampling /
interpolate (linear, bilinear, bicubic, trilinear, nearest, area; spatial invariance,
bfloat16, sizes and scales).

Upstream compares grid_sample with printed numbers and with torch's private
``_grid_sampler_2d_cpu_fallback``; here the same inputs (values and gradients) run on ember
and on torch and are compared (``oracle``). Random sizes are drawn from a seeded generator and
kept small where upstream gradchecks them (a finite-difference Jacobian per element).

Not adapted: test_interpolate_illegal_memory_access (CUDA), test_interpolate_buffer_overflow
(inputs of 2**24 elements per row: gigabytes on NumPy).
"""
import math
import random
import warnings

import pytest

from ._nn_rest import eq, lib_fixture, oracle, rand, randn, raises

XFAIL = {}
lib = lib_fixture(XFAIL)

_MODES2D = [(m, p, a) for m in ('bilinear', 'nearest', 'bicubic')
            for p in ('zeros', 'border', 'reflection') for a in (True, False)]


def test_grid_sample_error_checking(lib):
    F = lib.nn.functional
    input = lib.empty(1, 1, 2, 2)
    grid = lib.empty(1, 1, 1, 2)
    F.grid_sample(input, grid, align_corners=False)
    with raises(ValueError, "but got: 'garbage'"):
        F.grid_sample(input, grid, mode='garbage', align_corners=False)
    with raises(ValueError, "but got: 'garbage'"):
        F.grid_sample(input, grid, padding_mode='garbage', align_corners=False)
    with raises(RuntimeError, "expected grid to have size 1 in last dimension"):
        F.grid_sample(input[0], grid, align_corners=False)
    with raises(RuntimeError, "expected grid to have size 2 in last dimension"):
        F.grid_sample(input, lib.empty(1, 1, 1, 1, 3), align_corners=False)
    with raises(RuntimeError, "expected grid and input to have same batch size"):
        F.grid_sample(input, lib.empty(2, 1, 1, 2), align_corners=False)
    with raises(RuntimeError, "expected grid to have size 2 in last dimension"):
        F.grid_sample(input, lib.empty(1, 1, 1, 3), align_corners=False)
    with raises(RuntimeError, "expected input to have non-empty spatial dimensions"):
        F.grid_sample(lib.empty(1, 1, 0, 2), grid, align_corners=False)
    with raises(RuntimeError, "bicubic interpolation only supports 4D input"):
        F.grid_sample(lib.empty(1, 1, 2, 2, 2), lib.empty(1, 1, 1, 1, 3), mode='bicubic')


def test_affine_grid_error_checking(lib):
    F = lib.nn.functional
    for theta, size, bad_size, rank in [
            (lib.empty(1, 2, 3, dtype=lib.double), [1, 1, 2, 2], [1, 1, 2, 1], '2D'),
            (lib.empty(1, 3, 4, dtype=lib.double), [1, 1, 2, 2, 2], [1, 1, 3, 2, 1], '3D')]:
        size, bad_size = lib.Size(size), lib.Size(bad_size)
        F.affine_grid(theta.zero_(), size, align_corners=False)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            F.affine_grid(theta, bad_size, align_corners=False)
            assert 'See the documentation of affine_grid for details.' not in \
                ' '.join(map(str, w))
            F.affine_grid(theta, bad_size, align_corners=True)
            assert 'See the documentation of affine_grid for details.' in ' '.join(map(str, w))
        if rank == '2D':
            with raises(ValueError, "Expected theta to have floating point type"):
                F.affine_grid(theta.int(), size, align_corners=False)
        shape = 'Nx2x3' if rank == '2D' else 'Nx3x4'
        for bad in (theta[0], theta.unsqueeze(0), theta.repeat(1, 2, 1), theta.repeat(1, 1, 2)):
            with raises(ValueError, f"Expected a batch of {rank} affine matrices of shape {shape}"):
                F.affine_grid(bad, size, align_corners=False)
    for size in ([1, 2, 2], [1, 1, 2, 2, 2, 2]):
        with raises(NotImplementedError, "affine_grid only supports 4D and 5D sizes"):
            F.affine_grid(theta, lib.Size(size), align_corners=False)


@pytest.mark.parametrize('nd', [2, 3])
def test_affine_grid_backward_cl_cf_consistency(lib, nd):
    theta = rand(lib, 6, nd, nd + 1, requires_grad=True)
    size = [6, 3, 4, 5] if nd == 2 else [6, 3, 4, 5, 5]
    grid = lib.nn.functional.affine_grid(theta, size, align_corners=False)
    grad_tensor = rand(lib, *grid.shape, seed=1)
    fmt = lib.channels_last if nd == 2 else lib.channels_last_3d
    grid.backward(grad_tensor.contiguous(memory_format=fmt), retain_graph=True)
    theta_grad_cl = theta.grad.clone().contiguous()
    theta.grad.zero_()
    grid.backward(grad_tensor)
    eq(theta.grad, theta_grad_cl)


# -- grid_sample -----------------------------------------------------------------------

def _known_cases(lib, mode, padding_mode, align_corners):
    """Upstream's known input and gradient edge cases: outputs and grid gradients."""
    F = lib.nn.functional
    input = lib.arange(1., 11).view(1, 1, 2, 5)
    grid = lib.tensor([[[-0.9, -4.1], [0, 0.2000], [1, -1], [-0.333, 1e-6], [0.5, 1.0]],
                       [[-1.0, -0.5], [0, 0.3333], [1, -1], [-0.200, 1e-6], [1.5, 0.5]]]
                      ).view(1, 2, 5, 2)
    outs = [F.grid_sample(input, grid, mode=mode, padding_mode=padding_mode,
                          align_corners=align_corners)]
    input = lib.arange(0., 5).expand((1, 1, 5, 5))
    grid = lib.tensor([[[1.0, 1.0], [1.0, -1.0], [0.8, 0.8], [0.8, -0.8]],
                       [[-1.0, -1.0], [-1.0, 1.0], [-0.8, -0.8], [-0.8, 0.8]]]
                      ).view(1, 2, 4, 2).requires_grad_()
    for input_requires_grad in [False, True]:
        input = input.requires_grad_(input_requires_grad)
        F.grid_sample(input, grid, mode=mode, padding_mode=padding_mode,
                      align_corners=align_corners).sum().backward()
        outs.append(grid.grad.clone())
        grid.grad.zero_()
    return outs


@pytest.mark.parametrize('mode,padding_mode,align_corners', _MODES2D)
def test_grid_sample(mode, padding_mode, align_corners):
    """test_grid_sample's known inputs and gradient edge cases (upstream's ground truth is
    torch's output: here torch's output on the same inputs), then its shape cases."""
    oracle(lambda lib: _known_cases(lib, mode, padding_mode, align_corners),
           rtol=1e-5, atol=1e-5)
    rng = random.Random(hash((mode, padding_mode, align_corners)) % 1000)
    for input_requires_grad in (False, True):
        for N, C, IH, IW, H, W in _grid_shapes(rng):
            oracle(lambda lib: _sample_case(lib, (C, N, IH, IW), (N, H, W, 2), mode,
                                            padding_mode, align_corners, input_requires_grad),
                   rtol=1e-5, atol=1e-5)


def _grid_shapes(rng, dims=2):
    """Upstream's shape cases: same size, larger, smaller, 1x1 input, empty grid, empty
    channels, empty batch (sizes drawn from ``rng``)."""
    r = rng.randint
    same = (2, 3, 4, 4, 4, 4)
    out = [same]
    for _ in range(1):
        ih, iw = r(2, 6), r(2, 6)
        out.append((r(2, 4), r(2, 4), ih, iw, r(ih + 1, 8), r(iw + 1, 8)))
        ih, iw = r(2, 6), r(2, 6)
        out.append((r(2, 4), r(2, 4), ih, iw, r(2, ih), r(2, iw)))
        out.append((r(2, 4), r(2, 4), 1, 1, r(2, 5), r(2, 5)))
        ih, iw = r(2, 6), r(2, 6)
        out.append((r(2, 4), r(2, 4), ih, iw, 0, r(3, iw + 2)))
        out.append((r(2, 4), 0, ih, iw, r(3, ih + 2), r(3, iw + 2)))
        out.append((0, r(2, 4), ih, iw, r(3, ih + 2), r(3, iw + 2)))
    return out


def _sample_case(lib, input_shape, grid_shape, mode, padding_mode, align_corners,
                 input_requires_grad):
    """One of test_grid_sample's shape cases: a transposed (non-contiguous) input, the
    output, and the gradients a fixed output gradient gives."""
    input = randn(lib, *input_shape, dtype='double').transpose(0, 1)
    input.requires_grad_(input_requires_grad)
    grid = randn(lib, *grid_shape, seed=1, dtype='double').requires_grad_()
    out = lib.nn.functional.grid_sample(input, grid, mode=mode, padding_mode=padding_mode,
                                        align_corners=align_corners)
    out.backward(randn(lib, *out.shape, seed=2, dtype='double'))
    return [out, grid.grad] + ([input.grad] if input_requires_grad else [])


@pytest.mark.parametrize('mode,padding_mode,align_corners', _MODES2D)
def test_grid_sample_gradcheck(lib, mode, padding_mode, align_corners):
    """test_grid_sample's gradchecks (upstream: N, C, H, W up to 8)."""
    input = randn(lib, 2, 2, 3, 3, dtype='double', requires_grad=True)
    grid = randn(lib, 2, 3, 3, 2, seed=1, dtype='double', requires_grad=True)
    for input_requires_grad in [False, True]:
        input.requires_grad_(input_requires_grad)
        assert lib.autograd.gradcheck(
            lambda inp, grd: lib.nn.functional.grid_sample(
                inp, grd, mode=mode, padding_mode=padding_mode, align_corners=align_corners),
            (input, grid))


@pytest.mark.parametrize('mode,padding_mode,align_corners', [
    (m, p, a) for m in ('bilinear', 'nearest') for p in ('zeros', 'border', 'reflection')
    for a in (True, False)])
def test_grid_sample_3d(lib, mode, padding_mode, align_corners):
    F = lib.nn.functional

    def sample(inp, grd):
        return F.grid_sample(inp, grd, mode=mode, padding_mode=padding_mode,
                             align_corners=align_corners)
    input = randn(lib, 2, 2, 2, 2, 3, dtype='double', requires_grad=True)
    grid = randn(lib, 2, 2, 2, 3, 3, seed=1, dtype='double', requires_grad=True)
    assert lib.autograd.gradcheck(sample, (input, grid))
    input = input.requires_grad_(False)
    assert lib.autograd.gradcheck(lambda grd: sample(input, grd), (grid,))
    rng = random.Random(7)
    for N, C, ID, IH, IW, D, H, W in [(2, 2, 3, 3, 3, 3, 3, 3),
                                      (rng.randint(2, 4), 2, 2, 3, 2, 4, 4, 3),
                                      (2, 3, 1, 1, 1, 2, 3, 2), (2, 2, 3, 3, 3, 3, 0, 3),
                                      (2, 0, 2, 3, 3, 3, 3, 3), (0, 2, 3, 2, 3, 3, 3, 3)]:
        inp = randn(lib, C, N, ID, IH, IW, dtype='double').transpose(0, 1).requires_grad_()
        grd = randn(lib, D, N, H, W, 3, seed=1, dtype='double').transpose(0, 1).requires_grad_()
        out = sample(inp, grd)
        assert out.size() == lib.Size([N, C, D, H, W])
        out.backward(randn(lib, *out.shape, seed=2, dtype='double'))


def test_grid_sample_3d_values():
    """(ember's own) 3-d grid_sample's outputs and gradients agree with torch's."""
    def fn(lib):
        outs = []
        for mode in ('bilinear', 'nearest'):
            for padding_mode in ('zeros', 'border', 'reflection'):
                for align_corners in (True, False):
                    inp = randn(lib, 2, 2, 3, 3, 4, dtype='double', requires_grad=True)
                    grd = randn(lib, 2, 2, 3, 2, 3, seed=1, dtype='double', requires_grad=True)
                    out = lib.nn.functional.grid_sample(inp, grd, mode=mode,
                                                        padding_mode=padding_mode,
                                                        align_corners=align_corners)
                    outs += [out] + list(lib.autograd.grad(out.sum(), (inp, grd)))
        return outs
    oracle(fn, rtol=1e-10, atol=1e-10)


def test_grid_sample_nearest_neighbor_rounding_mode_consistency(lib):
    def normalize(idx, size, align_corners):
        return 2 * idx / (size - 1) - 1 if align_corners else (idx * 2 + 1) / size - 1

    F = lib.nn.functional
    for padding_mode in ('zeros', 'border', 'reflection'):
        for align_corners in (True, False):
            idx = normalize(lib.arange(0, 10 - 1 + 0.1, 0.1, dtype=lib.float32), 10,
                            align_corners)
            n = idx.shape[0]
            fixed = lib.full((n,), 0.5, dtype=lib.float32)
            data = rand(lib, 10)

            def sample(inp, grd):
                return F.grid_sample(input=inp, grid=grd, mode='nearest',
                                     padding_mode=padding_mode, align_corners=align_corners)
            in_2d_x = data.reshape(1, 10).repeat(1, 1, 9, 1)
            grid_2d_x = lib.cat(tensors=(idx.reshape(n, 1), fixed.reshape(n, 1)),
                                dim=1).repeat(1, 1, 1, 1)
            out_2d_x = sample(in_2d_x, grid_2d_x)
            out_2d_y = sample(lib.transpose(in_2d_x, 3, 2),
                              lib.index_select(grid_2d_x, -1, lib.tensor([1, 0])))
            assert lib.equal(out_2d_x[0, 0, 0, :], out_2d_y[0, 0, 0, :])
            in_3d_x = data.reshape(1, 10).repeat(1, 1, 9, 9, 1)
            grid_3d_x = lib.cat(tensors=(idx.reshape(n, 1), fixed.reshape(n, 1),
                                         fixed.reshape(n, 1)), dim=1).repeat(1, 1, 1, 1, 1)
            assert lib.equal(out_2d_x[0, 0, 0, :], sample(in_3d_x, grid_3d_x)[0, 0, 0, 0, :])
            for dims, order in [((4, 3), [1, 0, 2]), ((4, 2), [1, 2, 0])]:
                out = sample(lib.transpose(in_3d_x, *dims),
                             lib.index_select(grid_3d_x, -1, lib.tensor(order)))
                assert lib.equal(out_2d_x[0, 0, 0, :], out[0, 0, 0, 0, :])


# -- affine_grid ---------------------------------------------------------------------

@pytest.mark.parametrize('nd', [2, 3])
def test_affine_grid(lib, nd):
    """test_affine_grid and test_affine_grid_3d (upstream's known outputs are torch's: here
    the outputs are compared across the two libraries too)."""
    F = lib.nn.functional
    n = 6 if nd == 2 else 12
    input = lib.arange(1., n + 1, dtype=lib.double).view(1, nd, nd + 1)
    size = lib.Size([1, 1] + [2] * nd)
    for align_corners in (True, False):
        eq(F.affine_grid(input, size, align_corners=align_corners),
           _affine_reference(lib, input, size, align_corners))
    rng = random.Random(nd)
    for align_corners in (True, False):
        sz = lib.Size([rng.randint(1, 4) for _ in range(nd + 2)])
        inp = randn(lib, sz[0], nd, nd + 1, dtype='double', requires_grad=True)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            assert lib.autograd.gradcheck(
                lambda inp: F.affine_grid(inp, sz, align_corners=align_corners), (inp,),
                check_forward_ad=True)


def _affine_reference(lib, theta, size, align_corners):
    """The affine grid computed directly: base coordinates (in [-1, 1], shrunk by
    (n - 1) / n without align_corners) times theta transposed."""
    axes = []
    for n in reversed(size[2:]):
        pts = lib.linspace(-1, 1, n, dtype=lib.double)
        axes.append(pts * (n - 1) / n if not align_corners else pts)
    mesh = lib.meshgrid(*reversed(axes), indexing='ij')
    base = lib.stack(list(reversed(mesh)) + [lib.ones_like(mesh[0])], -1)
    return (base.reshape(1, -1, len(axes) + 1) @ theta.transpose(1, 2)).view(
        (1,) + tuple(size[2:]) + (len(axes),))


def test_affine_grid_values():
    """(ember's own) affine_grid's known-input outputs agree with torch's."""
    def fn(lib):
        outs = []
        for nd in (2, 3):
            n = 6 if nd == 2 else 12
            theta = lib.arange(1., n + 1, dtype=lib.double).view(1, nd, nd + 1)
            for align_corners in (True, False):
                outs.append(lib.nn.functional.affine_grid(
                    theta, lib.Size([1, 1] + [2] * nd), align_corners=align_corners))
        return outs
    oracle(fn)


# -- channel shuffle -----------------------------------------------------------------

@pytest.mark.parametrize('native', [False, True])
def test_channel_shuffle_return_alias_of_self(lib, native):
    """test_channel_shuffle_return_alias_of_self and
    test_native_channel_shuffle_return_alias_of_self."""
    input_tensor = rand(lib, 0, 9, 4, 4)
    output = lib.native_channel_shuffle(input_tensor, 3) if native else \
        lib.nn.ChannelShuffle(3)(input_tensor)
    lib.testing.assert_close(output, input_tensor)


def test_channel_shuffle_input_checks(lib):
    input_tensor = rand(lib, 1, 3, 2, 2)
    with raises(RuntimeError, "Number of groups to divide channels in must be positive.*"):
        lib.native_channel_shuffle(input_tensor, 0)
    with raises(RuntimeError, "Number of channels must be divisible by groups.*"):
        lib.native_channel_shuffle(input_tensor, 2)
    with raises(RuntimeError, "channel_shuffle expects input with > 2 dims,.*"):
        lib.native_channel_shuffle(rand(lib, 1, 2), 2)


# -- upsampling and interpolate ------------------------------------------------------

def test_upsamplingLinear1d(lib):
    for align_corners in [True, False]:
        for recompute_scale_factor in [True, False]:
            kwargs = dict(mode='linear', align_corners=align_corners,
                          recompute_scale_factor=recompute_scale_factor)
            for scale_factor in [0.5, 1.5, 2]:
                m = lib.nn.Upsample(scale_factor=scale_factor, **kwargs)
                in_t = lib.ones(1, 1, 2, dtype=lib.double)
                out_size = int(math.floor(in_t.shape[-1] * scale_factor))
                with warnings.catch_warnings(record=True):
                    out_t = m(in_t)
                eq(lib.ones(1, 1, out_size), out_t.data)
                input = randn(lib, 1, 1, 2, dtype='double', requires_grad=True)
                if not recompute_scale_factor:
                    assert lib.autograd.gradcheck(
                        lambda x: lib.nn.functional.interpolate(x, out_size, **kwargs), (input,))
                else:
                    assert lib.autograd.gradcheck(lambda x: lib.nn.functional.interpolate(
                        x, scale_factor=scale_factor, **kwargs), (input,))


@pytest.mark.parametrize('mode,dims', [('linear', 1), ('bilinear', 2), ('trilinear', 3)])
def test_upsampling_spatial_invariance(lib, mode, dims):
    """test_upsamplingLinear1d_spatial_invariance, test_upsamplingBilinear2d_spatial_invariance
    and test_upsamplingTrilinear3d_spatial_invariance."""
    m = lib.nn.Upsample(scale_factor=3, mode=mode, align_corners=False)
    in_t_9 = lib.zeros((1, 1) + (9,) * dims)
    in_t_9[(slice(None), slice(None)) + (slice(None, 4),) * dims] = \
        randn(lib, *((1, 1) + (4,) * dims))
    with warnings.catch_warnings(record=True):
        out_t_9 = m(in_t_9)
        out_t_5 = m(in_t_9[(slice(None), slice(None)) + (slice(None, 5),) * dims])
    eq(out_t_9[(slice(None), slice(None)) + (slice(None, 15),) * dims], out_t_5)


def test_upsampling_not_recompute_scale_factor(lib):
    in_t = lib.arange(8., dtype=lib.double).view(1, 2, 2, 2)
    out_t = lib.nn.functional.interpolate(in_t, scale_factor=2.3, mode='bicubic',
                                          align_corners=False, recompute_scale_factor=False)
    # (upstream's values, which match OpenCV's, at upstream's 1e-4; first row of each channel)
    eq(out_t[0, :, 0], [[-0.32725, -0.08843, 0.37933, 0.79744],
                        [3.67275, 3.91157, 4.37933, 4.79744]], rtol=0, atol=1e-4)
    for align_corners in [True, False]:
        kwargs = dict(mode='bicubic', align_corners=align_corners)
        for scale_factor in [0.6, 1.6, 2.3]:
            in_t = lib.ones(2, 2, 2, 2, dtype=lib.double)
            out_t = lib.nn.functional.interpolate(in_t, scale_factor=scale_factor, **kwargs)
            out_size = int(math.floor(in_t.shape[-1] * scale_factor))
            eq(lib.ones(2, 2, out_size, out_size), out_t.data, rtol=0, atol=1e-5)
            input = randn(lib, 2, 2, 2, 2, dtype='double', requires_grad=True)
            assert lib.autograd.gradcheck(
                lambda x: lib.nn.functional.interpolate(x, out_size, **kwargs), [input])


def test_upsampling_bicubic_values():
    """(ember's own) the whole bicubic output of the test above agrees with torch's."""
    oracle(lambda lib: lib.nn.functional.interpolate(
        lib.arange(8., dtype=lib.double).view(1, 2, 2, 2), scale_factor=2.3, mode='bicubic',
        align_corners=False, recompute_scale_factor=False), rtol=1e-10, atol=1e-10)


def test_upsampling_small_scale(lib):
    m = lib.nn.Upsample(scale_factor=0.5, mode="bilinear")
    in_t = lib.arange(1, 5, dtype=lib.get_default_dtype()).reshape(1, 1, 2, 2)
    eq(m(in_t), lib.tensor([[[[2.5]]]]))


_BF16_CASES = [([3, 20, 11, 7], 2, 'nearest', None), ([3, 20, 11, 7], 2, 'nearest', 'cl'),
               ([3, 20, 11, 7, 3], 2, 'nearest', None), ([3, 20, 30], 2, 'linear', None),
               ([3, 20, 11, 7], 2, 'bilinear', None), ([3, 20, 11, 7], 2, 'bilinear', 'cl'),
               ([1, 3, 11, 7], 2, 'bicubic', None), ([1, 3, 11, 7], 2, 'bicubic', 'cl'),
               ([3, 20, 11, 7, 3], 2, 'trilinear', None), ([3, 5, 5], 257., 'nearest', None),
               ([3, 20, 11, 7], 20, 'nearest', None), ([1, 2, 11, 7], 257, 'nearest', 'cl'),
               ([1, 2, 200, 200], 1 / 37., 'nearest', None),
               ([3, 2, 11, 7, 3], 20, 'nearest', 'cl3d'), ([3, 5, 5], 10, 'linear', None),
               ([3, 5, 5], 257, 'linear', None), ([1, 2, 11, 7], 57, 'bilinear', None),
               ([1, 2, 11, 7], 57, 'bilinear', 'cl'), ([1, 3, 11, 7], 10, 'bicubic', None),
               ([1, 3, 11, 7], 10, 'bicubic', 'cl'), ([1, 1, 11, 7], 57, 'bicubic', None),
               ([3, 2, 11, 7, 3], 8, 'trilinear', None),
               ([3, 2, 11, 7, 3], 8, 'trilinear', 'cl3d')]


@pytest.mark.parametrize('size,scale_factor,mode,fmt', _BF16_CASES)
def test_upsampling_bfloat16(lib, size, scale_factor, mode, fmt):
    """(upstream's 2000 x 2000 and 257-fold 3-d cases are scaled down here)"""
    fmt = {None: lib.contiguous_format, 'cl': lib.channels_last,
           'cl3d': lib.channels_last_3d}[fmt]
    input = randn(lib, *size, dtype='bfloat16').to(memory_format=fmt).detach().requires_grad_()
    inputf = input.to(lib.float32).to(memory_format=lib.contiguous_format).detach()
    inputf.requires_grad_(True)
    m = lib.nn.Upsample(scale_factor=scale_factor, mode=mode)
    outf = m(inputf)
    out = m(input)
    eq(out.to(lib.float32), outf, rtol=0, atol=0.05)
    ginput = randn(lib, *out.shape, seed=1, dtype='bfloat16').to(memory_format=fmt)
    out.backward(ginput)
    outf.backward(ginput.to(lib.float32).to(memory_format=lib.contiguous_format))
    eq(input.grad.to(lib.float32), inputf.grad, atol=0.01, rtol=0.01)


def test_interpolate_undefined_behavior_casting(lib):
    x = lib.ones([1, 1, 16, 16])
    for scale in (-1e20, 1e20):
        with raises(RuntimeError):
            lib.nn.functional.interpolate(x, scale_factor=scale, mode="bilinear")


_INTERP = [(m, d, None) for m in ('nearest', 'area') for d in (1, 2, 3)] + \
    [(m, d, a) for m, d in (('linear', 1), ('bilinear', 2), ('bicubic', 2), ('trilinear', 3))
     for a in (True, False)]


@pytest.mark.parametrize('scale_factor', [0.5, 1.5, 2])
@pytest.mark.parametrize('mode,dim,align_corners', _INTERP)
def test_interpolate(lib, scale_factor, mode, dim, align_corners):
    F = lib.nn.functional
    kwargs = dict(mode=mode) if align_corners is None else \
        dict(mode=mode, align_corners=align_corners)
    if mode == 'bicubic':
        def layer(t):
            return F.interpolate(t, scale_factor=scale_factor, **kwargs)
    else:
        layer = lib.nn.Upsample(scale_factor=scale_factor, **kwargs)
    in_t = lib.ones([1, 1] + [2] * dim, dtype=lib.double, requires_grad=True)
    out_size = int(math.floor(in_t.shape[-1] * scale_factor))
    with warnings.catch_warnings(record=True):
        out_t = layer(in_t)
    eq(lib.ones([1, 1] + [out_size] * dim), out_t)
    eq(F.interpolate(in_t, (out_size,) * dim, **kwargs),
       F.interpolate(in_t, scale_factor=scale_factor, **kwargs))
    assert lib.autograd.gradcheck(lambda x: F.interpolate(x, out_size, **kwargs), [in_t])
    assert lib.autograd.gradgradcheck(lambda x: F.interpolate(x, out_size, **kwargs), [in_t])
    for size in [float(out_size), lib.tensor(out_size, dtype=lib.float)]:
        with raises(TypeError, "(expected size to be one of int or).*"):
            F.interpolate(in_t, size=(size,) * dim, **kwargs)
