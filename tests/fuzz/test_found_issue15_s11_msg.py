"""Findings of the fuzzer's message check (issue 15, sweep 11, seeds 15000-15039): ember raised
torch's exception class with another first line of message -- another check first, or the
same check in other words. Each call is pinned against torch, first line of message
included."""
import pytest

from tests.oracle.oracle import check


# -- unary pointwise ops: torch's parser takes NumPy's names of ``input`` (x, a, x1); ember's
# generated unary functions had no such parameters, so Python's "unexpected keyword
# argument" came where torch judges the argument ------------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.acos(a=1.5),
    lambda T: T.tanh(a=2),
    lambda T: T.cosh(a=1j),
    lambda T: T.exp(a=[1.0]),
    lambda T: T.log(x=1.5),
    lambda T: T.special.erfc(a=1.5),
    lambda T: T.isfinite(a=1.5),
    lambda T: T.sqrt(x1=1.5),
    lambda T: T.acos(a=T.ones(2)),
    lambda T: T.exp(x=T.ones(2)),
    lambda T: T.exp(T.ones(1), a=1),
    lambda T: T.exp(input=T.ones(1), a=1),
    lambda T: T.exp(x=T.ones(1), a=T.ones(1)),
    lambda T: T.exp(T.ones(1), 1, 1),
    lambda T: T.exp(T.ones(1), 1, 1, 1, 1),
    lambda T: T.exp(T.ones(1), 1, 1, 1, 1, 1, 1),
    lambda T: T.acos(a=T.ones(2), out=T.ones(2)),
], ids=['acos_a', 'tanh_a', 'cosh_a', 'exp_a_list', 'log_x', 'special_erfc_a', 'isfinite_a',
        'sqrt_x1', 'acos_a_tensor', 'exp_x_tensor', 'exp_input_and_a', 'exp_input_kw_and_a',
        'exp_x_and_a', 'exp_3_positional', 'exp_5_positional', 'exp_7_positional',
        'acos_a_out'])
def test_unary_numpy_names(call):
    check(call, grad=False, match_message=True)


# -- a reshape of 0 elements with -1 beside a 0: torch's "ambiguous" message --------------

@pytest.mark.parametrize('call', [
    lambda T: T.zeros(0, 3).reshape(0, -1),
    lambda T: T.zeros(0, 3).view(-1, 0),
    lambda T: T.zeros(0).reshape(0, -1, 2),
    lambda T: T.zeros(6).reshape(0, -1),
    lambda T: T.zeros(0).reshape(2, -1),
], ids=['reshape', 'view', 'reshape_3d', 'nonempty', 'empty_ok'])
def test_reshape_zero_elements(call):
    check(call, grad=False, match_message=True)


# -- norm_except_dim: at::norm's dtype message (not Tensor.norm's vector_norm); the dim
# judged by size(dim) or the transpose, as torch's C++ does ---------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.norm_except_dim(T.ones(3, 2, dtype=T.bool), 2, 0),
    lambda T: T.norm_except_dim(T.ones(3, 2, dtype=T.bool), 2, -1),
    lambda T: T.norm_except_dim(T.ones(3, 2, 2, dtype=T.int8), 3, 1),
    lambda T: T.norm_except_dim(T.ones(0, 3), 2, 1),
    lambda T: T.norm_except_dim(T.ones(()), 2, 0),
    lambda T: T.norm_except_dim(T.ones(3, 2), 2, 5),
    lambda T: T.norm_except_dim(T.ones(3, 2), 2, -3),
    lambda T: T.norm_except_dim(T.ones(3, 2, 2), 3, -2),
], ids=['bool', 'bool_all', 'int8_middle', 'empty_ambiguous', 'scalar', 'dim_high',
        'dim_low', 'negative_middle'])
def test_norm_except_dim(call):
    check(call, grad=False, match_message=True)


