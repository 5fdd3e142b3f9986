"""Running a script on N MPI ranks from a test: skips (with the reason) when mpirun or
mpi4py is missing; allows running as root (CI containers) and more ranks than cores."""
import importlib.util
import os
import shutil
import socket
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def require_mpi():
    """Skips the calling test unless mpirun and mpi4py are installed."""
    if shutil.which('mpirun') is None:
        pytest.skip("mpirun not installed (apt-get install openmpi-bin libopenmpi-dev)")
    if importlib.util.find_spec('mpi4py') is None:
        pytest.skip("mpi4py not installed (pip install 'ember[distributed]')")


def free_port():
    """A TCP port nobody listens on now (for torch's gloo rendezvous, the oracle)."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def mpi_env(**extra):
    """The environment for an mpirun child: this tree first on the path, root allowed."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''),
               OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
               OMPI_MCA_rmaps_base_oversubscribe='1', PYTHONWARNINGS='ignore',
               OMPI_MCA_btl_vader_single_copy_mechanism='none')
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(cmd, timeout=240, **env):
    """Runs ``cmd`` with mpi_env(**env); the CompletedProcess (text output)."""
    return subprocess.run(cmd, env=mpi_env(**env), capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def mpirun(script, np=2, args=(), timeout=240, **env):
    """Runs ``tests/distributed/<script>`` on ``np`` ranks under mpirun."""
    require_mpi()
    cmd = ['mpirun', '-np', str(np), '--oversubscribe', sys.executable,
           os.path.join(HERE, script), *map(str, args)]
    return run(cmd, timeout, **env)
