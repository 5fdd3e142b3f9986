"""nn.init and nn.utils (clip_grad, convert_parameters) against torch 2.13.

Random initialisers can't match torch's stream, so they are checked statistically (bounds,
mean/std on big tensors, orthogonality); deterministic things (gains, eye_, constant_, the
std a fan computation implies, clipping, vectors, error types and messages) are compared
with torch directly.
"""
import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn.utils  # noqa: F401  (the lead wires nn.utils into ember.nn separately)
from ..oracle.oracle import torch

EI, TI = ember.nn.init, torch.nn.init
EU, TU = ember.nn.utils, torch.nn.utils


def both(fn):
    """fn(lib) for ember and torch; returns (result or exception) pairs."""
    out = []
    for lib in (ember, torch):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


def same_error(fn):
    e, t = both(fn)
    assert isinstance(t, Exception), "torch did not raise"
    assert type(e) is type(t) and str(e) == str(t), (e, t)


def lib_init(lib):
    return lib.nn.init


# -- calculate_gain ------------------------------------------------------------------------
NONLIN = ['linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d',
          'conv_transpose3d', 'sigmoid', 'tanh', 'relu', 'leaky_relu', 'selu']


@pytest.mark.parametrize('name', NONLIN)
def test_calculate_gain(name):
    assert EI.calculate_gain(name) == TI.calculate_gain(name)
    assert type(EI.calculate_gain(name)) is type(TI.calculate_gain(name))


@pytest.mark.parametrize('param', [None, 0.2, 1, 0, -0.5])
def test_calculate_gain_leaky_param(param):
    assert EI.calculate_gain('leaky_relu', param) == TI.calculate_gain('leaky_relu', param)


@pytest.mark.parametrize('args', [('foo',), ('leaky_relu', 'a'), ('leaky_relu', True),
                                  ('leaky_relu', [1])])
def test_calculate_gain_errors(args):
    same_error(lambda lib: lib.nn.init.calculate_gain(*args))


# -- deterministic fills -------------------------------------------------------------------
@pytest.mark.parametrize('shape', [(3, 3), (2, 5), (5, 2), (1, 1), (0, 3)], ids=str)
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'int64'])
def test_eye(shape, dtype):
    e = EI.eye_(ember.empty(*shape, dtype=getattr(ember, dtype)))
    t = TI.eye_(torch.empty(*shape, dtype=getattr(torch, dtype)))
    assert e.dtype.__repr__() == repr(t.dtype)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parametrize('shape', [(), (3,), (2, 2, 2)], ids=str)
def test_eye_errors(shape):
    same_error(lambda lib: lib.nn.init.eye_(lib.empty(shape)))


@pytest.mark.parametrize('name,args', [('constant_', (0.3,)), ('zeros_', ()), ('ones_', ()),
                                       ('eye_', ())])
def test_fills_on_parameter(name, args):
    """On a Parameter that requires grad: no error, no graph, same values, same object."""
    res = []
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.empty(3, 4))
        r = getattr(lib.nn.init, name)(p, *args)
        assert r is p and p.requires_grad and p.grad_fn is None
        res.append(p.detach().numpy())
    np.testing.assert_array_equal(*res)


@pytest.mark.parametrize('shape', [(), (5,), (2, 3, 4)], ids=str)
def test_constant_shapes(shape):
    e = EI.constant_(ember.empty(shape), -1.5)
    assert e.shape == shape and (e.numpy() == -1.5).all()


# -- random initialisers: distributions ------------------------------------------------------
def test_uniform_bounds():
    x = EI.uniform_(ember.empty(200, 100), -0.5, 2.0).numpy()
    assert x.min() >= -0.5 and x.max() < 2.0
    assert abs(x.mean() - 0.75) < 0.02


def test_normal_moments():
    x = EI.normal_(ember.empty(300, 300), 1.0, 0.5).numpy()
    assert abs(x.mean() - 1.0) < 0.01 and abs(x.std() - 0.5) < 0.01


