"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""
import collections
import collections.abc
import itertools
import operator
import warnings

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, _indent

__all__ = ['Sequential', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict',
           'Container']


class Container(Module):
    """The deprecated container of torch's first versions: a Module whose keyword arguments
    become its named children."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class _ModuleSequence(Module):
    """What Sequential and ModuleList share: children numbered ``'0'``, ``'1'``, ... in
    order, renumbered after a deletion."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def _key_at(self, idx):
        """The name of the child at integer position ``idx`` (negative counts from the end)."""
        keys = list(self._modules)
        return keys[_index(idx, len(keys))]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules)[idx]:
                delattr(self, key)
        else:
            delattr(self, self._key_at(idx))
        # the survivors are renumbered from 0, as torch does (named children too)
        object.__setattr__(self, '_modules',
                           {str(i): m for i, m in enumerate(self._modules.values())})

    def pop(self, idx):
        """Removes the child (or, for a slice, the children) at ``idx`` and returns it."""
        value = self[idx]
        del self[idx]
        return value

    def append(self, module):
        """Adds ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def _shift_in(self, index, module):
        # moves the children from ``index`` on one place up (by name, as torch does), then
        # puts ``module`` at ``index``
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module


class Sequential(_ModuleSequence):
    """Runs its modules in order, each on the previous one's output. Built from modules or
    an OrderedDict of named modules; indexing and slicing give modules and Sequentials.
    Like a list it supports item assignment and deletion, ``pop``, ``insert``, ``extend``,
    ``+``/``+=`` with another Sequential and ``*``/``*=`` with a positive int."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(collections.OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key_at(idx)]

    def _check_sequential(self, other):
        if not isinstance(other, Sequential):
            raise ValueError('add operator supports only objects of Sequential class, but '
                             f'{type(other)} is given.')

    def __add__(self, other):
        self._check_sequential(other)
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other):
        self._check_sequential(other)
        return self.extend(other)

    def _check_factor(self, other):
        if not isinstance(other, int):
            raise TypeError(f'unsupported operand type(s) for *: {type(self)} and '
                            f'{type(other)}')
        if other <= 0:
            raise ValueError(f'Non-positive multiplication factor {other} for {type(self)}')

    def __mul__(self, other):
        self._check_factor(other)
        combined = Sequential()
        for _ in range(other):
            combined.extend(self)
        return combined

    def __rmul__(self, other):
        return self.__mul__(other)

    def __imul__(self, other):
        self._check_factor(other)
        n = len(self)
        for _ in range(other - 1):
            for i in range(n):
                self.append(self._modules[str(i)])
        return self

    def insert(self, index, module):
        """Puts ``module`` before position ``index`` (``-len <= index <= len``); returns
        self."""
        if not isinstance(module, Module):
            raise AssertionError(f'module should be of type: {Module}')
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f'Index out of range: {index}')
        self._shift_in(index + n if index < 0 else index, module)
        return self

    def extend(self, sequential):
        """Appends every module of the iterable ``sequential``; returns self."""
        for layer in sequential:
            self.append(layer)
        return self


def _index(idx, n):
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f'index {idx} is out of range')
    return idx % n


