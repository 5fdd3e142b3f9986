"""complex32 (ComplexHalf) gaps found by a systematic probe (every fuzz target called with
complex32 tensors, and with ``dtype=torch.complex32``) and by the fuzzer's complex32 sweep,
each pinned against torch 2.13.

ember refused ops torch computes on complex32 (addcmul, index_add, std, norm, dist, nonzero
of a 0-d tensor, pairwise_distance ...: their bodies, written for NumPy's dtypes, failed on
complex32's structured dtype and the refusal path named the op); such a call now runs again
through complex64 (``_args._through_complex64``), its results rounded back. It computed
ops torch refuses (sum/cumsum/prod/mean with ``dtype=complex32``; flip, scatter_add, unique,
addr, cross ... whose kernels the generator's 2x2 probe misses; ``x.pow(2)``), gave var a
complex32 result (torch: float16), float_power float64 (torch: complex128), a one-long
window and ``eq_`` both parts set (1+1j where torch has 1+0j)."""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check

warnings.filterwarnings('ignore', 'ComplexHalf support is experimental')

A = np.array([[1.5, -2.0, 0.25], [0.5, 3.0, -1.0]], np.float64)
B = np.array([[0.25, 1.0, -0.5], [1.5, -2.0, 2.0]], np.float64)


def _c32(T, a, b):
    return T.complex(a.half(), b.half())


_COMPUTED = {
    'addcmul': lambda T, x: T.addcmul(x, x, x, value=2),
    'addcmul_': lambda T, x: x.clone().addcmul_(x, x),
    'index_add': lambda T, x: T.index_add(x, 0, T.tensor([1, 0]), x),
    'index_add_': lambda T, x: x.clone().index_add_(1, T.tensor([2]), x[:, :1]),
    'std': lambda T, x: x.std(),
    'std_dim': lambda T, x: T.std(x, 1, keepdim=True),
    'var': lambda T, x: x.var(0),
    'std_mean': lambda T, x: T.std_mean(x, 0),
    'var_mean': lambda T, x: T.var_mean(x),
    'norm': lambda T, x: x.norm(),
    'vector_norm': lambda T, x: T.linalg.vector_norm(x, 1, dim=1),
    'vector_norm_dtype': lambda T, x: T.linalg.vector_norm(x, dtype=T.complex64),
    'dist': lambda T, x: T.dist(x, x * 0),
    'pairwise_distance': lambda T, x: T.nn.functional.pairwise_distance(x, x.flip(0) * 0),
    'nonzero_0d': lambda T, x: x[0, 0].nonzero(),
    'argwhere_0d': lambda T, x: T.argwhere(x[0, 1]),
    'frobenius': lambda T, x: T.linalg.norm(x),
    'foreach_norm': lambda T, x: T._foreach_norm([x, x]),
    'float_power': lambda T, x: T.float_power(x, 2),
    'eq_': lambda T, x: x.clone().eq_(x),
    'ne_': lambda T, x: x.clone().ne_(x[0]),
    'window': lambda T, x: T.hann_window(1, dtype=T.complex32),
}


@pytest.mark.parametrize('op', sorted(_COMPUTED))
def test_ops_torch_computes_on_complex32(op):
    """torch computes these on complex32 (in complex64, rounded back); ember refused them or
    gave another dtype or value."""
    check(lambda T, a, b: _COMPUTED[op](T, _c32(T, a, b)), A, B, grad=False,
          match_message=True, rtol=2e-2, atol=2e-2)