SHAPES = [(256, 128), (64, 32, 3, 3), (128, 512), (64, 32, 5)]
KAIMING = [dict(), dict(mode='fan_out'), dict(nonlinearity='relu'),
           dict(a=0.2, mode='fan_out'), dict(nonlinearity='tanh'), dict(mode='FAN_IN')]


def _std_of(fn, lib, shape):
    return float(fn(lib)(lib.empty(*shape, dtype=lib.float64)).std())


@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('kw', KAIMING, ids=str)
@pytest.mark.parametrize('kind', ['uniform', 'normal'])
def test_kaiming_std_matches_torch(kind, kw, shape):
    """The fan and gain, seen through the sample std, agree with torch's."""
    fn = lambda lib: lambda t: getattr(lib.nn.init, f'kaiming_{kind}_')(t, **kw)  # noqa: E731
    mode = kw.get('mode', 'fan_in').lower()
    rf = int(np.prod(shape[2:]))
    fan = shape[1] * rf if mode == 'fan_in' else shape[0] * rf
    expected = TI.calculate_gain(kw.get('nonlinearity', 'leaky_relu'), kw.get('a', 0)) \
        / math.sqrt(fan)
    # Both against the formula (torch's side confirms the formula is torch's).
    for lib in (ember, torch):
        s = _std_of(fn, lib, shape)
        assert abs(s / expected - 1) < 0.04, (lib.__name__, s, expected)
    if kind == 'uniform':
        x = fn(ember)(ember.empty(*shape)).numpy()
        assert np.abs(x).max() <= math.sqrt(3.0) * expected + 1e-6


@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('gain', [1.0, 2.5])
@pytest.mark.parametrize('kind', ['uniform', 'normal'])
def test_xavier_std_matches_torch(kind, gain, shape):
    fn = lambda lib: lambda t: getattr(lib.nn.init, f'xavier_{kind}_')(t, gain)  # noqa: E731
    expected = gain * math.sqrt(2.0 / (shape[0] + shape[1]) / int(np.prod(shape[2:])))
    for lib in (ember, torch):
        s = _std_of(fn, lib, shape)
        assert abs(s / expected - 1) < 0.04, (lib.__name__, s, expected)


@pytest.mark.parametrize('name', ['kaiming_uniform_', 'kaiming_normal_', 'xavier_uniform_',
                                  'xavier_normal_'])
@pytest.mark.parametrize('shape', [(), (4,)], ids=str)
def test_fan_errors(name, shape):
    same_error(lambda lib: getattr(lib.nn.init, name)(lib.empty(shape)))


@pytest.mark.parametrize('name', ['kaiming_uniform_', 'kaiming_normal_'])
def test_kaiming_bad_mode(name):
    same_error(lambda lib: getattr(lib.nn.init, name)(lib.empty(3, 4), mode='fan_avg'))


@pytest.mark.parametrize('name', ['kaiming_uniform_', 'kaiming_normal_'])
def test_kaiming_zero_element_warns(name):
    for lib in (ember, torch):
        t = lib.empty(0, 3)
        with pytest.warns(UserWarning, match='Initializing zero-element tensors is a no-op'):
            assert getattr(lib.nn.init, name)(t) is t


@pytest.mark.parametrize('name', ['uniform_', 'normal_', 'trunc_normal_', 'kaiming_uniform_',
                                  'kaiming_normal_', 'xavier_uniform_', 'xavier_normal_',
                                  'orthogonal_'])
def test_random_on_parameter(name):
    p = ember.nn.Parameter(ember.zeros(6, 4))
    r = getattr(EI, name)(p)
    assert r is p and p.requires_grad and p.grad_fn is None and p.grad is None
    assert (p.detach().numpy() != 0).any()


def test_generator_reproducible():
    a = EI.kaiming_normal_(ember.empty(4, 5), generator=ember.Generator().manual_seed(3))
    b = EI.kaiming_normal_(ember.empty(4, 5), generator=ember.Generator().manual_seed(3))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# -- trunc_normal_ ---------------------------------------------------------------------------
