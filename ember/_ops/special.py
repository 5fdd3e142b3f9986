"""Special functions and the remaining pointwise ops of torch's namespace: lgamma, digamma,
polygamma, mvlgamma, erfinv, i0, sinc, logit, xlogy, deg2rad/rad2deg; gcd, lcm, ldexp, frexp,
isreal, isin; complex, polar, view_as_real, view_as_complex.

The special functions compute in float64 with the vectorised kernels of ``_specfun`` (NumPy
has none of them) and round to the input's dtype; integer and bool inputs give the default
float dtype, as in torch. Each differentiable op has its Node, named as torch names its
grad_fn, whose backward is written in ember ops (so double backward works): lgamma's
derivative is digamma, digamma's is polygamma(1, .), polygamma(n, .)'s is polygamma(n + 1, .)
and i0's is i1 (an internal op here, torch's ``special_i1``).

``view_as_real`` and ``view_as_complex`` are true views, sharing memory with their input and
its version counter; the half-precision forms of ``complex`` and ``view_as_complex`` make
complex32 (torch's experimental ComplexHalf, two float16 fields here). A lazily conjugated
tensor (``conj()``) has no real view: "unresolved conjugated tensors", as in torch.
"""
import builtins
import math

import numpy as np

from .. import _dtype
from ..autograd.grad_mode import STATE
from ..autograd.graph import name_saved_values
from ._core import (Node, Tensor, make, opmath_call, register, track, track1, track_scalar, result, results,
                    check_broadcast, inplace, view_of, is_scalar, dtype_of)
from . import _specfun
from ._args import _got
from . import pointwise as _pw
from .pointwise import _unary, _not_implemented_for, _write_out, where
from .complex import conj_if_complex as cj, conj, real, imag
from .reduce import _named

__all__ = ['lgamma', 'digamma', 'polygamma', 'mvlgamma', 'erfinv', 'i0', 'sinc', 'logit',
           'xlogy', 'deg2rad', 'rad2deg', 'gcd', 'lcm', 'ldexp', 'frexp', 'isreal', 'isin',
           'complex', 'polar', 'view_as_real', 'view_as_complex']

_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2
_PI_180 = math.pi / 180
_180_PI = 180 / math.pi
_LN2 = math.log(2.0)

# torch also exposes these in-place forms as functions (torch.sinc_, ...).
_pw._TORCH_INPLACE_FUNCTIONS.update({'sinc_', 'i0_', 'deg2rad_', 'rad2deg_'})


def _saved0(node):
    return node.saved_tensors[0]


def _in_float64(fn):
    """A kernel for ``_unary``: ``fn`` (a float64 ``_specfun`` function) on the input's values,
    rounded back to the input's float dtype."""
    def kernel(x):
        if x.dtype == np.float64:
            return fn(x)
        return fn(x.astype(np.float64)).astype(x.dtype)
    return kernel


def float_double_only(kernel):
    """A dtype check raising torch's NotImplementedError for the dtypes a function with only
    float and double kernels refuses (complex, float16, bfloat16)."""
    def check(x):
        if x.dtype.kind in 'cV' or x.dtype == np.float16:
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_dtype.FROM_NP[x.dtype].kernel_name}'")
    return check


def _invalid_arguments(op, args, kwargs=None):
    """torch's TypeError for a call matching none of an op's signatures (its first line)."""
    return TypeError(f"{op}() received an invalid combination of arguments - got "
                     f"{_got(args, kwargs)}, but expected one of:")


def _must_be_tensor(x, op, arg, pos):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _must_be_int(x, op, arg, pos):
    if type(x) is not int and not isinstance(x, np.integer):
        raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be int, not "
                        f"{type(x).__name__}")
    return int(x)


def _float_dtype(dt):
    """``dt`` if floating or complex, else the default float dtype (ints and bools)."""
    return dt if dt.category >= _dtype.FLOAT else _dtype.DEFAULT.float


# -- lgamma, digamma, polygamma --------------------------------------------------------------
class LgammaBackward0(Node):
    def backward(self, g):
        return g * digamma(_saved0(self))


class DigammaBackward0(Node):
    def backward(self, g):
        return g * polygamma(1, _saved0(self))


class PolygammaBackward0(Node):
    def backward(self, g):
        return g * polygamma(self.n + 1, _saved0(self))


class PolygammaBackward1(PolygammaBackward0):
    """The in-place form's node (torch names it apart)."""