class ModuleList(_ModuleSequence):
    """A list of submodules, registered so that parameters() sees them. Supports item
    assignment and deletion, ``insert``, ``pop``, ``extend``, ``+=`` with any iterable of
    modules and ``+`` giving a new ModuleList."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self)))]

    def __setitem__(self, idx, module):
        setattr(self, str(_index(idx, len(self))), module)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(itertools.chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def insert(self, index, module):
        """Puts ``module`` before position ``index`` (a non-negative one, as torch)."""
        self._shift_in(index, module)

    def __repr__(self):
        # runs of consecutive children with the same repr are shown once: "(0-2): 3 x ..."
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + '()'
        runs = []  # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = []
        for first, last, r in runs:
            head = f'({first}):' if first == last else f'({first}-{last}): {last - first + 1} x'
            lines.append(_indent(f'{head} {r}', 2))
        return self._get_name() + '(\n  ' + '\n  '.join(lines) + '\n)'

    def extend(self, modules):
        """Appends every module of the iterable ``modules``; returns self."""
        if not isinstance(modules, collections.abc.Iterable):
            raise TypeError('ModuleList.extend should be called with an iterable, but got '
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """A dict of named submodules, registered so that parameters() sees them. Built from
    (and ``update``d with) a mapping, kept in its order, or an iterable of (key, module)
    pairs."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        """The names."""
        return self._modules.keys()

    def values(self):
        """The modules."""
        return self._modules.values()

    def items(self):
        """(name, module) pairs."""
        return self._modules.items()

    def __delitem__(self, key):
        del self._modules[key]

    def clear(self):
        """Removes every module."""
        self._modules.clear()

    def pop(self, key):
        """Removes the module named ``key`` and returns it."""
        value = self[key]
        del self[key]
        return value

    def update(self, modules):
        """Adds (or replaces) the modules of a mapping (in its order) or of an iterable of
        (key, module) pairs."""
        if not isinstance(modules, collections.abc.Iterable):
            raise TypeError('ModuleDict.update should be called with an iterable of key/value '
                            'pairs, but got ' + type(modules).__name__)
        if isinstance(modules, (collections.abc.Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, collections.abc.Iterable):
                raise TypeError(f'ModuleDict update sequence element #{j} should be Iterable; '
                                f'is{type(pair).__name__}')
            if len(pair) != 2:
                raise ValueError(f'ModuleDict update sequence element #{j} has length '
                                 f'{len(pair)}; 2 is required')
            self[pair[0]] = pair[1]


def _entry_line(key, value, dtype_text):
    """One line of a ParameterList/ParameterDict repr, as torch prints it."""
    if isinstance(value, Tensor):
        kind = 'Parameter' if isinstance(value, Parameter) else 'Tensor'
        size = 'x'.join(str(n) for n in value.size())
        return f'  ({key}): {kind} containing: [{dtype_text(value)} of size {size}]'
    return f'  ({key}): Object of type: {type(value).__name__}'


class ParameterList(Module):
    """A list of parameters, registered so that ``parameters()`` and ``state_dict()`` see
    them under the names ``'0'``, ``'1'``, ... Tensors put in it (by the constructor,
    ``append``, ``extend`` or item assignment) become Parameters; other objects are kept
    as they are.

    >>> ember.nn.ParameterList([ember.ones(3, 4)])
    ParameterList(  (0): Parameter containing: [torch.float32 of size 3x4])
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _abs_index(self, idx):
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f'index {idx} is out of range')
        return str(idx % len(self))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._abs_index(idx))

    def __setitem__(self, idx, param):
        name = self._abs_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, name, param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        """Adds ``value`` at the end (a tensor becomes a Parameter); returns self."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        """Appends every element of the iterable ``values``; returns self."""
        if not isinstance(values, collections.abc.Iterable) or isinstance(values, Tensor):
            raise TypeError('ParameterList.extend should be called with an iterable, but got '
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        """One line per element: its kind, dtype and size."""
        return '\n'.join(_entry_line(i, p, lambda t: str(t.dtype)) for i, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError('ParameterList should not be called.')


class ParameterDict(Module):
    """An ordered dict of parameters keyed by strings, registered so that ``parameters()``
    and ``state_dict()`` see them under their keys. Tensors put in it become Parameters;
    other objects are kept as they are. Built from (and ``update``d with) a mapping, whose
    keys are sorted unless it is an OrderedDict or a ParameterDict, or from (key, value)
    pairs.

    >>> ember.nn.ParameterDict({'w': ember.ones(2)})
    ParameterDict(  (w): Parameter containing: [torch.FloatTensor of size 2])
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key):
        if not isinstance(key, str):
            raise TypeError('Index given to ParameterDict cannot be used as a key as it is not '
                            f"a string (type is '{type(key).__name__}'). Open an issue on "
                            'github if you need non-string keys.')
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        self._keys[key] = None  # (before the key check, as in torch)
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        """A new ParameterDict holding the same values (not copies of them)."""
        return ParameterDict(collections.OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        """The value at ``key``, first setting it to ``default`` if the key is missing."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        """Removes every entry."""
        for k in self._keys.copy():
            del self[k]

    def pop(self, key):
        """Removes ``key`` and returns its value."""
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        """Removes and returns the last inserted ``(key, value)`` pair."""
        k, _ = self._keys.popitem()
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key, default=None):
        """The value at ``key`` if present, else ``default``."""
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        """A new ParameterDict with every key of ``keys`` set to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        """The keys, in insertion order."""
        return self._keys.keys()

    def items(self):
        """(key, value) pairs, in insertion order."""
        return ((k, self[k]) for k in self._keys)

    def values(self):
        """The values, in insertion order."""
        return (self[k] for k in self._keys)

    def update(self, parameters):
        """Sets the entries of a mapping or an iterable of (key, value) pairs, overwriting
        existing keys. A plain mapping is taken in sorted key order."""
        if not isinstance(parameters, collections.abc.Iterable):
            raise TypeError('ParametersDict.update should be called with an iterable of '
                            'key/value pairs, but got ' + type(parameters).__name__)
        if isinstance(parameters, (collections.OrderedDict, ParameterDict)):
            pairs = parameters.items()
        elif isinstance(parameters, collections.abc.Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = []
            for j, p in enumerate(parameters):
                if not isinstance(p, collections.abc.Iterable):
                    raise TypeError(f'ParameterDict update sequence element #{j} should be '
                                    f'Iterable; is{type(p).__name__}')
                if len(p) != 2:
                    raise ValueError(f'ParameterDict update sequence element #{j} has length '
                                     f'{len(p)}; 2 is required')
                self[p[0]] = p[1]
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        """One line per entry: its kind, tensor type and size."""
        return '\n'.join(_entry_line(k, p, lambda t: 'torch.' + t.dtype._legacy)
                         for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError('ParameterDict should not be called.')

    def __or__(self, other):
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other):
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other):
        self.update(other)
        return self
