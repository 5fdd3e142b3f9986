"""PyTorch's test/test_nn.py, class TestNNDeviceType (its CPU instantiation), from
test_rmsnorm_numeric to test_upsamplingNearest3d (in upstream's order): RMS norm in reduced
precision, GLU in bfloat16, group norm (one value per group, empty input, channels-last,
memory formats), padding argument checks, empty inputs through padding, bilinear,
transformer, local-response-norm, margin-loss, unfold, batch-norm and linear layers,
one_hot, scalar and empty inputs of activations and losses, invalid reductions, smooth L1
against Huber, NaN propagation, and nearest upsampling (1-3 d, exact, channels-last).

Not adapted: the CUDA-only tests among them (test_ReflectionPad2d_large and
_deterministic, test_ReflectionPad3d_large, test_MarginLoss_race / _warnings,
test_mse_loss_error, test_rnn_fused, test_prelu_backward_32bit_indexing). The
``*_large`` replication-pad tests (65736-channel inputs) run here on 600 channels, and
test_ReplicationPad_empty's checks of the private ``torch._C._nn.replication_pad*d`` run
through ``torch.ops.aten``'s ``replication_pad*d`` (the same operators).
"""
import math

import pytest

from ._nn_rest import (check_module_empty_input, eq, lib_fixture, oracle, rand, randn,
                       raises)

XFAIL = {}
lib = lib_fixture(XFAIL)


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_rmsnorm_numeric(lib, dtype):
    dt = getattr(lib, dtype)
    shape = (1, 2, 3)
    X, w = rand(lib, *shape).to(dt), rand(lib, *shape, seed=1).to(dt)
    Y = lib.nn.functional.rms_norm(X, shape, w, 0.5)
    up = X.float()
    ref = (up * lib.rsqrt(up.pow(2).mean(dim=[2, 1, 0], keepdim=True) + 0.5) * w).type_as(X)
    eq(Y, ref, rtol=1.6e-2, atol=1e-5)
    assert Y.dtype == dt


@pytest.mark.parametrize('shape', [[1, 3, 1, 6], [1, 3, 1, 128], [1, 3, 64, 64]])
def test_glu_bfloat16(lib, shape):
    x = randn(lib, *shape)
    input = x.detach().clone().to(dtype=lib.bfloat16).requires_grad_(True)
    input2 = x.detach().clone().float().requires_grad_(True)
    fn = lib.nn.GLU(dim=-1)
    out = fn(input)
    out.sum().backward()
    out2 = fn(input2)
    out2.sum().backward()
    assert out.dtype == lib.bfloat16 and input.grad.dtype == lib.bfloat16
    eq(out.float(), out2, rtol=1.6e-2, atol=1e-5)
    eq(input.grad.float(), input2.grad, atol=1e-2, rtol=0)


def test_GroupNorm_raises_error_if_one_value_per_group(lib):
    with raises(ValueError):
        lib.nn.GroupNorm(10, 10)(rand(lib, 10)[None, :, None])


def test_GroupNorm_empty(lib):
    check_module_empty_input(lib, lib.nn.GroupNorm(2, 4), randn(lib, 0, 4, 2, 2))


@pytest.mark.parametrize('dtype', ['float', 'double', 'bfloat16', 'half'])
@pytest.mark.parametrize('is_mixed', [True, False])
def test_groupnorm_nhwc(lib, dtype, is_mixed):
    """(a selection of upstream's shapes)"""
    dt = getattr(lib, dtype)
    for size, groups, fmt in [((4, 8, 10, 10), 4, lib.channels_last),
                              ((2, 30, 9, 9), 3, lib.channels_last),
                              ((2, 9, 7, 11, 15), 3, lib.channels_last_3d)]:
        channels = size[1]
        input = randn(lib, *size).to(dt).contiguous(memory_format=fmt).requires_grad_()
        grad = randn(lib, *size, seed=1).to(dt).contiguous(memory_format=fmt)
        pdt = lib.float if dtype == 'bfloat16' and is_mixed else dt
        gn = lib.nn.GroupNorm(groups, channels).to(pdt)
        with lib.no_grad():
            gn.weight.copy_(rand(lib, channels, seed=2))
            gn.bias.copy_(rand(lib, channels, seed=3))
        ref_input = input.detach().clone().contiguous().requires_grad_(True)
        ref_grad = grad.detach().clone().contiguous()
        ref_gn = lib.nn.GroupNorm(groups, channels).to(pdt)
        ref_gn.load_state_dict(gn.state_dict())
        out = gn(input)
        out.backward(grad)
        ref_out = ref_gn(ref_input)
        ref_out.backward(ref_grad)
        assert out.is_contiguous(memory_format=fmt)
        assert ref_out.is_contiguous()
        tol = dict(atol=5e-4, rtol=8e-3) if dtype in ('float', 'double') else \
            dict(atol=2e-2, rtol=2e-2)
        eq(out, ref_out, **tol)
        eq(gn.weight.grad, ref_gn.weight.grad, **tol)
        eq(gn.bias.grad, ref_gn.bias.grad, **tol)
        eq(input.grad, ref_input.grad, **tol)


