"""Repository hygiene and packaging facts a packager relies on."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = 1 << 20                       # 1 MB
# Large files that are tracked on purpose: package data the wheel ships. Keep it short.
DELIBERATE_LARGE_FILES = {'ember/demo/digits.npz'}


def tracked_files():
    try:
        out = subprocess.run(['git', 'ls-files', '-z'], cwd=ROOT, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip('not a git checkout (e.g. an unpacked sdist): no tracked files to check')
    return [name for name in out.decode().split('\0') if name]


def test_no_large_tracked_files_outside_package_data():
    big = {name: os.path.getsize(os.path.join(ROOT, name)) for name in tracked_files()
           if os.path.isfile(os.path.join(ROOT, name))
           and os.path.getsize(os.path.join(ROOT, name)) > LIMIT}
    unexpected = {name: size for name, size in big.items() if name not in DELIBERATE_LARGE_FILES}
    assert not unexpected, (f'tracked files over 1 MB outside deliberate package data: '
                            f'{unexpected}; add them to .gitignore, or to '
                            f'DELIBERATE_LARGE_FILES if they must ship')


def test_wheels_and_archives_are_not_tracked():
    archives = [n for n in tracked_files() if n.endswith(('.whl', '.tar.gz', '.zip'))]
    assert archives == []


def test_include_paths_without_nanobind(monkeypatch):
    """The headers ship in the wheel: asking where they are must not need nanobind."""
    from ember.utils.cpp_extension import _toolchain, include_paths
    monkeypatch.setitem(sys.modules, 'nanobind', None)      # makes `import nanobind` fail
    _toolchain.binding.cache_clear()
    try:
        paths = include_paths()
    finally:
        _toolchain.binding.cache_clear()
    assert os.path.isfile(os.path.join(paths[0], 'ember', 'extension.h'))
    import numpy
    assert paths[-1] == numpy.get_include()
    with pytest.raises(ImportError, match='nanobind'):
        _toolchain.binding()
    _toolchain.binding.cache_clear()
