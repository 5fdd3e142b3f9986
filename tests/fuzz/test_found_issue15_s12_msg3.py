"""Findings of the fuzzer's message check (issue 15, sweep 12: seeds 21000-21039, wide shapes
2100-2139, every call by keyword 22200-22239): ember raised torch's exception class with
another first line of message. Each call is pinned against torch, first line included."""
import random
import warnings

import pytest

from tests.oracle.oracle import check


# -- torch lists a call's keywords in the order of a C++ std::unordered_map of them (by the
# names' hashes), not the call's order reversed; and an op with one listed overload (others
# hidden or deprecated) names the keywords it cannot place: "got unrecognized keyword
# arguments: alpha, beta" --------------------------------------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.conv2d(T.ones(1, 1, 2, 2), groups=1, dilation=[1], stride=[1], padding=1,
                       bias=(1,), weight=T.ones(1, 1, 1, 1)),
    lambda T: T.scatter(T.ones(2), value=1, index=T.ones(2), dim=1, reduce=None),
    lambda T: T.scatter(T.ones(2), index=T.ones(2), value=1, dim=1, reduce=None),
    lambda T: T.native_norm(T.ones(2), dtype=T.float32, keepdim=True, dim=[0], p=None,
                            out=T.ones(2)),
    lambda T: T.ones(2, 2).addmm(T.ones(2, 2), T.ones(2, 2), T.float32, alpha=1, beta=1),
    lambda T: T.ones(2, 2).addmm(T.ones(2, 2), T.ones(2, 2), out_dtype=T.float32, alpha=1,
                                 beta=1),
    lambda T: T.ones(2, 2).addmm(T.ones(2, 2), T.ones(2, 2), 3, 4, mat2=1, mat1=2, beta=3),
    lambda T: T.ones(2, 2, 2).baddbmm(T.ones(2, 2, 2), T.ones(2, 2, 2), T.float32,
                                      alpha=1.5, beta=1),
    lambda T: T.ones(2).add(T.ones(2), 2, 3, other=T.ones(2)),
    lambda T: T.ones(2).to(1, 2, copy=3, non_blocking=4),
    lambda T: T.ones(2).to(copy=3, non_blocking=4, foo=1),
], ids=['conv2d', 'scatter_value_first', 'scatter_index_first', 'native_norm',
        'addmm_dtype', 'addmm_out_dtype', 'addmm_mats_by_name', 'baddbmm', 'add_other',
        'to', 'to_keywords_only'])
def test_keyword_order_and_unrecognized(call):
    check(call, grad=False, match_message=True)


_NAMES = ['alpha', 'beta', 'dim', 'index', 'value', 'reduce', 'out', 'input', 'other',
          'weight', 'bias', 'stride', 'padding', 'dilation', 'groups', 'foo', 'keepdim',
          'dtype', 'p', 'x', 'a_longer_name', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7', 'h8']


@pytest.mark.parametrize('seed', range(8))
def test_keyword_order_many(seed):
    """Up to 20 keywords (the map grows from 13 to 29 buckets on the 14th)."""
    rng = random.Random(seed)
    names = rng.sample(_NAMES, rng.randint(2, 20))
    check(lambda T: T.mm(T.ones(2), T.ones(2), T.ones(2), **dict.fromkeys(names, 1)),
          grad=False, match_message=True)


# -- binary pointwise ops: ``other`` given by name has no position in torch's message and is
# listed as a keyword; a method counts its arguments after self (position 1); an alias
# (arctan2) has its own name. ember's generated binary functions could not tell ---------------

@pytest.mark.parametrize('call', [
    lambda T: T.ones(2).fmin(1.5),
    lambda T: T.ones(2).fmin(other=1.5),
    lambda T: T.fmin(T.ones(2), 1.5),
    lambda T: T.fmin(T.ones(2), other=1.5),
    lambda T: T.fmin(input=T.ones(2), other=1.5),
    lambda T: T.ones(2).fmin(other=None),
    lambda T: T.ones(2).minimum(2),
    lambda T: T.ones(2).logaddexp(other=2),
    lambda T: T.ones(2).logical_and(True),
    lambda T: T.ones(2).atan2(other=[1, 2]),
    lambda T: T.arctan2(T.ones(2), True),
    lambda T: T.ones(2).arctan2(True),
    lambda T: T.ones(2).lt(other='x'),
    lambda T: T.lt(T.ones(2), other=[1], out=T.ones(2)),
    lambda T: T.bitwise_xor(1, other=T.ones(2, dtype=T.int32), out=T.ones(2)),
    lambda T: T.remainder(None, other=T.ones(2)),
    lambda T: T.fmin(T.ones(2), T.ones(2), other=T.ones(2)),
    lambda T: T.fmin(T.ones(2), foo=T.ones(2)),
    lambda T: T.fmin(T.ones(2), other=T.ones(2), foo=1),
], ids=['method_pos', 'method_kw', 'fn_pos', 'fn_kw', 'fn_both_kw', 'method_none_kw',
        'minimum_pos', 'logaddexp_kw', 'logical_and_pos', 'atan2_list_kw', 'arctan2_alias',
        'arctan2_method', 'lt_str_kw', 'lt_list_out', 'bitwise_xor_number_first',
        'remainder_none', 'other_twice', 'unknown_keyword', 'extra_keyword'])
def test_binary_other_by_name(call):
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.fmin(T.ones(2), other=T.full((2,), 0.5)),
    lambda T: T.fmin(T.ones(2), other=T.full((2,), 0.5), out=T.empty(2)),
    lambda T: T.ones(2).eq(other=T.ones(2)),
    lambda T: T.atan2(T.ones(2), x2=T.ones(2)),
], ids=['fmin', 'fmin_out', 'eq', 'atan2_numpy_name'])
def test_binary_other_by_name_computes(call):
    """The well-formed calls by name still compute torch's result."""
    check(call, grad=False)


# -- unary pointwise ops given ``input=`` by name: torch's message has no position; ember's
# generated unary functions could not tell a named input from a positional one ---------------

@pytest.mark.parametrize('call', [
    lambda T: T.acos(input=1.5),
    lambda T: T.acos(input=None),
    lambda T: T.exp(input=[1.0]),
    lambda T: T.exp(input='x', out=T.ones(2)),
    lambda T: T.exp(T.ones(2), input=T.ones(2)),
    lambda T: T.exp(input=T.ones(2), x=T.ones(2)),
    lambda T: T.exp(T.ones(1), 1, 1, 1, 1),
    lambda T: T.special.erfinv(input=(0.5,)),
    lambda T: T.special.i0(input=True),
    lambda T: T.isposinf(input='x'),
    lambda T: T.absolute(input=None),
    lambda T: T.sigmoid(input=1.5),
], ids=['acos_float', 'acos_none', 'exp_list', 'exp_str_out', 'exp_twice', 'exp_input_and_x',
        'exp_5_positional', 'special_erfinv', 'special_i0', 'isposinf', 'absolute', 'sigmoid'])
