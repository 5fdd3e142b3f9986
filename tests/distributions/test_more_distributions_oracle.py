"""The families added after the first set (VonMises, InverseGamma, Kumaraswamy,
FisherSnedecor, LogisticNormal, ...) against torch.distributions: log_prob, cdf/icdf,
entropy, moments with gradients in the parameters (float64 and float32), shapes, expand,
support, repr, argument validation, and sample moments over many seeded draws."""
import numpy as np
import pytest

from .helpers import arr, check, ember, simplex, torch
from .test_families_oracle import METHODS, _call
from .test_kl_oracle import MAKERS
from .test_validation_oracle import torch_or


def pos(*shape, seed=0, low=0.5, high=3.0):
    return arr(*shape, low=low, high=high, seed=seed)


U = dict(low=0.05, high=0.95)


def corr_cholesky(n, batch=(), seed=0):
    """Cholesky factors of random n x n correlation matrices."""
    a = arr(*batch, n, n + 1, seed=seed)
    cov = a @ np.swapaxes(a, -1, -2) + 0.1 * np.eye(n)
    d = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
    return np.linalg.cholesky(cov / d[..., :, None] / d[..., None, :])

# name -> (make(D, *params), params, value array for log_prob/cdf)
FAMILIES = {
    'VonMises': (lambda D, m, k: D.VonMises(m, k), [arr(3), np.array([0.3, 2.0, 6.0])],
                 arr(4, 3, seed=2)),
    'VonMises_scalar': (lambda D: D.VonMises(0.5, 1.5), [], arr(4, seed=2)),
    'InverseGamma': (lambda D, c, r: D.InverseGamma(c, r), [np.array([0.7, 1.5, 3.0]),
                                                             pos(3, seed=1)],
                     pos(4, 3, seed=2)),
    'InverseGamma_scalar': (lambda D: D.InverseGamma(3.0, 2.0), [], pos(4, seed=2)),
    'Kumaraswamy': (lambda D, a, b: D.Kumaraswamy(a, b), [np.array([0.7, 1.0, 3.0]),
                                                          np.array([2.0, 1.0, 0.5])],
                    arr(4, 3, seed=2, **U)),
    'Kumaraswamy_scalar': (lambda D: D.Kumaraswamy(2.0, 3.0), [], arr(4, seed=2, **U)),
    'FisherSnedecor': (lambda D, a, b: D.FisherSnedecor(a, b),
                       [np.array([1.0, 3.0, 6.0]), np.array([1.5, 3.0, 9.0])],
                       pos(4, 3, seed=2)),
    'FisherSnedecor_scalar': (lambda D: D.FisherSnedecor(3.0, 5.0), [], pos(4, seed=2)),
    'LogisticNormal': (lambda D, m, s: D.LogisticNormal(m, s), [arr(2, 3), pos(2, 3, seed=1)],
                       simplex(4, 2, 4, seed=2)),
    'LogisticNormal_scalar': (lambda D: D.LogisticNormal(0.5, 2.0), [],
                              simplex(4, 2, seed=2)),
    # probabilities on both sides of, and inside, the Taylor band around 0.5
    'ContinuousBernoulli_probs': (lambda D, p: D.ContinuousBernoulli(probs=p),
                                  [np.array([0.1, 0.4995, 0.5004, 0.8])],
                                  arr(3, 4, seed=2, **U)),
    'ContinuousBernoulli_logits': (lambda D, lg: D.ContinuousBernoulli(logits=lg),
                                   [np.array([-2.0, 0.001, 0.5, 3.0])], arr(3, 4, seed=2, **U)),
    'ContinuousBernoulli_lims': (lambda D, p: D.ContinuousBernoulli(p, lims=(0.3, 0.7)),
                                 [np.array([0.2, 0.45, 0.6, 0.9])], arr(3, 4, seed=2, **U)),
    'ContinuousBernoulli_scalar': (lambda D: D.ContinuousBernoulli(0.3), [],
                                   arr(4, seed=2, **U)),
    # concentration 0 (the exponential case), -1 (flat), negative (bounded) and positive;
    # float64 parameters make torch's log_prob/cdf raise (it compares with a float32 zero)
    'GeneralizedPareto': (lambda D, m, s, c: D.GeneralizedPareto(m, s, c),
                          [arr(4, low=-0.2, high=0.0), pos(4, seed=1),
                           np.array([0.0, -1.0, -0.2, 0.4])], pos(3, 4, seed=2, low=0.1,
                                                                    high=0.9)),
    'GeneralizedPareto_scalar': (lambda D: D.GeneralizedPareto(0.5, 2.0, 0.3), [],
                                 pos(4, seed=2)),
    'LKJCholesky': (lambda D, c: D.LKJCholesky(3, c), [np.array([0.5, 1.0, 4.0])],
                    corr_cholesky(3, (2, 3), seed=2)),
    'LKJCholesky_scalar': (lambda D: D.LKJCholesky(4), [], corr_cholesky(4, (2,), seed=2)),
}
NO_RSAMPLE = ('VonMises', 'LKJCholesky')


