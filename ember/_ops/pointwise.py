"""Elementwise ops: arithmetic, math functions, comparisons, logic, clamp, where.

Each differentiable op is a Node class (named as torch names the grad_fn) whose ``backward``
uses ember ops, defined next to the function computing its forward. ``_unary`` / ``_binary``
build the public function and its in-place ``_`` variant from one kernel, so an op is one
table row plus its derivative.
"""
import builtins
import cmath
import math
import numbers
import re
import sys
import warnings

import numpy as np

from .. import _dtype
from .._layout import STORAGE as _STORAGE
from .._compat import rename_code
from ..autograd.grad_mode import STATE
from ..autograd.forward_ad import FWD, tangent_of
from ..autograd.graph import name_saved_values
from ..overrides import handoff, CONTINUE, MODES, _arguments
from ._core import no_grad_of
from ._core import (Node, Tensor, make, register, track, track1, track_scalar, result, to_tensor,
                    broadcast_shape, check_broadcast,
                    binary_arrays, inplace, write_into, is_scalar, METHODS,
                    opmath_call)
# cj(d): the conjugate of a complex derivative factor, d itself otherwise; every rule below
# multiplies the gradient by cj(d out / d input) (torch's convention, see complex.py).
from .complex import conj_if_complex as cj
from ._erf import erf as _erf  # (NumPy has no erf)

_new = object.__new__
# an argument not given (None is one torch's parser refuses)
_UNSET = object()
_PLAIN_OPERANDS = frozenset((int, float, bool, complex))
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _refusal(x, *others):
    """Stands for an op's dtype check until its first call looks it up."""


def _saved0(node):
    return node.saved_tensors[0]


def _write_out(out, t):
    """Implements ``out=``: writes the result into ``out`` (resizing an empty one)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if FWD.level is not None and (t._fw is not None or out._fw is not None) and (
            tangent_of(t) is not None or tangent_of(out) is not None):
        raise RuntimeError(f"Trying to use forward AD with {_out_op_name(t)}_out that does not "
                           "support it because it is an out= function")
    if t._requires_grad or (out._requires_grad and STATE.enabled):
        raise RuntimeError(f"{_out_op_name(t)}(): functions with out=... arguments don't "
                           "support automatic differentiation, but one of the arguments "
                           "requires grad.")
    if out._data.shape != t._data.shape:
        if out._data.size:
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out._data.shape)}, which does not match the required output "
                          f"shape {list(t._data.shape)}. This behavior is deprecated, and in a "
                          "future PyTorch release outputs will not be resized unless they have "
                          "zero elements. You can explicitly reuse an out tensor t by resizing "
                          "it, inplace, to zero elements with t.resize_(0).")
        out._data = np.empty(t._data.shape, out._data.dtype)
    write_into(out, t._data, 'out')
    return out


def _out_op_name(t):
    """The op an ``out=`` call came from, for torch's message: from the result's node
    (``IndexSelectBackward0`` -> ``index_select``), else from the calling frame."""
    node = t._gfn
    if node is not None:
        name = re.sub(r'Backward\d*$', '', node.__class__.__name__)
        return re.sub(r'(?<!^)(?=[A-Z])', '_', name).lower()
    frame = sys._getframe(2)
    while frame.f_code.co_name.startswith('_'):  # (the op's own ``_out`` helper)
        frame = frame.f_back
    return frame.f_code.co_name


def _signature(*names):
    """The signature a generated op shows (``inspect.signature``, the testing overrides):
    its operands ``names`` and ``out=``, not the parameters its fast path reads the rest of a
    call through."""
    import inspect
    P = inspect.Parameter
    return inspect.Signature([P(n, P.POSITIONAL_OR_KEYWORD) for n in names] +
                             [P('out', P.KEYWORD_ONLY, default=None)])


_UNARY_SIGNATURE = _signature('input')
_BINARY_SIGNATURE = _signature('input', 'other')


def _name_code(fn, name):
    """Names a generated op function (and its code object, so profiles tell ops apart)."""
    fn.__name__ = fn.__qualname__ = name
    fn.__code__ = rename_code(fn.__code__, name)


# -- unary ops ---------------------------------------------------------------------------
def _unary(name, kernel, node=None, save=None, to_float=True, inplace_ok=True, doc=None,
           public=True, check=None, named=True):
    """Builds ``ember.<name>``, ``Tensor.<name>`` and ``Tensor.<name>_`` from ``kernel``.

    ``save``: 'input' or 'result' -- what ``node.backward`` reads from ``saved_tensors``.
    ``to_float``: integer inputs are promoted to the default float dtype first.
    ``check``: called with the input array to refuse dtypes torch refuses.
    ``public``: False builds the op without registering it (a kernel other ops call, or an
    op only another namespace names).
    ``named``: False where torch's node keeps another value than ``save`` (no
    ``grad_fn._saved_self``/``_saved_result`` then).
    """
    registered = public
    public = None  # the public object being called (see overrides.overridable)
    result_type = Tensor  # (a Tensor subclass in copies the protocol makes, see overrides)
    # The op also refuses the dtypes torch's kernel refuses: looked up by the first call
    # (``_refusal``), which leaves ``own_check`` alone when the table has none for it.
    own_check = check
    check = _refusal

    # (``input`` left out or a second argument, ``more``, gets torch's TypeError from
    # ``_by_name``. NumPy's names of ``input`` that torch's parser takes -- ``sin(x=t)``,
    # ``acos(a=1.5)`` -- are positional parameters with defaults rather than ``**kw``, which
    # costs every call a dict (2 % of ``t.exp()`` on a small tensor): three identity tests on
    # the fast path, blind only to all four given the same object. ``input`` itself is one
    # of them, after a positional-only first parameter, so a call that names it is seen:
    # torch's messages then give it no position.)
    def fn(self=_UNSET, more=_UNSET, /, x=_UNSET, a=_UNSET, x1=_UNSET, input=_UNSET, *rest,
           out=None):
        nonlocal check
        if type(self) is not Tensor or more is not _UNSET or MODES or out is not None or \
                x is not a or a is not x1 or x1 is not input:
            named = False  # (``input=``: torch's messages then give it no position)
            if self is _UNSET and input is not _UNSET and more is _UNSET and x is _UNSET and \
                    a is _UNSET and x1 is _UNSET:
                self, named = input, True
            elif self is _UNSET or more is not _UNSET or x is not a or a is not x1 or \
                    x1 is not input:
                return _unary_by_name(name, public or fn, self, more, (x, a, x1, input), rest,
                                      out)
            if public is not None and (type(self) is not Tensor or MODES or (
                    out is not None and type(out) is not Tensor)):
                # (None: the copy the protocol runs, see overrides)
                r = handoff(public, (self,), out)
                if r is not CONTINUE:
                    return r
                if public is not fn:  # (the public copies; ops calling ``fn`` pass)
                    kw = {} if out is None else {'out': out}
                    if named:
                        _arguments().check(public._ember_name, (), {'input': self, **kw})
                    else:
                        _arguments().check(public._ember_name, (self,), kw or None)
            if not isinstance(self, Tensor):  # (on the fast path it is a Tensor)
                self = to_tensor(self, name, 'input')
            if out is not None:  # (torch's checks of out before the kernel's)
                checker = _arguments()
                if not checker.torch_takes_out(name):
                    raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
                checker.out_dtype_first(name, (self,), out)
        x = self._data
        if check is not None:
            if check is _refusal:
                check = _arguments().array_check(name, own_check, chalf_apart=True)
            if check is not None:
                try:
                    check(x)
                except NotImplementedError:
                    if type(out) is Tensor:  # (torch checks out's dtype first)
                        _arguments().out_cast_first(name, (self,), out, (self,))
                    raise
        k = x.dtype.kind
        if to_float and k not in 'fcV':
            x = x.astype(_dtype.DEFAULT.np_float)
            k = x.dtype.kind
        if k != 'V':
            r = kernel(x)
        else:
            if x.dtype.names is not None and check is None:  # (complex32, checked apart)
                _arguments().refuse_chalf(name, x)
            r = opmath_call(kernel, x)
        if type(r) is not np.ndarray and type(r) not in _STORAGE:  # (not a sparse result)
            r = np.asarray(r)
        if node is not None and ((self._requires_grad and STATE.enabled) or
                                 FWD.level is not None):
            n = track1(node, self)
            t = result(r, n, result_type)
            if n is not None:
                if save == 'input':
                    n._saved = ((self, self._vc[0]),)
                elif save == 'result':
                    n.save_output(t)
        else:
            t = result(r, None, result_type)
        if out is not None:
            return _write_out(out, t)
        return t

    _name_code(fn, name)
    fn.__signature__ = _UNARY_SIGNATURE
    public = fn
    fn._checks_protocol = True
    fn.__doc__ = doc or f"Elementwise ``{name}`` of ``input``."
    if registered:
        register(fn)
    if node is not None and save is not None and named:  # (torch's names of what it saved)
        name_saved_values(node, ('self',) if save == 'input' else ('result',))
    if inplace_ok:
        def fn_(self):
            return inplace(self, fn, (), name + '_')
        fn_.__name__ = fn_.__qualname__ = name + '_'
        fn_.__doc__ = f"In-place ``{name}``."
        register(fn_, function=name + '_' in _TORCH_INPLACE_FUNCTIONS)
    return fn


# torch also exposes these in-place variants as ember.<name>_ functions.
_TORCH_INPLACE_FUNCTIONS = {'exp_', 'log_', 'sqrt_', 'relu_', 'sigmoid_', 'tanh_', 'abs_',
                            'neg_', 'sin_', 'cos_', 'clamp_', 'ceil_', 'floor_', 'round_',
                            'trunc_', 'frac_', 'rsqrt_', 'erf_', 'exp2_', 'expm1_', 'log2_',
                            'log10_', 'log1p_', 'reciprocal_', 'tan_', 'asin_', 'acos_',
                            'atan_', 'sinh_', 'cosh_', 'nan_to_num_', 'square_', 'clip_'}


def dtype_name(np_dtype):
    """torch's scalar-type name used in kernel errors: 'Float', 'Long', 'Bool', ..."""
    return _dtype.FROM_NP[np_dtype].kernel_name


def _not_implemented_for(kernel, kinds):
    """A dtype check raising torch's NotImplementedError for inputs of ``kinds``."""
    def check(x):
        if x.dtype.kind in kinds:
            raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype_name(x.dtype)}\'')
    return check


def _no_bool(message):
    def check(x):
        if x.dtype.kind == 'b':
            raise RuntimeError(message)
    return check


_NEG_BOOL = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
             "to invert a mask, use the `~` or `logical_not()` operator instead.")


class NegBackward0(Node):
    def backward(self, g):
        return -g


class AbsBackward0(Node):
    def backward(self, g):
        return g * _saved0(self).sgn()


class SignBackward0(Node):
    def backward(self, g):
        return no_grad_of(g)


class SgnBackward0(Node):
    """Zero for real inputs; for complex ones, ``sgn(z) = z/|z|`` moves only along the unit
    circle, so the gradient is the part of ``g`` orthogonal to ``sgn(z)``, over ``|z|``."""

    def backward(self, g):
        x = _saved0(self)
        if not x.is_complex():
            return no_grad_of(g)
        s, a = x.sgn(), x.abs()
        return where(a == 0, 0.0, (g - s * (g * s.conj()).real) / a)


class ExpBackward0(Node):
    def backward(self, g):
        return g * cj(_saved0(self))


class Exp2Backward0(Node):
    def backward(self, g):
        return g * cj(_saved0(self)) * _LN2


class Expm1Backward0(Node):
    def backward(self, g):
        return g * cj(_saved0(self) + 1)


class LogBackward0(Node):
    def backward(self, g):
        return g / cj(_saved0(self))


class Log2Backward0(Node):
    def backward(self, g):
        return g / (cj(_saved0(self)) * _LN2)


class Log10Backward0(Node):
    def backward(self, g):
        return g / (cj(_saved0(self)) * _LN10)


class Log1PBackward0(Node):
    def backward(self, g):
        return g / cj(_saved0(self) + 1)


class SqrtBackward0(Node):
    def backward(self, g):
        return g / (2 * cj(_saved0(self)))


class RsqrtBackward0(Node):
    def backward(self, g):
        r = _saved0(self)
        return -0.5 * g * cj(r * r * r)


class ReciprocalBackward0(Node):
    def backward(self, g):
        r = _saved0(self)
        return -g * cj(r * r)


class SinBackward0(Node):
    def backward(self, g):
        return g * cj(_saved0(self).cos())


class CosBackward0(Node):
    def backward(self, g):
        return -g * cj(_saved0(self).sin())


class TanBackward0(Node):
    def backward(self, g):
        r = _saved0(self)
        return g * cj(1 + r * r)


class AsinBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        return g * cj((1 - x * x).rsqrt())


class AcosBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        return -g * cj((1 - x * x).rsqrt())


class AtanBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        return g / cj(1 + x * x)


class AsinhBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        return g * cj((x * x + 1).rsqrt())


class AcoshBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        # complex: sqrt(x-1)*sqrt(x+1), the right branch (as torch computes it); real:
        # sqrt(x*x-1), which torch keeps finite below -1 too (where acosh itself is NaN)
        if x.is_complex():
            return g / cj((x - 1).sqrt() * (x + 1).sqrt())
        return g / (x * x - 1).sqrt()


class AtanhBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        return g / cj(1 - x * x)


class AngleBackward0(Node):
    """Zero for real inputs; for complex z, d angle = (x dy - y dx) / |z|^2, which in
    torch's conjugate convention is g * i z / |z|^2 (0 at z = 0)."""

    def backward(self, g):
        z = _saved0(self)
        if not z.is_complex():
            return no_grad_of(g)
        return where(z == 0, 0.0, g * z / (z * z.conj()).real * 1j)


