"""``ember.ops``, torch.ops as user code touches it: ``ember.ops.aten.<name>`` is an operator
packet over the registered op of that name (callable, with ``.default`` and a few named
overloads such as ``ember.ops.aten.add.Tensor``), ``ember.ops.profiler`` holds the
profiler's private range ops, any other namespace the operators ``ember.library`` defined
(``ember.ops.mylib.op``), and ``ember.ops.load_library(path)`` loads a shared library.

Every overload of a packet runs the same ember op (ember's ops take all the argument kinds
torch spreads over its overloads). A packet lists ``default`` (and ``out`` when the op takes
``out=``) unless ``_OVERLOADS`` names torch's tensor overloads for it; torch's overloads on
Python numbers (``add.int``...) are TorchScript's and are not listed.
"""
import ctypes
import inspect
import os
import types

from ._core import OPS, METHODS

__all__ = ['ops', 'OpOverloadPacket', 'OpOverload']

# torch 2.13's tensor overloads of the operators whose overloads are not just
# ``default`` (and ``out``).
_OVERLOADS = {
    'add': 'Tensor Scalar out Scalar_out', 'sub': 'Tensor Scalar out Scalar_out',
    'mul': 'Tensor Scalar out Scalar_out',
    'div': 'Tensor Scalar Tensor_mode Scalar_mode out out_mode Scalar_out Scalar_mode_out',
    'add_': 'Tensor Scalar', 'sub_': 'Tensor Scalar', 'mul_': 'Tensor Scalar',
    'div_': 'Tensor Tensor_mode Scalar Scalar_mode',
    'pow': 'Tensor_Tensor Tensor_Scalar Scalar Tensor_Tensor_out Scalar_out Tensor_Scalar_out',
    'pow_': 'Scalar Tensor', 'transpose': 'int', 'select': 'int', 'unbind': 'int',
    'unflatten': 'int', 'flatten': 'using_ints', 'softmax': 'int int_out',
    'log_softmax': 'int int_out', 'empty': 'memory_format out',
    'sum': 'dim_IntList default IntList_out out', 'mean': 'default dim out dtype_out',
    'where': 'self ScalarOther ScalarSelf Scalar default self_out',
    'to': 'device dtype other dtype_layout', 'fill_': 'Scalar Tensor',
    'masked_fill': 'Scalar Scalar_out Tensor Tensor_out', 'masked_fill_': 'Scalar Tensor',
    'lerp': 'Scalar Tensor Scalar_out Tensor_out', 'lerp_': 'Scalar Tensor',
    'max': 'other default dim dim_max unary_out out',
    'min': 'other default dim dim_max unary_out out',
    '_record_function_exit': 'default _RecordFunction',
    'view': 'default dtype', 'split': 'Tensor sizes', 'rsub': 'Tensor Scalar',
    'var': 'default dim correction', 'std': 'default dim correction',
    'var_mean': 'default dim correction', 'std_mean': 'default dim correction',
    'squeeze': 'default dim dims', 'clamp': 'default Tensor',
    **{name: 'Tensor Scalar Scalar_out Tensor_out'
       for name in ('eq', 'ne', 'lt', 'le', 'gt', 'ge')},
}

_ATEN_ONLY = ('convolution_backward', '_new_zeros_with_same_feature_meta', 'reflection_pad1d',
              'reflection_pad2d', 'reflection_pad3d', 'replication_pad1d',
              'replication_pad2d', 'replication_pad3d')


def _find_op(name):
    """The ember callable torch's ``aten::<name>`` names, or None."""
    fn = OPS.get(name) or METHODS.get(name)
    if fn is None and name in _ATEN_ONLY:  # (torch has these under torch.ops.aten alone)
        from . import aten_only
        fn = getattr(aten_only, name)
    if fn is None and not name.startswith('__'):
        from ..nn import functional  # (aten::linear, aten::conv2d... live there in ember)
        fn = getattr(functional, name, None)
        fn = fn if isinstance(fn, types.FunctionType) else None
    return fn


class OpOverload:
    """One overload of an operator (``ember.ops.aten.add.Tensor``): calling it runs the op."""

    def __init__(self, packet, overload):
        self.overloadpacket = packet
        self._overloadname = overload
        self._op = packet._op
        self.__name__ = f'{packet.__name__}.{overload}'
        self.__qualname__ = self.__name__
        self.__module__ = packet.__module__

    def name(self):
        """The qualified name, ``'aten::add.Tensor'`` (``'aten::sin'`` for a default)."""
        if self._overloadname == 'default':
            return self.overloadpacket._qualified_op_name
        return f'{self.overloadpacket._qualified_op_name}.{self._overloadname}'

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def __repr__(self):
        return (f"<OpOverload(op='{self.overloadpacket._ns}.{self.overloadpacket.__name__}', "
                f"overload='{self._overloadname}')>")

    def __str__(self):
        return f'{self.overloadpacket._ns}.{self.__name__}'


