"""repr()/str() of tensors must match torch's character for character (ember._tensor_str)."""
import math

import numpy as np
import pytest

from .oracle import torch  # the oracle; skips the module when torch is missing
import ember
from ember import _tensor_str

nan, inf = np.nan, np.inf
rng = np.random.default_rng(1234)


def _normal(*shape, dtype=np.float32, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _ints(*shape, dtype=np.int64, low=-50, high=50):
    return rng.integers(low, high, shape).astype(dtype)


# (id, array): each is printed by both libraries from the same NumPy array.
ARRAYS = [
    # 0-d
    ('0d-float', np.array(1.5, np.float32)),
    ('0d-int-valued-float', np.array(3., np.float32)),
    ('0d-zero', np.array(0., np.float32)),
    ('0d-neg-zero', np.array(-0., np.float32)),
    ('0d-nan', np.array(nan, np.float32)),
    ('0d-inf', np.array(-inf, np.float64)),
    ('0d-huge', np.array(1e10, np.float32)),
    ('0d-tiny', np.array(1.2345e-7, np.float64)),
    ('0d-int', np.array(7, np.int64)),
    ('0d-int32', np.array(-7, np.int32)),
    ('0d-bool', np.array(True)),
    ('0d-complex', np.array(1 - 2.5j, np.complex64)),
    ('0d-complex128', np.array(-93.8732 - 120j, np.complex128)),
    ('0d-half', np.array(0.1, np.float16)),
    # 1-d floats
    ('1d-ints-as-floats', np.array([1., 2., 3.], np.float32)),
    ('1d-fixed', np.array([1.5, -2.25, 3.125], np.float32)),
    ('1d-negative', np.array([-1., -2.5, -300.], np.float32)),
    ('1d-mixed-sign-ints', np.array([-1., 20., -300.], np.float32)),
    ('1d-ratio-1000-ints', np.array([1., 1001.], np.float32)),
    ('1d-ratio-1000-fixed', np.array([0.5, 600.], np.float32)),
    ('1d-ratio-1001-fixed', np.array([0.5, 501.], np.float32)),
    ('1d-big-int-valued', np.array([1e8, 2e8], np.float64)),
    ('1d-exactly-1e8', np.array([1e8, 5e7], np.float64)),
    ('1d-huge', np.array([1e10, 2.5e10, -3e12], np.float32)),
    ('1d-tiny', np.array([1e-5, 2e-5, 3e-5], np.float32)),
    ('1d-just-above-1e-4', np.array([1.5e-4, 2e-4], np.float32)),
    ('1d-mixed-magnitudes', np.array([1e-8, 1., 1e8], np.float64)),
    ('1d-subnormal', np.array([1e-320, 1.], np.float64)),
    ('1d-float-max', np.array([3.4e38, -3.4e38, 1.], np.float32)),
    ('1d-nan-inf-only', np.array([nan, inf, -inf], np.float32)),
    ('1d-zeros', np.zeros(4, np.float32)),
    ('1d-zeros-and-nan', np.array([0., -0., nan], np.float32)),
    ('1d-nan-with-ints', np.array([1., nan, 200., -inf], np.float32)),
    ('1d-nan-with-fixed', np.array([1.5, nan, 20.25, inf], np.float32)),
    ('1d-nan-with-sci', np.array([nan, 0., 1e10, -inf], np.float32)),
    ('1d-rounds-up', np.array([0.99999, 9.99995, 1.00005], np.float64)),
    ('1d-random', _normal(7)),
    ('1d-random-f64', _normal(6, dtype=np.float64, scale=1000.)),
    ('1d-half', np.array([0.1, 2., 65504., -inf], np.float16)),
    ('1d-half-random', _normal(9, dtype=np.float16)),
    # ints and bools
    ('1d-int64', _ints(10)),
    ('1d-int64-extremes', np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max])),
    ('1d-int32', _ints(8, dtype=np.int32, low=-10**6, high=10**6)),
    ('1d-int16', _ints(5, dtype=np.int16)),
    ('1d-int8', _ints(5, dtype=np.int8, low=-128, high=127)),
    ('1d-uint8', _ints(6, dtype=np.uint8, low=0, high=255)),
    ('1d-bool', np.array([True, False, True])),
    ('2d-bool', rng.random((3, 4)) < 0.5),
    ('2d-int', _ints(3, 4, low=-1000, high=1000)),
    # complex
    ('1d-complex', np.array([1 + 2j, 3 - 4.5j], np.complex64)),
    ('1d-complex128', np.array([1 + 2j, 3 - 4.5j], np.complex128)),
    ('1d-complex-int-valued', np.array([1 + 2j, -3 - 4j], np.complex64)),
    ('1d-complex-sci-imag', np.array([1.5 + 1e-6j, -2 + 3e-7j], np.complex64)),
    ('1d-complex-nan', np.array([complex(nan, 1), complex(1, inf), complex(0, -inf)],
                                np.complex64)),
    ('2d-complex', (_normal(3, 4) + 1j * _normal(3, 4, scale=100.)).astype(np.complex64)),
    ('2d-complex-wraps', (_normal(4, 9, dtype=np.float64, scale=1e4)
                          + 1j * _normal(4, 9, dtype=np.float64)).astype(np.complex128)),
    # 2-d to 4-d
    ('2d', _normal(3, 4)),
    ('2d-one-row', _normal(1, 5)),
    ('2d-one-col', _normal(5, 1)),
    ('2d-ints-as-floats', np.arange(12, dtype=np.float32).reshape(3, 4)),
    ('2d-f64', _normal(4, 3, dtype=np.float64, scale=1e-3)),
    ('3d', _normal(2, 3, 4)),
    ('3d-mixed-magnitudes', _normal(2, 2, 3) * np.array([1e-6, 1., 1e6], np.float32)),
    ('4d', _normal(2, 2, 2, 3)),
    ('4d-int', _ints(2, 3, 1, 2)),
    ('4d-single', np.ones((1, 1, 1, 1), np.float32)),
    # empty
    ('empty-1d', np.zeros(0, np.float32)),
    ('empty-2d', np.zeros((0, 3), np.float32)),
    ('empty-2d-trailing', np.zeros((3, 0), np.float32)),
    ('empty-3d', np.zeros((2, 0, 4), np.float32)),
    ('empty-int', np.zeros(0, np.int64)),
    ('empty-int32-2d', np.zeros((0, 2), np.int32)),
    ('empty-bool', np.zeros((0, 3), bool)),
    ('empty-f64', np.zeros(0, np.float64)),
    ('empty-half', np.zeros((1, 0), np.float16)),
    ('empty-complex', np.zeros(0, np.complex64)),
    # wrapping at linewidth 80
    ('wide-row', _normal(30)),
    ('wide-row-sci', _normal(25) * np.float32(1e-6)),
    ('wide-2d', _normal(3, 20)),
    ('wide-3d', _normal(2, 2, 15)),
    ('wide-int', _ints(60, low=-10**9, high=10**9)),
    ('wide-bool', rng.random(40) < 0.5),
    ('long-int-row', np.arange(100)),
    # summarized (> 1000 elements)
    ('sum-1d', _normal(2000)),
    ('sum-1d-1001', np.arange(1001, dtype=np.float32)),
    ('sum-1d-int', np.arange(5000)),
    ('sum-2d', _normal(100, 100)),
    ('sum-2d-tall', _normal(2000, 2)),
    ('sum-2d-wide', _normal(2, 2000)),
    ('sum-3d', _normal(20, 10, 10)),
    ('sum-4d', _normal(8, 8, 8, 8)),
    ('sum-shape-from-edges', np.concatenate([np.ones(3), np.full(1000, 1e-9),
                                             np.ones(3)]).astype(np.float32)),
    ('sum-complex', (_normal(40, 40) + 1j * _normal(40, 40)).astype(np.complex64)),
    ('sum-bool', rng.random((50, 50)) < 0.5),
    ('sum-f64', _normal(1100, dtype=np.float64)),
    ('sum-half', _normal(3, 400, dtype=np.float16)),
]


