"""ember.distributed: torch.distributed's process groups and collectives, run on MPI.

Start N processes with ``mpirun -np N python train.py`` (or ``python -m ember.distributed.run
--nproc-per-node N train.py``, torchrun's spelling); each calls ``init_process_group()`` and
gets its rank and the world size from MPI. Backends 'mpi' and 'gloo' both run on MPI
(through mpi4py, the optional extra ``ember[distributed]``), which is imported only by
``init_process_group``: importing this module needs neither.

>>> import ember.distributed as dist
>>> dist.is_available(), dist.is_initialized()
(True, False)
"""
from ._mpi import mpi4py_importable
from .distributed_c10d import *  # noqa: F401,F403
from .distributed_c10d import __all__ as _c10d_all

__all__ = ['is_available', 'is_mpi_available', 'is_gloo_available', 'is_nccl_available',
           'is_torchelastic_launched', *_c10d_all]


def is_available():
    """True: ember.distributed is always built (it needs mpi4py only to make a group)."""
    return True


def is_mpi_available():
    """Whether mpi4py (and so the MPI backend) can be imported."""
    return mpi4py_importable()


def is_gloo_available():
    """Whether backend='gloo' works: ember runs it on MPI, so as ``is_mpi_available``."""
    return mpi4py_importable()


def is_nccl_available():
    """False: ember runs on the CPU."""
    return False


def is_torchelastic_launched():
    """Whether this process was started by ``python -m ember.distributed.run`` (which sets
    TORCHELASTIC_RUN_ID, as torchrun does)."""
    import os
    return os.environ.get('TORCHELASTIC_RUN_ID') is not None
