"""PyTorch's test/test_nn.py after TestNN: from TestNNDeviceType (its CPU instantiation) the
normalisation-layer checks (instance, layer and group norm: statistics, affine parameters,
running statistics, bad shapes, mixed dtypes), the transformer-encoder gelu test, gradient
clipping (clip_grad_value_, clip_grad_norm_, get_total_norm, clip_grads_with_norm_) and
channel shuffle; then TestFunctionalPickle, TestFusionUtils and TestUtils.

The rest of TestNNDeviceType (several hundred tests, many CUDA-only) is not adapted here.
"""
import math
import pickle
import random
import warnings
from collections import OrderedDict
from copy import deepcopy

import pytest

from ._nn_rest import cos_params, eq, lib_fixture, oracle, rand, randn, raises

XFAIL = {}
lib = lib_fixture(XFAIL)


# -- TestNNDeviceType: normalisation layers ----------------------------------------------

@pytest.mark.parametrize('dims', [1, 2, 3])
def test_InstanceNorm_general(lib, dims):
    """test_InstanceNorm1d_general, test_InstanceNorm2d_general, test_InstanceNorm3d_general."""
    rng = random.Random(dims)
    b, c = rng.randint(3, 5), rng.randint(3, 5)
    spatial = [rng.randint(3, 6) for _ in range(dims)]
    cls = getattr(lib.nn, f'InstanceNorm{dims}d')
    input_var = rand(lib, b, c, *spatial, requires_grad=True)
    IN = cls(c, eps=0)
    output = IN(input_var)
    out_reshaped = output.view(b * c, -1)
    eq(out_reshaped.mean(1).abs().mean(), 0., rtol=0, atol=1e-5)
    eq(out_reshaped.var(1, unbiased=False).abs().mean(), 1., rtol=0, atol=1e-5)

    grad_out = randn(lib, *output.shape, seed=1)
    res1 = output.data.clone()
    output.backward(grad_out)
    grad1 = input_var.grad.data.clone()
    IN.eval()
    output = IN(input_var)
    input_var.grad = None
    output.backward(grad_out)
    eq(res1, output.data)
    eq(grad1, input_var.grad.data)

    IN = cls(c, momentum=1, eps=0, track_running_stats=True)
    IN(input_var)
    mean = input_var.transpose(1, 0).reshape(c, -1).mean(1)
    var = input_var.transpose(1, 0).reshape(c, b, -1).var(2, unbiased=True)
    eq((mean.data - IN.running_mean).abs().mean(), 0., rtol=0, atol=1e-5)
    eq((var.data.mean(1) - IN.running_var).abs().mean(), 0., rtol=0, atol=1e-5)

    IN.eval()
    delta = IN.running_var.sqrt() * lib.arange(c, dtype=lib.float)
    output = IN(input_var + delta.view(-1, *[1] * dims))
    eq(output.transpose(0, 1).reshape(c, -1).mean(1), lib.arange(c, dtype=lib.float),
       atol=1e-5)


@pytest.mark.parametrize('dims', [1, 2, 3])
@pytest.mark.parametrize('no_batch_dim', [True, False])
@pytest.mark.parametrize('affine', [True, False])
def test_instancenorm_raises_error_if_input_channels_is_not_num_features(lib, dims,
                                                                         no_batch_dim, affine):
    inst_norm = getattr(lib.nn, f'InstanceNorm{dims}d')(4, affine=affine)
    size = [2] * inst_norm._get_no_batch_dim()
    if not no_batch_dim:
        size = [3] + size
    t = randn(lib, *size)
    if affine:
        with raises(ValueError, "expected input's size at dim="):
            inst_norm(t)
    else:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            inst_norm(t)
        assert "which is not used because affine=False" in str(w[0].message)


def test_instancenorm_raises_error_if_less_than_one_value_per_channel(lib):
    with raises(ValueError):
        lib.nn.InstanceNorm1d(10)(rand(lib, 10)[None, :, None])


