"""Tensor factories: tensor, as_tensor, from_numpy, zeros/ones/full/empty(_like), arange,
linspace, eye, and the in-place initialisers fill_/zero_/copy_."""
import builtins
import math

import numpy as np

from .. import _dtype
from .. import _meta
from .._device import CPU, check_device
from .._memory_format import (contiguous_format, preserve_format, in_format,
                              copy_obeying)
from .._tensor import to_array
from .._sparse import COO
from ..autograd.grad_mode import STATE
from ..autograd.forward_ad import FWD
from ..autograd.graph import CopyBackwards
from ._core import check_written_shape, no_grad_of
from ._core import (Node, Tensor, make, register, inplace, write_into, track, result,
                    check_no_partial_overlap, writable_alias)

__all__ = ['tensor', 'as_tensor', 'from_numpy', 'zeros', 'ones', 'full', 'empty', 'arange',
           'linspace', 'eye']


def _finish(arr, requires_grad, op, dev=CPU):
    if dev is not CPU:  # 'meta': keep the shape and dtype, not the values
        arr = _meta.empty(arr.shape, arr.dtype)
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
    if dtype is _dtype.complex32:
        _dtype.warn_chalf()
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
        elif isinstance(s, bool) and out:
            s = int(s)  # (past the first element torch's parser unpacks a bool as 0 or 1)
        elif isinstance(s, np.integer):
            s = int(s)  # (torch's parser takes NumPy ints, as a size from np.prod)
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, but "
                            f"found element of type {builtins.type(s).__name__} at pos "
                            f"{len(out)}")
        if s < 0:
            if op == 'zeros':  # (torch's zeros checks the sizes itself, in its words)
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        out.append(s)
    return tuple(out)


def _well_typed(dtype, device, flag=False, other=False):
    """Whether a constructor's keywords have the types torch's parser takes (a dtype or None,
    a device, a string, an int or None, bools): a few type tests for the usual call."""
    return (dtype is None or type(dtype) is _dtype.dtype) and type(flag) is bool and \
        type(other) is bool and (device is None or type(device) in _DEVICE_TYPES)


def _refuse_keywords(op, data, **keywords):
    """torch's parser error for a constructor's keyword of the wrong type (``dtype=1.5``,
    ``requires_grad=1``), from the op's signature."""
    from ._args import check
    check(op, (data,), {k: v for k, v in keywords.items() if v is not None})


_DEVICE_TYPES = (str, int, type(CPU))
_MISSING = object()  # (``data`` not given)


def _bad_call(op, data, extra, more):
    """torch's parser's TypeError for ``tensor``/``as_tensor`` with more than one positional
    argument, without ``data`` (judged before an unknown keyword) or with a keyword it does
    not know."""
    if more:
        raise TypeError(f"{op}() takes 1 positional argument but {1 + len(more)} were given")
    if data is _MISSING:
        raise TypeError(f'{op}() missing 1 required positional arguments: "data"')
    raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(extra))}'")


@register(method=False, dispatch=False)
def tensor(data=_MISSING, *more, dtype=None, device=None, requires_grad=False,
           pin_memory=False, **extra):
    """A new tensor copying ``data`` (nested lists, numbers, arrays, tensors); the dtype is
    inferred as torch does (floats -> default dtype, ints -> int64, bools -> bool)."""
    if data is _MISSING or extra or more:
        _bad_call('tensor', data, extra, more)
    if not _well_typed(dtype, device, requires_grad, pin_memory):
        _refuse_keywords('tensor', data, dtype=dtype, device=device,
                         requires_grad=requires_grad, pin_memory=pin_memory)
    dev = check_device(device, 'tensor')
    if isinstance(data, Tensor):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    arr = to_array(data, dtype)
    arr = np.array(arr, copy=True, order='C')
    return _finish(arr, requires_grad, 'tensor', dev)


