"""Padding layers: zero, constant, reflection, replication and circular padding of the last
one, two or three dims (each a fixed ``F.pad``)."""
from .. import functional as F
from .module import Module

__all__ = ['ZeroPad1d', 'ZeroPad2d', 'ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d',
           'ReflectionPad1d', 'ReflectionPad2d', 'ReplicationPad1d', 'ReplicationPad2d',
           'CircularPad1d', 'CircularPad2d', 'ZeroPad3d', 'ReflectionPad3d', 'ReplicationPad3d',
           'CircularPad3d']


def _amounts(padding, n):
    """An int pads every side by it; a sequence lists (left, right, top, bottom, ...)."""
    return tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * n


class _PadNd(Module):
    """A pad of the last ``_nd`` dims by ``padding`` in ``_mode``."""

    _nd = 1
    _mode = 'constant'

    def __init__(self, padding):
        super().__init__()
        self.padding = _amounts(padding, 2 * self._nd)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f'{self.padding}'


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, 'constant', self.value)

    def extra_repr(self):
        return f'padding={self.padding}, value={self.value}'


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with ``value`` (``padding``: an int or (left, right))."""


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with ``value`` (``padding``: an int or (left, right, top,
    bottom))."""

    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with ``value`` (``padding``: an int or (left, right, top,
    bottom, front, back))."""

    _nd = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros (``padding``: an int or (left, right))."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f'{self.padding}'


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dims with zeros (``padding``: an int or (left, right, top,
    bottom))."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f'{self.padding}'


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dims with zeros (``padding``: an int or (left, right, top, bottom,
    front, back))."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f'{self.padding}'


class ReflectionPad1d(_PadNd):
    """Pads the last dim with its reflection about the edge (the edge not repeated)."""

    _mode = 'reflect'


class ReflectionPad2d(_PadNd):
    """Pads the last two dims with their reflection about the edges."""

    _nd, _mode = 2, 'reflect'


class ReflectionPad3d(_PadNd):
    """Pads the last three dims with their reflection about the edges."""

    _nd, _mode = 3, 'reflect'


class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating its edge values."""

    _mode = 'replicate'


class ReplicationPad2d(_PadNd):
    """Pads the last two dims by repeating their edge values."""

    _nd, _mode = 2, 'replicate'


class ReplicationPad3d(_PadNd):
    """Pads the last three dims by repeating their edge values."""

    _nd, _mode = 3, 'replicate'


class _CircularPadNd(_PadNd):
    _mode = 'circular'

    def forward(self, input):
        # the modules check the input's rank themselves (F.pad's own check differs)
        if input.dim() not in (self._nd + 1, self._nd + 2):
            raise ValueError(f"expected {self._nd + 1}D or {self._nd + 2}D input (got "
                             f"{input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Pads the last dim by wrapping around (the other end's values)."""


class CircularPad2d(_CircularPadNd):
    """Pads the last two dims by wrapping around."""

    _nd = 2


class CircularPad3d(_CircularPadNd):
    """Pads the last three dims by wrapping around."""

    _nd = 3
