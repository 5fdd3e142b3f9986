"""Building C extensions: an unchanged extension is a cache hit in a fresh process (no
compiler runs), a changed source or header rebuilds, a compiler error shows the compiler's
first error lines and the command, bad headers and options are refused clearly, and CUDA is
refused with NotImplementedError."""
import os
import subprocess
import sys
import textwrap

import pytest

import ember
from ember.utils.ffi import create_extension, load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HEADER = 'int twice(EmberTensor *t);\n'
SOURCE = textwrap.dedent('''
    #include <ember/ember_c.h>
    #include "helper.h"

    int twice(EmberTensor *t) {
      if (!ember_check_dtype(t, EMBER_INT64)) return 0;
      for (int64_t i = 0; i < t->numel; ++i) *(int64_t *) ember_element(t, i) *= FACTOR;
      return 1;
    }
''')

LOAD = textwrap.dedent('''
    import sys, ember
    from ember.utils.ffi import load
    folder = sys.argv[1]
    lib = load('cached_ext', folder + '/twice.h', folder + '/twice.c', include_dirs=[folder],
               build_directory=folder + '/build', verbose=True)
    t = ember.arange(3)
    lib.twice(t)
    print('RESULT', t.tolist())
''')


def _write(folder, factor=2):
    (folder / 'twice.h').write_text(HEADER)
    (folder / 'twice.c').write_text(SOURCE)
    (folder / 'helper.h').write_text(f'#define FACTOR {factor}\n')


def _load_in_a_fresh_process(folder):
    proc = subprocess.run([sys.executable, '-c', LOAD, str(folder)], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_cache_hit_and_rebuilds(toolchain, tmp_path):
    _write(tmp_path)
    first = _load_in_a_fresh_process(tmp_path)
    assert ' -c ' in first and 'RESULT [0, 2, 4]' in first
    again = _load_in_a_fresh_process(tmp_path)
    assert ' -c ' not in again and 'is up to date' in again and 'RESULT [0, 2, 4]' in again
    (tmp_path / 'helper.h').write_text('#define FACTOR 3\n')  # a header the source includes
    assert 'RESULT [0, 3, 6]' in _load_in_a_fresh_process(tmp_path)
    (tmp_path / 'twice.h').write_text('/* doubles t */\n' + HEADER)  # the declarations
    rebuilt = _load_in_a_fresh_process(tmp_path)
    assert ' -c ' in rebuilt and 'RESULT [0, 3, 6]' in rebuilt


def test_load_in_process_returns_the_same_module(toolchain, tmp_path):
    _write(tmp_path)
    args = (str(tmp_path / 'twice.h'), str(tmp_path / 'twice.c'))
    first = load('same_ext', *args, include_dirs=[str(tmp_path)])
    assert load('same_ext', *args, include_dirs=[str(tmp_path)]) is first
    assert first.__name__ == 'same_ext' and first.__all__ == ['twice']


def test_a_changed_source_rebuilds_in_the_same_process(toolchain, tmp_path):
    _write(tmp_path)
    args = (str(tmp_path / 'twice.h'), str(tmp_path / 'twice.c'))
    old = load('changing_ext', *args, include_dirs=[str(tmp_path)])
    (tmp_path / 'helper.h').write_text('#define FACTOR 5\n')
    new = load('changing_ext', *args, include_dirs=[str(tmp_path)])
    assert new is not old and new.__file__ != old.__file__  # a new library file, both loaded
    t, u = ember.arange(3), ember.arange(3)
    old.twice(t)
    new.twice(u)
    assert t.tolist() == [0, 2, 4] and u.tolist() == [0, 5, 10]


def test_compiler_error_shows_the_compilers_words_and_the_command(toolchain, tmp_path):
    (tmp_path / 'bad.h').write_text('int bad(EmberTensor *t);\n')
    (tmp_path / 'bad.c').write_text('#include <ember/ember_c.h>\n'
                                    'int bad(EmberTensor *t) { return t->nonexistent; }\n')
    with pytest.raises(RuntimeError) as info:
        load('bad_ext', str(tmp_path / 'bad.h'), str(tmp_path / 'bad.c'))
    message = str(info.value)
    assert message.startswith("Error building extension 'bad_ext': this command failed:")
    assert f"-c {tmp_path / 'bad.c'}" in message
    assert 'bad.c:2:' in message and 'error:' in message and 'nonexistent' in message
    assert 'build.log' in message


def test_a_declared_function_without_a_definition_fails_to_import(toolchain, tmp_path):
    (tmp_path / 'missing.h').write_text('int nowhere(EmberTensor *t);\n')
    (tmp_path / 'missing.c').write_text('#include <ember/ember_c.h>\n')
    with pytest.raises(ImportError, match=r"extension '_missing_ext' was built .* but cannot be "
                                          r"imported: .*undefined symbol: nowhere"):
        load('missing_ext', str(tmp_path / 'missing.h'), str(tmp_path / 'missing.c'))


def test_headers_cffi_cannot_read_are_refused(toolchain, tmp_path):
    (tmp_path / 'macro.h').write_text('#include <stdio.h>\nint f(EmberTensor *t);\n')
    (tmp_path / 'macro.c').write_text('')
    with pytest.raises(ValueError, match=r'ember.utils.ffi: cffi cannot read the headers .*'
                                         r'declarations only, no #include or macros'):
        load('macro_ext', str(tmp_path / 'macro.h'), str(tmp_path / 'macro.c'))


def test_refusals(tmp_path):
    with pytest.raises(NotImplementedError, match='ember.utils.ffi: with_cuda=True: CUDA '
                                                  'extensions are not supported yet'):
        create_extension('_ext.x', [], [], with_cuda=True)
    with pytest.raises(NotImplementedError, match='CUDA extensions are not supported yet'):
        load('cuda_ext', [], ['kernel.cu'])
    with pytest.raises(ValueError, match=r"ember.utils.ffi: sources must be C files \(.c\), got "
                                         r"\['x.cpp'\]"):
        load('cpp_ext', [], ['x.cpp'])
    with pytest.raises(TypeError, match=r"create_extension\(\) got unsupported option\(s\) "
                                        r"\['sauce'\]"):
        create_extension('_ext.x', [], [], sauce=1)
    with pytest.raises(ValueError, match='extension name must be a valid Python identifier'):
        load('not a name', [], [])
    with pytest.raises(ValueError, match="create_extension: name must be a dotted Python "
                                         "module name, got '_ext..x'"):
        create_extension('_ext..x', [], [])


def test_create_extension_writes_the_package_and_builds_it(toolchain, tmp_path, capsys):
    _write(tmp_path)
    ffi = create_extension('pkg._ext.twice_lib', headers=['twice.h'], sources=['twice.c'],
                           include_dirs=[str(tmp_path)], relative_to=str(tmp_path / 'x.py'),
                           verbose=False)
    assert (tmp_path / 'pkg' / '__init__.py').exists()
    assert (tmp_path / 'pkg' / '_ext' / '__init__.py').exists()
    path = ffi.build()
    assert os.path.dirname(path) == str(tmp_path / 'pkg' / '_ext' / 'twice_lib')
    assert capsys.readouterr().out == ''  # verbose=False: quiet
    sys.path.insert(0, str(tmp_path))
    try:
        from pkg._ext import twice_lib
        t = ember.arange(3)
        twice_lib.twice(t)
        assert t.tolist() == [0, 2, 4]
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == 'pkg' or n.startswith('pkg.')]:
            del sys.modules[name]
