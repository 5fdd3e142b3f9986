"""Datasets: map-style (``Dataset``: ``ds[i]`` and ``len(ds)``) and iterable-style
(``IterableDataset``: ``iter(ds)``), the ready-made kinds (tensors, stacks, concatenations,
chains, subsets) and ``random_split``."""
import bisect
import itertools
import math
import warnings
from collections.abc import Iterable
from typing import Generic, TypeVar

import numpy as np

from ... import default_generator, from_numpy, randperm
from ..._tensor import Tensor
from ...overrides import MODES, _modes_on as modes_on

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'StackDataset', 'ConcatDataset',
           'ChainDataset', 'Subset', 'random_split']

T_co = TypeVar('T_co', covariant=True)


class Dataset(Generic[T_co]):
    """Base class of map-style datasets: a subclass defines ``__getitem__`` (a sample for a
    key) and usually ``__len__``; it may define ``__getitems__(indices)`` returning a list of
    samples, which a DataLoader then calls once per batch. ``a + b`` concatenates.

    >>> class Squares(Dataset):
    ...     def __getitem__(self, i): return i * i
    ...     def __len__(self): return 4
    >>> [Squares()[i] for i in range(4)], len(Squares() + Squares())
    ([0, 1, 4, 9], 8)
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable):
    """Base class of iterable-style datasets (streams): a subclass defines ``__iter__``
    (abstract: without it the class cannot be instantiated).
    A DataLoader batches what it yields, in order; ``a + b`` chains.

    >>> class Count(IterableDataset):
    ...     def __iter__(self): return iter(range(3))
    >>> list(Count() + Count())
    [0, 1, 2, 0, 1, 2]
    """

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; the tensors share their first size.

    >>> ds = TensorDataset(ember.arange(3), ember.tensor([1.0, 2.0, 3.0]))
    >>> ds[1], len(ds)
    ((tensor(1), tensor(2.)), 3)
    """

    def __init__(self, *tensors):
        if any(t.size(0) != tensors[0].size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)

    def _collated_batch(self, indices):
        """What ``default_collate([self[i] for i in indices])`` returns, made with one
        gather per tensor instead of len(indices) indexings and a stack; None where that
        could differ: a subclass, a tensor subclass or one requiring grad (autograd would
        record a different node), an active TorchFunctionMode (it would see other calls),
        indices that are not plain integers, or one out of range (left to the per-sample
        path, which raises torch's error)."""
        if type(self).__getitem__ is not TensorDataset.__getitem__ or (MODES and modes_on()):
            return None
        for t in self.tensors:
            if type(t) is not Tensor or t.requires_grad:
                return None
        idx = np.asarray(indices)
        if idx.dtype.kind not in 'iu' or idx.ndim != 1 or not len(idx):
            return None
        # Gathering the rows of the arrays costs ~1 us per tensor; going through the
        # indexing op costs ~10 us (its index classification and bounds checks).
        try:
            return [from_numpy(t.numpy().take(idx, axis=0)) for t in self.tensors]
        except IndexError:
            return None


def _same_length(datasets):
    """The length the datasets share (torch's ValueError if they differ)."""
    length = len(datasets[0])
    if any(len(d) != length for d in datasets):
        raise ValueError("Size mismatch between datasets")
    return length


class StackDataset(Dataset):
    """Sample ``i`` gathers sample ``i`` of each dataset: a tuple for positional datasets,
    a dict for keyword ones. The datasets share their length.

    >>> StackDataset([1, 2], 'ab')[1], StackDataset(x=[1, 2], y='ab')[0]
    ((2, 'b'), {'x': 1, 'y': 'a'})
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args or kwargs
        self._length = _same_length(list(args or kwargs.values()))

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        keyed = isinstance(self.datasets, dict)
        names = list(self.datasets) if keyed else range(len(self.datasets))
        columns = [_fetch_many(self.datasets[k], indices) for k in names]
        if keyed:
            return [dict(zip(names, row)) for row in zip(*columns)]
        return [tuple(row) for row in zip(*columns)]

    def __len__(self):
        return self._length


def _fetch_many(dataset, indices):
    """``[dataset[i] for i in indices]``, through ``__getitems__`` where the dataset has it."""
    getitems = getattr(dataset, '__getitems__', None)
    if not callable(getitems):
        return [dataset[i] for i in indices]
    items = getitems(indices)
    if len(items) != len(indices):
        raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, "
                         f"got {len(items)}")
    return items


class ConcatDataset(Dataset):
    """The datasets one after another: indices ``0..len(a)-1`` reach ``a``, the next ones
    ``b``, and so on (negative indices count from the end).

    >>> ds = ConcatDataset([[1, 2], [3]])
    >>> [ds[i] for i in range(3)], ds[-1], ds.cumulative_sizes
    ([1, 2, 3], 3, [2, 3])
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


def _only_iterable(datasets):
    """The datasets, one by one, refusing any that is not an IterableDataset."""
    for d in datasets:
        if not isinstance(d, IterableDataset):
            raise AssertionError("ChainDataset only supports IterableDataset")
        yield d


class ChainDataset(IterableDataset):
    """Iterable datasets one after another, read lazily.

    >>> class Count(IterableDataset):
    ...     def __iter__(self): return iter(range(2))
    >>> list(ChainDataset([Count(), Count()]))
    [0, 1, 0, 1]
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in _only_iterable(self.datasets):
            yield from d

    def __len__(self):
        return sum(len(d) for d in _only_iterable(self.datasets))


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``: ``Subset(ds, idx)[i]`` is
    ``ds[idx[i]]``. A subclass that overrides ``__getitem__`` must override
    ``__getitems__`` too (the DataLoader calls the latter).

    >>> Subset('abcde', [4, 0])[0], len(Subset('abcde', [4, 0]))
    ('e', 2)
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. When subclassing "
                "Subset and overriding __getitem__, you must also override __getitems__ to "
                "ensure DataLoader works correctly with your custom logic. A simple "
                "implementation:\n\ndef __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        return _fetch_many(self.dataset, [self.indices[i] for i in indices])

    def __len__(self):
        return len(self.indices)

    def _collated_batch(self, indices):
        """The wrapped dataset's shortcut (see ``TensorDataset._collated_batch``) at the
        mapped indices, or None."""
        if type(self).__getitems__ is not Subset.__getitems__:
            return None
        inner = getattr(self.dataset, '_collated_batch', None)
        return inner([self.indices[i] for i in indices]) if inner is not None else None


def _split_lengths(fractions, n):
    """torch's rule: floor(n * f) each, then the remainder handed out one by one from the
    first split on."""
    lengths = []
    for i, f in enumerate(fractions):
        if f < 0 or f > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * f))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                          "dataset.", stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=default_generator):
    """Splits ``dataset`` into non-overlapping random ``Subset``s of the given ``lengths``,
    or of fractions of its length when ``lengths`` sum to 1 (rounded down, the remainder
    spread one by one from the first split). ``generator`` makes it reproducible.

    >>> a, b = random_split(range(10), [0.7, 0.3], generator=ember.Generator().manual_seed(0))
    >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
    (7, 3, True)
    """
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        lengths = _split_lengths(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(sum(lengths), generator=generator).tolist()
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, order[end - length:end]) for end, length in zip(ends, lengths)]
