"""kl_divergence against torch: every registered pair (values and gradients in both
distributions' parameters), the infinite pairs, dispatch through subclasses, register_kl."""
import numpy as np
import pytest

from .helpers import arr, check, simplex, ember, torch


def pos(*shape, seed=0):
    return arr(*shape, low=0.5, high=3.0, seed=seed)


def unit(*shape, seed=0):
    return arr(*shape, low=0.05, high=0.95, seed=seed)


def spd(n, seed=0):
    a = arr(n, n, seed=seed)
    return a @ a.T + n * np.eye(n)


# name -> (make p, its params), (make q, its params)
MAKERS = {
    'Normal': (lambda D, a, b: D.Normal(a, b), lambda s: [arr(3, seed=s), pos(3, seed=s + 1)]),
    'Laplace': (lambda D, a, b: D.Laplace(a, b), lambda s: [arr(3, seed=s), pos(3, seed=s + 1)]),
    'Uniform': (lambda D, a, b: D.Uniform(a, a + b),
                lambda s: [arr(3, low=0.05, high=0.3, seed=s), arr(3, low=0.2, high=0.6, seed=s)]),
    'UniformWide': (lambda D, a, b: D.Uniform(a, a + b),
                    lambda s: [arr(3, low=-1.0, high=0.0, seed=s), pos(3, seed=s + 1)]),
    'Exponential': (lambda D, r: D.Exponential(r), lambda s: [pos(3, seed=s)]),
    'Gamma': (lambda D, a, b: D.Gamma(a, b), lambda s: [pos(3, seed=s), pos(3, seed=s + 1)]),
    'Beta': (lambda D, a, b: D.Beta(a, b), lambda s: [pos(3, seed=s), pos(3, seed=s + 1)]),
    'Dirichlet': (lambda D, c: D.Dirichlet(c), lambda s: [pos(2, 3, seed=s)]),
    'Bernoulli': (lambda D, p: D.Bernoulli(probs=p), lambda s: [unit(3, seed=s)]),
    'BernoulliLogits': (lambda D, lg: D.Bernoulli(logits=lg), lambda s: [arr(3, seed=s)]),
    'Binomial': (lambda D, p: D.Binomial(4, probs=p), lambda s: [unit(3, seed=s)]),
    'Poisson': (lambda D, r: D.Poisson(r), lambda s: [pos(3, seed=s)]),
    'Categorical': (lambda D, p: D.Categorical(probs=p), lambda s: [simplex(3, 4, seed=s)]),
    'OneHotCategorical': (lambda D, lg: D.OneHotCategorical(logits=lg),
                          lambda s: [arr(3, 4, seed=s)]),
    'MultivariateNormal': (lambda D, m, c: D.MultivariateNormal(m, c),
                           lambda s: [arr(2, 3, seed=s), spd(3, seed=s)]),
    'MultivariateNormalTril': (lambda D, m, c: D.MultivariateNormal(
        m, scale_tril=ember.linalg.cholesky(c) if D is ember.distributions
        else torch.linalg.cholesky(c)), lambda s: [arr(3, seed=s), spd(3, seed=s)]),
    'LowRank': (lambda D, m, W, d: D.LowRankMultivariateNormal(m, W, d),
                lambda s: [arr(2, 3, seed=s), arr(3, 2, seed=s + 1), pos(3, seed=s + 2)]),
    'LogNormal': (lambda D, a, b: D.LogNormal(a, b), lambda s: [arr(3, seed=s), pos(3, seed=s)]),
    'Cauchy': (lambda D, a, b: D.Cauchy(a, b), lambda s: [arr(3, seed=s), pos(3, seed=s + 1)]),
    'Gumbel': (lambda D, a, b: D.Gumbel(a, b), lambda s: [arr(3, seed=s), pos(3, seed=s + 1)]),
    'HalfNormal': (lambda D, b: D.HalfNormal(b), lambda s: [pos(3, seed=s)]),
    'Geometric': (lambda D, p: D.Geometric(p), lambda s: [unit(3, seed=s)]),
    'Pareto': (lambda D, a, b: D.Pareto(a, b), lambda s: [pos(3, seed=s), pos(3, seed=s + 1)]),
    'ParetoHeavy': (lambda D, a, b: D.Pareto(a, b),
                    lambda s: [pos(3, seed=s), arr(3, low=0.5, high=2.5, seed=s)]),
    'Independent': (lambda D, a, b: D.Independent(D.Normal(a, b), 1),
                    lambda s: [arr(2, 3, seed=s), pos(2, 3, seed=s + 1)]),
}

