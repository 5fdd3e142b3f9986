"""Findings of the fuzzer on seeds 2040-2239 (issue 15), wrong values: each pinned against
torch."""
import numpy as np
import pytest

from tests.oracle.oracle import check

INF, NAN = float('inf'), float('nan')


def _all_padding_window(T, x):
    return T.nn.functional.max_pool1d_with_indices(x[:, :1], [2], None, [1], [3], True, True)


@pytest.mark.parametrize('call', [
    _all_padding_window,
    lambda T, x: T.nn.functional.max_pool1d_with_indices(x.new_full((2, 5), -INF), 3, 2, 1,
                                                         1, True, True),
    lambda T, x: T.nn.functional.max_pool2d_with_indices(x.new_full((1, 4, 5), -INF), [3, 2],
                                                         [2, 1], [1, 1], [1, 2], True, True),
    lambda T, x: T.nn.functional.max_pool1d_with_indices(
        T.where(x > 0, x, -INF), 3, 1, 1, 1, False, True),
    lambda T, x: T.nn.functional.max_pool3d_with_indices(
        x.new_full((1, 2, 3, 3), -INF), 2, 1, 1, 1, False, True),
], ids=['all_padding_window', 'minus_inf_1d', 'minus_inf_2d', 'some_minus_inf', 'minus_inf_3d'])
def test_max_pool_index_of_a_window_with_nothing_above_the_lowest(call):
    """A window whose maximum is -inf (padding only, or -inf values): torch's kernel keeps
    the first tap at a position >= 0 in each dim; ember took the first tap, a left padding
    one (index -1, or a gradient dropped into the padding). (No gradient for a window of
    padding only: torch's backward writes at its index 2 past a plane of size 1, into the
    next channel's memory.)"""
    x = np.array([[3.985209, -0.5, 2.0, 1.0], [-3.8068483, 0.25, -1.0, 3.0],
                  [4.1813936, 1.5, -2.0, 0.5]], np.float32)
    check(call, x, grad=call is not _all_padding_window)


@pytest.mark.parametrize('dtype', [np.complex64, np.complex128])
@pytest.mark.parametrize('ord', [1, 2, 3, 0.5, 0, INF])
@pytest.mark.parametrize('to', ['float16', 'float32', 'float64'])
def test_foreach_powsum_of_complex_input_in_a_real_dtype(dtype, ord, to):
    """torch converts a complex tensor to the dtype's complex counterpart (float16: its
    complex32) before taking |x|; ember dropped the imaginary part."""
    a = np.array([[3 + 4j, 1 + 1j], [0.1 + 1000j, -2.5 - 0.5j]], dtype)
    b = np.array([0.2197 + 0.2331j, -1.9362 + 0.5692j, 2.719 + 1.4051j], dtype)
    check(lambda T, x, y: T._foreach_powsum([x, y], ord, dtype=getattr(T, to)), a, b,
          grad=False)


@pytest.mark.parametrize('dtype', ['bfloat16', 'float32', 'float16', 'float64'])
@pytest.mark.parametrize('dim', [0, -1, [0], None, ()])
@pytest.mark.parametrize('ord', [2, 3, 1, 0.5, -1, INF, 0])
def test_vector_norm_of_a_0d_tensor_given_a_dim(dtype, dim, ord):
    """A 0-d tensor with an explicit dim: torch's one-element shortcut looks for size-1
    dims and finds none, so its kernel runs (1e30 ** 2 overflows float32: inf); without a
    dim it returns |x|. ember took the shortcut for both."""
    x = np.array(60000.0 if dtype == 'float16' else 1e30, np.float32)
    check(lambda T, a: T.linalg.vector_norm(a.to(getattr(T, dtype)), ord, dim), x,
          grad=False)


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('ord', [2, 3, 1, 0.5, -1, INF])
def test_half_vector_norms_accumulate_in_float32(dtype, ord):
    """torch accumulates float16 and bfloat16 norms in float32 and rounds once: ember's
    float16 2-norm of [60000, 1, 3] overflowed, its bfloat16 sum of 300 squares of 1.001
    stalled at 256 (16.0, torch 17.375)."""
    check(lambda T, a: T.linalg.vector_norm(a.to(getattr(T, dtype)), ord),
          np.array([60000.0, 1.0, 3.0], np.float32), grad=False)
    check(lambda T, a: T.linalg.vector_norm(a.to(getattr(T, dtype)), ord, 1),
          np.full((2, 300), 1.001, np.float32), grad=False)


VALUES = [0j, -0j, complex(INF, 0), complex(-INF, 0), complex(0, INF), complex(INF, INF),
          1e30 + 1e30j, -1e30 + 0j, 1e-30 - 1e-30j, 2 + 3j, -1e200 + 0j, 1e160 + 0j]


