"""Wrong values, dtypes and structures the differential fuzzer found (issue 15, third pass:
values, gradients, structure, crashes), each pinned against torch.

Every test runs the same code on ember and torch (``tests.oracle.oracle.check``, or both
libraries side by side): values, dtype, shape, requires_grad and gradients. Where torch is
wrong (a documented difference in ``tests/fuzz/known.py``) the test shows torch's answer
next to the right one, computed a second way in torch itself.
"""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check, torch

import ember

INF, NAN = float('inf'), float('nan')


def both(fn):
    """``fn(lib)`` on ember and torch, as NumPy arrays (or tuples of them)."""
    def arrays(r):
        if isinstance(r, (tuple, list)):
            return tuple(arrays(x) for x in r)
        return np.asarray(r._data) if isinstance(r, ember.Tensor) else r.numpy()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return arrays(fn(ember)), arrays(fn(torch))


def same(e, t):
    assert e.dtype == t.dtype and e.shape == t.shape, (e, t)
    # (float32: torch's vectorized kernels round a last bit differently near zero)
    atol = 1e-6 if e.dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(e, t, rtol=1e-6, atol=atol, equal_nan=True)


# -- an unsigned right shift by the width or more is 0 (the sign fill of a positive value) ----
@pytest.mark.parametrize('dt', [np.uint8, np.int8, np.int16, np.int64])
def test_right_shift_past_the_width(dt):
    x = np.array([255, 3, 128, 1], np.int64).astype(dt)
    s = np.array([8, 9, 200, 7], np.int64).astype(dt)
    check(lambda T, a, b: T.bitwise_right_shift(a, b), x, s, grad=False)
    check(lambda T, a: a >> 100, x, grad=False)
    check(lambda T, a: T.bitwise_left_shift(a, 100), x, grad=False)


def test_right_shift_of_a_number_by_an_unsigned_tensor():
    s = np.array([2, 0, 9, 8, 7, 255], np.uint8)
    check(lambda T, b: T.bitwise_right_shift(-1, b), s, grad=False)


# -- stft keeps a complex64 signal in complex64 ----------------------------------------------
@pytest.mark.parametrize('window', [False, True])
def test_stft_of_complex64_stays_complex64(window):
    x = (np.arange(8) + 1j * np.arange(8)[::-1]).astype(np.complex64)[None]

    def f(T, a):
        w = T.ones(4) if window else None
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return T.stft(a, 4, 2, None, w, True, 'reflect', False, False)
    check(f, x, grad=False)


# -- histogramdd's outputs carry a grad_fn (that refuses backward), as histogram's --------
def test_histogramdd_outputs_require_grad_as_torch():
    x = np.array([[0.19], [-1.43], [-2.04]])
    for fn in (lambda T: T.histogramdd(T.tensor(x, requires_grad=True), 3),
               lambda T: T.histogramdd(T.tensor(x), 3)):
        e, t = fn(ember), fn(torch)
        assert [o.requires_grad for o in (e[0], *e[1])] == \
            [o.requires_grad for o in (t[0], *t[1])]
        same(np.asarray(e[0].detach()._data), t[0].detach().numpy())


# -- pinv of an empty matrix is its empty transpose, whatever the tolerances' batch -------
@pytest.mark.parametrize('shape,tol', [((0, 2), (2, 0)), ((0, 2), (3,)), ((3, 0, 2), (2, 1, 1)),
                                       ((0, 2, 2), (4, 1))])
def test_pinv_of_an_empty_matrix(shape, tol):
    e, t = both(lambda T: T.linalg.pinv(T.zeros(shape), T.zeros(tol)))
    same(e, t)
    e, t = both(lambda T: T.linalg.pinv(T.zeros(shape), atol=T.zeros(tol)))
    same(e, t)


def test_pinv_hermitian_of_an_empty_matrix():
    e, t = both(lambda T: T.linalg.pinv(T.zeros(0, 0), T.zeros(2, 1), hermitian=True))
    same(e, t)


# -- complex add/sub: alpha * other is a complex product (inf + 0j -> inf + nanj) ----------
_Z = np.array([1 + 1j, INF + 1j, 1 + 1j * INF, -INF + 0j, 2 - 3j], np.complex64)
_W = np.array([INF + 0j, 1 + 1j, 2 + 0j, 1 + 1j * INF, -INF - 1j], np.complex64)


