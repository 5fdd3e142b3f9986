"""Runs many generated calls in a worker process, so a hang or a crash is a finding.

The parent hands the worker one (target, seed) at a time and waits ``timeout`` seconds for
its findings; a worker that does not answer is killed (the call is a hang), one that dies is
a crash, and a fresh worker continues with the next call. Ember runs first and the worker
says when it has answered, so a worker that dies or hangs in torch's half of the call is
torch's crash (reported apart, not gated). ``sweep`` returns every finding;
``table`` prints the counts by category (calls and distinct functions) and, given the
sweep's ``tally``, the share of the calls torch rejects on which ember raises torch's class.
"""
import multiprocessing as mp
import os
import time
from collections import defaultdict
from dataclasses import dataclass

from .compare import CATEGORIES, CRASH, HANG, REJECTED, TORCH_CRASH, outcome


@dataclass
class Finding:
    """One call that differs: where, how, and the one-line repro."""
    target: str
    seed: int
    category: str
    detail: str
    call: str

    def repro(self):
        return (f'python -m tests.fuzz --only {self.target!r} --seed {self.seed}   '
                f'# {self.call[:300]}')


def _worker(conn):
    import faulthandler
    faulthandler.disable()  # (a crash is a finding here, not a traceback on the parent's tty)
    os.environ.setdefault('OMP_NUM_THREADS', '1')
    import numpy as np
    import torch

    from .compare import check
    from .generate import generate
    from .targets import all_targets
    torch.set_num_threads(1)
    np.seterr(all='ignore')
    targets = {t.name: t for t in all_targets()}
    conn.send(sorted(targets))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        name, seed = msg
        t = targets[name]
        call = generate(t, seed)
        if call is None:
            conn.send(('skip', []))
            continue
        desc = call.describe()
        conn.send(('start', desc))
        try:
            found = check(t, call, ember_done=lambda: conn.send(('ember done', None)))
        except Exception as e:  # noqa: BLE001 - a bug in the comparison: report, go on
            found = [('fuzzer error', f'{type(e).__name__}: {e}')]
        conn.send(('done', found))


class Worker:
    """A worker process (fork: it inherits the imported modules)."""

    def __init__(self):
        ctx = mp.get_context('fork')
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.names = self.conn.recv()

    def close(self, kill=False):
        if kill:
            self.proc.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()


def sweep(seeds, only=None, timeout=10.0, budget=None, progress=None, tally=None):
    """Runs ``seeds`` (an iterable of ints) over every target (or those named in ``only``);
    with ``budget`` seconds, stops starting new calls when it is spent. Returns (findings,
    calls, names). A ``tally`` dict gets 'rejected' (calls torch rejects) and 'matched'
    (those on which ember raises torch's class) added to it."""
    if tally is not None:
        tally.setdefault('rejected', 0)
        tally.setdefault('matched', 0)
    start = time.monotonic()
    w = Worker()
    names = [n for n in w.names if only is None or n in only]
    findings, calls = [], 0
    try:
        for seed in seeds:
            for name in names:
                if budget is not None and time.monotonic() - start > budget:
                    return findings, calls, names
                w.conn.send((name, seed))
                kind, payload = w.conn.recv()
                if kind == 'skip':
                    continue
                desc = payload
                calls += 1
                deadline = time.monotonic() + timeout
                kind, found = 'start', None
                while kind != 'done' and w.conn.poll(max(0.0, deadline - time.monotonic())):
                    try:
                        kind, found = w.conn.recv()
                    except EOFError:
                        break
                if kind != 'done' or found is None:
                    dead = not w.proc.is_alive()
                    cat = TORCH_CRASH if kind == 'ember done' else CRASH if dead else HANG
                    findings.append(Finding(name, seed, cat, f'no answer in {timeout} s', desc))
                    w.close(kill=True)
                    w = Worker()
                    continue
                rejected, matched = outcome(found)
                if tally is not None:
                    tally['rejected'] += rejected
                    tally['matched'] += matched
                for cat, detail in found:
                    if cat != REJECTED:
                        findings.append(Finding(name, seed, cat, detail, desc))
            if progress:
                progress(seed, calls, findings)
    finally:
        w.close()
    return findings, calls, names


def table(findings, calls, nfuncs, tally=None):
    """The summary table as text: calls and distinct functions per category, and with the
    sweep's ``tally`` the class-match line (issue 15's bar: torch's exception class on the
    calls torch rejects)."""
    by = defaultdict(lambda: (set(), set()))
    for f in findings:
        by[f.category][0].add((f.target, f.seed))
        by[f.category][1].add(f.target)
    lines = [f'{calls} calls over {nfuncs} functions',
             f'{"":52s} {"calls":>7s} {"functions":>10s}']
    for cat in CATEGORIES + sorted(set(by) - set(CATEGORIES)):
        c, fns = by[cat]
        lines.append(f'{cat:52s} {len(c):7d} {len(fns):10d}')
    if tally and tally.get('rejected'):
        r, m = tally['rejected'], tally['matched']
        lines.append(f'torch rejects {r} calls; ember raises torch\'s exception class on {m} '
                     f'({100 * m / r:.1f} %)')
    return '\n'.join(lines)
