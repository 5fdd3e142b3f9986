"""ContinuousBernoulli(probs | logits): a density on [0, 1] proportional to
``probs^x (1 - probs)^(1 - x)``."""
import math

import ember

from . import constraints
from .bernoulli import bce_with_logits, one_of_probs_logits
from .exp_family import ExponentialFamily
from .utils import (BinaryParameter, broadcast_all, broadcast_params, clamp_probs, lazy_property,
                    logits_to_probs)

__all__ = ['ContinuousBernoulli']


class ContinuousBernoulli(BinaryParameter, ExponentialFamily):
    """The continuous Bernoulli (Loaiza-Ganem & Cunningham, 2019), reparameterised through
    its inverse CDF. Its normaliser, moments and CDF are 0/0 at ``probs = 0.5``: inside
    ``lims`` they are replaced by Taylor expansions about 0.5::

        >>> ContinuousBernoulli(probs=ember.tensor([0.2])).mean
        tensor([0.3880])
    """

    arg_constraints = {'probs': constraints.unit_interval, 'logits': constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        one_of_probs_logits(probs, logits)
        if probs is not None:
            (probs,), batch_shape = broadcast_params(probs)
            # an explicit validate_args checks probs before the clamp below, as torch does
            if validate_args is not None and \
                    not bool(self.arg_constraints['probs'].check(probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(probs)
        else:
            (self.logits,), batch_shape = broadcast_params(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(ContinuousBernoulli, batch_shape, _instance, ('probs', 'logits'))
        new._param = new.__dict__.get('logits', new.__dict__.get('probs'))
        new._lims = self._lims
        return new

    @lazy_property
    def probs(self):
        """``sigmoid(logits)``, clamped away from 0 and 1."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _stable(self):
        """Where probs is far enough from 0.5 for the closed forms."""
        low, high = self._lims
        return (self.probs <= low) | (self.probs > high)

    def _cut_probs(self):
        """probs, with the unstable ones moved to lims[0] (their closed forms are computed
        but not used: this keeps their values and gradients finite)."""
        return ember.where(self._stable(), self.probs, ember.full_like(self.probs,
                                                                      self._lims[0]))

    def _log_ratio(self, p):
        """log(1 - p) - log(p)."""
        return ember.log1p(-p) - ember.log(p)

    def _cont_bern_log_norm(self):
        """The log normalising constant ``log(2 artanh(1 - 2p) / (1 - 2p))``."""
        p = self._cut_probs()
        below = ember.where(p <= 0.5, p, ember.zeros_like(p))
        above = ember.where(p >= 0.5, p, ember.ones_like(p))
        log_norm = ember.log(ember.abs(self._log_ratio(p))) - ember.where(
            p <= 0.5, ember.log1p(-2.0 * below), ember.log(2.0 * above - 1.0))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return ember.where(self._stable(), log_norm, taylor)

    @property
    def mean(self):
        p = self._cut_probs()
        closed = p / (2.0 * p - 1.0) + 1.0 / self._log_ratio(p)
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return ember.where(self._stable(), closed, taylor)

    @property
    def variance(self):
        p = self._cut_probs()
        closed = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + self._log_ratio(p).pow(-2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return ember.where(self._stable(), closed, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=ember.Size()):
        u = ember.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -bce_with_logits(logits, value) + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        closed = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = ember.where(self._stable(), closed, value)
        return ember.where(value <= 0.0, ember.zeros_like(value),
                           ember.where(value >= 1.0, ember.ones_like(value), inside))

    def icdf(self, value):
        p = self._cut_probs()
        closed = (ember.log1p(-p + value * (2.0 * p - 1.0)) - ember.log1p(-p)) \
            / -self._log_ratio(p)
        return ember.where(self._stable(), closed, value)

    def entropy(self):
        log_q, log_p = ember.log1p(-self.probs), ember.log(self.probs)
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        low, high = self._lims[0] - 0.5, self._lims[1] - 0.5
        stable = (x <= low) | (x > high)
        cut = ember.where(stable, x, ember.full_like(x, low))
        log_norm = ember.log(ember.abs(ember.expm1(cut))) - ember.log(ember.abs(cut))
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return ember.where(stable, log_norm, taylor)