@pytest.mark.parametrize('dt', [np.complex64, np.complex128])
@pytest.mark.parametrize('form', ['a + b', 'a - b', 'add', 'sub', 'add_alpha', 'sub_alpha',
                                  'rsub', 'a + inf', 'inf - a', 'a - inf', 'iadd', 'isub',
                                  'a + real', 'real - a'])
def test_complex_add_sub_with_infinities(form, dt):
    def f(T, a, b):
        r = T.tensor([INF, 1.0, -INF, 2.0, 0.5])
        return {'a + b': lambda: a + b, 'a - b': lambda: a - b,
                'add': lambda: T.add(a, b), 'sub': lambda: T.sub(a, b),
                'add_alpha': lambda: T.add(a, b, alpha=2), 'sub_alpha': lambda: T.sub(a, b, alpha=2),
                'rsub': lambda: T.rsub(a, b), 'a + inf': lambda: a + INF,
                'inf - a': lambda: INF - a, 'a - inf': lambda: a - INF,
                'iadd': lambda: a.clone().add_(b), 'isub': lambda: a.clone().sub_(b),
                'a + real': lambda: a + r, 'real - a': lambda: r - a}[form]()
    check(f, _Z.astype(dt), _W.astype(dt), grad=False)


def test_complex_add_of_infinities_backward_is_unchanged():
    check(lambda T, a, b: T.sub(a, b) + T.add(a, b, alpha=0.5), np.array([1 + 2j, 3 - 1j]),
          np.array([0.5 - 1j, 2 + 2j]))


# -- sgn of a complex infinity is NaN (z / |z|), as torch ------------------------------------
@pytest.mark.parametrize('dt', [np.complex64, np.complex128])
def test_sgn_of_complex_infinities(dt):
    x = np.array([INF + 0j, INF + 1j, 1 + 1j * INF, -INF + 0j, 0j, 3 + 4j, complex(NAN, 0)], dt)
    check(lambda T, a: T.sgn(a), x, grad=False)
    check(lambda T, a: T.sgn(a[1]), x, grad=False)


# -- linspace/logspace count down from the end in their second half --------------------------
@pytest.mark.parametrize('ends', [(-INF, 1.5, 2), (-2.0, INF, 3), (INF, INF, 3), (2.0, -INF, 4),
                                  (0.1, 0.7, 7), (-3.0, 10.0, 100), (1.0, 1.0, 1), (0.0, 1.0, 0),
                                  (1 + 1j, 2.0, 4)])
@pytest.mark.parametrize('dtype', [None, 'float64'])
def test_linspace_and_logspace_ends(ends, dtype):
    def f(T, op):
        kw = {} if dtype is None or isinstance(ends[0], complex) else {
            'dtype': getattr(T, dtype)}
        return getattr(T, op)(*ends, **kw) if op == 'linspace' else \
            T.logspace(*ends, base=2.0, **kw)
    for op in ('linspace', 'logspace'):
        e, t = both(lambda T: f(T, op))
        same(e, t)


# -- igamma/igammac: the ends (x = 0, x = inf, a = inf) come before a NaN operand -----------
@pytest.mark.parametrize('op', ['igamma', 'igammac', 'special.gammainc', 'special.gammaincc'])
@pytest.mark.parametrize('dt', [np.float32, np.float64])
def test_incomplete_gamma_with_a_nan_operand(op, dt):
    v = np.array([NAN, INF, -INF, 0.0, -0.0, -1.0, 1.0, 2.5], dt)
    a, x = np.meshgrid(v, v, indexing='ij')

    def f(T, a, x):
        fn = T.special if op.startswith('special.') else T
        return getattr(fn, op.split('.')[-1])(a, x)
    check(f, a.ravel(), x.ravel(), grad=False)
    check(f, np.array(NAN, dt), np.array(0.0, dt), grad=False)


# -- lobpcg: a tuple (E, X); on a symmetric positive-definite matrix the eigenvalues agree --
def test_lobpcg_returns_a_tuple_of_torchs_eigenpairs():
    g = np.random.default_rng(0)
    m = g.standard_normal((9, 9))
    a = m @ m.T + np.eye(9)

    def f(T):
        T.manual_seed(0)
        return T.lobpcg(T.tensor(a), k=2)
    e, t = f(ember), f(torch)
    assert type(e) is type(t) is tuple and len(e) == len(t) == 2
    same(np.asarray(e[0]._data), t[0].numpy())
    # the eigenvectors agree up to each one's sign, to the iteration's tolerance (sqrt(eps))
    np.testing.assert_allclose(np.abs(np.asarray(e[1]._data)), np.abs(t[1].numpy()),
                               atol=1e-6)


