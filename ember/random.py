"""ember.random: the default generator's seeding and state, and ``fork_rng``.

The functions are the ones ``ember`` itself exports (one implementation, in
``ember/_ops/random.py``). States are uint8 tensors that restore ember's stream exactly;
they are not torch's bytes, because ember's numbers come from NumPy's PCG64.
"""
import contextlib

from ._ops.random import manual_seed, seed, initial_seed, get_rng_state, set_rng_state  # noqa
from ._ops.random import default_generator  # noqa: F401  (torch.random has it)

__all__ = ['manual_seed', 'seed', 'initial_seed', 'get_rng_state', 'set_rng_state',
           'fork_rng']


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller='fork_rng', _devices_kw='devices',
             device_type=None):
    """Context manager: random numbers drawn inside do not advance the stream outside.

    Only the CPU generator exists; naming accelerator ``devices`` raises torch's CPU-build
    error, since their generators cannot be saved.

    >>> with ember.random.fork_rng():
    ...     _ = ember.rand(2)
    """
    if not enabled:
        yield
        return
    if devices:
        raise AssertionError('Torch not compiled with CUDA enabled')
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
