"""ember.fft against torch.fft: values, dtypes, shapes, grad_fn names, first and second
derivatives (each transform composed with a square, so the second derivative runs through
the transform's backward), torch's errors, fftfreq/rfftfreq and the shifts."""
import numpy as np
import pytest

import ember
from .oracle import check, arr, torch

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
REAL = [np.float32, np.float64]

ONE_D = ['fft', 'ifft', 'rfft', 'irfft', 'hfft', 'ihfft']
TWO_D = ['fft2', 'ifft2', 'rfft2', 'irfft2', 'hfft2', 'ihfft2']
N_D = ['fftn', 'ifftn', 'rfftn', 'irfftn', 'hfftn', 'ihfftn']
REAL_ONLY = {'rfft', 'ihfft', 'rfft2', 'ihfft2', 'rfftn', 'ihfftn'}


def _squared(name, **kw):
    """``fft.<name>(x, **kw)`` times itself: a nonlinear function of the transform, so the
    second derivative goes through the transform's backward too."""
    def fn(T, x):
        y = getattr(T.fft, name)(x, **kw)
        return y * y
    return fn


def _plain(name, **kw):
    return lambda T, x: getattr(T.fft, name)(x, **kw)


def _dtypes(name):
    return REAL if name in REAL_ONLY else DTYPES


def _cases(names):
    return [(n, d) for n in names for d in _dtypes(n)]


@pytest.mark.parametrize('name,dtype', _cases(ONE_D), ids=str)
def test_one_d(name, dtype):
    x = arr(3, 8, dtype=dtype, seed=1)
    check(_plain(name), x)
    check(_squared(name), x, double=True)
    for kw in [dict(n=5), dict(n=12), dict(dim=0), dict(n=4, dim=0, norm='ortho'),
               dict(norm='forward'), dict(norm='backward'), dict(n=7, norm='ortho')]:
        check(_squared(name, **kw), x, double=True)


@pytest.mark.parametrize('name,dtype', _cases(TWO_D), ids=str)
def test_two_d(name, dtype):
    x = arr(2, 5, 6, dtype=dtype, seed=2)
    check(_plain(name), x)
    check(_squared(name), x, double=True)
    for kw in [dict(s=(4, 7)), dict(dim=(0, 2)), dict(s=(3, -1), dim=(2, 1), norm='ortho'),
               dict(norm='forward'), dict(dim=(-1, 0), norm='backward')]:
        check(_squared(name, **kw), x, double=True)


@pytest.mark.parametrize('name,dtype', _cases(N_D), ids=str)
def test_n_d(name, dtype):
    x = arr(3, 4, 5, dtype=dtype, seed=3)
    check(_plain(name), x)
    check(_squared(name), x, double=True)
    for kw in [dict(s=(6, 3)), dict(dim=1), dict(dim=(2, 0)), dict(s=(2, 4, 8), norm='ortho'),
               dict(s=(-1, 3), dim=(0, 1), norm='forward'), dict(dim=(-1,), s=(9,))]:
        check(_squared(name, **kw), x, double=True)


@pytest.mark.parametrize('name', ['fft', 'rfft', 'irfft', 'fftn', 'rfftn', 'hfft', 'ifft2'])
def test_integer_and_bool_input_promote_to_the_default_float(name):
    check(_plain(name), arr(4, 6, dtype=np.int64), grad=False)
    check(_plain(name), arr(4, 6, dtype=np.bool_), grad=False)
    prev = ember.get_default_dtype(), torch.get_default_dtype()
    ember.set_default_dtype(ember.float64), torch.set_default_dtype(torch.float64)
    try:
        check(_plain(name), arr(4, 6, dtype=np.int32), grad=False)
    finally:
        ember.set_default_dtype(prev[0]), torch.set_default_dtype(prev[1])


def test_zero_dim_and_empty_dims():
    check(_plain('fftn'), arr(dtype=np.float64))
    check(_plain('fftn', dim=()), arr(3, 4))
    check(_plain('ifftn', dim=()), arr(3, 4, dtype=np.complex128))


