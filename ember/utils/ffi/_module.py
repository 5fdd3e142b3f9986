"""What Python sees of a built C extension: the cffi module's ``lib`` with each C function that
takes tensors and numbers replaced by ember's call wrapper (made in C by the module itself,
see ``include/ember/ember_c_module.h``), plus ``ffi`` and ``lib`` for everything else.

Used by ``load`` (a module object made here) and by the ``__init__.py`` that
``create_extension(...).build()`` writes (its globals).
"""
import itertools
import threading
import types

from ._codegen import INSTALL

__all__ = ['exports', 'receive', 'populate', 'module_of']

_received = {}
_keys = itertools.count()
_lock = threading.Lock()


def receive(key, functions):
    """Called from C by a module's ``ember__install``: its {name: wrapper} dict, or the
    exception that stopped it from making one."""
    _received[key] = functions


def exports(ffi, lib):
    """{name: object} of a built module: each declared function (ember's wrapper when it
    has one, else cffi's function), and the module's constants and variables."""
    with _lock:
        key = f'ember-ffi-{next(_keys)}'
    getattr(lib, INSTALL)(key.encode())
    wrapped = _received.pop(key, None)
    if isinstance(wrapped, BaseException):
        raise ImportError(f'ember.utils.ffi: the extension module {lib!r} could not make its '
                          f'functions: {wrapped}') from wrapped
    if wrapped is None:
        raise ImportError(f'ember.utils.ffi: the extension module {lib!r} made no functions '
                          f'(see the error printed above)')
    names = [n for n in dir(lib) if n != INSTALL and not n.startswith('ember__')]
    return {n: wrapped[n] if n in wrapped else getattr(lib, n) for n in names}


def populate(namespace, ffi, lib):
    """Puts the exports of a built module into ``namespace`` (a module's globals), with
    ``ffi``, ``lib`` and ``__all__`` (the exports)."""
    public = exports(ffi, lib)
    namespace.update(public)
    namespace.update(ffi=ffi, lib=lib, __all__=sorted(public))


def module_of(name, cffi_module, doc=None):
    """A module ``name`` holding the exports of ``cffi_module``, its ``ffi`` and ``lib``."""
    module = types.ModuleType(name, doc)
    populate(module.__dict__, cffi_module.ffi, cffi_module.lib)
    module.__file__ = getattr(cffi_module, '__file__', None)
    return module
