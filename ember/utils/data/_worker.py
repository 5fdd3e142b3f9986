"""What runs inside a DataLoader worker process, and what it sends back.

A worker receives ``(task_index, indices)`` on its own index queue, fetches and collates
that batch with the loader's own fetcher, and puts ``(task_index, batch)`` on the shared
result queue. ``None`` on the index queue ends it; a ``_ResumeIteration`` starts a new pass
(persistent workers). An exception raised while fetching travels back as an
``ExceptionWrapper`` and is raised again in the main process with the worker's traceback.
"""
import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

__all__ = ['WorkerInfo', 'get_worker_info', 'ExceptionWrapper']

# How often (seconds) a waiting worker checks that its parent is still alive, and the main
# process that its workers are.
STATUS_CHECK_INTERVAL = 5.0

_worker_info = None


@dataclass(frozen=True)
class WorkerInfo:
    """Information about the DataLoader worker process this code runs in: its ``id`` (0 to
    ``num_workers - 1``), ``num_workers``, the ``seed`` ember's and Python's generators
    were seeded with, and this worker's copy of the ``dataset``."""
    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Optional[Any] = None
    worker_method: Optional[str] = 'multiprocessing'


def get_worker_info():
    """The ``WorkerInfo`` of the DataLoader worker process this runs in; None in the main
    process. A dataset uses it to shard an ``IterableDataset`` or to seed per worker.

    >>> get_worker_info() is None
    True
    """
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, with its traceback as text, carried to the main
    process (traceback objects do not pickle)."""

    def __init__(self, exc_info=None, where='in background'):
        exc_type, exc, _ = exc_info if exc_info is not None else sys.exc_info()
        self.exc_type = exc_type
        self.exc_msg = ''.join(traceback.format_exception(*(exc_info or sys.exc_info())))
        self.where = where

    def reraise(self):
        """Raises the worker's exception type again, its message holding the traceback."""
        message = (f'Caught {self.exc_type.__name__} {self.where}.\n'
                   f'Original {self.exc_msg}')
        if self.exc_type is KeyError:
            message = _KeyErrorMessage(message)
        try:
            exception = self.exc_type(message)
        except Exception:
            # Exception types whose constructor takes other arguments: a RuntimeError says it.
            raise RuntimeError(message) from None
        raise exception


class _KeyErrorMessage(str):
    """A KeyError prints its argument's repr; this keeps the traceback's lines readable."""

    def __repr__(self):
        return self


class _IterableDatasetStopIteration:
    """A worker's answer when its copy of an IterableDataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    """Main -> persistent worker: a new pass starts; ``seed`` is the new shared seed."""

    def __init__(self, seed=None):
        self.seed = seed


def worker_seeds(base_seed, worker_id):
    """(seed for ember and ``random``, seed for NumPy's legacy global generator) of a worker.
    NumPy's comes from its SeedSequence over (worker id, the base seed's two halves), so no
    two workers of a pass share a NumPy stream either."""
    seed = base_seed + worker_id
    entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    return seed, np.random.SeedSequence(entropy).generate_state(4)


def worker_loop(dataset, make_fetcher, index_queue, result_queue, done_event, base_seed,
                init_fn, worker_id, num_workers, iterable):
    """The body of worker ``worker_id``: seed, run ``init_fn``, then serve tasks until told
    to stop or the parent dies. ``make_fetcher(dataset)`` builds the function from a task's
    indices to its batch (a fresh one per pass for an IterableDataset)."""
    global _worker_info
    import ember
    try:
        seed, numpy_seed = worker_seeds(base_seed, worker_id)
        random.seed(seed)
        ember.manual_seed(seed)
        np.random.seed(numpy_seed)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetch = make_fetcher(dataset)
        except Exception:
            init_error = ExceptionWrapper(where=f'in DataLoader worker process {worker_id}')
        exhausted = False
        parent = os.getppid()
        while True:
            try:
                task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent:      # the main process died: nobody will ask
                    break
                continue
            if task is None:                    # shutdown
                break
            if isinstance(task, _ResumeIteration):
                result_queue.put((task, None))
                exhausted = False
                if iterable:
                    fetch = make_fetcher(dataset)
                continue
            if done_event.is_set() or exhausted:
                continue
            index, indices = task
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetch(indices)
                except StopIteration:
                    if not iterable:
                        data = ExceptionWrapper(
                            where=f'in DataLoader worker process {worker_id}')
                    else:
                        data, exhausted = _IterableDatasetStopIteration(worker_id), True
                except Exception:
                    data = ExceptionWrapper(where=f'in DataLoader worker process {worker_id}')
            result_queue.put((index, data))
            del data, indices, task
    except KeyboardInterrupt:
        pass                                    # the main process handles the interrupt
    if done_event.is_set():
        result_queue.cancel_join_thread()
        result_queue.close()
