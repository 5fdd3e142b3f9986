"""Runs Python in a subprocess with this tree's ember first on the path: the tests of
``python -m ember run`` and of the program corpus (tests/programs/) use it, since ember can
be installed as ``torch`` only in a process that has not imported the real torch."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# One BLAS / OpenMP thread: the suite runs on a few shared cores, where each library's thread
# pool only fights the others (torch's took 10x longer that way).
ONE_THREAD = {name: '1' for name in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS',
                                     'MKL_NUM_THREADS')}


def run(args, cwd, timeout=300):
    """(returncode, stdout, stderr) of ``python *args`` run in ``cwd``."""
    paths = [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT] + paths), **ONE_THREAD)
    env.pop('PYTHONWARNINGS', None)
    p = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr
