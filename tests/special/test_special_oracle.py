"""ember.special (all 56 of torch.special's functions) and the top-level and Tensor forms of
erfc, igamma and igammac, against torch 2.13: values over domains that include the edges
(0, -0.0, poles, +-inf, nan) in float32 and float64, integer/bool promotion, 0-d and empty
tensors, dtypes torch refuses, first and second derivatives (and torch's "not implemented"
derivatives), out=, in-place forms, and the namespace's place in ``ember.overrides``.

Tolerances beyond the oracle's defaults are torch's own accuracy, measured:
- torch's float64 ``bessel_j0/j1/y0/y1`` and ``airy_ai`` have single-precision accuracy
  (absolute errors up to 4e-7 for j0 and 9e-7 for y1 near x = 5, 3e-6 for airy_ai near
  x = -2.1; scipy's values, which ember gives, agree with mpmath): float64 compares to 1e-5;
- float32 polynomials of high degree: torch's float32 recurrence and trigonometric forms
  round differently from NumPy's (FMA, its own sin/cos/acos), and n amplifies one ulp of
  the angle n-fold, so these compare to 1e-3 of the terms' size.
"""
import numpy as np
import pytest

from ..oracle.oracle import check, torch
import ember
from ember._ops import _scipy

_NO_SCIPY = "scipy is not installed or EMBER_NO_SCIPY is set (pip install 'ember[scipy]')"
needs_scipy = pytest.mark.skipif(_scipy.special() is None, reason=_NO_SCIPY)

EDGES = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 7.0, -7.0, 30.0, -30.0, 1e-7,
                  np.inf, -np.inf, np.nan])
SMOOTH = np.linspace(-6, 6, 29)
POSITIVE = np.array([1e-6, 0.01, 0.3, 0.5, 1.0, 2.0, 3.7, 8.0, 8.5, 20.0, 100.0])
UNIT = np.array([1e-12, 0.001, 0.1, 0.3, 0.5, 0.7, 0.9, 0.999, 1 - 1e-12])


def _sp(name):
    return lambda lib, x: getattr(lib.special, name)(x)


# name -> (values domain, derivative domain (None: torch has no derivative), scipy needed,
#          extra float64 tolerance)
UNARY = {
    'erf': (EDGES, SMOOTH, False, None),
    'erfc': (np.concatenate([EDGES, [5.0, 10.0, 26.0, -26.0]]), SMOOTH, False, None),
    'erfcx': (np.concatenate([EDGES, [-26.0, 26.0, 1e5, -1e3]]), SMOOTH, True, None),
    'erfinv': (np.array([0.0, -0.0, 0.5, -0.5, 0.99, -0.999, 1.0, -1.0, 2.0, np.nan]),
               np.linspace(-0.9, 0.9, 13), False, None),
    'expit': (EDGES, SMOOTH, False, None),
    'exp2': (EDGES, SMOOTH, False, None),
    'expm1': (EDGES, SMOOTH, False, None),
    'log1p': (np.concatenate([EDGES, [-1.5]]), POSITIVE, False, None),
    'ndtr': (np.concatenate([EDGES, [-8.0, -10.0]]), SMOOTH, False, None),
    'ndtri': (np.concatenate([UNIT, [0.0, 1.0, -0.5, 1.5, np.nan]]), UNIT[1:-1], True, None),
    'log_ndtr': (np.concatenate([EDGES, [-40.0, -1e3, 40.0]]), SMOOTH, True, None),
    'entr': (np.concatenate([EDGES, POSITIVE]), POSITIVE, False, None),
    'digamma': (np.concatenate([EDGES, POSITIVE]), POSITIVE, False, None),
    'psi': (np.concatenate([EDGES, POSITIVE]), POSITIVE, False, None),
    'gammaln': (np.concatenate([EDGES, POSITIVE]), POSITIVE, False, None),
    'i0': (EDGES, SMOOTH, False, None),
    'i0e': (np.concatenate([EDGES, [710.0, -800.0, 1e5]]), SMOOTH, False, None),
    'i1': (EDGES, SMOOTH, False, None),
    'i1e': (np.concatenate([EDGES, [710.0, -800.0, 1e5]]), SMOOTH, False, None),
    'sinc': (EDGES, SMOOTH, False, None),
    'bessel_j0': (np.concatenate([EDGES, SMOOTH, [100.0, 1e4]]), None, True, 1e-5),
    'bessel_j1': (np.concatenate([EDGES, SMOOTH, [100.0, 1e4]]), None, True, 1e-5),
    'bessel_y0': (np.concatenate([EDGES, POSITIVE, [1e4]]), None, True, 1e-5),
    'bessel_y1': (np.concatenate([EDGES, POSITIVE, [1e4]]), None, True, 1e-5),
    'modified_bessel_i0': (np.concatenate([EDGES, SMOOTH]), None, False, None),
    'modified_bessel_i1': (np.concatenate([EDGES, SMOOTH]), None, False, None),
    'modified_bessel_k0': (np.concatenate([EDGES, POSITIVE]), None, True, None),
    'modified_bessel_k1': (np.concatenate([EDGES, POSITIVE]), None, True, None),
    'scaled_modified_bessel_k0': (np.concatenate([EDGES, POSITIVE, [800.0]]), None, True, None),
    'scaled_modified_bessel_k1': (np.concatenate([EDGES, POSITIVE, [800.0]]), None, True, None),
    'spherical_bessel_j0': (np.concatenate([EDGES, SMOOTH, [1e-9, 1e5]]), None, True, None),
    'airy_ai': (np.concatenate([EDGES, SMOOTH, [-100.0, 100.0, 1e3]]), None, True, 1e-5),
}