def test_unary_input_by_name(call):
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, a: T.exp(input=a),
    lambda T, a: T.sin(input=a, out=T.empty(3, dtype=T.float64)),
    lambda T, a: T.acos(input=a / 4),
], ids=['exp', 'sin_out', 'acos'])
def test_unary_input_by_name_computes(call):
    import numpy as np
    check(call, np.array([0.5, -1., 2.]))


# -- nn.functional's activations and dropouts with inplace=True hand their arguments to the
# op's in-place form, which torch's message names (relu_(), hardtanh_()) ---------------------

@pytest.mark.parametrize('name,args', [
    ('relu', ('x',)), ('relu', (1.5,)), ('celu', ('x', 0)), ('hardtanh', (1.5, -1.0, 3)),
    ('hardtanh', ('t', 'a', 3)), ('relu6', (True,)), ('selu', (True,)), ('silu', (True,)),
    ('threshold', ('x', 1, 2)), ('elu', ('x',)), ('leaky_relu', ('x',)), ('mish', ('x',)),
    ('hardsigmoid', ('x',)), ('hardswish', ('x',)), ('rrelu', ('x',)), ('dropout', ('x',)),
    ('alpha_dropout', ('x',)), ('feature_alpha_dropout', ('x',)),
])
@pytest.mark.parametrize('inplace', [True, 1, False])
def test_inplace_activation_names(name, args, inplace):
    check(lambda T: getattr(T.nn.functional, name)(
        *[T.ones(2) if a == 't' else a for a in args], inplace=inplace),
        grad=False, match_message=True)


# -- stft's kernel states the call before each of its checks' messages ("stft(torch.
# FloatTensor[8], n_fft=4, hop_length=0, ...) : expected hop_length > 0"), and checks n_fft
# against the signal's length before the hop and window lengths ------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.stft(T.ones(8), 4, hop_length=0, return_complex=True, center=False),
    lambda T: T.stft(T.ones(8), 4, win_length=5, return_complex=True, center=False),
    lambda T: T.stft(T.ones(8), 4, win_length=0, return_complex=True, center=False),
    lambda T: T.stft(T.ones(8), 4, win_length=3, window=T.ones(2), return_complex=True,
                     center=False),
    lambda T: T.stft(T.ones(8), 9, return_complex=True, center=False),
    lambda T: T.stft(T.ones(8), 0, return_complex=True, center=False),
    lambda T: T.stft(T.ones(2, 2, 2), 2, return_complex=True, center=False),
    lambda T: T.stft(T.ones(8), 4, hop_length=0, return_complex=True, center=False,
                     onesided=True, align_to_window=True),
    lambda T: T.stft(T.ones(8, dtype=T.float64), 4, hop_length=0, return_complex=True),
    lambda T: T.stft(T.ones(3, 8, dtype=T.float64), 4, hop_length=0, return_complex=False,
                     window=T.ones(4)),
    lambda T: T.ones(3, 3).stft(2, hop_length=1, win_length=2, window=T.ones(3, 3),
                                return_complex=True, onesided=False, align_to_window=False,
                                center=False),
    lambda T: T.ones(6).stft(3, hop_length=3, win_length=3, window=T.ones(1),
                             return_complex=True),
], ids=['hop', 'win_long', 'win_zero', 'window_size', 'n_fft_long', 'n_fft_zero', 'dims',
        'flags', 'centered_double', 'batch_real', 'window_2d', 'method'])
def test_stft_kernel_messages(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


# -- torch.cholesky (not linalg's): after its shape checks, its kernel's dtype dispatch refuses
# integer, bool, float16 and bfloat16 matrices ("cholesky_cpu" not implemented for 'Int');
# ember gave linalg.cholesky's message or NumPy's words ------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.cholesky(T.ones(3, dtype=T.int32)),
    lambda T: T.cholesky(T.ones(3, 2, dtype=T.int32)),
    lambda T: T.cholesky(T.ones(3, 3, dtype=T.int32)),
    lambda T: T.cholesky(T.ones(2, 3, 3, dtype=T.bool)),
    lambda T: T.cholesky(T.ones(3, 3, dtype=T.float16)),
    lambda T: T.cholesky(T.ones(3, 3, dtype=T.bfloat16)),
    lambda T: T.ones(3, 3, dtype=T.int64).cholesky(),
    lambda T: T.cholesky(T.ones(2, 0, 0, dtype=T.bool)),
], ids=['int_1d', 'int_wide', 'int', 'bool_batch', 'half', 'bfloat16', 'method', 'empty'])
def test_cholesky_dtype_refusal(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


# -- embedding's family: a dtype without a legacy tensor type prints as CPUBoolType; the
# aten embedding_bag checks the offsets' dims before the weight's; a tensor's type prints as
# torch's class ----------------------------------------------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.embedding_bag(T.ones(3, 3), T.ones(3, dtype=T.long), T.tensor(0)),
    lambda T: T.embedding_bag(T.ones(3), T.ones(3, dtype=T.long), T.tensor(0)),
    lambda T: T.embedding_bag(T.ones(3), T.ones(3, dtype=T.long), T.tensor([0])),
    lambda T: T.embedding(T.ones(3, 3), T.ones(3, dtype=T.bool)),
    lambda T: T.embedding(T.ones(3, 3), T.ones(3, dtype=T.complex64)),
    lambda T: T.embedding(T.ones(3, 3), T.ones(3, dtype=T.float16)),
    lambda T: T.nn.functional.embedding(T.ones(3, dtype=T.bool), T.ones(3, 3)),
    lambda T: T.embedding_renorm_(T.ones(3, 3), T.ones(3, dtype=T.bool), 1., 2.),
    lambda T: T.embedding_renorm_(T.ones(3, 3), T.ones(3, dtype=T.float16), 1., 2.),
    lambda T: T.nn.functional.embedding_bag(T.ones(3, dtype=T.bfloat16), T.ones(3, 3),
                                            T.ones(1, dtype=T.long)),
    lambda T: T.nn.functional.embedding_bag(T.ones(2, 3, dtype=T.long), T.ones(3, 3),
                                            T.ones(1, dtype=T.long)),
    lambda T: T.embedding_bag(T.ones(3, 3), T.ones(3, dtype=T.long), T.tensor([0]),
                              per_sample_weights=T.ones(3, dtype=T.bool), mode=0),
    lambda T: T.embedding_bag(T.ones(3, 3), T.ones(3, dtype=T.long), T.tensor([0]),
                              per_sample_weights=T.ones(3, dtype=T.float64), mode=0),
], ids=['bag_offsets_0d', 'bag_offsets_before_weight', 'bag_weight_1d', 'bool', 'complex',
        'half', 'functional_bool', 'renorm_bool', 'renorm_half', 'functional_bag_bfloat16',
        'functional_bag_offsets_type', 'bag_weights_bool', 'bag_weights_double'])