@register(method=False, dispatch=False)
def as_tensor(data=_MISSING, *more, dtype=None, device=None, **extra):
    """Like ``tensor`` but shares memory with ``data`` when it already is a matching array or
    tensor."""
    if data is _MISSING or extra or more:
        _bad_call('as_tensor', data, extra, more)
    if not _well_typed(dtype, device):
        _refuse_keywords('as_tensor', data, dtype=dtype, device=device)
    dev = check_device(device, 'as_tensor')
    if dev is not CPU:
        return _finish(to_array(data._data if isinstance(data, Tensor) else data, dtype),
                       False, 'as_tensor', dev)
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        return make(data if dtype is None else
                    _dtype.real_part_for(data, dtype.np).astype(dtype.np, copy=False))
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
    if not _well_typed(dtype, device, requires_grad, bool(copy) if copy is None else copy):
        _refuse_keywords('asarray', obj, dtype=dtype, device=device, copy=copy,
                         requires_grad=requires_grad)
    t = as_tensor(obj, dtype=dtype, device=device)
    if copy:
        t = make(t._data.copy())
    if requires_grad:
        t.requires_grad_(True)
    return t


def _like_layout(arr, like, memory_format, op):
    """A ``*_like`` factory's row-major ``arr`` laid out as ``memory_format`` asks; by
    default (preserve_format) as ``like``, when ``like``'s memory is dense, as torch."""
    if memory_format is None or memory_format is preserve_format:
        if not like.size and type(like) is np.ndarray:  # (see empty_as)
            from .._memory_format import empty_as
            return empty_as(arr, like)
        return arr if like.flags.c_contiguous else copy_obeying(arr, like)
    return arr if memory_format is contiguous_format else in_format(arr, memory_format, op)


def _factory(name, fill):
    def fn(*size, dtype=None, layout=None, device=None, requires_grad=False,
           pin_memory=False, memory_format=None):
        dev = check_device(device, name)
        arr = fill(_shape(size, name), _dt(dtype))
        if memory_format is not None and memory_format is not contiguous_format:
            arr = in_format(arr, memory_format, name)
        return _finish(arr, requires_grad, name, dev)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"A new tensor of the given size filled with {name} (default float dtype)."
    register(fn, method=False)

    def like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None):
        dev = input.device if device is None else check_device(device, name + '_like')
        arr = fill(input._data.shape, dtype.np if dtype is not None else input._data.dtype)
        arr = _like_layout(arr, input._data, memory_format, name + '_like')
        return _finish(arr, requires_grad, name + '_like', dev)
    like.__name__ = like.__qualname__ = name + '_like'
    like.__doc__ = f"``{name}`` with the shape (and dtype, unless given) of ``input``."
    register(like, method=False)

    def new(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
            pin_memory=False):
        dev = self.device if device is None else check_device(device, 'new_' + name)
        arr = fill(_shape(size, 'new_' + name),
                   dtype.np if dtype is not None else self._data.dtype)
        return _finish(arr, requires_grad, 'new_' + name, dev)
    new.__name__ = new.__qualname__ = 'new_' + name
    new.__doc__ = f"``{name}`` with this tensor's dtype unless ``dtype`` is given."
    register(new, function=False)
    return fn, like


zeros, zeros_like = _factory('zeros', np.zeros)
def _ones(shape, np_dtype):
    if np_dtype.kind == 'V' and np_dtype.names is not None:  # complex32: 1+0j
        return np.full(shape, _dtype.chalf_scalar(1), np_dtype)
    return np.ones(shape, np_dtype)


ones, ones_like = _factory('ones', _ones)
empty, empty_like = _factory('empty', np.empty)


def _fill_scalar(value, np_dtype, via_float=False):
    from .pointwise import fill_scalar  # (pointwise builds on this module)
    return fill_scalar(value, np_dtype, via_float)


def _fill_dtype(value, dtype):
    if dtype is not None:
        return dtype.np
    return _dtype.scalar_dtype(value.item() if isinstance(value, (Tensor, np.generic))
                               else value).np


@register(method=False)
def full(size, fill_value, *, dtype=None, layout=None, device=None,
         requires_grad=False):
    """A tensor of ``size`` filled with ``fill_value``; dtype inferred from the value."""
    dev = check_device(device, 'full')
    dt = _fill_dtype(fill_value, dtype)
    arr = np.full(_shape((size,), 'full'), _fill_scalar(fill_value, dt), dt)
    return _finish(arr, requires_grad, 'full', dev)


