"""Binomial(total_count, probs | logits): successes in total_count trials."""
import ember

from . import constraints
from ._sampling import binomial
from .bernoulli import set_count_and_parameter
from .distribution import Distribution
from .utils import BinaryParameter

__all__ = ['Binomial']


def _relu_half_slope(x):
    """max(x, 0) whose derivative at 0 is 1/2 (the mean of the one-sided slopes)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(BinaryParameter, Distribution):
    """Successes in ``total_count`` independent trials of probability ``probs`` (or
    ``sigmoid(logits)``)::

        >>> Binomial(4, probs=ember.tensor(0.5)).mean
        tensor(2.)
    """

    arg_constraints = {'total_count': constraints.nonnegative_integer,
                       'probs': constraints.unit_interval, 'logits': constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        set_count_and_parameter(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Binomial, batch_shape, _instance,
                             ('total_count', 'probs', 'logits'))
        new._param = new.__dict__.get('logits', new.__dict__.get('probs'))
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_choose = ember.lgamma(n + 1) - ember.lgamma(value + 1) \
            - ember.lgamma(n - value + 1)
        # n * log(1 + exp(logits)), without overflow for large logits.
        log_norm = n * _relu_half_slope(logits) + n * ember.log1p(ember.exp(-logits.abs()))
        return value * logits + log_choose - log_norm

    def _homogeneous_count(self, what):
        n = int(self.total_count.max())
        if not self.total_count.min() == n:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return n

    def entropy(self):
        self._homogeneous_count('entropy')
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(ember.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        n = self._homogeneous_count('enumerate_support')
        values = ember.arange(1 + n, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
