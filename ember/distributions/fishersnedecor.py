"""FisherSnedecor(df1, df2): the F distribution, a ratio of scaled chi-squares."""
import math

import ember

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_params, finfo

__all__ = ['FisherSnedecor']


def _nan_unless(value, keep):
    return ember.where(keep, value, math.nan)


class FisherSnedecor(Distribution):
    """The F distribution with ``df1`` and ``df2`` degrees of freedom: ``(X1/df1) /
    (X2/df2)`` for independent chi-squares, drawn as a ratio of Gamma(df/2, df/2) draws
    (reparameterised)::

        >>> FisherSnedecor(2.0, 6.0).mean
        tensor(1.5000)
    """

    arg_constraints = {'df1': constraints.positive, 'df2': constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        (self.df1, self.df2), batch_shape = broadcast_params(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(FisherSnedecor, batch_shape, _instance, ('df1', 'df2'))
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        return new

    # Undefined moments are NaN. As in torch, mean and variance put the NaN into df2 before
    # the formula (so the gradients there are NaN too), mode into the result.
    @property
    def mean(self):
        df2 = _nan_unless(self.df2, self.df2 > 2)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        df1, df2 = self.df1, self.df2
        return _nan_unless((df1 - 2) / df1 * df2 / (df2 + 2), df1 > 2)

    @property
    def variance(self):
        df1, df2 = self.df1, _nan_unless(self.df2, self.df2 > 4)
        return 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = float(finfo(x2).tiny)
        x2.detach().clamp_(min=tiny)  # outside the graph, as torch
        ratio = x1 / x2
        ratio.detach().clamp_(min=tiny)
        return ratio

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        log_norm = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
        return log_norm + h1 * ratio.log() + (h1 - 1) * ember.log(value) \
            - (h1 + h2) * ember.log1p(ratio * value)