def test_embedding_messages(call):
    check(call, grad=False, match_message=True)


# -- addmm checks the dtypes (input's against mat2's, then mat1's) before the dims and the
# shapes, and expands input with expand's own message for too many dims ----------------------

@pytest.mark.parametrize('call', [
    lambda T: T.addmm(T.ones(3), T.ones(3, dtype=T.float64), T.ones(3, 3)),
    lambda T: T.addmm(T.ones(3), T.ones(3, 2, dtype=T.float64), T.ones(3, 3)),
    lambda T: T.addmm(T.ones(3), T.ones(3, 2), T.ones(3)),
    lambda T: T.addmm(T.ones(3, 3, 3), T.ones(3, 2), T.ones(3, 3)),
    lambda T: T.addmm(T.ones(3, 3, 3), T.ones(3, 3), T.ones(3, 3)),
    lambda T: T.addmm(T.ones(3), T.ones(3, 2, dtype=T.bool), T.ones(2, 3, dtype=T.bool)),
    lambda T: T.ones(3).addmm(T.ones(3, 2), T.ones(2, 3, dtype=T.float16)),
    lambda T: T.ones(3, 3).addmm_(T.ones(3, 3, 3), T.ones(3, 3, dtype=T.float64)),
    lambda T: T.addmm(T.ones(3), T.ones(0), T.ones(3, 0, dtype=T.complex128)),
    lambda T: T.nn.functional.linear(T.ones(2, 0), T.ones(2, 0), T.ones(1, 2, 3, 3)),
    lambda T: T.nn.functional.linear(T.ones(2, 3), T.ones(2, 3), T.ones(1, 2, 2)),
], ids=['mat1_dtype_1d', 'mat1_dtype', 'mat2_1d', 'shapes_before_expand', 'expand_dims',
        'input_dtype_bool', 'method_half', 'inplace_3d', 'complex_empty', 'linear_empty',
        'linear_bias_3d'])
def test_addmm_check_order(call):
    check(call, grad=False, match_message=True)


