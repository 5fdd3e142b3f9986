"""Ahead-of-time builds with setuptools: CppExtension and BuildExtension for a setup.py, so an
extension is compiled once at install time and shipped in a wheel like any other::

    from setuptools import setup
    from ember.utils.cpp_extension import BuildExtension, CppExtension

    setup(name='my_ops', ext_modules=[CppExtension('my_ops', ['my_ops.cpp'])],
          cmdclass={'build_ext': BuildExtension})

The package's build needs ember and nanobind installed (``pip install --no-build-isolation``,
or list both in the package's ``build-system.requires``).
"""
import os
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension
from setuptools.command.build_ext import build_ext

from . import _toolchain

__all__ = ['CppExtension', 'CUDAExtension', 'BuildExtension']


def CppExtension(name, sources, *args, **kwargs):
    """A setuptools ``Extension`` for C++ ``sources`` that include ``<ember/extension.h>``:
    ember's, nanobind's and NumPy's include directories are added and the language is C++.
    Build it with ``cmdclass={'build_ext': BuildExtension}``.

    >>> from ember.utils.cpp_extension import CppExtension
    >>> CppExtension('my_ops', ['my_ops.cpp']).language
    'c++'
    """
    _toolchain.check_sources(list(sources))
    kwargs['include_dirs'] = [*kwargs.get('include_dirs', []), *_toolchain.include_paths()]
    kwargs['language'] = 'c++'
    return Extension(name, list(sources), *args, **kwargs)


def CUDAExtension(name, sources, *args, **kwargs):
    """Not available yet: ember has no CUDA devices. Raises NotImplementedError."""
    _toolchain.refuse_cuda(f'CUDAExtension({name!r})')


class BuildExtension(build_ext):
    """setuptools' ``build_ext`` for ember extensions. For each extension it adds nanobind's
    library source (compiled with nanobind's own options), defines ``EMBER_EXTENSION_NAME``
    and C++17 with hidden visibility, takes torch-style ``extra_compile_args={'cxx': [...]}``,
    refuses CUDA sources, and compiles the sources of one extension in parallel
    (``$MAX_JOBS`` processes at most) with a Unix compiler."""

    def build_extensions(self):
        binding = _toolchain.binding()
        for ext in self.extensions:
            _prepare(ext, binding.library_source, self.compiler.compiler_type)
        if self.compiler.compiler_type == 'unix':
            _compile_in_parallel(self.compiler, binding.library_source)
        super().build_extensions()


def _prepare(ext, library_source, compiler_type):
    _toolchain.check_sources([s for s in ext.sources if s != library_source])
    args = ext.extra_compile_args
    if isinstance(args, dict):  # torch's {'cxx': [...], 'nvcc': [...]}
        if args.get('nvcc'):
            _toolchain.refuse_cuda(f"extra_compile_args['nvcc'] of {ext.name!r}")
        args = list(args.get('cxx', []))
    if compiler_type == 'unix' and not any(a.startswith('-std=') for a in args):
        args = ['-std=c++17', '-fvisibility=hidden', *args]
    ext.extra_compile_args = args
    if library_source not in ext.sources:
        ext.sources.append(library_source)
    ext.define_macros = [*ext.define_macros, ('EMBER_EXTENSION_NAME', ext.name.split('.')[-1])]
    ext.language = 'c++'


def _compile_in_parallel(compiler, library_source):
    """Replaces ``compiler.compile`` (one source after another) by the same steps run in a
    thread pool; each step is a compiler process, so threads are enough."""
    nanobind_flags = list(_toolchain.NANOBIND_FLAGS)

    def compile(sources, output_dir=None, macros=None, include_dirs=None, debug=False,
                extra_preargs=None, extra_postargs=None, depends=None):
        macros, objects, extra, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs)
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj):
            src, suffix = build[obj]
            flags = extra + nanobind_flags if os.path.samefile(src, library_source) else extra
            compiler._compile(obj, src, suffix, cc_args, flags, pp_opts)

        with ThreadPoolExecutor(_toolchain.max_jobs()) as pool:
            list(pool.map(one, [o for o in objects if o in build]))
        return objects

    compiler.compile = compile
