"""DataLoader: iterates a dataset in batches, in the main process or in worker processes.

A loader turns its options into one index sampler -- a ``BatchSampler`` over a
``SequentialSampler``/``RandomSampler`` by default -- and each step fetches the samples at
the next indices and collates them: here (``num_workers=0``, ``_LoaderIter``) or in worker
processes (``_multiprocessing_iter``, whose workers run ``_worker.worker_loop``).
"""
import functools
import itertools
import math
import warnings
from typing import Generic, TypeVar

from .collate import default_collate, default_convert
from ._multiprocessing_iter import MultiProcessingLoaderIter, check_multiprocessing_context
from ._worker import get_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, _InfiniteConstantSampler, RandomSampler, SequentialSampler

__all__ = ['DataLoader', 'get_worker_info']

T_co = TypeVar('T_co', covariant=True)

# Options that define the index stream; changing them under a live loader is refused.
_FROZEN = frozenset({'batch_size', 'batch_sampler', 'sampler', 'drop_last', 'dataset',
                     'persistent_workers'})


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                          multiprocessing_context):
    """torch's checks of the worker options, in torch's order."""
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in "
                         "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                         "otherwise set prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None and num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")


def _check_iterable_options(shuffle, sampler, batch_sampler):
    """An IterableDataset decides its own order: no shuffle, sampler or batch_sampler."""
    given = (('shuffle', shuffle, shuffle not in (False, None)),
             ('sampler', sampler, sampler is not None),
             ('batch_sampler', batch_sampler, batch_sampler is not None))
    for name, value, bad in given:
        if bad:
            raise ValueError("DataLoader with IterableDataset: expected unspecified "
                             f"{name} option, but got {name}={value}")


class DataLoader(Generic[T_co]):
    """Iterates ``dataset`` in batches of ``batch_size`` samples, collated by ``collate_fn``
    (``default_collate``: tensors stacked, numbers made tensors, structure kept).

    ``shuffle=True`` visits a new random order each pass (from ``generator``, else seeded
    from ember's default generator); ``sampler`` gives any order of indices,
    ``batch_sampler`` any grouping (mutually exclusive with ``batch_size``, ``shuffle``,
    ``sampler`` and ``drop_last``); ``drop_last`` drops a final short batch;
    ``batch_size=None`` turns batching off (each sample goes through ``default_convert``).
    An ``IterableDataset`` is read in its own order. ``len(loader)`` is the number of
    batches. ``num_workers > 0`` loads in that many worker processes (started with
    ``multiprocessing_context``, default the platform's), each seeded from ``generator``
    and set up by ``worker_init_fn(worker_id)``, with ``prefetch_factor`` batches in
    flight per worker, kept for the next pass when ``persistent_workers``; batches come out
    in the sampler's order (``in_order=False``: as they arrive); ``timeout`` bounds the
    wait for one batch; a worker's exception is raised here with its traceback. An
    ``IterableDataset`` is copied into every worker: shard it with ``get_worker_info()``.
    ``pin_memory`` is accepted and has no effect (it warns, as torch does without an
    accelerator).

    >>> ds = TensorDataset(ember.arange(5), ember.arange(5) * 10)
    >>> [b for b in DataLoader(ds, batch_size=2)][-1], len(DataLoader(ds, batch_size=2))
    ([tensor([4]), tensor([40])], 3)
    """

    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device='',
                 in_order=True):
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                              multiprocessing_context)
        if isinstance(dataset, IterableDataset):
            _check_iterable_options(shuffle, sampler, batch_sampler)
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if isinstance(dataset, IterableDataset):
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.collate_fn = collate_fn
        self.generator = generator
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = check_multiprocessing_context(multiprocessing_context)
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._IterableDataset_len_called = None
        self._iterator = None       # the persistent workers' iterator, once started
        self._initialized = True

    def __setattr__(self, name, value):
        if self._initialized and name in _FROZEN:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        object.__setattr__(self, name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        """What one step draws from: lists of indices when batching, single indices not."""
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __iter__(self):
        _warn_pin_memory(self)
        if self.num_workers == 0:
            return _LoaderIter(self)
        if not self.persistent_workers:
            return MultiProcessingLoaderIter(self)
        if self._iterator is None:
            self._iterator = MultiProcessingLoaderIter(self)
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self):
        if not isinstance(self.dataset, IterableDataset):
            return len(self._index_sampler)
        # Remembered (as torch does) to warn if the stream turns out longer than it said.
        length = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is None:
            return length
        if self.drop_last:
            return length // self.batch_size
        return math.ceil(length / self.batch_size)


