"""ember.distributed, DistributedSampler and nn.parallel in one process (no MPI needed),
side by side with torch: availability, errors before init_process_group, samplers' shares,
DataParallel, the launcher's command line, and that importing needs no mpi4py."""
import subprocess
import sys

import pytest
import torch
import torch.distributed as tdist
from torch.utils.data.distributed import DistributedSampler as TSampler

import ember
import ember.distributed as edist
from ember.distributed.run import mpirun_command
from ember.utils.data.distributed import DistributedSampler as ESampler

from .mpi import ROOT


def outcome(fn):
    """fn()'s value, or its exception's class name and message."""
    try:
        return fn()
    except Exception as e:
        return type(e).__name__, str(e)


def test_sampler_importable_from_utils_data():
    """Training scripts import the sampler from torch.utils.data itself."""
    from torch.utils.data import DistributedSampler as Top
    from ember.utils.data import DistributedSampler as ETop
    assert Top is TSampler and ETop is ESampler
    e = list(ETop(range(10), num_replicas=3, rank=1, shuffle=False))
    assert e == list(Top(range(10), num_replicas=3, rank=1, shuffle=False))


def test_availability_and_names():
    assert edist.is_available() is tdist.is_available() is True
    assert edist.is_initialized() is tdist.is_initialized() is False
    assert edist.group.WORLD is tdist.group.WORLD is None
    for op in ('SUM', 'AVG', 'PRODUCT', 'MIN', 'MAX', 'BAND', 'BOR', 'BXOR'):
        assert hasattr(tdist.ReduceOp, op) and hasattr(edist.ReduceOp, op)
    for name in ('init_process_group', 'all_reduce', 'reduce', 'broadcast', 'all_gather',
                 'all_gather_into_tensor', 'gather', 'scatter', 'reduce_scatter',
                 'reduce_scatter_tensor', 'send', 'recv', 'isend', 'irecv', 'barrier',
                 'new_group', 'all_gather_object', 'broadcast_object_list', 'get_rank',
                 'get_world_size', 'destroy_process_group', 'Backend', 'GroupMember'):
        assert hasattr(tdist, name) and hasattr(edist, name), name


@pytest.mark.parametrize('call', [
    lambda d, t: d.get_rank(), lambda d, t: d.get_world_size(),
    lambda d, t: d.all_reduce(t.ones(2)), lambda d, t: d.barrier(),
    lambda d, t: d.broadcast(t.ones(2), src=0), lambda d, t: d.new_group([0]),
    lambda d, t: d.all_gather([t.ones(2)], t.ones(2)),
    lambda d, t: d.all_gather_object([None], 1),
])
def test_collectives_before_init(call):
    expected = outcome(lambda: call(tdist, torch))
    assert expected[0] == 'ValueError'
    assert outcome(lambda: call(edist, ember)) == expected


def test_ddp_and_sampler_before_init():
    expected = outcome(lambda: torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2)))
    assert outcome(lambda: ember.nn.parallel.DistributedDataParallel(
        ember.nn.Linear(2, 2))) == expected
    assert outcome(lambda: ESampler(range(4))) == outcome(lambda: TSampler(range(4)))


@pytest.mark.parametrize('n', range(0, 10))
@pytest.mark.parametrize('replicas', [1, 2, 3, 4])
@pytest.mark.parametrize('drop_last', [False, True])
def test_sampler_shares_match_torch(n, replicas, drop_last):
    for rank in range(replicas):
        def share(cls):
            s = cls(range(n), num_replicas=replicas, rank=rank, shuffle=False,
                    drop_last=drop_last)
            return list(s), len(s), s.num_samples, s.total_size
        assert outcome(lambda: share(ESampler)) == outcome(lambda: share(TSampler))


@pytest.mark.parametrize('rank', [-1, 2, 5])
def test_sampler_bad_rank(rank):
    assert (outcome(lambda: ESampler(range(4), num_replicas=2, rank=rank))
            == outcome(lambda: TSampler(range(4), num_replicas=2, rank=rank)))


