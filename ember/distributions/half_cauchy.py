"""HalfCauchy(scale): |X| for X ~ Cauchy(0, scale)."""
import math

import ember

from . import constraints
from ._folded import FoldedAtZero
from .cauchy import Cauchy

__all__ = ['HalfCauchy']


class HalfCauchy(FoldedAtZero):
    """The absolute value of a centred Cauchy (a common prior for scales)::

        >>> HalfCauchy(1.0).cdf(ember.tensor(1.0))
        tensor(0.5000)
    """

    arg_constraints = {'scale': constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return ember.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance
