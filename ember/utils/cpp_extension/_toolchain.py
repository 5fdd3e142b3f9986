"""The tools an extension build uses: the C++ compiler, ninja, nanobind, include directories
and the flags every build starts from. Nothing here compiles; it only finds and describes."""
import functools
import hashlib
import importlib.machinery
import os
import shlex
import shutil
import sys
from dataclasses import dataclass

__all__ = ['include_paths', 'is_ninja_available', 'verify_ninja_availability']

# The header directory shipped inside the package: `#include <ember/extension.h>`.
EMBER_INCLUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'include')

# Flags of every C++ translation unit of an extension; the user's extra_cflags come after,
# so they win (e.g. -O3 or -O0 -g). Hidden visibility keeps nanobind's symbols private to
# the module, as nanobind requires. -O2 (torch's JIT builds have no -O at all) because
# kernels want optimised loops; a small extension pays a few tenths of a second for it.
CXX_FLAGS = ('-std=c++17', '-fPIC', '-fvisibility=hidden', '-O2')

# nanobind's own library is compiled once per machine and configuration, with the options
# nanobind's CMake build gives it (small code, its assertions compact, aliasing rules
# relaxed for the CPython API's type punning).
NANOBIND_FLAGS = ('-std=c++17', '-fPIC', '-fvisibility=hidden', '-Os', '-fno-strict-aliasing',
                  '-DNB_COMPACT_ASSERTIONS')

SHARED_FLAGS = ('-shared', '-undefined', 'dynamic_lookup') if sys.platform == 'darwin' \
    else ('-shared',)

# What Python expects extension modules to be called here: ".cpython-311-x86_64-linux-gnu.so".
EXT_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]

SOURCE_SUFFIXES = ('.cpp', '.cc', '.cxx', '.c++', '.C', '.c')
CUDA_SUFFIXES = ('.cu', '.cuh')

_INSTALL_HINT = "pip install 'ember[cpp]' (or: pip install nanobind)"


@dataclass(frozen=True)
class Binding:
    """Where the binding library (nanobind) keeps its headers and its library's source."""
    version: str
    include_dirs: tuple
    library_source: str


@functools.lru_cache(maxsize=None)
def binding():
    """nanobind's description; ImportError saying how to install it when it is missing.
    Imported here, on the first build, so that ``import ember`` never needs it."""
    try:
        import nanobind
    except ImportError as e:
        raise ImportError(f'ember.utils.cpp_extension builds extensions with nanobind, which '
                          f'is not installed: {_INSTALL_HINT}') from e
    root = os.path.dirname(nanobind.include_dir())
    return Binding(nanobind.__version__,
                   (nanobind.include_dir(), os.path.join(root, 'ext', 'robin_map', 'include')),
                   os.path.join(nanobind.source_dir(), 'nb_combined.cpp'))


def include_paths(device_type='cpu'):
    """The include directories an ember extension compiles against, besides Python's own:
    ember's header directory (``#include <ember/extension.h>``, shipped in the wheel),
    nanobind's when nanobind is installed (building needs it; asking for the paths does
    not), and NumPy's. ``device_type`` is torch's argument: only 'cpu' exists in ember so far.

    >>> import os
    >>> from ember.utils.cpp_extension import include_paths
    >>> os.path.exists(os.path.join(include_paths()[0], 'ember', 'extension.h'))
    True
    """
    if device_type != 'cpu':
        refuse_cuda(f'include_paths(device_type={device_type!r})')
    import numpy
    try:
        binding_dirs = binding().include_dirs
    except ImportError:
        binding_dirs = []
    return [EMBER_INCLUDE, *binding_dirs, numpy.get_include()]


def python_include():
    """Python's own header directory (Python.h)."""
    import sysconfig
    return sysconfig.get_paths()['include']


def compiler():
    """The C++ compiler command as a list (``$CXX`` split like a shell would, e.g.
    ``ccache g++``, else the first of c++, g++, clang++ on PATH); RuntimeError if none."""
    return _find_compiler('CXX', ('c++', 'g++', 'clang++'), 'C++', 'g++')


def c_compiler():
    """The C compiler command as a list (``$CC``, else the first of cc, gcc, clang on PATH),
    for ember.utils.ffi; RuntimeError if none."""
    return _find_compiler('CC', ('cc', 'gcc', 'clang'), 'C', 'gcc')


def _find_compiler(variable, candidates, language, example):
    value = os.environ.get(variable)
    if value:
        command = shlex.split(value)
        if not command or shutil.which(command[0]) is None:
            raise RuntimeError(f'ember.utils: the {language} compiler {variable}={value!r} is '
                               f'not found')
        return command
    for candidate in candidates:
        path = shutil.which(candidate)
        if path:
            return [path]
    raise RuntimeError(f'ember.utils: no {language} compiler found (looked for ${variable}, '
                       f'{", ".join(candidates)} on PATH); install one, e.g. {example}, or '
                       f'set {variable}')


def compiler_identity(command):
    """What identifies the compiler for the build cache without running it: the resolved
    executable and its size and modification time (an upgrade changes them)."""
    exe = shutil.which(command[0]) or command[0]
    real = os.path.realpath(exe)
    try:
        st = os.stat(real)
    except OSError:
        return [real]
    return [real, st.st_size, st.st_mtime_ns]


@functools.lru_cache(maxsize=None)
def header_digest(include_dir=EMBER_INCLUDE):
    """A digest of ember's own headers in ``include_dir`` (the C++ ones unless told), so
    editing them rebuilds every extension."""
    h = hashlib.sha256()
    folder = os.path.join(include_dir, 'ember')
    for name in sorted(os.listdir(folder)):
        h.update(name.encode())
        with open(os.path.join(folder, name), 'rb') as f:
            h.update(f.read())
    return h.hexdigest()


def ninja():
    """The ninja executable, or None."""
    return shutil.which('ninja')


def is_ninja_available():
    """True if ninja is on PATH; builds then run through it, else through plain compiler calls.

    >>> from ember.utils.cpp_extension import is_ninja_available
    >>> is_ninja_available() in (True, False)
    True
    """
    return ninja() is not None


def verify_ninja_availability():
    """RuntimeError unless ninja is available (builds work without it, only slower)."""
    if not is_ninja_available():
        raise RuntimeError('ninja is not available: install it (e.g. pip install ninja) to '
                           'build extensions with it; ember falls back to plain compiler '
                           'calls without it')


def max_jobs():
    """How many compiler processes may run at once: ``$MAX_JOBS`` (as in torch), else the
    number of CPUs."""
    value = os.environ.get('MAX_JOBS')
    if value:
        return max(1, int(value))
    return os.cpu_count() or 1


def check_sources(sources, what='sources', suffixes=SOURCE_SUFFIXES, language='C++',
                  where='ember.utils.cpp_extension'):
    """ValueError for a source that is not C/C++ (``suffixes``); NotImplementedError (a
    RuntimeError) for CUDA ones, which ember cannot build yet."""
    cuda = [s for s in sources if s.endswith(CUDA_SUFFIXES)]
    if cuda:
        refuse_cuda(f'CUDA sources {cuda}', where, language)
    other = [s for s in sources if not s.endswith(suffixes)]
    if other:
        raise ValueError(f'{where}: {what} must be {language} files '
                         f'({", ".join(suffixes)}), got {other}')


def refuse_cuda(what, where='ember.utils.cpp_extension', language='C++'):
    """The one error for anything CUDA."""
    raise NotImplementedError(f'{where}: {what}: CUDA extensions are not supported yet, '
                              f'because ember has no CUDA device support yet; build '
                              f'{language} (CPU) sources only')
