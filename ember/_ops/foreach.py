"""``torch._foreach_*``: one op applied to every tensor of a list (what torch's optimizers,
``clip_grad_norm_`` and scripts copied from them call).

torch fuses each into one kernel per device; ember loops over the list and calls the
tensor op, so values, dtypes, errors and gradients are the op's own. Out-of-place forms
return a tuple, in-place forms (``_foreach_add_``) the list they were given. A second
operand may be a number, a list of numbers (one per tensor), a list of tensors or a single
tensor; ``addcmul``/``addcdiv`` also take their scalars as a 1-D tensor.
"""
import numbers

import numpy as np

from .. import _dtype
from ._core import Node, Tensor, make, register, results, track

__all__ = []

_UNARY = ('abs', 'acos', 'asin', 'atan', 'ceil', 'cos', 'cosh', 'erf', 'erfc', 'exp', 'expm1',
          'floor', 'frac', 'lgamma', 'log', 'log10', 'log1p', 'log2', 'neg', 'reciprocal',
          'round', 'rsqrt', 'sigmoid', 'sign', 'sin', 'sinh', 'sqrt', 'tan', 'tanh', 'trunc')
# maximum/minimum take only tensors; with a number they are clamps
_WITH_NUMBER = {'maximum': 'clamp_min', 'minimum': 'clamp_max'}
_BINARY = ('add', 'sub', 'mul', 'div', 'clamp_max', 'clamp_min', 'maximum', 'minimum', 'pow')


def _tensor_list(name, value, position=1, arg='self'):
    """``value`` as a non-empty list of tensors, or torch's error."""
    if isinstance(value, Tensor) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be tuple of "
                        f"Tensors, not {type(value).__name__}")
    for i, t in enumerate(value):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {position - 1}, but "
                            f"got {type(t).__name__}")
    if not value:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return value


def _per_tensor(name, self, other, position=2):
    """``other`` spread over ``self``: a list (of numbers or of tensors) element by element,
    anything else (a number, a 0-d tensor) the same for every tensor."""
    if isinstance(other, (list, tuple)):
        if any(isinstance(o, Tensor) for o in other):
            _tensor_list(name, other, position, 'other')
            if len(other) != len(self):
                raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                                   f"{len(self)} and {len(other)}")
        elif len(other) != len(self):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        else:
            for i, o in enumerate(other):
                if not isinstance(o, numbers.Number):
                    raise TypeError(f"expected Tensor as element {i} in argument "
                                    f"{position - 1}, but got {type(o).__name__}")
        return other
    if isinstance(other, Tensor) and other.dim():
        raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} "
                           f"dimensions and {other.numel()} elements.")
    return [other] * len(self)


def _packed_scalars(self, value):
    """addcmul/addcdiv's ``value`` given as a tensor: torch's checks of it, which come before
    those of the lists (``self`` may even be empty)."""
    if not value.is_contiguous():
        raise RuntimeError("Expected scalars to be contiguous.")
    if value.dim() != 1:
        raise RuntimeError(f"Expected packed scalar Tensor to be of dimension 1. Got "
                           f"{value.dim()} instead.")
    if value.numel() != len(self):
        raise RuntimeError(f"Expected length of scalars to match input of length {len(self)} "
                           f"but got {value.numel()} instead.")
    return value.tolist()


def _apply(t, op, args, kwargs, inplace):
    """``t.op(*args)``, or in place ``t.op_(*args)`` (through ``copy_`` where the tensor
    method has no in-place form)."""
    if not inplace:
        return getattr(t, op)(*args, **kwargs)
    method = getattr(t, op + '_', None)
    if method is not None:
        return method(*args, **kwargs)
    return t.copy_(getattr(t, op)(*args, **kwargs))


def _define(name, fn):
    fn.__name__ = fn.__qualname__ = name
    _in_order(fn)
    register(fn, method=False)


def _in_order(fn):
    """Marks a foreach op as raising its elements' errors in list order, as torch's CPU loop
    does: each element's op has already put its own checks in torch's order, so a kernel's
    dtype refusal of one element stands before the errors of later ones (see
    ``_args._kernel_dtype_last``)."""
    fn._dtype_first = True
    return fn


def _unary(op, inplace):
    def fn(self):
        _tensor_list(fn.__name__, self)
        out = [_apply(t, op, (), {}, inplace) for t in self]
        return self if inplace else tuple(out)
    fn.__doc__ = f"``{op}`` of every tensor of the list" + (" in place." if inplace else ".")
    _define(f"_foreach_{op}{'_' if inplace else ''}", fn)


