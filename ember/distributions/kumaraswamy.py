"""Kumaraswamy(concentration1, concentration0): a Beta-like law on [0, 1] with a closed-form
inverse CDF, ``(1 - (1 - u)^(1/c0))^(1/c1)``."""
import math

import ember

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ['Kumaraswamy']


def _raw_moment(a, b, n):
    """E[X^n] = b * B(1 + n/a, b) for X ~ Kumaraswamy(a, b)."""
    t = 1 + n / a
    return b * ember.exp(ember.lgamma(t) + ember.lgamma(b) - ember.lgamma(t + b))


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on [0, 1], density
    ``c1 c0 x^(c1 - 1) (1 - x^c1)^(c0 - 1)``; reparameterised through a uniform draw::

        >>> Kumaraswamy(1.0, 1.0).mean
        tensor(0.5000)
    """

    arg_constraints = {'concentration1': constraints.positive,
                       'concentration0': constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        c0 = self.concentration0
        base = Uniform(ember.full_like(c0, 0), ember.full_like(c0, 1),
                       validate_args=validate_args)
        # U -> U^(1/c0) -> 1 - U^(1/c0) -> (1 - U^(1/c0))^(1/c1); 1 - U is uniform too.
        transforms = [PowerTransform(c0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _raw_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        c1, c0 = self.concentration1, self.concentration0
        # torch's formula, kept as it is: log1p(-c0) is NaN for c0 > 1, so the mode is NaN
        # there too (torch's documented value is ((c1 - 1) / (c1 c0 - 1))^(1/c1)).
        log_mode = c0.reciprocal() * (-c0).log1p() - (-c0 * c1).log1p()
        return ember.where((c0 < 1) | (c1 < 1), math.nan, log_mode).exp()

    @property
    def variance(self):
        return _raw_moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        c1, c0 = self.concentration1, self.concentration0
        harmonic = ember.digamma(c0 + 1) + euler_constant  # the c0-th harmonic number
        return (1 - c0.reciprocal()) + (1 - c1.reciprocal()) * harmonic \
            - ember.log(c1) - ember.log(c0)
