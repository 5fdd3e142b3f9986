"""The argument layer: every public op's arguments checked against torch's signature of it,
and torch's exceptions for bad calls, from one place.

``overrides.overridable`` (the wrapper every public op gets) and the pointwise builders call
in here; none of it runs on the fast path of a well-formed call once the op's first call
has settled it:

* the first call: ``fast_types`` (the plain types -- int, float, str, None ... -- some
  parameter takes: the fast path lets only those through, so a float where only a Tensor
  or an int goes takes the checked path at no cost to the others), ``fast_runner`` (what
  the fast path runs: the body, or for the few ops that need it the body behind a count of
  the arguments and a test of numbers in tensor-only places) and ``refusals`` (the dtypes
  torch's kernel of the op refuses, from ``_dtype_refusals.py``);
* ``check(name, args, kwargs)``: on the checked path (keywords, other types), binds the call
  to one of the op's overloads as torch's argument parser does, or raises its TypeError:
  "mm(): argument 'mat2' (position 2) must be Tensor, not float", "add() received an
  invalid combination of arguments - got (Tensor, str), but expected one of: ...",
  "relu() got an unexpected keyword argument 'x'", "... missing 1 required positional
  arguments: ...", "... takes 2 positional arguments but 3 were given";
* ``refuse(name, args, kwargs, error)``: when the op's body raised, the error torch would
  give instead, if any: the arguments' TypeError (a bad call that slipped through the fast
  path), torch's IndexError for NumPy's AxisError, and no NumPy exception ever (AxisError,
  LinAlgError, a ufunc's TypeError, "read-only" or broadcasting ValueErrors become torch's
  IndexError / LinAlgError / NotImplementedError / RuntimeError);
* ``refuse_dtypes`` / ``array_check``: torch's error for a dtype its kernel refuses
  (ordering ops on complex, hypot on integers ...), checked after the body (whose own
  message, where it has one, is the more precise) or, in the pointwise builders, on the
  operand arrays.

The signatures are data (``_signatures.py``, generated from torch by
``tools/gen_signatures.py``), keyed by the name the public object has (``add``,
``Tensor.add``, ``nn.functional.linear``): an op gets its checks by being registered under a
name torch has. Each is parsed once, on first use; ``import ember`` loads none of this.
"""
import collections
import inspect
import os
import re
import warnings

import numpy as np

__all__ = ['fast_types', 'fast_runner', 'check', 'body_args', 'refuse', 'refusals',
           'refuse_dtypes', 'array_check', 'takes_numbers', 'signatures', 'tensor_varargs',
           'stands', 'inner_check', 'inner_after', 'int_lists']

_SIGS = {}  # key -> (torch's name for messages, [Signature]) or None; filled lazily
_FAST = {}  # key -> frozenset of plain types the op's parameters take
_NUMBERS = (int, float, bool, complex)
_INTS = (int,)


def _table():
    from . import _signatures
    return _signatures


def key_of(public_name):
    """``'ember.Tensor.add'`` -> ``'Tensor.add'``, the key of the signature table."""
    return public_name[6:] if public_name.startswith('ember.') else public_name


# Operators whose arguments torch parses as another op's (the table has no entry of theirs).
# (Not ``__eq__``: torch's takes NumPy arrays, which ``Tensor.eq`` refuses.)
_OPERATOR_SIGNATURES = {
    'Tensor.__and__': 'Tensor.bitwise_and',
    'Tensor.__or__': 'Tensor.bitwise_or', 'Tensor.__xor__': 'Tensor.bitwise_xor',
    'Tensor.__lshift__': 'Tensor.bitwise_left_shift',
    'Tensor.__rshift__': 'Tensor.bitwise_right_shift', 'Tensor.__pow__': 'Tensor.pow',
    'Tensor.__ipow__': 'Tensor.pow_', 'Tensor.__floordiv__': 'Tensor.floor_divide',
    'Tensor.__rfloordiv__': 'Tensor.floor_divide', 'Tensor.__rpow__': 'Tensor.pow',
    'Tensor.__rmod__': 'Tensor.remainder', 'Tensor.__rtruediv__': 'Tensor.div',
    'Tensor.__rsub__': 'Tensor.sub', 'Tensor.__rmatmul__': 'Tensor.matmul'}


def signatures(key):
    """(torch's name of the op, [Signature]) for table key ``key``, or None."""
    got = _SIGS.get(key, False)
    if got is False:
        entry = _table().SIGNATURES.get(_OPERATOR_SIGNATURES.get(key, key))
        got = None
        if entry is not None:
            cname, texts = entry
            numbers = cname in _table().NUMBERS_AS_TENSORS
            got = (cname, [Signature(t, numbers, key.startswith('Tensor.')) for t in texts])
        _SIGS[key] = got
    return got


# -- types ----------------------------------------------------------------------------------
def _is_tensor(x):
    from .._tensor import Tensor
    if isinstance(x, Tensor):
        return True
    t = type(x)
    return t not in _PLAIN_TYPES and hasattr(t, '__torch_function__')


_PLAIN_TYPES = frozenset((int, float, bool, complex, str, type(None), list, tuple))


def _is_int(x):
    t = type(x)
    if t is int:
        return True
    if t is bool:
        return False
    return isinstance(x, (int, np.integer)) or (_is_tensor(x) and _integral_scalar(x))


def _integral_scalar(x):
    data = getattr(x, '_data', None)
    return data is None or (data.size == 1 and data.dtype.kind in 'iub')


def _scalar_tensor(x):
    """A tensor torch's parser takes for a float or a Number: 0-dim, not requiring grad (a
    one-element tensor of more dims is refused: only an int takes it, through __index__)."""
    data = getattr(x, '_data', None)
    return data is None or (data.ndim == 0 and not x.requires_grad)


def _is_float(x):
    return type(x) in (float, int, bool) or isinstance(x, (np.floating, np.integer, np.bool_)) \
        or (_is_tensor(x) and _scalar_tensor(x))


def _is_number(x):
    return type(x) in _NUMBERS or isinstance(x, (np.number, np.bool_)) or \
        (_is_tensor(x) and _scalar_tensor(x))


def _is_bool(x):
    return type(x) is bool or isinstance(x, np.bool_)


def _is_dtype(x):
    from .._dtype import dtype
    # (by identity: ``in`` would compare a tensor with ``==``, an elementwise op)
    return isinstance(x, dtype) or any(x is t for t in (int, float, bool, complex))


def _is_str(x):
    return isinstance(x, str)


def _is_device(x):
    from .._device import device
    return isinstance(x, (device, str, int)) and type(x) is not bool


def _anything(x):
    return True


def _is_int_list(x, size=0):
    """(ok, bad element position or None): a sequence of ints, or one int when the
    signature gives the list a size."""
    if _is_int(x):
        return bool(size), None
    if isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            # (torch's parser judges the list by its first element, then unpacks the rest
            # as indices: a bool there passes as 0 or 1)
            if not _is_int(v) and not (i and isinstance(v, bool)):
                return False, i
        return True, None
    return False, None


def _is_float_list(x, size=0):
    if _is_float(x):
        return bool(size), None
    if isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            if not _is_float(v):
                return False, i
        return True, None
    return False, None


def _is_tensor_list(x, size=0):
    if isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            if not _is_tensor(v):
                return False, i
        return True, None
    return False, None


def _is_optional_tensor_list(x, size=0):
    if isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            if v is not None and not _is_tensor(v):
                return False, i
        return True, None
    return False, None


def _is_number_list(x, size=0):
    if isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            if not _is_number(v):
                return False, i
        return True, None
    return False, None


# raw type -> (display name, predicate, is_list, plain types it takes)
_TYPES = [
    (r'Tensor', 'Tensor', _is_tensor, False, ()),
    (r'Scalar', 'Number', _is_number, False, _NUMBERS),
    (r'(int64_t|SymInt|DeviceIndex)', 'int', _is_int, False, _INTS),
    (r'double', 'float', _is_float, False, (float, int, bool)),
    (r'bool', 'bool', _is_bool, False, (bool,)),
    (r'(Sym)?IntArrayRef', 'tuple of ints', _is_int_list, True, (int,)),
    (r'TensorList', 'tuple of Tensors', _is_tensor_list, True, ()),
    (r'c10::List<::std::optional<Tensor>>', 'tuple of Tensors', _is_optional_tensor_list,
     True, ()),
    (r'ScalarType', 'torch.dtype', _is_dtype, False, ()),
    (r'(c10::string_view|std::string_view|std::string)', 'str', _is_str, False, (str,)),
    (r'ArrayRef<double>', 'tuple of floats', _is_float_list, True, (float, int)),
    (r'ScalarList', 'tuple of Scalars', _is_number_list, True, ()),
    (r'Generator', 'torch.Generator', _anything, False, ()),
    (r'Layout', 'torch.layout', _anything, False, ()),
    (r'Device', 'torch.device', lambda x: _is_device(x), False, (str, int)),
    (r'MemoryFormat', 'torch.memory_format', _anything, False, ()),
    (r'Storage', 'torch.Storage', _anything, False, ()),
    (r'Stream', 'Stream', _anything, False, ()),
    (r'PyObject\*', 'object', _anything, False, _NUMBERS + (str, slice, type(Ellipsis))),
]
# the listing's type names (texts the generator could only take from a listing)
_DISPLAYED = {'Number': 'Scalar', 'torch.dtype': 'ScalarType', 'int': 'int64_t',
              'float': 'double', 'str': 'c10::string_view', 'tuple of ints': 'IntArrayRef',
              'tuple of Tensors': 'TensorList', 'tuple of floats': 'ArrayRef<double>',
              'torch.Generator': 'Generator', 'torch.device': 'Device',
              'torch.layout': 'Layout', 'torch.memory_format': 'MemoryFormat'}


class Param:
    """One parameter of a signature."""
    __slots__ = ('name', 'raw', 'display', 'test', 'is_list', 'size', 'optional',
                 'has_default', 'kwonly', 'plain', 'numbers_as_tensor', 'default_text')

    def __init__(self, text, kwonly, numbers):
        decl, eq, default = text.partition('=')
        raw, self.name = decl.strip().rsplit(' ', 1)
        for word, back in sorted(_DISPLAYED.items(), key=lambda kv: -len(kv[0])):
            if raw == word:  # (a listing's text: the word spelled as the parser's)
                raw = back
                break
        self.optional = raw.endswith('?') or default.strip() == 'None'
        raw = raw.rstrip('?')
        m = re.fullmatch(r'(.*?)(?:\[(\d+)\])?', raw)
        base, size = m.group(1), int(m.group(2) or 0)
        self.raw, self.size = raw, size
        for pat, disp, test, is_list, plain in _TYPES:
            if re.fullmatch(pat, base):
                self.display, self.test, self.is_list, self.plain = disp, test, is_list, plain
                break
        else:  # a type this table does not know: anything goes
            self.display, self.test, self.is_list, self.plain = base, _anything, False, ()
        self.numbers_as_tensor = numbers and base == 'Tensor'
        if self.numbers_as_tensor:
            self.plain = _NUMBERS
        if self.optional:
            self.plain = self.plain + (type(None),)
        self.has_default = bool(eq)
        self.kwonly = kwonly

    def accepts(self, x):
        """(ok, bad element position or None)."""
        if x is None and self.optional:
            return True, None
        if self.is_list:
            return self.test(x, self.size)
        if self.numbers_as_tensor and (type(x) in _NUMBERS or isinstance(x, np.number)):
            return True, None
        return self.test(x), None

    def shown(self):
        """As torch's listing prints it: ``Tensor other``, ``Number alpha = 1``."""
        text = f'{self.display} {self.name}'
        return text + (' = ' + self.default_text if self.has_default else '')


# NumPy's names torch's parser also takes for these parameters (``t.sum(axis=0,
# keepdims=True)``, ``torch.add(x1=a, x2=b)``)
_NUMPY_NAMES = {'dim': ('axis',), 'keepdim': ('keepdims',), 'input': ('x', 'a', 'x1'),
                'other': ('x2',)}


def _numpy_name(name, kwargs):
    """The NumPy name under which ``kwargs`` gives torch's parameter ``name``, or None."""
    for alias in _NUMPY_NAMES[name]:
        if alias in kwargs:
            return alias
    return None


class Signature:
    """One overload: its parameters, how many are positional, whether it is hidden."""

    def __init__(self, text, numbers, method):
        head, _, flags = text.partition('|')
        self.name = head[:head.index('(')]
        # (``unlisted``: torch has hidden overloads here that the table does not know; it
        # stands for them, binding nothing)
        self.hidden = flags in ('deprecated', 'hidden', 'unlisted')
        self.unlisted = flags == 'unlisted'
        self.noargs = flags == 'noargs'
        inner = head[head.index('(') + 1:-1]
        self.params = []
        kwonly = False
        defaults = []
        for part in _split(inner):
            if part == '*':
                kwonly = True
                continue
            p = Param(part, kwonly, numbers)
            p.default_text = part.partition('=')[2].strip()
            defaults.append(p.default_text)
            self.params.append(p)
        self.npos = sum(1 for p in self.params if not p.kwonly)
        self.min_args = sum(1 for p in self.params if not p.has_default)
        self.max_args = len(self.params)
        self.by_name = {p.name: p for p in self.params}
        # ``view(2, 3)``, ``permute(1, 0)``: a lone list parameter also takes its elements
        # as separate positional arguments
        first = self.params[0] if self.params else None
        self.varargs = first is not None and first.is_list and first.display == \
            'tuple of ints' and self.npos == 1

    def shown(self):
        """The overload as torch's listing prints it."""
        parts = []
        star = False
        for p in self.params:
            if p.kwonly and not star:
                parts.append('*')
                star = True
            parts.append(p.shown())
        return '(' + ', '.join(parts) + ')'

    def bind(self, args, kwargs, raise_):
        """True if the call fits; with ``raise_``, torch's TypeError where it does not."""
        if self.unlisted:
            return False
        if self.noargs:
            if args or kwargs:
                if raise_:
                    if kwargs:
                        raise TypeError(f"TensorBase.{self.name}() takes no keyword arguments")
                    raise TypeError(f"TensorBase.{self.name}() takes no arguments "
                                    f"({len(args)} given)")
                return False
            return True
        nargs = len(args)
        if self.varargs and nargs >= 1 and _is_int(args[0]):
            args = (tuple(args),)
            nargs = 1
        if nargs > self.npos:
            if raise_:
                # (torch counts required keyword-only parameters in: "takes from 3 to 2")
                if self.min_args != self.npos:
                    raise TypeError(f"{self.name}() takes from {self.min_args} to "
                                    f"{self.npos} positional arguments but {nargs} were given")
                raise TypeError(f"{self.name}() takes {self.npos} positional argument"
                                f"{'' if self.npos == 1 else 's'} but {nargs} "
                                f"{'was' if nargs == 1 else 'were'} given")
            return False
        used = 0
        for i, p in enumerate(self.params):
            if i < nargs:
                x = args[i]
                where = f" (position {i + 1})"
            elif kwargs and p.name in kwargs:
                x = kwargs[p.name]
                used += 1
                where = ''
            elif kwargs and p.name in _NUMPY_NAMES and _numpy_name(p.name, kwargs):
                x = kwargs[_numpy_name(p.name, kwargs)]
                used += 1
                where = ''
            else:
                if p.has_default:
                    continue
                if raise_:
                    # (torch stops at the first one missing and names every required
                    # parameter from there on, given or not)
                    names = [q.name for q in self.params[i:] if not q.has_default]
                    listed = ', '.join(f'"{n}"' for n in names)
                    # (torch's words: "1 required positional arguments", "2 ... argument")
                    raise TypeError(f"{self.name}() missing {len(names)} required positional "
                                    f"argument{'s' if len(names) == 1 else ''}: {listed}")
                return False
            ok, pos = p.accepts(x)
            if not ok and type(x) is not _Any:  # (a stand-in fits anywhere: ``_inner_call``)
                if pos is not None and p.display == 'tuple of Tensors':
                    # (torch's parser stops at once on a tensor list holding something else)
                    raise TypeError(f"expected Tensor as element {pos} in argument {i}, but "
                                    f"got {type(x[pos]).__name__}")
                if pos and p.display == 'tuple of ints':
                    raise_ = True  # (torch's parser stops at once on a list of ints gone bad)
                if not raise_:
                    return False
                raise param_error(self.name, p, x, pos, i, not where)
        if kwargs and used != len(kwargs):
            if raise_:
                names = [p.name for p in self.params]
                for k in kwargs:  # (by torch's own names only: not NumPy's)
                    at = names.index(k) if k in self.by_name else None
                    if at is None:
                        raise TypeError(f"{self.name}() got an unexpected keyword argument "
                                        f"'{k}'")
                    if at < nargs:  # (given by position too)
                        raise TypeError(f"{self.name}() got multiple values for argument "
                                        f"'{k}'")
            return False
        return True


def check_argument(op, text, x, index):
    """Raises torch's parser's TypeError where ``x`` does not fit the parameter declared as
    ``text`` (``'double p'``), the ``index``-th of ``op``: for the Python functions of torch
    that hand one argument on to a parsed op (``cdist``'s ``p``)."""
    p = _PARAMS.get(text)
    if p is None:
        p = _PARAMS[text] = Param(text, False, False)
    ok, pos = p.accepts(x)
    if not ok:
        raise param_error(op, p, x, pos, index) from None


_PARAMS = {}  # a parameter's declaration -> its Param (check_argument's, parsed once)


def param_error(op, p, x, pos, index, keyword=False):
    """torch's parser's TypeError for value ``x`` of parameter ``p`` of ``op``: ``pos`` the
    bad element of a list (or None), ``index`` the parameter's position, ``keyword``
    whether the argument was given by name."""
    where = '' if keyword else f' (position {index + 1})'
    if pos == 0 and p.display == 'tuple of ints' and not keyword:
        # (the parser judges a list of ints by its first element)
        return TypeError(f"{op}(): argument '{p.name}'{where} must be {p.display}, but found "
                         f"element of type {_type_name(x[0])} at pos 0")
    if pos == 0 and keyword and p.display == 'tuple of ints':
        return TypeError(f"{op}(): argument '{p.name}' must be {p.display}, not "
                         f"{type(x).__name__}")
    if pos and p.display == 'tuple of ints':
        return TypeError(f"{op}(): argument '{p.name}' failed to unpack the object at pos "
                         f"{pos + 1} with error \"type must be {p.display},but got "
                         f"{_type_name(x[pos])}\"")
    if pos is not None and p.display == 'tuple of Tensors':
        return TypeError(f"expected Tensor as element {pos} in argument {index}, but got "
                         f"{_type_name(x[pos])}")
    return TypeError(f"{op}(): argument '{p.name}'{where} must be {p.display}, not "
                     f"{_type_name(x)}")


class _IntList:
    """A tuple-of-ints parameter named ``name``, as ``param_error`` reads one."""
    display = 'tuple of ints'

    def __init__(self, name):
        self.name = name


def int_lists(op, first, *, sized=False, **lists):
    """For ops torch writes in Python over a C op that takes tuples of ints (``unfold``
    calls ``im2col``): torch's TypeError of that op's parser for the first list in
    ``lists`` (name -> sequence, in the C op's order from position ``first``) that holds
    something other than an int; with ``sized`` (the C op's lists have a size: ``int[2]``)
    one int passes and any other single value is refused too."""
    for i, (name, x) in enumerate(lists.items()):
        ok, pos = _is_int_list(x, sized)
        if not ok and (pos is not None or sized or isinstance(x, (int, float, str, type(None)))):
            raise param_error(op, _IntList(name), x, pos, first + i - 1)


def _split(inner):
    """The parameters of a signature's text (commas inside quotes or brackets kept)."""
    parts, depth, quote, cur = [], 0, False, ''
    for ch in inner:
        if ch == '"':
            quote = not quote
        elif not quote and ch in '[(<{':
            depth += 1
        elif not quote and ch in '])>}':
            depth -= 1
        if ch == ',' and depth == 0 and not quote:
            parts.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _type_name(x):
    """How torch names an argument's type in its messages: its class (``list``,
    ``float``), torch's classes with their module (``torch.dtype``)."""
    from .._tensor import Tensor
    if isinstance(x, Tensor):
        return 'Tensor'
    if type(x) is _Any:
        return x.shown
    if type(x).__module__.startswith('ember.') and type(x).__name__ in _TORCH_CLASSES:
        return 'torch.' + type(x).__name__  # (torch.dtype, torch.device, torch.Size ...)
    if type(x).__module__ == 'numpy':
        return 'numpy.' + type(x).__name__  # (as Python's own repr of the type names it)
    return type(x).__name__


_TORCH_CLASSES = ('dtype', 'device', 'Size', 'Generator', 'layout', 'memory_format')


def _kwargs_order(kwargs):
    from ._cpp_print import kwargs_order
    return kwargs_order(list(kwargs))


def _got(args, kwargs):
    """The "got (...)" part of torch's message: the arguments' types."""
    # (torch lists the keywords in the order of its C++ map of them: see ``kwargs_order``)
    kwargs = kwargs or {}
    parts = [_type_name(a) for a in args] + [
        f'{k}={_type_name(kwargs[k])}' for k in _kwargs_order(kwargs)]
    # (torch leaves a trailing ", " after keywords given without positional arguments)
    return '(' + ', '.join(parts) + (', )' if kwargs and not args else ')')


# -- the three entry points -----------------------------------------------------------------
def fast_types(public_name, default):
    """The plain types the op's fast path may pass on unchecked: those of ``default`` that
    some parameter of some overload takes (``default`` itself for an op without a known
    signature)."""
    key = key_of(public_name)
    got = _FAST.get(key)
    if got is None:
        sigs = signatures(key)
        inner = _inner_sigs(key) if sigs is None else None
        if sigs is None and inner is None:
            got = default
        elif sigs is None:
            # (a function torch writes in Python that hands its parameters to one C op:
            # the types that op takes, and None, which the function may replace; the rest
            # -- a float for unique's ``sorted`` -- take the checked path, ``inner_after``)
            taken = {type(None)}
            for s in inner:
                for p in s.params:
                    taken.update(p.plain)
            got = frozenset(t for t in default if t in taken)
        else:
            taken = set()
            for s in sigs[1]:
                for p in s.params:
                    if not p.kwonly:  # (the fast path has no keywords: ``out=None``'s None
                        taken.update(p.plain)  # is no positional argument's type)
                    if s.varargs:
                        taken.add(int)
            got = frozenset(t for t in default if t in taken)
        _FAST[key] = got
    return got


def check(public_name, args, kwargs):
    """Binds a call (``args`` include ``self`` for a Tensor method) to one of the op's
    overloads and returns it, or raises torch's TypeError for it. Ops without a known
    signature pass (None)."""
    key = key_of(public_name)
    sigs = signatures(key)
    if sigs is None:
        return
    cname, overloads = sigs
    if key.startswith('Tensor.'):
        args = args[1:]
    for s in overloads:
        if s.bind(args, kwargs, False):
            return s
    _no_overload(cname, overloads, args, kwargs)


def _no_overload(cname, overloads, args, kwargs):
    """torch's TypeError for a call that binds to none of ``overloads``: the one plausible
    overload's complaint, or the listing of them all."""
    visible = [s for s in overloads if not s.hidden]
    n = len(args) + len(kwargs or ())
    plausible = [s for s in visible if s.min_args <= n <= s.max_args or s.noargs and n == 0]
    if len(overloads) == 1 or len(plausible) == 1:
        (plausible or overloads)[0].bind(args, kwargs, True)
    got = _got(args, kwargs)
    if len(visible) == 1:
        shown = visible[0].shown()
        if kwargs:
            # (torch matches each keyword against the last len(kwargs) entries of the
            # listing's text split at ", ", naming an entry by its last word: a parameter
            # with a default is named by the default, and "*" is an entry)
            names = [part.rsplit(' ', 1)[-1] for part in shown[1:-1].split(', ')]
            window = names[max(len(names) - len(kwargs), 0):]
            unmatched = [k for k in _kwargs_order(kwargs) if k not in window]
            if unmatched:
                raise TypeError(f"{cname}() received an invalid combination of arguments - "
                                f"got unrecognized keyword arguments: {', '.join(unmatched)}")
        raise TypeError(f"{cname}() received an invalid combination of arguments - got {got}, "
                        f"but expected {shown}")
    listing = '\n'.join(' * ' + s.shown() for s in visible)
    raise TypeError(f"{cname}() received an invalid combination of arguments - got {got}, "
                    f"but expected one of:\n{listing}\n")


_BODIES = {}  # an op's body -> _Body, or None where it has no Python signature


# What the argument layer reads of an op body's signature, once per body: its positional
# parameters, whether it takes ``*args``, whether it has an ``out`` parameter
_Body = collections.namedtuple('_Body', 'positional varargs takes_out')


def _body_params(impl):
    got = _BODIES.get(impl, False)
    if got is False:
        try:
            params = list(inspect.signature(impl).parameters.values())
        except (TypeError, ValueError):
            params = None
        got = None
        if params is not None:
            got = _Body([p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                         p.POSITIONAL_OR_KEYWORD)],
                        any(p.kind is p.VAR_POSITIONAL for p in params),
                        any(p.name == 'out' for p in params))
        _BODIES[impl] = got
    return got


