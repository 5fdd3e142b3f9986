"""torch.utils.benchmark: timing a statement the way torch's ``Timer`` does.

``Timer(stmt, setup, globals=...)`` compiles ``stmt`` once and runs it in a loop;
``timeit(n)`` times one block of ``n`` runs, ``blocked_autorange`` times blocks of a size
that takes about 0.1 s... until ``min_run_time`` has passed, ``adaptive_autorange`` stops
once the spread of the blocks is small. Each returns a ``Measurement`` (per-run ``times``,
``mean``, ``median``, ``iqr``); ``Compare`` prints a table of several. Only Python
statements are timed (no C++ ``language``, no callgrind).

>>> m = Timer('x + 1', setup='x = 1').timeit(100)
>>> m.number_per_run, len(m.times)
(100, 1)
"""
import statistics
import timeit as _timeit

__all__ = ['Timer', 'Measurement', 'Compare', 'select_unit']


def select_unit(t):
    """(unit name, seconds per unit) that shows ``t`` seconds with 1-3 digits before the
    point."""
    for unit, scale in (('ns', 1e-9), ('us', 1e-6), ('ms', 1e-3)):
        if t < scale * 1000:
            return unit, scale
    return 's', 1.0


def _show(t):
    unit, scale = select_unit(t)
    return f'{t / scale:.2f} {unit}'


class Measurement:
    """The times of one statement: ``raw_times`` (seconds per block of ``number_per_run``
    runs) and what the Timer was told (label, sub_label, description, env, threads)."""

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata

    def __getattr__(self, name):
        # (stmt, setup, label, sub_label, description, env, num_threads: the task's)
        spec = self.__dict__.get('task_spec')
        if spec is not None and name in spec:
            return spec[name]
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self):
        """Seconds per run, one per block."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def mean(self):
        """The mean time per run (seconds)."""
        return statistics.mean(self.times)

    @property
    def median(self):
        """The median time per run (seconds)."""
        return statistics.median(self.times)

    def _quartiles(self):
        ts = sorted(self.times)
        if len(ts) < 2:
            return ts[0], ts[0]
        q = statistics.quantiles(ts, n=4, method='inclusive')
        return q[0], q[2]

    @property
    def iqr(self):
        """The interquartile range of the per-run times (seconds)."""
        lo, hi = self._quartiles()
        return hi - lo

    @property
    def has_warnings(self):
        """Whether the spread is large (an IQR over 10 % of the median, from 4 blocks on)."""
        return len(self.times) >= 4 and self.iqr > 0.1 * self.median

    @property
    def significant_figures(self):
        """How many digits of the median the spread leaves meaningful (1 to 4)."""
        if len(self.times) < 2 or self.iqr == 0:
            return 1 if len(self.times) < 2 else 4
        import math
        return max(1, min(4, int(math.log10(self.median / self.iqr)) + 1))

    @property
    def title(self):
        """``label: sub_label``, or the statement when there is no label."""
        spec = self.task_spec
        if spec['label'] is None:
            return spec['stmt']
        return spec['label'] + (f": {spec['sub_label']}" if spec['sub_label'] else '')

    def __repr__(self):
        spec = self.task_spec
        lines = [f'<{type(self).__module__}.Measurement object at {hex(id(self))}>',
                 self.title]
        if spec['description']:
            lines.append(spec['description'])
        if spec['setup'] != 'pass':
            lines.append(f"setup: {spec['setup']}")
        n = len(self.times)
        threads = spec['num_threads']
        plural = 's' if threads != 1 else ''
        if n == 1:
            lines.append(f'  {_show(self.median)}')
            lines.append(f'  1 measurement, {self.number_per_run} runs , {threads} thread{plural}')
        else:
            lo, hi = self._quartiles()
            unit, scale = select_unit(self.median)
            lines.append(f'  Median: {self.median / scale:.2f} {unit}')
            lines.append(f'  IQR:    {self.iqr / scale:.2f} {unit} ({lo / scale:.2f} to '
                         f'{hi / scale:.2f})')
            lines.append(f'  {n} measurements, {self.number_per_run} runs per measurement, '
                         f'{threads} thread{plural}')
            if self.has_warnings:
                lines.append(f'  WARNING: Interquartile range is {self.iqr / self.median:.1%} '
                             'of the median measurement.\n           This could indicate '
                             'system fluctuation.')
        return '\n'.join(lines)


class Timer:
    """Times ``stmt`` (Python source) after running ``setup`` once, with ``globals`` as its
    namespace (``timer`` gives the clock)."""

    def __init__(self, stmt='pass', setup='pass', global_setup='', timer=_timeit.default_timer,
                 globals=None, label=None, sub_label=None, description=None, env=None,
                 num_threads=1, language='python'):
        if str(getattr(language, 'name', language)).lower() not in ('python', 'py'):
            raise ValueError("ember's Timer times Python statements only")
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if global_setup:
            exec(global_setup, self._globals)  # noqa: S102 - the caller's own code
        self._timer = _timeit.Timer(stmt, setup, timer=timer, globals=self._globals)
        self._task_spec = {'stmt': stmt, 'setup': setup, 'global_setup': global_setup,
                           'label': label, 'sub_label': sub_label,
                           'description': description, 'env': env,
                           'num_threads': num_threads}

    def _threads(self):
        """Runs the measurement with ``num_threads`` BLAS threads, as torch sets its own."""
        from ... import _threads
        return _threads.get_num_threads(), _threads.set_num_threads

    def _measure(self, number, blocks):
        before, set_threads = self._threads()
        set_threads(self._task_spec['num_threads'])
        try:
            return [self._timer.timeit(number) for _ in range(blocks)]
        finally:
            set_threads(before)

    def _measurement(self, number, times):
        return Measurement(number, times, dict(self._task_spec))

    def timeit(self, number=1000000):
        """One block of ``number`` runs (after one warm-up run)."""
        self._measure(1, 1)
        return self._measurement(number, self._measure(number, 1))

    def repeat(self, repeat=-1, number=-1):
        """Not provided by torch either."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_block_time=0.1):
        """The smallest power of ten of runs that takes ``min_block_time``."""
        number = 1
        while True:
            if self._measure(number, 1)[0] >= min_block_time or number >= 10 ** 9:
                return number
            number *= 10

    def autorange(self, callback=None):
        """One block of runs that takes at least 0.2 s."""
        number = self._block_size(0.2)
        t = self._measure(number, 1)[0]
        if callback is not None:
            callback(number, t)
        return self._measurement(number, [t])

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of about 0.1 s each (at least one) until ``min_run_time`` has passed."""
        number = self._block_size()
        times, total = [], 0.0
        while total < min_run_time or not times:
            t = self._measure(number, 1)[0]
            if callback is not None:
                callback(number, t)
            times.append(t)
            total += t
        return self._measurement(number, times)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Blocks of about ``min_run_time`` until their IQR is under ``threshold`` of their
        median (from 4 blocks on) or ``max_run_time`` has passed."""
        number = self._block_size(min_run_time)
        times, total = [], 0.0
        while True:
            t = self._measure(number, 1)[0]
            if callback is not None:
                callback(number, t)
            times.append(t)
            total += t
            m = self._measurement(number, times)
            if len(times) >= 4 and m.iqr / m.median < threshold or total >= max_run_time:
                return m