# -- the lost batch of sweep 10's helper m16, redone ------------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3), 1.5, False),
    lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3), 3, False),
    lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3), [1, 2, 3, 4, 5], False),
    lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3), [1, 2, 3], False),
    lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3), [1, 2, 0, 4], False),
    lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3), [1, 2, 3.5, 4], False),
    lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3), (1., 2, 3, 4), False),
], ids=['float', 'int', 'list_5', 'list_3', 'zero_size', 'float_element', 'float_first'])
def test_affine_grid_size(call):
    """``len(size)`` before anything (Python's message for a number), the size printed as
    given, and its elements judged by affine_grid_generator's parser (a float was taken)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.softmax(T.ones(2), None, T.float32),
    lambda T: T.nn.functional.log_softmax(T.ones(2), None, None),
    lambda T: T.nn.functional.softmin(T.ones(2), None, 2.5),
    lambda T: T.nn.functional.softmin(T.ones(2), 1.5),
    lambda T: T.nn.functional.softmax(T.ones(2), object()),
    lambda T: T.nn.functional.log_softmax(T.ones(2), 0.5, dtype=T.float64),
    lambda T: T.nn.functional.softmin(T.ones(2, 3), 1, dtype=T.float64),
], ids=['softmax_stacklevel_dtype', 'log_softmax_stacklevel_none',
        'softmin_stacklevel_float', 'softmin_dim', 'softmax_dim_object', 'log_softmax_dim',
        'softmin_dtype'])
def test_functional_softmax(call):
    """``_stacklevel`` is handed to warnings.warn (Python's "cannot be interpreted as an
    integer"); ``dim`` is judged by the Tensor method torch calls (argument 1, not 2)."""
    check(call, grad=False, match_message=True)


def test_corrcoef_dims():
    check(lambda T: T.corrcoef(T.ones(2, 2, 2)), grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.searchsorted(T.ones(4), T.ones(2), sorter=T.zeros(3, dtype=T.float16)),
    lambda T: T.searchsorted(T.tensor(1.), T.ones(2), sorter=T.zeros(2, 1, dtype=T.int64)),
    lambda T: T.searchsorted(T.ones(2, 1), T.ones(3, 2), sorter=T.zeros(2, 3, dtype=T.int64)),
    lambda T: T.searchsorted(T.ones(2, 1), T.ones(3, 2), sorter=T.zeros(2, 1, dtype=T.bool)),
    lambda T: T.searchsorted(T.ones(3), 1.0, sorter=T.zeros(3, dtype=T.float16)),
    lambda T: T.searchsorted(T.ones(2, 1), T.ones(3, 2), sorter=T.full((2, 1), 5)),
    lambda T: T.searchsorted(T.tensor(1.), T.ones(2), sorter=T.full((), 5)),
    lambda T: T.searchsorted(T.tensor(1.), 1.0),
    lambda T: T.searchsorted(T.tensor(1.), T.tensor(1.0)),
    lambda T: T.searchsorted(T.tensor(1.), T.ones(2)),
    lambda T: T.searchsorted(T.ones(2, 2), T.tensor(1.0)),
    lambda T: T.searchsorted(T.arange(4.).view(2, 2), T.ones(2, 3),
                             sorter=T.zeros(2, 2, dtype=T.int64)),
], ids=['size_before_dtype', 'size_before_0dim', 'size_before_dims', 'dtype_before_dims',
        'dtype_name', 'range_before_dims', 'scalar_sorter', 'scalar_0dim', 'tensor_0dim',
        '0dim_boundaries', 'nd_scalar_value', 'ok'])
def test_searchsorted_order(call):
    """torch checks the sorter (size, dtype by its ScalarType name, range) before the
    value's and the boundaries' dims; a 0-dim value needs 1-d boundaries."""
    check(call, grad=False, match_message=True)


# -- meshgrid: torch's C++ message prints the tensor as C++'s operator<< does (ATen's
# Formatting: one width and format for all values, a scale line, the matrices of a tensor of
# more dims with the first index counting fastest, then ``[ torch.FloatTensor{2,3} ]``) -----