def _both(a):
    return ember.tensor(a), torch.tensor(a)


def _assert_same_text(e, t):
    assert repr(e) == repr(t)
    assert str(e) == str(t)


@pytest.mark.parametrize('a', [a for _, a in ARRAYS], ids=[name for name, _ in ARRAYS])
def test_repr_matches_torch(a):
    _assert_same_text(*_both(a))


GRAD_ARRAYS = [a for name, a in ARRAYS if a.dtype.kind in 'fc']
GRAD_IDS = [name for name, a in ARRAYS if a.dtype.kind in 'fc']


@pytest.mark.parametrize('a', GRAD_ARRAYS, ids=GRAD_IDS)
def test_requires_grad_leaf(a):
    e, t = _both(a)
    _assert_same_text(e.requires_grad_(), t.requires_grad_())


@pytest.mark.parametrize('op', ['mul', 'add'])
@pytest.mark.parametrize('a', GRAD_ARRAYS, ids=GRAD_IDS)
def test_grad_fn_suffix(a, op):
    e, t = _both(a)
    e.requires_grad_()
    t.requires_grad_()
    if op == 'mul':
        _assert_same_text(e * 2, t * 2)
    else:
        _assert_same_text(e + 1, t + 1)


def test_grad_fn_suffix_wraps_after_long_last_line():
    # 11 values of width 6 leave a 77-character line: the grad_fn suffix must move down.
    a = np.array([1.2345] * 11, np.float32)
    e, t = _both(a)
    e.requires_grad_()
    t.requires_grad_()
    _assert_same_text(e, t)
    _assert_same_text(e * 3, t * 3)


