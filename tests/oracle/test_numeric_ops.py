"""trapz, cumulative_trapezoid, gradient, histogram/histogramdd, index_reduce,
nonzero_static, poisson/binomial, batch_norm_update_stats and the GPU-only names a CPU build
refuses, compared with torch 2.13."""
import warnings

import numpy as np
import pytest

from .oracle import check, arr, torch
import ember


@pytest.mark.parametrize('y,x,kw', [
    (arr(3, 5), None, {}), (arr(3, 5), None, {'dx': 0.5}), (arr(3, 5), arr(5, seed=1), {}),
    (arr(4, 3), arr(4, 3, seed=1), {'dim': 0}), (arr(5, dtype=np.int64), None, {}),
    (arr(3, 1), None, {}),
])
def test_trapz_and_cumulative_trapezoid(y, x, kw):
    extra = (x,) if x is not None else ()
    for name in ('trapz', 'cumulative_trapezoid'):
        check(lambda T, a, *b: getattr(T, name)(a, *b, **kw), y, *extra, double=True)


def test_cumulative_trapezoid_errors():
    check(lambda T: T.cumulative_trapezoid(T.ones(3), T.ones(4)), match_message=True)
    check(lambda T: T.cumulative_trapezoid(T.ones(3, dtype=T.bool)), match_message=True)


@pytest.mark.parametrize('x,kw', [
    (arr(6), {}), (arr(4, 5), {}), (arr(4, 5), {'dim': 1}), (arr(4, 5), {'spacing': 2.0}),
    (arr(4, 5), {'spacing': [0.5, 3.0]}), (arr(4, 5), {'edge_order': 2}),
    (arr(4, 5), {'spacing': 0.5, 'dim': [1, 0], 'edge_order': 2}),
    (np.array([1, 4, 9, 16]), {}), (arr(3, 4, dtype=np.float32), {'dim': -1}),
])
def test_gradient(x, kw):
    check(lambda T, a: T.gradient(a, **kw), x, double=True)


@pytest.mark.parametrize('edge_order', [1, 2])
def test_gradient_with_coordinates(edge_order):
    coords = np.cumsum(arr(5, low=0.5, high=1.5, seed=3))
    check(lambda T, a, c: T.gradient(a, spacing=(c,), dim=0, edge_order=edge_order),
          arr(5, 3), coords, double=True)


@pytest.mark.parametrize('fn', [
    lambda T: T.gradient(T.ones(2), edge_order=2),
    lambda T: T.gradient(T.ones(3), edge_order=3),
    lambda T: T.gradient(T.ones(3, 3), spacing=[1.0, 2.0, 3.0]),
])
def test_gradient_errors(fn):
    check(fn, match_message=True)


@pytest.mark.parametrize('x,bins,kw', [
    (arr(20), 4, {}), (arr(20), 5, {'range': (-1.0, 1.0)}), (arr(4, 5), 3, {'density': True}),
    (arr(20), np.array([-1.0, 0.0, 0.5, 2.0]), {}), (arr(10), 3, {'weight': arr(10, seed=1)}),
    (np.array([1.0, 2.0, 2.0, 5.0]), 4, {}), (np.array([3.0, 3.0]), 2, {}),
    (arr(8, dtype=np.float32, low=0, high=1), 4, {}),
])
def test_histogram(x, bins, kw):
    def f(T, a, *b):
        kw2 = dict(kw)
        if 'weight' in kw2:
            kw2['weight'] = T.tensor(kw2['weight'])
        return T.histogram(a, b[0] if b else bins, **kw2), a.histogram(b[0] if b else bins,
                                                                        **kw2)
    check(f, x, *((bins,) if isinstance(bins, np.ndarray) else ()), grad=False)


@pytest.mark.parametrize('bins,kw', [(3, {}), ([2, 4], {}), ([2, 3], {'range': [-1., 1., 0., 2.]}),
                                     (3, {'density': True})])
