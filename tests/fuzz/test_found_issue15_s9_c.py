"""Gated findings of the fuzzer on fresh seeds 3000-3199 and wide-shape seeds 300-399
(issue 15), each pinned against torch."""
import numpy as np
import pytest

from tests.oracle.oracle import check


@pytest.mark.parametrize('call', [
    lambda T: T.ormqr(T.ones(3, 3), T.tensor(1.), T.ones(4, 4)),
    lambda T: T.ormqr(T.ones(3, 3), T.ones(7), T.ones(4, 4), False),
    lambda T: T.ormqr(T.ones(3, 3), T.ones(7), T.ones(3, 3)),
    lambda T: T.ormqr(T.ones(3, 3), T.tensor(1.), T.ones(3, 3)),
], ids=['other_then_0d_tau', 'other_right', 'tau_size', 'tau_0d'])
def test_ormqr_checks_other_before_tau(call):
    """torch checks other's rows against input before tau's length (ember checked tau
    first, and a 0-d tau raised an IndexError where torch names other)."""
    check(call, grad=False, match_message=True)


def test_tensorsolve_refuses_other_with_more_dims():
    """A 1-d A and a 2-d B: torch fails (RuntimeError); ember solved a 1x1 system."""
    check(lambda T: T.linalg.tensorsolve(T.ones(1), T.ones(1, 1)), grad=False)
    check(lambda T: T.linalg.tensorsolve(T.ones(1, 1), T.ones(1)), grad=False)


@pytest.mark.parametrize('dtype', ['int64', 'float32'])
def test_index_put_with_an_empty_result_and_a_0d_index(dtype):
    """The result is empty, so torch checks no bounds; ember's clip turned the 0-d index
    into a NumPy scalar and leaked a TypeError."""
    check(lambda T: T.zeros(2, 3, dtype=getattr(T, dtype)).index_put(
        [T.tensor(-4), T.zeros(2, 0, dtype=T.int64)], T.zeros(1, 0, dtype=getattr(T, dtype))),
        grad=False)