@pytest.mark.parametrize('dtype', [np.complex64, np.complex128, np.float32, np.float64])
@pytest.mark.parametrize('exponent', [-1, -2, 3, -1.0, -2.0, 3.0, -2 + 0j, 2])
def test_pow_by_minus_one_minus_two_and_three_multiplies(dtype, exponent):
    """torch's pow kernel computes x ** -2 as 1 / (x * x) (and -1, 3 by reciprocal and
    products): for complex -1e30 that is 1 / (inf + 0j) = 0, where pow's exp-log is NaN."""
    x = np.array(VALUES if np.dtype(dtype).kind == 'c' else [v.real for v in VALUES], dtype)
    check(lambda T, a: a ** exponent, x, grad=False)
    check(lambda T, a: T.pow(a[7], exponent), x, grad=False)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64, np.complex64,
                                   np.complex128])
@pytest.mark.parametrize('values', [
    [3e38, 3e38, -3e38, 1.0], [1e30, 1e30, 1e-30, 2.0], [1e-30, 1e-30, 1e30, 1e30],
    [300.0, 300.0, 1 / 300, -2.0], [60000.0, 60000.0, -60000.0, 1.0],
], ids=['sum_overflows_and_returns', 'product_overflows', 'product_underflows',
        'half_product', 'half_sum'])
def test_scans_accumulate_in_a_wider_type(dtype, values):
    """torch's CPU cumsum/cumprod accumulate float16 in float32, float32 in float64 and
    complex64 in complex128, rounding each output once: a running value that overflows on
    the way comes back (3e38 + 3e38 - 3e38 is 3e38); ember scanned in the input's type."""
    x = np.array(values, np.float64).astype(dtype)
    check(lambda T, a: T.cumsum(a, 0), x, grad=False)
    check(lambda T, a: T.cumprod(a, 0), x, grad=False)
    check(lambda T, a: a.reshape(2, 2).cumprod(1), x, grad=False)


def test_float16_cumsum_of_many_small_values():
    """float16's running sum in float32: 1 + 1000 x 0.001 reaches 2, where a float16
    accumulator stalls at 1."""
    check(lambda T, a: T.cumsum(a, 0)[-1], np.array([1.0] + [1e-3] * 1000, np.float16),
          grad=False)


@pytest.mark.parametrize('dim', [0, 1])
def test_complex_cumprod_makes_nan_parts_of_the_first_element_only(dim):
    """The accumulator starts at 1: 1 * (-inf + 0j) is -inf + nanj for the first element of
    the scan only; ember multiplied every element by 1 + 0j, so a later -inf + 0j turned a
    product -inf - infj into NaN."""
    x = np.array([[2 + 1j, -INF + 0j, 1e30], [1j, 3, -INF + 0j], [-INF + 0j, 1 + 1j, 2]])
    check(lambda T, a: a.cumprod(dim), x, grad=False)
    check(lambda T, a: a.to(T.complex64).cumprod(dim), x, grad=False)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64, 'bfloat16'])
def test_floor_division_is_pythons(dtype):
    """torch's floating floor division is Python's ((x - fmod(x, y)) / y, rounded): inf // 2
    is NaN and 1 // 0.1 is 9; ember took floor(x / y) (-inf, 10)."""
    a = np.array([-INF, INF, 1, -1, 0, -0.0, 5, NAN, -INF, 3, 1, 7, -7.5, 2.5], np.float32)
    b = np.array([2.0, 2, INF, INF, INF, INF, -INF, 1, INF, 0, 0.1, 0.7, 2, -0.0], np.float32)
    if dtype == 'bfloat16':
        from tests.oracle.oracle import BFLOAT16
        dtype = BFLOAT16
    a, b = a.astype(dtype), b.astype(dtype)
    check(lambda T, x, y: T.div(x, y, rounding_mode='floor'), a, b, grad=False)
    check(lambda T, x: T.div(x, 2.0, rounding_mode='floor'), a, grad=False)
    check(lambda T, x, y: x.clone().div_(y, rounding_mode='floor'), a, b, grad=False)
    check(lambda T, x, y: x.divide(y[10], rounding_mode='floor'), a, b, grad=False)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_clamp_with_min_above_max_keeps_nan(dtype):
    """min > max gives max everywhere but at a NaN, which stays NaN (ember filled max)."""
    x = np.array([NAN, 1, -INF, INF, 5, -5], dtype)
    check(lambda T, a: T.clamp(a, 2, -2), x)
    check(lambda T, a: a.clamp(2.5, 2), x)


