"""PyTorch's test/test_nn.py, class TestNNDeviceType (its CPU instantiation), the tests whose
names sort before ``test_m`` about sampling and convolution: affine_grid + grid_sample
against scipy.ndimage.affine_transform (rotations by 0, 90, 45 degrees and random angles, 2-d
and 3-d), grid_sample on strided views (the ``large_index`` tests), NaN and inf in the grid,
and convolutions of empty batches in channels-last layouts.

Shrunk: test_grid_sample_large_index_2d / _3d sample a view with stride 128 of a 33 x 1024
image instead of a 32769 x 65536 one (which upstream needs for 64-bit indexing: 8 GiB to 16 GiB,
beyond this machine); the view-versus-contiguous comparison they make is the same. In
test_affine_*_rotateRandom the element-by-element check of the grid against the reference
matrix is one vectorised comparison.
Not adapted: test_avg_pool_large_tensor, test_avg_pool_large_tensor2,
test_adaptiveavg_pool1d_shmem, test_grid_sample_large, test_grid_sample_half_precision,
test_grid_sample_bfloat16_precision (CUDA only); in
test_conv_empty_input the checks of the private ``torch._C._nn.slow_conv3d`` /
``thnn_conv2d``.
"""
import itertools
import math
import random

import numpy as np
import pytest

from ._nn_rest import eq, lib_fixture, randn

ndimage = pytest.importorskip('scipy.ndimage', reason='scipy gives the reference transform')

XFAIL = {}
lib = lib_fixture(XFAIL)


def _angles(rng):
    return [r * math.pi * 2 for r in [0.0, 0.5, 0.25, 0.125, rng.random()]]


def _axes(rng):
    t = (rng.random(), rng.random(), rng.random())
    norm = sum(x ** 2 for x in t) ** 0.5
    return [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), tuple(x / norm for x in t)]


def _chain(*mats):
    out = mats[0]
    for m in mats[1:]:
        out = out @ m
    return out


def _scaling(centers):
    """The homogeneous matrices taking the grid's [-1, 1] to pixel positions and back."""
    n = len(centers)
    intrans, inscale = np.eye(n + 1), np.eye(n + 1)
    intrans[:n, n] = centers
    inscale[np.arange(n), np.arange(n)] = centers
    return intrans, inscale


def _affine_2d(lib, input_size, output_size, angle):
    """A rotation by ``angle`` as (theta for affine_grid, the scipy transform, the matrix
    mapping an output pixel (row, col, 1) to its grid entry)."""
    ic = [(x - 1) / 2.0 for x in input_size[2:]]
    oc = [(x - 1) / 2.0 for x in output_size[2:]]
    s, c = math.sin(angle), math.cos(angle)
    intrans, inscale = _scaling(ic)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    outscale = np.diag([1.0 / oc[0], 1.0 / oc[1], 1.0])
    outtrans = np.eye(3)
    outtrans[:2, 2] = [-oc[0], -oc[1]]
    reorder = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], dtype=np.float64)
    transform = _chain(intrans, inscale, rot.T, outscale, outtrans)
    grid = _chain(reorder, rot.T, outscale, outtrans)
    theta = lib.tensor(rot[:2].astype(np.float32)).unsqueeze(0)
    return theta, transform, grid


def _affine_3d(lib, input_size, output_size, angle, axis):
    ic = [(x - 1) / 2.0 for x in input_size[2:]]
    oc = [(x - 1) / 2.0 for x in output_size[2:]]
    s, c = math.sin(angle), math.cos(angle)
    c1 = 1 - c
    intrans, inscale = _scaling(ic)

    def rotation(a, b, d):  # about the unit axis (a, b, d), homogeneous
        return np.array([
            [a * a * c1 + c, b * a * c1 - d * s, d * a * c1 + b * s, 0],
            [a * b * c1 + d * s, b * b * c1 + c, d * b * c1 - a * s, 0],
            [a * d * c1 - b * s, b * d * c1 + a * s, d * d * c1 + c, 0],
            [0, 0, 0, 1]])

    l, m, n = axis
    scipy_rot = rotation(l, m, n)
    torch_rot = rotation(n, m, l)    # (torch orders the axes x, y, z; scipy z, y, x)
    outscale = np.diag([1.0 / oc[0], 1.0 / oc[1], 1.0 / oc[2], 1.0])
    outtrans = np.eye(4)
    outtrans[:3, 3] = [-o for o in oc]
    reorder = np.eye(4)[[2, 1, 0, 3]]
    inv = np.linalg.inv(scipy_rot)
    transform = _chain(intrans, inscale, inv, outscale, outtrans)
    grid = _chain(reorder, inv, outscale, outtrans)
    theta = lib.tensor(torch_rot[:3].astype(np.float32)).unsqueeze(0)
    return theta, transform, grid


def _sample(lib, input_ary, theta, output_size):
    F = lib.nn.functional
    affine = F.affine_grid(theta, lib.Size(output_size), align_corners=True)
    out = F.grid_sample(lib.tensor(input_ary), affine, padding_mode='border',
                        align_corners=True)
    return affine, out


