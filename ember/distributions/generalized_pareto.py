"""GeneralizedPareto(loc, scale, concentration): the peaks-over-threshold law."""
import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_params

__all__ = ['GeneralizedPareto']


class GeneralizedPareto(Distribution):
    """The generalised Pareto distribution: survival ``(1 + c z)^(-1/c)`` for
    ``z = (x - loc) / scale`` (``exp(-z)`` at ``c = 0``), on ``[loc, inf)`` for ``c >= 0``
    and ``[loc, loc - scale / c]`` for ``c < 0``; reparameterised through its inverse CDF::

        >>> GeneralizedPareto(0.0, 1.0, 0.5).mean
        tensor(2.)
    """

    arg_constraints = {'loc': constraints.real, 'scale': constraints.positive,
                       'concentration': constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        (self.loc, self.scale, self.concentration), batch_shape = \
            broadcast_params(loc, scale, concentration)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(GeneralizedPareto, batch_shape, _instance,
                              ('loc', 'scale', 'concentration'))

    def _exponential_and_safe(self, float32_zero=True):
        """Where the concentration is (close to) 0 -- the exponential case -- and the
        concentration with those entries replaced by 1, so the c != 0 formulas stay finite
        there. Like torch, log_prob and the CDFs compare with a float32 zero (so float64
        parameters raise there), icdf with a zero of the concentration's dtype."""
        c = self.concentration
        zero = ember.isclose(c, ember.tensor(0.0) if float32_zero else ember.zeros_like(c))
        return zero, ember.where(zero, ember.ones_like(c), c)

    def _z(self, value):
        return (value - self.loc) / self.scale

    def rsample(self, sample_shape=ember.Size()):
        u = ember.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, c = self._exponential_and_safe()
        y = 1 / c + ember.ones_like(z)
        general = ember.where(y == 0, y, y * ember.log1p(c * z))  # c = -1: a flat density
        return -self.scale.log() - ember.where(zero, z, general)

    def log_survival_function(self, value):
        """``log(1 - cdf(value))``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, c = self._exponential_and_safe()
        return ember.where(zero, -z, -ember.log1p(c * z) / c)

    def log_cdf(self, value):
        """``log(cdf(value))``."""
        return ember.log1p(-ember.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return ember.exp(self.log_cdf(value))

    def icdf(self, value):
        zero, c = self._exponential_and_safe(float32_zero=False)
        log_u = ember.log1p(-value)
        return ember.where(zero, self.loc - self.scale * log_u,
                           self.loc + self.scale / c * ember.expm1(-c * log_u))

    @property
    def mean(self):
        c = self.concentration
        finite = c < 1
        c = ember.where(finite, c, 0.5)
        return ember.where(finite, self.loc + self.scale / (1 - c), math.nan)

    @property
    def variance(self):
        c = self.concentration
        finite = c < 0.5
        c = ember.where(finite, c, 0.25)
        return ember.where(finite, self.scale.pow(2) / ((1 - c).pow(2) * (1 - 2 * c)),
                           math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        out = self.scale.log() + self.concentration + 1
        return out.broadcast_to(self._batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = ember.where(self.concentration < 0, lower - self.scale / self.concentration,
                            math.inf)
        return constraints.interval(lower, upper)
