"""``ember.linalg``: torch.linalg's functions (norms, decompositions, solvers, inverses).
They live in ``ember/_ops/linalg_ext.py``; this module, loaded on first use of
``ember.linalg``, only names them."""
from ._ops.linalg_ext import LINALG as _LINALG

globals().update(_LINALG)
__all__ = sorted(_LINALG)
del _LINALG
