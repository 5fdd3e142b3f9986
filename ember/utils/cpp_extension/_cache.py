"""The build cache: where builds live, and whether an existing build is still good.

Each extension has a build directory (``<root>/<name>`` unless ``build_directory`` is
given). After a successful build, ``manifest.json`` there records

- ``config``: a digest of everything about the build that is not a file's contents (the
  commands with all flags and paths, the compiler's identity, the versions of ember,
  nanobind, NumPy and Python, ember's headers);
- ``inputs``: the SHA-256 of every file the compiler read that is not a system header: the
  sources, and the local headers they include, as the compiler's dependency files list them
  (so editing a header of yours rebuilds, as it should);
- ``library``: the built module, named ``<name>-<fingerprint><suffix>`` where the
  fingerprint digests config and inputs.

A build is up to date when the config matches and every input still has its recorded
digest; checking that reads a few small files, so loading a cached extension takes
milliseconds and runs no compiler. Each distinct build gets its own library file name,
because a process cannot load two different files from one path: a rebuilt extension is a
new file, loadable next to the old one in the same process.
"""
import hashlib
import json
import os
import re
import sys

__all__ = ['default_root', 'up_to_date', 'record']

MANIFEST = 'manifest.json'


def default_root():
    """Where builds go unless a build_directory is given: ``$EMBER_EXTENSIONS_DIR``, else
    ``$XDG_CACHE_HOME/ember_extensions/<python tag>`` (``~/.cache`` without XDG)."""
    root = os.environ.get('EMBER_EXTENSIONS_DIR')
    if root:
        return os.path.abspath(root)
    cache = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    return os.path.join(cache, 'ember_extensions', sys.implementation.cache_tag)


def digest(data):
    """SHA-256 of bytes, hex."""
    return hashlib.sha256(data).hexdigest()


def file_digest(path):
    """SHA-256 of a file's contents, or None if it cannot be read."""
    try:
        with open(path, 'rb') as f:
            return digest(f.read())
    except OSError:
        return None


def config_digest(config):
    """Digest of a JSON-able description of a build."""
    return digest(json.dumps(config, sort_keys=True).encode())


def up_to_date(build_dir, config, sources):
    """The library of a cached build of exactly these sources ({path: bytes}) and this
    config, or None if there is none or anything changed."""
    m = _read_manifest(build_dir)
    if m is None or m.get('config') != config or m.get('sources') != sorted(sources):
        return None
    for path, recorded in m['inputs'].items():
        current = digest(sources[path]) if path in sources else file_digest(path)
        if current != recorded:
            return None
    library = os.path.join(build_dir, m['library'])
    return library if os.path.exists(library) else None


def record(build_dir, config, sources, depfiles, built, name, suffix):
    """After a successful build: copies the library the linker wrote (``built``) to its
    fingerprinted name, writes the manifest and removes the previous build's library.
    Returns the new library's path."""
    inputs = {path: digest(data) for path, data in sources.items()}
    for dep in _dependencies(depfiles, build_dir):
        if dep not in inputs:
            inputs[dep] = file_digest(dep)
    fingerprint = config_digest([config, inputs])[:16]
    library = f'{name}-{fingerprint}{suffix}'
    _atomic_copy(built, os.path.join(build_dir, library))
    previous = _read_manifest(build_dir)
    _atomic_write(os.path.join(build_dir, MANIFEST), json.dumps(
        {'config': config, 'sources': sorted(sources), 'inputs': inputs, 'library': library},
        indent=1).encode())
    if previous and previous.get('library') not in (None, library):
        # A process still running the old module keeps its mapping of the file (POSIX).
        _remove(os.path.join(build_dir, previous['library']))
    return os.path.join(build_dir, library)


def _read_manifest(build_dir):
    try:
        with open(os.path.join(build_dir, MANIFEST), 'rb') as f:
            m = json.loads(f.read())
    except (OSError, ValueError):
        return None
    return m if isinstance(m, dict) and isinstance(m.get('inputs'), dict) else None


def _dependencies(depfiles, build_dir):
    """The files listed in compiler dependency files (Makefile syntax, as -MMD writes
    them), as absolute paths."""
    deps = []
    for depfile in depfiles:
        try:
            with open(depfile) as f:
                text = f.read()
        except OSError:
            continue
        deps += [os.path.normpath(os.path.join(build_dir, p)) for p in parse_depfile(text)]
    return deps


def parse_depfile(text):
    """The prerequisites in a Makefile-syntax dependency file, as ``-MMD`` writes it:
    ``obj.o: a.cpp b.h \\`` continued over lines, a space in a name escaped as ``\\ ``."""
    deps = []
    for line in text.replace('\\\r\n', ' ').replace('\\\n', ' ').splitlines():
        _, sep, rest = _split_target(line)
        if sep:
            deps += [_ESCAPED.sub(r'\1', word).replace('$$', '$') for word in _WORD.findall(rest)]
    return deps


_WORD = re.compile(r'(?:\\[ #]|\S)+')
_ESCAPED = re.compile(r'\\([ #])')


def _split_target(line):
    """Splits 'target: prerequisites' at the first colon followed by whitespace or the end
    (a Windows drive letter's colon is followed by a slash)."""
    for i, c in enumerate(line):
        if c == ':' and (i + 1 == len(line) or line[i + 1].isspace()):
            return line[:i], ':', line[i + 1:]
    return line, '', ''


def write_if_changed(path, data):
    """Writes bytes to ``path`` unless it already holds them: ninja and the cache go by a
    file's modification time and contents, which an identical rewrite should not disturb."""
    try:
        with open(path, 'rb') as f:
            if f.read() == data:
                return
    except OSError:
        pass
    with open(path, 'wb') as f:
        f.write(data)


def _atomic_write(path, data):
    tmp = f'{path}.tmp-{os.getpid()}'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.replace(tmp, path)


def _atomic_copy(src, dst):
    with open(src, 'rb') as f:
        _atomic_write(dst, f.read())
    os.chmod(dst, 0o755)


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass
