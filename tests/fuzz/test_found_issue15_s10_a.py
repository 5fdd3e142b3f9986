"""Gated findings of the fuzzer on fresh seeds 6000-6399 and keyword seeds 6400-6479
(issue 15), each pinned against torch."""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check


@pytest.mark.parametrize('other', [[1, 2], (1, 2), [0.5]])
def test_eq_declines_a_list_given_by_keyword(other):
    """``t.__eq__(other=[1, 2])`` answers NotImplemented as the positional call does (ember
    compared elementwise, or failed to broadcast)."""
    check(lambda T: T.zeros(2, 1, 3, dtype=T.int16).__eq__(other=other) is NotImplemented,
          grad=False)


@pytest.mark.parametrize('call', [
    lambda F, T: F.cross_entropy(T.tensor(-0.7), T.tensor(1.4), label_smoothing=2.0),
    lambda F, T: F.cross_entropy(T.tensor(-0.), T.ones(3, 3), ignore_index=3,
                                 label_smoothing=1.5),
    lambda F, T: F.cross_entropy(T.tensor(-0.), T.zeros(2, dtype=T.long), label_smoothing=0.5),
    lambda F, T: F.cross_entropy(T.ones(2, 3), T.ones(2, 3) / 3, label_smoothing=-1.0),
    lambda F, T: F.cross_entropy(T.ones(3), T.ones(3) / 3, label_smoothing=-0.5),
    lambda F, T: F.cross_entropy(T.zeros(0), T.zeros(0), T.zeros(0), label_smoothing=-1.0),
    lambda F, T: F.cross_entropy(T.zeros(0), T.zeros(0), T.zeros(0), label_smoothing=0.5),
    lambda F, T: F.cross_entropy(T.ones(2, 3), T.ones(2, 3) / 3, T.ones(2),
                                 label_smoothing=1.5),
], ids=['0d_probs_before_smoothing', '0d_indices_after_smoothing', '0d_indices_dim_error',
        'negative_probs', 'negative_1d', 'empty_negative', 'empty_no_classes',
        'weight_before_smoothing'])
def test_cross_entropy_checks_in_torchs_order(call):
    """torch reads the class count of a probability target before it checks
    label_smoothing, checks only a positive one (a negative one is ignored), and divides
    it by a class count of 0 without failing (ember raised ZeroDivisionError)."""
    check(lambda T: call(T.nn.functional, T), grad=False, match_message=True)


@pytest.mark.parametrize('rate', [float('nan'), -1.0, -float('inf')])
def test_poisson_refuses_a_nan_rate(rate):
    """torch's check is ``rate >= 0``, which NaN fails; ember leaked NumPy's ValueError."""
    check(lambda T: T.poisson(T.tensor([1.0, rate])), grad=False, match_message=True)


@pytest.mark.parametrize('zp_dtype', ['float32', 'float16'])
@pytest.mark.parametrize('zero_point', [[-0.1236, 2.4], [-1.0, 0.6], [1.927, -0.51]])
def test_fake_quantize_per_channel_takes_any_floating_zero_point(zp_dtype, zero_point):
    """A floating zero point is an offset added before rounding, never range-checked
    (ember refused one outside [quant_min, quant_max] and rounded it first)."""
    x = np.array([[-0.0301, 0.8788], [2.81, -2.38], [3.78, 0.2]], np.float32)
    check(lambda T, a: T.fake_quantize_per_channel_affine(
        a, T.tensor([0.3519, 0.4557]), T.tensor(zero_point, dtype=getattr(T, zp_dtype)),
        1, 0, 2), x)


def test_fake_quantize_per_channel_still_checks_an_integer_zero_point():
    check(lambda T: T.fake_quantize_per_channel_affine(
        T.ones(2), T.ones(2), T.tensor([0, 3], dtype=T.int32), 0, 0, 2),
        grad=False, match_message=True)


