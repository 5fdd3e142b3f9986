"""PyTorch's test/test_autograd.py, class TestAutograd, first part (the tests before offset
230,000 of the upstream file at commit 5c322af), adapted to run on ember and torch: the
tests of that part that test_autograd_upstream.py did not adapt yet. Same conventions as
there (``lib`` is ember or torch; upstream names and assertions kept; ``XFAIL`` maps a test
to the reason ember's run is expected to fail, strictly).

Every TestAutograd test of that part is now adapted (here or in test_autograd_upstream.py),
except these, and why:
- test_copy_slices_graph_task_updates, test_materialize_grads, test_dont_materialize_grads:
  torch._C._functions (DelayedError, UndefinedGrad), private nodes.
- test_will_engine_execute_node, test_multiple_insert_removal_caching,
  test_current_graph_task_id, test_current_graph_task_execution_order,
  test_unsafe_set_version_counter (torch._C._autograd._unsafe_set_version_counter),
  test_node_post_hook_registered_during_unpack_hook, test_current_node
  (torch._C._current_autograd_node; the latter also TorchDispatchMode): private torch._C API.
- test_view_replay_enabled: torch.autograd._force_original_view_tracking, a private switch
  between two of torch's internal view-tracking schemes (AsStridedBackward vs ViewBackward).
- test_grad_fn_input_metadata, test_calculate_shape_util: nested (jagged) tensors.
- test_not_implemented_grad: its example (nextafter) has a derivative in torch 2.13.
- test_naughty_autograd_function_stashing_ctx: torch 2.13 does not raise there any more.
- test_custom_autograd_ac_early_stop: on torch 2.13 its weak-reference check passes or fails
  depending on which tests ran before it in the process (it fails run alone).
- test_to_sparse_backward, test_sparse_mm_backward: in test_autograd_sparse_upstream.py.
- test_sparse_gather_*, test_no_grad_copy_sparse, test_gradcheck_input,
  test_gradcheck_check_batched_grad: in test_autograd_sparse_upstream.py.
- test_gradcheck_validates_input_mkldnn, test_gradcheck_test_outputs: in
  test_autograd_upstream_part_b.py.
- test_checkpoint_compile_no_recompile, test_checkpoint_device_context_fn,
  test_node_ordering_when_none_returned,
  test_forward_traceback_preserves_exception_with_checkpoint: need CUDA.
- test_lobpcg: a slow-gradcheck test (skipped upstream in slow-gradcheck environments): its
  torch run alone takes over 5 minutes on the 2 shared cores here, and on random inputs its
  gradchecks pass or fail with the gap between the requested eigenvalues and the next (torch
  fails some seeds too). Its checks run on inputs with well-separated eigenvalues in
  tests/linalg/test_lobpcg_grad_oracle.py.
Adapted with a change:
- test_retain_grad_cycle: upstream holds the tensor by torch._C._WeakTensorRef; a Python
  weakref.ref states the same (the tensor is freed when its function returns).
- test_profiler_unboxed_only only ran resize_ under the profiler: it now also checks the
  one event recorded. test_profiler_aggregation_lstm printed its tables and trace: it now
  checks their headers and that the trace holds every recorded event.
"""
import weakref
from importlib import import_module

from ._upstream import lib_fixture, eq, raises


XFAIL = {}

lib = lib_fixture(XFAIL)


def _profiler(lib):
    return import_module(lib.__name__ + '.autograd.profiler')


def _profiler_util(lib):
    return import_module(lib.__name__ + '.autograd.profiler_util')


def test_retain_grad_cycle(lib):
    x = lib.ones(5, 5, requires_grad=True)

    def run_test():
        y = x * 2
        y.retain_grad()
        return y / 2, weakref.ref(y)

    z, ref = run_test()
    assert ref() is None
    z.sum().backward()


