"""RelaxedOneHotCategorical (the Gumbel-softmax / Concrete distribution) and its log-space
base, ExpRelaxedCategorical."""
import ember

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ['ExpRelaxedCategorical', 'RelaxedOneHotCategorical']


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical draw: ``log_softmax((logits + G) /
    temperature)`` with G standard Gumbel noise (reparameterised)."""

    arg_constraints = {'probs': constraints.simplex, 'logits': constraints.real_vector}
    support = constraints.real_vector  # (really a submanifold of it)
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, ember.Size(batch_shape), self.event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self):
        """Shape of the parameter the distribution was made from."""
        return self._categorical.param_shape

    @property
    def logits(self):
        """Normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self):
        """Normalised probabilities."""
        return self._categorical.probs

    def rsample(self, sample_shape=ember.Size()):
        u = clamp_probs(ember.rand(self._extended_shape(sample_shape), dtype=self.logits.dtype))
        gumbels = -((-(u.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = ember.full_like(self.temperature, float(k)).lgamma() \
            - self.temperature.log().mul(-(k - 1))
        score = logits - value.mul(self.temperature)
        return (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A continuous relaxation of OneHotCategorical on the simplex, sharper as
    ``temperature`` goes to 0; ``rsample`` is differentiable::

        >>> d = RelaxedOneHotCategorical(ember.tensor(0.5), probs=ember.tensor([0.3, 0.7]))
        >>> d.rsample().shape
        torch.Size([2])
    """

    arg_constraints = {'probs': constraints.simplex, 'logits': constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(ExpRelaxedCategorical(temperature, probs, logits,
                                               validate_args=validate_args),
                         ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """Normalised log-probabilities."""
        return self.base_dist.logits

    @property
    def probs(self):
        """Normalised probabilities."""
        return self.base_dist.probs
