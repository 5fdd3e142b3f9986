"""The activation functions of nn.functional (exported there), with their in-place forms.

Where torch's observable grad_fn is that of a composition (``softsign`` ends in
``DivBackward0``, ``softmin`` in ``SoftmaxBackward0``...) the function is composed from ember
ops. Where torch shows a dedicated node (``EluBackward0``, ``GluBackward0``,
``PreluKernelBackward0``...) the forward runs on arrays and a Node of that name carries a
backward written with ember ops, so double backward still comes for free.

In-place forms go through ``_core.inplace`` (the out-of-place op on a copy of the old value,
written back, history rebased). Their nodes are named as torch names them (``EluBackward1``,
``ThresholdBackward1``...), and where torch's in-place derivative is computed from the result
(which it cannot invert for a negative slope) its refusal at backward time is kept:
``elu_``/``selu_``/``celu_`` with a negative alpha, ``leaky_relu_`` and ``rrelu_`` (eval) with
a negative slope.
"""
import math
import sys

import numpy as np

from ... import _native
from ..._ops import (_args, _core, creation as _creation, pointwise as _pw, reduce as _red,
                     random as _random, shape as _shape)
from ..._ops._core import Node, make
from ..._finfo import of_array_dtype
from ..._ops._scratch import scratch
from ..._tensor import Tensor, wrap_dim
from ...autograd.engine import sum_to
from ...autograd.graph import name_saved_values
from ...autograd.forward_ad import FWD, tangent_of
from ...autograd.grad_mode import STATE


# -- helpers -----------------------------------------------------------------------------
def _float_input(input, kernel):
    """The input's array, refusing non-floating dtypes as torch's CPU kernels do."""
    x = input._data
    if x.dtype.kind not in 'fV':
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_pw.dtype_name(x.dtype)}'")
    return x


def _reduced(dt):
    """Whether NumPy dtype ``dt`` is float16 or bfloat16."""
    return dt == np.float16 or dt.kind == 'V'


def _wide(x):
    """``x`` in float32 where it is float16 or bfloat16: torch's CPU activation kernels
    compute in float (their "opmath" type) and round the result once."""
    return x.astype(np.float32) if _reduced(x.dtype) else x


def _in_float(formula):
    """A Node's ``backward(self, g)`` from ``formula(self, x, g)`` (``x`` its saved input):
    reduced-precision ``x`` and ``g`` are taken in float32 and the gradient rounded once, as
    torch's backward kernels do (the casts are ops, so double backward still works)."""
    def backward(self, g):
        x = self.saved_tensors[0]
        if not _reduced(x._data.dtype):
            return formula(self, x, g)
        return formula(self, x.float(), g.float()).to(x.dtype)
    backward.__doc__ = formula.__doc__
    return backward


def _named(name):
    """Gives a node class torch's grad_fn name (the module attribute stays private)."""
    def deco(cls):
        cls.__name__ = cls.__qualname__ = name
        return cls
    return deco


def _unary_node(input, arr, cls, **attrs):
    """Wraps ``arr`` as the output of a ``cls`` node on ``input`` (which it saves)."""
    n = _core.track1(cls, input)
    out = _core.result(np.asarray(arr, input._data.dtype), n)
    if n is not None:
        n.save(input)
        for k, v in attrs.items():
            setattr(n, k, v)
    return out


def _maybe_inplace(input, inplace, outplace, args, name):
    if inplace:
        return _core.inplace(input, outplace, args, name)
    return outplace(input, *args)


def _mask(cond, dtype):
    """A constant (history-free) tensor of 1 where ``cond`` holds, 0 elsewhere."""
    return make(np.asarray(cond, dtype))


# c10's names for the C++ types a Scalar is converted to (in its overflow errors).
_CPP_NAMES = {'int8': 'int8_t', 'int16': 'int16_t', 'int32': 'int', 'int64': 'int64_t',
              'uint8': 'uint8_t', 'float16': 'c10::Half', 'bfloat16': 'c10::BFloat16',
              'float32': 'float',
              'float64': 'double'}


