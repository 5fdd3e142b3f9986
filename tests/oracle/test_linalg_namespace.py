"""ember.linalg and the top-level linear-algebra functions against torch: values, dtypes,
named tuples, batched inputs, grad_fn names, gradients (gradcheck in float64) and errors."""
import numpy as np
import pytest

import ember

pytestmark = pytest.mark.filterwarnings('ignore:torch.(cholesky|qr) is deprecated')
from .oracle import check, arr, torch


def spd(*batch, n=3, seed=0, dtype=np.float64):
    """A (batch of) well-conditioned symmetric positive-definite matrices."""
    a = arr(*batch, n, n, seed=seed)
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def sym(*batch, n=3, seed=0):
    a = arr(*batch, n, n, seed=seed)
    return a + np.swapaxes(a, -1, -2)


SQ = [(3, 3), (2, 3, 3)]


@pytest.mark.parametrize('shape', SQ, ids=str)
def test_inverse_det_slogdet(shape):
    a = arr(*shape, seed=1)
    check(lambda T, x: T.linalg.inv(x), a, double=True)
    check(lambda T, x: T.inverse(x), a)
    check(lambda T, x: x.inverse(), a.astype(np.float32))
    check(lambda T, x: T.linalg.det(x), a, double=True)
    check(lambda T, x: x.det(), a.astype(np.float32))
    check(lambda T, x: T.linalg.slogdet(x), a)
    check(lambda T, x: tuple(T.slogdet(x)), a)
    check(lambda T, x: T.logdet(x), a)
    check(lambda T, x: x.logdet(), spd(*shape[:-2]))


def test_named_tuples():
    a = arr(3, 3, seed=1)
    for name, fn in [('linalg_slogdet', lambda T, x: T.linalg.slogdet(x)),
                     ('slogdet', lambda T, x: T.slogdet(x)),
                     ('linalg_qr', lambda T, x: T.linalg.qr(x)),
                     ('qr', lambda T, x: T.qr(x)),
                     ('linalg_eigh', lambda T, x: T.linalg.eigh(x)),
                     ('linalg_svd', lambda T, x: T.linalg.svd(x)),
                     ('svd', lambda T, x: T.svd(x)),
                     ('linalg_lstsq', lambda T, x: T.linalg.lstsq(x, x))]:
        e, t = fn(ember, ember.tensor(a)), fn(torch, torch.tensor(a))
        assert type(e).__name__ == type(t).__name__ == name
        for f in e._fields:  # torch's named tuples are structseqs, without _fields
            getattr(t, f)
    r = ember.linalg.lstsq(ember.tensor(a), ember.tensor(a))
    assert r.rank.dtype == ember.int64 and int(r.rank) == 3
    assert tuple(r.residuals.shape) == (0,) and tuple(r.singular_values.shape) == (0,)


@pytest.mark.parametrize('shape', SQ, ids=str)
def test_solve(shape):
    a, b = arr(*shape, seed=1), arr(*shape[:-1], 2, seed=2)
    check(lambda T, x, y: T.linalg.solve(x, y), a, b, double=True)
    check(lambda T, x, y: T.linalg.solve(x, y), a, arr(*shape[:-1], seed=3))
    check(lambda T, x, y: T.linalg.solve(x, y, left=False), a, arr(*shape[:-2], 2, 3, seed=3))


@pytest.mark.parametrize('shape', [(), (2,)], ids=str)
def test_cholesky(shape):
    a = spd(*shape)
    # the gradient of a symmetric input is only meaningful on symmetric perturbations
    check(lambda T, x: T.linalg.cholesky((x + x.mT) / 2), a)
    check(lambda T, x: T.linalg.cholesky((x + x.mT) / 2, upper=True), a)
    check(lambda T, x: T.cholesky((x + x.mT) / 2), a)
    check(lambda T, x: x.cholesky(upper=True), a.astype(np.float32), grad=False)


