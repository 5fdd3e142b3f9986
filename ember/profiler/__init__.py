"""``torch.profiler``: the profiler training scripts use, with activities, a step schedule
and a trace handler, built on ``ember.autograd.profiler`` (which records the operators).

Only the CPU activity exists. The memory, FLOP, stack and module options are accepted and
have no effect, as in ``autograd.profiler.profile``.

>>> with ember.profiler.profile(activities=[ember.profiler.ProfilerActivity.CPU]) as prof:
...     ember.ones(2) + 1  # doctest: +SKIP
>>> prof.key_averages().table()  # doctest: +SKIP
"""
import enum
import gzip
import json
import os
import socket
import time
import warnings

from ..autograd import profiler as _autograd_profiler
from ..autograd.profiler import record_function

__all__ = ['profile', 'record_function', 'ProfilerActivity', 'ProfilerAction', 'schedule',
           'tensorboard_trace_handler', 'supported_activities', 'itt']


class ProfilerActivity(enum.Enum):
    """The kinds of activity a profile can record (ember records CPU activity only)."""
    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a profile does at a step of its schedule."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities():
    """The activities this build can record: the CPU."""
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A step -> ProfilerAction function: after ``skip_first`` steps, cycles of ``wait`` idle
    steps, ``warmup`` steps and ``active`` recorded steps (the last one saves the trace),
    ``repeat`` times (0: for ever). ``skip_first_wait`` skips the first cycle's wait."""
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError(f"Invalid profiler schedule arguments. Got wait={wait} (need >= "
                             f"0), warmup={warmup} (need >= 0), active={active} (need > 0), "
                             f"repeat={repeat} (need >= 0), skip_first={skip_first} (need >= "
                             "0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    cycle = wait + warmup + active

    def action(step):
        if step < 0:
            raise AssertionError("step must be non-negative")
        step -= skip_first
        if step < 0:
            return ProfilerAction.NONE
        if skip_first_wait:
            step += wait
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


_WARNED = []  # whether the 'clears events' warning was given


def _always_record(step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` callback writing each trace to ``dir_name`` as
    ``<worker>.<milliseconds>.pt.trace.json`` (``.gz`` with ``use_gzip``), where TensorBoard's
    profiler plugin finds it."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f'{socket.gethostname()}_{os.getpid()}'
        name = f'{worker}.{time.time_ns() // 1_000_000}.pt.trace.json'
        path = os.path.join(dir_name, name)
        prof.export_chrome_trace(path)
        if use_gzip:
            with open(path, 'rb') as raw, gzip.open(path + '.gz', 'wb') as packed:
                packed.write(raw.read())
            os.remove(path)
    return handler


class profile:
    """Records the operators run while it is active: as a context manager (or between
    ``start()`` and ``stop()``), with ``step()`` marking each training step for ``schedule``;
    ``on_trace_ready(prof)`` is called whenever a recorded window ends. Each window starts
    afresh (``acc_events=True`` is accepted, and keeps only the last window too)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, custom_trace_id_callback=None):
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule or _always_record
        self._record_steps = schedule is not None  # (a 'ProfilerStep*' range per step)
        self._acc_events = acc_events
        self._step_start = None
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.step_num = 0
        self.profiler = None   # the autograd profile of the last recorded window
        self._recording = None
        self._action = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        """Begins profiling at step ``step_num``."""
        self._action = self.schedule(self.step_num)
        self._enter(self._action)
        self._step_start = self._now()

    def stop(self):
        """Ends profiling: a window still recording is closed and handed over."""
        if self._recording is not None:
            self._close_window()

    def step(self):
        """Marks the end of a training step; the schedule decides what the next one does."""
        previous = self._action
        if self._record_steps and self._recording is not None:
            self._recording._add('ProfilerStep*', self._step_start, self._now())
        self._step_start = self._now()
        self.step_num += 1
        self._action = self.schedule(self.step_num)
        if previous is ProfilerAction.RECORD_AND_SAVE:
            self._close_window()
        elif previous is ProfilerAction.RECORD and self._action in (ProfilerAction.NONE,
                                                                    ProfilerAction.WARMUP):
            warnings.warn("Incorrect schedule: RECORD followed by "
                          f"{self._action.name}", stacklevel=2)
            self._close_window()
        self._enter(self._action)

    _now = staticmethod(_autograd_profiler.profile.now)

    def _enter(self, action):
        recording = action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if recording and self._recording is None:
            if self.profiler is not None and not self._acc_events and not _WARNED:
                _WARNED.append(True)  # (once per process, as torch)
                warnings.warn("Warning: Profiler clears events at the end of each cycle. Only "
                              "events from the current cycle will be reported. To keep events "
                              "across cycles, set acc_events=True.", stacklevel=3)
            self._recording = _autograd_profiler.profile(record_shapes=self.record_shapes)
            self._recording.__enter__()

    def _close_window(self):
        window, self._recording = self._recording, None
        window.__exit__(None, None, None)
        self.profiler = window
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _finished(self, doing):
        if self.profiler is None:
            raise AssertionError(f"Profiler must be initialized before {doing}")
        return self.profiler

    def events(self):
        """The events of the last recorded window (an EventList)."""
        return self._finished('accessing events').function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The last window's events averaged per operator (``.table()`` prints them)."""
        return self._finished('getting key averages').key_averages(group_by_input_shape, group_by_stack_n,
                                             group_by_overload_name)

    def export_chrome_trace(self, path):
        """Writes the last window's events to ``path`` in the Chrome trace format."""
        return self._finished('exporting chrome trace').export_chrome_trace(path)

    def export_stacks(self, path, metric='self_cpu_time_total'):
        """Writes nothing but an empty file: ember records no stacks (``with_stack``)."""
        self._finished('exporting stacks')
        with open(path, 'w'):
            pass

    def add_metadata(self, key, value):
        """Accepted and kept in ``metadata`` (torch adds it to the trace)."""
        self.__dict__.setdefault('metadata', {})[key] = value

    def add_metadata_json(self, key, value):
        """``add_metadata`` of a JSON text."""
        self.add_metadata(key, json.loads(value))


class itt:
    """Intel ITT annotations: not available in ember (``is_available()`` is False)."""

    @staticmethod
    def is_available():
        """False: ember has no ITT."""
        return False

    @staticmethod
    def range_push(msg):
        """Nothing to do without ITT."""

    @staticmethod
    def range_pop():
        """Nothing to do without ITT."""

    @staticmethod
    def mark(msg):
        """Nothing to do without ITT."""