def _check_grid(affine, grid):
    """Every entry of the affine grid equals ``grid @ (index..., 1)`` (upstream loops)."""
    sizes = affine.shape[1:-1]
    idx = np.stack(np.meshgrid(*[np.arange(n) for n in sizes], indexing='ij'), -1)
    homog = np.concatenate([idx, np.ones(idx.shape[:-1] + (1,))], -1)
    expected = homog @ grid.T
    eq(affine[0].double(), expected[..., :len(sizes)])


def test_affine_2d_rotate0(lib):
    input_size, output_size = [1, 1, 3, 3], [1, 1, 5, 5]
    input_ary = np.random.default_rng(0).random(input_size).astype(np.float32)
    theta, transform, offset = _affine_2d(lib, input_size, output_size, 0.)
    scipy_ary = ndimage.affine_transform(input_ary[0, 0], transform, offset=offset,
                                         output_shape=output_size[2:], order=1,
                                         mode='nearest', prefilter=False)
    _, out = _sample(lib, input_ary, theta, output_size)
    eq(float(scipy_ary.mean()), out.mean().item())
    eq(out.reshape(scipy_ary.shape), scipy_ary)


def test_affine_2d_rotate90(lib):
    sizes_in = [[1, 1, 2, 2], [1, 1, 3, 3], [1, 1, 4, 4], [1, 1, 6, 6]]
    sizes_out = [[1, 1, 2, 2], [1, 1, 3, 3], [1, 1, 4, 4], [1, 1, 5, 5], [1, 1, 6, 6]]
    rng = np.random.default_rng(1)
    for input_size, output_size in itertools.product(sizes_in, sizes_out):
        input_ary = rng.random(input_size).astype(np.float32)
        theta, transform, offset = _affine_2d(lib, input_size, output_size, 0.25 * math.pi * 2)
        scipy_ary = ndimage.affine_transform(input_ary[0, 0], transform, offset=offset,
                                             output_shape=output_size[2:], order=1,
                                             mode='nearest', prefilter=True)
        if input_size == output_size:
            eq(float(scipy_ary.mean()), float(input_ary.mean()))
        eq(float(scipy_ary[0, 0]), float(input_ary[0, 0, 0, -1]))
        eq(float(scipy_ary[0, -1]), float(input_ary[0, 0, -1, -1]))
        eq(float(scipy_ary[-1, -1]), float(input_ary[0, 0, -1, 0]))
        eq(float(scipy_ary[-1, 0]), float(input_ary[0, 0, 0, 0]))
        _, out = _sample(lib, input_ary, theta, output_size)
        eq(float(scipy_ary.mean()), out.mean().item())
        eq(out.reshape(scipy_ary.shape), scipy_ary)


def test_affine_2d_rotate45(lib):
    input_size = output_size = [1, 1, 3, 3]
    input_ary = np.zeros(input_size, dtype=np.float32)
    input_ary[0, 0, 0, :] = 0.5
    input_ary[0, 0, 2, 2] = 1.0
    theta, transform, offset = _affine_2d(lib, input_size, output_size, 0.125 * math.pi * 2)
    scipy_ary = ndimage.affine_transform(input_ary[0, 0], transform, offset=offset,
                                         output_shape=output_size[2:], order=1,
                                         mode='nearest', prefilter=False)
    _, out = _sample(lib, input_ary, theta, output_size)
    eq(out.reshape(scipy_ary.shape), scipy_ary)


def test_affine_2d_rotateRandom(lib):
    rng = random.Random(0)
    nrng = np.random.default_rng(2)
    sizes_in = [[1, 1, 3, 5], [1, 1, 3, 3], [1, 1, 4, 4], [1, 1, 3, 4]]
    sizes_out = [[1, 1, 5, 3], [1, 1, 3, 5], [1, 1, 4, 3], [1, 1, 5, 5], [1, 1, 6, 6]]
    for angle, input_size, output_size in itertools.product(_angles(rng), sizes_in, sizes_out):
        input_ary = nrng.random(input_size).astype(np.float32).round(3)
        input_ary[0, 0, 0, 0] = 2
        input_ary[0, 0, 0, -1] = 4
        input_ary[0, 0, -1, 0] = 6
        input_ary[0, 0, -1, -1] = 8
        theta, transform, grid = _affine_2d(lib, input_size, output_size, angle)
        scipy_ary = ndimage.affine_transform(input_ary[0, 0], transform,
                                             output_shape=output_size[2:], order=1,
                                             mode='nearest', prefilter=False)
        affine, out = _sample(lib, input_ary, theta, output_size)
        _check_grid(affine, grid)
        eq(out.reshape(scipy_ary.shape), scipy_ary)


