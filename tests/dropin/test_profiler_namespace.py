"""torch.profiler on ember and torch: the activities, the step schedule (every action of
several schedules), when ``on_trace_ready`` fires and which steps' operators its window
holds, the step ranges, the errors before anything was recorded, and the trace handler's
files."""
import json
import os

import pytest

from tests.dropin.compare import same, outcome, script_output, torch, ember


def test_activities_and_actions():
    same(lambda lib: [(a.name, a.value) for a in lib.profiler.ProfilerActivity.__members__.values()])
    same(lambda lib: [(a.name, a.value) for a in lib.profiler.ProfilerAction])
    same(lambda lib: sorted(a.name for a in lib.profiler.supported_activities()))


@pytest.mark.parametrize('kw', [
    dict(wait=1, warmup=1, active=2, repeat=2, skip_first=1),
    dict(wait=0, warmup=1, active=1),
    dict(wait=2, warmup=0, active=3, repeat=1),
    dict(wait=1, warmup=0, active=2, skip_first_wait=1),
    dict(wait=1, warmup=2, active=1, repeat=3, skip_first=2, skip_first_wait=1),
    dict(wait=-1, warmup=0, active=1), dict(wait=0, warmup=0, active=0),
])
def test_schedule(kw):
    same(lambda lib: [lib.profiler.schedule(**kw)(i).name for i in range(20)])


def _window_names(prof):
    return sorted({e.name for e in prof.events()} & {'aten::mul', 'aten::zeros', 'aten::eye',
                                                      'aten::add', 'ProfilerStep*'})


@pytest.mark.parametrize('kw', [
    dict(wait=1, warmup=1, active=2, repeat=1), dict(wait=0, warmup=1, active=1, repeat=2),
    dict(wait=1, warmup=0, active=1),
])
def test_scheduled_windows(kw):
    def run(lib):
        calls = []

        def ready(prof):
            calls.append((prof.step_num, _window_names(prof)))
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU],
                                  schedule=lib.profiler.schedule(**kw),
                                  on_trace_ready=ready) as prof:
            for i in range(6):
                lib.ones(2) * (i + 1)
                if i % 2:
                    lib.zeros(1)
                else:
                    lib.eye(2)
                prof.step()
        return calls
    # (warnings aside: torch's 'clears events' warning comes once per process, see below)
    assert outcome(ember, run)[0] == outcome(torch, run)[0]


def test_clearing_events_warns_once_per_process():
    script = ("import warnings, {lib}\nwarnings.simplefilter('always')\n"
              "with warnings.catch_warnings(record=True) as w:\n"
              "    for _ in range(2):\n"
              "        with {lib}.profiler.profile(schedule={lib}.profiler.schedule(\n"
              "                wait=0, warmup=1, active=1, repeat=3)) as p:\n"
              "            for i in range(6):\n"
              "                {lib}.ones(1) * 2\n"
              "                p.step()\n"
              "print(sorted(str(x.message)[:40] for x in w))")
    e, t = script_output(script)
    assert e == t and 'clears events' in e


def test_unscheduled_profile_hands_over_once_at_the_end():
    def run(lib):
        calls = []
        with lib.profiler.profile(on_trace_ready=lambda p: calls.append(p.step_num)) as prof:
            lib.ones(1) * 2
            prof.step()
            lib.ones(1) + 1
        return calls, _window_names(prof)
    same(run)


def test_start_and_stop():
    def run(lib):
        prof = lib.profiler.profile()
        prof.start()
        lib.ones(2) * 3
        prof.stop()
        return _window_names(prof), 'aten::mul' in prof.key_averages().table()
    same(run)


@pytest.mark.parametrize('method,args', [('events', ()), ('key_averages', ()),
                                         ('export_chrome_trace', ('x.json',)),
                                         ('export_stacks', ('x.txt',))])
def test_nothing_recorded_yet(method, args, tmp_path):
    same(lambda lib: getattr(lib.profiler.profile(), method)(
        *[str(tmp_path / a) for a in args]))


def test_record_function_is_autograds():
    assert ember.profiler.record_function is ember.autograd.profiler.record_function


def test_tensorboard_trace_handler_writes_a_chrome_trace(tmp_path):
    for use_gzip in (False, True):
        out = tmp_path / str(use_gzip)
        with ember.profiler.profile(on_trace_ready=ember.profiler.tensorboard_trace_handler(
                str(out), worker_name='w', use_gzip=use_gzip)):
            ember.ones(2) * 2
        names = os.listdir(out)
        assert len(names) == 1 and names[0].startswith('w.')
        assert names[0].endswith('.pt.trace.json' + ('.gz' if use_gzip else ''))
        if not use_gzip:
            trace = json.loads((out / names[0]).read_text())
            assert any(e['name'] == 'aten::mul' for e in trace['traceEvents'])
