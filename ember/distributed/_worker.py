"""One process of a job started by ``python -m ember.distributed.run``: sets torchrun's
environment variables from MPI's launcher and runs the user's script (or module) as
``__main__``."""
import os
import runpy
import sys

# Open MPI's (and MPICH/Hydra's, PMI_*) per-process variables, read without initialising
# MPI so the script's own init_process_group() is the first MPI call.
_SOURCES = {'RANK': ('OMPI_COMM_WORLD_RANK', 'PMI_RANK'),
            'WORLD_SIZE': ('OMPI_COMM_WORLD_SIZE', 'PMI_SIZE'),
            'LOCAL_RANK': ('OMPI_COMM_WORLD_LOCAL_RANK', 'MPI_LOCALRANKID'),
            'LOCAL_WORLD_SIZE': ('OMPI_COMM_WORLD_LOCAL_SIZE', 'MPI_LOCALNRANKS'),
            'GROUP_RANK': ('OMPI_COMM_WORLD_NODE_RANK',)}


def set_torchrun_env(environ=os.environ):
    """Copies the launcher's rank variables into torchrun's names (RANK, WORLD_SIZE, ...)."""
    for name, sources in _SOURCES.items():
        for source in sources:
            if source in environ:
                environ.setdefault(name, environ[source])
                break
    environ.setdefault('MASTER_ADDR', 'localhost')
    environ.setdefault('MASTER_PORT', '29500')
    environ.setdefault('ROLE_RANK', environ.get('RANK', '0'))


def main(argv):
    """Runs ``argv`` (``[-m] script args...``) as ``__main__`` with torchrun's environment."""
    set_torchrun_env()
    module = argv[:1] == ['-m']
    if module:
        argv = argv[1:]
    sys.argv = list(argv)
    if module:
        runpy.run_module(argv[0], run_name='__main__', alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name='__main__')


if __name__ == '__main__':
    main(sys.argv[1:])