def _checked_scalar(v, dt):
    """``v`` converted to NumPy dtype ``dt`` as c10's ``Scalar::to<T>`` does: torch's
    RuntimeError where the value does not fit (integers from an int wrap modulo the width
    of an unsigned type down to ``-max``; floats are truncated toward zero)."""
    dt = np.dtype(dt)
    if isinstance(v, Tensor):
        v = v.item()
    v = _pw.scalar_as(v, dt) if isinstance(v, (complex, np.complexfloating)) else v
    if isinstance(v, (bool, np.bool_)):
        v = int(v)
    over = RuntimeError(f"value cannot be converted to type {_CPP_NAMES.get(dt.name, dt.name)} "
                        "without overflow")
    if isinstance(v, (complex, np.complexfloating)):  # (a real one only, as c10's check)
        if v.imag != 0:
            raise over
        v = v.real
    if dt.kind in 'fV':
        fmax = of_array_dtype(dt).max
        if isinstance(v, (int, np.integer)):
            if abs(int(v)) > fmax:
                raise over
        elif math.isfinite(float(v)) and abs(float(v)) > fmax:
            raise over
        return dt.type(v)
    info = np.iinfo(dt)
    if isinstance(v, (int, np.integer)):
        v = int(v)
        if dt.kind == 'u':
            if v > info.max or (v < 0 and -v > info.max):
                raise over
            return dt.type(v % (info.max + 1))
        if not info.min <= v <= info.max:
            raise over
        return dt.type(v)
    f = float(v)
    if math.isnan(f) or math.isinf(f) or f < info.min or f > info.max:
        raise over
    return dt.type(math.trunc(f))


def _real(v, dt):
    """A real Scalar parameter as given; a complex one as ``_checked_scalar`` converts it to
    ``dt`` (refused unless its imaginary part is zero)."""
    if isinstance(v, (complex, np.complexfloating)):
        return _checked_scalar(v, dt)
    return v


