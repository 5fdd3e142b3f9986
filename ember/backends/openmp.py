"""ember.backends.openmp: OpenMP. ember runs no OpenMP code of its own (threads are NumPy's
BLAS threads, see ``ember.set_num_threads``), so ``is_available()`` is False."""

__all__ = ['is_available']


def is_available():
    """False: ember has no OpenMP parallel loops (torch's CPU build says True)."""
    return False