lgamma = _unary('lgamma', _in_float64(_specfun.lgamma), LgammaBackward0, save='input',
                check=_not_implemented_for('lgamma_vml_cpu', 'c'),
                doc="``log|Gamma(input)|``, elementwise (+inf at the poles 0, -1, -2, ...).")
digamma = _unary('digamma', _in_float64(_specfun.digamma), DigammaBackward0, save='input',
                 check=_not_implemented_for('digamma', 'c'),
                 doc="The logarithmic derivative of Gamma, elementwise (as torch: -inf at 0, "
                     "+inf at -0.0, nan at the negative integers).")


def _polygamma(n, input, out=None, node_type=PolygammaBackward0, op='polygamma'):
    n = _must_be_int(n, op, 'n', 1)
    _must_be_tensor(input, 'polygamma', 'input', 2)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = input._data
    if x.dtype.kind == 'c':
        kernel = 'digamma' if n == 0 else 'trigamma' if n == 1 else 'polygamma'
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtype_of(input).kernel_name}'")
    if x.dtype.kind not in 'fV':
        x = x.astype(_dtype.DEFAULT.np_float)
    r = _in_float64(lambda a: _specfun.polygamma(n, a))(x)
    node = track1(node_type, input)
    if node is not None:
        node.n = n
        node._saved = ((input, input._vc[0]),)
    t = result(np.asarray(r), node)
    return _write_out(out, t) if out is not None else t


@register(method=False)
def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of digamma (``n`` >= 0), elementwise. At the poles (0 and the
    negative integers) the result is the pole's infinity -- also for ``n = 1``, where torch's
    kernel gives a large finite number at the negative integers."""
    return _polygamma(n, input, out)


@register(function=False, name='polygamma')
def _polygamma_method(self, n):
    """``ember.polygamma(n, self)``."""
    return _polygamma(n, self)


@register(function=False)
def polygamma_(self, n):
    """In-place ``polygamma``: ``self = polygamma(n, self)``."""
    _must_be_int(n, 'polygamma_', 'n', 1)
    return inplace(self, lambda t: _polygamma(n, t, node_type=PolygammaBackward1), (),
                   'polygamma_')


class MvlgammaBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        return g * digamma(x.unsqueeze(-1) + make(self.offsets.astype(x._data.dtype))).sum(-1)


def _mvlgamma_checks(input, p, op='mvlgamma', pos=2):
    _must_be_tensor(input, op, 'input', 1)
    p = _must_be_int(p, op, 'p', pos)
    x = input._data
    if x.dtype.kind == 'b':
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if x.dtype.kind == 'c':
        raise NotImplementedError(
            f"\"arange_cpu\" not implemented for '{dtype_of(input).kernel_name}'")
    return p


@register
def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma function of dimension ``p``:
    ``sum_{j<p} lgamma(input - j/2) + p (p - 1)/4 log(pi)``, elementwise.

    torch 2.13 no longer checks the domain (``input > (p - 1)/2``): outside it the result is
    what the sum gives (+inf where a term hits a pole), as here."""
    p = _mvlgamma_checks(input, p)
    x = input._data
    dt = x.dtype if x.dtype.kind in 'fV' else _dtype.DEFAULT.np_float
    if out is not None and not (out.dtype.is_floating_point or out.dtype.is_complex):
        # (torch's words name the input's dtype and then the result's)
        raise RuntimeError(f"mvlgamma: result type {dtype_of(input).kernel_name} can't be "
                           f"cast to the desired output type "
                           f"{_dtype.FROM_NP[np.dtype(dt)].kernel_name}")
    offsets = -0.5 * np.arange(p - 1, -1, -1, dtype=np.float64)  # -(p-1)/2, ..., -1/2, 0
    const = p * (p - 1) * math.log(math.pi) / 4
    if np.dtype(dt).itemsize == 2:
        # (torch composes it in the half dtype: each argument, term, sum and the constant's
        # addition rounded to it -- near a pole of lgamma, x - j/2's rounding matters)
        xs = (x.astype(np.float32)[..., None] + offsets.astype(np.float32)).astype(dt)
        terms = _specfun.lgamma(xs.astype(np.float64)).astype(dt).astype(np.float32)
        # (the constant, a Python number, meets the half tensor as torch's CPU scalars do:
        # cast to its dtype first)
        r = (terms.sum(-1).astype(dt).astype(np.float32) +
             np.asarray(const, np.float32).astype(dt).astype(np.float32))
    else:
        xs = x.astype(np.float64)[..., None] + offsets
        r = _specfun.lgamma(xs).sum(-1) + const
    node = track1(MvlgammaBackward0, input)
    if node is not None:
        node.offsets = offsets
        node._saved = ((input, input._vc[0]),)
    t = result(np.asarray(r.astype(dt)), node)
    return _write_out(out, t) if out is not None else t