def _g(v):
    """A Scalar as torch's C++ stream prints it (``%g`` for floats)."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v)).lower()
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return '%g' % float(v)


_ELU_INPLACE_NEG = (
    "In-place elu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead.")
_LEAKY_INPLACE_NEG = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead. File an issue at "
    "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
    "backward calculation with negative slope")


# -- relu, leaky_relu --------------------------------------------------------------------
def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


@_named('LeakyReluBackward0')
class _LeakyReluBackward0(Node):
    @_in_float
    def backward(self, x, g):
        return g * make(np.where(x._data > 0, 1, self.slope).astype(x._data.dtype))


@_named('LeakyReluBackward1')
class _LeakyReluBackward1(_LeakyReluBackward0):
    def backward(self, g):
        if self.slope < 0:  # (torch's derivative of the in-place op reads the result)
            raise RuntimeError(_LEAKY_INPLACE_NEG)
        return super().backward(g)


def _leaky_relu_out(input, negative_slope, cls=_LeakyReluBackward0):
    x = _float_input(input, 'leaky_relu_cpu')
    negative_slope = _real(negative_slope, x.dtype)
    r = np.where(x > 0, x, x * negative_slope)
    return _unary_node(input, r, cls, slope=negative_slope)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:  # (torch names the in-place node LeakyReluBackward1)
        return leaky_relu_(input, negative_slope)
    return _leaky_relu_out(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return _core.inplace(input, _leaky_relu_out, (negative_slope, _LeakyReluBackward1),
                         'leaky_relu_')


# -- elu and its family (selu, celu) ------------------------------------------------------
# ``elu(x; alpha, scale, input_scale)``: scale * x where positive, else
# alpha * scale * (exp(x * input_scale) - 1). selu and celu are elus with fixed coefficients.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@_named('EluBackward0')
class _EluBackward0(Node):
    from_result = False

    @_in_float
    def backward(self, x, g):
        pos = make(x._data > 0)
        # (torch's second derivative is taken on x < 0 only: 0 at x == 0)
        neg = x * _mask(x._data < 0, x._data.dtype)
        # torch's in-place derivative is ``input_scale * (result + alpha * scale)``: the
        # exponential is the forward's; out of place it uses the backward's input_scale
        # (which for celu is 1 / alpha rounded to float, as torch computes it)
        inner = self.input_scale if self.from_result else self.bwd_input_scale
        if inner != 1:
            neg = neg * inner
        coef = self.alpha * self.scale * self.bwd_input_scale
        return g * _pw.where(pos, self.scale, neg.exp() * coef)


@_named('EluBackward1')
class _EluBackward1(_EluBackward0):
    from_result = True

    def backward(self, g):
        if self.alpha < 0:  # (torch cannot invert the result for a negative alpha)
            raise RuntimeError(_ELU_INPLACE_NEG)
        return super().backward(g)


@_named('CeluBackward0')
class _CeluBackward0(_EluBackward0):
    pass


@_named('CeluBackward1')
class _CeluBackward1(_EluBackward1):
    pass


def _elu_out(input, alpha, scale=1.0, input_scale=1.0, cls=_EluBackward0,
             bwd_input_scale=None):
    x = _float_input(input, 'elu_cpu')
    alpha, scale, input_scale = (_real(v, x.dtype) for v in (alpha, scale, input_scale))
    x = _wide(x)
    neg = np.minimum(x, 0)
    if input_scale != 1:
        neg = neg * input_scale
    pos = x if scale == 1 else x * scale
    r = np.where(x > 0, pos, (alpha * scale) * np.expm1(neg))
    return _unary_node(input, r, cls, alpha=alpha, scale=scale, input_scale=input_scale,
                       bwd_input_scale=input_scale if bwd_input_scale is None
                       else bwd_input_scale)


def elu(input, alpha=1.0, inplace=False):
    if inplace:  # (torch names the in-place node EluBackward1)
        return elu_(input, alpha)
    return _elu_out(input, alpha)


def elu_(input, alpha=1.0, scale=1.0, input_scale=1.0):
    return _core.inplace(input, _elu_out, (alpha, scale, input_scale, _EluBackward1), 'elu_')


def selu(input, inplace=False):
    if inplace:
        return selu_(input)
    return _elu_out(input, _SELU_ALPHA, _SELU_SCALE)


def selu_(input):
    return _core.inplace(input, _elu_out, (_SELU_ALPHA, _SELU_SCALE, 1.0, _EluBackward1),
                         'selu_')


def _celu_check(alpha):
    """``alpha`` as torch reads it (a double: a complex one with an imaginary part does not
    convert), refused when 0."""
    alpha = _pw.scalar_as(alpha, np.float64)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return alpha


def _celu_bwd_scale(alpha):
    f = float(np.float32(alpha))  # (torch's derivative: 1.0 / alpha.toFloat())
    return 1.0 / f if f else math.copysign(math.inf, alpha)


def celu(input, alpha=1.0, inplace=False):
    if inplace:
        return celu_(input, alpha)
    alpha = _celu_check(alpha)
    return _elu_out(input, alpha, 1.0, 1.0 / alpha, _CeluBackward0, _celu_bwd_scale(alpha))


def celu_(input, alpha=1.0):
    _core.check_inplace(input, 'celu_')
    alpha = _celu_check(alpha)
    return _core.inplace(input, _elu_out, (alpha, 1.0, 1.0 / alpha, _CeluBackward1,
                                           _celu_bwd_scale(alpha)), 'celu_')


# -- gelu, silu, sigmoid, tanh -------------------------------------------------------------
_SQRT1_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_K_TANH = math.sqrt(2 / math.pi)
_C_TANH = 0.044715


@_named('GeluBackward0')
class _GeluBackward0(Node):
    @_in_float
    def backward(self, x, g):
        if not STATE.enabled:   # no graph of the gradient wanted: on arrays, reusing aux
            return make(_gelu_grad_arrays(x._data, self.aux, self.approximate, g._data))
        if self.approximate == 'tanh':
            inner = (x + x * x * x * _C_TANH) * _K_TANH
            th = inner.tanh()
            d = (th + 1) * 0.5 + x * 0.5 * (1 - th * th) * _K_TANH * (x * x * (3 * _C_TANH) + 1)
        else:
            cdf = ((x * _SQRT1_2).erf() + 1) * 0.5
            pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
            d = cdf + x * pdf
        return g * d


def _gelu_arrays(x, approximate):
    """``(gelu(x), h)`` computed in place in x's dtype; ``h`` is the factor gelu multiplies
    x by -- the Gaussian cdf, or (1 + tanh(inner)) / 2 -- which the backward reuses."""
    if approximate == 'none':
        done = _native.gelu_forward(x)
        if done is not None:
            return done
    if approximate == 'tanh':
        h = np.asarray(x * x)                   # inner = K (x + C x^3) = x (K + K C x^2)
        h *= _K_TANH * _C_TANH
        h += _K_TANH
        h *= x
        np.tanh(h, out=h)
    else:
        h = _pw._erf(np.multiply(x, _SQRT1_2, out=scratch('gelu', x.shape, x.dtype)))
    h += 1
    h *= 0.5
    return np.asarray(x * h), h


def _gelu_grad_arrays(x, h, approximate, g):
    """g * gelu'(x), from the forward's ``h``: h + x h'(x)."""
    if approximate == 'none':
        done = _native.gelu_backward(x, h, g)
        if done is not None:
            return done
    d = np.asarray(x * x)                       # (asarray: 0-d arrays give NumPy scalars)
    if approximate == 'tanh':                   # x h' = 2 x h (1 - h) K (1 + 3 C x^2)
        d *= 3 * _C_TANH * _K_TANH
        d += _K_TANH
        d *= x
        d *= h
        d *= 1 - h
        d *= 2
    else:                                       # x h' = x pdf(x)
        d *= -0.5
        np.exp(d, out=d)
        d *= _INV_SQRT_2PI
        d *= x
    d += h
    d *= g
    return d


