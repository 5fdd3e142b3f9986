"""Findings of the fuzzer on fresh seeds 2000-2039 and of its keyword mode (issue 15), each
pinned against torch."""
import numpy as np
import pytest

from tests.oracle.oracle import check

INF, NAN = float('inf'), float('nan')


@pytest.mark.parametrize('values', [
    [0.38 + 0.37j, 0.988 - 2.195j, 0.993 + 2.49j, -1.395 - 0.387j],
    [1 + 3j, 1 - 3.1j], [1e30 + 3j, 1 + 3.1j],
], ids=['principal_branch', 'equal_real_parts', 'huge'])
def test_complex_logsumexp_shifts_by_the_largest_real_part(values):
    """torch subtracts the largest real part, so the imaginary part of the result is the
    log's principal one (ember shifted by the complex maximum: off by 2 pi)."""
    check(lambda T, x: T.logsumexp(x, 0), np.array(values, np.complex64), grad=False)


def test_bfloat16_nextafter_steps_bfloat16s_ulp():
    """ember computed bfloat16 in float32 and rounded back: no step at all, or inf."""
    x = np.array([1, -INF, INF, 0, -0.0, NAN, 3.5], np.float32)
    y = np.array([2, 0, 0, -1, 1, 0, -INF], np.float32)
    check(lambda T, a, b: T.nextafter(a.bfloat16(), b.bfloat16()), x, y, grad=False)
    check(lambda T, a, b: T.nextafter(a.half(), b.half()), x, y, grad=False)


@pytest.mark.parametrize('p', [0, 1, 2, 3, 0.5, INF])
def test_pdist_computes_in_the_input_dtype(p):
    """A one-column float32 input holding 1e30: torch's kernel squares it (inf); ember took
    vector_norm's one-element shortcut (1e30)."""
    x = np.array([[1e30], [1.4375], [-0.33]], np.float32)
    check(lambda T, a: T.nn.functional.pdist(a, p), x, grad=False)
    check(lambda T, a: T.nn.functional.pdist(a, p),
          np.array([[1., 2, 3], [0, -1, 4], [2, 2, 2.5]]))