def call_with_out(public_name, impl, bound, args, kwargs):
    """Runs a call given ``out=`` (a tensor) to an overload of torch's that takes one
    (``bound``): a body without an ``out`` parameter computes the result, written into
    ``out`` here as every ``out=`` is (``_write_out``: resized, refused where the result
    needs autograd)."""
    from .._tensor import Tensor
    out = kwargs['out']
    if bound is None or 'out' not in bound.by_name or \
            out is not None and not isinstance(out, Tensor):
        return impl(*args, **kwargs)
    factory = 'layout' in bound.by_name
    if bound.name in _OUT_INPUT_DTYPE and out is not None:
        _out_input_dtype(bound.name, args, kwargs, out)
    if bound.name in _OUT_FIRST_RULES:
        out_dtype_first(bound.name, args, out, kwargs)
    exact = out is not None and bound.name in _OUT_EXACT
    if out is not None and bound.name in _OUT_DTYPE_FIRST and kwargs.get('dtype') is None:
        # (``sum(x, out=int_t)`` sums in int; a mean only in a float or complex dtype, its
        # float result cast -- refused -- into an integer out)
        exact = False
        if bound.name != 'mean' or out.dtype.is_floating_point or out.dtype.is_complex:
            kwargs = dict(kwargs, dtype=out.dtype)
        if bound.name == 'nansum':
            _nansum_out(impl, args, kwargs, out)
    if not factory and not exact and _takes_out(impl):
        return impl(*args, **kwargs)
    kwargs = {k: v for k, v in kwargs.items() if k != 'out'}
    if out is None:
        return impl(*args, **kwargs)
    if factory:  # (``zeros(2, out=t)``: the result is of out's dtype, which dtype= must be)
        dtype = kwargs.get('dtype')
        if dtype is not None and dtype is not out.dtype:
            raise RuntimeError(f"dtype {dtype.kernel_name} does not match dtype of out "
                               f"parameter ({out.dtype.kernel_name})")
        kwargs['dtype'] = out.dtype
    from .pointwise import _write_out
    if bound.name in _CAT_OUT:
        try:
            r = impl(*args, **kwargs)
        except RuntimeError as e:
            if str(e).startswith(_CAT_SHAPE_WORDS):  # (torch's cast check comes first)
                _cat_cast(args, out)
            raise
        _cat_cast(args, out)
    elif exact and bound.name in _OUT_EXACT_FIRST:
        try:
            r = impl(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - re-raised
            stands = _OUT_EXACT_FIRST[bound.name]
            if not (isinstance(e, TypeError) or str(e).startswith(stands) or
                    stands == () and not isinstance(e, NotImplementedError)):
                _exact_out_first(bound.name, args, kwargs, out)
            raise
    else:
        r = impl(*args, **kwargs)
    if exact:
        _exact_out(bound.name, r, out, args, kwargs)
    if bound.name in _RANGES and out._data.size == r._data.size:
        r = r.reshape(out.shape)  # (torch's ranges resize out only to another element count)
    return _write_out(out, r)


# Ops whose out= tensor must have the input's dtype, checked before anything but autograd's
# refusal of out= (the dims, the sizes, the kernel's dtype support): op -> torch's message
# given (input's dtype, out's dtype). From the fuzzer's out= calls against torch 2.13.
_OUT_INPUT_DTYPE = {
    'logcumsumexp': lambda i, o: f"expected scalar_type {i.kernel_name} but found "
                                 f"{o.kernel_name}",
    'vdot': lambda i, o: f"result dtype {o.kernel_name} does not match input dtype "
                         f"{i.kernel_name}",
    'histc': lambda i, o: f"torch.histogram: input tensor and hist tensor should have the "
                          f"same dtype, but got input {i.cpp_name} and hist {o.cpp_name}",
    'narrow_copy': lambda i, o: "Expected self.dtype() == output.dtype() to be true, but got "
                                "false.  (Could this error message be improved?  If so, please "
                                "report an enhancement request to PyTorch.)",
    **dict.fromkeys(('amax', 'amin'), lambda i, o: (
        f"Expected the dtype for input and out to match, but got {i.kernel_name} for input's "
        f"dtype and {o.kernel_name} for out's dtype."))}


def _out_input_dtype(name, args, kwargs, out):
    """torch's refusal of an ``out=`` tensor of another dtype than the input's, for the ops
    of ``_OUT_INPUT_DTYPE`` (O(1)); histc has no autograd refusal to come first."""
    from .._tensor import Tensor
    x = args[0] if args else kwargs.get('input', kwargs.get('self'))
    if not isinstance(x, Tensor) or x.dtype is out.dtype:
        return
    if name != 'histc' and _grad_enabled() and any(isinstance(a, Tensor) and a._requires_grad
                               for a in (*args, *kwargs.values())):
        return  # (autograd's refusal of out= comes first)
    raise RuntimeError(_OUT_INPUT_DTYPE[name](x.dtype, out.dtype))


def _nansum_out(impl, args, kwargs, out):
    """torch's nansum given ``out=`` (and no ``dtype``) runs its kernel in out's dtype, which
    refuses a floating input unless out is floating too (``dtype=`` casts the input first,
    so answers); after the dim and autograd checks, and only for a non-empty input."""
    from .._tensor import Tensor
    x = args[0] if args else kwargs.get('input')
    if isinstance(x, Tensor) and x.dtype.is_floating_point and \
            not out.dtype.is_floating_point:
        impl(*args, **{k: v for k, v in kwargs.items() if k != 'out'})
        if x._data.size:
            raise NotImplementedError(f'"nansum_cpu" not implemented for '
                                      f"'{out.dtype.kernel_name}'")


_RANGES = frozenset(('arange', 'range', 'linspace', 'logspace'))
# torch.cat and the ops made of it: out's dtype is checked (TypeError) after the dim and
# the zero-dim checks, before the sizes
_CAT_OUT = frozenset(('cat', 'concat', 'concatenate', 'stack', 'hstack', 'vstack', 'dstack',
                      'column_stack', 'row_stack'))
_CAT_SHAPE_WORDS = ('Sizes of tensors must match', 'Tensors must have same number of dim')


def _cat_cast(args, out):
    """torch.cat's TypeError for an ``out=`` tensor its inputs' common dtype cannot be cast
    into (``cat([float], out=bool)``)."""
    from .._tensor import Tensor
    from .. import _dtype
    seq = args[0] if args and type(args[0]) in (list, tuple) else ()
    tensors = [t for t in seq if isinstance(t, Tensor)]
    from ..autograd.grad_mode import STATE
    if STATE.enabled and any(t.requires_grad for t in tensors):
        return  # (torch's refusal of autograd with out= comes first)
    if tensors and not _dtype.can_cast(_dtype.promote_all(tensors), out.dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{out.dtype.kernel_name}") from None


def _exact_out(name, r, out, args=(), kwargs=None):
    """torch's refusal of an ``out=`` tensor of another dtype than the result's, for the
    ops whose kernels take only their own dtype (the rest cast the result into out)."""
    rule = _OUT_EXACT.get(name)
    if rule is None or r.dtype is out.dtype or r.requires_grad:
        return  # (a result needing autograd: _write_out's refusal comes first, as torch's)
    if callable(rule):  # (an op's own words: None where it casts after all)
        text = rule(r.dtype, out.dtype, args, kwargs or {})
        if text is not None:
            raise RuntimeError(text)
        return
    if rule == 'same':
        raise RuntimeError(f"{name}(): self and result must have the same scalar type")
    raise out_dtype_error(r.dtype, out.dtype)


# Ops of ``_OUT_EXACT`` whose result has the input's dtype (``dtype=``'s where given), and
# whose out tensor's dtype torch checks before the kernel's dtype support, the indices, the
# factorization (from the fuzzer's out= calls against torch 2.13)
# (op -> the beginnings of the messages of the errors torch raises before; () for an op
# whose only later error is the kernel's dtype refusal)
_DIM_RANGE = ('Dimension out of range',)
_OUT_EXACT_FIRST = {
    'index_copy': _DIM_RANGE, 'index_add': _DIM_RANGE + ('source tensor shape must match',
                                                        'index_add_(): Index is supposed'),
    'cumsum': _DIM_RANGE, 'cumprod': _DIM_RANGE,
    'linalg_eigvalsh': ('linalg.eigh: A must be batches', 'linalg.eigh: The input tensor A'),
    'linear': ('mat1 and mat2 shapes cannot be multiplied',),
    'softmax': _DIM_RANGE, 'log_softmax': _DIM_RANGE, '_softmax': _DIM_RANGE,
    '_log_softmax': _DIM_RANGE, 'mv': (),
    'linalg_cholesky': ('linalg.cholesky: A must be batches', 'linalg.cholesky: Expected a',
                        'linalg.cholesky: The input tensor A must have')}


def _exact_out_first(name, args, kwargs, out):
    """The body of an ``_OUT_EXACT_FIRST`` op raised: torch had refused an out tensor of
    another dtype than the input's first."""
    from .._tensor import Tensor
    from .._dtype import dtype as dtype_type
    want = kwargs.get('dtype')
    if not isinstance(want, dtype_type):  # (softmax's dtype, passed on by position)
        want = next((a for a in args[1:] if isinstance(a, dtype_type)), None)
    if not isinstance(want, dtype_type):
        first = args[0] if args else kwargs.get('input', kwargs.get('self'))
        if not isinstance(first, Tensor):
            return
        want = first.dtype
    if want is not out.dtype and not (_grad_enabled() and any(
            isinstance(a, Tensor) and a.requires_grad for a in args)):
        if name == 'linalg_eigvalsh' and args and isinstance(args[0], Tensor):
            # (its body refuses the dtype before the shape; torch's out= form checks the
            # shape, then out, then the dtype)
            from .factorizations import _matrices
            _matrices(args[0].float(), 'linalg.eigh')
        raise out_dtype_error(want, out.dtype) from None


def _grad_enabled():
    from ..autograd.grad_mode import STATE
    return STATE.enabled


def out_dtype_error(expected, got):
    """torch's RuntimeError for an ``out=`` tensor of dtype ``got`` where its kernel writes
    only ``expected`` (both ember dtypes), in its C++ type names."""
    return RuntimeError(f"Expected out tensor to have dtype {expected.cpp_name}, but got "
                        f"{got.cpp_name} instead")


# The ops whose out= tensor must have the result's dtype exactly (torch's C names; from the
# fuzzer's out= calls against torch 2.13): 'exact' says "Expected out tensor to have dtype",
# 'same' "self and result must have the same scalar type". (Not matrix_power: only its
# matmul path, n >= 2, refuses; its copies of the input or identity cast.)
_OUT_EXACT = dict.fromkeys((
    '_log_softmax', '_softmax', 'addmm', 'alias_copy', 'argmax', 'argmin', 'argsort',
    'as_strided_copy', 'avg_pool2d', 'baddbmm', 'bmm', 'cross', 'cumprod', 'cumsum',
    'detach_copy', 'diag', 'diagonal_copy', 'expand_copy', 'frobenius_norm', 'gather',
    'index_add', 'index_copy', 'inverse', 'isin', 'linalg_cholesky', 'linalg_cross',
    'linalg_det', 'linalg_eigvalsh', 'linalg_inv', 'linalg_matmul',
    'linalg_solve', 'linalg_svdvals', 'linalg_vector_norm', 'linear', 'log_softmax', 'matmul',
    'mean', 'mm', 'msort', 'mv', 'nansum', 'permute_copy', 'prod', 'renorm',
    'scatter', 'scatter_add', 'select_copy', 'slice_copy', 'slice_scatter', 'softmax',
    'squeeze_copy', 'sum', 't_copy', 'take_along_dim', 'transpose_copy', 'tril', 'triu',
    'unfold_copy', 'unsqueeze_copy', 'view_as_real_copy', 'view_copy'), 'exact')
_OUT_EXACT.update(index_select='same', masked_select='same')


# (op -> its message for an out of another dtype than the result's; from the fuzzer's out=
# calls against torch 2.13: these refuse where ember cast)
_OUT_EXACT.update({
    'searchsorted': lambda r, o, a, k: (
        "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
        "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
        f"dtype {o.kernel_name} and out_int32 flag is {r.kernel_name == 'Int'}"),
    'float_power': lambda r, o, a, k: (
        f"the output given to float_power has dtype {o.kernel_name} but the operation's "
        f"result requires dtype {r.kernel_name}"),
    'heaviside': lambda r, o, a, k: (
        "heaviside is not yet implemented for complex tensors." if o.is_complex else
        "heaviside is not yet implemented for tensors with different dtypes."),
    'linalg_norm': lambda r, o, a, k: (
        f"linalg.norm expected out tensor dtype {r.kernel_name} but got: {o.kernel_name}"),
    'linalg_vecdot': lambda r, o, a, k: (
        f"linalg.vecdot: Expected out of dtype{r.kernel_name} but found {o.kernel_name}"),
    'inner': lambda r, o, a, k: None if any(  # (a 0-d operand: torch's mul, which casts)
        getattr(t, 'ndim', 1) == 0 for t in (*a[:2], k.get('input'), k.get('other'))) else (
        f"tensordot: Expected the output tensor to have dtype {r.kernel_name}, but got an "
        f"output tensor with dtype {o.kernel_name}"),
    'nan_to_num': lambda r, o, a, k: (
        f"nan_to_num: dtype of out: {o.kernel_name} should be same as input: "
        f"{r.kernel_name}"),
    'softshrink': lambda r, o, a, k: f"Found dtype {o.kernel_name} but expected {r.kernel_name}",
    'special_round': lambda r, o, a, k: (
        f"Found dtype {o.kernel_name} but expected {r.kernel_name}"),
    'linalg_matrix_norm': lambda r, o, a, k: (
        f"linalg.matrix_norm expected out tensor dtype {r.kernel_name} but got: "
        f"{o.kernel_name}"),
    'linalg_multi_dot': lambda r, o, a, k: (
        f"multi_dot(): expected out tensor to have dtype {r.cpp_name} but got {o.cpp_name}"),
    'multinomial': lambda r, o, a, k: f"multinomial expects Long tensor out, got: {o.kernel_name}",
    'linalg_solve_triangular': lambda r, o, a, k: (
        f"expected scalar type {r.kernel_name} but found {o.kernel_name}")})
_OUT_EXACT['nuclear_norm'] = _OUT_EXACT['linalg_matrix_norm']
_OUT_EXACT['bucketize'] = _OUT_EXACT['searchsorted']


# Reductions and scans whose ``out=`` tensor gives the dtype they compute in when ``dtype``
# is not given (torch's: the result dtype is out's)
_OUT_DTYPE_FIRST = frozenset(('sum', 'nansum', 'prod', 'cumsum', 'cumprod', 'mean'))


_TORCH_TAKES_OUT = {}  # an op's name -> whether some overload of torch's takes ``out=``


def torch_takes_out(name):
    """Whether torch's op ``name`` takes ``out=`` (``relu``, ``isinf`` do not: torch's
    TypeError "relu() got an unexpected keyword argument 'out'"); True if unknown."""
    got = _TORCH_TAKES_OUT.get(name)
    if got is None:
        sigs = signatures(name)
        got = _TORCH_TAKES_OUT[name] = sigs is None or any(
            'out' in s.by_name for s in sigs[1])
    return got


def _takes_out(impl):
    """Whether an op's body has an ``out`` parameter (assumed where it has no signature)."""
    body = _body_params(impl)
    return body is None or body.takes_out


def body_args(public_name, impl, bound, args, kwargs):
    """The call ``check`` bound to torch's overload ``bound``, as the op's body takes it:
    arguments torch takes by position are passed by position even when given by name, in
    torch's order (the body's), a parameter left out before one of them taking the body's
    default. So a keyword call runs exactly as the positional one -- also where the body
    names a parameter otherwise or takes it as ``*args`` (``torch.zeros(size=...)`` for
    ``zeros(*size)``, ``torch.sin_(input=t)`` for ``sin_(self)``, ``t.view(dtype=...)``).
    An op torch writes in Python (``bound`` None: no parser signature) names its parameters
    as its body does: keywords naming the body's positional parameters are passed by
    position the same way, so what runs after the body (``refuse_dtypes``, ``refuse``),
    which reads the tensors given by position, sees ``F.relu6(input=t)`` as ``F.relu6(t)``.
    Returns (args, kwargs), unchanged where the body cannot take them so."""
    body = _body_params(impl)
    if body is None or bound is not None and bound.hidden:  # (a deprecated order is not
        return args, kwargs                                 # the body's)
    if bound is None:  # (the body's own names and order)
        positional = body.positional
        order = [p.name for p in positional]
        last = max((order.index(k) for k in kwargs if k in order and
                    positional[order.index(k)].kind is not positional[0].POSITIONAL_ONLY),
                   default=-1)
        return _fill_positions(order, 0, body, args, kwargs, last)
    for name in _NUMPY_NAMES:
        alias = name in bound.by_name and name not in kwargs and _numpy_name(name, kwargs)
        if alias:  # (torch's own name from here on)
            kwargs = {name if k == alias else k: v for k, v in kwargs.items()}
    order = [p.name for p in bound.params if not p.kwonly]
    shift = 1 if key_of(public_name).startswith('Tensor.') else 0  # (self)
    last = max((order.index(k) + shift for k in kwargs if k in order), default=-1)
    return _fill_positions(order, shift, body, args, kwargs, last)


def _fill_positions(order, shift, body, args, kwargs, last):
    """``args`` extended up to position ``last`` with the keywords named there by ``order``
    (the names of the positions from ``shift`` on), a position left out taking the body's
    default; (args, kwargs) unchanged where the body cannot take them so."""
    positional, varargs = body.positional, body.varargs
    if last < len(args):
        return args, kwargs
    new, rest = list(args), dict(kwargs)
    for i in range(len(args), last + 1):
        name = order[i - shift]
        if name in rest:
            if i >= len(positional) and not varargs:
                return args, kwargs
            new.append(rest.pop(name))
        elif i < len(positional) and positional[i].default is not positional[i].empty:
            new.append(positional[i].default)
        else:
            return args, kwargs
    return tuple(new), rest


_NUMPY_DIR = os.path.dirname(np.__file__)


def refuse(public_name, args, kwargs, error, impl=None, bound=False):
    """The op's body raised ``error``: raises what torch raises for that call instead, when
    that differs (see the module's docstring); returns None if ``error`` stands, or
    ``(result,)`` where torch computes the call on complex32 (``_through_complex64``). ``bound``: the
    overload ``check`` bound the call to before the body ran, which then took it as
    ``body_args`` made it (``args``, ``kwargs`` here: the body's defaults are no values
    torch's parser need take)."""
    if bound is False:
        bound = check(public_name, args, kwargs)  # (torch parses the arguments first)
    if type(error) is TypeError and kwargs and impl is not None:
        _boolean_dispatch_name(public_name, impl, args, kwargs, error)
    if bound is not None and isinstance(error, TypeError) and 'out_dtype' in bound.by_name:
        _no_out_dtype_kernel(public_name, bound, args, kwargs)
    if getattr(error, '_stands', False):
        return  # (torch raises it before anything else it checks: see ``stands``)
    backend = getattr(error, 'sparse_backend', None)
    if backend is not None:
        # (a dense-only op reached a sparse tensor's storage: torch has no kernel for it)
        from .._sparse import op_refusal
        raise op_refusal(key_of(public_name).rsplit('.', 1)[-1], backend) from None
    if impl is not None:
        _reads_first(public_name, impl, args, kwargs)
        _inner_call(public_name, impl, args, kwargs, error)
    if impl is None or not getattr(impl, '_dtype_first', False):  # (theirs: their order)
        _shapes_first(public_name, args, kwargs, error)
    if type(error) is RuntimeError and str(error).startswith(_OVERLAP_WORDS):
        _checked_dtype_first(public_name, args, kwargs)
    if 'more than one element of the written-to tensor' in str(error):
        # (an in-place op's own refusal of a dtype -- abs_ of complex -- precedes the check)
        refused = refusals(public_name)
        early = refused and {d: r for d, r in refused.items()
                             if any(w in r[1] for w in _BEFORE_SHAPES_WORDS)}
        if early:
            refuse_dtypes(public_name, early, args, kwargs)
    if type(error) is NotImplementedError and str(error).endswith("for 'ComplexHalf'"):
        # (an op the body calls refused complex32: the op's own refusal comes first)
        _refuse_chalf(public_name, args, kwargs, impl, rows_only=True)
    elif _CHALF_WORDS.search(str(error)) or _from_numpy(error):
        done = _refuse_chalf(public_name, args, kwargs, impl)
        if done is not None:
            return done
    if isinstance(error, NotImplementedError) and impl is not None:
        _inplace_overlap_first(public_name, impl, args, kwargs, error)
        _kernel_dtype_last(public_name, impl, args, kwargs, error)
    if isinstance(error, np.exceptions.AxisError if hasattr(np, 'exceptions')
                  else np.AxisError):
        ndim = getattr(error, 'ndim', None)
        axis = getattr(error, 'axis', None)
        if ndim is not None and axis is not None:
            n = max(ndim, 1)
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, "
                             f"{n - 1}], but got {axis})") from None
        raise IndexError(f"Dimension out of range ({error})") from None
    if isinstance(error, np.linalg.LinAlgError):
        from .factorizations import LinAlgError
        name = signatures(key_of(public_name))
        op = name[0] if name else key_of(public_name).rsplit('.', 1)[-1]
        raise LinAlgError(f"{op}: {error}") from None
    if isinstance(error, AttributeError) and impl is not None:
        if "'_data'" in str(error):
            _refuse_non_tensor(public_name, impl, args)
        _refuse_plain_value(public_name, impl, args, error, kwargs)
    if type(error) is AttributeError and "'_data'" not in str(error) and \
            signatures(key_of(public_name)) is not None:
        # (an argument of a type the body did not expect: torch says TypeError)
        op = key_of(public_name).rsplit('.', 1)[-1]
        raise TypeError(f"{op}(): {error}") from None
    if isinstance(error, (ZeroDivisionError, StopIteration)) and \
            signatures(key_of(public_name)) is not None:
        # (a check the body lacks, tripped over inside it: torch's C++ ops -- those with a
        # parsed signature -- raise RuntimeError; its Python functions let such errors out)
        op = key_of(public_name).rsplit('.', 1)[-1]
        raise RuntimeError(f"{op}(): invalid arguments ({type(error).__name__}"
                           f"{': ' + str(error) if str(error) else ''})") from None
    if type(error) is TypeError and _OPERATOR_WORDS.search(str(error)):
        refused = refusals(public_name)
        if refused:  # (Python's operators tripped over complex numbers ...: as below)
            refuse_dtypes(public_name, refused, args, kwargs)
    if type(error) in (ValueError, TypeError) and _from_numpy(error):
        refused = refusals(public_name)
        if refused:  # (NumPy tripped over a dtype torch's kernel refuses: that refusal)
            refuse_dtypes(public_name, refused, args, kwargs)
        op = key_of(public_name).rsplit('.', 1)[-1]
        text = str(error)
        if 'read-only' in text:
            raise RuntimeError(f"{op}(): the tensor written to is read-only (it shares "
                               "memory that cannot be written)") from None
        if isinstance(error, TypeError) and ('ufunc' in text or 'loop' in text):
            dt = _first_dtype(args, kwargs)
            raise NotImplementedError(f'"{op}" not implemented for \'{dt}\'') from None
        if 'could not be broadcast' in text:
            _tensors_broadcast(args, kwargs)  # (torch's message, when the operands clash)
        _numpy_shapes(text)
        raise RuntimeError(f"{op}(): {text}") from None


_OVERLAP_WORDS = 'unsupported operation: more than one element of the written-to'


def _own_dtype_refusal(public_name, error):
    """Whether ``error`` is a dtype refusal the op checks itself, before its iterator's
    overlap check (see ``_checked_dtype_first``)."""
    text = str(error)
    return _own_check(text) and any(
        e[1] == text for e in (refusals(public_name) or {}).values())


def _own_check(text):
    # (not a kernel's dispatch refusal, nor the iterator's cast check: both come after)
    return 'not implemented for' not in text and not text.startswith('result type')


def _checked_dtype_first(public_name, args, kwargs):
    """An in-place op refused to write through an expanded tensor: a dtype refusal that
    torch's op checks itself (relu_ of complex: "clamp is not supported for complex types")
    comes before its iterator's overlap check; a kernel's dispatch refusal ("... not
    implemented for") comes after."""
    refused = refusals(public_name)
    if refused:
        own = {d: e for d, e in refused.items() if _own_check(e[1])}
        if own:
            refuse_dtypes(public_name, own, args, kwargs)


_NUMPY_SHAPE = re.compile(r'\(([\d, ]*)\)')


def _numpy_shapes(text):
    """torch's RuntimeError for NumPy's shape errors, from the shapes NumPy names: arrays
    that do not broadcast ("operands could not be broadcast together with shapes (2,1,3,1)
    (2,1)", "shape mismatch: ... arg 0 with shape (1, 3) and arg 1 with shape (2, 4)") and
    a reshape to a shape of another size ("cannot reshape array of size 6 into shape
    (2,0)")."""
    shapes = [tuple(int(d) for d in m.split(',') if d.strip())
              for m in _NUMPY_SHAPE.findall(text)]
    if ('could not be broadcast' in text or 'cannot be broadcast' in text) and \
            len(shapes) >= 2:
        from ._core import check_broadcast
        check_broadcast(*shapes)
    size = re.search(r'cannot reshape array of size (\d+) into shape', text)
    if size and len(shapes) == 1:
        raise RuntimeError(f"shape '{list(shapes[0])}' is invalid for input of size "
                           f"{size.group(1)}") from None


def _tensors_broadcast(args, kwargs):
    """Raises torch's "The size of tensor a ..." RuntimeError if the call's tensor
    arguments do not broadcast together."""
    from .._tensor import Tensor
    from ._core import check_broadcast
    check_broadcast(*[a._data.shape for a in list(args) + list((kwargs or {}).values())
                      if isinstance(a, Tensor)])


def stands(error):
    """Marks ``error`` as one torch raises before anything else ``refuse`` would put first
    (a shape error, the parser of an inner op's): heaviside's refusal of complex tensors,
    the error of ``input.pow(p)`` that torch's ``lp_pool1d`` computes as an argument of its
    ``avg_pool1d``. Returns it, for ``raise stands(RuntimeError(...))``."""
    error._stands = True
    return error


_INNER = {}  # key -> (torch's C name, its [Signature], the rest of its INNER entry) or None


def inner_check(public_name, impl, args, kwargs=None):
    """Raises the TypeError of the C op torch's Python function ``public_name`` hands its
    parameters to (see ``_inner_call``), for a body that would take the call (a bool as
    ``lp_pool1d``'s stride); returns if the parser would take it."""
    _inner_call(public_name, impl, args, kwargs, None)


def _inner_sigs(key):
    """The overloads of the C op of ``key``'s INNER entry (each alternative of a '?'
    one), or None where it has none."""
    got = _INNER.get(key, False)
    if got is False:
        entry = getattr(_table(), 'INNER', {}).get(key)
        got = _INNER[key] = None if entry is None else _parsed(entry)
    if got is None:
        return None
    sigs, todo = [], [got]
    while todo:
        e = todo.pop()
        if e[0] == '?':
            todo.extend(e[2:])
        else:
            sigs.extend(e[1])
    return sigs


def inner_after(public_name, impl, args, kwargs):
    """A call of a function torch writes in Python (no parser signature of its own) went
    by the checked path and its body answered: where torch's function hands parameters to
    one C op (``INNER``), that op's parser would have refused a bad type among them (``sorted=
    0.5`` to ``unique``: "_unique2(): argument 'sorted' must be bool, not float"). A dict
    lookup for the other functions; for these, a type test per argument (the types the inner
    op's parameter takes, ``_inner_types``), the full binding only for another type."""
    key = key_of(public_name)
    if _INNER.get(key, False) is None:
        return
    types = _INNER_TYPES.get(key)
    if types is None:
        types = _INNER_TYPES[key] = _inner_types(key)
    body = _body_params(impl)
    if body is None:
        return
    names = body.positional
    for i, a in enumerate(args):
        if i < len(names):
            ok = types.get(names[i].name)
            if ok is not None and type(a) not in ok:
                return _inner_call(public_name, impl, args, kwargs, None)
    for k, a in (kwargs or {}).items():
        ok = types.get(k)
        if ok is not None and type(a) not in ok:
            return _inner_call(public_name, impl, args, kwargs, None)


_INNER_TYPES = {}  # key -> {the function's parameter: the types its inner op's takes}


def _inner_types(key):
    """{parameter of torch's function handed unchanged to its inner op: the plain types
    (and ember's Tensor, None where optional) some overload's parameter there takes}."""
    from .._tensor import Tensor
    _inner_sigs(key)
    todo, out = [_INNER[key]], {}
    while todo:
        e = todo.pop()
        if e[0] == '?':
            todo.extend(e[2:])
            continue
        sigs, maps = e[1], e[2]
        for outer, index, keyword, n in maps:
            if n:
                continue  # (wrapped by ``_pair`` & co: not tested here)
            taken = out.setdefault(outer, set())
            for sig in sigs:
                ps = [p for p in sig.params if p.name == keyword] if keyword is not None \
                    else sig.params[index:index + 1]
                for p in ps:
                    taken.update(p.plain)
                    if p.display == 'Tensor':
                        taken.add(Tensor)
                    if p.optional:
                        taken.add(type(None))
    return {k: frozenset(v) for k, v in out.items()}


def _bound(public_name, impl, args, kwargs):
    """(the body's parameters, {torch's name of a parameter: the value given}) for a call of
    a Python function of torch's, or None where the body cannot take it (a method's
    ``self`` under the name of the body's first parameter)."""
    try:
        sig = inspect.signature(impl)
        bound = sig.bind(*args, **(kwargs or {})).arguments
    except (TypeError, ValueError):
        return None
    params = sig.parameters
    if key_of(public_name).startswith('Tensor.') and params:
        first = next(iter(params))
        if first in bound:
            bound = {'self': bound[first], **bound}
    return params, bound


_EMPTY = inspect.Parameter.empty


class _Any:
    """An argument of torch's inner call that the function computes itself: the parser
    takes it wherever it stands (``Param.accepts``); ``shown`` is its type's name in
    messages."""
    __slots__ = ('shown',)

    def __init__(self, shown='object'):
        self.shown = shown


_ANY = _Any()


def _stand_in(kind, bound):
    """The argument that stands for one the function computes: ``kind`` from the table
    (a type's name, ``'@p'`` for the value of parameter ``p``, or None)."""
    if kind and kind[0] == '@':
        return _Any(_type_name(bound[kind[1:]])) if kind[1:] in bound else _ANY
    return _Any(kind) if kind else _ANY


def _inner_call(public_name, impl, args, kwargs, error):
    """The body of a function that torch writes in Python raised: where torch's function
    hands some of its parameters unchanged to one C op (``INNER`` in the table: ``fold`` ->
    ``col2im``, ``Tensor.istft`` -> ``istft``), that op's parser refuses a bad type among
    them first -- unless the function raises errors of its own, which may come before (a
    ValueError of ours, or an error of a class and message torch's function raises,
    stands then), or a guard of the function's is true (``batch_norm``'s ``training``: its
    own checks of the input run first; stft's ``center``: it pads the input first)."""
    key = key_of(public_name)
    got = _INNER.get(key, False)
    if got is False:
        entry = getattr(_table(), 'INNER', {}).get(key)
        got = _INNER[key] = None if entry is None else _parsed(entry)
    if got is None:
        return
    found = _bound(public_name, impl, args, kwargs)
    if found is None:
        return
    params, bound = found
    while got[0] == '?':  # (the op depends on whether a parameter is None: ``unique``'s dim)
        p = got[1]
        value = bound[p] if p in bound else getattr(params.get(p), 'default', None)
        got = got[3] if value is None or value is _EMPTY else got[2]
    cname, sigs, maps, raises, (kinds, keywords), guards, unpacks = got
    for outer, n, length in unpacks:  # (``kw, kh = _pair(kernel_size)``: before anything)
        if outer in bound:
            _UNPACK[length](_wrapped(bound[outer], n))
    if isinstance(error, ZeroDivisionError) or error is not None and (
            str(error).endswith('is not a valid value for reduction') or
            any(type(error).__name__ == cls and (cls == 'ValueError' or
                                                 str(error).startswith(text))
                for cls, text in raises)):
        # (torch's function raises it before the op's parser runs -- a ZeroDivisionError
        # comes from its arithmetic, ``group_norm``'s ``// num_groups``)
        return
    from .._tensor import Tensor
    for guard, checks, reads in guards:
        guard, _, test = guard.partition(' ')  # ('training', or 'max_norm is not None')
        value = bound[guard] if guard in bound else getattr(params.get(guard), 'default', None)
        if value is _EMPTY or error is None or (value is None if test else not value):
            continue
        # (what the function runs behind the guard comes first: its error stands -- reading
        # an attribute of a value that is no tensor, a check's error, or any error of code
        # that is not only checks, unless the body tripped over a type torch's code takes)
        if any(r in bound and not isinstance(bound[r], Tensor) for r in reads) or \
                isinstance(error, (ValueError, IndexError) if not checks else
                           (ValueError, IndexError, AttributeError)) or \
                not checks and not isinstance(error, (TypeError, AttributeError)) and \
                not str(error).startswith(cname):  # (not the op's own check: "stft: ...")
            return
    call = [_stand_in(k, bound) for k in kinds]
    named = {w: _stand_in(k, bound) for w, k in keywords}
    for outer, index, keyword, n in maps:
        x = bound[outer] if outer in bound else getattr(params.get(outer), 'default', _EMPTY)
        if x is _EMPTY:
            continue
        if x is None and getattr(params.get(outer), 'default', None) is None:
            # (a None default the function may replace: ``if stride is None: ...``)
            x = _Any('NoneType')
        elif outer in bound:
            x = _wrapped(x, n)
        if keyword is not None:
            named[keyword] = x
        elif index < len(call):
            call[index] = x
    for s in sigs:
        if s.bind(call, named, False):
            return
    try:
        _no_overload(cname, sigs, call, named)
    except TypeError as e:
        if key.startswith('nn.functional.') and bound.get('inplace') and \
                str(e).startswith(cname + '('):
            # (``if inplace:`` hands the arguments to the op's in-place form: relu_)
            raise TypeError(f'{cname}_{str(e)[len(cname):]}') from None
        raise e from None


def _unpack1(x):
    (a,) = x


def _unpack2(x):
    a, b = x


def _unpack3(x):
    a, b, c = x


# (Python's own ValueError of ``a, b = x`` for a sequence of another length, its message)
_UNPACK = {1: _unpack1, 2: _unpack2, 3: _unpack3}


def _parsed(entry):
    """An ``INNER`` entry with its overloads parsed (each alternative of a ``'?'`` one)."""
    if entry[0] == '?':
        return entry[:2] + tuple(_parsed(e) for e in entry[2:])
    return (entry[0], [Signature(t, False, False) for t in entry[1]]) + tuple(entry[2:])


def _wrapped(x, n):
    """``x`` as torch's wrapper hands it to the op: ``_pair`` & co (``n`` > 0) make an
    iterable a tuple and repeat anything else; ``_list_with_default`` (-1) keeps an int and
    reads anything else as a list (a None in it the input's size), or raises Python's
    TypeError for a value without a length."""
    if n > 0:
        try:
            return tuple(x) if hasattr(type(x), '__iter__') else (x,) * n
        except TypeError:
            return _ANY
    if n == -1 and not isinstance(x, int):  # (Python's test: a bool passes too)
        len(x)  # (Python's own TypeError for a value without a length, its message)
        return [1 if v is None else v for v in x]
    return x


# torch's functions made by ``boolean_dispatch`` on ``return_indices``: its position, then
# the function each value of it calls (``F.max_pool2d`` is ``_max_pool2d`` or
# ``max_pool2d_with_indices``), whose name Python's own TypeError of a bad call carries
_BOOLEAN_DISPATCH = {f'nn.functional.{kind}max_pool{n}d': (at, f'_{kind}max_pool{n}d')
                     for kind, at, dims in (('', 6, (1, 2, 3)), ('adaptive_', 2, (1, 2, 3)),
                                            ('fractional_', 4, (2, 3)))
                     for n in dims}


def _boolean_dispatch_name(public_name, impl, args, kwargs, error):
    """Python's TypeError for a bad call (an unknown keyword...) of a function torch makes
    by ``boolean_dispatch``: in the name of the function it dispatched to."""
    entry = _BOOLEAN_DISPATCH.get(key_of(public_name))
    text = str(error)
    own = getattr(impl, '__qualname__', '') + '() '
    if entry is None or not text.startswith(own):
        return
    at, plain = entry
    flag = kwargs['return_indices'] if 'return_indices' in kwargs else \
        args[at] if at < len(args) else False
    name = key_of(public_name).rsplit('.', 1)[-1] + '_with_indices' if flag else plain
    raise TypeError(name + '() ' + text[len(own):]) from None


def _reads_first(public_name, impl, args, kwargs):
    """Where torch's Python function reads an attribute of a parameter before anything else
    that may raise (``READS`` in the table: ``svd_lowrank`` reads ``A.shape``), a value
    without it there is Python's AttributeError, whatever else is wrong with the call."""
    reads = getattr(_table(), 'READS', {}).get(key_of(public_name))
    if not reads:
        return
    found = _bound(public_name, impl, args, kwargs)
    if found is None:
        return
    bound = found[1]
    for param, attr in reads:
        if param in bound and not hasattr(bound[param], attr):
            raise AttributeError(f"'{type(bound[param]).__name__}' object has no attribute "
                                 f"'{attr}'") from None


_KERNEL_REFUSAL = re.compile(r"not implemented for '(\w+)'")


# What NumPy says where complex32's structured dtype meets an operation it has no loop for
# (its dtype named; a comparison; a float written into an element; a promotion)
_CHALF_WORDS = re.compile(r"\('real', '<f2'\), \('imag', '<f2'\)|structured or void|"
                          r"bytes-like object is required|VoidDType")


def _refuse_chalf(public_name, args, kwargs, impl=None, rows_only=False):
    """NumPy refused a complex32 array (its structured dtype, named in the message) in the
    op's body: torch's refusal of complex32 by the op's kernel -- the dtype refusal table's
    row --, else, for a complex32 tensor, the op as torch computes it (``_through_complex64``:
    returned as ``(result,)``), else the kernel's usual message under the op's name. With
    ``rows_only`` (an inner op's refusal of complex32), only the table's row.
    A Python number as the second operand reads the table of torch's kernel for a number
    (``clamp_min(x, 0)``: "clamp is not supported for complex types")."""
    from .._tensor import Tensor
    from .. import _dtype
    given = [*args, *(kwargs or {}).values()]
    given += [a for g in given if type(g) in (list, tuple) for a in g]
    arrays = [a._data for a in given if isinstance(a, Tensor) and type(a._data) is np.ndarray]
    # (a complex32 operand, or a float16 one with a complex number: complex32 by promotion)
    # (or any operand computed in complex32: ``sum(x, dtype=complex32)``)
    chalf = any(_dtype.is_chalf(a.dtype) for a in arrays) or \
        (kwargs or {}).get('dtype') is _dtype.complex32
    if not chalf and not (any(a.dtype == np.float16 for a in arrays) and
                          any(type(a) is complex for a in given)):
        return None
    if rows_only and not any(_dtype.is_chalf(a.dtype) for a in arrays):
        return None  # (a refusal of a complex32 dtype= stands: the rows are of operands)
    number = key_of(public_name).startswith('Tensor.') or bool(args) and \
        isinstance(args[0], Tensor)
    number = number and len(args) > 1 and type(args[1]) in _NUMBERS and \
        refusals(public_name, True) is not None
    row = (refusals(public_name, number) or {}).get(_dtype.CHALF_NP)
    sig = signatures(key_of(public_name))
    if row is None and sig and sig[0] != _op_name(public_name):
        # (an operator, ``h // 1j``: the row of the op torch runs, floor_divide)
        row = (refusals(sig[0]) or {}).get(_dtype.CHALF_NP)
    if row is not None and row[0] is NotImplementedError:
        row = _skips_kernel(_op_name(public_name), row, args, kwargs)
    if row is not None and row[2] != 'self' and (kwargs or {}).get('dtype') is None and \
            _computed_wider(given):
        row = None  # (a wider operand: the kernel runs in complex64, ldexp_(h, complex64))
    if row is not None and (row[2] in (None, 'self') or _applies(row[2], arrays, number)):
        if row[0] is NotImplementedError and impl is not None:
            # (a kernel's refusal: after the op's checks of dims and shapes)
            _kernel_dtype_last(public_name, impl, args, kwargs, row[0](row[1]))
        raise row[0](row[1]) from None
    if rows_only:
        return None
    if chalf and impl is not None:
        return _through_complex64(public_name, impl, args, kwargs)
    op = sig[0] if sig else _op_name(public_name)
    raise NotImplementedError(f'"{op}" not implemented for \'ComplexHalf\'') from None


# complex64's names in torch's messages, and complex32's (``_through_complex64``)
_AS_CHALF = (('ComplexFloat', 'ComplexHalf'), ('complex64', 'complex32'),
             ('c10::complex<float>', 'c10::complex<c10::Half>'), ('cfloat', 'chalf'))


def _through_complex64(public_name, impl, args, kwargs):
    """The op on complex32 tensors where ember's body, written for NumPy's dtypes, failed on
    complex32's structured dtype and torch computes (its refusal table has no row for
    complex32): the body runs again with each complex32 tensor as complex64 (exact), as
    torch's complex32 kernels compute in complex64 (opmath); complex64 results round back
    to complex32, float32 ones (``std``, ``abs``) to float16, unless a tensor or dtype
    argument of a wider floating dtype made them so. A tensor the run wrote (in-place,
    ``out=``) is copied back into its complex32 original, which is then the result. An
    error of that run is torch's for complex64, said of complex32. Returns ``(result,)``.
    (The error path only: a well-formed call of another dtype never comes here.)"""
    from .._tensor import Tensor
    from .. import _dtype
    from ..autograd.grad_mode import no_grad
    pairs = []
    wide = wide_dtype = False

    def conv(v):
        nonlocal wide, wide_dtype
        if isinstance(v, Tensor):
            d = v.dtype
            if d is _dtype.complex32:
                c = v.to(_dtype.complex64)
                pairs.append((v, c, c._vc[0]))
                return c
            if d.category >= _dtype.FLOAT and d is not _dtype.float16:
                wide = True
            return v
        if isinstance(v, _dtype.dtype):
            if v is _dtype.complex32:
                return _dtype.complex64
            if v.category >= _dtype.FLOAT and v is not _dtype.float16:
                wide = wide_dtype = True
            return v
        if type(v) in (list, tuple):
            return type(v)(conv(x) for x in v)
        return v
    args64 = tuple(conv(a) for a in args)
    kwargs64 = {k: conv(v) for k, v in (kwargs or {}).items()}
    try:
        if kwargs64.get('out') is not None and not _takes_out(impl):
            # (a body without ``out``: written into out as every out= call is)
            r = call_with_out(public_name, impl, check(public_name, args64, kwargs64),
                              args64, kwargs64)
        else:
            r = impl(*args64, **kwargs64)
    except Exception as e:  # noqa: BLE001 - torch's error for complex64, said for complex32
        try:
            refuse(public_name, args64, kwargs64, e, impl)
        except Exception as torch_error:  # noqa: BLE001
            e = torch_error
        msg = str(e) if not isinstance(e, KeyError) else e.args[0] if e.args else ''
        for a, b in _AS_CHALF:
            msg = msg.replace(a, b)
        try:
            new = type(e)(msg)
        except Exception:  # noqa: BLE001 - a class that takes other arguments
            raise e from None
        raise new from None
    back = {}
    for orig, c, version in pairs:
        if c._vc[0] != version:  # (written: in-place or out=)
            with no_grad():
                if orig.shape != c.shape:  # (an out= tensor the run resized)
                    orig.resize_(c.shape)
                orig.copy_(c)
            back[id(c)] = orig

    def out(v, wide=wide):
        if isinstance(v, Tensor):
            if id(v) in back:
                return back[id(v)]
            if (not wide or asked) and v.dtype is _dtype.complex64:
                return v.to(_dtype.complex32)
            if not wide and v.dtype is _dtype.float32:
                return v.to(_dtype.float16)
            return v
        if lists and isinstance(v, (list, tuple)) and all(len(a) == len(v) for a in lists):
            # (a _foreach_ op: each result goes by the tensors at its place in the lists)
            return type(v)(out(x, wide_dtype or any(_wide(a[i]) for a in lists))
                           for i, x in enumerate(v))
        if type(v) is list:
            return [out(x) for x in v]
        if isinstance(v, tuple):
            items = [out(x) for x in v]
            if type(v) is tuple:
                return tuple(items)
            try:
                return type(v)(items)
            except TypeError:
                return type(v)(*items)
        return v
    asked = (kwargs or {}).get('dtype') is _dtype.complex32  # (dtype=complex32: its result)
    lists = [a for a in args if type(a) in (list, tuple)] if \
        key_of(public_name).startswith('_foreach_') else None
    return (out(r),)


def _computed_wider(given):
    """True if the tensors among ``given`` promote past complex32 (a complex64 or float32
    operand), so no complex32 kernel runs."""
    from .._tensor import Tensor
    from .. import _dtype
    d = None
    for v in given:
        if isinstance(v, Tensor):
            d = v.dtype if d is None else _dtype.promote_types(d, v.dtype)
    return d is not None and d.category >= _dtype.FLOAT and \
        d not in (_dtype.float16, _dtype.complex32)


def _wide(v):
    """True for a tensor of a floating dtype wider than float16 (``_through_complex64``)."""
    from .. import _dtype
    d = getattr(v, 'dtype', None)
    return isinstance(d, _dtype.dtype) and d.category >= _dtype.FLOAT and \
        d not in (_dtype.float16, _dtype.complex32)


def _kernel_dtype_last(public_name, impl, args, kwargs, error):
    """The body refused a dtype as torch's kernel does ("... not implemented for 'Short'"):
    torch raises that only once its kernel runs, after every check of shapes and values.
    The body runs again with the refused dtype's tensors as a dtype the kernel takes
    (float64, else int64, under no_grad); an error it then raises is one torch would have
    raised first. (Not for in-place ops, whose second run could write; a call with ``out=``
    runs again without it.)"""
    from .._tensor import Tensor
    from .. import _dtype
    m = _KERNEL_REFUSAL.search(str(error))
    name = _op_name(public_name)
    if m is None or name.endswith('_') and not name.endswith('__') or \
            getattr(impl, '_dtype_first', False):
        return  # (``_dtype_first``: an op whose torch form checks the dtype first says so)
    refused = m.group(1)
    for stand_in in (np.float64, np.int64):
        if _dtype.FROM_NP[np.dtype(stand_in)].kernel_name == refused:
            continue

        def cast(a):
            if isinstance(a, Tensor) and _dtype.FROM_NP[a._data.dtype].kernel_name == refused:
                return a.detach().to(_dtype.FROM_NP[np.dtype(stand_in)])
            if type(a) in (list, tuple):
                return type(a)(cast(x) for x in a)
            return a
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # (complex to float discards: it is meant to)
            args2 = tuple(cast(a) for a in args)
            # (without out=: the second run writes nothing)
            kwargs2 = {k: cast(v) for k, v in (kwargs or {}).items() if k != 'out'}
        from ..autograd.grad_mode import no_grad
        try:
            with no_grad(), warnings.catch_warnings():
                warnings.simplefilter('ignore')  # (the run's warnings are not the user's)
                impl(*args2, **kwargs2)
        except Exception as e:  # noqa: BLE001 - which error the second run raises is the point
            if _KERNEL_REFUSAL.search(str(e)):
                continue  # (the stand-in refused too: try the next)
            # (a LinAlgError -- singular, not converged -- is the kernel's own finding,
            # which comes after its dtype dispatch)
            if isinstance(e, (RuntimeError, IndexError, ValueError)) and \
                    not _from_numpy(e) and not any(w in str(e) for w in _STAND_IN_WORDS) \
                    and type(e).__name__.lstrip('_') != 'LinAlgError':
                raise type(e)(str(e)) from None
        return


# an error of the second run that may be about the stand-in dtype itself
_STAND_IN_WORDS = ('Double', 'Long', 'double', 'long', 'dtype', 'scalar type', 'type',
                   'Float', 'floating', 'integ', 'list index out of range',
                   'tuple index out of range')


# what autograd refuses before an op's kernel runs (those errors stand)
_AUTOGRAD_WORDS = ('leaf Variable', 'view of a leaf', 'is a view', 'inference', 'version')


def _shapes_first(public_name, args, kwargs, error):
    """The op raised about something other than the shapes torch looks at first: an in-place
    op's input whose elements share memory (an expanded tensor: torch refuses to write it
    before anything else), and, for an elementwise op (torch's ``pointwise`` ops), tensors
    that do not broadcast or an in-place result of another shape. Raises that error
    instead of a dtype or value error."""
    name = _op_name(public_name)
    text = str(error)
    if isinstance(error, TypeError) and not _from_numpy(error) or \
            any(w in text for w in _AUTOGRAD_WORDS + _BEFORE_SHAPES_WORDS) or \
            'more than one element of the written-to tensor' in text:
        return
    # (a shape error the body raised stands, but for an in-place op's overlap: torch's
    # iterator checks the written tensor's memory before it broadcasts)
    shaped = any(w in text for w in _SHAPE_WORDS)
    from .._tensor import Tensor
    from ._core import PARTIAL_WRITES
    inplace = name.endswith('_') and not name.endswith('__') and args and \
        isinstance(args[0], Tensor)
    if inplace and name not in _NOT_WRITING and name not in _OVERLAP_LAST and \
            name not in PARTIAL_WRITES and not (
            isinstance(error, IndexError) and (name in _OVERLAP_LATE or _dim_error(error))):
        x = args[0]._data
        if x.size and any(st == 0 and n > 1 for st, n in zip(x.strides, x.shape)) and \
                not _own_dtype_refusal(public_name, error):
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.") from None
    if shaped:
        return
    pointwise = _table().POINTWISE
    if name not in pointwise and name.rstrip('_') not in pointwise and \
            name.rstrip('_') not in _ELEMENTWISE_UNTAGGED or \
            isinstance(error, IndexError) and not _from_numpy(error):
        base = _SPECIAL_ALIASES.get(name, name[8:])
        if name.startswith('special_') and base in pointwise and \
                isinstance(error, NotImplementedError) and kwargs and \
                isinstance(kwargs.get('out'), Tensor):  # (special.xlogy: xlogy's order)
            out_cast_first(base, args, kwargs['out'], [a for a in args if isinstance(
                a, Tensor)])
        return
    from ._core import check_broadcast, check_written_shape
    tensors = [a for a in args if isinstance(a, Tensor)] + [
        v for k, v in (kwargs or {}).items() if k != 'out' and isinstance(v, Tensor)]
    if not tensors:
        return
    if name == 'rsub':  # (``other - input``: torch's message names other tensor a)
        tensors.reverse()
    (check_written_shape if inplace else check_broadcast)(*[t._data.shape for t in tensors])
    if isinstance(error, NotImplementedError):
        if inplace:
            _inplace_cast_first(public_name, args, tensors)
        elif kwargs and isinstance(kwargs.get('out'), Tensor):
            out_cast_first(name, args, kwargs['out'], tensors)


_SPECIAL_ALIASES = {'special_gammainc': 'igamma', 'special_gammaincc': 'igammac'}
# Elementwise ops whose kernel's dtype refusal comes before torch's check of ``out=``'s
# dtype (probed against torch 2.13 with a refused dtype and outs of every dtype): the
# rounding ops, sign, clamp and the comparisons (whose result is bool whatever the operands)
_REFUSE_BEFORE_OUT = frozenset((
    'sign', 'signbit', 'clamp', 'clip', 'special_ndtr',
    'eq', 'ne', 'ge', 'gt', 'le', 'lt', 'greater', 'greater_equal', 'less', 'less_equal',
    'not_equal'))
# ... and those whose out= must have the input's dtype exactly (torch's unary ops that check
# every operand has one dtype): "Found dtype Short but expected ComplexFloat"
_OUT_SAME_DTYPE = frozenset(('abs', 'absolute', 'bitwise_not', 'frac', 'hardshrink', 'round',
                             'gelu', 'softplus', 'ceil', 'floor', 'trunc', 'fix'))
# (of which these refuse a complex input before: "ceil is not supported for complex inputs")
_COMPLEX_BEFORE_OUT = frozenset(('ceil', 'floor', 'trunc', 'fix'))


# What torch checks of ``out=``'s dtype before anything else of an elementwise op (its
# result's dtype fixed by the input's): 'same' -- out must have the input's dtype (with the
# numbers of ``clamp`` promoting it), "Found dtype Double but expected Float"; 'bool' -- a
# bool out; 'long' -- an int64 out (nonzero's indices). From torch 2.13's out= calls.
_OUT_FIRST_RULES = {**dict.fromkeys(_OUT_SAME_DTYPE | {
    'neg', 'negative', 'sgn', 'sign', 'conj_physical', 'clamp', 'clamp_min', 'clamp_max',
    'clip'}, 'same'), **dict.fromkeys(('signbit', 'isneginf', 'isposinf'), 'bool'),
    'nonzero': 'long', 'nonzero_static': 'long'}
# (the input dtypes whose own refusal comes first)
_BEFORE_OUT_RULE = {'neg': 'b', 'negative': 'b', 'abs': 'c', 'absolute': 'c', 'sign': 'c',
                    'signbit': 'c', 'isneginf': 'c', 'isposinf': 'c', **dict.fromkeys(
                        _COMPLEX_BEFORE_OUT, 'c')}


def out_dtype_first(name, args, out, kwargs=None):
    """torch's refusal of ``out=`` of a dtype an elementwise op of ``_OUT_FIRST_RULES``
    cannot write, before its kernel runs (O(1) but for clamp's bounds)."""
    from .._tensor import Tensor
    rule = _OUT_FIRST_RULES.get(name)
    x = args[0] if args else None
    if rule is None or not isinstance(x, Tensor) or not isinstance(out, Tensor):
        return
    d = x.dtype
    if x._data.dtype.kind in _BEFORE_OUT_RULE.get(name, '') or (
            rule == 'same' and name != 'conj_physical' and x._requires_grad and
            _grad_enabled()):
        return  # (the input's own refusal, or autograd's refusal of out=, comes first)
    got = out.dtype
    if rule == 'long':
        if got.kernel_name != 'Long':
            raise RuntimeError(f"{name}: Expected out tensor to have scalar type Long but got "
                               f"scalar type{got.kernel_name}")
    elif rule == 'bool':
        if got.kernel_name != 'Bool':
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
    else:
        if name.startswith('cl'):  # (clamp's number bounds promote: bool and 0 -> Long)
            from .. import _dtype
            bounds = list(args[1:3]) + [v for k, v in (kwargs or {}).items()
                                        if k in ('min', 'max')]
            for a in bounds:
                if isinstance(a, Tensor):
                    return  # (tensor bounds: the iterator's cast rule, checked later)
                if type(a) in _NUMBERS:
                    d = _dtype.result_type(d, a)
            if d.is_complex:
                raise NotImplementedError("clamp is not supported for complex types")
        if got is not d:
            raise RuntimeError(f"Found dtype {got.kernel_name} but expected "
                               f"{d.kernel_name}") from None


def out_cast_first(name, args, out, tensors):
    """An elementwise op given ``out=`` had its kernel refuse a dtype: torch's iterator
    first checks out's dtype -- the operands' common dtype must cast into it ("result type
    ComplexDouble can't be cast to the desired output type Bool"), or, for the unary ops of
    ``_OUT_SAME_DTYPE``, be it."""
    from .. import _dtype
    name = name.rstrip('_') if name.endswith('_') and not name.endswith('__') else name
    if name in _REFUSE_BEFORE_OUT:
        return
    got = out.dtype
    if name in _OUT_SAME_DTYPE or name == 'lerp':  # (lerp: only where its kernel refuses)
        want = tensors[0].dtype
        if want.is_complex and name in _COMPLEX_BEFORE_OUT:
            return
        if got is not want:
            raise RuntimeError(f"Found dtype {got.kernel_name} but expected "
                               f"{want.kernel_name}") from None
        return
    common = _dtype.promote_all(tensors)
    for a in args[:2]:  # (a number operand, first -- xlogy(1j, t) -- or second)
        if type(a) in _NUMBERS:
            if name in _OUT_FIRST_RULES:
                return  # (clamp_min's number bound: the kernel's refusal first)
            common = _dtype.result_type(common, a)
    if not _dtype.can_cast(common, got):
        raise RuntimeError(f"result type {common.kernel_name} can't be cast to the desired "
                           f"output type {got.kernel_name}") from None


def _inplace_overlap_first(public_name, impl, args, kwargs, error):
    """An ``nn.functional`` activation called with ``inplace=True`` had its kernel refuse
    the dtype: torch's in-place op refuses an input whose elements share memory (an
    expanded tensor) first."""
    from .._tensor import Tensor
    key = key_of(public_name)
    if 'not implemented for' not in str(error) or not key.startswith('nn.functional.') or \
            key == 'nn.functional.threshold':  # (threshold_ refuses the dtype first)
        return
    found = _bound(public_name, impl, args, kwargs)
    if found is None or found[1].get('inplace') is not True:
        return
    x = found[1].get('input')
    if isinstance(x, Tensor):
        a = x._data
        if a.size and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape)):
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.") from None