def test_instancenorm_raises_error_for_single_spatial_element_during_training(lib):
    for i, norm in enumerate([lib.nn.InstanceNorm1d, lib.nn.InstanceNorm2d,
                              lib.nn.InstanceNorm3d]):
        m = norm(3, track_running_stats=True)
        input = randn(lib, 10, 3, *[1] * (i + 1))
        with raises(ValueError):
            m(input)
        m.eval()
        m(input)


def test_instancenorm_error_messages():
    """(ember's own) instance norm's errors and warning carry torch's messages."""
    oracle(lambda lib: lib.nn.InstanceNorm2d(4, affine=True)(randn(lib, 3, 2, 2, 2)))
    oracle(lambda lib: lib.nn.InstanceNorm1d(3, track_running_stats=True)(randn(lib, 10, 3, 1)))


@pytest.mark.parametrize('dtype', ['float', 'half', 'bfloat16'])
def test_LayerNorm_general(lib, dtype):
    rng = random.Random(0)
    delta = 1e-1 if dtype != 'float' else 1e-5
    for i in range(2, 6):
        shape = [rng.randint(3, 5) for _ in range(i)]
        x = (rand(lib, *shape) * 10).to(getattr(lib, dtype))
        normalized_ndim = rng.randint(1, i - 1)
        normalized_shape = shape[-normalized_ndim:]
        unnormalized_shape = shape[:-normalized_ndim]
        ln = lib.nn.LayerNorm(normalized_shape, eps=0).to(getattr(lib, dtype))
        ln.weight.data.fill_(1)
        ln.bias.data.fill_(0)
        out = ln(x).float().view(*(unnormalized_shape + [-1]))
        eq(out.mean(-1).abs().mean(), 0., rtol=0, atol=delta)
        eq(out.var(-1, unbiased=False).abs().mean(), 1., rtol=0, atol=delta)
        scale, bias = 0.2 + 1.8 * rng.random(), 0.2 + 1.8 * rng.random()
        ln.weight.data.fill_(scale)
        ln.bias.data.fill_(bias)
        out = ln(x).float().view(*(unnormalized_shape + [-1]))
        eq(out.mean(-1).abs().mean(), bias, rtol=0, atol=delta)
        eq(out.var(-1, unbiased=False).abs().mean(), scale ** 2, rtol=0, atol=delta)
    for norm_shape, input_shape in {(): (), (2, 3): (3,), (2,): (1, 2, 3), (10,): (2, 3),
                                    10: (2, 3)}.items():
        ln = lib.nn.LayerNorm(norm_shape)
        with raises(RuntimeError):
            ln(rand(lib, *input_shape).to(getattr(lib, dtype)) * 10)


@pytest.mark.parametrize('dtype', ['half', 'bfloat16'])
def test_LayerNorm_cpu_mixed_dtype(lib, dtype):
    dt = getattr(lib, dtype)
    for elementwise_affine in [True, False]:
        input = (rand(lib, 2, 3, 11, 3) * 9 + 1).floor().to(dt)
        m = lib.nn.LayerNorm([11, 3], elementwise_affine=elementwise_affine).to(dt)
        m_fp32 = deepcopy(m).to(lib.float)
        x_fp32 = input.detach().clone().float().requires_grad_()
        out_fp32 = m_fp32(x_fp32)
        out_fp32.sum().backward()
        m_bf16 = deepcopy(m)
        x_bf16 = input.detach().clone().requires_grad_()
        out_bf16 = m_bf16(x_bf16)
        out_bf16.sum().backward()
        m_mix = deepcopy(m).to(lib.float)
        x_mix = input.detach().clone().requires_grad_()
        out_mix = m_mix(x_mix)
        out_mix.sum().backward()
        eq(out_fp32.to(dtype=dt), out_bf16, rtol=1.6e-2, atol=1e-5)
        eq(out_fp32.to(dtype=dt), out_mix, rtol=1.6e-2, atol=1e-5)
        eq(x_fp32.grad.to(dtype=dt), x_bf16.grad, atol=1e-1, rtol=1e-1)
        eq(x_fp32.grad.to(dtype=dt), x_mix.grad, atol=1e-1, rtol=1e-1)


