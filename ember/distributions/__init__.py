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
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403  (torch exports the transforms here too)
from .uniform import Uniform

__all__ = [
    'Bernoulli', 'Beta', 'Binomial', 'Categorical', 'Dirichlet', 'Distribution',
    'ExponentialFamily', 'Exponential', 'Gamma', 'Independent', 'Laplace', 'LogNormal',
    'MixtureSameFamily', 'MultivariateNormal', 'Normal', 'OneHotCategorical',
    'OneHotCategoricalStraightThrough', 'Poisson', 'TransformedDistribution', 'Uniform',
    'constraints', 'kl_divergence', 'register_kl', 'transforms',
] + transforms.__all__