# -- the autograd profiler ------------------------------------------------------------------
def test_profiler(lib):
    profile = _profiler(lib).profile
    x = lib.randn(10, 10)
    with profile(use_kineto=lib.autograd.kineto_available()) as p:
        assert lib.autograd._profiler_enabled()
        y = x * 2 + 4
    assert not lib.autograd._profiler_enabled()
    names = ["aten::mul", "aten::add"]
    found_indices = set()
    for evt in p.function_events:
        if evt.name in names:
            found_indices.add(names.index(evt.name))
    assert len(found_indices) == len(names)


def test_profiler_seq_nr(lib):
    profile = _profiler(lib).profile
    with profile(use_kineto=lib.autograd.kineto_available()) as p:
        x = lib.randn(10, 10, requires_grad=True)
        y = lib.randn(10, 10, requires_grad=True)
        z = x + y
        s = z.sum(dim=None)
        s.backward()
    autograd_ops = {("aten::add", "Add"): [], ("aten::sum", "Sum"): []}
    found_empty = False
    for e in p.function_events:
        for (fwd_name, bwd_name), ops in autograd_ops.items():
            if e.name == fwd_name or (bwd_name in e.name and "Backward" in e.name):
                ops.append(e)
        if e.name == "aten::empty":
            assert e.sequence_nr == -1
            found_empty = True
    for idx, ((fwd_name, bwd_name), ops) in enumerate(autograd_ops.items()):
        assert len(ops) == 3
        assert ops[0].name == fwd_name
        assert ops[1].name == f"autograd::engine::evaluate_function: {bwd_name}Backward{idx}"
        assert ops[2].name == f"{bwd_name}Backward{idx}"
        assert ops[0].sequence_nr >= 0
        assert ops[1].sequence_nr == ops[0].sequence_nr
        assert ops[2].sequence_nr == ops[0].sequence_nr
        assert ops[0].fwd_thread == 0
        assert ops[1].fwd_thread == ops[0].thread
        assert ops[2].fwd_thread == ops[0].thread
    assert found_empty


def test_profiler_unboxed_only(lib):
    x = lib.rand(3, 4)
    with _profiler(lib).profile(use_kineto=lib.autograd.kineto_available()) as prof:
        x.resize_([3, 2])
    # (upstream only checks that this runs; the op is recorded under its aten name)
    assert [e.name for e in prof.function_events] == ["aten::resize_"]


def test_record_function_callbacks(lib):
    prof = _profiler(lib)
    x = lib.randn(10, 10)
    with prof.profile(use_kineto=lib.autograd.kineto_available()) as p:
        with prof.record_function("foo"):
            y = x * 2 + 4
    foo_event = next(event for event in p.function_events if "foo" in event.name)
    assert foo_event.count == 1


def test_record_function_legacy(lib):
    x = lib.randn(10, 10)
    with _profiler(lib).profile(use_kineto=lib.autograd.kineto_available()) as p:
        handle = lib.ops.profiler._record_function_enter("bar", None)
        try:
            y = x * 2 + 4
        finally:
            lib.ops.profiler._record_function_exit(handle)
    foo_event = next(event for event in p.function_events if "bar" in event.name)
    assert foo_event.count == 1


def test_profiler_aggregation_fake(lib):
    util = _profiler_util(lib)
    events = util.EventList()
    id = [0]

    def get_id():
        id[0] = id[0] + 1
        return id[0]

    # [[thread_id, [(start, end, id), ....]], ...]
    threads = [
        [1, [(0, 1, get_id()), (1, 2, get_id())]],
        [0, [(0, 2, get_id()), (1, 2, get_id()), (1, 3, get_id())]],
    ]
    for thread, ranges in threads:
        for range in ranges:
            assert len(range) == 3
            events.append(util.FunctionEvent(id=range[2], node_id=0, name="", thread=thread,
                                             start_us=range[0], end_us=range[1]))
    events._populate_cpu_children()
    # [1, 3] pushes out [0, 2] first; then [1, 2] is recorded as a child of [1, 3]
    res = [[], [], [], [], [4]]

    def get_children_ids(event):
        return [child.id for child in event.cpu_children]

    assert [get_children_ids(event) for event in events] == res


