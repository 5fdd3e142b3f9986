"""Linear algebra findings of the fuzzer (issue 15, session 12, helper mexp), pinned.

``linalg.matrix_exp`` of a matrix holding entries like 1e30 beside entries like 1: scaling
and squaring (``A / 2**98``, then 98 squarings) loses the small entries, so torch returns
``diag(0, 1)`` for ``exp(diag(-1e30, 1))`` and ember returned zeros. torch is wrong there,
so these tests compare with the closed forms of the exact exponentials (or with torch on an
exactly similar, well-scaled matrix), and check that the ordinary cases still match torch.
"""
import numpy as np
import pytest
import torch

import ember
from tests.oracle.oracle import check

E = np.e


def _ember_expm(a, dtype='float64'):
    return ember.linalg.matrix_exp(ember.tensor(np.array(a, np.float64)).to(
        getattr(ember, dtype))).numpy().astype(np.float64)


def _close(got, want, rtol):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert np.array_equal(np.isinf(got), np.isinf(want)), (got, want)
    assert np.array_equal(got[np.isinf(got)], want[np.isinf(want)]), (got, want)
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=rtol, atol=0)


@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('a,want', [
    ([[-1e30, 0], [0, 1]], [[0, 0], [0, E]]),
    ([[1, 0], [0, -1e30]], [[E, 0], [0, 0]]),
    ([[1e30, 0], [0, 1]], [[np.inf, 0], [0, E]]),
    ([[1, 1e30], [0, 1]], [[E, E * 1e30], [0, E]]),
    ([[1, 0], [1e30, 1]], [[E, 0], [E * 1e30, E]]),
    ([[-1e30, 3], [0, 1]], [[0, 3 * E / (1e30 + 1)], [0, E]]),
    ([[1, 1e30, 0], [0, 1, 1e30], [0, 0, 1]],
     [[E, E * 1e30, E * 1e60 / 2], [0, E, E * 1e30], [0, 0, E]]),
    ([[2, 0, 1e30], [0, -1e30, 0], [0, 0, 2]],
     [[E ** 2, 0, E ** 2 * 1e30], [0, 0, 0], [0, 0, E ** 2]]),
], ids=['diag_tiny_first', 'diag_tiny_last', 'diag_overflow', 'upper_jordan', 'lower_jordan',
        'upper_separated', 'jordan3', 'permuted_jordan'])
def test_matrix_exp_of_entries_of_many_scales_is_exact(a, want, dtype):
    """Triangular (and permuted triangular) matrices mixing 1e30 and 1: the exact
    exponential (torch: diag(0, 1) for diag(-1e30, 1), the matrix itself for [[1, 1e30], [0,
    1]], NaN for diag(1e30, 1); ember returned zeros)."""
    if dtype == 'float32' and np.max(np.abs(want)[np.isfinite(want)]) > 3e38:
        pytest.skip('beyond float32')
    _close(_ember_expm(a, dtype), want, 1e-12 if dtype == 'float64' else 1e-5)


@pytest.mark.parametrize('a,want', [
    ([[1e30, 1], [0, 1e5]], [[np.inf, np.inf], [0, np.inf]]),
    ([[1e5, -1e-30], [0, 700]], [[np.inf, -np.inf], [0, np.exp(700)]]),
    ([[-700, -1e30], [0, -1e30]], [[np.exp(-700), -np.exp(-700)], [0, 0]]),
    ([[-1e30, 1e30], [0, 700]], [[0, np.exp(700)], [0, np.exp(700)]]),
    ([[699.5, 1e30], [0, 700]], [[np.exp(699.5), np.inf], [0, np.exp(700)]]),
    ([[0, 2.5, 0.5], [0, -1e12, -2.5], [0, 0, 0.25]],
     [[1, 2.5e-12, 0.5 * (np.exp(0.25) - 1) / 0.25], [0, 0, -2.5 * np.exp(0.25) / 1e12],
      [0, 0, np.exp(0.25)]]),
], ids=['both_overflow', 'one_overflows', 'tiny_coupling', 'huge_coupling_cancels',
        'like_scale_overflow', 'middle_huge_block'])
