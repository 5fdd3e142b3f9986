"""scipy.special, when it is installed, imported on first use.

scipy is an optional extra (``pip install 'ember[scipy]'``): its special-function ufuncs
are C loops, 5-10x faster than ember's own NumPy kernels in float64, and they are the only
kernels of some ``ember.special`` functions (Bessel functions, zeta, ndtri, erfcx, the
incomplete gamma functions...): those ask ``require``, which names the extra when scipy is
missing. (scipy stays optional: its wheel is 35 MB and installs to 143 MB, three times
NumPy's size, for functions most programs never call.) Importing scipy.special
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


def require(op):
    """``scipy.special`` for an op whose only kernel is scipy's; without scipy, an error that
    names the op and the extra that brings it."""
    sp = special()
    if sp is None:
        raise ModuleNotFoundError(
            f"{op} needs scipy, which ember uses for it as an optional extra: "
            "pip install 'ember[scipy]'")
    return sp
