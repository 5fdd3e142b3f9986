"""ember.mps: the answers torch's build without Apple's Metal backend gives, so
device-probing scripts run: ``is_available()`` False, ``device_count()`` 0, and the calls
that need the device refused with torch's RuntimeError naming what they would execute."""

__all__ = ['is_available', 'device_count', 'manual_seed', 'synchronize', 'empty_cache',
           'seed', 'get_rng_state', 'set_rng_state', 'current_allocated_memory',
           'driver_allocated_memory', 'recommended_max_memory']


def is_available():
    """False: ember has no MPS backend."""
    return False


def device_count():
    """0: no MPS device."""
    return 0


def manual_seed(seed):
    """Seeds the MPS generator: there is none (silently, as torch)."""


def _needs_backend(call, name, doc):
    def refuse(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {call}() without MPS backend.")
    refuse.__name__, refuse.__doc__ = name, doc + " (refused: no MPS backend)."
    return refuse


synchronize = _needs_backend('deviceSynchronize', 'synchronize', "Waits for the device")
empty_cache = _needs_backend('emptyCache', 'empty_cache', "Frees cached device memory")
seed = _needs_backend('getDefaultGenerator', 'seed', "Seeds the generator randomly")
get_rng_state = _needs_backend('getDefaultGenerator', 'get_rng_state',
                               "The generator's state")
set_rng_state = _needs_backend('getDefaultGenerator', 'set_rng_state',
                               "Sets the generator's state")
current_allocated_memory = _needs_backend('getCurrentAllocatedMemory',
                                          'current_allocated_memory', "Memory in use")
driver_allocated_memory = _needs_backend('getDriverAllocatedMemory',
                                         'driver_allocated_memory', "Memory the driver holds")
recommended_max_memory = _needs_backend('getRecommendedMaxMemory', 'recommended_max_memory',
                                        "The recommended memory limit")
