"""Samplers: the order in which a DataLoader visits a map-style dataset's indices, one by one
(``Sampler`` and its kinds) or in batches (``BatchSampler``)."""
import itertools
from typing import Generic, TypeVar

from ... import Generator, as_tensor, empty, float64, int64, multinomial, randint, randperm

__all__ = ['Sampler', 'SequentialSampler', 'RandomSampler', 'SubsetRandomSampler',
           'WeightedRandomSampler', 'BatchSampler']

T_co = TypeVar('T_co', covariant=True)


def check_positive_int(name, value):
    """Raises torch's ValueError unless ``value`` is an int > 0 (a bool is not an int here)."""
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


def check_bool(name, value, error=ValueError):
    """Raises ``error`` (torch's type for that argument) unless ``value`` is a bool."""
    if not isinstance(value, bool):
        raise error(f"{name} should be a boolean value, but got {name}={value}")


class Sampler(Generic[T_co]):
    """Base class of samplers: a subclass defines ``__iter__`` (yielding indices, or lists
    of indices for a batch sampler) and usually ``__len__``.

    >>> class Evens(Sampler[int]):
    ...     def __init__(self, n): self.n = n
    ...     def __iter__(self): return iter(range(0, self.n, 2))
    >>> list(Evens(5))
    [0, 2, 4]
    """

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Yields ``0, 1, ..., len(data_source) - 1``, the same order every time.

    >>> list(SequentialSampler('abc'))
    [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _seeded_generator(generator):
    """``generator``, or when None a fresh one seeded from ember's default generator, so
    ``ember.manual_seed`` makes the order reproducible while each epoch takes only one draw
    from the default stream (torch's rule)."""
    if generator is not None:
        return generator
    seed = int(empty((), dtype=int64).random_())
    return Generator().manual_seed(seed)


_CHUNK = 32  # indices RandomSampler(replacement=True) draws at a time (torch's number)


class RandomSampler(Sampler[int]):
    """Yields the indices of ``data_source`` in a random order: a fresh permutation each
    iteration (repeated when ``num_samples`` exceeds the length), or with
    ``replacement=True`` ``num_samples`` independent uniform draws. ``generator`` gives the
    randomness; without it each iteration is seeded from ember's default generator.

    >>> sorted(RandomSampler(range(4)))
    [0, 1, 2, 3]
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        check_bool('replacement', replacement, TypeError)
        # torch's own check here accepts a bool (it is an int), unlike check_positive_int.
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        """How many indices one iteration yields (the dataset's length unless given)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = _seeded_generator(self.generator)
        if self.replacement:
            # Drawn lazily, _CHUNK at a time as torch does: num_samples may be far larger
            # than memory (10**10 indices would be 75 GiB at once). NumPy's integer draws
            # are sequential, so the indices are the same as one draw of num_samples.
            full, rest = divmod(self.num_samples, _CHUNK)
            for _ in range(full):
                yield from randint(n, (_CHUNK,), generator=g).tolist()
            if rest:
                yield from randint(n, (rest,), generator=g).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=g).tolist()
        yield from randperm(n, generator=g).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """Yields the elements of ``indices`` in a random order (a new one each iteration),
    without replacement.

    >>> sorted(SubsetRandomSampler([7, 3, 5]))
    [3, 5, 7]
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """Yields ``num_samples`` indices into ``weights``, index ``i`` drawn with probability
    proportional to ``weights[i]``; with ``replacement=False`` no index repeats.

    >>> s = WeightedRandomSampler([0.0, 1.0, 0.0], 3)
    >>> list(s)
    [1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        check_positive_int('num_samples', num_samples)
        check_bool('replacement', replacement)
        weights = as_tensor(weights, dtype=float64)
        if weights.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        drawn = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from drawn.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups the indices of ``sampler`` (any iterable) into lists of ``batch_size``; the
    last, shorter list is dropped when ``drop_last``.

    >>> list(BatchSampler(range(5), 2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    >>> list(BatchSampler(range(5), 2, drop_last=True))
    [[0, 1], [2, 3]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        check_positive_int('batch_size', batch_size)
        check_bool('drop_last', drop_last)
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        size = self.batch_size
        while True:
            batch = list(itertools.islice(it, size))
            if len(batch) < size and (self.drop_last or not batch):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return -(-len(self.sampler) // self.batch_size)


class _InfiniteConstantSampler(Sampler):
    """The sampler a DataLoader gives an IterableDataset: ``None`` forever (the dataset's
    own iterator decides what comes next and when it ends)."""

    def __iter__(self):
        return itertools.repeat(None)
