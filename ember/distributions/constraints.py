"""Constraints: the sets a distribution's parameters and samples live in.

A constraint's ``check(value)`` returns a boolean tensor over the value's batch dimensions
(its last ``event_dim`` dimensions are one event). Names and reprs are torch's, so the
validation messages read the same::

    >>> from ember.distributions import constraints
    >>> constraints.positive
    GreaterThan(lower_bound=0.0)
    >>> constraints.positive.check(ember.tensor([1.0, -1.0]))
    tensor([ True, False])
"""
import ember

__all__ = [
    'Constraint', 'boolean', 'cat', 'corr_cholesky', 'dependent', 'dependent_property',
    'greater_than', 'greater_than_eq', 'half_open_interval', 'independent', 'integer_interval',
    'interval', 'is_dependent', 'less_than', 'lower_cholesky', 'lower_triangular',
    'MixtureSameFamilyConstraint', 'multinomial', 'nonnegative', 'nonnegative_integer',
    'one_hot', 'positive', 'positive_definite', 'positive_integer', 'positive_semidefinite',
    'real', 'real_vector', 'simplex', 'square', 'stack', 'symmetric', 'unit_interval',
]


class Constraint:
    """A region of values; ``check(value)`` says, per event, whether it lies inside.

    ``is_discrete`` and ``event_dim`` (how many rightmost dimensions form one event) describe
    the region."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A boolean tensor of shape ``value.shape[:value.dim() - event_dim]``."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + '()'


class _Dependent(Constraint):
    """A placeholder for a parameter whose valid values depend on other parameters; it
    cannot be checked. Calling it gives a copy with static ``is_discrete``/``event_dim``."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(
            is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
            event_dim=self._event_dim if event_dim is NotImplemented else event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a dependent (uncheckable) one."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """``@constraints.dependent_property``: a property on an instance (e.g. Uniform's
    support, built from its bounds) and a dependent constraint on the class."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """Treats ``reinterpreted_batch_ndims`` more dimensions as part of the event: an event
    is valid when all its entries are."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError("base_constraint must be a Constraint, got "
                                 f"{type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int):
            raise AssertionError("reinterpreted_batch_ndims must be an int, got "
                                 f"{type(reinterpreted_batch_ndims).__name__}")
        if reinterpreted_batch_ndims < 0:
            raise AssertionError("reinterpreted_batch_ndims must be >= 0, got "
                                 f"{reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        ok = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if ok.dim() < n:
            raise ValueError(f"Expected value.dim() >= {self.base_constraint.event_dim + n} "
                             f"but got {value.dim()}")
        return ok.reshape(ok.shape[:ok.dim() - n] + (-1,)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__[1:]}({self.base_constraint!r}, " \
               f"{self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(Constraint):
    """The support of a MixtureSameFamily: its component's, checked per component and then
    required of every component (the mixture dimension sits left of the event)."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError("base_constraint must be a Constraint, got "
                                 f"{type(base_constraint).__name__}")
        self.base_constraint = base_constraint

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        # Every component's support must hold the value: broadcast it over the mixture
        # dimension (just left of the event), then require all.
        ok = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return ok.reshape(ok.shape[:value.dim() - self.event_dim] + (-1,)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _OneBound(Constraint):
    """Shared by the one-sided constraints: the bound and torch's repr of it."""

    def __init__(self, bound):
        setattr(self, self._bound_name, bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}({self._bound_name}={getattr(self, self._bound_name)})"


class _TwoBounds(Constraint):
    """Shared by the intervals: the bounds and torch's repr of them."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, " \
               f"upper_bound={self.upper_bound})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _IntegerInterval(_TwoBounds):
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerLessThan(_OneBound):
    is_discrete = True
    _bound_name = 'upper_bound'

    def check(self, value):
        return (value % 1 == 0) & (value <= self.upper_bound)


class _IntegerGreaterThan(_OneBound):
    is_discrete = True
    _bound_name = 'lower_bound'

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    def check(self, value):
        return value == value  # False exactly at NaN


class _GreaterThan(_OneBound):
    _bound_name = 'lower_bound'

    def check(self, value):
        return self.lower_bound < value


class _GreaterThanEq(_OneBound):
    _bound_name = 'lower_bound'

    def check(self, value):
        return self.lower_bound <= value


class _LessThan(_OneBound):
    _bound_name = 'upper_bound'

    def check(self, value):
        return value < self.upper_bound


class _Interval(_TwoBounds):
    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_TwoBounds):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


def _all_matrix(mask):
    """Reduces a (..., n, m) boolean mask to (...,): True where every entry is."""
    return mask.reshape(mask.shape[:-2] + (-1,)).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _all_matrix(value.tril() == value)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _all_matrix(value.tril() == value) & positive_diagonal


class _CorrCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        from .utils import finfo
        tol = finfo(value).eps * value.size(-1) * 10  # the factor 10 is torch's slack
        row_norm = ember.linalg.norm(value.detach(), dim=-1)
        return _LowerCholesky().check(value) & ((row_norm - 1.0).abs() <= tol).all(-1)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return ember.full(value.shape[:-2], value.shape[-2] == value.shape[-1],
                          dtype=ember.bool)


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        return _all_matrix(ember.isclose(value, value.mT, atol=1e-6))


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return (ember.linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        from .utils import cholesky_succeeds
        return cholesky_succeeds(value)


class _Cat(Constraint):
    """Applies a sequence of constraints to consecutive slices along ``dim`` (of
    ``lengths``, default 1 each)."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq "
                                 f"({len(self.cseq)})")
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        checks, start = [], 0
        for c, n in zip(self.cseq, self.lengths):
            checks.append(c.check(value.narrow(self.dim, start, n)))
            start += n
        return ember.cat(checks, self.dim)


class _Stack(Constraint):
    """Applies a sequence of constraints to the slices ``value.select(dim, i)``."""

    def __init__(self, cseq, dim=0):
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value):
        return ember.stack([c.check(value.select(self.dim, i))
                            for i, c in enumerate(self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
