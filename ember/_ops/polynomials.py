"""The classical orthogonal polynomials of ``ember.special`` (torch.special's twins):
Chebyshev T, U, V, W and their shifted forms on [0, 1], physicists' and probabilists'
Hermite, Laguerre and Legendre -- ``<name>(input, n)``.

Each is evaluated as torch defines it, which is what the tests compare: the degree ``n`` is
truncated to an integer (a negative, infinite, nan or out-of-int64 degree gives 0); a few
points have closed forms (x = +-1 for the Chebyshev and Legendre polynomials, x = 0 or 1 for
the shifted ones, x = 0 for Laguerre); Chebyshev polynomials of high degree inside (-1, 1)
use their trigonometric forms (T_n(cos t) = cos(n t), ...); everything else runs the
three-term recurrence in the input's dtype, so float32 rounds (and overflows to inf, then
nan) where torch's float32 kernel does. scipy's ``eval_*`` functions differ at exactly those
places (negative degrees, non-finite x) and have no V and W, hence the recurrences here.

The recurrence is vectorised over the elements: step k updates only the elements whose
degree is still above k, and an element that has become nan (overflow: inf - inf) stops
there, as it would stay nan. The cost is O(max degree) NumPy steps.

torch gives these functions no derivative: the result never requires grad. ``x`` or ``n``
(not both) may be a Python number; integer and bool tensors give the default float
dtype; half precision and complex are refused, as in torch. The arguments are named ``x``
and ``n``, as torch names them.
"""
import numpy as np

from .special import _number_tensor_op, float_double_only

__all__ = ['POLYNOMIALS']

POLYNOMIALS = {}   # name -> implementation (ember.special names them)

_INT64_LIMIT = 2.0 ** 63


def _degree(n):
    """torch's integer degree: ``n`` truncated; -1 (degree 'negative') where it has none."""
    ok = np.isfinite(n) & (np.abs(n) < _INT64_LIMIT)
    return np.where(ok, np.trunc(np.where(ok, n, 0)), -1).astype(np.int64)


def _f(k, x):
    """The integer degree ``k`` in ``x``'s float dtype (torch's kernels convert it so)."""
    return k.astype(x.dtype)


def _even(k):
    return k % 2 == 0


def _run(x, k, first, step, cases):
    """The polynomial of degree ``k`` at ``x`` (broadcast arrays): 0 for k < 0, then the
    first of ``cases(x, k)`` ((mask, value) pairs) that applies, then 1 for k = 0,
    ``first(x)`` for k = 1, else the recurrence ``step(x, p, q, j)`` giving degree j from
    degrees j - 2 (p) and j - 1 (q)."""
    x, k = np.broadcast_arrays(x, k)
    out = np.empty(x.shape, x.dtype)
    todo = k >= 0
    out[~todo] = 0
    for mask, value in cases(x, k):
        hit = todo & mask
        out[hit] = np.broadcast_to(value, x.shape)[hit]
        todo &= ~mask
    out[todo & (k == 0)] = 1
    one = todo & (k == 1)
    out[one] = first(x[one])
    run = todo & (k >= 2)
    pos = np.flatnonzero(run)
    xs, ks = x[run], k[run]
    p, q = np.ones_like(xs), first(xs)
    j = 2
    flat = out.reshape(-1)
    while pos.size:
        r = step(xs, p, q, j)
        done = (ks == j) | np.isnan(r)
        if done.any():
            flat[pos[done]] = r[done]
            keep = ~done
            pos, xs, ks, p, r = pos[keep], xs[keep], ks[keep], q[keep], r[keep]
        else:
            p = q
        q = r
        j += 1
    return out


def _polynomial(name, first, step, cases=lambda x, k: ()):
    """Registers ``ember.special.<name>(input, n, *, out=None)``."""
    op = 'special_' + name
    kernel_name = name + '_cpu'

    def kernel(x, n):
        return _run(x, _degree(n), first, step, cases)

    def fn(x, n, *, out=None):
        return _number_tensor_op(op, name, kernel, None, x, n, out,
                                 check=float_double_only(kernel_name))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The {_TITLES[name]} of degree ``n`` (truncated to an integer) at "
                  "``x``, elementwise; not differentiable, as in torch.")
    POLYNOMIALS[name] = fn
    return fn


