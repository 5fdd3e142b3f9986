"""PyTorch's test/test_nn.py, class TestNNDeviceType (CPU), from test_upsamplingBiMode2d to
test_save_lstm_compatibility (in upstream's order): bilinear / bicubic / trilinear upsampling
(values, memory formats, gradients, dtypes), softmax and log-softmax in reduced precision
and on awkward sizes, and loading a pre-1.8 LSTM.

The antialiased and uint8 resampling tests (test_upsamplingBiMode2d with antialias,
test_upsamplingBilinear2d_aa_correctness, test_upsamplingBicubic2d_aa_correctness, the uint8
consistency tests) are in test_nn_upstream_rest_device_resample_aa.py. Not adapted: the
CUDA-only and 64-bit-indexing tests, and the private ``torch._masked_softmax`` tests.
"""
import math
import warnings

import pytest

from ._nn_rest import eq, lib_fixture, oracle, rand, randn, raises

lib = lib_fixture({})


def _bimode(lib, mode, align_corners, antialias, memory_format):
    F = lib.nn.functional
    fmt = getattr(lib, memory_format)
    kwargs = dict(mode=mode, align_corners=align_corners, antialias=antialias)
    for scale_factor in [0.5, 1.5, 2]:
        in_t = lib.ones(2, 3, 8, 8, dtype=lib.double).contiguous(memory_format=fmt)
        in_t.requires_grad_()
        out_size = int(math.floor(in_t.shape[-1] * scale_factor))
        with warnings.catch_warnings(record=True):
            out_t = F.interpolate(in_t, scale_factor=scale_factor, **kwargs)
        eq(lib.ones(2, 3, out_size, out_size, dtype=lib.double), out_t)
        assert out_t.is_contiguous(memory_format=fmt)
        out_t.backward(randn(lib, *out_t.shape, dtype='double'))
        assert in_t.grad.is_contiguous(memory_format=fmt)
        # (upstream gradchecks a 2 x 3 x 8 x 8 input: 1 x 2 x 5 x 5 here)
        out_size = int(math.floor(5 * scale_factor))
        input = randn(lib, 1, 2, 5, 5, dtype='double').contiguous(memory_format=fmt)
        input.requires_grad_()
        assert lib.autograd.gradcheck(lambda x: F.interpolate(x, out_size, **kwargs), [input],
                                      check_forward_ad=True)
        assert lib.autograd.gradgradcheck(lambda x: F.interpolate(x, out_size, **kwargs),
                                          [input])


@pytest.mark.parametrize('memory_format', ['contiguous_format', 'channels_last'])
@pytest.mark.parametrize('mode', ['bilinear', 'bicubic'])
@pytest.mark.parametrize('align_corners', [True, False])
@pytest.mark.parametrize('antialias', [False, True])
def test_upsamplingBiMode2d(lib, mode, align_corners, memory_format, antialias):
    _bimode(lib, mode, align_corners, antialias, memory_format)


@pytest.mark.parametrize('num_channels', [3, 5])
@pytest.mark.parametrize('mode', ['nearest', 'nearest-exact', 'bilinear', 'bicubic'])
@pytest.mark.parametrize('dtype', ['uint8', 'int8', 'int16', 'int32', 'int64', 'float32',
                                   'float64'])
def test_upsamplingBiMode2d_nonsupported_dtypes(lib, num_channels, mode, dtype):
    """(antialias=False; uint8 goes through every one of these modes on the CPU)"""
    x = lib.ones(1, num_channels, 32, 32, dtype=getattr(lib, dtype))
    if dtype.startswith('float') or dtype == 'uint8':
        lib.nn.functional.interpolate(x, (12, 12), mode=mode)
    else:
        with raises(RuntimeError, "not implemented for"):
            lib.nn.functional.interpolate(x, (12, 12), mode=mode)


def test_upsampling_integer_errors():
    """(ember's own) interpolate refuses integer and bool inputs where torch's kernels do,
    with their NotImplementedError and message."""
    for mode, dims in [('nearest', 1), ('nearest', 2), ('nearest-exact', 3), ('linear', 1),
                       ('bilinear', 2), ('bicubic', 2), ('trilinear', 3)]:
        for dtype in ('int8', 'int32', 'bool', 'uint8'):
            oracle(lambda lib: lib.nn.functional.interpolate(
                lib.ones((1, 3) + (4,) * dims, dtype=getattr(lib, dtype)), scale_factor=2,
                mode=mode))


def test_upsamplingBicubic2d_correctness(lib):
    in_t = lib.arange(8.).view(1, 2, 2, 2)
    out_t = lib.nn.functional.interpolate(in_t, scale_factor=2, mode='bicubic',
                                          align_corners=False)
    # (upstream's numbers, OpenCV's: the first row of each channel)
    eq(out_t[0, :, 0], [[-0.31641, 0.01562, 0.56250, 0.89453],
                        [3.68359, 4.01562, 4.56250, 4.89453]], atol=1e-5, rtol=0)
    eq(out_t[0, :, -1], [[2.10547, 2.43750, 2.98438, 3.31641],
                         [6.10547, 6.43750, 6.98438, 7.31641]], atol=1e-5, rtol=0)


