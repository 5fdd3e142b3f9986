"""A lock between processes building the same extension, held by the operating system.

The lock is an advisory lock on an open file (``flock`` on POSIX, ``msvcrt.locking`` on
Windows), not the file's existence: when its holder exits or is killed, the system drops it,
so a build that died half-way never leaves a stale lock that makes every later load wait
forever. The holder writes its process id and purpose into the file, so that a process
that has waited for ``NOTICE_AFTER`` seconds can say what it waits for.

The builder hands the locked descriptor down to ninja and the compilers (``inherit``):
a POSIX ``flock`` is held until every process with the descriptor has closed it, so when a
builder is killed while its compilers run on, the next builder waits for them instead of
writing the same object files at the same time.
"""
import os
import sys
import time

__all__ = ['BuildLock']

NOTICE_AFTER = 3.0   # seconds of waiting before saying so
REMIND_EVERY = 60.0  # and then again this often
_POLL = 0.05

if os.name == 'nt':
    import msvcrt

    def _try_lock(fd):
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd):
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _try_lock(fd):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _unlock(fd):
        fcntl.flock(fd, fcntl.LOCK_UN)


class BuildLock:
    """``with BuildLock(path, "building extension 'x'"):`` holds the lock on ``path``
    (created if missing) for the block, waiting for another holder to finish first."""

    def __init__(self, path, purpose):
        self.path = path
        self.purpose = purpose
        self._fd = None

    def __enter__(self):
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            self._wait(fd)
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f'process {os.getpid()}, {self.purpose}'.encode())
        self._fd = fd
        return self

    def inherit(self):
        """The descriptors a child process should inherit to share the lock (``pass_fds``):
        none on Windows, where locks do not pass to children."""
        return () if os.name == 'nt' else (self._fd,)

    def __exit__(self, *exc):
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
            _unlock(fd)
        finally:
            os.close(fd)

    def _wait(self, fd):
        start = time.monotonic()
        next_notice = NOTICE_AFTER
        while not _try_lock(fd):
            waited = time.monotonic() - start
            if waited >= next_notice:
                print(f'ember.utils: waiting for the lock {self.path} '
                      f'({waited:.0f} s so far), held by {self._holder()}',
                      file=sys.stderr, flush=True)
                next_notice += REMIND_EVERY
            time.sleep(_POLL)

    def _holder(self):
        try:
            with open(self.path) as f:
                holder = f.read().strip()
        except OSError:
            holder = ''
        return holder or 'another process'
