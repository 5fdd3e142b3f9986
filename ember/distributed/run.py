"""``python -m ember.distributed.run``: torchrun's command line, launched by ``mpirun``.

    python -m ember.distributed.run --nproc-per-node 2 train.py --lr 0.1

runs ``mpirun -np 2 python -m ember.distributed._worker train.py --lr 0.1``: each process
sets torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, ...) from
MPI's and runs the script as ``__main__``. ``--hostfile``/``--host`` spread the job over
machines, as mpirun's options of those names (``--nnodes`` is then implied);
``--mpirun-args`` passes anything else to mpirun. The launcher replaces itself by mpirun
(exec), so mpirun's exit status and signals are the job's.
"""
import argparse
import os
import shlex
import shutil
import sys
import uuid


def _parser():
    p = argparse.ArgumentParser(
        prog='python -m ember.distributed.run',
        description="Start a data-parallel job of N processes per node on MPI (mpirun).")
    p.add_argument('--nproc-per-node', '--nproc_per_node', default='1',
                   help="processes per node: a number, or 'cpu'/'auto' for one per core")
    p.add_argument('--nnodes', default='1',
                   help="accepted for torchrun compatibility; the hosts come from --hostfile "
                        "or --host")
    p.add_argument('--hostfile', help="mpirun's hostfile: the machines to run on")
    p.add_argument('--host', help="mpirun's host list, e.g. 'node1:2,node2:2'")
    p.add_argument('--standalone', action='store_true', help="accepted (always standalone)")
    p.add_argument('--mpirun-args', default='',
                   help="more arguments for mpirun, as one string")
    p.add_argument('-m', '--module', action='store_true',
                   help="run the script argument as a module (python -m)")
    p.add_argument('--no-python', '--no_python', action='store_true',
                   help="run the script argument as an executable, not with python")
    p.add_argument('script', help="the training script (or module, or executable)")
    p.add_argument('script_args', nargs=argparse.REMAINDER)
    return p


def mpirun_command(argv, mpirun='mpirun'):
    """The mpirun command line (a list) that ``argv`` (this launcher's arguments) runs."""
    args = _parser().parse_args(argv)
    if args.nproc_per_node in ('cpu', 'auto'):
        nproc = os.cpu_count() or 1
    else:
        nproc = int(args.nproc_per_node)
    hosts = []
    if args.hostfile:
        hosts += ['--hostfile', args.hostfile, '--npernode', str(nproc)]
    elif args.host:
        hosts += ['--host', args.host]
    nnodes = int(str(args.nnodes).split(':')[-1])
    cmd = [mpirun, '-np', str(nproc * nnodes), *hosts]
    if hasattr(os, 'geteuid') and os.geteuid() == 0:
        cmd.append('--allow-run-as-root')   # containers and CI run as root
    if nproc > (os.cpu_count() or 1):
        cmd.append('--oversubscribe')   # more ranks than cores: allowed, as torchrun does
    cmd += ['-x', f'TORCHELASTIC_RUN_ID={uuid.uuid4().hex}', *shlex.split(args.mpirun_args)]
    if args.no_python:
        return cmd + [args.script, *args.script_args]
    worker = [sys.executable, '-m', 'ember.distributed._worker']
    return cmd + worker + (['-m'] if args.module else []) + [args.script, *args.script_args]


def main(argv=None):
    """Execs mpirun for the job ``argv`` describes (sys.argv[1:] by default)."""
    mpirun = shutil.which('mpirun')
    if mpirun is None:
        sys.exit("ember.distributed.run: mpirun not found; install an MPI (e.g. Debian's "
                 "openmpi-bin) and mpi4py (pip install 'ember[distributed]')")
    cmd = mpirun_command(sys.argv[1:] if argv is None else argv, mpirun)
    # Open MPI's shared-memory transport copies large messages with process_vm_readv (CMA),
    # which containers commonly forbid; its fallback measured ~10x slower all-reduces here
    # than the plain copy-in/copy-out path this selects. Set the variable to override.
    os.environ.setdefault('OMPI_MCA_btl_vader_single_copy_mechanism', 'none')
    sys.stdout.flush()
    os.execv(mpirun, cmd)


if __name__ == '__main__':
    main()