def _angle(x):
    if x.dtype.kind == 'c':
        return np.angle(x)
    # not np.angle: it gives pi for -0.0, torch gives 0 (only x < 0 is pi); nan stays nan
    return np.where(np.isnan(x), x, np.where(x < 0, np.pi, 0)).astype(x.dtype)


class _InplaceNotDifferentiable(Node):
    """grad_fn of the in-place asinh_/acosh_/atanh_: torch records them (names ending in 1)
    but has no derivative for them."""

    def backward(self, g):
        raise NotImplementedError(f"the derivative for 'inplace version of {self.op}' is not "
                                  "implemented.")


class AsinhBackward1(_InplaceNotDifferentiable):
    op = 'asinh'


class AcoshBackward1(_InplaceNotDifferentiable):
    op = 'acosh'


class AtanhBackward1(_InplaceNotDifferentiable):
    op = 'atanh'


class SinhBackward0(Node):
    def backward(self, g):
        return g * cj(_saved0(self).cosh())


class CoshBackward0(Node):
    def backward(self, g):
        return g * cj(_saved0(self).sinh())


class TanhBackward0(Node):
    def backward(self, g):
        r = _saved0(self)
        return g * cj(1 - r * r)


class SigmoidBackward0(Node):
    def backward(self, g):
        r = _saved0(self)
        return g * cj(r * (1 - r))


class ReluBackward0(Node):
    def backward(self, g):
        return threshold_backward(g, _saved0(self), 0)


class ThresholdBackwardBackward0(Node):
    def backward(self, gg):
        # linear in the gradient; nothing flows to the tensor the mask was read from
        return threshold_backward(gg, _saved0(self), self.threshold, self.compare), None


def threshold_backward(g, x, threshold, compare=None):
    """``g`` where ``x`` is above ``threshold`` (or NaN), 0 elsewhere: the gradient of relu
    and threshold, an op of its own as torch's (its node ThresholdBackwardBackward0 appears
    in the graph of a gradient made with create_graph). ``compare`` maps ``x`` to the type it
    is compared in (half compares in float)."""
    xs = x._data if compare is None else compare(x._data)
    # (selected, not multiplied by a mask: an inf or NaN gradient below the threshold is 0,
    # as torch's)
    gd = g._data
    r = np.asarray(np.where(xs <= threshold, np.zeros((), gd.dtype), gd))
    n = track(ThresholdBackwardBackward0, (g, x))
    if n is not None:
        n.save(x)
        n.threshold, n.compare = threshold, compare
    return result(r, n)


class ErfBackward0(Node):
    def backward(self, g):
        x = _saved0(self)
        if not STATE.enabled:   # no graph of the gradient wanted: the same formula on arrays
            d = np.asarray(np.square(x._data))
            np.negative(d, out=d)
            np.exp(d, out=d)
            d *= _TWO_OVER_SQRT_PI
            d *= g._data
            return make(d)
        return g * _TWO_OVER_SQRT_PI * (-(x * x)).exp()


class FloorBackward0(SignBackward0):
    pass


class CeilBackward0(SignBackward0):
    pass


class RoundBackward0(SignBackward0):
    pass


class TruncBackward0(SignBackward0):
    pass


class FracBackward0(Node):
    def backward(self, g):
        return g


class PowBackward0(Node):
    """d/dx x**e for a Python-number exponent ``e``."""

    def backward(self, g):
        e = self.exponent
        if e == 0:
            return no_grad_of(g)
        x = _saved0(self)
        return g * cj(e * x.pow(e - 1))


def _sigmoid(x):
    # 1 / (1 + exp(-x)) in place: exp overflowing to inf for x < -88 (float32) gives the
    # right limit, 0, and elsewhere both steps are accurate to an ulp (no cancellation).
    e = np.asarray(np.negative(x))    # (asarray: a 0-d input gives a NumPy scalar)
    np.exp(e, out=e)
    e += 1
    return np.reciprocal(e, out=e)


_ZEROS = {}     # dtype -> zeros, grown as needed (see _relu)


def _relu(x):
    # maximum(0, x), not (x, 0): on a tie NumPy returns the second, so relu(-0.0) is -0.0.
    # Floats against an array of zeros rather than the scalar 0: NumPy's vectorised loop
    # wants two arrays (4x faster on 0.5M floats). The zeros are kept per dtype, up to 4M.
    if x.dtype.kind == 'f' and 0 < x.size <= 1 << 22:
        zeros = _ZEROS.get(x.dtype)
        if zeros is None or zeros.size < x.size:
            zeros = _ZEROS[x.dtype] = np.zeros(x.size, x.dtype)
        return np.maximum(zeros[:x.size].reshape(x.shape), x)
    return np.maximum(0, x).astype(x.dtype, copy=False) if x.dtype.kind != 'b' else x.copy()


def _round(x):
    return np.round(x) if x.dtype.kind in 'fcV' else x.copy()


def _intsafe(f):
    """Rounding functions leave integer tensors unchanged (as a copy), as torch does."""
    return lambda x: f(x) if x.dtype.kind in 'fcV' else x.copy()


def _sign(x):
    k = x.dtype.kind
    if k == 'b':
        return x.copy()
    r = np.asarray(np.sign(x))  # (0-d: NumPy gives a scalar)
    if k == 'f':  # torch's real sign of NaN is 0 (NumPy's is NaN); complex NaN stays NaN
        np.nan_to_num(r, copy=False, nan=0.0)
    elif k == 'c':
        # torch divides z / |z|: an infinite component gives NaN (inf / inf), where NumPy
        # takes the limit (sgn(inf + 1j) = 1)
        r[np.isinf(x)] = complex(np.nan, np.nan)
    return r


def _real_sign(x):
    if x.dtype.kind == 'c':
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")


neg = _unary('neg', np.negative, NegBackward0, to_float=False, check=_no_bool(_NEG_BOOL))
negative = _unary('negative', np.negative, NegBackward0, to_float=False,
                  check=_no_bool(_NEG_BOOL))
abs = _unary('abs', np.abs, AbsBackward0, save='input', to_float=False,
             check=_not_implemented_for('abs_cpu', 'b'))
absolute = _unary('absolute', np.abs, AbsBackward0, save='input', to_float=False,
                  check=_not_implemented_for('abs_cpu', 'b'))
sign = _unary('sign', _sign, SignBackward0, to_float=False, check=_real_sign)
sgn = _unary('sgn', _sign, SgnBackward0, save='input', to_float=False)
exp = _unary('exp', np.exp, ExpBackward0, save='result')
exp2 = _unary('exp2', np.exp2, Exp2Backward0, save='result')
expm1 = _unary('expm1', np.expm1, Expm1Backward0, save='result')
log = _unary('log', np.log, LogBackward0, save='input')
log2 = _unary('log2', np.log2, Log2Backward0, save='input')
log10 = _unary('log10', np.log10, Log10Backward0, save='input')
log1p = _unary('log1p', np.log1p, Log1PBackward0, save='input')
sqrt = _unary('sqrt', np.sqrt, SqrtBackward0, save='result')
rsqrt = _unary('rsqrt', lambda x: 1 / np.sqrt(x), RsqrtBackward0, save='result')
reciprocal = _unary('reciprocal', np.reciprocal, ReciprocalBackward0, save='result')
sin = _unary('sin', np.sin, SinBackward0, save='input')
cos = _unary('cos', np.cos, CosBackward0, save='input')
tan = _unary('tan', np.tan, TanBackward0, save='result')
asin = _unary('asin', np.arcsin, AsinBackward0, save='input')
acos = _unary('acos', np.arccos, AcosBackward0, save='input')
atan = _unary('atan', np.arctan, AtanBackward0, save='input')
arcsin, arccos, arctan = asin, acos, atan
sinh = _unary('sinh', np.sinh, SinhBackward0, save='input')
cosh = _unary('cosh', np.cosh, CoshBackward0, save='input')
tanh = _unary('tanh', np.tanh, TanhBackward0, save='result')
asinh = _unary('asinh', np.arcsinh, AsinhBackward0, save='input', inplace_ok=False)
acosh = _unary('acosh', np.arccosh, AcoshBackward0, save='input', inplace_ok=False)
atanh = _unary('atanh', np.arctanh, AtanhBackward0, save='input', inplace_ok=False)
# Their in-place forms are ops of their own: torch records them under names ending in 1 and
# has no derivative for them.
for _name, _kernel, _node in (('asinh', np.arcsinh, AsinhBackward1),
                              ('acosh', np.arccosh, AcoshBackward1),
                              ('atanh', np.arctanh, AtanhBackward1)):
    _unary(_name, _kernel, _node, public=False)
angle = _unary('angle', _angle, AngleBackward0, save='input', inplace_ok=False,
               doc="The argument (phase angle) of each element: 0 or pi for real inputs.")
sigmoid = _unary('sigmoid', _sigmoid, SigmoidBackward0, save='result')
relu = _unary('relu', _relu, ReluBackward0, save='result', to_float=False,
              check=_no_bool("Boolean inputs not supported for relu"))
erf = _unary('erf', _erf, ErfBackward0, save='input',
            check=_not_implemented_for('erf_vml_cpu', 'c'))
floor = _unary('floor', _intsafe(np.floor), FloorBackward0, to_float=False,
               check=_not_implemented_for('floor_vml_cpu', 'b'))
ceil = _unary('ceil', _intsafe(np.ceil), CeilBackward0, to_float=False,
              check=_not_implemented_for('ceil_vml_cpu', 'b'))
trunc = _unary('trunc', _intsafe(np.trunc), TruncBackward0, to_float=False,
               check=_not_implemented_for('trunc_vml_cpu', 'b'))
fix = _unary('fix', _intsafe(np.trunc), TruncBackward0, to_float=False,
             check=_not_implemented_for('trunc_vml_cpu', 'b'))
frac = _unary('frac', lambda x: x - np.trunc(x), FracBackward0, to_float=False,
              check=_not_implemented_for('frac_cpu', 'biu'))
logical_not = _unary('logical_not', np.logical_not, to_float=False)
bitwise_not = _unary('bitwise_not', np.invert, to_float=False)
isnan = _unary('isnan', np.isnan, to_float=False, inplace_ok=False)
isinf = _unary('isinf', np.isinf, to_float=False, inplace_ok=False)
isfinite = _unary('isfinite', np.isfinite, to_float=False, inplace_ok=False)
isposinf = _unary('isposinf', np.isposinf, to_float=False, inplace_ok=False)
isneginf = _unary('isneginf', np.isneginf, to_float=False, inplace_ok=False)
signbit = _unary('signbit', np.signbit, to_float=False, inplace_ok=False)


class RoundDecimals(Node):
    def backward(self, g):
        return no_grad_of(g)


RoundDecimals.__name__ = RoundDecimals.__qualname__ = 'RoundBackward1'


@register
def round(input, *, decimals=None, out=None):
    """Rounds half to even, optionally to ``decimals`` digits (any ``decimals`` given, 0
    included, records torch's ``RoundBackward1``, as torch's decimals overload does)."""
    x = input._data  # (a number is no Tensor: the argument layer says so, as torch)
    if decimals is None:
        return _round0(input, out=out)
    if x.dtype.kind not in 'fV':  # (torch's decimals kernels: floating dtypes only)
        kernel = 'round_vml_cpu' if decimals == 0 else 'round_cpu'
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype_name(x.dtype)}\'')
    # (half and bfloat16 scale in float32 and round once, as torch's kernel: a bfloat16
    # product 1.1484375 * 10 would round to 11.5 first)
    r = np.round(x, decimals) if x.dtype.itemsize > 2 else \
        np.round(x.astype(np.float32), decimals).astype(x.dtype)
    t = result(np.asarray(r), track1(RoundDecimals, input))
    return _write_out(out, t) if out is not None else t


_round0 = _unary('round', _round, RoundBackward0, to_float=False, inplace_ok=False,
                 public=False, check=_not_implemented_for('round_vml_cpu', 'b'))


@register(function=False)
def round_(self, *, decimals=None):
    """In-place ``round``."""
    return inplace(self, round, (), 'round_') if decimals is None else \
        inplace(self, lambda t: round(t, decimals=decimals), (), 'round_')


@register(function=False)
def positive(input):
    """Returns ``input`` itself (torch's unary plus)."""
    if input._data.dtype.kind == 'b':
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


register(positive, function=True)


def square(input, *, out=None):
    """``input * input``; integer tensors stay integer (torch computes it as ``pow(x, 2)``)."""
    return pow(input, 2, out=out)


register(square)


@register(function=False)
def square_(self):
    """In-place ``square``."""
    return inplace(self, square, (), 'square_')


# -- binary ops --------------------------------------------------------------------------


