"""ember.distributions: probability distributions with torch.distributions' API.

Each family lives in its own module (normal.py, categorical.py, ...); ``constraints``,
``transforms`` and ``kl`` (``kl_divergence``, ``register_kl``) are torch's too. Samples
come from ember's generator (``ember.manual_seed`` makes them repeat; the numbers differ
from torch's). ``rsample`` is differentiable for the reparameterisable families,
including Gamma, Beta and Dirichlet (implicit reparameterisation)::

    >>> import ember
    >>> from ember.distributions import Normal, kl_divergence
    >>> loc = ember.tensor(0.5, requires_grad=True)
    >>> kl_divergence(Normal(loc, 1.0), Normal(0.0, 1.0))
    tensor(0.1250, grad_fn=<MulBackward0>)
"""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .cauchy import Cauchy
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .categorical import Categorical
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from .relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403  (torch exports the transforms here too)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = [
    'Bernoulli', 'Beta', 'Binomial', 'Categorical', 'Cauchy', 'Chi2', 'Dirichlet',
    'Distribution', 'ExpRelaxedCategorical', 'ExponentialFamily', 'Exponential', 'Gamma',
    'Geometric', 'Gumbel', 'HalfCauchy', 'HalfNormal', 'Independent', 'Laplace', 'LogNormal',
    'LogitRelaxedBernoulli', 'LowRankMultivariateNormal', 'MixtureSameFamily', 'Multinomial', 'MultivariateNormal',
    'NegativeBinomial', 'Normal', 'Pareto', 'OneHotCategorical', 'OneHotCategoricalStraightThrough', 'Poisson',
    'RelaxedBernoulli', 'RelaxedOneHotCategorical', 'StudentT', 'TransformedDistribution',
    'Uniform', 'Weibull', 'FisherSnedecor', 'InverseGamma', 'Kumaraswamy', 'LogisticNormal',
    'VonMises', 'ContinuousBernoulli', 'GeneralizedPareto', 'LKJCholesky', 'Wishart',
    'biject_to', 'constraints', 'kl_divergence', 'register_kl', 'transform_to', 'transforms',
] + transforms.__all__