@pytest.mark.parametrize('dtypes', [
    ('float64', 'complex64', None, None), ('float16', 'complex64', None, None),
    ('float32', 'complex64', 'complex128', None), ('float64', 'float32', None, 'complex64'),
    ('float32', 'complex64', None, 'float64'), ('float64', 'float32', 'complex128', None),
    ('float32', 'int64', 'float32', 'complex64'), ('float32', 'bool', None, 'complex64'),
], ids=lambda d: '-'.join(str(x) for x in d))
def test_bce_with_logits_builds_the_loss_in_the_targets_dtype(dtypes):
    """torch builds the loss in place: a complex target keeps its dtype (ember promoted
    it), and a step whose operands promote to complex refuses to write into a real tensor
    (ember took a complex weight or pos_weight and dropped the imaginary part)."""
    inp, tgt, w, pw = dtypes

    def call(T):
        t = T.ones(2, dtype=getattr(T, tgt)) if tgt == 'bool' else \
            (T.ones(2, dtype=T.float64) / 3).to(getattr(T, tgt))
        return T.nn.functional.binary_cross_entropy_with_logits(
            T.tensor([-1.47, 0.5], dtype=getattr(T, inp)), t,
            None if w is None else T.tensor([0.5, 2.0], dtype=getattr(T, w)),
            pos_weight=None if pw is None else T.tensor([1.5, 0.25], dtype=getattr(T, pw)))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)
        check(lambda T: T.binary_cross_entropy_with_logits(
            T.tensor(-1.47, dtype=T.float64), T.tensor(-5.4 - 0.8j, dtype=T.complex64),
            None, None, 3), grad=False)


@pytest.mark.parametrize('alpha', [None, 0, 1, 2.5])
@pytest.mark.parametrize('other', ['complex128', 'float64', 'int32'])
def test_foreach_add_with_alpha_promotes_a_tensor_as_a_tensor(alpha, other):
    """Without alpha torch's parser reads one 0-d tensor as the Scalar overload's number
    (int64 plus a complex128 one is complex64); an alpha picks the Tensor overload, which
    promotes it as a 0-d tensor (complex128). ember read it as a number either way."""
    kw = {} if alpha is None else {'alpha': alpha}
    check(lambda T: T._foreach_add(
        [T.tensor(7.2, dtype=T.float64), T.tensor(3), T.ones(2, dtype=T.int64), T.ones(2)],
        T.tensor(1, dtype=getattr(T, other)), **kw), grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.embedding(T.ones(3, 3, dtype=T.long) * 5, T.zeros(2, 0)),
    lambda T: T.nn.functional.embedding(T.tensor([[0, 5], [-1, 0]]), T.zeros(2, 0)),
    lambda T: T.nn.functional.embedding(T.tensor([1]), T.zeros(0, 3)),
    lambda T: T.embedding(T.zeros(2, 0), T.tensor([-3])),
    lambda T: T.index_select(T.zeros(3, 2, 0), 0, T.tensor([0, 1, 7])),
    lambda T: T.index_select(T.zeros(3, 0, 2), 2, T.tensor([-1, 9])),
    lambda T: T.index_select(T.zeros(0, 2, 3), -1, T.tensor([5, -7])),
    lambda T: T.index_select(T.zeros(2, 3), 0, T.tensor([5])),
    lambda T: T.index_select(T.zeros(2, 3), 1, T.tensor([5])),
], ids=['embedding_no_columns', 'embedding_first_bad', 'embedding_no_rows', 'aten_embedding',
        'empty_dim0', 'empty_dim2', 'empty_last', 'full_dim0', 'full_dim1'])
def test_index_select_out_of_range_in_an_empty_tensor(call):
    """An index out of range in a tensor with a size-0 dim elsewhere goes to torch's copy
    kernel, which names it ("INDICES element is out of DATA bounds", RuntimeError); ember
    raised index_select's IndexError (also for embedding, which is index_select)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('base', [-2, -1, 300, -300, 2])
@pytest.mark.parametrize('dtype', ['uint8', 'int8', 'int32'])
def test_an_integer_base_wraps_into_the_exponents_dtype(base, dtype):
    """``pow(number, tensor)`` casts an int base to an integer exponent's dtype as C does
    (300 is 44 in uint8); ember's conversion overflowed (OverflowError)."""
    def call(T):
        t = T.tensor([0, 1, 3], dtype=getattr(T, dtype))
        return T.pow(base, t), T._foreach_pow(base, [t, t[:1]]), base ** t
    check(call, grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.trapz(T.zeros(2, 0, dtype=T.bool), T.zeros(3, 1, dtype=T.bool), dim=1),
    lambda T: T.trapezoid(T.zeros(2, 0, dtype=T.bool), T.zeros(3, 1, dtype=T.bool), dim=1),
    lambda T: T.trapz(T.zeros(2, 3, dtype=T.bool), T.zeros(3, dtype=T.bool), dim=1),
    lambda T: T.nn.functional.linear(T.zeros(0, 2, dtype=T.bool), T.zeros(2, 2, dtype=T.bool)),
    lambda T: T.nn.functional.linear(T.zeros(2, 2, dtype=T.bool), T.zeros(0, 2, dtype=T.bool)),
    lambda T: T.nn.functional.linear(T.zeros(2, 2, dtype=T.bool), T.zeros(2, 2, dtype=T.bool)),
], ids=['trapz_empty_y', 'trapezoid_empty_y', 'trapz_refuses', 'linear_empty_input',
        'linear_empty_weight', 'linear_refuses'])