def test_GroupNorm_memory_format(lib):
    for input_format in [lib.contiguous_format, lib.channels_last]:
        for grad_format in [lib.contiguous_format, lib.channels_last]:
            net_orig = lib.nn.GroupNorm(2, 4)
            net = lib.nn.GroupNorm(2, 4)
            net.load_state_dict(net_orig.state_dict())
            x_orig = rand(lib, 2, 4, 4, 4, requires_grad=True)
            grad_orig = rand(lib, 2, 4, 4, 4, seed=1)
            x = x_orig.detach().clone().to(memory_format=input_format).requires_grad_(True)
            y = net(x)
            y.backward(grad_orig.detach().to(memory_format=grad_format))
            y_orig = net_orig(x_orig)
            y_orig.backward(grad_orig)
            eq(y, y_orig)
            eq(x.grad, x_orig.grad)


@pytest.mark.parametrize('dtype', ['float64', 'complex128'])
def test_pad(lib, dtype):
    F = lib.nn.functional
    inputs = randn(lib, 1, 1, 4).to(getattr(lib, dtype)).requires_grad_()
    for pad in [(5, 4), (3, 6), (-3, -2)]:
        with raises(RuntimeError):
            F.pad(inputs, pad, mode='circular')
    msg = r"Padding size should be less than the corresponding input dimension"
    with raises(RuntimeError, msg):
        F.pad(randn(lib, 1, 1, 2, 3).to(getattr(lib, dtype)), (1, 1, 3, 0), mode='reflect')
    with raises(RuntimeError, msg):
        F.pad(randn(lib, 1, 1, 2).to(getattr(lib, dtype)), (2, 1), mode='reflect')
    inputs = rand(lib, 1, 3, 4, 4).to(getattr(lib, dtype))
    for mode in 'constant', 'reflect', 'replicate', 'circular':
        for pad in ((0, 0, 0, 0), (0, 0, -1, -1)):
            F.pad(inputs, pad, mode=mode).fill_(4)
            assert lib.all(lib.abs(inputs) < 2)


def test_pad_error_messages():
    """(ember's own) the padding errors above carry torch's class and message."""
    oracle(lambda lib: lib.nn.functional.pad(randn(lib, 1, 1, 4), (5, 4), mode='circular'))
    oracle(lambda lib: lib.nn.functional.pad(randn(lib, 1, 1, 4), (-3, -2), mode='circular'))
    oracle(lambda lib: lib.nn.functional.pad(randn(lib, 1, 1, 2), (2, 1), mode='reflect'))


@pytest.mark.parametrize('kind', ['Replication', 'Reflection'])
def test_Pad_empty(lib, kind):
    """test_ReplicationPad_empty and test_ReflectionPad_empty."""
    for dims in (1, 2, 3):
        mod = getattr(lib.nn, f'{kind}Pad{dims}d')(3 if dims == 3 or kind == 'Replication'
                                                   else 2)
        check_module_empty_input(lib, mod, randn(lib, 0, 3, *[10] * dims), check_size=False)
        with raises(RuntimeError, f'{dims + 1}D or {dims + 2}D'):
            mod(randn(lib, 3, 0, *[10] * dims))


