"""The torch-level entry points of nn ops (aten's signatures: reduction as an int, weight
before indices, the native_* statistics) compared with torch 2.13: values, dtypes, grad_fn
names, first and second derivatives, errors."""
import numpy as np
import pytest

from .oracle import check, arr, torch
import ember

X = arr(2, 3, 4)
W3 = arr(3, seed=5, low=0.5, high=1.5)
B3 = arr(3, seed=6)


def _stats(T, r):
    return r[0], [t.detach() for t in r[1:]]


CASES = {
    'batch_norm train': (lambda T, x, w, b: T.batch_norm(x, w, b, None, None, True, 0.1, 1e-5,
                                                         False), X, W3, B3),
    'batch_norm eval': (lambda T, x, w, b: T.batch_norm(
        x, w, b, T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64) * 2, False, 0.1, 1e-5,
        False), X, W3, B3),
    'layer_norm': (lambda T, x, w, b: T.layer_norm(x, (4,), w, b, 1e-5, True), X, arr(4, seed=1),
                   arr(4, seed=2)),
    'layer_norm no affine': (lambda T, x: T.layer_norm(x, [3, 4]), X),
    'group_norm': (lambda T, x, w, b: T.group_norm(x, 3, w, b, 1e-5, True), X, W3, B3),
    'instance_norm': (lambda T, x, w, b: T.instance_norm(x, w, b, None, None, True, 0.1, 1e-5,
                                                         False), X, W3, B3),
    'rms_norm': (lambda T, x, w: T.rms_norm(x, (4,), w, 1e-6), X, arr(4, seed=1)),
    'rms_norm default eps': (lambda T, x: T.rms_norm(x, [4]), X),
    'native_layer_norm': (lambda T, x, w, b: T.native_layer_norm(x, (4,), w, b, 1e-5), X,
                          arr(4, seed=1), arr(4, seed=2)),
    'native_batch_norm train': (lambda T, x, w, b: T.native_batch_norm(
        x, w, b, None, None, True, 0.1, 1e-5), X, W3, B3),
    'native_batch_norm eval': (lambda T, x: T.native_batch_norm(
        x, None, None, T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64), False, 0.1,
        1e-5), X),
    # (torch's mean/rstd outputs of native_group_norm carry its grad_fn; ember's do not:
    # their values are compared)
    'native_group_norm': (lambda T, x, w, b: _stats(T, T.native_group_norm(x, w, b, 2, 3, 4, 1,
                                                                           1e-5)), X, W3, B3),
    'norm_except_dim': (lambda T, x: T.norm_except_dim(x, 2, 1), X),
    'norm_except_dim 0': (lambda T, x: T.norm_except_dim(x), X),
    'norm_except_dim last': (lambda T, x: T.norm_except_dim(x, 3, 2), X),
    # (torch names Tensor.norm's node NormBackward0, ember LinalgVectorNormBackward0)
    'norm_except_dim all': (lambda T, x: T.norm_except_dim(x, 3, -1) * 1, X),
    'losses unreduced by default': (lambda T, a, b: (
        T.kl_div(a, b), T.binary_cross_entropy_with_logits(a, b), T.hinge_embedding_loss(a, b),
        T.margin_ranking_loss(a, b, b), T.triplet_margin_loss(a, b, b),
        T.cosine_embedding_loss(a, b, T.ones(2, dtype=T.float64))),
        arr(2, 3), arr(2, 3, seed=1, low=0.1, high=1)),
    'embedding': (lambda T, w, i: T.embedding(w, i), arr(5, 3), np.array([[0, 2], [4, 2]])),
    'embedding padding': (lambda T, w, i: T.embedding(w, i, 2), arr(5, 3), np.array([0, 2, 2])),
    'bce with logits': (lambda T, x, y: T.binary_cross_entropy_with_logits(x, y, None, None, 1), X,
                        arr(2, 3, 4, seed=1, low=0, high=1)),
    'bce with logits weights': (lambda T, x, y, w, p: T.binary_cross_entropy_with_logits(
        x, y, w, p, 2), X, arr(2, 3, 4, seed=1, low=0, high=1), arr(4, seed=2), arr(4, seed=3)),
    'cosine_embedding_loss': (lambda T, a, b: T.cosine_embedding_loss(
        a, b, T.tensor([1.0, -1.0], dtype=T.float64), 0.1, 0), arr(2, 5), arr(2, 5, seed=1)),
    'hinge_embedding_loss': (lambda T, a: T.hinge_embedding_loss(
        a, T.tensor([1.0, -1.0, 1.0], dtype=T.float64), 1.0, 2), arr(3)),
    'kl_div': (lambda T, a, b: T.kl_div(a, b, 1), X, arr(2, 3, 4, seed=1, low=0.1, high=1)),
    'kl_div log_target': (lambda T, a, b: T.kl_div(a, b, 0, log_target=True), X,
                          arr(2, 3, 4, seed=1)),
    'margin_ranking_loss': (lambda T, a, b: T.margin_ranking_loss(
        a, b, T.tensor([1.0, -1.0, 1.0], dtype=T.float64), 0.2, 1), arr(3), arr(3, seed=1)),
    'poisson_nll_loss': (lambda T, a, b: T.poisson_nll_loss(a, b, True, False, 1e-8, 1), X,
                         arr(2, 3, 4, seed=1, low=0, high=3)),
    'poisson_nll_loss full': (lambda T, a, b: T.poisson_nll_loss(a, b, False, True, 1e-8, 2),
                              arr(4, low=0.5, high=2), arr(4, seed=1, low=1, high=3)),
    'triplet_margin_loss': (lambda T, a, p, n: T.triplet_margin_loss(a, p, n, reduction=1),
                            arr(2, 5),
                            arr(2, 5, seed=1), arr(2, 5, seed=2)),
    'triplet_margin_loss swap': (lambda T, a, p, n: T.triplet_margin_loss(
        a, p, n, 0.5, 1, 1e-6, True, 0), arr(2, 5), arr(2, 5, seed=1), arr(2, 5, seed=2)),
    'celu': (lambda T, x: T.celu(x, 0.7), X), 'selu': (lambda T, x: T.selu(x), X),
    'rrelu eval': (lambda T, x: T.rrelu(x), X),
    'threshold': (lambda T, x: T.threshold(x, 0.1, -2.0), X),
    'max_pool1d': (lambda T, x: T.max_pool1d(x, 2), X),
    'max_pool1d stride': (lambda T, x: T.max_pool1d(x, 3, 1, 1, 1, True), X),
    'max_pool1d_with_indices': (lambda T, x: T.max_pool1d_with_indices(x, 2), X),
    'max_pool2d': (lambda T, x: T.max_pool2d(x, (2, 2), (1, 2)), arr(1, 2, 4, 5)),
    'adaptive_max_pool1d': (lambda T, x: T.adaptive_max_pool1d(x, (3,)), X),
    'convolution 1d': (lambda T, x, w, b: T.convolution(x, w, b, [1], [1], [1], False, [0], 1),
                       X, arr(2, 3, 3, seed=1), arr(2, seed=2)),
    'convolution 2d groups': (lambda T, x, w: T.convolution(x, w, None, [2, 1], [0, 1], [1, 1],
                                                            False, [0, 0], 2),
                              arr(1, 4, 5, 5), arr(2, 2, 3, 3, seed=1)),
    'convolution transposed': (lambda T, x, w: T.convolution(x, w, None, [2], [1], [1], True,
                                                             [1], 1), X, arr(3, 2, 3, seed=1)),
    'constant_pad_nd': (lambda T, x: T.constant_pad_nd(x, [1, 2, 0, 1], 0.5), X),
    'constant_pad_nd crop': (lambda T, x: T.constant_pad_nd(x, (-1, 1)), X),
}


