"""lobpcg's derivative against torch: with A requiring grad, both solve the symmetric part
of A (so one perturbed entry moves both triangles, and the gradient is symmetric), the
graph runs through that symmetrization, and gradcheck/gradgradcheck pass on problems whose
requested eigenvalues are well separated (upstream's test_lobpcg, on fixed inputs)."""
import numpy as np
import pytest

from .helpers import torch, ember

LIBS = [pytest.param(ember, id='ember'), pytest.param(torch, id='torch')]


def _spd(batch, n, seed):
    """A symmetric positive-definite matrix with eigenvalues 1..n (well separated)."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal(batch + (n, n)))
    return (q * np.arange(1.0, n + 1)[..., None, :]) @ np.swapaxes(q, -1, -2)


def _eigenpairs(lib, k, A, largest):
    """upstream's func: lobpcg from the first k unit vectors, each eigenvector's sign fixed by
    its largest entry."""
    X = lib.eye(A.size(-2), k, dtype=A.dtype)
    if A.dim() > 2:
        X = X.expand(list(A.shape[:-1]) + [k])
    D, U = lib.lobpcg(A=A, k=k, X=X, largest=largest)
    _, idx = U.abs().max(-2, keepdim=True)
    return D, U * U.gather(-2, idx).sign()


@pytest.mark.parametrize('lib', LIBS)
@pytest.mark.parametrize('largest', [True, False])
@pytest.mark.parametrize('k,shape', [(1, (6, 6)), (1, (2, 6, 6)), (2, (6, 6)), (3, (9, 9))])
def test_lobpcg_gradcheck(lib, k, shape, largest):
    A = lib.tensor(_spd(shape[:-2], shape[-1], seed=k)).requires_grad_(True)
    assert lib.autograd.gradcheck(lambda A: _eigenpairs(lib, k, A, largest), A,
                                  check_batched_grad=False)
    D, U = _eigenpairs(lib, k, A, largest)
    (D.sum() + U.sum()).backward()
    assert lib.equal(A.grad, A.grad.mT)


@pytest.mark.parametrize('lib', LIBS)
def test_lobpcg_gradgradcheck(lib):
    A = lib.tensor(_spd((), 6, seed=0)).requires_grad_(True)
    rng = np.random.default_rng(1)
    grads = [lib.tensor(rng.random(1)) / 100, lib.tensor(rng.random((6, 1))) / 100]
    assert lib.autograd.gradgradcheck(lambda A: _eigenpairs(lib, 1, A, True), A, grads,
                                      atol=1e-4, check_batched_grad=False)


def test_lobpcg_solves_the_symmetric_part():
    """An unsymmetric A that requires grad: both libraries answer for (A + A^T) / 2, through
    a DivBackward0 node."""
    a = _spd((), 6, seed=3)
    a[0, 1] += 0.5
    got = {}
    for lib in (ember, torch):
        A = lib.tensor(a, requires_grad=True)
        D, U = lib.lobpcg(A, k=1, X=lib.eye(6, 1, dtype=A.dtype))
        got[lib] = D.detach().numpy()
        assert type(D.grad_fn).__name__ == 'LOBPCGAutogradFunctionBackward'
        assert type(D.grad_fn.next_functions[0][0]).__name__ == 'DivBackward0'
    np.testing.assert_allclose(got[ember], got[torch], rtol=1e-10)
    np.testing.assert_allclose(got[ember], np.linalg.eigvalsh((a + a.T) / 2)[-1:], rtol=1e-10)
