"""make_tensor: a random tensor for tests, with torch's value ranges and argument checks.

Values are drawn from ember's default generator (``ember.manual_seed`` makes them
reproducible); they are not torch's numbers for the same seed.
"""
import collections.abc
import math
import warnings

import numpy as np

from .. import _dtype

__all__ = ['make_tensor']


def _finfo(dt):
    """finfo of a NumPy float type, or of ml_dtypes' bfloat16 (which NumPy's refuses)."""
    try:
        return np.finfo(dt)
    except ValueError:
        import ml_dtypes
        return ml_dtypes.finfo(dt)


def _bounds(low, high, dtype, lowest, highest, default_low, default_high):
    """``(low, high)`` checked and clamped to what ``dtype`` holds; ceiled for integers."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    floating = dtype.is_floating_point or dtype.is_complex
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f'`low` and `high` cannot be NaN, but got low={low} and high={high}')
    if low == high and floating:
        warnings.warn('Passing `low==high` to `torch.testing.make_tensor` for floating or '
                      'complex types is deprecated since 2.1 and will be removed in 2.3. Use '
                      '`torch.full(...)` instead.', FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f'`low` must be less than `high`, but got {low} >= {high}')
    elif high < lowest or low >= highest:
        raise ValueError(f'The value interval specified by `low` and `high` is [{low}, {high}), '
                         f'but {dtype} only supports [{lowest}, {highest})')
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (low, high) if floating else (math.ceil(low), math.ceil(high))


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` with values uniform in ``[low, high)`` (defaults: [-9, 9) for
    floats, [-9, 10) for integers clamped to the dtype, {False, True} for bool).

    >>> ember.testing.make_tensor(2, 3, dtype=ember.float32, device='cpu').shape
    torch.Size([2, 3])
    """
    from .. import randint, empty, view_as_real
    from .._device import check_device
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError('The parameters `noncontiguous` and `memory_format` are mutually '
                         f'exclusive, but got noncontiguous={noncontiguous} and '
                         f'memory_format={memory_format}')
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        'torch.testing.make_tensor(). To request support, file an issue at: '
                        'https://github.com/pytorch/pytorch/issues')
    # 'b' bool, 'i' integers, 'f' floating (bfloat16 included), 'c' complex
    kind = 'f' if dtype.is_floating_point else 'c' if dtype.is_complex else dtype.np.kind
    if requires_grad and kind in 'biu':
        raise ValueError('`requires_grad=True` is not supported for boolean and integral '
                         f'dtypes, but got dtype={dtype}')
    check_device(device, 'make_tensor')
    if noncontiguous:
        # twice as long in the last dimension, then every other element (from the second)
        shape = (*shape[:-1], 2 * shape[-1])
    if kind == 'b':
        low, high = _bounds(low, high, dtype, 0, 2, 0, 2)
        result = randint(low, high, shape, dtype=dtype)
    elif kind in 'iu':
        info = np.iinfo(dtype.np)
        # randint cannot reach int64's maximum, so its exclusive bound stays at the maximum
        top = int(info.max) + (1 if dtype.np != np.int64 else 0)
        low, high = _bounds(low, high, dtype, int(info.min), top, -9, 10)
        result = randint(low, high, shape, dtype=dtype)
    elif kind in 'fc':
        info = _finfo(dtype.np)
        low, high = _bounds(low, high, dtype, float(info.min), float(info.max), -9, 9)
        result = empty(shape, dtype=dtype)
        target = view_as_real(result) if kind == 'c' else result
        if high - low >= float(info.max):  # the width overflows: draw half, then double
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        'torch.testing.make_tensor(). To request support, file an issue at: '
                        'https://github.com/pytorch/pytorch/issues')
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if kind in 'biu' else float(_finfo(dtype.np).tiny)
    if kind in 'fc':
        result.requires_grad = requires_grad
    return result