def test_GroupNorm_general(lib):
    good = {(1, 2, 3, 4): 2, (2, 3, 10): 3, (3, 1, 1, 1, 2): 1, (2, 6, 4, 2, 2): 3,
            (1, 256, 1, 1): 32}
    for (shape, g), grad in [(sg, gr) for sg in good.items() for gr in (True, False)]:
        x = (rand(lib, *shape) * 10).requires_grad_(grad)
        b, c = shape[0], shape[1]
        gn = lib.nn.GroupNorm(g, c, eps=0)
        gn.weight.data.fill_(1)
        gn.bias.data.fill_(0)
        output = gn(x)
        out_reshaped = output.view(b, g, -1)
        eq(out_reshaped.mean(-1).abs().mean(), 0., rtol=0, atol=1e-5)
        eq(out_reshaped.var(-1, unbiased=False).abs().mean(), 1., rtol=0, atol=1e-5)
        output.backward(randn(lib, *output.shape, seed=1))
        scale = rand(lib, c, seed=2) * 1.8 + 0.2
        bias = rand(lib, c, seed=3) * 1.8 + 0.2
        gn.weight.data.copy_(scale)
        gn.bias.data.copy_(bias)
        output = gn(x)
        out_normed = (output.view(b, c, -1) - bias.view(c, 1)) / scale.view(c, 1)
        out_normed = out_normed.view(b, g, -1)
        eq(out_normed.mean(-1).abs().mean(), 0., rtol=0, atol=1e-5)
        eq(out_normed.var(-1, unbiased=False).abs().mean(), 1., rtol=0, atol=1e-5)
    for shape, g in {(1, 2, 3, 4): 3, (2, 3, 10): 2, (3, 1, 1, 1, 2): 10,
                     (2, 6, 4, 2, 2): 4}.items():
        with raises(ValueError):
            lib.nn.GroupNorm(g, shape[1])


@pytest.mark.parametrize('dtype', ['bfloat16', 'half'])
@pytest.mark.parametrize('shape,g', [((1, 8, 4, 3), 2), ((1, 8, 3, 4), 4), ((4, 8, 40, 40), 4),
                                     ((1, 40, 50, 50), 2), ((1, 9, 3, 4, 5), 3),
                                     ((1, 8, 65, 55), 2), ((1, 3, 20, 20), 1)])
@pytest.mark.parametrize('is_cl', [False, True])
def test_GroupNorm_cpu_mixed_dtype(lib, dtype, shape, g, is_cl):
    """(a selection of upstream's shapes)"""
    dt = getattr(lib, dtype)
    fmt = ({4: lib.channels_last, 5: lib.channels_last_3d}[len(shape)] if is_cl
           else lib.contiguous_format)
    input = randn(lib, *shape).to(dtype=dt)
    input_bf1 = input.contiguous(memory_format=fmt).detach().requires_grad_(True)
    input_bf2 = input_bf1.detach().clone().requires_grad_(True)
    input_f = input_bf1.float().detach().requires_grad_(True)
    m_bf = lib.nn.GroupNorm(g, shape[1]).to(dtype=dt)
    m_f = deepcopy(m_bf).float()
    m_f2 = deepcopy(m_f)
    out, out2, out3 = m_bf(input_bf1), m_f(input_bf2), m_f2(input_f)
    eq(out, out2, atol=5e-3, rtol=5e-3)
    eq(out2.float(), out3, atol=5e-3, rtol=5e-3)
    grad_out = randn(lib, *out2.shape, seed=1).to(dtype=dt)
    grad_out_bf1 = grad_out.contiguous(memory_format=fmt).detach()
    grad_out_bf2 = grad_out_bf1.detach().clone()
    out2.backward(grad_out_bf2, retain_graph=True)
    out3.backward(grad_out_bf2.clone().float(), retain_graph=True)
    out.backward(grad_out_bf1, retain_graph=True)
    eq(m_f.weight.grad, m_f2.weight.grad, atol=1e-4, rtol=1e-4)
    eq(m_f.bias.grad, m_f2.bias.grad, atol=1e-5, rtol=1e-5)
    eq(input_bf2.grad.float(), input_f.grad, atol=5e-5, rtol=5e-3)
    atol, rtol = (1e-2, 1.2e-1) if dtype == 'bfloat16' else (5e-3, 1.5e-2)
    eq(m_bf.weight.grad, m_f.weight.grad.to(dtype=dt), atol=atol, rtol=rtol)
    eq(m_bf.bias.grad, m_f.bias.grad.to(dtype=dt), atol=atol, rtol=rtol)
    eq(input_bf1.grad, input_bf2.grad, atol=atol, rtol=rtol)


