"""PyTorch's test/test_nn.py, class TestNNDeviceType (its CPU instantiation), the losses among
the tests named test_m* .. test_z*: NLL loss (batch and target checks, ignored and
out-of-range targets, invalid weights, empty inputs under each reduction, a zero total
weight, byte targets), smooth L1 with ``beta=0`` and the triplet margin loss with a distance
function (against the plain triplet loss, and with three distance functions, traced too).

Upstream draws its inputs from torch's generator; here they come from NumPy's (``randn``),
and the gradient checks run on smaller inputs (5x10 anchors -> 3x4, and 2x3 where the
loss is also traced) to keep the suite fast.
Not adapted: test_nll_loss_large_tensor and test_mse_loss_error (CUDA only).
"""
import itertools

import numpy as np
import pytest

from ._nn_rest import eq, lib_fixture, randn, raises

XFAIL = {}
lib = lib_fixture(XFAIL)


def test_nll_loss_mismatched_batch(lib):
    x = randn(lib, 10, 3, requires_grad=True)
    t = lib.zeros((3,), dtype=lib.int64)  # should have size (10,)
    with raises(ValueError, 'Expected.*batch_size'):
        lib.nn.functional.nll_loss(x, t)


def test_nll_loss_out_of_bounds_ignore_index(lib):
    """(upstream only runs it; here the ignored target's row also gets no gradient)"""
    x = randn(lib, 6, 3, requires_grad=True)
    t = lib.tensor([0, 1, 255, 0, 1, 2], dtype=lib.int64)
    for reduction in ['mean', 'none']:
        x.grad = None
        lib.nn.functional.nll_loss(x, t, ignore_index=255, reduction=reduction).sum().backward()
        assert lib.equal(x.grad[2], lib.zeros(3))
        assert x.grad.abs().sum().item() > 0


def test_nll_loss_invalid_target_dim(lib):
    with raises(RuntimeError, "1D target tensor expected"):
        lib.nn.functional.nll_loss(randn(lib, 10, 3), lib.zeros((10, 2), dtype=lib.int64))


def test_nll_loss_invalid_weights(lib):
    x = randn(lib, 10, 3)
    t = lib.tensor(np.random.default_rng(1).integers(0, 3, 10))
    msg = "weight tensor should be defined either for all 3 classes or no classes"
    for weight in [randn(lib, 4, seed=2), randn(lib, 1, 3, seed=3)]:
        with raises(RuntimeError, msg):
            lib.nn.functional.nll_loss(x, t, weight=weight)


def _nll_loss_helper(lib, input_size, reduction, expected):
    input = lib.rand(input_size, requires_grad=True)
    num_channels = input_size[1]
    target_size = (input_size[0], ) + tuple(input_size[2:])
    target = lib.randint(num_channels, target_size)
    output = lib.nn.functional.nll_loss(input, target, reduction=reduction)
    eq(output, expected)
    output.sum().backward()
    assert input.grad.size() == input.size()


_EMPTY_SIZES = [[0, 3], [0, 3, 5, 7], [2, 3, 0, 7], [2, 3, 5, 0], [2, 3, 5, 7, 0]]


def test_nll_loss_empty_tensor_reduction_none(lib):
    for size in _EMPTY_SIZES:
        _nll_loss_helper(lib, size, "none", lib.empty([size[0]] + size[2:]))


def test_nll_loss_empty_tensor_reduction_mean(lib):
    for size in _EMPTY_SIZES:
        _nll_loss_helper(lib, size, "mean", lib.tensor(float('nan')))


def test_nll_loss_empty_tensor_reduction_sum(lib):
    for size in _EMPTY_SIZES:
        _nll_loss_helper(lib, size, "sum", lib.tensor(0))


def test_nll_loss_total_weight_is_zero(lib):
    F = lib.nn.functional
    for input_size in ([2, 3], [2, 3, 5, 7], [2, 3, 5, 7, 9]):
        input = lib.ones(input_size, requires_grad=True)
        target = lib.zeros((input_size[0], ) + tuple(input_size[2:]), dtype=lib.long)
        weight = lib.zeros([input_size[1]])
        assert F.nll_loss(input, target, weight, reduction="sum").item() == 0.
        assert np.isnan(F.nll_loss(input, target, weight, reduction="mean").item())
        eq(F.nll_loss(input, target, weight, reduction="none"), lib.zeros(target.shape))


def test_nll_loss_all_ignored(lib):
    F = lib.nn.functional
    for input_size in ([2, 3], [2, 3, 5, 7], [2, 3, 5, 7, 9]):
        input = lib.ones(input_size)
        target = lib.zeros((input_size[0], ) + tuple(input_size[2:]), dtype=lib.long)
        assert F.nll_loss(input, target, ignore_index=0, reduction="sum").item() == 0
        assert np.isnan(F.nll_loss(input, target, ignore_index=0, reduction="mean").item())
        eq(F.nll_loss(input, target, ignore_index=0, reduction="none"),
           lib.zeros(target.shape))


