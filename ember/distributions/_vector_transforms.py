"""Transforms of whole vectors and matrices (event_dim >= 1): softmax and stick breaking
onto the simplex, the Cholesky/positive-definite/correlation-Cholesky maps, reshaping, the slice-wise
CatTransform/StackTransform, and CumulativeDistributionTransform. Exported by
``transforms``."""
import math

import ember

from . import constraints
from .transforms import Transform, _clipped_sigmoid
from .utils import finfo, lazy_property, sum_rightmost, tril_matrix_to_vec, vec_to_tril_matrix


class SoftmaxTransform(Transform):
    """Unconstrained vectors to the simplex by softmax (not bijective: its inverse is the
    log, one of many preimages)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    inverse_shape = forward_shape


class StickBreakingTransform(Transform):
    """Vectors of length K - 1 to the K-simplex by stick breaking: each coordinate takes
    a sigmoid share of what is left (shifted so that zeros map to the uniform vector)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _log_offset(n, like):
        # log(K - 1), log(K - 2), ..., log(1) for n = K - 1 entries
        return ember.arange(n, 0, -1, dtype=like.dtype).log()

    def _call(self, x):
        from ember.nn.functional import pad
        z = _clipped_sigmoid(x - self._log_offset(x.shape[-1], x))
        left = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(left, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        left = ember.clamp(1 - y_crop.cumsum(-1), min=float(finfo(y).tiny))
        return y_crop.log() - left.log() + self._log_offset(y_crop.shape[-1], y)

    def log_abs_det_jacobian(self, x, y):
        from ember.nn.functional import logsigmoid
        x = x - self._log_offset(x.shape[-1], x)
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones with a positive diagonal: keeps the strictly
    lower part and exponentiates the diagonal (not bijective on all matrices)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive-definite ones: ``L L^T`` of their LowerCholeskyTransform."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        L = LowerCholeskyTransform()(x)
        return L @ L.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(ember.linalg.cholesky(y))




class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of length D(D-1)/2 to Cholesky factors of D x D correlation
    matrices (lower triangular, positive diagonal, unit-norm rows). The vector fills the
    strictly lower triangle row by row; each row then goes through a signed stick breaking:
    ``r = tanh(x)``, and entry j keeps ``r_j`` times the length ``prod_{k<j} sqrt(1 - r_k^2)``
    the earlier entries left, the diagonal taking the rest."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        eps = float(finfo(x).eps)
        r = vec_to_tril_matrix(ember.tanh(x).clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # the length left before each entry of a row: 1, then cumulative sqrt(1 - r^2)
        left = (1 - r ** 2).sqrt().cumprod(-1)
        left = ember.nn.functional.pad(left[..., :-1], [1, 0], value=1)
        return (r + ember.eye(r.shape[-1], dtype=r.dtype)) * left

    def _inverse(self, y):
        left = 1 - ember.cumsum(y * y, dim=-1)
        left = ember.nn.functional.pad(left[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # stick breaking: half the log of the length left before each strictly-lower entry
        # except the first of each row; tanh: log(1 - tanh(x)^2), written stably
        left = 1 - (y * y).cumsum(dim=-1)
        stick = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = -2 * (x + ember.nn.functional.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dimensions to ``out_shape`` (volume preserving:
    log|det J| = 0)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = ember.Size(in_shape)
        self.out_shape = ember.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        """The constraint inputs satisfy."""
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        """The constraint outputs satisfy."""
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        return x.reshape(tuple(x.shape[:x.dim() - len(self.in_shape)]) + tuple(self.out_shape))

    def _inverse(self, y):
        return y.reshape(tuple(y.shape[:y.dim() - len(self.out_shape)]) + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(x.shape[:x.dim() - len(self.in_shape)])

    @staticmethod
    def _swap_tail(shape, old, new):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {old}")
        return shape[:cut] + new

    def forward_shape(self, shape):
        return self._swap_tail(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap_tail(shape, self.out_shape, self.in_shape)


def _check_dim(t, dim, size, expected, name, what):
    """torch's AssertionErrors for a slice-wise transform given the wrong tensor."""
    if not (-t.dim() <= dim < t.dim()):
        raise AssertionError(f"dim {dim} out of range for {what} with {t.dim()} dimensions")
    if t.size(dim) != size:
        raise AssertionError(f"{name}.size({dim}) = {t.size(dim)} must equal {expected}")


def _all_transforms(tseq):
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")


class CatTransform(Transform):
    """Applies ``tseq[i]`` to consecutive slices of ``lengths[i]`` along ``dim`` (as
    ``torch.cat`` joins them)."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        _all_transforms(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        """The total length along ``dim``."""
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, z):
        start = 0
        for t, n in zip(self.transforms, self.lengths):
            yield t, z.narrow(self.dim, start, n)
            start += n

    def _call(self, x):
        _check_dim(x, self.dim, self.length, f"length {self.length}", 'x', 'tensor')
        return ember.cat([t(s) for t, s in self._slices(x)], dim=self.dim)

    def _inverse(self, y):
        _check_dim(y, self.dim, self.length, f"length {self.length}", 'y', 'tensor')
        return ember.cat([t.inv(s) for t, s in self._slices(y)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_dim(x, self.dim, self.length, f"length {self.length}", 'x', 'x')
        _check_dim(y, self.dim, self.length, f"length {self.length}", 'y', 'y')
        terms = []
        for (t, xs), (_, ys) in zip(self._slices(x), self._slices(y)):
            terms.append(sum_rightmost(t.log_abs_det_jacobian(xs, ys),
                                       self.event_dim - t.event_dim))
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        if dim < 0:  # dim is a batch dimension: the terms line up along it
            return ember.cat(terms, dim=dim)
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        """The constraint inputs satisfy."""
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        """The constraint outputs satisfy."""
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies ``tseq[i]`` to ``x.select(dim, i)`` (as ``torch.stack`` joins them)."""

    def __init__(self, tseq, dim=0, cache_size=0):
        _all_transforms(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _expect(self, z, name, what):
        n = len(self.transforms)
        _check_dim(z, self.dim, n, f"len(transforms) {n}", name, what)

    def _call(self, x):
        self._expect(x, 'x', 'tensor')
        return ember.stack([t(s) for s, t in zip(self._slice(x), self.transforms)], self.dim)

    def _inverse(self, y):
        self._expect(y, 'y', 'tensor')
        return ember.stack([t.inv(s) for s, t in zip(self._slice(y), self.transforms)],
                           self.dim)

    def log_abs_det_jacobian(self, x, y):
        self._expect(x, 'x', 'x')
        self._expect(y, 'y', 'y')
        return ember.stack([t.log_abs_det_jacobian(a, b) for a, b, t in
                            zip(self._slice(x), self._slice(y), self.transforms)], self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        """The constraint inputs satisfy."""
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        """The constraint outputs satisfy."""
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """A distribution's CDF as a transform onto the unit interval (its inverse is the
    icdf, its log-det-Jacobian the log density)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        """The distribution's support."""
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