# -- checks elementwise ops make before broadcasting (their meta functions): where's condition
# dtype, sub's bool refusals, minimum/maximum/fmin/fmax on complex, clamp of a complex input,
# heaviside's and lerp's dtypes; rsub broadcasts other against input --------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.where(T.ones(4), T.ones(3), T.ones(3)),
    lambda T: T.where(T.ones(4), T.ones(3), 0.0),
    lambda T: T.ones(4).where(T.ones(3), 0.0),
    lambda T: T.where(T.ones(4), T.ones(3), T.ones(3), out=T.ones(3)),
    lambda T: T.where(T.ones(4,dtype=T.uint8), T.ones(3), T.ones(3)),
    lambda T: T.ones(4, dtype=T.complex64).minimum(T.ones(3, dtype=T.complex64)),
    lambda T: T.fmax(T.ones(4, dtype=T.complex64), T.ones(3, dtype=T.complex64)),
    lambda T: T.max(T.ones(4, dtype=T.complex64), T.ones(3, dtype=T.complex64)),
    lambda T: T.ones(4, dtype=T.float16).minimum(other=T.ones(2, 3, dtype=T.complex64)),
    lambda T: T.subtract(T.ones(3, dtype=T.bool), T.ones(0, dtype=T.bool)),
    lambda T: T.ones(3, dtype=T.bool).sub(T.ones(4), alpha=-1.0),
    lambda T: T.ones(3, dtype=T.bool).subtract_(T.ones(0, dtype=T.complex64)),
    lambda T: T.rsub(T.ones(2, 0, dtype=T.int64), T.ones(2, 3, dtype=T.int64)),
    lambda T: T.rsub(T.ones(2, 1, 3, dtype=T.bool), T.ones(0, dtype=T.bool)),
    lambda T: T.rsub(T.ones(2, 1, 3, 4, dtype=T.int64), T.ones(1,2,3,3, dtype=T.int16), alpha=1.5),
    lambda T: T.heaviside(T.ones(2, 3), T.ones(3, 1, dtype=T.float64)),
    lambda T: T.ones(3, dtype=T.bfloat16).heaviside_(T.ones(3, 1)),
    lambda T: T.lerp(T.ones(0, dtype=T.int64), T.ones(3, 3), T.ones(3, 3, dtype=T.int64)),
    lambda T: T.ones(4,4).lerp_(T.ones(2, 3, dtype=T.float64), T.ones(3)),
    lambda T: T.clamp_(T.ones(3, dtype=T.complex64), min=T.ones(2, 3, 3, dtype=T.complex64)),
    lambda T: T.ones(1,2,3,3, dtype=T.complex128).clip_(T.ones(2,2,3,4, dtype=T.complex128), None),
    lambda T: T.ones(2, 3).minimum(T.ones(3, 3)),
    lambda T: T.where(T.ones(4, dtype=T.bool), T.ones(3), T.ones(3)),
    lambda T: T.clamp_min(T.ones(3, dtype=T.complex64), T.ones(2,3)),
    lambda T: T.clamp(T.ones(3, dtype=T.complex64), T.ones(2,3), T.ones(4)),
    lambda T: T.clamp(T.ones(3, dtype=T.float32), min=T.ones(3, dtype=T.complex64)),
    lambda T: T.ones(3, dtype=T.complex64).clamp_(T.ones(2,3)),
])
def test_checks_before_broadcasting(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


# -- per-op check orders and words: unfold (the size against the dim's, the size's sign, the
# step), nonzero_static's size, linalg.vander's dtypes (float16, bfloat16, bool, complex32),
# linalg.lu without pivoting refuses the kernel's dtypes first -------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.ones(2,1,3).unfold(-3, -3, 1),
    lambda T: T.ones(2,1,3).unfold(0, -1, 0),
    lambda T: T.tensor(True).unfold(0, 2, 0),
    lambda T: T.tensor(True).unfold(0, 1, 0),
    lambda T: T.tensor(True).unfold(0, 1, -1),
    lambda T: T.ones(0).unfold(-1, 1, 0),
    lambda T: T.ones(3).unfold(0, 4, 0),
    lambda T: T.ones(3).unfold(0, 2, 0),
    lambda T: T.ones(3).unfold(0, -2, 1),
    lambda T: T.ones(3).unfold(5, 2, 1),
    lambda T: T.tensor(1.).unfold(1, 2, 1),
    lambda T: T.ones(3).unfold(0, 0, 1).shape,
    lambda T: T.ones(5).unfold(0, 2, 2).sum(),
    lambda T: T.unfold_copy(T.ones(2,1,3), 0, -1, 1),
    lambda T: T.unfold_copy(T.tensor(1.), -1, 2, 0),
    lambda T: T.ones(3).nonzero_static(size=-3),
    lambda T: T.linalg.vander(T.ones(1,1, dtype=T.bfloat16)),
    lambda T: T.linalg.vander(T.ones(1,1, dtype=T.bool)),
    lambda T: T.linalg.vander(T.tensor(1., dtype=T.float16)),
    lambda T: T.linalg.vander(T.tensor(1.)),
    lambda T: T.linalg.vander(T.ones(3, dtype=T.float16), N=0),
    lambda T: T.linalg.vander(T.ones(3, dtype=T.complex32), N=0),
    lambda T: T.linalg.lu(T.ones(3,3, dtype=T.bool), pivot=False),
    lambda T: T.linalg.lu(pivot=False, A=T.ones(3,3, dtype=T.bfloat16)),
    lambda T: T.linalg.lu(T.ones(3, dtype=T.int32), pivot=False),
    lambda T: T.linalg.lu(T.ones(3,3), pivot=False),
])
def test_unfold_vander_lu_messages(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


# -- binary_cross_entropy_with_logits refuses a non-floating input (log_sigmoid's kernel)
# before broadcasting anything: its checks come in its own order (``_dtype_first``) ----------

@pytest.mark.parametrize('call', [
    lambda T: T.binary_cross_entropy_with_logits(T.ones(2,0,dtype=T.bool),
                                                 T.ones(1,2,3,3,dtype=T.bool), None, None),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3,dtype=T.int32), T.ones(4,dtype=T.int32)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3,dtype=T.int32), T.ones(3,dtype=T.int32)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3,dtype=T.int32), T.ones(3)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3), T.ones(3,dtype=T.int32)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3), T.ones(4)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3,dtype=T.complex64),
                                                 T.ones(4,dtype=T.complex64)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3,dtype=T.complex64),
                                                 T.ones(3,dtype=T.bool),
                                                 pos_weight=T.ones(3, dtype=T.complex64)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3,dtype=T.float16),
                                                 T.ones(4,dtype=T.float16)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3), T.ones(3), T.ones(4)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool),
                                                 T.ones(4, dtype=T.bool)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(4, 4, dtype=T.bool),
                                                 T.ones(4, dtype=T.bool), None,
                                                 T.ones(4,4, dtype=T.bool)),
    lambda T: T.nn.functional.binary_cross_entropy_with_logits(T.ones(3,dtype=T.int32),
                                                               T.ones(4,dtype=T.int32)),
    lambda T: T.nn.functional.binary_cross_entropy_with_logits(T.ones(3,dtype=T.int32),
                                                               T.ones(3,dtype=T.int32),
                                                               weight=T.ones(2,1)),
    lambda T: T.nn.functional.binary_cross_entropy_with_logits(T.ones(1, 3,dtype=T.int64),
                                                               target=T.ones(1,3,dtype=T.int64),
                                                               weight=T.ones(3,1,dtype=T.int64)),
    lambda T: T.nn.functional.binary_cross_entropy_with_logits(T.ones(1, 3), target=T.ones(1,3),
                                                               weight=T.ones(3,1)),
    lambda T: T.nn.functional.binary_cross_entropy_with_logits(T.ones(3), T.ones(3),
                                                               pos_weight=T.ones(2)).sum(),
])
def test_bce_with_logits_dtype_first(call):
    check(call, grad=False, match_message=True)


# -- linalg.solve compares A's and B's dtypes before A's dims; tensorsolve with more dims in
# other than in self fails in torch's C++ words; margin_ranking_loss subtracts the inputs
# before negating the target -------------------------------------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.linalg.solve(T.ones(1), T.ones(1, dtype=T.float64)),
    lambda T: T.linalg.solve(T.ones(3,3), T.ones(1, dtype=T.float64)),
    lambda T: T.linalg.solve(T.ones(3,3, dtype=T.int64), T.ones(3, dtype=T.int64)),
    lambda T: T.linalg.solve(T.ones(3), T.ones(3, dtype=T.int64)),
    lambda T: T.linalg.solve(T.ones(3, dtype=T.int64), T.ones(3, dtype=T.int64)),
    lambda T: T.linalg.solve(T.ones(3), T.ones(3)),
    lambda T: T.linalg.solve(T.ones(3, dtype=T.float64), T.ones(3, dtype=T.float64), left=False),
    lambda T: T.linalg.solve_ex(T.ones(1), T.ones(1, dtype=T.float64)),
    lambda T: T.linalg.tensorsolve(T.ones(4), T.ones(2,1,3), []),
    lambda T: T.linalg.tensorsolve(T.ones(4), T.ones(2,1,3)),
    lambda T: T.linalg.tensorsolve(T.tensor(1.), T.ones(3,3)),
    lambda T: T.linalg.tensorsolve(T.ones(3, dtype=T.int32), T.ones(3,3, dtype=T.int32)),
    lambda T: T.margin_ranking_loss(T.ones(1, dtype=T.bool), T.ones(1, dtype=T.bool),
                                    T.ones(2,1,3, dtype=T.bool), 2.0, 0),
    lambda T: T.margin_ranking_loss(T.ones(3,3), T.ones(2,3), T.ones(3,3, dtype=T.bool), 0.0, 2),
    lambda T: T.nn.functional.margin_ranking_loss(T.ones(4,4, dtype=T.bool),
                                                  T.ones(4,4, dtype=T.bool),
                                                  T.ones(4,4, dtype=T.bool), 0.0),
    lambda T: T.nn.functional.margin_ranking_loss(T.ones(4,4), T.ones(4,4),
                                                  T.ones(4,4, dtype=T.bool), 0.0),
])
def test_solve_tensorsolve_margin_ranking(call):
    check(call, grad=False, match_message=True)


