"""The commands of one JIT build: compile each source, compile nanobind's library once (shared
by every extension), link; and the digest of that configuration for the cache."""
import os
import shlex
import sys
from dataclasses import dataclass
from typing import Optional

from . import _cache, _toolchain

__all__ = ['Step', 'Plan', 'plan']


@dataclass(frozen=True)
class Step:
    """One compiler call: ``command`` reads ``inputs`` and writes ``output``.

    ``scratch``: the command writes there instead, and the result is renamed to ``output``
    when it succeeds, so ``output`` appears complete or not at all: used for nanobind's
    library object, which several build directories share. ``depfile``: the dependency
    file the command writes (``-MMD``).
    """
    command: tuple
    output: str
    inputs: tuple
    depfile: Optional[str] = None
    scratch: Optional[str] = None

    def shell(self):
        """The command line as a shell would read it (printed, logged, shown in errors)."""
        return shlex.join(self.command)

    def argv(self):
        """The command to run: writing to ``scratch`` when there is one."""
        if not self.scratch:
            return list(self.command)
        return [self.scratch if a == self.output else a for a in self.command]


@dataclass(frozen=True)
class Plan:
    """``steps``: compiles, then the link (last); ``library``: the file the link writes;
    ``depfiles``: the compilers' dependency files; ``config``: the cache's config digest."""
    steps: tuple
    library: str
    depfiles: tuple
    config: str


def plan(name, sources, build_dir, extra_cflags=(), extra_ldflags=(), extra_include_paths=()):
    """The build of extension ``name`` from ``sources`` (absolute paths) in ``build_dir``."""
    import numpy

    import ember
    cxx = _toolchain.compiler()
    binding = _toolchain.binding()
    # -isystem: warnings in these headers are not the user's, and -MMD leaves them out of the
    # dependency files; they are versioned through the config digest instead.
    system = [f'-isystem{p}' for p in (*_toolchain.include_paths(), _toolchain.python_include())]
    user = [f'-I{os.path.abspath(p)}' for p in extra_include_paths]
    cflags = [*_toolchain.CXX_FLAGS, f'-DEMBER_EXTENSION_NAME={name}', *system, *user,
              *extra_cflags]
    compiles = []
    for source, stem in zip(sources, _object_stems(sources)):
        obj = os.path.join(build_dir, stem + '.o')
        dep = obj + '.d'
        compiles.append(Step((*cxx, *cflags, '-MMD', '-MF', dep, '-c', source, '-o', obj),
                             obj, (source,), depfile=dep))
    nanobind = _nanobind_step(cxx, binding, build_dir)
    objects = tuple(s.output for s in compiles) + (nanobind.output,)
    library = os.path.join(build_dir, name + _toolchain.EXT_SUFFIX)
    link = Step((*cxx, *_toolchain.SHARED_FLAGS, *objects, '-o', library, *extra_ldflags),
                library, objects)
    steps = (*compiles, nanobind, link)
    config = _cache.config_digest({
        'commands': [s.command for s in steps], 'compiler': _toolchain.compiler_identity(cxx),
        'ember': ember.__version__, 'headers': _toolchain.header_digest(),
        'nanobind': binding.version, 'numpy': numpy.__version__, 'python': sys.version})
    return Plan(steps, library, tuple(s.depfile for s in compiles), config)


def _nanobind_step(cxx, binding, build_dir):
    """nanobind's library as one object file under the cache root, keyed by everything that
    shapes it. Written through a scratch file private to ``build_dir``, so builds in other
    directories that compile it at the same time never see a partial file."""
    includes = [f'-isystem{p}' for p in (*binding.include_dirs, _toolchain.python_include())]
    command = [*cxx, *_toolchain.NANOBIND_FLAGS, *includes, '-c', binding.library_source]
    key = _cache.config_digest([command, _toolchain.compiler_identity(cxx), binding.version,
                                sys.version])[:16]
    output = os.path.join(_cache.default_root(), '_nanobind', key, 'nanobind.o')
    scratch = f'{output}.{_cache.digest(build_dir.encode())[:12]}.tmp'
    return Step((*command, '-o', output), output, (binding.library_source,), scratch=scratch)


def _object_stems(sources):
    """Object file names: the source's stem, numbered when two sources share one."""
    seen = {}
    for source in sources:
        stem = os.path.splitext(os.path.basename(source))[0]
        n = seen.get(stem, 0)
        seen[stem] = n + 1
        yield stem if n == 0 else f'{stem}_{n}'