class OpOverloadPacket:
    """All overloads of one operator (``ember.ops.aten.add``): callable itself (the op), with
    each overload an attribute (``.default``, ``.Tensor``...)."""

    def __init__(self, ns, name, op, overloads=None):
        self._ns = ns
        self.__name__ = name
        self.__qualname__ = name
        self.__module__ = f'ember.ops.{ns}'
        self._qualified_op_name = f'{ns}::{name}'
        self._op = op
        self._overload_names = overloads

    def overloads(self):
        """The overload names, as torch lists them."""
        if self._overload_names is None:
            names = _OVERLOADS.get(self.__name__)
            if names is not None:
                self._overload_names = names.split()
            else:
                try:
                    takes_out = 'out' in inspect.signature(self._op).parameters
                except (TypeError, ValueError):
                    takes_out = False
                self._overload_names = ['default', 'out'] if takes_out else ['default']
        return list(self._overload_names)

    def __getattr__(self, overload):
        if overload.startswith('__') or overload not in self.overloads():
            raise AttributeError(f"The underlying op of '{self}' has no overload name "
                                 f"'{overload}'")
        ov = OpOverload(self, overload)
        setattr(self, overload, ov)  # (one object per overload, as torch's)
        return ov

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self}')>"

    def __str__(self):
        return f'{self._ns}.{self.__name__}'


def _record_function_enter_new(name, args=None):
    """Opens a profiler range named ``name``; returns the handle ``_record_function_exit``
    closes."""
    from ..autograd.profiler import record_function
    rec = record_function(name, args)
    rec.__enter__()
    return rec


def _record_function_enter(name, args=None):
    """The legacy ``_record_function_enter_new``: its handle is a tensor, made inside the
    range (as torch's, whose profile shows the aten::empty)."""
    from .. import empty
    from .._dtype import uint8
    rec = _record_function_enter_new(name, args)
    handle = empty(0, dtype=uint8)
    handle._record = rec
    return handle


def _record_function_exit(handle):
    """Closes the range ``handle`` (from either enter op) opened."""
    getattr(handle, '_record', handle).__exit__(None, None, None)


_PROFILER_OPS = {f.__name__: f for f in (_record_function_enter, _record_function_enter_new,
                                         _record_function_exit)}


# -- the overload a call reaches (what selective checkpointing's policies are shown) --------
# Python operators named after another aten op (the rest are their method's own name).
_OPERATOR_OPS = {'__rpow__': 'pow', '__ipow__': 'pow_', '__rtruediv__': 'div',
                 '__floordiv__': 'floor_divide', '__rfloordiv__': 'floor_divide',
                 '__rmod__': 'remainder', '__rmatmul__': 'matmul', '__and__': 'bitwise_and',
                 '__or__': 'bitwise_or', '__xor__': 'bitwise_xor', '__invert__': 'bitwise_not',
                 '__iand__': 'bitwise_and_', '__ior__': 'bitwise_or_', '__ixor__': 'bitwise_xor_',
                 '__lshift__': 'bitwise_left_shift', '__rshift__': 'bitwise_right_shift'}
# ember ops that torch runs as another aten operator (the one its policies are shown).
_AS_ATEN = {**dict.fromkeys(('to', 'type', 'type_as', 'float', 'double', 'half', 'bfloat16',
                            'int', 'long', 'short', 'bool', 'byte', 'char'), '_to_copy'),
            'contiguous': 'clone', 'reshape': 'view', 'flatten': 'view', 'softmax': '_softmax',
            'log_softmax': '_log_softmax', 'narrow': 'slice', 'chunk': 'split',
            'square': 'pow'}
# Ops whose Python number operands torch wraps into tensors (so the ``Tensor`` overload).
_WRAPS_NUMBERS = {'add', 'sub', 'mul', 'div', 'add_', 'sub_', 'mul_', 'div_'}
_NOT_FOUND = {}  # name -> packet for ops torch has under aten but ember under another name


def _is_number(value):
    from .._tensor import Tensor
    return not isinstance(value, Tensor)


