"""The special functions torch has beyond ``special.py``'s: erfc (also ``ember.erfc`` and the
Tensor methods), erfcx, ndtr, ndtri, log_ndtr, entr, i0e, i1, i1e, xlog1py, zeta, and the
regularized incomplete gamma functions igamma/igammac (``ember.igamma``, ``Tensor.igamma``,
``ember.special.gammainc``...).

Kernels: ember's own float64 kernels where it has them (i0e, i1e: ``_specfun``; erfc:
``_erf``), else ``scipy.special``'s (erfcx, ndtri, log_ndtr, zeta, gammainc, gammaincc),
imported on first use; without scipy those raise ModuleNotFoundError naming the extra.
Every dtype computes in float64 and rounds to its own; integer and bool inputs give the
default float dtype; the dtypes torch refuses (complex everywhere, half precision for the
functions torch only has float/double kernels for) raise its NotImplementedError.

Derivatives are torch's formulas written with ember ops (so they differentiate again); torch
has none for the first argument of zeta, igamma and igammac, and neither has ember: the
backward raises torch's "the derivative for ... is not implemented" there.
"""
import math

import numpy as np

from .. import _dtype
from ._core import Node, Tensor, dtype_of, inplace, register, result, track
from ..autograd.forward_ad import FWD, tangent_of
from . import _scipy, _specfun
from ._erf import erfc as _erfc
from .arrange import _by_scalar, MulBackward1, AddBackward1
from .pointwise import _unary, _not_implemented_for, _TORCH_INPLACE_FUNCTIONS, erf, where
from .special import (float_double_only, _in_float64, _saved0, _must_be_tensor, _float_operands,
                      _write_out,
                      _xlog_kernel, _xlog_self_grad, _number_tensor_op, _i1, lgamma)

__all__ = ['erfc', 'erfcx', 'ndtr', 'ndtri', 'log_ndtr', 'entr', 'i0e', 'i1', 'i1e', 'xlog1py',
           'zeta', 'igamma', 'igammac']

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)
_SQRT1_2 = math.sqrt(0.5)


# The functions only ember.special names are built as 'special_<name>', torch's name for them
# in its messages ("special_entr(): argument 'input' ...").
def _scipy_kernel(op, name):
    """A kernel for ``_unary``: ``scipy.special.<name>`` in float64, rounded back."""
    def kernel(x):
        sp = _scipy.require(op)
        return np.asarray(getattr(sp, name)(x.astype(np.float64))).astype(x.dtype, copy=False)
    return kernel


def _eps_of(x):
    from .._finfo import of_array_dtype  # (loaded on first use, as ember.finfo)
    return of_array_dtype(x._data.dtype).eps


# -- erfc, erfcx ---------------------------------------------------------------------------------
class ErfcBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        return g * (-_TWO_OVER_SQRT_PI * (-(x * x)).exp())


_TORCH_INPLACE_FUNCTIONS.add('erfc_')
erfc = _unary('erfc', _erfc, ErfcBackward0, save='input',
              check=_not_implemented_for('erfc_vml_cpu', 'c'),
              doc="The complementary error function ``1 - erf(input)``, elementwise (computed "
                  "directly: full relative precision in the tail).")


class SpecialErfcxBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        return g * (2 * x * erfcx(x) - _TWO_OVER_SQRT_PI)


erfcx = _unary('special_erfcx', _scipy_kernel('ember.special.erfcx', 'erfcx'), SpecialErfcxBackward0,
               save='input', public=False, inplace_ok=False,
               check=float_double_only('erfcx_cpu'),
               doc="The scaled complementary error function ``exp(input**2) erfc(input)``.")


# -- the normal distribution: ndtr, ndtri, log_ndtr ----------------------------------------------
def ndtr(input, *, out=None):
    """The standard normal CDF, ``(1 + erf(input / sqrt(2))) / 2``, computed (and recorded
    for autograd) as that composite, as torch does."""
    _must_be_tensor(input, 'special_ndtr', 'input', 1)
    t = _by_scalar(_by_scalar(erf(_by_scalar(input, _SQRT1_2, MulBackward1, np.multiply)),
                              1, AddBackward1, np.add), 0.5, MulBackward1, np.multiply)
    return _write_out(out, t) if out is not None else t


class SpecialNdtriBackward0(Node):
    def backward(self, g):
        r = _saved0(self)
        return g * (_SQRT_2PI * (r * r / 2).exp())


ndtri = _unary('special_ndtri', _scipy_kernel('ember.special.ndtri', 'ndtri'), SpecialNdtriBackward0,
               save='result', public=False, inplace_ok=False,
               check=float_double_only('ndtri_cpu'),
               doc="The inverse of the standard normal CDF (``ndtr``), elementwise.")


class SpecialLogNdtrBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        return g / _SQRT_2PI * (-(log_ndtr(x) + x * x / 2)).exp()


