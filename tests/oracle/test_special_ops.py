"""Special and other pointwise ops (ember/_ops/special.py) against torch: lgamma, digamma,
polygamma, mvlgamma, erfinv, i0, sinc, logit, xlogy, deg2rad/rad2deg, gcd, lcm, ldexp, frexp,
isreal, isin, complex, polar, view_as_real/view_as_complex -- values, dtypes, grad_fn names,
first and second derivatives, in-place forms and errors. The float64 kernels
(ember/_ops/_specfun.py) are also measured against mpmath, in units in the last place."""
import math

import numpy as np
import pytest

from .oracle import check, arr, torch, BFLOAT16
import ember
from ember._ops import _specfun as S

F64_EDGES = np.array([0.0, -0.0, 1.0, 2.0, -1.0, -2.0, -2.5, -0.5, 0.5, 1e-320, -1e-320, 1e-300,
                      1e308, -1e308, 3.5e15, -3.5e15 - 0.5, 2.0 ** 53, np.inf, -np.inf, np.nan])


def _ulps(got, ref):
    """|got - ref| in units in the last place of ref (0 where both agree, nan included)."""
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    d = np.abs(got - ref) / np.spacing(np.abs(ref))
    d[(got == ref) | (np.isnan(got) & np.isnan(ref))] = 0
    return d


def _same_special(got, want):
    """Equal, nan for nan, and the same sign of zero and of infinity."""
    got, want = np.asarray(got), np.asarray(want)
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    ok = ~np.isnan(want)
    assert np.array_equal(np.isinf(got[ok]), np.isinf(want[ok])), (got, want)
    assert np.array_equal(np.signbit(got[ok & ((want == 0) | np.isinf(want))]),
                          np.signbit(want[ok & ((want == 0) | np.isinf(want))])), (got, want)


# -- the float64 kernels against mpmath --------------------------------------------------------
@pytest.fixture(scope='module')
def mp():
    mpmath = pytest.importorskip('mpmath')
    mpmath.mp.dps = 40
    return mpmath


def _reference(fn, xs):
    return np.array([float(fn(float(x))) for x in xs])


RNG = np.random.default_rng(2024)
POSITIVE = np.concatenate([RNG.uniform(0, 3, 150), RNG.uniform(3, 30, 100),
                           10 ** RNG.uniform(-300, 300, 60), 10 ** RNG.uniform(-6, 6, 100),
                           [0.5, 1.0, 1.5, 2.0, 2.5, 10.0, 1.4616321449683622, 1e-320]])
NEGATIVE = -np.concatenate([RNG.uniform(0, 3, 150), RNG.uniform(3, 30, 100),
                            10 ** RNG.uniform(-300, 6, 60), [0.25, 0.5, 1.5, 2.5, 1e-320]])


def test_lgamma_accuracy(mp):
    assert _ulps(S.lgamma(POSITIVE), _reference(mp.loggamma, POSITIVE)).max() <= 4
    ref = _reference(lambda x: mp.re(mp.loggamma(x)), NEGATIVE)
    got = S.lgamma(NEGATIVE)
    # full relative accuracy, except where lgamma crosses zero between the poles: there the
    # error is a few ulps of the reflection formula's terms (log pi, log|x sin(pi x)|, ...)
    err = np.abs(got - ref)
    assert np.all((_ulps(got, ref) <= 16) | (err <= 1e-15 * (1 + np.log1p(np.abs(NEGATIVE)))))


def test_digamma_accuracy(mp):
    assert _ulps(S.digamma(POSITIVE), _reference(mp.digamma, POSITIVE)).max() <= 4
    # near digamma's positive zero (its own Taylor series there)
    near = 1.4616321449683622 + np.linspace(-0.3, 0.3, 61)
    assert _ulps(S.digamma(near), _reference(mp.digamma, near)).max() <= 4
    neg = NEGATIVE[np.abs(NEGATIVE) < 1e6]
    got, ref = S.digamma(neg), _reference(mp.digamma, neg)
    assert np.all((_ulps(got, ref) <= 16) | (np.abs(got - ref) <= 2e-15 * (1 + np.abs(neg))))


@pytest.mark.parametrize('n', [1, 2, 3, 6])
def test_polygamma_accuracy(mp, n):
    pos = POSITIVE[(POSITIVE > 1e-60) & (POSITIVE < 1e30)]
    assert _ulps(S.polygamma(n, pos), _reference(lambda x: mp.polygamma(n, x), pos)).max() <= 8
    neg = NEGATIVE[np.abs(NEGATIVE) < 1e3]
    got, ref = S.polygamma(n, neg), _reference(lambda x: mp.polygamma(n, x), neg)
    scale = np.abs(_reference(lambda x: mp.polygamma(n, 1 - x), neg)) + np.abs(ref)
    assert np.all((_ulps(got, ref) <= 16) | (np.abs(got - ref) <= 1e-15 * scale))


def test_erfinv_accuracy(mp):
    ys = np.concatenate([RNG.uniform(-1, 1, 300), 1 - 10 ** RNG.uniform(-16, -0.5, 150),
                         -(1 - 10 ** RNG.uniform(-16, -0.5, 50)), 10 ** RNG.uniform(-300, -1, 50),
                         [0.5, 0.8, -0.8, np.nextafter(0.8, 1), 1 - 2 ** -53, -1 + 2 ** -53]])
    assert _ulps(S.erfinv(ys), _reference(mp.erfinv, ys)).max() <= 4