@pytest.mark.parametrize('call', [
    lambda T: T.bernoulli(T.tensor(NAN, dtype=T.float64)),
    lambda T: T.zeros(2).bernoulli_(T.tensor([NAN, 0.5])),
    lambda T: T.tensor(NAN, dtype=T.bfloat16).bernoulli(T.tensor(1e-30, dtype=T.bfloat16)),
    lambda T: T.tensor([0.5]).bernoulli(T.tensor(2.0)),
], ids=['nan_probability', 'nan_in_place', 'bfloat16_tensor_p', 'tensor_p_out_of_range'])
def test_bernoulli_probabilities(call):
    """NaN is no probability (ember's range test let it through); a 0-d tensor p is read as
    torch's parser reads a float (ember's bfloat16 one leaked a TypeError)."""
    check(call, grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.meshgrid([T.ones(1), 2], indexing='ij'),
    lambda T: T.block_diag(T.ones(1), 2),
    lambda T: T._foreach_add([T.ones(2)], [T.ones(2), 'a']),
    lambda T: T._foreach_mul(['a'], 2.0),
], ids=['meshgrid', 'block_diag', 'foreach_other', 'foreach_self'])
def test_a_tensor_list_holding_something_else(call):
    """torch's parser stops at the element ("expected Tensor as element 1 in argument 0");
    ember leaked an AttributeError (meshgrid) or listed the overloads (_foreach_)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.linear(T.zeros(3, 2, 0), T.zeros(1, 0)),
    lambda T: T.nn.functional.linear(T.zeros(3, 2, 0), T.zeros(1, 0), T.ones(1)),
    lambda T: T.mv(T.zeros(0, 2, dtype=T.bool), T.zeros(2, dtype=T.bool)),
    lambda T: T.bmm(T.zeros(2, 0, 2, dtype=T.bool), T.zeros(2, 2, 3, dtype=T.bool)),
], ids=['linear_3d_of_no_columns', 'linear_bias', 'mv_bool', 'bmm_bool'])
def test_products_of_no_elements(call):
    """linear flattened a (3, 2, 0) input with reshape(-1, 0), which torch refuses too (its
    linear sizes the fold); an empty bool product runs no kernel. (Not yet: mm and linear
    of bool (2, 0) and (0, 1) matrices, which the generated dtype refusals refuse.)"""
    check(call)


@pytest.mark.parametrize('call', [
    lambda T, x: T.sum(x, axis=0), lambda T, x: x.sum(axis=1, keepdims=True),
    lambda T, x: T.mean(a=x), lambda T, x: T.add(x1=x, x2=x), lambda T, x: x.max(axis=0),
    lambda T, x: T.cat([x, x], axis=1), lambda T, x: T.softmax(x, axis=1),
    lambda T, x: x.std(axis=0), lambda T, x: T.argmax(x, axis=1, keepdims=True),
    lambda T, x: T.sum(x, axis=0, dim=1),
    lambda T, x: x.split(split_size=1), lambda T, x: T.split(x, split_size_or_sections=1),
    lambda T, x: T.special.airy_ai(x=x), lambda T, x: T.special.airy_ai(input=x),
    lambda T, x: T.Tensor.__rsub__(x, other=1.5), lambda T, x: T.Tensor.__rand__(
        x > 0.3, other=True),
], ids=['sum_axis', 'keepdims', 'a', 'x1_x2', 'max_axis', 'cat_axis', 'softmax_axis',
        'std_axis', 'argmax', 'both_names', 'split_size', 'split_function', 'airy_x',
        'airy_input', 'rsub_other', 'rand_other'])
def test_names_torch_takes(call):
    """NumPy's names torch's parser takes (axis, keepdims, x/a/x1, x2), and the names of
    torch's own signature where ember's body named the parameter otherwise."""
    check(call, np.arange(6.0).reshape(2, 3) / 5, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.round(T.tensor([-1.203125, 1.1484375, 0.25, 2.05]).bfloat16(), decimals=1),
    lambda T: T.round(T.tensor([1.1484375, 0.0123, 2.675]).half(), decimals=2),
    lambda T: T.tensor([1.1484375, 3.25]).bfloat16().round_(decimals=1),
], ids=['bfloat16', 'float16', 'in_place'])
def test_rounding_to_decimals_scales_in_float32(call):
    """torch scales half and bfloat16 in float32 and rounds once (ember rounded the scaled
    bfloat16 value first: 1.1484375 * 10 became 11.5, then 12)."""
    check(call, grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.adaptive_max_pool1d(T.zeros(1, 0, 2), [2]),
    lambda T: T.nn.functional.adaptive_max_pool2d(T.zeros(1, 0, 2, 2), 2),
    lambda T: T.nn.functional.adaptive_max_pool2d(T.zeros(0, 2, 2), 3),
    lambda T: T.nn.functional.adaptive_avg_pool3d(T.zeros(1, 0, 2, 2, 2), 3),
    lambda T: T.nn.functional.adaptive_max_pool3d(T.zeros(0, 2, 2, 2), 3),
    lambda T: T.nn.functional.adaptive_avg_pool2d(T.zeros(1, 0, 2, 2), 3),
    lambda T: T.nn.functional.adaptive_avg_pool1d(T.zeros(0, 3, dtype=T.int64), [3]),
    lambda T: T.nn.functional.adaptive_avg_pool1d(T.zeros(0, 2, dtype=T.complex64), [3]),
    lambda T: T.nn.functional.adaptive_avg_pool1d(T.ones(2, 3, dtype=T.int64), [3]),
    lambda T: T.nn.functional.max_unpool1d(T.arange(10.).reshape(1, 2, 5),
                                           T.tensor([[[0, 1, 2, 3, 7]] * 2]), 0),
], ids=['max1d_no_channels', 'max2d_no_channels', 'max2d_unbatched', 'avg3d_no_channels',
        'max3d_unbatched', 'avg2d_no_channels', 'avg1d_empty_int', 'avg1d_empty_complex',
        'avg1d_int', 'unpool_to_nothing'])
def test_pooling_of_empty_dims(call):
    """The adaptive max pools and the 3-d ones want every dim but the first non-empty
    (ember checked only the spatial ones); an empty input or output runs no kernel, so
    refuses no dtype and meets no bad index."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.zeros(3, 0, 2, dtype=T.complex64).mode(-1),
    lambda T: T.linalg.lu(T.zeros(0, 2, 2, dtype=T.uint16)),
    lambda T: T.linalg.lu(T.zeros(0, 2, 2, dtype=T.int64)),
], ids=['mode_complex', 'lu_uint16', 'lu_int64'])
def test_empty_inputs_run_no_kernel(call):
    """(mode's generated dtype refusal now applies to non-empty inputs only; lu's NumPy
    elimination leaked a casting error on an empty uint16 batch)"""
    check(call, grad=False)