# -- torch.range in an integer dtype reads its bounds as int64 first: a NaN, an infinity, a
# huge or complex bound overflows before arange's checks ------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.range(2, float("-inf"), dtype=T.int64),
    lambda T: T.range(float("-inf"), -1, dtype=T.int64),
    lambda T: T.range(float("-inf"), -1),
    lambda T: T.range(2, float("nan"), dtype=T.int32),
    lambda T: T.range(-0.9-0.5j, 1.1-0.4j, dtype=T.int8),
    lambda T: T.range(-0.9-0.5j, 1.1-0.4j),
    lambda T: T.range(2, float("-inf"), out=T.ones(0, dtype=T.uint8)),
    lambda T: T.range(1e30, 1e31, dtype=T.int64),
    lambda T: T.range(1.5, 5.5, 1, dtype=T.int64),
    lambda T: T.range(1, 5, dtype=T.int16),
    lambda T: T.range(1+0j, 5, dtype=T.int16),
])
def test_range_integer_bounds(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


# -- unravel_index checks shape's type (int or sequence of ints) as torch's Python does; the
# dropouts compare p with floats first, so a p of another type fails in Python's words -----

@pytest.mark.parametrize('call', [
    lambda T: T.unravel_index(T.ones(3, dtype=T.int16), shape='x'),
    lambda T: T.unravel_index(T.tensor(-3), 2.0),
    lambda T: T.unravel_index(T.ones(3, dtype=T.int64), -1.0),
    lambda T: T.unravel_index(T.ones(3, dtype=T.int64), [2, 2.0]),
    lambda T: T.unravel_index(T.ones(3, dtype=T.int64), [2, None]),
    lambda T: T.unravel_index(T.ones(3, dtype=T.int64), None),
    lambda T: T.unravel_index(T.ones(3, dtype=T.int64), T.tensor([2])),
    lambda T: T.unravel_index(T.ones(3, dtype=T.int64), {2: 3}),
    lambda T: T.unravel_index(T.ones(3, dtype=T.int64), (2, -3)),
    lambda T: T.unravel_index(T.ones(3, dtype=T.int64), (2, True)),
    lambda T: T.unravel_index(T.ones(3, dtype=T.float32), 2.0),
    lambda T: T.unravel_index(T.tensor([5, 3]), (2, 3)),
    lambda T: T.unravel_index(T.tensor([5, 3]), T.Size([2, 3])),
    lambda T: T.nn.functional.dropout(T.ones(2,3,4), 1j),
    lambda T: T.nn.functional.dropout2d(T.ones(4,4), p=(1, 2), training=False),
    lambda T: T.nn.functional.dropout1d(T.ones(2,3,4), 'x'),
    lambda T: T.nn.functional.dropout3d(T.ones(2,3,4), [0.5]),
    lambda T: T.nn.functional.alpha_dropout(T.ones(2,3,4), None),
    lambda T: T.nn.functional.feature_alpha_dropout(T.ones(2,3,4), 1j),
    lambda T: T.nn.functional.dropout(T.ones(2,3,4), 1.5),
])
def test_unravel_index_and_dropout_p_types(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


# -- nll_loss: autograd refuses a weight that requires grad before the kernel's checks; a 4-d
# input goes to nll_loss2d, whose checks (3-d targets, dtype, weight, sizes) come in its order

@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.nll_loss(T.ones(1,3), T.ones(1,3), T.ones(3, requires_grad=True)),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3), T.ones(1).long(),
                                       T.ones(3, requires_grad=True)),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4,5), T.ones(2,4,4).long(),
                                       T.ones(3, requires_grad=True)),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4,5), T.ones(2,2,4,4).long(),
                                       T.ones(3, requires_grad=True)),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4), T.ones(2,5).long(),
                                       T.ones(3, requires_grad=True)),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4), T.ones(2,4).float(),
                                       T.ones(3, requires_grad=True)),
    lambda T: T.nn.functional.nll_loss(T.ones(3), T.ones(1).float(), T.ones(3, requires_grad=True)),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4,5), T.ones(2,2,4,4).long()),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4,5), T.ones(2,4,4).long()),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4,5), T.ones(2,4,4).float()),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4,5), T.ones(2,2,4,4).float()),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4,5), T.ones(2,4,5).long(), T.ones(2)),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4,5), T.ones(2).long()),
    lambda T: T.nn.functional.nll_loss(T.ones(2,3,4,5), T.zeros(2,4,5).long()).sum(),
    lambda T: T.nn.functional.cross_entropy(T.ones(3), T.ones(1), T.ones(3, requires_grad=True)),
    lambda T: T.nn.functional.nll_loss(T.ones(1, 2,3,4,5), T.zeros(1, 2,4,5).long()),
])
def test_nll_loss_check_order(call):
    check(call, grad=False, match_message=True)