@pytest.mark.parametrize('shape', [(3, 3), (4, 3), (2, 4, 3)], ids=str)
def test_qr(shape):
    a = arr(*shape, seed=4)
    check(lambda T, x: T.linalg.qr(x), a)
    check(lambda T, x: T.qr(x), a)
    check(lambda T, x: tuple(T.linalg.qr(x, mode='complete')), a, grad=shape[-2] == 3)
    check(lambda T, x: T.linalg.qr(x, mode='r')[1], a, grad=False)


@pytest.mark.parametrize('shape', [(), (2,)], ids=str)
def test_eigh(shape):
    a = sym(*shape, seed=5)
    # eigenvectors are defined up to sign: compare sign-invariant functions of them
    check(lambda T, x: T.linalg.eigh(x + x.mT)[0], a)
    check(lambda T, x: T.linalg.eigvalsh(x + x.mT, UPLO='U'), a)
    check(lambda T, x: T.linalg.eigh(x + x.mT)[1].abs(), a)
    check(lambda T, x: (lambda v: v * v[..., :1, :].sgn())(T.linalg.eigh(x, UPLO='U')[1]), a)


def _svd_fixed_sign(T, U, S, Vh):
    s = U[..., :1, :].sgn()
    return U * s, S, Vh * s.mT


@pytest.mark.parametrize('shape', [(3, 3), (4, 3), (3, 4), (2, 3, 2)], ids=str)
def test_svd(shape):
    a = arr(*shape, seed=6)
    check(lambda T, x: _svd_fixed_sign(T, *T.linalg.svd(x, full_matrices=False)), a)
    check(lambda T, x: T.linalg.svdvals(x), a)
    check(lambda T, x: T.linalg.svd(x)[1], a)
    check(lambda T, x: (lambda r: (r.U[..., :1, :].sgn() * r.U, r.S,
                                   r.V * r.U[..., :1, :].sgn()))(T.svd(x)), a)
    check(lambda T, x: T.svd(x, compute_uv=False), a, grad=False)


@pytest.mark.parametrize('shape', [(3, 3), (4, 3), (3, 4), (2, 3, 3)], ids=str)
def test_pinv_lstsq_rank(shape):
    a = arr(*shape, seed=7)
    check(lambda T, x: T.linalg.pinv(x), a)
    check(lambda T, x: T.pinverse(x), a)
    check(lambda T, x: x.pinverse(), a.astype(np.float32), grad=False)
    check(lambda T, x: T.linalg.matrix_rank(x), a, grad=False)
    if shape[-2] >= shape[-1]:
        check(lambda T, x, y: T.linalg.lstsq(x, y).solution, a, arr(*shape[:-1], 2, seed=8))


def test_pinv_rank_tolerances():
    a = np.diag([3.0, 1.0, 1e-3])
    check(lambda T, x: T.linalg.pinv(x, rtol=1e-2), a)
    check(lambda T, x: T.linalg.pinv(x, atol=0.5), a)
    check(lambda T, x: T.linalg.pinv(x + x.mT, hermitian=True), sym(seed=9))
    check(lambda T, x: T.linalg.matrix_rank(x, rtol=1e-2), a, grad=False)
    check(lambda T, x: T.linalg.matrix_rank(x, atol=0.5, hermitian=True), a, grad=False)
    check(lambda T, x: T.linalg.matrix_rank(x), np.zeros((3, 3)), grad=False)


@pytest.mark.parametrize('n', [0, 1, 2, 3, 5, -1, -2])
def test_matrix_power(n):
    a = arr(2, 3, 3, seed=10) if n % 2 else arr(3, 3, seed=10)
    check(lambda T, x: T.linalg.matrix_power(x, n), a)
    check(lambda T, x: x.matrix_power(n), a.astype(np.float32))
    if n >= 0:
        check(lambda T, x: T.matrix_power(x, n), arr(3, 3, dtype=np.int64, seed=1))


MATRIX_ORDS = ['fro', 'nuc', 2, -2, 1, -1, float('inf'), float('-inf')]


