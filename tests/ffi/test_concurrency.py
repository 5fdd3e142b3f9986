"""Several processes and one C extension: two that load it at once build it once and both
use it, and a build lock whose holder was killed does not block the next load (the lock is
the C++ extensions' own, held by the operating system)."""
import signal
import textwrap
import time

from tests.cpp_extension.test_concurrency import HOLD, TIMEOUT, _start, _wait_for

LOAD = textwrap.dedent('''
    import os, sys, time
    import ember
    from ember.utils.cpp_extension import _lock
    from ember.utils.ffi import load
    _lock.NOTICE_AFTER = 0.2
    folder, build, ready, go = sys.argv[1:5]
    open(ready, 'w').close()
    while not os.path.exists(go):
        time.sleep(0.005)
    print('loading', flush=True)
    lib = load('shared_c_ext', folder + '/inc.h', folder + '/inc.c', build_directory=build,
               verbose=True)
    t = ember.arange(3)
    lib.inc(t)
    print('RESULT', t.tolist(), flush=True)
''')


def _sources(folder):
    (folder / 'inc.h').write_text('int inc(EmberTensor *t);\n')
    (folder / 'inc.c').write_text(
        '#include <ember/ember_c.h>\n'
        'int inc(EmberTensor *t) {\n'
        '  for (int64_t i = 0; i < t->numel; ++i) ember_set(t, i, ember_get(t, i) + 1);\n'
        '  return 1;\n'
        '}\n')


def _loader(tmp_path, tag):
    ready = tmp_path / f'ready-{tag}'
    return _start(LOAD, tmp_path, tmp_path / 'build', ready, tmp_path / 'go'), ready


def test_two_processes_build_one_extension_once(toolchain, tmp_path):
    _sources(tmp_path)
    procs = [_loader(tmp_path, tag) for tag in 'ab']
    _wait_for([ready for _, ready in procs])
    (tmp_path / 'go').touch()  # both call load now
    outs = [proc.communicate(timeout=TIMEOUT) for proc, _ in procs]
    for (proc, _), (out, err) in zip(procs, outs):
        assert proc.returncode == 0, err
        assert 'RESULT [1, 2, 3]' in out
    compiled = [sum(' -c ' in line and 'inc.c' in line for line in out.splitlines())
                for out, _ in outs]
    assert sorted(compiled) == [0, 1]  # one built; the other waited, then found the build
    assert sum('is up to date' in out for out, _ in outs) == 1


def test_a_killed_lock_holder_does_not_block_the_next_load(toolchain, tmp_path):
    _sources(tmp_path)
    (tmp_path / 'build').mkdir()
    holder = _start(HOLD, tmp_path / 'build' / 'lock', 'building, then killed')
    try:
        assert holder.stdout.readline().strip() == 'locked'
        waiter, ready = _loader(tmp_path, 'w')
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
    assert 'RESULT [1, 2, 3]' in out
    assert f'held by process {holder.pid}, building, then killed' in err
