"""Findings of the fuzzer on fresh seeds 5000-5039 and wide-shape seeds 500-539 (issue 15),
each pinned against torch."""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32', 'float64'])
@pytest.mark.parametrize('kw', [{'threshold': 1j}, {'beta': 1j}, {'beta': 1e300},
                                {'threshold': 1e300}, {'beta': 2, 'threshold': 1 + 0j}],
                         ids=['complex_threshold', 'complex_beta', 'huge_beta',
                              'huge_threshold', 'real_complex_threshold'])
def test_softplus_converts_beta_and_threshold_as_scalars(dtype, kw):
    """torch converts beta and threshold to the kernel's float type, refusing a complex
    number with an imaginary part and one beyond float's range; ember took a complex
    threshold silently and leaked NumPy's cast error for a complex beta."""
    x = np.array([-1., 0.5, 3.], np.float64)
    check(lambda T, a: T.nn.functional.softplus(a.to(getattr(T, dtype)), **kw), x,
          match_message=True, rtol=1e-2 if dtype in ('float16', 'bfloat16') else None)


@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64'])
@pytest.mark.parametrize('a,b', [(-0., -2), (4., 2), (1., 0.1), (-3., 2)])
def test_floor_division_of_a_0d_float(dtype, a, b):
    """A 0-d float whose quotient is whole: NumPy's floor of a 0-d array is a scalar, which
    the exact-quotient fix-up could not assign into (TypeError)."""
    check(lambda T: T.div(T.tensor(a, dtype=getattr(T, dtype)), b, rounding_mode='floor'),
          grad=False)
    check(lambda T: T.tensor(a, dtype=getattr(T, dtype)) // b, grad=False)


def test_histogramdd_density_of_no_points_is_a_0d_tensor():
    """No dims and density: the 0-d histogram (NaN) is a tensor, not a NumPy scalar
    inside one (its layout raised AttributeError)."""
    out = check(lambda T: T.histogramdd(T.zeros(2, 0, dtype=T.float64), 2, density=True).hist,
                grad=False)
    assert out.layout is not None and out.dim() == 0


def _on_expanded(T, write):
    base = T.zeros(1, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        write(base.expand(4, 3))
    return base, [str(w.message).split('.')[0] for w in caught]


@pytest.mark.parametrize('write', [
    lambda T, e: e.index_fill_(1, T.tensor([2]), 7),
    lambda T, e: e.index_fill_(0, T.tensor([1]), 7),
    lambda T, e: e.index_fill_(1, T.tensor([1]), T.tensor(3.)),
    lambda T, e: e.masked_fill_(T.tensor([True, False, True]), 5),
    lambda T, e: e.masked_fill_(T.tensor([[True, False, False], [False] * 3,
                                          [False, True, False], [False] * 3]), -0.),
], ids=['index_fill_column', 'index_fill_row', 'index_fill_tensor_value',
        'masked_fill_broadcast_mask', 'masked_fill_one_alias_filled'])
def test_fills_write_through_an_expanded_tensor(write):
    """torch writes index_fill_/masked_fill_ through the memory an expanded tensor shares
    (with a deprecation warning): a location any alias fills holds the value. ember refused
    them as other in-place ops."""
    check(lambda T: _on_expanded(T, lambda e: write(T, e)), grad=False)


def test_other_in_place_ops_still_refuse_an_expanded_tensor():
    check(lambda T: T.zeros(1, 3).expand(4, 3).add_(1), grad=False, match_message=True)
    check(lambda T: T.zeros(1, 3).expand(4, 3).index_fill_(1, T.tensor([5]), 1.), grad=False,
          match_message=True)


class _ArrayLike:
    """An object with ``__array__``: torch's constructor does not read it."""

    def __array__(self, dtype=None, copy=None):
        return np.ones(2)


_DATA = {'str': 'x', 'bytes': b'x', 'none': None, 'object': object(), 'dict': {1: 2},
         'list_str': ['x', 'y'], 'number_then_str': [1, 'y'], 'rows_then_str': [[1], ['x']],
         'str_first_row': [['x'], [1]], 'list_none': [None], 'number_then_none': [1, None],
         'nested_none': [[1], [None]], 'complex_then_none': [1 + 2j, None],
         'ragged_longer': [[1], [2, 3]], 'ragged_shorter': [[1, 2], [3]],
         'row_then_number': [[1, 2], 3], 'number_then_row': [1, [2]],
         'array_like': _ArrayLike(), 'list_of_array_likes': [_ArrayLike()]}


@pytest.mark.parametrize('dtype', [None, 'float32', 'int64', 'bool', 'complex64'])
@pytest.mark.parametrize('data', list(_DATA), ids=list(_DATA))
def test_tensor_refuses_data_that_is_no_numbers_as_torch(data, dtype):
    """torch checks the sizes along the first elements, infers the dtype of every leaf, then
    stores each element: each step has its own error. ember leaked NumPy's ValueErrors
    (``tensor('x', dtype=int16)``), made a None a NaN (``tensor([None], dtype=float32)``)
    and said TypeError where torch cannot infer a dtype (RuntimeError)."""
    value = _DATA[data]
    check(lambda T: T.tensor(value, dtype=dtype and getattr(T, dtype)), grad=False,
          match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.tensor(1.5, dtype=1.5),
    lambda T: T.tensor(1.5, dtype='float32'),
    lambda T: T.tensor(1.5, dtype=np.float32),
    lambda T: T.tensor(1.5, requires_grad=1),
    lambda T: T.tensor(1.5, device=1.5),
    lambda T: T.tensor(1.5, pin_memory='x'),
    lambda T: T.as_tensor(1.5, dtype=object()),
    lambda T: T.as_tensor(1.5, T.float32),
    lambda T: T.as_tensor(np.ones(2), dtype=1.5),
    lambda T: T.as_tensor(T.ones(2), dtype=1.5),
    lambda T: T.as_tensor(1.5, device=1.5),
    lambda T: T.asarray(1.5, dtype=1.5),
    lambda T: T.asarray(1.5, copy='x'),
    lambda T: T.tensor([1, 2], dtype=T.float64, device='cpu', requires_grad=True),
    lambda T: T.as_tensor([1, 2], dtype=T.int32, device=T.device('cpu')),
], ids=['dtype_float', 'dtype_str', 'dtype_numpy', 'requires_grad_int', 'device_float',
        'pin_memory_str', 'as_tensor_dtype_object', 'as_tensor_dtype_by_position',
        'as_tensor_array', 'as_tensor_tensor', 'as_tensor_device', 'asarray_dtype',
        'asarray_copy', 'well_formed_tensor', 'well_formed_as_tensor'])
def test_constructors_parse_their_keywords_as_torch(call):
    """torch's parser refuses a keyword of another type (TypeError naming the argument);
    ember read ``dtype.np`` (AttributeError) and took ``requires_grad=1``."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('p', [1, 2, 3])
def test_mvlgamma_composes_half_types_as_torch(dtype, p):
    """torch computes mvlgamma in a half dtype step by step (x - j/2, each lgamma term, the
    sum, the constant's addition each rounded): near a pole of lgamma the rounding of
    x - j/2 moves the result by several units (bfloat16 -1.0234375, p=3: 9.0625; ember's
    exact sum gave 9.375)."""
    x = np.array([-1.0234375, 1.265625, 0.84765625, 4.46875, -2.8656, 3.6875], np.float32)
    check(lambda T, a: T.mvlgamma(a.to(getattr(T, dtype)), p), x, grad=False, rtol=1e-2,
          atol=2e-3)


@pytest.mark.parametrize('bias_shape', [(2, 3, 1), (2,), (3, 2), (1,), (2, 1), (1, 2), ()],
                         ids=str)
def test_bilinear_reads_only_the_first_dim_of_bias(bias_shape):
    """torch checks bias.size(0) against the weight's out features and broadcasts the rest
    with the result; ember refused any bias but a 1-d one."""
    check(lambda T: T.nn.functional.bilinear(T.ones(2, 3, 3), T.ones(2, 3, 3), T.ones(2, 3, 3),
                                             T.ones(*bias_shape)), grad=False,
          match_message=True)


@pytest.mark.parametrize('fn', ['solve', 'solve_ex'])
@pytest.mark.parametrize('shapes', [((2, 3), (2,)), ((3,), (3,)), ((2, 2), (2,))], ids=str)
def test_linalg_solve_checks_the_dtype_before_the_shape(fn, shapes):
    """torch's solve refuses an integer A before looking at its dims (the other linalg
    kernels check dims first; the merged check-order change had made solve do so too)."""
    a, b = shapes
    check(lambda T: getattr(T.linalg, fn)(T.ones(*a, dtype=T.int64), T.ones(*b)), grad=False,
          match_message=True)
