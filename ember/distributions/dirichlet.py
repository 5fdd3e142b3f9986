"""Dirichlet(concentration): distributions over the probability simplex."""
import ember

from . import constraints
from ._sampling import SampleDirichlet
from .exp_family import ExponentialFamily

__all__ = ['Dirichlet']


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution; the last dimension of ``concentration`` is the event.
    ``rsample`` is differentiable (implicit reparameterisation through each coordinate's
    Beta marginal)::

        >>> Dirichlet(ember.tensor([1.0, 3.0])).mean
        tensor([0.2500, 0.7500])
    """

    arg_constraints = {'concentration': constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Dirichlet, batch_shape, _instance, ('concentration',))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return SampleDirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (ember.xlogy(c - 1.0, value).sum(-1) + ember.lgamma(c.sum(-1))
                - ember.lgamma(c).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        # All concentrations below 1: the density peaks at a vertex (the largest one's).
        vertex = ember.nn.functional.one_hot(mode.argmax(-1), cm1.shape[-1]).to(mode.dtype)
        return ember.where((self.concentration < 1).all(-1, keepdim=True), vertex, mode)

    @property
    def variance(self):
        c0 = self.concentration.sum(-1, True)
        return self.concentration * (c0 - self.concentration) / (c0.pow(2) * (c0 + 1))

    def entropy(self):
        c = self.concentration
        k, a0 = c.size(-1), c.sum(-1)
        return (ember.lgamma(c).sum(-1) - ember.lgamma(a0) - (k - a0) * ember.digamma(a0)
                - ((c - 1.0) * ember.digamma(c)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - ember.lgamma(x.sum(-1))
