"""Every built-in op, each defined once; importing this package installs them as Tensor
methods and collects them (``OPS``) for the ``ember`` namespace."""
from types import FunctionType

import numpy as np

from .._tensor import Tensor
from ._core import OPS, METHODS
from ..overrides import overridable, dispatching_property
from . import (pointwise, shape, reduce, linalg, creation, random, index, query,  # noqa: F401
               complex, arrange, factorizations, linalg_composed, lu, matrix_exp, eig,
               householder, ldl, lowrank, lobpcg, stats, special, special_fns, view_copy,
               tensor_state, sym, nn_entry, backend_only, spectral, fake_quant)

# torch never warns on overflow, 0/0 or log(0): it returns inf/nan. Checking per op with
# np.errstate would cost a microsecond per call, so NumPy's floating-point warnings are
# switched off once, at import (documented in the README).
np.seterr(all='ignore')


# Tensor's own methods that dispatch too (as in torch); the rest of its dunders are Python
# machinery (construction, pickling, hashing) that must not.
_DISPATCHING_DUNDERS = {'__repr__', '__len__', '__contains__', '__bool__', '__float__', '__int__',
                        '__index__', '__complex__', '__format__', '__array__'}


def _install():
    for name, fn in {**shape.PROPERTIES, **complex.PROPERTIES, **tensor_state.PROPERTIES}.items():
        setattr(Tensor, name, property(fn, doc=fn.__doc__))
    for name, fn in METHODS.items():
        if not hasattr(fn, '_ember_name'):  # operators and [] are put in METHODS directly
            fn = METHODS[name] = overridable(fn, 'ember.Tensor.' + name)
        setattr(Tensor, name, fn)
    for name, attr in list(vars(Tensor).items()):
        if (type(attr) is FunctionType and name not in METHODS and name != 'as_subclass' and
                (not name.startswith('_') or name in _DISPATCHING_DUNDERS)):
            METHODS[name] = overridable(attr, 'ember.Tensor.' + name)
            setattr(Tensor, name, METHODS[name])
        elif isinstance(attr, property) and not name.startswith('_'):
            setattr(Tensor, name, dispatching_property(attr, name))


_install()
