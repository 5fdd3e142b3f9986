"""torch.__config__: what ember was built with and how it runs in parallel, as text.

ember has no build of its own: ``show()`` names the Python, NumPy and BLAS it runs on,
``parallel_info()`` the thread counts (``ember.get_num_threads()`` and NumPy's BLAS pools).
"""
import platform

__all__ = ['show', 'parallel_info']


def _blas_pools():
    """[(library name, version, threads)] of the BLAS/OpenMP pools NumPy loaded."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    return [(p.get('internal_api', '?'), p.get('version') or '?', p.get('num_threads'))
            for p in threadpool_info()]


def show():
    """A human-readable description of ember's configuration (torch's ``show()`` lists its
    compiler and libraries; ember's are Python's and NumPy's)."""
    import numpy as np
    from .version import __version__
    lines = [f"ember {__version__} built with:",
             f"  - Python {platform.python_version()} ({platform.python_implementation()})",
             f"  - NumPy {np.__version__}"]
    lines += [f"  - BLAS: {name} {version}" for name, version, _ in _blas_pools()]
    return '\n'.join(lines) + '\n'


def parallel_info():
    """The thread counts ember's ops run with, as text."""
    from ._threads import get_num_threads, get_num_interop_threads
    lines = ["ember/Parallel:", f"\tember.get_num_threads() : {get_num_threads()}",
             f"\tember.get_num_interop_threads() : {get_num_interop_threads()}"]
    lines += [f"{name} {version}\n\tthreads : {n}" for name, version, n in _blas_pools()]
    return '\n'.join(lines) + '\n'