# -- in-place ops on a tensor whose elements share memory (expanded): torch's iterator checks
# the overlap before it broadcasts (a shape error comes after it), and the ops' own checks of
# their arguments (abs_ of complex, clamp_ without bounds, fill_'s value, geometric_'s p ...)
# come before it -----------------------------------------------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.ones(1,3,dtype=T.complex64).expand(3,3).abs_(),
    lambda T: T.ones(1,3,dtype=T.complex64).expand(3,3).ceil_(),
    lambda T: T.ones(1,3,dtype=T.complex64).expand(3,3).trunc_(),
    lambda T: T.ones(1,3).expand(3,3).clamp_(),
    lambda T: T.ones(1,3,dtype=T.long).expand(3,3).cauchy_(),
    lambda T: T.ones(1,3).expand(3,3).geometric_(3),
    lambda T: T.ones(1,3).expand(3,3).fill_(T.ones(2,2)),
    lambda T: T.ones(1).expand(3).fill_diagonal_(1),
    lambda T: T.ones(1,3).expand(2,3).fill_diagonal_(1),
    lambda T: T.ones(1,3,dtype=T.complex64).expand(3,3).rad2deg_(),
    lambda T: T.ones(1,3,dtype=T.bool).expand(3,3).negative_(),
    lambda T: T.nn.functional.relu_(T.ones(1,3,dtype=T.bool).expand(3,3)),
    lambda T: T.nn.functional.rrelu_(T.ones(1,3).expand(3,3), 2., 1.),
    lambda T: T.ones(1,3,dtype=T.bool).expand(3,3).subtract_(T.ones(3, dtype=T.bool)),
    lambda T: T.ones(1).expand(3).atan2_(T.ones(2,3)),
    lambda T: T.ones(1).expand(3).bitwise_xor_(T.ones(2,3).long()),
    lambda T: T.ones(1,dtype=T.bool).expand(3).logical_and_(T.ones(2,3)),
    lambda T: T.ones(1).expand(3).lerp_(T.ones(2,3), 0.5),
    lambda T: T.ones(1).expand(3).heaviside_(T.ones(2,3)),
    lambda T: T.ones(1).long().expand(3).lcm_(T.ones(2,3).long()),
    lambda T: T.ones(1).expand(3).nextafter_(T.ones(2,3)),
    lambda T: T.ones(1).expand(4).addcmul_(T.ones(4,4), T.ones(4)),
    lambda T: T.ones(1).expand(3).clip_(T.ones(2,3), None),
    lambda T: T.ones(1).expand(3).clamp_max_(T.ones(2,3)),
    lambda T: T.ones(3).atan2_(T.ones(2,3)),
    lambda T: T.ones(1).expand(3).atan2_(T.ones(3)),
])
def test_inplace_overlap_order(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


# -- in-place comparisons write their bool result cast into self: torch makes no check that
# the operands' common dtype casts into self, so the kernel refuses complex operands ----------

@pytest.mark.parametrize('call', [
    lambda T: T.ones(3).ge_(T.ones(3, dtype=T.complex64)),
    lambda T: T.ones(3).lt_(1j),
    lambda T: T.ones(3).long().less_(T.ones(3, dtype=T.complex64)),
    lambda T: T.ones(3, dtype=T.float64).greater_(T.ones(3, dtype=T.complex128)),
    lambda T: T.ones(3, dtype=T.float64).greater_equal_(T.ones(3, dtype=T.complex128)),
    lambda T: T.ones(3).long().less_(T.ones(3, dtype=T.float32)),
    lambda T: T.ones(3).bool().less_(T.ones(3, dtype=T.float32)),
    lambda T: T.ones(3).eq_(T.ones(3, dtype=T.complex64)),
    lambda T: T.ones(3).ge_(T.ones(2, dtype=T.complex64)),
    lambda T: T.ones(3, dtype=T.int8).bitwise_and_(T.ones(3)),
])
def test_inplace_comparison_no_cast_check(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


# -- native_group_norm: the (N, group) statistics are allocated (negative sizes refused) and
# the kernel's dtype dispatched before its element count check; torch.group_norm reads a 0-d
# input's batch size (dim 0) first -------------------------------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.native_group_norm(T.ones(0, dtype=T.uint8), None, None, -3, 1, 1, 1, 1e-8),
    lambda T: T.native_group_norm(T.ones(1, dtype=T.int16), None, None, 1, 2, 3, 1, 0.1),
    lambda T: T.native_group_norm(T.ones(3,1, dtype=T.float16), None, None, -3, 1, 0, 1, 0.1),
    lambda T: T.native_group_norm(T.ones(3,1), None, None, 1, 2, 3, 1, 0.1),
    lambda T: T.native_group_norm(T.ones(6), None, None, 1, 2, 3, 1, 0.1)[0].sum(),
    lambda T: T.native_group_norm(T.ones(6), None, None, 1, 2, 3, 4, 0.1),
    lambda T: T.native_group_norm(T.ones(6, dtype=T.int32), None, None, 1, 2, 3, 1, 0.1),
    lambda T: T.native_group_norm(T.ones(6), T.ones(3), None, 1, 2, 3, 1, 0.1),
    lambda T: T.group_norm(T.tensor(1.), 3, None, None, 1e-5, True),
    lambda T: T.group_norm(T.tensor(1.), -3, None, None, 1e-5, True),
    lambda T: T.group_norm(T.tensor(True), 1, T.tensor(False), T.tensor(False), 1e-8, False),
    lambda T: T.group_norm(T.ones(2), 3),
    lambda T: T.group_norm(T.ones(2,3), 2),
    lambda T: T.nn.functional.group_norm(T.tensor(1.), 1),
])
def test_group_norm_check_order(call):
    check(call, grad=False, match_message=True)


# -- index_put reads a mask's dims against the input's one by one (torch's mask-shape message,
# or the size of a dim past the last: "Dimension out of range") -------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.ones(3).index_put([T.ones(3,3, dtype=T.uint8)], T.ones(3,3)),
    lambda T: T.ones(3).index_put([T.ones(3,3, dtype=T.bool)], T.ones(3,3)),
    lambda T: T.ones(2,3).index_put([T.ones(2,3, dtype=T.bool), T.ones(4,4,dtype=T.bool)],
                                    T.ones(2,3)),
    lambda T: T.ones(2,3).index_put_([T.ones(1,2,3,3, dtype=T.bool)], T.ones(2,3)),
    lambda T: T.ones(2,3).index_put_([T.ones(4,4, dtype=T.bool)], T.ones(2,3)),
    lambda T: T.ones(2,3).index_put_([T.ones(2, dtype=T.bool)], T.ones(3)),
    lambda T: T.ones(2,3).index_put_([T.ones(3, dtype=T.bool)], T.ones(3)),
    lambda T: T.ones(2,3).index_put_([T.tensor([0]), T.ones(4, dtype=T.bool)], T.ones(1)),
    lambda T: T.ones(2,3).index_put_([T.tensor([0]), T.ones(3, dtype=T.bool)], T.ones(1)).sum(),
    lambda T: T.ones(2,3).index_put_([T.ones(2,3, dtype=T.bool)], T.tensor(2.)).sum(),
    lambda T: T.ones(3).index_put([T.tensor([0]), T.tensor([0])], T.ones(1)),
    lambda T: T.index_put(T.ones(2,3), [T.ones(2, 3, dtype=T.bool), T.tensor([0])], T.ones(1)),
])
def test_index_put_mask_dims(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


# -- expand: a 0-d tensor takes negative sizes as they are, and a negative leading size other
# than -1 passes the loop ("numel: integer multiplication overflow"); eye's m; special.round's
# kernel name with decimals ----------------------------------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.tensor(1).expand([-1]),
    lambda T: T.tensor(1).expand([-2]),
    lambda T: T.tensor(1).expand([2, -1]),
    lambda T: T.tensor(1).expand([-1, 2]),
    lambda T: T.ones(1).expand([-1, -1]),
    lambda T: T.ones(1).expand([2, -1]).shape,
    lambda T: T.ones(1).expand([-3, 1]),
    lambda T: T.ones(2).expand([-1, 2]),
    lambda T: T.ones(2).expand([3]),
    lambda T: T.ones(2).expand([-3]),
    lambda T: T.eye(2, m=-1),
    lambda T: T.eye(-2),
    lambda T: T.eye(2, 3).sum(),
    lambda T: T.special.round(T.ones(3, dtype=T.int32), decimals=-3),
    lambda T: T.special.round(T.ones(3, dtype=T.int32)),
    lambda T: T.special.round(T.ones(3, dtype=T.bool), decimals=1),
    lambda T: T.round(T.ones(3, dtype=T.bool), decimals=1),
])
def test_expand_eye_round_messages(call):
    check(call, grad=False, match_message=True)


