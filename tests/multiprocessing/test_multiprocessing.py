"""ember.multiprocessing side by side with torch.multiprocessing: tensors cross processes
through shared memory (writes are seen both ways), spawn's errors, Hogwild modules."""
import multiprocessing

import pytest
import torch

import ember
import ember.multiprocessing as emp
import torch.multiprocessing as tmp

from . import children

LIBS = [pytest.param(ember, emp, id='ember'), pytest.param(torch, tmp, id='torch')]


@pytest.mark.parametrize('lib, mp', LIBS)
def test_a_tensor_on_a_queue_shares_memory_with_the_receiver(lib, mp):
    context = mp.get_context('fork')
    queue, done = context.Queue(), context.Queue()
    t = lib.zeros(2, 3)
    view = t[1]                               # a view travels as a view of the block
    child = context.Process(target=children.add_in_place, args=(queue, done))
    child.start()
    queue.put(view)
    assert done.get(timeout=60) is True
    child.join()
    assert view.is_shared()
    assert view.tolist() == [1.0, 1.0, 1.0]   # the child's write is seen here
    assert t.is_shared()                      # the view's base moved with it
    assert t.tolist() == [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]


@pytest.mark.parametrize('lib, mp', LIBS)
def test_non_leaf_tensors_that_require_grad_are_refused(lib, mp):
    queue = mp.get_context('fork').Queue()
    y = lib.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match='Cowardly refusing to serialize non-leaf tensor'):
        multiprocessing.reduction.ForkingPickler.dumps(y)
    queue.close()


@pytest.mark.parametrize('lib, mp', LIBS)
def test_share_memory_and_fork(lib, mp):
    t = lib.arange(4.0).share_memory_()
    assert t.is_shared() and not lib.arange(4.0).is_shared()
    child = mp.get_context('fork').Process(target=children.write_rank, args=(1, '', t))
    child.start()
    child.join()
    assert t.tolist() == [0.0, 11.0, 2.0, 3.0]


@pytest.mark.parametrize('lib, mp', LIBS)
def test_spawn_reports_a_raised_exception(lib, mp):
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.spawn(children.raise_value_error, args=(lib.__name__,), nprocs=2,
                 start_method='fork')
    message = str(info.value)
    assert '-- Process' in message and 'terminated with the following error:' in message
    assert 'ValueError: child' in message and 'failed on purpose' in message


@pytest.mark.parametrize('lib, mp', LIBS)
def test_spawn_reports_an_exit_code(lib, mp):
    with pytest.raises(mp.ProcessExitedException,
                       match=r'^process [01] terminated with exit code [34]$') as info:
        mp.spawn(children.exit_with_code, args=(lib.__name__,), nprocs=2,
                 start_method='fork')
    assert info.value.exit_code in (3, 4)


@pytest.mark.parametrize('lib, mp', LIBS)
def test_spawned_processes_write_a_shared_tensor(lib, mp):
    shared = lib.zeros(3).share_memory_()
    assert mp.spawn(children.write_rank, args=(lib.__name__, shared), nprocs=3,
                    start_method='fork') is None
    assert shared.tolist() == [10.0, 11.0, 12.0]
    context = mp.spawn(children.write_rank, args=(lib.__name__, shared), nprocs=1,
                       join=False, start_method='fork')
    while not context.join():
        pass
    assert len(context.pids()) == 1


def test_hogwild_module_parameters_are_shared():
    model = ember.nn.Linear(2, 2)
    before = model.weight.detach().clone()
    model.share_memory()
    assert all(p.is_shared() for p in model.parameters())
    emp.spawn(children.hogwild_step, args=(model,), nprocs=2, start_method='fork')
    assert model.weight.detach().tolist() == ((before + 1.0) + 1.0).tolist()


def test_sharing_strategies():
    assert emp.get_sharing_strategy() == 'file_system'
    assert 'file_system' in tmp.get_all_sharing_strategies()
    with pytest.raises(AssertionError):
        emp.set_sharing_strategy('file_descriptor_of_doom')
    for name in ('Queue', 'Process', 'Pool', 'get_context', 'set_start_method', 'Manager'):
        assert getattr(emp, name) is getattr(multiprocessing, name)