def gelu(input, *, approximate='none'):
    if approximate not in ('none', 'tanh'):
        raise RuntimeError("approximate argument must be either none or tanh.")
    x = _wide(_float_input(input, 'GeluKernelImpl'))
    r, h = _gelu_arrays(x, approximate)
    return _unary_node(input, r, _GeluBackward0, approximate=approximate, aux=h)


@_named('SiluBackward0')
class _SiluBackward0(Node):
    @_in_float
    def backward(self, x, g):
        if not STATE.enabled:   # on arrays, from the forward's sigmoid: s (1 + x (1 - s))
            s = self.aux
            d = _native.silu_backward(x._data, s, g._data)
            if d is not None:
                return make(d)
            d = np.asarray(1 - s)
            d *= x._data
            d += 1
            d *= s
            d *= g._data
            return make(d)
        s = x.sigmoid()
        return g * (s * (x * (1 - s) + 1))


def _silu_out(input):
    if input._data.dtype.kind == 'c':
        return _complex_silu(input)
    x = _wide(_float_input(input, 'silu_cpu'))
    done = _native.silu_forward(x)
    y, s = done if done is not None else (None, _pw._sigmoid(x))
    return _unary_node(input, x * s if y is None else y, _SiluBackward0, aux=s)


def _complex_silu(input):
    """``x * sigmoid(x)`` of a complex input: torch computes it, but has no derivative."""
    if input._requires_grad and STATE.enabled:
        raise RuntimeError("silu does not support automatic differentiation for outputs with "
                           "complex dtype.")
    x = input._data
    return make(np.asarray(x * _pw._sigmoid(x), x.dtype))


def silu(input, inplace=False):
    return _maybe_inplace(input, inplace, _silu_out, (), 'silu_')


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


# -- softmax, log_softmax, softmin ---------------------------------------------------------
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _red.implicit_softmax_dim(input.dim(), 'softmax', _stacklevel)
    # (the method, as torch: its parser counts ``dim`` as argument 1)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _red.implicit_softmax_dim(input.dim(), 'log_softmax', _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _red.implicit_softmax_dim(input.dim(), 'softmin', _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


# -- softplus, mish, log-sigmoid, softsign, tanhshrink -------------------------------------
@_named('SoftplusBackward0')
class _SoftplusBackward0(Node):
    @_in_float
    def backward(self, x, g):
        if not STATE.enabled:   # on arrays: sigmoid(beta x), 1 where softplus is linear
            bx = np.asarray(x._data * self.beta)
            d = _pw._sigmoid(bx)
            np.copyto(d, 1, where=bx > self.threshold)
            d *= g._data
            return make(d)
        linear = make((x._data * self.beta) > self.threshold)
        return g * _pw.where(linear, 1.0,
                             (x * self.beta).sigmoid())


