"""Every built-in op, each defined once; importing this package installs them as Tensor
methods and collects them (``OPS``) for the ``ember`` namespace."""
import functools
from types import FunctionType

import numpy as np

from .._tensor import Tensor
from ._core import OPS, METHODS
from ..overrides import (overridable, dispatching_property, operator_method, dispatch_as,
                         _CHECKS_INLINE, _name_public, is_torch_tensor_type)
from . import (pointwise, shape, reduce, linalg, creation, random, index, query,  # noqa: F401
               complex, arrange, factorizations, linalg_composed, lu, matrix_exp, eig,
               householder, ldl, lowrank, lobpcg, stats, special, special_fns, view_copy,
               tensor_state, sym, nn_entry, backend_only, spectral, fake_quant, foreach,
               sparse, windows, sparse_convert)

# torch never warns on overflow, 0/0 or log(0): it returns inf/nan. Checking per op with
# np.errstate would cost a microsecond per call, so NumPy's floating-point warnings are
# switched off once, at import (documented in the README).
np.seterr(all='ignore')


# Tensor's own methods that dispatch too (as in torch); the rest of its dunders are Python
# machinery (construction, pickling, hashing) that must not.
_DISPATCHING_DUNDERS = {'__repr__', '__len__', '__contains__', '__bool__', '__float__', '__int__',
                        '__index__', '__complex__', '__format__', '__array__'}


# How torch 2.13's operators reach __torch_function__ (checked operator by operator): most
# hand handlers the method they compute (``a + b`` and ``2 + a``: Tensor.add; ``a < b``:
# Tensor.lt; ``a += b``: Tensor.add_) ...
_DISPATCH_AS = {
    '__add__': 'add', '__radd__': 'add', '__sub__': 'sub', '__mul__': 'mul', '__rmul__': 'mul',
    '__truediv__': 'div', '__mod__': 'remainder', '__matmul__': 'matmul',
    '__rand__': 'bitwise_and', '__ror__': 'bitwise_or', '__rxor__': 'bitwise_xor',
    '__lt__': 'lt', '__le__': 'le', '__gt__': 'gt', '__ge__': 'ge', '__ne__': 'ne',
    '__neg__': 'neg', '__pos__': 'positive', '__abs__': 'abs',
    '__iadd__': 'add_', '__isub__': 'sub_', '__imul__': 'mul_', '__itruediv__': 'div_',
    '__ifloordiv__': 'floor_divide_', '__imod__': 'remainder_'}
# ... the ones torch writes in Python hand over themselves and answer NotImplemented to a
# TypeError (so ``a ** b`` falls back to ``type(b).__rpow__``); the rest (``__eq__``,
# ``__and__``, ``__iand__``, ``__invert__``...) hand over themselves.
_PYTHON_OPERATORS = {'__pow__', '__ipow__', '__rpow__', '__rsub__', '__rtruediv__',
                     '__floordiv__', '__rfloordiv__', '__rmod__', '__rmatmul__'}


# Binary operators answer NotImplemented where their op's parser raises a TypeError, as
# torch's do: Python then tries the other operand (``nd_array * t`` reaches NumPy, which
# computes and wraps a tensor), and ``t == None`` falls back to identity (False) instead of
# raising. (The operators in _PYTHON_OPERATORS are wrapped so by operator_method already.)
_BINARY_OPERATORS = (
    '__add__', '__radd__', '__iadd__', '__sub__', '__isub__', '__mul__', '__rmul__',
    '__imul__', '__truediv__', '__itruediv__', '__div__', '__ifloordiv__',
    '__mod__', '__imod__', '__matmul__', '__eq__', '__ne__', '__lt__', '__le__', '__gt__',
    '__ge__', '__and__', '__or__', '__xor__', '__rand__', '__ror__', '__rxor__', '__iand__',
    '__ior__', '__ixor__', '__lshift__', '__rshift__', '__rlshift__', '__rrshift__',
    '__ilshift__', '__irshift__')


# Operand types an operator declines before its fast path, which would take them: torch's
# ``t == [1, 2]`` is False (the list's own comparison), not an elementwise one.
_DECLINED = {'__eq__': (list, tuple)}


