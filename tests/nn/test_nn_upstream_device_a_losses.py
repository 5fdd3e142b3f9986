"""PyTorch's test/test_nn.py, class TestNNDeviceType (its CPU instantiation), the tests whose
names sort before ``test_m`` about losses and sampling from logits: CTC loss (unbatched input,
empty targets, gradcheck over varied and zero lengths, the empty-input error), cross entropy
with class-probability targets (against the formula, unit weights, unbatched input, one-hot
targets, label smoothing and its errors, ignored indices) and gumbel_softmax.

Upstream draws its random inputs from torch's generator; here the sizes come from Python's
``random`` and the numbers from NumPy's, the same for both libraries; test_ctc_loss runs on
16 sequences instead of 64 (the same gradcheck, a quarter of the time). The reference cross
entropy for probability targets (upstream's ``loss_reference_fns`` entry) is written out here.
Not adapted: test_CTCLoss_cudnn, test_ctc_loss_cudnn, test_ctc_loss_cudnn_tensor_cuda,
test_ctc_loss_cudnn_tensor_cpu_length_cuda, test_cross_entropy_64bit,
test_cross_entropy_large_tensor, test_cross_entropy_loss_2d_out_of_bounds_class_index (CUDA
only).
"""
import itertools
import random

import numpy as np
import pytest

from ._nn_rest import eq, lib_fixture, randn, raises

XFAIL = {}
lib = lib_fixture(XFAIL)


def _randint(lib, low, high, size, seed=0, dtype='long'):
    data = np.random.default_rng(seed).integers(low, high, size)
    return lib.tensor(data).to(getattr(lib, dtype))


# -- CTC loss ------------------------------------------------------------------------------

def _ctc_losses(lib, input_length, vocab_size, target_length, reduction, use_module_form):
    """Upstream's _CTCLoss_gen_losses: the loss of one sequence, batched with 2-d targets,
    batched with 1-d targets, and unbatched, with their gradients."""
    log_probs = randn(lib, input_length, 1, vocab_size).log_softmax(2).requires_grad_()
    targets = _randint(lib, 1, vocab_size - 1, (1, target_length), dtype='int')
    input_lengths, target_lengths = [input_length], [target_length]
    log_probs_no_bd = log_probs.squeeze(1).detach().clone().requires_grad_()
    targets_no_bd = targets.squeeze(0).detach().clone()
    refs = [log_probs.detach().clone().requires_grad_() for _ in range(2)]
    no_bd_refs = [log_probs_no_bd.detach().clone().requires_grad_()]
    if use_module_form:
        ctc_loss = lib.nn.CTCLoss(reduction=reduction, zero_infinity=True)
    else:
        def ctc_loss(*args):
            return lib.nn.functional.ctc_loss(*args, reduction=reduction, zero_infinity=True)
    losses = [ctc_loss(refs[0], targets, input_lengths, target_lengths),
              ctc_loss(refs[1], targets_no_bd, input_lengths, target_lengths)]
    losses_no_bd = [ctc_loss(no_bd_refs[0], targets_no_bd, lib.tensor(input_length),
                             lib.tensor(target_length))]
    for loss in losses + losses_no_bd:
        loss.backward()
    return losses, losses_no_bd, refs, no_bd_refs


@pytest.mark.parametrize('use_module_form', [True, False])
@pytest.mark.parametrize('reduction', ['none', 'mean', 'sum'])
def test_CTCLoss_no_batch_dim(lib, reduction, use_module_form):
    input_length, vocab_size, target_length = 40, 3, 12
    losses, losses_no_bd, refs, no_bd_refs = _ctc_losses(
        lib, input_length, vocab_size, target_length, reduction, use_module_form)
    for other in losses[1:]:
        eq(losses[0], other, atol=1e-4, rtol=0)
    for other in losses_no_bd:
        eq(losses[0].squeeze(0), other, atol=1e-4, rtol=0)
    for t in refs[1:]:
        eq(refs[0].grad, t.grad, atol=1e-4, rtol=0)
    for t in no_bd_refs:
        eq(refs[0].grad.squeeze(1), t.grad, atol=1e-4, rtol=0)
    for loss in losses:
        assert loss.shape == ((1,) if reduction == 'none' else ())
    for loss in losses_no_bd:
        assert loss.shape == ()
    for t in refs:
        assert t.grad.shape == (input_length, 1, vocab_size)
    for t in no_bd_refs:
        assert t.grad.shape == (input_length, vocab_size)


