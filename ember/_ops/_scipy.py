"""scipy.special, when it is installed, imported on first use.

scipy is an optional extra (``pip install ember[scipy]``): its special-function ufuncs are
C loops, 5-10x faster than ember's own NumPy kernels in float64. Importing scipy.special
costs 0.1-0.3 s, so it happens the first time a kernel asks for it, never at
``import ember``. Setting ``EMBER_NO_SCIPY=1`` in the environment makes ember behave as if
scipy were absent (the fallback kernels; the tests run both ways).
"""
import os

_MISSING = object()
_special = _MISSING


def special():
    """The ``scipy.special`` module, or None when scipy is not installed (or disabled)."""
    global _special
    if _special is _MISSING:
        _special = None
        if not os.environ.get('EMBER_NO_SCIPY'):
            try:
                import scipy.special as _special  # noqa: F811  (the lazy import itself)
            except ImportError:
                pass
    return _special


_sparse = _MISSING


def sparse():
    """The ``scipy.sparse`` module, or None when scipy is not installed (or disabled)."""
    global _sparse
    if _sparse is _MISSING:
        _sparse = None
        if not os.environ.get('EMBER_NO_SCIPY'):
            try:
                import scipy.sparse as _sparse  # noqa: F811  (the lazy import itself)
            except ImportError:
                pass
    return _sparse
