"""Laplace(loc, scale): the double exponential."""
import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_params, finfo

__all__ = ['Laplace']


class Laplace(Distribution):
    """The Laplace distribution, density ``exp(-|x - loc| / scale) / (2 scale)``::

        >>> Laplace(0.0, 1.0).cdf(ember.tensor(0.0))
        tensor(0.5000)
    """

    arg_constraints = {'loc': constraints.real, 'scale': constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        (self.loc, self.scale), batch_shape = broadcast_params(loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Laplace, batch_shape, _instance, ('loc', 'scale'))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=ember.Size()):
        # u in (eps - 1, 1): log1p(-|u|) stays finite.
        shape = self._extended_shape(sample_shape)
        u = ember.empty(shape, dtype=self.loc.dtype).uniform_(float(finfo(self.loc).eps) - 1, 1)
        return self.loc - self.scale * u.sign() * ember.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -ember.log(2 * self.scale) - ember.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * ember.expm1(-z.abs() / self.scale)

    def icdf(self, value):
        t = value - 0.5
        return self.loc - self.scale * t.sign() * ember.log1p(-2 * t.abs())

    def entropy(self):
        return 1 + ember.log(2 * self.scale)
