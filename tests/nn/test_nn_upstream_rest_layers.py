"""PyTorch's test/test_nn.py, class TestNN, from test_linear_broadcasting to
test_max_pool1d_invalid_output_size (in upstream's order): Linear and Bilinear, Fold /
Unfold argument checks, softmin, adaptive log-softmax, cross-entropy in bfloat16 and its
precision, Flatten / Unflatten, layer norm, padding lists, pooling argument checks; then the
small classes after TestNN: TestFusionEval and TestConstantPadNd.

Not adapted: test_convert_sync_batchnorm, test_sync_batchnorm_backward_elemt,
test_sync_batchnorm_accuracy_cuda, test_layer_norm_backwards_eps, test_layer_norm_large_tensor
(CUDA only); test_linear_autograd's sparse weight layouts (the sparse helper's part: the
strided layout is here); TestAddRelu (the private ``torch._VF._add_relu``).
"""
import pytest

from ._nn_rest import eq, lib_fixture, oracle, rand, randn, raises, same_params

XFAIL = {}
lib = lib_fixture(XFAIL)


def test_linear_broadcasting(lib):
    m = lib.nn.Linear(5, 8)
    inp = randn(lib, 2, 3, 5)
    eq(m(inp.view(6, 5)).view(2, 3, 8), m(inp))


def test_linear_raise_on_scalar_input(lib):
    with raises(RuntimeError, ".*both arguments.*1D.*"):
        lib.nn.Linear(1, 1)(lib.ones(1).squeeze())


@pytest.mark.parametrize('bias', [False, True])
def test_linear_autograd(lib, bias):
    module = lib.nn.Linear(4, 4, bias=bias)
    inp = randn(lib, 4, requires_grad=True)
    res = module(inp)
    expected = lib.einsum("i,ji->j", inp, module.weight)
    if bias:
        expected = expected + module.bias
    eq(res, expected)
    grad_output = randn(lib, 4, seed=1)
    grads = lib.autograd.grad(res, [module.weight, inp], grad_output)
    grads_expected = lib.autograd.grad(expected, [module.weight, inp], grad_output)
    assert grads_expected[0].layout == lib.strided
    eq(list(grads), list(grads_expected))


def test_bilinear(lib):
    module = lib.nn.Bilinear(10, 10, 8)
    input1 = randn(lib, 4, 10, requires_grad=True)
    input2 = randn(lib, 4, 10, seed=1, requires_grad=True)
    res = module(input1, input2)
    expected = lib.einsum("bi,kij,bj->bk", input1, module.weight, input2) + module.bias
    eq(res, expected)
    wrt = [module.weight, module.bias, input1, input2]
    grad_output = randn(lib, 4, 8, seed=2)
    eq(list(lib.autograd.grad(res, wrt, grad_output)),
       list(lib.autograd.grad(expected, wrt, grad_output)), rtol=1e-5, atol=1e-5)


def test_bilinear_non_contiguous(lib):
    module = lib.nn.Bilinear(7, 7, 5)
    input1 = randn(lib, 4, 7, 10, requires_grad=True)
    input2 = randn(lib, 4, 7, 10, seed=1, requires_grad=True)
    grad_output = randn(lib, 4, 10, 5, seed=2)

    def run(a, b):
        input1.grad = input2.grad = None
        output = module(a, b)
        output.backward(grad_output)
        return output.data, input1.grad.data, input2.grad.data

    non_contiguous = run(input1.transpose(1, 2), input2.transpose(1, 2))
    contiguous = run(input1.transpose(1, 2).contiguous(), input2.transpose(1, 2).contiguous())
    eq(list(contiguous), list(non_contiguous))


def test_bilinear_no_bias(lib):
    module = lib.nn.Bilinear(10, 10, 8, dtype=lib.double)
    module_no_bias = lib.nn.Bilinear(10, 10, 8, False, dtype=lib.double)
    module.bias.data.zero_()
    module.weight.data.copy_(module_no_bias.weight)
    input1 = randn(lib, 4, 10, dtype='double', requires_grad=True)
    input2 = randn(lib, 4, 10, seed=1, dtype='double', requires_grad=True)
    grad_output = randn(lib, 4, 8, seed=2, dtype='double')

    def run(net):
        input1.grad = input2.grad = None
        output = net(input1, input2)
        output.backward(grad_output)
        return output.data, input1.grad.data, input2.grad.data

    eq(list(run(module)), list(run(module_no_bias)))
    fn = lambda x1, x2: lib.nn.functional.bilinear(x1, x2, module_no_bias.weight,  # noqa: E731
                                                   module_no_bias.bias)
    assert lib.autograd.gradcheck(fn, (input1, input2))
    assert lib.autograd.gradgradcheck(fn, (input1, input2))