def test_nll_loss_byte_target_matches_long(lib):
    N, C = 10, 4
    input = randn(lib, N, C, requires_grad=True)
    target = lib.tensor(np.random.default_rng(1).integers(0, C, N))

    def compute_result_and_gradient(reduction, target_dtype):
        input_ = input.detach()
        input_.requires_grad_()
        prob = lib.nn.functional.log_softmax(input_, dim=-1)
        result = lib.nn.NLLLoss(reduction=reduction)(prob, target.to(target_dtype))
        result.sum().backward()
        return result, input_.grad

    for reduction in ["none", "mean", "sum"]:
        result_long, grad_long = compute_result_and_gradient(reduction, lib.long)
        result_byte, grad_byte = compute_result_and_gradient(reduction, lib.uint8)
        eq(result_long, result_byte)
        eq(grad_long, grad_byte)


def test_smoothl1loss_backward_zero_beta(lib):
    input = randn(lib, 300, 256, requires_grad=True)
    target = input.detach()
    loss = lib.nn.functional.smooth_l1_loss(input, target, beta=0.0, reduction='sum')
    loss.backward()
    assert input.grad.abs().max().item() <= 1.0


@pytest.mark.parametrize('margin', [0.5, 1, 1.5])
def test_triplet_margin_with_distance_loss_default_parity(lib, margin):
    F, nn = lib.nn.functional, lib.nn
    for swap, reduction in itertools.product((True, False), ('none', 'mean', 'sum')):
        kwargs = {'margin': margin, 'swap': swap, 'reduction': reduction}
        anchor, positive, negative = (randn(lib, 3, 4, seed=s, dtype='double',
                                            requires_grad=True) for s in range(3))
        expected = F.triplet_margin_loss(anchor, positive, negative, **kwargs)
        actual = F.triplet_margin_with_distance_loss(anchor, positive, negative, **kwargs)
        eq(actual, expected, rtol=1e-6, atol=1e-6)
        loss_ref = nn.TripletMarginLoss(**kwargs)
        loss_op = nn.TripletMarginWithDistanceLoss(**kwargs)
        eq(loss_op(anchor, positive, negative), loss_ref(anchor, positive, negative),
           rtol=1e-6, atol=1e-6)
        assert lib.autograd.gradcheck(lambda a, p, n: F.triplet_margin_with_distance_loss(
            a, p, n, **kwargs), (anchor, positive, negative))
        assert lib.autograd.gradcheck(lambda a, p, n: loss_op(a, p, n),
                                      (anchor, positive, negative))


@pytest.mark.parametrize('distance', ['pairwise', 'cosine', 'lambda'])
def test_triplet_margin_with_distance_loss(lib, distance):
    F, nn = lib.nn.functional, lib.nn

    def cosine_distance(x, y):
        return 1.0 - F.cosine_similarity(x, y)

    distance_fn = {'pairwise': nn.PairwiseDistance(), 'cosine': cosine_distance,
                   'lambda': lambda x, y: 1.0 - F.cosine_similarity(x, y)}[distance]
    for reduction, margin, swap in itertools.product(('mean', 'none', 'sum'), (1.0, 1.5, 0.5),
                                                     (True, False)):
        anchor, positive, negative = (randn(lib, 2, 3, seed=s, dtype='double',
                                            requires_grad=True) for s in range(3))
        kwargs = dict(distance_function=distance_fn, reduction=reduction, margin=margin,
                      swap=swap)
        assert lib.autograd.gradcheck(lambda a, p, n: F.triplet_margin_with_distance_loss(
            a, p, n, **kwargs), (anchor, positive, negative))
        loss_op = nn.TripletMarginWithDistanceLoss(**kwargs)
        assert lib.autograd.gradcheck(lambda a, p, n: loss_op(a, p, n),
                                      (anchor, positive, negative))
        traced_loss_op = lib.jit.trace(loss_op, (anchor, positive, negative))
        assert lib.autograd.gradcheck(lambda a, p, n: traced_loss_op(a, p, n),
                                      (anchor, positive, negative))
        functional = F.triplet_margin_with_distance_loss(anchor, positive, negative, **kwargs)
        modular = loss_op(anchor, positive, negative)
        traced = traced_loss_op(anchor, positive, negative)
        eq(functional, modular, atol=1e-6, rtol=1e-6)
        eq(traced, modular, atol=1e-6, rtol=1e-6)
