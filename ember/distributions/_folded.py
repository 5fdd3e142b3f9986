"""The shared part of HalfNormal and HalfCauchy: |X| for X symmetric about 0."""
import math

import ember

from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class FoldedAtZero(TransformedDistribution):
    """|X| for a base distribution symmetric about 0 with a ``scale``: the density doubles
    on [0, inf), the CDF is ``2 F(x) - 1``, the entropy loses log 2."""

    def __init__(self, base, validate_args=None):
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        """The scale of the distribution folded."""
        return self.base_dist.scale

    @property
    def mode(self):
        return ember.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = ember.as_tensor(value, dtype=self.base_dist.scale.dtype)
        return ember.where(value >= 0, self.base_dist.log_prob(value) + math.log(2), -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
