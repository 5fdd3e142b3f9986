"""Containers: Sequential, ModuleList, ModuleDict."""
import collections
import collections.abc

from .module import Module, _indent

__all__ = ['Sequential', 'ModuleList', 'ModuleDict']


class Sequential(Module):
    """Runs its modules in order, each on the previous one's output. Built from modules or
    an OrderedDict of named modules; indexing and slicing give modules and Sequentials."""

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
        items = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(collections.OrderedDict(items[idx]))
        return items[_index(idx, len(items))][1]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        """Adds ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self


def _index(idx, n):
    if not -n <= idx < n:
        raise IndexError(f'index {idx} is out of range')
    return idx % n


class ModuleList(Module):
    """A list of submodules, registered so that parameters() sees them."""

    def __init__(self, modules=None):
        super().__init__()
        for m in modules or ():
            self.append(m)

    def __getitem__(self, idx):
        values = list(self._modules.values())
        if isinstance(idx, slice):
            return ModuleList(values[idx])
        return values[_index(idx, len(values))]

    def __setitem__(self, idx, module):
        self.add_module(str(_index(idx, len(self))), module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        """Adds ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

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
        """Appends every module of ``modules``; returns self."""
        for m in modules:
            self.append(m)
        return self


class ModuleDict(Module):
    """A dict of named submodules, registered so that parameters() sees them."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            pairs = modules.items() if isinstance(modules, collections.abc.Mapping) else modules
            for name, m in pairs:
                self.add_module(name, m)

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