def test_affine_3d_rotateRandom(lib):
    rng = random.Random(1)
    nrng = np.random.default_rng(3)
    sizes_in = [[1, 1, 2, 2, 2], [1, 1, 2, 3, 4], [1, 1, 3, 3, 3], [1, 1, 4, 4, 4],
                [1, 1, 3, 4, 5]]
    sizes_out = [[1, 1, 2, 2, 2], [1, 1, 3, 3, 3], [1, 1, 3, 4, 5], [1, 1, 4, 3, 2],
                 [1, 1, 5, 5, 5], [1, 1, 6, 6, 6]]
    for angle, axis, input_size, output_size in itertools.product(
            _angles(rng), _axes(rng), sizes_in, sizes_out):
        input_ary = nrng.random(input_size).astype(np.float32)
        for k, corner in enumerate(itertools.product([0, -1], repeat=3)):
            input_ary[(0, 0) + corner] = k + 2
        theta, transform, grid = _affine_3d(lib, input_size, output_size, angle, axis)
        scipy_ary = ndimage.affine_transform(input_ary[0, 0], transform,
                                             output_shape=output_size[2:], order=1,
                                             mode='nearest', prefilter=False)
        affine, out = _sample(lib, input_ary, theta, output_size)
        _check_grid(affine, grid)
        eq(out.reshape(scipy_ary.shape), scipy_ary)


def _strided_view_matches(lib, im, coords, modes):
    """Sampling a view with stride 128 of ``im`` equals sampling a contiguous copy, forward
    and backward."""
    F = lib.nn.functional
    large_view = im[..., 127::128]
    small_image = lib.rand_like(large_view)
    large_view[...] = small_image
    large_view.requires_grad, small_image.requires_grad = True, True
    for mode, padding_mode, align_corners in itertools.product(
            modes, ('zeros', 'border', 'reflection'), (True, False)):
        a = F.grid_sample(small_image, coords, mode=mode, padding_mode=padding_mode,
                          align_corners=align_corners)
        a.sum().backward()
        b = F.grid_sample(large_view, coords, mode=mode, padding_mode=padding_mode,
                          align_corners=align_corners)
        b.sum().backward()
        eq(a, b)
        eq(small_image.grad, large_view.grad)
        small_image.grad.zero_()
        large_view.grad.zero_()


@pytest.mark.parametrize('dtype', ['float', 'double'])
def test_grid_sample_large_index_2d(lib, dtype):
    dt = getattr(lib, dtype)
    im = lib.zeros([1, 1, 33, 1024], dtype=dt)
    coords = lib.tensor(np.random.default_rng(0).random((1, 4, 4, 2))).to(dt)
    _strided_view_matches(lib, im, coords, ('nearest', 'bilinear', 'bicubic'))


@pytest.mark.parametrize('dtype', ['float', 'double'])
def test_grid_sample_large_index_3d(lib, dtype):
    dt = getattr(lib, dtype)
    coords = lib.full((1, 2, 2, 2, 3), 1., dtype=dt)
    im = lib.zeros([1, 1, 2, 33, 1024], dtype=dt)
    result = lib.nn.functional.grid_sample(im, coords, align_corners=False)
    eq(result, lib.zeros((1, 1, 2, 2, 2), dtype=dt))
    coords = lib.tensor(np.random.default_rng(1).random((1, 1, 4, 4, 3))).to(dt)
    _strided_view_matches(lib, im, coords, ('nearest', 'bilinear'))


@pytest.mark.parametrize('dtype', ['float', 'double'])
def test_grid_sample_nan_inf(lib, dtype):
    dt = getattr(lib, dtype)
    input = lib.zeros([1, 1, 3, 3], dtype=dt)
    grid = lib.tensor([[[[math.nan, 0], [0, math.inf]]]], dtype=dt)
    for padding_mode in ('reflection', 'border', 'zeros'):
        sample = lib.nn.functional.grid_sample(input=input, grid=grid, mode='nearest',
                                               padding_mode=padding_mode, align_corners=False)
        eq(sample, lib.zeros([1, 1, 1, 2], dtype=dt))


@pytest.mark.filterwarnings('ignore:Complex modules are a new feature')
@pytest.mark.parametrize('dtype', ['float', 'double', 'bfloat16', 'complex128'])
def test_conv_empty_input(lib, dtype):
    dt = getattr(lib, dtype)

    def check(input, conv, memory_format):
        ref_out = conv(input)
        conv_cl = conv.to(memory_format=memory_format)
        out_cl = conv_cl(input)
        eq(ref_out, out_cl)
        input_cl = input.to(memory_format=memory_format)
        out_cl2 = conv(input_cl)
        eq(out_cl, out_cl2)
        out_cl3 = conv_cl(input_cl)
        eq(out_cl, out_cl3)

    input2d = randn(lib, 0, 4, 20, 20).to(dt)
    check(input2d, lib.nn.Conv2d(4, 4, 3, 1).to(dtype=dt), lib.channels_last)
    input3d = randn(lib, 0, 4, 20, 20, 20).to(dt)
    check(input3d, lib.nn.Conv3d(4, 4, 3, 1).to(dtype=dt), lib.channels_last_3d)
    weight = randn(lib, 4, 8, 3, 3, seed=1)[:, ::2, :, :].to(dt)
    bias = randn(lib, 4, seed=2).to(dt)
    F = lib.nn.functional
    out = F.conv2d(input2d, weight, bias, (1, 1), 0, (1, 1), 1)
    out_ref = F.conv2d(input2d, weight.contiguous(), bias, (1, 1), 0, (1, 1), 1)
    eq(out_ref, out)
