"""``python -m ember run`` and ``ember.install_as_torch()``: ember as ``torch`` for a process.

The oracle is the interpreter with the real torch: a program run by ``python -m ember run``
must see what ``python program.py`` gives it (argv, ``__name__``, ``sys.path[0]``, exit
status, traceback). The alias itself needs a process without real torch, so those tests run
in subprocesses; this process (which imports torch as the oracle) checks the refusal.
"""
import os
import sys
import textwrap

import pytest
import torch  # noqa: F401  (the oracle; also what makes install_as_torch refuse here)

import ember
from .run_python import run


def both(tmp_path, source, *args, name='prog.py', oracle=True):
    """Runs ``source`` as a script under real torch and through the runner, from another
    directory; returns the two (returncode, stdout, stderr) (the first None without
    ``oracle``)."""
    (tmp_path / 'src').mkdir(exist_ok=True)
    (tmp_path / 'cwd').mkdir(exist_ok=True)
    script = tmp_path / 'src' / name
    script.write_text(textwrap.dedent(source))
    rel = os.path.join('..', 'src', name)
    cwd = tmp_path / 'cwd'
    return (run([rel, *args], cwd) if oracle else None), run(['-m', 'ember', 'run', rel, *args],
                                                             cwd)


def test_install_is_refused_when_the_real_torch_is_imported():
    assert sys.modules['torch'] is torch
    with pytest.raises(RuntimeError, match=r"ember.install_as_torch\(\): the real torch is "
                                           r"already imported in this process"):
        ember.install_as_torch()
    assert sys.modules['torch'] is torch and ember.__version__ == '0.1.0'


def test_the_program_sees_what_python_gives_it(tmp_path):
    source = """
        import sys, os
        import torch
        print(__name__, sys.argv, os.path.basename(sys.path[0]), __file__)
        print(__spec__, __package__, sys.modules['__main__'].__name__)
        class Point:
            pass
        import pickle
        print(type(pickle.loads(pickle.dumps(Point()))).__qualname__)
        print(isinstance(torch.ones(2), torch.Tensor), torch.ones(2).sum().item())
    """
    t, e = both(tmp_path, source, 'a', '--flag', '-m', 'x')
    assert e == t and t[0] == 0, (t, e)


def test_same_modules_under_both_names(tmp_path):
    _, e = both(tmp_path, """
        import sys
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.utils.data
        from torch.utils.data import DataLoader, TensorDataset
        from torch.nn import Module, functional
        from torch import optim, autograd
        import torch.autograd.gradcheck
        import ember
        print(torch is ember, nn is ember.nn, F is ember.nn.functional is functional,
              torch.utils.data is ember.utils.data, DataLoader is ember.utils.data.DataLoader,
              optim is ember.optim, Module is ember.nn.Module,
              sys.modules['torch.nn.functional'] is ember.nn.functional)
        # a package attribute that shares its name with a submodule stays the function
        print(callable(torch.autograd.gradcheck), torch.autograd.gradcheck.__name__)
        print(ember.nn.__spec__.name, ember.nn.functional.__name__, torch.__name__)
        import importlib.util
        print(importlib.util.find_spec('torch') is not None)
    """, oracle=False)
    assert e == (0, "True True True True True True True True\nTrue gradcheck\n"
                    "ember.nn ember.nn.functional ember\nTrue\n", ''), e


def test_version_reads_as_the_torch_release_ember_follows(tmp_path):
    t, e = both(tmp_path, """
        import torch
        from packaging.version import Version
        v = Version(torch.__version__)
        print(v.release[:2] >= (2, 13), v >= Version('2.0'), v.is_devrelease)
    """)
    assert e[:2] == t[:2] == (0, "True True False\n"), (t, e)
    _, e = both(tmp_path, "import torch, ember; print(torch.__version__, ember.__version__)",
                oracle=False)
    assert e[1] == f"2.13.0+ember.{ember.__version__} 2.13.0+ember.{ember.__version__}\n"


def test_a_missing_module_is_a_module_not_found_error(tmp_path):
    _, e = both(tmp_path, """
        try:
            import torch.no_such_thing
        except ImportError as err:
            print(type(err).__name__, err.name, '|', err)
        from torch import no_such_name
    """, oracle=False)
    assert e[0] == 1
    assert e[1] == ("ModuleNotFoundError torch.no_such_thing | No module named "
                    "'torch.no_such_thing' (ember is installed as torch, and has no module "
                    "'ember.no_such_thing')\n")
    import ember
    assert e[2].endswith("ImportError: cannot import name 'no_such_name' from 'ember' "
                         f"({ember.__file__})\n"), e[2]


def test_traceback_and_exit_status_are_the_programs_own(tmp_path):
    source = """
        import torch

        def fail(x):
            raise ValueError(f"bad {x}")

        print('before')
        fail(3)
    """
    t, e = both(tmp_path, source)
    assert e == t and t[0] == 1 and t[2].startswith('Traceback (most recent call last):\n'
                                                    '  File "/'), (t, e)