@pytest.mark.parametrize('reps', [[0, -1, 0], [2, 0], [0, 1, 1]])
def test_backward_of_a_repeat_with_no_copies(reps):
    def run(T):
        x = T.zeros(0, 3, dtype=T.float64, requires_grad=True)
        x.tile(reps).sum().backward()
        return x.grad
    check(run, grad=False)


@pytest.mark.parametrize('a', [[[NAN]], [[4.0, 1.0], [1.0, NAN]], [[NAN, 1.0], [1.0, 5.0]]])
def test_cholesky_stops_at_a_nan_pivot(a):
    """MKL (torch) and reference LAPACK report a NaN pivot as not positive-definite;
    OpenBLAS's potrf, which ember reaches through scipy, carried it on."""
    check(lambda T, x: T.linalg.cholesky_ex(x).info, np.array(a, np.float32), grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.lu_unpack(T.zeros(0, 3, dtype=T.int32), T.zeros(0, 3, dtype=T.int32), False),
    lambda T: T.lu_unpack(T.zeros(0, 3), T.zeros(0, 3, dtype=T.int32)),
], ids=['no_data', 'empty'])
def test_lu_unpack_of_no_rows(call):
    check(call, grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.constant_pad_nd(T.tensor([[1, 2]], dtype=T.int16), [0, 0], NAN),
    lambda T: T.constant_pad_nd(T.tensor([[1, 2]], dtype=T.int16), [1, 0], NAN),
    lambda T: T.nn.functional.pad(T.tensor([[1, 2]], dtype=T.int16), [1, 0], value=INF),
    lambda T: T.nn.functional.pad(T.tensor([[1, 2]], dtype=T.uint8), [1, 0], value=-1),
    lambda T: T.nn.functional.pad(T.tensor([[1, 2]], dtype=T.int8), [1, 0], value=2.7),
    lambda T: T.nn.functional.pad(T.tensor([[1, 2]], dtype=T.float16), [1, 0], value=1e6),
    lambda T: T.nn.functional.pad(T.tensor([[1., 2.]]), [1, 0], value=1 + 2j),
    lambda T: T.nn.functional.pad(T.tensor([[1, 2]]), [1.5, 0], value=1 + 2j),
    lambda T: T.constant_pad_nd(T.tensor([[1, 2]]), [1, 0], 1 + 1j),
    lambda T: T.constant_pad_nd(T.tensor([[1., 2.]]), [1, 0], 1 + 0j),
], ids=['nan_no_padding', 'nan_int', 'inf_int', 'negative_uint8', 'truncated', 'half_overflow',
        'complex_value', 'pad_list_first', 'scalar_complex', 'scalar_real_complex'])