def _binary(name, kernel, node=None, save=(), scalar_node=None, cmp=False, to_float=False,
            doc=None, tensor_only=False, check=None, public=True, inplace_ok=True,
            saved_names=None, complex_kernel=None, opmath=True):
    """Builds ``ember.<name>(input, other)``, the method and the in-place method.

    ``save``: indices of the operands (0: input, 1: other) the backward needs.
    ``scalar_node``: the node class used when ``other`` is a Python number (torch names some
    of those differently); defaults to ``node``.
    ``cmp``: the result is bool and never differentiable.
    ``tensor_only``: ``other`` must be a Tensor (torch refuses numbers for these ops).
    ``check``: called with both operand arrays to refuse dtypes torch refuses.
    ``public``: False for a kernel that a hand-written public op calls (not registered).
    ``inplace_ok``: False where torch has no in-place form.
    ``saved_names``: torch's names of the saved operands (default 'self', 'other' as
    ``save`` picks them; None for one torch's node does not keep).
    ``complex_kernel``: the kernel for complex operands, where torch's arithmetic differs
    from NumPy's on infinities (default ``kernel``).
    ``opmath``: False where ``kernel`` takes bfloat16 arrays as they are (``nextafter``
    steps bfloat16's own ulp), rather than in float32 rounded back.
    """
    exported = public
    complex_kernel = complex_kernel or kernel
    scalar_node = scalar_node or node
    exact_scalar = name in ('mul', 'div')
    public = None  # the public object being called (see overrides.overridable)
    result_type = Tensor  # (a Tensor subclass in copies the protocol makes, see overrides)
    # The op also refuses the dtypes torch's kernel refuses between two tensors (with a
    # number, torch often runs another kernel): looked up by the first call (``_refusal``),
    # which leaves ``own_check`` alone when the table has none for it.
    own_check = check
    check = _refusal
    # Whether torch's signature takes a number as ``other``: unknown (None) until the first
    # call with one asks it (ember._ops._args), then True, or False when it refuses them.
    numbers_ok = False if tensor_only else None

    # (a third positional parameter and ``**kw`` cost less on every call than ``*args``;
    # ``**kw`` no more than ``*, out=None, alpha=_UNSET``, and it lets a call by torch's
    # names -- or NumPy's, ``atan2(x1=a, x2=b)`` -- reach ``_by_name``)
    # (positional-only: ``other=`` arrives in ``kw``, so a message can tell it was named --
    # torch's then give no position and list it as a keyword -- at no cost to other calls)
    def fn(input=_UNSET, other=_UNSET, third=_UNSET, /, **kw):
        nonlocal numbers_ok, check
        out = None
        named = False
        if kw or third is not _UNSET:  # (rare: see ``_more_arguments``)
            if 'other' in kw and other is _UNSET and third is _UNSET and \
                    input is not _UNSET and len(kw) - ('out' in kw) == 1:
                other = kw['other']
                out = kw.get('out')
                named = True
            elif len(kw) != 1 or 'out' not in kw or third is not _UNSET or other is _UNSET:
                return _more_arguments(name, public or fn, (input, other, third), kw)
            else:
                out = kw['out']
        if type(input) is not Tensor or (type(other) is not Tensor and type(other) not in
                                         _PLAIN_OPERANDS) or MODES or \
                (out is not None and type(out) is not Tensor):
            if other is _UNSET or input is _UNSET:  # (``t.eq()``, ``eq(other=u)``)
                return _more_arguments(name, public or fn, (input, other, third), kw)
            if public is not None:  # (None: the copy the protocol runs, see overrides)
                r = handoff(public, (input, other), out)
                if r is not CONTINUE:
                    return r
                if public is not fn:  # (the public copies; ops calling ``fn`` pass)
                    if named:
                        _arguments().check(public._ember_name, (input,), kw)
                    else:
                        _arguments().check(public._ember_name, (input, other),
                                           None if out is None else {'out': out})
            if not isinstance(input, Tensor):  # (on the fast path it is a Tensor)
                if is_scalar(input) and isinstance(other, Tensor) and not tensor_only:
                    input = _scalar_tensor(input, other)
                else:
                    input = to_tensor(input, name, 'input')
        if numbers_ok is not True and not isinstance(other, Tensor):
            numbers_ok = _arguments().takes_numbers(name, 1)
            if not numbers_ok:
                # (a method counts its arguments after ``self``; an alias has its own name)
                called = getattr(public, '_ember_name', name)
                where = '' if named else ' (position 1)' if called.startswith(
                    'ember.Tensor.') else ' (position 2)'
                raise TypeError(f"{called.rsplit('.', 1)[-1]}(): argument 'other'{where} must "
                                f"be Tensor, not {builtins.type(other).__name__}")
        if to_float and input._data.dtype.kind not in 'fcV' and not isinstance(other, Tensor):
            # Against a number, cast first so a negative number never wraps in an unsigned
            # dtype; against a tensor, promotion decides (int + 0-d float64 -> float64).
            input = make(input._data.astype(_dtype.DEFAULT.np_float))
        x = input._data
        if type(other) is float and x.dtype.kind in 'fc':
            y = other  # the commonest case (tensor * 0.5), without a call
        else:
            x, y = binary_arrays(input, other, name)
        if check is not None:  # (before ints become floats)
            if check is _refusal:
                check = _arguments().array_check(name, own_check, tensors_only=True)
            if check is not None:
                try:
                    check(x, y)
                except NotImplementedError:
                    if type(out) is Tensor:  # (torch checks out's dtype first)
                        _arguments().out_cast_first(name, (input, other), out, tuple(
                            a for a in (input, other) if isinstance(a, Tensor)))
                    raise
        if to_float and x.dtype.kind not in 'fcV':
            x = x.astype(_dtype.DEFAULT.np_float)
            y = y.astype(x.dtype) if type(y) is np.ndarray else y
        try:
            if x.dtype.kind not in 'Vc' or not opmath and x.dtype.kind == 'V':
                r = kernel(x, y)
            elif x.dtype.kind == 'c':
                r = complex_kernel(x, y)
            else:  # bfloat16: computed in float32 (torch's mul/div read a Python float in
                # float32 too; its other kernels round it to bfloat16); complex32 in complex64
                r = opmath_call(kernel if x.dtype.names is None else complex_kernel, x,
                                other if exact_scalar and type(other) is float else y)
        except ValueError:
            if type(y) is np.ndarray:  # NumPy's broadcast error, in torch's words
                broadcast_shape(x.shape, y.shape)
            raise
        if type(r) is not np.ndarray and type(r) not in _STORAGE:  # (not a sparse result)
            r = np.asarray(r)
        n = None
        if node is not None and ((STATE.enabled and (
                input._requires_grad or (isinstance(other, Tensor) and other._requires_grad)))
                or FWD.level is not None):
            if isinstance(other, Tensor):
                n = track(node, (input, other))
                if n is not None and save:
                    _save_operands(n, input, other, save)
            else:
                n = track_scalar(scalar_node, input)
                if n is not None:
                    n.other = other
                    if save not in ('cross', 'div') and 0 in save:
                        n._saved = ((input, input._vc[0]),)
        t = result(r, n, result_type)
        if out is not None:
            return _write_out(out, t)
        return t

    _name_code(fn, name)
    fn.__signature__ = _BINARY_SIGNATURE
    public = fn
    fn._checks_protocol = True
    fn.__doc__ = doc or f"Elementwise ``{name}`` of ``input`` and ``other`` (broadcasting)."
    if node is not None and type(save) is tuple and save:  # (torch's names of the operands)
        name_saved_values(node, saved_names or tuple(('self', 'other')[i] for i in save))
    if not exported:  # the kernel of a public op defined by hand (add, sub, div)
        return fn
    register(fn)
    if not inplace_ok:
        return fn
    compare = _recorded_comparison(fn, name) if name in _COMPARISONS else fn

    def fn_(self, other):
        return inplace(self, compare, (other,), name + '_')
    fn_.__name__ = fn_.__qualname__ = name + '_'
    fn_.__doc__ = f"In-place ``{name}``."
    register(fn_, function=False)
    return fn


_COMPARISONS = ('eq', 'ne', 'lt', 'le', 'gt', 'ge')


def _more_arguments(name, op, given, kwargs):
    """A binary op called with arguments past ``other`` (``given``: input, other and a third
    positional argument, ``_UNSET`` where not given), or keywords other than ``out=``:
    ``Tensor.__add__`` and ``__radd__`` are torch's ``add`` (``alpha``, or its deprecated
    positional form); every other op is called by name (``_by_name``)."""
    args = []
    for p, a in zip(('input', 'other', 'third'), given):
        if a is not _UNSET:
            # (one after a gap was given by its name: ``eq(other=u)``)
            if len(args) == len(given[:('input', 'other', 'third').index(p)]):
                args.append(a)
            else:
                kwargs = {**kwargs, p: a}
    args = tuple(args)
    if name == 'add':  # (torch's parser first: a list alpha is its TypeError)
        _arguments().check('add', args, kwargs)
        return add(*args, **kwargs)
    return _by_name(name, op, args, kwargs)


def _unary_by_name(name, op, input, more, named, rest, out):
    """``_by_name`` for a unary op's ``fn(input, more, x, a, x1, *rest, out=None)``: with a
    second positional argument, those of ``x, a, x1`` given from the left were positional
    too (a guess where a call names them after one more positional argument)."""
    args = [v for v in (input, more) if v is not _UNSET]
    kwargs = {}
    positional = more is not _UNSET
    for k, v in zip(('x', 'a', 'x1', 'input'), named):
        if v is _UNSET:
            positional = False
        elif positional:
            args.append(v)
        else:
            kwargs[k] = v
    args.extend(rest)
    if out is not None:
        kwargs['out'] = out
    return _by_name(name, op, tuple(args), kwargs, 1)


def _by_name(name, op, args, kwargs, n=2):
    """A call of the pointwise op ``op`` (of ``n`` operands) that passes arguments by name
    (``sin(input=t)``, ``atan2(x1=a, x2=b)``), leaves one out or passes too many: torch's
    parser's TypeError for it, else the op called again with its operands by position and
    ``out=`` alone by name, as ``overridable`` calls a body (``_args.body_args``)."""
    checker = _arguments()
    public_name = getattr(op, '_ember_name', name)
    bound = checker.check(public_name, args, kwargs)
    args, kwargs = checker.body_args(public_name, op, bound, args, kwargs)
    extra = [k for k in kwargs if k != 'out']
    if extra:  # (no signature of torch's took the call: Python's words for it)
        raise TypeError(f"{name}() got an unexpected keyword argument '{extra[0]}'")
    if len(args) > n:
        raise TypeError(f"{name}() takes {n} positional argument{'s' if n > 1 else ''} but "
                        f"{len(args)} were given")
    if len(args) < n:
        raise TypeError(f"{name}() missing {n - len(args)} required positional argument"
                        f"{'s' if n - len(args) > 1 else ''}")
    return op(*args, **kwargs)


class _ZeroGradient(Node):
    """grad_fn of an in-place comparison on a floating tensor: torch records it (as
    ``GtBackward0`` for a number operand, ``GtBackward1`` for a tensor) with zero gradients."""

    def backward(self, g):
        return tuple(None if m is None else g.new_zeros(m[0]) for m in self._meta)


def _recorded_comparison(compare, name):
    """``compare(t, other)`` as the out-of-place step of ``<name>_``: the 0/1 result in
    ``t``'s dtype, recorded with zero gradients (see _ZeroGradient)."""
    nodes = [type(f'{name.capitalize()}Backward{i}', (_ZeroGradient,), {}) for i in (0, 1)]

    def run(t, other):
        r = _dtype.cast(compare(t, other)._data, t._data.dtype)  # (complex32: 1+0j)
        tensor = isinstance(other, Tensor)
        n = track(nodes[1], (t, other)) if tensor else track_scalar(nodes[0], t)
        return result(r, n)
    return run


def _save_operands(n, a, b, save):
    """Saves what the binary op's backward needs. 'cross' (mul): each operand only when the
    other needs a gradient, as torch does, so in-place changes elsewhere stay legal; 'div':
    the divisor always, the dividend only for the divisor's gradient. Forward AD derives
    its formula from backward, so there everything is kept."""
    if n._fw_in is not None:
        n._saved = ((a, a._vc[0]), (b, b._vc[0]))
    elif save == 'cross':
        n._saved = ((a, a._vc[0]) if b._requires_grad else (None, 0),
                    (b, b._vc[0]) if a._requires_grad else (None, 0))
    elif save == 'div':
        n._saved = ((a, a._vc[0]) if b._requires_grad else (None, 0),
                    (b, b._vc[0]))
    else:
        n._saved = tuple([(t, t._vc[0]) for t in ((a, b)[i] for i in save)])


def _operand(value):
    """``value`` if it is a number or a tensor, else the TypeError on which a reflected
    operator declines (NotImplemented) -- None, a string..."""
    if not isinstance(value, (numbers.Number, Tensor)):
        raise TypeError(f"unsupported operand type: '{type(value).__name__}'")
    return value


def _scalar_tensor(value, like):
    """A 0-d tensor for a Python number on the left of a binary op (``2 * x`` forms)."""
    if isinstance(_operand(value), Tensor):  # (a direct call with a tensor: it keeps its
        return value                         # dtype)
    dt = _dtype.result_type(_dtype.FROM_NP[like._data.dtype], value).np
    if type(value) is int and dt.kind in 'iu':
        info = np.iinfo(dt)
        if not info.min <= value <= info.max:  # wraps, as on the right (binary_arrays)
            return make(np.array(value).astype(dt))
    if dt.names is not None:  # (complex32: NumPy would put a real number in both parts)
        return make(np.asarray(_dtype.chalf_scalar(value)))
    return make(np.asarray(value, dtype=dt))


def _other(node):
    """The second operand as the backward sees it: saved tensor, or the Python number."""
    return node.saved_tensors[-1] if 'other' not in node.__dict__ else node.other


class AddBackward0(Node):
    def backward(self, g):
        return g, g


class SubBackward0(Node):
    def backward(self, g):
        return g, -g


class MulBackward0(Node):
    def backward(self, g):
        if 'other' in self.__dict__:
            return g * cj(self.other), None
        a, b = self.saved_tensors
        return (g * cj(b) if b is not None else None), (g * cj(a) if a is not None else None)


class DivBackward0(Node):
    def backward(self, g):
        if 'other' in self.__dict__:
            return g / cj(self.other), None
        a, b = self.saved_tensors
        ga = g / cj(b) if self.next_functions[0][0] is not None else None
        gb = -g * cj(a / (b * b)) if a is not None else None
        return ga, gb


class PowBackward1(Node):
    def backward(self, g):
        a, e = self.saved_tensors
        # (0 where e == 0, as torch: not 0 * 0**-1 = nan at a == 0, nor a NaN gradient)
        ga = where(e == 0, 0.0, g * cj(e * a.pow(e - 1)))
        # d/de a**e = a**e * log(a), taken as 0 where a == 0 and e >= 0 (as torch does)
        # (a real base under a complex exponent: its complex log, log(-1) = i*pi)
        la = a.to(e.dtype).log() if e.is_complex() and not a.is_complex() else a.log()
        ge = g * cj(where((a == 0) & _real_nonnegative(e), 0.0, a.pow(e) * la))
        return ga, ge


def _real_nonnegative(e):
    """Where torch takes d/de 0**e as 0: a real e >= 0 (a complex one off the real axis
    keeps 0**e * log(0), NaN)."""
    if e.is_complex():
        return (e.imag == 0) & (e.real >= 0)
    return e >= 0


class PowBackward2(Node):
    """d/dx base**x for a Python-number base."""

    def backward(self, g):
        r = _saved0(self)
        if self.base == 0:
            # d/dx 0**x = 0**x * log(0): 0 for x >= 0 (as torch takes it), -inf for x < 0
            # (where 0**x is inf); NaN for a complex x off the real axis or left of 0
            if r._data.dtype.kind == 'c':
                return None, g * where(make(self.real_nonnegative), 0.0,
                                       complex(math.nan, math.nan))
            return None, g * where(r == math.inf, -math.inf, 0.0)
        base = self.base
        if isinstance(base, complex) or r._data.dtype.kind == 'c':
            log_base = cmath.log(base)  # (log(-1) = i*pi under a complex exponent)
        else:
            log_base = math.log(base) if base > 0 else math.nan
        return None, g * cj(r * log_base)


class Atan2Backward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        d = a * a + b * b
        # (0 where a*a + b*b is 0 -- at a = b = 0, or when it underflows --, as torch takes
        # the 0/0 there)
        d0 = d == 0
        r = where(d0, 0.0, 1 / d.masked_fill(d0, 1))
        return g * b * r, -g * a * r


class MaximumBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return _split_ties(g, a > b, a == b)


class MinimumBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return _split_ties(g, a < b, a == b)


class FmaxBackward0(Node):
    """fmax: the whole gradient to ``input`` where it is >= ``other`` or ``other`` is NaN
    (ties are not split, unlike maximum), else to ``other``."""
    _first = staticmethod(lambda a, b: (a >= b) | b.isnan())

    def backward(self, g):
        a, b = self.saved_tensors
        first = self._first(a, b)
        return where(first, g, 0.0), where(first, 0.0, g)


class FminBackward0(FmaxBackward0):
    """fmin: as fmax with <=."""
    _first = staticmethod(lambda a, b: (a <= b) | b.isnan())


def _split_ties(g, first, tie):
    """max/min gradients: to the winner, split in half between equal operands."""
    w = first.to(g.dtype) + tie.to(g.dtype) * 0.5
    return g * w, g * (1 - w)


class RemainderBackward0(Node):
    def backward(self, g):
        return g, None


class RemainderBackward1(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return g, -g * a.div(b, rounding_mode='floor')


class FmodBackward0(RemainderBackward0):
    pass


class FmodBackward1(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return g, -g * a.div(b, rounding_mode='trunc')


class DivBackward2(Node):
    """div with a rounding mode: piecewise constant, zero gradient."""

    def backward(self, g):
        return no_grad_of(g), (no_grad_of(g) if self.next_functions[1][0] is not None else None)


class LogaddexpBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        s = (a - b).sigmoid()
        if s.is_complex():  # (conjugated, as the derivative of a holomorphic function)
            s = s.conj()
        return g * s, g * (1 - s)


def complex_logaddexp(x, y):
    """``log(exp(x) + exp(y))`` of complex arrays (NumPy has only the real one), from the
    operand with the larger real part, so that no exp overflows."""
    hi_x = x.real >= y.real
    hi, lo = np.where(hi_x, x, y), np.where(hi_x, y, x)
    return hi + np.log1p(np.exp(lo - hi))


def _logaddexp(x, y):
    if x.dtype.kind == 'c' or getattr(y, 'dtype', x.dtype).kind == 'c':
        return complex_logaddexp(x, y)
    return np.logaddexp(x, y)


class HypotBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        h = hypot(a, b)
        return g * a / h, g * b / h


def _times_complex_one(ufunc):
    """The complex kernel of add/sub: torch computes ``a + alpha * b`` as complex products
    even for alpha = 1, so an infinite component of ``b`` makes its other component NaN
    (``(1 + 0j) * (inf + 1j)`` is ``inf + nanj``: 0 * inf), as torch's results show."""
    def kernel(x, y):
        with np.errstate(invalid='ignore'):
            return ufunc(x, y * (1 + 0j))
    return kernel


_sub_complex = _times_complex_one(np.subtract)
_add = _binary('add', np.add, AddBackward0, public=False,
               complex_kernel=_times_complex_one(np.add))
_sub = _binary('sub', np.subtract, SubBackward0, public=False, complex_kernel=_sub_complex)
# (with alpha != 1 the product alpha * b is already made: the plain sums)
_add_scaled = _binary('add', np.add, AddBackward0, public=False)
_sub_scaled = _binary('sub', np.subtract, SubBackward0, public=False)
mul = _binary('mul', np.multiply, MulBackward0, save='cross')
multiply = mul
_div = _binary('div', np.true_divide, DivBackward0, save='div', to_float=True,
               public=False)
atan2 = _binary('atan2', np.arctan2, Atan2Backward0, save=(0, 1), to_float=True,
                tensor_only=True)
arctan2 = atan2
maximum = _binary('maximum', np.maximum, MaximumBackward0, save=(0, 1), tensor_only=True)
minimum = _binary('minimum', np.minimum, MinimumBackward0, save=(0, 1), tensor_only=True)
fmax = _binary('fmax', np.fmax, FmaxBackward0, save=(0, 1), tensor_only=True)
fmin = _binary('fmin', np.fmin, FminBackward0, save=(0, 1), tensor_only=True)
logaddexp = _binary('logaddexp', _logaddexp, LogaddexpBackward0, save=(0, 1), to_float=True,
                    tensor_only=True)
hypot = _binary('hypot', np.hypot, HypotBackward0, save=(0, 1), to_float=True,
                tensor_only=True)
eq = _binary('eq', np.equal, cmp=True)
ne = _binary('ne', np.not_equal, cmp=True)
lt = _binary('lt', np.less, cmp=True)
le = _binary('le', np.less_equal, cmp=True)
gt = _binary('gt', np.greater, cmp=True)
ge = _binary('ge', np.greater_equal, cmp=True)
logical_and = _binary('logical_and', np.logical_and, cmp=True)
logical_or = _binary('logical_or', np.logical_or, cmp=True)
logical_xor = _binary('logical_xor', np.logical_xor, cmp=True)
def _bool_kernel(kernel):
    """torch has no bool kernel for some arithmetic: refuse when the result would be bool;
    integer division by zero raises (NumPy would silently give 0)."""
    def check(x, y):
        if x.dtype.kind == 'b' and (builtins.type(y) is bool or getattr(y, 'dtype', None) == x.dtype):
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
        _check_int_division(x, y)
    return check


def _check_int_division(x, y):
    """Integer division by zero raises as torch's (NumPy would silently give 0); only where a
    division happens, so not when the broadcast result is empty."""
    if x.dtype.kind in 'iu' and x.size and np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")


def _integral_only(kernel):
    def check(x, y):
        _not_implemented_for(kernel, 'fc')(x)
    return check


remainder = _binary('remainder', np.remainder, RemainderBackward1, save=(0, 1),
                    scalar_node=RemainderBackward0, check=_bool_kernel('remainder_cpu'))
fmod = _binary('fmod', np.fmod, FmodBackward1, save=(0, 1), scalar_node=FmodBackward0,
               check=_bool_kernel('fmod_cpu'))
bitwise_and = _binary('bitwise_and', np.bitwise_and, cmp=True,
                      check=_integral_only('bitwise_and_cpu'))
bitwise_or = _binary('bitwise_or', np.bitwise_or, cmp=True,
                     check=_integral_only('bitwise_or_cpu'))
bitwise_xor = _binary('bitwise_xor', np.bitwise_xor, cmp=True,
                      check=_integral_only('bitwise_xor_cpu'))
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
for _alias, _fn in (('greater', gt), ('greater_equal', ge), ('less', lt), ('less_equal', le),
                    ('not_equal', ne), ('multiply', mul), ('arctan2', atan2),
                    ('negative', neg)):
    register(_fn, name=_alias)


class CopysignBackward0(Node):
    """copysign: the input's gradient keeps or flips sign with the result (0 at input 0);
    ``other`` only chooses a sign, so its gradient is zero."""

    def backward(self, g):
        x = self.saved_tensors[0].detach()
        o = _other(self)
        ratio = where(x == 0, 0.0, copysign(x, o) / x)
        if 'other' in self.__dict__:
            return g * ratio, None
        return g * ratio, o.detach().new_zeros(o.shape)


class CopysignBackward1(CopysignBackward0):
    """copysign with a Python number as ``other``."""


class Logaddexp2Backward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return g / (1 + exp2(b - a)), g / (1 + exp2(a - b))


class NextafterBackward0(Node):
    """nextafter moves ``input`` by at most one ulp: torch passes the gradient through to
    ``input`` unchanged and gives ``other`` zero."""

    def backward(self, g):
        return g, no_grad_of(g)


def _floats_only(kernel):
    """A dtype check for ops torch implements for floating types only."""
    def check(x, y):
        _not_implemented_for(kernel, 'biuc')(x)
    return check


def _heaviside_kernel(x, y):
    return np.where(x == 0, y, x > 0).astype(x.dtype)


def _check_heaviside(x, y):
    if x.dtype.kind == 'c':
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")


copysign = _binary('copysign', np.copysign, CopysignBackward0, save=(0, 1),
                   saved_names=('self', None),
                   scalar_node=CopysignBackward1, to_float=True,
                   check=lambda x, y: _not_implemented_for('copysign_cpu', 'c')(x))
logaddexp2 = _binary('logaddexp2', np.logaddexp2, Logaddexp2Backward0, save=(0, 1),
                     tensor_only=True, check=_floats_only('logaddexp2_cpu'), inplace_ok=False)
nextafter = _binary('nextafter', np.nextafter, NextafterBackward0, tensor_only=True,
                    check=_floats_only('nextafter_cpu'), opmath=False)


def _shift(np_shift, left):
    """A shift kernel with torch's results for shifts outside [0, bits): a left shift gives
    0, a right shift the sign fill -- 0 for an unsigned type (NumPy leaves those to the C
    compiler)."""
    def kernel(x, y):
        bits = x.dtype.itemsize * 8
        zero_fill = left or x.dtype.kind == 'u'
        if isinstance(y, (int, np.integer)):  # (a Python bool too: False shifts by 0)
            y = int(y)
            if 0 <= y < bits:
                return np_shift(x, y)
            return np.zeros_like(x) if zero_fill else np_shift(x, bits - 1)
        bad = (y < 0) | (y >= bits)
        if not bad.any():
            return np_shift(x, y)
        if zero_fill:
            return np.where(bad, 0, np_shift(x, np.where(bad, 0, y))).astype(x.dtype)
        return np_shift(x, np.where(bad, bits - 1, y)).astype(x.dtype)
    return kernel


def _integers_only(kernel):
    def check(x, y):
        _not_implemented_for(kernel, 'fcVb')(x)
    return check


bitwise_left_shift = _binary('bitwise_left_shift', _shift(np.left_shift, True), cmp=True,
                             check=_integers_only('lshift_cpu'))
bitwise_right_shift = _binary('bitwise_right_shift', _shift(np.right_shift, False), cmp=True,
                              check=_integers_only('rshift_cpu'))



def _is_bool(x):
    return (x._data.dtype.kind == 'b') if isinstance(x, Tensor) else builtins.type(x) is bool


def _check_bool_arith(a, b):
    """torch refuses subtraction involving bools."""
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


def _result_kind(input, other, op):
    """The NumPy kind ('b', 'i', 'u', 'f', 'c', 'V') of ``input <op> other``'s result."""
    if not isinstance(input, Tensor):
        input, other = other, input
    x, y = binary_arrays(input, other, op)
    if x.dtype.names is not None or isinstance(y, np.ndarray) and y.dtype.names is not None:
        return 'c'  # (complex32: its structured dtype promotes with nothing in NumPy)
    return np.result_type(x, y).kind if isinstance(y, np.ndarray) else x.dtype.kind


def alpha_check(alpha, kind, name='alpha'):
    """torch's rule for the ``alpha`` of add/sub: a bool only for a bool result, a float
    never for an integral (or bool) one, a complex never for a non-complex one."""
    if isinstance(alpha, Tensor):
        alpha = alpha.item()
    if isinstance(alpha, (bool, np.bool_)):
        if kind != 'b':
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    elif isinstance(alpha, (float, complex, np.inexact)) and kind in 'biu':
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                           "floating point number.")
    elif isinstance(alpha, (complex, np.complexfloating)) and kind != 'c':
        raise RuntimeError(f"For non-complex input tensors, argument {name} must not be a "
                           "complex number.")


# The C++ type torch names when a Scalar does not fit the result (reduced-precision floats
# are computed in float).
_C_TYPE = {'float16': 'float', 'bfloat16': 'float', 'float32': 'float', 'float64': 'double',
           'int8': 'int8_t', 'uint8': 'uint8_t', 'int16': 'int16_t', 'int32': 'int',
           'int64': 'int64_t', 'bool': 'bool', 'uint16': 'uint16_t', 'uint32': 'uint32_t',
           'uint64': 'uint64_t'}


# (the names a fill value's conversion gives the reduced-precision floats)
_C10_TYPE = {'float16': 'c10::Half', 'bfloat16': 'c10::BFloat16'}


def _fit_int(value, np_dtype):
    """A Python int converted to an integer dtype as torch converts a Scalar: out of range
    raises, except that an unsigned type also takes negatives down to -max and wraps them
    (-3 -> 253 for uint8)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        return value
    info = np.iinfo(np_dtype)
    low = -int(info.max) if info.min == 0 else info.min
    if not low <= value <= info.max:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE[np.dtype(np_dtype).name]} "
                           "without overflow")
    return int(value) % (info.max + 1) if info.min == 0 else int(value)


# The largest finite value of the floats a number can overflow, with the C++ type name
# torch's refusal gives (keyed by NumPy dtype: a dtype's ``name`` is slow to read)
_FLOAT32_LIMIT = (3.4028234663852886e38, 'float')
_FLOAT_LIMITS = {np.dtype(np.float16): (65504.0, 'c10::Half'),
                 np.dtype(np.float32): _FLOAT32_LIMIT,
                 np.dtype(np.complex64): (3.4028234663852886e38, 'c10::complex<float>')}
_BFLOAT16_LIMIT = (3.3895313892515355e38, 'c10::BFloat16')


def _check_float_range(value, np_dtype, via_float):
    """torch's refusal of a finite number beyond a float dtype's largest value (inf and NaN
    pass). ``via_float``: the number goes to float16/bfloat16 through float, checked
    against float's range only (``x[i] = v``, ``scalar_tensor``)."""
    np_dtype = np.dtype(np_dtype)
    limit = _BFLOAT16_LIMIT if np_dtype.kind == 'V' else _FLOAT_LIMITS.get(np_dtype)
    if limit is None or not isinstance(value, (float, int, complex, np.number)) \
            or isinstance(value, (bool, np.bool_)):
        return
    if via_float and np_dtype.itemsize == 2:
        limit = _FLOAT32_LIMIT
    top, c_name = limit
    for part in ((value.real, value.imag) if isinstance(value, (complex, np.complexfloating))
                 else (value,)):
        # (no abs(): this module's abs is the op)
        if (isinstance(part, (int, np.integer)) or math.isfinite(part)) and \
                not -top <= part <= top:
            raise RuntimeError(f"value cannot be converted to type {c_name} without overflow")


def fill_scalar(value, np_dtype, via_float=False):
    """A number written into a tensor (``full``, ``fill_``, ``masked_fill``) as torch
    converts it: into an integer dtype a float truncated toward zero, an int as ``_fit_int``
    says, either refused out of range; into a float dtype refused when finite beyond its
    largest value (see ``_check_float_range``); a complex one into a real dtype refused
    unless its imaginary part is zero (any nonzero one is True for bool)."""
    kind = np.dtype(np_dtype).kind
    if kind == 'V' and np.dtype(np_dtype).names is not None:  # complex32
        return _dtype.chalf_scalar(value.item() if isinstance(value, np.generic) else value)
    if kind in 'fcV':
        _check_float_range(value, np_dtype, via_float)
    if isinstance(value, (complex, np.complexfloating)) and kind != 'c':
        if kind == 'b':
            return bool(value)
        if value.imag:
            name = np.dtype(np_dtype).name
            name = _C10_TYPE.get(name, _C_TYPE.get(name, 'float'))
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        value = value.real
    if kind not in 'iu' or isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, (int, np.integer)):
        return _fit_int(value, np_dtype)
    if isinstance(value, (float, np.floating)):
        info = np.iinfo(np_dtype)
        if not info.min <= value <= info.max:  # (NaN too)
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_C_TYPE[np.dtype(np_dtype).name]} without overflow")
        return int(value)
    return value


def scalar_as(value, np_dtype):
    """A Scalar argument (``alpha``, ``beta``, ``value``) converted to the result dtype as
    torch converts it: truncated toward zero for an integer result, refused when complex for
    a real one."""
    if isinstance(value, Tensor):
        value = value.item()
    kind = np.dtype(np_dtype).kind
    if kind == 'V' and np.dtype(np_dtype).names is not None:
        kind = 'c'  # (complex32)
    if isinstance(value, (complex, np.complexfloating)) and kind != 'c':
        if value.imag != 0:
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_C_TYPE.get(_dtype.FROM_NP[np.dtype(np_dtype)].name, 'float')}"
                               " without overflow")
        value = value.real
    if kind in 'iu' and isinstance(value, (float, np.floating)):
        info = np.iinfo(np_dtype)
        if not info.min <= value <= info.max:  # (NaN too)
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_C_TYPE[np.dtype(np_dtype).name]} without overflow")
        return int(value)
    if kind in 'iu':  # (an int: range-checked, an unsigned type wrapping negatives)
        return _fit_int(value, np_dtype)
    if kind == 'b':
        return bool(value)
    return value


def _third_argument(key, args, alpha):
    """(other, alpha) of add/sub called with a third argument by position: torch's
    deprecated ``(input, alpha, other)`` or its number form ``(input, other, alpha)``."""
    named = _arguments().positional_form(key, args, None if alpha == 1 else {'alpha': alpha})
    return named['other'], named.get('alpha', 1)


@register
def add(input, other, *deprecated, alpha=1, out=None):
    """``input + alpha * other``, broadcasting, with torch's type promotion."""
    if deprecated:
        other, alpha = _third_argument('add', (input, other, *deprecated), alpha)
    input = _number_input(input, alpha, 'add')
    if type(alpha) is not int:
        alpha_check(alpha, _result_kind(input, other, 'add'))
    if alpha != 1:
        return _add_scaled(input, _times_alpha(input, other, alpha), out=out)
    return _add(input, other, out=out)


def _times_alpha(input, other, alpha):
    """``alpha * other`` for add/sub. An integer ``other`` goes to the result dtype first, so
    a float alpha cannot lift the result past torch's promotion (bfloat16 - 2.0 * int16 tensor
    stays bfloat16) nor a negative one wrap a narrower integer (int64 - (-1) * uint8 is
    int64 arithmetic); for a bool result an integer alpha is a bool (torch casts it to the
    result's type: bool + 2 * bool stays bool)."""
    kind = _result_kind(input, other, 'add')
    if type(alpha) is int and kind == 'b':
        alpha = bool(alpha)
    if kind == 'c' or isinstance(other, complex):
        # torch multiplies in complex, alpha and a real other as (v + 0j): an infinite factor
        # makes the imaginary part NaN (inf * (2 + 0j) is inf + nanj), not 0
        alpha = complex(alpha)
        if not isinstance(other, Tensor):
            return complex(other) * alpha
        if other._data.dtype.kind != 'c':
            other = other.to(_dtype.promote_tensors(input.dtype, input._data.ndim,
                                                    other.dtype, other._data.ndim))
        return mul(other, alpha)
    if not isinstance(other, Tensor):
        if type(alpha) is int and isinstance(input, Tensor) and \
                input._data.dtype.kind in 'iu' and type(other) is int:
            _fit_int(alpha, input._data.dtype)  # (its Scalar conversion: the range check)
        return other and alpha if type(alpha) is bool else other * alpha
    if other._data.dtype.kind in 'biu' and isinstance(input, Tensor):
        other = other.to(_dtype.promote_tensors(input.dtype, input._data.ndim, other.dtype,
                                                other._data.ndim))
        if type(alpha) is int and other._data.dtype.kind in 'iu':  # (its Scalar conversion)
            alpha = _fit_int(alpha, other._data.dtype)
    return mul(other, alpha)


@register
def sub(input, other, *deprecated, alpha=1, out=None):
    """``input - alpha * other``."""
    if deprecated:
        other, alpha = _third_argument('sub', (input, other, *deprecated), alpha)
    return _subtract(input, other, alpha, out)


@register(name='subtract')
def subtract(input, other, *deprecated, alpha=1, out=None):
    """``sub``."""
    if deprecated:
        other, alpha = _third_argument('subtract', (input, other, *deprecated), alpha)
    return _subtract(input, other, alpha, out)


def _number_input(input, alpha, op):
    """A Python number given as add/sub's ``input`` with an ``alpha``: torch's parser made
    it a 0-d tensor (``sub(1.5, other=3, alpha=-0.7)`` is tensor(3.6)); the scaled path
    needs it as one (the unscaled one takes numbers)."""
    if type(alpha) is int and alpha == 1 or isinstance(input, Tensor) or \
            not is_scalar(input):
        return input
    return to_tensor(input, op, 'input')


def _subtract(input, other, alpha, out):
    input = _number_input(input, alpha, 'sub')
    _check_bool_arith(input, other)
    if type(alpha) is not int:
        alpha_check(alpha, _result_kind(input, other, 'sub'))
    if alpha != 1:
        return _sub_scaled(input, _times_alpha(input, other, alpha), out=out)
    return _sub(input, other, out=out)


class RsubBackward1(Node):
    def backward(self, g):
        return -g, None


class RsubBackward0(SubBackward0):
    alpha = 1

    def backward(self, g):
        # (a complex alpha enters the gradient conjugated, as every factor does)
        return (-g if self.alpha == 1 else g * -cj(self.alpha)), g


@register
def rsub(input, other, *deprecated, alpha=1):
    """``other - alpha * input``."""
    if deprecated:
        other, alpha = _third_argument('rsub', (input, other, *deprecated), alpha)
    if type(alpha) is not int:
        alpha_check(alpha, _result_kind(input, other, 'rsub'))
    if not isinstance(other, Tensor):
        _check_bool_arith(input, other)
        x = input
        if alpha != 1:
            if x._data.dtype.kind in 'iu' and not isinstance(other, int):
                # (torch scales in the result's dtype: an integer input does not wrap first)
                x = x.to(_dtype.result_type(_dtype.FROM_NP[x._data.dtype], other))
            x = x * alpha
        xa, o = binary_arrays(x, other, 'rsub')
        # (also for ``number - t``, which the wrapper's dtype check does not see)
        if xa.dtype.kind == 'u' and not isinstance(other, (float, complex)):
            # (a float number: the result, and torch's kernel, are floating)
            _dtype.refuse_barebones('add_stub', _dtype.FROM_NP[xa.dtype])
        if xa.dtype.kind == 'V' and xa.dtype.names is not None:  # complex32
            r = opmath_call(lambda a: _sub_complex(o, a) if alpha == 1 else
                            np.subtract(o, a), xa)
        else:
            r = np.asarray(_sub_complex(o, xa) if xa.dtype.kind == 'c' and alpha == 1 else
                           np.subtract(o, xa))
        n = track(RsubBackward1, (x, None))
        return result(r, n)
    # One RsubBackward0 node (torch's), not sub's graph of other - alpha * input.
    prev = STATE.enabled
    STATE.enabled = False
    try:
        r = sub(other, input, alpha=alpha)
    finally:
        STATE.enabled = prev
    n = track(RsubBackward0, (input, other))
    if n is not None and alpha != 1:
        n.alpha = alpha
    return result(r._data, n)


class _NoRounding:
    """``div``'s default ``rounding_mode``: it prints as None, but an explicit None is told
    apart, as torch records that call under DivBackward2."""

    def __repr__(self):
        return 'None'


_NO_ROUNDING = _NoRounding()


class _TrueDivBackward2(DivBackward0):
    """torch's node of ``div(..., rounding_mode=None)``: true division's gradient."""
    rounding_mode = None


_TrueDivBackward2.__name__ = _TrueDivBackward2.__qualname__ = 'DivBackward2'


@register(methods=('true_divide',))
def div(input, other, *, rounding_mode=_NO_ROUNDING, out=None):
    """``input / other``; ``rounding_mode`` 'trunc' or 'floor' rounds the quotient (and keeps
    integer dtypes), None is true division (integers give the default float dtype)."""
    if rounding_mode is _NO_ROUNDING:
        return _div(input, other, out=out)
    if rounding_mode is None:
        t = _div(input, other, out=out)
        if type(t._gfn) is DivBackward0 and out is None:
            t._gfn.__class__ = _TrueDivBackward2
        return t
    if rounding_mode not in ('trunc', 'floor'):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    if not isinstance(input, Tensor):
        input = to_tensor(input, 'div', 'input')
    x, y = binary_arrays(input, other, 'div')
    common = np.result_type(x, y)
    if common.kind in 'bc':  # (torch has no rounding division of bools or complex numbers)
        raise NotImplementedError(f'"div_{rounding_mode}_cpu" not implemented for '
                                  f"'{_dtype.FROM_NP[common].kernel_name}'")
    _check_int_division(x, y)
    if rounding_mode == 'floor':
        r = _floor_quotient(x, y)
    else:
        if x.dtype.kind in 'iub':
            q = np.true_divide(x, y)
            r = np.trunc(q).astype(np.result_type(x, y) if isinstance(y, np.ndarray)
                                   else x.dtype)
        else:
            r = np.trunc(np.true_divide(x, y))
    r = np.asarray(r)
    n = track(DivBackward2, (input, other if isinstance(other, Tensor) else None))
    if n is not None:
        n.rounding_mode = rounding_mode
    t = result(r, n)
    return _write_out(out, t) if out is not None else t


def _floor_quotient(x, y):
    """``x // y`` as torch's ``div(rounding_mode='floor')``: NumPy's for integers; for floats
    torch's floating floor division, which is Python's: (x - fmod(x, y)) / y rounded, so
    1 // 0.1 is 9 and inf // 2 NaN. That is floor(x / y) wherever x / y is not an integer
    or infinite (no integer lies between it and the exact quotient), so NumPy's slower
    floor_divide (the same algorithm) runs only on the other elements."""
    if x.dtype.kind in 'iub':
        return np.floor_divide(x, y)
    t = np.asarray(np.true_divide(x, y))
    r = np.asarray(np.floor(t))  # (an array even when 0-d, so it takes the assignment)
    odd = r == t  # (an integer, or inf; a NaN quotient is NaN either way)
    if odd.any():
        xs, ys = (np.broadcast_to(v, t.shape)[odd] for v in (x, y))
        r[odd] = np.floor_divide(xs, ys)
    return r


divide = true_divide = div
register(div, name='divide')
register(div, name='true_divide')


@register(function=False, methods=('true_divide_',))
def div_(self, other, *, rounding_mode=_NO_ROUNDING):
    """In-place ``div``."""
    return inplace(self, lambda t, o: div(t, o, rounding_mode=rounding_mode), (other,), 'div_')


class NotImplemented_(Node):
    """grad_fn of ops torch has no derivative for: backward raises."""

    def backward(self, *grads):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


NotImplemented_.__name__ = NotImplemented_.__qualname__ = 'NotImplemented'


_check_floor_divide = _bool_kernel('div_floor_cpu')


@register
def floor_divide(input, other, *, out=None):
    """``input // other`` rounded toward negative infinity (no derivative, as in torch)."""
    if not isinstance(input, Tensor):
        input = to_tensor(input, 'floor_divide', 'input')
    x, y = binary_arrays(input, other, 'floor_divide')
    if type(y) is np.ndarray and x.shape != y.shape:
        broadcast_shape(x.shape, y.shape)  # (torch checks the shapes before the dtypes)
    complex_ = x.dtype if x.dtype.kind == 'c' else getattr(y, 'dtype', x.dtype)
    if complex_.kind == 'c' or x.dtype.kind == 'u' and \
            _dtype.FROM_NP[x.dtype] in _dtype.BAREBONES_UNSIGNED:
        # (torch has no complex or uint16+ kernel; checked here too for ``//``, which the
        # wrapper's dtype check does not see)
        raise NotImplementedError('"div_floor_cpu" not implemented for '
                                  f"'{_dtype.FROM_NP[complex_].kernel_name}'")
    _check_floor_divide(x, y)
    n = track(NotImplemented_, (input, other))
    if n is not None:
        n.op = 'floor_divide'
    try:
        r = _floor_quotient(x, y)
    except ValueError:
        if type(y) is np.ndarray:  # NumPy's broadcast error, in torch's words
            broadcast_shape(x.shape, y.shape)
        raise
    r = result(np.asarray(r), n)
    return _write_out(out, r) if out is not None else r


@register(function=False)
def floor_divide_(self, other):
    """In-place ``floor_divide``."""
    return inplace(self, floor_divide, (other,), 'floor_divide_')


def _inplace_arith(self, other, ufunc, outplace, name):
    """In-place arithmetic. Without autograd (optimizer steps) it computes straight into
    self's memory; otherwise it goes through ``inplace`` to record the history."""
    if FWD.level is None and self._vc.__class__ is list and (not STATE.enabled or not (
            self.requires_grad or (isinstance(other, Tensor) and other._requires_grad))):
        x, y = binary_arrays(self, other, name)
        dst = self._data
        # (complex goes through the out-of-place kernel: torch's infinities, see _add)
        if x is dst and dst.flags.writeable and dst.dtype.kind not in 'Vc' and (
                builtins.type(y) is not np.ndarray or
                np.broadcast_shapes(dst.shape, y.shape) == dst.shape):
            ufunc(dst, y, out=dst, casting='unsafe')
            self._vc[0] += 1
            return self
    return inplace(self, outplace, (other,), name)


@register(function=False)
def add_(self, other, *deprecated, alpha=1):
    """In-place ``add``: ``self += alpha * other``."""
    if deprecated:
        other, alpha = _third_argument('Tensor.add_', (self, other, *deprecated), alpha)
    if type(alpha) is not int:
        alpha_check(alpha, _result_kind(self, other, 'add'))
    if alpha != 1:
        return inplace(self, lambda t, o: add(t, o, alpha=alpha), (other,), 'add_')
    return _inplace_arith(self, other, np.add, add, 'add_')


@register(function=False, methods=('subtract_',))
def sub_(self, other, *deprecated, alpha=1):
    """In-place ``sub``."""
    if deprecated:
        other, alpha = _third_argument('Tensor.sub_', (self, other, *deprecated), alpha)
    _check_bool_arith(self, other)
    if type(alpha) is not int:
        alpha_check(alpha, _result_kind(self, other, 'sub'))
    if alpha != 1:
        return inplace(self, lambda t, o: sub(t, o, alpha=alpha), (other,), 'sub_')
    return _inplace_arith(self, other, np.subtract, sub, 'sub_')


@register(function=False)
def mul_(self, other):
    """In-place ``mul``."""
    return _inplace_arith(self, other, np.multiply, mul, 'mul_')


# -- pow ---------------------------------------------------------------------------------
@register
def pow(input, exponent, *, out=None):
    """``input ** exponent``; either may be a Python number."""
    if not isinstance(input, Tensor):
        if out is not None and builtins.type(input) is not bool and input == 1:
            # (torch fills out with ones: 1 ** anything, in any dtype out has)
            return _write_out(out, make(np.ones(exponent._data.shape, out._data.dtype)))
        t = _rpow(input, exponent)
        return _write_out(out, t) if out is not None else t
    if isinstance(exponent, Tensor):
        x, y = binary_arrays(input, exponent, 'pow')
        check_broadcast(x.shape, y.shape)
        if x.dtype.kind in 'bu':  # (also for ``**``, which the wrapper's check does not see)
            _pow_kernel(x.dtype)
        if (x.dtype.names is not None or y.dtype.names is not None) and _dtype.promote_types(
                input.dtype, exponent.dtype) is _dtype.complex32:
            raise NotImplementedError('"pow" not implemented for \'ComplexHalf\'')
        r = np.asarray(_power(x, y))
        n = track(PowBackward1, (input, exponent))
        if n is not None:
            n.save(input, exponent)
        t = result(r, n)
    else:
        _check_int_pow(input._data, exponent)
        if input._data.dtype.kind in 'iu':  # (torch converts the exponent to the dtype)
            _fit_int(exponent, input._data.dtype)
        x, e = binary_arrays(input, exponent, 'pow')
        if builtins.type(exponent) is int and exponent not in (0, 1) and \
                _dtype.FROM_NP[x.dtype] in _dtype.BAREBONES_UNSIGNED:
            _pow_kernel(x.dtype)  # (torch answers ** 0 and ** 1 without its kernel)
        if x.dtype.names is not None and e != 0 and e != 1:  # (complex32: only a copy, or
            # ones, without a kernel; +-0.5 and -1 reach sqrt, rsqrt and reciprocal's)
            kernel = {0.5: 'sqrt_vml_cpu', -0.5: 'rsqrt_cpu', -1: 'reciprocal_cpu'}.get(
                e, 'pow') if builtins.type(e) is not complex else 'pow'
            from ._args import stands  # (the kernel this exponent runs: as it is)
            raise stands(NotImplementedError(f'"{kernel}" not implemented for \'ComplexHalf\''))
        if x.dtype.kind == 'b' and builtins.type(e) is bool:
            r = x | (not e)  # bool ** bool stays bool: x ** True == x, x ** False == True
        elif e == 2:
            r = np.multiply(x, x)
        elif (e == 0.5 or e == -0.5) and x.dtype.kind in 'fcV' and x.dtype != np.float16:
            # torch's kernel runs sqrt and rsqrt for these exponents (not for float16, which
            # goes to pow): they differ from pow at -inf (NaN, not inf or 0) and at -0.0;
            # bfloat16 in float32, rounded once (also what keeps it bfloat16 on NumPy 2.0)
            wide = _dtype.opmath(x)
            r = np.asarray(np.sqrt(wide) if e > 0 else 1 / np.sqrt(wide), x.dtype)
        elif e in (-1, -2, 3) and x.dtype.kind in 'fc' and x.dtype != np.float16:
            # torch's kernel multiplies and divides for these exponents, which differs from
            # pow where x * x overflows (complex: 1 / (inf + 0j) is 0, pow's NaN)
            r = x * x * x if e == 3 else np.reciprocal(x if e == -1 else x * x)
        else:
            r = np.power(x, e)
            if r.dtype.kind == 'c':
                r = _complex_overflow(x, e, r)
        r = np.asarray(r)
        n = track1(PowBackward0, input)
        if n is not None:
            n.exponent = exponent
            n._saved = ((input, input._vc[0]),)
        t = result(r, n)
    return _write_out(out, t) if out is not None else t


def _power(x, y):
    """``np.power`` with torch's integer answer for negative exponents (a tensor exponent
    may hold them; only a number exponent is refused): 1 for a base of 1, +-1 for -1, 0
    otherwise."""
    if x.dtype.kind not in 'iu' or np.asarray(y).dtype.kind not in 'iu':
        r = np.power(x, y)
        if r.dtype.kind != 'c':
            return r
        r = _complex_overflow(x, y, r)
        zero = np.asarray(y) == 0
        if zero.any():
            # torch's complex pow with a tensor exponent is exp(y * log(x)): a zero exponent
            # meets log(0) = -inf or a non-finite log (0 * inf), giving NaN where NumPy gives 1
            odd = zero & ((x == 0) | ~np.isfinite(x))
            r = np.where(odd, np.array(complex(np.nan, np.nan), r.dtype), r)
        return r
    neg = np.asarray(y) < 0
    if not neg.any():
        return np.power(x, y)
    r = np.asarray(np.power(x, np.where(neg, 0, y)))
    odd = np.asarray(y) % 2 != 0
    alt = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0))
    return np.where(neg, alt, r).astype(r.dtype)


def _complex_overflow(x, e, r):
    """``r = x ** e`` (complex) with the elements that overflowed or underflowed on the way
    recomputed: NumPy's repeated products of a tiny base meet inf - inf or 1 / 0 (inf+nanj
    for (1e-20+1e-20j) ** -3, whose value, -2.5e59-2.5e59j, overflows complex64 to
    -inf-infj). For a finite non-zero base and a whole exponent up to 1024, the base is
    scaled by a power of two to a modulus near 1, raised in complex128, and scaled back
    part by part (ldexp: an exact 0 stays 0, a too large part becomes inf)."""
    bad = ~np.isfinite(r)
    if not bad.any():
        return r
    e = np.asarray(e)
    if e.dtype.kind == 'c':
        e = np.where(e.imag == 0, e.real, np.nan)
    e = e.astype(np.float64)
    whole = (e == np.round(e)) & (np.abs(e) <= 1024)
    bad &= whole & np.isfinite(x) & (x != 0)
    if not bad.any():
        return r
    xb = np.broadcast_to(x, r.shape)[bad].astype(np.complex128)
    eb = np.broadcast_to(e, r.shape)[bad].astype(np.int64)
    _, k = np.frexp(np.maximum(np.abs(xb.real), np.abs(xb.imag)))
    w = np.empty_like(xb)
    w.real, w.imag = np.ldexp(xb.real, -k), np.ldexp(xb.imag, -k)
    p = np.power(w, eb)
    fixed = np.empty_like(p)
    with np.errstate(over='ignore', under='ignore'):
        fixed.real, fixed.imag = np.ldexp(p.real, k * eb), np.ldexp(p.imag, k * eb)
    r = np.array(r, copy=True)
    r[bad] = fixed.astype(r.dtype)
    return r


def _pow_kernel(np_dtype):
    """torch's refusal where its pow kernel meets a dtype it lacks: bool (two bool
    operands) and uint16/uint32/uint64."""
    d = _dtype.FROM_NP[np_dtype]
    if d is _dtype.bool_ or d in _dtype.BAREBONES_UNSIGNED:
        raise NotImplementedError(f'"pow" not implemented for \'{d.kernel_name}\'')


def _check_int_pow(x, e):
    if x.dtype.kind in 'biu' and np.any(np.asarray(e) < 0) and np.asarray(e).dtype.kind in 'iu':
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if x.dtype.kind in 'iu' and builtins.type(e) is int:
        _fit_int(e, x.dtype)  # (torch converts the exponent to the dtype, checked: no wrap)


def _rpow(base, exponent):
    """``base ** tensor`` for a Python-number base (PowBackward2)."""
    x = exponent._data
    dt = _dtype.result_type(_dtype.FROM_NP[x.dtype], base).np
    if builtins.type(base) is bool or base != 1:  # (torch answers 1 ** x without its kernel)
        _pow_kernel(dt)  # (a bool base with bool exponents: torch's kernel has no bool pow)
        if dt.names is not None:  # (complex32)
            raise NotImplementedError('"pow" not implemented for \'ComplexHalf\'')
    # (an int base wraps into a narrower integer dtype, as torch casts it: 300 -> 44 in uint8)
    r = np.asarray(_power(np.array(base).astype(dt), x.astype(dt, copy=False)))
    n = track(PowBackward2, (None, exponent))
    t = result(r, n)
    if n is not None:
        n.base = base
        n.save_output(t)
        if base == 0 and r.dtype.kind == 'c':  # (see PowBackward2)
            n.real_nonnegative = (np.imag(x) == 0) & (np.real(x) >= 0)
    return t


@register(function=False)
def pow_(self, exponent):
    """In-place ``pow``."""
    return inplace(self, pow, (exponent,), 'pow_')


