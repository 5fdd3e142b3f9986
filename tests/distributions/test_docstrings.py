"""The examples in ember.distributions' docstrings run and print what they show, and every
public name has a docstring."""
import doctest
import importlib

import pytest

import ember
import ember.distributions as D

MODULES = ['distributions', 'distributions.constraints', 'distributions.transforms',
           'distributions.kl', 'distributions.utils', 'distributions.distribution',
           'distributions.normal', 'distributions.uniform', 'distributions.laplace',
           'distributions.exponential', 'distributions.bernoulli', 'distributions.categorical',
           'distributions.one_hot_categorical', 'distributions.gamma', 'distributions.beta',
           'distributions.dirichlet', 'distributions.poisson', 'distributions.binomial',
           'distributions.log_normal', 'distributions.multivariate_normal',
           'distributions.independent', 'distributions.transformed_distribution',
           'distributions.mixture_same_family', 'distributions.cauchy',
           'distributions.half_normal', 'distributions.chi2', 'distributions.studentT',
           'distributions.gumbel', 'distributions.geometric', 'distributions.multinomial',
           'distributions.relaxed_bernoulli', 'distributions.relaxed_categorical',
           'distributions.constraint_registry', 'distributions.half_cauchy',
           'distributions.pareto', 'distributions.weibull', 'distributions.negative_binomial',
           'distributions.lowrank_multivariate_normal', 'distributions.von_mises',
           'distributions.inverse_gamma', 'distributions.kumaraswamy',
           'distributions.fishersnedecor', 'distributions.logistic_normal',
           'distributions.continuous_bernoulli', 'distributions.generalized_pareto',
           'distributions.lkj_cholesky', 'distributions.wishart']


@pytest.mark.parametrize('name', MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f'ember.{name}')
    result = doctest.testmod(module, extraglobs={'ember': ember, **vars(D)}, verbose=False)
    assert result.failed == 0, result
    assert result.attempted > 0 or name == 'distributions.exp_family', name


def test_every_public_name_has_a_docstring():
    for name in D.__all__:
        obj = getattr(D, name)
        assert obj.__doc__, name
        for attr, member in vars(obj).items() if isinstance(obj, type) else ():
            if not attr.startswith('_') and (callable(member) or isinstance(member, property)):
                doc = member.__doc__ or getattr(getattr(D.Distribution, attr, None),
                                                '__doc__', None) \
                    or getattr(getattr(D.transforms.Transform, attr, None), '__doc__', None)
                assert doc, f'{name}.{attr}'
