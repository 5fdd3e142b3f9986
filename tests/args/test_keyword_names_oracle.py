"""Arguments passed by torch's names reach ops whose bodies name them otherwise.

torch's parser takes every argument by the name its signature gives it (``input`` for the
first tensor of a function, ``size``, ``dims``, ``dtype``...); ember's bodies sometimes name
a parameter otherwise or take it as ``*args`` (``zeros(*size)``, ``view(self, *shape)``,
``sin_(self)``). The argument layer passes such keywords by position (``_args.body_args``).
Found by the fuzzer's keyword mode (``EMBER_FUZZ_KEYWORDS``); each case runs on both.
"""
import numpy as np
import pytest

from tests.oracle.oracle import check

X = np.arange(6, dtype=np.float64).reshape(2, 3) / 7 + 0.1

CASES = {
    'zeros_size': lambda lib: lib.zeros(size=(2, 3), dtype=lib.float64),
    'ones_size': lambda lib: lib.ones(size=[3]),
    'empty_size_shape': lambda lib: lib.empty(size=(2, 0)),
    'randn_size_shape': lambda lib: lib.randn(size=(4, 1)).shape,
    'arange_end_only': lambda lib: lib.arange(end=4),
    'arange_start_end': lambda lib: lib.arange(start=1, end=4),
    'arange_end_step': lambda lib: lib.arange(0, end=7, step=2),
    'new_ones_size': lambda lib, x: x.new_ones(size=(2,)),
    'new_zeros_size': lambda lib, x: x.new_zeros(size=[1, 2]),
    'view_size': lambda lib, x: x.view(size=(3, 2)),
    'view_dtype': lambda lib, x: x.detach().view(dtype=lib.int64),
    'reshape_shape': lambda lib, x: x.reshape(shape=(6,)),
    'torch_reshape_shape': lambda lib, x: lib.reshape(x, shape=(3, 2)),
    'permute_dims': lambda lib, x: x.permute(dims=(1, 0)),
    'torch_permute_dims': lambda lib, x: lib.permute(x, dims=[1, 0]),
    'tile_dims': lambda lib, x: lib.tile(x, dims=(2, 1)),
    'repeat_repeats': lambda lib, x: x.repeat(repeats=(1, 2)),
    'sum_to_size_size': lambda lib, x: x.sum_to_size(size=(1, 3)),
    'split_copy_split_size': lambda lib, x: lib.split_copy(x, split_size=1),
    'permute_copy_dims': lambda lib, x: lib.permute_copy(x, dims=(1, 0)),
    'swapaxes_names': lambda lib, x: x.swapaxes(axis0=0, axis1=1),
    'tensor_split_indices': lambda lib, x: lib.tensor_split(x, indices=[1], dim=1),
    'hsplit_indices': lambda lib, x: lib.hsplit(x, indices=[1]),
    'in_place_input': lambda lib, x: lib.sin_(input=x.clone()),
    'relu_input': lambda lib, x: lib.relu_(input=x.clone() - 0.3),
    'det_input': lambda lib, x: lib.det(input=x[:, :2]),
    'linalg_norm_input': lambda lib, x: lib.linalg.norm(input=x),
    'hardshrink_input': lambda lib, x: lib.hardshrink(input=x, lambd=0.3),
    'max_other': lambda lib, x: x.max(other=x.flip(0)),
    # a wrong name is still torch's TypeError
    'view_wrong_name': lambda lib, x: x.view(shape=(3, 2)),
    'zeros_wrong_name': lambda lib: lib.zeros(shape=(2,)),
    # ops whose signature torch's parser states with a required keyword-only parameter
    # (tools/gen_signatures.py missed them): linalg.solve_triangular, nonzero_static,
    # frombuffer
    'solve_triangular_input': lambda lib, x: lib.linalg.solve_triangular(
        input=lib.triu(x[:, :2]) + lib.eye(2, dtype=lib.float64), B=x, upper=True),
    'solve_triangular_left': lambda lib, x: lib.linalg.solve_triangular(
        lib.tril(x[:, 1:]) + lib.eye(2, dtype=lib.float64), x.T, upper=False, left=False),
    'solve_triangular_no_upper': lambda lib, x: lib.linalg.solve_triangular(x, x),
    'solve_triangular_upper_by_position': lambda lib, x: lib.linalg.solve_triangular(
        x, x, True),
    'solve_triangular_bad_name': lambda lib, x: lib.linalg.solve_triangular(
        A=x, B=x, upper=True),
    'nonzero_static_input': lambda lib: lib.nonzero_static(
        input=lib.tensor([1, 0, 2]), size=4, fill_value=-3),
    'nonzero_static_method': lambda lib: lib.tensor([1, 0, 2]).nonzero_static(size=1),
    'nonzero_static_float_size': lambda lib: lib.tensor([1, 0]).nonzero_static(size=1.5),
    'nonzero_static_by_position': lambda lib: lib.tensor([1, 0]).nonzero_static(1, 2),
    'frombuffer_buffer': lambda lib: lib.frombuffer(
        buffer=bytearray(b'\x01\x02\x03\x04'), dtype=lib.int8, count=2, offset=1),
    'frombuffer_dtype_by_position': lambda lib: lib.frombuffer(bytearray(b'\x01'), lib.int8),
    # torch's parser stops at the first parameter missing and names every required one from
    # there, given or not; a keyword is "given twice" only when its place was filled by
    # position (not NumPy's names: those are unexpected there)
    'missing_lists_the_rest': lambda lib: lib.full(fill_value=1),
    'unexpected_after_keywords': lambda lib, x: lib.softmax(x, dim=0, half_to_float=True),
    'unexpected_method_keyword': lambda lib, x: x.mm(mat2=x.T, out_dtype=lib.float32),
    'multiple_values': lambda lib, x: lib.add(x, x, input=x),
    'numpy_name_beside_torch_name': lambda lib, x: lib.add(x, other=x, x2=x),
    'numpy_name_after_position': lambda lib, x: lib.sum(x, 0, axis=0),
    # torch's Python functions (nn.functional) given their tensors by name: the dtype
    # refusals and checks that read the call's tensors see them
    'relu6_input_complex': lambda lib, x: lib.nn.functional.relu6(input=x * 1j),
    'hardtanh_input_complex': lambda lib, x: lib.nn.functional.hardtanh(input=x * 1j),
    'group_norm_input_complex': lambda lib, x: lib.nn.functional.group_norm(
        input=(x * 1j).reshape(1, 2, 3), num_groups=1),
    'mse_loss_target_by_name': lambda lib: lib.nn.functional.mse_loss(
        lib.tensor([[1, 2, 4]], dtype=lib.int32),
        target=lib.tensor([[0.5, 1.5, 2.0]], dtype=lib.float64)),
    'mse_loss_both_by_name': lambda lib: lib.nn.functional.mse_loss(
        target=lib.tensor([0.5, 1.5], dtype=lib.float64),
        input=lib.tensor([1, 2], dtype=lib.int32)),
    'mse_loss_int_refused': lambda lib: lib.nn.functional.mse_loss(
        input=lib.tensor([1, 2], dtype=lib.int32), target=lib.tensor([1, 3], dtype=lib.int32)),
    # the self-dispatching pointwise ops (pointwise._unary / _binary)
    'unary_no_input': lambda lib: lib.sin(),
    'unary_two_positional': lambda lib, x: lib.sin(x, x),
    'unary_method_argument': lambda lib, x: x.sin(1),
    'unary_input_by_name_out': lambda lib, x: lib.sin(input=x.detach(), out=lib.empty(2, 3,
                                                                                    dtype=lib.float64)),
    'binary_numpy_names': lambda lib, x: lib.atan2(x1=x, x2=x.flip(0)),
    'binary_other_numpy_name': lambda lib, x: lib.atan2(x, x2=x.flip(1)),
    'binary_other_by_name_out': lambda lib, x: lib.atan2(
        x.detach(), other=x.detach() + 1, out=lib.empty(2, 3, dtype=lib.float64)),
    'binary_both_by_name': lambda lib, x: lib.mul(other=2, input=x),
    'binary_number_by_name': lambda lib, x: lib.remainder(x, other=0.25),
    'binary_method_numpy_name': lambda lib, x: x.eq(x2=x.flip(0)),
    'binary_method_no_other': lambda lib, x: x.eq(),
    'binary_only_other': lambda lib, x: lib.atan2(other=x),
    'binary_unknown_name': lambda lib, x: lib.atan2(x, b=2),
    'binary_unknown_name_overloads': lambda lib: lib.ne(False, b=False),
    'binary_nothing': lambda lib: lib.atan2(),
    'binary_three_positional': lambda lib, x: lib.atan2(x, x, x),
    'binary_inplace_method_by_name': lambda lib, x: x.detach().clone().atan2_(other=x.detach()),
    'add_numpy_name': lambda lib, x: lib.add(x=x, other=x, alpha=2),
}


@pytest.mark.parametrize('name', sorted(CASES))
def test_torch_names_reach_the_body(name):
    fn = CASES[name]
    if fn.__code__.co_argcount == 1:
        check(fn, match_message=True)
    else:
        check(fn, X, match_message=True)


def test_random_to_by_name_draws_below_it():
    import ember
    t = ember.zeros(100).random_(to=3)
    assert set(t.unique().tolist()) <= {0.0, 1.0, 2.0}
