"""MixtureSameFamily: a Categorical mixture over the rightmost batch dimension of one
component distribution."""
import ember

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ['MixtureSameFamily']


class MixtureSameFamily(Distribution):
    """A mixture whose components are the last batch dimension of
    ``component_distribution``, weighted by ``mixture_distribution`` (a Categorical)::

        >>> from ember.distributions import Categorical, Normal
        >>> mix = Categorical(ember.ones(2))
        >>> d = MixtureSameFamily(mix, Normal(ember.tensor([-1.0, 1.0]), ember.ones(2)))
        >>> d.mean
        tensor(0.)
    """

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(mdbs), reversed(cdbs)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                                 f"compatible with `component_distribution.batch_shape`({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(batch_shape=cdbs, event_shape=component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = ember.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape, new._component_distribution.event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        """The Categorical over components."""
        return self._mixture_distribution

    @property
    def component_distribution(self):
        """The components, batched along the last batch dimension."""
        return self._component_distribution

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        # The law of total variance: E[Var | k] + Var[E | k].
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        comp = self.component_distribution
        within = (probs * comp.variance).sum(-1 - self._event_ndims)
        between = (probs * (comp.mean - self._pad(self.mean)).pow(2.0)).sum(
            -1 - self._event_ndims)
        return within + between

    def cdf(self, x):
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix = ember.log_softmax(self.mixture_distribution.logits, dim=-1)
        return ember.logsumexp(log_prob_x + log_mix, dim=-1)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = tuple(self.event_shape)
            which = self.mixture_distribution.sample(sample_shape)
            comp = self.component_distribution.sample(sample_shape)
            index = which.reshape(tuple(which.shape) + (1,) * (len(es) + 1))
            index = index.repeat((1,) * which.dim() + (1,) + es)
            return comp.gather(gather_dim, index).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        """Reshapes mixture weights (B', K) to line up with component moments (B, K, E)."""
        dist_nd, cat_nd = len(self.batch_shape), len(self.mixture_distribution.batch_shape)
        pad = 0 if cat_nd == 1 else dist_nd - cat_nd
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad + xs[-1:] + (1,) * self._event_ndims)

    def __repr__(self):
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  " \
               f"{self.component_distribution})"