@register(function=False)
def mvlgamma_(self, p):
    """In-place ``mvlgamma``."""
    p = _mvlgamma_checks(self, p, 'mvlgamma_', 1)
    if self._data.dtype.kind in 'iu':
        raise RuntimeError(f"mvlgamma: result type {dtype_of(self).kernel_name} can't be cast "
                           f"to the desired output type {_dtype.DEFAULT.float.kernel_name}")
    return inplace(self, lambda t: mvlgamma(t, p), (), 'mvlgamma_')


# -- erfinv, i0, sinc, deg2rad, rad2deg ------------------------------------------------------
class ErfinvBackward0(Node):
    def backward(self, g):
        r = _saved0(self)
        return g * (_SQRT_PI_OVER_2 * (r * r).exp())


erfinv = _unary('erfinv', _in_float64(_specfun.erfinv), ErfinvBackward0, save='result',
                check=_not_implemented_for('erfinv_vml_cpu', 'c'), named=False,
                doc="The inverse error function, elementwise (+-inf at +-1, nan outside "
                    "[-1, 1]).")


class SpecialI1Backward0(Node):
    """i1'(x) = i0(x) - i1(x)/x, taken as 1/2 at |x| <= eps (torch's i1_backward)."""

    def backward(self, g):
        x, r = self.saved_tensors
        from .._finfo import of_array_dtype  # (loaded on first use, as ember.finfo)
        eps = of_array_dtype(x._data.dtype).eps
        not_tiny = x.abs() > eps
        safe = where(not_tiny, x, eps)
        return g * where(not_tiny, i0(safe) - r * safe.reciprocal(), 0.5)


def _i1(input):
    """torch's ``special_i1``: the modified Bessel function of the first kind, order 1 (the
    derivative of i0; not public in ember)."""
    x = input._data
    if x.dtype.kind not in 'fV':
        x = x.astype(_dtype.DEFAULT.np_float)
    node = track1(SpecialI1Backward0, input)
    r = result(np.asarray(_in_float64(_specfun.i1)(x)), node)
    if node is not None:
        node.save_output(r)
        node._saved = ((input, input._vc[0]),) + node._saved
    return r


class I0Backward0(Node):
    def backward(self, g):
        return g * _i1(_saved0(self))


i0 = _unary('i0', _in_float64(_specfun.i0), I0Backward0, save='input',
            check=_not_implemented_for('i0_vml_cpu', 'c'),
            doc="The modified Bessel function of the first kind, order 0, elementwise.")


def _sinc(x):
    w = x.astype(np.float32) if x.dtype == np.float16 else x  # (torch computes half in float)
    p = w * np.pi
    r = np.where(w == 0, 1, np.sin(p) / p)
    return r.astype(x.dtype, copy=False)


class SincBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        px = x * math.pi
        d = where(x == 0, 0.0, (px * px.cos() - px.sin()) / (px * x))
        return g * cj(d)


sinc = _unary('sinc', _sinc, SincBackward0, save='input',
              doc="The normalized sinc, ``sin(pi x) / (pi x)`` (1 at 0), elementwise.")


def _real_only(op):
    def check(x):
        if x.dtype.kind == 'c':
            raise RuntimeError(f"{op} is not supported for complex tensors.")
    return check


class Deg2RadBackward0(Node):
    def backward(self, g):
        return g * _PI_180


class Rad2DegBackward0(Node):
    def backward(self, g):
        return g * _180_PI


deg2rad = _unary('deg2rad', lambda x: x * _PI_180, Deg2RadBackward0, check=_real_only('deg2rad'),
                 doc="Degrees to radians: ``input * pi / 180``.")
rad2deg = _unary('rad2deg', lambda x: x * _180_PI, Rad2DegBackward0, check=_real_only('rad2deg'),
                 doc="Radians to degrees: ``input * 180 / pi``.")