_REFUSED = {
    'sum_dtype': lambda T, x: T.sum(x.real, dtype=T.complex32),
    'sum_dim_dtype': lambda T, x: x.real.sum(0, dtype=T.complex32),
    'sum_dtype_none': lambda T, x: x.sum(1, dtype=None),
    'cumsum_dtype': lambda T, x: T.cumsum(x.real, 0, dtype=T.complex32),
    'cumprod_dtype': lambda T, x: x.real.cumprod(1, dtype=T.complex32),
    'prod_dtype': lambda T, x: T.prod(x.real.float(), dtype=T.complex32),
    'mean_dtype': lambda T, x: x.real.float().mean(dtype=T.complex32),
    'flip': lambda T, x: x[0].flip(0),
    'fliplr': lambda T, x: x.fliplr(),
    'rot90': lambda T, x: x.rot90(),
    'take_along_dim': lambda T, x: T.take_along_dim(x, T.zeros(2, 3, dtype=T.long), 0),
    'scatter_add': lambda T, x: T.scatter_add(x, 0, T.zeros(2, 3, dtype=T.long), x),
    'scatter_add_': lambda T, x: x.clone().scatter_add_(0, T.zeros(2, 3, dtype=T.long), x),
    'unique': lambda T, x: T.unique(x),
    'unique_consecutive': lambda T, x: x.unique_consecutive(),
    'addr': lambda T, x: T.addr(x, x[:, 0], x[0]),
    'cross': lambda T, x: T.cross(x, x, dim=1),
    'linalg_cross': lambda T, x: T.linalg.cross(x, x),
    'masked_softmax': lambda T, x: T._masked_softmax(x, T.ones(2, 3, dtype=T.bool)),
    'pow_2': lambda T, x: x.pow(2),
    'pow_half': lambda T, x: x ** 0.5,
    'pow_minus_half': lambda T, x: x.pow(-0.5),
    'pow_minus_one': lambda T, x: x.pow(-1.0),
    'pow_complex': lambda T, x: x.pow(1j),
    'rpow': lambda T, x: 2 ** x,
    'pow_number_base': lambda T, x: T.pow(2, x),
    'pow_operator_tensors': lambda T, x: x ** x,
    'max_dim': lambda T, x: T.max(x, 0),
    'nansum': lambda T, x: x.nansum(),
}


@pytest.mark.parametrize('op', sorted(_REFUSED))
def test_ops_torch_refuses_on_complex32(op):
    """torch has no kernel for these on complex32 (or computing in it): its error, where
    ember computed."""
    check(lambda T, a, b: _REFUSED[op](T, _c32(T, a, b)), A, B, grad=False,
          match_message=True)


@pytest.mark.parametrize('e', [0, 1, 1.0, 0j, True])
def test_pow_of_complex32_by_zero_or_one_runs_no_kernel(e):
    """``x ** 0`` and ``x ** 1`` are answered without pow's kernel, so complex32 takes them."""
    check(lambda T, a, b: _c32(T, a, b).pow(e), A, B, grad=False)


def test_in_place_through_complex64_writes_the_complex32_tensor():
    """An in-place op run through complex64 writes its complex32 tensor (views included)
    and returns it."""
    def f(T, a, b):
        x = _c32(T, a, b)
        v = x[1]
        r = v.addcmul_(v, v)
        return x, r is v
    check(f, A, B, grad=False)


def test_errors_through_complex64_name_complex32():
    """A call of an op torch computes on complex32 that is wrong for another reason gets
    the error torch gives, not a refusal of the dtype (dim out of range; shapes)."""
    check(lambda T, a, b: _c32(T, a, b).std(5), A, B, grad=False, match_message=True)
    check(lambda T, a, b: T.addcmul(_c32(T, a, b), _c32(T, a, b)[:, :2], _c32(T, a, b)),
          A, B, grad=False, match_message=True)