def test_constant_padding_values(call):
    """torch converts the value (pad's a double, constant_pad_nd's a Scalar) only where it
    writes one, with its overflow check (ember leaked NumPy's 'cannot convert float NaN to
    integer' and an OverflowError, and wrapped -1 into uint8)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('dtype', ['float16', 'float32', 'int64', 'bool', 'complex64'])
@pytest.mark.parametrize('call', [
    lambda T, d: T.nn.functional.multilabel_margin_loss(T.zeros(2, 3, dtype=d),
                                                        T.zeros(2, 3, dtype=T.int64)),
    lambda T, d: T.nn.functional.multi_margin_loss(T.zeros(2, 3, dtype=d),
                                                   T.zeros(2, dtype=T.int64)),
    lambda T, d: T.nn.functional.multi_margin_loss(T.zeros(2, 3, dtype=d),
                                                   T.zeros(2, dtype=T.int8)),
    lambda T, d: T.nn.functional.multi_margin_loss(T.zeros(0, 3, dtype=d),
                                                   T.zeros(0, dtype=T.int8), reduction='none'),
], ids=['multilabel', 'multi', 'multi_int8_target', 'empty_int8_target'])
def test_margin_losses_refuse_what_their_kernels_refuse(call, dtype):
    """The kernels have float and double loops only, refused before the target's dtype is
    checked; an empty input runs no kernel, so neither is checked."""
    check(lambda T: call(T, getattr(T, dtype)), grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.mse_loss(T.tensor([[1 + 1j]]), T.tensor([[2 - 1j]]),
                                       weight=T.tensor([[2 + 0j]])),
    lambda T: T.nn.functional.mse_loss(T.tensor([[1 + 1j]]), T.tensor([[2 - 1j]])),
    lambda T: T.nn.functional.mse_loss(T.tensor([1, 2]), T.tensor([2, 2])),
    lambda T: T.nn.functional.smooth_l1_loss(T.tensor([[1 + 1j]]), T.tensor([[2 - 1j]]),
                                             beta=0.0),
    lambda T: T.nn.functional.smooth_l1_loss(T.tensor([[1 + 1j]]), T.tensor([[2 - 1j]])),
    lambda T: T.nn.functional.smooth_l1_loss(T.tensor([True]), T.tensor([False]), beta=1.0),
], ids=['mse_weighted_complex', 'mse_complex', 'mse_long', 'smooth_l1_beta0_complex',
        'smooth_l1_complex', 'smooth_l1_bool'])
def test_losses_refuse_only_where_their_kernels_run(call):
    """With a weight torch computes mse_loss in Python, and smooth_l1_loss with beta 0 is
    l1_loss: complex works there; the generated refusals of the kernels applied to every
    call."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.adaptive_max_pool1d(x[:0], [1]),
    lambda T, x: T.nn.functional.max_pool2d(x[:0].reshape(0, 1, 2, 3), 2),
    lambda T, x: T.nn.functional.adaptive_max_pool1d(x, [2]),
], ids=['adaptive_empty', 'max2d_empty', 'adaptive'])
def test_max_pool_backward_of_empty_inputs(call):
    """(the gradient's scatter reshaped with -1, which no planes leave undetermined)"""
    check(call, np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize('n', [1, 2])
def test_adaptive_avg_pool1d_to_one_is_a_mean(n):
    """torch's refusal of a complex gradient is its pooling kernel's, which output size 1
    does not run."""
    check(lambda T: T.nn.functional.adaptive_avg_pool1d(
        T.zeros(0, 3, dtype=T.complex128, requires_grad=True), [n]), grad=False,
        match_message=True)


@pytest.mark.parametrize('q', [(0, 3), (1, 3)])
def test_attention_with_an_empty_result_checks_no_causal_mask(q):
    check(lambda T: T.nn.functional.scaled_dot_product_attention(
        T.zeros(*q), T.zeros(2, 3), T.zeros(2, 3), is_causal=True,
        attn_mask=T.ones(2, 2, dtype=T.bool)), grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.max_unpool1d(T.zeros(0, 3, dtype=T.int64),
                                           T.zeros(0, 3, dtype=T.int64), 2),
    lambda T: T.nn.functional.max_unpool2d(T.zeros(0, 1, 3, 3),
                                           T.zeros(0, 1, 3, 3, dtype=T.int64), 2),
    lambda T: T.nn.functional.multilabel_margin_loss(
        T.zeros(0, 3, dtype=T.float64), T.zeros(0, 3, dtype=T.float64), reduction='none'),
    lambda T: T.gradient(T.tensor([[False]]), dim=[], edge_order=2),
    lambda T: T.gradient(T.tensor([[False, True, True]]), dim=1),
    lambda T: T.zeros(0, 3, dtype=T.int64).index_copy(-1, T.tensor([3, 4, 4]),
                                                       T.zeros(0, 3, dtype=T.int64)),
    lambda T: T.zeros(1, 3, dtype=T.int64).index_copy(-1, T.tensor([3, 4, 4]),
                                                      T.zeros(1, 3, dtype=T.int64)),
], ids=['unpool1d_no_planes', 'unpool2d_no_planes', 'multilabel_empty_float_target',
        'gradient_no_dims', 'gradient_bool', 'index_copy_nothing', 'index_copy_out_of_bounds'])