def test_bilinear_broadcasting(lib):
    m = lib.nn.Bilinear(5, 6, 8)
    input1 = randn(lib, 2, 3, 5)
    input2 = randn(lib, 2, 3, 6, seed=1)
    eq(m(input1.view(6, 5), input2.view(6, 6)).view(2, 3, 8), m(input1, input2))


def test_bilinear_value_error(lib):
    with raises(ValueError, "in1_features must be > 0"):
        lib.nn.Bilinear(0, 0, 0)


def test_fold_invalid_arg(lib):
    nn = lib.nn
    fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 3))
    for c in (5, 19):
        with raises(RuntimeError, r"be divisible by the product of kernel_size"):
            fold(randn(lib, 1, c, 9))
    for kwargs, shape in [({}, (1, 6, 10)), ({'stride': (2, 2)}, (1, 6, 5)),
                          ({'stride': (2, 2), 'dilation': (1, 2), 'padding': (2, 0)},
                           (1, 6, 5))]:
        with raises(RuntimeError, r"match the calculated number of sliding blocks"):
            nn.Fold(output_size=(4, 5), kernel_size=(2, 3), **kwargs)(randn(lib, *shape))
    fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 2), stride=1, dilation=8, padding=0)
    with raises(RuntimeError, r"calculated shape of the array of sliding blocks as"):
        fold(randn(lib, 1, 12, 12))


def test_unfold_invalid_arg(lib):
    for kwargs, shape in [({'kernel_size': (2, 3)}, (1, 2, 2, 2)),
                          ({'kernel_size': (5, 3), 'padding': (1, 1)}, (1, 2, 2, 3)),
                          ({'kernel_size': (1, 3), 'padding': (1, 1), 'dilation': (1, 2)},
                           (1, 2, 2, 2))]:
        with raises(RuntimeError, r"its components must be at least one"):
            lib.nn.Unfold(**kwargs)(randn(lib, *shape))


def test_fold_unfold_error_messages():
    """(ember's own) the Fold / Unfold errors above carry torch's class and whole message."""
    oracle(lambda lib: lib.nn.Fold((4, 5), (2, 3))(randn(lib, 1, 5, 9)))
    oracle(lambda lib: lib.nn.Fold((4, 5), (2, 3))(randn(lib, 1, 6, 10)))
    oracle(lambda lib: lib.nn.Fold((4, 5), (2, 2), dilation=8)(randn(lib, 1, 12, 12)))
    oracle(lambda lib: lib.nn.Unfold((2, 3))(randn(lib, 1, 2, 2, 2)))


def test_softmin(lib):
    x = randn(lib, 2, 16)
    for dim in (1, 0):
        eq(lib.nn.functional.softmin(x, dim), lib.nn.functional.softmax(-x, dim))


def test_adaptive_log_softmax(lib):
    nn = lib.nn
    for cutoffs in ([5, 15, 15], [5, 15, 10], [5, 10, 25]):
        with raises(ValueError):
            nn.AdaptiveLogSoftmaxWithLoss(16, 20, cutoffs, div_value=2.)
    with raises(ValueError, "cutoffs should be a sequence of unique,"):
        nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 20], div_value=2.)
    nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 19], div_value=2.)

    asfm = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 15], div_value=2.)
    with raises(RuntimeError, r"Input and target should have the same size"):
        asfm(randn(lib, 2, 16), lib.tensor([0, 5, 10]))
    with raises(RuntimeError, r"Target values should be in"):
        asfm(randn(lib, 2, 16), lib.tensor([0, 20]))

    assert asfm.head.weight.size() == (5 + 3, 16)
    assert asfm.tail[0][1].weight.size() == (5, 8)
    assert asfm.tail[1][1].weight.size() == (5, 4)
    assert asfm.tail[2][1].weight.size() == (5, 2)
    assert asfm(randn(lib, 2, 16), lib.tensor([0, 17])).output.size() == (2,)

    x, y = randn(lib, 1, 16), lib.tensor([17])
    eq(asfm(x, y).output.squeeze(0), asfm(x.squeeze(0), y.squeeze(0)).output)

    asfm = nn.AdaptiveLogSoftmaxWithLoss(8, 4, [2], div_value=2.)
    x = randn(lib, 4, 8)
    logprob_out = asfm.log_prob(x)
    eq(lib.exp(logprob_out).data.sum(1), lib.ones(4))
    for v in [0, 1, 2, 3]:
        y = lib.full((4,), v, dtype=lib.long)
        out, loss = asfm(x, y)
        eq(out, logprob_out.gather(1, y.unsqueeze(1)).squeeze())
        eq(loss, lib.nn.functional.nll_loss(logprob_out, y))

    x = randn(lib, 64, 8).abs_()
    asfm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8], div_value=2., head_bias=True)
    asfm.head.weight.data.abs_()
    asfm.head.bias.data.abs_()
    asfm.head.weight.data[asfm.shortlist_size:, :].zero_()
    assert lib.equal(asfm.predict(x), asfm.log_prob(x).argmax(dim=1))

    asfm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8], div_value=2., head_bias=True)
    asfm.head.weight.data.abs_()
    asfm.head.bias.data.abs_()
    asfm.head.weight.data[:asfm.shortlist_size, :].zero_()
    assert lib.equal(asfm.predict(x), asfm.log_prob(x).argmax(dim=1))

    asfm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8], div_value=2., head_bias=True)
    asfm.head.weight.data.abs_()
    asfm.head.bias.data.abs_()
    x[:32, :asfm.shortlist_size].zero_()
    x[32:, asfm.shortlist_size:].zero_()
    asfm.head.weight.data[:asfm.shortlist_size, asfm.shortlist_size:].zero_()
    asfm.head.weight.data[asfm.shortlist_size:, :asfm.shortlist_size].zero_()
    assert lib.equal(asfm.predict(x), asfm.log_prob(x).argmax(dim=1))


