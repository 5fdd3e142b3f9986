"""ember.multiprocessing: Python's ``multiprocessing`` with ember tensors that travel through
shared memory, as torch.multiprocessing.

Every name of ``multiprocessing`` is here. A tensor put on a Queue (or passed to a Process,
or returned through a Pipe) is moved to shared memory first (``Tensor.share_memory_()``), so
the receiving process gets a tensor over the *same* memory: writes on either side are seen
by the other, and nothing is copied however large the tensor. ``spawn(fn, args, nprocs)``
starts ``nprocs`` processes running ``fn(i, *args)`` and reports the first failure.

>>> import ember.multiprocessing as mp
>>> mp.get_all_sharing_strategies()
{'file_system'}
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403  (torch re-exports the whole module)

from ._spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,  # noqa
                     spawn, start_processes)
from ._sharing import init_reductions

__all__ = [*multiprocessing.__all__, 'spawn', 'start_processes', 'ProcessContext',
           'ProcessRaisedException', 'ProcessExitedException', 'get_sharing_strategy',
           'set_sharing_strategy', 'get_all_sharing_strategies', 'init_reductions']

_STRATEGIES = {'file_system'}
_strategy = 'file_system'


def get_all_sharing_strategies():
    """The ways tensors can be shared: ember uses named POSIX shared memory
    ('file_system', in torch's terms) on every platform."""
    return set(_STRATEGIES)


def get_sharing_strategy():
    """The current sharing strategy (always 'file_system')."""
    return _strategy


def set_sharing_strategy(new_strategy):
    """Sets the sharing strategy; only 'file_system' exists in ember."""
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f'unknown sharing strategy {new_strategy!r}; ember supports '
                             f'{sorted(_STRATEGIES)}')


init_reductions()
