"""JIT builds with load / load_inline: several sources with flags and include paths, the
cache (a hit compiles nothing; a changed source, header or flag rebuilds), ninja and the
plain-compiler fallback, verbose output, compiler errors, CUDA and argument errors, and that
importing ember needs neither nanobind nor a compiler."""
import json
import os
import shlex
import subprocess
import sys
import textwrap

import pytest

import ember
from ember.utils import cpp_extension
from ember.utils.cpp_extension import _build, _cache, _jit, _toolchain

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODULE_CPP = '''
#include <ember/extension.h>
#include "ops.h"

ember::Tensor affine(ember::Tensor x) {
  ember::Tensor out = ember::empty_like(x);
  const float* a = x.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = a[i] * factor() + kOffset;
  return out;
}

NB_MODULE(EMBER_EXTENSION_NAME, m) { m.def("affine", &affine); }
'''
FACTOR_CPP = '#include "ops.h"\nfloat factor() { return FACTOR; }\n'
OPS_H = '#pragma once\nfloat factor();\ninline constexpr float kOffset = 1.0f;\n'

SMALL = 'int64_t twice(int64_t x) { return 2 * x; }'


def _project(path):
    """Two sources and a header in an include directory of their own."""
    (path / 'include').mkdir()
    (path / 'include' / 'ops.h').write_text(OPS_H)
    (path / 'module.cpp').write_text(MODULE_CPP)
    (path / 'factor.cpp').write_text(FACTOR_CPP)
    return path


def _load_project(path, factor=3, **kwargs):
    return cpp_extension.load(
        'affine_ext', [str(path / 'module.cpp'), str(path / 'factor.cpp')],
        extra_cflags=[f'-DFACTOR={factor}'], extra_include_paths=[str(path / 'include')],
        build_directory=str(path / 'build'), **kwargs)


def _affine(ext):
    return ext.affine(ember.tensor([0.0, 1.0, 2.0])).tolist()


def _compiles(output):
    """The compiler commands a verbose build printed that compile a source."""
    return [line for line in output.splitlines() if ' -c ' in line]


@pytest.fixture
def count_builds(monkeypatch):
    """Counts _build.run calls (each is one build that ran the compiler)."""
    calls = []
    real = _build.run

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)
    monkeypatch.setattr(_build, 'run', counting)
    return calls


@pytest.fixture
def fresh_process(monkeypatch):
    """Forgets the modules this process already loaded, as a new process would not know them."""
    monkeypatch.setattr(_jit, '_LOADED', {})


def test_cache_hit_and_rebuilds(toolchain, tmp_path, capsys, count_builds, monkeypatch):
    project = _project(tmp_path)
    first = _load_project(project)
    assert _affine(first) == [1.0, 4.0, 7.0]
    assert count_builds == ['affine_ext']
    library = first.__file__

    # In the same process: the same module, no build.
    assert _load_project(project) is first
    # As a new process would: the cached library is loaded, nothing compiles.
    monkeypatch.setattr(_jit, '_LOADED', {})
    capsys.readouterr()
    again = _load_project(project, verbose=True)
    assert again.__file__ == library and _affine(again) == [1.0, 4.0, 7.0]
    assert count_builds == ['affine_ext']
    assert 'is up to date' in capsys.readouterr().out

    # A changed source rebuilds, and (ninja, incrementally) recompiles only that source.
    (project / 'factor.cpp').write_text(FACTOR_CPP.replace('FACTOR;', 'FACTOR + 1;'))
    changed = _load_project(project, verbose=True)
    assert _affine(changed) == [1.0, 5.0, 9.0]
    assert len(count_builds) == 2 and changed.__file__ != library
    if _toolchain.is_ninja_available():
        assert len(_compiles(capsys.readouterr().out)) == 1
    assert _affine(first) == [1.0, 4.0, 7.0]  # the old module keeps working in this process
    assert not os.path.exists(library)        # but its file made room for the new build

    # A header the sources include counts as an input too.
    (project / 'include' / 'ops.h').write_text(OPS_H.replace('1.0f', '10.0f'))
    assert _affine(_load_project(project)) == [10.0, 14.0, 18.0]
    # And so do the flags.
    assert _affine(_load_project(project, factor=5)) == [10.0, 16.0, 22.0]
    assert len(count_builds) == 4