# -- TestNNDeviceType: transformer encoder, clipping, channel shuffle ----------------------

@pytest.mark.parametrize('activation', ['gelu', 'F.gelu', 'nn.GELU()'])
@pytest.mark.parametrize('batch_first', [True, False])
@pytest.mark.parametrize('training', [True, False])
def test_transformerencoderlayer_gelu(activation, batch_first, training):
    """(upstream's known outputs are torch's: here ember's are compared with torch's)"""
    def fn(lib):
        act = {'gelu': 'gelu', 'F.gelu': lib.nn.functional.gelu,
               'nn.GELU()': lib.nn.GELU()}[activation]
        model = cos_params(lib, lib.nn.TransformerEncoderLayer(4, 2, 16, 0.0, act,
                                                               batch_first=batch_first))
        if not training:
            model = model.eval()

        def perm(x):
            x = lib.tensor(x)
            return x.transpose(1, 0) if batch_first else x
        inputs = [[[[20., 30., 40., 50.]]], [[[1., 2., 3., 4.]], [[5., 6., 7., 8.]]],
                  [[[0.7462, 0.6653, 0.5679, 0.4891], [0.5387, 0.1655, 0.3565, 0.0471]],
                   [[0.8335, 0.2799, 0.5031, 0.2947], [0.1402, 0.0318, 0.7636, 0.1346]],
                   [[0.6333, 0.9344, 0.1376, 0.9938], [0.8924, 0.2872, 0.6692, 0.2944]]]]
        with (lib.no_grad() if not training else lib.enable_grad()):
            return [model(perm(x)) for x in inputs]
    oracle(fn, rtol=1e-5, atol=1e-6)


def test_transformerencoderlayer_fast_path(lib):
    model = lib.nn.TransformerEncoderLayer(d_model=64, nhead=8, batch_first=True,
                                           dtype=lib.double, dropout=0)
    model.eval()
    src = rand(lib, 4, 10, 64, dtype='double')
    src_mask = lib.zeros(10, 10).to(lib.bool)
    src_key_padding_mask = lib.zeros(4, 10).to(lib.bool)
    with lib.no_grad():
        for kw in ({'src_mask': src_mask}, {'src_key_padding_mask': src_key_padding_mask},
                   {'src_mask': src_mask, 'src_key_padding_mask': src_key_padding_mask}):
            assert model(src, **kw).shape == (4, 10, 64)