def test_histogramdd(bins, kw):
    check(lambda T, a: T.histogramdd(a, bins, **kw), arr(30, 2), grad=False)


def test_histogram_errors():
    check(lambda T: T.histogram(T.tensor([1, 2]), 3), match_message=True)
    check(lambda T: T.histogram(T.ones(3), 0))


@pytest.mark.parametrize('reduce', ['prod', 'mean', 'amax', 'amin'])
@pytest.mark.parametrize('include_self', [True, False])
@pytest.mark.parametrize('dim', [0, 1])
def test_index_reduce(reduce, include_self, dim):
    index = np.array([0, 2, 0, 1])
    src = arr(4, 3, seed=1) if dim == 0 else arr(5, 4, seed=1)

    def f(T, a, s):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', UserWarning)  # (torch's "in beta")
            r = T.index_reduce(a, dim, T.tensor(index), s, reduce, include_self=include_self)
            b = a * 1
            b.index_reduce_(dim, T.tensor(index), s, reduce, include_self=include_self)
        return r, b
    check(f, arr(5, 3), src, double=reduce in ('mean', 'amax'))


def test_index_reduce_errors():
    def f(T, reduce, index):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', UserWarning)
            return T.index_reduce(T.ones(3, 2), 0, index(T), T.ones(2, 2), reduce)
    check(lambda T: f(T, 'sum', lambda T: T.tensor([0, 1])), match_message=True)
    check(lambda T: f(T, 'prod', lambda T: T.tensor([0, 1, 2])), match_message=True)
    with pytest.warns(UserWarning, match='index_reduce'):
        ember.index_reduce(ember.ones(2), 0, ember.tensor([0]), ember.ones(1), 'prod')


@pytest.mark.parametrize('x,size,fill', [
    (np.array([[0, 1], [1, 1]]), 5, -1), (np.array([0, 1, 1]), 1, 7), (arr(3, 4), 0, -1),
    (np.array([0.0, 0.0]), 2, 3), (np.array(5), 2, -1),
])
def test_nonzero_static(x, size, fill):
    check(lambda T, a: T.nonzero_static(a, size=size, fill_value=fill), x, grad=False)
    check(lambda T, a: a.nonzero_static(size=size, fill_value=fill), x, grad=False)


def test_poisson_and_binomial():
    # Draws differ from torch's; what both share is compared: dtype, shape, graph, errors,
    # and the sample means against the distribution's.
    ember.manual_seed(0)
    rates = ember.full((20000,), 3.5, dtype=ember.float64)
    p = ember.poisson(rates)
    assert p.dtype == ember.float64 and abs(p.mean().item() - 3.5) < 0.1
    counts = ember.full((20000,), 10.0)
    b = ember.binomial(counts, ember.full((20000,), 0.3))
    assert b.dtype == ember.float32 and abs(b.mean().item() - 3.0) < 0.1
    assert float(b.max()) <= 10 and float(b.min()) >= 0
    check(lambda T, r: (T.poisson(r) * 0, T.poisson(r).grad_fn is not None), arr(3, low=1, high=4))
    check(lambda T, c: T.binomial(c, T.full((3,), 0.5, dtype=T.float64)) * 0,
          arr(3, low=1, high=4), grad=False)


@pytest.mark.parametrize('fn', [
    lambda T: T.poisson(T.tensor([1, 2])), lambda T: T.poisson(T.tensor([-1.0])),
    lambda T: T.binomial(T.tensor([1, 2]), T.tensor([0.5, 0.5])),
    lambda T: T.binomial(T.tensor([1.0]), T.tensor([0.5], dtype=T.float64)),
    lambda T: T.binomial(T.tensor([2.0], requires_grad=True), T.tensor([0.5])).sum().backward(),
])
def test_random_errors(fn):
    check(fn, match_message=True)


