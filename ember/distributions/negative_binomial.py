"""NegativeBinomial(total_count, probs | logits): successes before total_count failures."""
import ember

from . import constraints
from ._sampling import poisson
from .bernoulli import set_count_and_parameter
from .distribution import Distribution
from .gamma import Gamma
from .utils import BinaryParameter, lazy_property

__all__ = ['NegativeBinomial']


class NegativeBinomial(BinaryParameter, Distribution):
    """Successes (each of probability ``probs``) before ``total_count`` failures; a
    Gamma-Poisson mixture, which is how it is sampled::

        >>> NegativeBinomial(3.0, probs=ember.tensor(0.5)).mean
        tensor(3.)
    """

    arg_constraints = {'total_count': constraints.greater_than_eq(0),
                       'probs': constraints.half_open_interval(0.0, 1.0),
                       'logits': constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        set_count_and_parameter(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(NegativeBinomial, batch_shape, _instance,
                             ('total_count', 'probs', 'logits'))
        new._param = new.__dict__.get('logits', new.__dict__.get('probs'))
        return new

    @property
    def mean(self):
        return self.total_count * ember.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / ember.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=ember.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        from ember.nn.functional import logsigmoid
        n = self.total_count
        log_unnormalised = n * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_norm = -ember.lgamma(n + value) + ember.lgamma(1.0 + value) + ember.lgamma(n)
        # n + k = 0 (no draws at all) has probability 1: its normaliser is 0, not nan.
        return log_unnormalised - log_norm.masked_fill(n + value == 0.0, 0.0)