@pytest.mark.parametrize('foreach', [False, True])
def test_clip_grad_value(lib, foreach):
    clip_grad_value_ = lib.nn.utils.clip_grad_value_
    l = lib.nn.Linear(10, 10)
    clip_value = 2.5
    grad_w = lib.arange(-50., 50).view(10, 10).div_(5)
    grad_b = lib.ones(10).mul_(2)
    for grad_list in [[grad_w, grad_b], [grad_w, None]]:
        for p, g in zip(l.parameters(), grad_list):
            p._grad = g.clone().view_as(p.data) if g is not None else g
        clip_grad_value_(l.parameters(), clip_value, foreach=foreach)
        for p in filter(lambda p: p.grad is not None, l.parameters()):
            assert p.grad.data.max() <= clip_value
            assert p.grad.data.min() >= -clip_value
    p1, p2 = randn(lib, 10, 10), randn(lib, 10, 10, seed=1)
    g = lib.arange(-50., 50).view(10, 10).div_(5)
    p1._grad = g.clone()
    p2._grad = g.clone()
    clip_grad_value_(p1, clip_value, foreach=foreach)
    clip_grad_value_([p2], clip_value, foreach=foreach)
    eq(p1.grad, p2.grad)


@pytest.mark.parametrize('foreach', [False, True])
@pytest.mark.parametrize('norm_type', [0.5, 1.5, 2, 4, 'inf'])
def test_clip_grad_norm(lib, norm_type, foreach):
    utils = lib.nn.utils
    l = lib.nn.Linear(10, 10)
    max_norm = 2

    def compute_norm(norm_type):
        norm_type = float(norm_type)
        if norm_type != math.inf:
            total = 0
            for p in l.parameters():
                total += p.grad.data.abs().pow(norm_type).sum()
            return pow(total, 1. / norm_type)
        return max(p.grad.data.abs().max() for p in l.parameters())

    def compare_scaling(grads):
        scale = lib.cat([p.grad.data.div(g).view(-1) for p, g in zip(l.parameters(), grads)])
        eq(scale.std(), 0., atol=1e-6)
        return scale[0]

    def set_grads():
        grads = lib.arange(1., 101).view(10, 10), lib.ones(10).div(1000)
        for p, g in zip(l.parameters(), grads):
            p._grad = g.clone().view_as(p.data)
        return grads

    grads = set_grads()
    norm_before = compute_norm(norm_type)
    norm = utils.clip_grad_norm_(l.parameters(), max_norm, norm_type=norm_type, foreach=foreach)
    norm_after = compute_norm(norm_type)
    eq(norm, norm_before)
    eq(norm_after, max_norm)
    assert norm_after <= norm_before
    compare_scaling(grads)

    grads = set_grads()
    norm_before = compute_norm(norm_type)
    total_norm = utils.get_total_norm([p.grad for p in l.parameters()], norm_type=norm_type,
                                      foreach=foreach)
    utils.clip_grads_with_norm_(l.parameters(), max_norm, total_norm, foreach=foreach)
    norm_after = compute_norm(norm_type)
    eq(total_norm, norm_before)
    eq(norm_after, max_norm)
    assert norm_after <= norm_before
    compare_scaling(grads)

    grads = rand(lib, 10, 10).div(10000), lib.ones(10).div(500)
    for p, g in zip(l.parameters(), grads):
        p.grad.data.copy_(g)
    norm_before = compute_norm(norm_type)
    norm = utils.clip_grad_norm_(l.parameters(), max_norm, norm_type=norm_type, foreach=foreach)
    norm_after = compute_norm(norm_type)
    eq(norm, norm_before)
    eq(norm_before, norm_after)
    assert norm_after <= max_norm
    eq(compare_scaling(grads), 1.)

    p1, p2 = randn(lib, 10, 10), randn(lib, 10, 10, seed=1)
    g = lib.arange(1., 101).view(10, 10)
    p1._grad = g.clone()
    p2._grad = g.clone()
    utils.clip_grad_norm_(p1, max_norm, norm_type=norm_type, foreach=foreach)
    utils.clip_grad_norm_([p2], max_norm, norm_type=norm_type, foreach=foreach)
    eq(p1.grad, p2.grad)

    params = l.parameters()
    for _ in params:
        pass
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        utils.clip_grad_norm_(params, max_norm, norm_type=norm_type, foreach=foreach)
    assert len(w) == 1
    assert str(w[0].message) == \
        "`parameters` is an empty generator, no gradient clipping will occur."


