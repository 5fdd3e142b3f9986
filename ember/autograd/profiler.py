"""The autograd profiler (torch.autograd.profiler): ``with profile() as prof:`` records every
ember operation called inside it -- as ``aten::<name>``, with its CPU time, thread and (with
``record_shapes``) its arguments' shapes -- and every ``record_function`` range, into
``prof.function_events``.

ember records the operations the user's code calls (through the __torch_function__ mode
machinery, so an unprofiled program pays nothing). Where torch's operator is built of others
that its profiler records inside it (aten::randn holds aten::empty and aten::normal_), ember
records those too, nested in the operator's range, from the table ``_CALLS_IN_TURN``: ember
computes each operator in one step, so their times are even shares of the operator's. It
records no memory.
An operation that records a graph node carries the node's sequence number, and backward
records each node it runs as torch does (``autograd::engine::evaluate_function: <name>``
around ``<name>``, with the node's number and the thread that made it).
"""
import functools
import threading
import time

from ..overrides import TorchFunctionMode
from .profiler_util import EventList, FunctionEvent

__all__ = ['profile', 'record_function']

# The profile being recorded (one at a time, as torch allows), or None.
_ACTIVE = [None]

# Python-level names the __torch_function__ protocol reports -> torch's operator names.
_DUNDER_OPS = {'__getitem__': 'index', '__setitem__': 'index_put_'}


# Operators whose torch implementation runs other operators that torch's profiler records
# inside them (checked against torch 2.13 on CPU; a named operator's own entry nests further).
# Only decompositions that do not depend on the arguments' dtypes or layouts are listed.
_CALLS_IN_TURN = {
    'randn': ('empty', 'normal_'), 'rand': ('empty', 'uniform_'), 'randint': ('empty', 'random_'),
    'normal': ('empty', 'normal_'), 'zeros': ('empty', 'zero_'), 'ones': ('empty', 'fill_'),
    'full': ('empty', 'fill_'),
    'empty_like': ('empty_strided',), 'randn_like': ('empty_like', 'normal_'),
    'rand_like': ('empty_like', 'uniform_'), 'zeros_like': ('empty_like', 'zero_'),
    'ones_like': ('empty_like', 'fill_'), 'full_like': ('empty_like', 'fill_'),
    'clone': ('empty_strided', 'copy_'), '_to_copy': ('empty_strided', 'copy_'),
    't': ('transpose',), 'transpose': ('as_strided',), 'squeeze': ('as_strided',),
    'unsqueeze': ('as_strided',), 'expand': ('as_strided',), 'select': ('as_strided',),
    'relu': ('clamp_min',), 'softmax': ('_softmax',), 'log_softmax': ('_log_softmax',),
    'stack': ('cat', 'view'), 'flatten': ('view',)}


def _now_us():
    """The profiler's clock, in microseconds."""
    return time.perf_counter_ns() / 1000.0


def _shape(a):
    shape = getattr(a, 'shape', None)
    return list(shape) if shape is not None and not isinstance(a, type) else []


class _RecordOps(TorchFunctionMode):
    """The mode that times each call and hands it on unchanged."""

    def __init__(self, prof):
        self.prof = prof

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, '__name__', '')
        if name.startswith('__') and name.endswith('__'):
            name = _DUNDER_OPS.get(name)
        if not name:  # property reads (.shape, .grad_fn...) are no operators
            return func(*args, **(kwargs or {}))
        start = _now_us()
        out = None
        try:
            out = func(*args, **(kwargs or {}))
            return out
        finally:
            shapes = [_shape(a) for a in args] if self.prof.record_shapes else None
            end = _now_us()
            self.prof._add('aten::' + name, start, end, shapes,
                           sequence_nr=_recorded_node_seq(out, args))
            self.prof._add_calls_in_turn(name, start, end)


def _recorded_node_seq(out, args):
    """The sequence number of the graph node an operation recorded (the grad_fn of its
    first tensor output, when no tensor argument has that node), else -1."""
    first = out[0] if isinstance(out, (tuple, list)) and out else out
    node = getattr(first, '_gfn', None)
    if node is None:
        return -1
    for a in args:
        for t in (a if isinstance(a, (tuple, list)) else (a,)):
            if getattr(t, '_gfn', None) is node:
                return -1
    return node._seq


