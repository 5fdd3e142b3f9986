"""A progress bar per epoch: tqdm's when it is installed, otherwise a plain-text one."""
import sys
import time

__all__ = ['progress']


def progress(iterable, total, desc):
    """Iterates ``iterable`` (``total`` items) while drawing a bar labelled ``desc``."""
    try:
        from tqdm import tqdm
    except ImportError:
        return _TextBar(iterable, total, desc)
    return tqdm(iterable, total=total, desc=desc, leave=False, ncols=80)


class _TextBar:
    """``desc [#########.........] 12/45  0.3s`` redrawn in place on a terminal and cleared at
    the end (the caller prints the epoch's summary there); when the output is not a terminal
    it draws nothing, so a log holds only the summaries."""

    WIDTH = 30

    def __init__(self, iterable, total, desc, stream=None):
        self.iterable, self.total, self.desc = iterable, total, desc
        self.stream = stream or sys.stderr
        self.live = getattr(self.stream, 'isatty', lambda: False)()

    def __iter__(self):
        start = time.perf_counter()
        done = 0
        for item in self.iterable:
            yield item
            done += 1
            if self.live:
                self._draw(done, time.perf_counter() - start, end='\r')
        if self.live:
            # clear the line: the caller prints the epoch's summary in its place
            self.stream.write(' ' * (len(self.desc) + self.WIDTH + 24) + '\r')
            self.stream.flush()

    def _draw(self, done, elapsed, end):
        filled = self.WIDTH * done // max(self.total, 1)
        bar = '#' * filled + '.' * (self.WIDTH - filled)
        self.stream.write(f'{self.desc} [{bar}] {done}/{self.total}  {elapsed:.1f}s{end}')
        self.stream.flush()
