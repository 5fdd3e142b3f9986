"""Exception classes the differential fuzzer found wrong (issue 15), functions a-l: each bad
call runs on ember and torch (``tests.oracle.oracle.check``), which must raise the same
class with the same message.
"""
import numpy as np
import pytest

from tests.oracle.oracle import check

R = np.random.default_rng(151)


def m(*shape):
    return R.standard_normal(shape)


def same_error(fn, *args):
    check(fn, *args, grad=False, match_message=True)


# -- torch's parser on a list of ints: the first element decides the message --------------
@pytest.mark.parametrize('k', [(True, 1), [1.5, 1], (1, 1.5), [1, None], ('a', 1), 1.5,
                               (np.float64(1.5), 1)])
def test_int_list_messages(k):
    same_error(lambda T, x: T.nn.functional.avg_pool2d(x, k), m(1, 1, 4, 4))
    same_error(lambda T, x: T.nn.functional.avg_pool2d(x, 2, stride=k), m(1, 1, 4, 4))


# -- nn.functional's Python functions: the C op they call parses its arguments first ------
@pytest.mark.parametrize('args', [(2, True, 3), (1.0, 1.5), (1.5, 1.5), (1.0, 1, 0, 1, None),
                                  (-3, 0, 1, 'valid', 2)])
def test_fold_parses_as_col2im(args):
    same_error(lambda T, x: T.nn.functional.fold(x, *args), m(1, 3))
    same_error(lambda T, x: T.nn.functional.fold(x, *args), m(1, 2, 3, 3))


@pytest.mark.parametrize('n', [1, 2, 3])
@pytest.mark.parametrize('args', [(2, 1.5), (2, 3, True), (1.0, 2, 1, True), (2, True, False)])
def test_lp_pool_parses_as_avg_pool(n, args):
    f = lambda T, x: getattr(T.nn.functional, f'lp_pool{n}d')(x, *args)  # noqa: E731
    same_error(f, m(3))
    same_error(f, m(2, 3, 3))


def test_lp_pool_power_error_comes_first():
    x = np.array([[[1, 2, 3]]])
    same_error(lambda T, x: T.nn.functional.lp_pool1d(x, -1, 1.5), x)


@pytest.mark.parametrize('ignore_index', ['sum', None, 1.5])
def test_cross_entropy_parses_ignore_index(ignore_index):
    same_error(lambda T, x, y: T.nn.functional.cross_entropy(x, y, None, -100, ignore_index),
               m(2, 3), m(3, 3))


def test_adaptive_max_pool1d_with_indices_output_size():
    same_error(lambda T, x: T.nn.functional.adaptive_max_pool1d_with_indices(x, 1.5), m(3))
    same_error(lambda T, x: T.nn.functional.adaptive_max_pool1d_with_indices(x, False),
               np.zeros((2, 0)))