@register
def float_power(input, exponent):
    """``pow`` computed in float64 (complex128 for complex inputs)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        from ._args import check  # (two numbers: torch's TypeError)
        check('float_power', (input, exponent), None)
    wide = _dtype.complex128 if any(
        isinstance(v, complex) or isinstance(v, Tensor) and v.dtype.is_complex
        for v in (input, exponent)) else _dtype.float64
    if isinstance(exponent, Tensor):
        exponent = exponent.to(wide)
    if not isinstance(input, Tensor) and isinstance(exponent, Tensor):
        return pow(complex(input) if wide is _dtype.complex128 else float(input), exponent)
    return pow(to_tensor(input, 'float_power', 'input').to(wide), exponent)


@register(function=False)
def float_power_(self, exponent):
    """In-place ``float_power``: ``self`` must already be float64 (complex128)."""
    complex_ = self.is_complex() or isinstance(exponent, complex) or (
        isinstance(exponent, Tensor) and exponent.is_complex())
    want = 'complex128' if complex_ else 'float64'  # (what float_power computes in)
    if self._data.dtype != want:
        from ._args import stands  # (torch checks it before the shapes)
        raise stands(RuntimeError(f"the base given to float_power_ has dtype "
                                  f"{dtype_name(self._data.dtype)} "
                                  f"but the operation's result requires dtype "
                                  f"{'ComplexDouble' if want == 'complex128' else 'Double'}"))
    return inplace(self, float_power, (exponent,), 'float_power_')


# -- clamp -------------------------------------------------------------------------------
class ClampBackward1(Node):
    """clamp with number bounds."""

    def backward(self, g):
        x = _saved0(self)
        mask = None
        if self.lo is not None:
            mask = x >= self.lo
        if self.hi is not None:
            m = x <= self.hi
            mask = m if mask is None else mask & m
        return where(mask, g, 0.0)  # (a nan/inf gradient must not leak as nan)


class ClampMinBackward0(ClampBackward1):
    """clamp_min with a number bound (torch's own node name for it)."""


class ClampMaxBackward0(ClampBackward1):
    """clamp_max with a number bound."""


class ClampBackward0(Node):
    """clamp with tensor bounds."""

    def backward(self, g):
        saved = self.saved_tensors
        x = saved[0]
        lo = saved[1] if self.has_lo else None
        hi = saved[-1] if self.has_hi else None
        mask = None
        if lo is not None:
            mask = x >= lo
        if hi is not None:
            m = x <= hi
            mask = m if mask is None else mask & m
        gx = where(mask, g, 0.0)
        glo = ghi = None
        # With min > max the result is max everywhere: the gradient goes to max alone.
        if lo is not None:
            glo = where((x < lo) & (lo < hi) if hi is not None else x < lo, g, 0.0)
        if hi is not None:
            ghi = where((x > hi) | (hi < lo) if lo is not None else x > hi, g, 0.0)
        out = [gx]
        if self.has_lo:
            out.append(glo)
        if self.has_hi:
            out.append(ghi)
        return tuple(out)


class ClampMinBackward1(ClampBackward0):
    """clamp_min with a tensor bound."""


class ClampMaxBackward1(ClampBackward0):
    """clamp_max with a tensor bound."""


@register(methods=('clip',))
def clamp(input, min=None, max=None, *, out=None):
    """Limits ``input`` to ``[min, max]``; bounds may be numbers or tensors."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if not isinstance(input, Tensor):
        if type(input) in (int, float, bool, complex):  # (torch's parser: no number input)
            from ._args import check
            check('clamp', (input, min, max), None)
        input = to_tensor(input, 'clamp', 'input')
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if input.dtype.is_complex:  # (clamp's own check, before the shapes)
            raise NotImplementedError("clamp is not supported for complex types")
        lo = to_tensor(min) if min is not None else None
        hi = to_tensor(max) if max is not None else None
        t = _clamp_tensors(input, lo, hi, ClampBackward0)
    else:
        t = _clamp_numbers(input, min, max, ClampBackward1)
    return _write_out(out, t) if out is not None else t


def _clamp_tensors(input, lo, hi, node):
    """clamp to tensor bounds (either may be None), recorded as a ``node``."""
    x = input._data
    dt = _dtype.promote_all([input] + [b for b in (lo, hi) if b is not None]).np
    check_broadcast(x.shape, *(b._data.shape for b in (lo, hi) if b is not None))
    if np.dtype(dt).kind == 'c':  # (after the shapes, as torch's kernels refuse it)
        kernel = 'maximum_cpu' if lo is not None else 'minimum_cpu'
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype.FROM_NP[np.dtype(dt)].kernel_name}'")
    if dt == np.bool_ and lo is not None and hi is not None:
        # (torch's two-bound kernel has no bool loop; one bound is a maximum or minimum)
        raise NotImplementedError('"clamp_cpu" not implemented for \'Bool\'')
    r = x.astype(dt, copy=False)
    if lo is not None:
        r = np.maximum(r, lo._data.astype(dt, copy=False))
    if hi is not None:
        r = np.minimum(r, hi._data.astype(dt, copy=False))
    ins = [input] + [b for b in (lo, hi) if b is not None]
    n = track(node, ins)
    if n is not None:
        n.has_lo, n.has_hi = lo is not None, hi is not None
        n.save(*ins)
    return result(np.asarray(r), n)


def _clamp_numbers(input, min, max, node):
    """clamp to number bounds, recorded as a ``node``."""
    x = input._data
    if x.dtype.kind != 'c' and (isinstance(min, complex) or isinstance(max, complex)):
        # (clamp of a floating input takes a complex bound as the double it converts to:
        # its real part, none with an imaginary one; an integer or bool input, and
        # clamp_min/clamp_max, promote to complex)
        if x.dtype.kind not in 'fV' or node is not ClampBackward1:
            raise NotImplementedError("clamp is not supported for complex types")
        if any(isinstance(b, complex) and b.imag for b in (min, max)):
            raise RuntimeError("value cannot be converted to type double without overflow")
        min, max = (b.real if isinstance(b, complex) else b for b in (min, max))
    dt = _dtype.FROM_NP[x.dtype]
    for b in (min, max):  # (a number lifts the category: bool -> int64, int -> float)
        if b is not None:
            dt = _dtype.result_type(dt, b)
    if dt.np == np.bool_:  # (bool bounds on a bool tensor: torch has no kernel for it)
        kernel = {ClampMinBackward0: 'clamp_min', ClampMaxBackward0: 'clamp_max'}.get(
            node, 'clamp' if min is not None and max is not None else
            'clamp_min' if min is not None else 'clamp_max')
        raise NotImplementedError(f'"{kernel}_scalar_cpu" not implemented for \'Bool\'')
    if dt.np != x.dtype:
        x = x.astype(dt.np)
    if x.dtype.kind in 'iu':
        min, max = (None if b is None else _fit_int(b, x.dtype) for b in (min, max))
    r = x
    if min is not None:
        r = np.maximum(r, min)
    if max is not None:
        r = np.minimum(r, max)  # (min > max gives max, but a NaN stays NaN)
    r = np.asarray(r).astype(x.dtype, copy=False)
    n = track1(node, input)
    if n is not None:
        n.lo, n.hi = min, max
        n._saved = ((input, input._vc[0]),)
    return result(r, n)


clip = clamp
register(clamp, name='clip')


@register(function=True, methods=('clip_',))
def clamp_(self, min=None, max=None):
    """In-place ``clamp``."""
    return _clamp_inplace(self, lambda t: clamp(t, min, max), (), 'clamp_', (min, max))


def _clamp_inplace(self, fn, args, name, bounds):
    """``inplace`` for clamp_ & co: with number bounds (torch's Scalar overloads) the cast
    refusal names self's C++ type (``long int``), as torch's clamp kernel words it."""
    try:
        return inplace(self, fn, args, name)
    except RuntimeError as e:
        text = str(e)
        if text.startswith('result type ') and " can't be cast to the desired output type " \
                in text and not any(isinstance(b, Tensor) for b in bounds):
            raise RuntimeError(text[:text.rindex(' ') + 1] + self.dtype.cpp_name) from None
        raise


register(clamp_, name='clip_')


@register
def clamp_min(input, min):
    """``clamp(input, min=min)``."""
    if not isinstance(input, Tensor) or min is None:
        from ._args import check  # (torch's TypeError: a number input, a None bound)
        check('clamp_min', (input, min), None)
        return clamp(input, min=min)
    if isinstance(min, Tensor):
        return _clamp_tensors(input, min, None, ClampMinBackward1)
    return _clamp_numbers(input, min, None, ClampMinBackward0)


@register
def clamp_max(input, max):
    """``clamp(input, max=max)``."""
    if not isinstance(input, Tensor) or max is None:
        from ._args import check  # (torch's TypeError: a number input, a None bound)
        check('clamp_max', (input, max), None)
        return clamp(input, max=max)
    if isinstance(max, Tensor):
        return _clamp_tensors(input, None, max, ClampMaxBackward1)
    return _clamp_numbers(input, None, max, ClampMaxBackward0)


@register(function=False)
def clamp_min_(self, min):
    """In-place ``clamp_min``."""
    return _clamp_inplace(self, clamp_min, (min,), 'clamp_min_', (min,))


@register(function=False)
def clamp_max_(self, max):
    """In-place ``clamp_max``."""
    return _clamp_inplace(self, clamp_max, (max,), 'clamp_max_', (max,))


# -- where, lerp, addcmul, addcdiv, nan_to_num ------------------------------------------
class WhereBackward0(Node):
    def backward(self, g):
        cond = self.cond
        # A literal zero, not g * 0: a nan/inf gradient must not leak into the branch that
        # was not taken (torch gives 0 there).
        return None, where(cond, g, 0.0), where(cond, 0.0, g)


def _number_array(value, np_dtype):
    """A Python number as a 0-d array of ``np_dtype`` (complex32's by its fields)."""
    if np_dtype.kind == 'V' and np_dtype.names is not None:
        return _dtype.cast(np.asarray(value), np_dtype)
    return np.asarray(value, np_dtype)


@register(method=False)
def where(condition, input=None, other=None):
    """Elementwise ``input if condition else other``; with one argument, ``nonzero``."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    cond = to_tensor(condition, 'where', 'condition')
    if cond._data.dtype == np.uint8:  # still accepted by torch, with a warning
        import warnings
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated "
                      "and will be removed in a future version of PyTorch. Use a boolean "
                      "condition instead.", UserWarning, stacklevel=2)
        cond = make(cond._data != 0)
    if cond._data.dtype.kind != 'b':
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {cond.dtype.kernel_name}")
    for t, v in ((input, other), (other, input)):  # (an int into an integer tensor's dtype:
        if builtins.type(v) is int and isinstance(t, Tensor) and t._data.dtype.kind in 'iu':
            _fit_int(v, t._data.dtype)  # torch's checked conversion, not the kernel's wrap)
    if isinstance(input, Tensor):
        a, b = binary_arrays(input, other, 'where')
        if not isinstance(b, np.ndarray):
            b = _number_array(b, a.dtype)
    elif isinstance(other, Tensor):
        b, a = binary_arrays(other, input, 'where')
        if not isinstance(a, np.ndarray):
            a = _number_array(a, b.dtype)
    else:
        dt = _dtype.promote_types(_dtype.scalar_dtype(input), _dtype.scalar_dtype(other)).np
        a, b = np.asarray(input, dt), np.asarray(other, dt)
    check_broadcast(cond._data.shape, np.shape(a), np.shape(b))
    r = np.asarray(np.where(cond._data, a, b))
    ins = (cond, input if isinstance(input, Tensor) else None,
           other if isinstance(other, Tensor) else None)
    n = track(WhereBackward0, ins)
    if n is not None:
        n.cond = cond
    return result(r, n)


@register(function=False, name='where')
def _where_method(self, condition, other):
    """``Tensor.where(condition, other)``: ``where(condition, self, other)`` -- the tensor
    is the value taken where the condition holds, not the condition."""
    return where(condition, self, other)


@register(function=False)
def where_(self, condition, other):
    """``self = where(condition, self, other)`` in place."""
    return inplace(self, lambda t, c, o: where(c, t, o), (condition, other), 'where_')


class LerpBackward0(Node):
    def backward(self, g):
        w = self.weight
        return g * cj(1 - w), g * cj(w)


class LerpBackward1(Node):
    def backward(self, g):
        a, b, w = self.saved_tensors
        return g * cj(1 - w), g * cj(w), g * cj(b - a)


def _lerp_kernel(x, form):
    """torch's lerp kernels (for a tensor or a number ``weight``) take no integers or bool."""
    if x.dtype.kind in 'biu':
        from .._dtype import FROM_NP
        raise NotImplementedError(f'"lerp_kernel_{form}" not implemented for '
                                  f"'{FROM_NP[x.dtype].kernel_name}'")


@register
def lerp(input, end, weight):
    """``input + weight * (end - input)`` (``end - (end - input) * (1 - weight)`` for
    weights from 0.5 on, as torch); ``weight`` a number or a tensor."""
    for t, name in ((end, 'end'), (weight, 'weight')):
        # (torch's kernel takes one dtype: ``end``'s, and a weight's unless it is 0-d)
        if isinstance(t, Tensor) and t._data.dtype != input._data.dtype and \
                (name == 'end' or t._data.ndim) and isinstance(input, Tensor):
            raise RuntimeError(f"expected dtype {input.dtype.cpp_name} for `{name}` but got "
                               f"dtype {t.dtype.cpp_name}")
    if isinstance(weight, Tensor):
        x, e = binary_arrays(input, end, 'lerp')
        check_broadcast(x.shape, e.shape, weight._data.shape)
        _lerp_kernel(x, 'tensor')
        w = weight._data
        r = np.where(np.abs(w) < 0.5, x + w * (e - x), e - (e - x) * (1 - w))
        n = track(LerpBackward1, (input, end, weight))
        if n is not None:
            n.save(input, end, weight)
    else:
        x, e = binary_arrays(input, end, 'lerp')
        check_broadcast(x.shape, np.shape(e))
        _lerp_kernel(x, 'scalar')
        weight = scalar_as(weight, x.dtype)  # (a complex one is refused for a real input)
        if isinstance(weight, (bool, np.bool_)):  # (torch reads a bool weight as 0 or 1)
            weight = int(weight)
        # torch's two-sided form: exact at both ends (start + 1 * (end - start) is not end
        # when end - start rounds)
        r = x + weight * (e - x) if abs(weight) < 0.5 else e - (e - x) * (1 - weight)
        n = track(LerpBackward0, (input, end))
        if n is not None:
            n.weight = weight
    return result(np.asarray(r).astype(x.dtype, copy=False), n)


@register(function=False)
def lerp_(self, end, weight):
    """In-place ``lerp``."""
    return inplace(self, lerp, (end, weight), 'lerp_')


class AddcmulBackward0(Node):
    def backward(self, g):
        t1, t2 = self.saved_tensors
        v = self.value
        return g, g * cj(t2 * v), g * cj(t1 * v)


class AddcdivBackward0(Node):
    def backward(self, g):
        t1, t2 = self.saved_tensors
        v = self.value
        return g, g * cj(v / t2), -g * cj(v * t1 / (t2 * t2))


_ADDCDIV_INTEGER = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
    "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def _inexact_operand(t):
    """Whether an addcdiv operand is floating or complex (a Python float counts; bfloat16's
    NumPy kind is 'V')."""
    kind = t._data.dtype.kind if isinstance(t, Tensor) else np.asarray(t).dtype.kind
    return kind in 'fcV'


def _addc(node, kernel, name):
    def fn(input, tensor1, tensor2, *, value=1, out=None):
        if name == 'addcdiv' and not any(_inexact_operand(t) for t in (tensor1, tensor2)):
            from ._args import stands  # (torch raises it before it looks at the shapes)
            raise stands(RuntimeError(_ADDCDIV_INTEGER))
        shapes = [np.shape(t._data) if isinstance(t, Tensor) else () for t in
                  (input, tensor1, tensor2)]
        if not shapes[0] == shapes[1] == shapes[2]:
            check_broadcast(*shapes)  # (torch's order: input, tensor1, tensor2)
        if isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor) and not \
                input._data.dtype == tensor1._data.dtype == tensor2._data.dtype:
            # torch computes the product in the dtype of all three (uint8 * int16 wraps in
            # uint8 on its own, not when added to a float input)
            dt = _dtype.promote_all((input, tensor1, tensor2))
            tensor1, tensor2 = tensor1.to(dt), tensor2.to(dt)
        q = kernel(tensor1, tensor2)
        x, y = binary_arrays(input, q, name)
        check_broadcast(np.shape(x), np.shape(y))
        rt = np.result_type(x, y)
        value = scalar_as(value, rt)
        if rt.kind in 'iu':
            value = _fit_int(value, rt)  # (-1 wraps to 255 for uint8, as in torch)
        if rt.kind == 'c':
            # torch's kernel multiplies left to right, input + (value * tensor1) (*|/) tensor2:
            # with an infinity the complex products' NaN parts fall where torch's do
            a1, b1 = binary_arrays(tensor1, tensor2, name)
            with np.errstate(all='ignore'):
                y = (np.multiply if name == 'addcmul' else np.true_divide)(value * a1, b1)
            r = np.asarray(x + y).astype(rt, copy=False)
        else:
            r = np.asarray(x + value * y).astype(rt, copy=False)
        n = track(node, (input, tensor1, tensor2))
        if n is not None:
            n.value = value
            n.save(tensor1, tensor2)
        t = result(r, n)
        return _write_out(out, t) if out is not None else t
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input + value * (tensor1 {'*' if name == 'addcmul' else '/'} tensor2)``."
    register(fn)

    def fn_(self, tensor1, tensor2, *, value=1):
        return inplace(self, lambda t, a, b: fn(t, a, b, value=value), (tensor1, tensor2),
                       name + '_')
    fn_.__name__ = fn_.__qualname__ = name + '_'
    fn_.__doc__ = f"In-place ``{name}``."
    register(fn_, function=False)
    return fn


def _nograd(f):
    def g(a, b):
        prev = STATE.enabled
        STATE.enabled = False
        try:
            return f(a, b)
        finally:
            STATE.enabled = prev
    return g


addcmul = _addc(AddcmulBackward0, _nograd(lambda a, b: a * b), 'addcmul')
addcdiv = _addc(AddcdivBackward0, _nograd(lambda a, b: a / b), 'addcdiv')


class NanToNumBackward0(Node):
    def backward(self, g):
        return g * _saved0(self).isfinite()


@register
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replaces NaN with ``nan`` and infinities with ``posinf``/``neginf`` (default: the
    dtype's largest/smallest finite value)."""
    x = input._data
    kind = x.dtype.kind
    if nan is None:  # (None means the default, 0, as in torch)
        nan = 0.0
    if kind in 'fc':
        r = np.nan_to_num(x, copy=True, nan=nan, posinf=posinf, neginf=neginf)
    elif kind == 'V':  # bfloat16: NumPy knows no bfloat16 limits, ember's finfo does
        from .._finfo import finfo
        top = finfo(_dtype.bfloat16).max
        r = opmath_call(lambda a: np.nan_to_num(
            a, nan=nan, posinf=top if posinf is None else posinf,
            neginf=-top if neginf is None else neginf), x)
    else:
        r = x.copy()
    n = track1(NanToNumBackward0, input)
    if n is not None:
        n._saved = ((input, input._vc[0]),)
    t = result(np.asarray(r), n)
    return _write_out(out, t) if out is not None else t


@register(function=False)
def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    """In-place ``nan_to_num``."""
    if self._data.dtype.kind in 'biu':
        # (integers hold no NaN or inf: torch copies self onto itself, a version bump with
        # no write -- so no refusal of an expanded tensor either)
        from ._core import check_inplace
        check_inplace(self, 'nan_to_num_')
        self._vc[0] += 1
        return self
    return inplace(self, lambda t: nan_to_num(t, nan, posinf, neginf), (), 'nan_to_num_')


# -- comparisons of whole tensors --------------------------------------------------------
def _check_tolerances(rtol, atol):
    """isclose/allclose refuse negative (and NaN) tolerances, as torch does."""
    for name, v in (('rtol', rtol), ('atol', atol)):
        if not v >= 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got "
                               f"{v:g}")


@register
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|``."""
    if input._data.dtype != to_tensor(other)._data.dtype:  # (torch: before the tolerances)
        raise RuntimeError(f"{input.dtype.kernel_name} did not match "
                           f"{to_tensor(other).dtype.kernel_name}")
    _check_tolerances(rtol, atol)
    x, y = binary_arrays(input, other, 'isclose')
    if x.dtype.kind == 'V' and x.dtype.names is not None:
        return make(_isclose_chalf(x, y, rtol, atol, equal_nan))
    if x.dtype == np.float16 or x.dtype.kind == 'V':
        return make(_isclose_half(x, y, rtol, atol, equal_nan))
    return make(np.asarray(np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def _isclose_half(x, y, rtol, atol, equal_nan):
    """isclose of float16/bfloat16 arrays as torch's composite computes it: each step (the
    allowed error ``atol + |rtol * y|``, the error ``|x - y|``) rounded to the dtype, so a
    difference that rounds onto the allowed error is close."""
    dt, f = x.dtype, np.float32
    with np.errstate(all='ignore'):
        allowed = (np.abs((y.astype(f) * f(rtol)).astype(dt)).astype(f) + f(atol)).astype(dt)
        error = np.abs(x.astype(f) - y.astype(f)).astype(dt)
        close = (x == y) | (np.isfinite(error) & (error.astype(f) <= allowed.astype(f)))
    if equal_nan:
        close |= np.isnan(x) & np.isnan(y)
    return np.asarray(close)


def _isclose_chalf(x, y, rtol, atol, equal_nan):
    """isclose of complex32 arrays as torch's composite computes it: the difference rounded
    to complex32, the magnitudes and the allowed error to float16."""
    h, f = np.float16, np.float32
    x, y = _dtype.chalf_to_complex64(x), _dtype.chalf_to_complex64(y)
    with np.errstate(all='ignore'):
        diff = _dtype.chalf_to_complex64(_dtype.cast(x - y, _dtype.CHALF_NP))
        error = np.abs(diff).astype(h)
        allowed = ((np.abs(y).astype(h).astype(f) * f(rtol)).astype(h).astype(f) +
                   f(atol)).astype(h)
        close = (x == y) | (np.isfinite(error) & (error <= allowed))
    if equal_nan:
        close |= np.isnan(x) & np.isnan(y)
    return np.asarray(close)


@register
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if every element is ``isclose``."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@register
def equal(input, other):
    """True if both tensors have the same shape and elements."""
    return input._data.shape == other._data.shape and bool(
        np.array_equal(*binary_arrays(input, other, 'equal')))


class _HeavisideBackward(NotImplemented_):
    op = 'heaviside'


_HeavisideBackward.__name__ = _HeavisideBackward.__qualname__ = 'NotImplemented'
_heaviside = _binary('heaviside', _heaviside_kernel, _HeavisideBackward, public=False,
                     check=_check_heaviside)


@register
def heaviside(input, values, *, out=None):
    """The step function: 0 where ``input < 0``, 1 where ``input > 0``, ``values`` where it
    is 0 (broadcast; both of one dtype). Not differentiable, as in torch."""
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not "
                        f"{builtins.type(values).__name__}")
    if isinstance(input, Tensor) and 'c' in (input._data.dtype.kind, values._data.dtype.kind):
        # (before the shapes, which refuse would otherwise put first)
        raise _arguments().stands(
            RuntimeError("heaviside is not yet implemented for complex tensors."))
    if isinstance(input, Tensor) and input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _heaviside(input, values, out=out)


@register(function=False)
def heaviside_(self, values):
    """In-place ``heaviside``."""
    return inplace(self, heaviside, (values,), 'heaviside_')


# torch's other names for the same ops: each alias is a public object of its own (so a
# __torch_function__ handler sees the name the user called) over the one implementation,
# and the Tensor method's in-place form is the original's in-place form.
arcsinh, arccosh, arctanh = asinh, acosh, atanh
for _alias, _name in (('arcsin', 'asin'), ('arccos', 'acos'), ('arctan', 'atan'),
                      ('arcsinh', 'asinh'), ('arccosh', 'acosh'), ('arctanh', 'atanh')):
    register(globals()[_name], name=_alias)
for _alias, _name in (('arcsin', 'asin'), ('arccos', 'acos'), ('arctan', 'atan'),
                      ('arcsinh', 'asinh'), ('arccosh', 'acosh'), ('arctanh', 'atanh'),
                      ('arctan2', 'atan2'), ('greater', 'gt'), ('greater_equal', 'ge'),
                      ('less', 'lt'), ('less_equal', 'le'), ('not_equal', 'ne'),
                      ('multiply', 'mul'), ('divide', 'div')):
    register(METHODS[_name + '_']._ember_impl, name=_alias + '_', function=False)


# -- Python operators --------------------------------------------------------------------
def _rtruediv(self, other):
    # (torch's rule: reciprocal(self) * other, whatever the dtypes)
    return mul(reciprocal(self), _operand(other))


def _rmod(self, other):
    return remainder(_scalar_tensor(other, self), self)


def _rfloordiv(self, other):
    return floor_divide(_scalar_tensor(other, self), self)


def _rpow_method(self, other):
    # (a tensor base, from a direct call, is ``pow``'s tensor-tensor form)
    return pow(other, self) if isinstance(_operand(other), Tensor) else _rpow(other, self)


def _invert(self):
    if self._data.dtype.kind not in 'biu':
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(self)


def _neg_op(self):
    if self._data.dtype.kind == 'b':
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return neg(self)


OPERATORS = {
    '__add__': _add, '__radd__': _add,
    '__sub__': sub, '__rsub__': lambda self, other: rsub(self, _operand(other)),
    '__mul__': mul, '__rmul__': mul,
    '__truediv__': div, '__rtruediv__': _rtruediv,
    '__floordiv__': floor_divide, '__rfloordiv__': _rfloordiv,
    '__mod__': remainder, '__rmod__': _rmod,
    '__pow__': pow, '__rpow__': _rpow_method,
    '__eq__': eq, '__ne__': ne, '__lt__': lt, '__le__': le, '__gt__': gt, '__ge__': ge,
    '__and__': bitwise_and, '__or__': bitwise_or, '__xor__': bitwise_xor,
    '__rand__': lambda self, other: bitwise_and(self, other),
    '__ror__': lambda self, other: bitwise_or(self, other),
    '__rxor__': lambda self, other: bitwise_xor(self, other),
    '__neg__': _neg_op, '__abs__': abs, '__invert__': _invert, '__pos__': positive,
    '__iadd__': add_, '__isub__': sub_, '__imul__': mul_,
    '__itruediv__': lambda self, other: div_(self, other), '__ifloordiv__': floor_divide_,
    '__imod__': lambda self, other: inplace(self, remainder, (other,), '__imod__'),
    # (torch's __ipow__ is pow_ with a TypeError turned NotImplemented: its keyword, its checks)
    '__ipow__': lambda self, *args, **kwargs: METHODS['pow_'](self, *args, **kwargs),
    # (the in-place bitwise operators are their methods, with the checks the argument layer
    # makes first -- out's dtype before the kernel's: ``int_t &= float_t`` is a cast error)
    '__iand__': lambda self, other: METHODS['bitwise_and_'](self, other),
    '__ior__': lambda self, other: METHODS['bitwise_or_'](self, other),
    '__ixor__': lambda self, other: METHODS['bitwise_xor_'](self, other),
    '__lshift__': bitwise_left_shift, '__rshift__': bitwise_right_shift,
    '__rlshift__': lambda self, other: bitwise_left_shift(_scalar_tensor(other, self), self),
    '__rrshift__': lambda self, other: bitwise_right_shift(_scalar_tensor(other, self), self),
    '__ilshift__': lambda self, other: METHODS['bitwise_left_shift_'](self, other),
    '__irshift__': lambda self, other: METHODS['bitwise_right_shift_'](self, other),
    '__div__': div,  # (Python 2's name, which torch still defines)
}
METHODS.update(OPERATORS)


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``).
# (the unary and binary builders name the rest)
for _cls, _names in ((MulBackward0, ('self', 'other')), (DivBackward0, ('self', 'other'))):
    name_saved_values(_cls, _names)
name_saved_values(PowBackward0, ('self',), attrs={'exponent': 'exponent'})
for _cls in (DivBackward2, _TrueDivBackward2):
    name_saved_values(_cls, attrs={'rounding_mode': 'rounding_mode'})