def test_empty_calls_that_check_nothing(call):
    """(NumPy's reshape(planes, -1) of no planes; the bool refusal of gradient's
    subtraction where it subtracts nothing; bounds of indices that copy nothing)"""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('dtype', ['int64', 'float32', 'bool', 'float16', 'complex64'])
@pytest.mark.parametrize('kw', [dict(max=2 + 0j), dict(min=1j), dict(min=0.5 + 0j, max=1.5)],
                         ids=['real_complex', 'imaginary', 'with_float'])
def test_clamp_to_complex_numbers(kw, dtype):
    """clamp of a floating tensor reads a complex bound as a double: its real part, or
    torch's overflow error for an imaginary one; others (and clamp_min/clamp_max) promote
    to complex and are refused (ember promoted the result to complex)."""
    check(lambda T: T.tensor([1.0, 2.0]).to(getattr(T, dtype)).clamp(**kw), grad=False,
          match_message=True)
    name = 'clamp_min' if 'min' in kw else 'clamp_max'
    check(lambda T: getattr(T, name)(T.tensor([1.0, 2.0]).to(getattr(T, dtype)),
                                     kw.get('min', kw.get('max'))), grad=False,
          match_message=True)


@pytest.mark.parametrize('other', [None, 'x', 2, 2.5, True, -3], ids=str)
@pytest.mark.parametrize('method', ['__rtruediv__', '__rmod__', '__rfloordiv__', '__rpow__',
                                    '__rsub__', '__rlshift__'])
@pytest.mark.parametrize('dtype', ['int64', 'float32', 'bool'])
def test_reflected_operators_of_other_objects(dtype, method, other):
    """None or a string on the left: the reflected operator declines (NotImplemented), as
    torch's; ember had read None as NaN (``None / bool_tensor`` was ``tensor([nan])``) and let
    NumPy's ValueError out for a string. A number divides as torch's reciprocal(self) *
    other, also for an integer tensor."""
    def run(T):
        r = getattr(T.tensor([3, 0, -2]).to(getattr(T, dtype)), method)(other)
        return 'NotImplemented' if r is NotImplemented else r
    check(run, grad=False)


@pytest.mark.parametrize('method', ['__rmod__', '__rpow__', '__rfloordiv__'])
def test_reflected_operators_called_with_a_tensor(method):
    """(a direct call with a tensor on the left: the tensor keeps its dtype)"""
    check(lambda T: getattr(T.tensor([3]), method)(T.tensor([2])), grad=False)


