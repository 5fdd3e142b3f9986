"""``ember.finfo`` and ``ember.iinfo``: the numerical limits of a dtype, as torch gives them.

The float limits follow from each format's layout (bits, mantissa bits, largest exponent), so
bfloat16 needs neither ml_dtypes nor NumPy's tables: ``eps = 2**-mantissa``, ``max = (2 - eps)
* 2**(maxexp - 1)``, ``tiny = 2**(2 - maxexp)`` and ``resolution = 10**-floor(-log10(eps))``.
"""
import math

import numpy as np

from . import _dtype

__all__ = ['finfo', 'iinfo']

# dtype name -> (mantissa bits, largest exponent + 1); complex dtypes use their real part.
_FLOAT_LAYOUT = {'float16': (10, 16), 'bfloat16': (7, 128), 'float32': (23, 128),
                 'float64': (52, 1024)}


def _arg_type_name(a):
    return 'torch.dtype' if isinstance(a, _dtype.dtype) else type(a).__name__


def _the_dtype(name, args, kwargs, default):
    """The dtype a ``finfo``/``iinfo`` call names, checked as torch's argument parser does."""
    if not args and not kwargs and default is not None:
        return default
    if len(args) + len(kwargs) > 1:
        if default is None:
            raise TypeError(f"{name}() takes 1 positional argument but {len(args)} were given")
        got = ', '.join(_arg_type_name(a) for a in args)
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:\n * (torch.dtype type)\n * ()\n")
    if args:
        d = args[0]
    elif 'type' in kwargs:
        d = kwargs['type']
    else:
        raise TypeError(f'{name}() missing 1 required positional arguments: "type"')
    if not isinstance(d, _dtype.dtype):
        raise TypeError(f"{name}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{type(d).__name__}")
    return d


class _Info:
    """Read-only fields, compared by dtype and printed as torch prints them."""
    __slots__ = ()

    def __hash__(self):
        raise TypeError(f"unhashable type: 'torch.{type(self).__name__}'")

    def __setattr__(self, name, value):
        if name in self.__slots__:
            raise AttributeError(f"attribute '{name}' of 'torch.{type(self).__name__}' objects "
                                 "is not writable")
        raise AttributeError(f"'torch.{type(self).__name__}' object has no attribute '{name}'")

    def __eq__(self, other):
        if type(other) is not type(self):
            return False
        return self.dtype == other.dtype

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        fields = ', '.join(f'{k}={getattr(self, k):g}' for k in self._shown)
        return f'{type(self).__name__}({fields}, dtype={self.dtype})'


class finfo(_Info):
    """Limits of a floating-point dtype (of a complex dtype's real part):
    ``ember.finfo(ember.bfloat16).eps`` is 0.0078125; ``ember.finfo()`` describes the default
    dtype. Fields: bits, eps, max, min, tiny (= smallest_normal), resolution, dtype (a name)."""
    __slots__ = ('bits', 'eps', 'max', 'min', 'tiny', 'smallest_normal', 'resolution', 'dtype')
    _shown = ('resolution', 'min', 'max', 'eps', 'smallest_normal', 'tiny')

    def __init__(self, *args, **kwargs):
        d = _the_dtype('finfo', args, kwargs, _dtype.get_default_dtype())
        if not (d.is_floating_point or d.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        d = d.to_real()
        mantissa, maxexp = _FLOAT_LAYOUT[d.name]
        eps = 2.0 ** -mantissa
        tiny = 2.0 ** (2 - maxexp)
        top = (2.0 - eps) * 2.0 ** (maxexp - 1)
        for k, v in (('bits', d.itemsize * 8), ('eps', eps), ('max', top), ('min', -top),
                     ('tiny', tiny), ('smallest_normal', tiny),
                     ('resolution', 10.0 ** -math.floor(-math.log10(eps))), ('dtype', d.name)):
            object.__setattr__(self, k, v)


class iinfo(_Info):
    """Limits of an integer dtype: ``ember.iinfo(ember.int8).max`` is 127. Fields: bits,
    max, min, dtype (a name)."""
    __slots__ = ('bits', 'max', 'min', 'dtype')
    _shown = ('min', 'max')

    def __init__(self, *args, **kwargs):
        d = _the_dtype('iinfo', args, kwargs, None)
        if d is _dtype.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.category != _dtype.INT:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        bits = d.itemsize * 8
        low = -2 ** (bits - 1) if d.is_signed else 0
        for k, v in (('bits', bits), ('max', low + 2 ** bits - 1), ('min', low),
                     ('dtype', d.name)):
            object.__setattr__(self, k, v)


def of_array_dtype(np_dtype):
    """``finfo`` of a NumPy array dtype: what the ops use in place of ``np.finfo``, which knows
    no bfloat16."""
    return finfo(_dtype.FROM_NP[np.dtype(np_dtype)])
