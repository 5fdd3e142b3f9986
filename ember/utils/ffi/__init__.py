"""ember.utils.ffi: custom C extensions built with cffi (torch.utils.ffi's counterpart).

Write plain C functions taking ``EmberTensor *`` (``<ember/ember_c.h>``: a zero-copy view of
an ember tensor -- data pointer, dtype, sizes, strides -- with helpers to check sizes and
dtypes, resize an output, fill, reach elements, and report errors that become Python
exceptions), declare them in a header, and build them:

- ``create_extension(name, headers, sources, ...)`` (torch.utils.ffi's signature) returns a
  cffi FFI; its ``build()`` compiles the extension into a package beside your script, and a
  setup.py compiles it at install time through cffi's ``cffi_modules``;
- ``load(name, headers, sources, ...)`` compiles and imports in one call.

Python calls the C functions with ember Tensors, numbers and strings; wrap them in an
``autograd.Function`` for gradients (``examples/c_extension`` ports pytorch/extension-ffi).
Builds share the C++ extensions' machinery (``ember.utils.cpp_extension``'s cache, lock and
compiler runner): an unchanged extension loads in milliseconds, a compiler error shows the
compiler's first error lines and the command, and a killed build never blocks the next.

Modules: ``_extension`` (create_extension, load), ``_codegen`` (the C ember adds to the cffi
module), ``_plan`` (the compiler commands), ``_module`` (what Python sees of a built module),
``_cffi`` (the optional dependency); the C headers live in ``include/ember/``. cffi is the
optional extra ``ember[ffi]``; importing ember needs neither it nor a compiler.
"""
from ._extension import create_extension, load

__all__ = ['create_extension', 'load']
