"""torch.utils.benchmark's Timer, Measurement and Compare on ember and torch: the same
statements timed by both, with the same structure of results (number of runs and blocks,
statistics that agree with the raw times, the printed layout), not the same times."""
import statistics

import pytest

from tests.dropin.compare import ember, torch


def timer(lib, **kw):
    from importlib import import_module
    return import_module(f'{lib.__name__}.utils.benchmark').Timer(**kw)


@pytest.mark.parametrize('lib', [ember, torch], ids=['ember', 'torch'])
def test_timeit_is_one_block_of_n_runs(lib):
    m = timer(lib, stmt='x * 2', globals={'x': lib.ones(3)}, label='mul',
              sub_label='small', description='d').timeit(50)
    assert m.number_per_run == 50 and len(m.raw_times) == 1 and len(m.times) == 1
    assert m.times[0] == pytest.approx(m.raw_times[0] / 50)
    assert m.mean == m.median == m.times[0] and m.iqr == 0
    assert m.title == 'mul: small' and m.description == 'd'
    lines = repr(m).split('\n')
    assert lines[1:3] == ['mul: small', 'd']
    assert lines[-1] == '  1 measurement, 50 runs , 1 thread'


@pytest.mark.parametrize('lib', [ember, torch], ids=['ember', 'torch'])
def test_blocked_autorange_runs_until_min_run_time(lib):
    m = timer(lib, stmt='x + 1', setup='x = 1').blocked_autorange(min_run_time=0.05)
    assert sum(m.raw_times) >= 0.05
    assert m.median == pytest.approx(statistics.median(m.times))
    assert m.title == 'x + 1' and 'setup: x = 1' in repr(m)


@pytest.mark.parametrize('lib', [ember, torch], ids=['ember', 'torch'])
def test_adaptive_autorange_and_compare(lib):
    m = timer(lib, stmt='x + 1', setup='x = 1', label='L', sub_label='s',
              description='d').adaptive_autorange(
        max_run_time=0.3)
    assert len(m.times) >= 1 and m.iqr >= 0
    if len(m.times) > 1:
        assert '  Median: ' in repr(m) and '  IQR:    ' in repr(m)
    from importlib import import_module
    table = str(import_module(f'{lib.__name__}.utils.benchmark').Compare([m]))
    assert 'L' in table and 'Times are in' in table


def test_a_callable_statement_is_refused_as_torch():
    for lib in (ember, torch):
        with pytest.raises(ValueError, match='only a `str` stmt'):
            timer(lib, stmt=lambda: 1)