# -- logit -------------------------------------------------------------------------------------
class LogitBackward0(Node):
    """torch's two formulas: its kernel (a plain backward) gives nan outside [0, 1] without
    eps (or with eps < 0) and 0 outside [eps, 1 - eps] with it, nan staying nan; the
    differentiable form (create_graph) gives 0 outside [eps, 1 - eps] for any eps, nan
    included, and nan outside [0, 1] only without eps."""

    def backward(self, g):
        x = _saved0(self)
        d = g / (x * (1 - x))
        eps = self.eps
        if eps is None or (eps < 0 and not STATE.enabled):
            return where((x < 0) | (x > 1), math.nan, d)
        if STATE.enabled:
            return where((x >= eps) & (x <= 1 - eps), d, 0.0)
        return where((x < eps) | (x > 1 - eps), 0.0, d)


def _log_odds(p):
    return np.log(p / (1 - p))


@register
def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``, elementwise; with ``eps`` (>= 0), ``p`` is first clamped to
    ``[eps, 1 - eps]``. Integer inputs give the default float dtype."""
    _must_be_tensor(input, 'logit', 'input', 1)
    x = input._data
    if x.dtype.kind == 'c':
        raise NotImplementedError(f"\"logit_cpu\" not implemented for "
                                  f"'{dtype_of(input).kernel_name}'")
    if x.dtype.kind not in 'fV':
        x = x.astype(_dtype.DEFAULT.np_float)
    z = x
    if eps is not None and eps >= 0:
        eps = float(eps)  # (a 1-element tensor too: NumPy defers to a tensor operand)
        lo, hi = eps, 1 - eps
        z = np.where(x < lo, lo, np.where(x > hi, hi, x)).astype(x.dtype, copy=False)
    r = np.asarray(_log_odds(z) if z.dtype.kind != 'V' else opmath_call(_log_odds, z))
    node = track1(LogitBackward0, input)
    if node is not None:
        node.eps = None if eps is None else float(eps)
        node._saved = ((input, input._vc[0]),)
    t = result(r, node)
    return _write_out(out, t) if out is not None else t


@register
def logit_(input, eps=None):
    """In-place ``logit``."""
    return inplace(input, lambda t: logit(t, eps), (), 'logit_')


# -- xlogy -------------------------------------------------------------------------------------
def _scalar_value(x):
    return x.item() if isinstance(x, (np.number, np.bool_)) else x


def _float_operands(input, other, op):
    """The two operands of a floating binary op as arrays of their promoted dtype (integers
    and bools promote to the default float); one of them may be a Python number."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        dt = _dtype.promote_tensors(dtype_of(input), input._data.ndim,
                                    dtype_of(other), other._data.ndim)
    elif isinstance(input, Tensor):
        dt = _dtype.result_type(dtype_of(input), other)
    else:
        dt = _dtype.result_type(dtype_of(other), input)
    dt = _float_dtype(dt)
    if dt.is_complex:
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{dt.kernel_name}'")
    x = input._data.astype(dt.np, copy=False) if isinstance(input, Tensor) else \
        np.asarray(input, dt.np)
    y = other._data.astype(dt.np, copy=False) if isinstance(other, Tensor) else \
        np.asarray(other, dt.np)
    check_broadcast(x.shape, y.shape)
    return x, y


def _xlog_kernel(log):
    """``x * log(y)``, with 0 where ``x`` is 0 (unless ``y`` is nan)."""
    def kernel(x, y):
        r = x * log(y)
        return np.asarray(np.where((x == 0) & ~np.isnan(y), 0, r).astype(r.dtype, copy=False))
    return kernel


def _xlog_self_grad(g, x, y, log, pole):
    """d/dx of ``x * log(y)`` as torch has it: ``xlogy(g, y)`` (0 where the gradient is 0,
    even where log(y) is NaN, unless y is NaN), and 0 where x == 0 and y is at or beyond
    log's pole (y <= 0 for log, y <= -1 for log1p)."""
    if isinstance(y, Tensor):
        r = g * where((x == 0) & (y <= pole), 0.0, log(y))
        return where((g == 0) & (y == y), 0.0, r) if (y <= pole).any() else r
    log_y = float(log(np.float64(y)))
    if y > pole:
        return g * log_y
    return where(g == 0, 0.0, g * where(x == 0, 0.0, log_y))


