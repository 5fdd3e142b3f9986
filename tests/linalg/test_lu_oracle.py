"""The LU family and triangular solves against torch: linalg.lu_factor(_ex), linalg.lu,
lu_unpack, linalg.lu_solve, linalg.solve_triangular, linalg.inv_ex/solve_ex/cholesky_ex and
torch's older torch.lu / lu_solve / triangular_solve -- values, named tuples, first and
second derivatives, batch broadcasting, info and errors."""
import numpy as np
import pytest

from .helpers import (check, arr, torch, ember, wellcond, gradchecks, same_linalg_error,
                      kernels, ALL, FLOAT, pytestmark)  # noqa: F401

SHAPES = [(3, 3), (2, 3, 3), (4, 3), (2, 3, 5), (1, 1)]


@pytest.mark.parametrize('dtype', ALL, ids=str)
@pytest.mark.parametrize('shape', SHAPES, ids=str)
def test_lu_factor_lu_unpack(shape, dtype, kernels):
    a = arr(*shape, seed=1, dtype=dtype)
    double = dtype in (np.float64, np.complex128)
    check(lambda T, x: T.linalg.lu_factor(x), a, double=double)
    check(lambda T, x: T.linalg.lu_factor_ex(x), a, double=double)
    check(lambda T, x: T.linalg.lu(x), a, double=double)
    check(lambda T, x: T.lu_unpack(*T.linalg.lu_factor(x)), a, double=double)
    check(lambda T, x: T.lu(x), a)
    check(lambda T, x: x.lu(get_infos=True), a)


def test_lu_unpack_parts_and_named_tuples():
    a = arr(2, 3, 3, seed=2)
    check(lambda T, x: T.lu_unpack(*T.linalg.lu_factor(x), unpack_data=False), a)
    check(lambda T, x: T.lu_unpack(*T.linalg.lu_factor(x), unpack_pivots=False), a)
    for name, fn in [('linalg_lu_factor', lambda T, x: T.linalg.lu_factor(x)),
                     ('linalg_lu_factor_ex', lambda T, x: T.linalg.lu_factor_ex(x)),
                     ('linalg_lu', lambda T, x: T.linalg.lu(x)),
                     ('lu_unpack', lambda T, x: T.lu_unpack(*T.linalg.lu_factor(x))),
                     ('_lu_with_info', lambda T, x: T.lu(x, get_infos=True)),
                     ('linalg_inv_ex', lambda T, x: T.linalg.inv_ex(x)),
                     ('linalg_solve_ex', lambda T, x: T.linalg.solve_ex(x, x)),
                     ('linalg_cholesky_ex', lambda T, x: T.linalg.cholesky_ex(x @ x.mT)),
                     ('triangular_solve', lambda T, x: T.triangular_solve(x, x))]:
        e, t = fn(ember, ember.tensor(a)), fn(torch, torch.tensor(a))
        assert type(e).__name__ == type(t).__name__ == name
        assert repr(type(e)).startswith("<class 'ember.return_types.")
    assert type(ember.lu(ember.tensor(a))) is tuple


@pytest.mark.parametrize('kw', [{}, {'adjoint': True}, {'left': False},
                                {'left': False, 'adjoint': True}], ids=str)
@pytest.mark.parametrize('dtype', ALL, ids=str)
def test_lu_solve(kw, dtype, kernels):
    a = wellcond(2, 3, 3, seed=3, dtype=dtype)
    b = arr(4, 1, 3, 2, seed=4, dtype=dtype)  # batches broadcast
    if not kw.get('left', True):
        b = b.swapaxes(-1, -2)
    double = dtype in (np.float64, np.complex128)
    check(lambda T, x, y: T.linalg.lu_solve(*T.linalg.lu_factor(x), y, **kw), a, b,
          double=double)
    if not kw:
        check(lambda T, x, y: T.lu_solve(y, *T.linalg.lu_factor(x)), a, b)
        check(lambda T, x, y: y.lu_solve(*T.linalg.lu_factor(x)), a, b)


@pytest.mark.parametrize('upper', [True, False])
@pytest.mark.parametrize('left', [True, False])
@pytest.mark.parametrize('unit', [False, True])
@pytest.mark.parametrize('dtype', ALL, ids=str)
def test_solve_triangular(upper, left, unit, dtype, kernels):
    a = wellcond(2, 1, 3, 3, seed=5, dtype=dtype)
    b = arr(3, 3, 2, seed=6, dtype=dtype) if left else arr(3, 2, 3, seed=6, dtype=dtype)
    double = dtype in (np.float64, np.complex128)
    check(lambda T, x, y: T.linalg.solve_triangular(x, y, upper=upper, left=left,
                                                    unitriangular=unit), a, b, double=double)


