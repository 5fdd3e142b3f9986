"""The drop-in namespaces: docstring examples run, every public name has a docstring, and
none of them is imported by ``import ember``."""
import doctest
import importlib
import subprocess
import sys

import pytest

import ember

WITH_EXAMPLES = ['ember.amp.autocast_mode', 'ember._settings', 'ember.amp.grad_scaler', 'ember._compile',
                 'ember.random', 'ember._threads', 'ember.autograd.variable',
                 'ember.testing._comparison', 'ember.testing._creation', 'ember.utils.checkpoint']
PUBLIC = WITH_EXAMPLES + ['ember.cuda', 'ember.cuda.amp', 'ember.backends', 'ember.backends.cuda',
                          'ember.backends.cudnn', 'ember.backends.mps', 'ember.backends.mkl',
                          'ember.backends.mkldnn', 'ember.backends.openmp', 'ember.backends.cpu',
                          'ember.accelerator', 'ember.jit', 'ember.onnx', 'ember._legacy',
                          'ember.cpu', 'ember.cpu.amp',
                          'ember.testing', 'ember.profiler', 'ember.hub', 'ember.signal.windows',
                          'ember.quasirandom', 'ember._runtime_types', 'ember._removed',
                          'ember._higher_order', 'ember._ops.windows', 'ember.library',
                          'ember.nn.utils.parametrize', 'ember.nn.utils.parametrizations',
                          'ember.nn.utils.prune', 'ember.nn.utils.init_and_layout', 'ember.fx']


@pytest.mark.parametrize('name', WITH_EXAMPLES)
def test_docstring_examples(name):
    threads = ember.get_num_threads()
    try:
        result = doctest.testmod(importlib.import_module(name), extraglobs={'ember': ember},
                                 verbose=False)
    finally:
        ember.set_num_threads(threads)
    assert result.attempted > 0 and result.failed == 0, result


@pytest.mark.parametrize('name', PUBLIC)
def test_every_public_name_has_a_docstring(name):
    module = importlib.import_module(name)
    assert module.__doc__
    for attr in module.__all__:
        obj = getattr(module, attr)
        assert obj.__doc__, f'{name}.{attr}'
        for member_name, member in vars(obj).items() if isinstance(obj, type) else ():
            if callable(member) and not member_name.startswith('_'):
                assert member.__doc__, f'{name}.{attr}.{member_name}'


def test_import_ember_loads_none_of_them():
    code = ("import sys, ember\nprint(sorted(m for m in sys.modules if m.split('.')[:2] in "
            "[['ember', n] for n in ('cuda', 'cpu', 'version', 'backends', 'jit', 'amp', "
            "'testing', 'random', 'accelerator', 'onnx', '_compile', '_legacy', '_threads', "
            "'_settings', 'profiler', 'hub', 'signal', 'quasirandom', 'functional', "
            "'_runtime_types', '_removed', '_higher_order', 'storage', 'library', 'fx')]))\n"
            "print('threadpoolctl' in sys.modules)")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True, cwd=str(__import__('pathlib').Path(ember.__file__).parents[1]))
    assert out.stdout.split() == ['[]', 'False']