def test_bessel_accuracy(mp):
    xs = np.concatenate([RNG.uniform(-12, 12, 300), 10 ** RNG.uniform(-300, 2.8, 100)])
    assert _ulps(S.i0(xs), _reference(lambda x: mp.besseli(0, x), xs)).max() <= 8
    assert _ulps(S.i1(xs), _reference(lambda x: mp.besseli(1, x), xs)).max() <= 16


def test_constant_tables(mp):
    """The series coefficients in _specfun are what their comments say they are."""
    want = [1 - mp.euler] + [(-1) ** k * (mp.zeta(k) - 1) / k
                             for k in range(2, len(S.LGAMMA2) + 1)]
    assert _ulps(S.LGAMMA2, [float(v) for v in want]).max() <= 1
    x0 = mp.findroot(mp.digamma, 1.46)
    assert S.X0_HI == float(x0) and S.X0_LO == float(x0 - S.X0_HI)
    want = [mp.polygamma(k, x0) / mp.factorial(k) for k in range(1, len(S.DIGAMMA_ROOT) + 1)]
    assert _ulps(S.DIGAMMA_ROOT, [float(v) for v in want]).max() <= 1
    assert [float(b) for b in S._BERNOULLI] == [float(mp.bernoulli(2 * k)) for k in range(1, 14)]
    xs = np.linspace(0.375, 7, 301)
    # (as accurate as its largest value, 0.69: the relative error at x = 7, 0.08, is larger,
    # and divided by 2 x^2 in erfinv)
    err = np.abs(S._erfcx(xs) - _reference(lambda x: mp.exp(x * x) * mp.erfc(x), xs))
    assert err.max() <= 4e-16


# -- the kernels against torch on wide ranges, and at the edges --------------------------------
WIDE = np.concatenate([RNG.uniform(-30, 30, 3000), 10 ** RNG.uniform(-300, 300, 500),
                       -(10 ** RNG.uniform(-300, 15, 500)), np.arange(-20.0, 21.0) / 2])
UNIT = np.concatenate([RNG.uniform(-1, 1, 3000), 1 - 10 ** RNG.uniform(-16, 0, 500),
                       -1 + 10 ** RNG.uniform(-16, 0, 500), 10 ** RNG.uniform(-320, 0, 300)])


@pytest.mark.parametrize('op, xs, rtol', [
    ('lgamma', WIDE, 1e-12), ('digamma', WIDE, 1e-11), ('erfinv', UNIT, 1e-15),
    ('i0', WIDE[np.abs(WIDE) < 750], 2e-15), ('sinc', WIDE, 1e-14),
    ('polygamma1', WIDE, 1e-8), ('polygamma2', WIDE, 1e-11), ('polygamma3', WIDE, 1e-11),
])
def test_wide_range_against_torch(op, xs, rtol):
    """Within torch's own accuracy (torch's trigamma, polygamma(1, .), is good to ~1e-9)."""
    if op.startswith('polygamma'):
        n = int(op[-1])
        # (torch sums zeta(n + 1, x) term by term up from a negative x: -x steps)
        xs = xs[(xs > -1e4) | (xs == np.rint(xs))]
        got = ember.polygamma(n, ember.tensor(xs))._data
        want = torch.polygamma(n, torch.tensor(xs)).numpy()
        # torch's kernels underflow to 0 long before the true value does; for n = 1 they give
        # a finite value at the negative integers (ember: the pole's inf) and lose sin(pi x)
        # to the rounding of pi x for large negative x
        keep = (np.abs(want) > 1e-290) & ~((xs < 0) & (xs == np.rint(xs)))
        if n == 1:
            keep &= xs > -100
        got, want = got[keep], want[keep]
    else:
        got = getattr(ember, op)(ember.tensor(xs))._data
        want = getattr(torch, op)(torch.tensor(xs)).numpy()
    _same_special(got, want)
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=rtol, atol=1e-14)


@pytest.mark.parametrize('op', ['lgamma', 'digamma', 'erfinv', 'i0', 'sinc', 'deg2rad',
                                'rad2deg', 'logit', 'polygamma1', 'polygamma2', 'polygamma3'])
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_edge_values(op, dtype):
    """0, -0.0, poles, +-1, +-inf, nan, subnormals: the same specials as torch (inf, nan and
    the sign of zeros and infinities), the same finite values."""
    xs = np.concatenate([F64_EDGES, [0.999, -0.999, 1 - 2 ** -53, 1.5, -1.5, 800.0]])
    xs = xs.astype(dtype)
    if op.startswith('polygamma'):
        n = int(op[-1])
        if n == 1:  # torch: a large finite number at the negative integers; ember: +inf
            xs = xs[~((xs < 0) & (xs == np.rint(xs)) & np.isfinite(xs))]
        xs = xs[(xs > -1e4) | (xs == np.rint(xs))]  # (torch: -x steps of a sum there)
        got = ember.polygamma(n, ember.tensor(xs))._data
        want = torch.polygamma(n, torch.tensor(xs)).numpy()
    else:
        got = getattr(ember, op)(ember.tensor(xs))._data
        want = getattr(torch, op)(torch.tensor(xs)).numpy()
    assert got.dtype == want.dtype
    _same_special(got, want)
    fin = np.isfinite(want) & (np.abs(want) > np.finfo(dtype).tiny)
    # (torch's float32 digamma and trigamma lose a few ulps near the poles, computing in
    # float32, and its float64 trigamma is good to ~1e-9)
    rtol = 1e-5 if dtype == np.float32 else 1e-8 if op == 'polygamma1' else 1e-12
    np.testing.assert_allclose(got[fin], want[fin], rtol=rtol)


def test_polygamma_poles():
    x = ember.tensor([0.0, -0.0, -1.0, -7.0, -3e15])
    assert ember.polygamma(1, x).tolist() == [math.inf] * 5
    assert ember.polygamma(2, x).tolist() == [-math.inf] * 5
    assert ember.polygamma(3, x).tolist() == [math.inf] * 5