@pytest.mark.parametrize('ord', MATRIX_ORDS, ids=str)
def test_matrix_norm(ord):
    a = arr(2, 3, 4, seed=11)
    check(lambda T, x: T.linalg.matrix_norm(x, ord), a)
    check(lambda T, x: T.linalg.matrix_norm(x, ord, dim=(0, 2), keepdim=True), a)
    check(lambda T, x: T.linalg.matrix_norm(x, ord, dim=(2, 1)), a.astype(np.float32))
    check(lambda T, x: T.linalg.norm(x[0], ord), a)


def test_norm_and_vector_norm():
    a = arr(2, 3, 4, seed=12)
    check(lambda T, x: T.linalg.norm(x), a)
    check(lambda T, x: T.linalg.norm(x, dim=1), a)
    check(lambda T, x: T.linalg.norm(x, 3, dim=(2,), keepdim=True), a)
    check(lambda T, x: T.linalg.norm(x, dim=(0, 1)), a)
    check(lambda T, x: T.linalg.norm(x[0, 0], 1), a)
    check(lambda T, x: T.linalg.vector_norm(x, float('inf'), dim=(0, 2)), a)
    check(lambda T, x: T.linalg.vector_norm(x, 1, dtype=T.float64), a.astype(np.float32))


def test_cross_multi_dot_vecdot_matmul():
    check(lambda T, x, y: T.linalg.cross(x, y), arr(2, 3, seed=1), arr(1, 3, seed=2),
          double=True)
    check(lambda T, x, y: T.linalg.cross(x, y, dim=0), arr(3, 2, seed=1), arr(3, 2, seed=2))
    check(lambda T, x, y: T.linalg.cross(x, y), arr(3, dtype=np.int64, seed=1),
          arr(3, dtype=np.int64, seed=2))
    for shapes in [((3,), (3, 4), (4,)), ((2, 3), (3, 4), (4, 2)), ((3,), (3, 2)),
                   ((2, 3), (3,))]:
        xs = [arr(*s, seed=i) for i, s in enumerate(shapes)]
        check(lambda T, *ts: T.linalg.multi_dot(ts), *xs)
    check(lambda T, x, y: T.linalg.vecdot(x, y), arr(2, 3, seed=1), arr(3, seed=2))
    check(lambda T, x, y: T.linalg.vecdot(x, y, dim=0), arr(2, 3, seed=1), arr(2, 1, seed=2))
    check(lambda T, x, y: T.linalg.matmul(x, y), arr(2, 3, seed=1), arr(3, 2, seed=2))


def _gc(fn, *xs):
    ts = [ember.tensor(x, requires_grad=True) for x in xs]
    assert ember.autograd.gradcheck(fn, ts)


def test_gradcheck():
    L = ember.linalg
    a, s = arr(3, 3, seed=13), spd(2, seed=14)
    _gc(L.inv, a)
    _gc(L.det, arr(2, 3, 3, seed=15))
    _gc(lambda x: L.slogdet(x).logabsdet, a)
    _gc(L.solve, a, arr(3, 2, seed=16))
    _gc(lambda x: L.cholesky((x + x.mT) / 2), s)
    _gc(lambda x: tuple(L.qr(x)), arr(4, 3, seed=17))
    _gc(lambda x: L.eigh((x + x.mT) / 2)[0], sym(seed=18))
    _gc(lambda x: L.eigh((x + x.mT) / 2)[1].abs(), sym(seed=18))
    _gc(lambda x: _svd_fixed_sign(ember, *L.svd(x, full_matrices=False)), arr(4, 3, seed=19))
    _gc(lambda x: _svd_fixed_sign(ember, *L.svd(x, full_matrices=False)), arr(2, 4, seed=19))
    _gc(L.pinv, arr(3, 4, seed=20))
    _gc(lambda x: L.matrix_norm(x, 'nuc'), arr(3, 4, seed=21))


