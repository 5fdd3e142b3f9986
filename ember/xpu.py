"""ember.xpu: the answers torch's build without Intel GPU support gives, so device-probing
scripts run: ``is_available()`` False, ``device_count()`` 0, seeding and cache functions
silent, anything that needs a device refused with torch's AssertionError."""

__all__ = ['is_available', 'device_count', 'is_initialized', 'is_bf16_supported',
           'manual_seed', 'manual_seed_all', 'seed', 'seed_all', 'empty_cache']

_NEEDS_DEVICE = ('current_device', 'set_device', 'synchronize', 'get_device_name',
                 'get_device_properties', 'get_device_capability', 'init', 'current_stream',
                 'memory_allocated', 'max_memory_allocated', 'memory_reserved',
                 'max_memory_reserved', 'mem_get_info', 'initial_seed', 'get_rng_state',
                 'set_rng_state', 'reset_peak_memory_stats', 'device', 'device_of', 'stream',
                 'Stream', 'Event')


def is_available():
    """False: ember has no XPU backend."""
    return False


def device_count():
    """0: no XPU devices."""
    return 0


def is_initialized():
    """False: XPU is never initialised."""
    return False


def is_bf16_supported(including_emulation=True):
    """False: no XPU device."""
    return False


def manual_seed(seed):
    """Seeds the XPU generators: there are none (silently, as torch)."""


manual_seed_all = manual_seed


def seed():
    """Seeds the XPU generators randomly: there are none."""


seed_all = empty_cache = seed


def _refuse(*args, **kwargs):
    raise AssertionError("Torch not compiled with XPU enabled")


def __getattr__(name):
    if name in _NEEDS_DEVICE:
        return _refuse
    raise AttributeError(f"module 'ember.xpu' has no attribute '{name}'")