# -- the ops through the oracle: values, dtypes, grad_fn, gradients ---------------------------
UNARY = {  # op -> its domain for the derivative checks
    'lgamma': (0.3, 6.0), 'digamma': (0.3, 6.0), 'erfinv': (-0.9, 0.9), 'i0': (-4.0, 4.0),
    'sinc': (-3.0, 3.0), 'deg2rad': (-400.0, 400.0), 'rad2deg': (-7.0, 7.0),
    'logit': (0.05, 0.95),
}


@pytest.mark.parametrize('shape', [(), (0,), (5,), (2, 3)], ids=str)
@pytest.mark.parametrize('op', list(UNARY))
def test_unary(op, shape):
    lo, hi = UNARY[op]
    check(lambda T, x: getattr(T, op)(x), arr(*shape, low=lo, high=hi, seed=3), double=True)
    check(lambda T, x: getattr(x, op)(), arr(*shape, low=lo, high=hi, seed=4), double=True)


@pytest.mark.parametrize('op', list(UNARY))
def test_unary_negative_arguments(op):
    lo, hi = UNARY[op]
    x = arr(7, low=-4.5, high=-0.1, seed=5) if lo > 0 and op != 'logit' else \
        arr(7, low=lo, high=hi, seed=5)
    check(lambda T, x: getattr(T, op)(x), x, double=True)


@pytest.mark.parametrize('op', list(UNARY))
@pytest.mark.parametrize('dtype', [np.float32, np.int64, np.int32, np.uint8, np.bool_,
                                   np.float16, BFLOAT16])
def test_unary_dtypes(op, dtype):
    """Integers and bools give the default float dtype; float16/32 keep theirs."""
    x = arr(6, dtype=dtype, low=0, high=3) if dtype != np.bool_ else arr(6, dtype=dtype)
    if np.dtype(dtype).kind in 'fV':
        x = arr(6, dtype=dtype, low=-0.9, high=0.9)
    tol = {np.float16: 2e-3, np.float32: 2e-6}.get(dtype)
    check(lambda T, x: getattr(T, op)(x), x, grad=False, rtol=tol, atol=tol)


def test_unary_default_dtype_float64():
    def fn(T, x):
        old = T.get_default_dtype()
        T.set_default_dtype(T.float64)
        try:
            return [T.lgamma(x), T.erfinv(x * 0), T.i0(x), T.logit(x, 0.1), T.xlogy(x, 2)]
        finally:
            T.set_default_dtype(old)
    check(fn, arr(4, dtype=np.int64, low=1, high=5))


@pytest.mark.parametrize('op', list(UNARY))
def test_unary_inplace(op):
    lo, hi = UNARY[op]
    check(lambda T, x: getattr(x.clone(), op + '_')(), arr(5, low=lo, high=hi, seed=6),
          double=True)
    check(lambda T, x: getattr(x[1:], op + '_')(), arr(5, low=lo, high=hi, seed=7))
    check(lambda T: getattr(T.ones(3, dtype=T.int64), op + '_')(), match_message=True)


@pytest.mark.parametrize('name', ['sinc_', 'i0_', 'deg2rad_', 'rad2deg_', 'logit_', 'xlogy_',
                                  'gcd_', 'lcm_', 'ldexp_', 'lgamma_', 'digamma_', 'erfinv_',
                                  'polygamma_', 'mvlgamma_', 'frexp_', 'isin_'])
def test_namespace(name):
    """The in-place forms torch has as functions, and which it has as methods only."""
    assert hasattr(ember, name) == hasattr(torch, name)
    assert hasattr(ember.Tensor, name) == hasattr(torch.Tensor, name)
    base = name[:-1]
    assert hasattr(ember, base) and hasattr(ember.Tensor, base) == hasattr(torch.Tensor, base)


@pytest.mark.parametrize('expr', [
    lambda T, x: T.lgamma(x + 1j), lambda T, x: T.digamma(x + 1j), lambda T, x: T.erfinv(x + 1j),
    lambda T, x: T.i0(x + 1j), lambda T, x: T.logit(x + 1j), lambda T, x: T.deg2rad(x + 1j),
    lambda T, x: T.rad2deg(x + 1j), lambda T, x: T.polygamma(1, x + 1j),
    lambda T, x: T.sinc(x + 1j), lambda T, x: T.sinc(x * 0 + 0j),
])
def test_complex_inputs(expr):
    check(expr, arr(4, low=0.2, high=0.8), match_message=True)


def test_special_derivatives_at_singular_points():
    check(lambda T, x: T.sinc(x * 0), arr(3), double=True)   # sinc'(0) = 0
    check(lambda T, x: T.i0(x * 0), arr(3), double=True)     # i0''(0) = 1/2
    check(lambda T, x: T.erfinv(x * 0), arr(3), double=True)
    check(lambda T, x: T.erfinv(T.tensor([-1.0, 1.0], dtype=x.dtype) + x * 0), arr(2))


# -- polygamma, mvlgamma -----------------------------------------------------------------------
@pytest.mark.parametrize('n', [0, 1, 2, 3, 5])
def test_polygamma(n):
    check(lambda T, x: T.polygamma(n, x), arr(2, 3, low=0.3, high=5.0), double=True,
          rtol=1e-7 if n < 2 else None)  # (torch's trigamma is good to ~1e-9 only)
    check(lambda T, x: x.polygamma(n), arr(4, low=-3.0, high=-0.1), rtol=1e-7)
    check(lambda T, x: x.clone().polygamma_(n), arr(4, low=0.5, high=3.0), rtol=1e-7)