PAIRS = [
    ('Normal', 'Normal'), ('Laplace', 'Laplace'), ('Uniform', 'Uniform'),
    ('Uniform', 'UniformWide'), ('Exponential', 'Exponential'), ('Gamma', 'Gamma'),
    ('Beta', 'Beta'), ('Dirichlet', 'Dirichlet'), ('Bernoulli', 'Bernoulli'),
    ('BernoulliLogits', 'Bernoulli'), ('Binomial', 'Binomial'), ('Poisson', 'Poisson'),
    ('Categorical', 'Categorical'), ('OneHotCategorical', 'OneHotCategorical'),
    ('MultivariateNormal', 'MultivariateNormal'),
    ('MultivariateNormalTril', 'MultivariateNormal'), ('LogNormal', 'LogNormal'),
    ('Independent', 'Independent'),
    ('Bernoulli', 'Poisson'), ('Beta', 'Exponential'), ('Beta', 'Gamma'), ('Beta', 'Normal'),
    ('Beta', 'Uniform'), ('Beta', 'UniformWide'), ('Exponential', 'Gamma'),
    ('Exponential', 'Normal'), ('Exponential', 'Beta'), ('Exponential', 'Uniform'),
    ('Gamma', 'Exponential'), ('Gamma', 'Normal'), ('Gamma', 'Beta'), ('Gamma', 'Uniform'),
    ('Laplace', 'Normal'), ('Laplace', 'Beta'), ('Laplace', 'Exponential'),
    ('Laplace', 'Gamma'), ('Laplace', 'Uniform'), ('Normal', 'Laplace'), ('Normal', 'Beta'),
    ('Normal', 'Exponential'), ('Normal', 'Gamma'), ('Normal', 'Uniform'),
    ('Poisson', 'Bernoulli'), ('Poisson', 'Binomial'), ('Uniform', 'Beta'),
    ('UniformWide', 'Beta'), ('Uniform', 'Exponential'), ('UniformWide', 'Exponential'),
    ('Uniform', 'Gamma'), ('UniformWide', 'Gamma'), ('Uniform', 'Normal'),
    ('Cauchy', 'Cauchy'), ('Gumbel', 'Gumbel'), ('HalfNormal', 'HalfNormal'),
    ('Geometric', 'Geometric'), ('Exponential', 'Gumbel'), ('Gamma', 'Gumbel'),
    ('Gumbel', 'Beta'), ('Gumbel', 'Exponential'), ('Gumbel', 'Gamma'), ('Gumbel', 'Uniform'),
    ('Gumbel', 'Normal'), ('Normal', 'Gumbel'), ('Uniform', 'Gumbel'),
    ('Pareto', 'Pareto'), ('ParetoHeavy', 'Pareto'), ('Pareto', 'Exponential'),
    ('ParetoHeavy', 'Exponential'), ('Pareto', 'Gamma'), ('ParetoHeavy', 'Gamma'),
    ('Pareto', 'Normal'), ('ParetoHeavy', 'Normal'), ('Pareto', 'Beta'), ('Pareto', 'Uniform'),
    ('Uniform', 'Pareto'), ('UniformWide', 'Pareto'), ('Beta', 'Pareto'),
    ('Exponential', 'Pareto'), ('Gamma', 'Pareto'), ('Gumbel', 'Pareto'),
    ('Laplace', 'Pareto'), ('Normal', 'Pareto'),
    ('LowRank', 'LowRank'), ('LowRank', 'MultivariateNormal'), ('MultivariateNormal', 'LowRank'),
]


