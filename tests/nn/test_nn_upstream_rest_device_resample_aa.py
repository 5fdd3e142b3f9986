"""PyTorch's test/test_nn.py, class TestNNDeviceType (CPU): the antialiased and uint8
bilinear / bicubic resampling tests (test_upsamplingBiMode2d with antialias=True is in
test_nn_upstream_rest_device_resample.py, parametrized as upstream's).

Upstream's inputs come from torch's generator; here from NumPy's, so both libraries see the
same numbers. Sizes are smaller than upstream's where only the run time grows with them:
upstream's 23000-image batch (for CUDA's grid limit) and its 400 x 400 uint8 images.
"""
import numpy as np
import pytest

from ._nn_rest import eq, lib_fixture, oracle, raises

lib = lib_fixture({})


@pytest.mark.parametrize('num_channels', [3, 5])
@pytest.mark.parametrize('mode', ['bilinear', 'bicubic'])
@pytest.mark.parametrize('dtype', ['uint8', 'int8', 'int16', 'int32', 'int64', 'float32',
                                   'float64'])
def test_upsamplingBiMode2d_nonsupported_dtypes_antialias(lib, num_channels, mode, dtype):
    """test_upsamplingBiMode2d_nonsupported_dtypes with antialias=True (upstream skips the
    nearest modes there: they have no antialiasing)."""
    x = lib.ones(1, num_channels, 32, 32, dtype=getattr(lib, dtype))
    if dtype.startswith('float') or dtype == 'uint8':
        lib.nn.functional.interpolate(x, (12, 12), mode=mode, antialias=True)
    else:
        with raises(RuntimeError, "not implemented for"):
            lib.nn.functional.interpolate(x, (12, 12), mode=mode, antialias=True)


def _aa_correctness(lib, mode, memory_format, batch):
    fmt = getattr(lib, memory_format)
    t_in = lib.arange(3 * 8 * 8, dtype=lib.float).reshape(1, 3, 8, 8)
    t_in = t_in.expand(batch, 3, 8, 8).contiguous(memory_format=fmt)
    return lib.nn.functional.interpolate(t_in, size=(2, 2), mode=mode, align_corners=False,
                                         antialias=True)


@pytest.mark.parametrize('memory_format', ['contiguous_format', 'channels_last'])
def test_upsamplingBilinear2d_aa_correctness(lib, memory_format):
    """(a batch of 4, not 23000; upstream's numbers are PIL's resize)"""
    t_out = _aa_correctness(lib, 'bilinear', memory_format, 4)
    expected = lib.tensor([17.035713, 20.25, 42.75, 45.964287, 81.03572, 84.25,
                           106.75, 109.96428, 145.0357, 148.25, 170.75, 173.9643])
    eq(expected.reshape(1, 3, 2, 2).expand(4, 3, 2, 2), t_out)


@pytest.mark.parametrize('memory_format', ['contiguous_format', 'channels_last'])
def test_upsamplingBicubic2d_aa_correctness(lib, memory_format):
    """(upstream's numbers are PIL's resize)"""
    t_out = _aa_correctness(lib, 'bicubic', memory_format, 1)
    expected = lib.tensor([15.1205635, 18.760439, 44.23956, 47.879436, 79.12056, 82.76044,
                           108.23956, 111.87944, 143.12057, 146.76044, 172.23956, 175.87943])
    eq(expected.reshape(1, 3, 2, 2), t_out)


def test_aa_correctness_oracle():
    """(ember's own) the two correctness cases above agree with torch to float rounding, in
    values, dtype and memory format."""
    for mode in ('bilinear', 'bicubic'):
        for memory_format in ('contiguous_format', 'channels_last'):
            oracle(lambda lib: (_aa_correctness(lib, mode, memory_format, 2),
                                _aa_correctness(lib, mode, memory_format, 2).is_contiguous(
                                    memory_format=getattr(lib, memory_format))),
                   rtol=1e-6, atol=1e-5)


