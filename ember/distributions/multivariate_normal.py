"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril)."""
import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import lazy_property, standard_normal

__all__ = ['MultivariateNormal']


def batch_mv(bmat, bvec):
    """Matrix-vector products over broadcast batch dimensions."""
    return ember.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def tril_solve(L, b):
    """``L^-1 b`` for lower-triangular ``L`` (..., n, n) and matrices ``b`` (..., n, k),
    batch dimensions broadcast. ``L.tril()`` keeps the gradient lower-triangular, as a
    triangular solve's is."""
    batch = ember.broadcast_shapes(L.shape[:-2], b.shape[:-2])
    return ember.linalg.solve(L.tril().expand(tuple(batch) + tuple(L.shape[-2:])),
                              b.expand(tuple(batch) + tuple(b.shape[-2:])))


def batch_mahalanobis(L, x):
    """The squared Mahalanobis norm ``x^T (L L^T)^-1 x`` over broadcast batches."""
    return tril_solve(L, x.unsqueeze(-1)).squeeze(-1).pow(2).sum(-1)


def batch_trace_xxt(m):
    """trace(M M^T) of each matrix in a batch: the sum of its squared entries."""
    return m.reshape(tuple(m.shape[:-2]) + (-1,)).pow(2).sum(-1)


def _eye_like(m):
    return ember.eye(m.shape[-1], dtype=m.dtype)


def precision_to_scale_tril(P):
    """The lower Cholesky factor of ``P^-1`` without forming the inverse: factor ``P``
    with its rows and columns reversed (an upper-times-lower factorisation of P), then
    invert that triangular factor."""
    Lf = ember.linalg.cholesky(ember.flip(P, (-2, -1)))
    L_inv = ember.flip(Lf, (-2, -1)).mT
    return tril_solve(L_inv, _eye_like(P)).tril()


class MultivariateNormal(Distribution):
    """The multivariate normal over the last dimension of ``loc``, given by exactly one of
    its covariance, precision, or lower-triangular scale (``cov = L L^T``)::

        >>> d = MultivariateNormal(ember.zeros(2), ember.eye(2))
        >>> d.log_prob(ember.zeros(2))
        tensor(-1.8379)
    """

    arg_constraints = {'loc': constraints.real_vector,
                       'covariance_matrix': constraints.positive_definite,
                       'precision_matrix': constraints.positive_definite,
                       'scale_tril': constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(n, m) for n, m in (('covariance_matrix', covariance_matrix),
                                     ('precision_matrix', precision_matrix),
                                     ('scale_tril', scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, matrix = given[0]
        if matrix.dim() < 2:
            what = 'scale_tril matrix' if name == 'scale_tril' else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch_shape = ember.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == 'scale_tril':
            self._unbroadcasted_scale_tril = matrix
        elif name == 'covariance_matrix':
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(MultivariateNormal, batch_shape, _instance,
                             ('loc', 'covariance_matrix', 'scale_tril', 'precision_matrix'))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor of the covariance."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """The covariance ``L L^T``."""
        L = self._unbroadcasted_scale_tril
        return ember.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """The inverse covariance."""
        # As a function of the whole matrix (torch's cholesky_inverse differentiates so).
        L_inv = ember.linalg.inv(self._unbroadcasted_scale_tril)
        return ember.matmul(L_inv.mT, L_inv).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=ember.Size()):
        eps = standard_normal(self._extended_shape(sample_shape), self.loc.dtype)
        return self.loc + batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) \
            - self._half_log_det()

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