def test_profiler_aggregation_table(lib):
    x = lib.randn(1024)
    with _profiler(lib).profile(use_kineto=lib.autograd.kineto_available()) as prof:
        lib.einsum("i->", x)
    prof_str = str(prof)
    prof_table = prof.table()
    assert prof_table == prof_str


def test_profiler_function_event_avg(lib):
    util = _profiler_util(lib)
    avg = util.FunctionEventAvg()
    avg.add(util.FunctionEvent(id=0, node_id=0, name="foo", thread=0, start_us=10, end_us=15))
    avg.add(util.FunctionEvent(id=1, node_id=0, name="foo", thread=0, start_us=20, end_us=30))
    avg.add(avg)
    assert avg.key == "foo"
    # aggregate stats
    assert avg.count == 4
    assert avg.cpu_time_total == 30
    assert avg.self_cpu_time_total == 30
    assert avg.device_time_total == 0
    # average stats
    assert avg.cpu_time == 7.5
    assert avg.device_time_total == 0


def test_profiler_shapes(lib):
    layer1 = lib.nn.Linear(20, 30)
    layer2 = lib.nn.Linear(30, 40)
    input = lib.randn(128, 20)
    with _profiler(lib).profile(record_shapes=True,
                                use_kineto=lib.autograd.kineto_available()) as prof:
        layer2(layer1(input))
    linear_expected_shapes = [
        [[128, 20], [30, 20], [30]],
        [[128, 30], [40, 30], [40]],
    ]
    found_indices = set()
    for event in prof.function_events:
        if event.name == "aten::linear":
            assert event.input_shapes in linear_expected_shapes
            found_indices.add(linear_expected_shapes.index(event.input_shapes))
    assert len(found_indices) == len(linear_expected_shapes)


def test_profiler_aggregation_lstm(lib, tmp_path):
    util = _profiler_util(lib)
    rnn = lib.nn.LSTM(10, 20, 2)
    with _profiler(lib).profile(record_shapes=True,
                                use_kineto=lib.autograd.kineto_available()) as prof:
        for _ in range(20):
            input = lib.randn(5, 3, 10)
            h = lib.randn(2, 3, 20)
            c = lib.randn(2, 3, 20)
            rnn(input, (h, c))
    # Upstream prints these; here each must at least be a table with its header.
    tables = [
        prof.table(sort_by="self_cpu_time_total", row_limit=10, header="TEST"),
        prof.key_averages(group_by_input_shape=True).table(sort_by="self_cpu_time_total",
                                                           row_limit=10),
        prof.table(sort_by="self_cpu_time_total", row_limit=10, max_src_column_width=300,
                   header="TEST", top_level_events_only=True),
        prof.key_averages(group_by_input_shape=True).table(
            sort_by="self_cpu_time_total", row_limit=10, top_level_events_only=True),
    ]
    for t in tables:
        assert "Self CPU time total:" in t and "Name" in t
    assert "\nTEST\n" in tables[0] and "\nTEST\n" in tables[2]
    assert "This report only display top-level ops statistics" in tables[2]
    assert "Input Shapes" in tables[1]
    assert util._format_time(prof.self_cpu_time_total).endswith("s")
    trace_file = tmp_path / "trace.json"
    prof.export_chrome_trace(str(trace_file))
    import json
    trace = json.loads(trace_file.read_text())
    names = {e["name"] for e in trace["traceEvents"] if e.get("ph") == "X"}
    assert {e.name for e in prof.function_events} <= names


