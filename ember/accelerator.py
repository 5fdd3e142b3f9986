"""ember.accelerator: the device-agnostic accelerator API; ember has no accelerator, so it
answers as torch's CPU-only build does."""

__all__ = ['is_available', 'current_accelerator', 'device_count', 'current_device_index',
           'current_device_idx', 'set_device_index', 'set_device_idx', 'synchronize']

_NONE = 'Cannot access accelerator device when none is available.'


def is_available():
    """False: no accelerator."""
    return False


def current_accelerator(check_available=False):
    """None: no accelerator device type."""
    return None


def device_count():
    """0 accelerator devices."""
    return 0


def current_device_index():
    """Raises torch's RuntimeError: there is no accelerator device."""
    raise RuntimeError(_NONE)


def set_device_index(device):
    """Raises torch's RuntimeError: there is no accelerator device."""
    raise RuntimeError(_NONE)


def synchronize(device=None):
    """Raises torch's RuntimeError: there is no accelerator device."""
    raise RuntimeError(_NONE)


current_device_idx = current_device_index
set_device_idx = set_device_index
