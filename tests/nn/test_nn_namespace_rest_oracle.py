"""The rest of torch.nn's namespace, each against torch: 3-d padding layers, UpsamplingNearest2d/
UpsamplingBilinear2d and the deprecated F.upsample*, lazy BatchNorm/InstanceNorm, SyncBatchNorm
on one process, the deprecated Container and NLLLoss2d, nn.grad's convolution gradients,
nn.attention's kernel choice, nn.factory_kwargs and nn.common_types."""
import warnings

import numpy as np
import pytest

from ..oracle.oracle import torch
import ember

LIBS = [pytest.param(ember, id='ember'), pytest.param(torch, id='torch')]
RNG = np.random.default_rng(0)
X5 = RNG.standard_normal((2, 3, 4, 5, 6))
X4 = RNG.standard_normal((2, 3, 5, 6))
TARGET = RNG.integers(0, 3, (2, 5, 6))


def same(a, b, tol=1e-10):
    """Two tensors (one per library) with the same shape, dtype and values (or both None)."""
    if a is None or b is None:
        assert a is None and b is None
        return
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def both(fn):
    """fn(lib) for ember and torch: the pair of results, or the pair of exceptions."""
    out = []
    for lib in (ember, torch):
        try:
            out.append(fn(lib))
        except Exception as e:  # compared below
            out.append(e)
    return out


def same_error(fn):
    e, t = both(fn)
    assert isinstance(t, Exception), t
    assert type(e) is type(t) and str(e) == str(t), (e, t)


@pytest.mark.parametrize('name', ['ZeroPad3d', 'ReflectionPad3d', 'ReplicationPad3d',
                                  'CircularPad3d'])
@pytest.mark.parametrize('padding', [1, (1, 2, 0, 1, 2, 1)])
def test_padding_3d(name, padding):
    e, t = both(lambda lib: getattr(lib.nn, name)(padding)(lib.tensor(X5)))
    same(e, t)
    assert repr(getattr(ember.nn, name)(padding)) == repr(getattr(torch.nn, name)(padding))


def test_circular_pad_3d_refuses_wrong_rank():
    same_error(lambda lib: lib.nn.CircularPad3d(1)(lib.tensor(X4[0, 0])))


@pytest.mark.parametrize('name', ['UpsamplingNearest2d', 'UpsamplingBilinear2d'])
@pytest.mark.parametrize('kwargs', [{'scale_factor': 2}, {'size': (7, 9)}])
def test_upsampling_2d(name, kwargs):
    e, t = both(lambda lib: getattr(lib.nn, name)(**kwargs)(lib.tensor(X4)))
    same(e, t)
    assert repr(getattr(ember.nn, name)(**kwargs)) == repr(getattr(torch.nn, name)(**kwargs))


@pytest.mark.parametrize('name,kwargs', [('upsample', {'scale_factor': 2, 'mode': 'bilinear'}),
                                         ('upsample', {'size': 8}),
                                         ('upsample_nearest', {'scale_factor': 3}),
                                         ('upsample_bilinear', {'size': (4, 7)})])
