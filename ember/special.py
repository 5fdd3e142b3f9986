"""``ember.special``: torch.special's functions (error and gamma functions, Bessel functions,
orthogonal polynomials, ...). They live in ``ember/_ops/`` (see ``_ops/special_namespace.py``
for where each is defined); this module, loaded on first use of ``ember.special``, only
names them."""
from ._ops.special_namespace import SPECIAL as _SPECIAL

globals().update(_SPECIAL)
__all__ = sorted(_SPECIAL)
del _SPECIAL
