"""ember.distributed on 2 MPI ranks (mpirun -np 2), side by side with torch.distributed on
gloo in the same processes: collectives, DistributedDataParallel training, a failing rank,
and the torchrun-style launcher. Skipped, with the reason, without mpirun or mpi4py."""
import json
import sys

import numpy as np
import pytest

from .mpi import free_port, mpirun, require_mpi, run

CASES = 56   # the collectives cases ranks_collectives.py records


def _load(path):
    with open(path) as f:
        return json.load(f)


@pytest.fixture(scope='module')
def collectives(tmp_path_factory):
    out = tmp_path_factory.mktemp('collectives')
    proc = mpirun('ranks_collectives.py', OUT_DIR=out, ORACLE_PORT=free_port())
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [_load(out / f'rank{r}.json') for r in range(2)]


@pytest.mark.parametrize('rank', [0, 1])
def test_collectives_match_torch(collectives, rank):
    results = collectives[rank]
    assert len(results) == CASES
    for name, got in results.items():
        assert got['ember'] == got['torch'], (name, got)


@pytest.fixture(scope='module')
def ddp(tmp_path_factory):
    out = tmp_path_factory.mktemp('ddp')
    proc = mpirun('ranks_ddp.py', OUT_DIR=out, ORACLE_PORT=free_port())
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _close(a, b):
    np.testing.assert_allclose(np.array(a, dtype=float), np.array(b, dtype=float),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('case', ['plain', 'small_buckets', 'unused', 'no_sync', 'mlp',
                                  'mlp_no_sync'])
def test_ddp_training(ddp, case):
    ranks = [_load(ddp / f'{case}_rank{r}.json') for r in range(2)]
    # Identical on both ranks, bit for bit.
    assert ranks[0]['ember'] == ranks[1]['ember']
    for res in ranks:
        ember, torch = res['ember'], res['torch']
        assert ember.pop('keys') == torch.pop('keys')    # module.-prefixed, as torch
        assert ember.keys() == torch.keys()
        for name in ember:
            _close(ember[name]['value'], torch[name]['value'])
            assert (ember[name]['grad'] is None) == (torch[name]['grad'] is None), name
            if ember[name]['grad'] is not None:
                _close(ember[name]['grad'], torch[name]['grad'])
            if 'single' in res:   # the definition: one process on the whole batch
                _close(ember[name]['value'], res['single'][name]['value'])
                _close(ember[name]['grad'], res['single'][name]['grad'])
    if case == 'unused':   # used by no rank: no gradient, as torch
        assert ranks[0]['ember']['extra.weight']['grad'] is None


def test_failing_rank_ends_the_job_with_its_error():
    proc = mpirun('ranks_raise.py', timeout=120)
    assert proc.returncode != 0
    assert 'ValueError: boom on rank 1' in proc.stderr + proc.stdout


def test_launcher_runs_the_script_on_mpirun_with_torchrun_env(tmp_path):
    require_mpi()
    proc = run([sys.executable, '-m', 'ember.distributed.run', '--nproc-per-node', '2',
                'tests/distributed/ranks_env.py', '--lr', '0.1'], timeout=120,
               OUT_DIR=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for r in range(2):
        seen = _load(tmp_path / f'rank{r}.json')
        assert seen == {'RANK': str(r), 'LOCAL_RANK': str(r), 'WORLD_SIZE': '2',
                        'LOCAL_WORLD_SIZE': '2', 'MASTER_ADDR': 'localhost', 'rank': r,
                        'world_size': 2, 'argv': ['tests/distributed/ranks_env.py', '--lr',
                                                  '0.1'],
                        'main': '__main__', 'elastic': True}


def test_readme_example_trains_on_two_ranks(tmp_path):
    """examples/ddp_train.py (the README's example) through the launcher: rank 0 reports a
    falling loss and saves the unwrapped model, whose keys are those of the same torch
    model."""
    require_mpi()
    import torch
    import ember
    saved = tmp_path / 'model.pt'
    proc = run([sys.executable, '-m', 'ember.distributed.run', '--nproc-per-node', '2',
                'examples/ddp_train.py', '--epochs', '3', '--save', str(saved)], timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    losses = [float(line.split()[-1]) for line in proc.stdout.splitlines()
              if line.startswith('epoch')]
    assert len(losses) == 3 and losses[2] < losses[0]
    reference = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(),
                                    torch.nn.Linear(64, 2)).state_dict()
    state = ember.load(saved)
    assert {k: tuple(v.shape) for k, v in state.items()} == {
        k: tuple(v.shape) for k, v in reference.items()}