@pytest.mark.parametrize('call', [
    lambda T: T.meshgrid(T.tensor([[0.0524, 1.5518, -0.7002], [2., 3., 4.]]), indexing='ij'),
    lambda T: T.meshgrid(T.tensor([[1, -4, -5], [2, 3, 4]]), indexing='ij'),
    lambda T: T.meshgrid(T.arange(24.).view(2, 3, 4) * 1.5, indexing='ij'),
    lambda T: T.meshgrid(T.arange(24.).view(2, 3, 2, 2) - 7.25, indexing='ij'),
    lambda T: T.meshgrid(T.zeros(2, 0, dtype=T.float16), indexing='ij'),
    lambda T: T.meshgrid(T.tensor([[1e10, 2.], [3., 4.]]), indexing='ij'),
    lambda T: T.meshgrid(T.tensor([[1234567.5, 1234568.25]], dtype=T.float64), indexing='ij'),
    lambda T: T.meshgrid(T.tensor([[0.00123, 0.00456]]), indexing='ij'),
    lambda T: T.meshgrid(T.tensor([[1 + 2j, 2], [3, 4]]), indexing='ij'),
    lambda T: T.meshgrid(T.tensor([[True, False]]), indexing='ij'),
    lambda T: T.meshgrid(T.tensor([[0.5, float('nan')], [float('inf'), 4]]), indexing='ij'),
    lambda T: T.meshgrid(T.arange(60.).view(2, 30) + 0.5, indexing='ij'),
    lambda T: T.meshgrid(T.ones(2, 2, dtype=T.bfloat16), indexing='ij'),
], ids=['fixed', 'int', '3d', '4d', 'empty_half', 'scientific', 'scale_up', 'scale_down',
        'complex', 'bool', 'nonfinite', 'columns', 'bfloat16'])
def test_meshgrid_tensor_print(call):
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.ones(2, 3).t().take_along_dim(T.tensor([0])),
    lambda T: T.ones(2, 3).t().take_along_dim(T.tensor([0.5])),
    lambda T: T.ones(6).take_along_dim(T.tensor([[0, 1]]).t()),
    lambda T: T.ones(6).take_along_dim(T.tensor([[-4.]]), 0),
    lambda T: T.ones(()).take_along_dim(T.tensor(1.), 0),
    lambda T: T.ones(()).take_along_dim(T.tensor(0), 0),
    lambda T: T.ones(()).take_along_dim(T.tensor(0), 1),
], ids=['flat_view', 'flat_view_before_dtype', 'flat_indices_view', 'dims_before_dtype',
        'scalar_dtype', 'scalar', 'scalar_dim_out_of_range'])
def test_take_along_dim_order(call):
    """Without dim torch views both flat (a view that cannot be is its error); with dim it
    checks the dims, then the indices' dtype, then wraps dim."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.linalg.multi_dot([T.ones(1, 0), T.ones(2, 0)]),
    lambda T: T.linalg.multi_dot([T.ones(0), T.ones(2, 1)]),
    lambda T: T.linalg.multi_dot([T.ones(1), T.ones(0)]),
    lambda T: T.linalg.multi_dot([T.ones(1, 3), T.ones(3, 2), T.ones(3, 3)]),
    lambda T: T.linalg.multi_dot([T.ones(1, 3), T.ones(3, 2), T.ones(2)]),
], ids=['matrices', 'vector_first', 'vectors', 'middle', 'ok'])
def test_multi_dot_shapes(call):
    """multi_dot's own message for shapes that do not chain (was mm's)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.as_tensor(t=1),
    lambda T: T.tensor(t=1, dtype=T.float32),
    lambda T: T.as_tensor(dtype=T.float32),
    lambda T: T.as_tensor(1, t=1),
    lambda T: T.tensor(data=[1]),
], ids=['as_tensor_unknown', 'tensor_unknown', 'as_tensor_missing', 'as_tensor_data_unknown',
        'tensor_data_keyword'])
