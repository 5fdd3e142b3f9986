"""The Bessel-type functions of ``ember.special`` (torch.special's twins): Bessel functions of
the first and second kind (``bessel_j0/j1/y0/y1``), modified Bessel functions
(``modified_bessel_i0/i1/k0/k1``), the exponentially scaled ``scaled_modified_bessel_k0/k1``,
``spherical_bessel_j0`` and the Airy function ``airy_ai``.

The kernels are ``scipy.special``'s (imported on first use; without scipy these functions
raise ModuleNotFoundError naming the ``ember[scipy]`` extra), except the modified Bessel
functions i0 and i1, which are ember's own (``_specfun``, the ones ``ember.i0`` uses). Every
dtype computes in float64 and rounds once; integers and bools give the default float dtype;
half precision and complex are refused, as torch refuses them.

torch gives none of these a derivative: the result never requires grad.

Where torch's own kernels differ from scipy's (correct) values, ember keeps scipy's: torch's
float64 ``bessel_j0/j1/y0/y1`` and ``airy_ai`` have single-precision accuracy (absolute
errors up to 4e-7 for j0, 9e-7 for y1 near x = 5, 3e-6 for airy_ai near x = -2.1), and its
``airy_ai`` gives finite values for |x| beyond 1e9 where scipy gives nan (for x > 0, ember
gives 0, the limit).
"""
import numpy as np

from . import _scipy, _specfun
from .pointwise import _unary
from .special import float_double_only, _in_float64

__all__ = ['BESSEL']

BESSEL = {}   # name -> implementation (ember.special names them)


def _from_scipy(name, fn):
    """The float64 kernel ``fn(scipy.special, x)`` of ``ember.special.<name>``."""
    def kernel(x):
        return fn(_scipy.require('ember.special.' + name), x)
    return kernel


def _airy_ai(sp, x):
    r = sp.airy(x)[0]
    return np.where(np.isnan(r) & (x > 0) & (x < np.inf), 0.0, r)  # (scipy: nan past 1e9)


_KERNELS = {
    'bessel_j0': _from_scipy('bessel_j0', lambda sp, x: sp.j0(x)),
    'bessel_j1': _from_scipy('bessel_j1', lambda sp, x: sp.j1(x)),
    'bessel_y0': _from_scipy('bessel_y0', lambda sp, x: sp.y0(x)),
    'bessel_y1': _from_scipy('bessel_y1', lambda sp, x: sp.y1(x)),
    'modified_bessel_i0': _specfun.i0,
    'modified_bessel_i1': _specfun.i1,
    'modified_bessel_k0': _from_scipy('modified_bessel_k0', lambda sp, x: sp.k0(x)),
    'modified_bessel_k1': _from_scipy('modified_bessel_k1', lambda sp, x: sp.k1(x)),
    'scaled_modified_bessel_k0': _from_scipy('scaled_modified_bessel_k0',
                                             lambda sp, x: sp.k0e(x)),
    'scaled_modified_bessel_k1': _from_scipy('scaled_modified_bessel_k1',
                                             lambda sp, x: sp.k1e(x)),
    'spherical_bessel_j0': _from_scipy('spherical_bessel_j0',
                                       lambda sp, x: sp.spherical_jn(0, x)),
    'airy_ai': _from_scipy('airy_ai', _airy_ai),
}

_DOCS = {
    'bessel_j0': 'The Bessel function of the first kind, order 0',
    'bessel_j1': 'The Bessel function of the first kind, order 1',
    'bessel_y0': 'The Bessel function of the second kind, order 0 (nan below 0)',
    'bessel_y1': 'The Bessel function of the second kind, order 1 (nan below 0)',
    'modified_bessel_i0': 'The modified Bessel function of the first kind, order 0',
    'modified_bessel_i1': 'The modified Bessel function of the first kind, order 1',
    'modified_bessel_k0': 'The modified Bessel function of the second kind, order 0',
    'modified_bessel_k1': 'The modified Bessel function of the second kind, order 1',
    'scaled_modified_bessel_k0': '``exp(input) * modified_bessel_k0(input)``',
    'scaled_modified_bessel_k1': '``exp(input) * modified_bessel_k1(input)``',
    'spherical_bessel_j0': 'The spherical Bessel function of the first kind, order 0 '
                           '(``sin(x) / x``)',
    'airy_ai': 'The Airy function Ai',
}


# the functions whose argument torch calls ``x`` (``special.airy_ai(x=t)``; the others take
# ``input``)
_NAMED_X = ('airy_ai', 'spherical_bessel_j0', 'scaled_modified_bessel_k0',
            'scaled_modified_bessel_k1')


def _taking_x(kernel):
    """``kernel`` with its argument named ``x``, as torch's signature names it."""
    def fn(x, *, out=None):
        return kernel(x, out=out)
    fn.__name__ = fn.__qualname__ = kernel.__name__
    fn.__doc__ = kernel.__doc__
    return fn


for _name, _fn in _KERNELS.items():
    BESSEL[_name] = _unary('special_' + _name, _in_float64(_fn), None, public=False, inplace_ok=False,
                           check=float_double_only(_name + '_cpu'),
                           doc=_DOCS[_name] + ', elementwise; not differentiable (as in torch).')
    if _name in _NAMED_X:
        BESSEL[_name] = _taking_x(BESSEL[_name])
del _name, _fn
