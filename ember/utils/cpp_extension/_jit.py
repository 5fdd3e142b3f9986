"""load and load_inline: build an extension when its cache entry is missing or stale, under
the build directory's lock, and import it."""
import importlib.util
import os

from . import _cache, _plan, _toolchain
from ._bindings import inline_source
from ._lock import BuildLock

__all__ = ['load', 'load_inline', 'cached_build', 'check_name', 'build_dir_of',
           'import_library']

# library path -> module: a second load in one process returns the module it already has.
_LOADED = {}


def load(name, sources, extra_cflags=None, extra_cuda_cflags=None, extra_ldflags=None,
         extra_include_paths=None, build_directory=None, verbose=False, with_cuda=None):
    """Compiles C++ ``sources`` (a path or a list) into the Python module ``name`` and
    imports it; a cached build is reused when nothing changed (sources, the headers they
    include, flags, compiler, versions), which takes milliseconds.

    The sources include ``<ember/extension.h>`` and define
    ``NB_MODULE(EMBER_EXTENSION_NAME, m) { ... }``. Several sources compile in parallel
    (ninja when installed). ``extra_cflags`` / ``extra_ldflags`` / ``extra_include_paths``
    are lists added to the compiler and linker calls; ``build_directory`` (one per
    extension) defaults to ``<root>/<name>`` with the root ``$EMBER_EXTENSIONS_DIR``, else
    a per-user cache (``get_default_build_root()``); ``verbose`` prints the commands. Two processes loading one extension at once build it
    once: the second waits for the first (and says so after a few seconds). A compiler error
    raises RuntimeError with the compiler's first error lines, the command and the build
    directory. CUDA (``.cu`` sources, ``with_cuda=True``) raises NotImplementedError: ember
    has no CUDA devices yet; ``extra_cuda_cflags`` is accepted for torch compatibility and
    ignored without CUDA sources.

    Example (compiles, so not run here; see tests/cpp_extension)::

        ext = load('my_ops', ['my_ops.cpp'], extra_cflags=['-O3'], verbose=True)
        y = ext.scale(x, 2.0)
    """
    sources = [sources] if isinstance(sources, str) else list(sources)
    if not sources:
        raise ValueError(f'load: extension {name!r} needs at least one source file')
    _toolchain.check_sources(sources)
    if with_cuda:
        _toolchain.refuse_cuda('with_cuda=True')
    return _jit(name, {os.path.abspath(s): None for s in sources}, extra_cflags, extra_ldflags,
                extra_include_paths, build_directory, verbose)


def load_inline(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None,
                extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None,
                build_directory=None, verbose=False, with_cuda=None):
    """As ``load``, for C++ given as a string (or a list of strings). ``#include
    <ember/extension.h>`` is added in front, and with ``functions`` (a name, a list of names,
    or {name: docstring}) the Python bindings of those C++ functions are written for you.

    Example (compiles, so not run here; see tests/cpp_extension)::

        ext = load_inline('twice', '''
            ember::Tensor twice(ember::Tensor x) {
              ember::Tensor out = ember::empty_like(x);
              const float* a = x.data_ptr<float>();
              float* o = out.data_ptr<float>();
              for (int64_t i = 0; i < x.numel(); ++i) o[i] = 2 * a[i];
              return out;
            }''', functions=['twice'])
        ext.twice(ember.ones(3))   # tensor([2., 2., 2.])
    """
    if cuda_sources:
        _toolchain.refuse_cuda('cuda_sources were given')
    if with_cuda:
        _toolchain.refuse_cuda('with_cuda=True')
    build_dir = build_dir_of(name, build_directory)
    source = os.path.join(build_dir, 'main.cpp')
    return _jit(name, {source: inline_source(cpp_sources, functions).encode()}, extra_cflags,
                extra_ldflags, extra_include_paths, build_dir, verbose)


def _jit(name, sources, extra_cflags, extra_ldflags, extra_include_paths, build_directory,
         verbose):
    """Cache check, then (under the lock) build, then import. ``sources``: {path: bytes}
    for generated sources, {path: None} for files on disk."""
    check_name(name)
    build_dir = build_dir_of(name, build_directory)
    plan = _plan.plan(name, list(sources), build_dir, list(extra_cflags or ()),
                      list(extra_ldflags or ()), list(extra_include_paths or ()))
    return cached_build(name, plan, sources, build_dir, verbose,
                        generate=lambda: _write_generated(sources),
                        use=lambda library, cached, unlocked: import_library(
                            name, library, verbose, cached, unlocked))


def check_name(name):
    """ValueError unless ``name`` can name a Python module."""
    if not (isinstance(name, str) and name.isidentifier()):
        raise ValueError(f'extension name must be a valid Python identifier, got {name!r}')


def cached_build(name, plan, sources, build_dir, verbose, generate, use):
    """The build of ``plan`` (a ``_plan.Plan``) from the cache, or built: when the cache has
    it, ``use(library, cached=True, unlocked=True)`` right away (it returns None if the file
    vanished meanwhile: then we look again under the lock); otherwise, under the build
    directory's lock, ``generate()`` (writes generated sources), the build, the manifest, and
    ``use(library, cached, unlocked=False)``. ``sources``: {path: bytes or None (read it)},
    the files whose contents decide whether the build is up to date. Used by load/load_inline
    and by ember.utils.ffi."""
    library = _cache.up_to_date(build_dir, plan.config, _read(sources))
    if library is not None:
        result = use(library, True, True)
        if result is not None:
            return result
    os.makedirs(build_dir, exist_ok=True)
    with BuildLock(os.path.join(build_dir, 'lock'),
                   f'building extension {name!r} in {build_dir}') as lock:
        contents = _read(sources)  # again: files may have changed while we waited
        # Another process may have finished this very build while we waited for the lock.
        library = _cache.up_to_date(build_dir, plan.config, contents)
        cached = library is not None
        if not cached:
            from . import _build  # subprocess and threads: only when building
            generate()
            _build.run(name, plan.steps, build_dir, verbose, pass_fds=lock.inherit())
            library = _cache.record(build_dir, plan.config, contents, plan.depfiles,
                                    plan.library, os.path.basename(plan.library).split('.')[0],
                                    _toolchain.EXT_SUFFIX)
        return use(library, cached, False)


def build_dir_of(name, build_directory):
    """The build directory: ``build_directory`` if given, else ``<root>/<name>``."""
    if build_directory is not None:
        return os.path.abspath(build_directory)
    return os.path.join(_cache.default_root(), name)


def _read(sources):
    """{path: bytes}, reading the files given as None."""
    contents = {}
    for path, data in sources.items():
        if data is None:
            with open(path, 'rb') as f:
                data = f.read()
        contents[path] = data
    return contents


def _write_generated(sources):
    """Writes load_inline's source to its file (generated sources carry their bytes)."""
    for path, data in sources.items():
        if data is not None:
            _cache.write_if_changed(path, data)


def import_library(name, library, verbose, cached, unlocked):
    """Imports the module in ``library``. Found without holding the lock, None if the file
    vanished meanwhile (another process's rebuild replaced it): the caller then takes the
    lock and looks again."""
    module = _LOADED.get(library)
    if module is not None:
        return module
    if verbose and cached:
        print(f'ember.utils: extension {name!r} is up to date: {library}',
              flush=True)
    spec = importlib.util.spec_from_file_location(name, library)
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ImportError as e:
        if unlocked and not os.path.exists(library):
            return None
        raise ImportError(f'extension {name!r} was built ({library}) but cannot be imported: '
                          f'{e}') from e
    _LOADED[library] = module
    return module
