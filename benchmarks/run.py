"""ember vs torch, side by side in one process, one thread each.

    python benchmarks/run.py                     # every workload
    python benchmarks/run.py chain_fwd_bwd chain_nograd --repeat 30
    python benchmarks/run.py 'chain*' --quick    # names may be shell-style patterns
    python benchmarks/run.py chain_fwd_bwd --profile   # cProfile of ember's side
    python benchmarks/run.py --list

Prints one line per workload: median time per call for ember and torch, their ratio
(ember/torch, lower is better) and the workload's target ratio with PASS or MISS. The
workloads themselves live in ``workloads.py``.
"""
import os
import sys

# BLAS and OpenMP read their thread counts once, when the library loads, so they are set
# before anything imports numpy or torch. A process that started with other values (or that
# may have imported numpy already, e.g. from sitecustomize) re-executes itself with them.
_THREAD_VARS = ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS',
                'VECLIB_MAXIMUM_THREADS', 'NUMEXPR_NUM_THREADS')


def _threads_arg(argv):
    """The ``--threads N`` value (1 by default), read before argparse: it must be known
    before numpy loads."""
    for i, a in enumerate(argv):
        if a == '--threads' and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith('--threads='):
            return a.split('=', 1)[1]
    return '1'


THREADS = _threads_arg(sys.argv[1:])
if any(os.environ.get(v) != THREADS for v in _THREAD_VARS):
    os.environ.update({v: THREADS for v in _THREAD_VARS})
    os.execv(sys.executable, sys.orig_argv)  # orig_argv keeps interpreter flags (-X ...)

import argparse  # noqa: E402  (after the thread set-up above, on purpose)
import fnmatch  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import ember  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

try:
    import torch
    torch.set_num_threads(int(THREADS))
    torch.set_num_interop_threads(1)
except ImportError:  # the runner still reports ember's own times without the oracle
    torch = None


def main(argv=None):
    """Parses the command line, runs the chosen workloads and prints the table."""
    opts = _parse(argv)
    if opts.list:
        for w in WORKLOADS.values():
            target = f'target <= {w.target:.2f}' if w.target is not None else ''
            print(f'{w.name:<18} {target:<15} {w.doc}')
        return 0
    chosen = _select(opts.names)
    opts.torch_available = torch is not None
    print(_header(opts))
    print(f'{"workload":<18}{"ember":>11}{"torch":>11}{"ratio":>8}{"target":>10}')
    rows = []
    for w in chosen:
        row = _run_one(w, opts)
        rows.append(row)
        print(_format_row(row), flush=True)
        if opts.verbose and row.get('details'):
            print(row['details'])
    if opts.profile:
        for w in chosen:
            if w.setup is not None:
                _profile(w, opts)
    if opts.json:
        with open(opts.json, 'w') as f:
            json.dump({'env': _env(), 'rows': rows}, f, indent=1)
    missed = [r['name'] for r in rows if r['verdict'] == 'MISS']
    return 1 if (missed and opts.strict) else 0


def _parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('names', nargs='*', help='workloads to run (patterns allowed; default all)')
    p.add_argument('--repeat', type=int, default=15, help='timed batches per library '
                   '(the median is reported; default 15)')
    p.add_argument('--quick', action='store_true', help='fewer, shorter batches: a smoke run')
    p.add_argument('--min-batch', type=float, default=None,
                   help='seconds one timed batch should last (default 0.05, quick 0.01)')
    p.add_argument('--clock', choices=('wall', 'cpu'), default='wall',
                   help='wall: time.perf_counter (default); cpu: time.process_time, which '
                   'ignores time the process spends descheduled on a busy machine')
    p.add_argument('--verbose', '-v', action='store_true',
                   help='spread of the timings, import-time breakdown')
    p.add_argument('--profile', action='store_true',
                   help="cProfile ember's side of each timed workload, per call")
    p.add_argument('--top', type=int, default=25, help='rows of --profile output')
    p.add_argument('--threads', type=int, default=1,
                   help="threads for torch and NumPy's BLAS (default 1)")
    p.add_argument('--json', metavar='FILE', help='also write the results as JSON')
    p.add_argument('--strict', action='store_true', help='exit 1 if a target is missed')
    p.add_argument('--list', action='store_true', help='list the workloads and exit')
    opts = p.parse_args(argv)
    if opts.quick:
        opts.repeat = min(opts.repeat, 5)
    if opts.min_batch is None:
        opts.min_batch = 0.01 if opts.quick else 0.05
    opts.timer = time.process_time if opts.clock == 'cpu' else time.perf_counter
    return opts