def test_channel_shuffle(lib):
    F = lib.nn.functional
    x = lib.tensor([[[1, 2], [5, 6], [9, 10], [13, 14]]])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        y = F.channel_shuffle(x, 2)
    assert len(w) == 0
    assert y.tolist() == [[[1, 2], [9, 10], [5, 6], [13, 14]]]
    x4 = lib.arange(1, 17).view(1, 4, 2, 2)
    expected4 = x4[:, [0, 2, 1, 3]]
    for fmt in (lib.contiguous_format, lib.channels_last):
        y = F.channel_shuffle(x4.contiguous(memory_format=fmt), 2)
        assert lib.equal(y.contiguous(), expected4)
    x5 = lib.arange(1, 17).view(1, 4, 1, 2, 2)
    for fmt in (lib.contiguous_format, lib.channels_last_3d):
        y = F.channel_shuffle(x5.contiguous(memory_format=fmt), 2)
        assert lib.equal(y.contiguous(), x5[:, [0, 2, 1, 3]])


# -- TestFunctionalPickle, TestFusionUtils, TestUtils ----------------------------------------

def test_pickle_softsign(lib):
    assert pickle.loads(pickle.dumps(lib.nn.functional.softsign)) is lib.nn.functional.softsign


@pytest.mark.parametrize('kind', ['conv', 'linear'])
def test_fuse_bn_requires_grad(lib, kind):
    """test_fuse_conv_bn_requires_grad and test_fuse_linear_bn_requires_grad."""
    fusion = lib.nn.utils.fusion
    layer = lib.nn.Conv2d(3, 3, 3) if kind == 'conv' else lib.nn.Linear(3, 3)
    bn = lib.nn.BatchNorm2d(3) if kind == 'conv' else lib.nn.BatchNorm1d(3)
    fuse = fusion.fuse_conv_bn_weights if kind == 'conv' else fusion.fuse_linear_bn_weights
    for w_rg in (True, False):
        for b_rg in (True, False):
            layer.weight.requires_grad = w_rg
            layer.bias.requires_grad = b_rg
            weight, bias = fuse(layer.weight, layer.bias, bn.running_mean, bn.running_var,
                                bn.eps, bn.weight, bn.bias)
            assert weight.requires_grad == w_rg
            assert bias.requires_grad == b_rg


def test_consume_prefix_in_state_dict_if_present(lib):
    nn = lib.nn
    consume = nn.modules.utils.consume_prefix_in_state_dict_if_present

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 3, 3, bias=True)
            self.conv2 = nn.Conv2d(3, 3, 3, bias=False)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear1 = nn.Linear(5, 5)
            self.linear2 = nn.Linear(5, 5)
            self.bn = nn.BatchNorm2d(2)
            self.block = Block()

    for net in (nn.Module(), Net()):
        state_dict = net.state_dict()
        consume(state_dict, 'module.')
        assert list(state_dict.keys()) == list(net.state_dict().keys())
        assert list(state_dict._metadata.keys()) == list(net.state_dict()._metadata.keys())

    state_dict = net.state_dict()
    metadata = state_dict._metadata
    ddp_state_dict = OrderedDict((f'module.{k}', v) for k, v in state_dict.items())
    ddp_state_dict._metadata = OrderedDict({'': metadata['']})
    ddp_state_dict._metadata.update(('module' if k == '' else f'module.{k}', v)
                                    for k, v in metadata.items())
    consume(ddp_state_dict, 'module.')
    assert list(state_dict.keys()) == list(ddp_state_dict.keys())
    assert list(state_dict._metadata.keys()) == list(ddp_state_dict._metadata.keys())