def softplus(input, beta=1.0, threshold=20.0, *, out=None):
    if out is not None:   # (torch's binding takes ``out=``)
        return _pw._write_out(out, softplus(input, beta, threshold))
    x = _wide(_float_input(input, 'softplus_cpu'))
    beta, threshold = (_checked_scalar(v, x.dtype) for v in (beta, threshold))
    bx = np.multiply(x, beta, out=scratch('softplus', x.shape, x.dtype))
    # log1p(exp(beta x)) / beta, in place (a NaN threshold is never passed, as in torch)
    r = np.asarray(np.minimum(bx, threshold)) if threshold == threshold else bx
    np.exp(r, out=r)
    np.log1p(r, out=r)
    if beta != 1:
        r /= beta
    np.copyto(r, x, where=bx > threshold)       # where it is linear: x itself
    return _unary_node(input, r, _SoftplusBackward0, beta=beta, threshold=threshold)


@_named('MishBackward0')
class _MishBackward0(Node):
    @_in_float
    def backward(self, x, g):
        # torch's infinitely differentiable formula, with softplus as log1p(exp(x)) as torch
        # composes it there (so its second derivative is nan where exp overflows, as torch's)
        t = x.exp().log1p().tanh()
        return g * (t + x * x.sigmoid() * (1 - t * t))


def _mish_out(input):
    x = _wide(_float_input(input, 'mish_cpu'))
    with np.errstate(over='ignore'):
        r = x * np.tanh(np.log1p(np.exp(x)))
    return _unary_node(input, r, _MishBackward0)


def mish(input, inplace=False):
    return _maybe_inplace(input, inplace, _mish_out, (), 'mish_')