@pytest.mark.parametrize('align_corners', [True, False])
@pytest.mark.parametrize('memory_format', ['contiguous_format', 'channels_last_3d'])
def test_upsamplingTrilinear3d(lib, align_corners, memory_format):
    F = lib.nn.functional
    fmt = getattr(lib, memory_format)
    kwargs = dict(mode='trilinear', align_corners=align_corners)
    for scale_factor in [0.5, 1.5, 2]:
        m = lib.nn.Upsample(scale_factor=scale_factor, **kwargs)
        in_t = lib.ones(1, 2, 4, 4, 4, dtype=lib.double).contiguous(memory_format=fmt)
        in_t.requires_grad_()
        out_size = int(math.floor(in_t.shape[-1] * scale_factor))
        out_t = m(in_t)
        eq(lib.ones(1, 2, out_size, out_size, out_size, dtype=lib.double), out_t)
        assert out_t.is_contiguous(memory_format=fmt)
        grad_out = randn(lib, *out_t.shape, dtype='double').contiguous(memory_format=fmt)
        out_t.backward(grad_out, retain_graph=True)
        grad_in = in_t.grad
        assert grad_in.is_contiguous(memory_format=fmt)
        if memory_format == 'channels_last_3d':
            in_t.grad = None
            out_t.backward(grad_out.contiguous())
            eq(in_t.grad, grad_in)
        input = randn(lib, 1, 2, 4, 4, 4, dtype='double', requires_grad=True)
        eq(F.interpolate(input, (out_size,) * 3, **kwargs),
           F.interpolate(input, scale_factor=scale_factor, **kwargs))
        assert lib.autograd.gradcheck(lambda x: F.interpolate(x, out_size, **kwargs), [input])
        assert lib.autograd.gradgradcheck(lambda x: F.interpolate(x, out_size, **kwargs),
                                          [input])


@pytest.mark.parametrize('dtype', ['bfloat16', 'half'])
@pytest.mark.parametrize('fn,atol', [('log_softmax', 0.1), ('softmax', 1e-3)])
def test_softmax_cpu(lib, dtype, fn, atol):
    """test_log_softmax_cpu and test_softmax_cpu."""
    dt = getattr(lib, dtype)
    for dim in [0, 1]:
        inputf = rand(lib, 200, 200, requires_grad=True)
        input = inputf.to(dt).detach().requires_grad_(True)
        outf = getattr(lib.nn.functional, fn)(inputf, dim=dim)
        out = getattr(lib.nn.functional, fn)(input, dim=dim)
        eq(out, outf.to(dtype=dt), atol=atol, rtol=0)
        out.sum().backward()
        outf.sum().backward()
        eq(input.grad, inputf.grad.to(dt), atol=atol, rtol=0)


@pytest.mark.parametrize('fn', ['softmax', 'log_softmax'])
def test_softmax_results(lib, fn):
    """(upstream's sizes less its largest, (16, 30576))"""
    F = lib.nn.functional
    sizes = [(0, 10), (32, 20), (10, 0), (31, 20), (32, 21), (31, 23), (32, 1536), (31, 2048),
             (33, 2049)]
    for i, size in enumerate(sizes):
        for shift in [(0, 0), (1, 0), (0, 1), (1, 1)]:
            input = rand(lib, *size, seed=i)[shift[0]:, shift[1]:].detach().requires_grad_(True)
            ref_input = input.clone().detach().requires_grad_(True)
            for dim in [0, 1]:
                ref_output = getattr(F, fn)(ref_input.double(), dim=dim).float()
                output = getattr(F, fn)(input, dtype=lib.float, dim=dim)
                grad_output = rand(lib, *size, seed=i + 1)[shift[0]:, shift[1]:]
                grad_input, = lib.autograd.grad(output, input, grad_outputs=grad_output,
                                                create_graph=True)
                ref_grad_input, = lib.autograd.grad(ref_output, ref_input,
                                                    grad_outputs=grad_output, create_graph=True)
                eq(output, ref_output, rtol=1e-5, atol=1e-5)
                eq(grad_input, ref_grad_input, rtol=1e-4, atol=1e-5)


def test_log_softmax_big(lib):
    x_small = (rand(lib, 16, 4) * 100).floor()
    x_big = x_small + 1e7
    eq(lib.nn.functional.log_softmax(x_small, -1), lib.nn.functional.log_softmax(x_big, -1))


def test_save_lstm_compatibility(lib):
    model = lib.nn.LSTM(2, 3)
    x = randn(lib, 32, 5, 2)
    expected = model(x)
    assert model.proj_size == 0
    state_dict = model.__dict__
    del state_dict['proj_size']
    loaded_model = lib.nn.LSTM(2, 3)
    loaded_model.__setstate__(state_dict)
    result = loaded_model(x)
    eq(result[0], expected[0])
    eq(list(result[1]), list(expected[1]))