@pytest.mark.parametrize('p,q', [('MultivariateNormal', 'MultivariateNormal'),
                                 ('LowRank', 'LowRank'), ('LowRank', 'MultivariateNormal'),
                                 ('MultivariateNormal', 'LowRank')])
def test_kl_gaussian_event_shape_mismatch(p, q):
    def make(D, lib, which, n):
        if which == 'LowRank':
            return D.LowRankMultivariateNormal(lib.zeros(n), lib.ones(n, 1), lib.ones(n))
        return D.MultivariateNormal(lib.zeros(n), lib.eye(n))
    check(lambda lib: lib.distributions.kl_divergence(make(lib.distributions, lib, p, 2),
                                                      make(lib.distributions, lib, q, 3)),
          grad=False)


@pytest.mark.parametrize('p,q', PAIRS)
def test_kl_pair(p, q):
    mp, pp = MAKERS[p]
    mq, pq = MAKERS[q]
    ps, qs = pp(0), pq(10)

    def fn(lib, *params):
        D = lib.distributions
        return D.kl_divergence(mp(D, *params[:len(ps)]), mq(D, *params[len(ps):]))
    check(fn, *ps, *qs, message=False)


def test_kl_same_distribution_is_zero():
    check(lambda lib, m, s: lib.distributions.kl_divergence(
        lib.distributions.Normal(m, s), lib.distributions.Normal(m, s)), arr(3), pos(3))


@pytest.mark.parametrize('p,q', [('zeros', 'probs'), ('probs', 'zeros'), ('ones', 'probs'),
                                 ('probs', 'ones')])
def test_kl_bernoulli_edges(p, q):
    vals = {'zeros': np.zeros(3), 'ones': np.ones(3), 'probs': unit(3)}

    def fn(lib, a, b):
        D = lib.distributions
        return D.kl_divergence(D.Bernoulli(probs=a), D.Bernoulli(probs=b))
    check(fn, vals[p], vals[q])


def test_kl_categorical_zero_probabilities():
    p = np.array([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]])
    q = np.array([[0.3, 0.7, 0.0], [0.1, 0.1, 0.8]])

    def fn(lib, a, b):
        D = lib.distributions
        return D.kl_divergence(D.Categorical(a), D.Categorical(b)), \
            D.kl_divergence(D.Categorical(b), D.Categorical(a))
    check(fn, p, q)


def test_kl_expfamily_bregman_fallback():
    # Two Exponentials through the generic exponential-family route (its own registry key).
    def fn(lib, a, b):
        D = lib.distributions
        return D.kl._kl_expfamily_expfamily(D.Exponential(a), D.Exponential(b))
    check(fn, pos(3), pos(3, seed=1))


@pytest.mark.parametrize('family', ['Normal', 'Gamma', 'Beta', 'Dirichlet', 'Bernoulli',
                                    'Poisson', 'Exponential'])
def test_expfamily_entropy_by_bregman(family):
    make, params = MAKERS[family]

    def fn(lib, *ps):
        D = lib.distributions
        return D.ExponentialFamily.entropy(make(D, *ps))
    check(fn, *params(0))


def test_register_kl_subclass_and_ambiguity():
    def fn(lib):
        D = lib.distributions

        class MyNormal(D.Normal):
            pass

        @D.register_kl(MyNormal, D.Normal)
        def _kl(p, q):
            return lib.tensor(42.0)
        subclass = D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 2.0))
        base = D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 2.0))  # Normal-Normal
        del D.kl._KL_REGISTRY[MyNormal, D.Normal]
        D.kl._KL_MEMOIZE.clear()
        return subclass, base
    check(fn, grad=False)


def test_register_kl_rejects_non_types():
    check(lambda lib: lib.distributions.register_kl(3, lib.distributions.Normal), grad=False)