log_ndtr = _unary('special_log_ndtr', _scipy_kernel('ember.special.log_ndtr', 'log_ndtr'),
                  SpecialLogNdtrBackward0, save='input', public=False, inplace_ok=False,
                  check=float_double_only('log_ndtr_cpu'),
                  doc="``log(ndtr(input))``, accurate far into the lower tail.")


# -- entr ----------------------------------------------------------------------------------------
def _entr(x):
    w = x.astype(np.float64)
    r = np.where(w > 0, -w * np.log(np.where(w > 0, w, 1)), np.where(w == 0, 0.0, -np.inf))
    return np.where(np.isnan(w), w, r).astype(x.dtype, copy=False)


class SpecialEntrBackward0(Node):
    def backward(self, g):
        return g * -(1 + _saved0(self).log())


entr = _unary('special_entr', _entr, SpecialEntrBackward0, save='input', public=False,
              inplace_ok=False, check=_not_implemented_for('entr_cpu', 'c'),
              doc="The elementwise entropy ``-input * log(input)`` (0 at 0, -inf below).")


# -- the scaled modified Bessel functions i0e, i1e, and i1 --------------------------------------
class SpecialI0EBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        return g * (i1e(x) - x.sgn() * i0e(x))


i0e = _unary('special_i0e', _in_float64(_specfun.i0e), SpecialI0EBackward0, save='input',
             public=False, inplace_ok=False, check=_not_implemented_for('i0e_cpu', 'c'),
             doc="The exponentially scaled modified Bessel function of the first kind, order "
                 "0: ``exp(-|input|) i0(input)``.")


class SpecialI1EBackward0(Node):
    """i1e'(x) = i0e(x) - i1e(x) (sgn(x) + 1/x), taken as 1/2 at |x| <= eps (torch's
    i1e_backward)."""

    def backward(self, g):
        x = _saved0(self)
        not_tiny = x.abs() > _eps_of(x)
        safe = where(not_tiny, x, 1.0)
        return g * where(not_tiny, i0e(safe) - i1e(safe) * (safe.sgn() + safe.reciprocal()),
                         0.5)


i1e = _unary('special_i1e', _in_float64(_specfun.i1e), SpecialI1EBackward0, save='input',
             public=False, inplace_ok=False, check=_not_implemented_for('i1e_cpu', 'c'),
             doc="The exponentially scaled modified Bessel function of the first kind, order "
                 "1: ``exp(-|input|) i1(input)``.")

_check_i1 = _not_implemented_for('i1_cpu', 'c')


def i1(input, *, out=None):
    """The modified Bessel function of the first kind, order 1, elementwise."""
    _must_be_tensor(input, 'special_i1', 'input', 1)
    _check_i1(input._data)
    t = _i1(input)
    return _write_out(out, t) if out is not None else t


# -- xlog1py, zeta ---------------------------------------------------------------------------
def _log1p(y):
    return y.log1p() if isinstance(y, Tensor) else np.log1p(y)


class SpecialXlog1PyBackward0(Node):
    def backward(self, g):
        x, y = self.saved_tensors
        return _xlog_self_grad(g, x, y, _log1p, -1), g * x / (y + 1)


class SpecialXlog1PyBackward1(Node):
    """xlog1py with a number as ``self``."""

    def backward(self, g):
        return None, g * self.self_ / (_saved0(self) + 1)


class SpecialXlog1PyBackward2(Node):
    """xlog1py with a number as ``other``."""

    def backward(self, g):
        return _xlog_self_grad(g, _saved0(self), self.other, _log1p, -1), None


_xlog1py = _xlog_kernel(np.log1p)


def xlog1py(input, other, *, out=None):
    """``input * log1p(other)``, elementwise, with 0 where ``input`` is 0 (unless ``other``
    is nan). Either operand may be a number."""
    return _number_tensor_op('special_xlog1py', 'xlog1py', _xlog1py,
                             (SpecialXlog1PyBackward0, SpecialXlog1PyBackward1,
                              SpecialXlog1PyBackward2), input, other, out)


def _no_forward_ad(op, *inputs):
    """torch has no forward-mode formula for igamma, igammac and zeta: its error, raised when
    an input carries a tangent."""
    if FWD.level is not None and any(isinstance(t, Tensor) and tangent_of(t) is not None
                                     for t in inputs):
        raise NotImplementedError(f"Trying to use forward AD with {op} that does not support "
                                  "it because it has not been implemented yet.")


def _not_differentiable(what):
    return NotImplementedError(f"the derivative for '{what}' is not implemented.")


class SpecialZetaBackward0(Node):
    def backward(self, g):
        x, q = self.saved_tensors
        if self.next_functions[0][0] is not None:
            raise _not_differentiable('zeta')
        return None, g * -x * zeta(x + 1, q)


class SpecialZetaBackward1(Node):
    """zeta with a number as ``self`` (the exponent)."""

    def backward(self, g):
        return None, g * -self.self_ * zeta(self.self_ + 1, _saved0(self))


class SpecialZetaBackward2(Node):
    """zeta with a number as ``other``: torch has no derivative in the exponent."""

    def backward(self, g):
        raise _not_differentiable('zeta')


