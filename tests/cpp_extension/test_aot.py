"""Ahead-of-time builds: a small package whose setup.py uses CppExtension and
BuildExtension, installed with pip, then imported in a fresh interpreter."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SETUP = textwrap.dedent('''
    from setuptools import setup
    from ember.utils.cpp_extension import BuildExtension, CppExtension

    setup(name='aot_demo', version='0.1', py_modules=[],
          ext_modules=[CppExtension('aot_demo', ['aot_demo.cpp', 'helpers.cpp'],
                                    extra_compile_args={'cxx': ['-DOFFSET=1']})],
          cmdclass={'build_ext': BuildExtension})
''')

SOURCE = textwrap.dedent('''
    #include <ember/extension.h>

    float offset();

    ember::Tensor shifted(ember::Tensor x) {
      EMBER_CHECK(x.is_contiguous(), "shifted: x must be contiguous");
      ember::Tensor out = ember::empty_like(x);
      const float* a = x.data_ptr<float>();
      float* o = out.data_ptr<float>();
      for (int64_t i = 0; i < x.numel(); ++i) o[i] = a[i] + offset();
      return out;
    }

    NB_MODULE(EMBER_EXTENSION_NAME, m) { m.def("shifted", &shifted); }
''')

CHECK = textwrap.dedent('''
    import ember, aot_demo
    print(aot_demo.shifted(ember.arange(3.0)).tolist())
    try:
        aot_demo.shifted(ember.ones(2, 2).t())
    except RuntimeError as e:
        print(e)
    print(aot_demo.__file__)
''')


def test_setuptools_package_installs_with_pip(toolchain, tmp_path):
    pytest.importorskip('setuptools', reason="setuptools is not installed: pip install -e "
                        "'.[test]' brings it")
    package = tmp_path / 'package'
    package.mkdir()
    (package / 'setup.py').write_text(SETUP)
    (package / 'aot_demo.cpp').write_text(SOURCE)
    (package / 'helpers.cpp').write_text('float offset() { return OFFSET; }\n')
    site = tmp_path / 'site'
    # The build imports this checkout's ember (PYTHONPATH), not whatever ember is installed.
    env = dict(os.environ, PYTHONPATH=ROOT, PIP_DISABLE_PIP_VERSION_CHECK='1')
    pip = subprocess.run([sys.executable, '-m', 'pip', 'install', '--no-build-isolation',
                          '--no-deps', '--no-index', '--target', str(site), str(package)],
                         env=env, capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    env['PYTHONPATH'] = os.pathsep.join([str(site), ROOT])
    out = subprocess.run([sys.executable, '-c', CHECK], env=env, cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == '[1.0, 2.0, 3.0]'
    assert out[1] == 'shifted: x must be contiguous'
    assert out[2].startswith(str(site))  # the installed module, not a build directory
