"""SciPy's modules, when SciPy is installed, imported on first use.

scipy is an optional extra (``pip install 'ember[scipy]'``). ember asks it for:

- ``scipy.special``: its special-function ufuncs are C loops, 5-10x faster than ember's own
  NumPy kernels in float64, and they are the only kernels of some ``ember.special``
  functions (Bessel functions, zeta, ndtri, erfcx, the incomplete gamma functions...):
  those ask ``require``, which names the extra when scipy is missing;
- ``scipy.linalg.lapack``: LAPACK routines NumPy does not expose (getrf, sytrf...);
- ``scipy.sparse``: sparse matrices where a sparse product beats a dense one.

(scipy stays optional: its wheel is 35 MB and installs to 143 MB, three times NumPy's size,
for functions most programs never call.) Importing a scipy module costs 0.1-0.3 s, so it
happens the first time a kernel asks for it, never at ``import ember``. Setting
``EMBER_NO_SCIPY=1`` in the environment makes ember behave as if scipy were absent (the
fallback kernels; the tests run both ways).
"""
import importlib
import os

_modules = {}   # 'special' -> the module, or None when scipy is missing or disabled


def _module(name):
    """``scipy.<name>``, or None when scipy is not installed (or disabled)."""
    try:
        return _modules[name]
    except KeyError:
        module = None
        if not os.environ.get('EMBER_NO_SCIPY'):
            try:
                module = importlib.import_module('scipy.' + name)
            except ImportError:
                pass
        _modules[name] = module
        return module


def special():
    """The ``scipy.special`` module, or None."""
    return _module('special')


def lapack():
    """The ``scipy.linalg.lapack`` module, or None."""
    return _module('linalg.lapack')


def sparse():
    """The ``scipy.sparse`` module, or None."""
    return _module('sparse')


def require(op):
    """``scipy.special`` for an op whose only kernel is scipy's; without scipy, an error that
    names the op and the extra that brings it."""
    sp = special()
    if sp is None:
        raise ModuleNotFoundError(
            f"{op} needs scipy, which ember uses for it as an optional extra: "
            "pip install 'ember[scipy]'")
    return sp
