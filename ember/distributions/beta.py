"""Beta(concentration1, concentration0): a Dirichlet over two outcomes."""
import numbers

import ember

from . import constraints
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ['Beta']


class Beta(ExponentialFamily):
    """The Beta distribution on [0, 1], density proportional to
    ``x^(concentration1 - 1) (1 - x)^(concentration0 - 1)``; built on a two-outcome
    Dirichlet (so its samples are the Dirichlet's first coordinate)::

        >>> Beta(1.0, 3.0).mean
        tensor(0.2500)
    """

    arg_constraints = {'concentration1': constraints.positive,
                       'concentration0': constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Number) and \
                isinstance(concentration0, numbers.Number):
            both = ember.tensor([float(concentration1), float(concentration0)])
        else:
            both = ember.stack(broadcast_all(concentration1, concentration0), -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, ember.Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self):
        """The exponent of x (plus one)."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        """The exponent of 1 - x (plus one)."""
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(ember.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return ember.lgamma(x) + ember.lgamma(y) - ember.lgamma(x + y)
