"""Wishart(df, covariance_matrix | precision_matrix | scale_tril): random positive-definite
matrices, the law of ``sum_k x_k x_k^T`` for ``df`` Gaussian vectors."""
import math
import numbers
import warnings

import ember

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import precision_to_scale_tril
from .utils import finfo, lazy_property

__all__ = ['Wishart']

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function: sum of digamma(x - i/2), i < p."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    half_steps = ember.arange(p, dtype=x.dtype) / 2
    return ember.digamma(x.unsqueeze(-1) - half_steps).sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution with ``df`` degrees of freedom (greater than dim - 1) and
    scale matrix given by exactly one of ``covariance_matrix``, ``precision_matrix`` (its
    inverse) or ``scale_tril`` (its lower Cholesky factor). Draws use the Bartlett
    decomposition (reparameterised); a draw that comes out singular (possible when
    ``df < dim``) is redrawn up to ``max_try_correction`` times::

        >>> Wishart(ember.tensor(4.0), ember.eye(2)).mean
        tensor([[4., 0.],
                [0., 4.]])
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {'covariance_matrix': constraints.positive_definite,
                'precision_matrix': constraints.positive_definite,
                'scale_tril': constraints.lower_cholesky,
                'df': constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [(n, p) for n, p in (('covariance_matrix', covariance_matrix),
                                     ('precision_matrix', precision_matrix),
                                     ('scale_tril', scale_tril)) if p is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        name, param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = ember.Size(param.shape[:-2])
            self.df = ember.tensor(df, dtype=param.dtype)
        else:
            batch_shape = ember.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        dim = event_shape[-1]
        if bool(self.df.le(dim - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{dim - 1}.")
        setattr(self, name, param.expand(tuple(batch_shape) + (-1, -1)))
        if bool(self.df.lt(dim).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if name == 'scale_tril':
            self._unbroadcasted_scale_tril = param
        elif name == 'covariance_matrix':
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(param)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(param)
        self._dist_chi2 = self._bartlett_chi2(self.df, batch_shape)

    def _bartlett_chi2(self, df, batch_shape):
        """The Chi2(df - i) laws of the Bartlett factor's squared diagonal, i < dim."""
        steps = ember.arange(self._event_shape[-1],
                             dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(df=df.unsqueeze(-1) - steps.expand(tuple(batch_shape) + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Wishart, batch_shape, _instance,
                             ('covariance_matrix', 'precision_matrix', 'scale_tril'))
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._dist_chi2 = new._bartlett_chi2(new.df, batch_shape)
        return new

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor of the scale matrix."""
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        """The scale matrix."""
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        """The inverse of the scale matrix."""
        eye = ember.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return ember.cholesky_solve(eye, self._unbroadcasted_scale_tril).expand(
            self._batch_shape + self._event_shape)

    def _df_matrix(self, df=None):
        return (self.df if df is None else df).view(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = ember.where(factor <= 0, math.nan, factor)  # no mode for df <= dim + 1
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        p = self._event_shape[-1]
        eps = float(finfo(self._unbroadcasted_scale_tril).eps)
        diag = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=eps)
        rows, cols = ember.tril_indices(p, p, offset=-1)
        below = ember.zeros(tuple(sample_shape) + tuple(self._batch_shape) + (p, p),
                            dtype=diag.dtype)
        below[..., rows, cols] = ember.randn(
            tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,),
            dtype=diag.dtype)
        chol = self._unbroadcasted_scale_tril @ (below + diag.diag_embed())
        return chol @ chol.mT

    def _singular(self, sample):
        """Per draw (over sample_shape): whether any matrix of its batch is singular."""
        bad = ~self.support.check(sample)
        if self._batch_shape:
            bad = bad.reshape(tuple(bad.shape[:bad.dim() - len(self._batch_shape)]) + (-1,))
            bad = bad.any(-1)
        return bad

    def rsample(self, sample_shape=ember.Size(), max_try_correction=None):
        """Bartlett-decomposition draws; singular ones are redrawn up to
        ``max_try_correction`` (default 10) times, with a warning. (torch 2.13 warns
        "Singular sample detected." on every call, singular or not; ember only when a
        singular draw occurs.)"""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = ember.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        singular = self._singular(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                fresh = self._bartlett_sampling(sample_shape)
                mask = singular.reshape(tuple(singular.shape) + (1,) * (
                    sample.dim() - singular.dim()))
                sample = ember.where(mask, fresh, sample)
                singular = singular & self._singular(fresh)
                if not bool(singular.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        log_det_L = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = ember.cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return -nu * (p * _LOG_2 / 2 + log_det_L) - ember.mvlgamma(nu / 2, p=p) \
            + (nu - p - 1) / 2 * ember.linalg.slogdet(value).logabsdet - trace / 2

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        log_det_L = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (p + 1) * (p * _LOG_2 / 2 + log_det_L) + ember.mvlgamma(nu / 2, p=p) \
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-ember.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) \
            + ember.mvlgamma(y + (p + 1) / 2, p=p)
