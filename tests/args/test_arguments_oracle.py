"""Bad calls of every registered op with a known torch signature give torch's exception.

Generated from the op registry (``ember.overrides.get_overridable_functions``) and the
signature table, never from a chosen list: for each public op, the same bad call runs in
ember and in torch, and the exception class and first line of the message must agree.

The calls: no arguments at all; 40 positional arguments; an ``object()`` where the first
parameter goes; the required arguments plus an unexpected keyword; a string for the first
``int`` parameter (by keyword); an out-of-range ``dim``. Required arguments are filled
from the first overload's types (a 2x3 float tensor, 0, 1, 0.5, False, [0], ...).
"""
import warnings

import pytest

from tests.args.calls import bad_calls, run_both

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed")

CASES = bad_calls()


@pytest.mark.parametrize('case', CASES, ids=[c.id for c in CASES])
def test_bad_call_raises_as_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        ours, theirs = run_both(case)
    assert ours == theirs, f"{case.id}: ember {ours}, torch {theirs}"


def test_most_registered_ops_have_a_signature():
    """The table covers the registry: what stays unchecked is what torch writes in Python
    (no argument parser) and the dunders."""
    from tests.args.calls import registered
    keys = list(registered())
    from ember._ops._args import signatures
    known = [k for k in keys if signatures(k) is not None]
    assert len(known) >= 0.75 * len(keys), (len(known), len(keys))
