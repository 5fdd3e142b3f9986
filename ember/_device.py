"""Device objects; only the CPU (NumPy) backend exists so far."""

__all__ = ['device']


class device:
    """Where a tensor lives: ``ember.device('cpu')``. CUDA is not supported yet."""
    __slots__ = ('type', 'index')

    def __new__(cls, type_or_str='cpu', index=None):
        if isinstance(type_or_str, device):
            return type_or_str
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool):
            type_or_str, index = 'cuda', type_or_str
        if not isinstance(type_or_str, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({type(type_or_str).__name__})")
        name, _, idx = type_or_str.partition(':')
        if idx:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was "
                                   f"passed explicitly: {type_or_str}")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type_or_str}'")
            index = int(idx)
        if name not in _KNOWN:
            raise RuntimeError(
                "Expected one of cpu, cuda, mps, meta device type at start of device string: "
                f"{type_or_str}")
        if name == 'cpu' and index is None and CPU is not None:
            return CPU
        self = object.__new__(cls)
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


_KNOWN = ('cpu', 'cuda', 'mps', 'meta')
CPU = None
CPU = device('cpu')


def check_device(dev, op='tensor'):
    """Returns the CPU device for any ``device=`` argument; other devices raise clearly."""
    if dev is None or dev is CPU:
        return CPU
    d = device(dev)
    if d.type != 'cpu':
        raise RuntimeError(
            f"{op}(): device '{d}' is not available: ember runs on the CPU only "
            "(no CUDA/MPS backend yet)")
    return CPU
