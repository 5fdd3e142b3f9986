"""Bernoulli(probs | logits): a coin flip, values 0 or 1."""
import math

import ember

from . import constraints
from .exp_family import ExponentialFamily
from .utils import BinaryParameter, broadcast_all, broadcast_params

__all__ = ['Bernoulli']


def one_of_probs_logits(probs, logits):
    """Checks that exactly one of ``probs``/``logits`` is given (torch's message)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def set_count_and_parameter(dist, total_count, probs, logits):
    """The counting families (Binomial, NegativeBinomial): ``total_count`` broadcast with
    whichever of ``probs``/``logits`` is given (exactly one) and cast to its dtype; the
    given one is also kept as ``dist._param``."""
    one_of_probs_logits(probs, logits)
    name, value = ('probs', probs) if probs is not None else ('logits', logits)
    count, param = broadcast_all(total_count, value)
    dist.total_count = count.type_as(param)
    setattr(dist, name, param)
    dist._param = param


def bce_with_logits(logits, target):
    """Elementwise binary cross-entropy of ``target`` under ``logits``."""
    from ember.nn.functional import binary_cross_entropy_with_logits
    return binary_cross_entropy_with_logits(logits, target, reduction='none')


class Bernoulli(BinaryParameter, ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0::

        >>> Bernoulli(probs=ember.tensor([0.25])).log_prob(ember.tensor([1.0]))
        tensor([-1.3863])
    """

    arg_constraints = {'probs': constraints.unit_interval, 'logits': constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        one_of_probs_logits(probs, logits)
        if probs is not None:
            (self.probs,), batch_shape = broadcast_params(probs)
        else:
            (self.logits,), batch_shape = broadcast_params(logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Bernoulli, batch_shape, _instance, ('probs', 'logits'))
        new._param = new.__dict__.get('logits', new.__dict__.get('probs'))
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return ember.where(self.probs == 0.5, math.nan, mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -bce_with_logits(logits, value)

    def entropy(self):
        return bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        values = ember.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values

    @property
    def _natural_params(self):
        return (ember.logit(self.probs),)

    def _log_normalizer(self, x):
        return ember.log1p(ember.exp(x))