def _not_implemented_on_type_error(op, name):
    declined = _DECLINED.get(name)

    def operator(*args, **kwargs):
        if declined is not None and type(args[1] if len(args) > 1 else kwargs.get('other')) \
                in declined:  # (``t.__eq__(other=[1, 2])`` too)
            return NotImplemented
        try:
            return op(*args, **kwargs)
        except TypeError:
            # (a real torch tensor keeps ember's error, which says how to convert it: torch's
            # reflected operator would only refuse an ember tensor in its turn)
            if any(is_torch_tensor_type(type(a)) for a in args):
                raise
            return NotImplemented

    functools.update_wrapper(operator, op)
    operator._ember_name = 'ember.Tensor.' + name
    operator._ember_impl = op._ember_impl
    _name_public(operator, operator._ember_name)
    # An operator that hands __torch_function__ handlers itself (``__and__``, ``__eq__``)
    # must hand them this public object now; the rest hand over their method (Tensor.add).
    for f in (op, op._ember_impl) if name not in _DISPATCH_AS else ():
        code, cells = getattr(f, '__code__', None), getattr(f, '__closure__', None)
        if code is not None and cells and 'public' in code.co_freevars:
            cell = cells[code.co_freevars.index('public')]
            if cell.cell_contents is op:
                cell.cell_contents = operator
    return operator


def _answer_not_implemented():
    for name in _BINARY_OPERATORS:
        fn = METHODS[name] = _not_implemented_on_type_error(getattr(Tensor, name), name)
        setattr(Tensor, name, fn)


def _dispatch_operators_as_torch():
    for name, target in _DISPATCH_AS.items():
        op, method = METHODS[name], METHODS[target]
        if op in _CHECKS_INLINE and op._ember_impl is not method._ember_impl:
            dispatch_as(op, method)  # keeps its own faster implementation (add: no alpha)
        else:  # the same computation: the method itself
            METHODS[name] = method
            setattr(Tensor, name, method)
    Tensor.__rdiv__ = Tensor.__rtruediv__  # (one object in torch)


# Tensor methods torch also has as ``torch.<name>`` functions, which its overridable and
# ignored listings both leave out (``overrides._UNLISTED``).
METHOD_FUNCTIONS = ('acosh_', 'addmv_', 'arccos_', 'arccosh_', 'arcsin_', 'arcsinh_', 'arctan_',
                    'arctanh_', 'as_strided_', 'asinh_', 'atanh_', 'clamp_max_', 'clamp_min_',
                    'detach_', 'fill_', 'fix_', 'index_put_', 'nan_to_num_', 'negative_',
                    'resize_as_', 'round_', 'square_', 'zero_')


def _method_functions():
    for name in METHOD_FUNCTIONS:
        impl = METHODS[name]._ember_impl if name in METHODS else vars(Tensor)[name]
        OPS[name] = overridable(impl, 'ember.' + name)


def _install():
    for name, fn in {**shape.PROPERTIES, **complex.PROPERTIES, **tensor_state.PROPERTIES}.items():
        setattr(Tensor, name, property(fn, doc=fn.__doc__))
    for name, fn in METHODS.items():
        if name in _PYTHON_OPERATORS:
            fn = METHODS[name] = operator_method(fn, 'ember.Tensor.' + name)
        elif not hasattr(fn, '_ember_name'):  # operators and [] are put in METHODS directly
            fn = METHODS[name] = overridable(fn, 'ember.Tensor.' + name)
        setattr(Tensor, name, fn)
    _dispatch_operators_as_torch()
    _answer_not_implemented()
    Tensor.__idiv__ = Tensor.__itruediv__  # (Python 2's name, still in torch: the same)
    for name, attr in list(vars(Tensor).items()):
        if (type(attr) is FunctionType and name not in METHODS and name != 'as_subclass' and
                (not name.startswith('_') or name in _DISPATCHING_DUNDERS)):
            METHODS[name] = overridable(attr, 'ember.Tensor.' + name)
            setattr(Tensor, name, METHODS[name])
        elif isinstance(attr, property) and not name.startswith('_'):
            setattr(Tensor, name, dispatching_property(attr, name))


# Methods torch removed but keeps so that old code fails with a pointer to the replacement;
# ember._removed (loaded on the first call) raises torch's error.
REMOVED_METHODS = ('solve', 'lstsq', 'eig', 'symeig', 'reinforce')


def _removed_methods():
    def removed(name):
        def method(self, *args, **kwargs):
            from .. import _removed
            return getattr(_removed, name)(self, *args, **kwargs)
        method.__name__ = method.__qualname__ = name
        method.__doc__ = f"Removed from torch: raises RuntimeError saying what replaces {name}."
        return method
    for name in REMOVED_METHODS:
        setattr(Tensor, name, removed(name))


_method_functions()
_install()
_removed_methods()  # (after _install: plain functions, not overridable methods)
