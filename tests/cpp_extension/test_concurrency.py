"""Several processes and one extension, with real processes: two that build the same
extension at once build it once and both load it; a process waiting for the build lock says
what it waits for; and the lock dies with its holder, so a killed build never blocks later
loads (unlike pytorch#189245's stale lock file)."""
import os
import signal
import subprocess
import sys
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 300  # seconds: a generous bound on a busy machine; a hang fails instead of blocking

LOAD = textwrap.dedent('''
    import os, sys, time
    from ember.utils.cpp_extension import _lock, load_inline
    _lock.NOTICE_AFTER = 0.2
    name, build, ready, go = sys.argv[1:5]
    open(ready, 'w').close()
    while not os.path.exists(go):
        time.sleep(0.005)
    print('loading', flush=True)
    ext = load_inline(name, 'int64_t twice(int64_t x) { return 2 * x; }', functions='twice',
                      build_directory=build, verbose=True)
    print('RESULT', ext.twice(21), flush=True)
''')

HOLD = textwrap.dedent('''
    import sys, time
    from ember.utils.cpp_extension._lock import BuildLock
    with BuildLock(sys.argv[1], sys.argv[2]):
        print('locked', flush=True)
        time.sleep(600)
''')


def _start(code, *args):
    return subprocess.Popen([sys.executable, '-c', code, *map(str, args)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _loader(tmp_path, name, build, tag):
    ready = tmp_path / f'ready-{tag}'
    return _start(LOAD, name, build, ready, tmp_path / 'go'), ready


def _wait_for(paths):
    deadline = time.monotonic() + TIMEOUT
    while not all(p.exists() for p in paths):
        assert time.monotonic() < deadline, 'a process did not start'
        time.sleep(0.01)


def test_two_processes_build_one_extension_once(toolchain, tmp_path):
    build = tmp_path / 'build'
    procs = [_loader(tmp_path, 'shared_ext', build, tag) for tag in 'ab']
    _wait_for([ready for _, ready in procs])
    (tmp_path / 'go').touch()  # both call load_inline now
    outs = [proc.communicate(timeout=TIMEOUT) for proc, _ in procs]
    for (proc, _), (out, err) in zip(procs, outs):
        assert proc.returncode == 0, err
        assert 'RESULT 42' in out
    compiled = [sum(' -c ' in line and 'main.cpp' in line for line in out.splitlines())
                for out, _ in outs]
    assert sorted(compiled) == [0, 1]  # one built; the other waited, then found the build
    assert sum('is up to date' in out for out, _ in outs) == 1


def test_waiting_is_announced_and_a_killed_holder_frees_the_lock(toolchain, tmp_path):
    build = tmp_path / 'build'
    build.mkdir()
    purpose = f"building extension 'held_ext' in {build}"
    holder = _start(HOLD, build / 'lock', purpose)
    try:
        assert holder.stdout.readline().strip() == 'locked'
        waiter, ready = _loader(tmp_path, 'held_ext', build, 'w')
        _wait_for([ready])
        (tmp_path / 'go').touch()
        assert waiter.stdout.readline().strip() == 'loading'
        time.sleep(1.0)  # well past the waiter's 0.2 s notice delay
        assert waiter.poll() is None, 'the waiter did not wait for the held lock'
    finally:
        holder.send_signal(signal.SIGKILL)  # no clean-up code runs: only the OS frees the lock
        holder.wait()
    out, err = waiter.communicate(timeout=TIMEOUT)
    assert waiter.returncode == 0, err
    assert 'RESULT 42' in out
    assert f'held by process {holder.pid}, {purpose}' in err
    assert 'waiting for the lock' in err and str(build / 'lock') in err


def test_a_build_killed_half_way_does_not_stop_the_next(toolchain, tmp_path):
    """SIGKILL the builder once its build has started (the lock file names it); the next
    process then gets the lock (once the killed build's compilers, which share it, are done)
    and ends up with a working module."""
    build = tmp_path / 'build'
    builder, ready = _loader(tmp_path, 'killed_ext', build, 'k')
    _wait_for([ready])
    (tmp_path / 'go').touch()
    deadline = time.monotonic() + TIMEOUT
    while not ((build / 'lock').exists() and (build / 'lock').read_text()):
        assert builder.poll() is None and time.monotonic() < deadline, 'no build started'
        time.sleep(0.005)
    builder.send_signal(signal.SIGKILL)
    builder.wait()
    (tmp_path / 'go').unlink()
    after, ready = _loader(tmp_path, 'killed_ext', build, 'after')
    _wait_for([ready])
    (tmp_path / 'go').touch()
    out, err = after.communicate(timeout=TIMEOUT)
    assert after.returncode == 0, err
    assert 'RESULT 42' in out


def test_lock_is_exclusive_between_processes(tmp_path):
    """The lock itself, without a compiler: held in another process, it cannot be taken."""
    from ember.utils.cpp_extension import _lock
    path = tmp_path / 'lock'
    holder = _start(HOLD, path, 'testing')
    try:
        assert holder.stdout.readline().strip() == 'locked'
        fd = os.open(path, os.O_RDWR)
        try:
            assert not _lock._try_lock(fd)
        finally:
            os.close(fd)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with _lock.BuildLock(str(path), 'testing'):
        with open(path) as f:
            assert f.read() == f'process {os.getpid()}, testing'