def test_ReflectionPad_fails(lib):
    """(upstream expects older torch's RuntimeError 'Only 2D, 3D, 4D, 5D'; torch 2.13's pad
    refuses the rank with the NotImplementedError below)"""
    for dims in (1, 2, 3):
        inp = randn(lib, 3, 3, *[10] * (dims + 1))
        with raises(NotImplementedError, f'Padding size {2 * dims} is not supported for '
                                         f'{dims + 3}D input tensor'):
            getattr(lib.nn, f'ReflectionPad{dims}d')(2)(inp)
        with raises(RuntimeError, f'{dims + 1}D or {dims + 2}D'):
            getattr(lib.ops.aten, f'reflection_pad{dims}d')(inp, (2,) * (2 * dims))


def test_replication_pad_padding_size(lib):
    """test_ReplicationPad_empty's last checks (upstream calls the private
    ``torch._C._nn.replication_pad*d``; here ``torch.ops.aten``'s, the same operators)."""
    for dims in (1, 2, 3):
        with raises(RuntimeError, f'padding size is expected to be {2 * dims}'):
            getattr(lib.ops.aten, f'replication_pad{dims}d')(randn(lib, 2), [])


def test_index_pad_aten_ops():
    """(ember's own) ``ops.aten.reflection_pad*d`` / ``replication_pad*d``: values, node and
    torch's errors."""
    for kind in ('reflection', 'replication'):
        for k in (1, 2, 3):
            op = f'{kind}_pad{k}d'
            for shape, pad in [((3,) + (10,) * k, (2,) * (2 * k)),
                               ((2, 3) + (5,) * k, (1, -1) * k),
                               ((3,) + (10,) * k, (2,) * (2 * k - 1)),
                               ((3,) + (10,) * k, (12,) * (2 * k)),
                               ((3, 0) + (10,) * k, (2,) * (2 * k))]:
                oracle(lambda lib: getattr(lib.ops.aten, op)(randn(lib, *shape), pad))
            oracle(lambda lib: type(getattr(lib.ops.aten, op)(
                randn(lib, 3, *(10,) * k, requires_grad=True), (2,) * (2 * k)).grad_fn).__name__)


@pytest.mark.parametrize('dims', [1, 2])
def test_ReplicationPad_large(lib, dims):
    """test_ReplicationPad1d_large and test_ReplicationPad2d_large (upstream: 65736 channels;
    here 600)"""
    pads = (3, 4) if dims == 1 else (3, 4, 5, 6)
    for shape in ([2, 600] + [4] * dims, [600, 2] + [4] * dims):
        x = randn(lib, *shape, requires_grad=True)
        out = getattr(lib.nn, f'ReplicationPad{dims}d')(pads)(x)
        pl, pr = pads[0], pads[1]
        if dims == 1:
            eq(out[:, :, pl:-pr], x)
            eq(out[:, :, :pl], x[:, :, :1].expand(*out[:, :, :pl].shape))
            eq(out[:, :, -pr:], x[:, :, -1:].expand(*out[:, :, -pr:].shape))
        else:
            pt, pb = pads[2], pads[3]
            eq(out[:, :, pt:-pb, pl:-pr], x)
            eq(out[:, :, :pt + 1, :pl + 1], x[:, :, :1, :1].expand(*out[:, :, :pt + 1,
                                                                      :pl + 1].shape))
        g = randn(lib, *out.shape, seed=1)
        out.backward(g)
        if dims == 1:
            eq(x.grad[:, :, 1:-1], g[:, :, pl + 1:-pr - 1])
            eq(x.grad[:, :, 0], g[:, :, :pl + 1].sum(-1), rtol=1e-5)
            eq(x.grad[:, :, -1], g[:, :, -pr - 1:].sum(-1), rtol=1e-5)
        else:
            eq(x.grad[:, :, 1:-1, 1:-1], g[:, :, pt + 1:-pb - 1, pl + 1:-pr - 1])
            eq(x.grad[:, :, 0, 0], g[:, :, :pt + 1, :pl + 1].sum((-2, -1)), rtol=1e-5)