@register(method=False)
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``full`` with the shape (and dtype, unless given) of ``input``."""
    dev = input.device if device is None else check_device(device, 'full_like')
    dt = dtype.np if dtype is not None else input._data.dtype
    arr = np.full(input._data.shape, _fill_scalar(fill_value, dt), dt)
    arr = _like_layout(arr, input._data, memory_format, 'full_like')
    return _finish(arr, requires_grad, 'full_like', dev)


@register(function=False)
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``full`` with this tensor's dtype unless ``dtype`` is given."""
    dev = self.device if device is None else check_device(device, 'new_full')
    dt = dtype.np if dtype is not None else self._data.dtype
    arr = np.full(_shape((size,), 'new_full'), _fill_scalar(fill_value, dt), dt)
    return _finish(arr, requires_grad, 'new_full', dev)


@register(function=False)
def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    """``empty`` with this tensor's dtype unless ``dtype`` is given."""
    dev = self.device if device is None else check_device(device, 'new_empty')
    arr = np.empty(_shape(size, 'new_empty'), dtype.np if dtype is not None else
                   self._data.dtype)
    return _finish(arr, requires_grad, 'new_empty', dev)


def _tensor_options(dtype, *, factory=False, layout='Strided', dtype_default=False):
    """torch's printed form of a CPU TensorOptions of ``dtype``: the legacy constructors'
    dtype-mismatch TypeError, or (``factory``) what the factories' own checks print."""
    name = dtype.cpp_name + (' (default)' if dtype_default else '')
    if factory:
        return (f"TensorOptions(dtype={name}, device=cpu, layout={layout}"
                f"{' (default)' if layout == 'Strided' else ''}, requires_grad=false "
                "(default), pinned_memory=false, memory_format=(nullopt))")
    return (f"TensorOptions(dtype={name}, device=cpu, layout={layout}, requires_grad=false "
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
def arange(start=None, end=None, step=1, *, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from ``start`` up to (not including) ``end`` every ``step``; integer arguments
    give int64, any float gives the default float dtype."""
    dev = check_device(device, 'arange')
    if end is None:
        start, end = 0, start
    elif start is None:  # (``arange(end=5)``, torch's one-bound form by keyword)
        start = 0
    if dtype is not None and np.dtype(dtype.np).kind in 'bc':
        raise NotImplementedError(f'"arange_cpu" not implemented for \'{dtype.kernel_name}\'')
    vals = start, end, step = _range_bounds(start, end, step)
    _dtype.refuse_barebones('arange_cpu', dtype, chalf=True)
    if dtype is None:
        dt = np.int64 if all(isinstance(v, (int, np.integer)) for v in vals) \
            else _dtype.DEFAULT.np_float
    else:
        dt = dtype.np
    if np.dtype(dt).kind == 'b':
        raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
    if np.dtype(dt).kind in 'iu':
        # An integer dtype takes start and step truncated, as torch converts its Scalars;
        # the length comes from the truncated bounds for int64, from the given ones else.
        if any(isinstance(v, float) and not np.isfinite(v) for v in (start, step)):
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
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
    return _finish(arr, requires_grad, 'arange', dev)


def _range_bounds(start, end, step):
    """``(start, end, step)`` as Python numbers, with torch's checks of arange and range."""
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
    return vals


@register(method=False)
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised tensor of ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first: ``(0, 2, 1)`` puts dim 1 innermost)."""
    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(size) - 1}, but got {d} at index {i}).  NB: negative dims "
                               f"not currently supported; file an issue if you want it.")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    arr = np.empty([size[d] for d in order], _dt(dtype)).transpose(np.argsort(order))
    return _finish(arr, requires_grad, 'empty_permuted', check_device(device, 'empty_permuted'))


@register(method=False, name='range')
def range_(start, end, step=1, *, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Deprecated: ``start, start + step, ...`` up to ``end`` inclusive, in the default float
    dtype unless ``dtype`` is given (``arange`` excludes ``end``)."""
    import warnings
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=3)
    dev = check_device(device, 'range')
    dt = np.dtype(_dt(dtype))
    if dt.kind in 'iu':  # (torch reads the bounds as int64 first: NaN, inf, huge refused)
        for v in (start, end, step):
            v = v.item() if isinstance(v, Tensor) else v
            if isinstance(v, (float, complex)) and (
                    complex(v).imag or not -2.0 ** 63 <= complex(v).real < 2.0 ** 63):
                raise RuntimeError("value cannot be converted to type int64_t without overflow")
    start, end, step = _range_bounds(start, end, step)
    if dt.kind in 'bc':
        raise NotImplementedError(f'"range_cpu" not implemented for \'{dtype.kernel_name}\'')
    _dtype.refuse_barebones('range_cpu', dtype, chalf=True)
    if dt.kind in 'iu':  # (torch reads the bounds and the step in the integer dtype)
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise RuntimeError("step must be nonzero")
    n = int(math.floor((end - start) / step)) + 1
    arr = (start + np.arange(builtins.max(n, 0), dtype=np.float64) * step).astype(dt)
    return _finish(arr, requires_grad, 'range', dev)


