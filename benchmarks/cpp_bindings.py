"""pybind11 vs nanobind, the measurement behind ember.utils.cpp_extension's binding library.

    python benchmarks/cpp_bindings.py [--repeat 3]

Builds the same two-function module with each library (at -O0 and -O2, the best of
``--repeat`` builds), builds nanobind's library once, then times a call of ``f(x) -> x``
in each. Needs a C++ compiler and both libraries (pip install pybind11 nanobind); a library
that is missing is left out.
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from ember.utils.cpp_extension import _toolchain  # noqa: E402

MODULE = '''
#include <{header}>
namespace b = {ns};
static b::object ident(b::object x) {{ return x; }}
static double add(double x, double y) {{ return x + y; }}
{macro}({name}, m) {{ m.def("ident", &ident); m.def("add", &add); }}
'''
LIBRARIES = {
    'pybind11': dict(header='pybind11/pybind11.h', ns='pybind11', macro='PYBIND11_MODULE'),
    'nanobind': dict(header='nanobind/nanobind.h', ns='nanobind', macro='NB_MODULE'),
}


def _includes(library):
    if library == 'pybind11':
        import pybind11
        dirs = [pybind11.get_include()]
    else:
        dirs = list(_toolchain.binding().include_dirs)
    return [f'-isystem{d}' for d in (*dirs, _toolchain.python_include())]


def _timed(command):
    t = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - t


def _measure(library, workdir, repeat):
    cxx = _toolchain.compiler()
    source = os.path.join(workdir, f'{library}_probe.cpp')
    with open(source, 'w') as f:
        f.write(MODULE.format(name=f'{library}_probe', **LIBRARIES[library]))
    flags = ['-std=c++17', '-fPIC', '-fvisibility=hidden', *_includes(library)]
    obj = source + '.o'
    row = {}
    for opt in ('-O0', '-O2'):
        row[opt] = min(_timed([*cxx, opt, *flags, '-c', source, '-o', obj])
                       for _ in range(repeat))
    objects = [obj]
    if library == 'nanobind':
        lib_obj = os.path.join(workdir, 'nanobind.o')
        row['library'] = _timed([*cxx, *_toolchain.NANOBIND_FLAGS, *_includes(library), '-c',
                                 _toolchain.binding().library_source, '-o', lib_obj])
        objects.append(lib_obj)
    module = os.path.join(workdir, f'{library}_probe{_toolchain.EXT_SUFFIX}')
    subprocess.run([*cxx, *_toolchain.SHARED_FLAGS, *objects, '-o', module], check=True)
    spec = importlib.util.spec_from_file_location(f'{library}_probe', module)
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    x, n = object(), 200_000
    row['call'] = min(timeit.repeat(lambda: probe.ident(x), number=n, repeat=5)) / n
    return row


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--repeat', type=int, default=3, help='builds per setting (best is kept)')
    opts = p.parse_args()
    rows = {}
    with tempfile.TemporaryDirectory() as workdir:
        for library in LIBRARIES:
            if importlib.util.find_spec(library) is None:
                print(f'{library}: not installed, left out')
                continue
            rows[library] = _measure(library, workdir, opts.repeat)
    print(f'{"":<34}' + ''.join(f'{name:>12}' for name in rows))
    lines = [('compile a two-function module, -O0', '-O0', 's'),
             ('compile a two-function module, -O2', '-O2', 's'),
             ("nanobind's library (once)", 'library', 's'),
             ('call f(x) -> x', 'call', 'ns')]
    for label, key, unit in lines:
        cells = []
        for row in rows.values():
            if key not in row:
                cells.append(f'{"--":>12}')
            elif unit == 's':
                cells.append(f'{row[key]:>10.2f} s')
            else:
                cells.append(f'{row[key] * 1e9:>9.0f} ns')
        print(f'{label:<34}' + ''.join(cells))


if __name__ == '__main__':
    main()
