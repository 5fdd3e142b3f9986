"""PyTorch's test/test_nn.py, class TestNN, from test_threshold_int to
test_LSTM_cell_forward_hidden_size (in upstream's order): thresholds, padding a scalar,
normalize, RNN/GRU/LSTM cells and the loss functions' shape checks, weights and reductions
(MSE, L1, Huber, Gaussian NLL, KL divergence, CTC). Each test runs on ember and on torch
(``lib``).

Not adapted: test_fb_fc_packed (needs torch's FBGEMM fp16 kernels),
test_nested_tensor_from_mask(_error) (the private ``torch._nested_tensor_from_mask``),
test_broadcast_* / test_CTCLoss_lengthchecks_cuda / test_CTCLoss_long_targets /
test_CTCLoss_critical_target_len / test_CTCLoss_zero_infinity /
test_pack_sequence_batch_sizes_throw (CUDA only).
"""
import math
import warnings

import pytest

from ._nn_rest import eq, lib_fixture, oracle, rand, randn, raises, torch

XFAIL = {}
lib = lib_fixture(XFAIL)


def test_threshold_int(lib):
    x = lib.tensor([-3, -2, -1, 0, 1, 2, 3])
    out = lib.nn.functional.threshold(x, 0, 99)
    assert out.dtype == lib.int64
    assert out.tolist() == [99, 99, 99, 99, 1, 2, 3]


@pytest.mark.parametrize('dtype', ['bfloat16', 'half'])
def test_threshold_bfloat16_half(lib, dtype):
    F = lib.nn.functional
    x = randn(lib, 100)
    for threshold in [0, -0.5, 0.5, float('inf'), float('-inf'), float('nan')]:
        expected = F.threshold(x, threshold, 0).to(dtype=getattr(lib, dtype)).float()
        res = F.threshold(x.to(dtype=getattr(lib, dtype)), threshold, 0).float()
        eq(res, expected)


def test_pad_scalar_error(lib):
    inputs = lib.tensor(0., requires_grad=True)
    with raises(RuntimeError):
        lib.nn.functional.pad(inputs, (1, 1))
    with raises(RuntimeError):
        lib.nn.functional.pad(inputs, (1,))


def test_normalize(lib):
    F = lib.nn.functional
    inputs = randn(lib, 1, 3, 4, 4, dtype='double', requires_grad=True)
    assert lib.autograd.gradcheck(lambda x: F.normalize(x, p=1, dim=-1), (inputs,))
    assert lib.autograd.gradcheck(lambda x: F.normalize(x, p=2, dim=-2), (inputs,))
    inputs = randn(lib, dtype='double', requires_grad=True)
    assert lib.autograd.gradcheck(lambda x: F.normalize(x, p=1, dim=-1), (inputs,))


def test_normalize_values():
    """(ember's own) normalize's values and gradients agree with torch's."""
    def fn(lib):
        x = randn(lib, 2, 3, 4, dtype='double', requires_grad=True)
        out = [lib.nn.functional.normalize(x, p=p, dim=d) for p, d in [(1, -1), (2, 0), (3, 1)]]
        g, = lib.autograd.grad(sum(o.sum() * (i + 1) for i, o in enumerate(out)), x)
        return out + [g]
    oracle(fn, rtol=1e-10, atol=1e-12)


# -- recurrent cells -------------------------------------------------------------------

def test_RNN_cell(lib):
    for module in (lib.nn.RNNCell, lib.nn.GRUCell):
        for bias in (True, False):
            input = randn(lib, 3, 10)
            hx = randn(lib, 3, 20, seed=1)
            cell = module(10, 20, bias=bias)
            for _ in range(6):
                hx = cell(input, hx)
            hx.sum().backward()
            assert all(p.grad is not None for p in cell.parameters())


def test_RNN_cell_values():
    """(ember's own) RNNCell / GRUCell / LSTMCell with the same weights agree with torch."""
    from ._nn_rest import cos_params

    def fn(lib):
        outs = []
        input = randn(lib, 3, 10)
        hx = randn(lib, 3, 20, seed=1)
        for cell in (lib.nn.RNNCell(10, 20), lib.nn.RNNCell(10, 20, nonlinearity='relu'),
                     lib.nn.GRUCell(10, 20)):
            cos_params(lib, cell)
            outs.append(cell(input, hx))
        lstm = cos_params(lib, lib.nn.LSTMCell(10, 20))
        outs.extend(lstm(input, (hx, hx * 0.5)))
        return outs
    oracle(fn, rtol=1e-5, atol=1e-6)


def test_RNN_cell_forward_zero_hidden_size(lib):
    input = randn(lib, 3, 10)
    hx = randn(lib, 3, 0)
    for cell in (lib.nn.RNNCell(10, 0, nonlinearity="relu"),
                 lib.nn.RNNCell(10, 0, nonlinearity="tanh"), lib.nn.GRUCell(10, 0)):
        assert cell(input, hx).shape == lib.Size([3, 0])