def test_a_dtype_refused_by_a_kernel_that_an_empty_operand_skips(call):
    """One empty operand empties the result, and torch's kernel (which refuses the dtype)
    does not run; ember refused where any operand was non-empty."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('ends', [(0.0, -0.7), (0.0, -1.5), (0.0, 1e30), (300.0, 0.0),
                                  (0.0, 300.0), (2.7, 5)])
@pytest.mark.parametrize('steps', [1, 2])
@pytest.mark.parametrize('dtype', ['uint8', 'int8'])
def test_linspace_of_one_value_converts_only_the_start(ends, steps, dtype):
    """One value is the start, filled in: torch never converts the end to the integer
    dtype then (ember refused an end out of its range)."""
    check(lambda T: T.linspace(*ends, steps, dtype=getattr(T, dtype)), grad=False,
          match_message=True)


_X = (np.array([[0.09 - 0.31j, 1.67 - 1.44j, -0.05 - 0.2j],
                [1.06 - 0.43j, -0.36 + 1.31j, 0.82 + 1.98j],
                [-0.44 + 0.46j, -0.04 - 0.76j, -0.34 + 1.17j]], np.complex64))


@pytest.mark.parametrize('onesided', [None, False])
@pytest.mark.parametrize('normalized', [False, True])
def test_istft_of_a_two_sided_input_to_a_real_signal(onesided, normalized):
    """With return_complex=False torch reads a two-sided input's first n_fft // 2 + 1
    frequencies as a real signal's (Hermitian) spectrum; ember took the real part of the
    full inverse transform, which differs unless the input is Hermitian."""
    check(lambda T, x: T.istft(x, 3, 1, 3, T.ones(3), True, normalized, onesided, None,
                               False), _X)
    check(lambda T, x: T.istft(x, 3, 1, 3, T.ones(3), True, normalized, onesided, None,
                               True), _X)


@pytest.mark.parametrize('args', [
    ((3, 3), 3, 1, 3, None, True, True), ((2, 3), 3, 1, 3, None, False, False),
    ((2, 3), 3, 1, 3, None, None, True), ((3, 3), 4, 1, 4, 'complex', None, False),
    ((3, 3), 4, 1, 4, 'complex', True, True), ((3, 3), 4, 1, 4, 3, None, True),
    ((3, 3), 4, -1, 4, None, None, False), ((3, 3), 4, 3, 2, None, None, False),
    ((3, 3), 4, 1, 5, None, None, False), ((3, 3), 3, 1, 5, None, True, False),
], ids=['onesided_rows', 'twosided_rows', 'onesided_complex', 'complex_window_real',
        'complex_window_onesided', 'window_size', 'hop', 'hop_over_win', 'win', 'rows_first'])
def test_istft_refuses_inputs_as_torch(args):
    """torch's kernel checks the frequency rows against n_fft and onesided, then hop,
    win_length and the window's shape (each stating the call), then that a complex output
    is two-sided and a real one has a real window; ember checked none of the rows or the
    output (silent acceptance)."""
    shape, n_fft, hop, win, window, onesided, rc = args

    def call(T):
        w = None if window is None else T.ones(win, dtype=T.complex64) if window == 'complex' \
            else T.ones(window)
        return T.istft(T.ones(shape, dtype=T.complex64), n_fft, hop, win, w, True, False,
                       onesided, None, rc)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


@pytest.mark.parametrize('dtypes', [('float32', 'int64'), ('int64', 'float32'),
                                    ('float16', 'int64'), ('bool', 'int32'),
                                    ('bfloat16', 'float16'), ('float32', 'float64')])
def test_cat_of_empty_vectors_promotes_as_torch(dtypes):
    """Only 1-d empty tensors: the result is empty with torch's promoted dtype (ember's
    NumPy concatenation gave float64 for float32 and int64)."""
    check(lambda T: T.cat([T.zeros(0, dtype=getattr(T, dtypes[0])),
                           T.zeros(0, dtype=getattr(T, dtypes[1]))], -2), grad=False)
    check(lambda T: T.concatenate([T.zeros(0, dtype=getattr(T, dtypes[0])),
                                   T.zeros(0, dtype=getattr(T, dtypes[1])),
                                   T.zeros(0, dtype=getattr(T, dtypes[0]))], 0), grad=False)


@pytest.mark.parametrize('call', [
    lambda T, x, y: x.__add__(y, alpha=[0.5]),
    lambda T, x, y: x.__radd__(y, alpha=(1.0,)),
    lambda T, x, y: x.__add__(y, alpha=2),
    lambda T, x, y: x.__radd__(y, alpha=2),
    lambda T, x, y: x.__add__(other=y, alpha=3),
], ids=['list_alpha', 'tuple_alpha_r', 'alpha', 'alpha_r', 'keywords'])
def test_add_operator_declines_a_list_alpha(call):
    """torch's parser refuses a list alpha, so the operator answers NotImplemented (ember read
    the one-element list as a number)."""
    check(lambda T: (lambda r: r if r is NotImplemented else r.tolist())(
        call(T, T.tensor([-0.33, 0.42, 0.16]), T.tensor([-1.7, -1.1, 0.15]))), grad=False)


@pytest.mark.parametrize('index_dtype', ['int32', 'int64'])
@pytest.mark.parametrize('shape_dim', [((3, 1), 1), ((3, 1), 0), ((3,), 0), ((2, 3, 1), 2),
                                       ((2, 3, 1), 1), ((3, 2), 1)])
@pytest.mark.parametrize('index', [[5], [-1], 5])
def test_index_add_out_of_range_by_index_dtype(index_dtype, shape_dim, index):
    """torch's scatter_add kernel (n-d self, first or last dim) names a bad index only for an
    int64 index; an int32 one goes to its slice loop ("index out of range in self",
    IndexError). ember named it for both."""
    shape, d = shape_dim
    src = list(shape)
    src[d] = 1
    if not isinstance(index, list):
        del src[d]
    check(lambda T: T.zeros(shape, dtype=T.int32).index_add_(
        d, T.tensor(index, dtype=getattr(T, index_dtype)), T.ones(src, dtype=T.int32)),
        grad=False, match_message=True)


@pytest.mark.parametrize('index, source', [
    (([1, 2], 'int32'), ([1, 2], 'int64')), (([1, 2], 'int64'), ([1., 2.], 'float32')),
    (([1, 2], 'int64'), ([1, 2, 3], 'int64')), (([1, 9], 'int64'), ([1, 2], 'int64')),
    (([1, 2], 'int64'), ([1, 2], 'int64')),
], ids=['index_dtype', 'source_dtype', 'numel', 'bounds', 'fine'])
def test_put_checks_its_arguments_before_an_expanded_self(index, source):
    """put_ checks the index's dtype, the source's dtype and the element counts before it
    refuses to write an expanded tensor (ember refused the expanded tensor first); the
    bounds come after."""
    check(lambda T: T.tensor([5, 5, 5]).expand(2, 3).put_(
        T.tensor(index[0], dtype=getattr(T, index[1])),
        T.tensor(source[0], dtype=getattr(T, source[1]))), grad=False, match_message=True)


def _windows(T, x, op):
    F = T.nn.functional
    return {'avg1d': lambda: F.avg_pool1d(x, 2),
            'avg1d_pad': lambda: F.avg_pool1d(x, 2, 1, padding=1),
            'adaptive1d': lambda: F.adaptive_avg_pool1d(x, 2),
            'linear': lambda: F.interpolate(x, size=2, mode='linear'),
            'lp_pool1d': lambda: F.lp_pool1d(x, 3, 2)}[op]()


@pytest.mark.parametrize('op', ['avg1d', 'avg1d_pad', 'adaptive1d', 'linear', 'lp_pool1d'])
def test_a_non_finite_pooling_gradient_stays_in_its_windows(op):
    """A NaN or inf output gradient reaches only the inputs of its window (torch); ember's
    matrix products spread it to every input (0 * inf). lp_pool1d of a window whose cubes
    sum below zero has a NaN output, and the input outside every window keeps a 0
    gradient."""
    x = np.array([[[0.86, -0.47, -0.26, 1.5, -2.0]], [[-2.03, 0.82, 1.4, -0.1, 0.3]]])

    def call(T, a):
        a.requires_grad_(True)
        y = _windows(T, a, op)
        g = T.ones_like(y)
        g[..., 0] = float('nan') if op != 'linear' else float('inf')
        y.backward(g)
        return a.grad
    check(call, x, grad=False)


@pytest.mark.parametrize('value', [300, -2, -255, -256, 256, -300, 2 ** 40, 2.5, True])
@pytest.mark.parametrize('dtype', ['uint8', 'int8'])
def test_a_number_into_an_integer_tensor_is_converted_checked(value, dtype):
    """where's and scatter's number, and pow's exponent, go to the tensor's integer dtype by
    torch's checked conversion (300 into uint8 is refused; an unsigned type takes negatives
    down to -255); ember wrapped them around as its arithmetic kernels do. (pow(number,
    tensor) does wrap its base, see test_an_integer_base_wraps_into_the_exponents_dtype.)"""
    def call(T, form):
        t = T.tensor([0, 1, 3], dtype=getattr(T, dtype))
        return {'where': lambda: T.where(t > 0, value, t),
                'where_other': lambda: T.where(t > 0, t, value),
                'method': lambda: t.where(t > 0, value),
                'scatter': lambda: T.scatter(t, 0, T.tensor([0]), value),
                'scatter_add': lambda: T.scatter(t, 0, T.tensor([0, 2]), value, reduce='add'),
                'scatter_empty': lambda: T.scatter(t, 0, T.tensor([], dtype=T.long), value),
                'pow': lambda: T.pow(t, value),
                'pow_': lambda: t.clone().pow_(value)}[form]()
    for form in ('where', 'where_other', 'method', 'scatter', 'scatter_add', 'scatter_empty',
                 'pow', 'pow_'):
        check(lambda T: call(T, form), grad=False, match_message=True)


@pytest.mark.parametrize('value', [1e10, 70000.0, 1j, 1 + 0j, float('nan'), 300.7])
@pytest.mark.parametrize('dtype', ['uint8', 'float16', 'float32'])
def test_scatter_refuses_a_value_its_dtype_cannot_hold(value, dtype):
    check(lambda T: T.scatter(T.tensor([0, 1, 3]).to(getattr(T, dtype)), 0, T.tensor([0]),
                              value), grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.gru(T.tensor([-1, -3, 0, 1]), T.tensor([-1, -1, 1, -1]), T.tensor([-1]),
                    [T.tensor([2, 0, -1, -3]), T.ones(4, dtype=T.long)], False, 1, 1.5, False,
                    False),
    lambda T: T.rnn_tanh(T.ones(4), T.tensor([1, 1, 1, 1]), T.ones(1), [T.ones(4), T.ones(4)],
                         False, 1, 0., False, False),
    lambda T: T.gru(T.ones(4), T.ones(1), [T.ones(4), T.ones(4)], False, 1, 0., False, False,
                    False),
    lambda T: T.rnn_tanh(T.ones(4), T.ones(1), [T.ones(4), T.ones(4)], False, 1, 0., False,
                         False, False),
    lambda T: T.gru(T.ones(4, 3), T.tensor([2, 2]), T.ones(1, 2, 2),
                    [T.ones(6, 3), T.ones(6, 2)], False, 1, 0., False, False),
], ids=['gru_packed', 'rnn_packed', 'gru', 'rnn', 'gru_packed_fine'])
def test_a_recurrent_layer_whose_projection_is_0d(call):
    """1-d data with 1-d weights projects to a 0-d tensor: torch's packed layers fail to
    narrow it (RuntimeError), its unpacked ones to split it into steps (IndexError); ember
    indexed it (IndexError, or Python's "tuple index out of range")."""
    check(call, grad=False, match_message=True)
