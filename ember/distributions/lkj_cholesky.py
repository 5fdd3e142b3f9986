"""LKJCholesky(dim, concentration): Cholesky factors of random correlation matrices."""
import math

import ember

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ['LKJCholesky']


class LKJCholesky(Distribution):
    """The LKJ distribution over ``dim x dim`` correlation matrices, density proportional to
    ``det(M)^(concentration - 1)``, given on their lower Cholesky factors ``L``. Samples come
    from the onion method: row i is a uniform direction scaled by the square root of a Beta
    draw, the diagonal completing the unit norm::

        >>> LKJCholesky(3, 0.5).sample().shape
        torch.Size([3, 3])
    """

    arg_constraints = {'concentration': constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # row i's squared off-diagonal length is Beta(i/2, c + (dim - 2)/2 - (i - 1)/2)
        # (row 0 has none; its Beta is drawn and discarded, as torch does)
        offset = ember.arange(dim - 1, dtype=self.concentration.dtype)
        offset = ember.cat([offset.new_zeros((1,)), offset])
        marginal = self.concentration + 0.5 * (dim - 2)
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), ember.Size((dim, dim)),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(LKJCholesky, batch_shape, _instance, ('concentration',))
        new.dim = self.dim
        new._beta = self._beta.expand(ember.Size(batch_shape) + (self.dim,))
        return new

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = ember.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            norm = u.norm(dim=-1, keepdim=True)
            # row 0 has no off-diagonal entries: its direction is zero, not 0/0
            u = ember.where(norm > 0, u / ember.where(norm > 0, norm, 1.0), 0.0)
            w = y.sqrt() * u
            tiny = float(ember.finfo(w.dtype).tiny)
            diag = (1 - (w ** 2).sum(-1)).clamp(min=tiny).sqrt()
            return w + ember.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        # L_ii carries the exponent 2(c - 1) + dim - i for i = 2..dim
        order = ember.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalised = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_norm = 0.5 * dm1 * math.log(math.pi) + ember.mvlgamma(alpha - 0.5, dm1) \
            - ember.lgamma(alpha) * dm1
        return unnormalised - log_norm
