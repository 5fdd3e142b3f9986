"""LowRankMultivariateNormal(loc, cov_factor, cov_diag): covariance W W^T + diag(D)."""
import math

import ember

from . import constraints
from .distribution import Distribution
from .multivariate_normal import batch_mahalanobis, batch_mv, tril_solve
from .utils import lazy_property, standard_normal

__all__ = ['LowRankMultivariateNormal']


def capacitance_tril(W, D):
    """The Cholesky factor of the capacitance ``I + W^T D^-1 W`` (m x m, m the rank):
    the one matrix factorised, so the cost is linear in the dimension."""
    K = ember.matmul(W.mT / D.unsqueeze(-2), W) + ember.eye(W.size(-1), dtype=W.dtype)
    return ember.linalg.cholesky(K)


def lowrank_logdet(D, cap_tril):
    """log det(W W^T + diag D) by the matrix determinant lemma."""
    return 2 * cap_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def lowrank_mahalanobis(W, D, x, cap_tril):
    """x^T (W W^T + diag D)^-1 x by the Woodbury identity."""
    Wt_Dinv_x = batch_mv(W.mT / D.unsqueeze(-2), x)
    return (x.pow(2) / D).sum(-1) - batch_mahalanobis(cap_tril, Wt_Dinv_x)


class LowRankMultivariateNormal(Distribution):
    """A multivariate normal whose covariance is low rank plus diagonal,
    ``cov_factor @ cov_factor.mT + diag(cov_diag)``::

        >>> d = LowRankMultivariateNormal(ember.zeros(2), ember.ones(2, 1), ember.ones(2))
        >>> d.covariance_matrix
        tensor([[2., 1.],
                [1., 2.]])
    """

    arg_constraints = {'loc': constraints.real_vector,
                       'cov_factor': constraints.independent(constraints.real, 2),
                       'cov_diag': constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, diag_ = ember.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(LowRankMultivariateNormal, batch_shape, _instance,
                             ('loc', 'cov_diag', 'cov_factor'))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The diagonal of the covariance."""
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag) \
            .expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self):
        """The Cholesky factor of the covariance: sqrt(D) chol(I + D^-1/2 W W^T D^-1/2)."""
        sqrt_d = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled = self._unbroadcasted_cov_factor / sqrt_d
        K = ember.matmul(scaled, scaled.mT) + ember.eye(self._event_shape[0],
                                                        dtype=scaled.dtype)
        return (sqrt_d * ember.linalg.cholesky(K)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """W W^T + diag(D)."""
        W = self._unbroadcasted_cov_factor
        return (ember.matmul(W, W.mT) + ember.diag_embed(self._unbroadcasted_cov_diag)) \
            .expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """The inverse covariance by the Woodbury identity."""
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = tril_solve(self._capacitance_tril, Wt_Dinv)
        return (ember.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A) \
            .expand(self._matrix_shape())

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        eps_w = standard_normal(tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:]),
                                self.loc.dtype)
        eps_d = standard_normal(shape, self.loc.dtype)
        return self.loc + batch_mv(self._unbroadcasted_cov_factor, eps_w) \
            + self._unbroadcasted_cov_diag.sqrt() * eps_d

    def _log_det(self):
        return lowrank_logdet(self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                value - self.loc, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + m)

    def entropy(self):
        h = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
