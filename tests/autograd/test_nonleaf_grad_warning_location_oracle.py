"""Reading ``.grad`` of a non-leaf tensor warns, as torch, at the line of the program that read
it (not inside the library), so a script's warning output names its own code."""
import warnings

import pytest

import ember
from ..oracle.oracle import torch


@pytest.mark.parametrize('lib', [ember, torch])
def test_warning_points_at_the_reading_line(lib):
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert y.grad is None
    assert [w.filename for w in caught] == [__file__]
    assert 'not a leaf Tensor is being accessed' in str(caught[0].message)