def test_tensor_missing_data(call):
    """torch's parser names a missing ``data`` before an unknown keyword, in its words."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.max_pool2d(T.ones(1, 2, 2), 2, foo=1),
    lambda T: T.nn.functional.max_pool2d(T.ones(1, 2, 2), 2, return_indices=True, foo=1),
    lambda T: T.nn.functional.adaptive_max_pool1d(T.ones(1, 2, 2), 2, foo=1),
    lambda T: T.nn.functional.fractional_max_pool2d(T.ones(1, 2, 2), 2, random_samples=1),
    lambda T: T.nn.functional.fractional_max_pool3d(T.ones(1, 2, 2), 2, None, None, True,
                                                    foo=1),
], ids=['max_pool2d', 'max_pool2d_indices', 'adaptive_max_pool1d', 'fractional_max_pool2d',
        'fractional_max_pool3d_indices'])
def test_boolean_dispatch_names(call):
    """torch's pooling functions made by boolean_dispatch: Python's TypeError of a bad
    call names the function dispatched to (``_max_pool2d``, ``..._with_indices``)."""
    check(call, grad=False, match_message=True)


# -- addbmm/baddbmm: torch reads the result's sizes and expands input to them before it
# checks the batches' ranks and sizes; expand's message names C++'s type ------------------

@pytest.mark.parametrize('call', [
    lambda T: T.ones(5, 5, 5).baddbmm(T.ones(2, 3, 4), T.ones(3, 4, 5)),
    lambda T: T.ones(1, 3, 5).baddbmm(T.ones(2, 3, 4), T.ones(3, 4, 5)),
    lambda T: T.ones(1, 2, 3, 3).baddbmm(T.ones(1, 2, 3, 3), T.ones(1, 2, 3, 3)),
    lambda T: T.ones(3, 3).baddbmm(T.ones(2, 3, 4), T.ones(2, 5, 5)),
    lambda T: T.ones(3).baddbmm(T.ones(()), T.ones(2, 2, 3)),
    lambda T: T.ones(3, 3).baddbmm(T.ones(2, 3, 3), T.ones(2, 3)),
    lambda T: T.ones(3, 3).baddbmm(T.ones(2, 3, 3), T.ones(2, 3, 3, dtype=T.float64)),
    lambda T: T.ones(3, 3, dtype=T.int64).baddbmm(T.ones(2, 3, 3), T.ones(2, 3, 3)),
    lambda T: T.ones(5, 5).addbmm(T.ones(2, 3, 4), T.ones(3, 4, 5)),
    lambda T: T.ones(1, 1, 3).addbmm_(T.ones(2, 2, 3, 4), T.ones(2, 2, 3, 4)),
    lambda T: T.ones(3, 3).addbmm(T.ones(2, 2, 3, 4), T.ones(2, 2, 3, 4)),
    lambda T: T.ones(3).addbmm(T.ones(()), T.ones(2, 2, 3)),
    lambda T: T.ones(3).addbmm(T.ones(2, 2, 3), T.ones(())),
    lambda T: T.ones(2, 3, 3).addbmm_(T.ones(2, 3, 3), T.ones(2, 3, 3)),
    lambda T: T.ones(1, 1, 3, dtype=T.bool).expand(2, 3),
    lambda T: T.ones(3).addbmm(T.ones(2, 3, 4), T.ones(2, 4, 3)),
], ids=['baddbmm_expand_first', 'baddbmm_batch2', 'baddbmm_expand_dims', 'baddbmm_expand',
        'baddbmm_scalar_batch1', 'baddbmm_batch2_dims', 'baddbmm_batch2_dtype',
        'baddbmm_input_dtype', 'addbmm_expand_first', 'addbmm__expand_dims',
        'addbmm_expand_dims', 'addbmm_scalar_batch1', 'addbmm_scalar_batch2',
        'addbmm__self_dims', 'expand_bool_name', 'addbmm_ok'])
def test_addbmm_expand_order(call):
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.ones(1, 3).select(-2, -3),
    lambda T: T.ones(1, 3).select_scatter(T.ones(3), -2, -3),
    lambda T: T.ones(0).select_scatter(T.ones(()), -1, 1),
    lambda T: T.ones(1, 3).unflatten(-1, (2, 2)),
    lambda T: T.ones(1, 3).unflatten(-2, (2, 2)),
    lambda T: T.ones(2, 3, 4).t_(),
], ids=['select', 'select_scatter', 'select_scatter_empty', 'unflatten_last',
        'unflatten_first', 't_'])
def test_wrapped_dims_and_names(call):
    """select/select_scatter and unflatten name the wrapped dim; t_ names itself."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.repeat_interleave(T.ones(2, 2)),
    lambda T: T.repeat_interleave(T.ones(2), output_size=3),
    lambda T: T.repeat_interleave(T.ones(2, dtype=T.bool)),
    lambda T: T.repeat_interleave(T.ones(2, 2, dtype=T.long)),
    lambda T: T.repeat_interleave(T.ones(3), T.ones(2), 0),
    lambda T: T.repeat_interleave(T.ones(3), T.ones(3), 0),
    lambda T: T.poisson(T.tensor([[0, -4, -2]])),
    lambda T: T.poisson(T.tensor([1 + 1j])),
    lambda T: T.poisson(T.tensor([-1.])),
], ids=['repeat_interleave_float_2d', 'repeat_interleave_float_output_size',
        'repeat_interleave_bool', 'repeat_interleave_long_2d', 'repeat_interleave_sizes',
        'repeat_interleave_repeats_dtype', 'poisson_long', 'poisson_complex',
        'poisson_negative'])
