"""Tensor factories: tensor, as_tensor, from_numpy, zeros/ones/full/empty(_like), arange,
linspace, eye, and the in-place initialisers fill_/zero_/copy_."""
import builtins
import math

import numpy as np

from .. import _dtype
from .._device import check_device
from .._tensor import to_array
from ..autograd.grad_mode import STATE
from ..autograd.forward_ad import FWD
from ..autograd.graph import CopyBackwards
from ._core import (Node, Tensor, make, register, inplace, write_into, track, result,
                    check_no_partial_overlap)

__all__ = ['tensor', 'as_tensor', 'from_numpy', 'zeros', 'ones', 'full', 'empty', 'arange',
           'linspace', 'eye']


def _finish(arr, requires_grad, op):
    t = make(arr)
    if requires_grad:
        if arr.dtype.kind not in 'fcV':
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t.requires_grad_(True)
    return t


def _dt(dtype):
    """The NumPy dtype for a factory's ``dtype=`` (default float when None)."""
    if dtype is None:
        return _dtype.DEFAULT.np_float
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"dtype must be ember.dtype, not {builtins.type(dtype).__name__}")
    return dtype.np


def _shape(size, op):
    if not size:
        raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.__index__()
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, but "
                            f"found element of type {builtins.type(s).__name__} at pos "
                            f"{len(out)}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        out.append(s)
    return tuple(out)


@register(method=False, dispatch=False)
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor copying ``data`` (nested lists, numbers, arrays, tensors); the dtype is
    inferred as torch does (floats -> default dtype, ints -> int64, bools -> bool)."""
    check_device(device, 'tensor')
    if isinstance(data, Tensor):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    arr = to_array(data, dtype)
    arr = np.array(arr, copy=True, order='C')
    return _finish(arr, requires_grad, 'tensor')


@register(method=False, dispatch=False)
def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with ``data`` when it already is a matching array or
    tensor."""
    check_device(device, 'as_tensor')
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        return make(data if dtype is None else data.astype(dtype.np, copy=False))
    return make(to_array(data, dtype))


@register(method=False, dispatch=False)
def from_numpy(ndarray):
    """A tensor sharing memory with the NumPy array (dtype kept)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {builtins.type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype)
    return make(ndarray)


@register(method=False, dispatch=False)
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``as_tensor`` with torch's ``asarray`` keywords."""
    t = as_tensor(obj, dtype, device)
    if copy:
        t = make(t._data.copy())
    if requires_grad:
        t.requires_grad_(True)
    return t


def _factory(name, fill):
    def fn(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
           pin_memory=False, memory_format=None):
        check_device(device, name)
        arr = fill(_shape(size, name), _dt(dtype))
        return _finish(arr, requires_grad, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"A new tensor of the given size filled with {name} (default float dtype)."
    register(fn, method=False)

    def like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None):
        check_device(device, name + '_like')
        arr = fill(input._data.shape, dtype.np if dtype is not None else input._data.dtype)
        return _finish(arr, requires_grad, name + '_like')
    like.__name__ = like.__qualname__ = name + '_like'
    like.__doc__ = f"``{name}`` with the shape (and dtype, unless given) of ``input``."
    register(like, method=False)

    def new(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
            pin_memory=False):
        check_device(device, 'new_' + name)
        arr = fill(_shape(size, 'new_' + name),
                   dtype.np if dtype is not None else self._data.dtype)
        return _finish(arr, requires_grad, 'new_' + name)
    new.__name__ = new.__qualname__ = 'new_' + name
    new.__doc__ = f"``{name}`` with this tensor's dtype unless ``dtype`` is given."
    register(new, function=False)
    return fn, like


zeros, zeros_like = _factory('zeros', np.zeros)
ones, ones_like = _factory('ones', np.ones)
empty, empty_like = _factory('empty', np.empty)


def _fill_dtype(value, dtype):
    if dtype is not None:
        return dtype.np
    return _dtype.scalar_dtype(value.item() if isinstance(value, (Tensor, np.generic))
                               else value).np


@register(method=False)
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    """A tensor of ``size`` filled with ``fill_value``; dtype inferred from the value."""
    check_device(device, 'full')
    arr = np.full(_shape((size,), 'full'), fill_value, _fill_dtype(fill_value, dtype))
    return _finish(arr, requires_grad, 'full')