def test_RNN_cell_no_broadcasting(lib):
    nn = lib.nn

    def test(cell_module, input, hx, input_size, hidden_size):
        cell = cell_module(input_size, hidden_size)
        with raises(RuntimeError):
            cell(input, hx)

    def test_all(hidden_size, bad_hx, good_hx, input_size, input):
        test(nn.RNNCell, input, bad_hx, input_size, hidden_size)
        test(nn.GRUCell, input, bad_hx, input_size, hidden_size)
        test(nn.LSTMCell, input, (bad_hx, good_hx), input_size, hidden_size)
        test(nn.LSTMCell, input, (good_hx, bad_hx), input_size, hidden_size)

    input = randn(lib, 3, 10)
    good_hx = randn(lib, 3, 20, seed=2)
    test_all(20, randn(lib, 1, 20, seed=1), good_hx, 10, input)   # batch sizes differ
    test_all(20, randn(lib, 3, 1, seed=1), good_hx, 10, input)    # hidden sizes differ
    test_all(20, good_hx, good_hx, 10, randn(lib, 3, 1, seed=3))  # input sizes differ


def test_LSTM_cell(lib):
    for bias in (True, False):
        input = randn(lib, 3, 10)
        hx = randn(lib, 3, 20, seed=1)
        cx = randn(lib, 3, 20, seed=2)
        lstm = lib.nn.LSTMCell(10, 20, bias=bias)
        for _ in range(6):
            hx, cx = lstm(input, (hx, cx))
        (hx + cx).sum().backward()
        assert all(p.grad is not None for p in lstm.parameters())


def test_LSTM_cell_forward_input_size(lib):
    lstm = lib.nn.LSTMCell(10, 20)
    with raises(Exception):
        lstm(randn(lib, 3, 11), (randn(lib, 3, 20), randn(lib, 3, 20)))


def test_LSTM_cell_forward_hidden_size(lib):
    input = randn(lib, 3, 10)
    hx = randn(lib, 3, 21)
    cx = randn(lib, 3, 20)
    lstm = lib.nn.LSTMCell(10, 20)
    with raises(Exception):
        lstm(input, (hx, cx))
    with raises(Exception):
        lstm(input, (cx, hx))


def test_RNN_cell_error_messages():
    """(ember's own) the cells' shape errors carry torch's class and message."""
    def make(lib, which):
        input, hx = randn(lib, 3, 10), randn(lib, 3, 20)
        if which == 0:
            return lib.nn.RNNCell(10, 20)(input, randn(lib, 1, 20))
        if which == 1:
            return lib.nn.GRUCell(10, 20)(input, randn(lib, 3, 1))
        if which == 2:
            return lib.nn.LSTMCell(10, 20)(randn(lib, 3, 1), (hx, hx))
        return lib.nn.LSTMCell(10, 20)(input, (hx, randn(lib, 1, 20)))
    for which in range(4):
        oracle(lambda lib: make(lib, which))


# -- losses --------------------------------------------------------------------------

def test_loss_equal_input_target_shape(lib):
    F = lib.nn.functional
    losses = [F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss, F.kl_div,
              F.poisson_nll_loss]
    input, target = randn(lib, 3, 5), randn(lib, 5, 3)
    for fn in losses:
        with raises(Exception):
            fn(input, target)


def test_loss_equal_input_target_shape_errors():
    """(ember's own) the class and message of each loss's shape error are torch's."""
    names = ['mse_loss', 'l1_loss', 'smooth_l1_loss', 'huber_loss', 'kl_div', 'poisson_nll_loss']
    for name in names:
        oracle(lambda lib: getattr(lib.nn.functional, name)(randn(lib, 3, 5), randn(lib, 5, 3)))


def test_mse_loss_size_warning(lib):
    i = randn(lib, 10, 1, requires_grad=True)
    t = randn(lib, 10)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lib.nn.functional.mse_loss(i, t)
    assert len(w) == 1
    assert 'Please ensure they have the same size.' in str(w[0])


@pytest.mark.parametrize('name,kwargs,expected', [
    ('mse_loss', {}, 0.25), ('l1_loss', {}, 0.5), ('huber_loss', {'delta': 1.0}, 0.3125)])
def test_weighted_losses(lib, name, kwargs, expected):
    """test_weighted_mse_loss, test_weighted_l1_loss_with_weights and test_weighted_huber_loss
    (whose upstream version only prints its comparison; the expected value here is torch's)."""
    inputs = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    targets = lib.tensor([1.5, 2.5, 3.5, 4.5])
    weight = lib.tensor([1.0, 2.0, 3.0, 4.0])
    loss = getattr(lib.nn.functional, name)(inputs, targets, weight=weight, reduction='mean',
                                            **kwargs)
    assert lib.isclose(loss, lib.tensor(expected))
    loss.backward()
    eq(inputs.grad, oracle_grad(name, kwargs))


def oracle_grad(name, kwargs):
    """torch's gradient of the weighted loss above (the reference for both runs)."""
    inputs = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    getattr(torch.nn.functional, name)(inputs, torch.tensor([1.5, 2.5, 3.5, 4.5]),
                                       weight=torch.tensor([1.0, 2.0, 3.0, 4.0]),
                                       reduction='mean', **kwargs).backward()
    return inputs.grad