def _needs(scipy_needed):
    if scipy_needed and _scipy.special() is None:
        pytest.skip(_NO_SCIPY)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', sorted(UNARY))
def test_unary_values(name, dtype):
    domain, _, scipy_needed, tol = UNARY[name]
    _needs(scipy_needed)
    rtol = tol if dtype == np.float64 and tol else None
    check(_sp(name), domain.astype(dtype), grad=False, rtol=rtol, atol=rtol)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', sorted(UNARY))
def test_unary_derivatives(name, dtype):
    """First and second derivatives; where torch has none, the result does not require grad
    (checked by ``check``: requires_grad and grad_fn are compared)."""
    domain, grad_domain, scipy_needed, _ = UNARY[name]
    _needs(scipy_needed)
    if grad_domain is None:   # (no derivative: the values at the oracle's tolerance)
        check(_sp(name), SMOOTH.astype(dtype), double=True, rtol=1e-5, atol=1e-5)
        return
    check(_sp(name), grad_domain.astype(dtype), double=True,
          rtol=1e-4 if dtype == np.float32 else 1e-8, atol=1e-6)


@pytest.mark.parametrize('name', sorted(UNARY))
@pytest.mark.parametrize('case', ['int', 'bool', '0-d', 'empty', 'complex', 'half', 'bfloat16'])
def test_unary_dtypes_and_shapes(name, case):
    """Integers and bools give the default float dtype; 0-d and empty keep their shape;
    complex (everywhere) and half precision (where torch has only float kernels) raise
    torch's NotImplementedError with its message."""
    _needs(UNARY[name][2])
    if case == 'bfloat16':
        check(lambda lib, x: getattr(lib.special, name)(x.to(lib.bfloat16)),
              np.array([0.25, 0.5]), grad=False, match_message=True)
        return
    x = {'int': np.array([0, 1, 3, -2]), 'bool': np.array([True, False]),
         '0-d': np.array(0.375), 'empty': np.zeros((0, 3)),
         'complex': np.array([0.5 + 0.5j]), 'half': np.array([0.25], np.float16)}[case]
    check(_sp(name), x, grad=False, match_message=True)


ALIASES = {'erf', 'erfc', 'erfinv', 'expit', 'exp2', 'expm1', 'log1p', 'digamma', 'psi',
           'gammaln', 'i0', 'sinc'}   # (the ember functions themselves: their own messages)
# torch names the argument of these 'x' (ember's unary builder: 'input')
NAMED_X = {'airy_ai', 'scaled_modified_bessel_k0', 'scaled_modified_bessel_k1',
           'spherical_bessel_j0'}


@pytest.mark.parametrize('name', sorted(UNARY))
def test_unary_type_errors(name):
    for bad in ('a', None):
        check(lambda lib: getattr(lib.special, name)(bad),
              match_message=name not in ALIASES | NAMED_X)