def test_builds_without_ninja_with_parallel_compiler_calls(toolchain, tmp_path, capsys,
                                                            monkeypatch):
    monkeypatch.setattr(_toolchain, 'ninja', lambda: None)
    assert not cpp_extension.is_ninja_available()
    with pytest.raises(RuntimeError, match='ninja is not available'):
        cpp_extension.verify_ninja_availability()
    ext = _load_project(_project(tmp_path), verbose=True)
    assert _affine(ext) == [1.0, 4.0, 7.0]
    out = capsys.readouterr().out
    assert 'parallel compiler processes' in out
    assert {line.split(' -c ')[1].split()[0] for line in _compiles(out)} == {
        str(tmp_path / 'module.cpp'), str(tmp_path / 'factor.cpp')}


def test_verbose_prints_the_commands(toolchain, tmp_path, capsys):
    ext = cpp_extension.load_inline('verbose_ext', SMALL, functions='twice',
                                    build_directory=str(tmp_path), verbose=True)
    assert ext.twice(21) == 42
    out = capsys.readouterr().out
    compiles = _compiles(out)
    assert len(compiles) == 1 and str(tmp_path / 'main.cpp') in compiles[0]
    assert _toolchain.compiler()[0] in compiles[0]
    assert "building extension 'verbose_ext'" in out


def test_inline_functions_get_their_docstrings(toolchain):
    ext = cpp_extension.load_inline('doc_ext', SMALL + '\nint64_t thrice(int64_t x) '
                                    '{ return 3 * x; }',
                                    functions={'twice': 'Doubles "x".', 'thrice': None})
    assert (ext.twice(2), ext.thrice(2)) == (4, 6)
    assert 'Doubles "x".' in ext.twice.__doc__


BROKEN = '''
int64_t twice(int64_t x) {
  return 2 * x + undefined_thing;
}
'''


@pytest.mark.parametrize('use_ninja', [True, False], ids=['ninja', 'plain'])
def test_compiler_error_shows_the_compilers_own_lines(toolchain, tmp_path, monkeypatch,
                                                      use_ninja):
    if use_ninja and not _toolchain.is_ninja_available():
        pytest.skip('ninja is not installed')
    if not use_ninja:
        monkeypatch.setattr(_toolchain, 'ninja', lambda: None)
    with pytest.raises(RuntimeError) as info:
        cpp_extension.load_inline('broken_ext', BROKEN, functions='twice',
                                  build_directory=str(tmp_path))
    message = str(info.value)
    command = info.value.step.command
    # What the compiler itself says for that command, first error line included, verbatim.
    said = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True).stderr
    first_error = next(line for line in said.splitlines() if ': error:' in line)
    assert 'undefined_thing' in first_error and '    ' + first_error in message.splitlines()
    assert message.startswith("Error building extension 'broken_ext': this command failed:")
    assert shlex.join(command) in message
    assert f'build directory: {tmp_path}' in message
    assert first_error in (tmp_path / 'build.log').read_text()


def test_undefined_symbol_is_an_import_error_naming_the_extension(toolchain, tmp_path):
    source = 'int64_t helper(int64_t);\nint64_t twice(int64_t x) { return helper(x); }'
    with pytest.raises(ImportError, match=r"extension 'unresolved_ext' was built .* but cannot "
                                          r"be imported: .*undefined symbol"):
        cpp_extension.load_inline('unresolved_ext', source, functions='twice',
                                  build_directory=str(tmp_path))


@pytest.mark.parametrize('call', [
    lambda ce: ce.load('cuda_ext', ['kernel.cu']),
    lambda ce: ce.load('cuda_ext', ['ops.cpp', 'kernel.cuh']),
    lambda ce: ce.load('cuda_ext', ['ops.cpp'], with_cuda=True),
    lambda ce: ce.load_inline('cuda_ext', '', cuda_sources='__global__ void k() {}'),
    lambda ce: ce.load_inline('cuda_ext', '', with_cuda=True),
    lambda ce: ce.CUDAExtension('cuda_ext', ['kernel.cu']),
    lambda ce: ce.include_paths('cuda'),
], ids=['.cu', '.cuh', 'with_cuda', 'cuda_sources', 'inline with_cuda', 'CUDAExtension',
        'include_paths'])