_CHECKED_FIRST = {
    'vander': lambda T, x: T.linalg.vander(x[0]),
    'vander_half': lambda T, x: T.linalg.vander(x[0].real),
    'kl_div': lambda T, x: T.nn.functional.kl_div(x, x, reduction='sum'),
    'binomial': lambda T, x: T.binomial(x, x),
    'affine_grid': lambda T, x: T.nn.functional.affine_grid(
        T.zeros(1, 2, 3, dtype=T.complex32), [1, 1, 2, 2], align_corners=False),
    'hardshrink': lambda T, x: T.nn.functional.hardshrink(x),
    'softshrink': lambda T, x: T.nn.functional.softshrink(x),
    'adaptive_max_pool1d': lambda T, x: T.nn.functional.adaptive_max_pool1d(x, 2, True),
    'linspace': lambda T, x: T.linspace(0, 1, 3, dtype=T.complex32),
    'logspace': lambda T, x: T.logspace(0, 1, 3, dtype=T.complex32),
}


@pytest.mark.parametrize('op', sorted(_CHECKED_FIRST))
def test_complex32_is_not_a_floating_dtype(op):
    """Checks that read NumPy's kind 'V' as floating (bfloat16's) took complex32 for a
    float, or NumPy's refusal of its structured dtype (a float written into an element, a
    promotion) leaked or named the op: torch's own check or kernel refusal."""
    check(lambda T, a, b: _CHECKED_FIRST[op](T, _c32(T, a, b)), A, B, grad=False,
          match_message=True)


@pytest.mark.parametrize('start', [0.5, 1j, -2])
@pytest.mark.parametrize('op', ['linspace', 'logspace'])
@pytest.mark.parametrize('steps', [0, 1])
def test_one_value_spaces_of_complex32(op, start, steps):
    """linspace/logspace of one value (or none) run no kernel: torch fills the start in
    complex32; ember refused it as for more values."""
    check(lambda T: getattr(T, op)(start, 2, steps, dtype=T.complex32), grad=False)


_SWEEP = {
    'equal_other_shape': lambda T, x: T.equal(x, x[:1]),
    'equal_itself': lambda T, x: T.equal(x, x),
    'equal': lambda T, x: T.equal(x, x.clone()),
    'pow_operator_one': lambda T, x: x.t() ** 1.0,
    'pow_operator_zero': lambda T, x: x ** 0,
    'pow_in_place_one': lambda T, x: x.clone().pow_(1),
    'rpow_one': lambda T, x: 1 ** x,
    'pow_float_tensor': lambda T, x: x ** T.ones(1),
    'add_complex_alpha': lambda T, x: T.add(x, x, alpha=0.5 - 1j),
    'sub_complex_alpha': lambda T, x: T.sub(x, x[0], alpha=1j),
    'addcmul_complex_value': lambda T, x: x.addcmul(x, x, value=-0.25 + 1j),
    'uniform_': lambda T, x: x.clone().uniform_().dtype,
    'uniform_bounds': lambda T, x: x.clone().uniform_(0, 7e4),
}


@pytest.mark.parametrize('op', sorted(_SWEEP))
def test_complex32_sweep_findings(op):
    """The fuzzer's complex32 sweep (seeds 32000-32099): equal of other shapes is False
    without a kernel (ember applied the table's refusal), ``x ** 1`` and ``** 0`` run no
    kernel, a complex alpha/value is a complex32 result's (ember read its 'V' kind as
    real), uniform_ fills complex32 (ember: KeyError)."""
    check(lambda T, a, b: _SWEEP[op](T, _c32(T, a, b)), A, B, grad=False,
          match_message=True, rtol=2e-2, atol=2e-2)


_KERNEL_NAMES = {
    'floordiv_operator': lambda T, x: x // 2,
    'floor_divide': lambda T, x: T.floor_divide(x, x),
    'div_floor': lambda T, x: T.div(x, 2, rounding_mode='floor'),
    'div_trunc': lambda T, x: T.div(x, x, rounding_mode='trunc'),
    'divide_floor_number': lambda T, x: T.divide(x[0, 0], 1j, rounding_mode='floor'),
    'half_floordiv_complex': lambda T, x: x.real // 1j,
    'half_div_trunc_complex': lambda T, x: T.div(x.real, 1j, rounding_mode='trunc'),
    'avg_pool1d': lambda T, x: T.nn.functional.avg_pool1d(x, 1),
    'avg_pool2d': lambda T, x: T.nn.functional.avg_pool2d(x[None], 1),
    'pixel_shuffle': lambda T, x: T.nn.functional.pixel_shuffle(x[None], 1),
    'pixel_unshuffle': lambda T, x: T.nn.functional.pixel_unshuffle(x[None], 1),
    'channel_shuffle': lambda T, x: T.nn.functional.channel_shuffle(x[None], 1),
    'native_channel_shuffle': lambda T, x: T.native_channel_shuffle(x[None], 1),
    'lu_unpack': lambda T, x: T.lu_unpack(x[:, :2], T.tensor([1, 2], dtype=T.int32)),
}