def test_digamma_gradient_is_trigamma():
    # torch computes trigamma to ~1e-9 relative only: the gradients are compared at that level
    check(lambda T, x: T.digamma(x), arr(6, low=0.2, high=8), double=True, rtol=1e-8)
    check(lambda T, x: T.lgamma(x), arr(6, low=0.2, high=8), double=True, rtol=1e-8)


@pytest.mark.parametrize('expr', [
    lambda T, x: T.polygamma(-1, x), lambda T, x: T.polygamma(1.0, x),
    lambda T, x: T.polygamma(1, 2.0), lambda T, x: T.polygamma(1, x.long()),
    lambda T, x: T.polygamma(2, x > 0), lambda T, x: x.long().polygamma_(1),
    lambda T, x: T.polygamma(True, x), lambda T, x: x.polygamma(1.0),
    lambda T, x: x.clone().polygamma_(1.0), lambda T, x: (x > 0).polygamma_(1),
])
def test_polygamma_errors_and_dtypes(expr):
    check(expr, arr(3, low=0.5, high=2), match_message=True)


@pytest.mark.parametrize('p', [1, 2, 3, 5])
def test_mvlgamma(p):
    x = arr(2, 3, low=(p - 1) / 2 + 0.1, high=6.0)
    check(lambda T, x: T.mvlgamma(x, p), x, double=True)
    check(lambda T, x: x.mvlgamma(p=p), x.astype(np.float32))
    check(lambda T, x: x.clone().mvlgamma_(p), x, double=True)


@pytest.mark.parametrize('expr', [
    # torch 2.13 has no domain check: outside input > (p-1)/2, lgamma's values (and poles)
    lambda T, x: T.mvlgamma(x, 3), lambda T, x: T.mvlgamma(x - 5, 2),
    lambda T, x: T.mvlgamma(T.tensor([0.5, 1.0, -1.5, 0.0, float('inf'), float('nan')]), 2),
    lambda T, x: T.mvlgamma(T.arange(1, 5), 2),
    lambda T, x: T.mvlgamma(T.arange(1, 5, dtype=T.int32), 3),
    lambda T, x: T.mvlgamma(T.tensor([], dtype=T.float64), 4),
    lambda T, x: T.mvlgamma(x, 0), lambda T, x: T.mvlgamma(x, -1), lambda T, x: T.mvlgamma(x, 2.5),
    lambda T, x: T.mvlgamma(x > 0, 1), lambda T, x: T.mvlgamma(x > 0, 0),
    lambda T, x: T.mvlgamma(x + 1j, 1), lambda T, x: T.arange(3).mvlgamma_(1),
    lambda T, x: x.clone().mvlgamma_(0), lambda T, x: x.clone().mvlgamma_(True),
    lambda T, x: T.mvlgamma(x, True), lambda T, x: (x > 0).mvlgamma_(1),
    lambda T, x: (x + 1j).mvlgamma_(1),
])
def test_mvlgamma_domain_and_errors(expr):
    check(expr, arr(4, low=0.05, high=1.2, seed=9), match_message=True)


# -- logit -------------------------------------------------------------------------------------
@pytest.mark.parametrize('eps', [None, 0.0, 0.1, 0.45, 0.6, -0.2])
def test_logit_eps(eps):
    x = np.array([-0.5, 0.0, 0.05, 0.1, 0.3, 0.5, 0.9, 0.95, 1.0, 1.5, np.nan])
    check(lambda T, x: T.logit(x, eps), x, double=True)
    check(lambda T, x: x.logit(eps=eps), x.astype(np.float32))
    check(lambda T, x: T.logit_(x.clone(), eps), x)
    check(lambda T, x: x.clone().logit_(eps), x)
    check(lambda T: T.logit(T.tensor([0, 1]), eps))


# -- xlogy -------------------------------------------------------------------------------------
@pytest.mark.parametrize('shapes', [((3,), (3,)), ((2, 1), (1, 3)), ((), (4,)), ((2, 3), ())],
                         ids=str)
def test_xlogy(shapes):
    a = arr(*shapes[0], low=-1, high=2, seed=1)
    b = arr(*shapes[1], low=0.1, high=3, seed=2)
    check(lambda T, x, y: T.xlogy(x, y), a, b, double=True)
    check(lambda T, x, y: x.xlogy(y), a, b, double=True)


@pytest.mark.parametrize('other', [2, 2.5, 0.0, -1.0, 0.5, True])
def test_xlogy_scalar_other(other):
    x = np.array([0.0, 0.5, 1.0, 2.0, np.nan])
    check(lambda T, x: T.xlogy(x, other), x, double=True)
    check(lambda T, x: x.xlogy(other), x)
    check(lambda T, x: x.clone().xlogy_(other), x, double=True)


@pytest.mark.parametrize('self_', [2, 2.5, 0.0, -1.0, True])
def test_xlogy_scalar_self(self_):
    check(lambda T, y: T.xlogy(self_, y), np.array([0.0, 0.5, 1.0, 2.0, -1.0, np.nan]),
          double=True)


def test_xlogy_special_values():
    x = np.array([0.0, 0.0, 0.0, 1.0, 1.0, -1.0, np.nan, 0.0, 2.0])
    y = np.array([0.0, np.nan, -1.0, 0.0, np.inf, 0.5, 1.0, np.inf, -np.inf])
    check(lambda T, x, y: T.xlogy(x, y), x, y, double=True)


