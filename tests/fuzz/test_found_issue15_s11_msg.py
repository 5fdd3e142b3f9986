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
