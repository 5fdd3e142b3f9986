"""scipy.special and scipy.linalg.lapack, when scipy is installed, imported on first use.

scipy is an optional extra (``pip install ember[scipy]``): its special-function ufuncs are
C loops, 5-10x faster than ember's own NumPy kernels in float64. Importing scipy.special
costs 0.1-0.3 s, so it happens the first time a kernel asks for it, never at
``import ember``. Setting ``EMBER_NO_SCIPY=1`` in the environment makes ember behave as if
scipy were absent (the fallback kernels; the tests run both ways).
"""
import os

_MISSING = object()
_special = _MISSING
_lapack = _MISSING


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


def lapack():
    """The ``scipy.linalg.lapack`` module (LAPACK routines NumPy does not expose: getrf,
    sytrf...), or None when scipy is not installed (or disabled)."""
    global _lapack
    if _lapack is _MISSING:
        _lapack = None
        if not os.environ.get('EMBER_NO_SCIPY'):
            try:
                import scipy.linalg.lapack as _lapack  # noqa: F811  (the lazy import itself)
            except ImportError:
                pass
    return _lapack