def _select(names):
    if not names:
        return list(WORKLOADS.values())
    chosen = []
    for pat in names:
        hits = [w for n, w in WORKLOADS.items() if fnmatch.fnmatchcase(n, pat)]
        if not hits:
            sys.exit(f'no workload matches {pat!r}; known: {", ".join(WORKLOADS)}')
        chosen += [w for w in hits if w not in chosen]
    return chosen


def _env():
    return {'ember': ember.__version__, 'torch': torch.__version__ if torch else None,
            'numpy': np.__version__, 'python': platform.python_version(),
            'machine': platform.machine(), 'torch_threads': torch.get_num_threads()
            if torch else None, 'blas_threads': _blas_threads(),
            'native_kernels': _native_enabled()}


def _native_enabled():
    from ember.backends import native
    return native.enabled


def _blas_threads():
    """The thread count NumPy's OpenBLAS reports, so the header shows the setting took
    effect; the environment variable's value where the library cannot be asked."""
    import ctypes
    import glob
    libs = os.path.dirname(np.__file__) + '.libs'
    for path in glob.glob(os.path.join(libs, '*openblas*')):
        lib = ctypes.CDLL(path)  # the copy NumPy already loaded: dlopen shares it
        for sym in ('scipy_openblas_get_num_threads64_', 'openblas_get_num_threads64_',
                    'openblas_get_num_threads'):
            f = getattr(lib, sym, None)
            if f is not None:
                return f()
    return os.environ['OPENBLAS_NUM_THREADS'] + ' (env)'


def _header(opts):
    e = _env()
    return (f"ember {e['ember']} vs torch {e['torch']} | numpy {e['numpy']} | "
            f"python {e['python']} | threads: torch {e['torch_threads']}, BLAS "
            f"{e['blas_threads']} | native kernels "
            f"{'on' if e['native_kernels'] else 'off (EMBER_NATIVE=1: on)'} | "
            f"median of {opts.repeat} batches >= "
            f"{opts.min_batch * 1e3:g} ms, {opts.clock} clock")


# -- timing --------------------------------------------------------------------------------
def _run_one(w, opts):
    """Measures one workload; returns its row as a dict."""
    if w.measure is not None:
        m = w.measure(opts)
        return _row(w, m.ember, m.baseline, m.note, m.details)
    runs = {'ember': w.setup(ember)}
    if torch is not None:
        runs['torch'] = w.setup(torch)
    note = _check_same(runs)
    batches = {lib: _calibrate(fn, opts.min_batch, opts.timer) for lib, fn in runs.items()}
    samples = {lib: [] for lib in runs}
    order = list(runs.items())
    for _ in range(opts.repeat):
        # Interleaved batches, so slow drift or a noisy neighbour affects both libraries, and
        # the order flips each round so neither always runs right after the other.
        for lib, fn in order:
            samples[lib].append(_time_batch(fn, batches[lib], opts.timer))
        order.reverse()
    med = {lib: statistics.median(s) for lib, s in samples.items()}
    if w.ops > 1:
        per_op = ', '.join(f'{lib} {_fmt_time(t / w.ops)}' for lib, t in med.items())
        note = (note + '; ' if note else '') + f'per op: {per_op}'
    details = '\n'.join(f'    {lib:<6} min {_fmt_time(min(s))}  median {_fmt_time(med[lib])}  '
                        f'max {_fmt_time(max(s))}  ({batches[lib]} calls/batch)'
                        for lib, s in samples.items())
    return _row(w, med['ember'], med.get('torch'), note, details)