def _uint8_images(lib, shape, low, high, memory_format, seed=0):
    data = np.random.default_rng(seed).integers(low, high, shape).astype(np.uint8)
    return lib.tensor(data).contiguous(memory_format=getattr(lib, memory_format))


@pytest.mark.parametrize('memory_format', ['contiguous_format', 'channels_last'])
@pytest.mark.parametrize('mode', ['bilinear', 'bicubic'])
@pytest.mark.parametrize('antialias', [True, False])
@pytest.mark.parametrize('align_corners', [True, False])
@pytest.mark.parametrize('num_channels', [3, 5])
@pytest.mark.parametrize('output_size', [7, 60])
@pytest.mark.parametrize('check_as_unsqueezed_3d_tensor', [True, False])
@pytest.mark.parametrize('non_contig', [False, 'sliced', 'restrided'])
@pytest.mark.parametrize('batch_size', [1, 2])
def test_upsamplingBiMode2d_consistency(lib, memory_format, mode, antialias, align_corners,
                                        num_channels, output_size,
                                        check_as_unsqueezed_3d_tensor, non_contig, batch_size):
    """uint8 resampling against float resampling rounded (40 x 40 images, not 400 x 400;
    output sizes 7 and 60, not 32 and 600; batches of 1 and 2, not 1 and 5)."""
    F = lib.nn.functional
    # (bicubic overshoots: upstream keeps its inputs off 0 and 255, where uint8 clips)
    input_range = (30, 220) if mode == 'bicubic' else (0, 256)
    input_ui8 = _uint8_images(lib, (batch_size, num_channels, 40, 40), *input_range,
                              memory_format)
    if non_contig == 'sliced':
        input_ui8 = input_ui8[:, :, 10:-10, 10:-10]
    elif non_contig == 'restrided':
        input_ui8 = input_ui8[:, :, ::2, ::2]
    if batch_size == 1 and check_as_unsqueezed_3d_tensor:
        input_ui8 = input_ui8[0, ...]
        input_ui8 = input_ui8[None, ...]
    input_f32 = input_ui8.float()
    kwargs = dict(size=(output_size, output_size), mode=mode, align_corners=align_corners,
                  antialias=antialias)
    output_f32 = F.interpolate(input_f32, **kwargs).round().clip(0, 255)
    output_ui8 = F.interpolate(input_ui8, **kwargs)
    fmt = getattr(lib, memory_format)
    if non_contig is False:
        assert input_ui8.is_contiguous(memory_format=fmt)
    # (upstream's FIXME: an unsqueezed channels-last image's result is contiguous)
    if batch_size == 1 and check_as_unsqueezed_3d_tensor and memory_format == 'channels_last':
        assert output_ui8.is_contiguous()
        assert output_f32.is_contiguous()
    else:
        assert output_ui8.is_contiguous(memory_format=fmt)
        assert output_f32.is_contiguous(memory_format=fmt)
    diff = (output_f32 - output_ui8.float()).abs()
    if mode == 'bilinear':
        assert diff.max() <= 1
    else:
        assert diff.max() < 15
        assert (diff > 2).float().mean() < 3 / 100
        assert (diff > 5).float().mean() < 1 / 100
        assert diff.mean() < 0.4


@pytest.mark.parametrize('memory_format', ['contiguous_format', 'channels_last'])
@pytest.mark.parametrize('align_corners', [True, False])
@pytest.mark.parametrize('input_size, output_size', [(399, 437), (403, 377)])
def test_upsamplingBiLinear2d_consistency_interp_size_bug(lib, memory_format, align_corners,
                                                         input_size, output_size):
    F = lib.nn.functional
    input_ui8 = _uint8_images(lib, (1, 3, input_size, input_size), 0, 256, memory_format)
    input_f32 = input_ui8.float()
    kwargs = dict(size=(output_size, output_size), mode='bilinear',
                  align_corners=align_corners, antialias=False)
    output_f32 = F.interpolate(input_f32, **kwargs).round().to(lib.uint8)
    output_ui8 = F.interpolate(input_ui8, **kwargs)
    assert (output_f32.int() - output_ui8.int()).abs().max() <= 1