def test_kernel_dtype_first(call):
    """repeat_interleave's counts and poisson's rates: torch's kernel refuses the dtype
    before it checks the dims or values (the argument layer had moved the refusal last)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.view_as_complex_copy(T.ones(1, dtype=T.float64, requires_grad=True)),
    lambda T: T.view_as_complex_copy(T.ones(0, dtype=T.float64, requires_grad=True)),
    lambda T: T.view_as_complex_copy(T.ones(3, 2, requires_grad=True)),
    lambda T: T.view_as_complex_copy(T.ones(3, 2, dtype=T.bfloat16, requires_grad=True)),
    lambda T: T.view_as_complex_copy(T.ones(3, 3, dtype=T.bfloat16)),
    lambda T: T.view_as_complex_copy(T.ones((), dtype=T.int64)),
    lambda T: T.linalg.tensorinv(T.ones(2, 3, dtype=T.int8), 1),
    lambda T: T.linalg.tensorinv(T.ones(2, 3, 3, dtype=T.int32)),
    lambda T: T.linalg.tensorinv(T.ones(3, 3, dtype=T.int32), 1),
], ids=['vac_grad_size', 'vac_grad_empty', 'vac_grad', 'vac_grad_bfloat16',
        'vac_bfloat16_size', 'vac_long_scalar', 'tensorinv_int8_shape', 'tensorinv_int_shape',
        'tensorinv_int'])
def test_dtype_shape_grad_order(call):
    """view_as_complex_copy: the dtype, the view's shape, then autograd's refusal;
    tensorinv: its shape requirement before the inverse's dtype check."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.ones(1, 1, dtype=T.long).ldexp_(T.tensor([-4, 2, -4])),
    lambda T: T.ldexp_(T.ones(1, 2, 3, 3, dtype=T.int32), T.ones(2, 3, dtype=T.int32)),
    lambda T: T.ones(1, 1, dtype=T.float16).ldexp_(T.tensor([-4, 2, -4])),
], ids=['long_shape', 'int_broadcast', 'half_shape'])
def test_ldexp__cast_first(call):
    """ldexp_ refuses an integer self before it looks at the shapes."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.ones(3, 1).masked_scatter_(T.ones(2, 0), T.ones(2, 2, 3, 4)),
    lambda T: T.ones(3, 1).masked_scatter_(T.ones(2, 0, dtype=T.bool),
                                           T.ones(2, 2, 3, 4, dtype=T.float64)),
    lambda T: T.ones(3).masked_scatter_(T.ones(2, 3, dtype=T.bool),
                                        T.ones(2, 3, dtype=T.float64)),
    lambda T: T.ones(3).masked_scatter_(T.ones(2, 3), T.ones(2, 3)),
    lambda T: T.ones(3).masked_scatter(T.ones(2, 2), T.ones(2, 3, dtype=T.float64)),
    lambda T: T.ones(3).masked_scatter(T.ones(3), T.ones(2, 3, dtype=T.float64)),
    lambda T: T.ones(4, 4).masked_scatter_(T.ones(3, dtype=T.bool), T.ones(3)),
    lambda T: T.ones(3, requires_grad=True).masked_scatter_(T.ones(2, 3, dtype=T.bool),
                                                             T.ones(6)),
    lambda T: T.ones(2, 3).masked_scatter_(T.tensor([True, False, True]), T.arange(6.)),
    lambda T: T.ones(3).masked_scatter(T.ones(2, 3, dtype=T.bool), T.arange(6.)),
    lambda T: T.ones(2, 0).expand(3, 1),
    lambda T: T.ones(2, 3).expand(-1, 5, 3),
], ids=['inplace_expand_before_mask_dtype', 'inplace_source_dtype_first',
        'inplace_source_dtype_before_expand', 'inplace_expand_bigger_mask',
        'broadcast_first', 'source_dtype_before_mask_dtype', 'inplace_expand', 'leaf_first',
        'inplace_ok', 'ok', 'expand_last_dim_first', 'expand_before_leading'])
def test_masked_scatter_order(call):
    """masked_scatter_: source's dtype, the mask expanded to self, the mask's dtype;
    masked_scatter broadcasts mask and self first. expand checks from the last dim."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.ones(2, 3).split_with_sizes([1, 1], -1),
    lambda T: T.ones(2, 3).split([1, 1], -1),
    lambda T: T.split_with_sizes_copy(T.ones(2, 3), [1, 1], -1),
    lambda T: T.ones(2, 3).unsafe_split_with_sizes([1, 1], -2),
    lambda T: T.linalg.lu_factor(T.ones(3, 3, dtype=T.int32), pivot=False),
    lambda T: T.linalg.lu_factor(T.ones(3, 3, dtype=T.float16)),
    lambda T: T.linalg.lu_factor_ex(T.ones(3, 3, dtype=T.int32), pivot=False),
    lambda T: T.linalg.eigvals(T.ones(1, 3, requires_grad=True)),
    lambda T: T.linalg.eigvals(T.ones(0, requires_grad=True)),
    lambda T: T.linalg.eigvals(T.ones(1, 3)),
], ids=['split_with_sizes_dim_as_given', 'split_dim_as_given', 'split_with_sizes_copy',
        'unsafe_split_with_sizes', 'lu_factor_dtype_before_pivot',
        'lu_factor_dtype_before_singular', 'lu_factor_ex_dtype', 'eigvals_grad_names_eig',
        'eigvals_grad_dims', 'eigvals'])