@pytest.mark.parametrize('op', sorted(_KERNEL_NAMES))
def test_complex32_refusals_name_the_kernel_that_runs(op):
    """A rounding mode runs div_floor's or div_trunc's kernel (ember named div's, or
    "floor_divide" for ``h // 1j``); pools, shuffles and lu_unpack refuse complex32 where
    the generator's probe does not reach (ember computed)."""
    check(lambda T, a, b: _KERNEL_NAMES[op](T, _c32(T, a, b)), A, B, grad=False,
          match_message=True)


@pytest.mark.parametrize('n', [None, 1])
def test_vander_ones_of_complex32(n):
    """vander's column of ones (x ** 0) is 1+0j: NumPy's ones of complex32's structured
    dtype set both parts (1+1j)."""
    check(lambda T, a, b: T.vander(_c32(T, a, b)[0, :1] if n is None else _c32(T, a, b)[0],
                                   N=n), A, B, grad=False)


def test_foreach_through_complex64_goes_by_each_place():
    """A _foreach_ op over complex32 and complex64 tensors: each result has its own
    tensor's dtype (ember left every one complex64/float32 once any input was wider)."""
    def f(T, a, b):
        x = _c32(T, a, b)
        y = x.to(T.complex64)
        return T._foreach_norm([x, y, x], 0), T._foreach_addcmul([x, y], [x, x], [x, x])
    check(f, A, B, grad=False, rtol=2e-2, atol=2e-2)


def test_argmax_of_an_empty_complex32_refuses_complex_first():
    """argmax/argmin refuse a complex input before looking at its size."""
    check(lambda T, a, b: _c32(T, a, b)[:, :0].argmax(), A, B, grad=False,
          match_message=True)
    check(lambda T, a, b: _c32(T, a, b).argmin(1), A, B, grad=False, match_message=True)


@pytest.mark.parametrize('dtype', ['complex32', 'float16', 'bfloat16'])
@pytest.mark.parametrize('ord', [2, -2, 'nuc'])
def test_matrix_norm_by_singular_values_refuses_low_precision(dtype, ord):
    """matrix_norm's singular-value orders (+-2, 'nuc') refuse float16, bfloat16 and
    complex32 ("Low precision dtypes not supported"); ember computed them."""
    def f(T, a, b):
        x = _c32(T, a, b) if dtype == 'complex32' else a.to(getattr(T, dtype))
        return T.linalg.matrix_norm(x, ord), T.linalg.norm(x, ord)
    check(f, A, B, grad=False, match_message=True)


_NOT_FLOAT = {
    'random_bounds': lambda T, x: x.clone().random_(0, 5),
    'randint_like': lambda T, x: T.randint_like(x, 3).dtype,
    'cross_entropy_probabilities': lambda T, x: T.nn.functional.cross_entropy(x, x),
}


@pytest.mark.parametrize('op', sorted(_NOT_FLOAT))
def test_complex32_is_not_a_float_for_random_bounds_and_targets(op):
    """random_'s bounds check and cross_entropy's class-probability target refuse complex32
    as complex (ember read its kind 'V' as bfloat16's: floating)."""
    check(lambda T, a, b: _NOT_FLOAT[op](T, _c32(T, a, b)), A, B, grad=False,
          match_message=True)