def _as_scalar_tensor(t, other):
    """add/sub's one 0-d ``other`` for every tensor: torch promotes it as a Python number
    (int64 tensors plus a bfloat16 one are float32, the default dtype; its mul and div
    promote it as a tensor), so it goes to that dtype first (``to``: its gradient still
    flows)."""
    from .. import _dtype
    want = _dtype.result_type(t.dtype, other.item())
    return other if want == other.dtype else other.to(want)


def _binary(op, inplace):
    def fn(self, other, *, alpha=None):
        name = fn.__name__
        if not isinstance(self, (list, tuple)) and op == 'pow':  # pow(number, tensors)
            return tuple(_rpow(self, t) for t in _tensor_list(name, other, 2, 'exponent'))
        _tensor_list(name, self)
        others = _per_tensor(name, self, other)
        kwargs = {} if alpha is None else {'alpha': alpha}
        if op in _WITH_NUMBER and not inplace and all(
                isinstance(o, numbers.Number) for o in others):
            return _extremum_with_numbers(op, self, others, isinstance(other, (list, tuple)))
        if op in ('add', 'sub') and isinstance(other, Tensor) and alpha is None:
            # (torch's parser reads one tensor as the Scalar overload's number; an alpha
            # picks the Tensor overload, which promotes it as a tensor, as mul/div do)
            others = [_as_scalar_tensor(t, other) for t in self]
        listed = isinstance(other, (list, tuple))
        out = []
        for t, o in zip(self, others):
            if inplace and op in _CLAMPS:
                _clamp_cast(t, o, listed)
            if op in ('maximum', 'minimum') and isinstance(o, Tensor) and (
                    t.dtype.is_complex or o.dtype.is_complex):
                # (torch's list kernels are clamps: their kernel refuses complex bounds, after
                # the iterator's overlap and shape checks)
                from ._core import check_broadcast, check_written_shape
                x = t._data
                if inplace and x.size and any(st == 0 and n > 1
                                              for st, n in zip(x.strides, x.shape)):
                    raise RuntimeError("unsupported operation: more than one element of the "
                                       "written-to tensor refers to a single memory location. "
                                       "Please clone() the tensor before performing the "
                                       "operation.")
                (check_written_shape if inplace else check_broadcast)(x.shape, o._data.shape)
                dt = _dtype.promote_types(t.dtype, o.dtype)
                raise NotImplementedError(f'"{op}_cpu" not implemented for '
                                          f"'{dt.kernel_name}'")
            out.append(_apply(t, _WITH_NUMBER.get(op, op) if isinstance(o, numbers.Number)
                              else op, (o,), kwargs, inplace))
        return self if inplace else tuple(out)
    fn.__doc__ = (f"``{op}`` of each tensor of the list with a number, a list of numbers, a "
                  f"list of tensors or one tensor" + (", in place." if inplace else "."))
    _define(f"_foreach_{op}{'_' if inplace else ''}", fn)


_CLAMPS = ('clamp_min', 'clamp_max', 'maximum', 'minimum')


def _clamp_cast(t, o, listed):
    """torch's check that an in-place clamp of ``t`` by ``o`` can write its result type into
    ``t``, made before the clamp's own refusals (of complex tensors; a complex number's
    refusal comes first). A number, or one 0-d tensor for the whole list (``not listed``),
    is a Scalar to torch, and the message names ``t``'s dtype as C++ does."""
    if isinstance(o, Tensor) and listed:
        common, out = _dtype.promote_all([t, o]), t.dtype.kernel_name
    else:
        if isinstance(o, Tensor):
            o = o.item()
        if isinstance(o, complex):
            return
        common = _dtype.result_type(t.dtype, o)
        out = t.dtype.cpp_name
    if not _dtype.can_cast(common, t.dtype):
        raise RuntimeError(f"result type {common.kernel_name} can't be cast to the desired "
                           f"output type {out}")


class _ForeachExtremumBackward(Node):
    """One node for every output of ``_foreach_maximum``/``_foreach_minimum`` with numbers
    (torch's ForeachMaximumBackward0/1...): each input's gradient passes where it won,
    halved where it tied with the number."""
    _loses = None  # the comparison under which an input lost: ``gt`` for minimum

    def backward(self, *grads):
        from . import pointwise
        selfs = self.saved_tensors
        return tuple(None if g is None else pointwise.where(t == v, g / 2, g).masked_fill(
                         getattr(t, self._loses)(v), 0)
                     for g, t, v in zip(grads, selfs, self._values))


