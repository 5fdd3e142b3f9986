"""Geometric(probs | logits): failures before the first success."""
import ember

from . import constraints
from .bernoulli import bce_with_logits, one_of_probs_logits
from .distribution import Distribution
from .utils import broadcast_all, broadcast_params, finfo, lazy_property, logits_to_probs, \
    probs_to_logits

__all__ = ['Geometric']


class Geometric(Distribution):
    """The number of failures before the first success, each trial succeeding with
    ``probs``::

        >>> Geometric(probs=ember.tensor(0.25)).mean
        tensor(3.)
    """

    arg_constraints = {'probs': constraints.unit_interval, 'logits': constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        one_of_probs_logits(probs, logits)
        if probs is not None:
            (self.probs,), batch_shape = broadcast_params(probs)
        else:
            (self.logits,), batch_shape = broadcast_params(logits)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to be positive but "
                    f"found invalid values:\n{value.detach()[~valid]}")

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Geometric, batch_shape, _instance, ('probs', 'logits'))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return ember.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        """Log-odds of success."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """Probability of success."""
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            u = ember.empty(shape, dtype=self.probs.dtype).uniform_(float(finfo(self.probs).tiny), 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # A certain success (p = 1) with no failures: 0 * log(0) is 0.
        probs = ember.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return bce_with_logits(self.logits, self.probs) / self.probs