def test_sizes_as_tensors_and_size_objects():
    check(lambda T, x: T.fft.fft(x, n=T.tensor(5)), arr(2, 3))
    check(lambda T, x: T.fft.rfftn(x, s=T.Size([4, 6])), arr(2, 3))
    check(lambda T, x: T.fft.irfft2(x, s=[3, 5], dim=[0, 1]), arr(2, 3, dtype=np.complex128))
    check(lambda T, x: T.fft.irfftn(x, s=(T.tensor(3), T.tensor(5))),
          arr(2, 3, dtype=np.complex128))
    check(lambda T, x: T.fft.irfft(x, n=T.tensor(7)), arr(2, 3, dtype=np.complex128))


def test_inverse_pairs_round_trip():
    x = arr(4, 10, seed=5)
    check(lambda T, a: T.fft.irfft(T.fft.rfft(a), n=10), x, double=True)
    check(lambda T, a: T.fft.ifftn(T.fft.fftn(a, norm='ortho'), norm='ortho'), x)
    check(lambda T, a: T.fft.hfft(T.fft.ihfft(a), n=10), x)


ERRORS = [
    ('fft', dict(norm='bad'), (8,), np.float32),
    ('rfftn', dict(norm='Ortho'), (4, 4), np.float32),
    ('fft', dict(norm=5), (8,), np.float32),
    ('fft', dict(n=0), (8,), np.float32),
    ('ifft', dict(n=-1), (8,), np.complex64),
    ('fft', dict(n=2.5), (8,), np.float32),
    ('fft', dict(dim=3), (8,), np.float32),
    ('fft', {}, (), np.float32),
    ('rfft', {}, (), np.float32),
    ('fft2', {}, (8,), np.float32),
    ('fftn', dict(s=(4, 4)), (8,), np.float32),
    ('fftn', dict(s=(4, 0)), (3, 4), np.float32),
    ('fftn', dict(s=(4, 5), dim=(0,)), (3, 4), np.float32),
    ('fftn', dict(dim=(0, 0)), (3, 4), np.float32),
    ('fftn', dict(dim=5), (2, 3), np.float32),
    ('irfft', {}, (1,), np.float32),
    ('hfft', {}, (1,), np.complex64),
    ('irfftn', {}, (3, 1), np.complex64),
    ('rfft', {}, (8,), np.complex64),
    ('ihfft', {}, (8,), np.complex128),
    ('rfft2', {}, (4, 4), np.complex64),
    ('rfftn', {}, (4, 4), np.complex128),
    ('ihfft2', {}, (4, 4), np.complex64),
    ('ihfftn', {}, (4, 4), np.complex128),
    ('irfft', dict(n=-3), (4,), np.complex64),
    ('rfftn', {}, (), np.float32),
    ('irfftn', {}, (), np.complex64),
    ('fft', {}, (8,), np.float16),
    ('rfft', {}, (8,), np.float16),
]


@pytest.mark.parametrize('name,kw,shape,dtype', ERRORS, ids=str)
def test_errors(name, kw, shape, dtype):
    check(_plain(name, **kw), arr(*shape, dtype=dtype), grad=False, match_message=True)


def test_out():
    for dt in ['complex64', 'complex128', 'float32']:
        def fn(T, x, dt=dt):
            out = T.empty(0, dtype=getattr(T, dt))
            r = T.fft.fft(x, out=out)
            assert r is out
            return out
        # (computed in float32, then written into out: float32's precision)
        check(fn, arr(6, dtype=np.float32), grad=False, match_message=True, rtol=1e-5,
              atol=1e-6)
    check(lambda T, x: T.fft.irfft(x, out=T.empty(0, dtype=T.float64)),
          arr(5, dtype=np.complex128), grad=False)
    check(lambda T, x: T.fft.fft(x, out=T.empty(0, dtype=T.complex64)), arr(4, dtype=np.float32),
          match_message=True)