@pytest.mark.parametrize('cls', [ESampler, TSampler])
@pytest.mark.parametrize('n,replicas', [(10, 3), (7, 2), (2, 5)])
def test_sampler_shuffle_structure(cls, n, replicas):
    """Shuffled, the shares (both libraries) pad a permutation as the unshuffled shares pad
    range(n); the same seed and epoch give the same order, another epoch another order."""
    def shares(epoch, seed=0):
        out = []
        for r in range(replicas):
            s = cls(range(n), num_replicas=replicas, rank=r, seed=seed)
            s.set_epoch(epoch)
            out.append(list(s))
        return out
    plain = [list(cls(range(n), num_replicas=replicas, rank=r, shuffle=False))
             for r in range(replicas)]
    first = shares(0)
    assert first == shares(0)
    # Undo the striding: the padded sequence is a permutation of range(n) padded from its
    # start, exactly as the unshuffled one is range(n) padded from its start.
    seq = [first[i % replicas][i // replicas] for i in range(len(first[0]) * replicas)]
    base = [plain[i % replicas][i // replicas] for i in range(len(plain[0]) * replicas)]
    perm = seq[:n]
    assert sorted(perm) == list(range(n))
    assert seq == [perm[i] for i in base]
    assert any(shares(e) != first for e in (1, 2, 3))


def test_data_parallel_matches_torch():
    tm = torch.nn.Linear(3, 2)
    em = ember.nn.Linear(3, 2)
    em.load_state_dict({k: ember.tensor(v.detach().numpy())
                        for k, v in tm.state_dict().items()})
    tw, ew = torch.nn.parallel.DataParallel(tm), ember.nn.parallel.DataParallel(em)
    assert list(ew.state_dict()) == list(tw.state_dict())
    assert ew.module is em
    x = [[1.0, 2.0, 3.0]]
    # (float32 products: torch's BLAS may fuse or reorder the three terms -- one ulp apart)
    assert ew(ember.tensor(x)).tolist()[0] == pytest.approx(tw(torch.tensor(x)).tolist()[0],
                                                            rel=1e-5, abs=1e-6)


def test_launcher_command_line():
    cmd = mpirun_command(['--nproc-per-node', '3', 'train.py', '--epochs', '2'], 'mpirun')
    assert cmd[:3] == ['mpirun', '-np', '3']
    assert cmd[-6:] == [sys.executable, '-m', 'ember.distributed._worker', 'train.py',
                        '--epochs', '2']
    cmd = mpirun_command(['--nproc_per_node=2', '--nnodes', '2', '--hostfile', 'hosts',
                          '-m', 'pkg.train'], 'mpirun')
    assert cmd[:7] == ['mpirun', '-np', '4', '--hostfile', 'hosts', '--npernode', '2']
    assert cmd[-2:] == ['-m', 'pkg.train']


def test_import_needs_no_mpi4py():
    code = ("import sys, ember, ember.distributed, ember.nn.parallel, "
            "ember.utils.data.distributed; print('mpi4py' in sys.modules)")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         cwd=ROOT, env={'PYTHONPATH': ROOT, 'PATH': '/usr/bin:/bin'})
    assert out.stdout.strip() == 'False', out.stderr


@pytest.mark.parametrize('backend', ['nccl', 'foo'])
def test_unknown_backends(backend):
    def init(d):
        return d.init_process_group(backend, init_method='tcp://127.0.0.1:1', world_size=1,
                                    rank=0)
    assert outcome(lambda: init(edist)) == outcome(lambda: init(tdist))
    assert not edist.is_initialized()


def test_gloo_world_size_must_agree_with_mpi():
    """backend='gloo' runs on MPI: a WORLD_SIZE (env://) that is not MPI's is an error
    (one process started without mpirun is a world of one)."""
    from .mpi import require_mpi
    require_mpi()
    code = ("import ember.distributed as d\ntry:\n d.init_process_group('gloo')\n"
            "except ValueError as e:\n print(e)")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         cwd=ROOT, env={'PYTHONPATH': ROOT, 'PATH': '/usr/bin:/bin',
                                        'WORLD_SIZE': '3', 'RANK': '0'})
    assert out.stdout.startswith("init_process_group: world_size=3 but MPI launched this "
                                 "process with world_size=1"), out.stdout + out.stderr


@pytest.mark.parametrize('call', [
    lambda d: d.get_node_local_rank(fallback_rank=3),
    lambda d: d.get_node_local_rank(),
    lambda d: [d.supports_complex(getattr(d.ReduceOp, op)) for op in
               ('SUM', 'AVG', 'PRODUCT', 'MIN', 'MAX', 'BAND', 'BOR', 'BXOR')],
    lambda d: [d.get_default_backend_for_device(x) for x in ('cpu', 'cuda:1')],
    lambda d: d.get_default_backend_for_device('meta'),
    lambda d: [d.is_backend_available(b) for b in ('nccl', 'bogus')],
    lambda d: [[c.__name__ for c in getattr(d, n).__mro__[:3]] for n in
               ('DistError', 'DistBackendError', 'DistNetworkError', 'DistStoreError',
                'QueueEmptyError')],
    lambda d: d.P2POp(d.send, ember.zeros(1) if d is edist else torch.zeros(1), 1),
    lambda d: d.batch_isend_irecv([1]),
], ids=['local_rank_fallback', 'local_rank_missing', 'supports_complex', 'default_backend',
        'default_backend_meta', 'backend_available', 'errors', 'p2p_not_isend',
        'batch_not_ops'])
def test_helpers_before_init(call, monkeypatch):
    monkeypatch.delenv('LOCAL_RANK', raising=False)
    assert outcome(lambda: call(edist)) == outcome(lambda: call(tdist))


def test_node_local_rank_from_the_launcher(monkeypatch):
    monkeypatch.setenv('LOCAL_RANK', '2')
    assert edist.get_node_local_rank(fallback_rank=0) == tdist.get_node_local_rank(0) == 2


def test_gloo_available_exactly_when_mpi_is():
    """ember runs 'gloo' (and 'mpi') on MPI: available when mpi4py imports."""
    assert edist.is_backend_available('GLOO') is edist.is_backend_available('mpi') is \
        edist.is_mpi_available()