def _inplace_cast_first(public_name, args, tensors):
    """An in-place elementwise op's kernel refused a dtype: torch first checks that the
    operands' common dtype can be written into ``self`` (int8 ``bitwise_and_`` a float
    tensor: "result type Double can't be cast to the desired output type Char"). A number
    counts only as the ``other`` operand (``threshold_``'s numbers do not promote)."""
    from .. import _dtype
    if _op_name(public_name).rstrip('_') in _COMPARISONS:
        return  # (a comparison writes its bool result cast into self: no such check)
    common = _dtype.promote_all(tensors)
    sigs = signatures(key_of(public_name))
    if len(args) > 1 and type(args[1]) in _NUMBERS and sigs is not None and any(
            s.params and s.params[0].name == 'other' for s in sigs[1]):
        common = _dtype.result_type(common, args[1])
    out = _dtype.FROM_NP[args[0]._data.dtype]
    if not _dtype.can_cast(common, out):
        raise RuntimeError(f"result type {common.kernel_name} can't be cast to the desired "
                           f"output type {out.kernel_name}") from None


_COMPARISONS = frozenset(('eq', 'ne', 'lt', 'le', 'gt', 'ge', 'less', 'less_equal', 'greater',
                          'greater_equal', 'not_equal'))
# the body's error is already torch's shape error (its own operand order stands)
_SHAPE_WORDS = ('must match the size of tensor', "doesn't match the broadcast shape",
                'more than one element of the written-to tensor')