def test_Bilinear_empty(lib):
    mod = lib.nn.Bilinear(20, 30, 40)
    inp1 = randn(lib, 0, 10, 20, requires_grad=True)
    inp2 = randn(lib, 0, 10, 30, requires_grad=True)
    mod(inp1, inp2).sum().backward()
    assert lib.equal(inp1.grad, lib.zeros_like(inp1))
    assert lib.equal(inp2.grad, lib.zeros_like(inp2))


@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('batch_first,input_shape', [(True, (0, 10, 64)), (False, (10, 0, 64))])
def test_TransformerEncoderLayer_empty(lib, training, batch_first, input_shape):
    """(upstream: d_model 512)"""
    input = rand(lib, *input_shape, dtype='double')
    layer = lib.nn.TransformerEncoderLayer(d_model=64, nhead=8, batch_first=batch_first,
                                           dtype=lib.double)
    if training:
        check_module_empty_input(lib, layer, input, check_size=False)
    else:
        with lib.no_grad():
            check_module_empty_input(lib, layer.eval(), input, check_size=False, inference=True)


def test_LocalResponseNorm_empty(lib):
    check_module_empty_input(lib, lib.nn.LocalResponseNorm(2), lib.ones(0, 5, 24, 24),
                             check_size=False)


@pytest.mark.parametrize('dtype', ['float', 'double'])
def test_MarginLoss_empty(lib, dtype):
    for mod, y in [(lib.nn.MultiMarginLoss(), lib.ones(0).long()),
                   (lib.nn.MultiLabelMarginLoss(), lib.ones(0, 10).long())]:
        x = randn(lib, 0, 10, dtype=dtype, requires_grad=True)
        mod(x, y).sum().backward()
        assert lib.equal(x.grad, lib.zeros_like(x))
        with raises(RuntimeError, 'Expected'):
            mod(randn(lib, 0, dtype=dtype, requires_grad=True), lib.ones(10).long())
        with raises(RuntimeError, 'Expected'):
            mod(randn(lib, 10, 0, dtype=dtype, requires_grad=True), lib.ones(10, 0).long())


def test_Unfold_empty(lib):
    check_module_empty_input(lib, lib.nn.Unfold(kernel_size=(2, 3)), randn(lib, 0, 3, 3, 4),
                             check_size=False)
    with raises(RuntimeError, 'Expected 3D or 4D'):
        lib.nn.Unfold(kernel_size=(2, 3))(randn(lib, 3, 0, 3, 4))


def test_BatchNorm_empty(lib):
    mod = lib.nn.BatchNorm2d(3)
    check_module_empty_input(lib, mod, randn(lib, 0, 3, 2, 2, dtype='double'))
    eq(mod.running_mean, lib.tensor([0., 0, 0]))
    eq(mod.running_var, lib.tensor([1., 1, 1]))
    eq(mod.weight.grad, lib.tensor([0., 0, 0]))
    eq(mod.bias.grad, lib.tensor([0., 0, 0]))


def test_linear_empty(lib):
    check_module_empty_input(lib, lib.nn.Linear(7, 7), randn(lib, 0, 7))


def test_one_hot(lib):
    one_hot = lib.nn.functional.one_hot
    for args in [(lib.tensor([3, 4, -1, 0]), -1), (lib.tensor([3, 4, 1, 0]), 3),
                 (lib.empty([4, 0], dtype=lib.long),), (lib.tensor([3, 4, 1, 0]), -2)]:
        with raises(RuntimeError):
            one_hot(*args)
    five = [[0, 0, 0, 1, 0], [0, 0, 0, 0, 1], [0, 1, 0, 0, 0], [1, 0, 0, 0, 0]]
    assert one_hot(lib.tensor([3, 4, 1, 0])).tolist() == five
    assert one_hot(lib.tensor([3, 4, 1, 0]), -1).tolist() == five
    assert one_hot(lib.tensor([3, 4, 1, 0]), 6).tolist() == [r + [0] for r in five]
    assert one_hot(lib.tensor([[3, 4], [1, 0]])).tolist() == [five[:2], five[2:]]
    assert one_hot(lib.tensor(4)).tolist() == [0, 0, 0, 0, 1]
    t = one_hot(lib.empty([4, 0], dtype=lib.long), 100)
    assert t.shape == (4, 0, 100) and t.dtype == lib.long


