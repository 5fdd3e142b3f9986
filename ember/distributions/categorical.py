"""Categorical(probs | logits): one of K classes, as an integer index."""
import math

import ember

from . import constraints
from .bernoulli import one_of_probs_logits
from .distribution import Distribution
from .utils import finfo, lazy_property, logits_to_probs, probs_to_logits

__all__ = ['Categorical']


class Categorical(Distribution):
    """Class ``k`` with probability ``probs[..., k]`` (normalised over the last dimension)
    or ``softmax(logits)[..., k]``; the last dimension of the parameter indexes classes::

        >>> d = Categorical(probs=ember.tensor([1.0, 3.0]))
        >>> d.probs
        tensor([0.2500, 0.7500])
    """

    arg_constraints = {'probs': constraints.simplex, 'logits': constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        one_of_probs_logits(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else ember.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Categorical, batch_shape, _instance, ('probs', 'logits'))
        new._param = new.__dict__.get('logits', new.__dict__.get('probs'))
        new._num_events = self._num_events
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        """Normalised log-probabilities."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        """Normalised probabilities."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        """Shape of the parameter the distribution was made from."""
        return self._param.size()

    @property
    def mean(self):
        return ember.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return ember.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=ember.Size()):
        sample_shape = ember.Size(sample_shape)
        with ember.no_grad():
            rows = self.probs.reshape(-1, self._num_events)
            draws = ember.multinomial(rows, sample_shape.numel(), True).T
        return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = ember.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        # -inf logits (zero probabilities) would give 0 * -inf = nan: clamp to the lowest
        # finite value, whose product with 0 is 0.
        logits = ember.clamp(self.logits, min=float(finfo(self.logits).min))
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = ember.arange(self._num_events, dtype=ember.long)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