@pytest.mark.parametrize('alpha', [1, -1, 2, 0, -3])
@pytest.mark.parametrize('pair', [('int64', 'uint8'), ('uint8', 'int64'), ('int64', 'bool'),
                                  ('bool', 'int64'), ('int16', 'uint8'), ('float32', 'uint8')],
                         ids=lambda p: '-'.join(p))
def test_add_and_sub_scale_in_the_result_dtype(pair, alpha):
    """int64 - (-1) * uint8 multiplied alpha into the uint8 operand first (wrapping to 255:
    ember gave -252 where torch gives 4)."""
    a, b = pair
    for op in ('add', 'sub'):
        check(lambda T: getattr(T, op)(T.tensor([3, 0, 1]).to(getattr(T, a)),
                                       T.tensor([1, 200, 0]).to(getattr(T, b)), alpha=alpha),
              grad=False, match_message=True)


@pytest.mark.parametrize('args', [(1.5, 0.5, 1), (1.5, 0.5, 3), (300, 0.5, 1), (-1.5, 0.5, 1),
                                  (3, 0.5, 1)], ids=str)
def test_integer_logspace_of_one_value(args):
    """One value is base ** start in double, filled in with a Scalar's range check (ember
    truncated the start to the dtype first, as for two or more values)."""
    check(lambda T: T.logspace(*args, dtype=T.uint8 if args[0] < 100 else T.int32),
          grad=False, match_message=True)


@pytest.mark.parametrize('data,dtype', [
    (-300, 'uint8'), (-255, 'uint8'), ([127, 128], 'int8'), ([1.5, 255.9], 'uint8'),
    ([-0.9], 'uint8'), ([True, 2], 'uint8'), (1e30, 'int64'), (NAN, 'int32'),
    ([1.5, INF], 'int64'), (-1, 'uint8'), (2.7, 'int8'), (NAN, 'bool')], ids=str)
def test_python_numbers_into_an_integer_tensor(data, dtype):
    """torch.tensor range-checks Python numbers written into an integer dtype (an unsigned
    one wraps negatives down to -max); ember cast NaN to -2**31."""
    check(lambda T: T.tensor(data, dtype=getattr(T, dtype)), grad=False, match_message=True)


@pytest.mark.parametrize('alpha', [-1, -300, 300, 2 ** 40, 2])
@pytest.mark.parametrize('call', [
    lambda T, a: T.addmv(T.tensor([5, 5], dtype=T.uint8), T.ones(2, 1, dtype=T.uint8),
                         T.ones(1, dtype=T.uint8), alpha=a),
    lambda T, a: T.addmm(T.tensor([5], dtype=T.uint8), T.ones(2, 1, dtype=T.uint8),
                         T.ones(1, 1, dtype=T.uint8), beta=a),
    lambda T, a: T.tensor([5], dtype=T.uint8).add(T.tensor([1], dtype=T.uint8), alpha=a),
    lambda T, a: T.tensor([5], dtype=T.uint8).sub(2, alpha=a),
    lambda T, a: T.constant_pad_nd(T.tensor([1, 2], dtype=T.uint8), [1, 0], a),
    lambda T, a: T.nn.functional.pad(T.tensor([1, 2], dtype=T.uint8), [1, 0], value=a),
], ids=['addmv', 'addmm_beta', 'add', 'sub_number', 'constant_pad_nd', 'pad'])
def test_integer_scalars_convert_as_torch(call, alpha):
    """A Scalar into an integer dtype is range-checked, an unsigned one wrapping negatives
    (-1 -> 255); NumPy 2 raised OverflowError for -1 into uint8, and pad's value is a double
    (-1.0 fits no uint8) where constant_pad_nd's is a Scalar."""
    check(lambda T: call(T, alpha), grad=False, match_message=True)