def test_batch_norm_update_stats():
    def f(T, x):
        rm, rv = T.zeros(3, dtype=x.dtype), T.ones(3, dtype=x.dtype)
        m, v = T.batch_norm_update_stats(x, rm, rv, 0.1)
        return m.detach(), v.detach(), m.requires_grad, rm, rv, T.batch_norm_update_stats(
            x.detach(), None, None, 0.2)
    check(f, arr(2, 3, 4), grad=False)


GPU_ONLY = ['batch_norm_stats', 'batch_norm_elemt', 'batch_norm_gather_stats',
            'batch_norm_gather_stats_with_counts', 'batch_norm_backward_reduce',
            'batch_norm_backward_elemt', 'miopen_batch_norm', 'miopen_convolution',
            'miopen_convolution_add_relu', 'miopen_convolution_relu',
            'miopen_convolution_transpose', 'miopen_depthwise_convolution', 'native_norm']
_ARGS = {
    'batch_norm_stats': lambda T, x, c: (x, 1e-5),
    'batch_norm_elemt': lambda T, x, c: (x, c, c, c, c, 1e-5),
    'batch_norm_gather_stats': lambda T, x, c: (x, c[None], c[None], None, None, 0.1, 1e-5, 4),
    'batch_norm_gather_stats_with_counts': lambda T, x, c: (x, c[None], c[None], None, None,
                                                            0.1, 1e-5, T.ones(1)),
    'batch_norm_backward_reduce': lambda T, x, c: (x, x, c, c, c, True, True, True),
    'batch_norm_backward_elemt': lambda T, x, c: (x, x, c, c, c, c, c,
                                                  T.ones(2, dtype=T.int32)),
    'miopen_batch_norm': lambda T, x, c: (x, c, c, c, c, True, 0.1, 1e-5),
    'miopen_convolution': lambda T, x, c: (x, T.ones(4, 3, 3), None, [0], [1], [1], 1, False,
                                           False),
    'miopen_convolution_add_relu': lambda T, x, c: (x, T.ones(4, 3, 3), x, None, None, [1], [0],
                                                    [1], 1),
    'miopen_convolution_relu': lambda T, x, c: (x, T.ones(4, 3, 3), None, [1], [0], [1], 1),
    'miopen_convolution_transpose': lambda T, x, c: (x, T.ones(4, 3, 3), None, [0], [0], [1],
                                                     [1], 1, False, False),
    'miopen_depthwise_convolution': lambda T, x, c: (x, T.ones(4, 3, 3), None, [0], [1], [1], 1,
                                                     False, False),
    'native_norm': lambda T, x, c: (x,),
}


@pytest.mark.parametrize('name', GPU_ONLY)
def test_gpu_only_ops_are_refused_as_on_a_cpu_build(name):
    # (the first line of torch's message, the backends it lists included)
    check(lambda T: getattr(T, name)(*_ARGS[name](T, T.ones(2, 3, 4), T.ones(3))), grad=False,
          match_message=True)


def test_miopen_rnn_is_refused():
    # (a well-formed call: torch's argument parser refuses a short one first, as ember does)
    with pytest.raises(NotImplementedError, match="aten::miopen_rnn"):
        ember.miopen_rnn(ember.ones(2, 3, 4), [ember.ones(4, 4)], 1, ember.ones(1, 3, 4), None,
                         1, 4, 1, False, 0.0, False, False, [], None)


# -- stft / istft ------------------------------------------------------------------------------
SIGNAL = arr(20)
STFT = [dict(n_fft=8, hop_length=2, return_complex=True),
        dict(n_fft=8, return_complex=True, center=False),
        dict(n_fft=6, hop_length=3, win_length=4, return_complex=True, normalized=True,
             onesided=False),
        dict(n_fft=8, hop_length=4, return_complex=True, pad_mode='constant'),
        dict(n_fft=8, hop_length=2, return_complex=False)]


@pytest.mark.parametrize('kw', STFT)
@pytest.mark.parametrize('batched', [False, True])
def test_stft(kw, batched):
    x = arr(2, 20) if batched else SIGNAL
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)  # (no window: both warn)
        check(lambda T, a: T.stft(a, **kw), x, double=True)
        check(lambda T, a: a.stft(**kw), x)


