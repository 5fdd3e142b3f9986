"""Findings of the fuzzer on fresh seeds 1000-1019 (issue 15), each pinned against torch."""
import pytest

from tests.oracle.oracle import check


@pytest.mark.parametrize('call', [
    # a window whose p-th powers sum to 0: torch's relu masks the infinite derivative of
    # the root (ember multiplied the gradient by relu's mask, inf * 0 = nan)
    lambda T: T.nn.functional.lp_pool1d(
        T.tensor([[1., -1., 0., 2., 1., 3.]], dtype=T.float64, requires_grad=True), 3, 3),
    lambda T: T.nn.functional.lp_pool2d(
        T.tensor([[[[1., -1.], [0., 0.]]]], dtype=T.float64, requires_grad=True), 3, 2),
], ids=['lp_pool1d', 'lp_pool2d'])
def test_lp_pool_of_a_zero_window(call):
    check(call)


def _backward_of(op, grad):
    def run(T):
        x = T.tensor([0.0, -1.0, 2.0, 0.5], requires_grad=True)
        y = op(T, x)
        y.backward(T.tensor(grad))
        return x.grad
    return run


INF, NAN = float('inf'), float('nan')


@pytest.mark.parametrize('op', [
    lambda T, x: x.relu(), lambda T, x: T.nn.functional.threshold(x, 0.25, 9.0),
    lambda T, x: x.sign(), lambda T, x: x.round(decimals=1), lambda T, x: x.pow(0),
    lambda T, x: T.div(x, 2.0, rounding_mode='floor'),
], ids=['relu', 'threshold', 'sign', 'round_decimals', 'pow0', 'div_floor'])
def test_zero_gradients_stay_zero_under_inf_and_nan(op):
    """Where an op does not vary with its input the gradient is zero, whatever arrives (torch
    selects or makes zeros; ember had multiplied: inf * 0 = nan)."""
    check(_backward_of(op, [INF, NAN, -INF, 1.0]), grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.ones(2, 3, dtype=T.int64).index_add(-1, T.tensor([1]), T.tensor([-3, 3, 1]),
                                                    alpha=-1),
    lambda T: T.ones(2, 3).index_add(1, T.tensor([1]), T.tensor([1., 2.])),
    lambda T: T.ones(2, 3).index_copy(1, T.tensor([1]), T.tensor([1., 2.])),
], ids=['index_add_last', 'index_add_1', 'index_copy'])
def test_index_add_source_of_fewer_dims(call):
    """A source with fewer dims than the indexing dim: torch's RuntimeError (ember let
    Python's IndexError out)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('args', [(0, 5, -1), (0, 1, -1), (0, -1, -2), (0, 2, 5), (0, 5, 1),
                                  (1, -5, 1), (0, 1, 2)], ids=str)
def test_narrow_checks_the_length_first(args):
    check(lambda T: T.ones(3, 4).narrow(*args), grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T._softmax(T.ones(2, 3), 5, True),
    lambda T: T._log_softmax(T.ones(2, 3), -3, True),
    lambda T: T._softmax(T.ones(2, 3, dtype=T.int64), 1, True),
    lambda T: T._log_softmax(T.ones(2, 3), 1, False),
], ids=['softmax_dim', 'log_softmax_dim', 'softmax_flag', 'log_softmax_ok'])
def test_private_softmax_wraps_the_dim_first(call):
    """aten's _softmax/_log_softmax (now in the fuzzer's sweep) wrap the dim before refusing
    half_to_float on the CPU."""
    check(call, grad=False, match_message=True)
