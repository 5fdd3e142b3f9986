"""Poisson(rate): counts."""
import ember

from . import constraints
from ._sampling import poisson
from .exp_family import ExponentialFamily
from .utils import broadcast_all, broadcast_params

__all__ = ['Poisson']


class Poisson(ExponentialFamily):
    """Counts k with probability ``rate^k exp(-rate) / k!``::

        >>> Poisson(ember.tensor(2.0)).log_prob(ember.tensor(0.0))
        tensor(-2.)
    """

    arg_constraints = {'rate': constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,), batch_shape = broadcast_params(rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Poisson, batch_shape, _instance, ('rate',))

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            return poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return ember.xlogy(value, rate) - rate - ember.lgamma(value + 1)

    @property
    def _natural_params(self):
        return (ember.log(self.rate),)

    def _log_normalizer(self, x):
        return ember.exp(x)
