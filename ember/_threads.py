"""Thread counts: ``set_num_threads`` limits NumPy's BLAS threads (through threadpoolctl);
the inter-op count is recorded (ember runs ops one after another on the calling thread).

threadpoolctl is imported inside the functions, so ``import ember`` does not pay for it.
"""
import os

__all__ = ['set_num_threads', 'get_num_threads', 'set_num_interop_threads',
           'get_num_interop_threads']

_STATE = {'threads': None, 'limiter': None, 'interop': None}


def _check_count(n, name):
    if type(n) is not int:
        raise RuntimeError(f'{name} expects an int, but got {type(n).__name__}')
    if n <= 0:
        raise RuntimeError(f'{name} expects a positive integer')


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def set_num_threads(int):  # noqa: A002 - torch's parameter name
    """Limits the threads NumPy's BLAS (matmul, linear algebra) uses to ``int``.

    >>> ember.set_num_threads(1); ember.get_num_threads()
    1
    """
    _check_count(int, 'set_num_threads')
    from threadpoolctl import threadpool_limits
    # The limiter object remembers the libraries' original counts; the limit itself stays
    # in force until the next call changes it.
    _STATE['limiter'] = threadpool_limits(limits=int, user_api='blas')
    _STATE['threads'] = int


def get_num_threads():
    """The number of threads BLAS uses: the last ``set_num_threads``, else what the loaded
    BLAS library reports."""
    if _STATE['threads'] is not None:
        return _STATE['threads']
    from threadpoolctl import threadpool_info
    counts = [lib['num_threads'] for lib in threadpool_info() if lib['user_api'] == 'blas']
    return max(counts) if counts else 1


def set_num_interop_threads(int):  # noqa: A002 - torch's parameter name
    """Sets the inter-op thread count; as in torch, only once per process."""
    _check_count(int, 'set_num_interop_threads')
    if _STATE['interop'] is not None:
        raise RuntimeError('Error: cannot set number of interop threads after parallel work '
                           'has started or set_num_interop_threads called')
    _STATE['interop'] = int


def get_num_interop_threads():
    """The inter-op thread count (default: the CPU cores this process may use). ember runs
    ops on the calling thread, so it only reports what was set."""
    return _STATE['interop'] if _STATE['interop'] is not None else _cores()