def test_cuda_is_refused_clearly(call):
    with pytest.raises(NotImplementedError, match='CUDA extensions are not supported yet, '
                                                  'because ember has no CUDA device support'):
        call(cpp_extension)
    assert issubclass(NotImplementedError, RuntimeError)


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="extension name must be a valid Python identifier, "
                                         "got 'my-ext'"):
        cpp_extension.load_inline('my-ext', SMALL, functions='twice')
    with pytest.raises(ValueError, match=r"functions must name C\+\+ functions, got \['a b'\]"):
        cpp_extension.load_inline('ok_name', SMALL, functions=['a b'])
    with pytest.raises(ValueError, match='needs at least one source file'):
        cpp_extension.load('ok_name', [])
    with pytest.raises(ValueError, match=r"sources must be C\+\+ files .*got \['ops.py'\]"):
        cpp_extension.load('ok_name', ['ops.py'])
    with pytest.raises(FileNotFoundError, match='missing.cpp'):
        cpp_extension.load('ok_name', [str(tmp_path / 'missing.cpp')])


def test_missing_compiler_is_named(monkeypatch):
    monkeypatch.setenv('CXX', 'no-such-compiler-here --flag')
    with pytest.raises(RuntimeError, match="the C\\+\\+ compiler CXX='no-such-compiler-here "
                                           "--flag' is not found"):
        cpp_extension.load_inline('no_compiler_ext', SMALL, functions='twice')


def test_importing_ember_needs_no_binding_library():
    """In a fresh interpreter: ``import ember`` loads neither cpp_extension, nanobind nor
    setuptools; cpp_extension imports without nanobind, and building then says what to
    install."""
    code = textwrap.dedent('''
        import json, sys
        sys.modules['nanobind'] = None   # as if it were not installed
        import ember
        before = sorted(m for m in ('ember.utils.cpp_extension', 'nanobind', 'setuptools')
                        if sys.modules.get(m) is not None)
        from ember.utils import cpp_extension
        try:
            cpp_extension.load_inline('needs_nanobind', 'int f() { return 1; }', functions='f')
            error = None
        except ImportError as e:
            error = str(e)
        print(json.dumps({'before': before, 'setuptools': 'setuptools' in sys.modules,
                          'error': error}))
    ''')
    out = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    result = json.loads(out.splitlines()[-1])
    assert result['before'] == [] and result['setuptools'] is False
    assert "pip install 'ember[cpp]'" in result['error']
    assert 'nanobind' in result['error']


def test_parse_depfile():
    text = ('/b/x.o: /src/a.cpp /src/my\\ dir/b.h \\\n  /src/c.h\n'
            '/b/y.o: /src/y.cpp\n')
    assert _cache.parse_depfile(text) == ['/src/a.cpp', '/src/my dir/b.h', '/src/c.h',
                                          '/src/y.cpp']


def test_default_build_root(monkeypatch, tmp_path):
    monkeypatch.setenv('EMBER_EXTENSIONS_DIR', str(tmp_path / 'mine'))
    assert cpp_extension.get_default_build_root() == str(tmp_path / 'mine')
    monkeypatch.delenv('EMBER_EXTENSIONS_DIR')
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    assert cpp_extension.get_default_build_root() == os.path.join(
        str(tmp_path / 'cache'), 'ember_extensions', sys.implementation.cache_tag)


def test_headers_ship_as_package_data():
    """Every header in the package's include directory matches pyproject's package-data
    globs, so a (non-editable) install carries it."""
    import fnmatch
    tomllib = pytest.importorskip('tomllib', reason='reading pyproject.toml needs Python 3.11')
    with open(os.path.join(ROOT, 'pyproject.toml'), 'rb') as f:
        data = tomllib.load(f)['tool']['setuptools']['package-data']
    globs = data['ember.utils.cpp_extension']
    package = os.path.dirname(cpp_extension.__file__)
    headers = [os.path.relpath(os.path.join(d, n), package).replace(os.sep, '/')
               for d, _, names in os.walk(os.path.join(package, 'include')) for n in names]
    assert headers and all(any(fnmatch.fnmatch(h, g) for g in globs) for h in headers)
    assert os.path.join(package, 'include') in cpp_extension.include_paths()


def test_docstring_examples_run(toolchain):
    import doctest

    from ember.utils.cpp_extension import _setuptools
    for module in (_toolchain, _setuptools):
        result = doctest.testmod(module)
        assert result.attempted and not result.failed, module.__name__