# -- roll, unique_consecutive and fftshift/ifftshift of a 0-d tensor with a dim: torch's dim
# wrap takes no scalar as 1-d there ("Dimension specified as 0 but tensor has no dimensions")

@pytest.mark.parametrize('call', [
    lambda T: T.tensor(5).roll([3], dims=[-1]),
    lambda T: T.tensor(5.).roll(shifts=[0], dims=[0]),
    lambda T: T.tensor(5.).roll(2, 0),
    lambda T: T.tensor(5.).roll(2),
    lambda T: T.tensor(1).unique_consecutive(dim=-1),
    lambda T: T.unique_consecutive(T.tensor(1.), return_counts=True, dim=0),
    lambda T: T.unique_consecutive(T.tensor(1.), return_counts=True),
    lambda T: T.fft.fftshift(T.tensor(-2), [0]),
    lambda T: T.fft.ifftshift(T.tensor(True), [-1]),
    lambda T: T.fft.ifftshift(T.tensor(True), dim=[3, 1]),
    lambda T: T.fft.ifftshift(T.tensor(True), dim=2),
    lambda T: T.fft.fftshift(T.tensor(1.)),
    lambda T: T.fft.fftshift(T.ones(3)).sum(),
    lambda T: T.ones(0).roll(2, 0).shape,
])
def test_scalar_dims(call):
    check(call, grad=False, match_message=True)


# -- bincount refuses a non-integer input (its kernel's dtype dispatch) before minlength and the
# weights' checks: its own order stands (``_dtype_first``) -----------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.bincount(T.ones(3), minlength=-1),
    lambda T: T.bincount(T.ones(3).long(), minlength=-1),
    lambda T: T.bincount(T.ones(3, dtype=T.float64), T.ones(2)),
    lambda T: T.bincount(T.ones(3, 2).long(), T.ones(2)),
    lambda T: T.bincount(T.ones(3, 2), T.ones(2)),
    lambda T: T.bincount(-T.ones(3).long()),
    lambda T: T.bincount(-T.ones(3)),
    lambda T: T.ones(3, dtype=T.bfloat16).bincount(minlength=-1),
    lambda T: T.bincount(T.tensor([0, 1, 1])).sum(),
])
def test_bincount_dtype_first(call):
    check(call, grad=False, match_message=True)


# -- bilinear reads the weight's size before the input's (a 0-d weight's missing dim 1 first) --

@pytest.mark.parametrize('call', [
    lambda T: T.bilinear(T.tensor(1.), T.tensor(1.), T.tensor(1.)),
    lambda T: T.bilinear(T.ones(2), T.tensor(1.), T.tensor(1.)),
    lambda T: T.bilinear(T.ones(2), T.ones(2), T.tensor(1.)),
    lambda T: T.bilinear(T.tensor(1.), T.ones(2), T.ones(2,2,2)),
    lambda T: T.bilinear(T.ones(2), T.ones(2), T.ones(2,2,2)).sum(),
    lambda T: T.bilinear(T.tensor(1.), T.tensor(1.), T.ones(2,2,2)),
    lambda T: T.bilinear(T.tensor(1.), T.tensor(1.), T.ones(2)),
    lambda T: T.bilinear(T.ones(2), T.ones(2), T.ones(2, 2)),
    lambda T: T.nn.functional.bilinear(T.tensor(1.), T.tensor(1.), T.tensor(1.), None),
])
def test_bilinear_size_order(call):
    check(call, grad=False, match_message=True)


# -- avg_pool2d of a 0-d input: torch's C++ reads size(-3) without wrapping a scalar --------

@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.avg_pool2d(T.tensor(1.), [1], [], [0, 0], True),
    lambda T: T.nn.functional.avg_pool2d(T.tensor(1), [2], stride=[2], padding=[0]),
    lambda T: T.nn.functional.avg_pool2d(T.ones(2), [1]),
    lambda T: T.nn.functional.avg_pool2d(T.ones(2,2), [1]),
    lambda T: T.avg_pool1d(T.tensor(1.), [1]),
])
def test_avg_pool2d_scalar(call):
    check(call, grad=False, match_message=True)


# -- per-op words: vdot's dtype message says "dot"; multi_dot names C++ types; narrow_copy's
# kernel checks start + length against the size; view_as_complex refuses bfloat16 ------------

@pytest.mark.parametrize('call', [
    lambda T: T.vdot(T.ones(3, dtype=T.float64), T.ones(3)),
    lambda T: T.ones(3, dtype=T.float64).vdot(T.ones(3)),
    lambda T: T.dot(T.ones(3, dtype=T.float64), T.ones(3)),
    lambda T: T.linalg.multi_dot([T.ones(2,2), T.ones(2,2).long()]),
    lambda T: T.linalg.multi_dot([T.ones(2,2, dtype=T.float64), T.ones(2,2).short()]),
    lambda T: T.narrow_copy(T.ones(1), 0, 0, -1),
    lambda T: T.ones(3).narrow_copy(0, 3, -3),
    lambda T: T.ones(3).narrow_copy(0, -1, 2),
    lambda T: T.ones(3).narrow_copy(0, 1, 2).sum(),
    lambda T: T.ones(3).narrow(0, 3, -3),
    lambda T: T.view_as_complex(T.ones(3, dtype=T.bfloat16)),
    lambda T: T.view_as_complex(T.ones(3, dtype=T.int32)),
    lambda T: T.view_as_complex(T.ones(3, dtype=T.float16)),
    lambda T: T.view_as_complex(T.ones(3, 2)).shape,
])
def test_dot_narrow_copy_view_as_complex_messages(call):
    check(call, grad=False, match_message=True)


# -- histc of complex data with no range: torch takes the data's range first (aminmax refuses);
# lobpcg of a non-floating A fails at its first product against a default-dtype X -----------

