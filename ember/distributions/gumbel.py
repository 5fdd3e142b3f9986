"""Gumbel(loc, scale): the type-I extreme value distribution."""
import math
import numbers

import ember

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant, finfo

__all__ = ['Gumbel']


class Gumbel(TransformedDistribution):
    """``loc - scale * log(-log(U))`` for U uniform on (0, 1)::

        >>> Gumbel(0.0, 1.0).log_prob(ember.tensor(0.0))
        tensor(-1.)
    """

    arg_constraints = {'loc': constraints.real, 'scale': constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = finfo(self.loc)
        lo, hi = float(info.tiny), 1 - float(info.eps)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base = Uniform(lo, hi, validate_args=validate_args)
        else:
            base = Uniform(ember.full_like(self.loc, lo), ember.full_like(self.loc, hi),
                           validate_args=validate_args)
        chain = [ExpTransform().inv, AffineTransform(loc=0, scale=-ember.ones_like(self.scale)),
                 ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
