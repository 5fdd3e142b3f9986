"""Argument validation against torch: the ValueError texts for invalid parameters and
out-of-support values, constructor errors, validate_args on/off, and
Distribution.set_default_validate_args."""
import numpy as np
import pytest

from .helpers import check, ember, torch

BAD_PARAMS = {
    'Normal_scale': lambda D: D.Normal(torch_or(D).tensor([0.0, 1.0]),
                                       torch_or(D).tensor([1.0, -2.0])),
    'Normal_scalar_scale': lambda D: D.Normal(0.0, -1.0),
    'Normal_nan_loc': lambda D: D.Normal(torch_or(D).tensor(float('nan')), 1.0),
    'Uniform_order': lambda D: D.Uniform(torch_or(D).tensor([0.0, 2.0]),
                                         torch_or(D).tensor([1.0, 1.0])),
    'Exponential': lambda D: D.Exponential(torch_or(D).tensor([-1.0])),
    'Laplace': lambda D: D.Laplace(0.0, torch_or(D).tensor([0.0])),
    'Gamma': lambda D: D.Gamma(torch_or(D).tensor([-1.0]), 1.0),
    'Beta': lambda D: D.Beta(torch_or(D).tensor([1.0, -1.0]), 2.0),
    'Beta_scalar': lambda D: D.Beta(1.0, -1.0),
    'Dirichlet': lambda D: D.Dirichlet(torch_or(D).tensor([[1.0, 0.0], [1.0, 1.0]])),
    'Bernoulli': lambda D: D.Bernoulli(probs=torch_or(D).tensor([0.5, 1.5])),
    'Bernoulli_both': lambda D: D.Bernoulli(probs=0.5, logits=0.0),
    'Bernoulli_none': lambda D: D.Bernoulli(),
    'Binomial_count': lambda D: D.Binomial(torch_or(D).tensor([2.5]), probs=0.5),
    'Binomial_probs': lambda D: D.Binomial(3, probs=torch_or(D).tensor([-0.1])),
    'Poisson': lambda D: D.Poisson(torch_or(D).tensor([-0.5, 1.0])),
    'Categorical_probs': lambda D: D.Categorical(probs=torch_or(D).tensor([0.5, -0.5, 1.0])),
    'Categorical_0d': lambda D: D.Categorical(probs=torch_or(D).tensor(1.0)),
    'Categorical_logits_0d': lambda D: D.Categorical(logits=torch_or(D).tensor(1.0)),
    'Categorical_logits_nan': lambda D: D.Categorical(
        logits=torch_or(D).tensor([0.0, float('nan')])),
    'OneHotCategorical': lambda D: D.OneHotCategorical(torch_or(D).tensor([-1.0, 2.0])),
    'MVN_none': lambda D: D.MultivariateNormal(torch_or(D).zeros(2)),
    'MVN_two': lambda D: D.MultivariateNormal(torch_or(D).zeros(2), torch_or(D).eye(2),
                                              scale_tril=torch_or(D).eye(2)),
    'MVN_loc_0d': lambda D: D.MultivariateNormal(torch_or(D).tensor(0.0), torch_or(D).eye(2)),
    'MVN_cov_1d': lambda D: D.MultivariateNormal(torch_or(D).zeros(2), torch_or(D).ones(2)),
    'MVN_tril_1d': lambda D: D.MultivariateNormal(torch_or(D).zeros(2),
                                                  scale_tril=torch_or(D).ones(2)),
    'MVN_not_pd': lambda D: D.MultivariateNormal(
        torch_or(D).zeros(2), torch_or(D).tensor([[1.0, 2.0], [2.0, 1.0]])),
    'MVN_not_symmetric': lambda D: D.MultivariateNormal(
        torch_or(D).zeros(2), torch_or(D).tensor([[1.0, 0.5], [0.0, 1.0]])),
    'MVN_tril_not_lower': lambda D: D.MultivariateNormal(
        torch_or(D).zeros(2), scale_tril=torch_or(D).tensor([[1.0, 0.5], [0.0, 1.0]])),
    'MVN_tril_negative_diag': lambda D: D.MultivariateNormal(
        torch_or(D).zeros(2), scale_tril=torch_or(D).tensor([[-1.0, 0.0], [0.0, 1.0]])),
    'Cauchy': lambda D: D.Cauchy(0.0, torch_or(D).tensor([-1.0])),
    'HalfNormal': lambda D: D.HalfNormal(torch_or(D).tensor([-1.0])),
    'Chi2': lambda D: D.Chi2(torch_or(D).tensor([0.0, 1.0])),
    'StudentT': lambda D: D.StudentT(torch_or(D).tensor([-1.0])),
    'Gumbel': lambda D: D.Gumbel(torch_or(D).tensor([0.0]), torch_or(D).tensor([-1.0])),
    'Geometric_zero': lambda D: D.Geometric(torch_or(D).tensor([0.0, 0.5])),
    'Geometric_above_one': lambda D: D.Geometric(torch_or(D).tensor([1.5])),
    'Multinomial_count': lambda D: D.Multinomial(torch_or(D).tensor(3), torch_or(D).ones(2)),
    'RelaxedBernoulli': lambda D: D.RelaxedBernoulli(torch_or(D).tensor(0.5),
                                                     torch_or(D).tensor([1.5])),
    'Pareto': lambda D: D.Pareto(torch_or(D).tensor([1.0]), torch_or(D).tensor([-1.0])),
    'Weibull': lambda D: D.Weibull(torch_or(D).tensor([-1.0]), 1.0),
    'HalfCauchy': lambda D: D.HalfCauchy(torch_or(D).tensor([0.0])),
    'NegativeBinomial_probs': lambda D: D.NegativeBinomial(2.0, torch_or(D).tensor([1.0])),
    'NegativeBinomial_count': lambda D: D.NegativeBinomial(-1.0, torch_or(D).tensor([0.5])),
    'LowRank_loc_0d': lambda D: D.LowRankMultivariateNormal(
        torch_or(D).tensor(0.0), torch_or(D).ones(2, 1), torch_or(D).ones(2)),
    'LowRank_factor_1d': lambda D: D.LowRankMultivariateNormal(
        torch_or(D).zeros(2), torch_or(D).ones(2), torch_or(D).ones(2)),
    'LowRank_factor_rows': lambda D: D.LowRankMultivariateNormal(
        torch_or(D).zeros(2), torch_or(D).ones(3, 1), torch_or(D).ones(2)),
    'LowRank_diag': lambda D: D.LowRankMultivariateNormal(
        torch_or(D).zeros(2), torch_or(D).ones(2, 1), torch_or(D).ones(3)),
    'LowRank_batches': lambda D: D.LowRankMultivariateNormal(
        torch_or(D).zeros(3, 2), torch_or(D).ones(4, 2, 1), torch_or(D).ones(2)),
    'LowRank_negative_diag': lambda D: D.LowRankMultivariateNormal(
        torch_or(D).zeros(2), torch_or(D).ones(2, 1), -torch_or(D).ones(2)),
    'Independent_too_many': lambda D: D.Independent(D.Normal(torch_or(D).zeros(2), 1.0), 2),
    'Transformed_not_transform': lambda D: D.TransformedDistribution(D.Normal(0.0, 1.0),
                                                                     [lambda x: x]),
    'Transformed_not_list': lambda D: D.TransformedDistribution(D.Normal(0.0, 1.0), 3),
    'Mixture_not_categorical': lambda D: D.MixtureSameFamily(
        D.Normal(0.0, 1.0), D.Normal(torch_or(D).zeros(2), 1.0)),
    'Mixture_component': lambda D: D.MixtureSameFamily(
        D.Categorical(torch_or(D).ones(2)), 3),
    'Mixture_count': lambda D: D.MixtureSameFamily(
        D.Categorical(torch_or(D).ones(3)), D.Normal(torch_or(D).zeros(2), 1.0)),
    'Mixture_batch': lambda D: D.MixtureSameFamily(
        D.Categorical(torch_or(D).ones(3, 2)), D.Normal(torch_or(D).zeros(4, 2), 1.0)),
}


