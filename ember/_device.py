"""Device objects and the default device. Tensors live on the CPU (NumPy arrays) or on the
'meta' device (shape and dtype only, see ``_meta``); other device types are refused."""
import re

from . import overrides as _overrides

__all__ = ['device', 'set_default_device', 'get_default_device']


class device:
    """Where a tensor lives: ``ember.device('cpu')``. CUDA is not supported yet."""
    __slots__ = ('type', 'index')

    def __new__(cls, type_or_str='cpu', index=None, *, device=None):
        if device is not None:  # torch's second form, device(device=...)
            type_or_str = device
        if _overrides.MODES and _overrides._modes_on():
            # as torch's: a TorchFunctionMode sees the construction (and may change it)
            kwargs = {'device': device} if device is not None else {}
            args = (type_or_str,) if device is None else ()
            if index is not None:
                args += (index,)
            return _overrides._mode_dispatch(cls, None, args, kwargs or None)
        if isinstance(type_or_str, _device):
            return type_or_str
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool):
            type_or_str, index = 'cuda', type_or_str
        if not isinstance(type_or_str, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({type(type_or_str).__name__})")
        if not type_or_str:
            raise RuntimeError("Device string must not be empty")
        if _FORM.fullmatch(type_or_str) is None:  # (torch's parser: a name, maybe ':<n>')
            raise RuntimeError(f"Invalid device string: '{type_or_str}'")
        name, _, idx = type_or_str.partition(':')
        if idx:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was "
                                   f"passed explicitly: {type_or_str}")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type_or_str}'")
            index = int(idx)
        if name not in _KNOWN:
            raise RuntimeError(f"Expected one of {', '.join(_KNOWN)} device type at start of "
                               f"device string: {type_or_str}")
        if name == 'cpu' and index is None and CPU is not None:
            return CPU
        self = object.__new__(_device)
        self.type = name
        self.index = index
        return self

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f'{self.type}:{self.index}'

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return (isinstance(other, device) and other.type == self.type
                and other.index == self.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (str(self),))

    def __enter__(self):
        """``with device('meta'):`` makes this the default device of factories inside."""
        _DEFAULT.append(self)
        return self

    def __exit__(self, *exc):
        _DEFAULT.pop()


_device = device  # (the class, where ``device`` is the keyword argument)
_FORM = re.compile(r'[a-zA-Z_]+(?::(?:[1-9][0-9]*|0))?')
# torch's device types (the message of an unknown one lists them in this order)
_KNOWN = ('cpu', 'cuda', 'ipu', 'xpu', 'mkldnn', 'opengl', 'opencl', 'ideep', 'hip', 've', 'fpga',
          'maia', 'xla', 'lazy', 'vulkan', 'mps', 'meta', 'hpu', 'mtia', 'privateuseone')
CPU = None
CPU = device('cpu')
META = device('meta')
# the default device of factories: [set_default_device's] + one per enclosing `with device()`
_DEFAULT = [CPU]


def set_default_device(device):
    """Makes ``device`` (None: the CPU) where factories put tensors by default."""
    _DEFAULT[0] = CPU if device is None else _device(device)


def get_default_device():
    """The device factories use when given none."""
    return _DEFAULT[-1]


def check_device(dev, op='tensor'):
    """The device a new tensor goes to for a ``device=`` argument: ``dev``, or the default
    device when None. Only the CPU and 'meta' exist; other devices raise clearly."""
    if dev is None:
        dev = _DEFAULT[-1]
    if dev is CPU:
        return CPU
    d = device(dev)
    if d.type == 'meta':
        return META
    if d.type != 'cpu':
        raise RuntimeError(
            f"{op}(): device '{d}' is not available: ember runs on the CPU only "
            "(no CUDA/MPS backend yet)")
    return CPU
