"""ember.cpu: the CPU as a device module, answering as ``torch.cpu`` does (one device,
always available, nothing to synchronise)."""
from . import amp  # noqa: F401

__all__ = ['is_available', 'is_initialized', 'device_count', 'current_device', 'set_device',
           'synchronize', 'amp']


def is_available():
    """True: the CPU is always there."""
    return True


def is_initialized():
    """True: nothing to initialise."""
    return True


def device_count():
    """1: the CPU counts as one device."""
    return 1


def current_device():
    """``'cpu'``."""
    return 'cpu'


def set_device(device):
    """No-op: there is only one CPU device."""


def synchronize(device=None):
    """No-op: CPU ops finish before they return."""
