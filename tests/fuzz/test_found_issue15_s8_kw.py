"""Findings of the fuzzer's keyword mode (``EMBER_FUZZ_KEYWORDS=1``, seeds 0-59) and the
ungated exception-class rows of seeds 2040-2239 (issue 15): torch's exception class, and its
message, each pinned against torch."""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check


def _quiet(call):
    """``call`` with the losses' size-mismatch warning silenced (both libraries give it)."""
    def run(T, *args):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return call(T, *args)
    return run


# -- mse / l1 / smooth_l1: the shapes broadcast first, then the weight or the reduction is
# read, then the kernel runs (ember read the reduction first, and computed the weighted
# errors before comparing the weight's size)
_LOSS_CASES = {
    'mse_shapes_before_reduction': lambda T: T.nn.functional.mse_loss(
        T.ones(2, 3), T.ones(4), reduction=0),
    'l1_shapes_before_reduction': lambda T: T.nn.functional.l1_loss(
        T.ones(2, 3), T.ones(4), reduction='foo'),
    'smooth_l1_shapes_before_reduction': lambda T: T.nn.functional.smooth_l1_loss(
        T.ones(2, 3), T.ones(4), reduction=2),
    'mse_int_reduction': lambda T: T.nn.functional.mse_loss(T.ones(2), T.ones(2), reduction=1),
    'mse_weight_size_before_subtraction': lambda T: T.nn.functional.mse_loss(
        T.ones(2, 3), T.ones(2, 3, dtype=T.bool), weight=T.ones(4, 4)),
    'l1_bool_subtraction_before_reduction': lambda T: T.nn.functional.l1_loss(
        T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool), reduction='foo',
        weight=T.ones(2, dtype=T.bool)),
    'mse_weighted_reduction_read_last': lambda T: T.nn.functional.mse_loss(
        T.ones(2), T.zeros(2), reduction='foo', weight=T.ones(2)),
    'l1_weighted_elementwise_mean': lambda T: T.nn.functional.l1_loss(
        T.ones(2), T.zeros(2), reduction='elementwise_mean', weight=T.ones(2)),
    'smooth_l1_reduction_before_beta': lambda T: T.nn.functional.smooth_l1_loss(
        T.ones(2), T.zeros(2), reduction='foo', beta=-1.0),
    'smooth_l1_shapes_before_beta': lambda T: T.nn.functional.smooth_l1_loss(
        T.ones(2, 3), T.ones(4), beta=-1.0),
    'mse_int_weighted': lambda T: T.nn.functional.mse_loss(
        T.tensor([[1, 2]], dtype=T.int32), T.tensor([[0, 5]], dtype=T.int32),
        weight=T.tensor([[1, 2]], dtype=T.int32), reduction='sum'),
}


@pytest.mark.parametrize('name', sorted(_LOSS_CASES))
def test_pair_losses_check_in_torchs_order(name):
    check(_quiet(_LOSS_CASES[name]), match_message=True)


@pytest.mark.parametrize('reduction', [0, 1.5, None, 'foo', 'elementwise_mean', 'sum'])
def test_poisson_nll_loss_reduction(reduction):
    """torch builds its message as ``reduction + "..."``: a reduction not a str is that
    sum's TypeError (ember: ValueError); 'elementwise_mean' is refused here (ember took it)."""
    check(lambda T: T.nn.functional.poisson_nll_loss(T.ones(2, 3), T.ones(2, 3),
                                                     reduction=reduction),
          match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.embedding_bag(T.ones(2, 0, dtype=T.long), T.ones(2, 3)),
    lambda T: T.nn.functional.embedding_bag(T.ones(2, 0), T.ones(2, 0)),
    lambda T: T.nn.functional.embedding_bag(T.tensor([[True]]), T.ones(3, 1, dtype=T.bool),
                                            None, 3, False, 1, False),
    lambda T: T.nn.functional.embedding_bag(T.tensor([[1, 0]], dtype=T.int32), T.ones(3, 2)),
    lambda T: T.nn.functional.embedding_bag(T.tensor([[1., 0.]]), T.ones(3, 2)),
], ids=['zero_width', 'zero_width_float', 'bool_before_mode', 'int32', 'float_indices'])
def test_embedding_bag_of_a_2d_input_makes_torchs_offsets(call):
    """torch's Python function makes the offsets of a 2-D input with its arange in the
    input's dtype: a width of 0 is its "step must be nonzero" (ember: ZeroDivisionError),
    a bool input its dtype refusal, before the mode is read."""
    check(call, match_message=True)