@pytest.mark.parametrize('expr', [
    lambda T: T.xlogy(T.arange(4), T.arange(4)), lambda T: T.xlogy(T.arange(4), 2),
    lambda T: T.xlogy(T.arange(4), 2.5), lambda T: T.xlogy(True, T.arange(4)),
    lambda T: T.xlogy(T.tensor([True, False]), T.tensor([True, False])),
    lambda T: T.xlogy(T.ones(3), T.tensor(2.0, dtype=T.float64)),
    lambda T: T.xlogy(T.ones(3, dtype=T.float64), T.tensor([2.0])),
    lambda T: T.xlogy(T.ones(3, dtype=T.float16), T.ones(3)),
    lambda T: T.xlogy(T.ones(3, dtype=T.int32), T.ones(3, dtype=T.uint8)),
    lambda T: T.xlogy(2, 3), lambda T: T.xlogy(T.ones(3), 'a'), lambda T: T.xlogy(T.ones(3), None),
    lambda T: T.xlogy(T.ones(3), T.ones(2)), lambda T: T.xlogy(T.ones(2) + 1j, T.ones(2)),
    lambda T: T.xlogy_(T.ones(3), T.arange(3)), lambda T: T.arange(3).xlogy_(T.ones(3)),
    lambda T: T.ones(3).xlogy_(T.ones(2, 3)),
])
def test_xlogy_promotion_and_errors(expr):
    check(expr, match_message=True)


# -- deg2rad, rad2deg, sinc details ------------------------------------------------------------
@pytest.mark.parametrize('expr', [
    lambda T: T.deg2rad(T.arange(-360, 361, 45)), lambda T: T.rad2deg(T.tensor([True, False])),
    lambda T: T.deg2rad_(T.tensor([180.0, 90.0])), lambda T: T.rad2deg_(T.tensor([3.0])),
    lambda T: T.sinc_(T.tensor([0.0, 0.5])), lambda T: T.i0_(T.tensor([0.0, 0.5])),
    lambda T: T.sinc(T.arange(-3, 4)), lambda T: T.sinc(T.tensor([1.0, 2.0], dtype=T.float16)),
    lambda T: T.sinc(T.tensor([0.5 + 0.5j, 0j, 2 - 1j])),
    lambda T: T.sinc(T.tensor([0.5 + 0.5j, 2 - 1j], dtype=T.complex128)),
])
def test_angle_and_sinc_details(expr):
    check(expr, match_message=True)


def test_sinc_complex_gradient():
    check(lambda T, x: T.sinc(x), arr(4, dtype=np.complex128, seed=2), double=True)


# -- gcd, lcm ----------------------------------------------------------------------------------
I8, I64 = np.int8, np.int64


@pytest.mark.parametrize('a, b', [
    (np.array([12, -18, 0, 7, 0]), np.array([8, 12, 0, -21, -5])),
    (np.array([-2 ** 63, 2 ** 62, -2 ** 63]), np.array([0, 3, 1])),
    (np.array([100, -100, -6, -128], I8), np.array([3, 3, -4, 0], I8)),
    (np.array([200, 6], np.uint8), np.array([3, 4], np.uint8)),
    (np.array([[12], [18]], np.int32), np.array([8, 12, 30], np.int16)),
    (np.array([4, 9], np.int32), np.array(6)),
])
def test_gcd_lcm(a, b):
    for op in ('gcd', 'lcm'):
        check(lambda T, x, y: getattr(T, op)(x, y), a, b)
        check(lambda T, x, y: getattr(x, op)(y), a, b)
        check(lambda T, x, y: getattr(T, op + '_')(x.clone(), y), a, b)
        check(lambda T, x, y: getattr(x.clone(), op + '_')(y), a, b)


@pytest.mark.parametrize('op', ['gcd', 'lcm'])
@pytest.mark.parametrize('expr', [
    lambda T, f: f(T.ones(3), T.ones(3)), lambda T, f: f(T.arange(3), T.ones(3)),
    lambda T, f: f(T.arange(3), T.tensor(4.0)), lambda T, f: f(T.ones(2) > 0, T.ones(2) > 0),
    lambda T, f: f(T.arange(3), 4), lambda T, f: f(5, T.arange(3)),
    lambda T, f: f(T.arange(3), T.arange(2)), lambda T, f: f(T.ones(2) + 1j, T.ones(2) + 1j),
    lambda T, f: f(T.arange(3), T.arange(3), out=T.empty(3, dtype=T.int64)),
])
def test_gcd_lcm_errors(op, expr):
    check(lambda T: expr(T, getattr(T, op)), match_message=True)


@pytest.mark.parametrize('expr', [
    lambda T, f: f(T.arange(3), T.ones(3)), lambda T, f: f(T.ones(3), T.ones(3)),
    lambda T, f: f(T.arange(3, dtype=T.int32), T.arange(3)),
    lambda T, f: f(T.arange(3, dtype=T.int8), T.tensor(300)),
])
@pytest.mark.parametrize('op', ['gcd_', 'lcm_'])
def test_gcd_lcm_inplace_casts(op, expr):
    check(lambda T: expr(T, getattr(T, op)), match_message=True)


# -- ldexp, frexp ------------------------------------------------------------------------------
@pytest.mark.filterwarnings('ignore:An output with one or more elements was resized')
@pytest.mark.parametrize('e', [np.array([1, 2, -3]), np.array([1.5, 2.0, -0.5]),
                               np.array([[1], [-2]]), np.array(3)], ids=str)
def test_ldexp(e):
    x = np.array([1.5, -2.0, 0.0])
    check(lambda T, x, e: T.ldexp(x, e), x, e, double=True)
    check(lambda T, x, e: x.ldexp(e), x.astype(np.float32), e)
    check(lambda T, x, e: T.ldexp_(x.clone(), e), x, e) if e.ndim <= 1 else None
    check(lambda T, x, e: x.clone().ldexp_(e), x, e) if e.ndim <= 1 else None


@pytest.mark.parametrize('expr', [
    lambda T: T.ldexp(T.arange(3), T.arange(3)), lambda T: T.ldexp(T.arange(3), T.tensor(3.0)),
    lambda T: T.ldexp(T.tensor([True]), T.tensor([True])),
    lambda T: T.ldexp(T.ones(3, dtype=T.float16), T.arange(3, dtype=T.float64)),
    lambda T: T.ldexp(T.tensor([3.0], dtype=T.float16), T.tensor([2])),
    lambda T: T.ldexp(T.ones(3, dtype=T.float64), T.arange(3, dtype=T.int32)),
    lambda T: T.ldexp(T.tensor([1 + 1j]), T.tensor([2])),
    lambda T: T.ldexp(T.tensor([1e-300], dtype=T.float64), T.tensor([-800])),
    lambda T: T.ldexp(T.ones(1), T.tensor([1000])),
    lambda T: T.ldexp(T.ones(3), 2), lambda T: T.ldexp(2.0, T.ones(3)),
    lambda T: T.ldexp(T.ones(3), T.ones(2)), lambda T: T.arange(3).ldexp_(T.arange(3)),
])
def test_ldexp_promotion_and_errors(expr):
    check(expr, match_message=True)


def test_ldexp_complex_gradient():
    # (a float exponent next to a complex input makes torch's backward fail: its gradient
    # comes out complex)
    check(lambda T, x, e: T.ldexp(x, e), arr(3, dtype=np.complex128), np.array([1, 3, 0]),
          double=True)


def test_frexp():
    x = np.array([1.5, -2.0, 0.0, 3e-5, 1e10, -0.3])
    check(lambda T, x: T.frexp(x), x, double=True)
    check(lambda T, x: list(x.frexp()), x.astype(np.float32))
    check(lambda T, x: T.frexp(x).mantissa * 2, x)
    check(lambda T, x: T.frexp(x)[1], x)
    out = ember.frexp(ember.tensor([3.0]))
    assert type(out).__name__ == 'frexp' and out._fields == ('mantissa', 'exponent')
    assert repr(out) == repr(torch.frexp(torch.tensor([3.0])))
    assert type(out) is type(ember.frexp(ember.tensor(1.0))) is ember.return_types.frexp


@pytest.mark.parametrize('dtype', [np.float64, np.float32, np.float16, BFLOAT16])
def test_frexp_special_values(dtype):
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45, 5e-324, 6e-8, 1.0, -0.75, 65504.0])
    with np.errstate(all='ignore'):
        x = x.astype(dtype)
    check(lambda T, x: T.frexp(x), x, grad=False)


@pytest.mark.parametrize('expr', [
    lambda T: T.frexp(T.arange(3)), lambda T: T.frexp(T.ones(2) > 0),
    lambda T: T.frexp(T.ones(2) + 1j), lambda T: T.frexp(2.0), lambda T: T.frexp(T.tensor(3.0)),
    lambda T: T.frexp(T.ones(3), out=(T.empty(3), T.empty(3, dtype=T.int32))),
])
def test_frexp_errors_and_out(expr):
    check(expr, match_message=True)


# -- isreal, isin ------------------------------------------------------------------------------
@pytest.mark.parametrize('expr', [
    lambda T: T.isreal(T.tensor([1 + 1j, 2 + 0j, complex(float('nan'), 0), complex(0, -0.0)])),
    lambda T: T.tensor([1 + 1j, 2 + 0j], dtype=T.complex128).isreal(),
    lambda T: T.isreal(T.tensor([1.0, float('nan')], requires_grad=True)),
    lambda T: T.isreal(T.arange(3)), lambda T: T.isreal(T.tensor([True])),
    lambda T: T.isreal(T.tensor(1 + 0j)), lambda T: T.isreal(T.ones(2, 0)),
    lambda T: T.isreal(1.0),
])
def test_isreal(expr):
    check(expr, match_message=True)


E = np.array([[1, 2], [3, 4]])
S_ = np.array([2, 4, 6])


@pytest.mark.parametrize('expr', [
    lambda T, e, s: T.isin(e, s), lambda T, e, s: T.isin(e, s, invert=True),
    lambda T, e, s: T.isin(e, s, assume_unique=True),
    lambda T, e, s: T.isin(e, s, assume_unique=True, invert=True),
    lambda T, e, s: T.isin(elements=e, test_elements=s), lambda T, e, s: T.isin(e, 2),
    lambda T, e, s: T.isin(e, test_element=2), lambda T, e, s: T.isin(3, s),
    lambda T, e, s: T.isin(element=4, test_elements=s), lambda T, e, s: T.isin(e, 2.0),
    lambda T, e, s: T.isin(e, 2.5), lambda T, e, s: T.isin(e.float(), s),
    lambda T, e, s: T.isin(e, s.double()), lambda T, e, s: T.isin(2.5, s),
    lambda T, e, s: T.isin(2, s.float()), lambda T, e, s: T.isin(e, T.tensor([2.5, 4.0])),
    lambda T, e, s: T.isin(T.tensor([0.1]), T.tensor([0.1], dtype=T.float64)),
    lambda T, e, s: T.isin(T.tensor([0.1]), T.tensor(0.1, dtype=T.float64)),
    lambda T, e, s: T.isin(T.tensor([0.1]), 0.1), lambda T, e, s: T.isin(0.1, T.tensor([0.1])),
    lambda T, e, s: T.isin(e.to(T.int8), T.tensor([258])),
    lambda T, e, s: T.isin(e.to(T.int8), 258),
    lambda T, e, s: T.isin(e.to(T.uint8), -255), lambda T, e, s: T.isin(e, 2 ** 70),
    lambda T, e, s: T.isin(T.tensor([float('nan'), 1.0]), T.tensor([float('nan'), 1.0])),
    lambda T, e, s: T.isin(T.tensor([], dtype=T.int64), s), lambda T, e, s: T.isin(e, s[:0]),
    lambda T, e, s: T.isin(T.tensor(3), s), lambda T, e, s: T.isin(e[0], s.view(3, 1)),
    lambda T, e, s: T.isin(T.tensor([1.0], requires_grad=True), T.tensor([1.0])),
    lambda T, e, s: T.isin(T.tensor([2.0], dtype=T.float16), T.tensor([2.0])),
    # errors
    lambda T, e, s: T.isin(3, 3), lambda T, e, s: T.isin(e, [2, 3]), lambda T, e, s: T.isin(e, 'a'),
    lambda T, e, s: T.isin(e, s, True), lambda T, e, s: T.isin(e, test_elements=2),
    lambda T, e, s: T.isin(elements=3, test_elements=s), lambda T, e, s: T.isin(e),
    lambda T, e, s: T.isin(e > 2, s), lambda T, e, s: T.isin(e, s > 2),
    lambda T, e, s: T.isin(e, True),
    lambda T, e, s: T.isin(True, s), lambda T, e, s: T.isin(e + 1j, s),
    lambda T, e, s: T.isin(e, 1 + 1j), lambda T, e, s: T.isin(e + 1j, s > 2),
])
def test_isin(expr):
    check(expr, E, S_, match_message=True)


def test_isin_large_and_unique():
    rng = np.random.default_rng(0)
    e = rng.integers(0, 1000, (40, 50))
    s = np.unique(rng.integers(0, 1000, 300))
    check(lambda T, e, s: T.isin(e, s), e, s)
    check(lambda T, e, s: T.isin(s, s, assume_unique=True, invert=True), e, s)


# -- complex, polar ----------------------------------------------------------------------------
@pytest.mark.parametrize('shapes', [((3,), (3,)), ((2, 1), (3,)), ((), (2, 2)), ((2, 3), ())],
                         ids=str)
@pytest.mark.parametrize('op', ['complex', 'polar'])
def test_complex_and_polar(op, shapes):
    a = arr(*shapes[0], seed=1)
    b = arr(*shapes[1], seed=2)
    check(lambda T, x, y: getattr(T, op)(x, y), a, b, double=True)
    check(lambda T, x, y: getattr(T, op)(x, y), a.astype(np.float32), b.astype(np.float32))


def test_polar_negative_and_zero_abs():
    """torch's polar_backward goes through sgn(result): at abs <= 0 it is not the derivative
    of abs * exp(i angle), and ember gives what torch gives."""
    check(lambda T, r, t: T.polar(r, t), np.array([1.0, -1.0, 0.0, -0.0]),
          np.array([0.3, 0.2, 1.0, 2.0]), double=True)


@pytest.mark.filterwarnings('ignore:ComplexHalf support is experimental')
@pytest.mark.parametrize('expr', [
    lambda T: T.complex(real=T.ones(2), imag=T.zeros(2)), lambda T: T.polar(abs=T.ones(2),
                                                                             angle=T.zeros(2)),
    lambda T: T.complex(T.tensor([float('inf'), float('nan')]), T.tensor([0.0, 1.0])),
    lambda T: T.polar(T.tensor([float('inf'), 1.0]), T.tensor([0.0, float('inf')])),
    lambda T: T.complex(T.ones(2), T.ones(2, dtype=T.float64)),
    lambda T: T.complex(T.ones(2, dtype=T.float64), T.ones(2)),
    lambda T: T.complex(T.arange(2), T.arange(2)), lambda T: T.complex(T.ones(2), T.arange(2)),
    lambda T: T.complex(T.arange(2), T.ones(2)), lambda T: T.complex(T.ones(2) > 0, T.ones(2) > 0),
    lambda T: T.complex(T.ones(2) + 1j, T.ones(2) + 1j), lambda T: T.complex(T.ones(2), 2.0),
    lambda T: T.complex(1.0, T.ones(2)), lambda T: T.complex(T.ones(2), T.ones(3)),
    lambda T: T.complex(T.ones(2), T.tensor(2.0, dtype=T.float64)),
    lambda T: T.polar(T.ones(2), T.ones(2, dtype=T.float64)), lambda T: T.polar(T.ones(2), 2.0),
    lambda T: T.polar(T.arange(2), T.arange(2)),
    lambda T: T.polar(T.ones(2, dtype=T.float16), T.ones(2, dtype=T.float16)),
    lambda T: T.complex(T.ones(2), T.ones(2), out=T.empty(2, dtype=T.complex64)),
])
def test_complex_and_polar_details(expr):
    check(expr, match_message=True)


def test_complex_half_makes_complex32():
    """The half forms make an (experimental) complex32 tensor, as torch's."""
    check(lambda T, a, b: T.complex(a.half(), b.half()), arr(2), arr(2, seed=1), grad=False)
    check(lambda T, a: T.view_as_complex(a.half()), arr(3, 2), grad=False)


# -- view_as_real, view_as_complex -------------------------------------------------------------
@pytest.mark.parametrize('shape', [(), (3,), (2, 3), (0, 2)], ids=str)
def test_view_as_real(shape):
    c = arr(*shape, dtype=np.complex128, seed=3)
    check(lambda T, c: T.view_as_real(c), c, double=True)
    check(lambda T, c: T.view_as_real(c) * 2, c.astype(np.complex64))
    check(lambda T, c: T.view_as_real(c.t() if c.dim() == 2 else c)[..., 1], c, double=True)