def test_record_function(lib):
    prof = _profiler(lib)
    x = lib.randn(10, 10)

    def forward(x):
        with prof.record_function("outer"):
            y = x * 2 + 4
            with prof.record_function("inner"):
                y = y - 1
        y = y / 1

    forward(x)
    with prof.profile(use_kineto=lib.autograd.kineto_available()) as p:
        forward(x)
    events = p.function_events
    important_events = ["outer", "aten::mul", "aten::add", "inner", "aten::sub", "aten::div"]
    idx = 0
    for info in events:
        if info.name == important_events[idx]:
            idx = idx + 1
        if idx == len(important_events):
            break
    assert idx == len(important_events)

    # record_function also decorates a function
    @prof.record_function("my_func")
    def f(x, y):
        return x + y

    with prof.profile(use_kineto=lib.autograd.kineto_available()) as p:
        f(1, 2)
    assert "my_func" in str(p)


def test_record_function_multithreaded(lib):
    record_function = _profiler(lib).record_function
    rf = record_function("outer")
    rf.__enter__()
    with record_function("inner"):
        # exiting the record function after starting another one does not throw
        rf.__exit__(None, None, None)
    with record_function("inner"):
        rf.__enter__()
    # exiting the record function after ending another one does not throw
    rf.__exit__(None, None, None)


# -- beyond upstream: what the adapted tests above rely on, pinned against torch -----------
def test_get_gradient_edge_refuses_tensor_without_grad(lib):
    with raises(RuntimeError, "It is not possible to get the gradient edge for a Tensor that "
                              "does not require gradients"):
        lib.autograd.graph.get_gradient_edge(lib.ones(2))
    x = lib.ones(2, requires_grad=True)
    edge = lib.autograd.graph.get_gradient_edge(x)
    assert edge.output_nr == 0 and edge.node.name() == 'torch::autograd::AccumulateGrad'
    assert isinstance(edge, tuple) and len(edge) == 3 and edge.ownership_token is None


def test_resize_function_refuses_other_numel(lib):
    resize = import_module(lib.__name__ + '.autograd._functions').Resize
    x = lib.randn(2, 3, requires_grad=True)
    y = resize.apply(x, (3, 2))
    assert type(y.grad_fn).__name__ == 'ResizeBackward'
    y.sum().backward()
    eq(x.grad, lib.ones(2, 3))
    with raises(RuntimeError, r"requested resize to 4x2 \(8 elements in total\), but the given "
                              r"tensor has a size of 2x3 \(6 elements\)"):
        resize.apply(x, (4, 2))


def test_grad_dtype_survives_neither_copy_nor_pickle(lib):
    import copy
    import pickle
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.grad_dtype = lib.float64
    assert pickle.loads(pickle.dumps(x)).grad_dtype == lib.float32
    assert copy.deepcopy(x).grad_dtype == lib.float32
    with raises(RuntimeError, "grad_dtype must be a torch.dtype or None, but got int"):
        x.grad_dtype = 3


def test_profiler_propagation(lib):
    prof = _profiler(lib)
    record_function = prof.record_function

    def foo(x):
        with record_function("in_foo") as rf:
            return x * 2

    x = lib.rand(3, 4)
    traced_foo = lib.jit.trace(foo, x)

    def bar(x):
        with record_function("in_bar") as rf:
            # the profiler propagates across fork
            fut = lib.jit._fork(traced_foo, x)
            y = lib.jit._wait(fut)
            # (the continuation, and rf's end, may run on another thread)
            with record_function("in_bar_after_wait") as rf2:
                y = y * 2
            return y

    traced_bar = lib.jit.trace(bar, x)
    with prof.profile(use_kineto=lib.autograd.kineto_available()) as p:
        traced_bar(x)
    found_foo = found_bar = found_bar_after_wait = False
    for info in p.function_events:
        if info.name == "in_foo":
            assert not found_foo
            found_foo = True
        elif info.name == "in_bar":
            assert not found_bar
            found_bar = True
        elif info.name == "in_bar_after_wait":
            assert not found_bar_after_wait
            found_bar_after_wait = True
    assert found_foo and found_bar and found_bar_after_wait