@register(method=False)
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``full`` with the shape (and dtype, unless given) of ``input``."""
    check_device(device, 'full_like')
    arr = np.full(input._data.shape, fill_value,
                  dtype.np if dtype is not None else input._data.dtype)
    return _finish(arr, requires_grad, 'full_like')


@register(function=False)
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``full`` with this tensor's dtype unless ``dtype`` is given."""
    arr = np.full(_shape((size,), 'new_full'), fill_value,
                  dtype.np if dtype is not None else self._data.dtype)
    return _finish(arr, requires_grad, 'new_full')


@register(function=False)
def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    """``empty`` with this tensor's dtype unless ``dtype`` is given."""
    arr = np.empty(_shape(size, 'new_empty'), dtype.np if dtype is not None else
                   self._data.dtype)
    return _finish(arr, requires_grad, 'new_empty')


# The C++ type names torch prints for each dtype in a TensorOptions.
_CPP_TYPE_NAMES = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half',
                   'bfloat16': 'c10::BFloat16', 'int64': 'long int', 'int32': 'int',
                   'int16': 'short int', 'int8': 'signed char', 'uint8': 'unsigned char',
                   'bool': 'bool', 'complex64': 'c10::complex<float>',
                   'complex128': 'c10::complex<double>'}


def _tensor_options(dtype):
    """torch's printed form of a CPU TensorOptions of ``dtype`` (for its legacy-constructor
    dtype-mismatch TypeError)."""
    name = _CPP_TYPE_NAMES.get(str(dtype).split('.')[-1], str(dtype))
    return (f"TensorOptions(dtype={name}, device=cpu, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


@register(function=False)
def new(self, *args, device=None):
    """The legacy constructor: ``t.new(*sizes)`` is uninitialized, ``t.new(data)`` copies
    ``data``, ``t.new(tensor)`` aliases ``tensor`` (which must have ``t``'s dtype),
    ``t.new()`` is empty -- each with ``t``'s dtype."""
    from .._tensor import Size
    if len(args) == 1 and not isinstance(args[0], (int, Size)):
        data = args[0]
        if isinstance(data, Tensor):
            if data.dtype != self.dtype:
                raise TypeError(f"expected {_tensor_options(self.dtype)} "
                                f"(got {_tensor_options(data.dtype)})")
            from .index import _alias
            return _alias(data)
        if not isinstance(data, (list, tuple, np.ndarray)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return self.new_tensor(data)  # (a plain tuple is data; a Size is a shape)
    return new_empty(self, *(args or (0,)))


@register(method=False)
def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from ``start`` up to (not including) ``end`` every ``step``; integer arguments
    give int64, any float gives the default float dtype."""
    check_device(device, 'arange')
    if end is None:
        start, end = 0, start
    if dtype is not None and np.dtype(dtype.np).kind == 'b':
        raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    for i, v in enumerate(vals):
        if isinstance(v, complex):  # (torch reads its bounds as doubles)
            if v.imag:
                raise RuntimeError("value cannot be converted to type double without overflow")
            vals[i] = v.real
    start, end, step = vals
    if not step == step or step == 0:
        raise RuntimeError("step must be nonzero")
    if not all(math.isfinite(v) for v in (start, end)):
        def shown(v):
            return f'{v:g}' if isinstance(v, float) else str(v)
        raise RuntimeError(f"unsupported range: {shown(start)} -> {shown(end)}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dt = np.int64 if all(isinstance(v, int) for v in vals) else _dtype.DEFAULT.np_float
    else:
        dt = dtype.np
    if np.dtype(dt).kind == 'b':
        raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
    if np.dtype(dt).kind in 'iu':
        # An integer dtype takes start and step truncated, as torch converts its Scalars;
        # the length comes from the truncated bounds for int64, from the given ones else.
        s, st = int(start), int(step)
        if np.dtype(dt) == np.int64:
            if st == 0:  # (a fractional step truncated to 0: torch's ValueError here)
                raise ValueError("step must be nonzero")
            n = -(-(int(end) - s) // st)
        else:
            n = int(np.ceil((end - start) / step))
        arr = (s + np.arange(builtins.max(n, 0), dtype=np.int64) * st).astype(dt)
    else:
        n = int(np.ceil((end - start) / step))
        # Computed in float64 then cast, as torch does, so float32 endpoints match.
        arr = (start + np.arange(builtins.max(n, 0), dtype=np.float64) * step).astype(dt)
    return _finish(arr, requires_grad, 'arange')


@register(method=False)
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    check_device(device, 'linspace')
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    start, end, dt = _space_ends(start, end, dtype, 'linspace')
    arr = np.linspace(start, end, steps).astype(dt)
    return _finish(arr, requires_grad, 'linspace')


def _space_ends(start, end, dtype, op):
    """linspace/logspace's ends as Python numbers and the result's NumPy dtype: a complex
    end makes the default dtype complex, and refuses a real ``dtype``."""
    ends = [v.item() if isinstance(v, Tensor) else v for v in (start, end)]
    if not any(isinstance(v, (complex, np.complexfloating)) for v in ends):
        return float(ends[0]), float(ends[1]), _dt(dtype)
    if dtype is not None and not dtype.is_complex:
        raise RuntimeError(f"torch.{op}(): inferred dtype c10::complex<float> can't be safely "
                           f"cast to passed dtype {dtype.kernel_name}")
    dt = _dt(dtype) if dtype is not None else \
        np.result_type(_dtype.DEFAULT.np_float, np.complex64)
    return complex(ends[0]), complex(ends[1]), dt


@register(method=False)
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``base ** linspace(start, end, steps)``."""
    start, end, dt = _space_ends(start, end, dtype, 'logspace')
    arr = np.logspace(start, end, steps, base=base).astype(dt)
    return _finish(arr, requires_grad, 'logspace')


@register(method=False)
def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The ``n x m`` identity matrix."""
    check_device(device, 'eye')
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    arr = np.eye(n, m if m is not None else n, dtype=_dt(dtype))
    return _finish(arr, requires_grad, 'eye')


@register(method=False)
def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding ``s`` (default float dtype)."""
    return _finish(np.asarray(s, _dt(dtype)), requires_grad, 'scalar_tensor')


# -- in-place initialisers ---------------------------------------------------------------
class FillBackward2(Node):
    """fill_ with a number: nothing flows back to the old value."""

    def backward(self, g):
        return g * 0


class FillBackward3(Node):
    """fill_ with a 0-d tensor: the gradient of every element flows to the value."""

    def backward(self, g):
        return g * 0, g.sum()


class ZeroBackward0(FillBackward2):
    pass


def _fill(self, value, op):
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        return inplace(self, _filled_tensor, (value,), op)
    if FWD.level is None and (not STATE.enabled or not self._requires_grad):
        from ._core import check_inplace
        check_inplace(self, op)
        self._data[...] = value
        self._vc[0] += 1
        return self
    node = ZeroBackward0 if op == 'zero_' else FillBackward2
    return inplace(self, lambda t: result(np.full(t._data.shape, value, t._data.dtype),
                                          track(node, (t,))), (), op)


def _filled_tensor(t, value):
    arr = np.full(t._data.shape, value.item(), t._data.dtype)
    return result(arr, track(FillBackward3, (t, value)))


@register(function=False)
def fill_(self, value):
    """Fills every element with ``value`` (a number or 0-d tensor)."""
    return _fill(self, value, 'fill_')


@register(function=False)
def zero_(self):
    """Fills with zeros."""
    return _fill(self, 0, 'zero_')


@register(function=False)
def copy_(self, src, non_blocking=False):
    """Copies ``src`` (broadcast to this shape, cast to this dtype) into this tensor."""
    if not isinstance(src, Tensor):
        src = make(to_array(src))
    check_no_partial_overlap(self._data, src._data)
    try:
        np.broadcast_shapes(src._data.shape, self._data.shape)
        if np.broadcast_shapes(src._data.shape, self._data.shape) != self._data.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1})"
                           f" must match the size of tensor b ({src._data.shape[-1]}) at "
                           f"non-singleton dimension {self._data.ndim - 1}") from None
    if FWD.level is None and (not STATE.enabled or not (self._requires_grad or
                                                         src._requires_grad)):
        from ._core import check_inplace
        check_inplace(self, 'copy_')
        np.copyto(self._data, src._data, casting='unsafe')
        self._vc[0] += 1
        return self
    return inplace(self, _copied, (src,), 'copy_')


def _copied(t, src):
    arr = np.empty(t._data.shape, t._data.dtype)
    np.copyto(arr, src._data, casting='unsafe')
    return result(arr, track(CopyBackwards, (t, src)))


__all__ += ['write_into']