def test_CTCLoss_empty_target(lib):
    F = lib.nn.functional
    targets = lib.zeros(0, dtype=lib.long)
    log_probs = randn(lib, 50, 3, 15, dtype='double').log_softmax(2)
    loss = F.ctc_loss(log_probs, targets, [50, 50, 50], [0, 0, 0], reduction='none')
    assert (loss >= 0).all().item()
    eq(-log_probs.sum(0)[:, 0], loss)

    targets = _randint(lib, 1, 15, (9,))
    log_probs = randn(lib, 50, 3, 15, seed=1, dtype='double').log_softmax(2)
    loss = F.ctc_loss(log_probs, targets, [50, 50, 50], [0, 9, 0], reduction='none')
    assert (loss >= 0).all().item()
    eq(-log_probs.sum(0)[[0, 2], 0], loss[[0, 2]])


def test_ctc_loss(lib):
    """(upstream's four CPU cases, lengths 150 or 50, some or all targets empty, on 16
    sequences instead of 64)"""
    batch_size, num_labels, target_length, gradcheck_input_size = 16, 101, 15, 10
    rng = random.Random(0)
    tests = [(150, False, 'none'), (150, True, 'none'), (50, True, 'some'), (50, True, 'all')]
    for i, (input_length, vary_lengths, zero_mode) in enumerate(tests):
        targets = _randint(lib, 1, num_labels, (batch_size, target_length), seed=i)
        x = randn(lib, gradcheck_input_size, seed=i, dtype='double', requires_grad=True)
        tile_factors = randn(lib, input_length * batch_size * num_labels // gradcheck_input_size
                             + 1, seed=100 + i)
        input_lengths = [rng.randint(input_length // 2, input_length)
                         if vary_lengths or j == 0 else input_length for j in range(batch_size)]
        if zero_mode == 'all':
            target_lengths = [0] * batch_size
        else:
            target_lengths = [rng.randint(target_length // 2, target_length)
                              if vary_lengths else target_length for _ in range(batch_size)]
            if zero_mode == 'some':
                for j in [rng.randrange(batch_size) for _ in range(10)]:
                    target_lengths[j] = 0

        def ctc_after_softmax(x):
            x_full = ((x[:, None] * tile_factors[None, :]).view(-1)
                      [:input_length * batch_size * num_labels]
                      .view(input_length, batch_size, num_labels))
            log_probs = lib.log_softmax(x_full, 2)
            return lib.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths)

        assert lib.autograd.gradcheck(ctc_after_softmax, [x])


def test_ctc_loss_error(lib):
    log_probs = lib.rand(0, 0, 4)
    empty = lib.tensor([], dtype=lib.long)
    with raises(RuntimeError, "log_probs tensor must not be empty"):
        lib.nn.functional.ctc_loss(log_probs, empty, empty, empty, reduction='none')


# -- cross entropy -------------------------------------------------------------------------

def _other_dims(rng, k):
    return [rng.randint(2, 4) for _ in range(k)]


def _ce_prob_reference(lib, input, target, reduction, weight=None):
    """Cross entropy with class-probability targets, from its definition."""
    logp = input.log_softmax(1)
    if weight is not None:
        logp = logp * weight.view(1, -1, *[1] * (input.dim() - 2))
    losses = -(logp * target).sum(1)
    if reduction == 'mean':
        return losses.mean()
    if reduction == 'sum':
        return losses.sum()
    return losses


def _index_target(lib, n, other_dims, c, seed):
    return _randint(lib, 0, c, (n, *other_dims), seed=seed)


def test_cross_entropy_loss_prob_target_all_reductions(lib):
    rng = random.Random(0)
    for k in range(5):
        N, C = 5, 4
        other_dims = _other_dims(rng, k)
        input = randn(lib, N, C, *other_dims, seed=k, requires_grad=True)
        target = randn(lib, N, C, *other_dims, seed=10 + k, requires_grad=True)
        weight = randn(lib, C, seed=20 + k).abs()
        for reduction, w in itertools.product(['none', 'mean', 'sum'], [None, weight]):
            m = lib.nn.CrossEntropyLoss(weight=w, reduction=reduction)
            eq(m(input, target), _ce_prob_reference(lib, input, target, reduction, w),
               atol=1e-5, rtol=1e-5)


def test_cross_entropy_loss_prob_target_unit_weights(lib):
    rng = random.Random(1)
    for k in range(5):
        N, C = 5, 4
        other_dims = _other_dims(rng, k)
        input = randn(lib, N, C, *other_dims, seed=k, requires_grad=True)
        target = randn(lib, N, C, *other_dims, seed=10 + k, requires_grad=True)
        for reduction in ['none', 'mean', 'sum']:
            m = lib.nn.CrossEntropyLoss(reduction=reduction)
            unit_weight = lib.ones(C, dtype=target.dtype)
            m_unit = lib.nn.CrossEntropyLoss(weight=unit_weight, reduction=reduction)
            eq(m(input, target), m_unit(input, target))


@pytest.mark.parametrize('weighted', [False, True])
@pytest.mark.parametrize('reduction', ['none', 'mean', 'sum'])
def test_cross_entropy_loss_prob_target_no_batch_dim(lib, reduction, weighted):
    C = 5
    input = randn(lib, C).log_softmax(dim=-1)
    target = randn(lib, C, seed=1).softmax(dim=-1)
    weight = randn(lib, C, seed=2) if weighted else None
    m = lib.nn.CrossEntropyLoss(reduction=reduction, weight=weight)
    loss_no_batch = m(input, target)
    loss_batch = m(input.unsqueeze(0), target.unsqueeze(0))
    if reduction == 'none':
        loss_batch = loss_batch.squeeze(0)
    eq(loss_no_batch, loss_batch)


def test_cross_entropy_loss_index_target_unit_weights(lib):
    rng = random.Random(2)
    for k in range(5):
        N, C = 5, 4
        other_dims = _other_dims(rng, k)
        input = randn(lib, N, C, *other_dims, seed=k, requires_grad=True)
        target = _index_target(lib, N, other_dims, C, seed=k)
        for reduction in ['none', 'mean', 'sum']:
            m = lib.nn.CrossEntropyLoss(reduction=reduction)
            unit_weight = lib.ones(C, dtype=input.dtype)
            m_unit = lib.nn.CrossEntropyLoss(weight=unit_weight, reduction=reduction)
            eq(m(input, target), m_unit(input, target))


def test_cross_entropy_loss_one_hot_target(lib):
    rng = random.Random(3)
    for k in range(5):
        N, C = 5, 4
        other_dims = _other_dims(rng, k)
        input = randn(lib, N, C, *other_dims, seed=k, requires_grad=True)
        target = _index_target(lib, N, other_dims, C, seed=k)
        weight = randn(lib, C, seed=20 + k).abs()
        target_one_hot = lib.nn.functional.one_hot(target, num_classes=C).to(input.dtype)
        target_one_hot = target_one_hot.permute(0, -1, *range(1, target_one_hot.dim() - 1))
        for reduction, w in itertools.product(['none', 'mean', 'sum'], [None, weight]):
            # (upstream skips this case: soft and hard labels weigh the mean differently)
            if reduction == 'mean' and weight is not None:
                continue
            m = lib.nn.CrossEntropyLoss(weight=w, reduction=reduction)
            eq(m(input, target), m(input, target_one_hot), atol=1e-5, rtol=1e-5)


def test_cross_entropy_label_smoothing_errors(lib):
    N, C = 3, 4
    for input_arg in [(randn(lib, N, C), lib.arange(0, C)),
                      (randn(lib, N, C), randn(lib, N, C, seed=1))]:
        loss = lib.nn.CrossEntropyLoss(label_smoothing=1.2)
        with raises(RuntimeError, r"label_smoothing must be between 0\.0"):
            loss(*input_arg)


def test_cross_entropy_label_smoothing_consistent_index_target_and_probs(lib):
    """(upstream runs it with float64 as the default dtype: the inputs are float64 here)"""
    N, C = 10, 4
    rng = random.Random(4)
    for i, (k, reduction, label_smoothing) in enumerate(
            itertools.product(range(5), ['none', 'mean', 'sum'], [0.05, 0.15])):
        other_dims = _other_dims(rng, k)
        input = randn(lib, N, C, *other_dims, seed=i, dtype='double', requires_grad=True)
        target = _index_target(lib, N, other_dims, C, seed=i)
        target_proba = lib.nn.functional.one_hot(target, num_classes=C)
        target_proba = target_proba.permute(0, -1, *range(1, target_proba.dim() - 1))
        target_mask = target_proba == 1
        target_proba = target_proba.to(dtype=input.dtype)
        target_proba.masked_fill_(target_mask, 1 - label_smoothing + label_smoothing / C)
        target_proba.masked_fill_(~target_mask, label_smoothing / C)
        output_with_prob = lib.nn.CrossEntropyLoss(reduction=reduction)(input, target_proba)
        loss = lib.nn.CrossEntropyLoss(reduction=reduction, label_smoothing=label_smoothing)
        eq(output_with_prob, loss(input, target), rtol=1e-07, atol=1e-05)


def test_cross_entropy_label_smoothing_with_probs(lib):
    N, C = 10, 4
    rng = random.Random(5)
    for i, (k, label_smoothing) in enumerate(itertools.product(range(5), [0.05, 0.15])):
        other_dims = _other_dims(rng, k)
        input = randn(lib, N, C, *other_dims, seed=i, requires_grad=True)
        target = lib.nn.functional.log_softmax(randn(lib, N, C, *other_dims, seed=50 + i),
                                               dim=1)
        for reduction in ['none', 'mean', 'sum']:
            loss = lib.nn.CrossEntropyLoss(reduction=reduction, label_smoothing=label_smoothing)
            output_with_smoothing = loss(input, target)
            target_with_smoothing = target * (1 - label_smoothing) + label_smoothing / C
            loss = lib.nn.CrossEntropyLoss(reduction=reduction)
            eq(output_with_smoothing, loss(input, target_with_smoothing), atol=1e-5, rtol=1e-5)


def test_cross_entropy_label_smoothing_weight_ignore_indices(lib):
    wgt = lib.tensor([0.3, 0.6])
    inp1 = lib.tensor([[0.3, 0.4], [1, 2]])
    inp2 = lib.tensor([[0.3, 0.6], [1, 2]])
    targets = {-100: lib.tensor([-100, 1]), -2: lib.tensor([-2, 1]), 2: lib.tensor([2, 1])}

    def check_equal(loss, inp_targ_1, inp_targ_2):
        eq(loss(*inp_targ_1), loss(*inp_targ_2))

    for reduction, label_smoothing, weight in itertools.product(
            ['none', 'sum', 'mean'], [0.05, 0.15], (None, wgt)):
        for ignore_index, targ in targets.items():
            loss = lib.nn.CrossEntropyLoss(reduction=reduction, label_smoothing=label_smoothing,
                                           ignore_index=ignore_index, weight=weight)
            check_equal(loss, (inp1, targ), (inp2, targ))
            if reduction != 'none':
                # the mean's denominator leaves the ignored index out
                check_equal(loss, (inp1, targ), (inp2[1:], targ[1:]))


# -- gumbel_softmax ------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float', 'double'])
def test_gumbel_softmax(lib, dtype):
    dt = getattr(lib, dtype)
    F = lib.nn.functional
    lib.manual_seed(0)
    for shape, dim, count_expected in [([5], 0, 1), ([5], -1, 1), ([5, 4], 1, 5),
                                       ([5, 4, 3], 1, 5 * 3), ([5, 4, 3], -1, 5 * 4)]:
        logits = randn(lib, *shape).to(dt)
        y_draw = F.gumbel_softmax(logits, hard=True, dim=dim)
        assert y_draw.min() >= 0
        assert y_draw.shape == logits.shape
        eq(y_draw.sum(), count_expected, atol=lib.finfo(y_draw.dtype).eps, rtol=0)

    # straight through: the draws follow the softmax probabilities
    num_draws = 100
    logits = lib.tensor([[0.2, 0.8, 0.1]]).reshape([1, 3]).to(dt).requires_grad_()
    probs = logits.softmax(dim=-1)
    counts = lib.zeros_like(logits)
    for _ in range(num_draws):
        y_draw = F.gumbel_softmax(logits, hard=True)
        counts = counts + y_draw
    assert y_draw.min() >= 0
    eq(counts.sum(), num_draws, atol=lib.finfo(counts.dtype).eps, rtol=0)
    expected = probs * num_draws
    z = (counts - expected) / (expected * (1 - probs)).sqrt()
    assert z.abs().max().item() < 2.58

    # "hard" and "not hard" propagate the same gradient
    logits_soft = lib.zeros(10, 10, dtype=dt, requires_grad=True)
    logits_hard = lib.zeros(10, 10, dtype=dt, requires_grad=True)
    seed = lib.random.get_rng_state()
    y_soft = F.gumbel_softmax(logits_soft, hard=False)
    lib.random.set_rng_state(seed)
    y_hard = F.gumbel_softmax(logits_hard, hard=True)
    y_soft.sum().backward()
    y_hard.sum().backward()
    tol = 2 * lib.finfo(dt).eps
    eq(logits_soft.grad, logits_hard.grad, atol=tol, rtol=0)
