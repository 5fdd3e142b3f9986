"""The extension-ffi example ported to ember (examples/c_extension): the script layout built
by its build_ffi.py from a clean cache, the package layout installed by pip through cffi's
setup.py route. Its C Function agrees with the same Function written in ember ops and run
in real torch, passes gradcheck, and C's refusals of bad input arrive as Python exceptions
carrying the C side's messages."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import ember
from tests.oracle import oracle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, 'examples', 'c_extension')
# What importing the script layout adds to sys.modules (removed again after the tests).
SCRIPT_MODULES = ('_ext', '_ext.my_lib', '_ext.my_lib._my_lib', 'functions', 'functions.add',
                  'modules', 'modules.add')


def _run(args, cwd, env):
    proc = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture(scope='module')
def script(toolchain, tmp_path_factory):
    """A copy of the script layout, built from an empty cache by ``python build_ffi.py``;
    its modules imported here. Yields (folder, env, the first build's output)."""
    folder = tmp_path_factory.mktemp('script') / 'script'
    shutil.copytree(os.path.join(EXAMPLE, 'script'), folder)
    env = dict(os.environ, PYTHONPATH=ROOT,
               EMBER_EXTENSIONS_DIR=str(tmp_path_factory.mktemp('clean_cache')))
    first = _run(['build_ffi.py'], folder, env)
    sys.path.insert(0, str(folder))
    try:
        yield folder, env, first
    finally:
        sys.path.remove(str(folder))
        for name in SCRIPT_MODULES:
            sys.modules.pop(name, None)


@pytest.fixture(scope='module')
def add(script):
    """The example's MyAddFunction (C forward and backward)."""
    from functions.add import MyAddFunction
    return MyAddFunction


def ops_function(lib):
    """The same Function as the example's, written in ``lib``'s ops (ember or torch)."""

    class MyAddFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input1, input2):
            return input1 + input2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output, grad_output

    return MyAddFunction


def test_script_builds_from_a_clean_cache_then_hits_it(script):
    folder, env, first = script
    assert ' -c ' in first and 'my_lib.c' in first  # compiled
    assert "extension '_ext.my_lib' built" in first
    assert sorted(os.listdir(folder / '_ext' / 'my_lib'))[0] == '__init__.py'
    again = _run(['build_ffi.py'], folder, env)
    assert ' -c ' not in again  # nothing compiled
    assert "extension '_ext.my_lib' was up to date" in again


def test_demo_prints_what_torch_prints(script):
    torch = pytest.importorskip('torch', reason='real PyTorch 2.13 (the oracle) is not installed')
    folder, env, _ = script
    out = _run(['demo.py'], folder, env)
    x = torch.arange(1, 26, dtype=torch.float32).view(5, 5)
    expected = str(x + x * 4)
    assert out == f'{expected}\n{expected}\n'


CASES = [((5, 5), np.float64), ((3, 4), np.float32), ((), np.float64), ((2, 0, 3), np.float32),
         ((4,), np.float64)]


@pytest.mark.parametrize('shape,dtype', CASES)
def test_forward_backward_match_torch(add, shape, dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(shape).astype(dtype) for _ in range(2))

    def fn(lib, x, y):
        return (add if lib is ember else ops_function(lib)).apply(x, y)

    out = oracle.check(fn, a, b)
    assert type(out.grad_fn).__name__ == 'MyAddFunctionBackward'


def test_non_contiguous_and_expanded_inputs_match_torch(add):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4,))

    def fn(lib, x, y):
        return (add if lib is ember else ops_function(lib)).apply(x.t(), y.expand(3, 4).t())

    oracle.check(fn, a, b)


@pytest.mark.parametrize('dtype', [ember.float32, ember.float64])
def test_agrees_with_the_same_function_in_ember_ops(add, dtype):
    plain = ops_function(ember)
    results = []
    for function in (add, plain):
        x = ember.linspace(-2, 2, 12, dtype=dtype).reshape(3, 4).requires_grad_()
        y = ember.ones(3, 4, dtype=dtype).requires_grad_()
        out = function.apply(x, y * 3)
        (out * ember.arange(12, dtype=dtype).reshape(3, 4)).sum().backward()
        results.append((out, x.grad, y.grad))
    for c, p in zip(*results):
        assert c.dtype == p.dtype and c.shape == p.shape
        np.testing.assert_array_equal(c.detach().numpy(), p.detach().numpy())