def _spd(n, batch=()):
    a = np.arange(1, n * n + 1, dtype=np.float64).reshape(n, n) / (n * n)
    return np.broadcast_to(a @ a.T + n * np.eye(n), batch + (n, n)).copy()


@pytest.mark.parametrize('call', [
    lambda T, a: T.lobpcg(a, B=T.ones(0, dtype=T.float64)),
    lambda T, a: T.lobpcg(a.detach().to(T.complex128), B=T.ones(2, 2, dtype=T.complex128)),
    lambda T, a: T.lobpcg(a.detach()[:1, :1].to(T.complex128)),
    lambda T, a: T.lobpcg(a, B=a.detach()[:2, :2]),
], ids=['b_shape', 'b_shape_before_dtype', 'size_before_dtype', 'b_shape_with_grad'])
def test_lobpcg_checks_shapes_then_size_then_dtype(call):
    """torch's lobpcg compares A's and B's shapes (AssertionError) and the number of rows
    with 3 n (ValueError) before anything fails on a complex A."""
    check(call, _spd(6), match_message=True)


def test_lobpcg_takes_n_from_x():
    """With ``X`` given, torch iterates its columns and ignores ``n`` (ember refused a
    differing ``n``)."""
    x = np.linspace(1, 2, 6)[:, None]
    check(lambda T, a, x0: T.lobpcg(a, X=x0, n=2)[0], _spd(6), x, grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.linalg.matrix_rank(T.ones(2, 3, 3), T.ones(2, 1, 3), False),
    lambda T: T.linalg.pinv(T.ones(2, 3, 3, dtype=T.float64), atol=T.ones(2, 1, 3,
                                                                         dtype=T.float64)),
    lambda T: T.normal(T.ones(1, 3), T.ones(2, 2, 3, 4)),
    lambda T: T.instance_norm(T.ones(2, 0, dtype=T.float64), None, None,
                              T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64), True,
                              0.1, 1e-5, False),
], ids=['matrix_rank_tolerance', 'pinv_tolerance', 'normal', 'instance_norm_reshape'])
def test_numpy_shape_errors_in_torchs_words(call):
    """NumPy's broadcasting and reshape errors, raised inside a body, carried NumPy's words
    ("operands could not be broadcast together with shapes ..."): torch's are read off the
    shapes NumPy names."""
    check(call, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.std(T.ones(4, 4, dtype=T.bool), [], keepdim=True),
    lambda T: T.var_mean(T.ones(2, dtype=T.uint8), [-1], keepdim=True),
    lambda T: T.std_mean(T.ones(2, dtype=T.int32), [0], keepdim=True),
    lambda T: T.ones(2, 2, dtype=T.int64).var([0], keepdim=True),
], ids=['std', 'var_mean', 'std_mean', 'method_var'])
def test_variance_of_integers_by_keyword(call):
    """A call passing keepdim by name, whose body raised (an integer input): the argument
    layer re-checked the call as the body took it (unbiased=None) and raised the parser's
    TypeError; torch's dtype error, with its op's name for var_mean/std_mean."""
    check(call, match_message=True)


_ORDER_CASES = {
    # (a NaN fails torch's tests "delta > 0", "output_size >= 0": ember's "<= 0", "< 0" let
    # it through to another error)
    'huber_nan_delta': lambda T: T.nn.functional.huber_loss(
        T.ones(2, 0, dtype=T.long), T.ones(2, 0, dtype=T.long), 'mean', float('nan')),
    'max_unpool1d_nan_kernel': lambda T: T.nn.functional.max_unpool1d(
        T.ones(1, 3), T.zeros(1, 3, dtype=T.long), float('nan')),
    'max_unpool2d_nan_kernel': lambda T: T.nn.functional.max_unpool2d(
        T.ones(1, 2, 3, 3), T.zeros(1, 2, 3, 3, dtype=T.long), float('nan'), 1),
    # beta 0 runs torch's l1 kernel, which takes complex numbers
    'smooth_l1_complex_beta_0': lambda T: T.nn.functional.smooth_l1_loss(
        T.tensor([1 + 2j, 3j]), T.tensor([1j, 1 - 1j]), beta=0.0),
    'smooth_l1_complex_refused': lambda T: T.nn.functional.smooth_l1_loss(
        T.tensor([1 + 2j, 3j]), T.tensor([1j, 1 - 1j]), beta=0.5),
    # an infinite step for an integer dtype: torch's conversion error (ember: OverflowError)
    'arange_int_infinite_step': lambda T: T.arange(False, -0.7, dtype=T.int32,
                                                   step=-float('inf')),
    # narrow_copy checks the start before the length (narrow the other way round)
    'narrow_copy_start_first': lambda T: T.ones(3, 1).narrow_copy(-1, 2, -1),
    'narrow_copy_start_first_4d': lambda T: T.narrow_copy(T.ones(1, 2, 3, 4), 1, 3, -1),
    'narrow_length_first': lambda T: T.ones(3, 1).narrow(-1, 2, -1),
    # index_select of an empty vector: the vector kernel's IndexError
    'index_select_empty_vector': lambda T: T.index_select(T.ones(0, dtype=T.long), 0,
                                                          T.tensor([-5])),
    'index_select_empty_matrix': lambda T: T.index_select(T.ones(0, 2), 0, T.tensor([0])),
    # cat refuses a 0-d tensor anywhere in the list before it wraps the dim
    'concatenate_zero_dim_second': lambda T: T.concatenate([T.ones(3, 3), T.tensor(0.5)], 2),
    'cat_zero_dim_after_skipped': lambda T: T.cat([T.ones(0), T.tensor(1.)]),
}


@pytest.mark.parametrize('name', sorted(_ORDER_CASES))
def test_torchs_first_error(name):
    check(_ORDER_CASES[name], match_message=True)


def _fq(T, x, scale, zp, axis, lo, hi):
    return T.fake_quantize_per_channel_affine(x, scale, zp, axis, lo, hi)


@pytest.mark.parametrize('call', [
    lambda T: _fq(T, T.tensor([-1.]), T.tensor([1.]), T.tensor([float('inf')]), -2, 3, 2),
    lambda T: _fq(T, T.tensor([-1.]), T.tensor([1.]), T.tensor([0]), -2, 3, 2),
    lambda T: _fq(T, T.tensor([-1.]), T.ones(2), T.zeros(1, dtype=T.int32), -2, 3, 2),
    lambda T: _fq(T, T.tensor([-1.]), T.tensor([1.]), T.zeros(1, dtype=T.int32), 5, 3, 2),
    lambda T: _fq(T, T.ones(2, 2), T.tensor([1.]), T.zeros(1, dtype=T.int32), -1, 0, 5),
    lambda T: _fq(T, T.ones(2, 3), T.ones(3), T.zeros(3, dtype=T.int32), -1, 0, 5),
    lambda T: _fq(T, T.tensor(1.), T.tensor([1.]), T.zeros(1, dtype=T.int32), 0, 0, 5),
    lambda T: _fq(T, T.tensor([-1.]), T.tensor([1.]), T.tensor([5], dtype=T.int32), 0, 0, 2),
], ids=['axis_before_range', 'zero_point_dtype_first', 'shapes_before_axis', 'axis_too_big',
        'negative_axis_size_read', 'negative_axis_refused', 'zero_dim', 'zero_point_range'])
def test_fake_quantize_per_channel_checks_in_torchs_order(call):
    """torch checks the zero point's dtype, the shapes of scale and zero point, the axis as
    a dim (IndexError), the range, the sizes (reading a negative axis), the axis's sign;
    ember checked the range first and refused a negative axis before the sizes."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.embedding_bag(T.tensor([[4, -3, 5, 3]]),
                                            T.ones(4, 4, dtype=T.long), None, 2),
    lambda T: T.nn.functional.embedding_bag(T.tensor([[1, 9]]), T.ones(4, 4), None, 2),
], ids=['integer_weight', 'index_out_of_range'])
def test_embedding_bag_max_norm_is_torchs_embedding_renorm(call):
    """With max_norm, torch's Python function runs embedding_renorm_ first: each sorted row
    selected (IndexError) then its norm taken (the norm's dtype error); ember leaked
    NumPy's IndexError."""
    check(call, grad=False, match_message=True)
