"""The main process's side of loading with worker processes (``num_workers > 0``).

The sampler runs here; each batch of indices becomes a task sent to the next live worker,
round robin, keeping ``prefetch_factor * num_workers`` tasks in flight. Results come back
on one shared queue in any order and are handed out in task order (or as they arrive,
with ``in_order=False``). Workers are daemons, are told to stop and joined when the pass
ends (unless persistent), on an error, and when the iterator is collected; a worker that
dies is noticed within a few seconds and reported.
"""
import itertools
import multiprocessing
import os
import queue
import warnings

from . import _worker

__all__ = ['MultiProcessingLoaderIter', 'check_multiprocessing_context']


def check_multiprocessing_context(context):
    """A start-method name or a context object, as torch accepts; its context object."""
    if context is None:
        return None
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError("multiprocessing_context option should specify a valid start "
                             f"method in {methods!r}, but got "
                             f"multiprocessing_context={context!r}")
        return multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or "
                        "a string specifying the start method, but got "
                        f"multiprocessing_context={context!r}")
    return context


def warn_if_more_workers_than_cpus(num_workers):
    """torch's warning when a loader starts more workers than this process may use CPUs."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count()
    if cpus is not None and num_workers > cpus:
        warnings.warn(
            f"This DataLoader will create {num_workers} worker processes in total. Our "
            f"suggested max number of worker in current system is {cpus}, which is smaller "
            "than what this DataLoader is going to create. Please be aware that excessive "
            "worker creation might get DataLoader running slow or even freeze, lower the "
            "worker number to avoid potential slowness/freeze if necessary.", stacklevel=4)


def _base_seed(generator):
    import ember
    # A 24-bit draw: NumPy takes it from a buffered 32-bit half, so the 64-bit stream the
    # sampler then draws from is the single-process loader's (which draws no base seed).
    return int(ember.empty((), dtype=ember.int64).random_(0, 2 ** 24, generator=generator))


class MultiProcessingLoaderIter:
    """One pass (or, with persistent workers, every pass) of a DataLoader over workers."""

    def __init__(self, loader):
        from .dataloader import fetcher_factory
        from .dataset import IterableDataset
        warn_if_more_workers_than_cpus(loader.num_workers)
        context = loader.multiprocessing_context or multiprocessing.get_context()
        self._iterable = isinstance(loader.dataset, IterableDataset)
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor if loader.prefetch_factor is not None else 2
        self._persistent = loader.persistent_workers
        self._timeout = loader.timeout
        self._in_order = loader.in_order
        self._shutdown = False
        self._results = context.Queue()
        self._done = context.Event()
        self._index_queues, self._workers = [], []
        base_seed = _base_seed(loader.generator)
        make_fetcher = fetcher_factory(loader)
        try:
            for worker_id in range(self._num_workers):
                index_queue = context.Queue()
                index_queue.cancel_join_thread()   # never block exit on undelivered tasks
                worker = context.Process(
                    target=_worker.worker_loop,
                    args=(loader.dataset, make_fetcher, index_queue, self._results,
                          self._done, base_seed, loader.worker_init_fn, worker_id,
                          self._num_workers, self._iterable),
                    daemon=True)
                worker.start()
                self._index_queues.append(index_queue)
                self._workers.append(worker)
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(loader, first=True)

    # -- a pass ---------------------------------------------------------------------------
    def _reset(self, loader, first=False):
        """Starts a pass: a fresh sampler iterator, the queues primed with tasks."""
        self._sampler = loader._index_sampler
        self._indices = iter(self._sampler)
        self._sent = self._received = 0
        self._pending = {}          # task index -> [worker id] or [worker id, result]
        self._in_flight = 0
        self._alive = [True] * self._num_workers
        self._next_worker = itertools.cycle(range(self._num_workers))
        if not first:               # persistent workers: each acknowledges the new pass
            for index_queue in self._index_queues:
                index_queue.put(_worker._ResumeIteration())
            waiting = self._num_workers
            while waiting:
                index, _ = self._get()
                if isinstance(index, _worker._ResumeIteration):
                    waiting -= 1
        for _ in range(self._prefetch * self._num_workers):
            self._send_next()

    def _send_next(self):
        if self._in_flight >= self._prefetch * self._num_workers:
            return
        try:
            indices = next(self._indices)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._next_worker)
            if self._alive[worker_id]:
                break
        else:
            return                  # every worker's stream has ended
        self._index_queues[worker_id].put((self._sent, indices))
        self._pending[self._sent] = [worker_id]
        self._in_flight += 1
        self._sent += 1

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._sampler)

    def __next__(self):
        while True:
            # Step past tasks already handed out (out of order) or whose worker's stream
            # ended before it could answer them.
            while self._received < self._sent:
                entry = self._pending.get(self._received)
                if entry is not None and (len(entry) == 2 or self._alive[entry[0]]):
                    break
                if entry is not None:
                    del self._pending[self._received]
                    self._in_flight -= 1
                self._received += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if len(entry) == 2:     # arrived earlier, out of order
                del self._pending[self._received]
                return self._handle(entry[1])
            index, data = self._get()
            self._in_flight -= 1
            if isinstance(data, _worker._IterableDatasetStopIteration):
                del self._pending[index]
                self._alive[data.worker_id] = False
                if not self._persistent:
                    self._index_queues[data.worker_id].put(None)
                self._send_next()
                continue
            if index == self._received or not self._in_order:
                del self._pending[index]
                return self._handle(data)
            self._pending[index].append(data)

    def _handle(self, data):
        self._send_next()
        if isinstance(data, _worker.ExceptionWrapper):
            self._shutdown_workers()
            data.reraise()
        return data

    def _get(self):
        """The next result; torch's errors when it times out or a worker died."""
        wait = self._timeout if self._timeout > 0 else _worker.STATUS_CHECK_INTERVAL
        while True:
            try:
                return self._results.get(timeout=wait)
            except queue.Empty as e:
                dead = [w for w in self._workers if w.exitcode is not None]
                if dead:
                    self._shutdown_workers()
                    pids = ', '.join(str(w.pid) for w in dead)
                    raise RuntimeError(
                        f'DataLoader worker (pid(s) {pids}) exited unexpectedly') from e
                if self._timeout > 0:
                    self._shutdown_workers()
                    raise RuntimeError(
                        f'DataLoader timed out after {self._timeout} seconds') from e

    # -- ending ---------------------------------------------------------------------------
    def _shutdown_workers(self):
        """Stops and joins every worker (terminating one that does not stop in time)."""
        if self._shutdown:
            return
        self._shutdown = True
        self._done.set()
        for index_queue in self._index_queues:
            try:
                index_queue.put(None)
            except (OSError, ValueError):
                pass
        for worker in self._workers:
            worker.join(timeout=_worker.STATUS_CHECK_INTERVAL)
            if worker.is_alive():
                worker.terminate()
                worker.join()
        for q in (*self._index_queues, self._results):
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass
