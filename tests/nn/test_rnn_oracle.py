"""RNN, LSTM, GRU and their cells against torch: outputs, final states, gradients of the
input, the initial state and every parameter (same float64 weights copied into both), reprs,
parameter names and errors. grad_fn names are not compared (torch's fused kernels differ)."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check


def _flat(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _outs(out):
    r = []
    for o in _flat(out):
        r.extend(_outs(o) if isinstance(o, (list, tuple)) else [o])
    return r


def compare(cls, args, kw, x, hx=None, double=False, dtype='float64'):
    """Builds ``cls(*args, **kw)`` in torch (``dtype``) and ember with the same weights, runs
    both on ``x`` (and ``hx``), compares outputs and the gradients of input, hx and params."""
    torch.manual_seed(0)
    t = getattr(torch.nn, cls)(*args, **kw).to(getattr(torch, dtype))
    e = getattr(ember.nn, cls)(*args, **kw).to(getattr(ember, dtype))
    x = x.astype(dtype)
    hx = tuple(h.astype(dtype) for h in hx) if isinstance(hx, tuple) else \
        None if hx is None else hx.astype(dtype)
    tol = 1e-10 if dtype == 'float64' else 1e-5
    e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    results = []
    for lib, m in ((ember, e), (torch, t)):
        xi = lib.tensor(x, requires_grad=True)
        hi = None if hx is None else (
            tuple(lib.tensor(h, requires_grad=True) for h in hx) if isinstance(hx, tuple)
            else lib.tensor(hx, requires_grad=True))
        out = m(xi) if hi is None else m(xi, hi)
        leaves = [xi] + _flat(hi if hi is not None else []) + list(m.parameters())
        outs = _outs(out)
        rng = np.random.default_rng(1)
        loss = sum((o * lib.tensor(rng.standard_normal(tuple(o.shape)))).sum() for o in outs)
        grads = lib.autograd.grad(loss, leaves, create_graph=double)
        second = None
        if double:
            s = sum((g * g).sum() for g in grads)
            second = lib.autograd.grad(s, leaves[:1 + len(_flat(hi if hi is not None else []))],
                                       allow_unused=True)
        results.append((outs, grads, second))
    (eo, eg, es), (to, tg, ts) = results
    assert len(eo) == len(to)
    for a, b in zip(eo, to):
        assert tuple(a.shape) == tuple(b.shape)
        assert a.dtype == getattr(ember, dtype)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    names = ['input', 'hx'] + [n for n, _ in t.named_parameters()]
    for i, (a, b) in enumerate(zip(eg, tg)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol * 10,
                                   atol=tol, err_msg=f'grad {i} ({names[min(i, len(names)-1)]})')
    if double:
        for a, b in zip(es, ts):
            if b is not None:
                np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-8,
                                           atol=1e-10)


MODES = [('RNN', {}), ('RNN', {'nonlinearity': 'relu'}), ('LSTM', {}), ('GRU', {})]


@pytest.mark.parametrize('cls,extra', MODES)
@pytest.mark.parametrize('kw', [{}, {'num_layers': 2}, {'batch_first': True},
                                {'bias': False}, {'bidirectional': True},
                                {'num_layers': 2, 'bidirectional': True, 'batch_first': True}])
def test_sequence_layers(cls, extra, kw):
    x = arr(5, 3, 4, seed=1)
    compare(cls, (4, 6), {**extra, **kw}, x)


@pytest.mark.parametrize('cls,extra', MODES)
@pytest.mark.parametrize('batch_first', [False, True])
def test_given_hx_and_unbatched(cls, extra, batch_first):
    kw = {**extra, 'num_layers': 2, 'bidirectional': True, 'batch_first': batch_first}
    h = arr(4, 3, 6, seed=2)
    hx = (h, arr(4, 3, 6, seed=3)) if cls == 'LSTM' else h
    compare(cls, (4, 6), kw, arr(3, 5, 4, seed=1) if batch_first else arr(5, 3, 4, seed=1), hx)
    hu = (h[:, 0], hx[1][:, 0]) if cls == 'LSTM' else h[:, 0]
    compare(cls, (4, 6), kw, arr(5, 4, seed=1))
    compare(cls, (4, 6), kw, arr(5, 4, seed=1), hu)


@pytest.mark.parametrize('cls', ['RNN', 'LSTM', 'GRU'])
def test_double_backward(cls):
    h = arr(2, 3, 5, seed=2)
    hx = (h, arr(2, 3, 5, seed=3)) if cls == 'LSTM' else h
    compare(cls, (4, 5), {'num_layers': 2}, arr(4, 3, 4, seed=1), hx, double=True)


@pytest.mark.parametrize('cls,extra', [('RNNCell', {}), ('RNNCell', {'nonlinearity': 'relu'}),
                                       ('LSTMCell', {}), ('GRUCell', {}),
                                       ('GRUCell', {'bias': False})])
def test_cells(cls, extra):
    compare(cls, (4, 6), extra, arr(3, 4, seed=1))
    h = arr(3, 6, seed=2)
    compare(cls, (4, 6), extra, arr(3, 4, seed=1),
            (h, arr(3, 6, seed=3)) if cls == 'LSTMCell' else h)
    compare(cls, (4, 6), extra, arr(4, seed=1),
            (h[0], arr(6, seed=3)) if cls == 'LSTMCell' else h[0])


def test_dropout_between_layers_only_in_training():
    m = ember.nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = ember.randn(6, 2, 3)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    m.train()
    outs = {m(x)[0].detach().numpy().tobytes() for _ in range(4)}
    assert len(outs) > 1


@pytest.mark.parametrize('make', [
    lambda lib: lib.nn.LSTM(10, 20, num_layers=2, batch_first=True),
    lambda lib: lib.nn.RNN(3, 4, nonlinearity='relu', bias=False, dropout=0.5,
                           bidirectional=True, num_layers=2),
    lambda lib: lib.nn.GRU(3, 4), lambda lib: lib.nn.LSTMCell(3, 4),
    lambda lib: lib.nn.RNNCell(3, 4, nonlinearity='relu', bias=False),
    lambda lib: lib.nn.GRUCell(3, 4, bias=False),
])
def test_reprs_names_shapes_and_init(make):
    e, t = make(ember), make(torch)
    assert repr(e) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    bound = 1 / np.sqrt(e.hidden_size)
    for p in e.parameters():
        assert np.abs(p.detach().numpy()).max() <= bound


def _hx(lib, *shape):
    return lib.zeros(*shape, dtype=lib.float64)


@pytest.mark.parametrize('call', [
    lambda lib, x: lib.nn.LSTM(10, 20).double()(x),
    lambda lib, x: lib.nn.LSTM(7, 20).double()(x, (_hx(lib, 1, 2, 20), _hx(lib, 1, 3, 20))),
    lambda lib, x: lib.nn.LSTM(7, 20).double()(x, (_hx(lib, 1, 3, 20), _hx(lib, 1, 3, 19))),
    lambda lib, x: lib.nn.LSTM(7, 20).double()(x, (_hx(lib, 3, 20), _hx(lib, 3, 20))),
    lambda lib, x: lib.nn.LSTM(7, 20).double()(x[0, 0]),
    lambda lib, x: lib.nn.LSTM(7, 20).double()(x[0], (_hx(lib, 1, 3, 20), _hx(lib, 1, 3, 20))),
    lambda lib, x: lib.nn.GRU(7, 20).double()(x, _hx(lib, 1, 2, 20)),
    lambda lib, x: lib.nn.GRU(7, 20).double()(x, _hx(lib, 2, 3, 20)),
    lambda lib, x: lib.nn.GRU(7, 20).double()(x[0], _hx(lib, 1, 3, 20)),
    lambda lib, x: lib.nn.RNN(7, 20).double()(x, _hx(lib, 3, 20)),
    lambda lib, x: lib.nn.RNN(7, 20).double()(x[None]),
    lambda lib, x: lib.nn.GRU(7, 20).double()(x[None]),
    lambda lib, x: lib.nn.LSTMCell(10, 20).double()(x[0]),
    lambda lib, x: lib.nn.LSTMCell(7, 20).double()(x[0], (_hx(lib, 2, 20), _hx(lib, 2, 20))),
    lambda lib, x: lib.nn.GRUCell(7, 20).double()(x[0], _hx(lib, 3, 19)),
    lambda lib, x: lib.nn.GRUCell(7, 20).double()(x),
    lambda lib, x: lib.nn.RNNCell(7, 20).double()(x[0], _hx(lib, 1, 3, 20)),
    lambda lib, x: lib.nn.RNN(7, 20, nonlinearity='x'),
    lambda lib, x: lib.nn.RNN(7, 20, dropout=1.5),
    lambda lib, x: lib.nn.RNN(7, 0),
    lambda lib, x: lib.nn.LSTM(7, 20, num_layers=0),
    lambda lib, x: lib.nn.LSTM(7, 20, proj_size=20),
    lambda lib, x: lib.nn.LSTM(7, 20, proj_size=-1),
    lambda lib, x: lib.nn.LSTM(7, 20, proj_size=5).double()(
        x, (_hx(lib, 1, 3, 20), _hx(lib, 1, 3, 20))),
    lambda lib, x: lib.nn.LSTM(7, 20, proj_size=5).double()(
        x, (_hx(lib, 1, 3, 5), _hx(lib, 1, 3, 5))),
])
def test_errors(call):
    check(call, arr(5, 3, 7), grad=False, match_message=True)


@pytest.mark.filterwarnings('ignore:LSTM with projections is not supported with oneDNN')
@pytest.mark.parametrize('kw,dtype', [
    ({}, 'float64'), ({}, 'float32'), ({'bias': False}, 'float64'),
    ({'num_layers': 2, 'bidirectional': True}, 'float64'),
    ({'num_layers': 2, 'bidirectional': True, 'batch_first': True}, 'float32')])
def test_lstm_projection(kw, dtype):
    """proj_size: h (outputs, h_n, h_0) has proj_size features, c keeps hidden_size."""
    x = arr(3, 5, 4, seed=1) if kw.get('batch_first') else arr(5, 3, 4, seed=1)
    compare('LSTM', (4, 6), {'proj_size': 2, **kw}, x, dtype=dtype)
    d = 2 * kw.get('num_layers', 1) if kw.get('bidirectional') else 1
    hx = (arr(d, 3, 2, seed=2), arr(d, 3, 6, seed=3))
    compare('LSTM', (4, 6), {'proj_size': 2, **kw}, x, hx, dtype=dtype)
    compare('LSTM', (4, 6), {'proj_size': 2, **kw}, arr(5, 4, seed=1),
            (hx[0][:, 0], hx[1][:, 0]), dtype=dtype)


def test_lstm_projection_double_backward():
    hx = (arr(2, 3, 3, seed=2), arr(2, 3, 5, seed=3))
    compare('LSTM', (4, 5), {'num_layers': 2, 'proj_size': 3}, arr(4, 3, 4, seed=1), hx,
            double=True)


@pytest.mark.parametrize('kw', [{}, {'bias': False, 'num_layers': 2, 'bidirectional': True}])
def test_lstm_projection_layout(kw):
    """Parameter names, shapes and order, state_dict keys, all_weights, repr and init."""
    def describe(lib):
        m = lib.nn.LSTM(4, 6, proj_size=3, **kw)
        bound = 1 / np.sqrt(6)
        assert all(np.abs(p.detach().numpy()).max() <= bound for p in m.parameters())
        return (repr(m), [(n, tuple(p.shape)) for n, p in m.named_parameters()],
                list(m.state_dict()), [[tuple(w.shape) for w in ws] for ws in m.all_weights])
    assert describe(ember) == describe(torch)


def test_module_hands_the_sequence_to_the_public_op():
    """nn.LSTM/GRU/RNN run through torch.lstm/gru/rnn_tanh (as torch's modules call _VF), so
    a __torch_function__ mode sees the op; the flat op takes a projecting LSTM's five
    weights per layer (h smaller than c) and refuses four with torch's message."""
    seen = {}
    for lib in (ember, torch):
        class Log(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.setdefault(lib.__name__, []).append(getattr(func, '__name__', ''))
                return func(*args, **(kwargs or {}))
        with Log():
            lib.nn.LSTM(4, 3, proj_size=2)(lib.zeros(5, 1, 4))
            lib.nn.RNN(4, 3, nonlinearity='relu')(lib.zeros(5, 1, 4))
        m = lib.nn.LSTM(4, 3, proj_size=2)
        h, c = lib.zeros(1, 1, 2), lib.zeros(1, 1, 3)
        out = lib.lstm(lib.ones(5, 1, 4), (h, c), m._flat_weights, True, 1, 0.0, False, False,
                       False)
        assert [tuple(o.shape) for o in out] == [(5, 1, 2), (1, 1, 2), (1, 1, 3)]
        with pytest.raises(RuntimeError, match='^got an incorrect number of RNN parameters$'):
            lib.lstm(lib.ones(5, 1, 4), (h, c), m._flat_weights[:4], True, 1, 0.0, False,
                     False, False)
    for name in ('lstm', 'rnn_relu'):
        assert name in seen['ember'] and name in seen['torch']
