"""Shared pieces of the ember.linalg oracle tests: the oracle itself, well-conditioned
inputs, and gradcheck/gradgradcheck run on both libraries."""
import numpy as np
import pytest

from ..oracle.oracle import check, arr, torch  # noqa: F401  (re-exported)
import ember  # noqa: E402

# torch warns that its older names (torch.lu, torch.lu_solve, triangular_solve) are deprecated
pytestmark = pytest.mark.filterwarnings('ignore::UserWarning')

FLOAT = [np.float32, np.float64]
ALL = [np.float32, np.float64, np.complex64, np.complex128]


def wellcond(*shape, seed=0, dtype=np.float64):
    """A (batch of) square matrices dominated by their diagonal: far from singular."""
    a = arr(*shape, seed=seed, dtype=dtype)
    n = shape[-1]
    return (a + 2 * n * np.eye(n)).astype(dtype)


def spd(*batch, n=3, seed=0, dtype=np.float64):
    a = arr(*batch, n, n, seed=seed, dtype=dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def gradchecks(fn, *xs, gradgrad=True, **kw):
    """gradcheck (and gradgradcheck) of ``fn(lib, *tensors)`` in ember, and torch's on the
    same function as the oracle that the function is differentiable as checked."""
    for lib in (torch, ember):
        ts = [lib.tensor(x, requires_grad=True) for x in xs]
        f = (lambda *t: fn(lib, *t))
        assert lib.autograd.gradcheck(f, ts, **kw), lib.__name__
        if gradgrad:
            assert lib.autograd.gradgradcheck(f, ts, **kw), lib.__name__


def same_linalg_error(fn, *xs):
    """torch raises its private ``_LinAlgError``, ember ``ember.linalg.LinAlgError``; both
    are RuntimeErrors with the same message."""
    with pytest.raises(torch.linalg.LinAlgError) as t:
        fn(torch, *[torch.tensor(x) for x in xs])
    with pytest.raises(ember.linalg.LinAlgError) as e:
        fn(ember, *[ember.tensor(x) for x in xs])
    assert isinstance(e.value, RuntimeError)
    assert str(e.value) == str(t.value)


@pytest.fixture(params=['scipy', 'numpy'])
def kernels(request, monkeypatch):
    """Runs a test with scipy's LAPACK kernels and with ember's NumPy ones."""
    if request.param == 'numpy':
        from ember._ops import _scipy
        monkeypatch.setitem(_scipy._modules, 'linalg.lapack', None)
    return request.param