def test_more_orders_and_names(call):
    """split_with_sizes names dim as given; lu_factor's kernel refuses the dtype before
    pivot=False or a singular U; eigvals of a tensor that requires grad is linalg_eig's."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.ones(2, dtype=T.float16).isclose(T.ones(2), rtol=-1),
    lambda T: T.ones(2).allclose(T.ones(2, dtype=T.float64), atol=-1),
    lambda T: T.ones(2, dtype=T.bfloat16).allclose(T.ones(2, dtype=T.complex64)),
    lambda T: T.ones(2).isclose(T.ones(3), rtol=-1),
    lambda T: T.zeros(-1),
    lambda T: T.zeros(size=[2, -1]),
    lambda T: T.ones(-1),
    lambda T: T.grid_sampler(T.ones(()), T.ones(4, 4), 0, 0, True),
    lambda T: T.grid_sampler(T.ones(2, 2), T.ones(()), 0, 0, True),
], ids=['isclose_dtype_before_rtol', 'allclose_dtype_before_atol', 'allclose_kernel_names',
        'isclose_rtol', 'zeros_negative', 'zeros_negative_size', 'ones_negative',
        'grid_sampler_scalar_input', 'grid_sampler_scalar_grid'])
def test_misc_first_lines(call):
    """isclose: dtypes (kernel names) before tolerances; zeros' own negative-size message;
    grid_sampler reads size(0) of each operand."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.linalg.matrix_norm(T.ones(3, 3, dtype=T.long), 0),
    lambda T: T.linalg.matrix_norm(T.ones(3, 3), 0.0),
    lambda T: T.linalg.matrix_norm(T.ones(3), -3),
    lambda T: T.linalg.matrix_norm(T.ones(3), 2.5),
    lambda T: T.linalg.matrix_norm(T.ones(3), 'abc'),
    lambda T: T.linalg.matrix_norm(T.ones(1, 3, dtype=T.float64), 0, [-2, -1], False,
                                   dtype=T.complex128),
    lambda T: T.linalg.matrix_norm(T.ones(2, 3, 3), 'fro', [2], dtype=T.complex128),
    lambda T: T.linalg.matrix_norm(T.ones(3, 3, dtype=T.long), 2),
    lambda T: T.linalg.matrix_norm(T.ones(3), 'fro'),
], ids=['order_before_dtype', 'order_as_cpp_double', 'order_before_dims', 'order_fraction',
        'order_string', 'order_before_dtype_kw', 'dim_before_dtype_kw', 'dtype', 'dims'])