def test_gradcheck(add):
    x = ember.randn(4, 3, dtype=ember.float64, requires_grad=True)
    y = ember.randn(4, 3, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(add.apply, (x, y))


def test_module_matches_torch(script):
    from modules.add import MyAddModule
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 5)), rng.standard_normal((2, 5))
    oracle.check(lambda lib, x, y: MyAddModule()(x, y) if lib is ember
                 else ops_function(lib).apply(x, y), a, b)


def test_c_refusals_become_python_exceptions(add):
    x = ember.ones(2, 3)
    with pytest.raises(RuntimeError, match=r'^input1 and input2 must have the same size, '
                                           r'but got \[2, 3\] and \[3\]$'):
        add.apply(x, ember.ones(3))
    with pytest.raises(RuntimeError, match='^expected scalar type Float but found Double$'):
        add.apply(x, ember.ones(2, 3, dtype=ember.float64))
    with pytest.raises(TypeError, match='^my_lib_add_forward: expected float32 or float64 '
                                        'tensors, got int64$'):
        add.apply(ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64))
    with pytest.raises(TypeError, match=r'my_lib_add_forward\(\): argument 2 \(EmberTensor \*\) '
                                        r'must be an ember Tensor, not float'):
        add.apply(x, 1.0)


CHECK = '''
import json, ember
from my_package.modules.add import MyAddModule
from my_package._ext import my_lib
x = ember.linspace(-1, 1, 6, dtype=ember.float64).reshape(2, 3).requires_grad_()
y = ember.arange(6, dtype=ember.float64).reshape(2, 3).requires_grad_()
out = MyAddModule()(x, y)
(out * out).sum().backward()
print(json.dumps({'out': out.tolist(), 'grad_fn': type(out.grad_fn).__name__,
                  'dx': x.grad.tolist(), 'dy': y.grad.tolist(), 'lib': my_lib.__file__,
                  'gradcheck': ember.autograd.gradcheck(MyAddModule(), (x, y))}))
'''


def test_package_installs_with_pip_and_matches_torch(toolchain, tmp_path):
    torch = pytest.importorskip('torch', reason='real PyTorch 2.13 (the oracle) is not installed')
    pytest.importorskip('setuptools', reason="setuptools is not installed: pip install -e "
                        "'.[test]' brings it")
    package = tmp_path / 'package'
    shutil.copytree(os.path.join(EXAMPLE, 'package'), package)
    site = tmp_path / 'site'
    # The build imports this checkout's ember (PYTHONPATH), not whatever ember is installed.
    env = dict(os.environ, PYTHONPATH=ROOT, PIP_DISABLE_PIP_VERSION_CHECK='1')
    _run(['-m', 'pip', 'install', '--no-build-isolation', '--no-deps', '--no-index',
          '--target', str(site), str(package)], tmp_path, env)
    env['PYTHONPATH'] = os.pathsep.join([str(site), ROOT])
    got = json.loads(_run(['-c', CHECK], tmp_path, env).splitlines()[-1])
    assert got['lib'].startswith(str(site))  # the installed module
    assert got['gradcheck'] is True
    x = torch.linspace(-1, 1, 6, dtype=torch.float64).reshape(2, 3).requires_grad_()
    y = torch.arange(6, dtype=torch.float64).reshape(2, 3).requires_grad_()
    out = ops_function(torch).apply(x, y)
    (out * out).sum().backward()
    assert got['grad_fn'] == type(out.grad_fn).__name__
    for key, expected in (('out', out), ('dx', x.grad), ('dy', y.grad)):
        np.testing.assert_allclose(got[key], expected.detach().numpy(), rtol=1e-12)
