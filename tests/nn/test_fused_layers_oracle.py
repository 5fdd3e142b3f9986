"""The array fast paths of layer_norm, softmax/log_softmax, cross_entropy and the row scatter
behind index_add / embedding backward, against torch: values, gradients computed on arrays
(no graph wanted) and first/second derivatives through the graph, float32 and float64."""
import numpy as np
import pytest

from ..oracle.oracle import check, arr

DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('affine', ['both', 'weight', 'none'])
@pytest.mark.parametrize('double', [False, True])
def test_layer_norm(dtype, affine, double):
    x = arr(4, 6, 32, dtype=dtype)
    w = arr(32, dtype=dtype, seed=1, low=0.5, high=1.5) if affine != 'none' else None
    b = arr(32, dtype=dtype, seed=2) if affine == 'both' else None
    check(lambda T, x, w, b: T.nn.functional.layer_norm(x, (32,), w, b), x, w, b,
          double=double)


@pytest.mark.parametrize('dtype', DTYPES)
def test_layer_norm_over_two_dims_result_changed_in_place(dtype):
    """Without weight and bias the result is the normalised array itself: changing it in
    place must not change the gradient."""
    def fn(T, x):
        y = T.nn.functional.layer_norm(x, (3, 8))
        z = y * 2
        y.detach().zero_()
        return z
    check(fn, arr(5, 3, 8, dtype=dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('op', ['softmax', 'log_softmax'])
@pytest.mark.parametrize('dim', [-1, 0, 1])
@pytest.mark.parametrize('double', [False, True])
def test_softmax(op, dim, dtype, double):
    check(lambda T, x: getattr(T, op)(x, dim), arr(6, 40, 3, dtype=dtype) * 3,
          double=double)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('kw', [{}, {'label_smoothing': 0.1}, {'ignore_index': 3},
                                {'reduction': 'sum'}, {'reduction': 'none'},
                                {'weight': True}])
@pytest.mark.parametrize('double', [False, True])
def test_cross_entropy(dtype, kw, double):
    rng = np.random.default_rng(4)
    target = rng.integers(0, 50, 64)
    kw = dict(kw)
    w = arr(50, dtype=dtype, seed=5, low=0.5, high=2.0) if kw.pop('weight', False) else None

    def fn(T, x, w):
        return T.nn.functional.cross_entropy(x, T.tensor(target), weight=w, **kw)
    check(fn, arr(64, 50, dtype=dtype) * 3, w, double=double)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('repeats', ['few', 'many'])
@pytest.mark.parametrize('double', [False, True])
def test_index_add_rows_with_repeated_indices(dtype, repeats, double):
    """Indices repeating up to ~4 times, and one index 60 times."""
    rng = np.random.default_rng(6)
    index = rng.integers(0, 30, 100)
    if repeats == 'many':
        index[rng.permutation(100)[:60]] = 7
    check(lambda T, x, s: x.index_add(0, T.tensor(index), s, alpha=0.5),
          arr(30, 4, 3, dtype=dtype), arr(100, 4, 3, dtype=dtype, seed=1), double=double)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('kw', [{}, {'padding_idx': 7}, {'scale_grad_by_freq': True}])
@pytest.mark.parametrize('double', [False, True])
def test_embedding_backward_with_repeated_indices(dtype, kw, double):
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 20, (12, 25))
    idx[:, :5] = 7               # index 7 used 60+ times
    check(lambda T, w: T.nn.functional.embedding(T.tensor(idx), w, **kw) * 1.5,
          arr(20, 6, dtype=dtype), double=double)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('kw', [{}, {'bias': False}, {'num_layers': 2, 'bidirectional': True}])
@pytest.mark.parametrize('double', [False, True])
def test_lstm_layer_op(dtype, kw, double):
    """nn.LSTM runs each layer and direction as one op (output grad_fn
    MkldnnRnnLayerBackward0 as in torch); input and initial-state gradients, to second
    order through the recomputed graph."""
    layers = kw.get('num_layers', 1) * (2 if kw.get('bidirectional') else 1)

    def fn(T, x, h0, c0):
        m = T.nn.LSTM(4, 5, **kw).to(getattr(T, np.dtype(dtype).name))
        rng = np.random.default_rng(3)
        with T.no_grad():
            for p in m.parameters():
                p.copy_(T.tensor(rng.standard_normal(tuple(p.shape)) * 0.5))
        out, (h, c) = m(x, (h0, c0))
        return out, h, c
    check(fn, arr(6, 3, 4, dtype=dtype), arr(layers, 3, 5, dtype=dtype, seed=1),
          arr(layers, 3, 5, dtype=dtype, seed=2), double=double)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('affine', [True, False])
@pytest.mark.parametrize('double', [False, True])
def test_batch_norm(dtype, training, affine, double):
    x = arr(4, 3, 5, 6, dtype=dtype) * 2 + 1
    w = arr(3, dtype=dtype, seed=1, low=0.5, high=1.5) if affine else None
    b = arr(3, dtype=dtype, seed=2) if affine else None

    def fn(T, x, w, b):
        rm, rv = T.tensor(np.linspace(-0.5, 0.5, 3)).to(x.dtype), T.ones(3, dtype=x.dtype) * 1.5
        return T.nn.functional.batch_norm(x, rm, rv, w, b, training=training)
    check(fn, x, w, b, double=double)


@pytest.mark.parametrize('dtype', DTYPES + [np.float16])
@pytest.mark.parametrize('op', ['softmax', 'log_softmax'])
@pytest.mark.parametrize('spread', [1.0, 30.0, 400.0, 'inf', 'masked'])
def test_softmax_values_of_any_spread(op, dtype, spread):
    """Close values (shifted by the global maximum) and far-apart ones (by each row's), with
    infinities and an all -inf row, or -inf entries only (masked attention scores)."""
    x = (arr(8, 50) * spread if not isinstance(spread, str) else arr(8, 50) * 3).astype(dtype)
    if spread == 'masked':
        x[np.triu_indices(8, 1, 50)] = -np.inf
    if spread == 'inf':
        x[0, 3], x[1, :] = np.inf, -np.inf
        x[2, 5] = -np.inf
    check(lambda T, x: getattr(T, op)(x, -1), x, grad=dtype != np.float16)