def test_dtype_and_grad_fn_suffixes_wrap():
    a = np.array([-1.2345] * 10, np.float64)
    e, t = _both(a)
    _assert_same_text(e.requires_grad_(), t.requires_grad_())
    _assert_same_text(e * 2, t * 2)


@pytest.fixture
def restore_printoptions():
    yield
    torch.set_printoptions(profile='default')
    _tensor_str.set_printoptions(profile='default')


OPTIONS = [
    dict(precision=2),
    dict(precision=0),
    dict(precision=8),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(sci_mode=True, precision=1),
    dict(threshold=5),
    dict(threshold=0),
    dict(threshold=5, edgeitems=1),
    dict(threshold=5, edgeitems=0),
    dict(edgeitems=0),
    dict(linewidth=40),
    dict(linewidth=5),
    dict(linewidth=200),
    dict(profile='short'),
    dict(profile='full'),
    dict(profile='short', precision=6),
]
OPTION_ARRAYS = ['0d-float', '0d-zero', '1d-fixed', '1d-ints-as-floats', '1d-huge', '1d-tiny',
                 '1d-zeros-and-nan', '1d-nan-with-sci', '1d-int64', '1d-bool', '1d-complex',
                 '2d', '3d', 'wide-row', 'wide-2d', 'empty-2d', 'sum-1d', 'sum-2d', 'sum-3d',
                 'sum-complex', '2d-complex-wraps']


@pytest.mark.parametrize('opts', OPTIONS, ids=lambda o: ','.join(f'{k}={v}' for k, v in o.items()))
@pytest.mark.parametrize('name', OPTION_ARRAYS)
def test_printoptions(name, opts, restore_printoptions):
    a = dict(ARRAYS)[name]
    torch.set_printoptions(**opts)
    _tensor_str.set_printoptions(**opts)
    assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
    _assert_same_text(*_both(a))


def test_set_printoptions_rules(restore_printoptions):
    for opts in [dict(precision=2, sci_mode=True), dict(linewidth=100), dict(profile='short'),
                 dict(threshold=10), dict(profile='full'), dict(profile='unknown'),
                 dict(profile='default', edgeitems=5)]:
        torch.set_printoptions(**opts)
        _tensor_str.set_printoptions(**opts)
        assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions(), opts
    assert _tensor_str.set_printoptions.__doc__ and _tensor_str.get_printoptions.__doc__