def test_matrix_exp_overflow_and_underflow_keep_exact_zeros_and_signs(a, want):
    """Triangular matrices whose exponential overflows or underflows in places: the exact
    answer rounded (inf with its sign where it overflows, e^-700 where a coupling of 1e30
    meets a gap of 1e30) -- not the NaN of inf - inf or 0 * inf, nor a lost tiny entry.
    (Expected values from Parlett's closed forms; the last, 3x3, to first order in 1e-12.)"""
    _close(_ember_expm(a), want, 1e-9)


@pytest.mark.parametrize('k', [100, 60])
def test_matrix_exp_of_a_badly_scaled_irreducible_matrix_is_its_balanced_exponential(k):
    """[[a, 2**k b], [2**-k c, d]] is D M D^-1 for M = [[a, b], [c, d]] and D = diag(1, 2**-k)
    (exact in binary), so its exponential is D exp(M) D^-1 -- torch's exp(M) scaled; torch's
    own answer for the badly scaled matrix is not."""
    rng = np.random.default_rng(k)
    for n in (2, 3, 4):
        m = rng.standard_normal((n, n))
        d = 2.0 ** -(k * np.arange(n))
        a = m * d[:, None] / d[None, :]
        want = torch.linalg.matrix_exp(torch.tensor(m)).numpy() * d[:, None] / d[None, :]
        _close(_ember_expm(a), want, 1e-10)


def test_matrix_exp_of_a_huge_block_coupled_to_a_small_one():
    """Block upper triangular: a 1x1 block -1e30, a well-scaled 2x2 block B, coupling c:
    exp is [[0, X], [0, exp(B)]] with X = c exp(B) (1e30 I + B)^-1 (Parlett's recurrence)."""
    b = np.array([[0.3, -1.2], [0.7, 0.1]])
    c = np.array([[2.0, -5.0]])
    a = np.zeros((3, 3))
    a[0, 0], a[0, 1:], a[1:, 1:] = -1e30, c, b
    eb = torch.linalg.matrix_exp(torch.tensor(b))
    x = torch.linalg.solve(torch.tensor(1e30 * np.eye(2) + b).T, (torch.tensor(c) @ eb).T).T
    want = np.zeros((3, 3))
    want[0, 1:], want[1:, 1:] = x.numpy(), eb.numpy()
    _close(_ember_expm(a), want, 1e-12)
    perm = [2, 0, 1]  # the same matrix with its indices permuted
    _close(_ember_expm(a[np.ix_(perm, perm)]), want[np.ix_(perm, perm)], 1e-12)


@pytest.mark.parametrize('dtype', ['float64', 'float32', 'complex128'])
def test_matrix_exp_of_ordinary_matrices_still_matches_torch(dtype):
    """The ordinary path (norms from tiny to a few thousand, a batch mixing them, and
    well-scaled matrices large enough for the structure-aware path) matches torch, values and
    gradients."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 4, 4)) * np.array([1e-3, 1., 20., 300.])[:, None, None]
    rtol = 1e-3 if dtype == 'float32' else 1e-7  # (float32: its rounding, same on both sides)
    check(lambda T, x: T.linalg.matrix_exp(x.to(getattr(T, dtype))), a, rtol=rtol)
    if dtype == 'float32':
        return  # (a rotation by thousands of radians has no float32 answer to compare)
    s = rng.standard_normal((3, 3))
    big = np.stack([(s - s.T) * 5e3, rng.standard_normal((3, 3))])  # rotations, norm ~1e4
    check(lambda T, x: T.linalg.matrix_exp(x.to(getattr(T, dtype))), big, rtol=rtol,
          atol=1e-6)


def test_matrix_exp_batch_mixing_wide_and_ordinary_matrices():
    """In a batch, the ordinary matrices keep torch's answer and the wide one is exact."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 2, 2))
    a[1] = [[-1e30, 0], [0, 1]]
    got = _ember_expm(a)
    want = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
    np.testing.assert_allclose(got[[0, 2]], want[[0, 2]], rtol=1e-13)
    _close(got[1], [[0, 0], [0, E]], 1e-14)


@pytest.mark.parametrize('vector', [False, True])
def test_solve_ex_gradient_of_a_singular_matrix_uses_its_own_lu(vector):
    """solve_ex of an exactly singular A (two equal rows) with check_errors=False: torch's
    backward solves A^H y = g with A's LU, whose zero pivot gives inf/nan; ember factored
    A^H afresh, whose pivoting left a rounding remainder for that pivot (-2.5e16 where torch
    has -inf; fuzz seed 2120, wide shapes)."""
    # A's LU has an exact zero pivot; A^T's (pivoting on q) leaves a remainder
    p, q = -0.48211931267997826, 0.5988462126346276
    a = np.array([[[p, q], [p, q]], [[1., 2.], [3., 4.]]])
    b = np.array([[1., 2.], [0.5, -1.]]) if vector else \
        np.array([[[1., 2.], [0.5, -1.]], [[0.3, 0.], [-2., 1.5]]])
    check(lambda T, x, y: T.linalg.solve_ex(x, y).result, a, b)


@pytest.mark.parametrize('dtype', ['float64', 'complex128'])
@pytest.mark.parametrize('layout', ['contiguous', 'transposed', 'expanded'])
@pytest.mark.parametrize('left', [True, False])
def test_solve_ex_of_a_singular_matrix_solves_through_torchs_lu(dtype, layout, left):
    """solve_ex with check_errors=False of an exactly singular matrix (equal rows): torch
    factors A (for left=False too) and solves forward and backward through that one LU,
    meeting its exact zero pivot (inf/nan); ember solved X A = B and the backward's A^H
    systems with fresh LUs of A^T or A^H, whose pivot there can be a rounding remainder
    instead (a huge finite value where torch has inf/nan)."""
    p, q = -0.48211931267997826, 0.5988462126346276

    def f(T, b):
        dt = getattr(T, dtype)
        if layout == 'expanded':  # (equal rows by a stride-0 view)
            a = T.tensor([[[p, q]], [[1., 2.]]], dtype=dt).expand(2, 2, 2)
        else:
            m = np.array([[[p, q], [p, q]], [[1., 2.], [3., 4.]]])
            a = T.tensor(m, dtype=dt)
            if layout == 'transposed':
                a = T.tensor(m.swapaxes(-1, -2).copy(), dtype=dt).mT
        a = a.detach().requires_grad_()
        b = b.to(dt).detach().requires_grad_()
        r = T.linalg.solve_ex(a, b, left=left)
        w = T.tensor(np.arange(8.).reshape(2, 2, 2) - 3.5, dtype=dt)
        ga, gb = T.autograd.grad((r.result * w).sum().real, [a, b])
        return r.result, r.info, ga, gb

    b = np.array([[[1., 2.], [0.5, -1.]], [[0.3, 0.], [-2., 1.5]]])
    check(f, b, grad=False)


@pytest.mark.parametrize('dtype', ['complex64', 'float32'])
@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_inverse_whose_single_precision_products_overflow(dtype, upper):
    """A factor holding 1e30: A^{-1}'s first diagonal entry is a sum of squares near 3e61,
    +inf in single precision (torch); OpenBLAS's potri left NaN (inf * conj(inf) terms).
    Fuzz seed 32130 (complex64)."""
    l = np.array([[0.11461936 + 0.17258328j, 0, -1],
                  [-1e30, 0.76987219 + 2.2941957j, 1.1755635 - 0.7757393j],
                  [-0.73557347 + 1.5498505j, -1.5076791 + 2.4574103j, -0.32794508 - 1.084748j]])
    if dtype == 'float32':
        l = l.real.copy()
    if upper:
        l = l.T.copy()
    check(lambda T, x: T.cholesky_inverse(x.to(getattr(T, dtype)), upper=upper), l, grad=False)


@pytest.mark.parametrize('bad', [np.nan, np.inf, -1e30])
@pytest.mark.parametrize('fn', [
    lambda T, x: T.linalg.matrix_rank(x, hermitian=True),
    lambda T, x: T.linalg.matrix_rank(x, hermitian=True, atol=0.1, rtol=0.),
    lambda T, x: T.linalg.pinv(x, hermitian=True),
], ids=['matrix_rank', 'matrix_rank_atol', 'pinv'])
def test_hermitian_rank_and_pinv_read_the_lower_triangle(fn, bad):
    """hermitian=True runs eigh on the lower triangle: a NaN or inf above the diagonal
    changes nothing (ember's guard against non-finite input looked at the whole matrix and
    raised eigh's LinAlgError; fuzz seed 33015, wide shapes)."""
    a = np.eye(4) * 2 + np.tril(np.full((4, 4), 0.5), -1)
    a[0, 3] = a[1, 2] = bad
    check(fn, a, grad=False)