@pytest.mark.parametrize('call', [
    lambda T, x, r: T.subtract(x, 2.0, alpha=-INF),
    lambda T, x, r: T.add(x, r, alpha=INF),
    lambda T, x, r: T.add(x, r.double(), alpha=2),
    lambda T, x, r: T.sub(r, x, alpha=-INF),
    lambda T, x, r: T.add(x, x, alpha=INF),
    lambda T, x, r: T.add(r, 1 + 1j, alpha=2.5),
    lambda T, x, r: x.clone().sub_(r, alpha=INF),
], ids=['number_other', 'real_other', 'wider_real_other', 'rsub_like', 'complex_other',
        'complex_number', 'in_place'])
def test_complex_add_multiplies_alpha_in_complex(call):
    """torch computes alpha * other in complex arithmetic, a real factor as v + 0j: an
    infinite alpha makes the imaginary part NaN (-inf * (2 + 0j) is -inf + nanj); ember
    multiplied the real numbers and kept the other's imaginary part."""
    x = np.array([-0.2 + 0.27j, 1 + 1j, INF + 0j], np.complex64)
    r = np.array([2.0, -INF, 0.0], np.float32)
    check(call, x, r, grad=False)


def test_binomial_of_a_nan_probability_is_nan():
    """None of torch's sampler's tests holds for a NaN probability, which falls through to
    NaN (ember drew 0); a count of 0 draws no trial. (A NaN count hangs torch's sampler.)"""
    count = np.array([np.inf, 5.0, 0.0, 5.0, 3.0], np.float32)
    prob = np.array([NAN, NAN, NAN, 1.5, -1.0], np.float32)
    check(lambda T, c, p: T.binomial(c, p), count, prob, grad=False)
    check(lambda T, c, p: T.binomial(c.double(), p.double()), count, prob, grad=False)


@pytest.mark.parametrize('call', [
    lambda T, x: T.unique(x),
    lambda T, x: T.unique(x, return_inverse=True, return_counts=True),
    lambda T, x: T.unique(x, sorted=False, return_counts=True),
], ids=['values', 'inverse_counts', 'unsorted'])
def test_bfloat16_unique_sorts_nan_last(call):
    """bfloat16 is sorted as the float32 values it holds (NumPy's sort of bfloat16 left the
    NaNs where they were: unsorted output, duplicates not merged)."""
    from tests.oracle.oracle import BFLOAT16
    x = np.array([NAN, 1, -INF, NAN, 0.5, 1, 0.443359, -0.123047], np.float32)
    check(call, x.astype(BFLOAT16), grad=False)


def test_matrix_power_three_is_a_squared_times_a():
    """torch's shortcut for n = 3 is (A @ A) @ A (its loop, and ember's, gave A @ (A @ A)):
    the products' infinities meet other factors."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 3)).astype(np.float32)
    a[0, 2, 2], a[0, 2, 1], a[1, 0, 0], a[1, 1, 2] = -INF, 1e30, INF, -INF
    check(lambda T, x: T.linalg.matrix_power(x, 3), a, grad=False)
    check(lambda T, x: x.matrix_power(3), a[:1] * 0 + rng.standard_normal((1, 3, 3)).astype(
        np.float32))


@pytest.mark.parametrize('call', [
    lambda T, x: T.linalg.pinv(x), lambda T, x: T.linalg.pinv(x, hermitian=True),
    lambda T, x: x.pinverse(-1.0), lambda T, x: T.linalg.pinv(x.double(), atol=0.1),
    lambda T, x: T.linalg.pinv(x + 0j),
], ids=['pinv', 'hermitian', 'pinverse_negative_rcond', 'atol', 'complex'])
def test_pinv_of_a_non_finite_matrix_is_zero(call):
    """A non-finite matrix's singular values are NaN, which fail the tolerance test: torch's
    pseudo-inverse drops them all (0; its LAPACK leaves finite vectors), where ember's NaN
    vectors times the zeros gave NaN. A finite matrix of the batch is unaffected."""
    x = np.array([[[INF, 0], [0, 1]], [[1, 2], [2, -INF]], [[2, 1], [1, 3]]], np.float32)
    check(call, x, grad=False)


@pytest.mark.parametrize('dtype', [np.complex64, np.complex128])
def test_ldexp_by_a_complex_exponent_is_exp_of_its_product_with_log_2(dtype):
    """torch multiplies by pow(2, other), for a complex exponent exp(other * log 2) in
    complex arithmetic: an infinite real part makes the imaginary part NaN (inf * 0), so
    x * 2 ** (inf + 0j) is NaN; ember's exp2 kept inf + 0j."""
    parts = [0.0, 1.5, -2.0, INF, -INF, NAN, 1e30]
    e = np.array([complex(a, b) for a in parts for b in parts[:3]], dtype)
    x = np.resize(np.array([1 + 1j, -0.3 + 0.5j, 0.25 - 2j], dtype), e.shape)
    check(lambda T, a, b: T.ldexp(a, b), x, e, grad=False)
    check(lambda T, a, b: b.ldexp(b), x, e, grad=False)