def test_printoptions_context_manager(restore_printoptions):
    _tensor_str.set_printoptions(precision=3)
    torch.set_printoptions(precision=3)
    a = np.array([1.23456, 2.5], np.float32)
    with _tensor_str.printoptions(precision=1, sci_mode=True), \
            torch._tensor_str.printoptions(precision=1, sci_mode=True):
        _assert_same_text(*_both(a))
        assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
    assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
    assert _tensor_str.get_printoptions()['precision'] == 3
    _assert_same_text(*_both(a))


@pytest.fixture
def restore_default_dtype():
    yield
    torch.set_default_dtype(torch.float32)
    ember.set_default_dtype(ember.float32)


DTYPE_ARRAYS = ['0d-float', '1d-fixed', '1d-complex', '1d-complex128', '1d-half', '1d-int64',
                '1d-int32', '1d-bool', 'empty-1d', 'empty-f64', 'empty-int', 'empty-complex',
                'empty-2d', '2d-f64', 'sum-f64']


@pytest.mark.parametrize('default', ['float64', 'float16'])
@pytest.mark.parametrize('name', DTYPE_ARRAYS)
def test_changed_default_dtype(name, default, restore_default_dtype):
    a = dict(ARRAYS)[name]
    torch.set_default_dtype(getattr(torch, default))
    ember.set_default_dtype(getattr(ember, default))
    e, t = _both(a)
    _assert_same_text(e, t)
    if a.dtype.kind in 'fc':
        _assert_same_text(e.requires_grad_() * 2, t.requires_grad_() * 2)


def test_default_dtype_restored_prints_float32_plainly():
    # The fixture above must leave the default as it found it.
    assert ember.get_default_dtype() is ember.float32
    _assert_same_text(*_both(np.array([1.5], np.float32)))


def test_subclass_prefix():
    class Spline(ember.Tensor):
        """A stand-in subclass."""

    class Spline_(torch.Tensor):  # noqa: N801 - renamed below so both print 'Spline('
        pass
    Spline_.__name__ = 'Spline'
    for a in (_normal(3), _normal(2, 30), np.zeros((0, 2), np.float32), np.array(5)):
        e = ember.tensor(a).as_subclass(Spline)
        t = torch.tensor(a).as_subclass(Spline_)
        assert repr(e) == repr(t)
        assert repr(e).startswith('Spline(')


def test_explicit_prefix_and_contents():
    a = _normal(2, 3)
    e, t = _both(a)
    # torch's Tensor.__repr__(tensor_contents=...) replaces the values, keeps the suffixes.
    assert _tensor_str.tensor_repr(e, tensor_contents='[...]') == \
        t.__repr__(tensor_contents='[...]')
    e64, t64 = _both(a.astype(np.float64))
    assert _tensor_str.tensor_repr(e64, tensor_contents='<x>') == \
        t64.__repr__(tensor_contents='<x>')
    e0, t0 = _both(np.zeros((0, 2), np.int32))
    assert _tensor_str.tensor_repr(e0, tensor_contents='<y>') == \
        t0.__repr__(tensor_contents='<y>')
    # An explicit prefix indents the rows under it.
    text = _tensor_str.tensor_repr(e, prefix='Parameter(')
    body = repr(t)[len('tensor('):]
    assert text == 'Parameter(' + body.replace('\n' + ' ' * 8, '\n' + ' ' * 11)


def test_parameter_prints_like_a_tensor():
    a = _normal(2, 3)
    assert repr(ember.nn.Parameter(ember.tensor(a))) == repr(torch.nn.Parameter(torch.tensor(a)))


def test_format_and_print_use_repr():
    a = _normal(2, 2)
    e, t = _both(a)
    assert f'{e}' == f'{t}'
    assert '{}'.format(e) == '{}'.format(t)
    assert math.isclose(float(f'{ember.tensor(np.float32(2.5)):.3f}'), 2.5)
