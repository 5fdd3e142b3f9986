"""The window factories (``hann_window`` ... ``kaiser_window``) against torch: values in each
float dtype, periodic and symmetric, the edge lengths 0-2, ``requires_grad``, and torch's
errors for a negative length, a non-float dtype, a sparse layout and bad argument types."""
import pytest

from tests.oracle.oracle import check

WINDOWS = ['hann_window', 'hamming_window', 'blackman_window', 'bartlett_window',
           'kaiser_window']


@pytest.mark.parametrize('name', WINDOWS)
@pytest.mark.parametrize('length', [0, 1, 2, 3, 8, 17])
@pytest.mark.parametrize('periodic', [True, False])
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
def test_values(name, length, periodic, dtype):
    check(lambda T: getattr(T, name)(length, periodic, dtype=getattr(T, dtype)))


@pytest.mark.parametrize('name', WINDOWS)
def test_default_form_and_requires_grad(name):
    check(lambda T: getattr(T, name)(6))
    check(lambda T: getattr(T, name)(6, requires_grad=True))
    check(lambda T: getattr(T, name)(6, periodic=False, dtype=T.float64, requires_grad=True))


def test_parameters():
    check(lambda T: T.hamming_window(7, True, 0.5))
    check(lambda T: T.hamming_window(7, False, 0.6, 0.3, dtype=T.float64))
    check(lambda T: T.kaiser_window(7, True, 5.0))
    check(lambda T: T.kaiser_window(6, False, 0.0))
    check(lambda T: T.kaiser_window(6, False, -2.0, dtype=T.float64))


@pytest.mark.parametrize('name', WINDOWS)
@pytest.mark.parametrize('call', [
    lambda T, f: f(-1),
    lambda T, f: f(3, dtype=T.int64),
    lambda T, f: f(3, dtype=T.bool),
    lambda T, f: f(3, dtype=T.complex64),
    lambda T, f: f(3, layout=T.sparse_coo),
    lambda T, f: f(3.0),
    lambda T, f: f(True),
    lambda T, f: f('3'),
], ids=['negative', 'int64', 'bool', 'complex', 'sparse', 'float-length', 'bool-length',
        'str'])
def test_errors(name, call):
    check(lambda T: call(T, getattr(T, name)), match_message=True)


def test_keyword_only_past_the_overloads():
    # torch has no overload taking ``beta`` without ``periodic`` before it
    check(lambda T: T.kaiser_window(4, beta=2.0), match_message=True)
    check(lambda T: T.hamming_window(4, alpha=0.5), match_message=True)


@pytest.mark.parametrize('name', WINDOWS)
@pytest.mark.parametrize('length', [0, 1])
def test_complex_dtype_of_the_trivial_lengths(name, length):
    # (torch's dtype check lets complex through: only lengths 0 and 1 then succeed)
    check(lambda T: getattr(T, name)(length, dtype=T.complex64))
