"""Small runtime types torch has at its top level: the device errors
(``OutOfMemoryError``, ``AcceleratorError``), the device-generic ``Stream`` and ``Event``
(on the CPU: a stream that is always done, an event the CPU cannot record), and the symbolic
number types ``SymInt``/``SymFloat``/``SymBool`` (ember has no symbolic sizes: nothing is an
instance of them, and ``sym_int`` is ``int`` rounding toward zero)."""
import math

from ._device import device as _device

__all__ = ['OutOfMemoryError', 'AcceleratorError', 'Stream', 'Event', 'SymInt', 'SymFloat',
           'SymBool', 'sym_fresh_size', 'sym_constrain_range',
           'sym_constrain_range_for_size']


class OutOfMemoryError(RuntimeError):
    """A device ran out of memory (ember allocates with NumPy, whose MemoryError it leaves
    as it is)."""


class AcceleratorError(RuntimeError):
    """An error reported by an accelerator (ember has none)."""


OutOfMemoryError.__module__ = AcceleratorError.__module__ = 'torch'


def _cpu_only(device, what):
    d = _device('cpu' if device is None else device)
    if d.type != 'cpu':
        raise RuntimeError(f"{d.type} backend is not available for {what} in ember")
    return d


class Stream:
    """A stream of work on a device: on the CPU, where ember runs everything at once, it is
    always done."""

    def __init__(self, device=None, *, priority=0, **kwargs):
        self.device = _cpu_only(device, 'streams')
        self.device_type, self.device_index, self.stream_id = 'cpu', -1, 0
        self.priority = priority

    def query(self):
        """True: nothing is pending."""
        return True

    def synchronize(self):
        """Nothing to wait for."""

    def wait_stream(self, stream):
        """Nothing to wait for."""

    def wait_event(self, event):
        """Nothing to wait for."""

    def record_event(self, event=None):
        """Records ``event`` (a new one if None) on this stream."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and other.stream_id == self.stream_id

    def __hash__(self):
        return hash(('cpu', self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self.device_type}, device_index="
                f"{self.device_index}, stream_id={self.stream_id}")


class Event:
    """A marker in a stream; the CPU cannot record one (torch's RuntimeError)."""

    def __init__(self, device=None, *, enable_timing=False, blocking=False,
                 interprocess=False):
        self.device = _cpu_only(device, 'events')
        self.device_type, self.device_index, self.event_id = 'cpu', -1, 0

    def record(self, stream=None):
        """Refused: the CPU backend has no events."""
        raise RuntimeError("cpu backend doesn't support events.")

    def query(self):
        """True: nothing was recorded, so nothing is pending."""
        return True

    def synchronize(self):
        """Nothing to wait for."""

    def wait(self, stream=None):
        """Nothing to wait for."""

    def elapsed_time(self, end_event):
        """Refused, as ``record``."""
        raise RuntimeError("cpu backend doesn't support events.")

    def __repr__(self):
        return (f"torch.Event device_type={self.device_type}, device_index="
                f"{self.device_index}, event_flag=0, event_id={self.event_id}")


class SymInt:
    """A symbolic int of torch's compiler: in ember, sizes are plain ints."""

    def __init__(self, *args, **kwargs):
        raise TypeError("ember has no symbolic sizes: SymInt cannot be made")


class SymFloat(SymInt):
    """A symbolic float of torch's compiler (see ``SymInt``)."""


class SymBool(SymInt):
    """A symbolic bool of torch's compiler (see ``SymInt``)."""


def sym_fresh_size(expr):
    """``expr`` itself: there is nothing symbolic to refresh."""
    return expr


def sym_constrain_range(size, *, min=None, max=None):
    """Checks a concrete ``size`` lies in ``[min, max]`` (torch's compiler records it)."""
    low = -(1 << 63) if min is None else min
    high = (1 << 63) - 1 if max is None else max  # (torch's bounds are int64's)
    if not low <= size <= high:
        raise RuntimeError(f"Invalid value range for {size} between [{low}, {high}].")


def sym_constrain_range_for_size(size, *, min=None, max=None):
    """``sym_constrain_range`` for a size (at least 0)."""
    sym_constrain_range(size, min=0 if min is None else min, max=max)
