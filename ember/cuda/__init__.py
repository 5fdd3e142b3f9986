"""ember.cuda: the answers torch's CPU-only build gives, so scripts that probe for a GPU run.

ember computes on the CPU only. As in a CPU build of torch, ``is_available()`` is False,
``device_count()`` is 0, the seeding and cache functions are silent no-ops, the memory
counters read 0, and anything that needs a real device raises torch's
``AssertionError('Torch not compiled with CUDA enabled')``.
"""
import collections
import warnings

from . import amp  # noqa: F401

__all__ = ['is_available', 'device_count', 'is_initialized', 'init', 'current_device',
           'set_device', 'get_device_name', 'get_device_properties', 'get_device_capability',
           'get_arch_list', 'is_bf16_supported', 'is_tf32_supported', 'synchronize',
           'empty_cache', 'ipc_collect', 'mem_get_info', 'manual_seed', 'manual_seed_all',
           'seed', 'seed_all', 'initial_seed', 'get_rng_state', 'get_rng_state_all',
           'set_rng_state', 'set_rng_state_all', 'memory_allocated', 'max_memory_allocated',
           'memory_reserved', 'max_memory_reserved', 'memory_cached', 'max_memory_cached',
           'memory_stats', 'memory_summary', 'reset_peak_memory_stats',
           'reset_max_memory_allocated', 'device', 'device_of', 'stream', 'Stream', 'Event',
           'current_stream', 'default_stream', 'amp']

_NOT_COMPILED = 'Torch not compiled with CUDA enabled'


def _no_cuda(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


def is_available():
    """False: ember has no GPU backend."""
    return False


def device_count():
    """0: no CUDA devices."""
    return 0


def is_initialized():
    """False: CUDA is never initialised."""
    return False


def get_arch_list():
    """``[]``: no CUDA architectures compiled in."""
    return []


def is_bf16_supported(including_emulation=True):
    """False: no CUDA device to run bfloat16 on."""
    return False


def is_tf32_supported():
    """False: no CUDA device with TF32."""
    return False


def empty_cache():
    """No-op: there is no CUDA caching allocator."""


def manual_seed(seed):
    """No-op without CUDA (the seed must still convert to int, as torch checks)."""
    int(seed)


def manual_seed_all(seed):
    """No-op without CUDA (the seed must still convert to int, as torch checks)."""
    int(seed)


def seed():
    """No-op without CUDA."""


def seed_all():
    """No-op without CUDA."""


def get_rng_state_all():
    """``[]``: no CUDA generators."""
    return []


def set_rng_state(new_state, device='cuda'):
    """No-op without CUDA."""


def set_rng_state_all(new_states):
    """No-op without CUDA."""


def memory_allocated(device=None):
    """0 bytes: nothing is allocated on a GPU."""
    return 0


def max_memory_allocated(device=None):
    """0 bytes."""
    return 0


def memory_reserved(device=None):
    """0 bytes."""
    return 0


def max_memory_reserved(device=None):
    """0 bytes."""
    return 0


def memory_cached(device=None):
    """0 bytes; deprecated alias of ``memory_reserved`` (warns as torch does)."""
    warnings.warn('`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`',
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None):
    """0 bytes; deprecated alias of ``max_memory_reserved`` (warns as torch does)."""
    warnings.warn('`torch.cuda.max_memory_cached` has been renamed to '
                  '`torch.cuda.max_memory_reserved`', FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def memory_stats(device=None):
    """An empty ``OrderedDict``: no allocator statistics."""
    return collections.OrderedDict()


def set_device(device):
    """Refuses: a CPU device is a ValueError as in torch, any CUDA index an AssertionError
    (torch's CPU build fails there with an internal AttributeError)."""
    name = getattr(device, 'type', device)
    if isinstance(name, str) and name.split(':')[0] != 'cuda':
        raise ValueError(f'Expected a cuda device, but got: {device}')
    raise AssertionError(_NOT_COMPILED)


init = current_device = get_device_name = get_device_properties = _no_cuda
get_device_capability = synchronize = ipc_collect = mem_get_info = initial_seed = _no_cuda
get_rng_state = current_stream = default_stream = memory_summary = _no_cuda
reset_peak_memory_stats = reset_max_memory_allocated = _no_cuda
_no_cuda.__doc__ = "Raises torch's ``AssertionError('Torch not compiled with CUDA enabled')``."


class device:
    """Context manager selecting a CUDA device: entering it with a device index raises
    torch's RuntimeError; ``device(None)`` (index -1) is a no-op."""

    def __init__(self, device):
        if device is None:
            self.idx = -1
        elif isinstance(device, int):
            self.idx = device
        else:
            from .._device import device as _device
            self.idx = _device(device).index
            self.idx = -1 if self.idx is None else self.idx

    def __enter__(self):
        if self.idx >= 0:
            raise RuntimeError('PyTorch was compiled without CUDA support')
        return self

    def __exit__(self, *exc):
        return False


class device_of(device):
    """Context manager selecting the device of a tensor: a no-op for CPU tensors."""

    def __init__(self, obj):
        super().__init__(-1)


class stream:
    """Context manager selecting a stream: only ``stream(None)`` can exist without CUDA."""

    def __init__(self, stream):
        self.stream = stream
        if stream is not None:
            raise AssertionError(_NOT_COMPILED)

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


class Stream:
    """A CUDA stream: cannot be made without CUDA (torch's RuntimeError)."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError('torch.cuda.Stream requires CUDA support')


class Event:
    """A CUDA event: cannot be made without CUDA (torch's RuntimeError)."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError('Tried to instantiate dummy base class Event')


def __getattr__(name):
    if name == 'nvtx':  # (imported on first use)
        import importlib
        return importlib.import_module(f'{__name__}.nvtx')
    if name == 'OutOfMemoryError':  # (torch.cuda's is the top-level one)
        from .._runtime_types import OutOfMemoryError
        return OutOfMemoryError
    # ember.cuda.FloatTensor & co. (built with the CPU legacy types, on first use)
    from .._legacy import CUDA_TYPES
    if name in CUDA_TYPES:
        return CUDA_TYPES[name]
    raise AttributeError(f"module 'ember.cuda' has no attribute '{name}'")