@pytest.mark.parametrize('call', [
    lambda T: T.histc(T.ones(3, dtype=T.complex64), 10, 0, 1),
    lambda T: T.histc(T.ones(3, dtype=T.complex64), 10, 0, 0),
    lambda T: T.histc(T.ones(3, dtype=T.complex64), 10),
    lambda T: T.ones(3, dtype=T.complex64).histc(3),
    lambda T: T.histc(T.ones(3, dtype=T.int32), 10),
    lambda T: T.lobpcg(T.ones(3,3).long()),
    lambda T: T.lobpcg(T.ones(3,3).to(T.complex128)),
    lambda T: T.lobpcg(T.ones(3,3).bool()),
    lambda T: T.lobpcg(T.ones(3,3, dtype=T.uint8), None),
])
def test_histc_lobpcg_messages(call):
    check(call, grad=False, match_message=True)


# -- _foreach_maximum/minimum of tensor lists run torch's clamp kernels: a complex operand gets
# the kernel's refusal ("maximum_cpu" not implemented), not maximum's own message, after the
# iterator's overlap and shape checks ------------------------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T._foreach_minimum([T.ones(3, dtype=T.complex64)], [T.ones(3, dtype=T.complex64)]),
    lambda T: T._foreach_maximum_([T.ones(3, dtype=T.complex64)], [T.ones(3, dtype=T.complex64)]),
    lambda T: T._foreach_minimum([T.ones(3, dtype=T.complex128)], 1.0),
    lambda T: T._foreach_maximum([T.ones(3, dtype=T.complex128)], [T.ones(3, dtype=T.complex128)]),
    lambda T: T._foreach_maximum([T.ones(3)], [T.ones(3, dtype=T.complex128)]),
    lambda T: T._foreach_maximum([T.ones(3)], [T.zeros(3)])[0].sum(),
    lambda T: T._foreach_maximum_([T.ones(1, dtype=T.complex128).expand(4)],
                                  [T.ones(4, dtype=T.complex128)]),
    lambda T: T._foreach_maximum_([T.ones(5, dtype=T.complex128)],
                                  [T.ones(5, 5, dtype=T.complex128)]),
    lambda T: T._foreach_maximum([T.ones(5, dtype=T.complex128)], [T.ones(4, dtype=T.complex128)]),
])
def test_foreach_extrema_complex(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


# -- a call with out= reaches torch's out overload, which its dispatcher's refusal names
# ('aten::mm.dtype_out', 'aten::batch_norm_elemt.out') ------------------------------------------

@pytest.mark.parametrize('call', [
    lambda T: T.batch_norm_elemt(T.ones(3,3), None, None, T.ones(3), T.ones(3), 1e-5,
                                 out=T.ones(3,3)),
    lambda T: T.batch_norm_elemt(T.ones(3,3), None, None, T.ones(3), T.ones(3), 1e-5),
    lambda T: T.mm(T.ones(2,2), T.ones(2,2), T.float16, out=T.ones(2,2)),
    lambda T: T.mm(T.ones(2,2), T.ones(2,2), T.float16),
    lambda T: T.bmm(T.ones(1,2,2), T.ones(1,2,2), T.float16, out=T.ones(2,2)),
    lambda T: T.baddbmm(T.ones(1,2,2), T.ones(1,2,2), T.ones(1,2,2), T.float16, out=T.ones(2,2)),
    lambda T: T.batch_norm_stats(T.ones(3,3), 1e-5),
])
def test_out_overload_names(call):
    check(call, grad=False, match_message=True)


# -- linspace/logspace: the ends' dims checked before the number of steps, in torch's words --

@pytest.mark.parametrize('call', [
    lambda T: T.linspace(2.0, 1, -1),
    lambda T: T.linspace(2.0, 1, -1, out=T.ones(0)),
    lambda T: T.linspace(T.ones(2), T.ones(2), -3),
    lambda T: T.linspace(T.ones(1), T.ones(2), 3),
    lambda T: T.logspace(T.ones(1), 2, 3),
    lambda T: T.logspace(2.0, 1, -1),
    lambda T: T.logspace(2.0, 1, -1, out=T.ones(0)),
    lambda T: T.logspace(2.0, 1, 1),
    lambda T: T.logspace(2.0, 1, 0).shape,
    lambda T: T.linspace(2.0, 1, 0).shape,
    lambda T: T.linspace(2.0, 1, 5).sum(),
])
def test_linspace_logspace_steps(call):
    check(call, grad=False, match_message=True)


# -- hardtanh_ refuses a complex input (clamp's check) before reading its limits as doubles --

@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.hardtanh_(T.ones(3, dtype=T.complex64), -1.0, 0.5-1j),
    lambda T: T.nn.functional.hardtanh(T.ones(3, dtype=T.complex64), -1.0, 0.5-1j),
    lambda T: T.nn.functional.hardtanh_(T.ones(3), -1.0, 0.5-1j),
    lambda T: T.nn.functional.hardtanh_(T.ones(3, dtype=T.complex128), -1, 1),
    lambda T: T.nn.functional.hardtanh_(T.ones(3), -1, 1).sum(),
])
def test_hardtanh_inplace_complex(call):
    check(call, grad=False, match_message=True)


# -- 1-d reflect/replicate pads with negative amounts: torch's kernels check the output width
# before their dtype dispatch (a centred stft of a one-sample signal, n_fft < 0, reaches it) ---

@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.pad(T.ones(1,1,4).double(), [-2,-2], "reflect"),
    lambda T: T.nn.functional.pad(T.ones(1,1,4).double(), [-2,-3], "reflect"),
    lambda T: T.nn.functional.pad(T.ones(1,1,4).double(), [-2,-3], "replicate"),
    lambda T: T.nn.functional.pad(T.ones(1,1,4, dtype=T.bool), [-2,-3], "replicate"),
    lambda T: T.nn.functional.pad(T.ones(1,1,4).double(), [-1,0], "reflect").shape,
    lambda T: T.nn.functional.pad(T.ones(1,1,1).double(), [-2,-2], "reflect"),
    lambda T: T.nn.functional.pad(T.ones(1,1,1).double(), [-2,-2], "circular"),
    lambda T: T.ones(1, dtype=T.bool).stft(-3, hop_length=2, win_length=None,
                                           window=T.zeros(1, dtype=T.bool), center=True,
                                           pad_mode='reflect', normalized=False, onesided=None,
                                           return_complex=False),
    lambda T: T.ones(1, dtype=T.float64).stft(-3, hop_length=2, win_length=None,
                                              window=T.zeros(1, dtype=T.float64), center=True,
                                              pad_mode='reflect', normalized=False, onesided=None,
                                              return_complex=False),
])
def test_pad_1d_too_small(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)