@pytest.mark.parametrize('name', ['softmax', 'log_softmax', 'logsumexp'])
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_reductions(name, dtype):
    x = np.array([[0.5, -1.0, 2.0], [np.inf, 0.0, 1.0]], dtype)
    check(lambda lib, t: getattr(lib.special, name)(t, 1), x[:1], double=True)
    check(lambda lib, t: getattr(lib.special, name)(t, dim=0), x, grad=False)
    if name == 'logsumexp':
        check(lambda lib, t: lib.special.logsumexp(t, 1, keepdim=True), x, grad=False)
    else:
        check(lambda lib, t: getattr(lib.special, name)(t, 1, dtype=lib.float64),
              x.astype(np.float32), double=True)
        check(lambda lib, t: getattr(lib.special, name)(t), x)   # (dim is required)


def test_round_and_logit_and_multigammaln_and_polygamma():
    x = np.array([0.5, 1.5, 2.456, -0.5, 0.25])
    check(lambda lib, t: lib.special.round(t), x)
    check(lambda lib, t: lib.special.round(t, decimals=2), x)
    check(lambda lib, t: lib.special.round(t), np.array([1, 2]), match_message=True)
    check(lambda lib, t: lib.special.logit(t), np.array([0.1, 0.5, 0.9]), double=True)
    check(lambda lib, t: lib.special.logit(t, 0.2), np.array([0.1, 0.5, 0.9]), double=True)
    check(lambda lib, t: lib.special.multigammaln(t, 3), np.array([1.5, 2.0, 7.0]),
          double=True)
    check(lambda lib, t: lib.special.polygamma(2, t), np.array([0.5, 2.0, 7.0]), double=True)


# -- binary functions --------------------------------------------------------------------------
BINARY = {   # name -> (first operand, second operand, scipy needed)
    'xlogy': (np.array([0.0, 0.0, 1.0, -2.0, 0.5, np.nan, 3.0]),
              np.array([0.0, -1.0, 2.0, 0.5, np.nan, 1.0, np.inf]), False),
    'xlog1py': (np.array([0.0, 0.0, 1.0, -2.0, 0.5, np.nan, 3.0]),
                np.array([-1.0, -2.0, 2.0, 0.5, np.nan, 0.0, np.inf]), False),
    'zeta': (np.array([2.0, 3.5, 1.0, 0.5, 2.0, 4.0, 2.0]),
             np.array([1.0, 0.5, 2.0, 1.0, -1.0, -1.5, np.inf]), True),
    'gammainc': (np.array([0.5, 1.0, 3.0, 0.0, -1.0, 2.0, 10.0]),
                 np.array([0.5, 2.0, 0.0, 1.0, 1.0, np.inf, 9.0]), True),
    'gammaincc': (np.array([0.5, 1.0, 3.0, 0.0, -1.0, 2.0, 10.0]),
                  np.array([0.5, 2.0, 0.0, 1.0, 1.0, np.inf, 9.0]), True),
}
SMOOTH_BINARY = {'xlogy': (np.array([0.5, 1.5, 0.0]), np.array([2.0, 0.5, 3.0])),
                 'xlog1py': (np.array([0.5, 1.5, 0.0]), np.array([2.0, 0.5, 3.0])),
                 'zeta': (np.array([2.0, 3.5, 4.0]), np.array([1.0, 0.5, 2.0])),
                 'gammainc': (np.array([0.5, 2.0, 4.0]), np.array([1.0, 0.5, 2.0])),
                 'gammaincc': (np.array([0.5, 2.0, 4.0]), np.array([1.0, 0.5, 2.0]))}


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', sorted(BINARY))
def test_binary_values(name, dtype):
    a, b, scipy_needed = BINARY[name]
    _needs(scipy_needed)
    f = getattr
    check(lambda lib, x, y: f(lib.special, name)(x, y), a.astype(dtype), b.astype(dtype),
          grad=False)
    check(lambda lib, x, y: f(lib.special, name)(x, y), a[:, None].astype(dtype),
          b.astype(dtype), grad=False)