@pytest.mark.parametrize('mean,std,a,b', [(0, 1, -2, 2), (0.5, 2.0, -1, 3), (0, 1, 1, 1.5),
                                          (0, 0.02, -0.04, 0.04), (0, 1, 0, 10)])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_trunc_normal(mean, std, a, b, dtype):
    """Bounds hold; mean and std agree with torch's (same distribution, both sampled)."""
    shape = (400, 250)
    e = EI.trunc_normal_(ember.empty(*shape, dtype=getattr(ember, dtype)), mean, std, a, b)
    t = TI.trunc_normal_(torch.empty(*shape, dtype=getattr(torch, dtype)), mean, std, a, b)
    x, y = e.numpy(), t.numpy()
    assert x.dtype == y.dtype
    assert x.min() >= np.asarray(a, x.dtype) and x.max() <= np.asarray(b, x.dtype)
    scale = min(std, b - a)
    assert abs(x.mean() - y.mean()) < 0.02 * scale
    assert abs(x.std() / y.std() - 1) < 0.02


def test_trunc_normal_far_mean_warns():
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match='mean is more than 2 std from'):
            x = lib.nn.init.trunc_normal_(lib.empty(1000), 5.0, 1.0, -1.0, 1.0)
        assert float(x.min()) >= -1 and float(x.max()) <= 1


def test_trunc_normal_zero_dim():
    x = EI.trunc_normal_(ember.empty(()), a=-0.1, b=0.1)
    assert x.shape == () and -0.1 <= float(x) <= 0.1


# -- orthogonal_ -----------------------------------------------------------------------------
@pytest.mark.parametrize('shape', [(5, 5), (3, 7), (7, 3), (4, 2, 3), (6, 2, 2), (1, 5),
                                   (5, 1)], ids=str)
@pytest.mark.parametrize('gain', [1, 0.5, 3.0])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_orthogonal(shape, gain, dtype):
    w = EI.orthogonal_(ember.empty(*shape, dtype=getattr(ember, dtype)), gain)
    assert w.shape == shape and str(w.dtype) == f'torch.{dtype}'
    m = w.numpy().reshape(shape[0], -1).astype(np.float64)
    rows, cols = m.shape
    # Semi-orthogonal: the shorter side's vectors are orthonormal, times gain.
    g = m @ m.T if rows <= cols else m.T @ m
    tol = 1e-5 if dtype == 'float32' else 1e-12
    np.testing.assert_allclose(g, gain ** 2 * np.eye(min(rows, cols)), atol=tol * gain ** 2 * 10)


@pytest.mark.parametrize('shape', [(), (4,)], ids=str)
def test_orthogonal_errors(shape):
    same_error(lambda lib: lib.nn.init.orthogonal_(lib.empty(shape)))


@pytest.mark.parametrize('shape', [(0, 3), (3, 0)], ids=str)
def test_orthogonal_empty_noop(shape):
    t = ember.empty(shape)
    assert EI.orthogonal_(t) is t


# -- clip_grad_norm_ / clip_grad_value_ ------------------------------------------------------
def _params(lib, grads, dtype=None):
    """Parameters with the given grads (None leaves .grad None)."""
    ps = []
    for g in grads:
        shape = (3,) if g is None else g.shape
        p = lib.nn.Parameter(lib.zeros(*shape, dtype=getattr(lib, dtype or 'float32')))
        if g is not None:
            p.grad = lib.tensor(g)
        ps.append(p)
    return ps


def _grads(seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((3, 4)).astype(dtype), None,
            rng.standard_normal(5).astype(dtype), rng.standard_normal((2, 2, 2)).astype(dtype)]


def _cmp_params(eps, tps, rtol):
    for e, t in zip(eps, tps):
        if t.grad is None:
            assert e.grad is None
        else:
            np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=rtol)
            assert repr(e.grad.dtype).split('.')[1] == repr(t.grad.dtype).split('.')[1]


