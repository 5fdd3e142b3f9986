"""DataLoader with worker processes, run side by side in ember and torch: batch order,
IterableDataset sharding, worker info and seeding, persistent workers, a worker's error
raised in the main process, timeouts, a dying worker, and no process left behind."""
import multiprocessing
import os
import time

import pytest
import torch

import ember

LIBS = [pytest.param(ember, id='ember'), pytest.param(torch, id='torch')]


def data_module(lib):
    return ember.utils.data if lib is ember else torch.utils.data


def _lib(name_or_lib):
    return {'ember': ember, 'torch': torch}.get(name_or_lib, name_or_lib)


# Module level, so spawned workers can unpickle them; each pickles the library by name.
class Squares:
    def __init__(self, lib, n=10):
        self.lib, self.n = _lib(lib), n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return self.lib.tensor([i * i])

    def __reduce__(self):
        return (type(self), (self.lib.__name__, self.n))


class Failing(Squares):
    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f'sample {i} is broken')
        return super().__getitem__(i)



class MissingKey(Squares):
    def __getitem__(self, i):
        raise KeyError('no such key')



class WhoAmI(Squares):
    """Each sample says which worker made it, that worker's seed and pid, and a draw from
    the library's generator."""
    def __getitem__(self, i):
        info = data_module(self.lib).get_worker_info()
        return (info.id, info.num_workers, info.seed, os.getpid(),
                float(self.lib.rand(())))



class Slow(Squares):
    def __getitem__(self, i):
        time.sleep(3)
        return i



class Dies(Squares):
    def __getitem__(self, i):
        if i == 3:
            os._exit(1)
        return i



def make_stream(lib):
    class Stream(data_module(lib).IterableDataset):
        """Sharded by worker: worker k of n yields k, k+n, k+2n, ... below 11."""
        def __iter__(self):
            info = data_module(lib).get_worker_info()
            start, step = (info.id, info.num_workers) if info is not None else (0, 1)
            return iter(range(start, 11, step))
    return Stream()


def listed(batches):
    return [b.flatten().tolist() if hasattr(b, 'flatten') else b for b in batches]


@pytest.fixture(autouse=True)
def no_process_left_behind():
    yield
    import gc
    gc.collect()        # a raised error's traceback may hold the last iterator (torch's too)
    for _ in range(50):
        if not multiprocessing.active_children():
            break
        time.sleep(0.1)
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize('lib', LIBS)
@pytest.mark.parametrize('options', [
    dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None),
    dict(batch_size=2, prefetch_factor=1), dict(batch_size=4, num_workers=3),
])
def test_batches_come_in_the_samplers_order(lib, options):
    options = {'num_workers': 2, **options}
    D = data_module(lib)
    single = listed(D.DataLoader(Squares(lib), **{k: v for k, v in options.items()
                                                  if k not in ('num_workers',
                                                               'prefetch_factor')}))
    assert listed(D.DataLoader(Squares(lib), **options)) == single


def test_shuffled_order_matches_the_single_process_loader():
    D = ember.utils.data
    one = listed(D.DataLoader(Squares(ember, 20), batch_size=4, shuffle=True,
                              generator=ember.Generator().manual_seed(3)))
    two = listed(D.DataLoader(Squares(ember, 20), batch_size=4, shuffle=True, num_workers=2,
                              generator=ember.Generator().manual_seed(3)))
    assert one == two


@pytest.mark.parametrize('batch_size', [None, 2, 4])
def test_iterable_dataset_sharded_by_worker_interleaves_as_torch(batch_size):
    got = {lib.__name__: listed(data_module(lib).DataLoader(make_stream(lib), num_workers=2,
                                                            batch_size=batch_size))
           for lib in (ember, torch)}
    assert got['ember'] == got['torch']


def test_dataset_pickled_to_spawned_workers():
    from .spawnable import Squares as Spawnable
    loader = ember.utils.data.DataLoader(Spawnable(6), batch_size=2, num_workers=2,
                                         multiprocessing_context='spawn')
    assert listed(loader) == [[0, 1], [4, 9], [16, 25]]


@pytest.mark.parametrize('lib', LIBS)
def test_worker_info_ids_seeds_and_generators(lib):
    D = data_module(lib)
    gen = lib.Generator().manual_seed(7)
    samples = list(D.DataLoader(WhoAmI(lib, 8), batch_size=None, num_workers=2,
                                generator=gen))
    ids = [s[0] for s in samples]
    assert ids == [0, 1] * 4                              # round robin
    assert {s[1] for s in samples} == {2}
    seeds = {s[0]: s[2] for s in samples}
    assert seeds[1] == seeds[0] + 1                       # base seed + worker id
    assert len({s[3] for s in samples}) == 2              # two processes
    draws = [s[4] for s in samples]
    assert len(set(draws)) == len(draws)                  # workers' streams differ
    again = list(D.DataLoader(WhoAmI(lib, 8), batch_size=None, num_workers=2,
                              generator=lib.Generator().manual_seed(7)))
    assert [s[2] for s in again] == [s[2] for s in samples]
    assert [s[4] for s in again] == draws                 # reproducible from the seed
    assert D.get_worker_info() is None


def record_worker_id(worker_id):
    os.environ['LOADER_WORKER_ID'] = str(worker_id)