def test_gaussian_nll_loss_broadcasting(lib):
    F = lib.nn.functional
    input = lib.tensor([[0.5, 1.5, 2.5], [2., 4., 6.]])
    target_full = lib.tensor([[1., 2., 3.], [1., 2., 3.]])
    target_part = lib.tensor([[1., 2., 3.]])
    var_full = lib.tensor([[0.5, 0.5, 0.5], [1.5, 1.5, 1.5]])
    var_part1 = lib.tensor([[0.5], [1.5]])
    var_part2 = lib.tensor([0.5, 1.5])
    component_wise_loss = 0.5 * (lib.log(var_full) + (input - target_full) ** 2 / var_full)
    for target, var in [(target_part, var_full), (target_full, var_part1),
                        (target_full, var_part2), (target_part, var_part1),
                        (target_part, var_part2)]:
        eq(component_wise_loss, F.gaussian_nll_loss(input, target, var, reduction='none'))


def test_gaussian_nll_loss_args(lib):
    F = lib.nn.functional
    input = randn(lib, 3, 5)
    target = randn(lib, 3, 5, seed=1)
    with raises(ValueError, 'var is of incorrect size'):
        F.gaussian_nll_loss(input, target, lib.ones(3, 3))
    with raises(ValueError, 'var has negative entry/entries'):
        F.gaussian_nll_loss(input, target, -1 * lib.ones(3, 5))
    with raises(ValueError, 'var has negative entry/entries'):
        F.gaussian_nll_loss(input, target, -1.0)


def test_gaussian_nll_loss_scalar_var(lib):
    F = lib.nn.functional
    input = lib.tensor([[0.5, 1.5, 2.5], [2., 4., 6.]])
    target = lib.tensor([[1., 2., 3.], [1., 2., 3.]])
    var_tensor = 0.5 * lib.ones_like(input)
    component_wise_loss = 0.5 * (lib.log(var_tensor) + (input - target) ** 2 / var_tensor)
    eq(component_wise_loss, F.gaussian_nll_loss(input, target, 0.5, reduction='none'))
    eq(F.gaussian_nll_loss(input, target, var_tensor, reduction='none'),
       F.gaussian_nll_loss(input, target, 0.5, reduction='none'))


@pytest.mark.parametrize('log_target', [False, True])
def test_KLDivLoss_batch_mean(lib, log_target):
    """test_KLDivLoss_batch_mean and test_KLDivLoss_batch_mean_log_target."""
    F = lib.nn.functional
    log_prob1 = F.log_softmax(randn(lib, 2, 5), 1)
    other = randn(lib, 2, 5, seed=1)
    prob2 = F.log_softmax(other, 1) if log_target else F.softmax(other, 1)
    l = lib.nn.KLDivLoss(reduction='batchmean', log_target=log_target)(log_prob1, prob2)
    expected = lib.nn.KLDivLoss(reduction='sum', log_target=log_target)(log_prob1, prob2) / 2
    eq(l, expected)


def _ctc_inputs(lib, T=50, N=3, C=15):
    return randn(lib, T, N, C).log_softmax(2)


def test_CTCLoss_typechecks(lib):
    target_lengths = lib.tensor([30, 25, 20])
    input_lengths = lib.tensor([50, 50, 50])
    targets = (rand(lib, 75) * 14 + 1).to(lib.int)
    log_probs = _ctc_inputs(lib)
    with raises(RuntimeError):
        lib.nn.functional.ctc_loss(log_probs, targets, input_lengths.to(dtype=lib.float),
                                   target_lengths)
    with raises(RuntimeError):
        lib.nn.functional.ctc_loss(log_probs, targets, input_lengths,
                                   target_lengths.to(dtype=lib.float))


def test_CTCLoss_lengthchecks_cpu(lib):
    for target_lengths in [[30, 25, 20], [-1, -1, -1]]:
        for input_lengths in [[50, 50, 50], [-1, -1, -1]]:
            targets = (rand(lib, 3, 29) * 14 + 1).to(lib.int)
            with raises(RuntimeError):
                lib.nn.functional.ctc_loss(_ctc_inputs(lib), targets, input_lengths,
                                           target_lengths)


def test_CTCLoss_zero_lengths(lib):
    N, S, C, T = 3, 2, 200, 1
    target = (rand(lib, N, S) * (C - 1) + 1).to(lib.int)
    input_lengths = lib.full(size=(N,), fill_value=0, dtype=lib.int)
    for fill, expected in [(0, 0), (1, math.inf)]:
        target_lengths = lib.full(size=(N,), fill_value=fill, dtype=lib.int)
        inp = _ctc_inputs(lib, T, N, C).requires_grad_()
        res = lib.nn.functional.ctc_loss(inp, target, input_lengths, target_lengths,
                                         reduction='none')
        assert (res == expected).all().item()
        res.sum().backward()
        assert (inp.grad == 0).all().item()
