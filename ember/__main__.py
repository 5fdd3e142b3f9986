"""``python -m ember run``: runs an unmodified PyTorch program with ember as ``torch``.

The program runs as ``python`` would run it -- ``__name__ == '__main__'``, its own
``sys.argv``, ``sys.path[0]`` its directory, a traceback that starts at its own first line --
after ``ember.install_as_torch()`` (``ember/_torch_alias.py``).
"""
import os
import sys
import types

USAGE = """\
usage: python -m ember run script.py [args...]
       python -m ember run -m module [args...]
       python -m ember run -c "code" [args...]

Runs an unmodified PyTorch program with ember as torch: `import torch`,
`import torch.nn as nn`, `from torch.utils.data import DataLoader` ... give ember's
modules (the same objects: torch.nn is ember.nn), for the whole process, libraries
included. The program sees what `python script.py args...` would give it: sys.argv,
__name__ == '__main__', sys.path[0] its directory (the current one for -m and -c).

The same switch from Python (a notebook, a library): ember.install_as_torch(), before
anything imports torch. torch.__version__ then reads '2.13.0+ember.<ember version>',
the torch release whose API ember follows. A process that has already imported the
real torch is refused.

commands:
  run     run a program with ember as torch
options:
  -h, --help  show this help and exit
"""


def main(argv=None):
    """The command line: returns the exit status (the program's own, when it ran)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ('-h', '--help'):
        print(USAGE, end='', file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] != 'run':
        return _usage_error(f"unknown command {argv[0]!r} (the command is 'run')")
    rest = argv[1:]
    if not rest:
        return _usage_error("run needs a script, -m module or -c code")
    if rest[0] in ('-h', '--help'):
        print(USAGE, end='')
        return 0
    if rest[0] in ('-m', '-c'):
        if len(rest) < 2:
            return _usage_error(f"argument expected for the {rest[0]} option")
        kind, target, args = rest[0], rest[1], rest[2:]
    elif rest[0].startswith('-') and rest[0] != '-':
        return _usage_error(f"unknown option {rest[0]!r}")
    else:
        kind, target, args = 'path', rest[0], rest[1:]
    import ember
    try:
        ember.install_as_torch()
    except RuntimeError as e:  # the real torch came first (a sitecustomize, a .pth file)
        print(f"python -m ember run: {e}", file=sys.stderr)
        return 1
    return _run(kind, target, args)


def _usage_error(message):
    print(f"python -m ember: {message}\n\n{USAGE}", end='', file=sys.stderr)
    return 2


def _run(kind, target, args):
    """Runs the program in a fresh ``__main__`` module, as the interpreter would."""
    main = types.ModuleType('__main__')
    main.__dict__['__builtins__'] = __builtins__
    try:
        if kind == '-c':
            sys.argv = ['-c', *args]
            sys.path[0] = ''
            code = compile(target, '<string>', 'exec')
        elif kind == '-m':
            code, spec = _module_code(target)
            if code is None:
                return 1
            main.__dict__.update(__file__=spec.origin, __spec__=spec, __loader__=spec.loader,
                                 __package__=spec.parent, __cached__=spec.cached)
            sys.argv = [spec.origin, *args]
        else:
            path = target if os.path.isabs(target) else os.path.join(os.getcwd(), target)
            source = _script_source(path)
            if source is None:
                return 2
            main.__dict__.update(__file__=path, __package__=None, __spec__=None,
                                 __cached__=None)
            sys.argv = [target, *args]
            sys.path[0] = os.path.dirname(os.path.realpath(target))
            # (named by that joined path, as python names it; bytes: compile() honours a
            # coding declaration)
            code = compile(source, path, 'exec', dont_inherit=True)
        sys.modules['__main__'] = main
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - reported as the interpreter reports it
        tb = _program_frames(e.__traceback__)
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        return 130 if isinstance(e, KeyboardInterrupt) else 1
    return 0


def _script_source(path):
    """The script's bytes, or None after saying why it cannot be opened (as python does)."""
    try:
        with open(path, 'rb') as f:
            return f.read()
    except OSError as e:
        print(f"python -m ember run: can't open file {path!r}: "
              f"[Errno {e.errno}] {e.strerror}", file=sys.stderr)
        return None


def _module_code(name):
    """(code, spec) of the module (a package's ``__main__``), or (None, None) after saying
    why not (as ``python -m`` does)."""
    import importlib.util
    try:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations is not None:
            package, spec = name, importlib.util.find_spec(name + '.__main__')
            if spec is None:
                raise ImportError(f"No module named {package}.__main__; '{package}' is a "
                                  "package and cannot be directly executed")
        if spec is None:
            raise ImportError(f"No module named {name}")
        code = spec.loader.get_code(spec.name)
        if code is None:
            raise ImportError(f"No code object available for {name}")
    except ImportError as e:
        print(f"python -m ember run: Error while finding module specification for {name!r} "
              f"({type(e).__name__}: {e})", file=sys.stderr)
        return None, None
    return code, spec


def _program_frames(tb):
    """The traceback without the runner's own frames: it starts in the program (None when
    the error is the program's text itself, a SyntaxError, as python shows it)."""
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return tb


if __name__ == '__main__':
    sys.exit(main())
