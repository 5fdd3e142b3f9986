"""Data-parallel scaling: the MLP workload (784-512-512-10, ReLU, SGD momentum 0.9, global
batch 128) trained by one process, and by 2 ranks under mpirun with DistributedDataParallel
(64 samples each, gradients averaged), for ember (on MPI) and torch (on gloo) side by side.
Every process runs one thread (BLAS and torch pinned), so 2 ranks can use 2 cores.

    python benchmarks/ddp_scaling.py [--steps 30] [--ranks 2]

Prints samples/s for each and the speed-up of N ranks over one process.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ONE_THREAD = {'OPENBLAS_NUM_THREADS': '1', 'OMP_NUM_THREADS': '1', 'MKL_NUM_THREADS': '1'}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def worker(lib_name, steps, out):
    """One rank (or the single process): times ``steps`` training steps after warm-up."""
    import numpy as np
    rank, world = (int(os.environ.get(k, d)) for k, d in
                   (('OMPI_COMM_WORLD_RANK', 0), ('OMPI_COMM_WORLD_SIZE', 1)))
    if lib_name == 'torch':
        import torch as lib
        import torch.distributed as dist
        lib.set_num_threads(1)
        if world > 1:
            dist.init_process_group('gloo', init_method=f"tcp://127.0.0.1:{os.environ['PORT']}",
                                    rank=rank, world_size=world)
    else:
        import ember as lib
        import ember.distributed as dist
        if world > 1:
            dist.init_process_group('mpi')
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    if world > 1:
        model = nn.parallel.DistributedDataParallel(model)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(rank)
    per_rank = 128 // world
    x = lib.tensor(rng.standard_normal((per_rank, 784), dtype=np.float32))
    y = lib.tensor(rng.integers(0, 10, per_rank))

    def step():
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    for _ in range(3):
        step()
    if world > 1:
        dist.barrier()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    if world > 1:
        dist.barrier()
    elapsed = time.perf_counter() - start
    if rank == 0:
        with open(out, 'w') as f:
            json.dump({'samples_per_s': 128 * steps / elapsed}, f)
    if world > 1:
        dist.destroy_process_group()


def measure(lib_name, ranks, steps):
    """Samples/s of ``ranks`` processes (1: one plain process) for ``lib_name``."""
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
        s.close()
        out = os.path.join(tmp, 'result.json')
        env = dict(os.environ, **ONE_THREAD, PORT=str(port), PYTHONWARNINGS='ignore',
                   PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''),
                   OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
                   OMPI_MCA_btl_vader_single_copy_mechanism=os.environ.get(
                       'OMPI_MCA_btl_vader_single_copy_mechanism', 'none'))
        cmd = [sys.executable, __file__, '--worker', lib_name, '--steps', str(steps),
               '--out', out]
        if ranks > 1:
            cmd = ['mpirun', '-np', str(ranks), '--bind-to', 'none', *cmd]
        subprocess.run(cmd, env=env, check=True)
        with open(out) as f:
            return json.load(f)['samples_per_s']


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--steps', type=int, default=30)
    p.add_argument('--ranks', type=int, default=2)
    p.add_argument('--worker', help=argparse.SUPPRESS)
    p.add_argument('--out', help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        return worker(args.worker, args.steps, args.out)
    if shutil.which('mpirun') is None:
        sys.exit('mpirun not found: install OpenMPI (and mpi4py) to run this benchmark')
    print(f'MLP 784-512-512-10, global batch 128, {args.steps} steps, 1 thread per process, '
          f'{os.cpu_count()} cores')
    print(f"{'':8}{'1 process':>14}{f'{args.ranks} ranks DDP':>16}{'speed-up':>10}")
    for lib_name in ('ember', 'torch'):
        one = measure(lib_name, 1, args.steps)
        many = measure(lib_name, args.ranks, args.steps)
        print(f'{lib_name:8}{one:>10.0f} s/s{many:>12.0f} s/s{many / one:>9.2f}x')


if __name__ == '__main__':
    main()
