"""torch's ``sym_*`` helpers. In torch they keep symbolic sizes (SymInt/SymFloat, used by
torch.compile's tracing) symbolic; ember has no symbolic sizes, so on plain Python numbers --
all ember ever passes them -- they are the Python operations, with torch's typing rules
(``sym_max``/``sym_min`` give a float when either operand is one) and its refusals."""
import builtins
import math

import numpy as np

from ._core import register

_NUMBERS = (np.integer, np.floating, int, float)  # (torch's order, shown in its error)
_FLOATS = (float, np.floating)


def _extreme(pick, a, b):
    for v in (a, b):
        if not isinstance(v, _NUMBERS):
            raise AssertionError(f"expected {_NUMBERS}, got {type(v)}")
    r = pick(a, b)
    return builtins.float(r) if isinstance(a, _FLOATS) or isinstance(b, _FLOATS) else r


@register(method=False)
def sym_max(a, b):
    """``max(a, b)`` of two numbers, a float if either is one."""
    return _extreme(builtins.max, a, b)


@register(method=False)
def sym_min(a, b):
    """``min(a, b)`` of two numbers, a float if either is one."""
    return _extreme(builtins.min, a, b)


@register(method=False)
def sym_int(a):
    """``a`` as an int, rounding toward zero."""
    return math.trunc(a) if isinstance(a, _FLOATS) else builtins.int(a)


@register(method=False)
def sym_float(a):
    """``float(a)``."""
    return builtins.float(a)


@register(method=False)
def sym_not(a):
    """``not a``."""
    return not a


@register(method=False)
def sym_sqrt(a):
    """``math.sqrt(a)``."""
    return math.sqrt(a)


@register(method=False)
def sym_ite(b, t, f):
    """``t if b else f``; ``b`` must be a bool."""
    if not isinstance(b, bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    return t if b else f


@register(method=False)
def sym_sum(args):
    """The sum of ``args`` (0 for none)."""
    return builtins.sum(args)
