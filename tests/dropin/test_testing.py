"""ember.testing.assert_close / assert_allclose / make_tensor against torch.testing."""
import math

import numpy as np
import pytest

from .compare import same, ember, torch

nan, inf = float('nan'), float('inf')

# (actual, expected, kwargs); lists of numbers become tensors of the named dtype on each side
T = 'tensor'
CASES = [
    ((T, [1., 2., 3.]), (T, [1., 2.5, 3.]), {}),
    ((T, [[1., 2.], [3., 4.]]), (T, [[1., 2.5], [3., 5.]]), {}),
    ((T, [1, 2, 3]), (T, [1, 2, 4]), {}),
    ((T, [1., 2.]), (T, [1., 2.], 'float64'), {}),
    ((T, [1., 2.]), (T, [1., 2.], 'float64'), {'check_dtype': False}),
    ((T, [1., 2.]), (T, [1., 2., 3.]), {}),
    ((T, [1., nan]), (T, [1., nan]), {}),
    ((T, [1., nan]), (T, [1., nan]), {'equal_nan': True}),
    ((T, 1.), (T, 2.), {}), ((T, 1), (T, 2), {}), ((T, True), (T, False), {}),
    ((T, [1., 2.]), (T, [1., 2.]), {'rtol': 1e-3}), ((T, [1., 2.]), (T, [1., 2.]), {'atol': 1e-3}),
    ((T, [1., 2.]), (T, [1., 2.1]), {'rtol': 0, 'atol': 0}),
    ((T, [1, 2]), (T, [1., 2.5]), {'check_dtype': False}),
    ((T, [inf]), (T, [inf]), {}), ((T, [inf]), (T, [-inf]), {}),
    ((T, [0.0, 1.0]), (T, [1e-6, 0.0]), {}), ((T, [1., 1.]), (T, [0., 0.]), {}),
    ((T, [1., nan, 3.]), (T, [2., nan, 3.]), {}),
    ((T, [1e6, 2.]), (T, [1e6 + 1, 2.]), {}),
    ((T, [1., 2., 3., 4.]), (T, [1.1, 2., 3.3, 4.]), {}),
    ((T, [1 + 1j]), (T, [1 + 2j]), {}),
    ((T, [1., 2.], 'float16'), (T, [1., 3.], 'float16'), {}),
    ((T, [1, 2], 'uint8'), (T, [2, 1], 'uint8'), {}),
    ((T, [300, 2], 'int16'), (T, [-300, 2], 'int16'), {}),
    ((T, [True, False]), (T, [True, True]), {}),
    ((T, [1., 2.]), (T, [1., 2.000001]), {}),
    ((T, [[1.] * 3] * 2), (T, [[1.] * 2] * 3), {}),
    ((T, [1., 2.]), (T, [2., 1.]), {'msg': ''}), ((T, [1., 2.]), (T, [2., 1.]), {'msg': 'custom'}),
    ((T, [1., 2.]), (T, [1., 2.]), {'msg': 'custom'}),
    ((T, [1., 2.]), (T, [2., 3.]), {'msg': lambda m: 'X' + m[:30]}),
    ((T, []), (T, []), {}),
    ((T, [1., 2.]), [1., 1.], {}), ((T, [1., 2.]), 1., {}),
    (1., 2.), (1, 2), (1, 1.0), (1.0, 1), (1, 1.0, {'check_dtype': False}), (True, False),
    (None, None), (None, 1), (1 + 1j, 1 + 2j), (1e-8, 0.0), ('a', 'b'),
    ([1., 2.], [1., 3.]), ([1., 2.], [1.]), ([1., 2.], (1., 2.)),
    ([[1, 2], [3, 4]], [[1, 2], [3, 5]]), ({'a': 1}, {'b': 1}),
    ({'a': 1, 'b': 2}, {'b': 2, 'a': 1}), ({'a': [1, {'b': 2.0}]}, {'a': [1, {'b': 3.0}]}),
    ({'a': (T, [1.])}, {'a': (T, [0.])}),
    (np.ones(2), np.zeros(2)), (np.ones(2), (T, [1., 1.], 'float64')),
    ((T, [1., 1.], 'float64'), np.ones(2)),
    (np.float32(1.), np.float32(2.)), (np.int64(3), np.int64(3)),
]


def _build(lib, v):
    if isinstance(v, tuple) and v and v[0] is T:
        dtype = getattr(lib, v[2]) if len(v) > 2 else None
        return lib.tensor(v[1], dtype=dtype)
    if isinstance(v, dict):
        return {k: _build(lib, x) for k, x in v.items()}
    if isinstance(v, list):
        return [_build(lib, x) for x in v]
    return v


@pytest.mark.parametrize('case', CASES, ids=[str(i) for i in range(len(CASES))])
def test_assert_close(case):
    actual, expected = case[0], case[1]
    kwargs = case[2] if len(case) > 2 else {}
    same(lambda t: t.testing.assert_close(_build(t, actual), _build(t, expected), **kwargs))


def test_assert_close_strides_subclasses_and_keywords():
    same(lambda t: t.testing.assert_close(t.ones(3, 1).expand(3, 2), t.ones(3, 2),
                                          check_stride=True))
    same(lambda t: t.testing.assert_close(t.ones(3, 1).expand(3, 2), t.ones(3, 2)))
    same(lambda t: t.testing.assert_close(t.ones(2, 2), t.ones(2, 2).t(), check_stride=True))
    same(lambda t: t.testing.assert_close(t.nn.Parameter(t.ones(2)), t.ones(2)))
    same(lambda t: t.testing.assert_close(t.nn.Parameter(t.ones(2)), t.ones(2),
                                          allow_subclasses=False))
    same(lambda t: t.testing.assert_close(t.ones(2, requires_grad=True), t.ones(2)))
    same(lambda t: t.testing.assert_close(t.ones(1), t.ones(1), foo=1))


