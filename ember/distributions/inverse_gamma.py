"""InverseGamma(concentration, rate): 1 / X for X ~ Gamma(concentration, rate)."""
import math

import ember

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ['InverseGamma']


class InverseGamma(TransformedDistribution):
    """The inverse gamma distribution: the reciprocal of a ``Gamma(concentration, rate)``
    draw, so ``rate`` acts as its scale::

        >>> InverseGamma(3.0, 2.0).mean
        tensor(1.)
    """

    arg_constraints = {'concentration': constraints.positive, 'rate': constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-base.rate.new_ones(())),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        """The shape parameter."""
        return self.base_dist.concentration

    @property
    def rate(self):
        """The scale of the reciprocal (the Gamma's rate)."""
        return self.base_dist.rate

    @property
    def mean(self):
        c = self.concentration
        return ember.where(c > 1, self.rate / (c - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        c = self.concentration
        return ember.where(c > 2, self.rate.pow(2) / ((c - 1).pow(2) * (c - 2)), math.inf)

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * c.digamma()