@pytest.mark.parametrize('norm_type', [2.0, 1, 3, 0.5, float('inf'), 'inf'])
@pytest.mark.parametrize('max_norm', [0.1, 1.0, 1e3])
@pytest.mark.parametrize('dtype', [np.float32, np.float64], ids=lambda d: d.__name__)
def test_clip_grad_norm(norm_type, max_norm, dtype):
    gs = _grads(1, dtype)
    eps, tps = _params(ember, gs, dtype.__name__), _params(torch, gs, dtype.__name__)
    en = EU.clip_grad_norm_(eps, max_norm, norm_type)
    tn = TU.clip_grad_norm_(tps, max_norm, norm_type)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    assert en.shape == tn.shape == ()
    assert repr(en.dtype).split('.')[1] == repr(tn.dtype).split('.')[1]
    np.testing.assert_allclose(en.numpy(), tn.numpy(), rtol=rtol)
    assert not en.requires_grad
    _cmp_params(eps, tps, rtol)


def test_clip_grad_norm_single_tensor_and_generator():
    g = np.array([3.0, 4.0], np.float32)
    for single in (True, False):
        ep, tp = _params(ember, [g])[0], _params(torch, [g])[0]
        args_e = ep if single else (p for p in [ep])
        args_t = tp if single else (p for p in [tp])
        en, tn = EU.clip_grad_norm_(args_e, 1.0), TU.clip_grad_norm_(args_t, 1.0)
        assert float(en) == float(tn) == 5.0
        np.testing.assert_allclose(ep.grad.numpy(), tp.grad.numpy(), rtol=1e-6)


def test_clip_grad_norm_no_grads():
    for lib, U in ((ember, EU), (torch, TU)):
        assert float(U.clip_grad_norm_([], 1.0)) == 0.0
        p = lib.nn.Parameter(lib.ones(3))
        assert float(U.clip_grad_norm_([p], 1.0)) == 0.0 and p.grad is None
        with pytest.warns(UserWarning, match='empty generator'):
            U.clip_grad_norm_((q for q in []), 1.0)


@pytest.mark.parametrize('bad', [float('nan'), float('inf')])
@pytest.mark.parametrize('norm_type', [2.0, float('inf'), 1])
def test_clip_grad_norm_nonfinite(bad, norm_type):
    g = np.array([1.0, bad, 2.0], np.float32)
    same_error(lambda lib: lib.nn.utils.clip_grad_norm_(
        _params(lib, [g]), 1.0, norm_type, error_if_nonfinite=True) if lib is torch else
        EU.clip_grad_norm_(_params(lib, [g]), 1.0, norm_type, error_if_nonfinite=True))
    # Without the flag both scale by the non-finite norm the same way.
    eps, tps = _params(ember, [g]), _params(torch, [g])
    en, tn = EU.clip_grad_norm_(eps, 1.0, norm_type), TU.clip_grad_norm_(tps, 1.0, norm_type)
    np.testing.assert_array_equal(en.numpy(), tn.numpy())
    np.testing.assert_array_equal(eps[0].grad.numpy(), tps[0].grad.numpy())


@pytest.mark.parametrize('clip', [0.1, 0.5, 2, 100.0])
def test_clip_grad_value(clip):
    gs = _grads(2)
    eps, tps = _params(ember, gs), _params(torch, gs)
    assert EU.clip_grad_value_(eps, clip) is None
    TU.clip_grad_value_(tps, clip)
    _cmp_params(eps, tps, 0)
    ep, tp = _params(ember, gs[:1])[0], _params(torch, gs[:1])[0]
    EU.clip_grad_value_(ep, clip)
    TU.clip_grad_value_(tp, clip)
    _cmp_params([ep], [tp], 0)


# -- parameters_to_vector / vector_to_parameters ---------------------------------------------
def test_parameters_to_vector():
    rng = np.random.default_rng(4)
    vals = [rng.standard_normal(s).astype(np.float32) for s in [(3, 4), (5,), (2, 1, 2), ()]]
    ev = EU.parameters_to_vector([ember.nn.Parameter(ember.tensor(v)) for v in vals])
    tv = TU.parameters_to_vector([torch.nn.Parameter(torch.tensor(v)) for v in vals])
    np.testing.assert_array_equal(ev.detach().numpy(), tv.detach().numpy())
    assert ev.shape == tuple(tv.shape) and ev.requires_grad == tv.requires_grad
    assert type(ev.grad_fn).__name__ == type(tv.grad_fn).__name__