@pytest.mark.parametrize('hop,center,length', [(2, True, None), (4, True, 18), (2, False, None),
                                                (2, True, 25)])
def test_istft_inverts_stft(hop, center, length):
    def f(T, a, w):
        s = T.stft(a, 8, hop, window=w, center=center, return_complex=True)
        return T.istft(s, 8, hop, window=w, center=center, length=length)
    # (a raised Hann window: nonzero at the ends, so the uncentred overlap-add is invertible)
    check(f, SIGNAL, np.hanning(8) + 0.1, double=True)


def test_istft_refuses_a_vanishing_window_envelope():
    def f(T, z, w):
        return T.istft(z, 8, 2, window=w, center=False)
    check(f, arr(5, 7, dtype=np.complex128), np.hanning(8), grad=False)


def test_istft_of_given_spectra():
    def f(T, z, w):
        return T.istft(z, 6, 2, window=w), z.istft(6, 2, window=w, normalized=True)
    check(f, arr(4, 7, dtype=np.complex128), np.hanning(6) + 0.1, double=True)


@pytest.mark.parametrize('fn', [
    lambda T: T.stft(T.ones(16), 8),
    lambda T: T.stft(T.ones(16), 8, window=T.ones(5), return_complex=True),
    lambda T: T.stft(T.ones(4), 8, center=False, return_complex=True),
    lambda T: T.istft(T.ones(5, 3), 8),
])
def test_stft_errors(fn):
    check(fn)


def test_tensor_methods_over_functional():
    check(lambda T, a: (a.hardshrink(0.3), a.prelu(T.tensor([0.1], dtype=T.float64))), arr(5),
          double=True)
    check(lambda T, a, b: a.detach().clone().module_load(b), arr(3), arr(3, seed=1))
    check(lambda T, a, b: a.module_load(b, assign=True), arr(3), arr(3, seed=1))


def test_chalf_converts():
    # complex32 (torch's experimental ComplexHalf; see tests/fuzz/test_found_issue15_s11_c32.py)
    check(lambda T, a: a.chalf(), arr(3), grad=False)


# -- fake quantization -------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('scale,zp,qmin,qmax', [(0.5, 3, 0, 15), (0.1, 0, -128, 127),
                                                (0.25, -2, -8, 7)])
def test_fake_quantize_per_tensor(dtype, scale, zp, qmin, qmax):
    x = arr(4, 6, dtype=dtype, seed=2) * 3
    check(lambda T, a: T.fake_quantize_per_tensor_affine(a, scale, zp, qmin, qmax), x,
          double=True)
    check(lambda T, a: T.fake_quantize_per_tensor_affine(
        a, T.tensor(scale), T.tensor(zp, dtype=T.int32), qmin, qmax), x)


@pytest.mark.parametrize('axis', [0, 1, -1])
def test_fake_quantize_per_channel(axis):
    x = arr(3, 4, dtype=np.float32, seed=4) * 2
    n = x.shape[axis]

    def f(T, a):
        scale = T.linspace(0.1, 0.4, n)
        zp = T.arange(n, dtype=T.int32) - 1
        return T.fake_quantize_per_channel_affine(a, scale, zp, axis, -8, 7)
    check(f, x, double=True, match_message=True)


@pytest.mark.parametrize('fn', [
    lambda T: T.fake_quantize_per_tensor_affine(T.ones(3), 0.5, 3, 10, 5),
    lambda T: T.fake_quantize_per_tensor_affine(T.ones(3), 0.5, 30, 0, 15),
    lambda T: T.fake_quantize_per_channel_affine(T.ones(2, 3), T.ones(3), T.zeros(3, dtype=T.int64),
                                                 1, -8, 7),
])
def test_fake_quantize_errors(fn):
    check(fn, match_message=True)