def test_one_hot_error_messages():
    """(ember's own) one_hot's errors carry torch's messages."""
    oracle(lambda lib: lib.nn.functional.one_hot(lib.tensor([3, 4, -1, 0]), -1))
    oracle(lambda lib: lib.nn.functional.one_hot(lib.tensor([3, 4, 1, 0]), 3))
    oracle(lambda lib: lib.nn.functional.one_hot(lib.empty([4, 0], dtype=lib.long)))
    oracle(lambda lib: lib.nn.functional.one_hot(lib.tensor([3, 4, 1, 0]), -2))


_ACTS = ['ELU', 'Hardtanh', 'LeakyReLU', 'LogSigmoid', 'RReLU', 'Softshrink', 'Softplus',
         'Sigmoid', 'Tanh']


def test_nn_empty(lib):
    for input_shape in [(0,), (0, 2)]:
        for name in _ACTS:
            input = randn(lib, *input_shape, requires_grad=True)
            output = getattr(lib.nn, name)()(input)
            assert input.shape == output.shape and output.numel() == 0


def test_nn_scalars(lib):
    for input_shape in [(5, 6), ()]:
        for name in _ACTS:
            input = randn(lib, *input_shape, requires_grad=True)
            output = getattr(lib.nn, name)()(input)
            assert (output.shape == ()) == (input.dim() == 0)
            output.sum().backward()
            assert input.shape == input.grad.shape


def test_nn_scalars_reductions(lib):
    for input_shape in [(5, 6), ()]:
        for reduction in ['none', 'mean', 'sum']:
            for name in ['BCELoss', 'L1Loss', 'MSELoss', 'SmoothL1Loss', 'SoftMarginLoss']:
                target = (rand(lib, *input_shape, seed=1) * 2).floor()
                input = randn(lib, *input_shape, requires_grad=True)
                output = getattr(lib.nn, name)(reduction=reduction)(lib.sigmoid(input), target)
                assert (output.shape == ()) == (reduction != 'none' or input.dim() == 0)
                output.sum().backward()
                assert input.shape == input.grad.shape


def _reduction_calls(lib, reduction):
    """Every loss of test_invalid_reduction_strings, called with ``reduction``."""
    F = lib.nn.functional
    input = randn(lib, 3, 5, requires_grad=True)
    cinput = randn(lib, 3, 5, seed=1).to(lib.cfloat).requires_grad_()
    target = lib.tensor([1, 0, 4])
    var = lib.ones(3, 5, requires_grad=True)
    zeros = lib.zeros_like(input).to(lib.int64)
    log_probs = randn(lib, 50, 16, 20, requires_grad=True).log_softmax(2)
    targets = (rand(lib, 16, 30, seed=2) * 19 + 1).long()
    input_lengths = lib.full((16,), 50, dtype=lib.long)
    target_lengths = (rand(lib, 16, seed=3) * 20 + 10).long()
    r = reduction
    return [
        lambda: F.nll_loss(input, target, reduction=r),
        lambda: F.cross_entropy(input, target, reduction=r),
        lambda: F.kl_div(input, input, reduction=r),
        lambda: F.huber_loss(input, input, reduction=r),
        lambda: F.smooth_l1_loss(input, input, reduction=r),
        lambda: F.l1_loss(input, input, reduction=r),
        lambda: F.l1_loss(cinput, cinput, reduction=r),
        lambda: F.mse_loss(input, input, reduction=r),
        lambda: F.hinge_embedding_loss(input, input, reduction=r),
        lambda: F.poisson_nll_loss(input, input, reduction=r),
        lambda: F.gaussian_nll_loss(input, input, var, reduction=r),
        lambda: F.binary_cross_entropy(lib.sigmoid(input), input.gt(0).float(), reduction=r),
        lambda: F.binary_cross_entropy_with_logits(input, input, reduction=r),
        lambda: F.multilabel_soft_margin_loss(input, zeros, reduction=r),
        lambda: F.triplet_margin_loss(input, input, input, reduction=r),
        lambda: F.triplet_margin_with_distance_loss(input, input, input, reduction=r),
        lambda: F.margin_ranking_loss(input, input, input.sign(), reduction=r),
        lambda: F.cosine_embedding_loss(input, input, input[:, 0].sign(), reduction=r),
        lambda: F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction=r),
        lambda: F.soft_margin_loss(input, input.sign().detach(), reduction=r),
    ]