def spd(n, batch=(), seed=0):
    a = arr(*batch, n, n, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


FAMILIES.update({
    'Wishart_cov': (lambda D, df, c: D.Wishart(df, covariance_matrix=c),
                    [np.array([4.0, 6.5]), spd(3, (2,))], spd(3, (4, 2), seed=2)),
    'Wishart_prec': (lambda D, df, c: D.Wishart(df, precision_matrix=c),
                     [np.array([3.0]), spd(3, (2,))], spd(3, (4, 2), seed=2)),
    'Wishart_tril': (lambda D, df, c: D.Wishart(df, scale_tril=c),
                     [np.array([5.0, 2.5]), np.linalg.cholesky(spd(3, (2,)))],
                     spd(3, (4, 2), seed=2)),
})


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('method', METHODS)
@pytest.mark.parametrize('name', FAMILIES)
def test_method(name, method, dtype):
    make, params, value = FAMILIES[name]
    if not params and dtype == np.float32:
        pytest.skip("Python-number parameters take the default dtype: one dtype suffices")
    params = [p.astype(dtype) for p in params]
    value = value.astype(dtype)
    # Python-number parameters are float32 tensors: their part is rounded as float32
    tol = 1e-4 if dtype == np.float32 else None if params else 1e-6
    check(lambda lib, v, *ps: _call(make(lib.distributions, *ps), method, v, lib),
          value, *params, message=False, rtol=tol, atol=tol)


@pytest.mark.parametrize('name', FAMILIES)
def test_shapes_and_sample_shapes(name):
    make, params, _ = FAMILIES[name]

    def fn(lib, *ps):
        d = make(lib.distributions, *ps)
        return (d.batch_shape, d.event_shape, d.sample().shape, d.sample((5, 2)).shape,
                d.has_rsample, d.has_enumerate_support, str(d.sample().dtype),
                str(d.sample((2,)).requires_grad))
    check(fn, *params, grad=False)
    check(lambda lib, *ps: str(make(lib.distributions, *ps).sample().dtype),
          *[p.astype(np.float32) for p in params], grad=False)


@pytest.mark.parametrize('name', [n for n in FAMILIES if not n.startswith(NO_RSAMPLE)])
def test_rsample_is_differentiable(name):
    make, params, _ = FAMILIES[name]

    def fn(lib, *ps):
        x = make(lib.distributions, *ps).rsample((3,))
        return x.shape, x.requires_grad
    check(fn, *params, grad=True)


@pytest.mark.parametrize('name', FAMILIES)
def test_expand(name):
    make, params, value = FAMILIES[name]

    def fn(lib, v, *ps):
        d = make(lib.distributions, *ps)
        e = d.expand((2,) + tuple(d.batch_shape))
        return e.batch_shape, e.event_shape, e.log_prob(v), e.sample((3,)).shape, \
            type(e).__name__, e.mean
    check(fn, value, *params, message=False)


@pytest.mark.parametrize('name', FAMILIES)
def test_support_check(name):
    make, params, value = FAMILIES[name]

    def fn(lib, v, *ps):
        d = make(lib.distributions, *ps)
        return (d.support.check(v), d.support.check(v * 0 - 7.5), d.support.event_dim,
                d.support.is_discrete, repr(d.support))
    check(fn, value, *params, grad=False)


@pytest.mark.parametrize('name', FAMILIES)
def test_repr(name):
    make, params, _ = FAMILIES[name]
    check(lambda lib, *ps: repr(make(lib.distributions, *ps)), *params, grad=False)


@pytest.mark.parametrize('name', FAMILIES)
def test_arg_constraints(name):
    make, params, _ = FAMILIES[name]
    check(lambda lib, *ps: sorted((k, repr(v)) for k, v in
                                  make(lib.distributions, *ps).arg_constraints.items()),
          *params, grad=False)


BAD_PARAMS = {
    'VonMises': lambda D: D.VonMises(0.0, torch_or(D).tensor([1.0, -1.0])),
    'VonMises_loc_nan': lambda D: D.VonMises(torch_or(D).tensor(float('nan')), 1.0),
    'InverseGamma_concentration': lambda D: D.InverseGamma(torch_or(D).tensor([-1.0]), 1.0),
    'InverseGamma_rate': lambda D: D.InverseGamma(1.0, torch_or(D).tensor([0.0])),
    'Kumaraswamy': lambda D: D.Kumaraswamy(torch_or(D).tensor([1.0, -1.0]), 2.0),
    'Kumaraswamy_scalar': lambda D: D.Kumaraswamy(1.0, -2.0),
    'FisherSnedecor': lambda D: D.FisherSnedecor(torch_or(D).tensor([0.0]), 1.0),
    'FisherSnedecor_df2': lambda D: D.FisherSnedecor(1.0, torch_or(D).tensor([-3.0])),
    'LogisticNormal': lambda D: D.LogisticNormal(torch_or(D).zeros(2),
                                                 torch_or(D).tensor([1.0, -1.0])),
    'ContinuousBernoulli_clamped': lambda D: D.ContinuousBernoulli(
        torch_or(D).tensor([0.5, 1.5])),
    'ContinuousBernoulli_explicit': lambda D: D.ContinuousBernoulli(
        torch_or(D).tensor([0.5, 1.5]), validate_args=True),
    'ContinuousBernoulli_both': lambda D: D.ContinuousBernoulli(0.5, 0.0),
    'ContinuousBernoulli_none': lambda D: D.ContinuousBernoulli(),
    'GeneralizedPareto': lambda D: D.GeneralizedPareto(0.0, torch_or(D).tensor([-1.0]), 0.5),
    'GeneralizedPareto_nan': lambda D: D.GeneralizedPareto(0.0, 1.0,
                                                           torch_or(D).tensor([float('nan')])),
    'LKJCholesky': lambda D: D.LKJCholesky(3, torch_or(D).tensor([1.0, 0.0])),
    'LKJCholesky_dim': lambda D: D.LKJCholesky(1, 1.0),
    'Wishart_df': lambda D: D.Wishart(torch_or(D).tensor([1.5]), torch_or(D).eye(3)),
    'Wishart_none': lambda D: D.Wishart(torch_or(D).tensor(4.0)),
    'Wishart_two': lambda D: D.Wishart(4.0, torch_or(D).eye(2), scale_tril=torch_or(D).eye(2)),
    'Wishart_1d': lambda D: D.Wishart(4.0, torch_or(D).ones(2)),
    'Wishart_not_pd': lambda D: D.Wishart(4.0, torch_or(D).tensor([[1.0, 2.0], [2.0, 1.0]])),
    'bad_type': lambda D: D.VonMises('a', 1.0),
}


@pytest.mark.parametrize('name', BAD_PARAMS)
def test_invalid_parameters(name):
    check(lambda lib: repr(BAD_PARAMS[name](lib.distributions)), grad=False)


@pytest.mark.parametrize('name', BAD_PARAMS)
def test_invalid_parameters_unvalidated(name):
    if name in ('bad_type', 'ContinuousBernoulli_both', 'ContinuousBernoulli_none',
                'LKJCholesky_dim', 'Wishart_df', 'Wishart_none', 'Wishart_two', 'Wishart_1d',
                'Wishart_not_pd'):
        pytest.skip("refused before validation, whatever validate_args says")
    check(lambda lib: repr(_unvalidated(lib, BAD_PARAMS[name])), grad=False)


def _unvalidated(lib, make):
    """``make(lib.distributions)`` with validation off by default."""
    dist = lib.distributions.Distribution
    dist.set_default_validate_args(False)
    try:
        return make(lib.distributions)
    finally:
        dist.set_default_validate_args(True)


BAD_VALUES = {
    'VonMises': (FAMILIES['VonMises'], lambda T: T.tensor([float('inf'), 0.0, 1.0])),
    'InverseGamma': (FAMILIES['InverseGamma'], lambda T: T.tensor([1.0, -1.0, 1.0])),
    'Kumaraswamy': (FAMILIES['Kumaraswamy'], lambda T: T.tensor([0.5, 1.5, 0.5])),
    'FisherSnedecor': (FAMILIES['FisherSnedecor'], lambda T: T.tensor([0.0, 1.0, 1.0])),
    'LogisticNormal': (FAMILIES['LogisticNormal'], lambda T: T.tensor([0.5, 0.5, 0.5, 0.5])),
    'ContinuousBernoulli': (FAMILIES['ContinuousBernoulli_probs'],
                            lambda T: T.tensor([0.5, 0.5, 1.5, 0.5])),
    'GeneralizedPareto': (FAMILIES['GeneralizedPareto'],
                          lambda T: T.tensor([0.5, 0.5, 9.0, 0.5])),
    'LKJCholesky': (FAMILIES['LKJCholesky'], lambda T: T.eye(3) * 2),
    'LKJCholesky_upper': (FAMILIES['LKJCholesky'], lambda T: T.eye(3).flip(0)),
    'Wishart': (FAMILIES['Wishart_cov'], lambda T: -T.eye(3)),
    'shape': (FAMILIES['VonMises'], lambda T: T.zeros(2, 2)),
}


@pytest.mark.parametrize('name', BAD_VALUES)
def test_out_of_support(name):
    (make, params, _), value = BAD_VALUES[name]
    check(lambda lib, *ps: make(lib.distributions, *ps).log_prob(value(lib)), *params,
          grad=False)


MOMENTS = {
    'VonMises': lambda D, T: D.VonMises(T.tensor([0.5, -2.0, 3.0]), T.tensor([0.2, 2.0, 30.0])),
    'InverseGamma': lambda D, T: D.InverseGamma(T.tensor([5.0, 9.0]), T.tensor([1.0, 3.0])),
    'Kumaraswamy': lambda D, T: D.Kumaraswamy(T.tensor([0.5, 3.0]), T.tensor([2.0, 0.7])),
    'FisherSnedecor': lambda D, T: D.FisherSnedecor(T.tensor([4.0, 10.0]),
                                                    T.tensor([12.0, 20.0])),
    'LogisticNormal': lambda D, T: D.LogisticNormal(T.tensor([0.5, -1.0]),
                                                    T.tensor([0.3, 0.8])),
    'ContinuousBernoulli': lambda D, T: D.ContinuousBernoulli(T.tensor([0.1, 0.5, 0.93])),
    'GeneralizedPareto': lambda D, T: D.GeneralizedPareto(
        T.tensor([0.0, 1.0, -1.0]), T.tensor([1.0, 2.0, 0.5]), T.tensor([0.0, -0.4, 0.2])),
    'Wishart': lambda D, T: D.Wishart(T.tensor([3.0, 7.5]),
                                      T.tensor([[[2.0, 0.5], [0.5, 1.0]], [[1.0, 0.0],
                                                                           [0.0, 0.3]]])),
}
N = 20000


def _circular(x, loc):
    """Angles as offsets from loc wrapped into [-pi, pi)."""
    return (x - loc + np.pi) % (2 * np.pi) - np.pi


@pytest.mark.parametrize('name', MOMENTS)
def test_sample_moments(name):
    e = MOMENTS[name](ember.distributions, ember)
    t = MOMENTS[name](torch.distributions, torch)
    ember.manual_seed(0)
    x = e.sample((N,))
    assert tuple(x.shape) == (N,) + tuple(t.batch_shape + t.event_shape)
    assert bool(t.support.check(torch.tensor(x._data)).all())
    data = x._data.astype(np.float64)
    if name == 'VonMises':  # circular: E[cos(x - loc)] = 1 - circular variance
        assert np.all(np.abs(data) <= np.pi)
        np.testing.assert_allclose(np.cos(data - t.loc.numpy()).mean(0),
                                   1 - t.variance.numpy(), atol=0.02)
        np.testing.assert_allclose(_circular(data, t.loc.numpy()).mean(0), 0, atol=0.05)
        return
    if name == 'LogisticNormal':  # no closed-form moments: the Normal behind the draws
        y = torch.distributions.transforms.StickBreakingTransform().inv(
            torch.tensor(data)).numpy()
        np.testing.assert_allclose(y.mean(0), t.loc.numpy(), atol=0.03)
        np.testing.assert_allclose(y.std(0), t.scale.numpy(), rtol=0.05)
        return
    mean, var = t.mean.numpy(), t.variance.numpy()
    np.testing.assert_allclose(data.mean(0), mean, atol=6 * np.sqrt(var / N).max() + 1e-12)
    np.testing.assert_allclose(data.var(0), var, rtol=0.15, atol=1e-3)


@pytest.mark.parametrize('name', MOMENTS)
def test_manual_seed_repeats_samples(name):
    d = MOMENTS[name](ember.distributions, ember)
    ember.manual_seed(123)
    a = d.sample((3,))
    ember.manual_seed(123)
    b = d.sample((3,))
    np.testing.assert_array_equal(a._data, b._data)


@pytest.mark.parametrize('module', ['von_mises', 'inverse_gamma', 'kumaraswamy',
                                    'fishersnedecor', 'logistic_normal',
                                    'continuous_bernoulli', 'generalized_pareto',
                                    'lkj_cholesky', 'wishart'])
def test_module_names(module):
    import importlib
    e = importlib.import_module(f'ember.distributions.{module}')
    t = importlib.import_module(f'torch.distributions.{module}')
    assert e.__all__ == t.__all__
    for name in t.__all__:
        assert getattr(e, name) is getattr(ember.distributions, name)


KL_MAKERS = dict(MAKERS, **{
    'ContinuousBernoulli': (lambda D, p: D.ContinuousBernoulli(probs=p),
                            lambda s: [np.array([0.1, 0.4995, 0.8])]),
    'ContinuousBernoulliLogits': (lambda D, lg: D.ContinuousBernoulli(logits=lg),
                                  lambda s: [arr(3, seed=s)]),
    'UniformCovering': (lambda D, a, b: D.Uniform(a, b),
                        lambda s: [np.array([-1.0, 0.2, -0.5]), np.array([2.0, 3.0, 0.7])]),
})
KL_PAIRS = [
    ('ContinuousBernoulli', 'ContinuousBernoulliLogits'),
    ('ContinuousBernoulliLogits', 'ContinuousBernoulli'),
    ('Beta', 'ContinuousBernoulli'), ('Uniform', 'ContinuousBernoulli'),
    ('UniformWide', 'ContinuousBernoulli'), ('ContinuousBernoulli', 'Pareto'),
    ('ContinuousBernoulli', 'Exponential'), ('ContinuousBernoulli', 'Normal'),
    ('ContinuousBernoulli', 'Uniform'), ('ContinuousBernoulli', 'UniformCovering'),
    ('Exponential', 'ContinuousBernoulli'), ('Gamma', 'ContinuousBernoulli'),
    ('Gumbel', 'ContinuousBernoulli'), ('Laplace', 'ContinuousBernoulli'),
    ('Normal', 'ContinuousBernoulli'), ('Pareto', 'ContinuousBernoulli'),
]


@pytest.mark.parametrize('p,q', KL_PAIRS)
def test_kl_pair(p, q):
    mp, pp = KL_MAKERS[p]
    mq, pq = KL_MAKERS[q]
    ps, qs = pp(0), pq(10)

    def fn(lib, *params):
        D = lib.distributions
        return D.kl_divergence(mp(D, *params[:len(ps)]), mq(D, *params[len(ps):]))
    check(fn, *ps, *qs, message=False)


@pytest.mark.parametrize('p,q', [('VonMises', 'VonMises'), ('InverseGamma', 'InverseGamma'),
                                 ('Kumaraswamy', 'Kumaraswamy'),
                                 ('FisherSnedecor', 'FisherSnedecor')])
def test_kl_not_registered(p, q):
    make, params, _ = FAMILIES[p]
    check(lambda lib, *ps: lib.distributions.kl_divergence(make(lib.distributions, *ps),
                                                           make(lib.distributions, *ps)),
          *params, grad=False)


@pytest.mark.parametrize('dim,eta', [(2, 1.0), (3, 0.5), (5, 3.0)])
def test_lkj_sample_correlations(dim, eta):
    # The correlations r = (L L^T)_ij of the draws, against torch's sampler (the same onion
    # construction). LKJ theory gives E r = 0 and Var r = 1 / (2 eta + dim - 1) for every
    # pair; torch's draws match that for the pair (1, 0) only (the others come out wider),
    # so the variances are compared with torch's own draws.
    rows, cols = np.tril_indices(dim, -1)

    def correlations(lib):
        lib.manual_seed(0)
        L = lib.distributions.LKJCholesky(dim, eta).sample((N // 2,))
        L = np.asarray(L._data if lib is ember else L.numpy(), np.float64)
        return (L @ np.swapaxes(L, -1, -2))[:, rows, cols]
    r, t = correlations(ember), correlations(torch)
    np.testing.assert_allclose(r.mean(0), 0, atol=0.03)
    np.testing.assert_allclose(r.var(0), t.var(0), rtol=0.08)
    np.testing.assert_allclose(r.var(0)[0], 1 / (2 * eta + dim - 1), rtol=0.08)


@pytest.mark.parametrize('case', ['short', 'not_triangular', 'matrix_too_few', 'not_square',
                                  'vec_to_tril_bad', 'tril_to_vec_bad_diag'])
def test_corr_cholesky_shape_errors(case):
    def fn(lib):
        t = lib.distributions.transforms.CorrCholeskyTransform()
        U = lib.distributions.utils
        return {'short': lambda: t.forward_shape(()),
                'not_triangular': lambda: t.forward_shape((2, 4)),
                'matrix_too_few': lambda: t.inverse_shape((3,)),
                'not_square': lambda: t.inverse_shape((2, 3)),
                'vec_to_tril_bad': lambda: U.vec_to_tril_matrix(lib.ones(4)),
                'tril_to_vec_bad_diag': lambda: U.tril_matrix_to_vec(lib.ones(3, 3), 3),
                }[case]()
    check(fn, grad=False)


@pytest.mark.parametrize('diag', [-2, -1, 0, 1])
def test_tril_vec_round_trip(diag):
    def fn(lib, m):
        U = lib.distributions.utils
        v = U.tril_matrix_to_vec(m, diag)
        return v, U.vec_to_tril_matrix(v, diag)
    check(fn, arr(2, 4, 4))
