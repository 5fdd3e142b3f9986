"""Every family against torch.distributions: log_prob, cdf/icdf, entropy, moments, shapes
(batch/event/sample), expand, enumerate_support, support checks, with gradients in the
parameters; float64 and float32."""
import numpy as np
import pytest

from .helpers import arr, check, simplex

U = dict(low=0.05, high=0.95)


def pos(*shape, seed=0):
    return arr(*shape, low=0.5, high=3.0, seed=seed)


def counts(*shape, high, seed=0):
    return np.random.default_rng(seed).integers(0, high + 1, shape).astype(np.float64)


def spd(n, batch=(), seed=0):
    a = arr(*batch, n, n, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def lower(n, batch=(), seed=0):
    return np.linalg.cholesky(spd(n, batch, seed))


# name -> (make(D, *params), params, value arrays for log_prob/cdf, icdf probabilities)
FAMILIES = {
    'Normal': (lambda D, m, s: D.Normal(m, s), [arr(3), pos(3, seed=1)], arr(4, 3, seed=2)),
    'Normal_scalar': (lambda D: D.Normal(0.5, 2.0), [], arr(4, seed=2)),
    'Normal_broadcast': (lambda D, m, s: D.Normal(m, s), [arr(2, 1), pos(3, seed=1)],
                         arr(2, 3, seed=2)),
    'Uniform': (lambda D, lo, w: D.Uniform(lo, lo + w), [arr(3), pos(3, seed=1)],
                arr(2, 3, low=-0.4, high=0.4, seed=2)),
    'Laplace': (lambda D, m, s: D.Laplace(m, s), [arr(3), pos(3, seed=1)], arr(4, 3, seed=2)),
    'Exponential': (lambda D, r: D.Exponential(r), [pos(3)], pos(4, 3, seed=2)),
    'LogNormal': (lambda D, m, s: D.LogNormal(m, s), [arr(3), pos(3, seed=1)],
                  pos(4, 3, seed=2)),
    'Gamma': (lambda D, c, r: D.Gamma(c, r), [pos(3), pos(3, seed=1)], pos(4, 3, seed=2)),
    'Beta': (lambda D, a, b: D.Beta(a, b), [pos(3), pos(3, seed=1)], arr(4, 3, seed=2, **U)),
    'Beta_scalar': (lambda D: D.Beta(2.0, 3.0), [], arr(4, seed=2, **U)),
    'Dirichlet': (lambda D, c: D.Dirichlet(c), [pos(2, 3)], simplex(4, 2, 3, seed=2)),
    'Bernoulli_probs': (lambda D, p: D.Bernoulli(probs=p), [arr(3, **U)],
                        counts(4, 3, high=1)),
    'Bernoulli_logits': (lambda D, lg: D.Bernoulli(logits=lg), [arr(3)], counts(4, 3, high=1)),
    'Binomial_probs': (lambda D, p: D.Binomial(5, probs=p), [arr(3, **U)],
                       counts(4, 3, high=5)),
    'Binomial_logits': (lambda D, lg: D.Binomial(7, logits=lg), [arr(3)],
                        counts(4, 3, high=7)),
    'Poisson': (lambda D, r: D.Poisson(r), [pos(3)], counts(4, 3, high=6)),
    'Categorical_probs': (lambda D, p: D.Categorical(probs=p), [simplex(3, 4)],
                          counts(5, 3, high=3)),
    'Categorical_logits': (lambda D, lg: D.Categorical(logits=lg), [arr(3, 4)],
                           counts(5, 3, high=3)),
    'OneHotCategorical': (lambda D, p: D.OneHotCategorical(probs=p), [simplex(3, 4)],
                          np.eye(4)[counts(5, 3, high=3).astype(int)]),
    'MultivariateNormal_cov': (lambda D, m, c: D.MultivariateNormal(m, covariance_matrix=c),
                               [arr(2, 3), spd(3)], arr(4, 2, 3, seed=2)),
    'MultivariateNormal_prec': (lambda D, m, p: D.MultivariateNormal(m, precision_matrix=p),
                                [arr(3), spd(3, (2,))], arr(4, 2, 3, seed=2)),
    'MultivariateNormal_tril': (lambda D, m, L: D.MultivariateNormal(m, scale_tril=L),
                                [arr(2, 3), lower(3, (2,))], arr(4, 2, 3, seed=2)),
    'LowRankMultivariateNormal': (
        lambda D, m, W, d: D.LowRankMultivariateNormal(m, W, d),
        [arr(2, 3), arr(3, 2, seed=1), pos(2, 3, seed=2)], arr(4, 2, 3, seed=3)),
    'Independent': (lambda D, m, s: D.Independent(D.Normal(m, s), 1), [arr(2, 3), pos(2, 3)],
                    arr(4, 2, 3, seed=2)),
    'TransformedDistribution': (
        lambda D, m, s: D.TransformedDistribution(
            D.Normal(m, s), [D.transforms.AffineTransform(1.0, 2.0),
                             D.transforms.SigmoidTransform()]),
        [arr(3), pos(3)], arr(4, 3, seed=2, **U)),
    'Cauchy': (lambda D, m, s: D.Cauchy(m, s), [arr(3), pos(3, seed=1)], arr(4, 3, seed=2)),
    'HalfNormal': (lambda D, s: D.HalfNormal(s), [pos(3)], pos(4, 3, seed=2)),
    'Chi2': (lambda D, df: D.Chi2(df), [pos(3)], pos(4, 3, seed=2)),
    'StudentT': (lambda D, df, m, s: D.StudentT(df, m, s),
                 [np.array([0.5, 1.5, 4.0]), arr(3), pos(3, seed=1)], arr(4, 3, seed=2)),
    'Gumbel': (lambda D, m, s: D.Gumbel(m, s), [arr(3), pos(3, seed=1)], arr(4, 3, seed=2)),
    'Geometric': (lambda D, p: D.Geometric(p), [arr(3, **U)], counts(4, 3, high=6)),
    'Geometric_logits': (lambda D, lg: D.Geometric(logits=lg), [arr(3)], counts(4, 3, high=6)),
    'Multinomial': (lambda D, p: D.Multinomial(5, probs=p), [simplex(2, 3)],
                    np.array([[[5.0, 0, 0], [1, 2, 2]], [[0, 3, 2], [4, 1, 0]]])),
    'RelaxedBernoulli': (lambda D, t, p: D.RelaxedBernoulli(t, probs=p),
                         [np.array(0.7), arr(3, **U)], arr(4, 3, seed=2, **U)),
    'RelaxedOneHotCategorical': (lambda D, t, lg: D.RelaxedOneHotCategorical(t, logits=lg),
                                 [np.array(0.7), arr(2, 3)], simplex(4, 2, 3, seed=2)),
    'HalfCauchy': (lambda D, s: D.HalfCauchy(s), [pos(3)], pos(4, 3, seed=2)),
    'Pareto': (lambda D, s, a: D.Pareto(s, a), [arr(3, low=0.2, high=0.5), pos(3, seed=1)],
               pos(4, 3, seed=2)),
    'Weibull': (lambda D, s, k: D.Weibull(s, k), [pos(3), pos(3, seed=1)], pos(4, 3, seed=2)),
    'NegativeBinomial': (lambda D, n, p: D.NegativeBinomial(n, probs=p),
                         [pos(3), arr(3, **U)], counts(4, 3, high=6)),
    'NegativeBinomial_logits': (lambda D, lg: D.NegativeBinomial(4.0, logits=lg), [arr(3)],
                                counts(4, 3, high=6)),
    'MixtureSameFamily': (
        lambda D, lg, m, s: D.MixtureSameFamily(D.Categorical(logits=lg), D.Normal(m, s)),
        [arr(2, 3), arr(2, 3, seed=1), pos(2, 3, seed=2)], arr(4, 2, seed=3)),
    'MixtureSameFamily_mvn': (
        lambda D, lg, m: D.MixtureSameFamily(
            D.Categorical(logits=lg), D.Independent(D.Normal(m, m.exp()), 1)),
        [arr(3), arr(3, 2, seed=1)], arr(4, 2, seed=3)),
}

METHODS = ['log_prob', 'cdf', 'icdf', 'entropy', 'mean', 'mode', 'variance', 'stddev']


def _call(d, method, value, lib):
    if method in ('log_prob', 'cdf'):
        return getattr(d, method)(value)
    if method == 'icdf':
        return d.icdf(lib.tensor(np.linspace(0.05, 0.95, 4 * int(np.prod(d.batch_shape)))
                                 .reshape((4,) + tuple(d.batch_shape)), dtype=value.dtype))
    attr = getattr(d, method)
    return attr() if callable(attr) else attr


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('method', METHODS)
@pytest.mark.parametrize('name', FAMILIES)
def test_method(name, method, dtype):
    make, params, value = FAMILIES[name]
    params = [p.astype(dtype) for p in params]
    value = value.astype(dtype)
    if not params and dtype == np.float32:
        pytest.skip("Python-number parameters take the default dtype: one dtype suffices")
    check(lambda lib, v, *ps: _call(make(lib.distributions, *ps), method, v, lib),
          value, *params, message=False,
          rtol=1e-4 if dtype == np.float32 else None, atol=1e-4 if dtype == np.float32 else None)


@pytest.mark.parametrize('name', FAMILIES)
def test_shapes_and_sample_shapes(name):
    make, params, _ = FAMILIES[name]

    def fn(lib, *ps):
        d = make(lib.distributions, *ps)
        return (d.batch_shape, d.event_shape, d.sample().shape, d.sample((5, 2)).shape,
                d.has_rsample, d.has_enumerate_support, str(d.sample().dtype))
    check(fn, *params, grad=False)


@pytest.mark.parametrize('name', FAMILIES)
def test_expand(name):
    make, params, value = FAMILIES[name]

    def fn(lib, v, *ps):
        d = make(lib.distributions, *ps)
        e = d.expand((2,) + tuple(d.batch_shape))
        return e.batch_shape, e.event_shape, e.log_prob(v), e.sample((3,)).shape, \
            type(e).__name__
    check(fn, value, *params, message=False)


@pytest.mark.parametrize('name', FAMILIES)
def test_support_check(name):
    make, params, value = FAMILIES[name]

    def fn(lib, v, *ps):
        d = make(lib.distributions, *ps)
        ok = d.support.check(v)
        bad = d.support.check(v * 0 - 7.5)
        return ok, bad, d.support.event_dim, d.support.is_discrete
    check(fn, value, *params, grad=False)


@pytest.mark.parametrize('name', ['Bernoulli_probs', 'Binomial_logits', 'Categorical_logits',
                                  'OneHotCategorical'])
@pytest.mark.parametrize('expand', [True, False])
def test_enumerate_support(name, expand):
    make, params, _ = FAMILIES[name]
    check(lambda lib, *ps: make(lib.distributions, *ps).enumerate_support(expand), *params)


@pytest.mark.parametrize('name', FAMILIES)
def test_repr(name):
    make, params, _ = FAMILIES[name]
    check(lambda lib, *ps: repr(make(lib.distributions, *ps)), *params, grad=False)


SECOND_ORDER = ['Normal', 'Uniform', 'Laplace', 'Exponential', 'LogNormal', 'Gamma', 'Beta',
                'Dirichlet', 'Bernoulli_logits', 'Binomial_probs', 'Poisson',
                'Categorical_logits', 'MultivariateNormal_tril', 'MultivariateNormal_cov',
                'LowRankMultivariateNormal',
                'Independent', 'TransformedDistribution', 'MixtureSameFamily']


@pytest.mark.parametrize('method', ['log_prob', 'entropy'])
@pytest.mark.parametrize('name', SECOND_ORDER)
def test_second_order(name, method):
    make, params, value = FAMILIES[name]

    def fn(lib, v, *ps):
        d = make(lib.distributions, *ps)
        return d.log_prob(v) if method == 'log_prob' else d.entropy()
    check(fn, value, *params, double=True, message=False)


@pytest.mark.parametrize('name', ['MultivariateNormal_cov', 'MultivariateNormal_prec',
                                  'MultivariateNormal_tril', 'LowRankMultivariateNormal'])
@pytest.mark.parametrize('prop', ['scale_tril', 'covariance_matrix', 'precision_matrix'])
def test_gaussian_matrices(name, prop):
    make, params, _ = FAMILIES[name]
    check(lambda lib, *ps: getattr(make(lib.distributions, *ps), prop), *params)
