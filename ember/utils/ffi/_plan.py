"""The commands of one C extension build -- compile the cffi module's generated source and
the user's sources with the C compiler, link them into one Python module -- and the digest of
that configuration for the cache (shared with C++ extensions: ``cpp_extension._cache``)."""
import functools
import hashlib
import os
import sys

from ..cpp_extension import _cache, _toolchain
from ..cpp_extension._plan import Plan, Step, _object_stems
from . import _codegen

__all__ = ['C_FLAGS', 'plan']

# Every C translation unit: position-independent, only PyInit_<module> exported, optimised
# loops. The user's extra_compile_args come after, so they win.
C_FLAGS = ('-fPIC', '-fvisibility=hidden', '-O2')


def plan(module, module_source, sources, build_dir, options):
    """The build of cffi module ``module`` from its generated ``module_source`` and the user's
    C ``sources`` (absolute paths) in ``build_dir``. ``options``: the setuptools-style
    keywords (define_macros, include_dirs, extra_compile_args, extra_link_args, libraries,
    library_dirs)."""
    import numpy

    import ember
    cc = _toolchain.c_compiler()
    system = [f'-isystem{p}' for p in (_codegen.EMBER_INCLUDE, numpy.get_include(),
                                       _toolchain.python_include())]
    user = [f'-I{os.path.abspath(p)}' for p in options.get('include_dirs', ())]
    macros = [f'-D{n}' if v is None else f'-D{n}={v}'
              for n, v in (*_codegen.MACROS, *options.get('define_macros', ()))]
    cflags = [*C_FLAGS, *macros, *system, *user, *options.get('extra_compile_args', ())]
    compiles = []
    all_sources = [module_source, *sources]
    for source, stem in zip(all_sources, _object_stems(all_sources)):
        obj = os.path.join(build_dir, stem + '.o')
        dep = obj + '.d'
        compiles.append(Step((*cc, *cflags, '-MMD', '-MF', dep, '-c', source, '-o', obj),
                             obj, (source,), depfile=dep))
    objects = tuple(s.output for s in compiles)
    library = os.path.join(build_dir, module + _toolchain.EXT_SUFFIX)
    link = Step((*cc, *_toolchain.SHARED_FLAGS, *objects, '-o', library,
                 *[f'-L{os.path.abspath(d)}' for d in options.get('library_dirs', ())],
                 *[f'-l{lib}' for lib in options.get('libraries', ())],
                 *options.get('extra_link_args', ())), library, objects)
    steps = (*compiles, link)
    config = _cache.config_digest({
        'commands': [s.command for s in steps], 'compiler': _toolchain.compiler_identity(cc),
        'ember': ember.__version__, 'headers': _toolchain.header_digest(_codegen.EMBER_INCLUDE),
        'generator': _generator_digest(), 'cffi': _cffi_version(),
        'numpy': numpy.__version__, 'python': sys.version})
    return Plan(steps, library, tuple(s.depfile for s in compiles), config)


@functools.lru_cache(maxsize=None)
def _generator_digest():
    """The code generator's own source: changing it changes every generated module."""
    with open(_codegen.__file__, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def _cffi_version():
    from . import _cffi
    return _cffi.cffi().__version__