def torch_or(D):
    """The library a distributions namespace belongs to."""
    return ember if D is ember.distributions else torch


@pytest.mark.parametrize('name', BAD_PARAMS)
def test_invalid_parameters(name):
    check(lambda lib: BAD_PARAMS[name](lib.distributions), grad=False)


BAD_VALUES = {
    'Normal_nan': (lambda D, T: D.Normal(T.zeros(2), 1.0), lambda T: T.tensor([0.0, float('nan')])),
    'Normal_shape': (lambda D, T: D.Normal(T.zeros(2), 1.0), lambda T: T.zeros(3)),
    'Normal_not_tensor': (lambda D, T: D.Normal(T.zeros(2), 1.0), lambda T: 0.5),
    'Exponential_negative': (lambda D, T: D.Exponential(T.ones(2)), lambda T: T.tensor([1.0, -1.0])),
    'Uniform_outside': (lambda D, T: D.Uniform(0.0, 1.0), lambda T: T.tensor(1.5)),
    'Gamma_negative': (lambda D, T: D.Gamma(T.ones(2), 1.0), lambda T: T.tensor([-1.0, 1.0])),
    'Beta_outside': (lambda D, T: D.Beta(2.0, 2.0), lambda T: T.tensor(1.5)),
    'Bernoulli_two': (lambda D, T: D.Bernoulli(0.3), lambda T: T.tensor(2.0)),
    'Binomial_above': (lambda D, T: D.Binomial(3, probs=T.tensor([0.3])), lambda T: T.tensor([4.0])),
    'Poisson_fraction': (lambda D, T: D.Poisson(T.tensor([2.0])), lambda T: T.tensor([1.5])),
    'Categorical_range': (lambda D, T: D.Categorical(T.ones(3)), lambda T: T.tensor(3)),
    'OneHot_not_one_hot': (lambda D, T: D.OneHotCategorical(T.ones(3)),
                           lambda T: T.tensor([1.0, 1.0, 0.0])),
    'OneHot_event_shape': (lambda D, T: D.OneHotCategorical(T.ones(3)),
                           lambda T: T.tensor([1.0, 0.0])),
    'Dirichlet_not_simplex': (lambda D, T: D.Dirichlet(T.ones(3)),
                              lambda T: T.tensor([0.5, 0.5, 0.5])),
    'MVN_event_shape': (lambda D, T: D.MultivariateNormal(T.zeros(2), T.eye(2)),
                        lambda T: T.zeros(3)),
    'MVN_batch': (lambda D, T: D.MultivariateNormal(T.zeros(2, 2), T.eye(2)),
                  lambda T: T.zeros(3, 2)),
    'LogNormal_negative': (lambda D, T: D.LogNormal(0.0, 1.0), lambda T: T.tensor(-1.0)),
    'Pareto_below_scale': (lambda D, T: D.Pareto(T.tensor([2.0]), T.tensor([1.0])),
                           lambda T: T.tensor([1.0])),
    'HalfNormal_negative': (lambda D, T: D.HalfNormal(1.0), lambda T: T.tensor(-1.0)),
    'Geometric_fraction': (lambda D, T: D.Geometric(T.tensor(0.5)), lambda T: T.tensor(0.5)),
    'Multinomial_count': (lambda D, T: D.Multinomial(3, T.ones(2)),
                          lambda T: T.tensor([3.0, 1.0])),
    'Independent': (lambda D, T: D.Independent(D.Exponential(T.ones(2)), 1),
                    lambda T: T.tensor([1.0, -1.0])),
    'Mixture': (lambda D, T: D.MixtureSameFamily(D.Categorical(T.ones(2)),
                                                 D.Exponential(T.ones(2))),
                lambda T: T.tensor(-1.0)),
}