@register(method=False)
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor sharing the memory of a Python buffer (``bytes``, ``bytearray``,
    ``array.array``, ``memoryview``...), read as ``dtype`` from byte ``offset`` on, ``count``
    elements (-1: all that fit)."""
    view = memoryview(buffer)
    size = view.nbytes
    item = np.dtype(dtype.np).itemsize
    if size <= 0 or count == 0:
        raise ValueError(f"both buffer length ({size}) and count ({count}) must not be 0")
    if offset < 0 or offset >= size:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({size} bytes) minus 1")
    if count < 0:
        if (size - offset) % item:
            raise ValueError(f"buffer length ({size - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({item})")
        count = (size - offset) // item
    elif count * item > size - offset:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({size} bytes)")
    if view.readonly:
        import warnings
        warnings.warn("The given buffer is not writable: ember's tensor over it cannot be "
                      "written either. Copy the buffer, or make it writable, to write to it.",
                      UserWarning, stacklevel=3)
    arr = np.frombuffer(view.cast('B'), dtype=dtype.np, count=count, offset=offset)
    return _finish(arr, requires_grad, 'frombuffer')


@register(method=False)
def linspace(start, end, steps, *, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    dev = check_device(device, 'linspace')
    start, end, dt = _space_ends(start, end, dtype, 'linspace', steps, steps)
    # (complex32: no kernel, but one value -- the start -- is filled in without it)
    _dtype.refuse_barebones('linspace_cpu', dtype, chalf=steps > 1)
    _no_bool_kernel(dt, steps, 'linspace_cpu')
    arr = _dtype.cast(_spaced(start, end, steps, np.complex64 if dtype is _dtype.complex32
                              else dt), np.dtype(dt))
    return _finish(arr, requires_grad, 'linspace', dev)


def _spaced(start, end, steps, dt):
    """torch's linspace values: the first half counts ``step`` up from ``start``, the
    second half down from ``end`` -- so both ends are exact, and an infinite end makes the
    values NaN (0 * inf) where NumPy's linspace keeps them. Computed in ``dt`` when it is
    floating (as torch's kernel; bfloat16 in float32), else in double."""
    work = np.dtype(dt) if np.dtype(dt).kind in 'fc' else \
        np.dtype(np.float32) if np.dtype(dt).kind == 'V' else np.dtype(np.float64)
    if steps <= 1:
        return np.full(steps, start, work)
    i = np.arange(steps, dtype=work)
    start, end = work.type(start), work.type(end)
    with np.errstate(invalid='ignore', over='ignore'):
        step = (end - start) / work.type(steps - 1)
        return np.where(i < steps // 2, start + step * i, end - step * (work.type(steps - 1) - i))


def _no_bool_kernel(dt, steps, kernel):
    """linspace/logspace's kernels have no bool loop (run only for two or more values: one
    is the start, filled in without them)."""
    if steps > 1 and np.dtype(dt).kind == 'b':
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _space_ends(start, end, dtype, op, steps, count=0):
    """linspace/logspace's ends as Python numbers and the result's NumPy dtype: a complex
    end makes the default dtype complex, and refuses a real ``dtype``; tensor ends must be
    0-d, and (for ``steps`` values) ends must fit an integer ``dtype``."""
    shown = [f'{name} with {v._data.ndim} dimension(s)' for name, v in
             (('start', start), ('end', end)) if isinstance(v, Tensor) and v._data.ndim]
    if shown:
        raise RuntimeError(f"{op} only supports 0-dimensional start and end tensors, but got "
                           f"{' and '.join(shown)}.")
    if count < 0:  # (``count``: the number of steps, checked after the ends' dims)
        raise RuntimeError("number of steps must be non-negative")
    ends = [v.item() if isinstance(v, Tensor) else v for v in (start, end)]
    if not any(isinstance(v, (complex, np.complexfloating)) for v in ends):
        dt = _dt(dtype)
        if steps and np.dtype(dt).kind in 'iu':  # (torch converts the ends to the dtype,
            # truncating, and spaces the integers it got; one value is the start, filled in)
            ends = [_fill_scalar(v, dt) if i == 0 or steps > 1 else v
                    for i, v in enumerate(ends)]
        return float(ends[0]), float(ends[1]), dt
    if dtype is not None and not dtype.is_complex:
        raise RuntimeError(f"torch.{op}(): inferred dtype c10::complex<float> can't be safely "
                           f"cast to passed dtype {dtype.kernel_name}")
    dt = _dt(dtype) if dtype is not None else \
        np.result_type(_dtype.DEFAULT.np_float, np.complex64)
    return complex(ends[0]), complex(ends[1]), dt


@register(method=False)
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``base ** linspace(start, end, steps)``."""
    dev = check_device(device, 'logspace')
    # (one value is base ** start in double, filled in: torch converts no end to the dtype)
    start, end, dt = _space_ends(start, end, dtype, 'logspace', steps if steps > 1 else 0,
                                 steps)
    _dtype.refuse_barebones('logspace_cpu', dtype, chalf=steps > 1)
    _no_bool_kernel(dt, steps, 'logspace_cpu')
    with np.errstate(all='ignore'):
        # (the exponents in double, as torch's kernel)
        arr = np.power(base, _spaced(start, end, steps, np.complex128 if np.dtype(dt).kind == 'c'
                                     or dtype is _dtype.complex32 else np.float64))
    if steps == 1 and np.dtype(dt).kind in 'iu':  # (filled in: a Scalar's range check)
        _fill_scalar(float(arr[0]), dt)
    arr = _dtype.cast(arr, np.dtype(dt))
    return _finish(arr, requires_grad, 'logspace', dev)


def _strided(shape, stride, dt, op):
    """An uninitialised array of ``shape`` whose elements lie ``stride`` apart (in elements)
    in a buffer just large enough, as torch's ``empty_strided`` allocates."""
    stride = tuple(stride)
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in stride):
        raise TypeError(f"{op}(): argument 'stride' (position 2) must be tuple of ints")
    if len(shape) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and "
                           f"strides={list(stride)}")
    itemsize = np.dtype(dt).itemsize
    extent = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, stride))
    buffer = np.empty(extent, dt)
    return np.lib.stride_tricks.as_strided(buffer, shape, [s * itemsize for s in stride])