def active_profile():
    """The profile being recorded, or None."""
    return _ACTIVE[0]


class profile:
    """Context manager recording the operations and ``record_function`` ranges run inside
    it; afterwards ``function_events`` holds them (an EventList), ``table()`` and
    ``key_averages()`` summarise them and ``export_chrome_trace(path)`` writes them out.
    The CUDA, memory, FLOP, stack and Kineto options are accepted and have no effect."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.use_device = use_device
        self.entered = False
        self.function_events = None
        self._events = []
        self._mode = None

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        if _ACTIVE[0] is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        self.entered = True
        self._events = []
        _ACTIVE[0] = self
        self._mode = _RecordOps(self)
        self._mode.__enter__()
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        self._mode.__exit__(*exc)
        _ACTIVE[0] = None
        events = EventList(sorted(self._events, key=lambda e: e.time_range.start))
        for i, e in enumerate(events):
            e.id = i
        events._populate_cpu_children()
        self.function_events = events
        self.entered = False
        return False

    now = staticmethod(_now_us)  # (the clock of every event, for the engine's events too)

    def _add(self, name, start, end, shapes=None, user=False, sequence_nr=-1, fwd_thread=0):
        self._events.append(FunctionEvent(
            id=len(self._events), name=name, thread=threading.get_ident(), start_us=start,
            end_us=end, input_shapes=shapes, node_id=-1, is_user_annotation=user,
            sequence_nr=sequence_nr, fwd_thread=fwd_thread))

    def _add_calls_in_turn(self, name, start, end):
        """Records the operators torch's ``name`` runs inside it (``_CALLS_IN_TURN``), each
        in an even share of its range ``start``..``end``, and theirs inside them."""
        inner = _CALLS_IN_TURN.get(name)
        if not inner or end <= start:
            return
        step = (end - start) / len(inner)
        for k, sub in enumerate(inner):
            sub_start = start + k * step
            sub_end = end if k == len(inner) - 1 else sub_start + step
            self._add('aten::' + sub, sub_start, sub_end)
            self._add_calls_in_turn(sub, sub_start, sub_end)

    def _add_node(self, node, start, end, evaluate=False):
        """Records backward node ``node`` running from ``start`` to ``end``: the node itself,
        or with ``evaluate`` the engine's whole handling of it (hooks included)."""
        seq = node._seq
        if seq >= 1 << 63:  # an accumulator's 2**64 - 1, read as torch's signed int64
            seq, thread = -1, 0  # (accumulators belong to no forward op)
        else:
            thread = threading.get_ident()  # (ember runs backward where forward ran)
        name = node.name()
        if evaluate:
            name = 'autograd::engine::evaluate_function: ' + name
        self._add(name, start, end, sequence_nr=seq, fwd_thread=thread)

    def _check_finished(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The recorded events as a text table (see ``EventList.table``)."""
        self._check_finished()
        return self.function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events averaged per name (and per input shapes if asked)."""
        self._check_finished()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self):
        """One average over all recorded events."""
        self._check_finished()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """The CPU time of all recorded events, each counted once (microseconds)."""
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path):
        """Writes the events to ``path`` in the Chrome trace format."""
        self._check_finished()
        return self.function_events.export_chrome_trace(path)

    def __str__(self):
        return self.table()


class record_function:
    """Context manager (or decorator) recording the code it wraps as one range named
    ``name`` in the active profile (nothing when no profile is active)."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._start = None

    def __enter__(self):
        self._start = _now_us()
        return self

    def __exit__(self, *exc):
        # (An exit without a matching enter, or a second one, records nothing and does not
        # raise, as torch's does not.)
        start, self._start = self._start, None
        prof = _ACTIVE[0]
        if start is not None and prof is not None:
            prof._add(self.name, start, _now_us(), user=True)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapped


def _profiler_enabled():
    """True while a profile is being recorded."""
    return _ACTIVE[0] is not None