# checks elementwise ops make of their arguments before broadcasting them (in their meta
# functions): those errors stand, before an in-place op's overlap check too; so do the
# in-place ops' own checks of their arguments
_BEFORE_SHAPES_WORDS = ('where expected condition to be a boolean tensor',
                        'Subtraction, the `-` operator, with',
                        'Negation, the `-` operator, on a bool tensor',
                        'not implemented for complex tensors',
                        'clamp is not supported for complex types',
                        'heaviside is not yet implemented for tensors with different dtypes',
                        'for `end` but got dtype',
                        'In-place abs is not supported for complex tensors',
                        'is not supported for complex inputs',
                        'is not supported for complex tensors',
                        "At least one of 'min' or 'max' must not be None",
                        'dtype must be a floating point but you specified',
                        'expects p to be in (0, 1)',
                        'fill_ only supports 0-dimension value tensor',
                        'dimensions must larger than 1',
                        'all dimensions of input must be of equal length',
                        'Boolean inputs not supported for relu',
                        'Lower bound should be less than or equal to the upper bound')
# elementwise ops (broadcasting, one common dtype) that torch does not tag ``pointwise``
_ELEMENTWISE_UNTAGGED = frozenset(('floor_divide',))
# in-place ops whose index checks (IndexError) come before torch's overlap check
_OVERLAP_LATE = frozenset(('index_add_', 'index_fill_'))


