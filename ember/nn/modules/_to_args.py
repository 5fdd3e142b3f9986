"""The arguments of ``Module.to``, parsed as torch's ``to`` parses them: one of three
signatures, ``(device=None, dtype=None, non_blocking=False, copy=False)``, ``(dtype,
non_blocking=False, copy=False)`` or ``(tensor, non_blocking=False, copy=False)``, each with a
keyword-only ``memory_format``; anything else is torch's TypeError listing them."""
from ..._device import device as _device_type
from ..._dtype import dtype as _dtype_type
from ..._tensor import Tensor

_SIGNATURES = (('device', 'dtype', 'non_blocking', 'copy'),
               ('dtype', 'non_blocking', 'copy'),
               ('tensor', 'non_blocking', 'copy'))
_REQUIRED = (0, 1, 1)  # how many leading parameters have no default
_EXPECTED = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n")


def _fits(name, value, optional):
    if value is None:
        return optional or name == 'memory_format'
    if name == 'device':
        return isinstance(value, (str, _device_type)) or \
            (isinstance(value, int) and not isinstance(value, bool))
    if name == 'dtype':
        return isinstance(value, _dtype_type)
    if name == 'tensor':
        return isinstance(value, Tensor)
    if name in ('non_blocking', 'copy'):
        return isinstance(value, bool)
    from ..._memory_format import memory_format
    return value is None or isinstance(value, memory_format)


def _bind(names, required, args, kwargs):
    if len(args) > len(names):
        return None
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key in bound or (key not in names and key != 'memory_format'):
            return None
        bound[key] = value
    if any(n not in bound for n in names[:required]):
        return None
    for i, (key, value) in enumerate(bound.items()):
        position = names.index(key) if key in names else len(names)
        if not _fits(key, value, position >= required):
            return None
    return bound


def _type_name(value):
    if isinstance(value, _device_type):
        return 'torch.device'
    if isinstance(value, _dtype_type):
        return 'torch.dtype'
    if isinstance(value, Tensor):
        return 'Tensor'
    return type(value).__name__


def parse_to(args, kwargs):
    """A dict of the arguments given, by name (``device``, ``dtype``, ``tensor``,
    ``non_blocking``, ``copy``, ``memory_format``), of the first signature they fit."""
    for names, required in zip(_SIGNATURES, _REQUIRED):
        bound = _bind(names, required, args, kwargs)
        if bound is not None:
            return bound
    from ..._ops._cpp_print import kwargs_order  # (torch's C++ order of the keywords)
    got = [_type_name(a) for a in args] + [f'{k}={_type_name(kwargs[k])}'
                                           for k in kwargs_order(list(kwargs))]
    got = ', '.join(got) + (', ' if kwargs and not args else '')
    raise TypeError(f"to() received an invalid combination of arguments - got "
                    f"({got}), but expected one of:\n{_EXPECTED}")
