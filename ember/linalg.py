"""``ember.linalg``: torch.linalg's functions (norms, decompositions, solvers, inverses).
They live in ``ember/_ops/`` (``factorizations.py``, ``linalg_composed.py``, ``lu.py``,
``eig.py``, ``matrix_exp.py``, ``householder.py``, ``ldl.py``); this module, loaded on first
use of ``ember.linalg``, only names them."""
from ._ops.factorizations import LINALG as _LINALG

globals().update(_LINALG)
__all__ = sorted(_LINALG)
del _LINALG