def _dim_error(error):
    """A dim argument out of range: torch wraps dims before any in-place op looks at the
    written tensor."""
    return str(error).startswith(('Dimension out of range', 'Dimension specified as'))


# in-place ops whose every check of the arguments comes before it (torch's scatter checks
# them all before its kernel looks at the written tensor, the products and the cumulative
# ops their sizes, dims and dtypes; index_put_ writes such a tensor all the same)
_OVERLAP_LAST = frozenset(('scatter_', 'scatter_add_', 'scatter_reduce_', 'addmm_', 'addmv_',
                           'addbmm_', 'baddbmm_', 'cumsum_', 'cumprod_', 'renorm_',
                           'index_put_', 'masked_fill_'))
# in-place ops that change a tensor's metadata or flags, not its elements
_NOT_WRITING = frozenset((
    'squeeze_', 'unsqueeze_', 'transpose_', 't_', 'swapdims_', 'swapaxes_', 'as_strided_',
    'resize_', 'resize_as_', 'detach_', 'requires_grad_', 'set_', 'share_memory_', 'rename_',
    'retain_grad_', 'fix_', 'sparse_resize_', 'sparse_resize_and_clear_'))


def param_name(impl, i):
    """The name of ``impl``'s positional parameter ``i`` (for error messages)."""
    import inspect
    try:
        params = list(inspect.signature(impl).parameters)
    except (TypeError, ValueError):
        params = []
    return params[i] if i < len(params) else f'arg{i}'


def _refuse_non_tensor(public_name, impl, args):
    """The body tripped over an argument of a class of the user's that is not a Tensor
    ("'Plain' object has no attribute '_data'"): torch's TypeError naming it ("mean():
    argument 'input' (position 1) must be Tensor, not Plain")."""
    from .._tensor import Tensor
    for i, a in enumerate(args):
        if not isinstance(a, Tensor) and type(a) not in _PLAIN_TYPES and \
                not isinstance(a, (slice, type(Ellipsis))):
            raise TypeError(f"{key_of(public_name).rsplit('.', 1)[-1]}(): argument "
                            f"'{param_name(impl, i)}' (position {i + 1}) must be Tensor, not "
                            f"{type(a).__name__}") from None


def _no_out_dtype_kernel(public_name, bound, args, kwargs):
    """A call of an ``out_dtype`` overload (``mm(a, b, torch.float32)``) that the body does
    not take: torch's CPU build has no kernel for those either (NotImplementedError)."""
    i = [p.name for p in bound.params].index('out_dtype')
    if key_of(public_name).startswith('Tensor.'):
        i += 1
    if len(args) > i or kwargs and 'out_dtype' in kwargs:
        cname = signatures(key_of(public_name))[0]
        from .._sparse import unsupported_message
        overload = 'dtype_out' if kwargs and kwargs.get('out') is not None else 'dtype'
        raise NotImplementedError(unsupported_message(f'{cname}.{overload}', 'CPU',
                                                      ('Meta',))) from None


# nn.functional ops whose torch body reads its tensors' attributes (``.dim()``) in Python
# before any C call: a plain value there gives torch's AttributeError, which stands
_PYTHON_READS_FIRST = frozenset({'nn.functional.multi_head_attention_forward'})


def _positional_names(impl):
    body = _body_params(impl)
    return [p.name for p in body.positional] if body else []


def _refuse_plain_value(public_name, impl, args, error, kwargs=None):
    """The body of an ``nn.functional`` op tripped over a number, string or None given where
    it wanted a tensor ("'float' object has no attribute 'relu'"): torch's TypeError naming
    the parameter, as the inner call of torch's Python function raises it. (Elsewhere
    torch's Python functions let the AttributeError out: ``unravel_index``.)"""
    from .._tensor import Tensor
    if not key_of(public_name).startswith('nn.functional.') or \
            key_of(public_name) in _PYTHON_READS_FIRST:
        return
    m = re.match(r"'(\w+)' object has no attribute", str(error))
    if m is None:
        return
    method = key_of(public_name).startswith('Tensor.')
    touched = getattr(_table(), 'TOUCHED', {}).get(key_of(public_name), ())
    if any(type(a).__name__ == m.group(1) and param_name(impl, i) in touched
           for i, a in enumerate(args)):
        return  # (torch's function reads such an attribute itself: its AttributeError)
    # (the arguments by position, then those by name at the body's positions of them)
    given = list(enumerate(args))
    if kwargs:
        names = _positional_names(impl)
        given += [(names.index(k), v) for k, v in kwargs.items() if k in names]
    for i, a in given:
        if type(a).__name__ == m.group(1) and not isinstance(a, Tensor) and \
                type(a) in _PLAIN_TYPES:
            name = param_name(impl, i)
            pos = i if method else i + 1
            op = signatures(key_of(public_name))
            op = op[0] if op else key_of(public_name).rsplit('.', 1)[-1]
            raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, not "
                            f"{type(a).__name__}") from None


def _first_dtype(args, kwargs):
    from .._tensor import Tensor
    from .. import _dtype
    for a in list(args) + list((kwargs or {}).values()):
        if isinstance(a, Tensor):
            return _dtype.FROM_NP[a._data.dtype].kernel_name
    return '?'


# What NumPy's own C code says (it raises with no Python frame of its own)
_NUMPY_WORDS = re.compile(r"ufunc|did not contain a loop|could not be broadcast|read-only|"
                          r"cannot reshape array|zero-size array|Cannot cast|numpy boolean")


# What Python's own operators say of complex operands ('<' between complex numbers)
_OPERATOR_WORDS = re.compile(r"(not supported between instances of|unsupported operand "
                             r"type).*'complex'")


def _from_numpy(error):
    """True if NumPy raised ``error``: its innermost frame is NumPy's, or it says what
    NumPy's C code says."""
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    if tb.tb_frame.f_code.co_filename.startswith(_NUMPY_DIR):
        return True
    return _NUMPY_WORDS.search(str(error)) is not None


# -- dtypes torch's kernels refuse -------------------------------------------------------
_KERNEL_DTYPES = {}  # a dtype's kernel name ('Long') -> the ember dtype


def _op_name(public_name):
    """torch's name of the op behind a public name: ``ember.Tensor.lt`` -> ``lt``,
    ``ember.linalg.norm`` -> ``linalg_norm`` (a dunder keeps its own name: the operators
    are built from the op's own function, which knows its name)."""
    name = key_of(public_name)
    for space in ('linalg.', 'fft.', 'special.'):
        if name.startswith(space):
            return space[:-1] + '_' + name[len(space):]
    return name.rsplit('.', 1)[-1]


def refusals(public_name, number=False):
    """{NumPy dtype: (exception class, torch's message, when)} for the dtypes torch's kernel
    of the op refuses (its in-place form ``lt_`` as ``lt``), or None if it refuses none; with
    ``number``, those it refuses when its second operand is a Python number ({} if none,
    None if the op takes no number there). ``when`` is None (always), ``'numbers'`` (only
    with a Python number argument), ``'tensors'`` (only with a second tensor: the refusal is
    about that argument), ``'grad'`` (only with a tensor that requires grad, in grad mode:
    torch's autograd has no complex derivative of the op), ``'nonempty'`` (not when
    every tensor is empty: no kernel runs then) or ``'dims'`` (not when a tensor is 0-d:
    torch returns it, or multiplies by it, without the kernel); several words: all hold."""
    name = _op_name(public_name)
    key = (name, number)
    if key in _ROWS:
        return _ROWS[key]
    from . import _dtype_refusals
    table = _dtype_refusals.REFUSED_WITH_NUMBER if number else _dtype_refusals.REFUSED
    groups = table.get(name)
    if groups is None and name.endswith('_'):
        # (an in-place form has its own derivative: the out-of-place one's 'grad' rows are
        # not its)
        groups = table.get(name[:-1])
        if groups:
            groups = tuple(g for g in groups if g[3:] != ('grad',))
    if not number and (name in _BAREBONES_KERNELS or name[:-1] in _BAREBONES_KERNELS or
                       name in _CHALF_KERNELS or name[:-1] in _CHALF_KERNELS):
        groups = (groups or ()) + _barebones_rows(name)
    out = None
    if groups is not None and number:
        out = {}  # (probed with a number: an empty row refuses nothing)
    if groups:
        if not _KERNEL_DTYPES:
            from .. import _dtype
            for dt in _dtype.ALL:
                _KERNEL_DTYPES.setdefault(dt.kernel_name, dt)
        out = {}
        for cls, template, names, *when in groups:
            cls = NotImplementedError if cls == 'NotImplementedError' else RuntimeError
            for n in names.split():
                if n in _KERNEL_DTYPES:
                    # (bfloat16's NumPy dtype loads ml_dtypes: a row that names it is keyed
                    # by it even before any bfloat16 array exists)
                    w = when[0] if when else None
                    if w in (None, 'nonempty') and name in _EMPTY_OPERAND_RUNS_NONE:
                        w = 'operands'
                    elif w == 'nonempty' and name in _EMPTY_SECOND_RUNS_NONE:
                        w = 'second'
                    out[_KERNEL_DTYPES[n].np] = (cls, template.replace('<dtype>', n), w)
        out = out or ({} if number else None)
    _ROWS[key] = out
    return out


_ROWS = {}  # (op name, with a number) -> refusals' answer

# products whose refusal needs every operand non-empty: a product with an empty operand
# runs no kernel (torch's linear of a bool (0, 3) input and (2, 3) weight is empty)
# Ops that run no kernel when any one operand is empty (a product with an empty inner
# dim, a trapezoid over an empty y): their 'nonempty' refusals need every operand non-empty
_EMPTY_OPERAND_RUNS_NONE = frozenset(('linear', 'addmm', 'trapezoid', 'trapz'))
# Ops whose kernel runs over the second operand only: an empty one runs none, whatever the
# first (searchsorted's values: a complex sorted sequence with no values answers [])
_EMPTY_SECOND_RUNS_NONE = frozenset(('searchsorted',))