def test_matrix_norm_order(call):
    """matrix_norm checks the order first (printed as C++ prints a double), then A's dims
    and dtype, then dim, then dtype=."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.tensor(1.5, 2, 3),
    lambda T: T.as_tensor(1.5, T.float32, t=1),
], ids=['tensor_positional', 'as_tensor_positional_before_keyword'])
def test_tensor_too_many_positional(call):
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.tensor([2, 2, 2], dtype=T.int32).addcdiv_(T.ones(3, 3, dtype=T.int32),
                                                          T.ones(3, dtype=T.int32), value=1.5),
    lambda T: T.ones(0, dtype=T.int64).addcdiv_(T.ones(3, 3, dtype=T.int64),
                                                T.ones(3, 3, dtype=T.int64)),
    lambda T: T.ones(0).addcdiv_(T.ones(4), T.ones(0)),
    lambda T: T.ones(2, 1, 3).addcdiv_(T.ones(2, 2, 3, 4), T.ones(2, 2, 3, 4)),
    lambda T: T.addcdiv(T.ones(0), T.ones(4), T.ones(0)),
    lambda T: T.addcmul(T.ones(0), T.ones(4), T.ones(0)),
], ids=['integer_before_written_shape', 'integer_before_broadcast', 'inplace_operand_order',
        'inplace_operand_order_4d', 'operand_order', 'addcmul_operand_order'])
def test_addcdiv_order(call):
    """addcdiv's integer-division refusal stands before the shapes; the shapes broadcast in
    torch's order (input, tensor1, tensor2), not tensor1 with tensor2 first."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.linalg.lu_solve(T.ones(3, 3), T.ones(3, requires_grad=True), T.ones(3, 1)),
    lambda T: T.lu_solve(T.ones(3, requires_grad=True), T.ones(3, 3, requires_grad=True),
                         T.ones(3, 1, requires_grad=True)),
    lambda T: T.ones(3, 3, dtype=T.long).clamp_max_(2.0),
    lambda T: T.ones(3, dtype=T.long).clamp_(1, 2.5),
    lambda T: T.ones(3, dtype=T.bool).clamp_min_(0.5),
    lambda T: T.ones(3, 3, dtype=T.int8).clip_(2.0, 3),
    lambda T: T.ones(3, dtype=T.long).clamp_max_(T.tensor(2.0)),
    lambda T: T.affine_grid_generator(T.ones(2, 2, 3, 4), [2, 2, 3, 4], True),
    lambda T: T.affine_grid_generator(T.ones(2, 2, 3, 4, dtype=T.bool), [2, 2, 3, 4], True),
    lambda T: T.affine_grid_generator(T.ones(3, 2, 3), [2, 2, 3, 4], True),
], ids=['lu_solve_pivots_grad', 'lu_solve_toplevel_pivots_grad', 'clamp_max__number',
        'clamp__numbers', 'clamp_min__bool', 'clip__int8', 'clamp_max__tensor',
        'affine_grid_generator_rank', 'affine_grid_generator_bool_first',
        'affine_grid_generator_sizes'])