@register(method=False)
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor of ``size`` with the given ``stride`` (in elements)."""
    dev = check_device(device, 'empty_strided')
    arr = _strided(_shape((size,), 'empty_strided'), stride, _dt(dtype), 'empty_strided')
    return _finish(arr, requires_grad, 'empty_strided', dev)


@register(function=False)
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad=False, pin_memory=False):
    """``empty_strided`` with this tensor's dtype unless ``dtype`` is given."""
    dev = self.device if device is None else check_device(device, 'new_empty_strided')
    arr = _strided(_shape((size,), 'new_empty_strided'), stride,
                   dtype.np if dtype is not None else self._data.dtype, 'new_empty_strided')
    return _finish(arr, requires_grad, 'new_empty_strided', dev)


@register(method=False)
def eye(n, m=None, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The ``n x m`` identity matrix."""
    dev = check_device(device, 'eye')
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    _dtype.refuse_barebones('eye', dtype, chalf=True)
    arr = np.eye(n, m if m is not None else n, dtype=_dt(dtype))
    return _finish(arr, requires_grad, 'eye', dev)


@register(method=False)
def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding ``s`` (default float dtype)."""
    dt = _dt(dtype)
    return _finish(np.asarray(_fill_scalar(s, dt, True), dt), requires_grad, 'scalar_tensor',
                   check_device(device, 'scalar_tensor'))


# -- in-place initialisers ---------------------------------------------------------------
class FillBackward2(Node):
    """fill_ with a number: nothing flows back to the old value."""

    def backward(self, g):
        return no_grad_of(g)


class FillBackward3(Node):
    """fill_ with a 0-d tensor: the gradient of every element flows to the value."""

    def backward(self, g):
        return no_grad_of(g), g.sum()


class ZeroBackward0(FillBackward2):
    pass


def _fill(self, value, op):
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        return inplace(self, _filled_tensor, (value,), op)
    value = _fill_scalar(value, self._data.dtype)
    if FWD.level is None and (not STATE.enabled or not self._requires_grad):
        from ._core import check_inplace
        check_inplace(self, op)
        dst = self._data
        if not dst.flags.writeable:  # (an expanded tensor: every element gets the value)
            dst = writable_alias(dst, overlap=True)
            if dst is None:
                raise RuntimeError(f"{op}: the tensor written to is read-only (it shares "
                                   "memory that cannot be written)")
        dst[...] = value
        self._vc[0] += 1
        return self
    node = ZeroBackward0 if op == 'zero_' else FillBackward2
    return inplace(self, lambda t: result(np.full(t._data.shape, value, t._data.dtype),
                                          track(node, (t,))), (), op)


class FillBackward0(FillBackward2):
    """fill (out of place) with a number."""


class FillBackward1(FillBackward3):
    """fill (out of place) with a 0-d tensor."""


@register(method=False)
def fill(input, value):
    """A new tensor of ``input``'s shape and dtype holding ``value`` (a number or a 0-d
    tensor, whose gradient is the sum of the result's) everywhere."""
    shape, dt = input._data.shape, input._data.dtype
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        return result(np.full(shape, _dtype.real_part_for(value._data, dt), dt),
                      track(FillBackward1, (input, value)))
    return result(np.full(shape, _fill_scalar(value, dt), dt), track(FillBackward0, (input,)))


def _filled_tensor(t, value):
    arr = np.full(t._data.shape, _dtype.real_part_for(value._data, t._data.dtype),
                  t._data.dtype)
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
    if type(self._data) is COO and type(src._data) is COO:
        return _copy_sparse(self, src)
    check_no_partial_overlap(self._data, src._data)
    if src._data.shape != self._data.shape:
        check_written_shape(self._data.shape, src._data.shape)
    if FWD.level is None and (not STATE.enabled or not (self._requires_grad or
                                                         src._requires_grad)):
        from ._core import check_inplace
        check_inplace(self, 'copy_')
        np.copyto(self._data, _dtype.real_part_for(src._data, self._data.dtype),
                  casting='unsafe')
        self._vc[0] += 1
        return self
    return inplace(self, _copied, (src,), 'copy_')


def _copy_sparse(self, src):
    """COO into COO, as torch's sparse copy_: this tensor takes ``src``'s size, indices and
    values (cast to this dtype) -- loading a sparse buffer from a state_dict does this."""
    from ._core import check_inplace
    check_inplace(self, 'copy_')
    self._data = src._data.astype(self._data.values.dtype)
    self._vc[0] += 1
    return self


def _copied(t, src):
    arr = np.empty(t._data.shape, t._data.dtype)
    np.copyto(arr, _dtype.real_part_for(src._data, arr.dtype), casting='unsafe')
    return result(arr, track(CopyBackwards, (t, src)))


__all__ += ['write_into']
