"""The short deterministic sweep of the differential fuzzer (issue 15), run in CI.

Every registered op is called with the first ``SEEDS`` generated argument lists on ember and
torch, in a worker process (a hang or crash is a finding, not a frozen run). A finding in a
gated category -- hang, crash, wrong values on finite inputs, wrong gradient, wrong
dtype/shape/structure, silent acceptance of bad input, spurious error -- fails the test
unless ``known.py`` lists its (function, category) with the reason it is left. The long
sweep is ``python -m tests.fuzz --budget 600``.
"""
import os

from tests.fuzz import generate
from tests.fuzz.compare import GATED
from tests.fuzz.known import KNOWN
from tests.fuzz.sweep import sweep, table

SEEDS = int(os.environ.get('EMBER_FUZZ_SEEDS', '12'))
WIDE_SEEDS = int(os.environ.get('EMBER_FUZZ_WIDE_SEEDS', '6'))


def test_every_op_agrees_with_torch_on_generated_calls():
    _sweep_is_clean(range(SEEDS))


def test_every_op_agrees_with_torch_on_wider_shapes(monkeypatch):
    """The same over other shapes (five dims, longer rows, empty middle dims), seeds of
    their own."""
    monkeypatch.setattr(generate, 'SHAPES', generate.WIDE_SHAPES)
    _sweep_is_clean(range(WIDE_SEEDS))


def _sweep_is_clean(seeds):
    tally = {}
    findings, calls, names = sweep(seeds, timeout=20.0, tally=tally)
    assert calls > 5 * len(names)  # nearly every op has a template
    new = [f for f in findings if f.category in GATED and (f.target, f.category) not in KNOWN]
    seen, lines = set(), []
    for f in new:
        if (f.target, f.category) not in seen:
            seen.add((f.target, f.category))
            lines.append(f'[{f.category}] {f.target}: {f.detail}\n    {f.repro()}')
    assert not lines, (table(findings, calls, len(names), tally) + '\n\nNew mismatches with torch '
                       '(fix them, or list them in tests/fuzz/known.py with the reason):\n'
                       + '\n'.join(lines))


def test_every_known_entry_has_a_gated_category_and_a_reason():
    for (target, category), reason in KNOWN.items():
        assert category in GATED and reason.strip(), (target, category)
