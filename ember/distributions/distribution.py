"""The Distribution base class: shapes, argument validation, and the interface every
family fills in (sample/rsample, log_prob, cdf/icdf, entropy, moments, expand)."""
import warnings

import ember

from . import constraints
from .utils import lazy_property

__all__ = ['Distribution']


class Distribution:
    """A batch of probability distributions of one family.

    ``batch_shape`` is the shape of the batch of independent distributions, ``event_shape``
    the shape of one draw; ``sample(sample_shape)`` returns
    ``sample_shape + batch_shape + event_shape``. With validation on (the default unless
    Python runs with ``-O``), parameters are checked against ``arg_constraints`` when the
    distribution is made and values against ``support`` when they are scored, raising
    ValueError with torch's messages::

        >>> d = ember.distributions.Normal(ember.tensor(0.0), ember.tensor(1.0))
        >>> d.sample((3,)).shape
        torch.Size([3])
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turns argument validation on or off for distributions made afterwards without
        an explicit ``validate_args``."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=ember.Size(), event_shape=ember.Size(), validate_args=None):
        self._batch_shape = ember.Size(batch_shape)
        self._event_shape = ember.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()
        super().__init__()

    def _check_parameters(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                          "`arg_constraints = {}` or initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=3)
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param, None),
                                                         lazy_property):
                continue  # not given: computed from another parameter, valid by construction
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        """A distribution with the batch expanded to ``batch_shape`` (parameters are
        expanded views, not copies; no re-validation)."""
        raise NotImplementedError

    def _expanded(self, cls, batch_shape, _instance, names, event_shape=None):
        """The common body of ``expand``: a new ``cls`` instance whose parameters ``names``
        (those set on self) are expanded views over ``batch_shape``; each keeps its own
        trailing (event/category) dimensions."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = ember.Size(batch_shape)
        for name in names:
            if name in self.__dict__:
                value = self.__dict__[name]
                trailing = tuple(value.shape[len(self.batch_shape):])
                setattr(new, name, value.expand(tuple(batch_shape) + trailing))
        Distribution.__init__(new, batch_shape,
                              self.event_shape if event_shape is None else event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single draw."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """A dict from parameter name to the Constraint it must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The Constraint that samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean, of shape batch_shape + event_shape."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode, of shape batch_shape + event_shape."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance, of shape batch_shape + event_shape."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation (square root of the variance)."""
        return self.variance.sqrt()

    def sample(self, sample_shape=ember.Size()):
        """Draws ``sample_shape`` samples (no gradient); for families with ``rsample`` this
        is ``rsample`` under no_grad."""
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=ember.Size()):
        """Draws reparameterised samples: differentiable in the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        """Deprecated: ``sample((n,))``."""
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(ember.Size((n,)))

    def log_prob(self, value):
        """The log density (or mass) of ``value``, of shape broadcast over the batch."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete distribution's support along a new leftmost dimension,
        expanded over the batch if ``expand``."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, of shape batch_shape."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy)``."""
        return ember.exp(self.entropy())

    def _extended_shape(self, sample_shape=ember.Size()):
        return ember.Size(tuple(sample_shape) + tuple(self._batch_shape) +
                          tuple(self._event_shape))

    def _validate_sample(self, value):
        if not isinstance(value, ember.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = value.dim() - len(self._event_shape)
        if value.size()[start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=3)
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        shown = []
        for p in self.arg_constraints:
            if p in self.__dict__:
                v = self.__dict__[p]
                shown.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(shown)})"