# Kernels that refuse uint16/uint32/uint64 where ``tools/gen_signatures.py``'s probe cannot
# reach them (they take index tensors or masks, which it does not make): {torch's op name:
# its kernel's name in the message}, measured on torch 2.13 (checked by
# tests/test_uint_dtypes_oracle.py). The refusal goes by the dtype of the op's first tensor
# (``'self'``: its index tensors are int64).
_BAREBONES_KERNELS = {
    'masked_fill': 'masked_fill', 'masked_scatter': 'masked_scatter',
    'index_select': 'index_select', 'index_fill': 'index_fill_cpu', 'index_add': 'index_add_',
    'index_put': 'index_put', 'gather': 'scatter_gather_tensor_cpu',
    'scatter': 'scatter_gather_tensor_cpu', 'take': 'take_cpu', 'put': 'take_put_cpu',
    'bincount': 'bincount_cpu', 'dot': 'dot', 'vdot': 'dot',
    # (the probe's flip of a 2x2 tensor over dim 0 copies rows: see _KERNEL_SKIPS)
    'flip': 'flip_cpu', 'flipud': 'flip_cpu',
    # (found by the fuzzer's unsigned sweeps: forms or ops the probe does not call -- the
    # in-place scans, whose out-of-place forms run in int64; the pooling and shuffles)
    # (kernel, when: see ``refusals``) for those that run no kernel on some inputs
    'cumprod_': ('cumprod_out_cpu', 'nonempty dims'),
    'cumsum_': ('cumsum_out_cpu', 'nonempty dims'),
    'nonzero_static': ('nonzero_count_cpu', 'dims'), 'cross': 'cross',
    'linalg_cross': 'cross', 'bernoulli_': 'bernoulli_scalar_cpu_', 'avg_pool1d': 'avg_pool2d',
    'max_pool1d': 'max_pool1d_impl', 'max_pool1d_with_indices': 'max_pool2d',
    'pixel_shuffle': ('pixel_shuffle', 'nonempty'),
    'pixel_unshuffle': ('pixel_unshuffle', 'nonempty'),
    'channel_shuffle': ('channel_shuffle', 'nonempty'),
    'native_channel_shuffle': ('channel_shuffle', 'nonempty'),
    'bernoulli': ('bernoulli_scalar_cpu_', 'nonempty'), 'addr': ('addr_cpu', 'dims'),
    'adaptive_avg_pool1d': ('adaptive_avg_pool2d', 'nonempty'),
    'adaptive_avg_pool2d': ('adaptive_avg_pool2d', 'nonempty'),
    'max_pool2d': ('max_pool2d', 'nonempty'), 'max_pool2d_with_indices': ('max_pool2d', 'nonempty')}
# Ops whose Python-number arguments do not promote an unsigned input to float (their
# kernel runs in the input's dtype): threshold(uint16_t, 1.5, 2) is refused
_NUMBER_KEEPS_DTYPE = frozenset(('threshold', 'threshold_', 'bernoulli'))


# Calls that run no kernel, so torch answers them whatever the dtype its kernel refuses:
# {torch's op name: test(args, kwargs) of the call (its input first, the op's parameters
# by position or by torch's name)}: True where no kernel runs (a flip over dims of size 1,
# argmax over a size-1 dim, matrix_power(A, 1), gather with an empty index); a str where
# the call's form runs another kernel than the one the table's message names (``max(x,
# dim)``: "max_cpu", not "max_all") -- its "not implemented for" refusal then stands even
# where the table narrows it; anything else: the table's row as it is. Only the kernel's
# NotImplementedError rows are concerned (checks torch makes before dispatch stand).
# Measured on torch 2.13, pinned by tests/fuzz/test_found_issue15_s11_uint.py.


def _param(args, kwargs, i, name, default=None):
    """The call's argument ``name`` (position ``i``, the input being 0)."""
    if kwargs and name in kwargs:
        return kwargs[name]
    return args[i] if len(args) > i else default


def _given_dim(dim):
    """True for a dim argument that names dims (an int, or a non-empty list)."""
    from .reduce import _NODIM
    return dim is not None and dim is not _NODIM and not (
        type(dim) in (list, tuple) and not dim)


def _flip_runs_no_kernel(x, dims):
    """True if torch's flip of ``x`` over ``dims`` runs no dtype-dispatched kernel: no dim
    of size > 1 (and not expanded) is flipped, or -- in torch's order of the dims, by the
    strides its ``empty_like`` gives the result -- the innermost dim of size > 1 is not
    flipped and is contiguous in ``x``, which torch copies row by row (memcpy)."""
    a = x._data
    n = a.ndim
    sizes, strides = a.shape, x.stride()
    if not n or a.size <= 1:
        return True
    try:
        flipped = {d % n for d in (dims if type(dims) in (list, tuple) else [dims])}
    except TypeError:
        return False
    if not any(d in flipped and sizes[d] > 1 and strides[d] for d in range(n)):
        return True
    # (torch's insertion sort of the dims, innermost first: a stride 0 compares with none)
    perm = list(range(n - 1, -1, -1))
    for i in range(1, n):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            s0, s1 = strides[perm[d0]], strides[perm[d1]]
            if s0 == 0 or s1 == 0 or (s0 == s1 and sizes[perm[d0]] <= sizes[perm[d1]]):
                continue
            if s0 < s1:
                break
            perm[d0], perm[d1] = perm[d1], perm[d0]
            d1 = d0
    inner = next(d for d in perm if sizes[d] > 1)
    return inner not in flipped and strides[inner] == 1


def _rot90_runs_no_kernel(args, kwargs):
    x = args[0]
    k = _param(args, kwargs, 1, 'k', 1)
    dims = list(_param(args, kwargs, 2, 'dims', (0, 1)))
    k = k % 4 if type(k) is int else 1
    flips = {0: [], 1: dims[1:2], 2: dims, 3: dims[:1]}[k]
    return _flip_runs_no_kernel(x, flips)


def _arg_reduction(args, kwargs):
    x, dim = args[0]._data, _param(args, kwargs, 1, 'dim')
    return dim is not None and type(dim) is int and x.ndim > 0 and (
        x.size == 0 or x.shape[dim % x.ndim] == 1)


def _extreme(kernel):
    def test(args, kwargs):
        dim = _param(args, kwargs, 1, 'dim')
        if not _given_dim(dim) or not isinstance(dim, (int, np.integer)):
            return None  # (the whole tensor's kernel, or maximum's with a tensor)
        return True if args[0]._data.ndim == 0 or args[0]._data.size == 0 else kernel
    return test


def _median(args, kwargs):
    return 'median_out' if _given_dim(_param(args, kwargs, 1, 'dim')) else None


def _empty_index(args, kwargs, i=2, name='index'):
    index = _param(args, kwargs, i, name)
    return getattr(index, '_data', None) is not None and index._data.size == 0


def _equal(args, kwargs):
    """equal: tensors of other shapes are unequal without a kernel; a tensor with itself
    goes to the kernel for non-NaN elements."""
    a, b = args[0], _param(args, kwargs, 1, 'other')
    if getattr(b, '_data', None) is None or a._data.shape != b._data.shape:
        return True
    return 'equal_notnan_cpu' if a is b else None


def _rounding_kernel(args, kwargs):
    """div with a rounding mode runs div_floor's or div_trunc's kernel, not div's."""
    mode = (kwargs or {}).get('rounding_mode')
    return None if mode is None else f'div_{mode}_cpu'


def _lastdim(kernel):
    """softmax/log_softmax: over the last dim, torch runs its ``lastdim`` kernel (F.softmax
    without a dim picks 0 for 0, 1 and 3 dims, else 1)."""
    def test(args, kwargs):
        x = args[0] if args else None
        dim = _param(args, kwargs, 1, 'dim')
        nd = getattr(getattr(x, '_data', None), 'ndim', None)
        if nd is None or isinstance(dim, (list, tuple, str)):
            return None
        if dim is None:
            dim = 0 if nd in (0, 1, 3) else 1
        return '~' + kernel if nd == 0 or dim in (nd - 1, -1) else None
    return test


def _polygamma_kernel(args, kwargs):
    """polygamma's kernel by its order: digamma's for 0, trigamma's for 1."""
    n = _param(args, kwargs, 0, 'n')
    if type(n) is not int:
        n = _param(args, kwargs, 1, 'n')
    return None if type(n) is not int else 'digamma' if n == 0 else 'trigamma' if n == 1 \
        else 'polygamma'


def _scatter_kernel(args, kwargs):
    """scatter: none for an empty index; a number value runs the scalar kernel."""
    if _empty_index(args, kwargs):
        return True
    v = (kwargs or {}).get('value', _param(args, kwargs, 3, 'src'))
    return 'scatter_gather_scalar_cpu' if type(v) in _NUMBERS else None


def _one_d_product(args, kwargs):
    """matmul/inner of two vectors is their dot product: dot's kernel; a matrix times a
    vector, addmv's."""
    b = _param(args, kwargs, 1, 'other')
    a = args[0] if args else None
    na = getattr(getattr(a, '_data', None), 'ndim', 0)
    nb = getattr(getattr(b, '_data', None), 'ndim', 0)
    return 'dot' if na == nb == 1 else 'addmv_impl_cpu' if (na, nb) == (2, 1) else None


def _pow_number(args, kwargs):
    """pow: a number exponent of 0 or 1 gives ones or a copy without pow's kernel."""
    e = _param(args, kwargs, 1, 'exponent')
    return type(e) in (int, float, bool, complex) and (e == 0 or e == 1)


def _isin(args, kwargs):
    # (torch's isin compares each element with each test element -- the kernel that refuses
    # -- only for fewer test elements than 10 * elements ** 0.145; else it sorts them)
    elements = _param(args, kwargs, 0, 'elements', _param(args, kwargs, 0, 'element'))
    test = _param(args, kwargs, 1, 'test_elements', _param(args, kwargs, 1, 'test_element'))
    if getattr(test, '_data', None) is None:
        return None  # (a number to test against: an eq)
    number = getattr(elements, '_data', None) is None
    if type(elements) in (float, complex):
        return True  # (a float element: the test elements are compared as floats)
    n = 1 if number else elements._data.size
    if test._data.size < int(10 * n ** 0.145):
        return 'isin_default_cpu'
    if number and type(elements) is int:
        # (sorting puts the number in a tensor: int64, which uint16+ do not promote with)
        return (RuntimeError, "Promotion for uint16, uint32, uint64 types is not supported, "
                f"attempted to promote Long and {_kernel_name(test)}")
    return True


def _float_operand(args, kwargs):
    # (a float or complex number among the operands of a uint16+ tensor: torch's kernel
    # runs in that type)
    return _barebones(getattr(args[0], '_data', None) is not None and args[0]._data.dtype
                      or None) and any(type(a) in (float, complex) for a in args[1:]) or any(
        type(v) in (float, complex) for k, v in (kwargs or {}).items()
        if k not in ('out', 'alpha'))


def _kernel_name(t):
    from .. import _dtype
    return _dtype.FROM_NP[t._data.dtype].kernel_name


def _clamp(args, kwargs):
    # (a float bound: computed in float; else each form of bounds has its own kernel)
    if _float_operand(args, kwargs):
        return True
    lo, hi = _param(args, kwargs, 1, 'min'), _param(args, kwargs, 2, 'max')
    tl, th = hasattr(lo, '_data'), hasattr(hi, '_data')
    if tl or th:
        return 'clamp_cpu' if tl and th else 'maximum_cpu' if tl and hi is None else \
            'minimum_cpu' if th and lo is None else None
    return 'clamp_scalar_cpu' if lo is not None and hi is not None else \
        'clamp_min_scalar_cpu' if lo is not None else \
        'clamp_max_scalar_cpu' if hi is not None else None


def _clamp_bound(kernel):
    def test(args, kwargs):
        bound = _param(args, kwargs, 1, 'min', _param(args, kwargs, 1, 'max'))
        return _float_operand(args, kwargs) or (
            kernel if type(bound) in (int, bool) else None)
    return test


_KERNEL_SKIPS = {
    'nonzero_static': lambda a, k: _param(a, k, 99, 'size') == 0,  # (no count to make)
    'flip': lambda a, k: _flip_runs_no_kernel(a[0], _param(a, k, 1, 'dims', ()) if len(a) < 3
                                              else a[1:]),  # (``t.flip(0, 1)``)
    'fliplr': lambda a, k: _flip_runs_no_kernel(a[0], [1]),
    'flipud': lambda a, k: _flip_runs_no_kernel(a[0], [0]),
    'rot90': _rot90_runs_no_kernel,
    'argmax': _arg_reduction, 'argmin': _arg_reduction,
    'max': _extreme('max_cpu'), 'min': _extreme('min_cpu'),
    'aminmax': lambda a, k: _given_dim(_param(a, k, 1, 'dim')) and a[0]._data.ndim == 0,
    'amax': lambda a, k: a[0]._data.size == 0, 'amin': lambda a, k: a[0]._data.size == 0,
    # (with dims, count_nonzero sums ``input != 0``: no nonzero_count kernel)
    'count_nonzero': lambda a, k: _given_dim(_param(a, k, 1, 'dim')),
    'median': _median, 'nanmedian': _median,
    # (the first power is a copy: no eye, no product)
    'matrix_power': lambda a, k: _param(a, k, 1, 'n') == 1,
    'linalg_matrix_power': lambda a, k: _param(a, k, 1, 'n') == 1,
    'gather': _empty_index, 'scatter': _scatter_kernel, 'scatter_': _scatter_kernel,
    'softmax': _lastdim('softmax_lastdim_kernel_impl'),
    '_softmax': _lastdim('softmax_lastdim_kernel_impl'),
    'softmin': _lastdim('softmax_lastdim_kernel_impl'),
    'special_softmax': _lastdim('softmax_lastdim_kernel_impl'),
    'log_softmax': _lastdim('log_softmax_lastdim_kernel_impl'),
    '_log_softmax': _lastdim('log_softmax_lastdim_kernel_impl'),
    'special_log_softmax': _lastdim('log_softmax_lastdim_kernel_impl'),
    'polygamma': _polygamma_kernel, 'polygamma_': _polygamma_kernel,
    'special_polygamma': _polygamma_kernel,
    'lerp': lambda a, k: 'lerp_kernel_scalar' if type(_param(a, k, 2, 'weight')) in _NUMBERS
    else None,
    'lerp_': lambda a, k: 'lerp_kernel_scalar' if type(_param(a, k, 2, 'weight')) in _NUMBERS
    else None,
    'round': lambda a, k: 'round_cpu' if (k or {}).get('decimals') else None,
    'round_': lambda a, k: 'round_cpu' if (k or {}).get('decimals') else None,
    'unique': lambda a, k: 'unique_dim' if _param(a, k, 4, 'dim') is not None else None,
    'unique_consecutive': lambda a, k: 'unique_dim' if _param(a, k, 3, 'dim') is not None
    else None,
    'matmul': _one_d_product, '__matmul__': _one_d_product, 'linalg_matmul': _one_d_product,
    'inner': lambda a, k: 'dot' if _one_d_product(a, k) == 'dot' else None,
    'isin': _isin, 'equal': _equal, 'scatter_add': _empty_index, 'scatter_add_': _empty_index,
    'scatter_reduce': _empty_index, 'scatter_reduce_': _empty_index,
    'take_along_dim': lambda a, k: _empty_index(a, k, 1, 'indices'),
    # (the pivots unpacked by a scatter; the data alone by triu/tril)
    'lu_unpack': lambda a, k: _param(a, k, 3, 'unpack_pivots', True) is False,
    # (an output of one is the mean; return_indices runs max_pool2d's kernel)
    'adaptive_avg_pool1d': lambda a, k: 'sum_cpu' if _param(a, k, 1, 'output_size') in (
        1, (1,), [1]) else None,
    'max_pool1d': lambda a, k: 'max_pool2d' if _param(a, k, 6, 'return_indices') else None, 'div': _rounding_kernel, 'divide': _rounding_kernel,
    'div_': _rounding_kernel, 'divide_': _rounding_kernel,
    'pow': _pow_number, 'pow_': _pow_number, '__pow__': _pow_number, '__ipow__': _pow_number,
    # (dense dims: the values are taken as blocks, without index_select)
    'to_sparse_csr': lambda a, k: (_param(a, k, 1, 'dense_dim') or 0) > 0,
    'to_sparse_csc': lambda a, k: (_param(a, k, 1, 'dense_dim') or 0) > 0,
    # (the 0th difference is the input, copied)
    'diff': lambda a, k: _param(a, k, 1, 'n', 1) == 0,
    'clamp': _clamp, 'clip': _clamp, 'clamp_min': _clamp_bound('clamp_min_scalar_cpu'),
    'clamp_max': _clamp_bound('clamp_max_scalar_cpu'), 'add': _float_operand,
    'sub': _float_operand, 'subtract': _float_operand, '__add__': _float_operand,
    '__sub__': _float_operand, '__radd__': _float_operand, '__rsub__': _float_operand,
}