@pytest.mark.parametrize('name', ['fftfreq', 'rfftfreq'])
def test_frequencies(name):
    for n in [1, 2, 7, 8, 0]:
        check(lambda T: getattr(T.fft, name)(n))
        check(lambda T: getattr(T.fft, name)(n, 0.3))
        check(lambda T: getattr(T.fft, name)(n, d=2.5, dtype=T.float64))
    check(lambda T: getattr(T.fft, name)(5, requires_grad=True))
    check(lambda T: getattr(T.fft, name)(5, dtype=T.float64, out=T.empty(0, dtype=T.float64)))
    for n in [-1, -2, -3, -4]:
        check(lambda T: getattr(T.fft, name)(n), match_message=True)
    check(lambda T: getattr(T.fft, name)(2.5), match_message=False)


@pytest.mark.parametrize('name', ['fftshift', 'ifftshift'])
@pytest.mark.parametrize('dtype', DTYPES + [np.int64])
def test_shifts(name, dtype):
    x = arr(5, 6, 3, dtype=dtype)
    check(_plain(name), x)
    check(_plain(name, dim=1), x)
    check(_plain(name, dim=(0, -1)), x)
    check(_plain(name, dim=(0, 0)), x)
    check(_plain(name, dim=5), x, match_message=True)
    check(_plain(name), arr(dtype=dtype), match_message=True)


def test_namespace_holds_torch_names_and_dispatches():
    assert sorted(ember.fft.__all__) == sorted(n for n in dir(torch.fft)
                                               if callable(getattr(torch.fft, n)) and
                                               not n.startswith('_') and n != 'Tensor')
    for n in ember.fft.__all__:
        assert getattr(ember.fft, n).__doc__
        assert not hasattr(ember.Tensor, n) and not hasattr(torch.Tensor, n)
    seen = []
    x = ember.ones(4)

    class Mode(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))
    with Mode():
        ember.fft.rfft(x)
    assert seen == [ember.fft.rfft]


def test_numpy_fallback_without_scipy(monkeypatch):
    """SciPy is optional: with ``numpy.fft`` as the kernels, the same results and gradients."""
    from ember._ops import fft as impl
    monkeypatch.setattr(impl, '_KERNELS', [np.fft])
    x, c = arr(3, 6, dtype=np.float32, seed=4), arr(3, 6, dtype=np.complex128, seed=4)
    check(_squared('rfft', norm='ortho'), x, double=True)
    check(_squared('irfft', n=9), c, double=True)
    check(_squared('fft2', s=(4, 4)), c, double=True)
    check(_squared('hfftn'), c, double=True)
    check(_squared('ihfftn'), x, double=True)
    assert impl._kernels() is np.fft


def test_kernels_fall_back_to_numpy_when_scipy_is_missing(monkeypatch):
    import sys
    from ember._ops import fft as impl
    monkeypatch.setattr(impl, '_KERNELS', [])
    monkeypatch.setitem(sys.modules, 'scipy.fft', None)   # makes the import fail
    assert impl._kernels() is np.fft


@pytest.mark.parametrize('name,dtype', [('fft', np.float64), ('ifft2', np.complex128),
                                        ('rfftn', np.float32), ('irfft', np.complex64),
                                        ('hfft2', np.complex128), ('ihfftn', np.float64)])
def test_forward_mode(name, dtype):
    """Forward-mode AD (derived from the backward formulas) gives torch's tangents."""
    x, t = arr(4, 6, dtype=dtype, seed=6), arr(4, 6, dtype=dtype, seed=7)

    def fn(T, x, t):
        fwAD = T.autograd.forward_ad
        with fwAD.dual_level():
            y = getattr(T.fft, name)(fwAD.make_dual(x, t), norm='ortho')
            return fwAD.unpack_dual(y).tangent
    check(fn, x, t, grad=False)