def test_cov_refuses_complex32_aweights():
    """cov's aweights must be floating: complex32's are refused (ember read 'V' as
    bfloat16's kind)."""
    check(lambda T, a, b: T.cov(_c32(T, a, b)[0], aweights=_c32(T, a, b)[1]), A, B,
          grad=False, match_message=True)


_NO_KERNEL = {
    'scatter_add_empty': lambda T, x: T.scatter_add(x[:, :0], 1, T.zeros(2, 0, dtype=T.long),
                                                    x[:, :0]),
    'take_along_dim_empty': lambda T, x: T.take_along_dim(x[0, :0], T.zeros(0, dtype=T.long)),
    'lu_unpack_data': lambda T, x: T.lu_unpack(x[:, :2], T.tensor([1, 2], dtype=T.int32),
                                               unpack_pivots=False),
    'ldexp_complex64': lambda T, x: x.clone().ldexp_(x.to(T.complex64)),
    'ldexp': lambda T, x: T.ldexp(x, x),
}


@pytest.mark.parametrize('op', sorted(_NO_KERNEL))
def test_complex32_calls_that_run_no_refusing_kernel(op):
    """An empty index runs no scatter/gather kernel; lu_unpack without its pivots runs no
    scatter (and its L's diagonal is 1+0j); a complex64 operand makes ldexp_ compute in
    complex64. ember refused them (or set both parts of the diagonal)."""
    check(lambda T, a, b: _NO_KERNEL[op](T, _c32(T, a, b)), A, B, grad=False,
          match_message=True, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize('fname', ['fft', 'ifft', 'fft2', 'fftn', 'ifftn', 'hfft', 'irfft',
                                   'rfft', 'ihfft', 'rfftn', 'ihfftn', 'irfftn', 'hfftn'])
def test_fft_of_complex32(fname):
    """torch's dtype check lets complex32 through to the kernel, whose message names its
    parts' type (Half); the real transforms refuse it as complex first; ember said
    "Unsupported dtype ComplexHalf"."""
    check(lambda T, a, b: getattr(T.fft, fname)(_c32(T, a, b)), A, B, grad=False,
          match_message=True)


@pytest.mark.parametrize('fname', ['fft2', 'fftn', 'ifftn', 'ifft2'])
def test_fft_of_complex32_over_no_dims_is_a_copy(fname):
    """No dim to transform runs no kernel: torch returns complex32's values."""
    check(lambda T, a, b: getattr(T.fft, fname)(_c32(T, a, b), dim=[]), A, B, grad=False)


def test_prod_of_nothing_in_complex32():
    """prod of an empty tensor with dtype=complex32 runs no kernel: a complex32 one, from
    a complex128 input too (ember gave complex64, the dtype it computed in)."""
    check(lambda T: T.prod(T.zeros(0, dtype=T.complex128), -1, True, dtype=T.complex32),
          grad=False)
    check(lambda T: T.prod(T.zeros(0), dtype=T.complex32), grad=False)


@pytest.mark.parametrize('op', ['mul', 'add', 'sub', 'rmul', 'rsub'])
@pytest.mark.parametrize('number', [1.5, 2, 2j])
def test_number_first_with_complex32(op, number):
    """A real number on the left of a complex32 tensor is its real part (ember's 0-d
    complex32 of it set both parts: mul(1.5, x) was (1.5+1.5j) * x)."""
    fns = {'mul': lambda T, x: T.mul(number, x), 'add': lambda T, x: T.add(number, x),
           'sub': lambda T, x: T.sub(number, x), 'rmul': lambda T, x: number * x,
           'rsub': lambda T, x: number - x}
    check(lambda T, a, b: fns[op](T, _c32(T, a, b)), A, B, grad=False, rtol=2e-2, atol=2e-2)


def test_out_through_complex64_is_resized():
    """An empty out= tensor of an op run through complex64 takes the result's shape."""
    def f(T, a, b):
        x = _c32(T, a, b)
        o = T.zeros(0, dtype=T.complex32)
        r = T.addcmul(x, x, x, out=o)
        return r, o, r is o
    check(f, A, B, grad=False, rtol=2e-2, atol=2e-2)


_SWEEP3 = {
    'isin_number': lambda T, x: T.isin(x, 1.5),
    'isin_number_first': lambda T, x: T.isin(1.0, x),
    'isin_tensors': lambda T, x: T.isin(x, x[0]),
    'pdist_one_row': lambda T, x: T.pdist(x[:1]),
    'adaptive_avg_pool1d': lambda T, x: T.nn.functional.adaptive_avg_pool1d(x, 2),
    'adaptive_avg_pool1d_to_one': lambda T, x: T.nn.functional.adaptive_avg_pool1d(x, [1]),
    'max_pool1d': lambda T, x: T.nn.functional.max_pool1d(x, 1),
    'max_pool1d_indices': lambda T, x: T.nn.functional.max_pool1d(x, 2, return_indices=True),
    'foreach_norm_dtype': lambda T, x: T._foreach_norm([x, x], 2, dtype=T.float32),
    'foreach_norm_complex64': lambda T, x: T._foreach_norm([x, x[0]], -0.7, T.complex64),
}


@pytest.mark.parametrize('op', sorted(_SWEEP3))
def test_complex32_sweep_findings_2(op):
    """The fuzzer's complex32 sweep (seeds 32100-32159): isin of complex32 with a number
    computes (ember refused it as complex; with a tensor of test elements torch's kernel
    refuses it); pdist refuses complex32 even of one row; adaptive_avg_pool1d and
    max_pool1d refuse it in their kernels' words (ember computed)."""
    check(lambda T, a, b: _SWEEP3[op](T, _c32(T, a, b)), A, B, grad=False,
          match_message=True, rtol=2e-2, atol=2e-2)


_MESSAGES = {
    'clamp_min_number': lambda T, x: T.clamp_min(x, 0),
    'clamp_min_number_': lambda T, x: x.clone().clamp_min_(0),
    'addcdiv': lambda T, x: T.addcdiv(x, x, x),
    'addcdiv_': lambda T, x: x.clone().addcdiv_(x, x),
    'margin_ranking_loss': lambda T, x: T.nn.functional.margin_ranking_loss(x, x, x),
    'hinge_embedding_loss': lambda T, x: T.nn.functional.hinge_embedding_loss(x, x),
    'foreach_minimum': lambda T, x: T._foreach_minimum([x], 1),
    'foreach_clamp_max_': lambda T, x: T._foreach_clamp_max_([x.clone()], 1),
    'lerp_number': lambda T, x: T.lerp(x, x, 0.5),
    'lerp_tensor': lambda T, x: T.lerp(x, x, x),
    'polygamma_0': lambda T, x: T.polygamma(0, x),
    'polygamma_1': lambda T, x: T.polygamma(1, x),
    'polygamma_2': lambda T, x: T.polygamma(2, x),
    'polygamma_method': lambda T, x: x.polygamma(1),
    'polygamma_': lambda T, x: x.clone().polygamma_(3),
    'special_polygamma': lambda T, x: T.special.polygamma(1, x),
    'softmax_last': lambda T, x: T.softmax(x, -1),
    'softmax_first': lambda T, x: T.softmax(x, 0),
    'log_softmax_1d': lambda T, x: T.nn.functional.log_softmax(x[0], 0),
    'softmin': lambda T, x: T.nn.functional.softmin(x, 1),
    'private_softmax': lambda T, x: T._softmax(x, 1, False),
    'round': lambda T, x: x.round(),
    'round_decimals': lambda T, x: x.round(decimals=1),
    'unique_dim': lambda T, x: T.unique(x, dim=0),
    'unique_consecutive_dim': lambda T, x: x.unique_consecutive(dim=0),
}


@pytest.mark.parametrize('op', sorted(_MESSAGES))
def test_complex32_refusals_in_torchs_words(op):
    """The kernel torch's call runs names the refusal: a number bound's clamp ("clamp is not
    supported"), the op's own kernel before an inner op's (addcdiv), lerp's scalar kernel,
    polygamma's by order, softmax's lastdim kernel, round's with decimals, unique's with a
    dim."""
    check(lambda T, a, b: _MESSAGES[op](T, _c32(T, a, b)), A, B, grad=False,
          match_message=True)


@pytest.mark.parametrize('dtype', ['int64', 'bool'])
@pytest.mark.parametrize('dim', [0, -1])
def test_softmax_lastdim_kernel_of_other_dtypes(dtype, dim):
    """The lastdim kernel's name holds for every refused dtype."""
    check(lambda T: T.softmax(T.ones(2, 3, dtype=getattr(T, dtype)), dim), grad=False,
          match_message=True)


_PROBE4 = {
    'softmax_dtype': lambda T, x: T.softmax(x.real.float(), 1, dtype=T.complex32),
    'log_softmax_dtype_positional': lambda T, x: T.log_softmax(x.real.float(), 0,
                                                              T.complex32),
    'softmax_method_dtype': lambda T, x: x.real.float().softmax(-1, dtype=T.complex32),
    'special_softmax_empty_dtype': lambda T, x: T.special.softmax(x.real[:, :0].float(), 0,
                                                                  dtype=T.complex32),
    'matmul_vectors': lambda T, x: x[0] @ x[1],
    'inner_vectors': lambda T, x: T.inner(x[0], x[1]),
    'matmul_matrix_vector': lambda T, x: T.matmul(x, x[0]),
    'scatter_number': lambda T, x: T.scatter(x, 0, T.zeros(1, 3, dtype=T.long), 1.5),
    'scatter_number_': lambda T, x: x.clone().scatter_(0, T.zeros(1, 3, dtype=T.long), 2),
    'fft_0d': lambda T, x: T.fft.fft(x[0, 0]),
    'fft_dim_out_of_range': lambda T, x: T.fft.ifft(x, dim=5),
}


@pytest.mark.parametrize('op', sorted(_PROBE4))
def test_complex32_probe_findings_2(op):
    """softmax with a complex32 dtype (by keyword or position: ember's check skipped a
    positional dtype and computed); the kernel a product of vectors runs (dot, addmv); a
    scatter of a number (the scalar kernel); fft's dim errors before its complex32
    refusal."""
    check(lambda T, a, b: _PROBE4[op](T, _c32(T, a, b)), A, B, grad=False,
          match_message=True)


@pytest.mark.parametrize('dtype', ['complex32', 'uint16', 'bool'])
def test_trace_refuses_its_dtypes_before_the_rank(dtype):
    """trace's kernel refuses complex32 (and uint16, bool) before trace checks for a
    matrix."""
    check(lambda T, a, b: T.trace(_c32(T, a, b)[0] if dtype == 'complex32' else
                                  T.ones(3, dtype=getattr(T, dtype))), A, B, grad=False,
          match_message=True)


@pytest.mark.parametrize('op', ['geqrf', 'eig', 'eigvals'])
def test_complex32_kernel_refusal_comes_after_the_dims(op):
    """A kernel's refusal of complex32 comes after the op's own checks (a vector where a
    matrix goes): _kernel_dtype_last, which the complex32 path skipped."""
    fns = {'geqrf': lambda T, x: T.geqrf(x), 'eig': lambda T, x: T.linalg.eig(x),
           'eigvals': lambda T, x: T.linalg.eigvals(x)}
    check(lambda T, a, b: fns[op](T, _c32(T, a, b)[0]), A, B, grad=False,
          match_message=True)
    check(lambda T, a, b: fns[op](T, _c32(T, a, b)[:, :2]), A, B, grad=False,
          match_message=True)
