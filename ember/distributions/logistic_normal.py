"""LogisticNormal(loc, scale): a Normal pushed onto the simplex by stick breaking."""
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ['LogisticNormal']


class LogisticNormal(TransformedDistribution):
    """The distribution of ``StickBreakingTransform()(Y)`` for ``Y ~ Normal(loc, scale)``
    over the last dimension: a K-vector ``loc`` gives points of the (K+1)-simplex::

        >>> LogisticNormal(ember.zeros(3), ember.ones(3)).event_shape
        torch.Size([4])
    """

    arg_constraints = {'loc': constraints.real, 'scale': constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:  # scalar parameters: a one-coordinate event
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The Normal's mean (one entry fewer than the event)."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        """The Normal's standard deviation."""
        return self.base_dist.base_dist.scale
