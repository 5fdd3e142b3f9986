"""Running a build: its compiler commands (``_plan.Step``), through ninja when it is
installed and through plain compiler processes in parallel otherwise, with a failure
reported as the compiler's own first error lines, the command and the build directory."""
import os
import re
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor

from . import _cache, _toolchain

__all__ = ['BuildError', 'run']

LOG = 'build.log'
# gcc/clang "f.cpp:3:5: error: ...", "fatal error:", MSVC "error C2065:", the linker's words.
_FIRST_ERROR = re.compile(r'\b(?:fatal )?error(?: [A-Z]+\d+)?:|undefined reference|'
                          r'undefined symbol')
_ERROR_LINES = 20


class BuildError(RuntimeError):
    """A compiler command failed. The message shows its first error lines verbatim, the
    command and the build directory; ``step``, ``build_directory`` and ``output`` (all the
    command printed, also written to ``log``) are attributes."""

    def __init__(self, name, step, build_dir, output, log=None):
        self.step, self.build_directory, self.output, self.log = step, build_dir, output, log
        lines = output.splitlines()
        first = next((i for i, line in enumerate(lines) if _FIRST_ERROR.search(line)), 0)
        if first and ': In ' in lines[first - 1]:  # gcc's "f.cpp: In function 'g':" context
            first -= 1
        excerpt = '\n'.join('    ' + line for line in lines[first:first + _ERROR_LINES])
        more = f' (all of it in {log})' if log else ''
        super().__init__(
            f'Error building extension {name!r}: this command failed:\n    {step.shell()}\n'
            f'build directory: {build_dir}\n'
            f'the compiler said{more}:\n{excerpt or "    (nothing)"}')


def _failed(name, step, output, build_dir):
    """The BuildError for a failed step, after saving its whole output to build.log."""
    log = os.path.join(build_dir, LOG)
    try:
        with open(log, 'w') as f:
            f.write(f'$ {step.shell()}\n{output}')
    except OSError:
        log = None
    return BuildError(name, step, build_dir, output, log)


def run(name, steps, build_dir, verbose=False, use_ninja=None, pass_fds=()):
    """Runs ``steps`` (compiles, then the link as the last step) in ``build_dir``; ninja
    when available unless ``use_ninja`` says otherwise. The commands inherit ``pass_fds``
    (the build lock). Raises BuildError."""
    if use_ninja is None:
        use_ninja = _toolchain.is_ninja_available()
    # nanobind's object, once built by any build directory, is an input like a source file:
    # ninja would rebuild it in a directory whose log has never seen it.
    steps = [s for s in steps if not (s.scratch and os.path.exists(s.output))]
    if verbose:
        how = 'ninja' if use_ninja else f'{_toolchain.max_jobs()} parallel compiler processes'
        print(f'ember.utils: building extension {name!r} in {build_dir} '
              f'with {how}', flush=True)
    if use_ninja:
        _run_ninja(name, steps, build_dir, verbose, pass_fds)
    else:
        _run_direct(name, steps, build_dir, verbose, pass_fds)


# -- plain compiler processes ------------------------------------------------------------------
def _run_direct(name, steps, build_dir, verbose, pass_fds):
    *compiles, link = steps
    for step in compiles:
        os.makedirs(os.path.dirname(step.output), exist_ok=True)
    with ThreadPoolExecutor(_toolchain.max_jobs()) as pool:
        results = list(pool.map(lambda s: _call(s, build_dir, verbose, pass_fds), compiles))
    for step, (code, output) in zip(compiles, results):
        if code:
            raise _failed(name, step, output, build_dir)
    code, output = _call(link, build_dir, verbose, pass_fds)
    if code:
        raise _failed(name, link, output, build_dir)


def _call(step, build_dir, verbose, pass_fds):
    """Runs one step; returns (exit status, output). Prints both when verbose."""
    if verbose:
        print(step.shell(), flush=True)
    proc = subprocess.run(step.argv(), cwd=build_dir, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, pass_fds=pass_fds)
    if verbose and proc.stdout:
        print(proc.stdout, end='', flush=True)
    if proc.returncode == 0 and step.scratch:
        os.replace(step.scratch, step.output)
    return proc.returncode, proc.stdout


# -- ninja ---------------------------------------------------------------------------------------
_FAILED = re.compile(r'^FAILED: (?:\[code=\d+\] )?(.*)$')
_PROGRESS = re.compile(r'^\[\d+/\d+\] ')


def _run_ninja(name, steps, build_dir, verbose, pass_fds):
    _cache.write_if_changed(os.path.join(build_dir, 'build.ninja'), ninja_file(steps).encode())
    command = [_toolchain.ninja(), '-C', build_dir]
    if verbose:
        command.append('-v')
    if os.environ.get('MAX_JOBS'):
        command += ['-j', str(_toolchain.max_jobs())]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, pass_fds=pass_fds)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if verbose:
            print(line, end='', flush=True)
    if proc.wait():
        raise _failed(name, *_failure(lines, steps), build_dir=build_dir)


def _failure(lines, steps):
    """Which step failed and what it printed, from ninja's output: a ``FAILED: output`` line,
    the command, then the command's output up to ninja's next line of its own."""
    by_output = {s.output: s for s in steps}
    for i, line in enumerate(lines):
        m = _FAILED.match(line.rstrip('\n'))
        if m and m.group(1).strip() in by_output:
            out = []
            for rest in lines[i + 2:]:
                if rest.startswith('ninja: ') or _PROGRESS.match(rest):
                    break
                out.append(rest)
            return by_output[m.group(1).strip()], ''.join(out)
    # ninja itself failed (a bad build file, a missing input): show all it said.
    return steps[-1], ''.join(lines)


def ninja_file(steps):
    """The build.ninja text running ``steps``: one edge per step, the last one the default."""
    lines = ['ninja_required_version = 1.3', '',
             'rule run', '  command = $cmd', '  description = $desc', '',
             'rule run_with_depfile', '  command = $cmd', '  description = $desc',
             '  depfile = $depfile', '']
    for step in steps:
        command = shlex.join(step.argv())
        if step.scratch:
            command += f' && mv -f {shlex.quote(step.scratch)} {shlex.quote(step.output)}'
        rule = 'run_with_depfile' if step.depfile else 'run'
        lines.append(f'build {_escape_path(step.output)}: {rule} '
                     + ' '.join(_escape_path(p) for p in step.inputs))
        lines.append(f'  cmd = {_escape(command)}')
        lines.append(f'  desc = {_escape(os.path.basename(step.output))}')
        if step.depfile:
            lines.append(f'  depfile = {_escape_path(step.depfile)}')
    lines += ['', f'default {_escape_path(steps[-1].output)}', '']
    return '\n'.join(lines)


def _escape(text):
    return text.replace('$', '$$')


def _escape_path(path):
    return _escape(path).replace(' ', '$ ').replace(':', '$:')