@pytest.mark.parametrize('name', sorted(BINARY))
@pytest.mark.parametrize('which', ['both', 'first', 'second'])
def test_binary_derivatives(name, which):
    """torch has no derivative in zeta's, gammainc's and gammaincc's first argument: the
    backward raises the same RuntimeError."""
    _needs(BINARY[name][2])
    a, b = SMOOTH_BINARY[name]
    if which == 'both':
        check(lambda lib, x, y: getattr(lib.special, name)(x, y), a, b, double=True)
    elif which == 'first':
        check(lambda lib, x: getattr(lib.special, name)(x, lib.tensor(b)), a, double=True)
    else:
        check(lambda lib, y: getattr(lib.special, name)(lib.tensor(a), y), b, double=True)


@pytest.mark.parametrize('name', ['xlogy', 'xlog1py', 'zeta'])
def test_binary_with_a_number(name):
    _needs(BINARY[name][2])
    a, b = SMOOTH_BINARY[name]
    check(lambda lib, y: getattr(lib.special, name)(2.0, y), b, double=True)
    check(lambda lib, x: getattr(lib.special, name)(x, 3.0), a, double=True)
    check(lambda lib, x: getattr(lib.special, name)(x, 3), np.array([1, 2]), grad=False)
    own = name != 'xlogy'   # (ember.special.xlogy is ember.xlogy: its messages say xlogy)
    check(lambda lib: getattr(lib.special, name)(2.0, 3.0), match_message=own)
    check(lambda lib, y: getattr(lib.special, name)(y, 'a'), b, match_message=own)


@pytest.mark.parametrize('name', sorted(BINARY))
@pytest.mark.parametrize('case', ['int', 'complex', 'half', 'mixed'])
def test_binary_dtypes(name, case):
    _needs(BINARY[name][2])
    a, b = SMOOTH_BINARY[name]
    if case == 'int':
        args = (np.array([1, 2, 3]), np.array([2, 1, 3]))
    elif case == 'complex':
        args = (a.astype(np.complex64), b.astype(np.complex64))
    elif case == 'half':
        args = (a.astype(np.float16), b.astype(np.float16))
    else:
        args = (a.astype(np.float32), b)
    check(lambda lib, x, y: getattr(lib.special, name)(x, y), *args, grad=False,
          match_message=True)


@needs_scipy
@pytest.mark.parametrize('op', ['igamma', 'igammac'])
def test_igamma_top_level_method_inplace_and_errors(op):
    a, x = SMOOTH_BINARY['gammainc']
    check(lambda lib, u, v: getattr(lib, op)(u, v), a, x, double=True)
    check(lambda lib, u, v: getattr(u, op)(v), a, x, grad=False)
    check(lambda lib, u, v: getattr(u.clone(), op + '_')(v), a, x, grad=False)
    check(lambda lib, v: getattr(lib.tensor(a).clone(), op + '_')(v), x, double=True)
    check(lambda lib, u: getattr(lib, op)(u, 2.0), a, match_message=True)
    check(lambda lib, u: getattr(lib, op)(2.0, u), a, match_message=True)
    check(lambda lib, u, v: getattr(u, op + '_')(v), np.array([1, 2]), x[:2],
          grad=False, match_message=True)


def test_erfc_top_level_method_inplace():
    x = np.array([-3.0, -0.5, 0.0, 0.5, 3.0, 10.0])
    check(lambda lib, t: lib.erfc(t), x, double=True)
    check(lambda lib, t: t.erfc(), x, double=True)
    check(lambda lib, t: t.clone().erfc_(), x, double=True)
    check(lambda lib, t: lib.erfc_(t.clone()), x, double=True)
    check(lambda lib, t: lib.erfc(t), np.array([1, 2]), grad=False)
    check(lambda lib, t: lib.erfc(t), np.array([1j]), match_message=True)


# -- orthogonal polynomials --------------------------------------------------------------------
POLYNOMIALS = ['chebyshev_polynomial_t', 'chebyshev_polynomial_u', 'chebyshev_polynomial_v',
               'chebyshev_polynomial_w', 'shifted_chebyshev_polynomial_t',
               'shifted_chebyshev_polynomial_u', 'shifted_chebyshev_polynomial_v',
               'shifted_chebyshev_polynomial_w', 'hermite_polynomial_h',
               'hermite_polynomial_he', 'laguerre_polynomial_l', 'legendre_polynomial_p']
# (torch leaves its result undefined for a nan x with n >= 2: its loop never runs and it
# returns an uninitialised value, so nan is only tried at degrees 0 and 1)
PX = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.3, -0.7, 0.25, 0.75, 0.99, 2.0, -2.0, 1.5,
               -3.0, 10.0, 1e-8, 1e5, np.inf, -np.inf])
PN_LOW = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.7, 2.0, 3.0, 4.0, 5.0, 6.0])
PN_HIGH = np.array([7.0, 8.0, 9.0, 10.0, 12.0, 20.0, 30.0, 60.0, 100.0])
PN_ODD = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30])


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', POLYNOMIALS)
def test_polynomial_values(name, dtype):
    f = lambda lib, x, n: getattr(lib.special, name)(x, n)  # noqa: E731
    check(f, PX[:, None].astype(dtype), PN_LOW.astype(dtype), grad=False)
    check(f, np.array([np.nan], dtype), np.array([0.0, 1.0, -1.0], dtype), grad=False)
    check(f, PX[:, None].astype(dtype), PN_ODD.astype(dtype), grad=False)
    loose = dict(rtol=1e-3, atol=1e-3) if dtype == np.float32 else dict(atol=1e-12)
    check(f, PX[:, None].astype(dtype), PN_HIGH.astype(dtype), grad=False, **loose)


@pytest.mark.parametrize('name', POLYNOMIALS)
def test_polynomial_signatures_and_errors(name):
    f = getattr
    x = np.array([0.3, -1.5, 2.0])
    check(lambda lib, t: f(lib.special, name)(t, 3), x)   # (torch: no grad_fn)
    check(lambda lib, n: f(lib.special, name)(0.5, n), np.array([0, 1, 2, 5]), grad=False)
    check(lambda lib, t, n: f(lib.special, name)(t, n), x.astype(np.float32),
          np.array([2.0, 3.0, 4.0]), grad=False)
    check(lambda lib, t: f(lib.special, name)(t, 2), np.array([1, 2, 3]), grad=False)
    check(lambda lib, t: f(lib.special, name)(t, 2), np.array(0.5), grad=False)
    check(lambda lib, t: f(lib.special, name)(t, 2), np.zeros((2, 0)), grad=False)
    for bad in (x.astype(np.complex64), x.astype(np.float16)):
        check(lambda lib, t: f(lib.special, name)(t, 2), bad, match_message=True)
    check(lambda lib: f(lib.special, name)(0.5, 2), match_message=True)
    check(lambda lib, t: f(lib.special, name)(t, 'a'), x, match_message=True)
    check(lambda lib, t: f(lib.special, name)(x=t, n=3), x, grad=False)


# -- out= ----------------------------------------------------------------------------------------
OUT_CALLS = {
    'unary': lambda lib, x, o: lib.special.erfcx(x, out=o),
    'i1': lambda lib, x, o: lib.special.i1(x, out=o),
    'ndtr': lambda lib, x, o: lib.special.ndtr(x, out=o),
    'bessel': lambda lib, x, o: lib.special.bessel_j0(x, out=o),
    'polynomial': lambda lib, x, o: lib.special.chebyshev_polynomial_t(x, 3, out=o),
    'binary': lambda lib, x, o: lib.special.xlog1py(x, x, out=o),
    'zeta': lambda lib, x, o: lib.special.zeta(x + 2, x + 1, out=o),
    'gammainc': lambda lib, x, o: lib.special.gammainc(x + 1, x, out=o),
    'igamma': lambda lib, x, o: lib.igammac(x + 1, x, out=o),
    'alias': lambda lib, x, o: lib.special.gammaln(x, out=o),
}


@needs_scipy
@pytest.mark.parametrize('kind', sorted(OUT_CALLS))
def test_out(kind):
    x = np.array([0.25, 0.5, 2.0])
    check(lambda lib, t: OUT_CALLS[kind](lib, t, lib.empty(3, dtype=lib.float64)), x,
          grad=False)
    check(lambda lib, t: OUT_CALLS[kind](lib, t, lib.empty(0, dtype=lib.float64)), x,
          grad=False)


# -- forward-mode AD (derived from the backward formulas) ------------------------------------
FORWARD = {'erfc': False, 'erfcx': True, 'ndtr': False, 'ndtri': True, 'log_ndtr': True,
           'entr': False, 'i0e': False, 'i1': False, 'i1e': False}