def test_adaptive_log_softmax_values():
    """(ember's own) with the same weights, adaptive log-softmax's outputs, losses, log
    probabilities, predictions and gradients agree with torch's."""
    def fn(lib):
        asfm = same_params(lib, lib.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 15],
                                                                  div_value=2.))
        x = randn(lib, 6, 16, requires_grad=True)
        out, loss = asfm(x, lib.tensor([0, 4, 7, 12, 17, 19]))
        return [out, loss, asfm.log_prob(x), asfm.predict(x)] + \
            list(lib.autograd.grad(loss, [x, asfm.head.weight]))
    oracle(fn, rtol=1e-5, atol=1e-6)


def test_cross_entropy_loss(lib):
    loss_cpu = lib.nn.CrossEntropyLoss()
    inputf = randn(lib, 15, 10, requires_grad=True)
    input = inputf.to(lib.bfloat16).detach().requires_grad_(True)
    target = (rand(lib, 15, seed=1) * 10).long()
    outf = loss_cpu(inputf, target)
    out = loss_cpu(input, target)
    eq(out, outf.to(dtype=lib.bfloat16), atol=1e-1, rtol=0)
    outf.backward()
    out.backward()
    eq(input.grad, inputf.grad.to(dtype=lib.bfloat16), atol=1e-1, rtol=0)


def test_cross_entropy_loss_precision(lib):
    """(upstream: 128 x 2 x 768 x 768; here 16 x 2 x 96 x 96, still far past float32's
    exact running sum)"""
    loss_cpu = lib.nn.CrossEntropyLoss()
    inputf = randn(lib, 16, 2, 96, 96)
    target = (rand(lib, 16, 96, 96, seed=1) * 2).long()
    outf = loss_cpu(inputf, target)
    outd = loss_cpu(inputf.double(), target)
    eq(outf, outd, rtol=1.3e-6, atol=1e-5)


def test_cross_entropy_loss_zero_div(lib):
    lib.nn.CrossEntropyLoss()(rand(lib, 5, 0), rand(lib, 5, 0, seed=1))


def test_flatten(lib):
    out = lib.nn.Flatten(start_dim=1, end_dim=-1)(randn(lib, 2, 1, 2, 3))
    assert out.size() == lib.Size([2, 6])


def test_unflatten(lib):
    """(upstream's named-dimension case: torch 2.13's Unflatten takes int sizes only, and
    refuses the named form -- see the next test)"""
    tensor_input = randn(lib, 2, 50)
    for us in ((2, 5, 5), [2, 5, 5]):
        assert lib.nn.Unflatten(dim=1, unflattened_size=us)(tensor_input).size() == \
            lib.Size([2, 2, 5, 5])