def _log_sigmoid_array(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


@_named('LogSigmoidBackward0')
class _LogSigmoidBackward0(Node):
    @_in_float
    def backward(self, x, g):
        return g * (-x).sigmoid()


def logsigmoid(input, *, out=None):
    """log(sigmoid(input)), computed stably; ``out=`` as torch's ``_nn.log_sigmoid`` takes
    it."""
    x = _wide(_float_input(input, 'log_sigmoid_cpu'))
    r = _unary_node(input, _log_sigmoid_array(x), _LogSigmoidBackward0)
    return r if out is None else _pw._write_out(out, r)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


# -- hardtanh, relu6, hardsigmoid, hardswish ------------------------------------------------
@_named('HardtanhBackward0')
class _HardtanhBackward0(Node):
    def backward(self, g):
        x = self.saved_tensors[0]._data
        return g * _mask((x > self.lo) & (x < self.hi), x.dtype)


def _hardtanh_out(input, min_val, max_val):
    x = input._data
    if x.dtype.kind == 'b':
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if x.dtype.kind in 'iu':
        # (torch: integer limits, truncated, "to preserve legacy behaviour"; NaN or an
        # infinity does not convert)
        lo, hi = (_pw.fill_scalar(float(v), np.int64) for v in (min_val, max_val))
        if x.dtype.kind == 'u' and (lo < 0 or hi < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
        info = np.iinfo(x.dtype)
        lo, hi = (x.dtype.type(min(max(v, info.min), info.max)) for v in (lo, hi))
    else:
        lo, hi = min_val, max_val
    r = np.minimum(np.maximum(x, lo), hi).astype(x.dtype, copy=False)
    return _unary_node(input, r, _HardtanhBackward0, lo=min_val, hi=max_val)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    try:
        bigger = min_val > max_val
    except TypeError as e:  # (a complex limit: torch's Python comparison raises first)
        raise _args.stands(e) from None
    if bigger:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(input, inplace, _hardtanh_out, (min_val, max_val), 'hardtanh_')


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    # (torch's hardtanh_ itself does not compare the limits: only F.hardtanh does; its
    # clamp_ reads them as doubles, after refusing a complex input)
    if isinstance(input, Tensor) and input.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    min_val, max_val = (_real(v, np.float64) for v in (min_val, max_val))
    return _core.inplace(input, _hardtanh_out, (min_val, max_val), 'hardtanh_')


def relu6(input, inplace=False):
    # torch's relu6 is hardtanh(input, 0, 6): its grad_fn is HardtanhBackward0
    return _maybe_inplace(input, inplace, _hardtanh_out, (0, 6), 'hardtanh_')


@_named('NotImplemented')
class _HardsigmoidBackwardNotImplemented(Node):
    """torch has no derivative for hardsigmoid's backward: differentiating the gradient
    (create_graph) is refused, whichever input it is taken for."""

    def backward(self, g):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


@_named('HardsigmoidBackward0')
class _HardsigmoidBackward0(Node):
    @_in_float
    def backward(self, xt, g):
        x = xt._data
        n = _core.track(_HardsigmoidBackwardNotImplemented, (g, xt))
        return _core.result(np.asarray(g._data * self._slope(x), g._data.dtype), n)

    @staticmethod
    def _slope(x):
        # (torch's kernel uses the float constant 1.0f / 6.0f, for doubles too)
        return np.where((x > -3) & (x < 3), np.float32(1 / 6), 0).astype(x.dtype)

    def jvp(self, t):
        # (forward AD has a formula of its own: the backward's graph would refuse it)
        return t * make(self._slope(self.saved_tensors[0]._data))


def _hardsigmoid_out(input):
    x = _wide(_float_input(input, 'hardsigmoid_cpu'))
    return _unary_node(input, np.minimum(np.maximum(x + 3, 0), 6) / 6, _HardsigmoidBackward0)


def hardsigmoid(input, inplace=False):
    return _maybe_inplace(input, inplace, _hardsigmoid_out, (), 'hardsigmoid_')


@_named('HardswishBackward0')
class _HardswishBackward0(Node):
    @_in_float
    def backward(self, xt, g):
        # torch: 0 up to -3, x/3 + 1/2 on (-3, 3), 1 from 3 on: a constant part plus the
        # slope 1/3 inside (its own derivative, for double backward)
        x = xt._data
        inside = (x > -3) & (x < 3)
        const = make(np.where(x <= -3, 0, np.where(inside, 0.5, 1)).astype(x.dtype))
        d = const + xt * _mask(inside / 3, x.dtype)
        return g * d


def _hardswish_out(input):
    x = _wide(_float_input(input, 'hardswish_cpu'))
    return _unary_node(input, x * np.minimum(np.maximum(x + 3, 0), 6) / 6, _HardswishBackward0)


def hardswish(input, inplace=False):
    return _maybe_inplace(input, inplace, _hardswish_out, (), 'hardswish_')


# -- shrinkage and threshold ---------------------------------------------------------------
@_named('SoftshrinkBackward0')
class _SoftshrinkBackward0(Node):
    def backward(self, g):
        x = self.saved_tensors[0]._data
        return g * _mask(~((x >= -self.lambd) & (x <= self.lambd)), x.dtype)


def softshrink(input, lambd=0.5, *, out=None):
    if out is not None:   # (torch's binding takes ``out=``)
        return _pw._write_out(out, softshrink(input, lambd))
    lambd = _pw.scalar_as(lambd, np.float64)  # (torch's kernel takes it as a double first)
    x = _float_input(input, 'softshrink_check')
    top = of_array_dtype(x.dtype).max
    if not 0 <= float(lambd) <= top:
        raise RuntimeError(f"lambda must be in range [0, {_g(top)}] for input dtype "
                           f"{_pw.dtype_name(x.dtype)}, but found {_g(lambd)}")
    lam = x.dtype.type(lambd)
    r = np.where(x > lam, x - lam, np.where(x < -lam, x + lam, x * 0))
    return _unary_node(input, r, _SoftshrinkBackward0, lambd=lam)


@_named('HardshrinkBackward0')
class _HardshrinkBackward0(_SoftshrinkBackward0):
    pass


def hardshrink(input, lambd=0.5):
    x = _float_input(input, 'hardshrink_cpu')
    lam = _checked_scalar(lambd, x.dtype)
    r = np.where((x >= -lam) & (x <= lam), 0, x)
    return _unary_node(input, r, _HardshrinkBackward0, lambd=lam)


@_named('ThresholdBackward0')
class _ThresholdBackward0(Node):
    def backward(self, g):
        return _pw.threshold_backward(g, self.saved_tensors[0], self.thr, self.cmp)


@_named('ThresholdBackward1')
class _ThresholdBackward1(_ThresholdBackward0):
    pass


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``).
# (ThresholdBackward1, the in-place form, inherits them)
name_saved_values(_ThresholdBackward0, ('self',), attrs={'threshold': 'threshold'})


def _threshold_out(input, threshold, value, cls=_ThresholdBackward0):
    x = input._data
    if x.dtype.kind in 'bc':
        raise NotImplementedError("\"threshold_cpu\" not implemented for "
                                  f"'{_pw.dtype_name(x.dtype)}'")
    # (half and bfloat16 compare in float, torch's opmath type)
    cmp = _wide
    thr = _checked_scalar(threshold, np.float32 if _reduced(x.dtype) else x.dtype)
    val = _checked_scalar(value, x.dtype)
    r = np.where(cmp(x) <= thr, val, x).astype(x.dtype, copy=False)
    # (torch's saved threshold keeps the given number's type; a tensor gives its item)
    given = threshold.item() if isinstance(threshold, Tensor) else threshold
    return _unary_node(input, r, cls, thr=thr, cmp=cmp, threshold=given)


def threshold(input, threshold, value, inplace=False):
    if inplace:
        return threshold_(input, threshold, value)
    return _threshold_out(input, threshold, value)


def threshold_(input, threshold, value):
    return _core.inplace(input, _threshold_out, (threshold, value, _ThresholdBackward1),
                         'threshold_')


# -- glu -----------------------------------------------------------------------------------
@_named('GluBackward0')
class _GluBackward0(Node):
    @_in_float
    def backward(self, x, g):
        d, h = self.dim, self.half
        a, b = x.narrow(d, 0, h), x.narrow(d, h, h)
        s = b.sigmoid()
        ga = g * s
        return _shape.cat([ga, ga * a * (1 - s)], d)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if type(dim) is bool or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"glu(): argument 'dim' (position 2) must be int, not "
                        f"{type(dim).__name__}")
    x = input._data
    d = wrap_dim(int(dim), x.ndim)
    n = x.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    x = _wide(_float_input(input, 'glu_cpu'))
    a, b = np.split(x, 2, axis=d)
    return _unary_node(input, a * _pw._sigmoid(b), _GluBackward0, dim=d, half=n // 2)


# -- prelu ---------------------------------------------------------------------------------
@_named('PreluKernelBackward0')
class _PreluKernelBackward0(Node):
    def backward(self, g):
        x, w = self.saved_tensors
        xd = x._data
        pos, neg = _mask(xd > 0, xd.dtype), _mask(~(xd > 0), xd.dtype)
        gx = g * (pos + neg * w) if self.next_functions[0][0] is not None else None
        gw = None
        if self.next_functions[1][0] is not None:
            gw = sum_to(g * x * neg, tuple(w.shape))
        return gx, gw


def prelu(input, weight):
    if not isinstance(weight, Tensor):
        raise TypeError("prelu(): argument 'weight' (position 2) must be Tensor, not "
                        f"{type(weight).__name__}")
    x, wa = input._data, weight._data
    if x.dtype != wa.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{_pw.dtype_name(x.dtype)} and {_pw.dtype_name(wa.dtype)}")
    nd = x.ndim
    if wa.size != 1:
        if nd == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = x.shape[1] if nd > 1 else 1
        if channels != wa.size:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {wa.size} and channel size = {channels}.")
    if wa.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {wa.ndim}")
    w = weight
    if nd != wa.ndim:  # as torch: the weight viewed to broadcast over the channel dim
        shape = [1] * nd
        if nd > 1:
            shape[1] = wa.size
        w = weight.reshape(shape)
    x = _float_input(input, 'prelu_cpu')
    r = np.where(x > 0, x, w._data * x)
    n = _core.track(_PreluKernelBackward0, (input, w))
    out = _core.result(np.asarray(r, x.dtype), n)
    if n is not None:
        n.save(input, w)
    return out


# -- rrelu ---------------------------------------------------------------------------------
@_named('RreluWithNoiseBackward0')
class _RreluWithNoiseBackward0(Node):
    inplace = False

    def backward(self, g):
        x = self.saved_tensors[0]._data
        if self.noise is not None:
            return g * make(self.noise)
        # eval: leaky_relu's derivative with the mean slope
        if self.inplace and self.slope < 0:
            raise RuntimeError(_LEAKY_INPLACE_NEG)
        return g * make(np.where(x > 0, 1, self.slope).astype(x.dtype))


@_named('RreluWithNoiseBackward1')
class _RreluWithNoiseBackward1(_RreluWithNoiseBackward0):
    inplace = True


_FLOAT_MAX = float(np.finfo(np.float32).max)


def _rrelu_check(lower, upper):
    """``lower`` and ``upper`` as the doubles torch's kernel takes, after its checks."""
    bounds = []
    for name, v in (('lower', lower), ('upper', upper)):
        v = _pw.scalar_as(v, np.float64)
        if not math.isfinite(v):
            raise RuntimeError(f"rrelu: {name} bound must be finite, got {_g(v)}")
        bounds.append(v)
    if bounds[0] > bounds[1]:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    return bounds


def _rrelu_out(input, lower, upper, training, generator=None, cls=_RreluWithNoiseBackward0):
    slope = (float(lower) + float(upper)) / 2
    if not training:
        x = _float_input(input, 'leaky_relu_cpu')
        return _unary_node(input, np.where(x > 0, x, x * slope), cls, noise=None, slope=slope)
    x = input._data
    if x.dtype not in (np.float32, np.float64) and x.dtype.name != 'bfloat16':
        raise NotImplementedError('"rrelu_with_noise_out_cpu" not implemented for '
                                  f"'{_pw.dtype_name(x.dtype)}'")
    if x.dtype != np.float64 and any(math.isfinite(v) and abs(v) > _FLOAT_MAX
                                     for v in (lower, upper)):
        # (the float32 and bfloat16 kernels take the bounds as floats)
        raise RuntimeError("value cannot be converted to type float without overflow")
    # One slope per element, uniform in [lower, upper] (drawn from ember's generator); the
    # positive elements pass unchanged (noise 1). Only a draw checks the width of the range,
    # so infinite bounds are refused only where an element is not positive (rrelu_ takes
    # them, as torch's in-place kernel does; rrelu refuses them up front).
    drawn = x <= 0
    if drawn.any() and not upper - lower <= sys.float_info.max:
        raise RuntimeError("Expected to - from <= std::numeric_limits<T>::max() to be true, "
                           "but got false.")
    u = _random._rng(generator).random(x.shape)
    noise = np.where(drawn, lower + (upper - lower) * u, 1).astype(x.dtype)
    return _unary_node(input, x * noise, cls, noise=noise, slope=slope)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if inplace:
        return rrelu_(input, lower, upper, training)
    lower, upper = _rrelu_check(lower, upper)
    return _rrelu_out(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    lower, upper = _pw.scalar_as(lower, np.float64), _pw.scalar_as(upper, np.float64)
    if not lower <= upper:
        # (torch's in-place form checks only the order: in evaluation an infinite bound
        # makes an infinite slope; in training the draw refuses it, where it draws)
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if FWD.level is not None and tangent_of(input) is not None:
        raise NotImplementedError(
            "Trying to use forward AD with rrelu_with_noise_ that does not support it because "
            "it has not been implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so "
            "that we can prioritize its implementation.")
    return _core.inplace(input, _rrelu_out,
                         (lower, upper, training, generator, _RreluWithNoiseBackward1), 'rrelu_')


# -- gumbel_softmax --------------------------------------------------------------------------------
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax (concrete) distribution: ``softmax((logits + g) / tau)``
    with standard Gumbel noise ``g``; with ``hard``, the one-hot of its argmax, carrying the
    soft sample's gradient (the straight-through estimator)."""
    if eps != 1e-10:
        import warnings
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=3)
    gumbels = -_creation.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