@pytest.mark.parametrize('upper', [True, False])
@pytest.mark.parametrize('transpose', [False, True])
@pytest.mark.parametrize('unit', [False, True])
@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.complex128], ids=str)
def test_triangular_solve(upper, transpose, unit, dtype, kernels):
    a = wellcond(4, 3, 3, seed=7, dtype=dtype)
    b = arr(2, 1, 3, 2, seed=8, dtype=dtype)
    kw = dict(upper=upper, transpose=transpose, unitriangular=unit)
    check(lambda T, x, y: T.triangular_solve(y, x, **kw), a, b, double=dtype == np.float64)
    check(lambda T, x, y: y.triangular_solve(x, **kw), a, b)


@pytest.mark.parametrize('dtype', ALL, ids=str)
def test_inv_solve_cholesky_ex(dtype, kernels):
    a = wellcond(2, 3, 3, seed=9, dtype=dtype)
    double = dtype in (np.float64, np.complex128)
    check(lambda T, x: T.linalg.inv_ex(x), a, double=double)
    check(lambda T, x, y: T.linalg.solve_ex(x, y), a, arr(2, 3, seed=10, dtype=dtype),
          double=double)
    check(lambda T, x, y: T.linalg.solve_ex(x, y, left=False), a,
          arr(2, 3, seed=10, dtype=dtype), double=double)
    check(lambda T, x: T.linalg.cholesky_ex(x @ x.mH), a, double=double)
    check(lambda T, x: T.linalg.cholesky_ex(x @ x.mH, upper=True), a, double=double)


def _singular_batch():
    z = np.zeros((3, 3, 3))
    z[0] = np.eye(3)
    z[2] = [[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]]
    return z


def test_info_of_singular_and_indefinite(kernels):
    z = _singular_batch()
    for fn in [lambda T, x: T.linalg.lu_factor_ex(x), lambda T, x: T.linalg.inv_ex(x).info,
               lambda T, x: T.linalg.solve_ex(x, x[..., :1]).info,
               lambda T, x: T.lu(x, get_infos=True), lambda T, x: T.linalg.lu(x),
               lambda T, x: T.linalg.cholesky_ex(x - 2 * T.eye(3, dtype=x.dtype)).info,
               lambda T, x: T.linalg.solve_triangular(x, x, upper=True)]:
        check(fn, z, grad=False)


@pytest.mark.parametrize('fn', [
    lambda T, x: T.linalg.lu_factor(x),
    lambda T, x: T.linalg.lu_factor_ex(x, check_errors=True),
    lambda T, x: T.linalg.lu_factor_ex(x[1], check_errors=True),
    lambda T, x: T.lu(x)[1]])
def test_lu_factor_singular(fn, kernels):
    check(fn, _singular_batch(), grad=False, match_message=True)


@pytest.mark.parametrize('fn', [
    lambda T, x: T.linalg.inv_ex(x, check_errors=True),
    lambda T, x: T.linalg.solve_ex(x, x, check_errors=True),
    lambda T, x: T.linalg.cholesky_ex(x - 2 * T.eye(3, dtype=x.dtype), check_errors=True)])
def test_ex_check_errors(fn):
    same_linalg_error(fn, _singular_batch())


ERRORS = [
    lambda T, x, i: T.linalg.lu_factor(i),
    lambda T, x, i: T.linalg.lu_factor(x[0]),
    lambda T, x, i: T.linalg.lu_factor(x.half()),
    lambda T, x, i: T.linalg.lu_factor(x, pivot=False),
    lambda T, x, i: T.linalg.lu(x, pivot=False),
    lambda T, x, i: T.linalg.lu(i),
    lambda T, x, i: T.lu_unpack(x, T.tensor([5, 1, 1], dtype=T.int32)),
    lambda T, x, i: T.lu_unpack(x, T.tensor([1, 2, 3])),
    lambda T, x, i: T.lu_unpack(x[0], T.tensor([1, 2, 3], dtype=T.int32)),
    lambda T, x, i: T.linalg.lu_solve(*T.linalg.lu_factor(x), i),
    lambda T, x, i: T.linalg.lu_solve(*T.linalg.lu_factor(x), x[:2]),
    lambda T, x, i: T.linalg.lu_solve(*T.linalg.lu_factor(x), x[0]),
    lambda T, x, i: T.linalg.lu_solve(*T.linalg.lu_factor(x), x.float()),
    lambda T, x, i: T.linalg.lu_solve(*T.linalg.lu_factor(x[:, :2]), x),
    lambda T, x, i: T.linalg.lu_solve(T.linalg.lu_factor(x)[0], T.ones(3).long(), x),
    lambda T, x, i: T.linalg.lu_solve(*T.linalg.lu_factor(x), x[:, :2], left=False),
    lambda T, x, i: T.lu_solve(x, T.linalg.lu_factor(x)[0], T.ones(3).long()),
    lambda T, x, i: T.linalg.solve_triangular(i, i, upper=True),
    lambda T, x, i: T.linalg.solve_triangular(x.half(), x.half(), upper=True),
    lambda T, x, i: T.linalg.solve_triangular(x, x[:2], upper=True),
    lambda T, x, i: T.linalg.solve_triangular(x[:2], x[:2], upper=True),
    lambda T, x, i: T.linalg.solve_triangular(x, x[0], upper=True),
    lambda T, x, i: T.linalg.solve_triangular(x, x[:, :2], upper=True, left=False),
    lambda T, x, i: T.triangular_solve(i, i),
    lambda T, x, i: T.triangular_solve(x.float(), x),
    lambda T, x, i: T.triangular_solve(x[0], x),
    lambda T, x, i: T.triangular_solve(x[:2], x),
    lambda T, x, i: T.triangular_solve(x[:2], x[:2]),
    lambda T, x, i: T.linalg.inv_ex(i),
    lambda T, x, i: T.linalg.solve_ex(x[:2], x),
    lambda T, x, i: T.linalg.cholesky_ex(i),
]