class Compare:
    """A table of Measurements: one row per (label, sub_label), one column per description;
    ``print()`` shows the medians."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)

    def extend_results(self, results):
        """Adds more Measurements."""
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} "
                                 "instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        """Kept for torch's API: the table always shows the medians to 4 digits."""

    def colorize(self, rowwise=False):
        """Kept for torch's API: the table is plain text."""

    def highlight_warnings(self):
        """Kept for torch's API: rows with a large spread are marked with '!'."""

    def __str__(self):
        rows, cols, cells = [], [], {}
        for m in self._results:
            row = m.sub_label or m.stmt
            col = m.description or ''
            if row not in rows:
                rows.append(row)
            if col not in cols:
                cols.append(col)
            cells[row, col] = m
        unit, scale = select_unit(min(m.median for m in self._results)) if self._results \
            else ('us', 1e-6)
        label = self._results[0].label if self._results else None
        width = max([len(r) for r in rows] + [1]) + 2
        lines = [f'[{"-" * 10} {label or ""} {"-" * 10}]']
        lines.append(' ' * width + ''.join(f'{c:>14}' for c in cols))
        for r in rows:
            cells_text = ''
            for c in cols:
                m = cells.get((r, c))
                text = '' if m is None else f'{m.median / scale:.4g}' + (
                    ' (!)' if m.has_warnings else '')
                cells_text += f'{text:>14}'
            lines.append(f'{r:<{width}}' + cells_text)
        lines.append(f'\nTimes are in {"microseconds" if unit == "us" else unit} ({unit}).')
        return '\n'.join(lines) + '\n'

    def print(self):
        """Prints the table."""
        print(str(self))