def test_deprecated_upsample_functions(name, kwargs):
    def run(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            out = getattr(lib.nn.functional, name)(lib.tensor(X4), **kwargs)
        return out, [(x.category, str(x.message)) for x in w]
    (e, ew), (t, tw) = both(run)
    same(e, t)
    assert ew == tw


@pytest.mark.parametrize('name,x', [('LazyBatchNorm1d', X4[:, :, 0]), ('LazyBatchNorm2d', X4),
                                    ('LazyBatchNorm3d', X5), ('LazyInstanceNorm1d', X4[:, :, 0]),
                                    ('LazyInstanceNorm2d', X4), ('LazyInstanceNorm3d', X5)])
def test_lazy_norms(name, x):
    def run(lib):
        m = getattr(lib.nn, name)()
        before = (m.has_uninitialized_params(), type(m.weight).__name__,
                  type(m.running_mean).__name__, int(m.num_batches_tracked))
        out = m(lib.tensor(x, dtype=lib.float32))
        state = {k: v.shape for k, v in m.state_dict().items()}
        return before, out, type(m).__name__, repr(m), state, m.running_mean
    (eb, eo, en, er, es, em), (tb, to, tn, tr, ts, tm) = both(run)
    assert (eb, en, er, es) == (tb, tn, tr, ts)
    same(eo, to, 1e-5)
    same(em, tm, 1e-6)


def test_lazy_norm_options_and_errors():
    def run(lib):
        m = lib.nn.LazyBatchNorm2d(affine=False, track_running_stats=False)
        return (m.weight, m.running_mean, m.num_batches_tracked, m.has_uninitialized_params(),
                type(m(lib.tensor(X4, dtype=lib.float32))).__name__, type(m).__name__)
    e, t = both(run)
    assert e == t
    same_error(lambda lib: lib.nn.LazyBatchNorm2d()(lib.tensor(X5, dtype=lib.float32)))


def test_lazy_norm_loads_a_checkpoint():
    def run(lib):
        full = lib.nn.BatchNorm2d(3)
        full.running_mean.fill_(0.5)
        m = lib.nn.LazyBatchNorm2d()
        m.load_state_dict(full.state_dict())
        return m.weight.shape, m.running_mean, type(m).__name__
    (es, em, en), (ts, tm, tn) = both(run)
    assert (tuple(es), en) == (tuple(ts), tn)
    same(em, tm)


def test_sync_batch_norm_on_one_process():
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.SyncBatchNorm(3, momentum=None)
        x = lib.tensor(X5, requires_grad=True, dtype=lib.float64)
        m.double()
        y = m(x)
        y.sum().backward()
        return y, x.grad, m.running_var, repr(m), type(y.grad_fn).__name__
    (ey, eg, ev, er, ef), (ty, tg, tv, tr, tf) = both(run)
    same(ey, ty)
    same(eg, tg)
    same(ev, tv)
    assert (er, ef) == (tr, tf)
    same_error(lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(3)))
    same_error(lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(2, 0, 3)))


def test_convert_sync_batchnorm():
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4).eval(),
                              lib.nn.Sequential(lib.nn.BatchNorm1d(4, affine=False)))
        s = lib.nn.SyncBatchNorm.convert_sync_batchnorm(m)
        return (repr(s), s[1].weight is m[1].weight, s[1].running_mean is m[1].running_mean,
                s[1].training, s[0] is m[0])
    e, t = both(run)
    assert e == t


def test_deprecated_container_and_nllloss2d():
    def run(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            c = lib.nn.Container(a=lib.nn.ReLU(), b=lib.nn.Tanh())
            loss = lib.nn.NLLLoss2d(ignore_index=1)
        x = lib.tensor(X4).log_softmax(1)
        target = lib.tensor(TARGET)
        return (repr(c), [(x.category, str(x.message)) for x in w], loss(x, target),
                isinstance(loss, lib.nn.NLLLoss))
    (ec, ew, el, ei), (tc, tw, tl, ti) = both(run)
    assert (ec, ew, ei) == (tc, tw, ti)
    same(el, tl)


@pytest.mark.parametrize('dims,kw', [(1, {}), (1, {'stride': 2, 'padding': 1}),
                                     (2, {'stride': 2, 'padding': 1, 'groups': 3}),
                                     (2, {'dilation': 2}), (3, {'padding': 1})])
def test_nn_grad_convolutions(dims, kw):
    rng = np.random.default_rng(dims)
    x = rng.standard_normal((2, 3) + (7,) * dims)
    w = rng.standard_normal((6, 3 // kw.get('groups', 1)) + (3,) * dims)

    def run(lib):
        X, W = lib.tensor(x), lib.tensor(w)
        out = getattr(lib.nn.functional, f'conv{dims}d')(X, W, **kw)
        go = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)))
        return (getattr(lib.nn.grad, f'conv{dims}d_input')(X.shape, W, go, **kw),
                getattr(lib.nn.grad, f'conv{dims}d_weight')(X, W.shape, go, **kw),
                lib.nn.functional.grad is lib.nn.grad)
    (ei, ew, ef), (ti, tw, tf) = both(run)
    same(ei, ti)
    same(ew, tw)
    assert ef and tf


def test_sdpa_kernel():
    def run(lib):
        from importlib import import_module
        attention = import_module(lib.__name__ + '.nn.attention')
        B = attention.SDPBackend
        q = lib.tensor(X4)
        seen = []
        for backends in (B.MATH, [B.FLASH_ATTENTION], [B.EFFICIENT_ATTENTION, B.CUDNN_ATTENTION],
                         B.ERROR, []):
            with attention.sdpa_kernel(backends):
                seen.append((lib.backends.cuda.math_sdp_enabled(),
                             lib.backends.cuda.flash_sdp_enabled(),
                             lib.backends.cuda.mem_efficient_sdp_enabled()))
                try:
                    seen.append(lib.nn.functional.scaled_dot_product_attention(q, q, q).shape)
                except RuntimeError as e:
                    seen.append(str(e))
        seen.append(lib.backends.cuda.math_sdp_enabled())
        try:
            with attention.sdpa_kernel('math'):
                pass
        except AssertionError as e:
            seen.append(str(e))
        seen.append((str(B.MATH), repr(B.FLASH_ATTENTION), int(B.CUDNN_ATTENTION), B.MATH == 0,
                     sorted(B.__members__)))
        return seen
    e, t = both(run)
    assert e == t


def test_factory_kwargs():
    for kwargs in (None, {}, {'device': 'cpu', 'factory_kwargs': {'memory_format': 1}},
                   {'foo': 1}, {'dtype': 1, 'factory_kwargs': {'dtype': 2}}):
        e, t = both(lambda lib: lib.nn.factory_kwargs(kwargs))
        assert type(e) is type(t) and str(e) == str(t), (e, t)


def test_common_types():
    from ember.nn import common_types as e
    from torch.nn import common_types as t
    names = [n for n in dir(t) if n.startswith('_') and n.endswith('_t')]
    assert names and all(hasattr(e, n) for n in names)
    assert str(e._size_2_t) == str(t._size_2_t)


def test_rnn_bases():
    for lib in (ember, torch):
        assert isinstance(lib.nn.LSTM(2, 3), lib.nn.RNNBase)
        assert isinstance(lib.nn.GRUCell(2, 3), lib.nn.RNNCellBase)
        assert issubclass(lib.nn.UninitializedParameter, lib.nn.Parameter)
        assert lib.nn.UninitializedBuffer.__name__ == 'UninitializedBuffer'


def _adaptive(lib, **kw):
    """An AdaptiveLogSoftmaxWithLoss(8, 10, [2, 5]) with the same weights in both libraries."""
    m = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 5], div_value=2.0, **kw).double()
    rng = np.random.default_rng(5)
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
    return m


@pytest.mark.parametrize('target', [[0, 3, 7, 9, 1], [4, 4, 4, 4, 4], [0, 1, 0, 1, 0], 6])
def test_adaptive_log_softmax(target):
    x = RNG.standard_normal((5, 8)) if not isinstance(target, int) else RNG.standard_normal(8)

    def run(lib):
        m = _adaptive(lib, head_bias=True)
        inp = lib.tensor(x, requires_grad=True)
        out = m(inp, lib.tensor(target))
        out.loss.backward()
        return (out.output, out.loss, inp.grad, m.tail[0][1].weight.grad, m.head.bias.grad,
                type(out.output.grad_fn).__name__, type(out.loss.grad_fn).__name__,
                type(out).__name__, repr(m), [n for n, _ in m.named_parameters()])
    e, t = both(run)
    for a, b in zip(e[:5], t[:5]):
        same(a, b)
    assert e[5:] == t[5:]


def test_adaptive_log_softmax_log_prob_and_predict():
    x = RNG.standard_normal((6, 8)) * 3

    def run(lib):
        m = _adaptive(lib)
        inp = lib.tensor(x)
        return m.log_prob(inp), m.predict(inp), m.predict(inp[:1]), m.log_prob(inp).argmax(1)
    e, t = both(run)
    for a, b in zip(e, t):
        same(a, b)


@pytest.mark.parametrize('make', [
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 2]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 10]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 2.5]),
    lambda lib: _adaptive(lib)(lib.ones(3, 8, dtype=lib.float64), lib.tensor([1, 2])),
    lambda lib: _adaptive(lib)(lib.ones(3, 2, 8, dtype=lib.float64), lib.tensor([1, 2, 3])),
    lambda lib: _adaptive(lib)(lib.ones(2, 8, dtype=lib.float64), lib.tensor(1)),
    lambda lib: _adaptive(lib)(lib.ones(2, 8, dtype=lib.float64), lib.ones(2, 1).long()),
    lambda lib: _adaptive(lib)(lib.ones(2, 8, dtype=lib.float64), lib.tensor([1, 10])),
])
def test_adaptive_log_softmax_errors(make):
    same_error(make)