ERRORS = [
    lambda T, x, i: T.linalg.det(x[:2]),
    lambda T, x, i: T.linalg.det(i),
    lambda T, x, i: T.linalg.det(x[0]),
    lambda T, x, i: T.linalg.inv(x[:2]),
    lambda T, x, i: T.inverse(i),
    lambda T, x, i: T.logdet(i),
    lambda T, x, i: T.linalg.solve(x, i),
    lambda T, x, i: T.linalg.solve(x, x[:2, :2]),
    lambda T, x, i: T.linalg.solve(x, x.float()),
    lambda T, x, i: T.linalg.cholesky(i),
    lambda T, x, i: T.linalg.cholesky(x[:2]),
    lambda T, x, i: T.linalg.qr(i),
    lambda T, x, i: T.linalg.qr(x, mode='x'),
    lambda T, x, i: T.linalg.eigh(i),
    lambda T, x, i: T.linalg.eigvalsh(i),
    lambda T, x, i: T.linalg.eigh(x[:2]),
    lambda T, x, i: T.linalg.eigh(x, UPLO='X'),
    lambda T, x, i: T.linalg.svd(i),
    lambda T, x, i: T.svd(i),
    lambda T, x, i: T.linalg.svdvals(i),
    lambda T, x, i: T.linalg.pinv(i),
    lambda T, x, i: T.pinverse(i),
    lambda T, x, i: T.linalg.matrix_power(x[:2], 2),
    lambda T, x, i: T.linalg.matrix_power(i, -1),
    lambda T, x, i: T.linalg.matrix_rank(i),
    lambda T, x, i: T.linalg.lstsq(i, i),
    lambda T, x, i: T.linalg.lstsq(x, x[:2]),
    lambda T, x, i: T.linalg.cross(x[:, :2], x[:, :2]),
    lambda T, x, i: T.linalg.multi_dot([x]),
    lambda T, x, i: T.linalg.matrix_norm(i),
    lambda T, x, i: T.linalg.matrix_norm(x[0]),
    lambda T, x, i: T.linalg.matrix_norm(x, 3),
    lambda T, x, i: T.linalg.norm(i),
    lambda T, x, i: T.linalg.norm(x.unsqueeze(0), 2),
    lambda T, x, i: T.linalg.vecdot(i, i),
]


@pytest.mark.parametrize('k', range(len(ERRORS)))
def test_errors(k):
    check(ERRORS[k], arr(3, 3, seed=1), arr(3, 3, dtype=np.int64, seed=2), grad=False,
          match_message=True)


@pytest.mark.parametrize('fn', [
    lambda L, x: L.inv(x), lambda L, x: L.solve(x, x), lambda L, x: L.cholesky(-x - 1),
    lambda L, x: L.matrix_power(x, -1), lambda L, x: L.inv(x.expand(2, 3, 3))])
def test_linalg_errors(fn):
    # torch raises its private _LinAlgError type; ember raises ember.linalg.LinAlgError, a
    # RuntimeError as torch's is: compare the messages.
    z = np.zeros((3, 3))
    with pytest.raises(torch.linalg.LinAlgError) as t:
        fn(torch.linalg, torch.tensor(z))
    with pytest.raises(ember.linalg.LinAlgError) as e:
        fn(ember.linalg, ember.tensor(z))
    assert isinstance(e.value, RuntimeError)
    assert str(e.value) == str(t.value)


def test_singular_values_of_singular_matrices():
    z = np.array([[1.0, 2.0], [2.0, 4.0]])
    check(lambda T, x: T.linalg.det(x), z, grad=False)
    check(lambda T, x: T.linalg.slogdet(x), z, grad=False)
    check(lambda T, x: T.logdet(-x - T.eye(2, dtype=x.dtype)), z, grad=False)


@pytest.mark.parametrize('ord', [float('inf'), float('-inf'), -1, -0.7, 0, 1, 2])
@pytest.mark.parametrize('dim', [None, 0, 1, (0, 1), ()])
def test_vector_norm_of_empty_without_identity(ord, dim):
    """A negative or infinite order has no identity: torch refuses it over an empty
    reduction (of the whole tensor, or along an empty dim) and reduces the rest."""
    def outcome(lib):
        try:
            return tuple(lib.linalg.vector_norm(lib.zeros(2, 0), ord, dim=dim).shape)
        except RuntimeError as e:
            return str(e)
    assert outcome(ember) == outcome(torch)
