"""PyTorch's test/test_nn.py, class TestNN, from test_inplace_thnn to test_batch_norm_update_stats
(in upstream's order): in-place activations (and their double backward), pixel
shuffle / unshuffle, PReLU, binary cross-entropy (with logits, weights, pos_weight), hardtanh,
and batch norm on channels-last, half and non-contiguous inputs and its argument checks.

Upstream's random sizes (``random.randint``) are drawn here from a seeded generator, so a run
is repeatable; batch-norm overflow sizes are scaled down to what a NumPy run takes in a
moment while a float16 sum over a channel still overflows.

Not adapted: test_batchnorm_cudnn_nhwc, test_batchnorm_cudnn_half,
test_batchnorm_nonaffine_cuda_half_input, test_batchnorm (its parametrised variants),
test_batchnorm_nhwc_cuda (CUDA only). test_batchnorm_buffer_update_when_stats_are_not_tracked
and test_batchnorm_load_state_dict are in tests/nn/test_nn_upstream.py.
"""
import random
from copy import deepcopy

import pytest

from ._nn_rest import eq, lib_fixture, oracle, rand, randn, raises

XFAIL = {}
lib = lib_fixture(XFAIL)


def test_inplace_thnn(lib):
    for mod in [lib.nn.ReLU, lib.nn.ELU, lib.nn.SELU, lib.nn.CELU, lib.nn.RReLU]:
        r = mod(inplace=True)
        input = randn(lib, 5, 5, requires_grad=True)
        output = r(input + 0)
        grad_output = randn(lib, 5, 5, seed=1)
        grad_output_clone = grad_output.clone()
        output.backward(grad_output)
        assert lib.equal(grad_output, grad_output_clone)


# -- pixel shuffle -------------------------------------------------------------------