def _zeta(x, q):
    sp = _scipy.require('ember.special.zeta')
    s, q = x.astype(np.float64), q.astype(np.float64)
    r = np.asarray(sp.zeta(s, q))
    # torch: nan at q = +inf (scipy: the limit, 0), except for s = 1 (inf, as for any q)
    return np.where((q == np.inf) & (s != 1), np.nan, r).astype(x.dtype)


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function ``sum_k (other + k) ** -input``, elementwise (Riemann's
    for ``other`` = 1). Either operand may be a number."""
    _no_forward_ad('special_zeta', input, other)
    return _number_tensor_op('special_zeta', 'zeta', _zeta,
                             (SpecialZetaBackward0, SpecialZetaBackward1, SpecialZetaBackward2),
                             input, other, out, check=float_double_only('zeta_cpu'))


# -- igamma, igammac (gammainc, gammaincc) -----------------------------------------------------
def _igamma_grad(a, x):
    """d/dx of the regularized lower incomplete gamma: x^(a-1) e^-x / Gamma(a)."""
    return ((a - 1) * x.log() - x - lgamma(a)).exp()


class IgammaBackward0(Node):
    def backward(self, g):
        a, x = self.saved_tensors
        if self.next_functions[0][0] is not None:
            raise _not_differentiable('igamma: input')
        return None, g * _igamma_grad(a, x)


class IgammacBackward0(Node):
    def backward(self, g):
        a, x = self.saved_tensors
        if self.next_functions[0][0] is not None:
            raise _not_differentiable('igammac: input')
        return None, -g * _igamma_grad(a, x)


def _nan_operand_ends(a, x, r, lower):
    """torch's kernel tests the ends (x = 0, x = inf, a = inf) before it looks at NaN, so a
    NaN in the other operand still gives the end's value (igamma(nan, 0) = 0, igamma(inf,
    nan) = 0); scipy answers NaN. Writes those into ``r`` (the broadcast result)."""
    nan_a, nan_x = np.isnan(a), np.isnan(x)
    if not (nan_a.any() or nan_x.any()):
        return
    zero, one = (0.0, 1.0) if lower else (1.0, 0.0)
    a, x = np.broadcast_to(a, r.shape), np.broadcast_to(x, r.shape)
    nan_a, nan_x = np.broadcast_to(nan_a, r.shape), np.broadcast_to(nan_x, r.shape)
    r[nan_a & (x == 0)] = zero
    r[nan_a & (x == np.inf)] = one
    r[nan_x & (a == np.inf)] = zero


def _incomplete_gamma(op, kernel, node_type, input, other, out):
    _must_be_tensor(input, op, 'input', 1)
    _must_be_tensor(other, op, 'other', 2)
    name = 'igammac' if node_type is IgammacBackward0 else 'igamma'
    dt = _dtype.promote_tensors(dtype_of(input), input._data.ndim, dtype_of(other),
                                other._data.ndim)
    if not (dt.is_floating_point or dt.is_complex):   # (torch does not promote integers here)
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dt.kernel_name}\'')
    a, x = _float_operands(input, other, name)
    _no_forward_ad(name, input, other)
    sp = _scipy.require(op.replace('special_', 'special.').join(('ember.', '')))
    a64, x64 = a.astype(np.float64), x.astype(np.float64)
    r = np.asarray(getattr(sp, kernel)(a64, x64))
    _nan_operand_ends(a64, x64, r, kernel == 'gammainc')
    node = track(node_type, (input, other))
    if node is not None:
        node.save(input, other)
    t = result(r.astype(a.dtype, copy=False), node)
    return _write_out(out, t) if out is not None else t


@register
def igamma(input, other, *, out=None):
    """The regularized lower incomplete gamma function ``P(input, other)``, elementwise
    (``ember.special.gammainc``); differentiable in ``other`` only, as in torch."""
    return _incomplete_gamma('igamma', 'gammainc', IgammaBackward0, input, other, out)


@register
def igammac(input, other, *, out=None):
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``,
    elementwise (``ember.special.gammaincc``); differentiable in ``other`` only."""
    return _incomplete_gamma('igammac', 'gammaincc', IgammacBackward0, input, other, out)


@register(function=False)
def igamma_(self, other):
    """In-place ``igamma``."""
    return inplace(self, igamma, (other,), 'igamma_')


@register(function=False)
def igammac_(self, other):
    """In-place ``igammac``."""
    return inplace(self, igammac, (other,), 'igammac_')


def gammainc(input, other, *, out=None):
    """``ember.igamma`` (the regularized lower incomplete gamma function)."""
    return _incomplete_gamma('special_gammainc', 'gammainc', IgammaBackward0, input, other, out)


def gammaincc(input, other, *, out=None):
    """``ember.igammac`` (the regularized upper incomplete gamma function)."""
    return _incomplete_gamma('special_gammaincc', 'gammaincc', IgammacBackward0, input, other,
                             out)