class EnvEcho(Squares):
    def __getitem__(self, i):
        return int(os.environ.get('LOADER_WORKER_ID', -1))



@pytest.mark.parametrize('lib', LIBS)
def test_worker_init_fn_runs_in_each_worker(lib):
    loader = data_module(lib).DataLoader(EnvEcho(lib, 4), batch_size=None, num_workers=2,
                                         worker_init_fn=record_worker_id)
    assert [int(x) for x in loader] == [0, 1, 0, 1]
    assert 'LOADER_WORKER_ID' not in os.environ


@pytest.mark.parametrize('lib', LIBS)
def test_persistent_workers_serve_every_pass(lib):
    loader = data_module(lib).DataLoader(WhoAmI(lib, 6), batch_size=None, num_workers=2,
                                         persistent_workers=True)
    first = [s[3] for s in loader]
    second = [s[3] for s in loader]
    assert first == second and len(set(first)) == 2
    del loader
    import gc
    gc.collect()


@pytest.mark.parametrize('lib', LIBS)
def test_a_workers_exception_is_raised_with_its_traceback(lib):
    loader = data_module(lib).DataLoader(Failing(lib), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as info:
        list(loader)
    message = str(info.value)
    assert message.startswith('Caught ValueError in DataLoader worker process 0.\n'
                              'Original Traceback (most recent call last):\n')
    assert "raise ValueError(f'sample {i} is broken')" in message
    assert message.rstrip().endswith('ValueError: sample 5 is broken')


@pytest.mark.parametrize('lib', LIBS)
def test_a_workers_key_error_stays_readable(lib):
    with pytest.raises(KeyError) as info:
        list(data_module(lib).DataLoader(MissingKey(lib), num_workers=1))
    assert str(info.value).startswith('Caught KeyError in DataLoader worker process 0.\n')


@pytest.mark.parametrize('lib', LIBS)
def test_timeout(lib):
    loader = data_module(lib).DataLoader(Slow(lib, 2), num_workers=1, timeout=0.5)
    with pytest.raises(RuntimeError, match=r'^DataLoader timed out after 0.5 seconds$'):
        next(iter(loader))


@pytest.mark.parametrize('lib', LIBS)
def test_a_dying_worker_is_reported(lib):
    loader = data_module(lib).DataLoader(Dies(lib, 8), batch_size=None, num_workers=1)
    with pytest.raises(RuntimeError, match=r'DataLoader worker \(pid\(s\) \d+\) exited '
                                           r'unexpectedly'):
        list(loader)


@pytest.mark.parametrize('lib', LIBS)
def test_abandoning_an_iterator_stops_its_workers(lib):
    it = iter(data_module(lib).DataLoader(Squares(lib, 50), batch_size=2, num_workers=2))
    next(it)
    assert len(multiprocessing.active_children()) == 2
    del it
    import gc
    gc.collect()


def test_out_of_order_delivery_keeps_every_batch():
    loader = ember.utils.data.DataLoader(Squares(ember, 12), batch_size=2, num_workers=3,
                                         in_order=False)
    assert sorted(map(tuple, listed(loader))) == sorted(
        map(tuple, listed(ember.utils.data.DataLoader(Squares(ember, 12), batch_size=2))))


@pytest.mark.parametrize('context, error', [('nope', ValueError), (3, TypeError)])
def test_bad_multiprocessing_context(context, error):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(error) as info:
            data_module(lib).DataLoader(Squares(lib), num_workers=1,
                                        multiprocessing_context=context)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_tensor_dataset_batches_through_workers_equal_torchs():
    x = torch.arange(24.).reshape(12, 2)
    y = torch.arange(12)
    ours = ember.utils.data.DataLoader(ember.utils.data.TensorDataset(
        ember.tensor(x.numpy()), ember.tensor(y.numpy())), batch_size=5, num_workers=2)
    theirs = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=5,
                                         num_workers=2)
    for (a, b), (c, d) in zip(ours, theirs, strict=True):
        assert a.tolist() == c.tolist() and b.tolist() == d.tolist()
        assert a.dtype == ember.float32 and b.dtype == ember.int64


INTERRUPTED_SCRIPT = r'''
import os, sys, time
import ember
from ember.utils.data import DataLoader

class Slow:
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        time.sleep(0.05)
        return i

if __name__ == '__main__':
    loader = DataLoader(Slow(), batch_size=2, num_workers=2)
    it = iter(loader)
    next(it)
    print(' '.join(str(w.pid) for w in it._workers), flush=True)
    for batch in it:
        pass
'''


def test_an_interrupt_leaves_no_worker_behind(tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) ends the loop with
    KeyboardInterrupt, and every worker process ends with it."""
    import signal
    import subprocess
    import sys
    script = tmp_path / 'interrupted.py'
    script.write_text(INTERRUPTED_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))] +
        ([os.environ['PYTHONPATH']] if os.environ.get('PYTHONPATH') else [])))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert len(pids) == 2
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and 'KeyboardInterrupt' in err
    deadline = time.time() + 20
    alive = pids
    while alive and time.time() < deadline:
        alive = [p for p in pids if _running(p)]
        time.sleep(0.1)
    assert alive == []


def _running(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f'/proc/{pid}/stat') as f:   # a zombie has ended; only its entry is left
            return f.read().split(')')[-1].split()[0] != 'Z'
    except FileNotFoundError:
        return False
