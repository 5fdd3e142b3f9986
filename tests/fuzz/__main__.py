"""The long sweep: ``python -m tests.fuzz --budget 600`` runs seeds over every op until the
budget is spent and prints the table, then one repro line per (function, category).

``--only NAME --seed N`` reruns one call and prints its findings; ``--list`` prints every
finding rather than one per (function, category).
"""
import argparse
import os
import sys
import time

from .sweep import sweep, table


def main(argv=None):
    p = argparse.ArgumentParser(prog='python -m tests.fuzz', description=__doc__)
    p.add_argument('--budget', type=float, default=600.0, help='seconds (default 600)')
    p.add_argument('--seeds', type=int, default=1000, help='most seeds per function')
    p.add_argument('--first-seed', type=int, default=0)
    p.add_argument('--seed', type=int, help='run only this seed')
    p.add_argument('--only', action='append', help='function name (repeatable)')
    p.add_argument('--timeout', type=float, default=10.0, help='seconds before a call hangs')
    p.add_argument('--list', action='store_true', help='print every finding')
    p.add_argument('--dtypes', help='draw tensors of only these dtypes (comma-separated)')
    p.add_argument('--shapes', choices=('narrow', 'wide', 'large'), default='narrow',
                   help="the shapes drawn: the first CI sweep's, the second's, or rows past "
                        "16 elements")
    a = p.parse_args(argv)
    if a.dtypes:  # (read by generate.py, imported in the workers)
        os.environ['EMBER_FUZZ_DTYPES'] = a.dtypes
    if a.shapes != 'narrow':  # (the workers fork from here, and keep it)
        from . import generate
        generate.SHAPES = {'wide': generate.WIDE_SHAPES, 'large': generate.LARGE_SHAPES}[a.shapes]
    seeds = [a.seed] if a.seed is not None else range(a.first_seed, a.first_seed + a.seeds)
    t0 = time.monotonic()

    def progress(seed, calls, findings):
        print(f'  seed {seed}: {calls} calls, {len(findings)} findings, '
              f'{time.monotonic() - t0:.0f} s', file=sys.stderr, flush=True)

    tally = {}
    findings, calls, names = sweep(seeds, only=a.only, timeout=a.timeout, budget=a.budget,
                                   progress=progress, tally=tally)
    print(table(findings, calls, len(names), tally))
    print()
    seen = set()
    for f in sorted(findings, key=lambda f: (f.category, f.target, f.seed)):
        if not a.list and (f.target, f.category) in seen:
            continue
        seen.add((f.target, f.category))
        print(f'[{f.category}] {f.target} seed={f.seed}: {f.detail}\n    {f.repro()}')


if __name__ == '__main__':
    main()