@pytest.mark.parametrize('name', sorted(FORWARD) + ['xlog1py', 'gammainc', 'zeta'])
def test_forward_ad(name):
    _needs(FORWARD.get(name, name != 'xlog1py'))
    x = np.array([0.2, 0.45, 0.7])
    tangent = np.array([1.0, -0.5, 2.0])
    if name in ('gammainc', 'zeta'):   # (torch has no forward-mode formula: its error)
        def dual(lib):
            fw = lib.autograd.forward_ad
            with fw.dual_level():
                getattr(lib.special, name)(lib.tensor(x + 1.5),
                                           fw.make_dual(lib.tensor(x), lib.tensor(tangent)))
        check(dual, match_message=True)
        return
    results = []
    for lib in (ember, torch):
        fw = lib.autograd.forward_ad
        f = getattr(lib.special, name)
        with fw.dual_level():
            d = fw.make_dual(lib.tensor(x), lib.tensor(tangent))
            out = f(lib.tensor(x + 1.5), d) if name in ('gammainc', 'zeta') else \
                f(d, lib.tensor(x)) if name == 'xlog1py' else f(d)
            results.append([np.asarray(t.detach().clone().numpy()) for t in fw.unpack_dual(out)])
    for e, t in zip(*results):
        np.testing.assert_allclose(e, t, rtol=1e-9, atol=1e-12)


# -- the namespace -------------------------------------------------------------------------------
def test_every_torch_special_function_is_there():
    names = {n for n in dir(torch.special) if not n.startswith('_') and
             callable(getattr(torch.special, n)) and n not in ('Tensor',)}
    assert names <= set(ember.special.__all__)
    assert sorted(names) == sorted(n for n in ember.special.__all__)


def test_overrides_list_the_namespace_as_torch_does():
    t = torch.overrides.get_overridable_functions()[torch.special]
    e = ember.overrides.get_overridable_functions()[ember.special]
    assert sorted(f.__name__ for f in e) == sorted(f.__name__.replace('special_', '')
                                                  for f in t)
    assert ember.overrides.resolve_name(ember.special.expit) == 'ember.special.expit'
    assert ember.overrides.resolve_name(ember.special.bessel_j0) == \
        'ember.special.bessel_j0'


@pytest.mark.parametrize('name', ['expit', 'i0e', 'xlog1py', 'chebyshev_polynomial_t',
                                  'modified_bessel_i0', 'softmax', 'ndtr'])
def test_torch_function_dispatch(name):
    """A subclass's ``__torch_function__`` receives the ember.special function itself."""
    seen = []

    class Logged(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = ember.tensor([0.25, 0.5]).as_subclass(Logged)
    f = getattr(ember.special, name)
    if name == 'xlog1py':
        f(x, x)
    elif name in ('chebyshev_polynomial_t', 'softmax'):
        f(x, 0)
    else:
        f(x)
    assert seen[0] is f


def test_import_ember_loads_neither_special_nor_scipy():
    import subprocess
    import sys
    code = ("import sys, ember; assert 'ember.special' not in sys.modules; "
            "assert 'scipy' not in sys.modules; ember.special.entr(ember.ones(2)); "
            "assert 'scipy' not in sys.modules, 'entr needs no scipy'")
    subprocess.run([sys.executable, '-c', code], check=True)


@pytest.mark.parametrize('call', [lambda: ember.special.erfcx(ember.ones(2)),
                                  lambda: ember.special.bessel_j0(ember.ones(2)),
                                  lambda: ember.igamma(ember.ones(2), ember.ones(2)),
                                  lambda: ember.special.zeta(ember.ones(2), 2.0)])
def test_without_scipy_the_error_names_the_extra(call, monkeypatch):
    monkeypatch.setitem(_scipy._modules, 'special', None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'ember\[scipy\]'"):
        call()


def test_without_scipy_own_kernels_still_run(monkeypatch):
    monkeypatch.setitem(_scipy._modules, 'special', None)
    x = np.linspace(-5, 5, 40)
    for name in ('erfc', 'i0e', 'i1e', 'i1', 'entr', 'ndtr', 'modified_bessel_i0',
                 'chebyshev_polynomial_t'):
        f = (lambda lib, t, n=name: getattr(lib.special, n)(t, 4)) \
            if 'polynomial' in name else _sp(name)
        check(f, x, grad=False)
