"""torch's legacy tensor types: ``ember.FloatTensor(2, 3)``, ``isinstance(x, FloatTensor)``,
and ``x.type(ember.DoubleTensor)`` (``ember.autograd.Variable`` is in autograd/variable.py).

They are not classes of tensors: every tensor is an ``ember.Tensor``. A legacy type is a
constructor for its dtype whose ``isinstance`` is true exactly for tensors of that dtype,
as in torch (``issubclass(FloatTensor, Tensor)`` is False there too).
"""
import numpy as np

from . import _dtype
from ._device import device as _device
from ._tensor import Tensor, Size, make
from ._ops.creation import _tensor_options

__all__ = ['tensortype', 'CUDA_TYPES'] + [d._legacy for d in _dtype.ALL]

_SIGNATURES = ("but expected one of:\n * (*, torch.device device = None)\n      didn't match "
               "because some of the arguments have invalid types: ({})\n * (torch.Storage "
               "storage)\n * (Tensor other)\n * (tuple of ints size, *, torch.device device = "
               "None)\n * (object data, *, torch.device device = None)\n")


def _type_name(a, detail=False):
    """torch's name for an argument's type in a signature mismatch; ``detail`` adds the
    element types of a sequence (``list of [int, int]``, ``torch.Size of (int, int)``)."""
    if isinstance(a, Tensor):
        return 'Tensor'
    name = 'torch.Size' if isinstance(a, Size) else type(a).__name__
    if detail and isinstance(a, (list, tuple)):
        inner = ', '.join(_type_name(x) for x in a)
        return f'{name} of [{inner}]' if isinstance(a, list) else f'{name} of ({inner})'
    return name


def alias(t):
    """A plain tensor sharing ``t``'s memory and version counter, without its history."""
    out = make(t._data)
    out._vc = t._vc
    return out


class tensortype(type):
    """The metaclass of the legacy types: ``isinstance`` compares dtypes, calling constructs."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and cls.dtype is not None and \
            obj._data.dtype == cls.dtype.np

    def __call__(cls, *args, device=None):
        dt = cls.dtype
        if device is not None and _device(device).type != 'cpu':
            raise RuntimeError(f'legacy constructor expects device type: cpu but device '
                               f'type: {_device(device).type} was passed')
        if not args:
            return make(np.empty((0,), dt.np))
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0].dtype is not dt:
                raise TypeError(f'expected {_tensor_options(dt)} '
                                f'(got {_tensor_options(args[0].dtype)})')
            return alias(args[0])
        if len(args) == 1 and isinstance(args[0], Size) or \
                all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            shape = tuple(args[0]) if isinstance(args[0], Size) else args
            neg = [s for s in shape if s < 0]
            if neg:
                raise RuntimeError(f'Trying to create tensor with negative dimension {neg[0]}: '
                                   f'[{", ".join(map(str, shape))}]')
            return make(np.empty(shape, dt.np))
        if len(args) == 1:
            data = args[0]
            storage = _storage_elements(data, dt)
            if storage is not None:  # (a tensor over the storage's memory)
                return make(storage)
            if isinstance(data, str):
                raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
            if not isinstance(data, (list, tuple, np.ndarray)):
                raise TypeError(f'new(): data must be a sequence (got {type(data).__name__})')
            from . import tensor
            return tensor(data, dtype=dt)
        if isinstance(args[0], int):
            bad = next(a for a in args if not isinstance(a, int))
            pos = args.index(bad) + 1
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {pos} "
                            f'with error "type must be tuple of ints,but got '
                            f'{type(bad).__name__}"')
        raise TypeError(_invalid(args))


def _storage_elements(data, dt):
    """The elements of storage ``data`` as an array of ``dt`` sharing its memory, None when
    ``data`` is no storage; torch's error for a typed storage of another dtype."""
    from .storage import TypedStorage, UntypedStorage
    if isinstance(data, UntypedStorage):
        data = TypedStorage(data, dt)
    elif not isinstance(data, TypedStorage):
        return None
    if data.dtype is not dt:
        raise RuntimeError(f"Expected a Storage of type {dt.kernel_name} or an UntypedStorage, "
                           f"but got type {data.dtype.kernel_name} for argument 1 'storage'")
    return data._elements


def _invalid(args):
    got = ', '.join(_type_name(a) for a in args)
    marks = ', '.join(f'!{_type_name(a, True)}!' for a in args)
    return f'new() received an invalid combination of arguments - got ({got}), ' + \
        _SIGNATURES.format(marks)


def _legacy_type(dt, module='torch'):
    cls = tensortype(dt._legacy, (), {'__doc__': f'Legacy constructor of {dt} tensors: '
                                      f'``ember.{dt._legacy}(2, 3)`` or ``([1, 2])``.',
                                      'dtype': dt, 'is_cuda': False, 'is_sparse': False})
    cls.__module__ = module
    return cls


for _d in _dtype.ALL:
    globals()[_d._legacy] = _legacy_type(_d)
BY_NAME = {'torch.' + _d._legacy: globals()[_d._legacy] for _d in _dtype.ALL}


class _cuda_tensortype(tensortype):
    def __instancecheck__(cls, obj):
        return False

    def __call__(cls, *args, **kwargs):
        raise TypeError(f'type torch.cuda.{cls.__name__} not available. Torch not compiled '
                        'with CUDA enabled.')


# ember.cuda.FloatTensor & co.: exist (scripts name them) but cannot be instantiated.
CUDA_TYPES = {}
for _d in _dtype.ALL:
    CUDA_TYPES[_d._legacy] = _cuda_tensortype(
        _d._legacy, (), {'__doc__': 'A CUDA tensor type: unavailable (CPU only).', 'dtype': _d,
                         'is_cuda': True, 'is_sparse': False})
    CUDA_TYPES[_d._legacy].__module__ = 'torch.cuda'


del _d