def _warn_pin_memory(loader):
    """torch's CPU build warns that pinning has no accelerator to pin for; so does ember."""
    if loader.pin_memory:
        if loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will "
                          "be used as the device,ignore "
                          f"pin_memory_device='{loader.pin_memory_device}'.", stacklevel=3)
        warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                      "then device pinned memory won't be used.", stacklevel=3)


class _LoaderIter:
    """One pass over a DataLoader: ``next`` fetches and collates the next batch."""

    __slots__ = ('_sampler', '_indices', '_fetch', '_reported_len', '_yielded', '_dataset')

    def __init__(self, loader):
        if loader.timeout != 0:
            raise AssertionError(
                "DataLoader: timeout applies to worker processes only; ember loads in the main "
                f"process, so timeout must be 0 (got timeout={loader.timeout})")
        self._sampler = loader._index_sampler
        self._indices = iter(self._sampler)
        self._dataset = loader.dataset
        self._fetch = fetcher_factory(loader)(loader.dataset)
        if isinstance(loader.dataset, IterableDataset):
            self._reported_len = loader._IterableDataset_len_called
        else:
            self._reported_len = None
        self._yielded = 0

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._sampler)

    def __next__(self):
        data = self._fetch(next(self._indices))
        if self._reported_len is not None:
            self._yielded += 1
            if self._yielded > self._reported_len:
                warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                              f"{self._reported_len}(when accessing len(dataloader)), but "
                              f"{self._yielded} samples have been fetched. ", stacklevel=2)
        return data


def fetcher_factory(loader):
    """A picklable function from a dataset to its fetcher -- the function from a step's
    index (or list of indices) to its collated batch -- as ``loader`` fetches. The main
    process and every worker process build their fetchers with it."""
    if isinstance(loader.dataset, IterableDataset):
        return functools.partial(_StreamFetcher, batching=loader._auto_collation,
                                 collate_fn=loader.collate_fn, drop_last=loader.drop_last)
    return functools.partial(_map_fetcher, auto_collation=loader._auto_collation,
                             collate_fn=loader.collate_fn)


def _map_fetcher(dataset, auto_collation, collate_fn):
    """The fetcher of a map-style dataset: indices -> collated batch."""
    if not auto_collation:
        return lambda index: collate_fn(dataset[index])
    getitems = getattr(dataset, '__getitems__', None)
    # A dataset's _collated_batch equals default_collate of its samples, so it may replace
    # the per-sample path only under that collate_fn.
    shortcut = getattr(dataset, '_collated_batch', None) if collate_fn is default_collate \
        else None

    def fetch(indices):
        if shortcut is not None:
            batch = shortcut(indices)
            if batch is not None:
                return batch
        samples = getitems(indices) if getitems else [dataset[i] for i in indices]
        return collate_fn(samples)
    return fetch


class _StreamFetcher:
    """Fetches from an IterableDataset's iterator: a batch is the next ``len(indices)``
    items (the indices themselves are placeholders); the pass ends with the stream, or at
    a short batch under ``drop_last``."""

    def __init__(self, dataset, batching, collate_fn, drop_last):
        self.items = iter(dataset)
        self.batching = batching
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def __call__(self, indices):
        if self.ended:
            raise StopIteration
        if not self.batching:
            return self.collate_fn(next(self.items))
        data = list(itertools.islice(self.items, len(indices)))
        if len(data) < len(indices):
            self.ended = True
            if not data or self.drop_last:
                raise StopIteration
        return self.collate_fn(data)