def test_last_batch(call):
    """lu_solve: autograd's refusal of pivots that require grad comes first; clamp_ & co
    with number bounds name self's C++ type; affine_grid_generator: bool (its linspace),
    then the bmm's rank, then its sizes."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.fft.hfft(T.ones(0)),
    lambda T: T.fft.irfft(T.ones(0)),
    lambda T: T.fft.hfft(T.ones(0, dtype=T.int32), None, 0),
    lambda T: T.fft.irfftn(T.ones(0)),
    lambda T: T.fft.hfft(T.ones(1)),
], ids=['hfft_empty', 'irfft_empty', 'hfft_int_empty', 'irfftn_empty', 'hfft_one'])
def test_c2r_default_points(call):
    """A 1-d c2r transform's default n, 2 * (size - 1), is checked as computed (-2 for an
    empty dim); the n-d ones check the input's sizes first."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.trace(T.ones(3, dtype=T.bool)),
    lambda T: T.trace(T.ones(2, 1, 1, dtype=T.bool)),
    lambda T: T.trace(T.ones(3, dtype=T.int8)),
    lambda T: T.ones(3, dtype=T.complex64).float_power_(T.ones(4)),
    lambda T: T.ones(3).float_power_(T.ones(4)),
    lambda T: T.ones(3, dtype=T.float64).float_power_(T.ones(4)),
], ids=['trace_bool_1d', 'trace_bool_3d', 'trace_int_1d', 'float_power__complex_shapes',
        'float_power__float_shapes', 'float_power__shapes'])
def test_trace_and_float_power_(call):
    """trace refuses bool before the rank; float_power_'s base dtype refusal stands
    before the shapes."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.pad(T.ones(2, 0, dtype=T.complex64), [0], 'nearest'),
    lambda T: T.nn.functional.pad(T.ones(1), [1], 'bilinear', 1.5),
    lambda T: T.nn.functional.pad(T.ones(1, 2, 3), [1], 'circular'),
    lambda T: T.native_dropout(T.ones(1, 2, 3, 4, dtype=T.int16), 3.0, None),
    lambda T: T.native_dropout(T.ones(4, 4), 1.5, True),
    lambda T: T.dropout_(T.ones(1).expand(4), 3.0, False),
], ids=['pad_mode_before_length', 'pad_mode_before_length_value', 'pad_length',
        'native_dropout_p_as_double', 'native_dropout_p_fraction', 'dropout__p_before_overlap'])
def test_pad_and_dropout(call):
    """F.pad reads the mode before the pad's length; native_dropout's p shown as C++ shows
    a double; dropout_'s p check stands before the in-place overlap check."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.histc(T.ones(3, dtype=T.bool)),
    lambda T: T.histc(T.ones(3, dtype=T.bool), 10, 2, 1),
    lambda T: T.histc(T.ones(0, dtype=T.bool)),
    lambda T: T.histc(T.ones(3, dtype=T.long)),
], ids=['bool', 'bool_range_first', 'bool_empty', 'long'])
def test_histc_bool(call):
    """histc of bool gets past the histogram kernel's dtypes to its linspace of the bin
    edges (after the range checks)."""
    check(call, grad=False, match_message=True)
