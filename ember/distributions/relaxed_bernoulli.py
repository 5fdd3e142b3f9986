"""RelaxedBernoulli (binary Concrete) and its logit-space base, LogitRelaxedBernoulli."""
import ember

from . import constraints
from .bernoulli import one_of_probs_logits
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import BinaryParameter, broadcast_all, broadcast_params, clamp_probs

__all__ = ['LogitRelaxedBernoulli', 'RelaxedBernoulli']


class LogitRelaxedBernoulli(BinaryParameter, Distribution):
    """The logit of a RelaxedBernoulli draw: ``(logit(u) + logits) / temperature``."""

    arg_constraints = {'probs': constraints.unit_interval, 'logits': constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        one_of_probs_logits(probs, logits)
        if probs is not None:
            (self.probs,), batch_shape = broadcast_params(probs)
        else:
            (self.logits,), batch_shape = broadcast_params(logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(LogitRelaxedBernoulli, batch_shape, _instance,
                             ('probs', 'logits'))
        new.temperature = self.temperature
        new._param = new.__dict__.get('logits', new.__dict__.get('probs'))
        return new

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(ember.rand(shape, dtype=probs.dtype))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A continuous relaxation of Bernoulli on (0, 1), sharper as ``temperature`` goes
    to 0; ``rsample`` is differentiable::

        >>> RelaxedBernoulli(ember.tensor(0.5), probs=ember.tensor([0.3])).rsample().shape
        torch.Size([1])
    """

    arg_constraints = {'probs': constraints.unit_interval, 'logits': constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """Log-odds."""
        return self.base_dist.logits

    @property
    def probs(self):
        """Probability of 1 in the zero-temperature limit."""
        return self.base_dist.probs
