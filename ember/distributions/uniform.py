"""Uniform(low, high): the continuous uniform on [low, high)."""
import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_params

__all__ = ['Uniform']


class Uniform(Distribution):
    """Uniform on the half-open interval ``[low, high)``, reparameterised as
    ``low + u * (high - low)``::

        >>> Uniform(0.0, 4.0).entropy()
        tensor(1.3863)
    """

    has_rsample = True

    @property
    def arg_constraints(self):
        return {'low': constraints.less_than(self.high),
                'high': constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        (self.low, self.high), batch_shape = broadcast_params(low, high)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Uniform, batch_shape, _instance, ('low', 'high'))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=ember.Size()):
        u = ember.rand(self._extended_shape(sample_shape), dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value).type_as(self.low) * (self.high > value).type_as(self.low)
        return ember.log(inside) - ember.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return ember.log(self.high - self.low)
