"""Transforms: invertible maps with a log |det Jacobian|, to build distributions from others
(TransformedDistribution) and to move between constrained and unconstrained spaces.

``t(x)`` maps forward, ``t.inv(y)`` back; ``t.log_abs_det_jacobian(x, y)`` is summed over
the transform's event dimensions. ``cache_size=1`` remembers the last pair, so inverting a
value the transform itself produced returns the original tensor exactly::

    >>> t = ExpTransform(cache_size=1)
    >>> x = ember.tensor([0.0, 1.0])
    >>> t.inv(t(x)) is x
    True
"""
import math
import numbers

import ember

from . import constraints
from .utils import broadcast_all, finfo, lazy_property, sum_rightmost

__all__ = ['Transform', 'ComposeTransform', 'ExpTransform', 'AffineTransform',
           'SigmoidTransform', 'TanhTransform', 'PowerTransform', 'SoftmaxTransform',
           'StickBreakingTransform', 'AbsTransform', 'IndependentTransform',
           'SoftplusTransform', 'LowerCholeskyTransform', 'PositiveDefiniteTransform',
           'ReshapeTransform', 'CatTransform', 'StackTransform',
           'CumulativeDistributionTransform', 'CorrCholeskyTransform', 'identity_transform']


class Transform:
    """Base of the transforms: subclasses give ``_call``, ``_inverse``,
    ``log_abs_det_jacobian``, ``domain``/``codomain`` and ``bijective``/``sign``."""

    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv = None
        if cache_size:
            self._cached_x_y = None, None

    def __getstate__(self):
        state = self.__dict__.copy()
        state['_inv'] = None  # the inverse points back at us: rebuilt on demand
        return state

    @property
    def event_dim(self):
        """Dimensions of one event, where domain and codomain agree."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (``t.inv.inv is t``)."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        """The sign of the Jacobian's determinant, for monotone univariate transforms."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if not self._cache_size:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if not self._cache_size:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """log |dy/dx| for the pair ``y = t(x)``, summed over the event dimensions."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__ + '()'

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform, sharing its cache."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The constraint inputs satisfy."""
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The constraint outputs satisfy."""
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Applies ``parts`` in order (``parts[0]`` first); the empty composition is the
    identity."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The constraint inputs satisfy."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim,
                            part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The constraint outputs satisfy."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim,
                            part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        if self._inv is None:
            self._inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv._inv = self
        return self._inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return ember.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms, event_dim = [], self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            # Each part's term covers its own event dims; sum the rest of ours.
            terms.append(sum_rightmost(part.log_abs_det_jacobian(a, b),
                                       event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return type(self).__name__ + '(\n    ' + \
            ',\n    '.join(repr(p) for p in self.parts) + '\n)'


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Wraps a transform so that ``reinterpreted_batch_ndims`` more dimensions count as
    its event (its log-det-Jacobian is summed over them)."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The constraint inputs satisfy."""
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The constraint outputs satisfy."""
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                             self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, " \
               f"{self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class _Elementwise(Transform):
    """A bijective, increasing, elementwise transform: transforms of one class are equal."""

    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, type(self))

    __hash__ = object.__hash__


class ExpTransform(_Elementwise):
    """y = exp(x)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


def _softplus(x):
    from ember.nn.functional import softplus
    return softplus(x)


def _clipped_sigmoid(x):
    """sigmoid(x) kept inside (0, 1) for the dtype, so its inverse stays finite."""
    info = finfo(x)
    return ember.clamp(ember.sigmoid(x), min=float(info.tiny), max=1.0 - float(info.eps))


class SigmoidTransform(_Elementwise):
    """y = sigmoid(x) (clipped into the open unit interval)."""

    domain = constraints.real
    codomain = constraints.unit_interval

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        info = finfo(y)
        y = y.clamp(min=float(info.tiny), max=1.0 - float(info.eps))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x) - _softplus(x)


class SoftplusTransform(_Elementwise):
    """y = log(1 + exp(x))."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x)


class TanhTransform(_Elementwise):
    """y = tanh(x); its log-det-Jacobian is written to stay finite for large |x|."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return 0.5 * (ember.log1p(y) - ember.log1p(-y))  # atanh

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x))
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class AbsTransform(Transform):
    """y = |x| (not injective; its inverse picks the positive root)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class PowerTransform(Transform):
    """y = x ** exponent on positive x."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    @property
    def sign(self):
        return self.exponent.sign()

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return ember.broadcast_shapes(shape, getattr(self.exponent, 'shape', ()))

    inverse_shape = forward_shape


class AffineTransform(Transform):
    """y = loc + scale * x; ``event_dim`` says how many rightmost dimensions form one
    event (the log-det-Jacobian is summed over them)."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The constraint inputs satisfy."""
        return constraints.real if self.event_dim == 0 else \
            constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The constraint outputs satisfy."""
        return constraints.real if self.event_dim == 0 else \
            constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((a == b).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Number):
            s = float(self.scale)
            return 1 if s > 0 else -1 if s < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = x.shape
        if isinstance(self.scale, numbers.Number):
            result = ember.full_like(x, math.log(abs(self.scale)))
        else:
            result = ember.abs(self.scale).log()
        if self.event_dim:
            result = result.reshape(result.shape[:-self.event_dim] + (-1,)).sum(-1)
            shape = shape[:-self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return ember.broadcast_shapes(shape, getattr(self.loc, 'shape', ()),
                                      getattr(self.scale, 'shape', ()))

    inverse_shape = forward_shape




# Transforms of whole vectors and matrices live in their own module (built on the above).
from ._vector_transforms import (CatTransform, CorrCholeskyTransform,  # noqa: E402
                                 CumulativeDistributionTransform,
                                 LowerCholeskyTransform, PositiveDefiniteTransform,
                                 ReshapeTransform, SoftmaxTransform, StackTransform,
                                 StickBreakingTransform)
