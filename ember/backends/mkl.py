"""ember.backends.mkl: Intel MKL. ember does not call MKL itself, so ``is_available()`` is
False (torch's x86 wheels, built with MKL, say True)."""

__all__ = ['is_available']


def is_available():
    """False: ember's linear algebra is NumPy's, not ember's own MKL."""
    return False