def test_unflatten_invalid_arg(lib):
    """(upstream expects the named forms' messages of older torch; torch 2.13 refuses them
    all as 'tuple of ints')"""
    nn = lib.nn
    with raises(TypeError, r"unflattened_size must be tuple of ints, but found element of "
                           r"type float at pos 2"):
        nn.Unflatten(dim=1, unflattened_size=(2, 5, 5.0))
    for us, kind in [([['C', 2], ['W', 5], ['H', 5]], 'list'), ([('C', 2), ('W', 5)], 'tuple'),
                     ((['C', 2], ['W', 5], ['H', 5]), 'list'), (({'C': 2}, {'W': 5}), 'dict'),
                     ((('C', 2), ('H', 5), ('W', 5)), 'tuple')]:
        with raises(TypeError, r"unflattened_size must be tuple of ints, but found element of "
                               rf"type {kind} at pos 0"):
            nn.Unflatten(dim='features', unflattened_size=us)


def test_layer_norm_grads_with_create_graph_flag(lib):
    x = randn(lib, 4, 4, 16, requires_grad=True)
    layer_norm = lib.nn.LayerNorm((16,), 1e-5, True)
    with lib.no_grad():
        layer_norm.weight = lib.nn.Parameter(0.1 * lib.ones_like(layer_norm.weight))
    grads1 = lib.autograd.grad(layer_norm(x).sum(), x, create_graph=False)[0]
    grads2 = lib.autograd.grad(layer_norm(x).sum(), x, create_graph=True)[0]
    eq(grads1, grads2, rtol=1e-3, atol=1e-5)


def test_layer_norm_eps(lib):
    x = lib.Tensor([[[2.0, 2.0], [14.0, 14.0]], [[2.0, 2.0], [14.0, 14.0]]])
    ln = lib.nn.LayerNorm(2, eps=1e-6, elementwise_affine=False)
    eq(ln.forward(x), lib.zeros_like(x))


def test_padding_list(lib):
    x = randn(lib, 4, 8, 32, 32)
    for padding in ([3, 3], (3, 3)):
        y = lib.nn.ConvTranspose2d(8, 16, kernel_size=3, padding=padding)(x)
        assert y.shape == (4, 16, 28, 28)


def test_fractional_max_pool2d_invalid_output_ratio(lib):
    m = lib.nn.FractionalMaxPool2d(kernel_size=[2, 1], output_ratio=[0.5, 0.5, 0.6])
    with raises(ValueError, "fractional_max_pool2d requires output_ratio to either be a "
                            "single Int or tuple of Ints."):
        m(rand(lib, 20, 16, 50, 32))


def test_max_pool1d_invalid_output_size(lib):
    m = lib.nn.MaxPool1d(kernel_size=3, stride=255, return_indices=False)
    with raises(RuntimeError):
        m(lib.as_tensor([[0.3204]]))


# -- TestFusionEval ------------------------------------------------------------------

@pytest.mark.parametrize('seed', range(4))
def test_fuse_module_eval_numerics(lib, seed):
    """(upstream draws X, running_mean and running_var with hypothesis; here four seeded
    draws, the variance kept positive as a variance is)"""
    inputs = randn(lib, 5, 3, 5, 5, seed=seed, dtype='double')
    running_mean = randn(lib, 6, seed=seed + 10, dtype='double')
    running_var = rand(lib, 6, seed=seed + 20, dtype='double') + 0.1
    conv_ref = lib.nn.Conv2d(3, 6, bias=True, kernel_size=(3, 3)).double()
    for affine in (True, False):
        bn_ref = lib.nn.BatchNorm2d(6, affine=affine).double()
        bn_ref.running_mean = running_mean
        bn_ref.running_var = running_var
        conv_ref.eval()
        bn_ref.eval()
        fused = lib.nn.utils.fusion.fuse_conv_bn_eval(conv_ref, bn_ref)
        eq(bn_ref(conv_ref(inputs)), fused(inputs), rtol=1e-7, atol=1e-7)


# -- TestConstantPadNd ---------------------------------------------------------------

def test_constant_pad_nd(lib):
    res = lib.constant_pad_nd(lib.tensor([[1, 2], [3, 4]]), [1, 2, 1, 0], 9)
    assert res.tolist() == [[9, 9, 9, 9, 9], [9, 1, 2, 9, 9], [9, 3, 4, 9, 9]]
    assert res.dtype == lib.int64


def test_preserves_memory_format(lib):
    nchw_tensor = rand(lib, 1, 2, 5, 3)
    nchw_padded = lib.constant_pad_nd(nchw_tensor, [1, 2], 0.5)
    assert nchw_padded.is_contiguous(memory_format=lib.contiguous_format)
    nhwc_tensor = nchw_tensor.contiguous(memory_format=lib.channels_last)
    nhwc_padded = lib.constant_pad_nd(nhwc_tensor, [1, 2], 0.5)
    assert nhwc_padded.is_contiguous(memory_format=lib.channels_last)
