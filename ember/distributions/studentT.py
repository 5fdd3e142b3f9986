"""StudentT(df, loc, scale)."""
import math

import ember

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all, standard_normal

__all__ = ['StudentT']


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, shifted and scaled; reparameterised as
    ``loc + scale * X / sqrt(Z / df)`` with X standard normal and Z a Chi2(df)::

        >>> StudentT(ember.tensor(3.0)).variance
        tensor(3.)
    """

    arg_constraints = {'df': constraints.positive, 'loc': constraints.real,
                       'scale': constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(StudentT, batch_shape, _instance, ('df', 'loc', 'scale'))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self):
        return ember.where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        finite = self.scale.pow(2) * self.df / (self.df - 2)
        heavy = ember.where(self.df > 1, math.inf, math.nan)
        return ember.where(self.df > 2, finite, heavy.to(self.df.dtype))

    def rsample(self, sample_shape=ember.Size()):
        x = standard_normal(self._extended_shape(sample_shape), self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * ember.rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        log_norm = self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) \
            + ember.lgamma(0.5 * self.df) - ember.lgamma(0.5 * (self.df + 1.0))
        return -0.5 * (self.df + 1.0) * ember.log1p(y ** 2.0 / self.df) - log_norm

    def entropy(self):
        df = self.df
        log_beta = ember.lgamma(0.5 * df) + math.lgamma(0.5) - ember.lgamma(0.5 * (df + 1))
        return self.scale.log() + 0.5 * (df + 1) * (ember.digamma(0.5 * (df + 1))
                                                    - ember.digamma(0.5 * df)) \
            + 0.5 * df.log() + log_beta