def test_invalid_reduction_strings(lib):
    for call in _reduction_calls(lib, 'none'):
        call()
    for call in _reduction_calls(lib, 'invalid'):
        with raises(ValueError):
            call()


def test_invalid_reduction_messages():
    """(ember's own) each loss's invalid-reduction error is torch's, message included."""
    for i in range(20):
        oracle(lambda lib: _reduction_calls(lib, 'invalid')[i]())


def test_smooth_l1_loss_vs_huber_loss(lib):
    def make(shape, seed, contiguous=True):
        if contiguous:
            return randn(lib, *shape, seed=seed)
        return randn(lib, *(shape[:-1] + (shape[-1] * 2,)), seed=seed)[..., ::2]

    for beta, equal in [(1.0, True), (0.5, False), (1.5, False)]:
        for shape, contiguous in [((2, 2), True), ((64, 64), True), ((64, 64), False)]:
            input, target = make(shape, 0, contiguous), make(shape, 1, contiguous)
            for reduction in ['mean', 'sum', 'none']:
                smooth_l1 = lib.nn.SmoothL1Loss(beta=beta, reduction=reduction)(input, target)
                huber = lib.nn.HuberLoss(delta=beta, reduction=reduction)(input, target)
                eq(smooth_l1 if equal else smooth_l1 * beta, huber, rtol=1e-5)


@pytest.mark.parametrize('shape', [[1, 3, 1, 6], [1, 3, 1, 128], [1, 3, 64, 64]])
def test_smooth_l1_loss_bfloat16(lib, shape):
    x, t = randn(lib, *shape), randn(lib, *shape, seed=1)
    input = x.to(dtype=lib.bfloat16).requires_grad_(True)
    input2 = input.detach().clone().float().requires_grad_(True)
    target = t.to(dtype=lib.bfloat16)
    fn = lib.nn.SmoothL1Loss()
    out = fn(input, target)
    out.sum().backward()
    out2 = fn(input2, target.float())
    out2.sum().backward()
    assert out.dtype == lib.bfloat16 and input.grad.dtype == lib.bfloat16
    eq(out.float(), out2, rtol=1.6e-2, atol=1e-5)
    eq(input.grad.float(), input2.grad, rtol=1.6e-2, atol=1e-5)


def test_nonlinearity_propagate_nan(lib):
    F = lib.nn.functional

    def test(nonlinearity, *args, **kwargs):
        x = lib.tensor([math.nan])
        assert math.isnan(getattr(F, nonlinearity)(x, *args, **kwargs).item())

    for name in ['relu', 'relu6', 'elu', 'selu', 'celu', 'rrelu', 'hardtanh', 'tanh',
                 'sigmoid', 'logsigmoid', 'hardshrink', 'tanhshrink', 'softsign']:
        test(name)
    test('relu', inplace=True)
    test('rrelu', inplace=True)
    for name in ['softmin', 'softmax', 'log_softmax']:
        test(name, 0)
    test('leaky_relu', 0.2)
    test('threshold', 3, 2)
    test('threshold', 3, 2, inplace=True)


# -- nearest upsampling ----------------------------------------------------------------

@pytest.mark.parametrize('mode', ['nearest-exact', 'nearest'])
def test_upsamplingNearest1d(lib, mode):
    F = lib.nn.functional
    m = lib.nn.Upsample(size=4, mode=mode)
    eq(m(lib.ones(1, 1, 2, dtype=lib.double)), lib.ones(1, 1, 4, dtype=lib.double))
    out8 = m(lib.ones(1, 1, 2, dtype=lib.uint8))
    assert out8.dtype == lib.uint8 and out8.tolist() == [[[1, 1, 1, 1]]]
    input = randn(lib, 1, 1, 2, dtype='double', requires_grad=True)
    assert lib.autograd.gradcheck(lambda x: F.interpolate(x, 4, mode=mode), [input],
                                  check_forward_ad=True)
    assert lib.autograd.gradgradcheck(lambda x: F.interpolate(x, 4, mode=mode), [input])
    input = randn(lib, 1, 1, 20, dtype='double', requires_grad=True)
    assert lib.autograd.gradcheck(lambda x: F.interpolate(x, 11, mode=mode), [input],
                                  check_forward_ad=True)