def _verify_pixel_shuffle(input, output, upscale_factor):
    for c in range(output.size(-3)):
        for h in range(output.size(-2)):
            for w in range(output.size(-1)):
                channel = (upscale_factor * (h % upscale_factor) + (w % upscale_factor)
                           + c * upscale_factor ** 2)
                assert (output[..., c, h, w] == input[..., channel, h // upscale_factor,
                                                      w // upscale_factor]).all()


def _shuffle_case(lib, rng, num_input_dims, valid_channels_dim=True, upscale_factor=None):
    upscale_factor = rng.randint(2, 5) if upscale_factor is None else upscale_factor
    channels = rng.randint(1, 4) * upscale_factor ** 2 + (0 if valid_channels_dim else 1)
    height, width = rng.randint(5, 10), rng.randint(5, 10)
    if num_input_dims == 1:
        shape = (channels,)
    elif num_input_dims == 2:
        shape = (height, width)
    else:
        shape = tuple(rng.randint(1, 3) for _ in range(num_input_dims - 3)) + (
            channels, height, width)
    input = rand(lib, *shape, requires_grad=True)
    ps = lib.nn.PixelShuffle(upscale_factor)
    pus = lib.nn.PixelUnshuffle(downscale_factor=upscale_factor)
    if num_input_dims >= 3 and valid_channels_dim and upscale_factor > 0:
        output = ps(input)
        _verify_pixel_shuffle(input, output, upscale_factor)
        output.backward(output.data)
        assert lib.equal(input.data, input.grad.data)
        assert lib.equal(input, pus(output))
    else:
        with raises(RuntimeError):
            ps(input)


def _unshuffle_error_case(lib, rng, num_input_dims, valid_height_dim=True, valid_width_dim=True,
                          downscale_factor=None):
    downscale_factor = rng.randint(2, 5) if downscale_factor is None else downscale_factor
    channels = rng.randint(1, 4)
    height = rng.randint(3, 5) * abs(downscale_factor) + (0 if valid_height_dim else 1)
    width = rng.randint(3, 5) * abs(downscale_factor) + (0 if valid_width_dim else 1)
    if num_input_dims == 1:
        shape = (channels,)
    elif num_input_dims == 2:
        shape = (height, width)
    else:
        shape = tuple(rng.randint(1, 3) for _ in range(num_input_dims - 3)) + (
            channels, height, width)
    with raises(RuntimeError):
        lib.nn.PixelUnshuffle(downscale_factor)(rand(lib, *shape, requires_grad=True))


@pytest.mark.parametrize('num_input_dims', [1, 2, 3, 4, 5])
def test_pixel_shuffle_unshuffle(lib, num_input_dims):
    rng = random.Random(num_input_dims)
    _shuffle_case(lib, rng, num_input_dims)
    _shuffle_case(lib, rng, num_input_dims, valid_channels_dim=False)
    _shuffle_case(lib, rng, num_input_dims, upscale_factor=0)
    _shuffle_case(lib, rng, num_input_dims, upscale_factor=-2)
    _unshuffle_error_case(lib, rng, num_input_dims, valid_height_dim=False)
    _unshuffle_error_case(lib, rng, num_input_dims, valid_width_dim=False)
    _unshuffle_error_case(lib, rng, num_input_dims, downscale_factor=0)
    _unshuffle_error_case(lib, rng, num_input_dims, downscale_factor=-2)


def test_pixel_shuffle_error_messages():
    """(ember's own) pixel (un)shuffle's errors carry torch's class and message."""
    for shape, factor in [((5,), 2), ((3, 4), 2), ((5, 4, 4), 2), ((4, 4, 4), 0),
                          ((4, 4, 4), -2)]:
        oracle(lambda lib: lib.nn.functional.pixel_shuffle(randn(lib, *shape), factor))
    for shape, factor in [((5,), 2), ((1, 5, 4), 2), ((1, 4, 5), 2), ((1, 4, 4), 0),
                          ((1, 4, 4), -2)]:
        oracle(lambda lib: lib.nn.functional.pixel_unshuffle(randn(lib, *shape), factor))


def test_pixel_shuffle_nhwc_cpu(lib):
    input = randn(lib, 3, 18, 4, 4, dtype='double')
    input = input.contiguous(memory_format=lib.channels_last).requires_grad_()
    grad = randn(lib, 3, 18, 4, 4, seed=1, dtype='double')
    ps, pus = lib.nn.PixelShuffle(3), lib.nn.PixelUnshuffle(3)
    ref_input = input.detach().clone().contiguous().requires_grad_(True)
    ref_grad = grad.detach().clone().contiguous()
    out = pus(ps(input))
    out.backward(grad)
    ref_out = pus(ps(ref_input))
    ref_out.backward(ref_grad)
    assert out.is_contiguous(memory_format=lib.channels_last)
    assert ref_out.is_contiguous()
    eq(out, ref_out)
    eq(input.grad, ref_input.grad)


# -- in-place activations on views ---------------------------------------------------------

@pytest.mark.parametrize('name', ['elu', 'relu'])
def test_inplace_on_view(lib, name):
    """test_elu_inplace_on_view and test_relu_inplace_on_view."""
    v = lib.tensor([1.0, -1.0, 1.0, -1.0], requires_grad=True, dtype=lib.double)

    def func(root):
        x = root.clone()
        view = x.narrow(0, 1, 2)
        res = getattr(lib.nn.functional, name)(view, inplace=True)
        assert res is view
        return x

    assert lib.autograd.gradcheck(func, [v])
    assert lib.autograd.gradgradcheck(func, [v])


@pytest.mark.parametrize('name', ['elu', 'hardtanh'])
def test_inplace_gradgrad(lib, name):
    """test_elu_inplace_gradgrad and test_hardtanh_inplace_gradgrad."""
    v = randn(lib, 8, dtype='double', requires_grad=True)

    def func(root):
        return getattr(lib.nn.functional, name)(root.clone(), inplace=True)

    assert lib.autograd.gradcheck(func, [v])
    assert lib.autograd.gradgradcheck(func, [v])


def test_PReLU_backward_requires_grad_false(lib):
    m = lib.nn.PReLU()
    x = randn(lib, 2, 3, 4, 5)
    m(x).mean().backward()
    assert x.grad is None
    assert m.weight.grad is not None


# -- binary cross-entropy ------------------------------------------------------------

def test_bce_loss_always_nonnegative(lib):
    for fill in (lib.ones, lib.zeros):
        assert (lib.nn.BCELoss()(fill(5), fill(5)) < 0).sum() == 0


def test_bce_with_logits_raises_if_target_and_input_are_different_size(lib):
    with raises(ValueError):
        lib.nn.BCEWithLogitsLoss()(rand(lib, 5, 1), rand(lib, 5))
    with raises(ValueError):
        lib.nn.BCEWithLogitsLoss()(rand(lib, 5), rand(lib, 5, 1))


def test_bce_with_logits_gives_same_result_as_sigmoid_and_bce_loss(lib):
    nn = lib.nn
    sigmoid = nn.Sigmoid()
    target = rand(lib, 64, 4)
    output = rand(lib, 64, 4, seed=1) - 0.5
    eq(nn.BCEWithLogitsLoss()(output, target), nn.BCELoss()(sigmoid(output), target))
    weight = rand(lib, 4, seed=2)
    eq(nn.BCEWithLogitsLoss(weight)(output, target), nn.BCELoss(weight)(sigmoid(output), target))
    target = lib.zeros(4, 1, dtype=lib.float)
    output = lib.empty(4, 1, dtype=lib.float).fill_(-100)
    eq(nn.BCEWithLogitsLoss()(output, target), nn.BCELoss()(sigmoid(output), target))
    eq(nn.BCEWithLogitsLoss(reduction='none')(output, target),
       nn.BCELoss(reduction='none')(sigmoid(output), target))
    weight = rand(lib, 1, seed=3)
    eq(nn.BCEWithLogitsLoss(weight)(output, target), nn.BCELoss(weight)(sigmoid(output), target))


def test_bce_loss_input_range(lib):
    bceloss = lib.nn.BCELoss()
    target = rand(lib, 25, 25)
    output_valid = rand(lib, 25, 25, seed=1)
    bceloss(output_valid, target)
    with raises(RuntimeError, 'between 0 and 1'):
        bceloss(output_valid - 1.0, target)
    with raises(RuntimeError, 'between 0 and 1'):
        bceloss(output_valid + 1.0, target)


def test_bce_loss_size_mismatch(lib):
    with raises(ValueError, r'Using a target size \('):
        lib.nn.BCELoss()(rand(lib, 25), rand(lib, 25, 1))


def test_bce_with_logits_gives_same_result_as_sigmoid_and_bce_loss_large_tensors_with_grad(lib):
    x_size, y_size = 256, 64   # (upstream: 1024 x 256)
    target = rand(lib, x_size, y_size)
    for i, reduction in enumerate(['none', 'mean', 'sum']):
        output_sig = rand(lib, x_size, y_size, seed=10 + i) - 0.5
        output_logits = output_sig.detach().clone()
        output_sig.requires_grad = True
        output_logits.requires_grad = True
        weight = rand(lib, y_size, seed=20 + i)
        loss_sig = lib.nn.BCELoss(weight, reduction=reduction)(lib.sigmoid(output_sig), target)
        loss_logits = lib.nn.BCEWithLogitsLoss(weight, reduction=reduction)(output_logits, target)
        eq(loss_logits, loss_sig)
        if reduction == 'none':
            grad = rand(lib, x_size, y_size, seed=30)
            loss_sig.backward(grad)
            loss_logits.backward(grad)
        else:
            loss_sig.backward()
            loss_logits.backward()
        eq(output_sig.grad, output_logits.grad)


def test_bce_with_logits_has_correct_forward_grad(lib):
    output = randn(lib, 3, 5, dtype='double', requires_grad=True)
    target = randn(lib, 3, 5, seed=1, dtype='double')
    for reduction in ('sum', 'mean', 'none'):
        assert lib.autograd.gradcheck(
            lambda x, t: lib.nn.BCEWithLogitsLoss(reduction=reduction)(x, t),
            (output, target), check_forward_ad=True)


@pytest.mark.parametrize('pos_weight', [False, True])
def test_bce_with_logits_has_correct_grad_at_zero(lib, pos_weight):
    """test_bce_with_logits_has_correct_grad_at_zero and
    test_bce_with_logits_with_pos_weight_has_correct_grad_at_zero."""
    output = lib.zeros(3, 1, requires_grad=True)
    kwargs = {'pos_weight': lib.ones(3, 1)} if pos_weight else {}
    lib.nn.BCEWithLogitsLoss(reduction='sum', **kwargs)(output, lib.zeros(3, 1)).backward()
    eq(output.grad, lib.empty(3, 1).fill_(0.5))


@pytest.mark.parametrize('logits', [True, False])
def test_bce_broadcasts_weights(lib, logits):
    """test_bce_with_logits_broadcasts_weights and test_bce_loss_broadcasts_weights."""
    def loss(weight, output, target):
        if logits:
            return lib.nn.BCEWithLogitsLoss(weight)(output, target)
        return lib.nn.BCELoss(weight)(lib.sigmoid(output), target)
    target = rand(lib, 16, 4)
    output = rand(lib, 16, 4, seed=1) - 0.5
    for shape in [(4,), (16, 1)]:
        weight = rand(lib, *shape, seed=2)
        eq(loss(weight, output, target), loss(weight.expand(16, 4).contiguous(), output, target))


def test_bce_with_logits_ones_in_pos_weights_are_the_same_as_none(lib):
    target = rand(lib, 64, 4)
    output = rand(lib, 64, 4, seed=1) - 0.5
    eq(lib.nn.BCEWithLogitsLoss()(output, target),
       lib.nn.BCEWithLogitsLoss(pos_weight=lib.ones(64, 4))(output, target))


def test_bce_with_logits_broadcasts_pos_weights(lib):
    target = rand(lib, 64, 4)
    output = rand(lib, 64, 4, seed=1) - 0.5
    pos_weight = rand(lib, 4, seed=2)
    out1 = lib.nn.BCEWithLogitsLoss(pos_weight=pos_weight)(output, target)
    out2 = lib.nn.BCEWithLogitsLoss(pos_weight=pos_weight.expand(1, 4))(output, target)
    out3 = lib.nn.BCEWithLogitsLoss(pos_weight=pos_weight.expand(64, 4))(output, target)
    eq(out1, out2)
    eq(out1, out3)


def test_bce_with_logits_stability(lib):
    output = lib.tensor([0., -120.])
    target = lib.tensor([0., 1.])
    assert lib.isfinite(lib.nn.BCEWithLogitsLoss()(output, target)).all().item()
    out2 = lib.nn.BCEWithLogitsLoss(pos_weight=lib.tensor([1., 1.]))(output, target)
    assert lib.isfinite(out2).all().item()


def test_bce_values():
    """(ember's own) BCE and BCE-with-logits values and gradients, weights and pos_weight
    included, agree with torch's."""
    def fn(lib):
        x = randn(lib, 6, 4, dtype='double', requires_grad=True)
        t = rand(lib, 6, 4, seed=1, dtype='double')
        w, pw = rand(lib, 4, seed=2, dtype='double'), rand(lib, 4, seed=3, dtype='double') * 3
        outs = [lib.nn.functional.binary_cross_entropy_with_logits(
            x, t, weight=w, pos_weight=pw, reduction=r) for r in ('none', 'mean', 'sum')]
        outs.append(lib.nn.functional.binary_cross_entropy(lib.sigmoid(x), t, weight=w))
        g, = lib.autograd.grad(sum(o.sum() for o in outs), x)
        return outs + [g]
    oracle(fn, rtol=1e-10, atol=1e-12)


def test_hardtanh_backward(lib):
    x = randn(lib, 128, 1000, requires_grad=True)   # (upstream: 128 x 10000)
    grad = randn(lib, 128, 1000, seed=1)
    lib.nn.functional.hardtanh(x).backward(grad)
    mask = (x > -1) & (x < 1)
    eq(x.grad, lib.where(mask, grad, lib.zeros(128, 1000)))


# -- batch norm ----------------------------------------------------------------------

def _bn_nhwc_case(lib, mod, size, dtype, mixed_dtype, format, precision=None):
    channels = size[1]
    input = randn(lib, *size, dtype=dtype).contiguous(memory_format=format).requires_grad_()
    input.retain_grad()
    grad = randn(lib, *size, seed=1, dtype=dtype).contiguous(memory_format=format)
    bn = mod(channels).to(getattr(lib, dtype))
    with lib.no_grad():
        bn.weight.copy_(rand(lib, channels, seed=2))
        bn.bias.copy_(rand(lib, channels, seed=3))
    ref_input = input.detach().clone().contiguous().requires_grad_(True)
    ref_grad = grad.detach().clone().contiguous()
    ref_bn = mod(channels).to(getattr(lib, dtype))
    ref_bn.load_state_dict(bn.state_dict())
    if mixed_dtype:
        bn.float()
        ref_bn.float()
    out = bn(input)
    out.backward(grad)
    ref_out = ref_bn(ref_input)
    ref_out.backward(ref_grad)
    assert out.is_contiguous(memory_format=format)
    assert ref_out.is_contiguous()
    tol = {'rtol': 1e-2, 'atol': 1e-2} if dtype != 'float' else {}
    eq(out, ref_out, **tol)
    eq(bn.weight.grad, ref_bn.weight.grad, **({'rtol': precision, 'atol': precision}
                                               if precision else tol))
    eq(bn.bias.grad, ref_bn.bias.grad, **tol)
    eq(input.grad, ref_input.grad, **tol)


@pytest.mark.parametrize('dtype', ['float', 'bfloat16', 'float16'])
def test_batchnorm_nhwc_cpu(lib, dtype):
    for mixed_dtype in ([False] if dtype == 'float' else [False, True]):
        for shape in [(4, 8, 10, 10), (4, 1, 9, 9), (4, 9, 1, 1)]:
            _bn_nhwc_case(lib, lib.nn.BatchNorm2d, shape, dtype, mixed_dtype, lib.channels_last)
        for shape in [(4, 8, 2, 10, 10), (4, 1, 2, 9, 9), (4, 9, 1, 1, 1)]:
            _bn_nhwc_case(lib, lib.nn.BatchNorm3d, shape, dtype, mixed_dtype,
                          lib.channels_last_3d, 1e-4 if dtype != 'float16' else None)


def test_batchnorm_half_overflow(lib):
    def helper(mod, size, param_dtype, fwd_format, bwd_format):
        channels = size[1]
        input = randn(lib, *size, dtype='half').contiguous(memory_format=fwd_format)
        input.requires_grad_(True)
        bn = mod(channels).to(param_dtype)
        out = bn(input)
        ref_input = input.detach().clone().requires_grad_(True)
        ref_bn = mod(channels).to(lib.float)
        ref_bn.load_state_dict(bn.to(lib.float).state_dict())
        ref_out = ref_bn(ref_input)
        assert not out.isinf().any()
        assert not out.isnan().any()
        eq(out, ref_out, rtol=1e-3, atol=1e-3)
        if param_dtype != lib.half:
            grad_input = rand(lib, *ref_out.shape, seed=1).to(dtype=lib.half)
            grad_input = grad_input.contiguous(memory_format=bwd_format)
            out.backward(grad_input)
            ref_out.backward(grad_input.clone())
            assert not input.grad.isinf().any()
            assert not input.grad.isnan().any()
            eq(input.grad, ref_input.grad, rtol=1e-3, atol=1e-3)

    # (upstream: 4 x 80 x 500 x 500 and larger; here 2 x 2 x 200 x 200: 80000 values per
    # channel, whose sum of squares is past float16's largest value)
    for format in [lib.contiguous_format, lib.channels_last]:
        helper(lib.nn.BatchNorm2d, (2, 2, 200, 200), lib.half, format, format)
    for format in [lib.contiguous_format, lib.channels_last_3d]:
        helper(lib.nn.BatchNorm3d, (2, 2, 20, 40, 50), lib.half, format, format)
    for fwd in [lib.contiguous_format, lib.channels_last]:
        for bwd in [lib.contiguous_format, lib.channels_last]:
            helper(lib.nn.BatchNorm2d, (2, 2, 200, 200), lib.float, fwd, bwd)


@pytest.mark.parametrize('bn_module', ['BatchNorm2d', 'SyncBatchNorm'])
def test_batchnorm_non_contig_cpu(lib, bn_module):
    for dtype in (lib.bfloat16, lib.float16):
        input = lib.arange(6, dtype=lib.float).reshape(1, 3, 2, 1).permute(0, 2, 1, 3)
        bn = getattr(lib.nn, bn_module)(2).float().eval()
        with lib.no_grad():
            bn.weight.copy_(rand(lib, 2, seed=1))
            bn.bias.copy_(rand(lib, 2, seed=2))
        ref_input = input.detach().clone().contiguous()
        ref_bn = lib.nn.BatchNorm2d(2).float().eval()
        ref_bn.load_state_dict(bn.state_dict())
        out = bn(input)
        ref_out = ref_bn(ref_input)
        assert out.is_contiguous(memory_format=lib.channels_last)
        assert ref_out.is_contiguous()
        eq(out, ref_out)

        input_bf = lib.arange(24, dtype=dtype).reshape(1, 3, 2, 4).permute(0, 2, 1, 3)
        bn_mix = getattr(lib.nn, bn_module)(2).float().eval()
        ref_bn_f = deepcopy(bn_mix)
        eq(ref_bn_f(input_bf.float()), bn_mix(input_bf).float(), rtol=0.05, atol=0.05)


def test_batchnorm_raises_error_if_less_than_one_value_per_channel(lib):
    with raises(ValueError):
        lib.nn.BatchNorm1d(10)(rand(lib, 10)[None, :, None])


@pytest.mark.parametrize('which', ['running_mean', 'running_var', 'weight', 'bias'])
def test_batchnorm_raises_error_if_not_same_size_as_input(lib, which):
    """The four upstream tests
    test_batchnorm_raises_error_if_{running_mean,running_var,weight,bias}_is_not_same_size_as_input."""
    input = rand(lib, 2, 10)
    for size in [9, 11]:
        args = {'running_mean': rand(lib, 10, seed=1), 'running_var': rand(lib, 10, seed=2)}
        wrong = rand(lib, size, seed=3)
        args[which] = lib.nn.Parameter(wrong) if which in ('weight', 'bias') else wrong
        with raises(RuntimeError):
            lib.nn.functional.batch_norm(input, **args)


def test_batchnorm_size_error_messages():
    """(ember's own) batch norm's size errors carry torch's class and message."""
    for which in ['running_mean', 'running_var', 'weight', 'bias']:
        def fn(lib):
            args = {'running_mean': rand(lib, 10), 'running_var': rand(lib, 10)}
            args[which] = rand(lib, 9)
            return lib.nn.functional.batch_norm(rand(lib, 2, 10), **args)
        oracle(fn)
    oracle(lambda lib: lib.nn.BatchNorm1d(10)(rand(lib, 10)[None, :, None]))


def test_batchnorm_raises_error_if_running_var_or_running_mean_have_forward_grad(lib):
    fwAD = lib.autograd.forward_ad
    args = (randn(lib, 3, 2, 5), randn(lib, 2, seed=1), randn(lib, 2, seed=2))
    for dual_indices in ((0,), (1,), (1, 2), (0, 1), (0, 1, 2)):
        tangents = tuple(rand(lib, *x.shape, seed=3) for x in args)
        with fwAD.dual_level():
            duals = [fwAD.make_dual(primal, tangent) if i in dual_indices else primal
                     for i, (primal, tangent) in enumerate(zip(args, tangents))]
            if (1 in dual_indices or 2 in dual_indices) and 0 in dual_indices:
                with raises(RuntimeError,
                            "batch_norm is not differentiable wrt running_mean and running_var"):
                    lib.nn.functional.batch_norm(*duals, training=False, momentum=-1.2)
            else:
                lib.nn.functional.batch_norm(*duals, training=False, momentum=-1.2)


def test_batch_norm_update_stats(lib):
    with raises(RuntimeError, r"input tensor must have at least one element, but got "
                              r"input_sizes = \[0, 1\]"):
        lib.batch_norm_update_stats(input=rand(lib, 0, 1), momentum=0.0,
                                    running_mean=rand(lib, 1), running_var=rand(lib, 1))
