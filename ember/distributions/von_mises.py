"""VonMises(loc, concentration): the circular normal on [-pi, pi)."""
import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_params

__all__ = ['VonMises']

# Abramowitz & Stegun 9.8.1-9.8.4: polynomial approximations of I0 and I1 (below 3.75, in
# (x/3.75)^2) and of x^0.5 e^-x I0/I1 (above, in 3.75/x). torch scores with the same
# approximations, so log_prob and variance agree with it to the last bit, not just to 1e-7.
_SMALL = ([1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
          [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3])
_LARGE = ([0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
           0.2635537e-1, -0.1647633e-1, 0.392377e-2],
          [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
           0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2])


def _poly(y, coefs):
    """Horner's rule: coefs[0] + y * (coefs[1] + y * (...))."""
    out = coefs[-1]
    for c in reversed(coefs[:-1]):
        out = c + y * out
    return out


def _log_bessel_i(x, order):
    """log I_order(x) for x > 0, order 0 or 1 (the approximations above)."""
    y = (x / 3.75).pow(2)
    small = _poly(y, _SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _poly(3.75 / x, _LARGE[order]).log()
    return ember.where(x < 3.75, small.log(), large)


class VonMises(Distribution):
    """The von Mises distribution on the circle, density proportional to
    ``exp(concentration * cos(x - loc))``; ``mean`` and ``variance`` are the circular ones.
    Samples (Best & Fisher's rejection method, in float64) lie in [-pi, pi)::

        >>> VonMises(0.0, 1.0).log_prob(ember.tensor(0.0))
        tensor(-1.0738)
    """

    arg_constraints = {'loc': constraints.real, 'concentration': constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        (self.loc, self.concentration), batch_shape = broadcast_params(loc, concentration)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(VonMises, batch_shape, _instance, ('loc', 'concentration'))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        k = self.concentration
        return 1 - (_log_bessel_i(k, 1) - _log_bessel_i(k, 0)).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.concentration * ember.cos(value - self.loc) - math.log(2 * math.pi) \
            - _log_bessel_i(self.concentration, 0)

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            # float64 throughout: in float32 the acceptance test stalls for tiny kappa.
            loc = self.loc.to(ember.float64).expand(shape)
            kappa = self.concentration.to(ember.float64).expand(shape)
            tau = 1 + (1 + 4 * kappa ** 2).sqrt()
            rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
            # the envelope's parameter, by its Taylor expansion where rho underflows
            r = ember.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
            x = ember.zeros(shape, dtype=ember.float64)
            done = ember.zeros(shape, dtype=ember.bool)
            while not bool(done.all()):
                u1, u2, u3 = ember.rand((3,) + tuple(shape), dtype=ember.float64).unbind()
                z = ember.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = ~done & (((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0))
                x = ember.where(accept, (u3 - 0.5).sign() * f.acos(), x)
                done = done | accept
            return ((x + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)