@pytest.mark.parametrize('code', ['sys.exit(3)', "sys.exit('message')", 'raise SystemExit',
                                  'raise KeyboardInterrupt'])
def test_exit_statuses(tmp_path, code):
    t, e = both(tmp_path, f"import sys\n{code}\n")  # (torch would only slow the oracle)
    if code == 'raise KeyboardInterrupt':
        # python re-raises SIGINT on itself (-2); the runner exits 130, as a shell reports it
        assert (t[0], e[0]) == (-2, 130) and t[2] == e[2], (t, e)
    else:
        assert e == t, (t, e)


def test_syntax_error_is_reported_like_python(tmp_path):
    t, e = both(tmp_path, "import sys\nx = (\n")
    assert e == t and t[0] == 1 and 'SyntaxError' in t[2], (t, e)
    code = "x = ("
    t, e = run(['-c', code], tmp_path), run(['-m', 'ember', 'run', '-c', code], tmp_path)
    assert e == t and t[0] == 1, (t, e)


def test_run_module_and_code(tmp_path):
    pkg = tmp_path / 'pkg'
    pkg.mkdir()
    (pkg / '__init__.py').write_text('')
    (pkg / 'tool.py').write_text(textwrap.dedent("""
        import sys, torch
        print(__name__, __package__, sys.argv[1:], torch.zeros(2).shape)
    """))
    (pkg / '__main__.py').write_text("import sys; print('package main', sys.argv[1:])\n")
    for args in (['-m', 'pkg.tool', 'x', '-y'], ['-m', 'pkg']):
        t, e = run(args, tmp_path), run(['-m', 'ember', 'run', *args], tmp_path)
        assert e == t and t[0] == 0, (args, t, e)
    code = "import sys, torch; print(sys.argv, torch.arange(3).tolist())"
    t, e = run(['-c', code, 'a'], tmp_path), run(['-m', 'ember', 'run', '-c', code, 'a'],
                                                    tmp_path)
    assert e == t and t == (0, "['-c', 'a'] [0, 1, 2]\n", ''), (t, e)


def test_a_missing_script_or_module(tmp_path):
    rc, out, err = run(['-m', 'ember', 'run', 'nowhere.py'], tmp_path)
    t = run(['nowhere.py'], tmp_path)
    assert rc == t[0] == 2 and out == ''
    assert err.endswith(f"can't open file {str(tmp_path / 'nowhere.py')!r}: [Errno 2] No such "
                        "file or directory\n") and t[2].endswith(err.split(': ', 1)[1])
    rc, _, err = run(['-m', 'ember', 'run', '-m', 'no_such_module_here'], tmp_path)
    assert rc == 1 and "No module named no_such_module_here" in err


@pytest.mark.parametrize('args, rc', [(['--help'], 0), (['run', '--help'], 0), ([], 2),
                                      (['bogus'], 2), (['run'], 2), (['run', '-m'], 2),
                                      (['run', '--what'], 2)])
def test_command_line(tmp_path, args, rc):
    code, out, err = run(['-m', 'ember', *args], tmp_path)
    assert code == rc
    text = out if rc == 0 else err
    assert 'usage: python -m ember run script.py [args...]' in text
    assert (out == '') is (rc != 0)


def test_install_and_uninstall_from_python(tmp_path):
    code = textwrap.dedent("""
        import sys, ember
        with ember.install_as_torch() as torch:
            import torch.nn as nn
            print(torch is ember, nn is ember.nn, ember.__version__)
            again = ember.install_as_torch()   # installed already: a no-op
            again.__exit__(None, None, None)   # ... whose exit uninstalls nothing
            print(sys.modules['torch'] is ember)
        print('torch' in sys.modules, [m for m in sys.modules if m.startswith('torch.')],
              ember.__version__)
        import torch
        print(torch is ember, torch.__file__.endswith('torch/__init__.py'))
        try:
            ember.install_as_torch()
        except RuntimeError as e:
            print(str(e).split(' (')[0])
    """)
    rc, out, err = run(['-c', code], tmp_path)
    assert (rc, err) == (0, ''), err
    assert out.splitlines() == [
        f"True True 2.13.0+ember.{ember.__version__}", "True",
        f"False [] {ember.__version__}", "False True",
        "ember.install_as_torch(): the real torch is already imported in this process"]


def test_import_ember_does_not_load_the_alias(tmp_path):
    rc, out, _ = run(['-c', "import sys, ember; print('ember._torch_alias' in sys.modules, "
                            "'torch' in sys.modules)"], tmp_path)
    assert (rc, out) == (0, "False False\n")


def test_the_runner_refuses_a_process_where_torch_came_first(tmp_path):
    # (as when a sitecustomize or .pth file imports torch before the runner starts)
    code = ("import runpy, sys, torch; sys.argv = ['ember', 'run', '-c', 'print(1)']; "
            "runpy.run_module('ember', run_name='__main__')")
    rc, out, err = run(['-c', code], tmp_path)
    assert (rc, out) == (1, '')
    assert err.startswith("python -m ember run: ember.install_as_torch(): the real torch is "
                          "already imported in this process"), err
