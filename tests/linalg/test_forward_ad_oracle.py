"""Forward-mode AD through the new linear-algebra functions: ember derives every tangent
from the op's backward (DESIGN: forward-mode AD), so these check the derivation against
torch's forward formulas -- and against central differences where torch's formula is off
(triangular_solve and cholesky_inverse ignore that only a triangle is read) or missing
(ormqr)."""
import numpy as np
import pytest

from .helpers import arr, torch, ember, wellcond, pytestmark  # noqa: F401
from ..oracle.test_forward_ad import _dual_result

AGREE = [
    lambda T, x, y: T.linalg.lu_factor(x).LU,
    lambda T, x, y: T.linalg.lu_factor_ex(x).LU,
    lambda T, x, y: T.linalg.lu(x).U,
    lambda T, x, y: T.lu_unpack(*T.linalg.lu_factor(x)).L,
    lambda T, x, y: T.linalg.lu_solve(*T.linalg.lu_factor(x), y),
    lambda T, x, y: T.linalg.lu_solve(*T.linalg.lu_factor(x), y, adjoint=True, left=False),
    lambda T, x, y: T.linalg.solve_triangular(x, y, upper=True),
    lambda T, x, y: T.linalg.solve_triangular(x, y, upper=False, left=False),
    lambda T, x, y: T.linalg.matrix_exp(x),
    lambda T, x, y: T.linalg.eigvals(x),
    lambda T, x, y: T.linalg.householder_product(x, y[:, 0]),
    lambda T, x, y: T.cholesky_solve(y, T.linalg.cholesky(x @ x.mT)),
    lambda T, x, y: T.linalg.inv_ex(x).inverse,
    lambda T, x, y: T.linalg.solve_ex(x, y).result,
    lambda T, x, y: T.linalg.cholesky_ex(x @ x.mT).L,
    lambda T, x, y: T.linalg.cond(x),
    lambda T, x, y: T.linalg.vander(x[0]),
]

PRIMALS = [wellcond(3, 3, seed=1), arr(3, 3, seed=2)]
TANGENTS = [arr(3, 3, seed=3), arr(3, 3, seed=4)]


@pytest.mark.parametrize('k', range(len(AGREE)))
def test_tangents_match_torch(k):
    e = _dual_result(ember, AGREE[k], PRIMALS, TANGENTS)
    t = _dual_result(torch, AGREE[k], PRIMALS, TANGENTS)
    np.testing.assert_allclose(np.asarray(e[0]._data), t[0].numpy(), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(e[1]._data), t[1].numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize('fn', [
    lambda T, x, y: T.triangular_solve(y, x).solution,
    lambda T, x, y: T.cholesky_inverse(T.linalg.cholesky(x @ x.mT)),
    lambda T, x, y: T.ormqr(x, y[:, 0], y, left=False, transpose=True)])
def test_tangents_match_central_differences(fn):
    e = _dual_result(ember, fn, PRIMALS, TANGENTS)
    h = 1e-6

    def at(s):
        return fn(torch, *[torch.tensor(p + s * h * d) for p, d in zip(PRIMALS, TANGENTS)])
    fd = ((at(1) - at(-1)) / (2 * h)).numpy()
    np.testing.assert_allclose(np.asarray(e[1]._data), fd, rtol=1e-6, atol=1e-8)