def _number_tensor_op(op, kernel_name, kernel, nodes, input, other, out, check=None):
    """A binary op of torch's three signatures (Tensor, Tensor), (Number, Tensor),
    (Tensor, Number), computing ``kernel`` on the float operands; ``nodes`` are its three
    grad_fn classes in that order (the number is kept as ``self_`` or ``other``), or None
    for an op without derivative."""
    input, other = _scalar_value(input), _scalar_value(other)
    ok = lambda v: isinstance(v, Tensor) or is_scalar(v)  # noqa: E731
    if not (ok(input) and ok(other)) or not (isinstance(input, Tensor) or
                                             isinstance(other, Tensor)):
        raise _invalid_arguments(op, (input, other))
    x, y = _float_operands(input, other, kernel_name)
    if check is not None:
        check(x)
    r = kernel(x, y)
    if nodes is None:   # (not differentiable)
        node = None
    elif isinstance(input, Tensor) and isinstance(other, Tensor):
        node = track(nodes[0], (input, other))
        if node is not None:
            node.save(input, other)
    elif isinstance(other, Tensor):
        node = track(nodes[1], (None, other))
        if node is not None:
            node.self_ = input
            node.save(other)
    else:
        node = track_scalar(nodes[2], input)
        if node is not None:
            node.other = other
            node.save(input)
    t = result(np.asarray(r), node)
    return _write_out(out, t) if out is not None else t


class XlogyBackward0(Node):
    def backward(self, g):
        x, y = self.saved_tensors
        return _xlog_self_grad(g, x, y, _log, 0), g * x / y


class XlogyBackward1(Node):
    """xlogy with a number as ``self``."""

    def backward(self, g):
        y = _saved0(self)
        return None, g * self.self_ / y


class XlogyBackward2(Node):
    """xlogy with a number as ``other``."""

    def backward(self, g):
        return _xlog_self_grad(g, _saved0(self), self.other, _log, 0), None


def _log(y):
    return y.log() if isinstance(y, Tensor) else np.log(y)


_xlogy = _xlog_kernel(np.log)


@register
def xlogy(input, other, *, out=None):
    """``input * log(other)``, elementwise, with 0 where ``input`` is 0 (unless ``other`` is
    nan). Either operand may be a number; integers give the default float dtype."""
    return _number_tensor_op('xlogy', 'xlogy', _xlogy,
                             (XlogyBackward0, XlogyBackward1, XlogyBackward2), input, other, out)


@register
def xlogy_(input, other):
    """In-place ``xlogy``."""
    return inplace(input, xlogy, (other,), 'xlogy_')


# -- gcd, lcm ----------------------------------------------------------------------------------
def _integer_operands(input, other, op):
    _must_be_tensor(input, op, 'input', 1)
    _must_be_tensor(other, op, 'other', 2)
    dt = _dtype.promote_tensors(dtype_of(input), input._data.ndim,
                                dtype_of(other), other._data.ndim)
    if dt.np.kind not in 'iu':
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{dt.kernel_name}'")
    x = input._data.astype(dt.np, copy=False)
    y = other._data.astype(dt.np, copy=False)
    check_broadcast(x.shape, y.shape)
    return x, y


