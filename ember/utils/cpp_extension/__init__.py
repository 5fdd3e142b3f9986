"""ember.utils.cpp_extension: custom C++ extensions, built from Python (torch's counterpart).

Write a kernel in C++ against ``<ember/extension.h>`` (``ember::Tensor``, a zero-copy view of
an ember tensor's memory, plus output allocation and ``EMBER_CHECK``), compile it with
``load`` / ``load_inline`` (JIT, cached) or ``CppExtension`` + ``BuildExtension`` (setup.py),
call it on tensors, and wrap it in an ``autograd.Function`` for gradients
(``examples/lltm`` does all of it).

Modules: ``_toolchain`` (compiler, ninja, nanobind, include paths, flags), ``_plan`` (the
commands of a build), ``_build`` (running them; compiler errors), ``_cache`` (fingerprints,
manifest), ``_lock`` (the lock between processes), ``_bindings`` (load_inline's generated
module), ``_jit`` (load, load_inline, and ``cached_build``: the cache-lock-build-import flow),
``_setuptools`` (ahead-of-time builds); the C++ headers live in ``include/ember/``.
``ember.utils.ffi`` (C extensions) builds through the same ``_toolchain``, ``_plan.Step``,
``_build``, ``_cache``, ``_lock`` and ``_jit.cached_build``.

The bindings come from nanobind, not pybind11, chosen by measuring both
(``python benchmarks/cpp_bindings.py``, g++ 12, a busy 2-core machine, best of 3 builds):

=====================================  ==========  ==========
                                       pybind11    nanobind
=====================================  ==========  ==========
compile a two-function module, -O0     3.11 s      0.36 s
compile a two-function module, -O2     4.54 s      0.38 s
nanobind's library (once per machine)  --          3.34 s
call a function ``f(x) -> x``          73 ns       37 ns
=====================================  ==========  ==========

nanobind's library is compiled once into the cache root (``_nanobind/``) and linked into
every extension, so only the first build on a machine pays for it; after that a build is
the extension's own sources plus a link. A first build from nothing takes about a fifth of
torch's ``load_inline`` (``benchmarks/cpp_workloads.py``). nanobind is the optional extra
``ember[cpp]``: importing ember needs neither it nor a compiler.
"""
from ._jit import load, load_inline
from ._cache import default_root as get_default_build_root
from ._toolchain import include_paths, is_ninja_available, verify_ninja_availability

__all__ = ['load', 'load_inline', 'include_paths', 'get_default_build_root',
           'is_ninja_available', 'verify_ninja_availability', 'CppExtension',
           'CUDAExtension', 'BuildExtension']

_SETUPTOOLS_NAMES = ('CppExtension', 'CUDAExtension', 'BuildExtension')


def __getattr__(name):
    # setuptools takes longer to import than a cached load takes in all: only on use.
    if name in _SETUPTOOLS_NAMES:
        from . import _setuptools
        return getattr(_setuptools, name)
    raise AttributeError(f"module 'ember.utils.cpp_extension' has no attribute '{name}'")