def test_parameters_to_vector_backward():
    ps = [ember.nn.Parameter(ember.ones(2, 2)), ember.nn.Parameter(ember.ones(3))]
    (EU.parameters_to_vector(ps) * ember.arange(7.0)).sum().backward()
    np.testing.assert_array_equal(ps[0].grad.numpy(), [[0, 1], [2, 3]])
    np.testing.assert_array_equal(ps[1].grad.numpy(), [4, 5, 6])


def test_vector_to_parameters():
    vec = np.arange(12, dtype=np.float32)
    out = []
    for lib, U in ((ember, EU), (torch, TU)):
        ps = [lib.nn.Parameter(lib.zeros(2, 3)), lib.nn.Parameter(lib.zeros(4)),
              lib.nn.Parameter(lib.zeros(1, 1))]
        v = lib.tensor(vec)
        assert U.vector_to_parameters(v, ps) is None
        assert all(isinstance(p, lib.nn.Parameter) and p.requires_grad for p in ps)
        out.append([p.detach().numpy().copy() for p in ps])
        # The params now view vec's memory, as in torch.
        v[0] = 100.0
        assert float(ps[0].detach()[0, 0]) == 100.0
    for e, t in zip(*out):
        np.testing.assert_array_equal(e, t)


@pytest.mark.parametrize('vec', [[1.0, 2.0], np.zeros(2), 3, None], ids=repr)
def test_vector_to_parameters_type_error(vec):
    same_error(lambda lib: (lib.nn.utils if lib is torch else EU).vector_to_parameters(
        vec, [lib.zeros(2)]))


def test_roundtrip():
    ps = [ember.nn.Parameter(ember.randn(3, 2)), ember.nn.Parameter(ember.randn(4))]
    before = [p.detach().numpy().copy() for p in ps]
    v = EU.parameters_to_vector(ps).detach() * 2
    EU.vector_to_parameters(v, ps)
    for b, p in zip(before, ps):
        np.testing.assert_allclose(p.detach().numpy(), 2 * b)


@pytest.mark.parametrize('shape', [(), (4,), (3, 5), (6, 2, 3), (4, 3, 2, 5), (2, 0, 3)],
                         ids=str)
def test_private_fan_helpers_libraries_call(shape):
    """Layers written outside torch call ``init._calculate_fan_in_and_fan_out`` and
    ``_calculate_correct_fan`` in their reset_parameters: same fans, same errors."""
    def same_outcome(fn):
        e, t = both(fn)
        if isinstance(t, Exception):
            assert type(e) is type(t) and str(e) == str(t), (e, t)
        else:
            assert e == t, (e, t)

    same_outcome(lambda lib: lib.nn.init._calculate_fan_in_and_fan_out(lib.empty(shape)))
    for mode in ('fan_in', 'FAN_OUT', 'fan_avg'):
        same_outcome(lambda lib: lib.nn.init._calculate_correct_fan(lib.empty(shape), mode))


@pytest.mark.parametrize('name, args', [('_no_grad_fill_', (2.5,)), ('_no_grad_zero_', ()),
                                        ('_no_grad_uniform_', (0.25, 0.5)),
                                        ('_no_grad_normal_', (3.0, 1e-9)),
                                        ('_no_grad_trunc_normal_', (0.0, 1.0, -0.1, 0.1))])
def test_private_no_grad_fills(name, args):
    """The ``_no_grad_*`` fills (imported by timm and older torchvision) fill a parameter in
    place without recording a graph, with the same positional arguments as torch's."""
    results = []
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.ones(50, 4))
        out = getattr(lib.nn.init, name)(p, *args)
        assert out is p and p.grad_fn is None and p.requires_grad
        results.append((p.detach().numpy().min(), p.detach().numpy().max()))
    (emin, emax), (tmin, tmax) = results
    if name == '_no_grad_uniform_':
        assert 0.25 <= emin <= emax < 0.5
    elif name == '_no_grad_trunc_normal_':
        assert -0.1 <= emin <= emax <= 0.1
    else:
        np.testing.assert_allclose((emin, emax), (tmin, tmax), atol=1e-6)