@pytest.mark.parametrize('exact', [False, True])
@pytest.mark.parametrize('dims,channels_last', [(1, False), (2, False), (2, True), (3, False),
                                                (3, True)])
@pytest.mark.parametrize('isize,osize', [(20, 11), (10, 15)])
def test_upsamplingNearest_correctness(lib, exact, dims, isize, osize, channels_last):
    """test_upsamplingNearest{1,2,3}d_correctness and test_upsamplingNearestExact{1,2}d_correctness:
    each output pixel is the input pixel at int(o * scale) (or int((o + 0.5) * scale))."""
    in_t = lib.arange(isize ** dims, dtype=lib.float).reshape((1, 1) + (isize,) * dims)
    if channels_last:
        in_t = in_t.contiguous(memory_format=lib.channels_last if dims == 2 else
                               lib.channels_last_3d)
    out_t = lib.nn.functional.interpolate(in_t, size=(osize,) * dims,
                                          recompute_scale_factor=False,
                                          mode='nearest-exact' if exact else 'nearest')
    scale = 1.0 * isize / osize
    idx = lib.tensor([int((o + 0.5) * scale if exact else o * scale) for o in range(osize)])
    expected = in_t
    for d in range(dims):
        expected = expected.index_select(2 + d, idx)
    eq(out_t, expected)


def test_upsamplingNearestExact1d_rescale(lib):
    in_t = lib.arange(20, dtype=lib.float).unsqueeze(0).unsqueeze(0)
    F = lib.nn.functional
    eq(F.interpolate(in_t, scale_factor=1.00001, recompute_scale_factor=False,
                     mode="nearest-exact"), in_t)
    eq(F.interpolate(in_t, scale_factor=2.00001, recompute_scale_factor=False,
                     mode="nearest-exact"), in_t.repeat_interleave(2, dim=-1))


@pytest.mark.parametrize('dims', [2, 3])
@pytest.mark.parametrize('channels_last', [False, True])
@pytest.mark.parametrize('mode', ['nearest', 'nearest-exact'])
def test_upsamplingNearest2d_3d(lib, dims, channels_last, mode):
    """test_upsamplingNearest2d and test_upsamplingNearest3d."""
    F = lib.nn.functional
    fmt = lib.contiguous_format if not channels_last else \
        (lib.channels_last if dims == 2 else lib.channels_last_3d)
    in_t = lib.ones((1, 2) + (2,) * dims, dtype=lib.double).contiguous(memory_format=fmt)
    in8 = lib.ones((1, 2) + (2,) * dims, dtype=lib.uint8).contiguous(memory_format=fmt)
    out_t = F.interpolate(in_t, size=4, mode=mode)
    out8 = F.interpolate(in8, size=4, mode=mode)
    eq(out_t, lib.ones((1, 2) + (4,) * dims, dtype=lib.double))
    assert out8.dtype == lib.uint8 and lib.equal(out8, lib.ones((1, 2) + (4,) * dims,
                                                                 dtype=lib.uint8))
    assert out_t.is_contiguous(memory_format=fmt)
    in_t = in_t.clone().requires_grad_()
    out_t = F.interpolate(in_t, size=4, mode=mode)
    out_t.backward(randn(lib, *out_t.shape, dtype='double'))
    assert in_t.grad.is_contiguous(memory_format=fmt)
    input = randn(lib, *((1, 2) + (2,) * dims), dtype='double').contiguous(memory_format=fmt)
    input.requires_grad_()
    eq(F.interpolate(input, 4, mode=mode), F.interpolate(input, scale_factor=2, mode=mode))
    assert lib.autograd.gradcheck(lambda x: F.interpolate(x, 4, mode=mode), [input],
                                  check_forward_ad=True)
    assert lib.autograd.gradgradcheck(lambda x: F.interpolate(x, 4, mode=mode), [input])