def _skips_kernel(name, error, args, kwargs):
    """``error`` (a row of ``refusals``) as it stands for this call of op ``name`` (see
    ``_KERNEL_SKIPS``): None where the call runs no kernel."""
    test = _KERNEL_SKIPS.get(name) if error[0] is NotImplementedError else None
    if test is None:
        return error
    r = test(args, kwargs or {})
    if r is True:
        return None
    if type(r) is str:  # (with '~': the row's narrowing kept)
        return (error[0], re.sub(r'^"\w+"', f'"{r.lstrip("~")}"', error[1]),
                error[2] if r[0] == '~' or error[2] == 'self' else None)
    if type(r) is tuple:
        return r + (None,)
    return error


# Of those, the kernels that refuse complex32 too (measured on torch 2.13; ``vdot``'s kernel
# is named ``vdot`` then)
_CHALF_KERNELS = {'masked_scatter': 'masked_scatter', 'gather': 'scatter_gather_tensor_cpu',
                  'scatter': 'scatter_gather_tensor_cpu', 'take': 'take_cpu',
                  'put': 'take_put_cpu', 'dot': 'dot', 'vdot': 'vdot',
                  # (and kernels of complex32 alone the probe's 2x2 tensors miss: a flip
                  # over rows runs none, the others take index tensors or 1-d/3-long dims)
                  'flip': 'flip_cpu', 'fliplr': 'flip_cpu', 'flipud': 'flip_cpu',
                  'rot90': 'flip_cpu', 'take_along_dim': 'scatter_gather_tensor_cpu',
                  'scatter_add': 'scatter_gather_tensor_cpu',
                  'scatter_reduce': 'scatter_gather_tensor_cpu', 'unique': 'unique',
                  'unique_consecutive': 'unique', 'addr': 'addr_cpu', 'cross': 'cross',
                  'linalg_cross': 'cross', 'max_unpool1d': 'max_unpool2d',
                  'max_unpool2d': 'max_unpool2d', '_masked_softmax': 'masked_softmax',
                  'avg_pool1d': 'avg_pool2d', 'avg_pool2d': 'avg_pool2d',
                  'avg_pool3d': 'avg_pool3d', 'pixel_shuffle': 'pixel_shuffle',
                  'pixel_unshuffle': 'pixel_unshuffle', 'channel_shuffle': 'channel_shuffle',
                  'native_channel_shuffle': 'channel_shuffle',
                  'lu_unpack': 'scatter_gather_scalar_cpu',
                  'adaptive_avg_pool1d': 'adaptive_avg_pool2d', 'max_pool1d': 'max_pool1d_impl'}


def _barebones_rows(name):
    kernel = _BAREBONES_KERNELS.get(name) or _BAREBONES_KERNELS.get(name[:-1])
    rows = ()
    when = 'self'
    if kernel is not None:
        kernel, when = kernel if type(kernel) is tuple else (kernel, 'self')
        rows = (('NotImplementedError', f'"{kernel}" not implemented for \'<dtype>\'',
                 'UInt16 UInt32 UInt64', when),)
    kernel = _CHALF_KERNELS.get(name) or _CHALF_KERNELS.get(name[:-1])
    if kernel is not None:  # (where torch runs no kernel, it runs none for complex32 either)
        rows += (('NotImplementedError', f'"{kernel}" not implemented for \'<dtype>\'',
                  'ComplexHalf', when),)
    return rows


def _applies(when, arrays, numbers, tensors=()):
    """Whether a refusal narrowed by ``when`` (see ``refusals``) applies to a call with
    these tensor ``arrays`` (of ``tensors``, where known) that has (``numbers``) a Python
    number argument or not."""
    if when == 'grad':  # (torch's autograd refuses the output: only where it records)
        from ..autograd.grad_mode import STATE
        return STATE.enabled and any(t.requires_grad for t in tensors)
    if when == 'numbers':
        return numbers
    if when == 'tensors':
        return len(arrays) > 1
    if when == 'nonempty':
        return any(a.size for a in arrays)
    if when == 'operands':
        return all(a.size for a in arrays)
    if when == 'second':  # (a Python number there: the op's body goes by the common dtype)
        return len(arrays) > 1 and bool(arrays[1].size)
    if when == 'dims':
        return all(a.ndim for a in arrays)
    if ' ' in when:
        return all(_applies(w, arrays, numbers, tensors) for w in when.split())
    return True


def _barebones(np_dtype):
    """True for the NumPy dtypes of uint16, uint32 and uint64."""
    return np_dtype is not None and np_dtype.kind == 'u' and np_dtype.itemsize > 1


def array_check(name, own=None, tensors_only=False, chalf_apart=False):
    """For the op builders (``pointwise._unary``/``_binary``): a ``check(x, *others)`` on
    the operand arrays that runs the op's ``own`` check (if any), then raises torch's error
    for a dtype torch's kernel refuses (with ``tensors_only``, an operand that is not an
    array -- a Python number -- is checked against the dtypes torch's kernel for a number
    refuses); ``own`` alone if the table has none for the op. Operands that do not
    broadcast get torch's shape error first, as torch checks shapes before dtypes. With
    ``chalf_apart``, a table refusing only complex32 gives no check: the builder calls
    ``refuse_chalf`` on the path only complex32 (and bfloat16) arrays take, so the other
    dtypes pay nothing for it."""
    refused = refusals(name)
    if refused is None:
        return own
    if chalf_apart and own is None and all(d.names is not None for d in refused):
        return None  # (complex32 alone: the builder checks it on its own path, refuse_chalf)
    with_number = refusals(name, True) if tensors_only else None
    if with_number is None:
        with_number = refused

    def check(x, *others):
        try:
            if own is not None:
                own(x, *others)
            table = refused if not tensors_only or type(others[0]) is np.ndarray \
                else with_number
            error = table.get(x.dtype) if table is not None else None
            if error is not None and _barebones(x.dtype) and \
                    any(type(o) in (float, complex) for o in others):
                error = None  # (uint16+ and a float number: torch's kernel runs in float)
            if error is not None and (error[2] is None or _applies(
                    error[2], [x] + [o for o in others if type(o) is np.ndarray],
                    any(type(o) is not np.ndarray for o in others))):
                raise error[0](error[1])
        except (RuntimeError, NotImplementedError) as e:
            shapes = [o.shape for o in others if type(o) is np.ndarray]
            if shapes and not any(w in str(e) for w in _BEFORE_SHAPES_WORDS):
                from ._core import check_broadcast
                check_broadcast(x.shape, *shapes)
            raise
    return check


def refuse_chalf(name, x):
    """The table's refusal of a complex32 operand ``x`` for a builder that checked it apart
    (``array_check(..., chalf_apart=True)``)."""
    check = array_check(name)
    if check is not None:
        check(x)


def refuse_dtypes(public_name, refused, args, kwargs):
    """Raises torch's error if the call's tensors (its arguments, and those in a list given
    first) all have one dtype that torch's kernel refuses. Calls that name a dtype pass;
    with a Python number as the second operand, the refusals of torch's kernel for a
    number count."""
    from .._tensor import Tensor
    from .._dtype import dtype as dtype_type
    if kwargs and kwargs.get('dtype') is not None:  # (dtype=None names none)
        # (only a named complex32 can be refused: checked by name, no import on this path)
        if kwargs['dtype'] is _complex32():
            _dtype_named(public_name, kwargs['dtype'], refused, args, kwargs)
        return
    dtype = None
    mixed = False  # (tensors of several dtypes: only a refusal of the first one's stands)
    seq = args[0] if args and type(args[0]) in (list, tuple) else ()
    if not seq and len(args) > 1 and type(args[0]) in (float, complex) and \
            isinstance(args[1], Tensor) and _barebones(args[1]._data.dtype):
        return  # (``sub(1.5, uint16_t)``: a float number first, the kernel runs in float)
    for i, a in enumerate((*seq, *args)):
        if isinstance(a, Tensor):
            d = a._data.dtype
            if dtype is None:
                dtype = d
            elif d != dtype:
                mixed = True
        elif isinstance(a, dtype_type):
            if '.nn.functional.' in public_name:  # (F.softmax(x, dim, d): d is _stacklevel;
                return  # nn.functional takes dtype= by keyword only)
            return _dtype_named(public_name, a, refused, args, kwargs)
        elif type(a) in _NUMBERS and i == len(seq) + 1:
            if type(a) in (float, complex) and _barebones(dtype) and \
                    _op_name(public_name) not in _NUMBER_KEEPS_DTYPE:
                return  # (uint16+ and a float number: torch's kernel runs in float)
            # (a number as the second operand: torch's kernel for a number decides)
            number = refusals(public_name, True)
            if number is not None:
                refused = number
    error = refused.get(dtype) if dtype is not None else None
    if error is not None and error[0] is NotImplementedError:
        name = _op_name(public_name)
        if name in _KERNEL_SKIPS:
            error = _skips_kernel(name, error, args, kwargs)
    if error is not None:
        if mixed and error[2] != 'self':
            return
        if error[2] not in (None, 'self'):
            given = (*seq, *args, *(v for k, v in (kwargs or {}).items() if k != 'out'))
            tensors = [a for a in given if isinstance(a, Tensor)]
            if any(a._data.dtype != dtype for a in tensors):
                return  # (mixed through a keyword: pinv(complex A, atol=float tensor))
            if not _applies(error[2], [a._data for a in tensors],
                            any(type(a) in _NUMBERS for a in given), tensors):
                return
        raise error[0](error[1])


_CHALF = []


def _complex32():
    """ember.complex32 (imported on first use: _args loads before the dtypes)."""
    if not _CHALF:
        from .._dtype import complex32
        _CHALF.append(complex32)
    return _CHALF[0]


def _dtype_named(public_name, dtype, refused, args, kwargs):
    """A call that names the dtype its kernel computes in: a refusal of complex32 is of
    that dtype, whatever the input's (``sum(x, dtype=complex32)``, ``softmax(x, 0,
    complex32)``); another dtype, none."""
    from .._tensor import Tensor
    from .._dtype import complex32
    if dtype is complex32:
        error = refused.get(complex32.np)
        if error is None or error[0] is not NotImplementedError:
            return  # (only the kernel's refusal is of the dtype it computes in; the others
            # check the input -- nansum's "does not support complex inputs")
        error = _skips_kernel(_op_name(public_name), error, args, kwargs)
        if error is not None and (error[2] is None or _applies(
                error[2], [a._data for a in args if isinstance(a, Tensor)], False)):
            raise error[0](error[1])


_DEPRECATED_WARNED = []


def positional_form(key, args, kwargs=None):
    """A call ``args`` (``self`` first for a ``Tensor.`` key) that passes more arguments by
    position than the op's current form takes, bound to the first of torch's overloads that
    takes them by position (``sub(input, alpha, other)``, deprecated, or ``subtract(input,
    other, alpha)``): {parameter name: value}, after torch's warning for a deprecated form;
    torch's TypeError where no overload takes the call."""
    import warnings  # (only here: the deprecated forms are rare)
    cname, overloads = signatures(key)
    rest = args[1:] if key.startswith('Tensor.') else args
    for s in overloads:
        if not s.unlisted and not s.noargs and s.npos >= len(rest) and \
                s.bind(rest, kwargs, False):
            if s.hidden and not _DEPRECATED_WARNED:
                _DEPRECATED_WARNED.append(True)  # (torch warns once a process, for any op)
                current = '\n'.join(f'\t{cname}{o.shown()}' for o in overloads if not o.hidden)
                warnings.warn(f"This overload of {cname} is deprecated:\n\t{cname}{s.shown()}\n"
                              f"Consider using one of the following signatures instead:\n"
                              f"{current}", UserWarning, stacklevel=4)
            return {**dict(zip((p.name for p in s.params), rest)), **(kwargs or {})}
    check(key, args, kwargs)
    raise TypeError(f"{cname}() takes {overloads[0].npos} positional arguments but "
                    f"{len(rest)} were given")


def tensor_varargs(tensors):
    """The tensors of a ``*tensors`` function of torch's (broadcast_tensors, cartesian_prod,
    chain_matmul): torch hands the tuple to its parser as one list of tensors, so anything
    else in it -- a list of tensors included -- is its TypeError."""
    from .._tensor import Tensor
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{_type_name(t)}")
    return tensors


def takes_numbers(name, position):
    """True if the function ``ember.<name>`` takes a Python number at ``position`` (0: its
    input) in some overload (an op without a known signature: True)."""
    sigs = signatures(name)
    if sigs is None:
        return True
    for s in sigs[1]:
        if len(s.params) > position and int in s.params[position].plain:
            return True
    return False


_CO_VARARGS = 0x04  # (inspect.CO_VARARGS: the code object of a ``*args`` function)


def fast_runner(public_name, impl):
    """What the wrapper's fast path calls for the op: ``impl``, or ``impl`` behind a test
    that sends to ``check`` the calls the fast path cannot judge by its one type test:

    * fewer positional arguments than every overload of torch's requires, where ``impl``
      would take them (``Tensor.where()`` would run as the one-argument ``where``);
    * a Python number in a place where no overload takes one, in an op that takes numbers
      elsewhere (``t.addcdiv(1.5, t)``: 1.5 passes the fast path for ``value``'s sake).

    Only the ops that need it pay for it (a call frame): see ``ember.overrides``."""
    key = key_of(public_name)
    sigs = signatures(key)
    code = getattr(impl, '__code__', None)
    if sigs is None or code is None:
        return impl
    visible = [s for s in sigs[1] if not s.hidden and not s.noargs]
    if not visible:
        return impl
    shift = 1 if key.startswith('Tensor.') else 0  # (self)
    takes_numbers = any(t in _NUMBERS for s in visible for p in s.params for t in p.plain)
    least = min(sum(1 for p in s.params if not p.has_default and not p.kwonly)
                for s in visible) + shift
    # (a ``*args`` body takes as few as its named parameters: ``view(input, *shape)`` would
    # run ``t.view()`` as ``t.view(())``)
    takes = code.co_argcount - len(impl.__defaults__ or ())
    # per position: the number types some overload takes there, and whether every
    # overload wants a tensor there
    width = max(s.npos for s in visible)
    numbers = [set() for _ in range(width)]
    tensors = [True] * width
    for s in visible:
        for i in range(width):
            p = s.params[i] if i < s.npos else None
            if p is None or p.display not in ('Tensor', 'tuple of Tensors'):
                tensors[i] = False
            if p is not None:
                numbers[i].update(t for t in p.plain if t in _NUMBERS)
    # (only places that take no number at all, past the first argument: a number at the
    # first place finds the body without a tensor, which then raises; int-for-bool and
    # float-for-int strictness is left to the checked path, to keep the fast path light)
    # (nor in an op whose size list may come unpacked, ``t.view(2, 3)``: the count alone)
    strict = () if any(s.varargs for s in visible) else \
        tuple((i + shift, frozenset(n)) for i, n in enumerate(numbers)
              if not n and tensors[i] and i + shift > 0 and takes_numbers)
    # places where every overload wants a float or a Number, none a tensor: a tensor there
    # must be 0-dim and not require grad (``t.bernoulli(p_tensor)`` is torch's TypeError)
    scalars = tuple(i + shift for i in range(width) if all(
        i < s.npos and s.params[i].display in ('float', 'Number') or
        i >= s.npos or s.params[i].display not in ('Tensor', 'tuple of Tensors')
        for s in visible) and any(
        i < s.npos and s.params[i].display in ('float', 'Number') for s in visible))
    # (a ``*args`` body takes any number: where no overload of torch's takes its list
    # unpacked -- the function forms, ``torch.permute(t, 1, 0)`` -- a call with more
    # arguments than every overload has is torch's TypeError)
    most = width + shift if code.co_flags & _CO_VARARGS and \
        not any(s.varargs for s in visible) else None
    if least <= takes and not strict and not scalars and most is None:
        return impl
    from .._tensor import Tensor

    def counted(*args):
        if len(args) < least or most is not None and len(args) > most:
            check(public_name, args, None)
        for i, ok in strict:
            if i < len(args) and type(args[i]) in _NUMBERS and type(args[i]) not in ok:
                check(public_name, args, None)
        for i in scalars:
            if i < len(args) and isinstance(args[i], Tensor):
                check(public_name, args, None)
        return impl(*args)
    return counted
