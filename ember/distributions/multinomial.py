"""Multinomial(total_count, probs | logits): class counts over total_count draws."""
import math

import ember

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ['Multinomial']


class Multinomial(Distribution):
    """Counts of each class in ``total_count`` independent Categorical draws (the event is
    the vector of counts)::

        >>> Multinomial(4, probs=ember.tensor([0.25, 0.75])).mean
        tensor([1., 3.])
    """

    arg_constraints = {'probs': constraints.simplex, 'logits': constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, ember.Size(batch_shape), self.event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        """Normalised log-probabilities of the classes."""
        return self._categorical.logits

    @property
    def probs(self):
        """Normalised probabilities of the classes."""
        return self._categorical.probs

    @property
    def param_shape(self):
        """Shape of the parameter the distribution was made from."""
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=ember.Size()):
        sample_shape = ember.Size(sample_shape)
        with ember.no_grad():
            draws = self._categorical.sample(ember.Size((self.total_count,)) + sample_shape)
            k = self._categorical._num_events
            counts = ember.nn.functional.one_hot(draws, k).sum(0)
        return counts.reshape(self._extended_shape(sample_shape)).to(self.probs.dtype)

    def entropy(self):
        n = ember.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - ember.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = ember.exp(self._binomial.log_prob(support))
        return term1 + (binomial_probs * ember.lgamma(support + 1)).sum([0, -1])

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # 0 * log(0) counts as 0: a class never drawn may have zero probability.
        logits = ember.where((value == 0) & (logits == -math.inf), 0.0, logits)
        return ember.lgamma(value.sum(-1) + 1) - ember.lgamma(value + 1).sum(-1) \
            + (logits * value).sum(-1)
