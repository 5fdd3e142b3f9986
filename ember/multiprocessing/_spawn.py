"""``spawn``: run ``fn(i, *args)`` in ``nprocs`` processes and report the first failure.

A child that raises writes its traceback to a file the parent reads; the parent waits for
any child to end, and when one fails terminates the others and raises
``ProcessRaisedException`` (with the child's traceback) or ``ProcessExitedException`` (an
exit code or a signal), as torch.multiprocessing does.
"""
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile

__all__ = ['spawn', 'start_processes', 'ProcessContext', 'ProcessException',
           'ProcessRaisedException', 'ProcessExitedException']


class ProcessException(Exception):
    """A spawned process failed: ``error_index`` (its i) and ``error_pid``."""
    __slots__ = ['error_index', 'error_pid']

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or was killed by a signal."""
    __slots__ = ['exit_code', 'signal_name']

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                            self.signal_name)


def _wrap(fn, i, args, error_file):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass                        # the parent interrupted us
    except Exception:
        import traceback
        with open(error_file, 'wb') as f:
            pickle.dump(traceback.format_exc(), f)
        sys.exit(1)


class ProcessContext:
    """The processes of one ``spawn``; ``join()`` waits and raises the first failure."""

    def __init__(self, processes, error_files):
        self.processes, self.error_files = processes, error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The children's process ids."""
        return [p.pid for p in self.processes]

    def join(self, timeout=None, grace_period=None):
        """Waits up to ``timeout`` for a child to end. Returns True once all ended well,
        False while some still run; raises when one failed (terminating the others)."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        for p in self.processes:
            p.join(30 if grace_period is None else grace_period)
            if p.is_alive():
                p.kill()
                p.join()
        self._raise(failed)

    def _raise(self, index):
        process = self.processes[index]
        try:
            with open(self.error_files[index], 'rb') as f:
                trace = pickle.load(f)
        except (OSError, EOFError, pickle.UnpicklingError):
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f'<Unknown signal {-code}>'
                raise ProcessExitedException(f'process {index:d} terminated with signal '
                                             f'{name}', index, process.pid, code, name)
            raise ProcessExitedException(f'process {index:d} terminated with exit code '
                                         f'{code:d}', index, process.pid, code)
        raise ProcessRaisedException(
            f'\n\n-- Process {index:d} terminated with the following error:\n{trace}',
            index, process.pid)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn'):
    """Starts ``nprocs`` processes of ``fn(i, *args)`` with ``start_method``; joins them
    (raising the first failure) when ``join``, else returns their ``ProcessContext``."""
    context = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        fd, error_file = tempfile.mkstemp(prefix='ember-spawn-')
        os.close(fd)
        os.unlink(error_file)       # exists only once the child writes its traceback
        process = context.Process(target=_wrap, args=(fn, i, args, error_file),
                                  daemon=daemon)
        process.start()
        processes.append(process)
        error_files.append(error_file)
    spawned = ProcessContext(processes, error_files)
    if not join:
        return spawned
    while not spawned.join():
        pass
    for error_file in error_files:
        if os.path.exists(error_file):
            os.unlink(error_file)
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn'):
    """``start_processes`` with torch's defaults: run ``fn(i, *args)`` for i in
    range(nprocs) in freshly spawned interpreters (the function must be importable)."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