_TITLES = {
    'chebyshev_polynomial_t': 'Chebyshev polynomial of the first kind T_n',
    'chebyshev_polynomial_u': 'Chebyshev polynomial of the second kind U_n',
    'chebyshev_polynomial_v': 'Chebyshev polynomial of the third kind V_n',
    'chebyshev_polynomial_w': 'Chebyshev polynomial of the fourth kind W_n',
    'shifted_chebyshev_polynomial_t': 'shifted Chebyshev polynomial T*_n(x) = T_n(2x - 1)',
    'shifted_chebyshev_polynomial_u': 'shifted Chebyshev polynomial U*_n(x) = U_n(2x - 1)',
    'shifted_chebyshev_polynomial_v': 'shifted Chebyshev polynomial V*_n(x) = V_n(2x - 1)',
    'shifted_chebyshev_polynomial_w': 'shifted Chebyshev polynomial W*_n(x) = W_n(2x - 1)',
    'hermite_polynomial_h': "physicists' Hermite polynomial H_n",
    'hermite_polynomial_he': "probabilists' Hermite polynomial He_n",
    'laguerre_polynomial_l': 'Laguerre polynomial L_n',
    'legendre_polynomial_p': 'Legendre polynomial P_n',
}


def _sign_by_parity(k, v):
    return np.where(_even(k), v, -v)


# -- Chebyshev T, U, V, W on [-1, 1] ----------------------------------------------------------
def _chebyshev_step(x, p, q, j):
    return (x + x) * q - p


def _t_cases(x, k):
    edge = np.abs(x) == 1
    yield edge, np.where((x > 0) | _even(k), 1, -1)
    inside = (k > 6) & (np.abs(x) < 1)
    if inside.any():
        yield inside, np.cos(_f(k, x) * np.arccos(x))


def _u_cases(x, k):
    edge = np.abs(x) == 1
    yield edge, np.where((x > 0) | _even(k), k + 1, -(k + 1))
    inside = (k > 8) & (np.abs(x) < 1)
    if inside.any():
        t = np.arccos(x)
        s = np.sin(t)
        yield inside, np.where(s != 0, np.sin(_f(k + 1, x) * t) / s,
                               _f(k + 1, x) * np.cos(_f(k + 1, x) * t) / x)


def _v_cases(x, k):
    edge = np.abs(x) == 1
    yield edge, np.where(x > 0, 1, _sign_by_parity(k, k + k + 1))
    inside = (k > 8) & (np.abs(x) < 1)
    if inside.any():
        t = np.arccos(x)
        yield inside, np.where(np.sin(t / 2) != 1, np.cos((_f(k, t) + 0.5) * t) / np.cos(t / 2),
                               _sign_by_parity(k, k + k + 1))


def _w_cases(x, k):
    edge = np.abs(x) == 1
    yield edge, np.where(x > 0, k + k + 1, _sign_by_parity(k, 1))
    inside = (k > 8) & (np.abs(x) < 1)
    if inside.any():
        t = np.arccos(x)
        yield inside, np.where(np.cos(t / 2) != 1, np.sin((_f(k, t) + 0.5) * t) / np.sin(t / 2),
                               np.where(x > 0, k + k + 1, _sign_by_parity(k, 1)))


chebyshev_polynomial_t = _polynomial('chebyshev_polynomial_t', lambda x: x, _chebyshev_step,
                                     _t_cases)
chebyshev_polynomial_u = _polynomial('chebyshev_polynomial_u', lambda x: x + x,
                                     _chebyshev_step, _u_cases)
chebyshev_polynomial_v = _polynomial('chebyshev_polynomial_v', lambda x: x + x - 1,
                                     _chebyshev_step, _v_cases)
chebyshev_polynomial_w = _polynomial('chebyshev_polynomial_w', lambda x: x + x + 1,
                                     _chebyshev_step, _w_cases)


# -- the shifted Chebyshev polynomials on [0, 1] ----------------------------------------------
def _shifted_step(x, p, q, j):
    return (x + x - 1 + (x + x - 1)) * q - p


def _st_cases(x, k):
    yield x == 1, 1
    yield x == 0, _sign_by_parity(k, 1)
    y = x + x - 1
    inside = (k > 6) & (np.abs(y) < 1)
    if inside.any():
        yield inside, np.cos(_f(k, y) * np.arccos(y))


def _su_cases(x, k):
    yield x == 1, k + 1
    yield x == 0, _sign_by_parity(k, k + 1)
    y = x + x - 1
    inside = (k > 6) & (np.abs(y) < 1)
    if inside.any():
        t = np.arccos(y)
        s = np.sin(t)
        yield inside, np.where(s != 0, np.sin(_f(k + 1, y) * t) / s,
                               _f(k + 1, y) * np.cos(_f(k + 1, y) * t) / y)


def _sv_cases(x, k):
    yield x == 1, 1
    yield x == 0, _sign_by_parity(k, k + k + 1)
    y = x + x - 1
    inside = (k > 6) & (np.abs(y) < 1)
    if inside.any():
        t = np.arccos(y)
        yield inside, np.where(np.sin(t / 2) != 1, np.cos((_f(k, t) + 0.5) * t) / np.cos(t / 2),
                               _sign_by_parity(k, k + k + 1))


def _sw_cases(x, k):
    yield x == 1, k + k + 1
    yield x == 0, _sign_by_parity(k, 1)
    y = x + x - 1
    inside = (k > 4) & (np.abs(y) < 1)
    if inside.any():
        t = np.arccos(y)
        yield inside, np.where(np.cos(t / 2) != 1, np.sin((_f(k, t) + 0.5) * t) / np.sin(t / 2),
                               _sign_by_parity(k, 1))


shifted_chebyshev_polynomial_t = _polynomial(
    'shifted_chebyshev_polynomial_t', lambda x: x + x - 1, _shifted_step, _st_cases)
shifted_chebyshev_polynomial_u = _polynomial(
    'shifted_chebyshev_polynomial_u', lambda x: x + x - 1 + (x + x - 1), _shifted_step,
    _su_cases)
shifted_chebyshev_polynomial_v = _polynomial(
    'shifted_chebyshev_polynomial_v', lambda x: x + x - 1 + (x + x - 1) - 1, _shifted_step,
    _sv_cases)
shifted_chebyshev_polynomial_w = _polynomial(
    'shifted_chebyshev_polynomial_w', lambda x: x + x - 1 + (x + x - 1) + 1, _shifted_step,
    _sw_cases)


# -- Hermite, Laguerre, Legendre --------------------------------------------------------------
hermite_polynomial_h = _polynomial(
    'hermite_polynomial_h', lambda x: x + x,
    lambda x, p, q, j: (x + x) * q - (2 * (j - 1)) * p)
hermite_polynomial_he = _polynomial(
    'hermite_polynomial_he', lambda x: x,
    lambda x, p, q, j: x * q - (j - 1) * p)


def _laguerre_cases(x, k):
    yield np.abs(x) == 0, 1


laguerre_polynomial_l = _polynomial(
    'laguerre_polynomial_l', lambda x: 1 - x,
    lambda x, p, q, j: ((2 * (j - 1) + (1 - x)) * q - (j - 1) * p) / j, _laguerre_cases)


def _legendre_cases(x, k):
    yield np.abs(x) == 1, np.where((x > 0) | _even(k), 1, -1)


legendre_polynomial_p = _polynomial(
    'legendre_polynomial_p', lambda x: x,
    lambda x, p, q, j: ((j + j - 1) * x * q - (j - 1) * p) / j, _legendre_cases)
