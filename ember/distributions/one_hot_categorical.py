"""OneHotCategorical: a Categorical whose draws are one-hot vectors (event shape (K,))."""
import ember

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ['OneHotCategorical', 'OneHotCategoricalStraightThrough']


class OneHotCategorical(Distribution):
    """A one-hot vector with its 1 at class ``k`` with probability ``probs[..., k]``::

        >>> d = OneHotCategorical(probs=ember.tensor([0.0, 1.0]))
        >>> d.sample()
        tensor([0., 1.])
    """

    arg_constraints = {'probs': constraints.simplex, 'logits': constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, ember.Size(batch_shape), self.event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """Normalised probabilities."""
        return self._categorical.probs

    @property
    def logits(self):
        """Normalised log-probabilities."""
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        return ember.nn.functional.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        """Shape of the parameter the distribution was made from."""
        return self._categorical.param_shape

    def sample(self, sample_shape=ember.Size()):
        probs = self._categorical.probs
        indices = self._categorical.sample(ember.Size(sample_shape))
        return ember.nn.functional.one_hot(indices, self._categorical._num_events) \
            .to(probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        values = ember.eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand((n,) + tuple(self.batch_shape) + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose ``rsample`` passes gradients straight through to ``probs``
    (the draw plus ``probs - probs.detach()``)."""

    has_rsample = True

    def rsample(self, sample_shape=ember.Size()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs  # cached: computed once
        return samples + (probs - probs.detach())