def _lcm(x, y):
    # torch: |x / gcd * y|, wrapping on overflow (NumPy's lcm takes |x| and |y| first)
    g = np.gcd(x, y)
    zero = g == 0
    q = (x // np.where(zero, 1, g).astype(g.dtype)) * y
    return np.where(zero, 0, np.abs(q)).astype(g.dtype, copy=False)


@register
def gcd(input, other, *, out=None):
    """The greatest common divisor of integer tensors, elementwise (non-negative, except
    where ``abs`` overflows, as in torch)."""
    x, y = _integer_operands(input, other, 'gcd')
    t = make(np.asarray(np.gcd(x, y)))
    return _write_out(out, t) if out is not None else t


@register
def lcm(input, other, *, out=None):
    """The least common multiple of integer tensors, elementwise (wrapping on overflow)."""
    x, y = _integer_operands(input, other, 'lcm')
    t = make(np.asarray(_lcm(x, y)))
    return _write_out(out, t) if out is not None else t


def _check_inplace_cast(input, other):
    """torch's first check of an in-place binary op: the promoted dtype must cast to self's."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        dt = _dtype.promote_tensors(dtype_of(input), input._data.ndim,
                                    dtype_of(other), other._data.ndim)
        if not _dtype.can_cast(dt, dtype_of(input)):
            raise RuntimeError(f"result type {dt.kernel_name} can't be cast to the desired "
                               f"output type {dtype_of(input).kernel_name}")


@register
def gcd_(input, other):
    """In-place ``gcd``."""
    _check_inplace_cast(input, other)
    return inplace(input, gcd, (other,), 'gcd_')


@register
def lcm_(input, other):
    """In-place ``lcm``."""
    _check_inplace_cast(input, other)
    return inplace(input, lcm, (other,), 'lcm_')


# -- ldexp, frexp ------------------------------------------------------------------------------
def _pow2(e):
    """2 ** e computed as torch's pow(2, e) does: in e's dtype, so an integer exponent gives
    integer powers (0 for a negative exponent, wrapping past the dtype)."""
    a = e._data
    if a.dtype.kind in 'fcV':
        return e.exp2()
    a = a.astype(np.int64) if a.dtype.kind == 'b' else a
    bits = a.dtype.itemsize * 8
    p = np.where((a < 0) | (a >= bits), 0, np.left_shift(1, np.clip(a, 0, bits - 1)))
    return make(np.asarray(p.astype(a.dtype)))


class LdexpBackward0(Node):
    """torch's formulas, gradient * pow(2, other) and gradient * self * pow(2, other) * ln 2,
    with pow in other's dtype: for an integer other, the gradient of self is 0 wherever
    other is negative (the forward, computed in floats, is right)."""

    def backward(self, g):
        x, e = self.saved_tensors
        p = _pow2(e)
        ge = g * cj(x * p) * _LN2 if self.next_functions[1][0] is not None else None
        return g * cj(p), ge


@register
def ldexp(input, other, *, out=None):
    """``input * 2 ** other``, elementwise; integer results give the default float dtype."""
    _must_be_tensor(input, 'ldexp', 'input', 1)
    _must_be_tensor(other, 'ldexp', 'other', 2)
    a, b = dtype_of(input), dtype_of(other)
    if b in _dtype.BAREBONES_UNSIGNED and a.category == _dtype.FLOAT:
        # (a real floating input takes 2 ** other in other's own type)
        raise NotImplementedError(f'"ldexp_cpu_exp" not implemented for \'{b.kernel_name}\'')
    if a in _dtype.BAREBONES_UNSIGNED or b in _dtype.BAREBONES_UNSIGNED:
        # (torch multiplies by pow(2., other), of other's floating type or the default
        # one: uint16-uint64 meet only that float, which they promote with)
        b = _float_dtype(b)
    dt = _float_dtype(_dtype.promote_tensors(a, input._data.ndim, b, other._data.ndim))
    x = input._data.astype(dt.np, copy=False)
    # (a complex exponent stays complex: 2 ** (a + bi) turns as well as scales)
    e = other._data.astype(dt.np if other._data.dtype.kind == 'c' else dt.to_real().np,
                           copy=False)
    check_broadcast(x.shape, e.shape)
    # (torch multiplies by pow(2, other); for a complex exponent that is exp(other * log 2)
    # in complex arithmetic, so an infinite part makes the other part NaN, as exp2 does not)
    r = np.asarray(x * (np.exp(e * np.log(2)) if e.dtype.kind == 'c' else np.exp2(e))
                   ).astype(dt.np, copy=False)
    node = track(LdexpBackward0, (input, other))
    if node is not None:
        node.save(input, other)
    t = result(r, node)
    return _write_out(out, t) if out is not None else t


@register
def ldexp_(input, other):
    """In-place ``ldexp``."""
    _must_be_tensor(input, 'ldexp_', 'input', 1)
    if input._data.dtype.kind not in 'fcV':  # (before the shapes: torch's ldexp_ checks it
        from ._args import stands               # ahead of the mul_ it is made of)
        raise stands(RuntimeError(f"ldexp can't be cast to the desired output type "
                                  f"{dtype_of(input).kernel_name}"))
    return inplace(input, ldexp, (other,), 'ldexp_')


frexp_type = _named('frexp', ('mantissa', 'exponent'))


class FrexpBackward0(Node):
    def backward(self, g_mantissa, g_exponent=None):
        return g_mantissa / self.exponent.exp2()


@register
def frexp(input, *, out=None):
    """Splits floats into ``mantissa`` (in (-1, -0.5] or [0.5, 1), or 0) and int32
    ``exponent`` with ``input = mantissa * 2 ** exponent``; a ``torch.return_types.frexp``."""
    _must_be_tensor(input, 'frexp', 'input', 1)
    if input._data.dtype.kind not in 'fV':
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(input._data)
    m, e = np.asarray(m), np.asarray(e, dtype=np.int32)
    node = track1(FrexpBackward0, input)
    mantissa, exponent = results((m, e), node, differentiable=(True, False))
    if node is not None:
        node.exponent = exponent.detach()
    if out is not None:
        _write_out(out[0], mantissa)
        _write_out(out[1], exponent)
        return frexp_type(out[0], out[1])
    return frexp_type(mantissa, exponent)


# -- isreal, isin ------------------------------------------------------------------------------
@register
def isreal(input):
    """True where the element is real: everywhere for a real dtype, where the imaginary
    part is 0 for a complex one."""
    _must_be_tensor(input, 'isreal', 'input', 1)
    x = input._data
    if x.dtype.kind == 'V' and x.dtype.names is not None:  # complex32
        return make(np.asarray(x['imag'] == 0))
    return make(np.asarray(x.imag == 0) if x.dtype.kind == 'c' else np.ones(x.shape, bool))


_UNSET = object()


def _isin_dtype(v):
    return dtype_of(v) if isinstance(v, Tensor) else _dtype.scalar_dtype(v)


def _isin_operand(v, dt):
    if isinstance(v, Tensor):
        return _dtype.cast(v._data, dt.np) if v._data.dtype.names is not None else \
            v._data.astype(dt.np, copy=False)
    if type(v) is int and not -2 ** 63 <= v < 2 ** 64:
        raise OverflowError("int too big to convert")
    return np.array(v).astype(dt.np)  # (an int wraps into a narrower integer dtype, as torch)


_ISIN_KEYWORDS = {'elements': (0, True), 'element': (0, False),
                  'test_elements': (1, True), 'test_element': (1, False)}


def _isin_operands(args, kwargs):
    """(elements, test_elements) from isin's arguments, checked against torch's three
    signatures; torch's TypeError for anything else."""
    ops = list(args[:2]) + [_UNSET] * (2 - len(args[:2]))
    ok = len(args) <= 2
    for k, v in kwargs.items():
        slot, tensor = _ISIN_KEYWORDS.get(k, (None, None))
        if slot is None or ops[slot] is not _UNSET or isinstance(v, Tensor) != tensor:
            ok = False
            break
        ops[slot] = v
    a, b = (_scalar_value(v) for v in ops)
    ok = ok and a is not _UNSET and b is not _UNSET and \
        all(isinstance(v, Tensor) or is_scalar(v) for v in (a, b)) and \
        (isinstance(a, Tensor) or isinstance(b, Tensor))
    if not ok:
        raise _invalid_arguments('isin', args, kwargs)
    return a, b


@register(method=False)
def isin(*args, assume_unique=False, invert=False, out=None, **kwargs):
    """isin(elements, test_elements, *, assume_unique=False, invert=False): True for each
    element of ``elements`` that occurs in ``test_elements`` (False with ``invert``). Either,
    not both, may be a number (then named ``element`` / ``test_element``); the comparison is
    made in the promoted dtype (a number wraps into an integer tensor's dtype, as in torch)."""
    a, b = _isin_operands(args, kwargs)
    for v in (a, b):
        dt = _isin_dtype(v)
        if dt.category in (_dtype.BOOL, _dtype.COMPLEX) and dt is not _dtype.complex32:
            name = 'ComplexDouble' if type(v) is builtins.complex else dt.kernel_name
            raise RuntimeError(f"Unsupported input type encountered for isin(): {name}")
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        dt = _dtype.promote_tensors(dtype_of(a), a._data.ndim, dtype_of(b), b._data.ndim)
    elif isinstance(a, Tensor):
        dt = _dtype.result_type(dtype_of(a), b)
    else:
        dt = _dtype.result_type(dtype_of(b), a)
    if dt is _dtype.complex32:  # (torch's check lets it pass: the kernel of a tensor of
        # test elements refuses it; a number, compared in complex64 -- exact)
        if isinstance(b, Tensor):
            raise NotImplementedError('"isin_default_cpu" not implemented for \'ComplexHalf\'')
        dt = _dtype.complex64
    x, y = _isin_operand(a, dt), _isin_operand(b, dt)
    t = make(np.asarray(np.isin(x, y, assume_unique=assume_unique, invert=invert)))
    return _write_out(out, t) if out is not None else t


# -- complex, polar, view_as_real, view_as_complex ------------------------------------------
def _complex_operands(a, b, op, names):
    _must_be_tensor(a, op, names[0], 1)
    _must_be_tensor(b, op, names[1], 2)
    da, db = dtype_of(a), dtype_of(b)
    if not (da.is_floating_point and db.is_floating_point):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{da.kernel_name} and {db.kernel_name}")
    if da is not db:
        raise RuntimeError(f"Expected object of scalar type {da.kernel_name} but got scalar "
                           f"type {db.kernel_name} for second argument")
    return da


def _complex_of(re, im, dt):
    """A complex array with real part ``re`` and imaginary part ``im`` (broadcast), built
    part by part (``re + 1j * im`` would turn an infinite part into nan)."""
    cdt = dt.to_complex().np
    r = np.empty(check_broadcast(re.shape, im.shape), cdt)
    if cdt.kind == 'V':  # complex32: its fields
        _dtype.warn_chalf()
        r['real'] = re
        r['imag'] = im
    else:
        r.real = re
        r.imag = im
    return r


class ComplexBackward0(Node):
    def backward(self, g):
        return real(g), imag(g)


@register(method=False)
def complex(real, imag, *, out=None):  # noqa: A001  (torch's name)
    """The complex tensor ``real + i imag`` (both float tensors of one dtype, broadcast)."""
    dt = _complex_operands(real, imag, 'complex', ('real', 'imag'))
    r = _complex_of(real._data, imag._data, dt)
    t = result(r, track(ComplexBackward0, (real, imag)))
    return _write_out(out, t) if out is not None else t


class PolarBackward0(Node):
    """torch's polar_backward: d/d(abs) through sgn(result), d/d(angle) through i result."""

    def backward(self, g):
        r = _saved0(self)
        gc = conj(g)
        return (gc * r.sgn()).real, (gc * (r * 1j)).real


@register(method=False)
def polar(abs, angle, *, out=None):  # noqa: A002  (torch's names)
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``."""
    dt = _complex_operands(abs, angle, 'polar', ('abs', 'angle'))
    if dt is _dtype.float16:
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
    a, th = abs._data, angle._data
    r = _complex_of(a * np.cos(th), a * np.sin(th), dt)
    node = track(PolarBackward0, (abs, angle))
    t = result(r, node)
    if node is not None:
        node.save_output(t)
    return _write_out(out, t) if out is not None else t


class ViewAsRealBackward0(Node):
    def backward(self, g):
        return view_as_complex(g.contiguous())


class ViewAsComplexBackward0(Node):
    def backward(self, g):
        return view_as_real(g)


@register(method=False)
def view_as_real(input):
    """A real view of a complex tensor, with a last dim of size 2 (real, imaginary): it
    shares memory with ``input``, so writing to one changes the other."""
    _must_be_tensor(input, 'view_as_real', 'input', 1)
    x = input._data
    if x.dtype.kind != 'c' and x.dtype.names is None:  # (complex32's has fields)
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if input._bits is not None and 'conj' in input._bits:
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To "
                           "resolve the conjugate tensor so you can view it as real, use "
                           "self.resolve_conj(); however, be warned that the resulting tensor "
                           "will NOT alias the original.")
    part = x.real if x.dtype.kind == 'c' else x['real']  # (a view: same memory and strides,
    # the real dtype)
    arr = np.lib.stride_tricks.as_strided(part, x.shape + (2,), x.strides + (part.itemsize,))
    return view_of(input, arr, track1(ViewAsRealBackward0, input), view_as_real, ())


@register(method=False)
def view_as_complex(input):
    """A complex view of a float tensor whose last dim holds (real, imaginary) pairs: it
    shares memory with ``input``. As in torch, the last dim must have size 2 and stride 1,
    the other strides and the storage offset must be even."""
    _must_be_tensor(input, 'view_as_complex', 'input', 1)
    x = input._data
    dt = dtype_of(input)
    if dt.name not in ('float16', 'float32', 'float64'):
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {dt.kernel_name}")
    if x.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if x.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = input.stride()  # (an empty tensor's too: ember keeps torch's, see make)
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last "
                           "dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    cdt = dt.to_complex().np
    if x.size:
        arr = x.view(cdt)[..., 0]
    else:  # (torch's strides: the real ones halved)
        arr = np.lib.stride_tricks.as_strided(np.empty(x.shape[:-1], cdt), strides=[
            s // 2 * cdt.itemsize for s in strides[:-1]])
    return view_of(input, arr, track1(ViewAsComplexBackward0, input), view_as_complex, ())


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``).
name_saved_values(LogitBackward0, ('self',), attrs={'eps': 'eps'})