def _overload_name(name, names, args, kwargs):
    """The overload of ``names`` (a packet's) that torch's argument parser picks for the
    call ``name(*args, **kwargs)``: by the kinds of the operands, for the ops with several
    tensor overloads; otherwise ``default`` (or the packet's only overload)."""
    rest = args[1:]
    if name in _WRAPS_NUMBERS:
        mode = kwargs.get('rounding_mode') is not None
        return 'Tensor_mode' if mode else 'Tensor'
    if name == 'rsub':
        return 'Scalar' if _is_number(rest[0] if rest else kwargs.get('other')) else 'Tensor'
    if name == 'pow':
        if _is_number(args[0]):
            return 'Scalar'
        return 'Tensor_Scalar' if _is_number(rest[0] if rest else kwargs.get('exponent')) \
            else 'Tensor_Tensor'
    if name in ('pow_', 'fill_', 'masked_fill', 'masked_fill_', 'lerp', 'lerp_'):
        last = args[-1] if len(args) > 1 else next(iter(kwargs.values()), None)
        return 'Scalar' if _is_number(last) else 'Tensor'
    if name in ('sum', 'mean'):
        dim = rest[0] if rest else kwargs.get('dim')
        return 'default' if dim is None or (name == 'sum' and not rest and 'dim' not in kwargs) \
            else ('dim_IntList' if name == 'sum' else 'dim')
    if name in ('var', 'std', 'var_mean', 'std_mean'):
        return 'correction'
    if name in ('max', 'min'):
        if not rest and 'dim' not in kwargs and 'other' not in kwargs:
            return 'default'
        return 'dim' if 'dim' in kwargs or (rest and _is_number(rest[0])) else 'other'
    if name in ('eq', 'ne', 'lt', 'le', 'gt', 'ge'):
        return 'Scalar' if _is_number(rest[0] if rest else kwargs.get('other')) else 'Tensor'
    if name == 'where':  # (torch's Python layer makes tensors of number operands)
        return 'default' if len(args) == 1 and not kwargs else 'self'
    if name == 'split':
        size = rest[0] if rest else kwargs.get('split_size_or_sections',
                                               kwargs.get('split_size'))
        return 'sizes' if isinstance(size, (list, tuple)) else 'Tensor'
    if name == 'squeeze':
        dim = rest[0] if rest else kwargs.get('dim')
        return 'default' if dim is None else ('dims' if isinstance(dim, (list, tuple))
                                              else 'dim')
    if name == 'clamp':
        bounds = list(rest) + list(kwargs.values())
        return 'Tensor' if any(not _is_number(b) for b in bounds if b is not None) \
            else 'default'
    if name == 'view':
        return 'default' if not rest or not _is_dtype(rest[0]) else 'dtype'
    return 'default' if 'default' in names else names[0]


def _is_dtype(value):
    from .._dtype import dtype
    return isinstance(value, dtype)


def overload_of(func, args, kwargs):
    """The ``ember.ops.aten`` OpOverload torch's dispatcher would see for the call
    ``func(*args, **kwargs)`` of a public ember op (``Tensor.sin`` and ``ember.sin`` ->
    ``aten.sin.default``, ``x.sum(0)`` -> ``aten.sum.dim_IntList``); an OpOverload is its
    own; None for what is no operator call (property reads). ember does not decompose
    composite ops: ``F.linear`` is ``aten.linear.default`` (torch reports its parts)."""
    if isinstance(func, OpOverload):
        return func
    public = getattr(func, '_ember_name', None)
    if public is None:  # a property: the two that are operators in torch, or None
        from ..overrides import resolve_name
        prop = (resolve_name(func) or '').rsplit('.', 2)[-2:]
        return {('T', '__get__'): ops.aten.permute.default,
                ('mT', '__get__'): ops.aten.transpose.int}.get(tuple(prop))
    name = public.rsplit('.', 1)[-1]
    if name == '__rpow__':  # (``2 ** x``: the number is the base)
        return ops.aten.pow.Scalar
    if name.startswith('__'):
        if name == '__getitem__':
            key = args[1] if len(args) > 1 else None
            name = 'select' if type(key) is int else ('slice' if type(key) is slice else 'index')
        else:
            name = _OPERATOR_OPS.get(name, name.strip('_'))
    if name == 'square':
        return ops.aten.pow.Tensor_Scalar
    name = _AS_ATEN.get(name, name)
    packet = _NOT_FOUND.get(name)
    if packet is None:
        try:
            packet = getattr(ops.aten, name)
        except AttributeError:  # (named for the policy; calling it runs ``func``)
            packet = _NOT_FOUND[name] = OpOverloadPacket(
                'aten', name, func, ['Tensor'] if name in ('slice', 'index') else ['default'])
    if name in ('split', 'slice'):  # (chunk, narrow)
        return packet.Tensor
    return getattr(packet, _overload_name(name, packet.overloads(), args, kwargs or {}))


class _OpNamespace(types.ModuleType):
    """``ember.ops.<ns>``: its operators, one packet each, made on first use."""

    def __init__(self, name):
        super().__init__('ember.ops.' + name)
        self.name = name

    def __getattr__(self, op_name):
        if self.name == 'aten':
            fn = _find_op(op_name)
        elif self.name == 'profiler':
            fn = _PROFILER_OPS.get(op_name)
        else:  # (an operator of ember.library: custom_op or Library.define)
            from ..library import _OPS as custom
            fn = custom.get(f'{self.name}::{op_name}')
        if fn is None:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{op_name}'")
        packet = OpOverloadPacket(self.name, op_name, fn,
                                  None if self.name in ('aten', 'profiler') else ['default'])
        setattr(self, op_name, packet)
        return packet


class _Ops(types.ModuleType):
    """``ember.ops``: every attribute is an operator namespace (``aten``, ``profiler``...)."""

    def __init__(self):
        super().__init__('ember.ops')
        self.loaded_libraries = set()

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(f"'_Ops' object has no attribute '{name}'")
        ns = _OpNamespace(name)
        setattr(self, name, ns)
        return ns

    def load_library(self, path):
        """Loads the shared library at ``path`` (for the operators it registers); the
        path is taken as a file path (relative to the working directory), as torch does."""
        path = os.path.realpath(path)
        ctypes.CDLL(path)
        self.loaded_libraries.add(path)


ops = _Ops()