def _saved_self(node):
    """The input tensors (torch's ``self`` list)."""
    return tuple(node.saved_tensors)


def _raw_saved_self(node):
    """torch's SavedTensor handles on the input tensors."""
    from ..autograd.graph import SavedTensor, _RELEASED
    n = len(node._values) if node._saved is _RELEASED else len(node._saved)
    return tuple(SavedTensor._of(node, i) for i in range(n))


def _extremum_node(op, listed):
    # (the saved-value properties sit on torch's node names only, not on the shared base)
    name = ('ForeachMaximumBackward' if op == 'maximum' else 'ForeachMinimumBackward') + (
        '1' if listed else '0')
    attrs = {'_loses': 'lt' if op == 'maximum' else 'gt', '__doc__': f"torch's {name}.",
             '_saved_self': property(_saved_self, doc=_saved_self.__doc__),
             '_raw_saved_self': property(_raw_saved_self, doc=_raw_saved_self.__doc__)}
    if listed:
        attrs['_saved_scalars'] = property(lambda self: tuple(self._values),
                                           doc="The numbers (torch's ``scalars``).")
    else:
        attrs['_saved_scalar'] = property(lambda self: self._values[0],
                                          doc="The number (torch's ``scalar``).")
    return type(name, (_ForeachExtremumBackward,), attrs)


_EXTREMUM_NODES = {(op, listed): _extremum_node(op, listed)
                   for op in _WITH_NUMBER for listed in (False, True)}


def _extremum_with_numbers(op, self, numbers_, listed):
    """``_foreach_maximum``/``_foreach_minimum`` of each tensor with a number (one for all,
    or one each when ``listed``): the clamps' values, under one node for the whole list
    (forward AD keeps the clamps' own nodes, which carry the tangents)."""
    from ..autograd.forward_ad import FWD
    from ..autograd.grad_mode import no_grad
    clamp = _WITH_NUMBER[op]
    if FWD.level is not None:
        return tuple(getattr(t, clamp)(v) for t, v in zip(self, numbers_))
    with no_grad():
        values = [getattr(t, clamp)(v) for t, v in zip(self, numbers_)]
    node = track(_EXTREMUM_NODES[op, listed], self)
    if node is None:
        return tuple(values)
    node.save(*self)
    node._values = tuple(numbers_)
    return tuple(results([v._data for v in values], node))


def _rpow(base, t):
    from . import pointwise
    return pointwise.pow(base, t)


def _ternary(op, inplace):
    def fn(self, tensor1, tensor2, value=1):
        name = fn.__name__
        packed = isinstance(value, Tensor) and isinstance(self, (list, tuple))
        values = _packed_scalars(self, value) if packed else None
        _tensor_list(name, self)
        ones = _per_tensor(name, self, _tensor_list(name, tensor1, 2, 'tensor1'))
        twos = _per_tensor(name, self, _tensor_list(name, tensor2, 3, 'tensor2'))
        if not packed:
            values = _per_tensor(name, self, value, 4)
        out = [_apply(t, op, (a, b), {'value': v}, inplace)
               for t, a, b, v in zip(self, ones, twos, values)]
        return self if inplace else tuple(out)
    fn.__doc__ = f"``{op}`` over the lists, element by element" + (
        ", in place." if inplace else ".")
    _define(f"_foreach_{op}{'_' if inplace else ''}", fn)


def _lerp(inplace):
    def fn(self, tensors1, weight):
        name = fn.__name__
        _tensor_list(name, self)
        ends = _per_tensor(name, self, _tensor_list(name, tensors1, 2, 'tensors1'))
        weights = _per_tensor(name, self, weight, 3)
        out = [_apply(t, 'lerp', (e, w), {}, inplace) for t, e, w in zip(self, ends, weights)]
        return self if inplace else tuple(out)
    fn.__doc__ = "``lerp`` of each tensor towards its partner" + (
        ", in place." if inplace else ".")
    _define(f"_foreach_lerp{'_' if inplace else ''}", fn)


for _op in _UNARY:
    _unary(_op, False)
    _unary(_op, True)
for _op in _BINARY:
    _binary(_op, False)
    _binary(_op, True)
for _op in ('addcmul', 'addcdiv'):
    _ternary(_op, False)
    _ternary(_op, True)
