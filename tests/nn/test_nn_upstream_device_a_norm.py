"""PyTorch's test/test_nn.py, class TestNNDeviceType (its CPU instantiation), the tests whose
names sort before ``test_m`` about normalisation layers: layer and group norm against a
reference formula, and batch norm (gradients and second derivatives, eval mode, affine
parameters, the cumulative average of ``momentum=None``, running-statistics updates).

Shrunk: test_LayerNorm_numeric normalises over [32, 32, 18] instead of [256, 256, 144] and
test_GroupNorm_numeric takes a 1 x 8 x 32 x 32 x 18 input instead of 1 x 8 x 256 x 256 x 72
(the comparison with the formula is the same, at a size that runs in well under a second).
Not adapted: test_batchnorm_large_batch, test_batchnorm_eval_mixed,
test_batchnorm_affine_mixed, test_batchnorm_simple_average_mixed, test_layernorm_half_precision,
test_layernorm_weight_bias (CUDA only).
"""
import numpy as np

from ._nn_rest import eq, lib_fixture, rand

XFAIL = {}
lib = lib_fixture(XFAIL)


def test_LayerNorm_numeric(lib):
    def layer_norm_ref(X, gamma, beta, normalized_shape, eps):
        feature_size = int(np.prod(normalized_shape))
        X_view = X.view(-1, feature_size)
        mean = X_view.mean(dim=-1, keepdim=True)
        var = X_view.var(dim=-1, unbiased=False, keepdim=True)
        Y = (X_view - mean) / lib.sqrt(var + eps)
        Y = Y * gamma.view(-1) + beta.view(-1)
        return Y.view(*X.size())

    normalized_shape = [32, 32, 18]
    layer_norm = lib.nn.LayerNorm(normalized_shape).float()
    X = rand(lib, 2, *normalized_shape)
    Y = layer_norm(X)
    Y_ref = layer_norm_ref(X, layer_norm.weight.data, layer_norm.bias.data,
                           normalized_shape, layer_norm.eps)
    eq(Y, Y_ref, rtol=0, atol=1e-5)


def test_GroupNorm_numeric(lib):
    def group_norm_ref(X, gamma, beta, groups, channels, eps):
        batch_size = X.size()[0]
        X_view = X.view(batch_size, groups, -1)
        mean = X_view.mean(dim=-1, keepdim=True)
        var = X_view.var(dim=-1, unbiased=False, keepdim=True)
        Y = ((X_view - mean) / lib.sqrt(var + eps)).view(batch_size, channels, -1)
        Y = Y * gamma.view(channels, 1) + beta.view(channels, 1)
        return Y.view(*X.size())

    groups, channels = 2, 8
    group_norm = lib.nn.GroupNorm(groups, channels).float()
    X = rand(lib, 1, channels, 32, 32, 18)
    Y = group_norm(X)
    Y_ref = group_norm_ref(X, group_norm.weight.data, group_norm.bias.data, groups, channels,
                           group_norm.eps)
    eq(Y, Y_ref, rtol=0, atol=1e-5)


def test_batchnorm_grad(lib):
    dt = lib.double
    bs, n_feat, size_feat = 4, 5, 6
    input = lib.arange(bs * n_feat * size_feat, requires_grad=True,
                       dtype=dt).view(bs, n_feat, size_feat)
    weight = lib.arange(1, n_feat + 1, requires_grad=True, dtype=dt)
    bias = lib.arange(n_feat, requires_grad=True, dtype=dt)
    running_mean = 1 - lib.arange(n_feat, dtype=dt)
    running_var = 2 * lib.arange(n_feat, dtype=dt)
    for training in [False, True]:
        args = (input, running_mean, running_var, weight, bias, training, 0.1, 0.0001)
        assert lib.autograd.gradcheck(lib.nn.functional.batch_norm, args)
        assert lib.autograd.gradgradcheck(lib.nn.functional.batch_norm, args)


def test_batchnorm_eval(lib):
    dt = lib.float
    for ndim in (2, 3):
        module = lib.nn.BatchNorm1d(3).to(dtype=dt)
        module.eval()
        data = rand(lib, *[3] * ndim, requires_grad=True)
        grad = rand(lib, *[3] * ndim, seed=1)
        res1 = module(data)
        res1.backward(grad)
        grad1 = data.grad.clone()
        data.grad.data.zero_()
        res2 = module(data)
        res2.backward(grad)
        eq(res1, res2)
        eq(grad1, data.grad)

        # track_running_stats=False: training and eval agree
        module = lib.nn.BatchNorm1d(3, track_running_stats=False).to(dtype=dt)
        data = rand(lib, 4, 3, seed=2, requires_grad=True)
        grad = rand(lib, 4, 3, seed=3)
        res1 = module(data)
        res1.backward(grad)
        grad1 = data.grad.clone()
        module.eval()
        data.grad.data.zero_()
        res2 = module(data)
        res2.backward(grad)
        eq(res1, res2)
        eq(grad1, data.grad)


def test_batchnorm_affine(lib):
    for ndim in (2, 3):
        module = lib.nn.BatchNorm1d(3, affine=False)
        module_affine = lib.nn.BatchNorm1d(3, affine=True)
        with lib.no_grad():
            module_affine.weight.fill_(1.0)
            module_affine.bias.zero_()
        data = rand(lib, *[3] * ndim, requires_grad=True)
        grad = lib.ones_like(data, requires_grad=False)
        res1 = module_affine(data)
        res1.backward(grad)
        grad1 = data.grad.clone()
        data.grad.zero_()
        res2 = module(data)
        res2.backward(grad)
        eq(res1, res2)
        eq(grad1, data.grad)


def test_batchnorm_simple_average(lib):
    module = lib.nn.BatchNorm1d(3, momentum=None)
    zeros, ones = lib.zeros(3), lib.ones(3)
    eq(module.running_mean, zeros)
    eq(module.running_var, ones)
    data1, data2 = rand(lib, 4, 3), rand(lib, 4, 3, seed=1)

    res1 = module(data1)
    running_mean1 = module.running_mean.clone()
    running_var1 = module.running_var.clone()
    assert not lib.equal(running_mean1, zeros)
    assert not lib.equal(running_var1, ones)
    module.reset_running_stats()
    eq(module.running_mean, zeros)
    eq(module.running_var, ones)

    res2 = module(data2)
    running_mean2 = module.running_mean.clone()
    running_var2 = module.running_var.clone()
    assert not lib.equal(running_mean2, zeros)
    assert not lib.equal(running_var2, ones)
    module.reset_running_stats()
    eq(module.running_mean, zeros)
    eq(module.running_var, ones)

    res3 = module(data1)
    res4 = module(data2)
    eq(res3, res1)
    eq(res4, res2)
    eq(module.running_mean, (running_mean1 + running_mean2) / 2)
    eq(module.running_var, (running_var1 + running_var2) / 2)


def test_batchnorm_update_stats(lib):
    module = lib.nn.BatchNorm1d(3)
    data = rand(lib, 4, 3)
    old_mean = module.running_mean.clone()
    old_var = module.running_var.clone()
    old_tracked = module.num_batches_tracked.clone()
    module(data)
    assert not lib.equal(old_mean, module.running_mean)
    assert not lib.equal(old_var, module.running_var)
    eq(old_tracked + 1, module.num_batches_tracked)

    module.eval()
    old_mean = module.running_mean.clone()
    old_var = module.running_var.clone()
    old_tracked = module.num_batches_tracked.clone()
    module(data)
    eq(old_mean, module.running_mean)
    eq(old_var, module.running_var)
    eq(old_tracked, module.num_batches_tracked)
