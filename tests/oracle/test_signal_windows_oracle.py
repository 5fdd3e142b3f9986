"""``torch.signal.windows`` against torch: every window, symmetric and periodic, lengths 0-9,
float32 and float64, its parameters, ``requires_grad`` (the history and its gradients), and
torch's ValueErrors and TypeErrors."""
import pytest

from tests.oracle.oracle import check

WINDOWS = ['bartlett', 'blackman', 'cosine', 'exponential', 'gaussian', 'hamming', 'hann',
           'kaiser', 'nuttall']


def W(T):
    import importlib
    return importlib.import_module(f'{T.__name__}.signal.windows')


@pytest.mark.parametrize('name', WINDOWS)
@pytest.mark.parametrize('M', [0, 1, 2, 3, 6, 9])
@pytest.mark.parametrize('sym', [True, False])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_values(name, M, sym, dtype):
    check(lambda T: getattr(W(T), name)(M, sym=sym, dtype=getattr(T, dtype)))


@pytest.mark.parametrize('call', [
    lambda T: W(T).exponential(7, tau=2.5), lambda T: W(T).exponential(7, center=1.5, sym=False),
    lambda T: W(T).exponential(1, center=1.0, sym=False),
    lambda T: W(T).gaussian(8, std=0.7), lambda T: W(T).kaiser(8, beta=3.0, sym=False),
    lambda T: W(T).general_cosine(7, a=[0.5, 0.3, 0.2]),
    lambda T: W(T).general_cosine(6, a=(1.0,), sym=False),
    lambda T: W(T).general_hamming(9, alpha=0.6), lambda T: W(T).hann(5, dtype=T.float64),
])
def test_parameters(call):
    check(call)


@pytest.mark.parametrize('name', WINDOWS)
def test_requires_grad_keeps_the_history(name):
    check(lambda T: getattr(W(T), name)(6, requires_grad=True, dtype=T.float64) * 1)


def test_default_dtype():
    def f(T):
        T.set_default_dtype(T.float64)
        try:
            return W(T).hann(4)
        finally:
            T.set_default_dtype(T.float32)
    check(f)


@pytest.mark.parametrize('call', [
    lambda T: W(T).gaussian(-1), lambda T: W(T).gaussian(4, std=0),
    lambda T: W(T).exponential(4, tau=0), lambda T: W(T).exponential(4, center=1.0),
    lambda T: W(T).kaiser(4, beta=-1), lambda T: W(T).general_cosine(4, a=3),
    lambda T: W(T).general_cosine(4, a=[]), lambda T: W(T).hann(4, dtype=T.int64),
    lambda T: W(T).hann(4, layout=T.sparse_coo), lambda T: W(T).cosine(3, dtype=T.complex64),
    lambda T: W(T).blackman(3, dtype=T.float16), lambda T: W(T).nuttall(-2),
    lambda T: W(T).hann(3, True), lambda T: W(T).bartlett(-3, dtype=T.int32),
])
def test_errors(call):
    check(call, match_message=True)