def _calibrate(fn, min_batch, clock):
    """Calls per batch so that one batch lasts about ``min_batch`` seconds (after warm-up)."""
    calls = 0
    t0 = clock()
    while calls < 3 or clock() - t0 < min_batch:
        fn()
        calls += 1
    per_call = (clock() - t0) / calls
    return max(1, math.ceil(min_batch / per_call))


def _time_batch(fn, n, clock):
    """Seconds per call, averaged over ``n`` back-to-back calls. The garbage collector stays
    on (its cost is part of running a graph of Python objects), but starts each batch empty."""
    gc.collect()
    t0 = clock()
    for _ in range(n):
        fn()
    return (clock() - t0) / n


def _check_same(runs):
    """'' if ember and torch computed the same values, else a warning for the row's note."""
    if 'torch' not in runs:
        return ''
    got = {lib: fn() for lib, fn in runs.items()}
    if got['ember'] is None or got['torch'] is None:
        return ''
    a, b = (_as_numpy(got[lib]) for lib in ('ember', 'torch'))
    if a.shape != b.shape or not np.allclose(a, b, rtol=1e-3, atol=1e-5):
        return 'WARNING: ember and torch results differ'
    return ''


def _as_numpy(x):
    return np.asarray(x.detach().numpy() if hasattr(x, 'detach') else x)


def _row(w, t_ember, t_base, note='', details=''):
    ratio = t_ember / t_base if t_base else None
    if ratio is None or w.target is None:
        verdict = ''
    else:
        verdict = 'PASS' if ratio <= w.target else 'MISS'
    return {'name': w.name, 'ember_s': t_ember, 'baseline_s': t_base, 'ratio': ratio,
            'target': w.target, 'verdict': verdict, 'note': note, 'details': details}


def _format_row(r):
    base = _fmt_time(r['baseline_s']) if r['baseline_s'] else 'n/a'
    ratio = f"{r['ratio']:.2f}" if r['ratio'] is not None else '-'
    target = f"<= {r['target']:.2f}" if r['target'] is not None else ''
    line = (f"{r['name']:<18}{_fmt_time(r['ember_s']):>11}{base:>11}{ratio:>8}{target:>10}"
            f"  {r['verdict']:<4}")
    return line + (f"  ({r['note']})" if r['note'] else '')


def _fmt_time(s):
    for unit, scale in (('s', 1.0), ('ms', 1e-3), ('us', 1e-6)):
        if s >= scale:
            return f'{s / scale:.3g} {unit}' if s < 100 * scale else f'{s / scale:.0f} {unit}'
    return f'{s * 1e9:.0f} ns'


# -- profiling -----------------------------------------------------------------------------
def _profile(w, opts):
    """cProfile of ember's callable, normalised per workload call (and per op)."""
    import cProfile
    import pstats

    fn = w.setup(ember)
    n = _calibrate(fn, opts.min_batch * 4, time.perf_counter)
    prof = cProfile.Profile(opts.timer)     # (--clock cpu: CPU time, steadier when busy)
    prof.enable()
    for _ in range(n):
        fn()
    prof.disable()
    stats = pstats.Stats(prof).stats
    total = sum(v[2] for v in stats.values())
    print(f'\n== profile: {w.name} (ember, {n} calls, {w.ops} ops per call; '
          f'times per call, under cProfile so inflated) ==')
    print(f'{"tottime":>10}{"%":>6}{"cumtime":>10}{"calls/call":>11}  function')
    rows = sorted(stats.items(), key=lambda kv: kv[1][2], reverse=True)[:opts.top]
    for (path, line, func), (_, ncalls, tt, ct, _) in rows:
        print(f'{_fmt_time(tt / n):>10}{100 * tt / total:>5.1f}%{_fmt_time(ct / n):>10}'
              f'{ncalls / n:>11.4g}  {_where(path, line, func)}')
    print(f'{_fmt_time(total / n):>10} total per call, {_fmt_time(total / n / w.ops)} per op')


def _where(path, line, func):
    if path == '~':  # a C function
        return func
    parts = path.replace(os.sep, '/').split('/')
    short = '/'.join(parts[parts.index('ember'):]) if 'ember' in parts else parts[-1]
    return f'{func} ({short}:{line})'


if __name__ == '__main__':
    sys.exit(main())