@pytest.mark.parametrize('shape', [(2,), (3, 2), (2, 3, 2)], ids=str)
def test_view_as_complex(shape):
    x = arr(*shape, seed=4)
    check(lambda T, x: T.view_as_complex(x), x, double=True)
    check(lambda T, x: T.view_as_complex(x) * (1 + 2j), x.astype(np.float32), double=True)


@pytest.mark.parametrize('shape', [(0, 2), (2, 0, 2)], ids=str)
def test_view_as_complex_empty(shape):
    # (made by zeros: torch.tensor of an empty NumPy array has strides view_as_complex refuses)
    check(lambda T: T.view_as_complex(T.zeros(shape, dtype=T.float64, requires_grad=True)))


@pytest.mark.parametrize('expr', [
    lambda T: T.view_as_real(T.ones(3)), lambda T: T.view_as_real(T.arange(3)),
    lambda T: T.view_as_complex(T.ones(3, 3)), lambda T: T.view_as_complex(T.ones(2, 3).t()),
    lambda T: T.view_as_complex(T.ones(3, 2, dtype=T.int64)),
    lambda T: T.view_as_complex(T.ones(3, 2) > 0), lambda T: T.view_as_complex(T.ones(())),
    lambda T: T.view_as_complex(T.ones(3, 4)[:, 1:3]),
    lambda T: T.view_as_complex(T.ones(3, 3)[:, :2]),
    lambda T: T.view_as_complex(T.ones(5)[1:].view(2, 2)),
    lambda T: T.view_as_complex(T.ones(4, 2)[::2]), lambda T: T.view_as_complex(T.ones(5)[1:3]),
    lambda T: T.view_as_complex(T.ones(3, 1, 2)[:, 0]),
    lambda T: T.view_as_complex(T.ones(6)[2:].view(2, 2)),
    lambda T: T.view_as_complex(T.ones(4, 2, dtype=T.complex64)), lambda T: T.view_as_real(2.0),
    lambda T: T.view_as_real(T.view_as_complex(T.arange(8.0).view(2, 2, 2))),
])
def test_view_errors_and_strides(expr):
    check(expr, match_message=True)


def test_views_share_memory_and_version():
    for lib in (ember, torch):
        c = lib.tensor([1 + 2j, 3 - 4j])
        r = lib.view_as_real(c)
        assert r._base is c
        r[0, 1] = 7.0
        assert c[0].item() == 1 + 7j
        c.mul_(2)
        assert r.tolist() == [[2.0, 14.0], [6.0, -8.0]]
        x = lib.arange(8.0).view(2, 2, 2)
        z = lib.view_as_complex(x)
        z[1, 0] = 5 - 5j
        assert x[1, 0].tolist() == [5.0, -5.0]
        v = x._version
        z.mul_(1j)
        assert x._version > v and x[1, 0].tolist() == [5.0, 5.0]


@pytest.mark.parametrize('expr', [
    # writing through a view of a tensor that requires grad: CopySlices to the base
    lambda T, c: T.view_as_real(c * 1).mul_(2).sum(),
    lambda T, c: _through(T, c), lambda T, c: T.view_as_complex(T.view_as_real(c * 1)) * 1j,
    lambda T, c: T.view_as_real(T.view_as_complex(T.view_as_real(c))) ** 2,
])
def test_views_with_autograd(expr):
    check(expr, arr(3, dtype=np.complex128, seed=5), double=True)


def _through(T, c):
    b = c * 1
    T.view_as_real(b)[:, 0].mul_(3)
    return b


def test_view_as_complex_inplace_on_real_base():
    def fn(T, x):
        y = x * 1
        T.view_as_complex(y).mul_(1 + 1j)
        return y
    check(fn, arr(3, 2, seed=6), double=True)


def test_forward_ad_through_special_ops():
    import ember.autograd.forward_ad as efwad
    import torch.autograd.forward_ad as tfwad
    x = arr(4, low=0.3, high=0.9, seed=7)
    t = arr(4, seed=8)
    for fn in (lambda T, p: T.lgamma(p), lambda T, p: T.digamma(p), lambda T, p: T.erfinv(p),
               lambda T, p: T.i0(p), lambda T, p: T.logit(p, 0.4), lambda T, p: T.sinc(p),
               lambda T, p: T.xlogy(p, p + 1), lambda T, p: T.polygamma(2, p),
               lambda T, p: T.mvlgamma(p + 2, 3), lambda T, p: T.view_as_real(T.polar(p, p)),
               lambda T, p: T.ldexp(p, T.tensor([1, 2, 3, 4]))):
        got = []
        for lib, fw in ((ember, efwad), (torch, tfwad)):
            with fw.dual_level():
                d = fw.make_dual(lib.tensor(x), lib.tensor(t))
                got.append(fw.unpack_dual(fn(lib, d)).tangent.detach().numpy())
        np.testing.assert_allclose(got[0], got[1], rtol=1e-8)


def test_torch_function_dispatch():
    """The new ops dispatch through __torch_function__ like every other op."""
    seen = []

    class Logged(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = ember.tensor([0.5, 0.25]).as_subclass(Logged)
    for r in (ember.lgamma(x), x.digamma(), ember.polygamma(1, x), ember.xlogy(x, 2),
              ember.isin(x, 0.5), ember.view_as_real(ember.complex(x, x)), x.logit()):
        assert isinstance(r, Logged)
    assert seen == ['lgamma', 'digamma', 'polygamma', 'xlogy', 'isin', 'complex',
                    'view_as_real', 'logit']