@pytest.mark.parametrize('method', ['log_prob', 'cdf'])
@pytest.mark.parametrize('name', BAD_VALUES)
def test_out_of_support(name, method):
    make, value = BAD_VALUES[name]

    def fn(lib):
        d = make(lib.distributions, lib)
        if not hasattr(d, 'cdf') or name.startswith(('Categorical', 'OneHot', 'Dirichlet',
                                                     'MVN', 'Bernoulli', 'Binomial',
                                                     'Geometric', 'Multinomial',
                                                     'Poisson', 'Independent')):
            return getattr(d, 'log_prob')(value(lib))
        return getattr(d, method)(value(lib))
    check(fn, grad=False)


@pytest.mark.parametrize('name', ['Normal_nan', 'Exponential_negative', 'Gamma_negative',
                                  'Poisson_fraction', 'Beta_outside'])
def test_validate_args_false_skips_checks(name):
    make, value = BAD_VALUES[name]

    def fn(lib):
        D = lib.distributions
        d = make(D, lib)
        d._validate_args = False
        return d.log_prob(value(lib))
    check(fn, grad=False)


def test_validate_args_false_in_constructor():
    check(lambda lib: lib.distributions.Normal(0.0, -1.0, validate_args=False).scale,
          grad=False)
    check(lambda lib: lib.distributions.Normal(0.0, 1.0, validate_args=False)
          .log_prob(lib.tensor(float('nan'))), grad=False)


@pytest.mark.parametrize('value', [False, True, 1, 'yes'])
def test_set_default_validate_args(value):
    def fn(lib):
        D = lib.distributions
        old = D.Distribution._validate_args
        try:
            D.Distribution.set_default_validate_args(value)
            return D.Normal(0.0, -1.0).scale, D.Distribution._validate_args
        finally:
            D.Distribution._validate_args = old
    check(fn, grad=False, message=False)


def test_binomial_kl_count_error():
    check(lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Binomial(2, probs=lib.tensor(0.5)),
        lib.distributions.Binomial(3, probs=lib.tensor(0.5))), grad=False)


def test_binomial_inhomogeneous_entropy():
    check(lambda lib: lib.distributions.Binomial(
        lib.tensor([2.0, 3.0]), probs=lib.tensor(0.5)).entropy(), grad=False)


def test_kl_not_implemented():
    check(lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Poisson(lib.tensor(1.0)), lib.distributions.Normal(0.0, 1.0)),
        grad=False)


def test_mode_not_implemented_class():
    # The message names the class by its module path, which differs; the class does not.
    check(lambda lib: lib.distributions.Poisson(lib.tensor(1.0)).cdf(lib.tensor(1.0)),
          grad=False)
    check(lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.ones(2)),
        lib.distributions.Normal(lib.zeros(2), 1.0)).mode, grad=False, message=False)