_lerp(False)
_lerp(True)


@register(method=False)
@_in_order
def _foreach_zero_(self):
    """Zeros every tensor of the list in place."""
    for t in _tensor_list('_foreach_zero_', self):
        t.zero_()
    return self


@register(method=False)
@_in_order
def _foreach_clone(self):
    """A copy of every tensor of the list."""
    return tuple(t.clone() for t in _tensor_list('_foreach_clone', self))


@register(method=False)
@_in_order
def _foreach_copy_(self, src, non_blocking=False):
    """Copies each tensor of ``src`` into its partner in the list."""
    _tensor_list('_foreach_copy_', self)
    for t, s in zip(self, _per_tensor('_foreach_copy_', self,
                                      _tensor_list('_foreach_copy_', src, 2, 'src'))):
        t.copy_(s)
    return self


@register(method=False)
@_in_order
def _foreach_norm(self, ord=2, dtype=None):
    """The vector norm of every tensor of the list (0-d tensors)."""
    from .linalg_composed import vector_norm
    tensors = _tensor_list('_foreach_norm', self)
    if isinstance(ord, (bool, np.bool_, complex, np.complexfloating)):
        raise RuntimeError("foreach_tensor_norm_slow expects ord to be integer or float")
    if ord == float('inf') and any(t.numel() == 0 for t in tensors):
        raise RuntimeError("_foreach_norm cannot compute the infinity norm on an empty tensor "
                           "because the operation does not have an identity")
    return tuple(vector_norm(t, ord, dtype=dtype) for t in tensors)


@register(method=False)
@_in_order
def _foreach_powsum(self, ord=2, dtype=None):
    """``sum(|t| ** ord)`` of every tensor of the list (0-d tensors), computed in ``dtype``
    when given (a complex one gives its real counterpart, as the absolute values are)."""
    out = []
    tensors = _tensor_list('_foreach_powsum', self)
    if isinstance(ord, (complex, np.complexfloating)):  # (its kernel reads ord as a double)
        from .pointwise import scalar_as
        ord = scalar_as(ord, np.float64)
    for t in tensors:
        integral = dtype if dtype is not None and not (dtype.is_floating_point
                                                       or dtype.is_complex) else None
        if integral is not None and t.is_complex():
            raise RuntimeError(f"Unknown Complex ScalarType for {dtype.kernel_name}")
        if integral is None and dtype is None and not (t.is_floating_point() or t.is_complex()):
            integral = _dtype.int64  # (torch's kernel reads integer and bool lists as Long)
        if integral is not None:
            if not t._data.size:  # (an empty tensor runs no kernel: its sum is 0)
                out.append(make(np.zeros((), integral.np)))
                continue
            raise NotImplementedError(f"\"powsum_cpu\" not implemented for "
                                      f"'{integral.kernel_name}'")
        out.append(_abs_in(t, dtype).pow(ord).sum())
    return tuple(out)


def _abs_in(t, dtype):
    """``|t|`` in ``dtype`` (a floating dtype or None) as torch's powsum takes it: a complex
    ``t`` is converted to the dtype's complex counterpart first, so its imaginary part counts
    (float16's is complex32: both parts rounded to float16, its abs computed in float32)."""
    if dtype is None:
        return t.abs()
    if not t.is_complex() or dtype.is_complex:
        return t.to(dtype).abs()
    if dtype.itemsize < 4:
        from .special import complex as _complex
        halves = [part.to(dtype).float() for part in (t.real, t.imag)]
        return _complex(*halves).abs().to(dtype)
    return t.to(dtype.to_complex()).abs()


@register(method=False)
@_in_order
def _foreach_max(self):
    """The largest element of every tensor of the list (0-d tensors)."""
    out = []
    for t in _tensor_list('_foreach_max', self):
        if not t.numel():  # (torch's own words: no dim to reduce over is given here)
            raise RuntimeError("_foreach_max cannot compute the maximum of an empty tensor; "
                               "max over zero elements is undefined.")
        out.append(t.max())
    return tuple(out)


@register(method=False)
@_in_order
def _foreach_mm(self, mat2):
    """``mm`` of each matrix of the list with its partner."""
    if not self:  # (its own checks, in its own words)
        raise RuntimeError("_foreach_mm requires non-empty tensor lists")
    if len(self) != len(mat2):
        raise RuntimeError("_foreach_mm: self and mat2 must have the same number of tensors")
    return tuple(a.mm(b) for a, b in zip(self, mat2))
