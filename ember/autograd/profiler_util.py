"""The records of the autograd profiler (torch.autograd.profiler_util): one FunctionEvent per
profiled call or ``record_function`` range, their per-name averages (FunctionEventAvg) and
the EventList holding them, which nests events into parents and children, aggregates them
and prints or exports them. Times are in microseconds."""
import json

__all__ = ['EventList', 'FunctionEvent', 'FunctionEventAvg']


def _format_time(time_us):
    """``time_us`` (microseconds) as text in the largest unit that keeps it >= 1."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_us):
    """``time_us`` as a percentage of ``total_us`` ("NaN" for an empty total)."""
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


class _Interval:
    """A time range [start, end] in microseconds."""
    __slots__ = ('start', 'end')

    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        """The length of the range."""
        return self.end - self.start


class _Stats:
    """What events and averages share: times derived from the totals."""
    count = 1

    @property
    def cpu_time(self):
        """Average CPU time per call."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        """Average device time per call (always 0: ember runs on the CPU)."""
        return 0.0 if self.count == 0 else self.device_time_total / self.count

    cuda_time = device_time


class FunctionEvent(_Stats):
    """One profiled range: an operator call (``aten::<name>``) or a ``record_function``
    block, on one thread, with its children (the ranges nested in it)."""

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None,
                 fwd_thread=None, input_shapes=None, stack=None, scope=0, use_device=None,
                 cpu_memory_usage=0, device_memory_usage=0, is_async=False, is_remote=False,
                 sequence_nr=-1, node_id=-1, is_user_annotation=False, **kwargs):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = kwargs.get('trace_name')
        self.time_range = _Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.input_shapes = input_shapes
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.is_user_annotation = is_user_annotation
        self.is_legacy = kwargs.get('is_legacy', False)
        self.cpu_children = []
        self.cpu_parent = None
        self.kernels = []
        self.device_time_total = 0
        self.self_device_time_total = 0

    def append_cpu_child(self, child):
        """Adds ``child`` (a range nested in this one) to ``cpu_children``."""
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        """Sets the range this one is nested in."""
        self.cpu_parent = parent

    @property
    def key(self):
        """What averages group by: the name."""
        return self.name

    @property
    def cpu_time_total(self):
        """The length of the range."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        """The length of the range less the time spent in its children."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} node_id={self.node_id} "
                f"cpu_time={_format_time(self.cpu_time)} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread} "
                f"input_shapes={self.input_shapes} seq_nr={self.sequence_nr}>")


class FunctionEventAvg(_Stats):
    """The sum of the events (or averages) ``add``-ed to it, which share a key."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.cpu_time_total = 0
        self.self_cpu_time_total = 0
        self.device_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.stack = None
        self.scope = None
        self.cpu_parent = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.is_legacy = False

    def add(self, other):
        """Adds the times and count of ``other`` (a FunctionEvent or FunctionEventAvg);
        the first one added sets the key and what the average reports of its origin."""
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.count += other.count
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} "
                f"self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time_total)} "
                f"input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of FunctionEvents (or FunctionEventAvgs) that can nest, aggregate, print
    (``table``, ``str``) and export (``export_chrome_trace``) them."""

    def __init__(self, *args, **kwargs):
        kwargs.pop('use_device', None)
        kwargs.pop('profile_memory', None)
        kwargs.pop('with_flops', None)
        super().__init__(*args, **kwargs)

    def _populate_cpu_children(self):
        """Links each event to the innermost event of its thread whose range holds it."""
        threads = {}
        for e in self:
            if not e.is_async:
                threads.setdefault((e.node_id, e.thread), []).append(e)
        for events in threads.values():
            # Outer ranges first: by start, and the longer of two with the same start.
            events.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
            open_ranges = []
            for e in events:
                while open_ranges:
                    parent = open_ranges[-1]
                    if (e.time_range.start >= parent.time_range.end
                            or e.time_range.end > parent.time_range.end):
                        open_ranges.pop()  # it ended before this one (or overlaps it)
                    else:
                        parent.append_cpu_child(e)
                        e.set_cpu_parent(parent)
                        break
                open_ranges.append(e)

    @property
    def self_cpu_time_total(self):
        """The CPU time of all events, each counted once (without its children's)."""
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """An EventList of FunctionEventAvg, one per name (and per input shapes if asked),
        in the order the names first appear."""
        groups = {}
        for e in self:
            key = (e.key,)
            if group_by_input_shapes:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            avg = groups.get(key)
            if avg is None:
                avg = groups[key] = FunctionEventAvg()
            avg.add(e)
        result = EventList(groups.values())
        if not group_by_input_shapes:
            for avg in result:
                avg.input_shapes = None
        return result

    def total_average(self):
        """One FunctionEventAvg over all events (its key is "Total")."""
        total = FunctionEventAvg()
        for e in self:
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
            total.count += e.count
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as a text table, one row each (sorted by the attribute ``sort_by``,
        largest first; ``row_limit`` rows at most; only those without a parent if
        ``top_level_events_only``), then the total self CPU time."""
        return _build_table(self, sort_by, row_limit, max_name_column_width,
                            max_shapes_column_width, header, top_level_events_only)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Writes the events to ``path`` in the Chrome trace format (chrome://tracing)."""
        events = [{"name": e.trace_name or e.name, "ph": "X", "ts": e.time_range.start,
                   "dur": e.time_range.elapsed_us(), "tid": e.thread, "pid": "CPU functions",
                   "args": {}} for e in self if isinstance(e, FunctionEvent)]
        with open(path, "w") as f:
            json.dump({"traceEvents": events}, f)


def _build_table(events, sort_by, row_limit, max_name_width, max_shapes_width, header,
                 top_level_only):
    rows = list(events)
    if sort_by is not None:
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    if top_level_only:
        rows = [e for e in rows if e.cpu_parent is None]
    if row_limit is not None and row_limit > 0:
        rows = rows[:row_limit]
    total = sum(e.self_cpu_time_total for e in events)
    with_shapes = any(e.input_shapes for e in events)
    name_width = min(max([len(e.key) for e in rows] + [4]) + 4, max_name_width)
    widths = [name_width] + [12] * 6
    titles = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
              "# of Calls"]
    if with_shapes:
        shape_width = min(max([len(str(e.input_shapes)) for e in rows] + [12]) + 4,
                          max_shapes_width)
        widths.append(shape_width)
        titles.append("Input Shapes")

    def line(cells):
        return "".join(str(c).rjust(w)[:w] + "  " for c, w in zip(cells, widths))

    rule = "".join("-" * w + "  " for w in widths)
    out = []
    if header is not None or top_level_only:
        out.append("=" * len(rule))
        if header is not None:
            out.append(header)
        if top_level_only:
            out.append("This report only display top-level ops statistics")
    out += [rule, line(titles), rule]
    for e in rows:
        name = e.key if len(e.key) <= name_width - 3 else e.key[:name_width - 6] + "..."
        cells = [name, _format_time_share(e.self_cpu_time_total, total),
                 _format_time(e.self_cpu_time_total),
                 _format_time_share(e.cpu_time_total, total), _format_time(e.cpu_time_total),
                 _format_time(e.cpu_time), e.count]
        if with_shapes:
            cells.append(str(e.input_shapes)[:widths[-1]])
        out.append(line(cells))
    out.append(rule)
    out.append(f"Self CPU time total: {_format_time(total)}")
    return "\n".join(out) + "\n"