@pytest.mark.parametrize('name', list(CASES))
def test_nn_entry(name):
    fn, *args = CASES[name]
    check(fn, *args, double=True)


def _rnn_params(mode, n_in, hidden, layers, bidirectional, bias, seed=10, proj=0):
    gates = {'lstm': 4, 'gru': 3}.get(mode, 1)
    params = []
    for layer in range(layers):
        for _ in range(2 if bidirectional else 1):
            width = n_in if layer == 0 else (proj or hidden) * (2 if bidirectional else 1)
            params += [arr(gates * hidden, width, seed=seed), arr(gates * hidden, proj or hidden,
                                                                 seed=seed + 1)]
            if bias:
                params += [arr(gates * hidden, seed=seed + 2), arr(gates * hidden, seed=seed + 3)]
            seed += 4
    return params


@pytest.mark.parametrize('mode', ['lstm', 'gru', 'rnn_tanh', 'rnn_relu'])
@pytest.mark.parametrize('layers,bidirectional,bias,batch_first', [
    (1, False, True, False), (2, True, False, True), (2, False, True, True)])
def test_recurrent_sequences(mode, layers, bidirectional, bias, batch_first):
    params = _rnn_params(mode, 3, 4, layers, bidirectional, bias)
    dirs = 2 if bidirectional else 1
    x = arr(2, 5, 3) if batch_first else arr(5, 2, 3)
    h0 = arr(layers * dirs, 2, 4, seed=3)

    def f(T, x, h, *ps):
        hx = (h, h * 0.5) if mode == 'lstm' else h
        out = getattr(T, mode)(x, hx, ps, bias, layers, 0.0, False, bidirectional, batch_first)
        # (values and gradients; the grad_fn of a whole-sequence op is an implementation
        # detail that differs between torch's fused kernel and ember's loop)
        return [o * 1 for o in out]
    check(f, x, h0, *params, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize('mode', ['lstm_cell', 'gru_cell', 'rnn_tanh_cell', 'rnn_relu_cell'])
@pytest.mark.parametrize('bias', [True, False])
def test_recurrent_cells(mode, bias):
    gates = {'lstm_cell': 4, 'gru_cell': 3}.get(mode, 1)
    ws = [arr(gates * 4, 3, seed=1), arr(gates * 4, 4, seed=2)]
    bs = [arr(gates * 4, seed=3), arr(gates * 4, seed=4)] if bias else []

    def f(T, x, h, *p):
        hx = (h, h * 0.5) if mode == 'lstm_cell' else h
        return getattr(T, mode)(x, hx, *p)
    check(f, arr(2, 3), arr(2, 4, seed=5), *ws, *bs, double=True)


@pytest.mark.parametrize('p,train', [(0.0, True), (0.5, False), (1.0, True)])
def test_dropouts_deterministic_cases(p, train):
    for name in ('dropout', 'alpha_dropout', 'feature_dropout'):
        check(lambda T, x: getattr(T, name)(x, p, train), X, double=True)
    check(lambda T, x: T.native_dropout(x, p, train), X, double=True)


@pytest.mark.parametrize('name', ['dropout', 'feature_dropout', 'native_dropout'])
def test_dropout_statistics(name):
    # Random draws differ from torch's; what both keep is compared: the kept fraction, the
    # scale of the kept elements, and (feature_dropout) whole channels kept or dropped.
    ember.manual_seed(0)
    x = ember.ones(40, 50, 30, dtype=ember.float64)
    r = getattr(ember, name)(x, 0.3, True)
    out = r[0] if name == 'native_dropout' else r
    v = out.numpy()
    kept = v != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(v[kept], 1 / 0.7)
    if name == 'feature_dropout':
        assert (kept.all(2) | ~kept.any(2)).all()
    if name == 'native_dropout':
        assert r[1].dtype == ember.bool and (r[1].numpy() == kept).all()


@pytest.mark.parametrize('fn', [
    lambda T: T.dropout(T.ones(2), 1.5, True),
    lambda T: T.native_dropout(T.ones(2), -0.1, True),
    lambda T: T.embedding(T.ones(3, 2), T.tensor([3])),
    lambda T: T.layer_norm(T.ones(2, 3), (2,)),
    lambda T: T.group_norm(T.ones(2, 3), 2),
    lambda T: T.native_group_norm(T.ones(2, 3, 4), None, None, 2, 3, 5, 1, 1e-5),
    lambda T: T.kl_div(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64)),
])
def test_nn_entry_errors(fn):
    check(fn, match_message=True)


def test_nn_entries_load_nn_lazily():
    from tests.run_python import run, ROOT
    code, out, err = run(['-c', "import sys, ember; print('ember.nn' in sys.modules)"], ROOT)
    assert code == 0, err
    assert out.strip() == 'False'