@pytest.mark.parametrize('args', [([1., 2.], [1., 2.00001]), ([1., 2.], [1., 3.]),
                                  ([1., 2.], 1.), ([1., nan], [1., nan]),
                                  ([1, 2], [1., 2.])])
def test_assert_allclose(args):
    same(lambda t: t.testing.assert_allclose(t.tensor(args[0]), args[1]))
    same(lambda t: t.testing.assert_allclose(t.tensor(args[0]), t.tensor(args[1])))


def _describe(x):
    """What make_tensor's result must share with torch's (values come from another stream)."""
    vals = x.detach().numpy()
    real = vals.view(vals.real.dtype) if vals.dtype.kind == 'c' else vals
    return (str(x.dtype), tuple(x.shape), x.requires_grad, x.is_contiguous(),
            bool((vals != 0).all()) if vals.size else None,
            float(real.min()) if real.size else None, float(real.max()) if real.size else None)


MAKE = [
    ((2, 3), {'dtype': 'float32'}), ((2, 3), {'dtype': 'float64', 'low': -1, 'high': 1}),
    (((2, 3),), {'dtype': 'int64'}), ((4,), {'dtype': 'uint8', 'low': -5}),
    ((5,), {'dtype': 'int8', 'low': -500}), ((3,), {'dtype': 'bool', 'low': 1}),
    ((2, 3), {'dtype': 'float32', 'low': 5, 'high': 2}),
    ((2, 3), {'dtype': 'float32', 'low': nan}), ((2, 3), {'dtype': 'float32', 'low': inf}),
    ((2, 3), {'dtype': 'int64', 'requires_grad': True}),
    ((2, 3), {'dtype': 'float32', 'requires_grad': True}),
    ((2, 3), {'dtype': 'float32', 'noncontiguous': True}),
    ((2, 3), {'dtype': 'complex64', 'low': 0, 'high': 1}),
    ((2, 3), {'dtype': 'int32', 'low': 3, 'high': 3}),
    ((2, 3), {'dtype': 'float32', 'low': 3, 'high': 3}),
    ((2, 3), {'dtype': 'int16', 'low': 1e9, 'high': 2e9}),
    ((50,), {'dtype': 'int64', 'low': -1, 'high': 1, 'exclude_zero': True}),
    ((2, 3), {'dtype': 'float16', 'low': -1e6}),
    ((1,), {'dtype': 'float32', 'noncontiguous': True}),
    ((2, 3), {'dtype': 'x'}),
    ((), {'dtype': 'float64'}),
]


@pytest.mark.parametrize('shape,kwargs', MAKE)
def test_make_tensor(shape, kwargs):
    def run(t):
        kw = dict(kwargs)
        kw['dtype'] = getattr(t, kw['dtype'], kw['dtype'])
        kw.setdefault('device', 'cpu')
        return _describe_range(t.testing.make_tensor(*shape, **kw), kwargs)
    same(run)


def _describe_range(x, kwargs):
    """dtype, shape, flags, and whether the values lie in the requested range."""
    d = _describe(x)
    low, high = kwargs.get('low'), kwargs.get('high')
    lo = d[5] is None or low is None or math.isinf(low) or d[5] >= max(low, -1e300) - 1e-6
    nonzero = d[4] if kwargs.get('exclude_zero') else None  # otherwise a matter of chance
    return d[:4] + (nonzero, lo, d[6] is None or high is None or d[6] <= high)


def test_make_tensor_needs_dtype_and_device():
    same(lambda t: t.testing.make_tensor((2, 3), dtype=t.float32))
    same(lambda t: t.testing.make_tensor((2, 3), device='cpu'))


def test_make_tensor_follows_the_seed():
    ember.manual_seed(0)
    a = ember.testing.make_tensor(4, dtype=ember.float32, device='cpu')
    ember.manual_seed(0)
    b = ember.testing.make_tensor(4, dtype=ember.float32, device='cpu')
    ember.testing.assert_close(a, b, rtol=0, atol=0)


def test_make_tensor_memory_format_exclusive_with_noncontiguous():
    # ember has no memory-format objects yet: any value shows the check
    with pytest.raises(ValueError, match='mutually exclusive'):
        ember.testing.make_tensor(2, dtype=ember.float32, device='cpu', noncontiguous=True,
                                  memory_format='channels_last')


@pytest.mark.parametrize('call', [
    lambda t: t.testing.assert_close(t.ones(3), t.ones(3).to_sparse()),
    lambda t: t.testing.assert_close(t.ones(3), t.ones(2).to_sparse()),
    lambda t: t.testing.assert_close(t.ones(3), t.ones(3, dtype=t.float64).to_sparse()),
    lambda t: t.testing.assert_close(t.ones(3), t.ones(3).to_sparse(), check_layout=False),
    lambda t: t.testing.assert_close(t.ones(3), (t.ones(3) * 2).to_sparse(),
                                     check_layout=False),
    lambda t: t.testing.assert_close(t.ones(3).to_sparse(), (t.ones(3) * 2).to_sparse()),
    lambda t: t.testing.assert_close(t.ones(3).to_sparse(), t.ones(3).to_sparse()),
], ids=['layouts', 'shape_first', 'layout_before_dtype', 'layout_unchecked',
        'layout_unchecked_values', 'coo_values', 'coo_equal'])
def test_assert_close_layouts(call):
    """The layout is compared after the shape and before the dtype (``check_layout=False``
    compares the values as dense); two sparse tensors compare their values (ember raised
    NotImplementedError from a dense-only op)."""
    same(call)