# -- narrow_copy's gradient with a negative start (torch's is zero: a torch bug) ------------
def test_narrow_copy_gradient_with_a_negative_start():
    x = np.array([[[2.5, 6.3, -5.0]], [[5.3, 2.6, 0.6]]])

    def grad(T, start):
        t = T.tensor(x, requires_grad=True)
        y = T.narrow_copy(t, -1, start, 1)
        return y, T.autograd.grad(y.sum(), t)[0]
    ey, eg = grad(ember, -1)
    ty, tg = grad(torch, 2)  # torch's right answer: the same element named by a positive start
    same(np.asarray(ey.detach()._data), ty.detach().numpy())
    same(np.asarray(eg._data), tg.numpy())
    assert ey.grad_fn.name() == ty.grad_fn.name()
    # what torch's negative start gives (recorded in tests/fuzz/known.py)
    assert not grad(torch, -1)[1].any()


# -- the fuzzer itself: a torch crash is torch's; a sparse gradient is compared densified ---
def test_a_torch_crash_is_reported_as_torchs():
    from tests.fuzz.compare import TORCH_CRASH
    from tests.fuzz.sweep import sweep
    findings, calls, _ = sweep([22], only=['native_batch_norm'], timeout=20.0)
    assert calls == 1 and [f.category for f in findings] == [TORCH_CRASH]


def test_gather_sparse_grad_is_compared():
    from tests.fuzz.compare import check as fuzz_check
    from tests.fuzz.generate import generate
    from tests.fuzz.targets import all_targets
    target = next(t for t in all_targets() if t.name == 'gather')
    for seed in (40, 86):
        assert fuzz_check(target, generate(target, seed)) == []


# -- addcmul/addcdiv of complex infinities: (value * tensor1) (*|/) tensor2, left to right --
@pytest.mark.parametrize('op', ['addcmul', 'addcdiv'])
@pytest.mark.parametrize('value', [1, -INF, 0.5 + 2j])
def test_addc_complex_infinities(op, value):
    s = np.array([1 + 1j, 0.3 - 1.1j, INF + 0j, 2 + 0j], np.complex64)
    a = np.array([INF + 1j, -7 - 0.02j, 1 + 1j, 1 + 1j * INF], np.complex64)
    b = np.array([2 + 3j, 1e-30 + 0j, INF - 1j, 0.5 + 0j], np.complex64)
    check(lambda T, x, y, z: getattr(T, op)(x, y, z, value=value), s, a, b, grad=False)
    check(lambda T, x, y, z: getattr(x.clone(), op + '_')(y, z, value=value), s, a, b,
          grad=False)


def test_addc_complex_gradient_is_unchanged():
    s, a, b = np.array([1 + 1j, 2 - 1j]), np.array([0.5 + 2j, -1 + 0j]), np.array([2 + 1j, 1j])
    check(lambda T, x, y, z: T.addcmul(x, y, z, value=0.5) + T.addcdiv(x, y, z, value=2),
          s, a, b)


# -- the fuzzer compares a complex value with an infinite part part by part ------------------
def test_fuzzer_compares_complex_infinities_by_parts():
    from tests.fuzz.compare import _isclose
    e = np.array([INF + 4.532360141827193j, -INF + 0.43j, complex(NAN, 0), 1 + 1j])
    t = np.array([INF + 4.532360141827194j, -INF + 1j * NAN, complex(NAN, NAN), 1 + 1j])
    assert _isclose(e, t, 1e-7, 1e-9).tolist() == [True, False, True, True]


# -- cumprod of complex infinities: the scan starts from 1 * x[0], as torch's accumulator ---
@pytest.mark.parametrize('dt', [np.complex64, np.complex128])
def test_cumprod_of_complex_infinities(dt):
    x = np.array([[-INF + 0j, 2 + 1j, 1 + 0j], [1 + 0j, 2 + 0j, INF + 1j]], dt)
    for d in (0, 1):
        check(lambda T, a: T.cumprod(a, d), x, grad=False)
    check(lambda T, a: T.cumprod(a, 1), np.array([[1 + 2j, 0.5 - 1j, 3 + 0j]], dt))