@pytest.mark.parametrize('k', range(len(ERRORS)))
def test_errors(k):
    check(ERRORS[k], arr(3, 3, seed=1), arr(3, 3, dtype=np.int64, seed=2), grad=False,
          match_message=True)


def test_upper_is_required():
    # (the message is Python's in ember: torch's argument parser words it its own way)
    check(lambda T, x: T.linalg.solve_triangular(x, x), arr(3, 3), grad=False)


def test_solve_triangular_promotes():
    check(lambda T, x, y: T.linalg.solve_triangular(x, y, upper=True),
          wellcond(3, 3, seed=1), wellcond(3, 3, seed=2, dtype=np.float32))


def test_out():
    a = wellcond(3, 3, seed=11)
    e, t = ember.tensor(a), torch.tensor(a)
    for lib, x in ((ember, e), (torch, t)):
        LU, piv = lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32)
        r = lib.linalg.lu_factor(x, out=(LU, piv))
        assert r[0] is LU and r[1] is piv
        X = lib.empty(0, dtype=lib.float64)
        assert lib.linalg.solve_triangular(x, x, upper=True, out=X) is X
        if lib is ember:
            eLU, epiv, eX = LU, piv, X
    np.testing.assert_allclose(eLU.numpy(), LU.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(epiv.numpy(), piv.numpy())
    np.testing.assert_allclose(eX.numpy(), X.numpy(), rtol=1e-12)


def test_gradcheck_gradgradcheck():
    a = wellcond(3, 3, seed=12)
    gradchecks(lambda T, x: T.linalg.lu_factor(x).LU, arr(4, 3, seed=13))
    gradchecks(lambda T, x: tuple(T.linalg.lu(x))[1:], arr(3, 5, seed=14))
    gradchecks(lambda T, x, y: T.linalg.lu_solve(*T.linalg.lu_factor(x), y, adjoint=True),
               a, arr(3, 2, seed=15))
    gradchecks(lambda T, x, y: T.linalg.solve_triangular(x, y, upper=False, left=False),
               a, arr(2, 3, seed=16))
    gradchecks(lambda T, x, y: tuple(T.triangular_solve(y, x, transpose=True)), a,
               arr(3, 2, seed=17))


EMPTY = [(0, 0), (2, 0, 0), (3, 0), (0, 3), (0, 3, 3)]


@pytest.mark.parametrize('shape', EMPTY, ids=str)
@pytest.mark.parametrize('fn', [
    lambda T, x: T.linalg.lu_factor_ex(x), lambda T, x: T.linalg.lu(x),
    lambda T, x: T.lu_unpack(*T.linalg.lu_factor(x)),
    lambda T, x: T.linalg.lu_solve(*T.linalg.lu_factor(x), x),
    lambda T, x: T.linalg.solve_triangular(x, x, upper=True),
    lambda T, x: T.triangular_solve(x, x), lambda T, x: T.linalg.inv_ex(x),
    lambda T, x: T.linalg.solve_ex(x, x), lambda T, x: T.linalg.cholesky_ex(x),
    lambda T, x: T.linalg.matrix_exp(x), lambda T, x: T.linalg.eig(x),
    lambda T, x: T.linalg.eigvals(x), lambda T, x: T.geqrf(x),
    lambda T, x: T.linalg.householder_product(x, x[..., 0, :0] if x.shape[-2] else x[..., :0, 0]),
    lambda T, x: T.linalg.cond(x), lambda T, x: T.linalg.cond(x, 'fro'),
    lambda T, x: T.cholesky_inverse(x), lambda T, x: T.cholesky_solve(x, x)])
def test_empty(fn, shape, kernels):
    check(fn, np.zeros(shape))
